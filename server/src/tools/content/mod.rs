//! The content module: spaces, types, entries, assets, categories and jobs.
//!
//! Everything hangs off a [`Space`], a [`Container`]: the `space` argument (an id, a uid or a
//! name) resolves into one space and the `resource` that echoes it (C4). The helpers below are
//! the pieces every content tool shares: reading one object with an actionable `not_found`,
//! one page of a space's collection, the confirmation of a delete, and the id of an API
//! object.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, pick};
use crate::modyo::{ModyoClient, Query};

use super::args::Paging;
use super::engine::container::by_id;
use super::engine::tool::{Call, ToolDef};
use super::engine::{
    Answer, Collection, Container, Echo, Found, Identity, Member, Need, Rules, echoed, reply, view,
};

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

/// An API id as a map key or path segment: numbers and strings alike, without quotes.
pub(crate) fn id_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `id` of an API object as a key ([`id_key`]), empty when it has none.
pub(crate) fn id_of(object: &Value) -> String {
    view::<Identity>(object)
        .id
        .as_ref()
        .map(id_key)
        .unwrap_or_default()
}

/// The numeric `id` of an API object, or `invalid_upstream_response` naming what lacked it.
pub(crate) fn numeric_id(object: &Value, what: &str) -> Result<u64, ToolError> {
    let id = view::<Identity>(object).id.as_ref().and_then(Value::as_u64);
    id.ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("the API returned {what} without a numeric id"),
        )
    })
}

/// The confirmation a `-manage` tool's delete needs (C18), and the old `verify` flag.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct Confirm {
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) const SPACES: &str = "/api/admin/content/spaces";

/// A space, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Space {
    pub(crate) id: u64,
    /// The space object, when the resolution read it.
    pub(crate) object: Option<Value>,
}

impl Space {
    /// `/api/admin/content/spaces/{id}`.
    pub(crate) fn path(&self) -> String {
        format!("{SPACES}/{}", self.id)
    }
}

impl Container for Space {
    const PARAM: &'static str = "space";

    /// An all-digit value is an id; otherwise exact `uid`, then exact `name`, then `name`
    /// without regard to case, across every page of the spaces list.
    async fn resolve(client: &ModyoClient, input: &str, need: Need) -> Result<Space, ToolError> {
        let (input, spaces) = (input.trim(), Collection::<SpaceObject>::at(SPACES));
        if let Some(Found { id, object }) = by_id(client, &spaces, input, need).await? {
            return Ok(Space { id, object });
        }
        let (spaces, _) = walk(client, SPACES, "spaces", &Query::new()).await?;
        let stages = [
            Stage::exact("uid", "uid", input),
            Stage::exact("name", "name", input),
            Stage::caseless("name without case", "name", input),
        ];
        let space = pick("space", input, &spaces, &stages)?;
        let id = view::<Identity>(space).id.as_ref().and_then(Value::as_u64);
        let id = id.ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("space '{input}' has no numeric id"),
            )
        })?;
        Ok(Space {
            id,
            object: Some(space.clone()),
        })
    }

    /// The id only when the object was not read.
    fn resource(&self) -> Resource {
        let object = self.object.as_ref().unwrap_or(&Value::Null);
        Collection::<SpaceObject>::at(SPACES).resource(object, Some(self.id))
    }

    /// `/api/admin/content/spaces/{id}/{root}`.
    fn collection<T: Member>(&self) -> Collection<T> {
        Collection::at(format!("{}/{}", self.path(), T::RULES.root))
            .within(format!("space {}", self.id))
    }
}

impl From<Space> for Found {
    fn from(space: Space) -> Found {
        Found {
            id: space.id,
            object: space.object,
        }
    }
}

echoed! {
    /// A content space as the API returns it.
    SpaceObject = "space" {
        id: i64, uuid: String, uid: String, name: String
    }
}

impl Member for SpaceObject {
    const RULES: Rules = Rules::new("space", "spaces")
        .slug("uid")
        .hint("call content-spaces-list to see the spaces");
}

/// One page of a space's collection (`T`'s root key under the space: types, categories), the
/// space as `resource` (C4), coverage from the page (C5).
pub(crate) async fn space_rows<T: Member>(
    call: &Call,
    space: &str,
    paging: &Paging,
) -> Answer<Vec<Echo<T>>> {
    let client = call.client()?;
    let space = Space::resolve(client, space, Need::Object).await?;
    let query = Query::new().page(paging.page, paging.per_page);
    let page = space.collection::<T>().page(client, &query).await?;
    Ok(reply::rows(page, Some(space.resource())).into())
}
