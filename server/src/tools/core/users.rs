//! Team users: `core-users-manage`, `core-users-upsert` and `core-users-bulk`.
//!
//! Paths are `[synthetic]` (`/api/admin/admin_users`). Activation is a `PUT` of `active`,
//! and the persisted value is checked (C7): a user the API left in the other state is a
//! `persisted_mismatch`, not a success.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Lang;
use crate::config::Module;
use crate::contract::{ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{
    Action, Answer, Collection, Ctx, Echo, Identity, Managed, Member, Names, Need, Rules, at, body,
    bulk, echoed, manage, persist, reply, view,
};
use crate::tools::{Call, ToolDef, tool};

const ADMIN_USERS: &str = "/api/admin/admin_users";

echoed! {
    /// A team user as the API returns it.
    AdminUser = "admin user" {
        id: i64, uuid: String, name: String, email: String
    }
}

impl Member for AdminUser {
    const RULES: Rules = Rules::new("admin_user", "admin_users")
        .names(Names::EMAIL)
        .slug("email")
        .legacy("user", "User")
        .hint("call core-users-manage with action list to see the team");
}

fn admin_users() -> Collection<AdminUser> {
    Collection::at(ADMIN_USERS)
}

/// The profile fields a create or update may send.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
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

/// The fields of a profile, in the order they are sent.
const PROFILE: [&str; 6] = [
    "email",
    "username",
    "first_name",
    "last_name",
    "lang",
    "time_zone",
];

/// Arguments of `core-users-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, activate or deactivate.
    action: Option<Action>,
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
    manage::<ManageArgs, AdminUser>("core-users-manage", Module::Core, at(ADMIN_USERS))
        .describe(
            "List, get, create, update, activate or deactivate team users. user: id or email. \
list: data.admin_users + coverage; get/create/update/activate/deactivate: data is the user as persisted, \
state.status says what happened.",
        )
        .target("user", "id or email")
        .fields(&PROFILE)
        .list(|args| Query::new().push_opt("query", args.query.as_deref()))
        .get()
        .create(&["email"])
        .update()
        .action("activate", |ctx| activate(ctx, true))
        .on_target()
        .action("deactivate", |ctx| activate(ctx, false))
        .on_target()
        .build()
}

async fn activate(ctx: Ctx<ManageArgs, AdminUser>, active: bool) -> Answer<Managed<AdminUser>> {
    let found = ctx.found(Need::Id).await?;
    let object = set_active(ctx.client()?, found.id, active).await?;
    let status = if active { "activated" } else { "deactivated" };
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<AdminUser, _>(object, resource, status).into())
}

/// The body that activates or deactivates a user.
#[derive(Serialize)]
struct ActiveBody {
    active: bool,
}

/// The email an upsert sends first, before the profile given.
#[derive(Serialize)]
struct Email<'a> {
    email: &'a str,
}

/// `PUT {active}` and the read-back check: the persisted `active` must be what was sent.
async fn set_active(client: &ModyoClient, id: u64, active: bool) -> Result<Value, ToolError> {
    let path = admin_users().item(id);
    let request = body(ActiveBody { active });
    let object = persist::write(client, Method::PUT, &path, Some(&request), &path).await?;
    persist::check_key(
        &object,
        "active",
        &Value::Bool(active),
        &format!("admin user {id}"),
    )?;
    Ok(object)
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
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<AdminUser>> {
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
    let changes = persist::given(&args.profile);
    let lookup = users.lookup(client, email).await;
    let (object, status) = users
        .upsert(client, lookup, changes, |changes| {
            let mut sent = body(Email { email });
            persist::extend(&mut sent, changes);
            sent
        })
        .await?;
    let resource = users.resource(&object, None);
    Ok(reply::saved::<AdminUser, _>(object, resource, status).into())
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
        .state()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<bulk::Bulk> {
    let active = args.action == BulkAction::Activate;
    let users = admin_users();
    let client = call.client()?;
    let out = bulk::run(args.users, |_, input| {
        let users = &users;
        async move {
            let found = users.find(client, &input, Need::Id).await?;
            let object = set_active(client, found.id, active).await?;
            let id = view::<Identity>(&object).id;
            Ok(id.unwrap_or(Value::from(found.id)))
        }
    })
    .await;
    let action = if active { "activate" } else { "deactivate" };
    Ok(bulk::answer(action, out)?.into())
}
