//! Roles: `core-roles-create` and `core-roles-manage`.
//!
//! `GET /api/admin/roles` (filter `context`) is documented; the rest is `[synthetic]`. Roles
//! resolve by `key`. `restore` applies only to roles the API marks `restorable` (a default
//! role that was edited); any other is refused locally, before a request is sent.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::kit::{self, Need, body, confirmed, created_object, read_back, required};
use super::roles;
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A role as the API returns it (loose: echoed).
pub(crate) fn role_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("key", Kind::Str),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("context", Kind::Str),
        ("scope", Kind::Str),
        ("read_only", Kind::Bool),
        ("restorable", Kind::Bool),
        ("users_count", Kind::Int),
        ("permissions", Kind::List),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Where a role applies.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Context {
    Account,
    Site,
    Space,
    Realm,
}

impl Context {
    fn as_str(self) -> &'static str {
        match self {
            Context::Account => "account",
            Context::Site => "site",
            Context::Space => "space",
            Context::Realm => "realm",
        }
    }
}

/// Arguments of `core-roles-create`.
#[derive(Debug, Deserialize, JsonSchema)]
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
        .data(role_schema())
        .resource()
        .state()
        .handle(create)
}

async fn create(call: Call, args: CreateArgs) -> ToolResult {
    let client = call.client()?;
    let roles = roles();
    let request = body(vec![
        ("name", Some(Value::from(args.name))),
        ("key", args.key.map(Value::from)),
        ("context", Some(Value::from(args.context.as_str()))),
        ("description", args.description.map(Value::from)),
        ("permissions", args.permissions.map(Value::from)),
    ]);
    let response = client
        .send(Method::POST, &roles.path, &Query::new(), Some(&request))
        .await?;
    let object = created_object(response, roles.what)?;
    Ok(kit::written(
        call.mode,
        roles.resource(&object, None),
        object,
        PostCondition::status("created"),
        "created",
        "Role created successfully".into(),
        roles.legacy_key,
    ))
}

/// Actions of `core-roles-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Update,
    Delete,
    Restore,
}

/// Arguments of `core-roles-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), update, delete or restore.
    action: Option<ManageAction>,
    /// Role id or key (get, update, delete, restore).
    role: Option<Ident>,
    /// Only roles of this context (list).
    context: Option<Context>,
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

pub(crate) fn manage_tool() -> ToolDef {
    tool("core-roles-manage", Module::Core, ToolClass::Gated)
        .describe(
            "List, get, update, delete or restore roles (create: core-roles-create). role: id or key. list: \
data.roles + coverage (filter context); restore only for roles marked restorable; delete needs confirmDelete: true. \
Other actions: data is the role as persisted.",
        )
        .data(kit::manage_schema(role_schema(), "roles"))
        .resource()
        .state()
        .actions(&["list", "get"], &["update", "delete", "restore"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("permissions", args.permissions.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required("name, description or permissions"));
        }
        None => ManageAction::Get,
    };
    let client = call.client()?;
    let roles = roles();
    let role = || required(args.role.as_deref(), "this action", "role (id or key)");
    match action {
        ManageAction::List => {
            let query = Query::new()
                .push_opt("context", args.context.map(Context::as_str))
                .page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &roles, &query, None).await
        }
        ManageAction::Get => kit::get_one(&call, &roles, role()?).await,
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, permissions".into(),
                ));
            }
            kit::put_one(&call, &roles, role()?, &fields, "updated", None).await
        }
        ManageAction::Delete => {
            if let Err(control) = confirmed(args.confirm_delete, "core-roles-manage", "delete") {
                return Ok(control);
            }
            kit::delete_one(
                &call,
                &roles,
                "core-roles-manage",
                role()?,
                args.confirm_delete,
            )
            .await
        }
        ManageAction::Restore => {
            let found = roles.find(client, role()?, Need::Object).await?;
            let current = found.object();
            if current.get("restorable") != Some(&Value::Bool(true)) {
                let key = current.get("key").and_then(Value::as_str).unwrap_or("");
                return Err(ToolError::invalid_parameters(format!(
                    "role {} ('{key}') is not restorable: only roles the API marks restorable (edited default roles) can be restored",
                    found.id
                ))
                .into());
            }
            let path = roles.item(found.id);
            let response = client
                .send(
                    Method::POST,
                    &format!("{path}/restore"),
                    &Query::new(),
                    None,
                )
                .await?;
            let object = read_back(client, response, &path).await?;
            Ok(kit::written(
                call.mode,
                roles.resource(&object, Some(found.id)),
                object,
                PostCondition::status("restored"),
                "restored",
                "Role restored to its defaults".into(),
                roles.legacy_key,
            ))
        }
    }
}
