//! The content module: spaces, types, entries, assets, categories and jobs.
//!
//! Everything hangs off a space; [`resolve_space`] turns the `space` argument (an id, a uid or
//! a name) into one space and the `resource` that echoes it (C4). The helpers below are the
//! pieces every content tool shares: reading one object with an actionable `not_found`, the
//! scope of a space's collections for the `-manage` declarations ([`in_space`]), the
//! unconfirmed-delete `control`, and the id of an API object.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};

use super::args::Paging;
use super::engine::{
    Answer, Collection, Ctx, Echo, Given, Identity, Member, Rules, Scope, Verb, Where, echoed,
    reply, scoped, view,
};
use super::{Call, CallError, ToolDef};

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
pub(crate) struct Space {
    pub(crate) id: u64,
    /// The space object, when the resolution read it.
    pub(crate) object: Option<Value>,
}

impl Space {
    /// The `resource` echo of the space (id only when the object was not read).
    pub(crate) fn resource(&self) -> Resource {
        let object = self.object.as_ref().unwrap_or(&Value::Null);
        Collection::<SpaceObject>::at(SPACES).resource(object, Some(self.id))
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
        let object = Collection::<SpaceObject>::at(SPACES)
            .fetch(client, id)
            .await?;
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
    let id = view::<Identity>(space).id.as_ref().and_then(Value::as_u64);
    let id = id.ok_or_else(|| {
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
    let space = resolve_space(client, space, Need::Object).await?;
    let query = Query::new().page(paging.page, paging.per_page);
    let page = Collection::<T>::at(format!("{}/{}", space.path(), T::RULES.root))
        .page(client, &query)
        .await?;
    Ok(reply::rows(page, Some(space.resource())).into())
}

/// Where the members of a space's collection (`<space>/<root>`: types, categories, entries)
/// live for one call of its `-manage` tool: [`space_scope`].
pub(crate) fn in_space<T: Member>() -> Where<T> {
    scoped(space_scope)
}

/// The `space` argument resolved (read in full only for `list`, which echoes it as
/// `resource`), and `T`'s collection in it.
pub(crate) async fn space_scope<T: Member>(
    call: Call,
    given: Given,
    verb: &'static Verb,
) -> Result<Scope<T>, CallError> {
    let input = given.text("space").unwrap_or_default();
    let need = if verb.lists { Need::Object } else { Need::Id };
    let space = resolve_space(call.client()?, &input, need).await?;
    Ok(Scope {
        coll: Collection::at(format!("{}/{}", space.path(), T::RULES.root))
            .within(format!("space {}", space.id)),
        container: Some(space.resource()),
    })
}

impl Space {
    /// The space a call of a space's collection resolved ([`in_space`]).
    pub(crate) fn of<A, T, C>(ctx: &Ctx<A, T, C>) -> Result<Space, ToolError> {
        let id = ctx
            .container
            .as_ref()
            .and_then(|c| c.id_value())
            .and_then(Value::as_u64);
        id.map(|id| Space { id, object: None }).ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                "the space has no numeric id",
            )
        })
    }
}
