//! Team members: `core-members-manage` gives a team user or a group a role on one site, space
//! or realm.
//!
//! Paths are `[synthetic]` (the `/api/admin/team_members` prefix is documented). A role only
//! applies to targets of its own `context`; a mismatch is refused locally with
//! `invalid_parameters` before anything is written, because the API's answer to it is not
//! documented.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::kit::{self, Need, body, confirmed, created_object, read_back, required};
use super::{roles, team_members};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, PostCondition, Resource, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A team member as the API returns it (loose: echoed).
pub(crate) fn member_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("role_id", Kind::Int),
        ("role", Kind::Obj),
        ("admin_user_id", Kind::Int),
        ("admin_user", Kind::Obj),
        ("group_id", Kind::Int),
        ("group", Kind::Obj),
        ("site_id", Kind::Int),
        ("space_id", Kind::Int),
        ("realm_id", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `core-members-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Add,
    Update,
    Remove,
}

/// Arguments of `core-members-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), add, update or remove.
    action: Option<ManageAction>,
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

pub(crate) fn manage_tool() -> ToolDef {
    tool("core-members-manage", Module::Core, ToolClass::Gated)
        .describe(
            "List, get, add, update or remove team members: a user or group holding a role on one site, space or \
realm (exactly one of site_id, space_id, realm_id). The role's context must match the target. list: \
data.team_members + coverage, resource = the target; add/update: data is the member as persisted; remove needs \
confirmDelete: true.",
        )
        .data(kit::manage_schema(member_schema(), "team_members"))
        .resource()
        .state()
        .actions(&["list", "get"], &["add", "update", "remove"])
        .handle(manage)
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

/// The member's identity, named after the user or group that holds the role.
fn member_resource(member: &Value, id: Option<u64>) -> Resource {
    let resource = team_members().resource(member, id);
    let holder = ["admin_user", "group"].into_iter().find_map(|k| {
        member
            .get(k)
            .and_then(|h| h.get("name"))
            .and_then(Value::as_str)
    });
    match holder {
        Some(name) if resource.name_value().is_none() => resource.name(name),
        _ => resource,
    }
}

/// Resolves a role (id or key) and refuses one whose `context` is not the target's.
async fn role_for(client: &ModyoClient, input: &str, target: Target) -> Result<u64, ToolError> {
    let roles = roles();
    let found = roles.find(client, input, Need::Object).await?;
    let role = found.object();
    let context = role.get("context").and_then(Value::as_str).unwrap_or("");
    if context != target.context {
        let key = role.get("key").and_then(Value::as_str).unwrap_or(input);
        return Err(ToolError::invalid_parameters(format!(
            "role '{key}' has context '{context}' but the target is a {} ({} {}); pick a role of context '{}' (core-roles-manage list with context={})",
            target.context, target.key(), target.id, target.context, target.context
        ))
        .detail("role_context", context)
        .detail("target_context", target.context));
    }
    Ok(found.id)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = args.role.is_some() || args.admin_user_id.is_some() || args.group_id.is_some();
    let action = match args.action {
        Some(action) => action,
        None if writes => return Err(kit::action_required("role, admin_user_id or group_id")),
        None => ManageAction::Get,
    };
    let client = call.client()?;
    let members = team_members();
    let member = || required(args.member, "this action", "member (team member id)");
    match action {
        ManageAction::List => {
            let target = Target::from_args(&args)?;
            let query = Query::new()
                .push(&target.key(), target.id)
                .page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &members, &query, Some(target.resource())).await
        }
        ManageAction::Get => {
            let id = member()?;
            let object = members.fetch(client, id).await?;
            Ok(kit::object_reply(
                call.mode,
                member_resource(&object, Some(id)),
                object,
            ))
        }
        ManageAction::Add => {
            let target = Target::from_args(&args)?;
            let role = required(args.role.as_deref(), "add", "role (id or key)")?;
            let holder = match (args.admin_user_id, args.group_id) {
                (Some(user), None) => ("admin_user_id", user),
                (None, Some(group)) => ("group_id", group),
                _ => {
                    return Err(CallError::Arguments(
                        "add needs exactly one of admin_user_id or group_id".into(),
                    ));
                }
            };
            let role_id = role_for(client, role, target).await?;
            let request = body(vec![
                ("role_id", Some(Value::from(role_id))),
                (holder.0, Some(Value::from(holder.1))),
                (&target.key(), Some(Value::from(target.id))),
            ]);
            let response = client
                .send(Method::POST, &members.path, &Query::new(), Some(&request))
                .await?;
            let object = created_object(response, members.what)?;
            Ok(kit::written(
                call.mode,
                member_resource(&object, None),
                object,
                PostCondition::status("created"),
                "created",
                "Team member added successfully".into(),
                members.legacy_key,
            ))
        }
        ManageAction::Update => {
            let id = member()?;
            let role = required(args.role.as_deref(), "update", "role (id or key)")?;
            let current = members.fetch(client, id).await?;
            let target = Target::of_member(&current, id)?;
            let role_id = role_for(client, role, target).await?;
            let path = members.item(id);
            let response = client
                .send(
                    Method::PUT,
                    &path,
                    &Query::new(),
                    Some(&body(vec![("role_id", Some(Value::from(role_id)))])),
                )
                .await?;
            let object = read_back(client, response, &path).await?;
            // The role may come back as `role_id` or only inside `role`.
            let persisted_role = object
                .get("role_id")
                .filter(|v| !v.is_null())
                .or_else(|| object.pointer("/role/id"))
                .cloned()
                .unwrap_or(Value::Null);
            kit::check_persisted(
                &json!({"role_id": persisted_role}),
                "role_id",
                &Value::from(role_id),
                &format!("team member {id}"),
            )?;
            Ok(kit::written(
                call.mode,
                member_resource(&object, Some(id)),
                object,
                PostCondition::status("updated"),
                "updated",
                "Team member updated successfully".into(),
                members.legacy_key,
            ))
        }
        ManageAction::Remove => {
            let id = member()?;
            if let Err(control) = confirmed(args.confirm_delete, "core-members-manage", "remove") {
                return Ok(control);
            }
            client
                .send(Method::DELETE, &members.item(id), &Query::new(), None)
                .await?;
            Ok(kit::deleted(
                call.mode,
                Resource::new("team_member").id(id),
                "Team member removed successfully".into(),
                "teamMemberId",
                Value::from(id),
            ))
        }
    }
}
