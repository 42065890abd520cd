//! Content spaces: `content-spaces-list` and `-get` here, [`manage`] and [`copy`] in their own
//! files.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Need, SPACES, Space, resolve_space, space_schema};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, Reply, ToolClass, legacy, schema};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, ToolDef, ToolResult, tool};

mod copy;
mod manage;

pub(crate) use copy::copy_tool;
pub(crate) use manage::manage_tool;

/// Arguments of `content-spaces-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-spaces-list", Module::Content, ToolClass::Read)
        .describe("List the account's content spaces, one page at a time.")
        .data(schema::array(space_schema()))
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    list_reply(&call, &args.paging, |items| items).await
}

/// One page of the account's spaces, `data` being `shape` of the items (C5 coverage).
async fn list_reply(call: &Call, paging: &Paging, shape: fn(Value) -> Value) -> ToolResult {
    let query = Query::new().page(paging.page, paging.per_page);
    let page = call.client()?.list(SPACES, "spaces", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let legacy_items = items.clone();
    Ok(Reply::new(shape(items))
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("spaces", legacy_items, page.raw_meta.as_ref())
        })
        .into())
}

/// Arguments of `content-spaces-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-spaces-get", Module::Content, ToolClass::Read)
        .describe("Get one content space by id, uid or name (resolved in that order; ambiguous names fail).")
        .data(space_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let space = resolve_space(call.client()?, &args.space, Need::Object).await?;
    get_reply(&call, space)
}

/// The answer of a space read: the object, echoed by its `resource`.
fn get_reply(call: &Call, space: Space) -> ToolResult {
    let resource = space.resource();
    let object = space.object.unwrap_or_default();
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}
