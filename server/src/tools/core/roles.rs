//! Roles: `core-roles-create` and `core-roles-manage`.
//!
//! `GET /api/admin/roles` (filter `query`) is documented; the rest has no public source (the
//! cassettes mark it `undocumented`). Roles
//! resolve by `key`. `restore` applies only to roles the API marks `restorable` (a default
//! role that was edited); any other is refused locally, before a request is sent.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Module;
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Ctx, Echo, Echoed, Managed, Member, Names, Need, Rules, Verb, at,
    command, echoed, manage, persist, reply, standard,
};

const ROLES: &str = "/api/admin/roles";

echoed! {
    /// A role as the API returns it.
    Role = "role" {
        id: i64, key: String, name: String, context: String, restorable: bool
    }
}

impl Member for Role {
    const RULES: Rules = Rules::new("role", "roles")
        .names(Names::KEY)
        .slug("key")
        .hint("call core-roles-manage with action list to see the roles and their keys");
}

/// The roles collection (roles resolve by `key`).
pub(crate) fn roles() -> Collection<Role> {
    Collection::at(ROLES)
}

/// Where a role applies.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Context {
    Account,
    Site,
    Space,
    Realm,
}

/// Arguments of `core-roles-create`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct CreateArgs {
    /// Name.
    name: String,
    /// Unique key (the API derives one when absent).
    key: Option<String>,
    /// Where the role applies.
    context: Context,
    /// Description.
    description: Option<String>,
    /// Permission keys the role grants.
    permissions: Option<Vec<String>>,
}

pub(crate) fn create_tool() -> ToolDef {
    tool("core-roles-create", Module::Core, ToolClass::Mutation)
        .describe("Create a custom role for one context (account, site, space or realm). data is the role as persisted.")
        .resource()
        .state()
        .handle(create)
}

async fn create(call: Call, args: CreateArgs) -> Answer<Echo<Role>> {
    let client = call.client()?;
    let request = persist::given(&args);
    let object = persist::create(client, ROLES, &request, Role::NAME).await?;
    persist::check_sent(Role::NAME, &object, &request)?;
    let resource = roles().resource(&object, None);
    Ok(reply::saved::<Role, _>(object, resource, "created").into())
}

/// Arguments of `core-roles-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), update, delete or restore.
    action: Option<Action>,
    /// Role id or key (get, update, delete, restore).
    role: Option<Ident>,
    /// Keywords to filter the list by (list; Modyo's roles list has no context filter).
    query: Option<String>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (update).
    name: Option<String>,
    /// Description (update).
    description: Option<String>,
    /// Permission keys, replacing the current ones (update).
    permissions: Option<Vec<String>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `core-roles-manage` can be asked.
    enum RoleCommand for ManageArgs {
        List => Verb::list(),
        Get { role: Ident } => Verb::read("get"),
        Update { role: Ident } => Verb::write("update").changes(),
        Delete { role: Ident } => Verb::write("delete").confirmed(),
        Restore { role: Ident } => Verb::write("restore"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Role, RoleCommand>("core-roles-manage", Module::Core, at(ROLES))
        .describe(
            "List, get, update, delete or restore roles (create: core-roles-create). role: id or key. list: \
data.roles + coverage (filter query: keywords); restore only for roles marked restorable; delete needs confirmDelete: true. \
Other actions: data is the role as persisted.",
        )
        .target("role", "id or key")
        .fields(&["name", "description", "permissions"])
        .run(run)
}

/// Runs one command of `core-roles-manage`.
async fn run(ctx: Ctx<ManageArgs, Role, RoleCommand>) -> Answer<Managed<Role>> {
    match &ctx.command {
        RoleCommand::List => {
            standard::list(
                &ctx,
                Query::new().push_opt("query", ctx.args.query.as_deref()),
            )
            .await
        }
        RoleCommand::Get { .. } => standard::get(&ctx).await,
        RoleCommand::Update { .. } => standard::update(&ctx).await,
        RoleCommand::Delete { .. } => standard::delete(&ctx).await,
        RoleCommand::Restore { .. } => restore(ctx).await,
    }
}

async fn restore(ctx: Ctx<ManageArgs, Role, RoleCommand>) -> Answer<Managed<Role>> {
    let client = ctx.client()?;
    let found = ctx.found(Need::Object).await?;
    let current = found.object();
    if current.get("restorable") != Some(&Value::Bool(true)) {
        let key = current.get("key").and_then(Value::as_str).unwrap_or("");
        return Err(ToolError::invalid_parameters(format!(
            "role {} ('{key}') is not restorable: only roles the API marks restorable (edited default roles) can be restored",
            found.id
        ))
        .into());
    }
    let path = ctx.coll.item(found.id);
    let restore = format!("{path}/restore");
    let object = persist::write(client, Method::POST, &restore, None, &path).await?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    let post = PostCondition::status("restored");
    let message = "Role restored to its defaults";
    Ok(reply::saved_as::<Role, _>(object, resource, post, "restored", message).into())
}
