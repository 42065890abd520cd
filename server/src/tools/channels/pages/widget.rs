//! `channels-pages-widget`: the widgets placed on a page (add, update, remove, move).
//!
//! Modyo documents a page's widgets as the layout page's `widgets[]`, sent whole on
//! `PUT /sites/{site_id}/layout_pages/{id}` (each item: `id` for a widget already on the page,
//! `type`, `title`, `options`, `position`, `column`, `use_default_title`), not as a resource of
//! their own. So every action reads the page, edits that array and sends it back with the
//! page's required keys; the page as persisted says what happened. The documented widget
//! input has no key for a custom widget definition: adding one answers an error.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Page, put_page, update_body};
use crate::config::Module;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::tools::args::Ident;
use crate::tools::channels::Site;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Container, Echo, Echoed, Member, Need, Rules, Verb, command,
    echoed, lenient, persist, reply, required, view,
};

echoed! {
    /// A widget placed on a page, as the API returns it within the page.
    PageWidget = "page widget" {
        id: i64, uuid: String, definition_uuid: String
    }
}

impl Member for PageWidget {
    const RULES: Rules = Rules::new("page_widget", "widgets").legacy("widget", "Page widget");
}

command! {
    /// What `channels-pages-widget` can be asked. An add's `type` is checked with its
    /// `widget_definition_id` (which is refused first), so it is not a field here.
    enum WidgetCommand for WidgetArgs {
        Add => Verb::write("add"),
        Update { widget_id as "widget_id (the page widget's id)": u64 } => Verb::write("update"),
        Remove { widget_id as "widget_id (the page widget's id)": u64 } => Verb::write("remove").confirmed(),
        Move { widget_id as "widget_id (the page widget's id)": u64 } => Verb::write("move"),
    }
}

const PAGE_WIDGET: &str = "channels-pages-widget";

/// Arguments of `channels-pages-widget`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WidgetArgs {
    /// add, update, remove or move.
    action: Action,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Page id.
    page_id: u64,
    /// Page widget id (update, remove, move).
    widget_id: Option<u64>,
    /// Custom widget definition id (add): not placeable through the documented API, answers an
    /// error.
    widget_definition_id: Option<u64>,
    /// Widget type, such as rich-text (add).
    #[serde(rename = "type")]
    widget_type: Option<String>,
    /// Title (add, update).
    title: Option<String>,
    /// Widget options (add, update).
    settings: Option<Map<String, Value>>,
    /// Position in its column (add, move).
    position: Option<u32>,
    /// Grid column (add, move).
    column: Option<u32>,
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
        "Add, update, remove or move a widget on a page, through the page's widgets (read, edited, sent back whole). \
data: the page widget as persisted (remove with confirmDelete: true: data null). settings are sent as the widget's \
options. A custom widget definition (widget_definition_id) cannot be placed: Modyo documents no key for it.",
    )
    .resource()
    .state()
    .control()
    .handle(page_widget)
    .offers::<WidgetCommand>()
}

/// The keys read of a widget on a page.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct WidgetKeys {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(super) definition_uuid: Option<String>,
}

/// The numeric id of a widget on a page.
fn widget_id(widget: &Value) -> Option<u64> {
    view::<WidgetKeys>(widget)
        .id
        .as_ref()
        .and_then(Value::as_u64)
}

/// The widget `widget_id` among the page's widgets.
fn widget_on_page(page: &Value, widget_id: u64) -> Option<&Value> {
    widgets_of(page)
        .iter()
        .find(|w| self::widget_id(w) == Some(widget_id))
}

/// The widgets of a page, none when it has no `widgets` list.
pub(super) fn widgets_of(page: &Value) -> &[Value] {
    page.get("widgets")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// An integer the API may send as a number or as digits (the specification types a read
/// widget's `position` and `column` as strings, an update's as integers).
fn integer(value: &Value) -> Option<Value> {
    match value {
        Value::Number(n) if n.is_u64() || n.is_i64() => Some(value.clone()),
        Value::String(s) => s.trim().parse::<i64>().ok().map(Value::from),
        _ => None,
    }
}

/// A boolean the API may send as `true` or `"true"`.
fn boolean(value: &Value) -> Option<Value> {
    match value {
        Value::Bool(_) => Some(value.clone()),
        Value::String(s) if s == "true" || s == "false" => Some(Value::Bool(s == "true")),
        _ => None,
    }
}

/// Options the API may send as an object or as its JSON text.
fn options(value: &Value) -> Option<Value> {
    match value {
        Value::Object(_) => Some(value.clone()),
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object),
        _ => None,
    }
}

/// The documented input of a widget the page holds (`keep_id`: it stays the same widget):
/// the keys of `WidgetInput` that the read widget carries in a form the update takes.
pub(crate) fn widget_input(widget: &Value, keep_id: bool) -> Value {
    let mut input = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            input.insert(key.to_owned(), value);
        }
    };
    let get = |key: &str| widget.get(key).filter(|v| !v.is_null());
    if keep_id {
        put("id", get("id").and_then(integer));
    }
    put("type", get("type").filter(|v| v.is_string()).cloned());
    put("title", get("title").filter(|v| v.is_string()).cloned());
    put("position", get("position").and_then(integer));
    put("column", get("column").and_then(integer));
    put("options", get("options").and_then(options));
    put(
        "use_default_title",
        get("use_default_title").and_then(boolean),
    );
    Value::Object(input)
}

/// The page's widgets with the change of `args` made, and the fields of the changed widget
/// that the persisted page must show (none for a removal).
fn edited(
    args: &WidgetArgs,
    command: &WidgetCommand,
    page: &Value,
) -> Result<(Vec<Value>, Value), CallError> {
    let mut widgets: Vec<Value> = widgets_of(page)
        .iter()
        .map(|w| widget_input(w, true))
        .collect();
    let settings = || args.settings.clone().map(Value::Object);
    let title = || args.title.clone().map(Value::from);
    let (WidgetCommand::Update { widget_id }
    | WidgetCommand::Remove { widget_id }
    | WidgetCommand::Move { widget_id }) = command
    else {
        let change = persist::body(vec![
            ("type", args.widget_type.clone().map(Value::from)),
            ("title", title()),
            ("options", settings()),
            ("position", args.position.map(Value::from)),
            ("column", args.column.map(Value::from)),
        ]);
        widgets.push(change.clone());
        return Ok((widgets, change));
    };
    let widget_id = *widget_id;
    let Some(index) = widgets
        .iter()
        .position(|w| self::widget_id(w) == Some(widget_id))
    else {
        return Err(ToolError::not_found(format!(
            "page {} has no widget {widget_id}; call channels-pages-manage (action get) to see its widgets",
            args.page_id
        ))
        .into());
    };
    let change = match command {
        WidgetCommand::Update { .. } => {
            persist::body(vec![("title", title()), ("options", settings())])
        }
        WidgetCommand::Move { .. } => persist::body(vec![
            ("position", args.position.map(Value::from)),
            ("column", args.column.map(Value::from)),
        ]),
        WidgetCommand::Remove { .. } | WidgetCommand::Add => {
            widgets.remove(index);
            return Ok((widgets, Value::Null));
        }
    };
    persist::extend(&mut widgets[index], change.clone());
    Ok((widgets, change))
}

/// What an action needs before anything is read, and the status and old message it answers.
fn check(
    args: &WidgetArgs,
    command: &WidgetCommand,
) -> Result<(&'static str, &'static str), CallError> {
    match command {
        WidgetCommand::Add => {
            if let Some(definition) = args.widget_definition_id {
                return Err(ToolError::invalid_parameters(format!(
                    "widget definition {definition} was not placed: the documented widgets of a layout page (PUT \
/sites/{{site_id}}/layout_pages/{{id}}) take type, title, options, position, column and use_default_title, no widget \
definition; place a custom widget in the Modyo UI, or add a widget by its type"
                ))
                .into());
            }
            required(args.widget_type.as_ref(), "add", "type (the widget's type)")?;
            Ok(("created", "Widget added to page successfully"))
        }
        WidgetCommand::Update { .. } => {
            if args.title.is_none() && args.settings.is_none() {
                return Err(CallError::Arguments(
                    "update needs title or settings".into(),
                ));
            }
            Ok(("updated", "Page widget updated successfully"))
        }
        WidgetCommand::Move { .. } => {
            if args.position.is_none() && args.column.is_none() {
                return Err(CallError::Arguments("move needs position or column".into()));
            }
            Ok(("moved", "Page widget moved successfully"))
        }
        WidgetCommand::Remove { .. } => Ok(("removed", "Widget removed from page")),
    }
}

async fn page_widget(call: Call, args: WidgetArgs) -> Answer<Option<Echo<PageWidget>>> {
    let word = args.action.as_str();
    let command = command::parse::<WidgetCommand>(PAGE_WIDGET, word, &args)?;
    if let Some(control) =
        command::unconfirmed::<WidgetCommand, _>(PAGE_WIDGET, word, args.confirm_delete)
    {
        return control;
    }
    let (status, message) = check(&args, &command)?;
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let page = pages.fetch(client, args.page_id).await?;
    let (widgets, change) = edited(&args, &command, &page)?;
    let mut body = Value::Object(update_body(&page));
    persist::extend(
        &mut body,
        serde_json::json!({"widgets": Value::Array(widgets)}),
    );
    let widgets_at: Collection<PageWidget> = Collection::at(pages.item(args.page_id));
    if let WidgetCommand::Remove { widget_id } = command {
        let resource = widget_on_page(&page, widget_id)
            .map(|w| widgets_at.resource(w, Some(widget_id)))
            .unwrap_or_else(|| widgets_at.resource(&Value::Null, Some(widget_id)));
        let persisted = put_page(client, &pages, args.page_id, &body).await?;
        if widget_on_page(&persisted, widget_id).is_some() {
            return Err(ToolError::new(
                ErrorCode::PersistedMismatch,
                format!(
                    "page {} was updated without widget {widget_id}, but the API still shows it; read the page again before retrying",
                    args.page_id
                ),
            )
            .into());
        }
        return Ok(reply::gone::<PageWidget, _>(resource, widget_id, status, message).into());
    }
    let persisted = put_page(client, &pages, args.page_id, &body).await?;
    let object = changed_widget(&args, &command, &page, &persisted)?;
    check_widget(&object, &change)?;
    let resource = widgets_at.resource(&object, None);
    let post = reply::post::<PageWidget>(status, &object);
    Ok(reply::saved_as::<PageWidget, _>(object, resource, post, status, message).into())
}

/// The widget the action changed, as the persisted page shows it: the one named by
/// `widget_id`, or for an add the one the page did not hold before.
fn changed_widget(
    args: &WidgetArgs,
    command: &WidgetCommand,
    page: &Value,
    persisted: &Value,
) -> Result<Value, ToolError> {
    let object = match command {
        WidgetCommand::Update { widget_id }
        | WidgetCommand::Move { widget_id }
        | WidgetCommand::Remove { widget_id } => widget_on_page(persisted, *widget_id).cloned(),
        WidgetCommand::Add => {
            let before: Vec<Option<u64>> = widgets_of(page).iter().map(widget_id).collect();
            widgets_of(persisted)
                .iter()
                .find(|w| !before.contains(&widget_id(w)))
                .cloned()
        }
    };
    object.ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!(
                "page {} was updated, but the page the API answered does not show the widget; read the page to check",
                args.page_id
            ),
        )
    })
}

/// C7 for a widget: the persisted widget holds what was sent (integers the API answers as
/// digits compare as integers).
fn check_widget(object: &Value, sent: &Value) -> Result<(), ToolError> {
    let mut normalized = object.clone();
    if let Value::Object(map) = &mut normalized {
        for key in ["position", "column"] {
            if let Some(n) = map.get(key).and_then(integer) {
                map.insert(key.to_owned(), n);
            }
        }
    }
    persist::check_sent(PageWidget::NAME, &normalized, sent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_read_widget_becomes_the_documented_input() {
        let read = json!({"id": 9, "uuid": "u", "type": "richtext", "title": "T", "position": "2",
            "column": "1", "options": "{\"a\":1}", "use_default_title": "false", "label": "x"});
        assert_eq!(
            widget_input(&read, true),
            json!({"id": 9, "type": "richtext", "title": "T", "position": 2, "column": 1,
                "options": {"a": 1}, "use_default_title": false})
        );
        assert_eq!(widget_input(&read, false).get("id"), None);
    }
}
