//! Writing custom widgets: `channels-widgets-upsert` (by exact name), `-copy` (within a site
//! or to another) and `-code-edit` (whole files or literal edits of html, css and js).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Widget, find_widget};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::channels::{Site, copy_name};
use crate::tools::engine::collection::id_of;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Collection, Container, Echo, Echoed, Need, persist, reply};

/// Arguments of `channels-widgets-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact widget name: the natural key.
    name: String,
    /// Whether the widget is public (create only: Modyo's update takes html, css and js).
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
            "Create a custom widget (name and public, then its code), or update the code (html, css, js) of the one \
with exactly this name; public cannot change on update (Modyo documents only html, css, js there). data: the widget \
as persisted; state.status created or updated.",
        )
        .resource()
        .state()
        .handle(upsert)
        .writes_state(RareState::PUBLISHED)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<Widget>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let widgets = site.collection::<Widget>();
    let name = args.name.trim();
    let query = Query::new().push("query", name);
    let (rows, _) = walk(client, &widgets.path, "widget_definitions", &query).await?;
    let existing = match pick("widget", name, &rows, &[Stage::exact("name", "name", name)]) {
        Ok(row) => Some(id_of(row, "widget")?),
        Err(e) if e.code() == ErrorCode::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let code = code_body(args.html.clone(), args.css.clone(), args.js.clone());
    let (object, status) = match existing {
        Some(id) => {
            if args.public.is_some() {
                return Err(ToolError::invalid_parameters(format!(
                    "widget '{name}' exists (id {id}): Modyo's widget definition update takes html, css and js only, so public cannot change; nothing was sent"
                ))
                .into());
            }
            if persist::is_empty(&code) {
                return Err(CallError::Arguments(format!(
                    "widget '{name}' exists (id {id}): give html, css or js to update it"
                )));
            }
            let path = widgets.item(id);
            let object = persist::write(client, Method::PUT, &path, Some(&code), &path).await?;
            persist::check_sent(Widget::NAME, &object, &code)?;
            (object, "updated")
        }
        None => {
            let object = create_widget(
                client,
                &widgets,
                Value::from(name),
                args.public.map(Value::from),
                &code,
            )
            .await?;
            (object, "created")
        }
    };
    let resource = widgets.resource(&object, None);
    Ok(reply::saved::<Widget, _>(object, resource, status).into())
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
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::PUBLISHED)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Widget>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let widgets = site.collection::<Widget>();
    let (id, source) = read_widget(client, &widgets, &args.widget).await?;
    let target = Site::target(client, args.target_site.as_deref(), &site).await?;
    let text = |key: &str| source.get(key).filter(|v| !v.is_null()).cloned();
    let name = copy_name(args.name.as_deref(), &source, &format!("widget {id}"))?;
    let code = persist::body(vec![
        ("html", text("html")),
        ("css", text("css")),
        ("js", text("js")),
    ]);
    let copies = target.collection::<Widget>();
    let object = create_widget(client, &copies, Value::from(name), text("public"), &code).await?;
    let resource = copies.resource(&object, None);
    let post = reply::post::<Widget>("created", &object);
    let message = "Widget copied successfully";
    Ok(reply::saved_as::<Widget, _>(object, resource, post, "created", message).into())
}

/// The widget `input` names (looked up as [`find_widget`] does), read whole: its id and object.
async fn read_widget(
    client: &ModyoClient,
    widgets: &Collection<Widget>,
    input: &str,
) -> Result<(u64, Value), ToolError> {
    let found = find_widget(client, widgets, input).await?;
    let object = widgets.fetch(client, found.id).await?;
    Ok((found.id, object))
}

/// The code of a widget definition as Modyo's update takes it (`html`, `css`, `js`).
pub(super) fn code_body(html: Option<String>, css: Option<String>, js: Option<String>) -> Value {
    persist::body(vec![
        ("html", html.map(Value::from)),
        ("css", css.map(Value::from)),
        ("js", js.map(Value::from)),
    ])
}

/// Creates a widget definition as Modyo documents it, and as the CLI does: `POST` the
/// definition (`name`, `public`), then `PUT` its code when there is any. Returns the widget as
/// persisted, checked against both writes (C7).
pub(super) async fn create_widget(
    client: &ModyoClient,
    widgets: &Collection<Widget>,
    name: Value,
    public: Option<Value>,
    code: &Value,
) -> Result<Value, ToolError> {
    let created_body = persist::body(vec![("name", Some(name)), ("public", public)]);
    let created = persist::create(client, &widgets.path, &created_body, Widget::NAME).await?;
    let object = if persist::is_empty(code) {
        created
    } else {
        let id = id_of(&created, "widget")?;
        let path = widgets.item(id);
        let object = persist::write(client, Method::PUT, &path, Some(code), &path)
            .await
            .map_err(|e| {
                e.context(format!(
                    "widget {id} was created in {}, but writing its code failed",
                    widgets.place()
                ))
            })?;
        persist::check_sent(Widget::NAME, &object, code)?;
        object
    };
    persist::check_sent(Widget::NAME, &object, &created_body)?;
    Ok(object)
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
        .resource()
        .state()
        .handle(code_edit)
        .writes_state(RareState::PUBLISHED)
}

/// The widget's code files that change: each file given whole replaces the current one, then
/// the edits apply in order (a `find` that is empty or does not occur fails before writing).
fn changed_code(
    current: &Value,
    files: [(CodeFile, Option<String>); 3],
    edits: &[Edit],
) -> Result<Vec<(&'static str, Option<Value>)>, ToolError> {
    let old = |file: CodeFile| {
        current
            .get(file.key())
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut code = files.map(|(file, given)| (file, given.unwrap_or_else(|| old(file))));
    for (i, edit) in edits.iter().enumerate() {
        if edit.find.is_empty() {
            return Err(ToolError::invalid_parameters(format!(
                "edits[{i}].find is empty"
            )));
        }
        let Some((_, text)) = code.iter_mut().find(|(file, _)| *file == edit.file) else {
            continue;
        };
        if !text.contains(&edit.find) {
            return Err(ToolError::invalid_parameters(format!(
                "edits[{i}]: '{}' does not occur in the widget's {}; nothing was written",
                edit.find,
                edit.file.key()
            )));
        }
        *text = text.replace(&edit.find, &edit.replace);
    }
    Ok(code
        .iter()
        .filter(|(file, text)| *text != old(*file))
        .map(|(file, text)| (file.key(), Some(Value::from(text.clone()))))
        .collect())
}

async fn code_edit(call: Call, args: CodeEditArgs) -> Answer<Echo<Widget>> {
    let edits = args.edits.unwrap_or_default();
    if args.html.is_none() && args.css.is_none() && args.js.is_none() && edits.is_empty() {
        return Err(CallError::Arguments("give html, css, js or edits".into()));
    }
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let widgets = site.collection::<Widget>();
    let (id, current) = read_widget(client, &widgets, &args.widget).await?;
    let files = [
        (CodeFile::Html, args.html),
        (CodeFile::Css, args.css),
        (CodeFile::Js, args.js),
    ];
    let changed = changed_code(&current, files, &edits)?;
    if changed.is_empty() {
        let resource = widgets.resource(&current, None);
        let post = PostCondition::status("unchanged");
        let message = "Widget code already up to date";
        return Ok(
            reply::saved_as::<Widget, _>(current, resource, post, "unchanged", message).into(),
        );
    }
    let sent = persist::body(changed);
    let path = widgets.item(id);
    let object = persist::write(client, Method::PUT, &path, Some(&sent), &path).await?;
    persist::check_sent("widget code", &object, &sent)?;
    let resource = widgets.resource(&object, None);
    let post = reply::post::<Widget>("updated", &object);
    let message = "Widget code updated successfully";
    Ok(reply::saved_as::<Widget, _>(object, resource, post, "updated", message).into())
}
