//! End users of a realm: `customers-users-list`, `customers-users-upsert` and
//! `customers-users-bulk`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/users[/{id}]`). Users resolve by
//! id or by email (`?query=` then an exact, then case-blind, email match). Activation is a
//! `PUT` of `active`, checked after the write (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Realm, resolve_realm};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{self, body, confirmed, created_object, read_back};
use crate::tools::{Call, ToolDef, ToolResult, fanout, tool};

/// An end user as the API returns it (loose: echoed).
pub(crate) fn user_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("external_id", Kind::Str),
        ("name", Kind::Str),
        ("first_name", Kind::Str),
        ("last_name", Kind::Str),
        ("second_last_name", Kind::Str),
        ("email", Kind::Str),
        ("username", Kind::Str),
        ("status", Kind::Str),
        ("active", Kind::Bool),
        ("avatar", Kind::Obj),
        ("custom_fields", Kind::List),
        ("sign_in_count", Kind::Int),
        ("last_sign_in_at", Kind::Str),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// User status filter.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Inactive => "inactive",
        }
    }
}

/// Arguments of `customers-users-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Realm uid or name.
    realm: Ident,
    #[serde(flatten)]
    paging: Paging,
    /// Text filter on name or email.
    query: Option<String>,
    /// Exact email.
    email: Option<String>,
    /// Only users in this status.
    status: Option<Status>,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("customers-users-list", Module::Customers, ToolClass::Read)
        .describe("List a realm's end users, one page at a time (filters: query, email, status).")
        .data(schema::array(user_schema()))
        .resource()
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let query = Query::new()
        .push_opt("query", args.query.as_deref())
        .push_opt("email", args.email.as_deref())
        .push_opt("status", args.status.map(Status::as_str))
        .page(args.paging.page, args.paging.per_page);
    let page = realm.users().page(client, &query).await?;
    Ok(kit::list_reply(
        call.mode,
        "users",
        page,
        false,
        Some(realm.resource()),
    ))
}

/// One `{key, value}` custom field of an end user.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
struct CustomField {
    /// The custom field's key.
    key: String,
    /// Its value.
    value: Value,
}

/// The profile fields a create or update may send.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
struct Profile {
    /// First name.
    first_name: Option<String>,
    /// Last name.
    last_name: Option<String>,
    /// Second last name.
    second_last_name: Option<String>,
    /// Username.
    username: Option<String>,
    /// Identifier in an external system.
    external_id: Option<String>,
    /// Custom field values.
    custom_fields: Option<Vec<CustomField>>,
}

impl Profile {
    fn fields(&self, email: Option<&str>) -> Value {
        body(vec![
            ("email", email.map(Value::from)),
            ("first_name", self.first_name.clone().map(Value::from)),
            ("last_name", self.last_name.clone().map(Value::from)),
            (
                "second_last_name",
                self.second_last_name.clone().map(Value::from),
            ),
            ("username", self.username.clone().map(Value::from)),
            ("external_id", self.external_id.clone().map(Value::from)),
            (
                "custom_fields",
                self.custom_fields.as_ref().map(|fields| {
                    Value::Array(
                        fields
                            .iter()
                            .map(|f| json!({"key": f.key, "value": f.value}))
                            .collect(),
                    )
                }),
            ),
        ])
    }
}

/// Arguments of `customers-users-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Realm uid or name.
    realm: Ident,
    /// Email: the natural key. An existing user with it is updated, else one is created.
    email: String,
    #[serde(flatten)]
    profile: Profile,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("customers-users-upsert", Module::Customers, ToolClass::Mutation)
        .describe(
            "Create or update a realm's end user by email. data is the user as persisted; state.status is \
created, updated or unchanged (found, nothing to change: no write).",
        )
        .data(user_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let email = args.email.trim();
    if !email.contains('@') {
        return Err(ToolError::invalid_parameters(format!(
            "'{email}' is not an email; customers-users-upsert matches users by email"
        ))
        .into());
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let users = realm.users();
    let changes = args.profile.fields(None);
    let (object, status) = match users.lookup(client, email).await {
        Ok(found) if kit::is_empty(&changes) => (found.object(), "unchanged"),
        Ok(found) => {
            let path = users.item(found.id);
            let response = client
                .send(Method::PUT, &path, &Query::new(), Some(&changes))
                .await?;
            (read_back(client, response, &path).await?, "updated")
        }
        Err(e) if kit::is_miss(&e) => {
            let response = client
                .send(
                    Method::POST,
                    &users.path,
                    &Query::new(),
                    Some(&args.profile.fields(Some(email))),
                )
                .await?;
            (created_object(response, users.what)?, "created")
        }
        Err(e) => return Err(e.into()),
    };
    Ok(kit::written(
        call.mode,
        users.resource(&object, None),
        object,
        PostCondition::status(status),
        status,
        format!("User {status} successfully"),
        users.legacy_key,
    ))
}

/// Actions of `customers-users-bulk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BulkAction {
    Create,
    Activate,
    Deactivate,
    Delete,
}

impl BulkAction {
    fn as_str(self) -> &'static str {
        match self {
            BulkAction::Create => "create",
            BulkAction::Activate => "activate",
            BulkAction::Deactivate => "deactivate",
            BulkAction::Delete => "delete",
        }
    }
}

/// One user of a bulk call: id or email to act on; email and profile to create.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
struct BulkUser {
    /// User id (activate, deactivate, delete).
    id: Option<u64>,
    /// Email (create; or to find the user).
    email: Option<String>,
    #[serde(flatten)]
    profile: Profile,
}

/// Arguments of `customers-users-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// Realm uid or name.
    realm: Ident,
    /// create, activate, deactivate or delete.
    action: BulkAction,
    /// The users, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    users: Vec<BulkUser>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("customers-users-bulk", Module::Customers, ToolClass::Mutation)
        .describe(
            "Create, activate, deactivate or delete many end users of a realm, one request each, 4 at a time; never \
stops at a failure. Items: {email, profile...} to create, {id} or {email} otherwise. data.succeeded: user ids; \
data.failed: [{index, error{code, message}}]; state.affected: successes; delete needs confirmDelete: true.",
        )
        .data(kit::bulk_schema())
        .state()
        .control()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> ToolResult {
    if args.action == BulkAction::Delete
        && let Err(control) = confirmed(args.confirm_delete, "customers-users-bulk", "delete")
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let action = args.action;
    let out = fanout::run(args.users, |_, user| {
        let realm = &realm;
        async move { one(client, realm, action, user).await }
    })
    .await;
    Ok(kit::bulk_reply(call.mode, action.as_str(), out)?)
}

/// One item of a bulk call; its id on success.
async fn one(
    client: &ModyoClient,
    realm: &Realm,
    action: BulkAction,
    user: BulkUser,
) -> Result<Value, ToolError> {
    let users = realm.users();
    if action == BulkAction::Create {
        let email = user
            .email
            .as_deref()
            .filter(|e| e.contains('@'))
            .ok_or_else(|| ToolError::invalid_parameters("create needs an email for every user"))?;
        let response = client
            .send(
                Method::POST,
                &users.path,
                &Query::new(),
                Some(&user.profile.fields(Some(email))),
            )
            .await?;
        let object = created_object(response, users.what)?;
        return Ok(object.get("id").cloned().unwrap_or(Value::Null));
    }
    let id = match (user.id, user.email.as_deref()) {
        (Some(id), _) => id,
        (None, Some(email)) => users.lookup(client, email).await?.id,
        (None, None) => {
            return Err(ToolError::invalid_parameters(format!(
                "{} needs an id or an email for every user",
                action.as_str()
            )));
        }
    };
    let path = users.item(id);
    match action {
        BulkAction::Delete => {
            client
                .send(Method::DELETE, &path, &Query::new(), None)
                .await?;
        }
        _ => {
            let request = json!({"active": action == BulkAction::Activate});
            let what = format!("realm user {id}");
            kit::put_checked(client, &path, &request, Some("active"), &what).await?;
        }
    }
    Ok(Value::from(id))
}
