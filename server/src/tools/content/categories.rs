//! Content categories: `content-categories-list`, `-get` and `-manage`.
//!
//! Categories form a tree inside a space. A category is named by its id or by its slug path
//! (`news/local`, the `full_path` the API reports, or the slugs of its ancestors joined by `/`);
//! a bare slug that several parents share is `ambiguous`, never the first one found. Deleting a
//! category deletes its descendants too: the delete reads the tree before and after and reports
//! the descendants that are gone in `state.affected`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Space, numeric_id, read_one, space_rows};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Resource, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Answer, Container, Echo, Member, Need, Rules, echoed, lenient, reply, view,
};

mod manage;

pub(crate) use manage::manage_tool;

echoed! {
    /// A category as the API returns it.
    CategoryObject = "category" {
        id: i64, uuid: String, name: String, slug: String, parent_id: i64, full_path: String
    }
}

impl Member for CategoryObject {
    const RULES: Rules = Rules::new("category", "categories")
        .slug("slug")
        .hint("call content-categories-list to see its categories");
}

/// A category, resolved, with its slug path when known.
pub(crate) struct Category {
    pub(crate) object: Value,
    pub(crate) path: Option<String>,
}

impl Category {
    /// The `resource` echo: every identifier, the slug path in `path` (C4).
    pub(crate) fn resource(&self) -> Resource {
        let resource = Resource::from_object("category", &self.object, Some("slug"));
        match &self.path {
            Some(path) => resource.path(path.clone()),
            None => resource,
        }
    }
}

fn categories_path(space: &Space) -> String {
    format!("{}/categories", space.path())
}

/// Every category of the space (all pages).
async fn all(client: &ModyoClient, space: &Space) -> Result<Vec<Value>, ToolError> {
    let (items, _) = walk(client, &categories_path(space), "categories", &Query::new()).await?;
    Ok(items)
}

fn parent_id(category: &Value) -> Option<u64> {
    view::<Place>(category).parent_id
}

/// The keys of a category that place it in the tree.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Place {
    #[serde(deserialize_with = "lenient")]
    id: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    parent_id: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    slug: Option<String>,
    #[serde(deserialize_with = "lenient")]
    full_path: Option<String>,
}

/// The slug path of a category: the API's `full_path` when it sends one, else the slugs of its
/// ancestors in `all` (`None` when a link of the chain is missing).
fn path_in(category: &Value, all: &[Value]) -> Option<String> {
    path_among(&view(category), &all.iter().map(view).collect::<Vec<_>>())
}

/// [`path_in`], with the categories read.
fn path_among(category: &Place, all: &[Place]) -> Option<String> {
    if let Some(path) = &category.full_path {
        return Some(path.trim_matches('/').to_owned());
    }
    let mut segments = Vec::new();
    let mut current = category;
    // A tree deeper than this is a cycle in the data, not a category tree.
    for _ in 0..64 {
        segments.push(current.slug.clone()?);
        match current.parent_id {
            None => {
                segments.reverse();
                return Some(segments.join("/"));
            }
            Some(parent) => {
                current = all.iter().find(|c| c.id == Some(parent))?;
            }
        }
    }
    None
}

/// Picks a category in `all` by id, slug path, or (for a single segment) slug.
fn pick_in(all: &[Value], input: &str) -> Result<Category, ToolError> {
    let wanted = input.trim().trim_matches('/');
    let places: Vec<Place> = all.iter().map(view).collect();
    let by_path = |c: &Value| path_among(&view(c), &places).as_deref() == Some(wanted);
    let mut stages = vec![
        Stage::exact("id", "id", wanted),
        Stage::when("slug path", by_path),
    ];
    if !wanted.contains('/') {
        stages.push(Stage::exact("slug", "slug", wanted));
    }
    let found = pick("category", wanted, all, &stages)?;
    Ok(Category {
        object: found.clone(),
        path: path_among(&view(found), &places),
    })
}

/// Resolves a category by id (one read) or slug path (a walk of the space's categories).
pub(crate) async fn resolve(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<Category, ToolError> {
    let wanted = input.trim().trim_matches('/');
    if is_id(wanted) {
        let object = read_one(client, &format!("{}/{wanted}", categories_path(space)), || {
            format!(
                "category {wanted} not found in space {}; call content-categories-list to see its categories",
                space.id
            )
        })
        .await?;
        return with_path(client, space, object).await;
    }
    pick_in(&all(client, space).await?, wanted)
}

/// The id of a category named by id (no request) or slug path (resolved).
pub(crate) async fn resolve_id(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<u64, ToolError> {
    let wanted = input.trim().trim_matches('/');
    if is_id(wanted) {
        return wanted.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("category id '{wanted}' is too large"))
        });
    }
    numeric_id(&resolve(client, space, wanted).await?.object, "a category")
}

/// Arguments of `content-categories-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Space id, uid or name.
    space: Ident,
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-categories-list", Module::Content, ToolClass::Read)
        .describe("List a space's categories (a tree: parent_id, full_path), one page at a time.")
        .resource()
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<CategoryObject>>> {
    space_rows(&call, &args.space, &args.paging).await
}

/// Arguments of `content-categories-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Category id or slug path (news/local); a bare slug must be unique in the space.
    category: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-categories-get", Module::Content, ToolClass::Read)
        .describe(
            "Get one category by id or slug path (news/local); resource.path is its full path.",
        )
        .resource()
        .handle(get)
        .writes_resource_path()
}

async fn get(call: Call, args: GetArgs) -> Answer<Echo<CategoryObject>> {
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Id).await?;
    let category = resolve(client, &space, &args.category).await?;
    let resource = category.resource();
    Ok(reply::one(category.object, resource).into())
}

/// Ids of every descendant of `id` in `all`.
fn descendants_of(id: u64, all: &[Value]) -> Vec<u64> {
    let places: Vec<Place> = all.iter().map(view).collect();
    let mut out = Vec::new();
    let mut frontier = vec![id];
    while let Some(parent) = frontier.pop() {
        for child in places.iter().filter(|c| c.parent_id == Some(parent)) {
            if let Some(child_id) = child.id
                && !out.contains(&child_id)
                && child_id != id
            {
                out.push(child_id);
                frontier.push(child_id);
            }
        }
    }
    out.sort_unstable();
    out
}

/// A persisted category with its path: the API's `full_path`, else computed from the tree.
async fn with_path(
    client: &ModyoClient,
    space: &Space,
    object: Value,
) -> Result<Category, ToolError> {
    let place: Place = view(&object);
    let path = match (&place.full_path, place.parent_id) {
        (Some(path), _) => Some(path.trim_matches('/').to_owned()),
        (_, None) => place.slug,
        (_, Some(_)) => path_in(&object, &all(client, space).await?),
    };
    Ok(Category { object, path })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::contract::ErrorCode;

    fn tree() -> Vec<Value> {
        vec![
            json!({"id": 1, "name": "Chile", "slug": "chile", "parent_id": null}),
            json!({"id": 2, "name": "Metropolitana", "slug": "metropolitana", "parent_id": 1}),
            json!({"id": 3, "name": "Norte", "slug": "norte", "parent_id": 2}),
            json!({"id": 4, "name": "Campañas", "slug": "campanas", "parent_id": null}),
            json!({"id": 5, "name": "Norte", "slug": "norte", "parent_id": 4, "full_path": "campanas/norte"}),
        ]
    }

    #[test]
    fn paths_come_from_full_path_or_the_ancestors() {
        let all = tree();
        assert_eq!(
            path_in(&all[2], &all).as_deref(),
            Some("chile/metropolitana/norte")
        );
        assert_eq!(path_in(&all[4], &all).as_deref(), Some("campanas/norte"));
        let orphan = json!({"id": 9, "slug": "x", "parent_id": 77});
        assert_eq!(path_in(&orphan, &all), None);
    }

    #[test]
    fn slug_paths_resolve_and_shared_slugs_are_ambiguous() {
        let all = tree();
        let found = pick_in(&all, "/chile/metropolitana/norte/").unwrap();
        assert_eq!(found.object["id"], 3);
        assert_eq!(
            serde_json::to_value(found.resource()).unwrap()["path"],
            "chile/metropolitana/norte"
        );
        let err = pick_in(&all, "norte").map(|_| ()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Ambiguous);
        let err = pick_in(&all, "chile/norte").map(|_| ()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert_eq!(pick_in(&all, "4").unwrap().object["slug"], "campanas");
    }

    #[test]
    fn descendants_are_found_at_every_depth() {
        assert_eq!(descendants_of(1, &tree()), vec![2, 3]);
        assert_eq!(descendants_of(3, &tree()), Vec::<u64>::new());
    }
}
