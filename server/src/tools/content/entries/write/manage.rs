//! `content-entries-manage`: list, get, create, update, delete, publish, unpublish, archive or
//! clone entries.
//!
//! [`manage`] decides what is decided locally (which action, the confirmation of a delete)
//! before any request, then runs the action; each write answers the entry as persisted (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::{
    Status, entry_schema, find_entry, list_filters, minimal, present, resolve_entry_id, row_schema,
};
use super::{EntryFields, clone_body, entry_body, persisted_entry, send_checked, write_reply};
use crate::config::Module;
use crate::contract::schema;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, ErrorCode, PostCondition, Reply, ToolClass, ToolError, legacy};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::content::types::fetch_type;
use crate::tools::content::{Need, Space, id_key, numeric_id, resolve_space, unconfirmed};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// Actions of `content-entries-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    Publish,
    Unpublish,
    Archive,
    Clone,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::List => "list",
            Action::Get => "get",
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::Publish => "publish",
            Action::Unpublish => "unpublish",
            Action::Archive => "archive",
            Action::Clone => "clone",
        }
    }
}

/// Arguments of `content-entries-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
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
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = entry_schema();
    data["properties"]["entries"] = schema::array(row_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-entries-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, create, update, delete, publish, unpublish, archive or clone entries. list: data.entries \
(minimal rows) + coverage; other actions: data is the entry as persisted, field values by name under fields \
(asset fields take an asset uuid); state.status and state.published are read back. delete needs confirmDelete: true. \
archive sets the entry's archived attribute. An entry named by slug is searched with the list's query and confirmed \
on its full entry; by uuid, the list is paged until a row carries it.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &[
                "create",
                "update",
                "delete",
                "publish",
                "unpublish",
                "archive",
                "clone",
            ],
        )
        .handle(manage)
        .writes_state(RareState::PAGED.union(RareState::PUBLISHED))
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.slug.is_some(),
        args.tags.is_some(),
        args.category.is_some(),
        args.locale.is_some(),
        args.fields.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, slug, tags, category, locale or fields are given (create or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let _ = args.verify;
    if action == Action::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-entries-manage", "delete"));
    }
    let client = call.client()?;
    match action {
        Action::List => list(&call, client, &args).await,
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let detail = find_entry(client, &space, entry_arg(&args, action)?)
                .await?
                .detail(client, &space)
                .await?;
            let (data, resource) = present(client, &space, &detail, None).await?;
            Ok(Reply::new(data)
                .resource(resource)
                .legacy(call.mode, || detail)
                .into())
        }
        Action::Create => create(&call, client, &args).await,
        Action::Update => update(&call, client, &args, writes).await,
        Action::Delete => delete(&call, client, &args).await,
        Action::Publish | Action::Unpublish | Action::Archive => {
            transition(&call, client, &args, action).await
        }
        Action::Clone => clone(&call, client, &args).await,
    }
}

/// The `entry` argument an action needs, or the argument error that names it.
fn entry_arg(args: &ManageArgs, action: Action) -> Result<&str, CallError> {
    args.entry.as_deref().ok_or_else(|| {
        CallError::Arguments(format!(
            "{} needs entry (id, uuid or slug)",
            action.as_str()
        ))
    })
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

async fn list(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let space = resolve_space(client, &args.space, Need::Object).await?;
    let query = list_filters(client, &space, args.content_type.as_deref(), args.status)
        .await?
        .page(args.paging.page, args.paging.per_page)
        .push_opt("query", args.query.as_deref());
    let page = client
        .list(&format!("{}/entries", space.path()), "entries", &query)
        .await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let rows: Vec<Value> = page.items.iter().map(minimal).collect();
    let legacy_rows = Value::Array(page.items);
    Ok(Reply::new(json!({"entries": rows}))
        .resource(space.resource())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("entries", legacy_rows, page.raw_meta.as_ref())
        })
        .into())
}

async fn create(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let (Some(type_input), Some(_)) = (args.content_type.as_deref(), args.name.as_deref()) else {
        return Err(CallError::Arguments(
            "create needs type (id or uid) and name".into(),
        ));
    };
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let content_type = fetch_type(client, &space, type_input).await?;
    let mut written = entry_body(client, &space, Some(&content_type), &given(args)).await?;
    written.0["content_type_id"] = Value::from(numeric_id(&content_type, "a content type")?);
    let path = format!("{}/entries", space.path());
    let detail = send_checked(client, &space, Method::POST, &path, written, "").await?;
    let (status, message) = ("created", "Entry created successfully");
    write_reply(call, &space, detail, Some(&content_type), status, message).await
}

async fn update(call: &Call, client: &ModyoClient, args: &ManageArgs, writes: bool) -> ToolResult {
    if args.locale.is_some() {
        return Err(CallError::Arguments(
            "update cannot change an entry's locale; a translation is a create (content-entries-bulk create with the entry's uuid and target_locale)".into(),
        ));
    }
    if !writes {
        return Err(CallError::Arguments(
            "update needs at least one of name, slug, tags, category, fields".into(),
        ));
    }
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let found = find_entry(client, &space, entry_arg(args, Action::Update)?).await?;
    let id = found.id.clone();
    let path = format!("{}/entries/{id}", space.path());
    // The type maps field names to ids; it is read only when fields are set.
    let content_type = match &args.fields {
        Some(_) => {
            let current = found.detail(client, &space).await?;
            Some(type_of(client, &space, &current, &id).await?)
        }
        None => None,
    };
    let update = EntryFields {
        locale: None,
        ..given(args)
    };
    let written = entry_body(client, &space, content_type.as_ref(), &update).await?;
    let detail = send_checked(client, &space, Method::PUT, &path, written, &id).await?;
    let (status, message) = ("updated", "Entry updated successfully");
    write_reply(call, &space, detail, content_type.as_ref(), status, message).await
}

/// The content type of the entry `current` (entry `id`), read in full.
async fn type_of(
    client: &ModyoClient,
    space: &Space,
    current: &Value,
    id: &str,
) -> Result<Value, ToolError> {
    let type_id = current.get("content_type_id").map(id_key).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("entry {id} has no content_type_id; its fields cannot be named"),
        )
    })?;
    fetch_type(client, space, &type_id).await
}

async fn delete(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let found = find_entry(client, &space, entry_arg(args, Action::Delete)?).await?;
    let id = found.id.clone();
    let detail = found.detail(client, &space).await?;
    client
        .send(
            Method::DELETE,
            &format!("{}/entries/{id}", space.path()),
            &Query::new(),
            None,
        )
        .await?;
    let resource = crate::contract::Resource::from_object("entry", &detail, Some("slug"));
    Ok(Reply::new(Value::Null)
        .resource(resource)
        .state(PostCondition::status("deleted"))
        .legacy(
            call.mode,
            || json!({"message": "Entry permanently deleted", "action": "deleted", "entryId": id}),
        )
        .into())
}

/// Publish, unpublish or archive (the documented `archived` attribute), then the status the
/// entry ended in.
async fn transition(
    call: &Call,
    client: &ModyoClient,
    args: &ManageArgs,
    action: Action,
) -> ToolResult {
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let id = resolve_entry_id(client, &space, entry_arg(args, action)?).await?;
    let response = if action == Action::Archive {
        client
            .send(
                Method::PUT,
                &format!("{}/entries/{id}", space.path()),
                &Query::new(),
                Some(&json!({"archived": true})),
            )
            .await?
    } else {
        client
            .send(
                Method::POST,
                &format!("{}/entries/{id}/{}", space.path(), action.as_str()),
                &Query::new(),
                None,
            )
            .await?
    };
    let detail = persisted_entry(client, &space, response, &id).await?;
    // C7: the status the entry ended in, as the API reads it back (a space with team
    // review can leave a published entry pending), never the action's name.
    let fallback = match action {
        Action::Publish => "published",
        Action::Unpublish => "unpublished",
        _ => "archived",
    };
    let status = detail
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or(fallback)
        .to_owned();
    let message = format!("Entry {fallback} successfully");
    write_reply(call, &space, detail, None, &status, &message).await
}

async fn clone(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let source = find_entry(client, &space, entry_arg(args, Action::Clone)?)
        .await?
        .detail(client, &space)
        .await?;
    let body = clone_body(&source, args.name.as_deref(), args.slug.as_deref())?;
    let response = client
        .send(
            Method::POST,
            &format!("{}/entries", space.path()),
            &Query::new(),
            Some(&body),
        )
        .await?;
    let detail = persisted_entry(client, &space, response, "").await?;
    let message = "Entry cloned successfully";
    write_reply(call, &space, detail, None, "created", message).await
}
