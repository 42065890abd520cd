//! `channels-pages-widget`: the widgets placed on a widget page (add, update, remove, move).
//! A page widget's `resource` carries its `wid` as the uuid (C4).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::super::{Need, resolve_site};
use super::Page;
use crate::config::Module;
use crate::contract::{Control, ErrorCode, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::Ident;
use crate::tools::engine::{
    Answer, Collection, Echo, Echoed, Member, Rules, echoed, persist, reply, required,
};
use crate::tools::{Call, CallError, ToolDef, tool};

echoed! {
    /// A widget placed on a page, as the API returns it.
    PageWidget = "page widget" {
        id: i64, wid: String, name: String, title: String, r#type: String,
        resolve_type: String, width: String, css_class: String, position: i64, zone: String,
        settings: Object, widget_definition_id: i64, page_id: i64, created_at: String,
        updated_at: String
    }
}

impl Member for PageWidget {
    const RULES: Rules = Rules::new("page_widget", "widgets")
        .echo(None, Some("wid"))
        .legacy("widget", "Page widget")
        .published();
}

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
    tool(
        "channels-pages-widget",
        Module::Channels,
        ToolClass::Mutation,
    )
    .describe(
        "Add, update, remove or move a widget on a widget page. data: the page widget as persisted \
(remove with confirmDelete: true: data null); resource.uuid is the widget's wid.",
    )
    .resource()
    .state()
    .control()
    .handle(page_widget)
}

/// The widget `widget_id` among the page's widgets.
fn widget_on_page(page: &Value, widget_id: u64) -> Option<&Value> {
    page.get("widgets")?
        .as_array()?
        .iter()
        .find(|w| w.get("id").and_then(Value::as_u64) == Some(widget_id))
}

/// What a write sends, the status it leaves the widget in, and the old message.
fn change(args: &WidgetArgs) -> Result<(Value, &'static str, &'static str), CallError> {
    let title = || args.title.clone().map(Value::from);
    let settings = || args.settings.clone().map(Value::Object);
    let position = || args.position.map(Value::from);
    let zone = || args.zone.clone().map(Value::from);
    match args.action {
        WidgetAction::Add => {
            if args.widget_definition_id.is_none() && args.widget_type.is_none() {
                return Err(CallError::Arguments(
                    "add needs widget_definition_id (a custom widget) or type (a built-in widget)"
                        .into(),
                ));
            }
            let sent = persist::body(vec![
                (
                    "widget_definition_id",
                    args.widget_definition_id.map(Value::from),
                ),
                ("type", args.widget_type.clone().map(Value::from)),
                ("title", title()),
                ("settings", settings()),
                ("position", position()),
                ("zone", zone()),
            ]);
            Ok((sent, "created", "Widget added to page successfully"))
        }
        WidgetAction::Update => {
            if args.title.is_none() && args.settings.is_none() {
                return Err(CallError::Arguments(
                    "update needs title or settings".into(),
                ));
            }
            let sent = persist::body(vec![("title", title()), ("settings", settings())]);
            Ok((sent, "updated", "Page widget updated successfully"))
        }
        WidgetAction::Move | WidgetAction::Remove => {
            if args.position.is_none() && args.zone.is_none() {
                return Err(CallError::Arguments("move needs position or zone".into()));
            }
            let sent = persist::body(vec![("position", position()), ("zone", zone())]);
            Ok((sent, "moved", "Page widget moved successfully"))
        }
    }
}

async fn page_widget(call: Call, args: WidgetArgs) -> Answer<Option<Echo<PageWidget>>> {
    let verb = format!("{:?}", args.action).to_lowercase();
    if args.action != WidgetAction::Add {
        required(args.widget_id, &verb, "widget_id (the page widget's id)")?;
    }
    if args.action == WidgetAction::Remove {
        if args.confirm_delete != Some(true) {
            return Ok(Control::cancelled_unconfirmed("channels-pages-widget", "remove").into());
        }
        return remove(&call, &args).await;
    }
    let (sent, status, message) = change(&args)?;
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let widgets: Collection<PageWidget> =
        Collection::at(pages.item(format!("{}/widgets", args.page_id)));
    let (method, target) = match args.widget_id {
        Some(id) if args.action != WidgetAction::Add => (Method::PUT, widgets.item(id)),
        _ => (Method::POST, widgets.path.clone()),
    };
    let response = client
        .send(method, &target, &Query::new(), Some(&sent))
        .await
        .map_err(|e| pages.missing(args.page_id)(e.into()))?;
    let object = if response.is_object() {
        response
    } else {
        // No body: the page itself says what was persisted.
        let page = pages.fetch(client, args.page_id).await?;
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
    persist::check_sent(PageWidget::NAME, &object, &sent)?;
    let resource = widgets.resource(&object, None);
    let post = reply::post::<PageWidget>(status, &object);
    Ok(reply::saved_as::<PageWidget, _>(object, resource, post, status, message).into())
}

async fn remove(call: &Call, args: &WidgetArgs) -> Answer<Option<Echo<PageWidget>>> {
    let widget_id = args.widget_id.unwrap_or_default();
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let page = pages.fetch(client, args.page_id).await?;
    let Some(widget) = widget_on_page(&page, widget_id) else {
        return Err(ToolError::not_found(format!(
            "page {} has no widget {widget_id}; call channels-pages-manage (action get) to see its widgets",
            args.page_id
        ))
        .into());
    };
    let widgets: Collection<PageWidget> =
        Collection::at(pages.item(format!("{}/widgets", args.page_id)));
    let resource = widgets.resource(widget, None);
    client
        .send(
            Method::DELETE,
            &widgets.item(widget_id),
            &Query::new(),
            None,
        )
        .await?;
    let message = "Widget removed from page";
    Ok(reply::gone::<PageWidget, _>(resource, widget_id, "removed", message).into())
}
