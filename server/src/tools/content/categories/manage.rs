//! `content-categories-manage`: list, get, create, update, move or delete a space's
//! categories, declared on the engine ([`crate::tools::engine::manage`]).
//!
//! `list` is the engine's; the other actions are the category's own, because a category is
//! named by its slug path and echoes that path as `resource.path`. Writes are read back (C7): a
//! move whose category did not land under the parent sent fails with `persisted_mismatch`, and
//! a delete reads the tree before and after to count the descendants the cascade removed.

use std::collections::BTreeSet;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    Category, CategoryObject, Place, all, categories_path, descendants_of, parent_id, pick_in,
    resolve, resolve_id, with_path,
};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::content::{Space, id_of, numeric_id};
use crate::tools::engine::tool::ToolDef;
use crate::tools::engine::{
    Action, Answer, Container, Ctx, Managed, Verb, body, command, lenient, manage, persist, reply,
    standard, view, within,
};

/// Arguments of `content-categories-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `content-categories-manage` can be asked.
    enum CategoryCommand for ManageArgs {
        List => Verb::list(),
        Get { category: Ident } => Verb::read("get"),
        Create { name: String } => Verb::write("create"),
        Update { category: Ident } => Verb::write("update").changes(),
        Move { category: Ident, parent: Ident } => Verb::write("move"),
        Delete { category: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, CategoryObject, CategoryCommand>(
        "content-categories-manage",
        Module::Content,
        within::<Space, _>(),
    )
    .describe(
        "List, get, create, update, move or delete a space's categories. list: data.categories + coverage; \
get/create/update/move: data is the category as persisted, resource.path its full path; delete (confirmDelete: true) \
also deletes its descendants: data null, state.status deleted, state.affected = descendants removed.",
    )
    .target("category", "id or slug path")
    .fields(&["name", "slug"])
    .mutating(&["parent", "position"])
    .run(run)
    .writes_state(RareState::AFFECTED)
    .writes_resource_path()
}

/// Runs one command of `content-categories-manage`.
async fn run(
    ctx: Ctx<ManageArgs, CategoryObject, CategoryCommand>,
) -> Answer<Managed<CategoryObject>> {
    match &ctx.command {
        CategoryCommand::List => standard::list(&ctx, Query::new()).await,
        CategoryCommand::Get { .. } => get(ctx).await,
        CategoryCommand::Create { .. } => create(ctx).await,
        CategoryCommand::Update { .. } => update(ctx).await,
        CategoryCommand::Move { .. } => move_to(ctx).await,
        CategoryCommand::Delete { .. } => delete(ctx).await,
    }
}

type Categories = Ctx<ManageArgs, CategoryObject, CategoryCommand>;
type Answered = Answer<Managed<CategoryObject>>;

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

async fn get(ctx: Categories) -> Answered {
    let category = resolve(ctx.client()?, &Space::of(&ctx)?, &ctx.target()?).await?;
    let resource = category.resource();
    Ok(reply::one(category.object, resource).into())
}

async fn create(ctx: Categories) -> Answered {
    let (client, space) = (ctx.client()?, Space::of(&ctx)?);
    let parent = match ctx.args.parent.as_deref() {
        Some(parent) => parent_target(client, &space, parent).await?,
        None => None,
    };
    let mut sent = ctx.body();
    if let Some(parent) = parent {
        persist::extend(&mut sent, body(Parent { parent_id: parent }));
    }
    let path = categories_path(&space);
    let response = client
        .send(Method::POST, &path, &Query::new(), Some(&sent))
        .await?;
    let id = id_of(&response);
    let object = persist::read_back(client, response, &format!("{path}/{id}")).await?;
    written(with_path(client, &space, object).await?, "created")
}

async fn update(ctx: Categories) -> Answered {
    let (client, space) = (ctx.client()?, Space::of(&ctx)?);
    let id = resolve_id(client, &space, &ctx.target()?).await?;
    let path = format!("{}/{id}", categories_path(&space));
    let object = persist::write(client, Method::PUT, &path, Some(&ctx.body()), &path).await?;
    written(with_path(client, &space, object).await?, "updated")
}

/// The parent a category create adds to the given keys.
#[derive(Serialize)]
struct Parent {
    parent_id: u64,
}

/// The body of a move: the new parent (`null`: the top level), and the position when given.
#[derive(Serialize)]
struct Move {
    parent_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<u32>,
}

/// The parent a category reports, as sent (`null` included: it reports one).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Reported {
    #[serde(deserialize_with = "lenient")]
    parent_id: Option<Value>,
}

async fn move_to(ctx: Categories) -> Answered {
    let (client, space) = (ctx.client()?, Space::of(&ctx)?);
    let id = resolve_id(client, &space, &ctx.target()?).await?;
    let parent = ctx.args.parent.as_deref().unwrap_or_default();
    let target = parent_target(client, &space, parent).await?;
    if target == Some(id) {
        return Err(ToolError::invalid_parameters("a category cannot be its own parent").into());
    }
    let sent = body(Move {
        parent_id: target,
        position: ctx.args.position,
    });
    let path = format!("{}/{id}", categories_path(&space));
    let object = persist::write(client, Method::PUT, &path, Some(&sent), &path).await?;
    // C7: where the category ended is what the API says, and it must be where it was sent.
    if view::<Reported>(&object).parent_id.is_some() && parent_id(&object) != target {
        let at = |p: Option<u64>| p.map_or("root".to_owned(), |t| t.to_string());
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "category {id} was sent to parent {} but the API reports parent {}; read it again with content-categories-get",
                at(target),
                at(parent_id(&object))
            ),
        )
        .into());
    }
    written(with_path(client, &space, object).await?, "moved")
}

async fn delete(ctx: Categories) -> Answered {
    let (client, space) = (ctx.client()?, Space::of(&ctx)?);
    let before = all(client, &space).await?;
    let category = pick_in(&before, &ctx.target()?)?;
    let id = numeric_id(&category.object, "a category")?;
    let descendants = descendants_of(id, &before);
    let path = format!("{}/{id}", categories_path(&space));
    client
        .send(Method::DELETE, &path, &Query::new(), None)
        .await?;
    // C7: what was removed is read back, not assumed from the cascade rule.
    let after: BTreeSet<u64> = all(client, &space)
        .await?
        .iter()
        .filter_map(|c| view::<Place>(c).id)
        .collect();
    if after.contains(&id) {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("the API accepted the delete of category {id}, but it is still listed"),
        )
        .into());
    }
    let removed = descendants.iter().filter(|d| !after.contains(d)).count();
    let old = Legacy::custom(move |_| {
        body(Deleted {
            message: "Category permanently deleted",
            action: "deleted",
            category_id: id,
            children_deleted: removed,
        })
    });
    Ok(Reply::new(Managed::Gone)
        .resource(category.resource())
        .state(PostCondition::status("deleted").affected(removed))
        .old(old)
        .into())
}

/// The old payload of a delete.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Deleted {
    message: &'static str,
    action: &'static str,
    category_id: u64,
    children_deleted: usize,
}

/// A write's answer: the category as persisted, its slug path as `resource.path`.
fn written(category: Category, status: &str) -> Answered {
    let resource = category.resource();
    Ok(reply::saved::<CategoryObject, _>(category.object, resource, status).into())
}
