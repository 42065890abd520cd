//! Widget definitions (custom widgets): `channels-widgets-manage`, `-upsert`, `-copy` and
//! `-code-edit`, and the name lookup the download shares.
//!
//! A name is looked up through `GET .../widget_definitions?query=<name>` (documented, as the
//! CLI does); the query matches loosely, so only exact name matches count and exactly one is
//! required. Writes carry the server's own User-Agent (the client's), never `MODYO-CLI`, which
//! would make the widget read-only in the UI.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, Site, body, check_persisted, deleted, id_of, list_page, not_found_as, object_reply,
    resolve_site, unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, Reply, Resource, ToolClass, ToolError, legacy};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// The JSON schema of a widget definition as the API returns it (loose: echoed).
pub(crate) fn widget_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("description", Str),
        ("status", Str),
        ("published", Bool),
        ("public", Bool),
        ("read_only", Bool),
        ("archived", Bool),
        ("html", Str),
        ("css", Str),
        ("js", Str),
        ("version", Any),
        ("sync", Bool),
        ("manager_uuid", Str),
        ("site_id", Int),
        ("type", Str),
        ("resolve_type", Str),
        ("created_at", Str),
        ("updated_at", Str),
        ("published_at", Str),
    ])
}

/// `resource` of a widget definition.
pub(crate) fn widget_resource(object: &Value) -> Resource {
    Resource::from_object("widget", object, None)
}

/// A widget definition, found.
pub(crate) struct WidgetRef {
    pub(crate) id: u64,
    /// Its list row, when the lookup read one.
    pub(crate) row: Option<Value>,
}

impl WidgetRef {
    /// The `resource` echo (the id only when no row was read).
    pub(crate) fn resource(&self) -> Resource {
        match &self.row {
            Some(row) => widget_resource(row).id(self.id),
            None => Resource::new("widget").id(self.id),
        }
    }
}

/// `/api/admin/sites/{site}/widget_definitions[/{id}]`.
pub(crate) fn widgets_path(site: &Site) -> String {
    site.at("widget_definitions")
}

/// Looks a widget up by name through `?query=`: exactly one exact name match resolves, more
/// are `ambiguous`. With none, an all-digit input is taken as an id; anything else is
/// `not_found`.
pub(crate) async fn find_widget(
    client: &ModyoClient,
    site: &Site,
    input: &str,
) -> Result<WidgetRef, ToolError> {
    let input = input.trim();
    let (rows, _) = walk(
        client,
        &widgets_path(site),
        "widget_definitions",
        &Query::new().push("query", input),
    )
    .await?;
    match pick("widget", input, &rows, &[Stage::exact("name", "name", input)]) {
        Ok(row) => Ok(WidgetRef {
            id: id_of(row, "widget")?,
            row: Some(row.clone()),
        }),
        Err(e) if e.code() == ErrorCode::NotFound && is_id(input) => Ok(WidgetRef {
            id: input.parse().map_err(|_| {
                ToolError::invalid_parameters(format!("widget id '{input}' is too large"))
            })?,
            row: None,
        }),
        Err(e) if e.code() == ErrorCode::NotFound => Err(ToolError::not_found(format!(
            "site {} has no widget named exactly '{input}' (looked up with ?query=, then exact name); call channels-widgets-manage (action list) to see its widgets",
            site.id
        ))
        .detail("tried", json!(["name", "id"]))),
        Err(e) => Err(e),
    }
}

/// Resolves the `widget` argument of `-manage`: an id directly, a name through the lookup.
async fn resolve_widget(
    client: &ModyoClient,
    site: &Site,
    input: &str,
) -> Result<WidgetRef, ToolError> {
    let input = input.trim();
    if is_id(input) {
        let id = input.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("widget id '{input}' is too large"))
        })?;
        return Ok(WidgetRef { id, row: None });
    }
    find_widget(client, site, input).await
}

/// `GET .../widget_definitions/{id}`, with an actionable 404.
pub(crate) async fn read_widget(
    client: &ModyoClient,
    site: &Site,
    id: u64,
) -> Result<Value, ToolError> {
    client
        .get(&format!("{}/{id}", widgets_path(site)), &Query::new())
        .await
        .map_err(not_found_as(|| {
            format!(
                "widget {id} not found in site {}; call channels-widgets-manage (action list) to see its widgets",
                site.id
            )
        }))
}

const MANAGE: &str = "channels-widgets-manage";

/// Actions of `channels-widgets-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    Archive,
    Publish,
}

/// Arguments of `channels-widgets-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, archive or publish.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Widget id or exact name (every action but list and create).
    widget: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// list: filter by name.
    query: Option<String>,
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Whether the widget is public (create, update).
    public: Option<bool>,
    /// HTML (create, update).
    html: Option<String>,
    /// CSS (create, update).
    css: Option<String>,
    /// JavaScript (create, update).
    js: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = widget_schema();
    data["properties"]["widgets"] = schema::array(widget_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(MANAGE, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, create, update, delete, archive or publish a site's custom widgets. list: data.widgets + \
coverage; others: the widget as persisted (publish: state.published and live_version read back); delete \
(confirmDelete: true): data null.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete", "archive", "publish"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.description.is_some(),
        args.public.is_some(),
        args.html.is_some(),
        args.css.is_some(),
        args.js.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when widget fields are given (create or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let widget_arg = || {
        args.widget.as_deref().ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs widget (id or exact name)",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let fields = || {
        body(vec![
            ("name", args.name.clone().map(Value::from)),
            ("description", args.description.clone().map(Value::from)),
            ("public", args.public.map(Value::from)),
            ("html", args.html.clone().map(Value::from)),
            ("css", args.css.clone().map(Value::from)),
            ("js", args.js.clone().map(Value::from)),
        ])
    };
    match action {
        Action::List => {
            let site = resolve_site(client, &args.site, Need::Object).await?;
            let query = Query::new()
                .push_opt("query", args.query.as_deref())
                .page(args.paging.page, args.paging.per_page);
            let listed =
                list_page(client, &widgets_path(&site), "widget_definitions", &query).await?;
            let Listed {
                items,
                coverage,
                raw_meta,
            } = listed;
            let legacy_items = Value::Array(items.clone());
            Ok(Reply::new(json!({"widgets": items}))
                .resource(site.resource())
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("widget_definitions", legacy_items, raw_meta.as_ref())
                })
                .into())
        }
        Action::Get => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_widget(client, &site, widget_arg()?).await?;
            let object = read_widget(client, &site, found.id).await?;
            let resource = widget_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Create => {
            if args.name.is_none() {
                return Err(CallError::Arguments("create needs name".into()));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let sent = fields();
            let path = widgets_path(&site);
            let object = write(client, Method::POST, &path, Some(&sent), |r| {
                format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            check_persisted("widget", &object, &sent)?;
            let resource = widget_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "created",
                "widget",
                "Widget created successfully",
            ))
        }
        Action::Update => {
            if !writes {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, public, html, css, js".into(),
                ));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_widget(client, &site, widget_arg()?).await?;
            let sent = fields();
            let path = format!("{}/{}", widgets_path(&site), found.id);
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("widget", &object, &sent)?;
            let resource = widget_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "widget",
                "Widget updated successfully",
            ))
        }
        Action::Delete => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_widget(client, &site, widget_arg()?).await?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(MANAGE, "delete"));
            }
            let resource = match &found.row {
                Some(_) => found.resource(),
                None => widget_resource(&read_widget(client, &site, found.id).await?),
            };
            client
                .send(
                    Method::DELETE,
                    &format!("{}/{}", widgets_path(&site), found.id),
                    &Query::new(),
                    None,
                )
                .await?;
            Ok(deleted(
                call.mode,
                resource,
                "deleted",
                "Widget permanently deleted",
                "widgetId",
                found.id,
            ))
        }
        Action::Archive => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_widget(client, &site, widget_arg()?).await?;
            let path = format!("{}/{}", widgets_path(&site), found.id);
            let object = write(
                client,
                Method::POST,
                &format!("{path}/archive"),
                None,
                |_| path.clone(),
            )
            .await?;
            let resource = widget_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "archived",
                "widget",
                "Widget archived successfully",
            ))
        }
        Action::Publish => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_widget(client, &site, widget_arg()?).await?;
            let path = format!("{}/{}", widgets_path(&site), found.id);
            // The CLI's body; an `errors`/`error` key in a 2xx answer is a failure, as for the CLI.
            let sent = json!({"widget": {"publish_at": "", "unpublish_at": ""}});
            let response = client
                .send(
                    Method::POST,
                    &format!("{path}/publish"),
                    &Query::new(),
                    Some(&sent),
                )
                .await?;
            if let Some(errors) = response.get("errors").or_else(|| response.get("error")) {
                return Err(ToolError::new(
                    ErrorCode::Rejected,
                    format!("POST {path}/publish answered with errors: {errors}"),
                )
                .into());
            }
            // The publish answer is not the widget: read it back (C7).
            let object = read_widget(client, &site, found.id).await?;
            let resource = widget_resource(&object);
            let mut state = super::post("published", &object);
            if let Some(version) = object
                .get("version")
                .filter(|v| v.is_string() || v.is_u64())
            {
                state = state.live_version(version.clone());
            }
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .state(state)
                .legacy(call.mode, || {
                    legacy::write(
                        "published",
                        "Widget published successfully",
                        "widget",
                        legacy_object,
                    )
                })
                .into())
        }
    }
}

use super::Listed;

/// Arguments of `channels-widgets-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact widget name: the natural key.
    name: String,
    /// Description.
    description: Option<String>,
    /// Whether the widget is public.
    public: Option<bool>,
    /// HTML.
    html: Option<String>,
    /// CSS.
    css: Option<String>,
    /// JavaScript.
    js: Option<String>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("channels-widgets-upsert", Module::Channels, ToolClass::Mutation)
        .describe(
            "Create a custom widget, or update the one with exactly this name. data: the widget as persisted; \
state.status created or updated.",
        )
        .data(widget_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let name = args.name.trim();
    let (rows, _) = walk(
        client,
        &widgets_path(&site),
        "widget_definitions",
        &Query::new().push("query", name),
    )
    .await?;
    let existing = match pick("widget", name, &rows, &[Stage::exact("name", "name", name)]) {
        Ok(row) => Some(id_of(row, "widget")?),
        Err(e) if e.code() == ErrorCode::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let code = [
        ("description", args.description.clone().map(Value::from)),
        ("public", args.public.map(Value::from)),
        ("html", args.html.clone().map(Value::from)),
        ("css", args.css.clone().map(Value::from)),
        ("js", args.js.clone().map(Value::from)),
    ];
    let path = widgets_path(&site);
    let (object, sent, status) = match existing {
        Some(id) => {
            let sent = body(code.to_vec());
            if sent.as_object().is_some_and(|m| m.is_empty()) {
                return Err(CallError::Arguments(format!(
                    "widget '{name}' exists (id {id}): give description, public, html, css or js to update it"
                )));
            }
            let target = format!("{path}/{id}");
            let object = write(client, Method::PUT, &target, Some(&sent), |_| {
                target.clone()
            })
            .await?;
            (object, sent, "updated")
        }
        None => {
            let mut fields = vec![("name", Some(Value::from(name)))];
            fields.extend(code);
            let sent = body(fields);
            let object = write(client, Method::POST, &path, Some(&sent), |r| {
                format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            (object, sent, "created")
        }
    };
    check_persisted("widget", &object, &sent)?;
    let resource = widget_resource(&object);
    let message = if status == "created" {
        "Widget created successfully"
    } else {
        "Widget updated successfully"
    };
    Ok(written(
        call.mode, object, resource, status, "widget", message,
    ))
}

/// Arguments of `channels-widgets-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Site id, host, uuid or name of the source widget.
    site: Ident,
    /// Source widget: exact name (looked up first) or id.
    widget: Ident,
    /// Target site id, host, uuid or name (default: the same site).
    target_site: Option<Ident>,
    /// Name of the copy (default: the source's; needed within one site).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-widgets-copy", Module::Channels, ToolClass::Mutation)
        .describe(
            "Copy a custom widget (its code and settings) within a site or to another site. data: the copy as \
persisted.",
        )
        .data(widget_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let found = find_widget(client, &site, &args.widget).await?;
    let source = read_widget(client, &site, found.id).await?;
    let target = match &args.target_site {
        Some(t) => resolve_site(client, t, Need::Id).await?,
        None => site.clone(),
    };
    let text = |key: &str| source.get(key).filter(|v| !v.is_null()).cloned();
    let name = args
        .name
        .clone()
        .map(Value::from)
        .or_else(|| text("name"))
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("widget {} has no name to copy; pass name", found.id),
            )
        })?;
    // As the CLI does: create the definition, then put its code.
    let created_body = body(vec![
        ("name", Some(name)),
        ("description", text("description")),
        ("public", text("public")),
    ]);
    let path = widgets_path(&target);
    let created = client
        .send(Method::POST, &path, &Query::new(), Some(&created_body))
        .await?;
    let copy_id = id_of(&created, "widget")?;
    let code = body(vec![
        ("html", text("html")),
        ("css", text("css")),
        ("js", text("js")),
    ]);
    let target_path = format!("{path}/{copy_id}");
    let object = write(client, Method::PUT, &target_path, Some(&code), |_| {
        target_path.clone()
    })
    .await
    .map_err(|e| match e {
        CallError::Tool(e) => CallError::Tool(e.context(format!(
            "widget {copy_id} was created in site {}, but writing its code failed",
            target.id
        ))),
        other => other,
    })?;
    check_persisted("widget copy", &object, &code)?;
    check_persisted("widget copy", &object, &created_body)?;
    let resource = widget_resource(&object);
    Ok(written(
        call.mode,
        object,
        resource,
        "created",
        "widget",
        "Widget copied successfully",
    ))
}

/// Which code file an edit applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum CodeFile {
    Html,
    Css,
    Js,
}

impl CodeFile {
    fn key(self) -> &'static str {
        match self {
            CodeFile::Html => "html",
            CodeFile::Css => "css",
            CodeFile::Js => "js",
        }
    }
}

/// One literal search-and-replace in a widget's code.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Edit {
    /// html, css or js.
    file: CodeFile,
    /// Literal text to find (must occur).
    find: String,
    /// Replacement for every occurrence.
    replace: String,
}

/// Arguments of `channels-widgets-code-edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CodeEditArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Widget: exact name (looked up first) or id.
    widget: Ident,
    /// New HTML, replacing the whole file.
    html: Option<String>,
    /// New CSS, replacing the whole file.
    css: Option<String>,
    /// New JavaScript, replacing the whole file.
    js: Option<String>,
    /// Literal replacements applied to the current code, in order.
    edits: Option<Vec<Edit>>,
}

pub(crate) fn code_edit_tool() -> ToolDef {
    tool("channels-widgets-code-edit", Module::Channels, ToolClass::Mutation)
        .describe(
            "Edit a custom widget's html, css or js: whole files, or literal find/replace edits on the current code \
(a find that does not occur fails before writing). data: the widget as persisted; state.status updated or \
unchanged.",
        )
        .data(widget_schema())
        .resource()
        .state()
        .handle(code_edit)
}

async fn code_edit(call: Call, args: CodeEditArgs) -> ToolResult {
    let edits = args.edits.unwrap_or_default();
    if args.html.is_none() && args.css.is_none() && args.js.is_none() && edits.is_empty() {
        return Err(CallError::Arguments("give html, css, js or edits".into()));
    }
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let found = find_widget(client, &site, &args.widget).await?;
    let current = read_widget(client, &site, found.id).await?;
    let old = |file: CodeFile| {
        current
            .get(file.key())
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut code = [
        (
            CodeFile::Html,
            args.html.unwrap_or_else(|| old(CodeFile::Html)),
        ),
        (
            CodeFile::Css,
            args.css.unwrap_or_else(|| old(CodeFile::Css)),
        ),
        (CodeFile::Js, args.js.unwrap_or_else(|| old(CodeFile::Js))),
    ];
    for (i, edit) in edits.iter().enumerate() {
        if edit.find.is_empty() {
            return Err(ToolError::invalid_parameters(format!("edits[{i}].find is empty")).into());
        }
        let Some((_, text)) = code.iter_mut().find(|(file, _)| *file == edit.file) else {
            continue;
        };
        if !text.contains(&edit.find) {
            return Err(ToolError::invalid_parameters(format!(
                "edits[{i}]: '{}' does not occur in the widget's {}; nothing was written",
                edit.find,
                edit.file.key()
            ))
            .into());
        }
        *text = text.replace(&edit.find, &edit.replace);
    }
    let changed: Vec<(&str, Option<Value>)> = code
        .iter()
        .filter(|(file, text)| *text != old(*file))
        .map(|(file, text)| (file.key(), Some(Value::from(text.clone()))))
        .collect();
    if changed.is_empty() {
        let resource = widget_resource(&current);
        let legacy_object = current.clone();
        return Ok(Reply::new(current)
            .resource(resource)
            .state(crate::contract::PostCondition::status("unchanged"))
            .legacy(call.mode, || {
                legacy::write(
                    "unchanged",
                    "Widget code already up to date",
                    "widget",
                    legacy_object,
                )
            })
            .into());
    }
    let sent = body(changed);
    let path = format!("{}/{}", widgets_path(&site), found.id);
    let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
    check_persisted("widget code", &object, &sent)?;
    let resource = widget_resource(&object);
    Ok(written(
        call.mode,
        object,
        resource,
        "updated",
        "widget",
        "Widget code updated successfully",
    ))
}
