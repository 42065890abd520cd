//! `channels-pages-copy`: a page with its widgets, copied within a site or to another site.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::super::{Need, Site, resolve_site};
use super::Page;
use crate::config::Module;
use crate::contract::{ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::Ident;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::{Answer, Echo, Echoed, persist, reply};
use crate::tools::{Call, ToolDef, tool};

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
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Page>> {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let source = site
        .collection::<Page>()
        .fetch(client, args.page_id)
        .await?;
    let target: Site = match &args.target_site {
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
    let pages = target.collection::<Page>();
    let created = persist::create(client, &pages.path, &sent, Page::NAME).await?;
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
    let widgets_path = pages.item(format!("{copy_id}/widgets"));
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
        pages.fetch(client, copy_id).await?
    };
    persist::check_sent("page copy", &object, &sent)?;
    let resource = pages.resource(&object, None);
    let post = reply::post::<Page>("created", &object).affected(widgets.len());
    let message = "Page copied successfully";
    Ok(reply::saved_as::<Page, _>(object, resource, post, "created", message).into())
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
}
