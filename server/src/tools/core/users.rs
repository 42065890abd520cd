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
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Command, Ctx, Echo, Identity, Managed, Member, Names, Need, Rules,
    Verb, at, body, bulk, command, echoed, manage, persist, reply, standard, view,
};

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

command! {
    /// What `core-users-manage` can be asked.
    enum UserCommand for ManageArgs {
        List => Verb::list(),
        Get { user: Ident } => Verb::read("get"),
        Create { email: String } => Verb::write("create"),
        Update { user: Ident } => Verb::write("update").changes(),
        Activate { user: Ident } => Verb::write("activate"),
        Deactivate { user: Ident } => Verb::write("deactivate"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, AdminUser, UserCommand>("core-users-manage", Module::Core, at(ADMIN_USERS))
        .describe(
            "List, get, create, update, activate or deactivate team users. user: id or email. \
list: data.admin_users + coverage; get/create/update/activate/deactivate: data is the user as persisted, \
state.status says what happened.",
        )
        .target("user", "id or email")
        .fields(&PROFILE)
        .run(run)
}

/// Runs one command of `core-users-manage`.
async fn run(ctx: Ctx<ManageArgs, AdminUser, UserCommand>) -> Answer<Managed<AdminUser>> {
    match &ctx.command {
        UserCommand::List => {
            standard::list(
                &ctx,
                Query::new().push_opt("query", ctx.args.query.as_deref()),
            )
            .await
        }
        UserCommand::Get { .. } => standard::get(&ctx).await,
        UserCommand::Create { .. } => standard::create(&ctx).await,
        UserCommand::Update { .. } => standard::update(&ctx).await,
        UserCommand::Activate { .. } => activate(ctx, true).await,
        UserCommand::Deactivate { .. } => activate(ctx, false).await,
    }
}

async fn activate(
    ctx: Ctx<ManageArgs, AdminUser, UserCommand>,
    active: bool,
) -> Answer<Managed<AdminUser>> {
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

command! {
    /// What `core-users-bulk` can be asked.
    enum UsersBulkCommand for BulkArgs {
        Activate => Verb::write("activate"),
        Deactivate => Verb::write("deactivate"),
    }
}

const USERS_BULK: &str = "core-users-bulk";

/// Arguments of `core-users-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// activate or deactivate.
    action: Action,
    /// User ids or emails, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    users: Vec<Ident>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool(USERS_BULK, Module::Core, ToolClass::Mutation)
        .describe(
            "Activate or deactivate many team users (ids or emails), one request each, 4 at a time; \
never stops at a failure. data.succeeded: user ids; data.failed: [{index, error{code, message}}] by input \
position; state.affected: successes; state.status: completed, partial or failed.",
        )
        .state()
        .handle(bulk)
        .offers::<UsersBulkCommand>()
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<bulk::Bulk> {
    let command = command::parse::<UsersBulkCommand>(USERS_BULK, args.action.as_str(), &args)?;
    let active = matches!(command, UsersBulkCommand::Activate);
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
    Ok(bulk::answer(command.verb().word, out)?.into())
}
