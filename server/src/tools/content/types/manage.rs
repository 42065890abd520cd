//! `content-types-manage`: list, get, create, update or delete content types, and add, update
//! or remove one field, declared on the engine ([`crate::tools::engine::manage`]).
//!
//! `list` and what is decided locally (which action, what it needs, the confirmation of a
//! delete or a field removal) are the engine's; a description is refused before any request.
//! The other actions are the type's own: a type is named by id or uid, its `cardinality` is
//! sent as `single`, and field actions send only the changed field and read its outcome back
//! from the type the API returns (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    Cardinality, FieldKeys, FieldSpec, FieldsBody, TypeObject, create_reply, fetch_type, fields_of,
    find_field, has_field, no_description, put_type, type_resource, write_reply,
};
use crate::config::Module;
use crate::contract::{ErrorCode, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::content::{Space, numeric_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Container, Ctx, Given, Managed, Verb, body, command, container, manage, reply,
    scoped, standard, view,
};

/// Arguments of `content-types-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `content-types-manage` can be asked.
    enum TypeCommand for ManageArgs {
        List => Verb::list(),
        Get { content_type as "type": Ident } => Verb::read("get"),
        Create { name: String, uid: String } => Verb::write("create"),
        Update { content_type as "type": Ident } => Verb::write("update"),
        Delete { content_type as "type": Ident } => Verb::write("delete").confirmed(),
        AddField { content_type as "type": Ident, definition: FieldSpec } => Verb::write("add_field"),
        UpdateField { content_type as "type": Ident, field: Ident } => Verb::write("update_field"),
        RemoveField { content_type as "type": Ident, field: Ident } => Verb::write("remove_field").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    let scope = scoped(|call: Call, given: Given, verb| async move {
        let description = given.text("description");
        no_description(description.as_ref())?;
        container::scope::<Space, _>(call, given, verb).await
    });
    manage::<ManageArgs, TypeObject, TypeCommand>("content-types-manage", Module::Content, scope)
        .describe(
            "List, get, create, update or delete content types, and add, update or remove one field. list: data.types \
+ coverage; other actions: data is the type as persisted, with its fields; delete and remove_field need \
confirmDelete: true (delete: data null, state.status deleted). Modyo's types have no description and fields no \
label (both refused); a field's required is sent under validations.",
        )
        .target("type", "id or uid")
        .fields(&["name", "uid", "description", "cardinality", "fields"])
        .mutating(&["field", "definition"])
        .run(run)
}

/// Runs one command of `content-types-manage`.
async fn run(ctx: Ctx<ManageArgs, TypeObject, TypeCommand>) -> Answer<Managed<TypeObject>> {
    match &ctx.command {
        TypeCommand::List => standard::list(&ctx, Query::new()).await,
        TypeCommand::Get { .. } => get(ctx).await,
        TypeCommand::Create { .. } => create(ctx).await,
        TypeCommand::Update { .. } => update(ctx).await,
        TypeCommand::Delete { .. } => delete(ctx).await,
        TypeCommand::AddField { .. } => add_field(ctx).await,
        TypeCommand::UpdateField { .. } => update_field(ctx).await,
        TypeCommand::RemoveField { .. } => remove_field(ctx).await,
    }
}

type Types = Ctx<ManageArgs, TypeObject, TypeCommand>;
type Answered = Answer<Managed<TypeObject>>;

/// The space and the type an action works on, the type read in full, and its id.
async fn current(ctx: &Types) -> Result<(Space, Value, u64), CallError> {
    let space = Space::of(ctx)?;
    let current = fetch_type(ctx.client()?, &space, &ctx.target()?).await?;
    let id = numeric_id(&current, "a content type")?;
    Ok((space, current, id))
}

async fn get(ctx: Types) -> Answered {
    let object = fetch_type(ctx.client()?, &Space::of(&ctx)?, &ctx.target()?).await?;
    let resource = type_resource(&object);
    Ok(reply::one(object, resource).into())
}

async fn create(ctx: Types) -> Answered {
    let args = &ctx.args;
    let fields = args
        .fields
        .iter()
        .flatten()
        .map(|f| f.new_field().map(Value::Object))
        .collect::<Result<Vec<_>, _>>()?;
    let name = args.name.as_deref().unwrap_or_default();
    let uid = args.uid.as_deref().unwrap_or_default();
    let space = Space::of(&ctx)?;
    let created = create_reply(ctx.client()?, &space, (name, uid), args.cardinality, fields);
    Ok(created.await?.into())
}

async fn update(ctx: Types) -> Answered {
    let mut body = Map::new();
    if let Some(name) = &ctx.args.name {
        body.insert("name".into(), Value::from(name.clone()));
    }
    if let Some(cardinality) = ctx.args.cardinality {
        body.insert("single".into(), Value::from(cardinality.single()));
    }
    if body.is_empty() {
        return Err(CallError::Arguments(
            "update needs name or cardinality (fields change through add_field, update_field, remove_field)".into(),
        ));
    }
    let (space, _, id) = current(&ctx).await?;
    let object = put_type(ctx.client()?, &space, id, Value::Object(body)).await?;
    Ok(write_reply(object, "updated", "Content type updated successfully").into())
}

async fn delete(ctx: Types) -> Answered {
    let (_, current, id) = current(&ctx).await?;
    let path = ctx.coll.item(id);
    ctx.client()?
        .send(Method::DELETE, &path, &Query::new(), None)
        .await?;
    let message = "Content type permanently deleted";
    Ok(reply::gone::<TypeObject, _>(type_resource(&current), id, "deleted", message).into())
}

async fn add_field(ctx: Types) -> Answered {
    let definition = ctx.args.definition.clone().unwrap_or_default();
    let field = definition.new_field()?;
    let name = definition.name.clone().unwrap_or_default();
    let (space, current, id) = current(&ctx).await?;
    if has_field(&current, &name) {
        return Err(ToolError::invalid_parameters(format!(
            "the type already has a field '{name}'; use update_field to change it"
        ))
        .into());
    }
    let sent = body(FieldsBody {
        fields: vec![field],
    });
    let object = put_type(ctx.client()?, &space, id, sent).await?;
    if !has_field(&object, &name) {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted field '{name}' but type {id} does not have it; read the type again with content-types-get"),
        )
        .into());
    }
    Ok(write_reply(object, "updated", "Field added successfully").into())
}

/// The field the call names, as the type `current` holds it, and its id.
fn named_field<'t>(ctx: &Types, current: &'t Value) -> Result<(&'t Value, Value), CallError> {
    let wanted = ctx.args.field.as_deref().unwrap_or_default();
    let existing = find_field(current, wanted)?;
    let id = view::<FieldKeys>(existing).id.unwrap_or(Value::Null);
    Ok((existing, id))
}

/// Whether the type as persisted still lists the field `field_id`.
fn lists(object: &Value, field_id: &Value) -> bool {
    fields_of(object)
        .iter()
        .any(|f| view::<FieldKeys>(f).id.as_ref() == Some(field_id))
}

async fn update_field(ctx: Types) -> Answered {
    let definition = ctx.args.definition.clone().unwrap_or_default();
    if definition.body(None)?.is_empty() {
        return Err(CallError::Arguments(
            "update_field needs definition with the keys to change".into(),
        ));
    }
    let (space, current, id) = current(&ctx).await?;
    let (existing, field_id) = named_field(&ctx, &current)?;
    let mut field = definition.body(Some(existing))?;
    field.insert("id".into(), field_id.clone());
    let sent = body(FieldsBody {
        fields: vec![field],
    });
    let object = put_type(ctx.client()?, &space, id, sent).await?;
    if !lists(&object, &field_id) {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted the change of field {field_id} but type {id} no longer lists it; read the type again with content-types-get"),
        )
        .into());
    }
    Ok(write_reply(object, "updated", "Field updated successfully").into())
}

/// A field removed by a `PUT` of its type.
#[derive(Serialize)]
struct Destroy<'a> {
    id: &'a Value,
    #[serde(rename = "_destroy")]
    destroy: bool,
}

async fn remove_field(ctx: Types) -> Answered {
    let (space, current, id) = current(&ctx).await?;
    let (_, field_id) = named_field(&ctx, &current)?;
    let destroy = Destroy {
        id: &field_id,
        destroy: true,
    };
    let sent = body(FieldsBody {
        fields: vec![destroy],
    });
    let object = put_type(ctx.client()?, &space, id, sent).await?;
    if lists(&object, &field_id) {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted the removal of field {field_id} but type {id} still has it"),
        )
        .into());
    }
    Ok(write_reply(object, "updated", "Field removed successfully").into())
}
