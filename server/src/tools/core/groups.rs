//! Groups of team users: `core-groups-manage` and `core-groups-upsert`.
//!
//! `GET /api/admin/groups` is documented; the rest is `[synthetic]`. Membership changes
//! (`add_users`, `remove_users`) read the group, `PUT` the whole member list
//! (`admin_user_ids`) and check the read-back (C7): a user the API did not add (or did not
//! remove) fails the call with `persisted_mismatch` naming them.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Ctx, Echo, Identity, Managed, Member, Need, Rules, Verb, at, body,
    command, echoed, lenient, manage, persist, reply, standard, view, views,
};

const GROUPS: &str = "/api/admin/groups";

echoed! {
    /// A group of team users as the API returns it.
    Group = "group" {
        id: i64, name: String, admin_user_ids: List, admin_users: List
    }
}

impl Member for Group {
    const RULES: Rules = Rules::new("group", "groups")
        .hint("call core-groups-manage with action list to see the groups");
}

/// The fields a create or update may send.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct GroupFields {
    /// Description.
    description: Option<String>,
    /// Id of the role the group's members get.
    role_id: Option<u64>,
}

/// Arguments of `core-groups-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, add_users or remove_users.
    action: Option<Action>,
    /// Group id or name (all but list and create).
    group: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    #[serde(flatten)]
    fields: GroupFields,
    /// Team user ids (add_users, remove_users).
    #[schemars(length(min = 1, max = 100))]
    user_ids: Option<Vec<u64>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

command! {
    /// What `core-groups-manage` can be asked.
    enum GroupCommand for ManageArgs {
        List => Verb::list(),
        Get { group: Ident } => Verb::read("get"),
        Create { name: String } => Verb::write("create"),
        Update { group: Ident } => Verb::write("update").changes(),
        Delete { group: Ident } => Verb::write("delete").confirmed(),
        AddUsers { group: Ident, user_ids: Vec<u64> } => Verb::write("add_users"),
        RemoveUsers { group: Ident, user_ids: Vec<u64> } => Verb::write("remove_users"),
    }
}

type Groups = Ctx<ManageArgs, Group, GroupCommand>;

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Group, GroupCommand>("core-groups-manage", Module::Core, at(GROUPS))
        .describe(
            "List, get, create, update or delete groups of team users, or add/remove members (user_ids). \
group: id or name. list: data.groups + coverage; other actions: data is the group as persisted; \
add_users/remove_users: state.affected = members actually added or removed; delete needs confirmDelete: true.",
        )
        .target("group", "id or name")
        .fields(&["name", "description", "role_id"])
        .mutating(&["user_ids"])
        .run(run)
        .writes_state(RareState::AFFECTED)
}

async fn run(ctx: Groups) -> Answer<Managed<Group>> {
    match &ctx.command {
        GroupCommand::List => standard::list(&ctx, Query::new()).await,
        GroupCommand::Get { .. } => standard::get(&ctx).await,
        GroupCommand::Create { .. } => standard::create(&ctx).await,
        GroupCommand::Update { .. } => standard::update(&ctx).await,
        GroupCommand::Delete { .. } => standard::delete(&ctx).await,
        GroupCommand::AddUsers { user_ids, .. } => change_members(&ctx, user_ids, true).await,
        GroupCommand::RemoveUsers { user_ids, .. } => change_members(&ctx, user_ids, false).await,
    }
}

/// The keys of a group object that hold its members.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Members {
    #[serde(deserialize_with = "lenient")]
    admin_user_ids: Option<Value>,
    #[serde(deserialize_with = "views")]
    admin_users: Option<Vec<Identity>>,
}

/// The body that sets a group's members.
#[derive(Serialize)]
struct MembersBody {
    admin_user_ids: Vec<u64>,
}

/// The name an upsert sends first, before the fields given.
#[derive(Serialize)]
struct GroupName<'a> {
    name: &'a str,
}

/// The member ids of a group object: `admin_user_ids`, else the ids in `admin_users`.
fn member_ids(group: &Value) -> Option<Vec<u64>> {
    let members: Members = view(group);
    match (members.admin_user_ids, members.admin_users) {
        (Some(Value::Array(ids)), _) => Some(ids.iter().filter_map(Value::as_u64).collect()),
        (_, Some(users)) => Some(
            users
                .iter()
                .filter_map(|u| u.id.as_ref().and_then(Value::as_u64))
                .collect(),
        ),
        _ => None,
    }
}

async fn change_members(ctx: &Groups, user_ids: &[u64], add: bool) -> Answer<Managed<Group>> {
    let client = ctx.client()?;
    let id = ctx.found(Need::Id).await?.id;
    let current_group = ctx.coll.fetch(client, id).await?;
    let current = member_ids(&current_group).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("group {id} came back without admin_user_ids or admin_users; its members cannot be changed safely"),
        )
    })?;
    let mut next = current;
    let mut changed = 0;
    for user in user_ids {
        let member = next.contains(user);
        if add && !member {
            next.push(*user);
            changed += 1;
        } else if !add && member {
            next.retain(|u| u != user);
            changed += 1;
        }
    }
    let (verb, word) = if add {
        ("added to", "add_users")
    } else {
        ("removed from", "remove_users")
    };
    let object = if changed == 0 {
        current_group
    } else {
        let path = ctx.coll.item(id);
        let request = body(MembersBody {
            admin_user_ids: next,
        });
        let object = persist::write(client, Method::PUT, &path, Some(&request), &path).await?;
        let persisted = member_ids(&object).unwrap_or_default();
        let wrong: Vec<u64> = user_ids
            .iter()
            .copied()
            .filter(|u| persisted.contains(u) != add)
            .collect();
        if !wrong.is_empty() {
            return Err(ToolError::new(
                ErrorCode::PersistedMismatch,
                format!(
                    "group {id}: users {wrong:?} were not {verb} the group by the API; read the group before retrying"
                ),
            )
            .into());
        }
        object
    };
    let status = if changed == 0 { "unchanged" } else { "updated" };
    let resource = ctx.coll.resource(&object, Some(id));
    let post = PostCondition::status(status).affected(changed);
    let message = format!("{changed} users {verb} group");
    Ok(reply::saved_as::<Group, _>(object, resource, post, word, message).into())
}

/// Arguments of `core-groups-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Group name: the natural key. An existing group with it is updated, else one is created.
    name: String,
    #[serde(flatten)]
    fields: GroupFields,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("core-groups-upsert", Module::Core, ToolClass::Mutation)
        .describe(
            "Create or update a group by name (exact, then without case; ambiguous names fail). data is the group \
as persisted; state.status is created, updated or unchanged (nothing to change: no write).",
        )
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<Group>> {
    let _ = args.verify;
    let name = args.name.trim();
    if name.is_empty() {
        return Err(CallError::Arguments("name must not be empty".into()));
    }
    let client = call.client()?;
    let groups = Collection::<Group>::at(GROUPS);
    let lookup = groups.lookup(client, name).await;
    let changes = persist::given(&args.fields);
    let (object, status) = groups
        .upsert(client, lookup, changes, |changes| {
            let mut sent = body(GroupName { name });
            persist::extend(&mut sent, changes);
            sent
        })
        .await?;
    let resource = groups.resource(&object, None);
    Ok(reply::saved::<Group, _>(object, resource, status).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn member_ids_read_either_shape() {
        assert_eq!(
            member_ids(&json!({"admin_user_ids": [1, 2]})),
            Some(vec![1, 2])
        );
        assert_eq!(
            member_ids(&json!({"admin_users": [{"id": 3}, {"name": "x"}]})),
            Some(vec![3])
        );
        assert_eq!(member_ids(&json!({"name": "g"})), None);
    }
}
