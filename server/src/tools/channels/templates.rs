//! Templates (layouts, snippets, CSS, JS): `channels-templates-manage`, `-upsert`, `-find`,
//! `-search`, `-replace` and `-copy`.
//!
//! A template is addressed by id, or by `name` + `category` over every page of the site's
//! templates. Bodies are read one template at a time (`GET .../templates/{id}`): the search
//! walks them all and says how many it read (`state.searched`), so an empty site answers
//! `searched: 0` rather than an ambiguous empty list.

use futures::{StreamExt, TryStreamExt, stream};
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, Site, body, check_persisted, deleted, id_of, list_page, list_reply, not_found_as,
    object_reply, resolve_site, unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{
    Coverage, ErrorCode, Evidence, PostCondition, Reply, Resource, ToolClass, ToolError,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// Template categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Category {
    Layout,
    Snippet,
    Css,
    Js,
}

impl Category {
    fn as_str(self) -> &'static str {
        match self {
            Category::Layout => "layout",
            Category::Snippet => "snippet",
            Category::Css => "css",
            Category::Js => "js",
        }
    }
}

/// The JSON schema of a template as the API returns it (loose: echoed).
pub(crate) fn template_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("category", Str),
        ("content", Str),
        ("path", Str),
        ("status", Str),
        ("published", Bool),
        ("version", Any),
        ("site_id", Int),
        ("created_at", Str),
        ("updated_at", Str),
        ("published_at", Str),
    ])
}

fn template_resource(object: &Value) -> Resource {
    Resource::from_object("template", object, None)
}

fn templates_path(site: &Site) -> String {
    site.at("templates")
}

/// Every template row of the site (no bodies), and whether the walk saw them all.
async fn all_templates(
    client: &ModyoClient,
    site: &Site,
) -> Result<(Vec<Value>, Evidence), ToolError> {
    Ok(walk(client, &templates_path(site), "templates", &Query::new()).await?)
}

fn in_category(rows: Vec<Value>, category: Option<Category>) -> Vec<Value> {
    match category {
        Some(c) => rows
            .into_iter()
            .filter(|r| r.get("category").and_then(Value::as_str) == Some(c.as_str()))
            .collect(),
        None => rows,
    }
}

/// The one row named `name` (within `category` when given): `Ok(None)` when none is.
fn pick_named(
    rows: &[Value],
    name: &str,
    category: Option<Category>,
) -> Result<Option<Value>, ToolError> {
    let candidates = in_category(rows.to_vec(), category);
    match pick(
        "template",
        name,
        &candidates,
        &[Stage::exact("name", "name", name)],
    ) {
        Ok(row) => Ok(Some(row.clone())),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn no_template(site: &Site, name: &str, category: Option<Category>) -> ToolError {
    let within = category.map_or(String::new(), |c| format!(" in category {}", c.as_str()));
    ToolError::not_found(format!(
        "site {} has no template named '{name}'{within}; call channels-templates-manage (action list) to see its templates",
        site.id
    ))
    .detail("tried", json!(["id", "name + category"]))
}

/// Resolves a template: an all-digit input is an id; a name is matched exactly (within the
/// category when given) over every template of the site.
async fn resolve_template(
    client: &ModyoClient,
    site: &Site,
    input: &str,
    category: Option<Category>,
) -> Result<u64, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return input.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("template id '{input}' is too large"))
        });
    }
    let (rows, _) = all_templates(client, site).await?;
    match pick_named(&rows, input, category)? {
        Some(row) => id_of(&row, "template"),
        None => Err(no_template(site, input, category)),
    }
}

async fn read_template(client: &ModyoClient, site: &Site, id: u64) -> Result<Value, ToolError> {
    client
        .get(&format!("{}/{id}", templates_path(site)), &Query::new())
        .await
        .map_err(not_found_as(|| {
            format!(
                "template {id} not found in site {}; call channels-templates-manage (action list) to see its templates",
                site.id
            )
        }))
}

fn content_of(template: &Value) -> &str {
    template
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

const MANAGE: &str = "channels-templates-manage";

/// Actions of `channels-templates-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    Unpublish,
}

/// Arguments of `channels-templates-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete or unpublish.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Template id or name (every action but list and create).
    template: Option<Ident>,
    /// layout, snippet, css or js: narrows a name lookup; required for create.
    category: Option<Category>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Template body (create, update).
    content: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = template_schema();
    data["properties"]["templates"] = schema::array(template_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(MANAGE, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, create, update, delete or unpublish a site's templates (by id, or name + category). list: \
data.templates (no bodies) + coverage; get/create/update/unpublish: the template as persisted, with its content; \
delete (confirmDelete: true): data null.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete", "unpublish"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[args.name.is_some(), args.content.is_some()]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name or content is given (create or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let template_arg = || {
        args.template.as_deref().ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs template (id, or name with category)",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    match action {
        Action::List => {
            let site = resolve_site(client, &args.site, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, &templates_path(&site), "templates", &query).await?;
            Ok(list_reply(
                call.mode,
                "templates",
                listed,
                Some(site.resource()),
            ))
        }
        Action::Get => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let id = resolve_template(client, &site, template_arg()?, args.category).await?;
            let object = read_template(client, &site, id).await?;
            let resource = template_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Create => {
            let (Some(name), Some(category)) = (&args.name, args.category) else {
                return Err(CallError::Arguments(
                    "create needs name and category".into(),
                ));
            };
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let sent = body(vec![
                ("name", Some(Value::from(name.clone()))),
                ("category", Some(Value::from(category.as_str()))),
                ("content", args.content.clone().map(Value::from)),
            ]);
            let path = templates_path(&site);
            let object = write(client, Method::POST, &path, Some(&sent), |r| {
                format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            check_persisted("template", &object, &sent)?;
            let resource = template_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "created",
                "template",
                "Template created successfully",
            ))
        }
        Action::Update => {
            if !writes {
                return Err(CallError::Arguments("update needs name or content".into()));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let id = resolve_template(client, &site, template_arg()?, args.category).await?;
            let sent = body(vec![
                ("name", args.name.clone().map(Value::from)),
                ("content", args.content.clone().map(Value::from)),
            ]);
            let path = format!("{}/{id}", templates_path(&site));
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("template", &object, &sent)?;
            let resource = template_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "template",
                "Template updated successfully",
            ))
        }
        Action::Delete => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let id = resolve_template(client, &site, template_arg()?, args.category).await?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(MANAGE, "delete"));
            }
            let object = read_template(client, &site, id).await?;
            client
                .send(
                    Method::DELETE,
                    &format!("{}/{id}", templates_path(&site)),
                    &Query::new(),
                    None,
                )
                .await?;
            Ok(deleted(
                call.mode,
                template_resource(&object),
                "deleted",
                "Template permanently deleted",
                "templateId",
                id,
            ))
        }
        Action::Unpublish => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let id = resolve_template(client, &site, template_arg()?, args.category).await?;
            let path = format!("{}/{id}", templates_path(&site));
            let object = write(
                client,
                Method::POST,
                &format!("{path}/unpublish"),
                None,
                |_| path.clone(),
            )
            .await?;
            let resource = template_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "unpublished",
                "template",
                "Template unpublished successfully",
            ))
        }
    }
}

/// Arguments of `channels-templates-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact template name.
    name: String,
    /// layout, snippet, css or js.
    category: Category,
    /// Template body.
    content: String,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("channels-templates-upsert", Module::Channels, ToolClass::Mutation)
        .describe(
            "Create a template, or replace the body of the one with this name and category. data: the template as \
persisted; state.status created or updated.",
        )
        .data(template_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let name = args.name.trim();
    let (rows, _) = all_templates(client, &site).await?;
    let path = templates_path(&site);
    let (object, sent, status) = match pick_named(&rows, name, Some(args.category))? {
        Some(row) => {
            let id = id_of(&row, "template")?;
            let sent = json!({"content": args.content});
            let target = format!("{path}/{id}");
            let object = write(client, Method::PUT, &target, Some(&sent), |_| {
                target.clone()
            })
            .await?;
            (object, sent, "updated")
        }
        None => {
            let sent =
                json!({"name": name, "category": args.category.as_str(), "content": args.content});
            let object = write(client, Method::POST, &path, Some(&sent), |r| {
                format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            (object, sent, "created")
        }
    };
    check_persisted("template", &object, &sent)?;
    let resource = template_resource(&object);
    let message = if status == "created" {
        "Template created successfully"
    } else {
        "Template updated successfully"
    };
    Ok(written(
        call.mode, object, resource, status, "template", message,
    ))
}

/// Arguments of `channels-templates-find`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FindArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact template name.
    name: String,
    /// layout, snippet, css or js.
    category: Category,
}

pub(crate) fn find_tool() -> ToolDef {
    tool("channels-templates-find", Module::Channels, ToolClass::Read)
        .describe(
            "Find the one template with this exact name and category, with its body. data: the template, or null \
when none has it; state.searched: templates looked at.",
        )
        .data(schema::nullable(template_schema()))
        .resource()
        .state()
        .handle(find)
}

async fn find(call: Call, args: FindArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let (rows, evidence) = all_templates(client, &site).await?;
    let searched = rows.len();
    let name = args.name.trim();
    let Some(row) = pick_named(&rows, name, Some(args.category))? else {
        return Ok(Reply::new(Value::Null)
            .state(Coverage::with_evidence(0, evidence).searched(searched))
            .legacy(
                call.mode,
                || json!({"found": false, "name": name, "category": args.category.as_str()}),
            )
            .into());
    };
    let object = read_template(client, &site, id_of(&row, "template")?).await?;
    let resource = template_resource(&object);
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(Coverage::with_evidence(1, evidence).searched(searched))
        .legacy(call.mode, || legacy_object)
        .into())
}

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

fn hit_schema() -> Value {
    let line = schema::strict(
        &[
            ("line", json!({"type": "integer", "minimum": 1})),
            ("text", schema::string()),
        ],
        &["line", "text"],
    );
    schema::strict(
        &[
            ("id", schema::id()),
            ("uuid", schema::nullable(schema::string())),
            ("name", schema::nullable(schema::string())),
            ("category", schema::nullable(schema::string())),
            ("matches", schema::array(line)),
        ],
        &["id", "uuid", "name", "category", "matches"],
    )
}

pub(crate) fn search_tool() -> ToolDef {
    tool("channels-templates-search", Module::Channels, ToolClass::Read)
        .describe(&format!(
            "Search the bodies of a site's templates for literal text. data: the templates that match, each with \
its matching lines (1-based, first {LINE_CHARS} chars); state.searched: templates read (0 when the site has none). \
Stops after {MAX_SEARCH_LINES} lines (complete: false)."
        ))
        .data(schema::array(hit_schema()))
        .resource()
        .state()
        .handle(search)
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

async fn search(call: Call, args: SearchArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Object).await?;
    let (rows, mut evidence) = all_templates(client, &site).await?;
    let rows = in_category(rows, args.category);
    let reads: Vec<_> = rows
        .iter()
        .map(|row| {
            let client = client.clone();
            let site = site.clone();
            let row = row.clone();
            async move {
                if row.get("content").is_some_and(Value::is_string) {
                    return Ok(row);
                }
                let id = id_of(&row, "template")?;
                read_template(&client, &site, id).await
            }
        })
        .collect();
    let bodies: Vec<Value> = stream::iter(reads)
        .buffered(BODY_READS)
        .try_collect()
        .await?;
    let mut hits = Vec::new();
    let mut lines = 0;
    for template in &bodies {
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
        let text = |k: &str| {
            template
                .get(k)
                .filter(|v| v.is_string())
                .cloned()
                .unwrap_or(Value::Null)
        };
        hits.push(json!({
            "id": template.get("id").filter(|v| v.is_u64() || v.is_string()).cloned().unwrap_or(Value::Null),
            "uuid": text("uuid"),
            "name": text("name"),
            "category": text("category"),
            "matches": found.into_iter().map(|(line, text)| json!({"line": line, "text": text})).collect::<Vec<_>>(),
        }));
    }
    let coverage = Coverage::with_evidence(hits.len(), evidence).searched(bodies.len());
    let legacy_hits = hits.clone();
    let query = args.query.clone();
    Ok(Reply::new(Value::Array(hits))
        .resource(site.resource())
        .state(coverage)
        .legacy(
            call.mode,
            || json!({"query": query, "results": legacy_hits, "total": legacy_hits.len()}),
        )
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

fn replace_schema() -> Value {
    let changed = schema::strict(
        &[
            ("id", schema::id()),
            ("uuid", schema::nullable(schema::string())),
            ("name", schema::nullable(schema::string())),
            ("category", schema::nullable(schema::string())),
            ("replacements", json!({"type": "integer", "minimum": 1})),
        ],
        &["id", "uuid", "name", "category", "replacements"],
    );
    let error = schema::strict(
        &[("code", schema::string()), ("message", schema::string())],
        &["code", "message"],
    );
    let failed = schema::strict(
        &[
            ("id", schema::id()),
            ("name", schema::nullable(schema::string())),
            ("error", error),
        ],
        &["id", "name", "error"],
    );
    schema::strict(
        &[
            ("changed", schema::array(changed)),
            ("failed", schema::array(failed)),
        ],
        &["changed", "failed"],
    )
}

pub(crate) fn replace_tool() -> ToolDef {
    tool("channels-templates-replace", Module::Channels, ToolClass::Mutation)
        .describe(
            "Replace literal text in the bodies of the given templates, or of every template in a category; only \
templates that contain it are written. data.changed (with replacement counts, read back) and data.failed; \
state.affected: templates changed; resource: the template when exactly one changed.",
        )
        .data(replace_schema())
        .resource()
        .state()
        .handle(replace)
}

async fn replace(call: Call, args: ReplaceArgs) -> ToolResult {
    if args.find.is_empty() {
        return Err(CallError::Arguments("find must not be empty".into()));
    }
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let ids: Vec<u64> = match &args.templates {
        Some(given) if !given.is_empty() => {
            let needs_rows = given.iter().any(|t| !is_id(t.trim()));
            let rows = if needs_rows {
                all_templates(client, &site).await?.0
            } else {
                Vec::new()
            };
            let mut ids = Vec::new();
            for input in given {
                let input = input.trim();
                let id = if is_id(input) {
                    input.parse().map_err(|_| {
                        ToolError::invalid_parameters(format!("template id '{input}' is too large"))
                    })?
                } else {
                    match pick_named(&rows, input, args.category)? {
                        Some(row) => id_of(&row, "template")?,
                        None => return Err(no_template(&site, input, args.category).into()),
                    }
                };
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            ids
        }
        _ => match args.category {
            Some(category) => {
                let (rows, _) = all_templates(client, &site).await?;
                in_category(rows, Some(category))
                    .iter()
                    .map(|r| id_of(r, "template"))
                    .collect::<Result<_, _>>()?
            }
            None => {
                return Err(CallError::Arguments(
                    "give templates (ids or names) or a category to replace across".into(),
                ));
            }
        },
    };
    let mut changed = Vec::new();
    let mut failed = Vec::new();
    let mut first_error: Option<ToolError> = None;
    let mut last_object = None;
    let text = |o: &Value, k: &str| {
        o.get(k)
            .filter(|v| v.is_string())
            .cloned()
            .unwrap_or(Value::Null)
    };
    for id in ids {
        // A template that cannot be read is a failure of its own, like a write that fails:
        // the templates already changed are still reported.
        let template = match read_template(client, &site, id).await {
            Ok(template) => template,
            Err(e) => {
                failed.push(json!({
                    "id": id,
                    "name": null,
                    "error": {"code": e.code().as_str(), "message": e.message()},
                }));
                first_error.get_or_insert(e);
                continue;
            }
        };
        let before = content_of(&template);
        let replacements = before.matches(args.find.as_str()).count();
        if replacements == 0 {
            continue;
        }
        let sent = json!({"content": before.replace(args.find.as_str(), &args.replace)});
        let path = format!("{}/{id}", templates_path(&site));
        let result = match write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await {
            Ok(object) => check_persisted("template", &object, &sent).map(|()| object),
            Err(CallError::Tool(e)) => Err(e),
            Err(other) => return Err(other),
        };
        match result {
            Ok(object) => {
                changed.push(json!({
                    "id": id,
                    "uuid": text(&object, "uuid"),
                    "name": text(&object, "name"),
                    "category": text(&object, "category"),
                    "replacements": replacements,
                }));
                last_object = Some(object);
            }
            Err(e) => {
                failed.push(json!({
                    "id": id,
                    "name": text(&template, "name"),
                    "error": {"code": e.code().as_str(), "message": e.message()},
                }));
                first_error.get_or_insert(e);
            }
        }
    }
    if changed.is_empty()
        && let Some(error) = first_error
    {
        return Err(error.into());
    }
    let status = match (changed.is_empty(), failed.is_empty()) {
        (true, _) => "unchanged",
        (false, true) => "updated",
        (false, false) => "partial",
    };
    let affected = changed.len();
    let resource = match (affected, &last_object) {
        (1, Some(object)) => Some(template_resource(object)),
        _ => None,
    };
    let data = json!({"changed": changed, "failed": failed});
    let legacy_data = data.clone();
    let reply = Reply::new(data)
        .state(PostCondition::status(status).affected(affected))
        .legacy(call.mode, || {
            json!({
                "message": format!("Replaced in {affected} template(s)"),
                "action": status,
                "results": legacy_data,
            })
        });
    Ok(match resource {
        Some(resource) => reply.resource(resource),
        None => reply,
    }
    .into())
}

/// Arguments of `channels-templates-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Site id, host, uuid or name of the source template.
    site: Ident,
    /// Source template id or name.
    template: Ident,
    /// layout, snippet, css or js: narrows a name lookup.
    category: Option<Category>,
    /// Target site id, host, uuid or name (default: the same site).
    target_site: Option<Ident>,
    /// Name of the copy (default: the source's; needed within one site).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-templates-copy", Module::Channels, ToolClass::Mutation)
        .describe("Copy a template (name, category, body) within a site or to another site. data: the copy as persisted.")
        .data(template_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let id = resolve_template(client, &site, &args.template, args.category).await?;
    let source = read_template(client, &site, id).await?;
    let target = match &args.target_site {
        Some(t) => resolve_site(client, t, Need::Id).await?,
        None => site.clone(),
    };
    let keep = |key: &str| source.get(key).filter(|v| !v.is_null()).cloned();
    let sent = body(vec![
        (
            "name",
            args.name.clone().map(Value::from).or_else(|| keep("name")),
        ),
        ("category", keep("category")),
        ("content", keep("content")),
    ]);
    let path = templates_path(&target);
    let object = write(client, Method::POST, &path, Some(&sent), |r| {
        format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
    })
    .await?;
    check_persisted("template copy", &object, &sent)?;
    let resource = template_resource(&object);
    Ok(written(
        call.mode,
        object,
        resource,
        "created",
        "template",
        "Template copied successfully",
    ))
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

    #[test]
    fn names_are_picked_within_the_category() {
        let rows = vec![
            json!({"id": 1, "name": "home", "category": "layout"}),
            json!({"id": 2, "name": "home", "category": "css"}),
        ];
        assert_eq!(
            pick_named(&rows, "home", Some(Category::Css))
                .unwrap()
                .unwrap()["id"],
            2
        );
        assert_eq!(
            pick_named(&rows, "home", None).unwrap_err().code(),
            ErrorCode::Ambiguous
        );
        assert!(
            pick_named(&rows, "base", Some(Category::Layout))
                .unwrap()
                .is_none()
        );
    }
}
