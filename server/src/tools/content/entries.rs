//! Content entries: `content-entries-list` (the projection pilot, C14) and `content-entries-get`;
//! the writes live in [`write`] (`-manage`, `-upsert`) and [`bulk`] (`-bulk`).
//!
//! The list endpoint returns admin metadata, never field values. With `fields`, the server
//! reads every entry of the requested page (bounded concurrency, in page order), reads each
//! content type on the page once, maps `field_values: [{field_id, type, value}]` to names and
//! keeps only the requested ones, with assets reduced to `{name, url}`. It pages; it never
//! fetches the whole catalogue.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::types::{fetch_type, type_id_of};
use super::{Space, id_key, id_of, read_one};
use crate::config::Module;
use crate::contract::schema;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, Legacy, Reply, Resource, ToolClass, ToolError};
use crate::modyo::list::{MAX_WALK_PAGES, WALK_PER_PAGE, walk};
use crate::modyo::resolve::{Stage, is_id, is_uuid, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Answer, Container, Echo, Echoed, Identity, Member, Need, Rules, body, echoed, lenient, reply,
    view,
};

mod bulk;
mod parts;
mod projection;
mod write;

pub(crate) use bulk::bulk_tool;
use projection::{FieldMap, is_asset_kind, pick_fields_of, project};
pub(in crate::tools::content) use write::copied_field_values;
pub(crate) use write::{manage_tool, upsert_tool};

/// Entry status filter, sent as the list's documented `states[]` (archived, published,
/// unpublished, scheduled): `draft` is Modyo's `unpublished`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Draft,
    Published,
    Scheduled,
    Archived,
}

impl Status {
    /// The documented `states[]` value.
    fn state(self) -> &'static str {
        match self {
            Status::Draft => "unpublished",
            Status::Published => "published",
            Status::Scheduled => "scheduled",
            Status::Archived => "archived",
        }
    }
}

/// Sort keys the entries list documents (others are dropped by the API without a word).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum SortBy {
    Name,
    CreatedAt,
    UpdatedAt,
}

impl SortBy {
    fn as_str(self) -> &'static str {
        match self {
            SortBy::Name => "name",
            SortBy::CreatedAt => "created_at",
            SortBy::UpdatedAt => "updated_at",
        }
    }
}

/// Sort direction (sent as the documented `asc` / `desc`).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
enum Order {
    #[serde(rename = "ASC", alias = "asc")]
    Asc,
    #[serde(rename = "DESC", alias = "desc")]
    Desc,
}

impl Order {
    fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }
}

/// Arguments of `content-entries-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Space id, uid or name.
    space: Ident,
    #[serde(flatten)]
    paging: Paging,
    /// Only entries of this content type (id or uid; sent as `type_id`).
    #[serde(rename = "type")]
    content_type: Option<Ident>,
    /// Only entries in this status (sent as `states[]`; draft is Modyo's unpublished).
    status: Option<Status>,
    /// Only entries in this category id.
    category_id: Option<u64>,
    /// Only entries with all these tags.
    tags: Option<Vec<String>>,
    /// Full-text filter on names.
    query: Option<String>,
    /// Sort key (default updated_at).
    sort_by: Option<SortBy>,
    /// Sort direction (default DESC).
    order: Option<Order>,
    /// Raw admin rows (metadata, never field values) instead of minimal rows.
    #[serde(rename = "includeDetails", default)]
    include_details: bool,
    /// Field names to add to each minimal row, read from each entry of the page. Excludes includeDetails.
    #[schemars(length(min = 1))]
    fields: Option<Vec<String>>,
    /// Concurrent entry reads with fields (default 8).
    #[schemars(range(min = 1, max = 16))]
    concurrency: Option<u32>,
}

/// Default concurrency of the `fields` hydration (`reports/performance.md` has the sweep).
pub(crate) const DEFAULT_HYDRATION_CONCURRENCY: usize = 8;

pub(crate) fn list_tool() -> ToolDef {
    tool("content-entries-list", Module::Content, ToolClass::Read)
        .describe(
            "List a space's entries, one page at a time. Rows are minimal (id, uuid, name, slug, published); \
fields: [names] adds those field values under `fields` (assets as {name, url}), reading each entry of the page; \
includeDetails gives the raw admin rows instead. Use fields rather than one content-entries-get per entry.",
        )
        .resource()
        .state()
        .new_params(&["fields", "concurrency"])
        .handle(list)
        .writes_state(RareState::PAGED)
}

/// A row of `content-entries-list` is minimal, projected, or (includeDetails) the API's raw
/// list row, whose keys are the entry's admin metadata: an [`EntryObject`] (C11).
async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<EntryObject>>> {
    if args.include_details && args.fields.is_some() {
        return Err(CallError::Arguments(
            "fields and includeDetails are mutually exclusive: use fields for field values, includeDetails for raw admin rows".into(),
        ));
    }
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Object).await?;
    let mut query = list_filters(client, &space, args.content_type.as_deref(), args.status)
        .await?
        .page(args.paging.page, args.paging.per_page)
        .push_opt("category_id", args.category_id)
        .push_opt("query", args.query.as_deref())
        .push_opt("sort_by", args.sort_by.map(SortBy::as_str))
        .push_opt("order", args.order.map(Order::as_str));
    for tag in args.tags.iter().flatten() {
        query = query.push("tags[]", tag);
    }
    let path = format!("{}/entries", space.path());
    let page = if args.include_details {
        client.list(&path, "entries", &query).await?
    } else {
        // Minimal rows and the projection read these keys of a row; the rest is not built.
        client
            .list_keeping(&path, "entries", &query, &ROW_KEYS)
            .await?
    };
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref(), page.asked_page);
    let raw_meta = page.raw_meta;
    let data: Vec<Value> = if args.include_details {
        page.items.clone()
    } else if let Some(fields) = &args.fields {
        let concurrency = args
            .concurrency
            .map_or(DEFAULT_HYDRATION_CONCURRENCY, |c| c as usize);
        project(client, &space, &page.items, fields, concurrency).await?
    } else {
        page.items.iter().map(minimal).collect()
    };
    let rows = data.into_iter().map(Echo::new).collect();
    Ok(Reply::new(rows)
        .resource(space.resource())
        .state(coverage)
        .old(Legacy::list("entries", raw_meta))
        .into())
}

/// The documented type and state filters of the entries list: a type id or uid as `type_id`
/// (a uid costs one walk of the types list), a status as `states[]`.
async fn list_filters(
    client: &ModyoClient,
    space: &Space,
    content_type: Option<&str>,
    status: Option<Status>,
) -> Result<Query, ToolError> {
    let type_id = match content_type {
        Some(input) => Some(type_id_of(client, space, input).await?),
        None => None,
    };
    Ok(Query::new()
        .push_opt("type_id", type_id)
        .push_opt("states[]", status.map(Status::state)))
}

/// The keys of a list row that [`minimal`] and the `fields` projection read.
const ROW_KEYS: [&str; 7] = [
    "id",
    "uuid",
    "name",
    "slug",
    "published",
    "status",
    "content_type_id",
];

/// `{id, uuid, name, slug, published}` of a list row or an entry: each key as sent, `null`
/// when absent (documented list rows carry no slug: `slug` is null for them).
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct Minimal {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    uuid: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    name: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    slug: Option<Value>,
    #[serde(skip_deserializing)]
    published: Option<bool>,
}

/// The keys of an entry that say its content type and its status, each as sent (`null`
/// included).
#[derive(Default, Deserialize)]
#[serde(default)]
pub(crate) struct EntryState {
    #[serde(deserialize_with = "lenient")]
    pub(crate) content_type_id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) status: Option<String>,
}

/// The [`Minimal`] row of a list row or an entry.
fn minimal(entry: &Value) -> Value {
    let mut row: Minimal = view(entry);
    row.published = reply::published_of(entry);
    body(row)
}

echoed! {
    /// The keys of an entry as the API returns it.
    EntryKeys = "entry" {
        id: i64, uuid: String, name: String, slug: String, content_type_id: i64, locale: String,
        status: String, published: bool
    }
}

/// An entry as the entry tools answer it: the API's keys ([`EntryKeys`]), its field values
/// once, by name, under `fields` (the API's `field_values` and `json` left out).
pub(crate) struct EntryObject;

impl JsonSchema for EntryObject {
    fn schema_name() -> Cow<'static, str> {
        "EntryObject".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut entry = EntryKeys::json_schema(generator);
        if let Some(Value::Object(properties)) = entry.get_mut("properties") {
            properties.insert("fields".into(), schema::map_of(schema::any()));
        }
        entry
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Echoed for EntryObject {
    const NAME: &'static str = "entry";
}

impl Member for EntryObject {
    const RULES: Rules = Rules::new("entry", "entries")
        .slug("slug")
        .hint("call content-entries-list to see its entries");
}

/// Arguments of `content-entries-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Entry id, uuid or slug.
    entry: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-entries-get", Module::Content, ToolClass::Read)
        .describe("Get one entry by id, uuid or slug, with its field values once, by name, under `fields`. \
An id costs one read; a uuid pages the entries list until a row carries it; a slug is searched with the list's \
`query` (name and identifier) and confirmed on each candidate's full entry.")
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> Answer<Echo<EntryObject>> {
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Id).await?;
    let detail = find_entry(client, &space, &args.entry)
        .await?
        .detail(client, &space)
        .await?;
    Ok(presented(client, &space, detail).await?.into())
}

/// The answer of an entry read: the entry as [`present`] shows it; the old payload was the
/// API's object.
pub(crate) async fn presented<D: reply::Object>(
    client: &ModyoClient,
    space: &Space,
    detail: Value,
) -> Result<Reply<D>, ToolError> {
    let (data, resource) = present(client, space, &detail, None).await?;
    Ok(reply::one(data, resource).old(Legacy::custom(move |_| detail)))
}

/// An entry found by id, uuid or slug.
pub(crate) struct FoundEntry {
    /// Its id.
    pub(crate) id: String,
    /// What the lookup saw of it: its list row, or its full entry when it read it.
    pub(crate) seen: Value,
    /// Its full entry, when the lookup read it.
    detail: Option<Value>,
}

impl FoundEntry {
    fn of_row(row: Value) -> FoundEntry {
        FoundEntry {
            id: id_of(&row),
            seen: row,
            detail: None,
        }
    }

    /// The full entry: the one the lookup read, else `GET .../entries/{id}`.
    pub(crate) async fn detail(
        self,
        client: &ModyoClient,
        space: &Space,
    ) -> Result<Value, ToolError> {
        match self.detail {
            Some(detail) => Ok(detail),
            None => read_entry(client, space, &self.id).await,
        }
    }
}

/// An entry named by id (no request), uuid (the list's pages read until a row carries it: the
/// list documents no uuid filter) or slug ([`entries_with_slug`]).
pub(crate) async fn find_entry(
    client: &ModyoClient,
    space: &Space,
    input: &str,
) -> Result<FoundEntry, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return Ok(FoundEntry {
            id: input.to_owned(),
            seen: Value::Null,
            detail: None,
        });
    }
    if is_uuid(input) {
        return find_by_uuid(client, space, input).await;
    }
    let found = entries_with_slug(client, space, input, Query::new()).await?;
    // Every candidate carries the slug: `pick` says "not found" or "ambiguous", or there is one.
    let seen: Vec<Value> = found.iter().map(|f| f.seen.clone()).collect();
    pick(
        "entry",
        input,
        &seen,
        &[Stage::exact("slug", "slug", input)],
    )?;
    found
        .into_iter()
        .next()
        .ok_or_else(|| ToolError::not_found(format!("no entry has slug '{input}'")))
}

/// Pages through the entries list until a row's `uuid` is `uuid`.
async fn find_by_uuid(
    client: &ModyoClient,
    space: &Space,
    uuid: &str,
) -> Result<FoundEntry, ToolError> {
    let path = format!("{}/entries", space.path());
    for page in 1..=MAX_WALK_PAGES {
        let list = client
            .list(&path, "entries", &Query::new().page(page, WALK_PER_PAGE))
            .await?;
        let got = list.items.len();
        if let Some(row) = list
            .items
            .into_iter()
            .find(|row| view::<Identity>(row).uuid.as_deref() == Some(uuid))
        {
            return Ok(FoundEntry::of_row(row));
        }
        let last_by_meta = list
            .meta
            .and_then(|m| Some(m.current_page? >= m.total_pages?))
            .unwrap_or(false);
        if got < WALK_PER_PAGE as usize || last_by_meta {
            break;
        }
    }
    Err(ToolError::not_found(format!(
        "no entry of space {} has uuid '{uuid}'; call content-entries-list to see its entries",
        space.id
    )))
}

/// Every entry whose slug is `slug`, among the entries list's `query` matches (the list
/// searches names and identifiers) narrowed by `filters`. Documented list rows carry no slug:
/// a row without one is confirmed on its full entry, read once and kept.
pub(crate) async fn entries_with_slug(
    client: &ModyoClient,
    space: &Space,
    slug: &str,
    filters: Query,
) -> Result<Vec<FoundEntry>, ToolError> {
    let (rows, _) = walk(
        client,
        &format!("{}/entries", space.path()),
        "entries",
        &filters.push("query", slug),
    )
    .await?;
    let mut found = Vec::new();
    for row in rows {
        match view::<Identity>(&row).slug {
            Some(row_slug) => {
                if row_slug == slug {
                    found.push(FoundEntry::of_row(row));
                }
            }
            None => {
                let id = id_of(&row);
                let detail = read_entry(client, space, &id).await?;
                if view::<Identity>(&detail).slug.as_deref() == Some(slug) {
                    found.push(FoundEntry {
                        id,
                        seen: detail.clone(),
                        detail: Some(detail),
                    });
                }
            }
        }
    }
    Ok(found)
}

/// `GET .../entries/{id}`, with a 404 that says what to call next.
pub(crate) async fn read_entry(
    client: &ModyoClient,
    space: &Space,
    id: &str,
) -> Result<Value, ToolError> {
    read_one(client, &format!("{}/entries/{id}", space.path()), || {
        format!(
            "entry {id} not found in space {}; call content-entries-list to see its entries",
            space.id
        )
    })
    .await
}

/// An entry detail as `data` (the API object without `field_values` and `json`, with every
/// field value once, by name, under `fields`) and its `resource`. `known_type` saves the type
/// read when the caller already has it.
pub(crate) async fn present(
    client: &ModyoClient,
    space: &Space,
    detail: &Value,
    known_type: Option<&Value>,
) -> Result<(Value, Resource), ToolError> {
    let fields = match detail.pointer("/json/fields").and_then(Value::as_object) {
        Some(by_name) => by_name.clone(),
        None => match view::<EntryState>(detail)
            .content_type_id
            .filter(|v| !v.is_null())
            .as_ref()
            .map(id_key)
        {
            Some(type_id) => {
                let known = known_type.filter(|t| {
                    view::<Identity>(t).id.as_ref().map(id_key).as_deref() == Some(type_id.as_str())
                });
                let content_type = match known {
                    Some(t) => t.clone(),
                    None => fetch_type(client, space, &type_id).await?,
                };
                let map = FieldMap::of(&content_type);
                let names: Vec<String> = map.names.iter().cloned().collect();
                pick_fields_of(detail, Some(&map), &names)
            }
            None => Map::new(),
        },
    };
    let resource = Resource::from_object("entry", detail, Some("slug"));
    let mut data = match detail {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    data.remove("field_values");
    data.remove("json");
    data.insert("fields".into(), Value::Object(fields));
    Ok((Value::Object(data), resource))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn minimal_rows_read_status_when_published_is_missing() {
        let row =
            json!({"id": 1, "uuid": "u", "name": "n", "slug": "s", "status": "draft", "extra": 1});
        assert_eq!(
            minimal(&row),
            json!({"id": 1, "uuid": "u", "name": "n", "slug": "s", "published": false})
        );
        assert_eq!(minimal(&json!("x"))["published"], Value::Null);
        // An empty status says nothing, here as in every other reply (`reply::published_of`).
        assert_eq!(minimal(&json!({"status": ""}))["published"], Value::Null);
    }
}
