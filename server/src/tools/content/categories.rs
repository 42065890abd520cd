//! Content categories: `content-categories-list`, `-get` and `-manage`.
//!
//! Categories form a tree inside a space. A category is named by its id or by its slug path
//! (`news/local`, the `full_path` the API reports, or the slugs of its ancestors joined by `/`);
//! a bare slug that several parents share is `ambiguous`, never the first one found. Deleting a
//! category deletes its descendants too: the delete reads the tree before and after and reports
//! the descendants that are gone in `state.affected`.

use std::collections::BTreeSet;

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Need, Space, id_key, numeric_id, read_one, resolve_space, unconfirmed};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{
    Coverage, ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, persisted, tool};

/// The JSON schema of a category as the API returns it (loose: echoed).
pub(crate) fn category_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("slug", Kind::Str),
        ("parent_id", Kind::Int),
        ("full_path", Kind::Str),
        ("position", Kind::Int),
        ("space_id", Kind::Int),
        ("entries_count", Kind::Int),
        ("children_count", Kind::Int),
        ("children", Kind::List),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
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
    category.get("parent_id").and_then(Value::as_u64)
}

/// The slug path of a category: the API's `full_path` when it sends one, else the slugs of its
/// ancestors in `all` (`None` when a link of the chain is missing).
fn path_in(category: &Value, all: &[Value]) -> Option<String> {
    if let Some(path) = category.get("full_path").and_then(Value::as_str) {
        return Some(path.trim_matches('/').to_owned());
    }
    let mut segments = Vec::new();
    let mut current = category;
    // A tree deeper than this is a cycle in the data, not a category tree.
    for _ in 0..64 {
        segments.push(current.get("slug")?.as_str()?.to_owned());
        match parent_id(current) {
            None => {
                segments.reverse();
                return Some(segments.join("/"));
            }
            Some(parent) => {
                current = all
                    .iter()
                    .find(|c| c.get("id").and_then(Value::as_u64) == Some(parent))?;
            }
        }
    }
    None
}

/// Picks a category in `all` by id, slug path, or (for a single segment) slug.
fn pick_in(all: &[Value], input: &str) -> Result<Category, ToolError> {
    let wanted = input.trim().trim_matches('/');
    let by_path = move |c: &Value| path_in(c, all).as_deref() == Some(wanted);
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
        path: path_in(found, all),
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
        .data(schema::array(category_schema()))
        .resource()
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Object).await?;
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = client
        .list(&categories_path(&space), "categories", &query)
        .await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let legacy_items = items.clone();
    Ok(Reply::new(items)
        .resource(space.resource())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("categories", legacy_items, page.raw_meta.as_ref())
        })
        .into())
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
        .data(category_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let category = resolve(client, &space, &args.category).await?;
    let resource = category.resource();
    let object = category.object;
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}

/// Actions of `content-categories-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Move,
    Delete,
}

/// Arguments of `content-categories-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, move or delete.
    action: Option<Action>,
    /// Space id, uid or name.
    space: Ident,
    /// Category id or slug path (get, update, move, delete).
    category: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Slug, [a-z0-9_-] (create, update).
    slug: Option<String>,
    /// Parent id or slug path; "/" is the root (create, move).
    parent: Option<Ident>,
    /// Position among its new siblings, from 0 (move).
    position: Option<u32>,
    /// Must be true for delete (descendants are deleted too).
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = category_schema();
    data["properties"]["categories"] = schema::array(category_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-categories-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, create, update, move or delete a space's categories. list: data.categories + coverage; \
get/create/update/move: data is the category as persisted, resource.path its full path; delete (confirmDelete: true) \
also deletes its descendants: data null, state.status deleted, state.affected = descendants removed.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "move", "delete"])
        .handle(manage)
}

/// The parent id a `parent` argument names: `None` for the root (`/` or empty).
async fn parent_target(
    client: &ModyoClient,
    space: &Space,
    parent: &str,
) -> Result<Option<u64>, ToolError> {
    if parent.trim().trim_matches('/').is_empty() {
        Ok(None)
    } else {
        resolve_id(client, space, parent).await.map(Some)
    }
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.slug.is_some(),
        args.parent.is_some(),
        args.position.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, slug, parent or position are given (create, update or move)".into(),
            ));
        }
        None => Action::Get,
    };
    let _ = args.verify;
    if action == Action::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-categories-manage", "delete"));
    }
    let client = call.client()?;
    let need_category = || {
        args.category.as_deref().ok_or_else(|| {
            CallError::Arguments(
                format!("{action:?} needs category (id or slug path)").to_lowercase(),
            )
        })
    };
    match action {
        Action::List => {
            let space = resolve_space(client, &args.space, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client
                .list(&categories_path(&space), "categories", &query)
                .await?;
            let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
            let items = Value::Array(page.items);
            let legacy_items = items.clone();
            Ok(Reply::new(json!({"categories": items}))
                .resource(space.resource())
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("categories", legacy_items, page.raw_meta.as_ref())
                })
                .into())
        }
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let category = resolve(client, &space, need_category()?).await?;
            let resource = category.resource();
            let object = category.object;
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .legacy(call.mode, || legacy_object)
                .into())
        }
        Action::Create => {
            let Some(name) = args.name.clone() else {
                return Err(CallError::Arguments("create needs name".into()));
            };
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let parent = match args.parent.as_deref() {
                Some(parent) => parent_target(client, &space, parent).await?,
                None => None,
            };
            let mut body = Map::new();
            body.insert("name".into(), Value::from(name));
            if let Some(slug) = &args.slug {
                body.insert("slug".into(), Value::from(slug.clone()));
            }
            if let Some(parent) = parent {
                body.insert("parent_id".into(), Value::from(parent));
            }
            let response = client
                .send(
                    Method::POST,
                    &categories_path(&space),
                    &Query::new(),
                    Some(&Value::Object(body)),
                )
                .await?;
            let id = response.get("id").map(id_key).unwrap_or_default();
            let object = persisted(
                client,
                response,
                &format!("{}/{id}", categories_path(&space)),
            )
            .await?;
            let category = with_path(client, &space, object).await?;
            write_reply(&call, category, "created", "Category created successfully")
        }
        Action::Update => {
            if args.name.is_none() && args.slug.is_none() {
                return Err(CallError::Arguments(
                    "update needs name or slug (use move to change the parent)".into(),
                ));
            }
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let id = resolve_id(client, &space, need_category()?).await?;
            let mut body = Map::new();
            for (key, value) in [("name", &args.name), ("slug", &args.slug)] {
                if let Some(value) = value {
                    body.insert(key.into(), Value::from(value.clone()));
                }
            }
            let path = format!("{}/{id}", categories_path(&space));
            let response = client
                .send(
                    Method::PUT,
                    &path,
                    &Query::new(),
                    Some(&Value::Object(body)),
                )
                .await?;
            let object = persisted(client, response, &path).await?;
            let category = with_path(client, &space, object).await?;
            write_reply(&call, category, "updated", "Category updated successfully")
        }
        Action::Move => {
            let Some(parent) = args.parent.as_deref() else {
                return Err(CallError::Arguments(
                    "move needs parent (id or slug path; \"/\" for the root)".into(),
                ));
            };
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let id = resolve_id(client, &space, need_category()?).await?;
            let target = parent_target(client, &space, parent).await?;
            if target == Some(id) {
                return Err(
                    ToolError::invalid_parameters("a category cannot be its own parent").into(),
                );
            }
            let mut body = Map::new();
            body.insert("parent_id".into(), json!(target));
            if let Some(position) = args.position {
                body.insert("position".into(), Value::from(position));
            }
            let path = format!("{}/{id}", categories_path(&space));
            let response = client
                .send(
                    Method::PUT,
                    &path,
                    &Query::new(),
                    Some(&Value::Object(body)),
                )
                .await?;
            let object = persisted(client, response, &path).await?;
            // C7: where the category ended is what the API says, and it must be where it was sent.
            if object.get("parent_id").is_some() && parent_id(&object) != target {
                return Err(ToolError::new(
                    ErrorCode::PersistedMismatch,
                    format!(
                        "category {id} was sent to parent {} but the API reports parent {}; read it again with content-categories-get",
                        target.map_or("root".to_owned(), |t| t.to_string()),
                        parent_id(&object).map_or("root".to_owned(), |p| p.to_string())
                    ),
                )
                .into());
            }
            let category = with_path(client, &space, object).await?;
            write_reply(&call, category, "moved", "Category moved successfully")
        }
        Action::Delete => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let before = all(client, &space).await?;
            let category = pick_in(&before, need_category()?)?;
            let id = numeric_id(&category.object, "a category")?;
            let descendants = descendants_of(id, &before);
            client
                .send(
                    Method::DELETE,
                    &format!("{}/{id}", categories_path(&space)),
                    &Query::new(),
                    None,
                )
                .await?;
            // C7: what was removed is read back, not assumed from the cascade rule.
            let after: BTreeSet<u64> = all(client, &space)
                .await?
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_u64))
                .collect();
            if after.contains(&id) {
                return Err(ToolError::new(
                    ErrorCode::PersistedMismatch,
                    format!("the API accepted the delete of category {id}, but it is still listed"),
                )
                .into());
            }
            let removed = descendants.iter().filter(|d| !after.contains(d)).count();
            let resource = category.resource();
            Ok(Reply::new(Value::Null)
                .resource(resource)
                .state(PostCondition::status("deleted").affected(removed))
                .legacy(call.mode, || {
                    json!({"message": "Category permanently deleted", "action": "deleted", "categoryId": id, "childrenDeleted": removed})
                })
                .into())
        }
    }
}

/// Ids of every descendant of `id` in `all`.
fn descendants_of(id: u64, all: &[Value]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut frontier = vec![id];
    while let Some(parent) = frontier.pop() {
        for child in all.iter().filter(|c| parent_id(c) == Some(parent)) {
            if let Some(child_id) = child.get("id").and_then(Value::as_u64)
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
    let path = match (object.get("full_path"), parent_id(&object)) {
        (Some(Value::String(path)), _) => Some(path.trim_matches('/').to_owned()),
        (_, None) => object
            .get("slug")
            .and_then(Value::as_str)
            .map(str::to_owned),
        (_, Some(_)) => path_in(&object, &all(client, space).await?),
    };
    Ok(Category { object, path })
}

fn write_reply(call: &Call, category: Category, status: &str, message: &str) -> ToolResult {
    let resource = category.resource();
    let object = category.object;
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(PostCondition::status(status))
        .legacy(call.mode, || {
            legacy::write(status, message, "category", legacy_object)
        })
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

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
