//! Pages: `channels-pages-manage`, `-create` and `-content` (content binding) here; `-widget`
//! (the widgets placed on a page) in [`widget`]; `-copy` in [`copy`].
//!
//! Pages are addressed by id (`page_id`: `page` is the pagination argument).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Need, in_site, resolve_site};
use crate::config::Module;
use crate::contract::ToolClass;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{
    Action, Answer, Echo, Echoed, Member, Rules, echoed, manage, persist, reply,
};
use crate::tools::{Call, ToolDef, tool};

mod copy;
mod widget;

pub(crate) use copy::copy_tool;
pub(crate) use widget::widget_tool;

echoed! {
    /// A page as the API returns it.
    Page = "page" {
        id: i64, uuid: String, name: String, title: String, description: String,
        excerpt: String, path: String, full_path: String, url: String, r#type: String,
        status: String, published: bool, parent_id: i64, position: i64, layout: String,
        private: bool, meta_tags: Value, site_id: i64, space_id: i64, content_type_uid: String,
        index_template_id: i64, show_template_id: i64, filters: Object, widgets: List,
        created_at: String, updated_at: String, published_at: String
    }
}

impl Member for Page {
    const RULES: Rules = Rules::new("page", "pages")
        .echo(Some("path"), None)
        .published()
        .hint("call channels-pages-manage (action list) to see its pages");
}

/// Arguments of `channels-pages-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Page>("channels-pages-manage", Module::Channels, in_site())
        .describe(
            "List, get, update, delete, archive or unpublish a site's pages. list: data.pages + coverage, resource \
the site; get/update/archive/unpublish: the page as persisted, state.status and published; delete (confirmDelete: \
true): data null.",
        )
        .target("page_id", "the page's id")
        .fields(&["name", "title", "description", "excerpt", "path"])
        .list(|_| Query::new())
        .get()
        .update()
        .delete()
        .transition("archive", "archived")
        .transition("unpublish", "unpublished")
        .build()
}

/// Page kinds.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum PageType {
    WidgetPage,
    ContentPage,
}

/// The fields of a new page, in the order they are sent.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct NewPage {
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

/// Arguments of `channels-pages-create`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CreateArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    #[serde(flatten)]
    page: NewPage,
}

pub(crate) fn create_tool() -> ToolDef {
    tool(
        "channels-pages-create",
        Module::Channels,
        ToolClass::Mutation,
    )
    .describe("Create a page in a site. data: the page as persisted; state.status created.")
    .resource()
    .state()
    .handle(create)
}

async fn create(call: Call, args: CreateArgs) -> Answer<Echo<Page>> {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let sent = persist::given(&args.page);
    let object = persist::create(client, &pages.path, &sent, Page::NAME).await?;
    persist::check_sent(Page::NAME, &object, &sent)?;
    let resource = pages.resource(&object, None);
    Ok(reply::saved::<Page, _>(object, resource, "created").into())
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
        .resource()
        .state()
        .handle(content)
}

async fn content(call: Call, args: ContentArgs) -> Answer<Echo<Page>> {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let sent = persist::body(vec![
        ("space_id", Some(Value::from(args.space_id))),
        ("content_type_uid", Some(Value::from(args.content_type))),
        ("index_template_id", args.index_template_id.map(Value::from)),
        ("show_template_id", args.show_template_id.map(Value::from)),
        ("filters", args.filters.map(Value::Object)),
    ]);
    let path = pages.item(args.page_id);
    let object = persist::write(client, Method::PUT, &path, Some(&sent), &path)
        .await
        .map_err(pages.missing(args.page_id))?;
    persist::check_sent("page content binding", &object, &sent)?;
    let resource = pages.resource(&object, None);
    let post = reply::post::<Page>("updated", &object);
    let message = "Page content updated successfully";
    Ok(reply::saved_as::<Page, _>(object, resource, post, "updated", message).into())
}
