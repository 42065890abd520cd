//! Releases: `channels-preview` (the dry run) and `channels-publish`, both refused before any
//! request, with the reason in their descriptions and in the error.
//!
//! Both stood on a site's pending set: the items whose editable version differs from the
//! published one. The server read it from `GET /api/admin/versions?only=editable,current`
//! walked whole and kept to the site. The published specification (modyo-docs pull request
//! 604) requires `oid` ("the resource ID, common to all versions") and `type` ("the type of
//! the resource") of that operation: it lists the versions of one resource, not of an account
//! or a site. No public source says which `oid` and `type` a page, a template, a widget or a
//! menu takes, and none lists a site's pending changes, so the server cannot build the set
//! (issue 33). `POST /api/admin/sites/{id}/publish` with `{"items": [...]}`, the release
//! itself, is shown by no public source either. Rather than send requests that would likely
//! fail, or publish what it cannot name, each tool answers `rejected` before any request.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::config::Module;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::tools::args::Ident;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Nothing};

/// Why neither tool runs, for the error message.
const NO_PENDING_SET: &str = "a site's pending changes cannot be read: GET /api/admin/versions lists \
one resource's versions and requires its oid and type, whose values for pages, templates, widgets and \
menus no public source gives, and nothing lists a site's pending changes";

/// Arguments of `channels-preview`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PreviewArgs {
    /// Site id, host, uuid or name.
    site: Ident,
}

pub(crate) fn preview_tool() -> ToolDef {
    tool("channels-preview", Module::Channels, ToolClass::Read)
        .describe(
            "Refused before any request: a site's pending changes cannot be read (GET /versions needs one \
resource's oid and type, which no public source gives for pages, templates, widgets or menus). Review \
pending changes in the Modyo UI.",
        )
        .handle(preview)
}

async fn preview(_call: Call, args: PreviewArgs) -> Answer<Nothing> {
    Err(ToolError::new(
        ErrorCode::Rejected,
        format!(
            "channels-preview of site {} refused before any request: {NO_PENDING_SET}; review pending changes in the Modyo UI",
            args.site.as_str()
        ),
    )
    .into())
}

/// Arguments of `channels-publish`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PublishArgs {
    /// Site id, host, uuid or name.
    site: Ident,
}

pub(crate) fn publish_tool() -> ToolDef {
    tool("channels-publish", Module::Channels, ToolClass::Mutation)
        .describe(
            "Refused before any request: the pending set is unreadable (see channels-preview) and no public \
source shows the publish request (POST /sites/{id}/publish) or its body. Publish in the Modyo UI.",
        )
        .handle(publish)
}

async fn publish(_call: Call, args: PublishArgs) -> Answer<Nothing> {
    Err(ToolError::new(
        ErrorCode::Rejected,
        format!(
            "channels-publish of site {} refused before any request: {NO_PENDING_SET}, and no public source \
shows the publish request (POST /api/admin/sites/{{id}}/publish) or its body; publish in the Modyo UI",
            args.site.as_str()
        ),
    )
    .into())
}
