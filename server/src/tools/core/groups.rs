//! Groups of team users: `core-groups-manage` and `core-groups-upsert`.
//!
//! `GET /api/admin/groups` is documented; the rest is `[synthetic]`. Membership changes
//! (`add_users`, `remove_users`) read the group, `PUT` the whole member list
//! (`admin_user_ids`) and check the read-back (C7): a user the API did not add (or did not
//! remove) fails the call with `persisted_mismatch` naming them.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::groups;
use super::kit::{
    self, Need, action_required, body, confirmed, created_object, read_back, required,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, PostCondition, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A group as the API returns it (loose: echoed).
pub(crate) fn group_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("role_id", Kind::Int),
        ("role", Kind::Obj),
        ("admin_users_count", Kind::Int),
        ("admin_user_ids", Kind::List),
        ("admin_users", Kind::List),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// The fields a create or update may send.
#[derive(Debug, Deserialize, JsonSchema)]
struct GroupFields {
    /// Description.
    description: Option<String>,
    /// Id of the role the group's members get.
    role_id: Option<u64>,
}

impl GroupFields {
    fn body(&self, name: Option<&str>) -> Value {
        body(vec![
            ("name", name.map(Value::from)),
            ("description", self.description.clone().map(Value::from)),
            ("role_id", self.role_id.map(Value::from)),
        ])
    }
}

/// Actions of `core-groups-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
    AddUsers,
    RemoveUsers,
}

/// Arguments of `core-groups-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, add_users or remove_users.
    action: Option<ManageAction>,
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

pub(crate) fn manage_tool() -> ToolDef {
    tool("core-groups-manage", Module::Core, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete groups of team users, or add/remove members (user_ids). \
group: id or name. list: data.groups + coverage; other actions: data is the group as persisted; \
add_users/remove_users: state.affected = members actually added or removed; delete needs confirmDelete: true.",
        )
        .data(kit::manage_schema(group_schema(), "groups"))
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &["create", "update", "delete", "add_users", "remove_users"],
        )
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = args.fields.body(args.name.as_deref());
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) || args.user_ids.is_some() => {
            return Err(action_required("name, description, role_id or user_ids"));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    let client = call.client()?;
    let groups = groups();
    let group = || required(args.group.as_deref(), "this action", "group (id or name)");
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &groups, &query, None).await
        }
        ManageAction::Get => kit::get_one(&call, &groups, group()?).await,
        ManageAction::Create => {
            required(args.name.as_deref(), "create", "name")?;
            kit::create_one(&call, &groups, &fields).await
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, role_id".into(),
                ));
            }
            kit::put_one(&call, &groups, group()?, &fields, "updated", None).await
        }
        ManageAction::Delete => {
            if let Err(control) = confirmed(args.confirm_delete, "core-groups-manage", "delete") {
                return Ok(control);
            }
            kit::delete_one(
                &call,
                &groups,
                "core-groups-manage",
                group()?,
                args.confirm_delete,
            )
            .await
        }
        ManageAction::AddUsers | ManageAction::RemoveUsers => {
            let add = action == ManageAction::AddUsers;
            let user_ids = required(args.user_ids.as_ref(), "add_users/remove_users", "user_ids")?;
            let found = groups.find(client, group()?, Need::Id).await?;
            change_members(&call, client, found.id, user_ids, add).await
        }
    }
}

/// The member ids of a group object: `admin_user_ids`, else the ids in `admin_users`.
fn member_ids(group: &Value) -> Option<Vec<u64>> {
    match (group.get("admin_user_ids"), group.get("admin_users")) {
        (Some(Value::Array(ids)), _) => Some(ids.iter().filter_map(Value::as_u64).collect()),
        (_, Some(Value::Array(users))) => Some(
            users
                .iter()
                .filter_map(|u| u.get("id").and_then(Value::as_u64))
                .collect(),
        ),
        _ => None,
    }
}

async fn change_members(
    call: &Call,
    client: &ModyoClient,
    id: u64,
    user_ids: &[u64],
    add: bool,
) -> ToolResult {
    let groups = groups();
    let path = groups.item(id);
    let current_group = groups.fetch(client, id).await?;
    let current = member_ids(&current_group).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("group {id} came back without admin_user_ids or admin_users; its members cannot be changed safely"),
        )
    })?;
    let mut next = current.clone();
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
        let response = client
            .send(
                Method::PUT,
                &path,
                &Query::new(),
                Some(&json!({"admin_user_ids": next})),
            )
            .await?;
        let object = read_back(client, response, &path).await?;
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
            .detail("user_ids", json!(wrong))
            .into());
        }
        object
    };
    let status = if changed == 0 { "unchanged" } else { "updated" };
    Ok(kit::written(
        call.mode,
        groups.resource(&object, Some(id)),
        object,
        PostCondition::status(status).affected(changed),
        word,
        format!("{changed} users {verb} group"),
        groups.legacy_key,
    ))
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
        .data(group_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let _ = args.verify;
    let name = args.name.trim();
    if name.is_empty() {
        return Err(CallError::Arguments("name must not be empty".into()));
    }
    let client = call.client()?;
    let groups = groups();
    let changes = args.fields.body(None);
    let (object, status) = match groups.lookup(client, name).await {
        Ok(found) if kit::is_empty(&changes) => (found.object(), "unchanged"),
        Ok(found) => {
            let path = groups.item(found.id);
            let response = client
                .send(Method::PUT, &path, &Query::new(), Some(&changes))
                .await?;
            (read_back(client, response, &path).await?, "updated")
        }
        Err(e) if kit::is_miss(&e) => {
            let response = client
                .send(
                    Method::POST,
                    &groups.path,
                    &Query::new(),
                    Some(&args.fields.body(Some(name))),
                )
                .await?;
            (created_object(response, groups.what)?, "created")
        }
        Err(e) => return Err(e.into()),
    };
    Ok(kit::written(
        call.mode,
        groups.resource(&object, None),
        object,
        PostCondition::status(status),
        status,
        format!("Group {status} successfully"),
        groups.legacy_key,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
