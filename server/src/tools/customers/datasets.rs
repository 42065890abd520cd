//! Data sets of a realm (the option lists questions draw from): `customers-datasets-manage`
//! and `customers-datasets-copy`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/data_sets[/{id}]`). Data sets
//! expose `use_external_ids` and an `external_id` on each alternative (documented); a copy
//! keeps both.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{resolve_realm, resolve_realms};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{self, Need, body, created_object, required, without_owned};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A data set as the API returns it (loose: echoed).
pub(crate) fn data_set_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("use_external_ids", Kind::Bool),
        ("alternatives", Kind::List),
        ("alternatives_count", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `customers-datasets-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Arguments of `customers-datasets-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<ManageAction>,
    /// Data set id or name (get, update, delete).
    data_set: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Whether alternatives carry an external_id (create, update).
    use_external_ids: Option<bool>,
    /// Alternatives such as {label, value, external_id}, replacing the current ones (create, update).
    alternatives: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("customers-datasets-manage", Module::Customers, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete a realm's data sets (option lists for questions). data_set: id or \
name. list: data.data_sets + coverage, resource = the realm; other actions: data is the data set as persisted; \
delete needs confirmDelete: true.",
        )
        .data(kit::manage_schema(data_set_schema(), "data_sets"))
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("use_external_ids", args.use_external_ids.map(Value::from)),
        ("alternatives", args.alternatives.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required(
                "name, description, use_external_ids or alternatives",
            ));
        }
        None => ManageAction::Get,
    };
    // A delete without confirmation answers before any request, the realm lookup included.
    if action == ManageAction::Delete
        && let Err(control) =
            kit::confirmed(args.confirm_delete, "customers-datasets-manage", "delete")
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let data_sets = realm.data_sets();
    let data_set = || {
        required(
            args.data_set.as_deref(),
            "this action",
            "data_set (id or name)",
        )
    };
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &data_sets, &query, Some(realm.resource())).await
        }
        ManageAction::Get => kit::get_one(&call, &data_sets, data_set()?).await,
        ManageAction::Create => {
            required(args.name.as_deref(), "create", "name")?;
            kit::create_one(&call, &data_sets, &fields).await
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, use_external_ids, alternatives"
                        .into(),
                ));
            }
            kit::put_one(&call, &data_sets, data_set()?, &fields, "updated", None).await
        }
        ManageAction::Delete => {
            kit::delete_one(
                &call,
                &data_sets,
                "customers-datasets-manage",
                data_set()?,
                args.confirm_delete,
            )
            .await
        }
    }
}

/// Arguments of `customers-datasets-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm uid or name of the data set to copy.
    realm: Ident,
    /// Data set id or name.
    data_set: Ident,
    /// Realm uid or name to copy into (default: the same realm).
    target_realm: Option<Ident>,
    /// Name of the copy (default: the same name in another realm, "<name> (copy)" in the same one).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("customers-datasets-copy", Module::Customers, ToolClass::Mutation)
        .describe(
            "Copy a data set with its alternatives (external ids kept), within its realm or into another. data is \
the copy as persisted; resource is the copy.",
        )
        .data(data_set_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let mut inputs = vec![args.realm.as_str()];
    inputs.extend(args.target_realm.as_deref());
    let mut realms = resolve_realms(client, &inputs).await?.into_iter();
    let (Some(realm), target) = (realms.next(), realms.next()) else {
        return Err(ToolError::not_found("no realm resolved").into());
    };
    let target = target.unwrap_or_else(|| realm.clone());
    let data_sets = realm.data_sets();
    let found = data_sets.find(client, &args.data_set, Need::Id).await?;
    let source = data_sets.fetch(client, found.id).await?;
    let source_name = source
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("data set");
    let name = args.name.clone().unwrap_or_else(|| {
        if target.uid == realm.uid {
            format!("{source_name} (copy)")
        } else {
            source_name.to_owned()
        }
    });
    let request = body(vec![
        ("name", Some(Value::from(name))),
        ("description", source.get("description").cloned()),
        ("use_external_ids", source.get("use_external_ids").cloned()),
        (
            "alternatives",
            Some(without_owned(
                source.get("alternatives").unwrap_or(&json!([])),
            )),
        ),
    ]);
    let target_sets = target.data_sets();
    let response = client
        .send(
            Method::POST,
            &target_sets.path,
            &Query::new(),
            Some(&request),
        )
        .await?;
    let object = created_object(response, "data set")?;
    Ok(kit::written(
        call.mode,
        target_sets.resource(&object, None),
        object,
        PostCondition::status("created"),
        "copied",
        format!("Data set copied successfully from data set {}", found.id),
        "dataSet",
    ))
}
