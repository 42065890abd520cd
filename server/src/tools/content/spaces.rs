//! Content spaces: `content-spaces-list` and `-get` here, [`manage`] and [`copy`] in their own
//! files.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{SPACES, Space, SpaceObject};
use crate::config::Module;
use crate::contract::ToolClass;
use crate::contract::schema::RareState;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Collection, Container, Echo, Need, reply};

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
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<SpaceObject>>> {
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = Collection::<SpaceObject>::at(SPACES)
        .page(call.client()?, &query)
        .await?;
    Ok(reply::rows(page, None).into())
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
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> Answer<Echo<SpaceObject>> {
    let space = Space::resolve(call.client()?, &args.space, Need::Object).await?;
    let resource = space.resource();
    Ok(reply::one(space.object.unwrap_or_default(), resource).into())
}
