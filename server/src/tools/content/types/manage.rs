//! `content-types-manage`: list, get, create, update or delete content types, and add, update
//! or remove one field.
//!
//! [`manage`] decides what is decided locally (which action, a refused description, the
//! confirmation of a delete or a field removal) before any request, then runs the action.
//! Field actions send only the changed field and read its outcome back from the type the API
//! returns (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{
    Cardinality, FieldSpec, create_reply, fetch_type, fields_of, find_field, get_reply, has_field,
    list_reply, no_description, put_type, type_resource, type_schema, types_path, write_reply,
};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, Reply, ToolClass, ToolError, schema};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::content::{Need, numeric_id, resolve_space, unconfirmed};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// Actions of `content-types-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    AddField,
    UpdateField,
    RemoveField,
}

/// Arguments of `content-types-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, add_field, update_field or remove_field.
    action: Option<Action>,
    /// Space id, uid or name.
    space: Ident,
    /// Content type id or uid (all but list and create).
    #[serde(rename = "type")]
    content_type: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Unique identifier in the space (create).
    uid: Option<String>,
    /// Not supported: Modyo's content type has no description (refused).
    description: Option<String>,
    /// single or multiple (create, update; sent as the documented `single`).
    cardinality: Option<Cardinality>,
    /// Field definitions (create).
    fields: Option<Vec<FieldSpec>>,
    /// Name or id of the field (update_field, remove_field).
    field: Option<Ident>,
    /// The new field (add_field: name and type required) or the keys to change (update_field).
    definition: Option<FieldSpec>,
    /// Must be true for delete and remove_field (entries lose the field's values).
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = type_schema();
    data["properties"]["types"] = schema::array(type_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-types-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete content types, and add, update or remove one field. list: data.types \
+ coverage; other actions: data is the type as persisted, with its fields; delete and remove_field need \
confirmDelete: true (delete: data null, state.status deleted). Modyo's types have no description and fields no \
label (both refused); a field's required is sent under validations.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &[
                "create",
                "update",
                "delete",
                "add_field",
                "update_field",
                "remove_field",
            ],
        )
        .handle(manage)
        .writes_state(RareState::PAGED)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.uid.is_some(),
        args.description.is_some(),
        args.cardinality.is_some(),
        args.fields.is_some(),
        args.field.is_some(),
        args.definition.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, uid, description, cardinality, fields, field or definition are given".into(),
            ));
        }
        None => Action::Get,
    };
    let _ = args.verify;
    no_description(args.description.as_ref())?;
    if matches!(action, Action::Delete | Action::RemoveField) && args.confirm_delete != Some(true) {
        let name = if action == Action::Delete {
            "delete"
        } else {
            "remove_field"
        };
        return Ok(unconfirmed("content-types-manage", name));
    }
    let client = call.client()?;
    match action {
        Action::List => {
            let space = resolve_space(client, &args.space, Need::Object).await?;
            list_reply(
                &call,
                client,
                &space,
                &args.paging,
                |items| json!({"types": items}),
            )
            .await
        }
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let object = fetch_type(client, &space, type_arg(&args, action)?).await?;
            get_reply(&call, object)
        }
        Action::Create => create(&call, client, &args).await,
        Action::Update => update(&call, client, &args).await,
        Action::Delete => delete(&call, client, &args).await,
        Action::AddField => add_field(&call, client, &args).await,
        Action::UpdateField => update_field(&call, client, &args).await,
        Action::RemoveField => remove_field(&call, client, &args).await,
    }
}

/// The `type` argument an action needs, or the argument error that names it.
fn type_arg(args: &ManageArgs, action: Action) -> Result<&str, CallError> {
    args.content_type.as_deref().ok_or_else(|| {
        CallError::Arguments(format!("{action:?} needs type (id or uid)").to_lowercase())
    })
}

/// The `field` argument a field action needs, or the argument error that names it.
fn field_arg(args: &ManageArgs) -> Result<&str, CallError> {
    args.field
        .as_deref()
        .ok_or_else(|| CallError::Arguments("this action needs field (name or id)".into()))
}

/// The space and the type an action works on, the type read in full.
async fn current(
    client: &ModyoClient,
    args: &ManageArgs,
    action: Action,
) -> Result<(crate::tools::content::Space, Value), CallError> {
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let current = fetch_type(client, &space, type_arg(args, action)?).await?;
    Ok((space, current))
}

async fn create(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let (Some(name), Some(uid)) = (args.name.as_deref(), args.uid.as_deref()) else {
        return Err(CallError::Arguments("create needs name and uid".into()));
    };
    let fields = args
        .fields
        .iter()
        .flatten()
        .map(|f| f.new_field().map(Value::Object))
        .collect::<Result<Vec<_>, _>>()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    create_reply(call, client, &space, (name, uid), args.cardinality, fields).await
}

async fn update(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let mut body = Map::new();
    if let Some(name) = &args.name {
        body.insert("name".into(), Value::from(name.clone()));
    }
    if let Some(cardinality) = args.cardinality {
        body.insert("single".into(), Value::from(cardinality.single()));
    }
    if body.is_empty() {
        return Err(CallError::Arguments(
            "update needs name or cardinality (fields change through add_field, update_field, remove_field)".into(),
        ));
    }
    let (space, current) = current(client, args, Action::Update).await?;
    let id = numeric_id(&current, "a content type")?;
    let object = put_type(client, &space, id, Value::Object(body)).await?;
    write_reply(call, object, "updated", "Content type updated successfully")
}

async fn delete(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let (space, current) = current(client, args, Action::Delete).await?;
    let id = numeric_id(&current, "a content type")?;
    client
        .send(
            Method::DELETE,
            &format!("{}/{id}", types_path(&space)),
            &Query::new(),
            None,
        )
        .await?;
    Ok(Reply::new(Value::Null)
        .resource(type_resource(&current))
        .state(PostCondition::status("deleted"))
        .legacy(call.mode, || {
            json!({"message": "Content type permanently deleted", "action": "deleted", "typeId": id})
        })
        .into())
}

async fn add_field(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let Some(definition) = &args.definition else {
        return Err(CallError::Arguments(
            "add_field needs definition (name and type at least)".into(),
        ));
    };
    let field = definition.new_field()?;
    let name = definition.name.clone().unwrap_or_default();
    let (space, current) = current(client, args, Action::AddField).await?;
    if has_field(&current, &name) {
        return Err(ToolError::invalid_parameters(format!(
            "the type already has a field '{name}'; use update_field to change it"
        ))
        .into());
    }
    let id = numeric_id(&current, "a content type")?;
    let object = put_type(client, &space, id, json!({"fields": [field]})).await?;
    if !has_field(&object, &name) {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted field '{name}' but type {id} does not have it; read the type again with content-types-get"),
        )
        .into());
    }
    write_reply(call, object, "updated", "Field added successfully")
}

async fn update_field(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let definition = args.definition.clone().unwrap_or_default();
    if definition.body(None)?.is_empty() {
        return Err(CallError::Arguments(
            "update_field needs definition with the keys to change".into(),
        ));
    }
    let (space, current) = current(client, args, Action::UpdateField).await?;
    let existing = find_field(&current, field_arg(args)?)?;
    let changes = definition.body(Some(existing))?;
    let field_id = existing.get("id").cloned().unwrap_or(Value::Null);
    let mut field = changes;
    field.insert("id".into(), field_id.clone());
    let id = numeric_id(&current, "a content type")?;
    let object = put_type(client, &space, id, json!({"fields": [field]})).await?;
    let still_there = fields_of(&object)
        .iter()
        .any(|f| f.get("id") == Some(&field_id));
    if !still_there {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted the change of field {field_id} but type {id} no longer lists it; read the type again with content-types-get"),
        )
        .into());
    }
    write_reply(call, object, "updated", "Field updated successfully")
}

async fn remove_field(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let (space, current) = current(client, args, Action::RemoveField).await?;
    let existing = find_field(&current, field_arg(args)?)?;
    let field_id = existing.get("id").cloned().unwrap_or(Value::Null);
    let id = numeric_id(&current, "a content type")?;
    let object = put_type(
        client,
        &space,
        id,
        json!({"fields": [{"id": field_id, "_destroy": true}]}),
    )
    .await?;
    if fields_of(&object)
        .iter()
        .any(|f| f.get("id") == Some(&field_id))
    {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted the removal of field {field_id} but type {id} still has it"),
        )
        .into());
    }
    write_reply(call, object, "updated", "Field removed successfully")
}
