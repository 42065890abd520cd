//! Content spaces: `content-spaces-list` and `content-spaces-get`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Need, SPACES, resolve_space, space_schema};
use crate::config::Module;
use crate::contract::{Coverage, Reply, ToolClass, legacy, schema};
use crate::modyo::Query;
use crate::tools::args::Paging;
use crate::tools::{Call, ToolDef, ToolResult, tool};

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
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = call.client()?.list(SPACES, "spaces", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let legacy_items = page.items.clone();
    Ok(Reply::new(page.items.into())
        .state(coverage)
        .legacy(call.mode, || legacy::list("spaces", legacy_items.into(), page.raw_meta.as_ref()))
        .into())
}

/// Arguments of `content-spaces-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: String,
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
    let resource = space.resource();
    let object = space.object.unwrap_or_default();
    let legacy_object = object.clone();
    Ok(Reply::new(object).resource(resource).legacy(call.mode, || legacy_object).into())
}
