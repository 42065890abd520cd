//! The content module: spaces, types, entries, assets, categories and jobs.
//!
//! Everything hangs off a space; [`resolve_space`] turns the `space` argument (an id, a uid or
//! a name) into one space and the `resource` that echoes it (C4). The helpers below are the
//! pieces every content tool shares: reading one object with an actionable `not_found`, the
//! unconfirmed-delete `control`, and the id of an API object.

use serde_json::Value;

use crate::contract::{Control, ErrorCode, Outcome, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};

use super::ToolDef;

mod assets;
mod categories;
mod entries;
pub(crate) mod jobs;
mod spaces;
mod types;

/// The content tools, in catalogue order.
pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        spaces::list_tool(),
        spaces::get_tool(),
        spaces::manage_tool(),
        spaces::copy_tool(),
        types::list_tool(),
        types::get_tool(),
        types::manage_tool(),
        types::upsert_tool(),
        types::copy_tool(),
        entries::list_tool(),
        entries::get_tool(),
        entries::manage_tool(),
        entries::upsert_tool(),
        entries::bulk_tool(),
        assets::list_tool(),
        assets::get_tool(),
        assets::manage_tool(),
        assets::bulk_tool(),
        categories::list_tool(),
        categories::get_tool(),
        categories::manage_tool(),
        jobs::manage_tool(),
    ]
}

/// `GET path`, with a 404 turned into a `not_found` that says what to call next.
pub(crate) async fn read_one(
    client: &ModyoClient,
    path: &str,
    not_found: impl FnOnce() -> String,
) -> Result<Value, ToolError> {
    client.get(path, &Query::new()).await.map_err(|e| {
        let missing = e.is_not_found();
        let error = ToolError::from(e);
        if missing {
            error.with_message(not_found())
        } else {
            error
        }
    })
}

/// One page of a collection under a space (`path`, answering `{root: [...], meta}`): `data` is
/// `shape` of the items, `state` the page's coverage (C5), `resource` the space; the legacy
/// rendering echoes the page as it came.
pub(crate) async fn space_page_reply(
    call: &crate::tools::Call,
    client: &ModyoClient,
    space: &Space,
    (path, root): (&str, &'static str),
    paging: &crate::tools::args::Paging,
    shape: fn(Value) -> Value,
) -> crate::tools::ToolResult {
    let query = Query::new().page(paging.page, paging.per_page);
    let page = client.list(path, root, &query).await?;
    let coverage = crate::contract::Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let legacy_items = items.clone();
    Ok(crate::contract::Reply::new(shape(items))
        .resource(space.resource())
        .state(coverage)
        .legacy(call.mode, || {
            crate::contract::legacy::list(root, legacy_items, page.raw_meta.as_ref())
        })
        .into())
}

/// The `control` answer of a delete-type action called without `confirmDelete: true` (C18),
/// decided before any request is sent.
pub(crate) fn unconfirmed(tool: &str, action: &str) -> Outcome {
    Outcome::Control(Control::cancelled_unconfirmed(tool, action))
}

/// An API id as a map key or path segment: numbers and strings alike, without quotes.
pub(crate) fn id_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The numeric `id` of an API object, or `invalid_upstream_response` naming what lacked it.
pub(crate) fn numeric_id(object: &Value, what: &str) -> Result<u64, ToolError> {
    object.get("id").and_then(Value::as_u64).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("the API returned {what} without a numeric id"),
        )
    })
}

pub(crate) const SPACES: &str = "/api/admin/content/spaces";

/// A space, resolved.
pub(crate) struct Space {
    pub(crate) id: u64,
    /// The space object, when the resolution read it.
    pub(crate) object: Option<Value>,
}

impl Space {
    /// The `resource` echo of the space (id only when the object was not read).
    pub(crate) fn resource(&self) -> Resource {
        match &self.object {
            Some(object) => Resource::from_object("space", object, Some("uid")).id(self.id),
            None => Resource::new("space").id(self.id),
        }
    }

    /// `/api/admin/content/spaces/{id}`.
    pub(crate) fn path(&self) -> String {
        format!("{SPACES}/{}", self.id)
    }
}

/// How much of the space a tool needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Only its id (the space is not the resource of the call).
    Id,
    /// The whole object (the space is the resource or the payload).
    Object,
}

/// Resolves `space`: an all-digit value is an id; otherwise exact `uid`, then exact `name`,
/// then `name` without regard to case, across every page of the spaces list.
pub(crate) async fn resolve_space(
    client: &ModyoClient,
    input: &str,
    need: Need,
) -> Result<Space, ToolError> {
    let input = input.trim();
    if is_id(input) {
        let id: u64 = input.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("space id '{input}' is too large"))
        })?;
        if need == Need::Id {
            return Ok(Space { id, object: None });
        }
        let object = client
            .get(&format!("{SPACES}/{id}"), &Query::new())
            .await
            .map_err(|e| {
                let not_found = e.is_not_found();
                let error = ToolError::from(e);
                if not_found {
                    error.with_message(format!(
                        "space {id} not found; call content-spaces-list to see the spaces"
                    ))
                } else {
                    error
                }
            })?;
        return Ok(Space {
            id,
            object: Some(object),
        });
    }
    let (spaces, _) = walk(client, SPACES, "spaces", &Query::new()).await?;
    let stages = [
        Stage::exact("uid", "uid", input),
        Stage::exact("name", "name", input),
        Stage::caseless("name without case", "name", input),
    ];
    let space = pick("space", input, &spaces, &stages)?;
    let id = space.get("id").and_then(Value::as_u64).ok_or_else(|| {
        ToolError::new(
            crate::contract::ErrorCode::InvalidUpstreamResponse,
            format!("space '{input}' has no numeric id"),
        )
    })?;
    Ok(Space {
        id,
        object: Some(space.clone()),
    })
}

/// The JSON schema of a space as the API returns it (loose: echoed).
pub(crate) fn space_schema() -> Value {
    use crate::contract::schema::{Kind::*, echo};
    echo(&[
        ("id", Int),
        ("uuid", Str),
        ("uid", Str),
        ("name", Str),
        ("default_locale", Str),
        ("locales", List),
        ("team_review", Bool),
        ("created_at", Str),
        ("updated_at", Str),
        ("content_types_count", Int),
        ("entries_count", Int),
        ("cors_enabled", Bool),
        ("cors_allow_all", Bool),
        ("cors_allowed_origins", Any),
        ("approvals_quantity", Int),
        ("locked_review", Bool),
        ("enforced_review", Bool),
        ("enforce_all_review", Bool),
        ("enforced_reviewers_attributes", List),
        ("cache_max_age", Int),
        ("cache_enabled", Bool),
    ])
}
