//! Team members: `core-members-manage` gives a team user or a group a role on one site, space
//! or realm.
//!
//! Paths are `[synthetic]` (the `/api/admin/team_members` prefix is documented). A role only
//! applies to targets of its own `context`; a mismatch is refused locally with
//! `invalid_parameters` before anything is written, because the API's answer to it is not
//! documented.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::roles::roles;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, Resource, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Echoed, Identity, Managed, Member, Need, Rules, Verb, at, body, command,
    echoed, lenient, manage, persist, reply, view,
};

const TEAM_MEMBERS: &str = "/api/admin/team_members";

echoed! {
    /// A team member as the API returns it (it has no `name`: the key is declared because a
    /// non-numeric identifier is matched against it).
    TeamMember = "team member" {
        id: i64, name: String, role_id: i64, role: Object
    }
}

impl Member for TeamMember {
    const RULES: Rules = Rules::new("team_member", "team_members")
        .legacy("teamMember", "Team member")
        .hint("call core-members-manage with action list and the site, space or realm to see its members");
}

/// Arguments of `core-members-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), add, update or remove.
    action: Option<Action>,
    /// Team member id (get, update, remove).
    member: Option<u64>,
    /// Site id: the target (list, add). Give exactly one of site_id, space_id, realm_id.
    site_id: Option<u64>,
    /// Space id: the target (list, add).
    space_id: Option<u64>,
    /// Realm id: the target (list, add).
    realm_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Role id or key; its context must match the target (add, update).
    role: Option<Ident>,
    /// Team user to add (add; or group_id).
    admin_user_id: Option<u64>,
    /// Group to add (add; or admin_user_id).
    group_id: Option<u64>,
    /// Must be true for remove.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `core-members-manage` can be asked.
    enum MemberCommand for ManageArgs {
        List => Verb::list(),
        Get { member: u64 } => Verb::read("get"),
        Add { role: Ident } => Verb::write("add"),
        Update { member: u64, role: Ident } => Verb::write("update"),
        Remove { member: u64 } => Verb::write("remove").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, TeamMember, MemberCommand>("core-members-manage", Module::Core, at(TEAM_MEMBERS))
        .describe(
            "List, get, add, update or remove team members: a user or group holding a role on one site, space or \
realm (exactly one of site_id, space_id, realm_id). The role's context must match the target. list: \
data.team_members + coverage, resource = the target; add/update: data is the member as persisted; remove needs \
confirmDelete: true.",
        )
        .target("member", "team member id")
        .mutating(&["role", "admin_user_id", "group_id"])
        .run(run)
        .writes_state(RareState::PAGED)
}

/// Runs one command of `core-members-manage`.
async fn run(ctx: Ctx<ManageArgs, TeamMember, MemberCommand>) -> Answer<Managed<TeamMember>> {
    match &ctx.command {
        MemberCommand::List => list(ctx).await,
        MemberCommand::Get { .. } => get(ctx).await,
        MemberCommand::Add { .. } => add(ctx).await,
        MemberCommand::Update { .. } => update(ctx).await,
        MemberCommand::Remove { .. } => remove(ctx).await,
    }
}

/// The one site, space or realm a call targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Target {
    context: &'static str,
    id: u64,
}

impl Target {
    fn from_args(args: &ManageArgs) -> Result<Target, CallError> {
        let given: Vec<Target> = [
            ("site", args.site_id),
            ("space", args.space_id),
            ("realm", args.realm_id),
        ]
        .into_iter()
        .filter_map(|(context, id)| id.map(|id| Target { context, id }))
        .collect();
        match given.as_slice() {
            [one] => Ok(*one),
            [] => Err(CallError::Arguments(
                "give the target: one of site_id, space_id or realm_id".into(),
            )),
            _ => Err(CallError::Arguments(
                "give only one of site_id, space_id or realm_id".into(),
            )),
        }
    }

    /// The target a member object points at.
    fn of_member(member: &Value, id: u64) -> Result<Target, ToolError> {
        ["site", "space", "realm"]
            .into_iter()
            .find_map(|context| {
                member
                    .get(format!("{context}_id"))
                    .and_then(Value::as_u64)
                    .map(|id| Target { context, id })
            })
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidUpstreamResponse,
                    format!("team member {id} names no site_id, space_id or realm_id, so its role cannot be checked"),
                )
            })
    }

    fn key(self) -> String {
        format!("{}_id", self.context)
    }

    fn resource(self) -> Resource {
        Resource::new(self.context).id(self.id)
    }
}

type Members = Ctx<ManageArgs, TeamMember, MemberCommand>;

/// Who holds a member's role: its user, or its group (each an object with a name).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Holders {
    #[serde(deserialize_with = "lenient")]
    admin_user: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    group: Option<Value>,
}

/// The member's identity, named after the user or group that holds the role.
fn member_resource(ctx: &Members, member: &Value, id: Option<u64>) -> Resource {
    let resource = ctx.coll.resource(member, id);
    let holders: Holders = view(member);
    let holder = [holders.admin_user, holders.group]
        .iter()
        .flatten()
        .find_map(|h| view::<Identity>(h).name);
    match holder {
        Some(name) if resource.name_value().is_none() => resource.name(name),
        _ => resource,
    }
}

/// The role a member update sends; with the role persisted, what it checks.
#[derive(Serialize)]
struct RoleBody<T> {
    role_id: T,
}

/// The role id a member write persisted, when not `null` (it may come back only inside
/// `role`).
#[derive(Default, Deserialize)]
#[serde(default)]
struct PersistedRole {
    role_id: Option<Value>,
}

/// The keys a member write reads of its role.
#[derive(Default, Deserialize)]
#[serde(default)]
struct RoleKeys {
    #[serde(deserialize_with = "lenient")]
    context: Option<String>,
    #[serde(deserialize_with = "lenient")]
    key: Option<String>,
}

/// Resolves a role (id or key) and refuses one whose `context` is not the target's.
async fn role_for(client: &ModyoClient, input: &str, target: Target) -> Result<u64, ToolError> {
    let found = roles().find(client, input, Need::Object).await?;
    let role: RoleKeys = view(&found.object());
    let context = role.context.as_deref().unwrap_or("");
    if context != target.context {
        let key = role.key.as_deref().unwrap_or(input);
        return Err(ToolError::invalid_parameters(format!(
            "role '{key}' has context '{context}' but the target is a {} ({} {}); pick a role of context '{}' (core-roles-manage list with context={})",
            target.context,
            target.key(),
            target.id,
            target.context,
            target.context
        )));
    }
    Ok(found.id)
}

fn member_id(ctx: &Members) -> u64 {
    ctx.args.member.unwrap_or_default()
}

async fn list(ctx: Members) -> Answer<Managed<TeamMember>> {
    let target = Target::from_args(&ctx.args)?;
    let query = ctx.paged(Query::new().push(&target.key(), target.id));
    let page = ctx.coll.page(ctx.client()?, &query).await?;
    Ok(reply::page(page, Some(target.resource())).into())
}

async fn get(ctx: Members) -> Answer<Managed<TeamMember>> {
    let id = member_id(&ctx);
    let object = ctx.coll.fetch(ctx.client()?, id).await?;
    let resource = member_resource(&ctx, &object, Some(id));
    Ok(reply::one(object, resource).into())
}

async fn add(ctx: Members) -> Answer<Managed<TeamMember>> {
    let target = Target::from_args(&ctx.args)?;
    let holder = match (ctx.args.admin_user_id, ctx.args.group_id) {
        (Some(user), None) => ("admin_user_id", user),
        (None, Some(group)) => ("group_id", group),
        _ => {
            return Err(CallError::Arguments(
                "add needs exactly one of admin_user_id or group_id".into(),
            ));
        }
    };
    let client = ctx.client()?;
    let role = ctx.args.role.as_deref().unwrap_or_default();
    let role_id = role_for(client, role, target).await?;
    let mut request = json!({"role_id": role_id});
    request[holder.0] = Value::from(holder.1);
    request[target.key()] = Value::from(target.id);
    let object = persist::create(client, &ctx.coll.path, &request, TeamMember::NAME).await?;
    let resource = member_resource(&ctx, &object, None);
    let post = PostCondition::status("created");
    let message = "Team member added successfully";
    Ok(reply::saved_as::<TeamMember, _>(object, resource, post, "created", message).into())
}

async fn update(ctx: Members) -> Answer<Managed<TeamMember>> {
    let client = ctx.client()?;
    let id = member_id(&ctx);
    let role = ctx.args.role.as_deref().unwrap_or_default();
    let current = ctx.coll.fetch(client, id).await?;
    let target = Target::of_member(&current, id)?;
    let role_id = role_for(client, role, target).await?;
    let path = ctx.coll.item(id);
    let request = body(RoleBody { role_id });
    let object = persist::write(client, Method::PUT, &path, Some(&request), &path).await?;
    // The role may come back as `role_id` or only inside `role`.
    let persisted_role = view::<PersistedRole>(&object)
        .role_id
        .or_else(|| object.pointer("/role/id").cloned())
        .unwrap_or(Value::Null);
    persist::check_key(
        &body(RoleBody {
            role_id: persisted_role,
        }),
        "role_id",
        &Value::from(role_id),
        &format!("team member {id}"),
    )?;
    let resource = member_resource(&ctx, &object, Some(id));
    Ok(reply::saved::<TeamMember, _>(object, resource, "updated").into())
}

async fn remove(ctx: Members) -> Answer<Managed<TeamMember>> {
    let id = member_id(&ctx);
    ctx.client()?
        .send(Method::DELETE, &ctx.coll.item(id), &Query::new(), None)
        .await?;
    let resource = Resource::new("team_member").id(id);
    let message = "Team member removed successfully";
    Ok(reply::gone::<TeamMember, _>(resource, id, "deleted", message).into())
}
