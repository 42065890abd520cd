//! `content-entries-manage`: list, get, create, update, delete, publish, unpublish, archive or
//! clone entries, declared on the engine ([`crate::tools::engine::manage`]).
//!
//! What is decided locally (which action, what it needs, the confirmation of a delete) is the
//! engine's. The actions are the entry's own: an entry is named by id, uuid or slug
//! ([`find_entry`]), its field values are written by name through its content type, and each
//! write answers the entry as persisted (C7). Publish and unpublish are the documented
//! `POST .../entries/{id}/publish|unpublish`; archive is the documented `archived` attribute.
//! The publish operation requires a body (keys `published_immediately`, `published_at`,
//! `unpublished_at`, `unpublish_scheduled`, `force_publish`); the server sends
//! `{"published_immediately": true}`. That the key means "publish now" is our reading of its
//! name and of the entries page (`docs/en/platform/content/entries.md`: the publish window
//! offers **Publish now**, "published immediately", or a scheduled date); no source shows the
//! body a publish sends.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::super::{EntryObject, EntryState, Status, find_entry, list_filters, minimal, presented};
use super::{EntryFields, clone_body, entry_body, persisted_entry, send_checked, write_reply};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, Reply, ToolError, legacy};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::content::types::fetch_type;
use crate::tools::content::{Confirm, Space, id_key, numeric_id};
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Container, Ctx, Echo, Managed, Verb, command, manage, reply, view, within,
};

/// Arguments of `content-entries-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, publish, unpublish, archive or clone.
    action: Option<Action>,
    /// Space id, uid or name.
    space: Ident,
    /// Entry id, uuid or slug (all but list and create).
    entry: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Content type id or uid (create); list: filter by type (sent as `type_id`).
    #[serde(rename = "type")]
    content_type: Option<Ident>,
    /// list: only entries in this status (sent as `states[]`; draft is Modyo's unpublished).
    status: Option<Status>,
    /// list: full-text filter on names.
    query: Option<String>,
    /// Name (create, update, clone).
    name: Option<String>,
    /// Slug (create, update, clone).
    slug: Option<String>,
    /// Tags (create, update).
    tags: Option<Vec<String>>,
    /// Category id or slug path (create, update).
    category: Option<Ident>,
    /// Locale (create; default: the space's).
    locale: Option<String>,
    /// Field values by name (create, update); asset fields take an asset uuid.
    fields: Option<Map<String, Value>>,
    #[serde(flatten)]
    confirm: Confirm,
}

command! {
    /// What `content-entries-manage` can be asked.
    enum EntryCommand for ManageArgs {
        List => Verb::list(),
        Get { entry: Ident } => Verb::read("get"),
        Create { content_type as "type": Ident, name: String } => Verb::write("create"),
        Update { entry: Ident } => Verb::write("update").changes(),
        Delete { entry: Ident } => Verb::write("delete").confirmed(),
        Publish { entry: Ident } => Verb::write("publish"),
        Unpublish { entry: Ident } => Verb::write("unpublish"),
        Archive { entry: Ident } => Verb::write("archive"),
        Clone { entry: Ident } => Verb::write("clone"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, EntryObject, EntryCommand>("content-entries-manage", Module::Content, within::<Space, _>())
        .describe(
            "List, get, create, update, delete, publish, unpublish, archive or clone entries. list: data.entries \
(minimal rows) + coverage; other actions: data is the entry as persisted, field values by name under fields \
(asset fields take an asset uuid); state.status and state.published are read back. delete needs confirmDelete: true. \
archive sets the entry's archived attribute. An entry named by slug is searched with the list's query and confirmed \
on its full entry; by uuid, the list is paged until a row carries it.",
        )
        .target("entry", "id, uuid or slug")
        .fields(&["name", "slug", "tags", "category", "locale", "fields"])
        .run(run)
        .writes_state(RareState::PAGED.union(RareState::PUBLISHED))
}

/// Runs one command of `content-entries-manage`.
async fn run(ctx: Ctx<ManageArgs, EntryObject, EntryCommand>) -> Answer<Managed<EntryObject>> {
    match &ctx.command {
        EntryCommand::List => list(ctx).await,
        EntryCommand::Get { .. } => get(ctx).await,
        EntryCommand::Create { .. } => create(ctx).await,
        EntryCommand::Update { .. } => update(ctx).await,
        EntryCommand::Delete { .. } => delete(ctx).await,
        EntryCommand::Publish { .. } => transition(ctx, Transition::Publish).await,
        EntryCommand::Unpublish { .. } => transition(ctx, Transition::Unpublish).await,
        EntryCommand::Archive { .. } => transition(ctx, Transition::Archive).await,
        EntryCommand::Clone { .. } => clone(ctx).await,
    }
}

type Entries = Ctx<ManageArgs, EntryObject, EntryCommand>;
type Answered = Answer<Managed<EntryObject>>;

/// The space of the call and its client.
fn space(ctx: &Entries) -> Result<(&ModyoClient, Space), CallError> {
    Ok((ctx.client()?, Space::of(ctx)?))
}

/// What a create or an update sets, as given.
fn given(args: &ManageArgs) -> EntryFields<'_> {
    EntryFields {
        name: args.name.as_deref(),
        slug: args.slug.as_deref(),
        tags: args.tags.as_ref(),
        category: args.category.as_deref(),
        locale: args.locale.as_deref(),
        fields: args.fields.as_ref(),
    }
}

/// One page of minimal rows (C15: `data.entries`); the old payload held the API's rows.
async fn list(ctx: Entries) -> Answered {
    let (client, space) = space(&ctx)?;
    let args = &ctx.args;
    let query = list_filters(client, &space, args.content_type.as_deref(), args.status)
        .await?
        .page(args.paging.page, args.paging.per_page)
        .push_opt("query", args.query.as_deref());
    let page = ctx.coll.page(client, &query).await?;
    let state = reply::coverage(&page);
    let rows = page.items.iter().map(minimal).map(Echo::new).collect();
    let (items, meta) = (Value::Array(page.items), page.raw_meta);
    let old = Legacy::custom(move |_| legacy::list("entries", items, meta.as_ref()));
    let container = ctx.container.clone().unwrap_or_else(|| space.resource());
    Ok(Reply::new(Managed::Page(rows))
        .resource(container)
        .state(state)
        .old(old)
        .into())
}

async fn get(ctx: Entries) -> Answered {
    let (client, space) = space(&ctx)?;
    let detail = find_entry(client, &space, &ctx.target()?)
        .await?
        .detail(client, &space)
        .await?;
    Ok(presented(client, &space, detail).await?.into())
}

async fn create(ctx: Entries) -> Answered {
    let (client, space) = space(&ctx)?;
    let type_input = ctx.args.content_type.as_deref().unwrap_or_default();
    let content_type = fetch_type(client, &space, type_input).await?;
    let mut written = entry_body(client, &space, Some(&content_type), &given(&ctx.args)).await?;
    written.0["content_type_id"] = Value::from(numeric_id(&content_type, "a content type")?);
    let path = ctx.coll.path.clone();
    let detail = send_checked(client, &space, Method::POST, &path, written, "").await?;
    let outcome = ("created", "Entry created successfully");
    let answer = write_reply(client, &space, detail, Some(&content_type), outcome);
    Ok(answer.await?.into())
}

async fn update(ctx: Entries) -> Answered {
    if ctx.args.locale.is_some() {
        return Err(CallError::Arguments(
            "update cannot change an entry's locale; a translation is a create (content-entries-bulk create with the entry's uuid and target_locale)".into(),
        ));
    }
    let (client, space) = space(&ctx)?;
    let found = find_entry(client, &space, &ctx.target()?).await?;
    let id = found.id.clone();
    // The type maps field names to ids; it is read only when fields are set.
    let content_type = match &ctx.args.fields {
        Some(_) => {
            let current = found.detail(client, &space).await?;
            Some(type_of(client, &space, &current, &id).await?)
        }
        None => None,
    };
    let update = EntryFields {
        locale: None,
        ..given(&ctx.args)
    };
    let written = entry_body(client, &space, content_type.as_ref(), &update).await?;
    let path = ctx.coll.item(&id);
    let detail = send_checked(client, &space, Method::PUT, &path, written, &id).await?;
    let outcome = ("updated", "Entry updated successfully");
    let answer = write_reply(client, &space, detail, content_type.as_ref(), outcome);
    Ok(answer.await?.into())
}

/// The content type of the entry `current` (entry `id`), read in full.
async fn type_of(
    client: &ModyoClient,
    space: &Space,
    current: &Value,
    id: &str,
) -> Result<Value, ToolError> {
    let state: EntryState = view(current);
    let type_id = state.content_type_id.as_ref().map(id_key).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("entry {id} has no content_type_id; its fields cannot be named"),
        )
    })?;
    fetch_type(client, space, &type_id).await
}

async fn delete(ctx: Entries) -> Answered {
    let (client, space) = space(&ctx)?;
    let found = find_entry(client, &space, &ctx.target()?).await?;
    let id = found.id.clone();
    let detail = found.detail(client, &space).await?;
    client
        .send(Method::DELETE, &ctx.coll.item(&id), &Query::new(), None)
        .await?;
    let resource = crate::contract::Resource::from_object("entry", &detail, Some("slug"));
    let old = Legacy::gone("deleted", "Entry permanently deleted", "entryId", id);
    Ok(reply::gone_as(resource, "deleted", old).into())
}

/// A change of an entry's state.
#[derive(Clone, Copy)]
enum Transition {
    Publish,
    Unpublish,
    Archive,
}

/// Publish, unpublish or archive (the documented `archived` attribute), then the status the
/// entry ended in.
async fn transition(ctx: Entries, change: Transition) -> Answered {
    let (client, space) = space(&ctx)?;
    let id = find_entry(client, &space, &ctx.target()?).await?.id;
    let path = ctx.coll.item(&id);
    // C7: the status the entry ended in, as the API reads it back (a space with team
    // review can leave a published entry pending), never the action's name; `fallback` only
    // when the entry says none.
    let (method, to, body, fallback) = match change {
        Transition::Archive => (
            Method::PUT,
            path,
            Some(json!({"archived": true})),
            "archived",
        ),
        // The operation requires a body: publish now (module doc).
        Transition::Publish => (
            Method::POST,
            format!("{path}/publish"),
            Some(json!({"published_immediately": true})),
            "published",
        ),
        Transition::Unpublish => (
            Method::POST,
            format!("{path}/unpublish"),
            None,
            "unpublished",
        ),
    };
    let response = client
        .send(method, &to, &Query::new(), body.as_ref())
        .await?;
    let detail = persisted_entry(client, &space, response, &id).await?;
    let status = view::<EntryState>(&detail)
        .status
        .unwrap_or_else(|| fallback.to_owned());
    let message = format!("Entry {fallback} successfully");
    let answer = write_reply(client, &space, detail, None, (&status, &message));
    Ok(answer.await?.into())
}

async fn clone(ctx: Entries) -> Answered {
    let (client, space) = space(&ctx)?;
    let source = find_entry(client, &space, &ctx.target()?)
        .await?
        .detail(client, &space)
        .await?;
    let body = clone_body(&source, ctx.args.name.as_deref(), ctx.args.slug.as_deref())?;
    let response = client
        .send(Method::POST, &ctx.coll.path, &Query::new(), Some(&body))
        .await?;
    let detail = persisted_entry(client, &space, response, "").await?;
    let outcome = ("created", "Entry cloned successfully");
    Ok(write_reply(client, &space, detail, None, outcome)
        .await?
        .into())
}
