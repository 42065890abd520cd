//! Content types: `content-types-get`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Need, Space, resolve_space};
use crate::config::Module;
use crate::contract::{ErrorCode, Reply, Resource, ToolClass, ToolError, schema};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::{Call, ToolDef, ToolResult, tool};

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

/// Reads a content type by id, or by uid within the space.
pub(crate) async fn fetch_type(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<Value, ToolError> {
    let input = input.trim();
    let id = if is_id(input) {
        input.to_owned()
    } else {
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
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(ToolError::new(
                    ErrorCode::InvalidUpstreamResponse,
                    format!("content type '{input}' has no numeric id"),
                ));
            }
        }
    };
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
    space: String,
    /// Content type id or uid.
    #[serde(rename = "type")]
    content_type: String,
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
