//! `content-types-upsert`: create or update a content type by its uid. Fields are matched by
//! name: existing ones are updated (carrying their id), new ones added, others kept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    Cardinality, FieldKeys, FieldSpec, TypeObject, TypeView, create_reply, fetch_type, fields_of,
    no_description, put_type, types_path, write_reply,
};
use crate::config::Module;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::content::{Space, numeric_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Container, Echo, Need, body, lenient, view};

/// Arguments of `content-types-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Space id, uid or name.
    space: Ident,
    /// The type's uid: the natural key (created when no type has it).
    uid: String,
    /// Name (required to create).
    name: Option<String>,
    /// Not supported: Modyo's content type has no description (refused).
    description: Option<String>,
    /// single or multiple (sent as the documented `single`).
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
others kept. data is the type as persisted; state.status created or updated. Modyo's types have no description \
and fields no label (both refused).",
        )
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<TypeObject>> {
    let _ = args.verify;
    no_description(args.description.as_ref())?;
    let uid = args.uid.trim();
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Id).await?;
    let (types, _) = walk(client, &types_path(&space), "types", &Query::new()).await?;
    let found: Vec<&Value> = types
        .iter()
        .filter(|t| view::<Candidate>(t).uid.as_deref() == Some(uid))
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
            let created = create_reply(client, &space, (name, uid), args.cardinality, fields);
            Ok(created.await?.into())
        }
        [existing] => update(client, &space, existing, &args, &specs).await,
        many => {
            let candidates: Vec<Value> = many.iter().map(|t| body(view::<Candidate>(t))).collect();
            Err(ToolError::new(
                ErrorCode::Ambiguous,
                format!(
                    "{} types have uid '{uid}' in space {}",
                    many.len(),
                    space.id
                ),
            )
            .candidates(candidates)
            .into())
        }
    }
}

/// What an upsert reads of a listed type: its uid, and the `{id, name}` a candidate shows
/// (`null` when absent).
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct Candidate {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    name: Option<Value>,
    #[serde(skip_serializing, deserialize_with = "lenient")]
    uid: Option<String>,
}

/// Updates the one type that has the uid: its name, cardinality and the fields given.
async fn update(
    client: &ModyoClient,
    space: &Space,
    existing: &Value,
    args: &UpsertArgs,
    specs: &[FieldSpec],
) -> Answer<Echo<TypeObject>> {
    let id = numeric_id(existing, "a content type")?;
    // List rows may come without fields; the type itself has them.
    let current = if view::<TypeView>(existing).fields.is_some() {
        existing.clone()
    } else {
        fetch_type(client, space, &id.to_string()).await?
    };
    let mut fields = Vec::new();
    for spec in specs {
        let name = spec.name.clone().unwrap_or_default();
        match fields_of(&current)
            .iter()
            .map(|f| (f, view::<FieldKeys>(f)))
            .find(|(_, keys)| keys.name.as_deref() == Some(name.as_str()))
        {
            Some((field, keys)) => {
                let mut body = spec.body(Some(field))?;
                body.insert("id".into(), keys.id.unwrap_or(Value::Null));
                fields.push(Value::Object(body));
            }
            None => fields.push(Value::Object(spec.new_field()?)),
        }
    }
    let mut body = Map::new();
    for (key, value) in [
        ("name", args.name.clone().map(Value::from)),
        ("single", args.cardinality.map(|c| Value::from(c.single()))),
    ] {
        if let Some(value) = value {
            body.insert(key.into(), value);
        }
    }
    if !fields.is_empty() {
        body.insert("fields".into(), Value::Array(fields));
    }
    let object = put_type(client, space, id, Value::Object(body)).await?;
    Ok(write_reply(object, "updated", "Content type updated successfully").into())
}
