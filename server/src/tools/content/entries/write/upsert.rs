//! `content-entries-upsert`: create or update an entry by slug, with its type and locale. The
//! slug is searched with the list's query and kept only where slug, type and locale match
//! exactly; one match is updated, none created, several are `ambiguous`.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::{EntryObject, FoundEntry, entries_with_slug};
use super::{EntryFields, entry_body, send_checked, write_reply};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::content::types::fetch_type;
use crate::tools::content::{Space, numeric_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Container, Echo, Need, body, lenient, view};

/// Arguments of `content-entries-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Content type id or uid.
    #[serde(rename = "type")]
    content_type: Ident,
    /// Slug: the natural key, with type and locale.
    slug: String,
    /// Locale (default: the space's); needed when the slug exists in several locales.
    locale: Option<String>,
    /// Name (required to create).
    name: Option<String>,
    /// Tags.
    tags: Option<Vec<String>>,
    /// Category id or slug path.
    category: Option<Ident>,
    /// Field values by name; asset fields take an asset uuid.
    fields: Option<Map<String, Value>>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("content-entries-upsert", Module::Content, ToolClass::Mutation)
        .describe(
            "Create or update an entry by slug (with type and locale). data is the entry as persisted, field values by \
name under fields; state.status created or updated, state.published read back. The slug is searched with the list's \
query (with type_id and target_locale) and confirmed on each candidate's full entry.",
        )
        .resource()
        .state()
        .handle(upsert)
        .writes_state(RareState::PUBLISHED)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<EntryObject>> {
    let _ = args.verify;
    let client = call.client()?;
    let space = Space::resolve(client, &args.space, Need::Id).await?;
    let content_type = fetch_type(client, &space, &args.content_type).await?;
    let type_id = numeric_id(&content_type, "a content type")?;
    let slug = args.slug.trim();
    let found = matching(client, &space, &args, type_id, slug).await?;
    let given = EntryFields {
        name: args.name.as_deref(),
        slug: Some(slug),
        tags: args.tags.as_ref(),
        category: args.category.as_deref(),
        locale: args.locale.as_deref(),
        fields: args.fields.as_ref(),
    };
    let (method, path, given, id, status, message) = match found.as_slice() {
        [] => {
            if args.name.is_none() {
                return Err(CallError::Arguments(format!(
                    "no entry of type {type_id} has slug '{slug}'; name is needed to create it"
                )));
            }
            let path = format!("{}/entries", space.path());
            let created = ("created", "Entry created successfully");
            (
                Method::POST,
                path,
                given,
                String::new(),
                created.0,
                created.1,
            )
        }
        [existing] => {
            let id = existing.id.clone();
            let path = format!("{}/entries/{id}", space.path());
            let update = EntryFields {
                locale: None,
                ..given
            };
            let updated = ("updated", "Entry updated successfully");
            (Method::PUT, path, update, id, updated.0, updated.1)
        }
        many => return Err(ambiguous(many, type_id, slug).into()),
    };
    let mut written = entry_body(client, &space, Some(&content_type), &given).await?;
    if method == Method::POST {
        written.0["content_type_id"] = Value::from(type_id);
    }
    let detail = send_checked(client, &space, method, &path, written, &id).await?;
    let answer = write_reply(
        client,
        &space,
        detail,
        Some(&content_type),
        (status, message),
    );
    Ok(answer.await?.into())
}

/// The entries with exactly this slug, type and (when given) locale: the list's `query`
/// matches names too.
async fn matching(
    client: &ModyoClient,
    space: &Space,
    args: &UpsertArgs,
    type_id: u64,
    slug: &str,
) -> Result<Vec<FoundEntry>, ToolError> {
    let filters = Query::new()
        .push("type_id", type_id)
        .push_opt("target_locale", args.locale.as_deref());
    Ok(entries_with_slug(client, space, slug, filters)
        .await?
        .into_iter()
        .filter(|f| {
            let seen: Seen = view(&f.seen);
            seen.content_type_id.is_none_or(|t| t == type_id)
                && match (&args.locale, seen.locale) {
                    (Some(wanted), Some(locale)) => *wanted == locale,
                    _ => true,
                }
        })
        .collect())
}

/// The keys an upsert reads of an entry it found by slug.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Seen {
    #[serde(deserialize_with = "lenient")]
    content_type_id: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    locale: Option<String>,
}

/// An entry among the candidates of `ambiguous`: each key as sent, `null` when absent.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct Candidate {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    name: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    locale: Option<Value>,
}

/// Several entries have the slug: `ambiguous`, with the candidates.
fn ambiguous(many: &[FoundEntry], type_id: u64, slug: &str) -> ToolError {
    let candidates: Vec<Value> = many
        .iter()
        .map(|f| body(view::<Candidate>(&f.seen)))
        .collect();
    ToolError::new(
        ErrorCode::Ambiguous,
        format!(
            "{} entries of type {type_id} have slug '{slug}'; pass locale to choose one",
            many.len()
        ),
    )
    .candidates(candidates)
}
