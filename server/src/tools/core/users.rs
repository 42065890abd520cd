//! Team users: `core-users-manage`, `core-users-upsert` and `core-users-bulk`.
//!
//! Paths are `[synthetic]` (`/api/admin/admin_users`). Activation is a `PUT` of `active`,
//! and the persisted value is checked (C7): a user the API left in the other state is a
//! `persisted_mismatch`, not a success.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::admin_users;
use super::kit::{self, Need, action_required, body, created_object, read_back, required};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, fanout, tool};

/// A team user as the API returns it (loose: echoed).
pub(crate) fn user_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("first_name", Kind::Str),
        ("last_name", Kind::Str),
        ("email", Kind::Str),
        ("username", Kind::Str),
        ("avatar", Kind::Obj),
        ("lang", Kind::Str),
        ("time_zone", Kind::Str),
        ("active", Kind::Bool),
        ("last_login_at", Kind::Str),
        ("roles", Kind::List),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Interface language of a team user.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Lang {
    En,
    Es,
    Pt,
}

impl Lang {
    fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Pt => "pt",
        }
    }
}

/// The profile fields a create or update may send.
#[derive(Debug, Default, Deserialize, JsonSchema)]
struct Profile {
    /// Username (letters, digits and | # @ % . _ - ' + /).
    username: Option<String>,
    /// First name.
    first_name: Option<String>,
    /// Last name.
    last_name: Option<String>,
    /// Interface language.
    lang: Option<Lang>,
    /// Time zone, such as America/Santiago.
    time_zone: Option<String>,
}

impl Profile {
    fn fields(&self, email: Option<&str>) -> Value {
        body(vec![
            ("email", email.map(Value::from)),
            ("username", self.username.clone().map(Value::from)),
            ("first_name", self.first_name.clone().map(Value::from)),
            ("last_name", self.last_name.clone().map(Value::from)),
            ("lang", self.lang.map(|l| Value::from(l.as_str()))),
            ("time_zone", self.time_zone.clone().map(Value::from)),
        ])
    }
}

/// Actions of `core-users-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Activate,
    Deactivate,
}

/// Arguments of `core-users-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, activate or deactivate.
    action: Option<ManageAction>,
    /// User id or email (get, update, activate, deactivate).
    user: Option<Ident>,
    /// Text filter on name or email (list).
    query: Option<String>,
    #[serde(flatten)]
    paging: Paging,
    /// Email (create, update).
    email: Option<String>,
    #[serde(flatten)]
    profile: Profile,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("core-users-manage", Module::Core, ToolClass::Gated)
        .describe(
            "List, get, create, update, activate or deactivate team users. user: id or email. \
list: data.admin_users + coverage; get/create/update/activate/deactivate: data is the user as persisted, \
state.status says what happened.",
        )
        .data(kit::manage_schema(user_schema(), "admin_users"))
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &["create", "update", "activate", "deactivate"],
        )
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = args.profile.fields(args.email.as_deref());
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(action_required(
                "email, username, first_name, last_name, lang or time_zone",
            ));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    let client = call.client()?;
    let users = admin_users();
    let user = || required(args.user.as_deref(), "this action", "user (id or email)");
    match action {
        ManageAction::List => {
            let query = Query::new()
                .push_opt("query", args.query.as_deref())
                .page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &users, &query, None).await
        }
        ManageAction::Get => {
            let found = users.find(client, user()?, Need::Object).await?;
            let object = found.object();
            Ok(kit::object_reply(
                call.mode,
                users.resource(&object, Some(found.id)),
                object,
            ))
        }
        ManageAction::Create => {
            required(args.email.as_deref(), "create", "email")?;
            let response = client
                .send(Method::POST, &users.path, &Query::new(), Some(&fields))
                .await?;
            let object = created_object(response, users.what)?;
            Ok(kit::written(
                call.mode,
                users.resource(&object, None),
                object,
                PostCondition::status("created"),
                "created",
                "User created successfully".into(),
                users.legacy_key,
            ))
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of email, username, first_name, last_name, lang, time_zone".into(),
                ));
            }
            let found = users.find(client, user()?, Need::Id).await?;
            let path = users.item(found.id);
            let response = client
                .send(Method::PUT, &path, &Query::new(), Some(&fields))
                .await?;
            let object = read_back(client, response, &path).await?;
            Ok(kit::written(
                call.mode,
                users.resource(&object, Some(found.id)),
                object,
                PostCondition::status("updated"),
                "updated",
                "User updated successfully".into(),
                users.legacy_key,
            ))
        }
        ManageAction::Activate | ManageAction::Deactivate => {
            let active = action == ManageAction::Activate;
            let found = users.find(client, user()?, Need::Id).await?;
            let object = set_active(client, found.id, active).await?;
            let (status, word) = if active {
                ("activated", "activated")
            } else {
                ("deactivated", "deactivated")
            };
            Ok(kit::written(
                call.mode,
                users.resource(&object, Some(found.id)),
                object,
                PostCondition::status(status),
                word,
                format!("User {word} successfully"),
                users.legacy_key,
            ))
        }
    }
}

/// `PUT {active}` and the read-back check: the persisted `active` must be what was sent.
async fn set_active(client: &ModyoClient, id: u64, active: bool) -> Result<Value, ToolError> {
    let path = admin_users().item(id);
    let request = json!({"active": active});
    let what = format!("admin user {id}");
    kit::put_checked(client, &path, &request, Some("active"), &what).await
}

/// Arguments of `core-users-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Email: the natural key. An existing user with it is updated, else one is created.
    email: String,
    #[serde(flatten)]
    profile: Profile,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("core-users-upsert", Module::Core, ToolClass::Mutation)
        .describe(
            "Create or update a team user by email. data is the user as persisted; state.status is created, \
updated, or unchanged (found, nothing to change: no write).",
        )
        .data(user_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let _ = args.verify;
    let email = args.email.trim();
    if !email.contains('@') {
        return Err(ToolError::invalid_parameters(format!(
            "'{email}' is not an email; core-users-upsert matches users by email"
        ))
        .into());
    }
    let client = call.client()?;
    let users = admin_users();
    let changes = args.profile.fields(None);
    let (object, status, word) = match users.lookup(client, email).await {
        Ok(found) if kit::is_empty(&changes) => (found.object(), "unchanged", "unchanged"),
        Ok(found) => {
            let path = users.item(found.id);
            let response = client
                .send(Method::PUT, &path, &Query::new(), Some(&changes))
                .await?;
            (
                read_back(client, response, &path).await?,
                "updated",
                "updated",
            )
        }
        Err(e) if kit::is_miss(&e) => {
            let body = args.profile.fields(Some(email));
            let response = client
                .send(Method::POST, &users.path, &Query::new(), Some(&body))
                .await?;
            (created_object(response, users.what)?, "created", "created")
        }
        Err(e) => return Err(e.into()),
    };
    Ok(kit::written(
        call.mode,
        users.resource(&object, None),
        object,
        PostCondition::status(status),
        word,
        format!("User {word} successfully"),
        users.legacy_key,
    ))
}

/// Actions of `core-users-bulk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BulkAction {
    Activate,
    Deactivate,
}

/// Arguments of `core-users-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// activate or deactivate.
    action: BulkAction,
    /// User ids or emails, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    users: Vec<Ident>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("core-users-bulk", Module::Core, ToolClass::Mutation)
        .describe(
            "Activate or deactivate many team users (ids or emails), one request each, 4 at a time; \
never stops at a failure. data.succeeded: user ids; data.failed: [{index, error{code, message}}] by input \
position; state.affected: successes; state.status: completed, partial or failed.",
        )
        .data(kit::bulk_schema())
        .state()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> ToolResult {
    let active = args.action == BulkAction::Activate;
    let users = admin_users();
    let client = call.client()?;
    let out = fanout::run(args.users, |_, input| {
        let users = &users;
        async move {
            let found = users.find(client, &input, Need::Id).await?;
            let object = set_active(client, found.id, active).await?;
            Ok(object.get("id").cloned().unwrap_or(Value::from(found.id)))
        }
    })
    .await;
    let action = if active { "activate" } else { "deactivate" };
    Ok(kit::bulk_reply(call.mode, action, out)?)
}
