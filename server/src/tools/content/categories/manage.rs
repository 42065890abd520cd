//! `content-categories-manage`: list, get, create, update, move or delete a space's categories.
//!
//! Each action is a function of its own; [`manage`] decides what is decided locally (which
//! action, the confirmation of a delete) before any request, then runs the action. Writes are
//! read back (C7): a move whose category did not land under the parent sent fails with
//! `persisted_mismatch`, and a delete reads the tree before and after to count the descendants
//! the cascade removed.

use std::collections::BTreeSet;

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{
    Category, all, categories_path, category_schema, descendants_of, get_reply, list_reply,
    parent_id, pick_in, resolve, resolve_id, with_path,
};
use crate::config::Module;
use crate::contract::schema;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, Reply, ToolClass, ToolError, legacy};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::content::{Need, Space, id_key, numeric_id, resolve_space, unconfirmed};
use crate::tools::engine::persist;
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

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
        .writes_state(RareState::PAGED.union(RareState::AFFECTED))
        .writes_resource_path()
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
    match action {
        Action::List => {
            let space = resolve_space(client, &args.space, Need::Object).await?;
            list_reply(
                &call,
                client,
                &space,
                &args.paging,
                |items| json!({"categories": items}),
            )
            .await
        }
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let category = resolve(client, &space, category_arg(&args, action)?).await?;
            get_reply(&call, category)
        }
        Action::Create => create(&call, client, &args).await,
        Action::Update => update(&call, client, &args).await,
        Action::Move => move_to(&call, client, &args).await,
        Action::Delete => delete(&call, client, &args).await,
    }
}

/// The `category` argument an action needs, or the argument error that names it.
fn category_arg(args: &ManageArgs, action: Action) -> Result<&str, CallError> {
    args.category.as_deref().ok_or_else(|| {
        CallError::Arguments(format!("{action:?} needs category (id or slug path)").to_lowercase())
    })
}

async fn create(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
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
    let read_path = format!("{}/{id}", categories_path(&space));
    let object = persist::read_back(client, response, &read_path).await?;
    let category = with_path(client, &space, object).await?;
    write_reply(call, category, "created", "Category created successfully")
}

async fn update(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    if args.name.is_none() && args.slug.is_none() {
        return Err(CallError::Arguments(
            "update needs name or slug (use move to change the parent)".into(),
        ));
    }
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let id = resolve_id(client, &space, category_arg(args, Action::Update)?).await?;
    let mut body = Map::new();
    for (key, value) in [("name", &args.name), ("slug", &args.slug)] {
        if let Some(value) = value {
            body.insert(key.into(), Value::from(value.clone()));
        }
    }
    let path = format!("{}/{id}", categories_path(&space));
    let body = Value::Object(body);
    let object = persist::write(client, Method::PUT, &path, Some(&body), &path).await?;
    let category = with_path(client, &space, object).await?;
    write_reply(call, category, "updated", "Category updated successfully")
}

async fn move_to(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let Some(parent) = args.parent.as_deref() else {
        return Err(CallError::Arguments(
            "move needs parent (id or slug path; \"/\" for the root)".into(),
        ));
    };
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let id = resolve_id(client, &space, category_arg(args, Action::Move)?).await?;
    let target = parent_target(client, &space, parent).await?;
    if target == Some(id) {
        return Err(ToolError::invalid_parameters("a category cannot be its own parent").into());
    }
    let mut body = Map::new();
    body.insert("parent_id".into(), json!(target));
    if let Some(position) = args.position {
        body.insert("position".into(), Value::from(position));
    }
    let path = format!("{}/{id}", categories_path(&space));
    let body = Value::Object(body);
    let object = persist::write(client, Method::PUT, &path, Some(&body), &path).await?;
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
    write_reply(call, category, "moved", "Category moved successfully")
}

async fn delete(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let before = all(client, &space).await?;
    let category = pick_in(&before, category_arg(args, Action::Delete)?)?;
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
