//! `channels-pages-copy`: a page with its widgets, copied within a site or to another site.
//!
//! The copy is created with the documented create body (`name`, `path`, `grid_type`, and
//! `parent_uuid` within one site), then, when the source has widgets, updated with them as
//! new items of its `widgets[]` (the documented way to place widgets on a layout page).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::widget::{WidgetKeys, widget_input, widgets_of};
use super::{Page, put_page, update_body};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::modyo::ModyoClient;
use crate::tools::args::Ident;
use crate::tools::channels::Site;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Answer, Collection, Container, Echo, Echoed, Need, persist, reply, view,
};

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

/// Page attributes a copy carries over (the documented create body; `parent_uuid` only
/// within the source's site).
const COPIED: [&str; 3] = ["name", "path", "grid_type"];

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
            "Copy a page (name, path, grid), with its widgets, within a site or to another site. A page holding a custom \
widget is not copied (invalid_parameters: Modyo documents no way to place one). data: the copy as persisted; \
state.affected: widgets copied.",
        )
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::AFFECTED.union(RareState::PUBLISHED))
        .writes_resource_path()
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Page>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let source = site
        .collection::<Page>()
        .fetch(client, args.page_id)
        .await?;
    refuse_custom_widgets(&source, args.page_id)?;
    let target = Site::target(client, args.target_site.as_deref(), &site).await?;
    let sent = copy_body(&source, &args, target.id == site.id);
    let pages = target.collection::<Page>();
    let created = persist::create(client, &pages.path, &sent, Page::NAME).await?;
    let widgets: Vec<Value> = widgets_of(&source)
        .iter()
        .map(|w| widget_input(w, false))
        .collect();
    let object = if widgets.is_empty() {
        created
    } else {
        place_widgets(client, &target, &pages, created, &widgets).await?
    };
    persist::check_sent("page copy", &object, &sent)?;
    let resource = pages.resource(&object, None);
    let post = reply::post::<Page>("created", &object).affected(widgets.len());
    let message = "Page copied successfully";
    Ok(reply::saved_as::<Page, _>(object, resource, post, "created", message).into())
}

/// The create body of the copy: the source's copied attributes, its `parent_uuid` when the
/// copy stays in the source's site, and the name and path given.
fn copy_body(source: &Value, args: &CopyArgs, same_site: bool) -> Value {
    let mut sent = pick_keys(source, &COPIED);
    if same_site && let Some(parent) = source.get("parent_uuid").filter(|v| !v.is_null()) {
        sent.insert("parent_uuid".into(), parent.clone());
    }
    if let Some(name) = &args.name {
        sent.insert("name".into(), Value::from(name.clone()));
    }
    if let Some(path) = &args.path {
        sent.insert("path".into(), Value::from(path.clone()));
    }
    Value::Object(sent)
}

/// Places the source's widgets on the created copy (one update of its `widgets[]`) and checks
/// that the API shows them all; answers the copy as persisted.
async fn place_widgets(
    client: &ModyoClient,
    target: &Site,
    pages: &Collection<Page>,
    created: Value,
    widgets: &[Value],
) -> Result<Value, ToolError> {
    let copy_id = id_of(&created, "page")?;
    let mut body = Value::Object(update_body(&created));
    persist::extend(
        &mut body,
        serde_json::json!({"widgets": Value::Array(widgets.to_vec())}),
    );
    let persisted = put_page(client, pages, copy_id, &body).await.map_err(|e| {
        e.context(format!(
            "page {copy_id} was created in site {}, but placing its {} widgets failed",
            target.id,
            widgets.len()
        ))
    })?;
    let placed = widgets_of(&persisted).len();
    if placed < widgets.len() {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "page {copy_id} was created in site {} and sent {} widgets, but the API shows {placed}; read the copy before retrying",
                target.id,
                widgets.len()
            ),
        ));
    }
    Ok(persisted)
}

/// A custom widget (one with a `definition_uuid`) cannot be placed through the documented
/// widget input: a copy would lose it, so none is made.
fn refuse_custom_widgets(source: &Value, page_id: u64) -> Result<(), ToolError> {
    let custom: Vec<Value> = widgets_of(source)
        .iter()
        .map(view::<WidgetKeys>)
        .filter(|w| w.definition_uuid.is_some())
        .filter_map(|w| w.id)
        .collect();
    if custom.is_empty() {
        return Ok(());
    }
    Err(ToolError::invalid_parameters(format!(
        "page {page_id} was not copied: it holds {} custom widget(s), and the documented widgets of a layout page \
take no widget definition, so the copy would lose them; copy the page in the Modyo UI",
        custom.len()
    ))
    .detail("custom_widgets", Value::Array(custom)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn copies_keep_only_copyable_non_null_keys() {
        let source = json!({"id": 1, "uuid": "u", "name": "A", "path": "a", "grid_type": null, "published": true});
        assert_eq!(
            Value::Object(pick_keys(&source, &COPIED)),
            json!({"name": "A", "path": "a"})
        );
    }
}
