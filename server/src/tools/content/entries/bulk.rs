//! `content-entries-bulk`: up to 100 entries in one request.
//!
//! `create` posts `{target_locale?, entries: [...]}` to `.../entries/bulk?bulk_action=create`
//! (documented: drafts, 202 `{"job_id"}`); the other actions post `{"entry_ids": [...]}` with
//! `bulk_action` set to the action (synthetic). A 202 job is recorded in the server's job
//! registry and answered with `data.job_id`, `state.status: queued`, `state.pending: true`, and
//! nothing else: nothing has run yet (`content-jobs-manage get` follows it). A 200 where a job
//! was expected is reported directly, with `state.affected` only when the body counts.

use std::collections::BTreeMap;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::jobs::{ItemErrors, JobRecord, JobRegistry, item_errors};
use super::super::types::fetch_type;
use super::super::{Space, categories, numeric_id};
use super::write::encode_fields;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolClass, ToolError};
use crate::modyo::resolve::{is_id, is_uuid};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Command, Container, Data, Need, Verb, body, command, lenient, view,
};

/// The most items one bulk request takes.
const MAX_ITEMS: usize = 100;

command! {
    /// What `content-entries-bulk` can be asked (`create` takes entries, the others ids).
    enum BulkCommand for BulkArgs {
        Create => Verb::write("create"),
        Publish => Verb::write("publish"),
        Unpublish => Verb::write("unpublish"),
        Archive => Verb::write("archive"),
        Delete => Verb::write("delete").confirmed(),
    }
}

const ENTRIES_BULK: &str = "content-entries-bulk";

/// One entry to create.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct NewEntry {
    /// Content type id or uid.
    #[serde(rename = "type")]
    content_type: Ident,
    /// Name.
    name: String,
    /// Slug.
    slug: Option<String>,
    /// Tags.
    tags: Option<Vec<String>>,
    /// Category id or slug path.
    category: Option<Ident>,
    /// uuid of an existing entry: creates its translation in target_locale.
    uuid: Option<String>,
    /// Field values by name; asset fields take an asset uuid.
    fields: Option<Map<String, Value>>,
}

/// Arguments of `content-entries-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// create, publish, unpublish, archive or delete.
    action: Action,
    /// Space id, uid or name.
    space: Ident,
    /// create: the entries (1 to 100), made as drafts.
    #[schemars(length(min = 1, max = 100))]
    entries: Option<Vec<NewEntry>>,
    /// create: locale of the new entries (default: the space's).
    target_locale: Option<String>,
    /// publish, unpublish, archive, delete: entry ids or uuids (1 to 100).
    #[schemars(length(min = 1, max = 100))]
    ids: Option<Vec<Ident>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

/// The `data` of `content-entries-bulk`: the job the API queued, or the item errors of a
/// request the API ran at once (none: `{}`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Bulk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    errors: Vec<ItemErrors>,
}

/// A queued job is `state.pending`; a request run at once counts what it wrote when the API
/// says (`state.affected`).
impl Data for Bulk {
    fn state() -> RareState {
        RareState::PENDING.union(RareState::AFFECTED)
    }
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("content-entries-bulk", Module::Content, ToolClass::Mutation)
        .describe(
            "Create (as drafts), publish, unpublish, archive or delete up to 100 entries in one request. The API runs \
it as a background job: data.job_id, state.status queued, state.pending true; follow it with content-jobs-manage \
get (wait_s). delete needs confirmDelete: true.",
        )
        .state()
        .control()
        .handle(bulk)
        .offers::<BulkCommand>()
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<Bulk> {
    let word = args.action.as_str();
    let command = command::parse::<BulkCommand>(ENTRIES_BULK, word, &args)?;
    if let Some(control) =
        command::unconfirmed::<BulkCommand, _>(ENTRIES_BULK, word, args.confirm_delete)
    {
        return control;
    }
    let verb = command.verb();
    let client = call.client()?;
    let (response, items) = match command {
        BulkCommand::Create => {
            let entries = args.entries.as_deref().unwrap_or_default();
            if entries.is_empty() || args.ids.is_some() {
                return Err(CallError::Arguments(
                    "create takes entries (1 to 100), not ids".into(),
                ));
            }
            let space = Space::resolve(client, &args.space, Need::Id).await?;
            let sent = create_body(client, &space, entries, args.target_locale.as_deref()).await?;
            let items = entries.len();
            (send(&call, &space, &command, sent, items).await?, items)
        }
        _ => {
            let ids = args.ids.as_deref().unwrap_or_default();
            if ids.is_empty() || args.entries.is_some() {
                return Err(CallError::Arguments(format!(
                    "{} takes ids (1 to 100 entry ids or uuids), not entries",
                    verb.word
                )));
            }
            let entry_ids = ids
                .iter()
                .map(|id| entry_ref(id))
                .collect::<Result<Vec<_>, _>>()?;
            let space = Space::resolve(client, &args.space, Need::Id).await?;
            let sent = body(IdsBody { entry_ids });
            (
                send(&call, &space, &command, sent, ids.len()).await?,
                ids.len(),
            )
        }
    };
    Ok(answer(verb, response, items).into())
}

/// An entry id as the bulk body sends it: a number for an id, a string for a uuid.
fn entry_ref(input: &str) -> Result<Value, CallError> {
    let input = input.trim();
    if is_id(input)
        && let Ok(id) = input.parse::<u64>()
    {
        return Ok(Value::from(id));
    }
    if is_uuid(input) {
        return Ok(Value::from(input));
    }
    Err(CallError::Arguments(format!(
        "'{input}' is neither an entry id nor a uuid (bulk actions do not look slugs up)"
    )))
}

/// The create body: each entry's type and category resolved once, its values encoded by name.
async fn create_body(
    client: &ModyoClient,
    space: &Space,
    entries: &[NewEntry],
    target_locale: Option<&str>,
) -> Result<Value, ToolError> {
    if entries.len() > MAX_ITEMS {
        return Err(ToolError::invalid_parameters(format!(
            "{} entries; one bulk request takes at most {MAX_ITEMS}",
            entries.len()
        )));
    }
    let mut types: BTreeMap<&str, Value> = BTreeMap::new();
    let mut categories: BTreeMap<&str, u64> = BTreeMap::new();
    let mut items = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let at = |e: ToolError| e.context(format!("entries[{index}]"));
        let type_key = entry.content_type.trim();
        if !types.contains_key(type_key) {
            let content_type = fetch_type(client, space, type_key).await.map_err(at)?;
            types.insert(type_key, content_type);
        }
        let content_type = &types[type_key];
        let mut item = Map::new();
        item.insert(
            "content_type_id".into(),
            Value::from(numeric_id(content_type, "a content type").map_err(at)?),
        );
        if let Some(uuid) = &entry.uuid {
            if !is_uuid(uuid.trim()) {
                return Err(at(ToolError::invalid_parameters(format!(
                    "uuid '{uuid}' is not a uuid"
                ))));
            }
            item.insert("uuid".into(), Value::from(uuid.trim()));
        }
        item.insert("name".into(), Value::from(entry.name.clone()));
        if let Some(slug) = &entry.slug {
            item.insert("slug".into(), Value::from(slug.clone()));
        }
        if let Some(tags) = &entry.tags {
            item.insert("tags".into(), Value::from(tags.clone()));
        }
        if let Some(category) = entry.category.as_deref().map(str::trim) {
            if !categories.contains_key(category) {
                let id = categories::resolve_id(client, space, category)
                    .await
                    .map_err(at)?;
                categories.insert(category, id);
            }
            item.insert("category_id".into(), Value::from(categories[category]));
        }
        if let Some(fields) = &entry.fields {
            let encoded = encode_fields(content_type, fields).map_err(at)?;
            item.insert("field_values".into(), Value::Array(encoded.field_values));
        }
        items.push(Value::Object(item));
    }
    Ok(body(CreateBody {
        target_locale,
        entries: items,
    }))
}

/// The body of a bulk create.
#[derive(Serialize)]
struct CreateBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    target_locale: Option<&'a str>,
    entries: Vec<Value>,
}

/// The body of a bulk action on existing entries: their ids (numbers) or uuids (strings).
#[derive(Serialize)]
struct IdsBody {
    entry_ids: Vec<Value>,
}

/// The keys of a bulk answer: a queued job's id, or the result a 200 reported directly.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Answered {
    #[serde(deserialize_with = "lenient")]
    job_id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    errors: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    affected: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    count: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    entries: Option<Value>,
}

/// Posts the bulk request (`body`, on `items` entries); a job it starts is recorded in the
/// server's registry.
async fn send(
    call: &Call,
    space: &Space,
    command: &BulkCommand,
    body: Value,
    items: usize,
) -> Result<Value, CallError> {
    let client = call.client()?;
    let word = command.verb().word;
    let query = Query::new().push("bulk_action", word);
    let response = client
        .send(
            Method::POST,
            &format!("{}/entries/bulk", space.path()),
            &query,
            Some(&body),
        )
        .await?;
    if let Some(job_id) = view::<Answered>(&response).job_id {
        call.app.state.get::<JobRegistry>().record(JobRecord {
            job_id,
            action: word.to_owned(),
            space_id: space.id,
            items,
            status: "queued".into(),
            affected: None,
        });
    } else if matches!(command, BulkCommand::Create) && !response.is_object() {
        return Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            "the bulk create answered without a job_id or a result object",
        )
        .into());
    }
    Ok(response)
}

/// The reply: a queued job, or the result a 200 reported directly.
fn answer(verb: &'static Verb, response: Value, items: usize) -> Reply<Bulk> {
    let answered: Answered = view(&response);
    if let Some(job_id) = answered.job_id {
        let legacy_id = job_id.clone();
        return Reply::new(Bulk {
            job_id: Some(job_id),
            errors: Vec::new(),
        })
        .state(PostCondition::status("queued").pending(true))
        .old(Legacy::custom(move |_| {
            body(Queued {
                message: format!("Bulk {} of {items} entries queued", verb.word),
                action: "queued",
                job_id: legacy_id,
            })
        }));
    }
    let errors = item_errors(answered.errors.as_ref());
    let affected = answered
        .affected
        .or(answered.count)
        .as_ref()
        .and_then(Value::as_u64)
        .map(|n| n as usize)
        .or_else(|| {
            answered
                .entries
                .as_ref()
                .and_then(Value::as_array)
                .map(Vec::len)
        });
    let status = match (errors.is_empty(), affected) {
        (true, _) => "completed",
        (false, Some(0)) => "failed",
        (false, _) => "partial",
    };
    let mut post = PostCondition::status(status);
    if let Some(affected) = affected {
        post = post.affected(affected);
    }
    Reply::new(Bulk {
        job_id: None,
        errors,
    })
    .state(post)
    .old(Legacy::custom(move |_| {
        body(Done {
            message: format!("Bulk {} of {items} entries done", verb.word),
            action: verb.word,
            result: response,
        })
    }))
}

/// The old payload of a queued bulk call.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Queued {
    message: String,
    action: &'static str,
    job_id: String,
}

/// The old payload of a bulk call the API answered with its result.
#[derive(Serialize)]
struct Done {
    message: String,
    action: &'static str,
    result: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bulk_refs_are_ids_or_uuids() {
        assert_eq!(entry_ref("1000042").unwrap(), json!(1000042));
        assert_eq!(
            entry_ref("512b62d6-2cc7-42af-82d0-bf6c2e4b8c1a").unwrap(),
            json!("512b62d6-2cc7-42af-82d0-bf6c2e4b8c1a")
        );
        assert!(entry_ref("sucursal-centro").is_err());
    }

    #[test]
    fn the_schema_is_strict_and_has_no_union() {
        let s = crate::contract::schema::derived::<Bulk>();
        assert_eq!(s["additionalProperties"], json!(false));
        assert!(!s.to_string().contains("anyOf"));
    }
}
