//! `channels-templates-search` and `channels-templates-replace`: literal text across the
//! bodies of a site's templates. The search reads every body and says how many it read
//! (`state.searched`), so an empty site answers `searched: 0` rather than an ambiguous empty
//! list.

use futures::{StreamExt, TryStreamExt, stream};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    Category, Template, TemplateKeys, all_templates, named_templates, no_template, pick_named,
    save_body,
};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, Evidence, Legacy, PostCondition, Reply, ToolClass, ToolError};
use crate::modyo::resolve::is_id;
use crate::tools::args::Ident;
use crate::tools::channels::Site;
use crate::tools::engine::collection::{id_of, parse_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Collection, Container, Data, Id, Need, Nullable, body, view};

/// How many matching lines a search returns before it stops (`complete: false`).
pub(crate) const MAX_SEARCH_LINES: usize = 500;
/// How many characters of a matching line are returned.
const LINE_CHARS: usize = 200;
/// Concurrent body reads.
const BODY_READS: usize = 8;

/// Arguments of `channels-templates-search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SearchArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Literal text to look for in template bodies.
    #[schemars(length(min = 1))]
    query: String,
    /// Only templates of this category.
    category: Option<Category>,
    /// Match without regard to case (default false).
    #[serde(rename = "ignoreCase", default)]
    ignore_case: bool,
}

/// A template whose body matched, with its matching lines.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Hit {
    id: Id,
    uuid: Nullable<String>,
    name: Nullable<String>,
    category: Nullable<String>,
    matches: Vec<Line>,
}

/// One matching line: its 1-based number and its first characters.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Line {
    #[schemars(range(min = 1))]
    line: usize,
    text: String,
}

impl Data for Vec<Hit> {}

pub(crate) fn search_tool() -> ToolDef {
    tool("channels-templates-search", Module::Channels, ToolClass::Read)
        .describe(&format!(
            "Search the bodies of a site's templates for literal text. data: the templates that match, each with \
its matching lines (1-based, first {LINE_CHARS} chars); state.searched: templates read (0 when the site has none). \
Stops after {MAX_SEARCH_LINES} lines (complete: false)."
        ))
        .resource()
        .state()
        .handle(search)
        .writes_state(RareState::SEARCHED)
}

/// The matching lines of `text`: `(line number, line)`.
fn matching_lines(text: &str, query: &str, ignore_case: bool) -> Vec<(usize, String)> {
    let needle = if ignore_case {
        query.to_lowercase()
    } else {
        query.to_owned()
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            if ignore_case {
                line.to_lowercase().contains(&needle)
            } else {
                line.contains(&needle)
            }
        })
        .map(|(i, line)| (i + 1, line.trim().chars().take(LINE_CHARS).collect()))
        .collect()
}

/// A template's body (Modyo's `body`), empty when it has none.
fn content_of(template: &TemplateKeys) -> &str {
    template.body.as_deref().unwrap_or_default()
}

/// Reads the templates `ids` whole (name, type and body), a few at a time.
async fn read_all(
    client: &crate::modyo::ModyoClient,
    templates: &Collection<Template>,
    ids: Vec<u64>,
) -> Result<Vec<Value>, ToolError> {
    let reads: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let client = client.clone();
            let templates = templates.clone();
            async move { templates.fetch(&client, id).await }
        })
        .collect();
    stream::iter(reads).buffered(BODY_READS).try_collect().await
}

/// Whether `template` is of `category` (any template when none is given).
fn of_category(template: &TemplateKeys, category: Option<Category>) -> bool {
    category.is_none_or(|c| template.kind.as_deref() == Some(c.as_str()))
}

/// The ids of the rows of the site-wide list whose body holds `needle`.
fn holding(rows: &[Value], needle: &str, ignore_case: bool) -> Result<Vec<u64>, ToolError> {
    rows.iter()
        .filter(|row| !matching_lines(content_of(&view(row)), needle, ignore_case).is_empty())
        .map(|row| id_of(row, "template"))
        .collect()
}

async fn search(call: Call, args: SearchArgs) -> Answer<Vec<Hit>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Object).await?;
    let templates = site.collection::<Template>();
    // The site-wide list carries every body but no name or type: the bodies are searched
    // there, and only the templates that match are read for their name and type.
    let (rows, mut evidence) = all_templates(client, &templates).await?;
    let ids = holding(&rows, &args.query, args.ignore_case)?;
    let matched: Vec<TemplateKeys> = read_all(client, &templates, ids)
        .await?
        .iter()
        .map(view)
        .collect();
    let mut hits = Vec::new();
    let mut lines = 0;
    for template in matched.iter().filter(|t| of_category(t, args.category)) {
        if lines >= MAX_SEARCH_LINES {
            evidence = Evidence::Capped;
            break;
        }
        let mut found = matching_lines(content_of(template), &args.query, args.ignore_case);
        if found.is_empty() {
            continue;
        }
        if lines + found.len() > MAX_SEARCH_LINES {
            found.truncate(MAX_SEARCH_LINES - lines);
            evidence = Evidence::Capped;
        }
        lines += found.len();
        let id = template.id.clone().filter(|v| v.is_u64() || v.is_string());
        hits.push(Hit {
            id: Id(id.unwrap_or(Value::Null)),
            uuid: Nullable(template.uuid.clone()),
            name: Nullable(template.name.clone()),
            category: Nullable(template.kind.clone()),
            matches: found
                .into_iter()
                .map(|(line, text)| Line { line, text })
                .collect(),
        });
    }
    let coverage = Coverage::with_evidence(hits.len(), evidence).searched(rows.len());
    let query = args.query.clone();
    let old = Legacy::custom(move |hits| {
        let total = hits.as_array().map_or(0, Vec::len);
        body(OldSearch {
            query,
            results: hits,
            total,
        })
    });
    Ok(Reply::new(hits)
        .resource(site.resource())
        .state(coverage)
        .old(old)
        .into())
}

/// Arguments of `channels-templates-replace`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReplaceArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Literal text to find.
    #[schemars(length(min = 1))]
    find: String,
    /// Replacement for every occurrence.
    replace: String,
    /// Templates to edit (ids or names); with category, names are looked up within it.
    templates: Option<Vec<Ident>>,
    /// Without templates: every template of this category.
    category: Option<Category>,
}

/// What a replace did: the templates it changed (read back) and those it could not.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Replaced {
    changed: Vec<Changed>,
    failed: Vec<Failed>,
}

impl Data for Replaced {}

/// A template changed, as persisted, with how many occurrences were replaced.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Changed {
    id: Id,
    uuid: Nullable<String>,
    name: Nullable<String>,
    category: Nullable<String>,
    #[schemars(range(min = 1))]
    replacements: usize,
}

/// A template that could not be read or written, and why.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Failed {
    id: Id,
    name: Nullable<String>,
    error: Why,
}

/// The C16 code and message of a failure.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Why {
    code: &'static str,
    message: String,
}

impl Failed {
    fn new(id: u64, name: Option<String>, error: &ToolError) -> Failed {
        Failed {
            id: Id(Value::from(id)),
            name: Nullable(name),
            error: Why {
                code: error.code().as_str(),
                message: error.message().to_owned(),
            },
        }
    }
}

pub(crate) fn replace_tool() -> ToolDef {
    tool("channels-templates-replace", Module::Channels, ToolClass::Mutation)
        .describe(
            "Replace literal text in the bodies of the given templates, or of every template in a category; only \
templates that contain it are written. data.changed (with replacement counts, read back) and data.failed; \
state.affected: templates changed; resource: the template when exactly one changed.",
        )
        .resource()
        .state()
        .handle(replace)
        .writes_state(RareState::AFFECTED)
}

/// The templates a replace edits: the ones named (ids or names), else those of a whole
/// category whose body holds `find` (the site-wide list carries the bodies; their type is
/// known only once read, so the category is returned to be checked then).
async fn targets(
    client: &crate::modyo::ModyoClient,
    templates: &Collection<Template>,
    args: &ReplaceArgs,
) -> Result<(Vec<u64>, Option<Category>), CallError> {
    let Some(given) = args.templates.as_ref().filter(|g| !g.is_empty()) else {
        let Some(category) = args.category else {
            return Err(CallError::Arguments(
                "give templates (ids or names) or a category to replace across".into(),
            ));
        };
        let (rows, _) = all_templates(client, templates).await?;
        return Ok((holding(&rows, &args.find, false)?, Some(category)));
    };
    let rows = if given.iter().any(|t| !is_id(t.trim())) {
        named_templates(client, templates, args.category).await?.0
    } else {
        Vec::new()
    };
    let mut ids = Vec::new();
    for input in given {
        let input = input.trim();
        let id = if is_id(input) {
            parse_id(input, "template")?
        } else {
            match pick_named(&rows, input)? {
                Some(row) => id_of(&row, "template")?,
                None => return Err(no_template(templates.place(), input, args.category).into()),
            }
        };
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok((ids, None))
}

/// Replaces `args.find` in template `id`: nothing when it is not of `category` or does not
/// hold the text, else the template as saved; a template that cannot be read or saved is a
/// failure of its own (the templates already changed are still reported).
async fn replace_in(
    client: &crate::modyo::ModyoClient,
    templates: &Collection<Template>,
    id: u64,
    category: Option<Category>,
    args: &ReplaceArgs,
) -> Result<Option<(Changed, Value)>, (Failed, ToolError)> {
    let template: TemplateKeys = match templates.fetch(client, id).await {
        Ok(template) => view(&template),
        Err(e) => return Err((Failed::new(id, None, &e), e)),
    };
    if !of_category(&template, category) {
        return Ok(None);
    }
    let before = content_of(&template);
    let replacements = before.matches(args.find.as_str()).count();
    if replacements == 0 {
        return Ok(None);
    }
    let after = before.replace(args.find.as_str(), &args.replace);
    match save_body(client, templates, id, &after).await {
        Ok(object) => {
            let saved: TemplateKeys = view(&object);
            let changed = Changed {
                id: Id(Value::from(id)),
                uuid: Nullable(saved.uuid),
                name: Nullable(saved.name),
                category: Nullable(saved.kind),
                replacements,
            };
            Ok(Some((changed, object)))
        }
        Err(e) => Err((Failed::new(id, template.name, &e), e)),
    }
}

/// The old payload of `channels-templates-search`.
#[derive(Serialize)]
struct OldSearch {
    query: String,
    results: Value,
    total: usize,
}

/// The old payload of `channels-templates-replace`.
#[derive(Serialize)]
struct OldReplace {
    message: String,
    action: &'static str,
    results: Value,
}

async fn replace(call: Call, args: ReplaceArgs) -> Answer<Replaced> {
    if args.find.is_empty() {
        return Err(CallError::Arguments("find must not be empty".into()));
    }
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let templates = site.collection::<Template>();
    let mut done = Replaced {
        changed: Vec::new(),
        failed: Vec::new(),
    };
    let mut first_error: Option<ToolError> = None;
    let mut last_object = None;
    let (ids, category) = targets(client, &templates, &args).await?;
    for id in ids {
        match replace_in(client, &templates, id, category, &args).await {
            Ok(None) => {}
            Ok(Some((changed, object))) => {
                done.changed.push(changed);
                last_object = Some(object);
            }
            Err((failed, e)) => {
                done.failed.push(failed);
                first_error.get_or_insert(e);
            }
        }
    }
    if done.changed.is_empty()
        && let Some(error) = first_error
    {
        return Err(error.into());
    }
    let status = match (done.changed.is_empty(), done.failed.is_empty()) {
        (true, _) => "unchanged",
        (false, true) => "updated",
        (false, false) => "partial",
    };
    let affected = done.changed.len();
    let old = Legacy::custom(move |results| {
        body(OldReplace {
            message: format!("Replaced in {affected} template(s)"),
            action: status,
            results,
        })
    });
    let reply = Reply::new(done)
        .state(PostCondition::status(status).affected(affected))
        .old(old);
    Ok(match (affected, &last_object) {
        (1, Some(object)) => reply.resource(templates.resource(object, None)),
        _ => reply,
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_lines_are_one_based_trimmed_and_cut() {
        let text = "<html>\n  <body>{{ site.name }}</body>\n</html>";
        assert_eq!(
            matching_lines(text, "site.name", false),
            vec![(2, "<body>{{ site.name }}</body>".to_owned())]
        );
        assert!(matching_lines(text, "SITE.NAME", false).is_empty());
        assert_eq!(matching_lines(text, "SITE.NAME", true).len(), 1);
        let long = "x".repeat(500);
        assert_eq!(
            matching_lines(&long, "x", false)[0].1.chars().count(),
            LINE_CHARS
        );
    }
}
