//! Content types: `content-types-list`, `-get` and `-copy` here, [`manage`] and [`upsert`] in
//! their own files.
//!
//! A type is named by id, or by `uid` within its space. Field actions are a `PUT` of the changed
//! fields only (Rails nested attributes: a new field has no `id`, a changed one carries its `id`,
//! a removed one `{id, _destroy: true}`), and their outcome is read back from the type the API
//! returns: a field that is not where it was sent fails with `persisted_mismatch` (C7).
//!
//! The documented type takes `name`, `uid`, `single` (a boolean) and `fields`; a field takes
//! `name`, `type`, `hint`, `position`, `multi` and `validations` (where `required` lives). The
//! tools keep their `cardinality` (sent as `single`) and a field's `required` (sent under
//! `validations`); a type description and a field label have no documented key, so giving one
//! is refused before any request.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Space, id_key, space_rows};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Answer, Container, Echo, Identity, Member, Need, Object, Rules, body, echoed, lenient, persist,
    reply, view,
};

mod manage;
mod upsert;
mod views;

pub(crate) use manage::manage_tool;
pub(crate) use upsert::upsert_tool;
pub(crate) use views::{FieldKeys, TypeView, copied_field};

echoed! {
    /// A content type as the API returns it, with its field definitions (`description` and
    /// `cardinality` are answered by the API the cassettes record, though the documented type
    /// lacks them).
    TypeObject = "content type" {
        id: i64, uuid: String, uid: String, name: String, single: bool, fields: List
    }
}

impl Member for TypeObject {
    const RULES: Rules = Rules::new("content_type", "types")
        .slug("uid")
        .legacy("type", "Content type")
        .hint("call content-types-list to see its types");
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
    match view::<Identity>(found).id {
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
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> Answer<Echo<TypeObject>> {
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Id).await?;
    let object = fetch_type(client, &space, &args.content_type).await?;
    let resource = type_resource(&object);
    Ok(reply::one(object, resource).into())
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
        .resource()
        .state()
        .handle(|call: Call, args: ListArgs| async move {
            space_rows::<TypeObject>(&call, &args.space, &args.paging).await
        })
        .writes_state(RareState::PAGED)
}

/// Cardinality of a content type.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Cardinality {
    Single,
    Multiple,
}

impl Cardinality {
    /// The documented `single` flag.
    fn single(self) -> bool {
        matches!(self, Cardinality::Single)
    }
}

/// Refuses a type description: the documented type has no such key.
fn no_description(description: Option<&String>) -> Result<(), ToolError> {
    match description {
        Some(_) => Err(ToolError::invalid_parameters(
            "description is not supported: Modyo's content type has no description (the documented type takes name, uid, single and fields)",
        )),
        None => Ok(()),
    }
}

/// A field definition (all keys optional; `name` and `type` are needed to add one).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
pub(crate) struct FieldSpec {
    /// Field name, the key in an entry's fields.
    name: Option<String>,
    /// Kind, as documented: string, text, rich_text, dropdown, radio, checkbox, multiple, boolean, integer, decimal, date, locations, asset, assets, content_type, content_types.
    #[serde(rename = "type")]
    kind: Option<String>,
    /// Not supported: the documented field has no label (refused).
    label: Option<String>,
    /// Whether a value is required (sent as `validations.required`).
    required: Option<bool>,
    /// Help text.
    hint: Option<String>,
    /// Validations, as documented: such as {"length": 50}, {"unique": true} or {"regexp": "^[a-z]+$"}.
    validations: Option<Map<String, Value>>,
}

/// The validations a field holds, when an object.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Validations {
    #[serde(deserialize_with = "lenient")]
    validations: Option<Map<String, Value>>,
}

impl FieldSpec {
    /// The keys given, as the documented field object: `required` under `validations`, on
    /// top of the field's current validations (`current`, when the field exists) so a change
    /// of one validation keeps the others. A label is refused.
    fn body(&self, current: Option<&Value>) -> Result<Map<String, Value>, ToolError> {
        if self.label.is_some() {
            return Err(ToolError::invalid_parameters(
                "label is not supported: Modyo's field has no label (the documented field takes name, type, hint, position, multi and validations)",
            ));
        }
        let mut body = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                body.insert(key.to_owned(), value);
            }
        };
        put("name", self.name.clone().map(Value::from));
        put("type", self.kind.clone().map(Value::from));
        put("hint", self.hint.clone().map(Value::from));
        if self.validations.is_some() || self.required.is_some() {
            let mut validations = current
                .and_then(|field| view::<Validations>(field).validations)
                .unwrap_or_default();
            validations.extend(self.validations.clone().unwrap_or_default());
            if let Some(required) = self.required {
                validations.insert("required".into(), Value::from(required));
            }
            body.insert("validations".into(), Value::Object(validations));
        }
        Ok(body)
    }

    /// A new field: name and type are required.
    fn new_field(&self) -> Result<Map<String, Value>, CallError> {
        if self.name.as_deref().is_none_or(|n| n.trim().is_empty()) || self.kind.is_none() {
            return Err(CallError::Arguments(
                "a new field needs name and type".into(),
            ));
        }
        Ok(self.body(None)?)
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
    let fields: Vec<(&Value, FieldKeys)> = fields_of(content_type)
        .iter()
        .map(|f| (f, view(f)))
        .collect();
    fields
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(wanted))
        .or_else(|| {
            fields
                .iter()
                .find(|(_, f)| f.id.as_ref().map(id_key).as_deref() == Some(wanted))
        })
        .map(|(field, _)| *field)
        .ok_or_else(|| {
            let names: Vec<&str> = fields
                .iter()
                .filter_map(|(_, f)| f.name.as_deref())
                .collect();
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "the type has no field '{wanted}'. Its fields: {}",
                    names.join(", ")
                ),
            )
        })
}

fn has_field(content_type: &Value, name: &str) -> bool {
    fields_of(content_type)
        .iter()
        .any(|f| view::<FieldKeys>(f).name.as_deref() == Some(name))
}

/// Creates a type the documented way, at `types_path` (a space's `.../types`): `POST` of its
/// name, uid and `single`, then, when there are fields, a `PUT` of them (the create body has
/// no fields). Answers the type as persisted.
pub(crate) async fn create_type(
    client: &ModyoClient,
    types_path: &str,
    name: &str,
    uid: &str,
    single: Option<bool>,
    fields: Vec<Value>,
) -> Result<Value, ToolError> {
    let created = body(TypeBody { name, uid, single });
    let response = client
        .send(Method::POST, types_path, &Query::new(), Some(&created))
        .await?;
    let id = match view::<Identity>(&response).id {
        Some(id @ Value::Number(_)) => id_key(&id),
        _ => {
            return Err(ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!(
                    "the create of type '{uid}' was answered without an id; list the space's types (content-types-list) before retrying"
                ),
            ));
        }
    };
    let path = format!("{types_path}/{id}");
    if fields.is_empty() {
        return persist::read_back(client, response, &path).await;
    }
    let response = client
        .send(
            Method::PUT,
            &path,
            &Query::new(),
            Some(&body(FieldsBody { fields })),
        )
        .await
        .map_err(|e| {
            ToolError::from(e).context(format!(
                "type '{uid}' was created (id {id}) but its fields were not saved"
            ))
        })?;
    persist::read_back(client, response, &path).await
}

/// The body that creates a type (its fields are `PUT` after).
#[derive(Serialize)]
struct TypeBody<'a> {
    name: &'a str,
    uid: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    single: Option<bool>,
}

/// The body that writes fields of a type (a `PUT` of the type): each field object as given.
#[derive(Serialize)]
pub(super) struct FieldsBody<F> {
    pub(super) fields: Vec<F>,
}

/// `PUT .../types/{id}` and the type as persisted.
async fn put_type(
    client: &ModyoClient,
    space: &Space,
    id: u64,
    body: Value,
) -> Result<Value, ToolError> {
    let path = format!("{}/{id}", types_path(space));
    persist::write(client, Method::PUT, &path, Some(&body), &path).await
}

/// Creates a type (`name`, `uid`) in `space` and answers it as persisted, `created`.
async fn create_reply<D: Object>(
    client: &ModyoClient,
    space: &Space,
    (name, uid): (&str, &str),
    cardinality: Option<Cardinality>,
    fields: Vec<Value>,
) -> Result<Reply<D>, ToolError> {
    let single = cardinality.map(Cardinality::single);
    let object = create_type(client, &types_path(space), name, uid, single, fields).await?;
    Ok(write_reply(
        object,
        "created",
        "Content type created successfully",
    ))
}

/// The answer of a type write: the type as persisted, in `status`, the old payload's message
/// `message` (C21).
fn write_reply<D: Object>(object: Value, status: &str, message: &str) -> Reply<D> {
    let resource = type_resource(&object);
    let post = PostCondition::status(status);
    reply::saved_as::<TypeObject, D>(object, resource, post, status, message)
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
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<TypeObject>> {
    let client = call.client()?;
    let source_space = Space::resolve(client, &args.space, Need::Id).await?;
    let target_space = Space::target(client, args.target_space.as_deref(), &source_space).await?;
    let source: TypeView = view(&fetch_type(client, &source_space, &args.content_type).await?);
    let uid = match (&args.uid, &source.uid) {
        (Some(uid), _) => uid.clone(),
        (None, Some(uid)) if target_space.id != source_space.id => uid.clone(),
        _ => {
            return Err(CallError::Arguments(
                "a copy within the same space needs a new uid".into(),
            ));
        }
    };
    let name = args
        .name
        .clone()
        .or_else(|| source.name.clone())
        .unwrap_or_else(|| uid.clone());
    let fields = source.fields().iter().map(copied_field).collect();
    let object = create_type(
        client,
        &types_path(&target_space),
        &name,
        &uid,
        source.single,
        fields,
    )
    .await?;
    Ok(write_reply(object, "created", "Content type copied successfully").into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_found_by_name_then_id_and_copied_without_ids() {
        let t = json!({"fields": [{"id": 7, "name": "title", "type": "text", "created_at": "x"}]});
        assert_eq!(find_field(&t, "title").unwrap()["id"], 7);
        assert_eq!(find_field(&t, "7").unwrap()["name"], "title");
        let err = find_field(&t, "body").unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(
            err.message().ends_with("Its fields: title"),
            "{}",
            err.message()
        );
        assert_eq!(
            copied_field(&t["fields"][0]),
            json!({"name": "title", "type": "text"})
        );
        let answered = json!({"id": 8, "name": "code", "label": "Código", "type": "text", "required": true, "position": 1, "validations": {}});
        assert_eq!(
            copied_field(&answered),
            json!({"name": "code", "type": "text", "position": 1, "validations": {"required": true}})
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

    #[test]
    fn required_goes_under_validations_keeping_the_current_ones_and_a_label_is_refused() {
        let spec = FieldSpec {
            required: Some(true),
            ..FieldSpec::default()
        };
        let current = json!({"id": 7, "validations": {"length": 50}});
        assert_eq!(
            Value::Object(spec.body(Some(&current)).unwrap()),
            json!({"validations": {"length": 50, "required": true}})
        );
        let labelled = FieldSpec {
            label: Some("Título".into()),
            ..spec
        };
        assert!(labelled.body(None).is_err());
    }
}
