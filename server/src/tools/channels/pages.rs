//! Pages: `channels-pages-manage`, `-create`, `-content` (content binding), `-widget` (the
//! widgets placed on a page) and `-copy`.
//!
//! Pages are addressed by id (`page_id`: `page` is the pagination argument). A page widget's
//! `resource` carries its `wid` as the uuid (C4).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    Need, Site, body, check_persisted, deleted, id_of, list_page, list_reply, not_found_as,
    object_reply, resolve_site, unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, Reply, Resource, ToolClass, ToolError, legacy};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// The JSON schema of a page as the API returns it (loose: echoed).
pub(crate) fn page_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("title", Str),
        ("description", Str),
        ("excerpt", Str),
        ("path", Str),
        ("full_path", Str),
        ("url", Str),
        ("type", Str),
        ("status", Str),
        ("published", Bool),
        ("parent_id", Int),
        ("position", Int),
        ("layout", Str),
        ("private", Bool),
        ("meta_tags", Any),
        ("site_id", Int),
        ("space_id", Int),
        ("content_type_uid", Str),
        ("index_template_id", Int),
        ("show_template_id", Int),
        ("filters", Obj),
        ("widgets", List),
        ("created_at", Str),
        ("updated_at", Str),
        ("published_at", Str),
    ])
}

/// The JSON schema of a widget placed on a page (loose: echoed).
fn page_widget_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("wid", Str),
        ("name", Str),
        ("title", Str),
        ("type", Str),
        ("resolve_type", Str),
        ("width", Str),
        ("css_class", Str),
        ("position", Int),
        ("zone", Str),
        ("settings", Obj),
        ("widget_definition_id", Int),
        ("page_id", Int),
        ("created_at", Str),
        ("updated_at", Str),
    ])
}

fn page_resource(object: &Value) -> Resource {
    let resource = Resource::from_object("page", object, None);
    match object
        .get("path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    {
        Some(path) => resource.path(path),
        None => resource,
    }
}

fn page_path(site: &Site, page_id: u64) -> String {
    site.at(format!("pages/{page_id}"))
}

async fn read_page(client: &ModyoClient, site: &Site, page_id: u64) -> Result<Value, ToolError> {
    client
        .get(&page_path(site, page_id), &Query::new())
        .await
        .map_err(not_found_as(|| {
            format!(
                "page {page_id} not found in site {}; call channels-pages-manage (action list) to see its pages",
                site.id
            )
        }))
}

const MANAGE: &str = "channels-pages-manage";

/// Actions of `channels-pages-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Update,
    Delete,
    Archive,
    Unpublish,
}

/// Arguments of `channels-pages-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), update, delete, archive or unpublish.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Page id (every action but list).
    page_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (update).
    name: Option<String>,
    /// Title (update).
    title: Option<String>,
    /// Description (update).
    description: Option<String>,
    /// Excerpt (update).
    excerpt: Option<String>,
    /// URL path segment (update).
    path: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = page_schema();
    data["properties"]["pages"] = schema::array(page_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(MANAGE, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, update, delete, archive or unpublish a site's pages. list: data.pages + coverage, resource \
the site; get/update/archive/unpublish: the page as persisted, state.status and published; delete (confirmDelete: \
true): data null.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["update", "delete", "archive", "unpublish"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.title.is_some(),
        args.description.is_some(),
        args.excerpt.is_some(),
        args.path.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when page fields are given (update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let page_id = || {
        args.page_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs page_id",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    match action {
        Action::List => {
            let site = resolve_site(client, &args.site, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, &site.at("pages"), "pages", &query).await?;
            Ok(list_reply(
                call.mode,
                "pages",
                listed,
                Some(site.resource()),
            ))
        }
        Action::Get => {
            let page_id = page_id()?;
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let object = read_page(client, &site, page_id).await?;
            let resource = page_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Update => {
            let page_id = page_id()?;
            if !writes {
                return Err(CallError::Arguments(
                    "update needs at least one of name, title, description, excerpt, path".into(),
                ));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let sent = body(vec![
                ("name", args.name.clone().map(Value::from)),
                ("title", args.title.clone().map(Value::from)),
                ("description", args.description.clone().map(Value::from)),
                ("excerpt", args.excerpt.clone().map(Value::from)),
                ("path", args.path.clone().map(Value::from)),
            ]);
            let path = page_path(&site, page_id);
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone())
                .await
                .map_err(|e| page_error(e, &site, page_id))?;
            check_persisted("page", &object, &sent)?;
            let resource = page_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "page",
                "Page updated successfully",
            ))
        }
        Action::Delete => {
            let page_id = page_id()?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(MANAGE, "delete"));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let object = read_page(client, &site, page_id).await?;
            client
                .send(
                    Method::DELETE,
                    &page_path(&site, page_id),
                    &Query::new(),
                    None,
                )
                .await?;
            Ok(deleted(
                call.mode,
                page_resource(&object),
                "deleted",
                "Page permanently deleted",
                "pageId",
                page_id,
            ))
        }
        Action::Archive | Action::Unpublish => {
            let page_id = page_id()?;
            let (verb, status, message) = if action == Action::Archive {
                ("archive", "archived", "Page archived successfully")
            } else {
                ("unpublish", "unpublished", "Page unpublished successfully")
            };
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let path = page_path(&site, page_id);
            let object = write(
                client,
                Method::POST,
                &format!("{path}/{verb}"),
                None,
                |_| path.clone(),
            )
            .await
            .map_err(|e| page_error(e, &site, page_id))?;
            let resource = page_resource(&object);
            Ok(written(
                call.mode, object, resource, status, "page", message,
            ))
        }
    }
}

fn page_error(error: CallError, site: &Site, page_id: u64) -> CallError {
    match error {
        CallError::Tool(e) if e.code() == ErrorCode::NotFound => CallError::Tool(e.with_message(format!(
            "page {page_id} not found in site {}; call channels-pages-manage (action list) to see its pages",
            site.id
        ))),
        other => other,
    }
}

/// Page kinds.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum PageType {
    WidgetPage,
    ContentPage,
}

/// Arguments of `channels-pages-create`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CreateArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Name.
    name: String,
    /// URL path segment.
    path: String,
    /// Title.
    title: Option<String>,
    /// Description.
    description: Option<String>,
    /// widget_page (default) or content_page.
    #[serde(rename = "type")]
    page_type: Option<PageType>,
    /// Parent page id.
    parent_id: Option<u64>,
    /// Layout name.
    layout: Option<String>,
}

pub(crate) fn create_tool() -> ToolDef {
    tool(
        "channels-pages-create",
        Module::Channels,
        ToolClass::Mutation,
    )
    .describe("Create a page in a site. data: the page as persisted; state.status created.")
    .data(page_schema())
    .resource()
    .state()
    .handle(create)
}

async fn create(call: Call, args: CreateArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let page_type = args.page_type.map(|t| match t {
        PageType::WidgetPage => "widget_page",
        PageType::ContentPage => "content_page",
    });
    let sent = body(vec![
        ("name", Some(Value::from(args.name.clone()))),
        ("path", Some(Value::from(args.path.clone()))),
        ("title", args.title.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("type", page_type.map(Value::from)),
        ("parent_id", args.parent_id.map(Value::from)),
        ("layout", args.layout.clone().map(Value::from)),
    ]);
    let pages = site.at("pages");
    let object = write(client, Method::POST, &pages, Some(&sent), |r| {
        format!("{pages}/{}", r.get("id").cloned().unwrap_or_default())
    })
    .await?;
    check_persisted("page", &object, &sent)?;
    let resource = page_resource(&object);
    Ok(written(
        call.mode,
        object,
        resource,
        "created",
        "page",
        "Page created successfully",
    ))
}

/// Arguments of `channels-pages-content`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ContentArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Content page id.
    page_id: u64,
    /// Content space id.
    space_id: u64,
    /// Content type uid.
    content_type: String,
    /// Template id for the index view.
    index_template_id: Option<u64>,
    /// Template id for the entry view.
    show_template_id: Option<u64>,
    /// Entry filters (category, tags, sort), sent as given.
    filters: Option<Map<String, Value>>,
}

pub(crate) fn content_tool() -> ToolDef {
    tool("channels-pages-content", Module::Channels, ToolClass::Mutation)
        .describe(
            "Bind a content page to a space and content type, with its index/show templates and filters. data: \
the page as persisted (a binding persisted differently fails with persisted_mismatch).",
        )
        .data(page_schema())
        .resource()
        .state()
        .handle(content)
}

async fn content(call: Call, args: ContentArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let sent = body(vec![
        ("space_id", Some(Value::from(args.space_id))),
        (
            "content_type_uid",
            Some(Value::from(args.content_type.clone())),
        ),
        ("index_template_id", args.index_template_id.map(Value::from)),
        ("show_template_id", args.show_template_id.map(Value::from)),
        ("filters", args.filters.clone().map(Value::Object)),
    ]);
    let path = page_path(&site, args.page_id);
    let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone())
        .await
        .map_err(|e| page_error(e, &site, args.page_id))?;
    check_persisted("page content binding", &object, &sent)?;
    let resource = page_resource(&object);
    Ok(written(
        call.mode,
        object,
        resource,
        "updated",
        "page",
        "Page content updated successfully",
    ))
}

const WIDGET: &str = "channels-pages-widget";

/// Actions of `channels-pages-widget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum WidgetAction {
    Add,
    Update,
    Remove,
    Move,
}

/// Arguments of `channels-pages-widget`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WidgetArgs {
    /// add, update, remove or move.
    action: WidgetAction,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Widget page id.
    page_id: u64,
    /// Page widget id (update, remove, move).
    widget_id: Option<u64>,
    /// Custom widget definition id (add).
    widget_definition_id: Option<u64>,
    /// Built-in widget type, such as rich-text (add).
    #[serde(rename = "type")]
    widget_type: Option<String>,
    /// Title (add, update).
    title: Option<String>,
    /// Widget settings (add, update).
    settings: Option<Map<String, Value>>,
    /// Zero-based position (add, move).
    position: Option<u32>,
    /// Layout zone (add, move).
    zone: Option<String>,
    /// Must be true for remove.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn widget_tool() -> ToolDef {
    tool(WIDGET, Module::Channels, ToolClass::Mutation)
        .describe(
            "Add, update, remove or move a widget on a widget page. data: the page widget as persisted \
(remove with confirmDelete: true: data null); resource.uuid is the widget's wid.",
        )
        .data(page_widget_schema())
        .resource()
        .state()
        .control()
        .handle(page_widget)
}

fn page_widget_resource(object: &Value) -> Resource {
    let resource = Resource::from_object("page_widget", object, None);
    match object
        .get("wid")
        .and_then(Value::as_str)
        .filter(|w| !w.is_empty())
    {
        Some(wid) => resource.uuid(wid),
        None => resource,
    }
}

/// The widget `widget_id` among the page's widgets.
fn widget_on_page(page: &Value, widget_id: u64) -> Option<&Value> {
    page.get("widgets")?
        .as_array()?
        .iter()
        .find(|w| w.get("id").and_then(Value::as_u64) == Some(widget_id))
}

async fn page_widget(call: Call, args: WidgetArgs) -> ToolResult {
    let client = call.client()?;
    let widget_id = || {
        args.widget_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs widget_id (the page widget's id)",
                format!("{:?}", args.action).to_lowercase()
            ))
        })
    };
    let (sent, status, message) = match args.action {
        WidgetAction::Add => {
            if args.widget_definition_id.is_none() && args.widget_type.is_none() {
                return Err(CallError::Arguments(
                    "add needs widget_definition_id (a custom widget) or type (a built-in widget)"
                        .into(),
                ));
            }
            let sent = body(vec![
                (
                    "widget_definition_id",
                    args.widget_definition_id.map(Value::from),
                ),
                ("type", args.widget_type.clone().map(Value::from)),
                ("title", args.title.clone().map(Value::from)),
                ("settings", args.settings.clone().map(Value::Object)),
                ("position", args.position.map(Value::from)),
                ("zone", args.zone.clone().map(Value::from)),
            ]);
            (sent, "created", "Widget added to page successfully")
        }
        WidgetAction::Update => {
            widget_id()?;
            if args.title.is_none() && args.settings.is_none() {
                return Err(CallError::Arguments(
                    "update needs title or settings".into(),
                ));
            }
            let sent = body(vec![
                ("title", args.title.clone().map(Value::from)),
                ("settings", args.settings.clone().map(Value::Object)),
            ]);
            (sent, "updated", "Page widget updated successfully")
        }
        WidgetAction::Move => {
            widget_id()?;
            if args.position.is_none() && args.zone.is_none() {
                return Err(CallError::Arguments("move needs position or zone".into()));
            }
            let sent = body(vec![
                ("position", args.position.map(Value::from)),
                ("zone", args.zone.clone().map(Value::from)),
            ]);
            (sent, "moved", "Page widget moved successfully")
        }
        WidgetAction::Remove => {
            let widget_id = widget_id()?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(WIDGET, "remove"));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let page = read_page(client, &site, args.page_id).await?;
            let Some(widget) = widget_on_page(&page, widget_id) else {
                return Err(ToolError::not_found(format!(
                    "page {} has no widget {widget_id}; call channels-pages-manage (action get) to see its widgets",
                    args.page_id
                ))
                .into());
            };
            let resource = page_widget_resource(widget);
            let path = page_path(&site, args.page_id);
            client
                .send(
                    Method::DELETE,
                    &format!("{path}/widgets/{widget_id}"),
                    &Query::new(),
                    None,
                )
                .await?;
            return Ok(deleted(
                call.mode,
                resource,
                "removed",
                "Widget removed from page",
                "widgetId",
                widget_id,
            ));
        }
    };
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let path = page_path(&site, args.page_id);
    let (method, target) = match args.widget_id {
        Some(id) if args.action != WidgetAction::Add => {
            (Method::PUT, format!("{path}/widgets/{id}"))
        }
        _ => (Method::POST, format!("{path}/widgets")),
    };
    let response = client
        .send(method, &target, &Query::new(), Some(&sent))
        .await
        .map_err(|e| CallError::from(ToolError::from(e)))
        .map_err(|e| page_error(e, &site, args.page_id))?;
    let object = if response.is_object() {
        response
    } else {
        // No body: the page itself says what was persisted.
        let page = read_page(client, &site, args.page_id).await?;
        match args.widget_id.and_then(|id| widget_on_page(&page, id)) {
            Some(widget) => widget.clone(),
            None => {
                return Err(ToolError::new(
                    ErrorCode::InvalidUpstreamResponse,
                    format!(
                        "{target} answered without a body and the page does not show the widget; read the page to check"
                    ),
                )
                .into());
            }
        }
    };
    check_persisted("page widget", &object, &sent)?;
    let resource = page_widget_resource(&object);
    Ok(written(
        call.mode, object, resource, status, "widget", message,
    ))
}

/// Arguments of `channels-pages-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Site id, host, uuid or name of the source page.
    site: Ident,
    /// Source page id.
    page_id: u64,
    /// Target site id, host, uuid or name (default: the same site).
    target_site: Option<Ident>,
    /// Name of the copy (default: the source's).
    name: Option<String>,
    /// Path of the copy (default: the source's; needed within one site).
    path: Option<String>,
}

/// Page attributes a copy carries over.
const COPIED: [&str; 13] = [
    "name",
    "title",
    "description",
    "excerpt",
    "path",
    "type",
    "layout",
    "private",
    "meta_tags",
    "space_id",
    "content_type_uid",
    "index_template_id",
    "show_template_id",
];

/// Page widget attributes a copy carries over.
const WIDGET_COPIED: [&str; 8] = [
    "widget_definition_id",
    "type",
    "title",
    "settings",
    "position",
    "zone",
    "width",
    "css_class",
];

fn pick_keys(source: &Value, keys: &[&str]) -> Map<String, Value> {
    keys.iter()
        .filter_map(|k| {
            source
                .get(*k)
                .filter(|v| !v.is_null())
                .map(|v| ((*k).to_owned(), v.clone()))
        })
        .collect()
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-pages-copy", Module::Channels, ToolClass::Mutation)
        .describe(
            "Copy a page, with its widgets, within a site or to another site. data: the copy as persisted; \
state.affected: widgets copied.",
        )
        .data(page_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let source = read_page(client, &site, args.page_id).await?;
    let target = match &args.target_site {
        Some(t) => resolve_site(client, t, Need::Id).await?,
        None => site.clone(),
    };
    let mut sent = pick_keys(&source, &COPIED);
    if target.id == site.id
        && let Some(parent) = source.get("parent_id").filter(|v| !v.is_null())
    {
        sent.insert("parent_id".into(), parent.clone());
    }
    if let Some(name) = &args.name {
        sent.insert("name".into(), Value::from(name.clone()));
    }
    if let Some(path) = &args.path {
        sent.insert("path".into(), Value::from(path.clone()));
    }
    let sent = Value::Object(sent);
    let pages = target.at("pages");
    let created = write(client, Method::POST, &pages, Some(&sent), |r| {
        format!("{pages}/{}", r.get("id").cloned().unwrap_or_default())
    })
    .await?;
    let copy_id = id_of(&created, "page")?;
    let widgets: Vec<Value> = source
        .get("widgets")
        .and_then(Value::as_array)
        .map(|ws| {
            ws.iter()
                .map(|w| Value::Object(pick_keys(w, &WIDGET_COPIED)))
                .collect()
        })
        .unwrap_or_default();
    let widgets_path = format!("{pages}/{copy_id}/widgets");
    for (i, widget) in widgets.iter().enumerate() {
        client
            .send(Method::POST, &widgets_path, &Query::new(), Some(widget))
            .await
            .map_err(|e| {
                ToolError::from(e).context(format!(
                    "page {copy_id} was created in site {}, but copying widget {} of {} failed",
                    target.id,
                    i + 1,
                    widgets.len()
                ))
            })?;
    }
    // With widgets added, the page as persisted is a re-read.
    let object = if widgets.is_empty() {
        created
    } else {
        read_page(client, &target, copy_id).await?
    };
    check_persisted("page copy", &object, &sent)?;
    let resource = page_resource(&object);
    let state = super::post("created", &object).affected(widgets.len());
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(state)
        .legacy(call.mode, || {
            legacy::write("created", "Page copied successfully", "page", legacy_object)
        })
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn copies_keep_only_copyable_non_null_keys() {
        let source = json!({"id": 1, "uuid": "u", "name": "A", "path": "a", "title": null, "status": "published"});
        assert_eq!(
            Value::Object(pick_keys(&source, &COPIED)),
            json!({"name": "A", "path": "a"})
        );
    }

    #[test]
    fn a_page_widget_resource_carries_its_wid_as_uuid() {
        let r = page_widget_resource(&json!({"id": 7, "wid": "w-1", "name": "Hero"}));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"type": "page_widget", "uuid": "w-1", "id": 7, "name": "Hero"})
        );
    }
}
