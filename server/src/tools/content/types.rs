//! Content types: `content-types-list`, `-get`, `-manage`, `-upsert` and `-copy`.
//!
//! A type is named by id, or by `uid` within its space. Field actions are a `PUT` of the changed
//! fields only (Rails nested attributes: a new field has no `id`, a changed one carries its `id`,
//! a removed one `{id, _destroy: true}`), and their outcome is read back from the type the API
//! returns: a field that is not where it was sent fails with `persisted_mismatch` (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Need, Space, id_key, numeric_id, resolve_space, unconfirmed};
use crate::config::Module;
use crate::contract::{
    Coverage, ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy, schema,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, persisted, tool};

/// The JSON schema of a content type as the API returns it (loose: echoed).
pub(crate) fn type_schema() -> Value {
    use crate::contract::schema::Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("uid", Str),
        ("name", Str),
        ("description", Str),
        ("cardinality", Str),
        ("space_id", Int),
        ("entries_count", Int),
        ("created_at", Str),
        ("updated_at", Str),
        ("fields", List),
    ])
}

/// The id of a content type named by id (no request) or by uid within the space (a walk of
/// the types list).
pub(crate) async fn type_id_of(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<String, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return Ok(input.to_owned());
    }
    let (types, _) = walk(
        client,
        &format!("{}/types", space.path()),
        "types",
        &Query::new(),
    )
    .await?;
    let found = pick(
        "content type",
        input,
        &types,
        &[Stage::exact("uid", "uid", input)],
    )?;
    match found.get("id") {
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("content type '{input}' has no numeric id"),
        )),
    }
}

/// Reads a content type by id, or by uid within the space.
pub(crate) async fn fetch_type(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<Value, ToolError> {
    let id = type_id_of(client, space, input).await?;
    client
        .get(&format!("{}/types/{id}", space.path()), &Query::new())
        .await
        .map_err(|e| {
            let not_found = e.is_not_found();
            let error = ToolError::from(e);
            if not_found {
                error.with_message(format!(
                    "content type {id} not found in space {}; call content-types-list to see its types",
                    space.id
                ))
            } else {
                error
            }
        })
}

/// Arguments of `content-types-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Content type id or uid.
    #[serde(rename = "type")]
    content_type: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-types-get", Module::Content, ToolClass::Read)
        .describe("Get one content type with its field definitions, by id or uid.")
        .data(type_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let object = fetch_type(client, &space, &args.content_type).await?;
    let resource = Resource::from_object("content_type", &object, Some("uid"));
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}

fn types_path(space: &Space) -> String {
    format!("{}/types", space.path())
}

fn type_resource(object: &Value) -> Resource {
    Resource::from_object("content_type", object, Some("uid"))
}

/// Arguments of `content-types-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Space id, uid or name.
    space: Ident,
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-types-list", Module::Content, ToolClass::Read)
        .describe("List a space's content types with their field definitions, one page at a time.")
        .data(schema::array(type_schema()))
        .resource()
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Object).await?;
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = client.list(&types_path(&space), "types", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let legacy_items = items.clone();
    Ok(Reply::new(items)
        .resource(space.resource())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("types", legacy_items, page.raw_meta.as_ref())
        })
        .into())
}

/// Cardinality of a content type.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Cardinality {
    Single,
    Multiple,
}

impl Cardinality {
    fn as_str(self) -> &'static str {
        match self {
            Cardinality::Single => "single",
            Cardinality::Multiple => "multiple",
        }
    }
}

/// A field definition (all keys optional; `name` and `type` are needed to add one).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct FieldSpec {
    /// Field name, the key in an entry's fields.
    name: Option<String>,
    /// Kind: text, textarea, rich_text, integer, decimal, boolean, date, dropdown, checkbox, multiple, location, asset, asset_list, entry, entries, group.
    #[serde(rename = "type")]
    kind: Option<String>,
    /// Label in the editor.
    label: Option<String>,
    /// Whether a value is required.
    required: Option<bool>,
    /// Help text.
    hint: Option<String>,
    /// Validations, such as {"max_length": 120} or {"options": ["a", "b"]}.
    validations: Option<Map<String, Value>>,
}

impl FieldSpec {
    /// The keys given, as the API's field object.
    fn body(&self) -> Map<String, Value> {
        let mut body = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                body.insert(key.to_owned(), value);
            }
        };
        put("name", self.name.clone().map(Value::from));
        put("type", self.kind.clone().map(Value::from));
        put("label", self.label.clone().map(Value::from));
        put("required", self.required.map(Value::from));
        put("hint", self.hint.clone().map(Value::from));
        put("validations", self.validations.clone().map(Value::Object));
        body
    }

    /// A new field: name and type are required.
    fn new_field(&self) -> Result<Map<String, Value>, CallError> {
        if self.name.as_deref().is_none_or(|n| n.trim().is_empty()) || self.kind.is_none() {
            return Err(CallError::Arguments(
                "a new field needs name and type".into(),
            ));
        }
        Ok(self.body())
    }
}

/// The fields of a type object.
fn fields_of(content_type: &Value) -> &[Value] {
    content_type
        .get("fields")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Finds a field of a type by name or id.
fn find_field<'t>(content_type: &'t Value, wanted: &str) -> Result<&'t Value, ToolError> {
    let wanted = wanted.trim();
    let fields = fields_of(content_type);
    fields
        .iter()
        .find(|f| f.get("name").and_then(Value::as_str) == Some(wanted))
        .or_else(|| {
            fields
                .iter()
                .find(|f| f.get("id").map(id_key).as_deref() == Some(wanted))
        })
        .ok_or_else(|| {
            let names: Vec<&str> = fields
                .iter()
                .filter_map(|f| f.get("name").and_then(Value::as_str))
                .collect();
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "the type has no field '{wanted}'. Its fields: {}",
                    names.join(", ")
                ),
            )
            .detail("available", json!(names))
        })
}

fn has_field(content_type: &Value, name: &str) -> bool {
    fields_of(content_type)
        .iter()
        .any(|f| f.get("name").and_then(Value::as_str) == Some(name))
}

/// A field definition copied to another type: everything but the identifiers of the original.
fn copied_field(field: &Value) -> Value {
    let mut copy = field.as_object().cloned().unwrap_or_default();
    for key in [
        "id",
        "uuid",
        "content_type_id",
        "type_id",
        "created_at",
        "updated_at",
    ] {
        copy.remove(key);
    }
    Value::Object(copy)
}

/// The body of a type create: name, uid, description, cardinality, fields (without ids).
fn create_body(
    name: &str,
    uid: &str,
    description: Option<&str>,
    cardinality: Option<&str>,
    fields: Vec<Value>,
) -> Value {
    let mut body = Map::new();
    body.insert("name".into(), Value::from(name));
    body.insert("uid".into(), Value::from(uid));
    if let Some(description) = description {
        body.insert("description".into(), Value::from(description));
    }
    if let Some(cardinality) = cardinality {
        body.insert("cardinality".into(), Value::from(cardinality));
    }
    if !fields.is_empty() {
        body.insert("fields".into(), Value::Array(fields));
    }
    Value::Object(body)
}

/// `PUT .../types/{id}` and the type as persisted.
async fn put_type(
    client: &ModyoClient,
    space: &Space,
    id: u64,
    body: Value,
) -> Result<Value, ToolError> {
    let path = format!("{}/{id}", types_path(space));
    let response = client
        .send(Method::PUT, &path, &Query::new(), Some(&body))
        .await?;
    persisted(client, response, &path).await
}

/// `POST .../types` and the type as persisted.
async fn post_type(client: &ModyoClient, space: &Space, body: Value) -> Result<Value, ToolError> {
    let response = client
        .send(Method::POST, &types_path(space), &Query::new(), Some(&body))
        .await?;
    let id = response.get("id").map(id_key).unwrap_or_default();
    persisted(client, response, &format!("{}/{id}", types_path(space))).await
}

fn write_reply(call: &Call, object: Value, status: &str, message: &str) -> ToolResult {
    let resource = type_resource(&object);
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(PostCondition::status(status))
        .legacy(call.mode, || {
            legacy::write(status, message, "type", legacy_object)
        })
        .into())
}

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
    /// Description (create, update).
    description: Option<String>,
    /// single or multiple (create, update).
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
confirmDelete: true (delete: data null, state.status deleted).",
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
    if matches!(action, Action::Delete | Action::RemoveField) && args.confirm_delete != Some(true) {
        let name = if action == Action::Delete {
            "delete"
        } else {
            "remove_field"
        };
        return Ok(unconfirmed("content-types-manage", name));
    }
    let client = call.client()?;
    let need_type = || {
        args.content_type.as_deref().ok_or_else(|| {
            CallError::Arguments(format!("{action:?} needs type (id or uid)").to_lowercase())
        })
    };
    let need_field = || {
        args.field
            .as_deref()
            .ok_or_else(|| CallError::Arguments("this action needs field (name or id)".into()))
    };
    match action {
        Action::List => {
            let space = resolve_space(client, &args.space, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(&types_path(&space), "types", &query).await?;
            let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
            let items = Value::Array(page.items);
            let legacy_items = items.clone();
            Ok(Reply::new(json!({"types": items}))
                .resource(space.resource())
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("types", legacy_items, page.raw_meta.as_ref())
                })
                .into())
        }
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let object = fetch_type(client, &space, need_type()?).await?;
            let resource = type_resource(&object);
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .legacy(call.mode, || legacy_object)
                .into())
        }
        Action::Create => {
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
            let body = create_body(
                name,
                uid,
                args.description.as_deref(),
                args.cardinality.map(Cardinality::as_str),
                fields,
            );
            let object = post_type(client, &space, body).await?;
            write_reply(
                &call,
                object,
                "created",
                "Content type created successfully",
            )
        }
        Action::Update => {
            let mut body = Map::new();
            if let Some(name) = &args.name {
                body.insert("name".into(), Value::from(name.clone()));
            }
            if let Some(description) = &args.description {
                body.insert("description".into(), Value::from(description.clone()));
            }
            if let Some(cardinality) = args.cardinality {
                body.insert("cardinality".into(), Value::from(cardinality.as_str()));
            }
            if body.is_empty() {
                return Err(CallError::Arguments(
                    "update needs name, description or cardinality (fields change through add_field, update_field, remove_field)".into(),
                ));
            }
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let current = fetch_type(client, &space, need_type()?).await?;
            let id = numeric_id(&current, "a content type")?;
            let object = put_type(client, &space, id, Value::Object(body)).await?;
            write_reply(
                &call,
                object,
                "updated",
                "Content type updated successfully",
            )
        }
        Action::Delete => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let current = fetch_type(client, &space, need_type()?).await?;
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
        Action::AddField => {
            let Some(definition) = &args.definition else {
                return Err(CallError::Arguments(
                    "add_field needs definition (name and type at least)".into(),
                ));
            };
            let field = definition.new_field()?;
            let name = definition.name.clone().unwrap_or_default();
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let current = fetch_type(client, &space, need_type()?).await?;
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
            write_reply(&call, object, "updated", "Field added successfully")
        }
        Action::UpdateField => {
            let changes = args.definition.clone().unwrap_or_default().body();
            if changes.is_empty() {
                return Err(CallError::Arguments(
                    "update_field needs definition with the keys to change".into(),
                ));
            }
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let current = fetch_type(client, &space, need_type()?).await?;
            let existing = find_field(&current, need_field()?)?;
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
            write_reply(&call, object, "updated", "Field updated successfully")
        }
        Action::RemoveField => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let current = fetch_type(client, &space, need_type()?).await?;
            let existing = find_field(&current, need_field()?)?;
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
            write_reply(&call, object, "updated", "Field removed successfully")
        }
    }
}

/// Arguments of `content-types-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Space id, uid or name.
    space: Ident,
    /// The type's uid: the natural key (created when no type has it).
    uid: String,
    /// Name (required to create).
    name: Option<String>,
    /// Description.
    description: Option<String>,
    /// single or multiple.
    cardinality: Option<Cardinality>,
    /// Fields by name: existing ones are updated, new ones added; others are kept.
    fields: Option<Vec<FieldSpec>>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("content-types-upsert", Module::Content, ToolClass::Mutation)
        .describe(
            "Create or update a content type by uid. Fields are matched by name: existing ones updated, new ones added, \
others kept. data is the type as persisted; state.status created or updated.",
        )
        .data(type_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let _ = args.verify;
    let uid = args.uid.trim();
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let (types, _) = walk(client, &types_path(&space), "types", &Query::new()).await?;
    let found: Vec<&Value> = types
        .iter()
        .filter(|t| t.get("uid").and_then(Value::as_str) == Some(uid))
        .collect();
    let specs = args.fields.clone().unwrap_or_default();
    match found.as_slice() {
        [] => {
            let Some(name) = args.name.as_deref() else {
                return Err(CallError::Arguments(format!(
                    "no type has uid '{uid}' in space {}; name is needed to create it",
                    space.id
                )));
            };
            let fields = specs
                .iter()
                .map(|f| f.new_field().map(Value::Object))
                .collect::<Result<Vec<_>, _>>()?;
            let body = create_body(
                name,
                uid,
                args.description.as_deref(),
                args.cardinality.map(Cardinality::as_str),
                fields,
            );
            let object = post_type(client, &space, body).await?;
            write_reply(
                &call,
                object,
                "created",
                "Content type created successfully",
            )
        }
        [existing] => {
            let id = numeric_id(existing, "a content type")?;
            // List rows may come without fields; the type itself has them.
            let current = if existing.get("fields").is_some() {
                (*existing).clone()
            } else {
                fetch_type(client, &space, &id.to_string()).await?
            };
            let mut fields = Vec::new();
            for spec in &specs {
                let name = spec.name.clone().unwrap_or_default();
                match fields_of(&current)
                    .iter()
                    .find(|f| f.get("name").and_then(Value::as_str) == Some(name.as_str()))
                {
                    Some(field) => {
                        let mut body = spec.body();
                        body.insert("id".into(), field.get("id").cloned().unwrap_or(Value::Null));
                        fields.push(Value::Object(body));
                    }
                    None => fields.push(Value::Object(spec.new_field()?)),
                }
            }
            let mut body = Map::new();
            for (key, value) in [
                ("name", args.name.clone().map(Value::from)),
                ("description", args.description.clone().map(Value::from)),
                (
                    "cardinality",
                    args.cardinality.map(|c| Value::from(c.as_str())),
                ),
            ] {
                if let Some(value) = value {
                    body.insert(key.into(), value);
                }
            }
            if !fields.is_empty() {
                body.insert("fields".into(), Value::Array(fields));
            }
            let object = put_type(client, &space, id, Value::Object(body)).await?;
            write_reply(
                &call,
                object,
                "updated",
                "Content type updated successfully",
            )
        }
        many => {
            let candidates: Vec<Value> = many
                .iter()
                .map(|t| json!({"id": t.get("id"), "name": t.get("name")}))
                .collect();
            Err(ToolError::new(
                ErrorCode::Ambiguous,
                format!(
                    "{} types have uid '{uid}' in space {}",
                    many.len(),
                    space.id
                ),
            )
            .detail("candidates", Value::Array(candidates))
            .into())
        }
    }
}

/// Arguments of `content-types-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Space of the type to copy (id, uid or name).
    space: Ident,
    /// Content type to copy (id or uid).
    #[serde(rename = "type")]
    content_type: Ident,
    /// Space to copy into (id, uid or name; default: the same space).
    target_space: Option<Ident>,
    /// uid of the copy (default: the original's; required within the same space).
    uid: Option<String>,
    /// Name of the copy (default: the original's).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("content-types-copy", Module::Content, ToolClass::Mutation)
        .describe(
            "Copy a content type and its field definitions to another space (or the same space with a new uid). data \
is the copy as persisted; resource is the copy.",
        )
        .data(type_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let source_space = resolve_space(client, &args.space, Need::Id).await?;
    let target_space = match args.target_space.as_deref() {
        Some(target) => resolve_space(client, target, Need::Id).await?,
        None => Space {
            id: source_space.id,
            object: None,
        },
    };
    let source = fetch_type(client, &source_space, &args.content_type).await?;
    let uid = match (&args.uid, source.get("uid").and_then(Value::as_str)) {
        (Some(uid), _) => uid.clone(),
        (None, Some(uid)) if target_space.id != source_space.id => uid.to_owned(),
        _ => {
            return Err(CallError::Arguments(
                "a copy within the same space needs a new uid".into(),
            ));
        }
    };
    let name = args
        .name
        .clone()
        .or_else(|| {
            source
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| uid.clone());
    let fields = fields_of(&source).iter().map(copied_field).collect();
    let body = create_body(
        &name,
        &uid,
        source.get("description").and_then(Value::as_str),
        source.get("cardinality").and_then(Value::as_str),
        fields,
    );
    let object = post_type(client, &target_space, body).await?;
    write_reply(&call, object, "created", "Content type copied successfully")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_name_then_id_and_copied_without_ids() {
        let t = json!({"fields": [{"id": 7, "name": "title", "type": "text", "created_at": "x"}]});
        assert_eq!(find_field(&t, "title").unwrap()["id"], 7);
        assert_eq!(find_field(&t, "7").unwrap()["name"], "title");
        let err = find_field(&t, "body").unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert_eq!(err.to_value()["available"], json!(["title"]));
        assert_eq!(
            copied_field(&t["fields"][0]),
            json!({"name": "title", "type": "text"})
        );
    }

    #[test]
    fn a_new_field_needs_a_name_and_a_type() {
        let spec = FieldSpec {
            name: Some("title".into()),
            ..FieldSpec::default()
        };
        assert!(spec.new_field().is_err());
        let spec = FieldSpec {
            kind: Some("text".into()),
            ..spec
        };
        assert_eq!(
            Value::Object(spec.new_field().unwrap()),
            json!({"name": "title", "type": "text"})
        );
    }
}
