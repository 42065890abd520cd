//! Pages: `channels-pages-manage`, `-create` and `-content` (content binding) here; `-widget`
//! (the widgets placed on a page) in [`widget`]; `-copy` in [`copy`].
//!
//! Modyo documents a site's pages as layout pages: `GET/POST /sites/{site_id}/layout_pages`
//! (the list answers `{layout_pages}`, each row with its `children`) and
//! `GET/PUT/DELETE .../layout_pages/{id}`. The create body takes `name`, `path`,
//! `parent_uuid` and `grid_type`; the update body takes those (all four required), `has_router`
//! and the page's `widgets[]`, so every update reads the page first and sends its current
//! values with the change. The specification has no archive, unpublish or content-binding
//! action for a layout page: those calls answer an error before any request is sent.
//!
//! Pages are addressed by id (`page_id`: `page` is the pagination argument).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Site;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ToolClass, ToolError};
use crate::modyo::ModyoClient;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Container, Ctx, Echo, Echoed, Managed, Member, Need, Rules, Verb,
    command, echoed, manage, persist, reply, standard, within,
};

mod copy;
mod widget;

pub(crate) use copy::copy_tool;
pub(crate) use widget::widget_tool;

echoed! {
    /// A layout page as the API returns it.
    Page = "page" {
        id: i64, uuid: String, name: String, path: String, widgets: List
    }
}

impl Member for Page {
    const RULES: Rules = Rules::new("page", "layout_pages")
        .listed("pages")
        .echo(Some("path"), None)
        .published()
        .hint("call channels-pages-manage (action list) to see its pages");
}

/// The grids a layout page can have (the documented `grid_type` values).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
pub(crate) enum GridType {
    #[serde(rename = "side_right_three_cols_grid")]
    SideRightThreeCols,
    #[serde(rename = "side_left_three_cols_grid")]
    SideLeftThreeCols,
    #[serde(rename = "side_right_grid")]
    SideRight,
    #[serde(rename = "side_left_grid")]
    SideLeft,
    #[serde(rename = "full_grid")]
    Full,
    #[serde(rename = "full_two_cols_grid")]
    FullTwoCols,
    #[serde(rename = "full_three_cols_grid")]
    FullThreeCols,
    #[serde(rename = "side_left_one_col_grid")]
    SideLeftOneCol,
    #[serde(rename = "side_right_one_col_grid")]
    SideRightOneCol,
}

/// Arguments of `channels-pages-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), update or delete (archive and unpublish are not documented for
    /// layout pages and answer an error).
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Page id (every action but list).
    page_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (update).
    name: Option<String>,
    /// URL path segment (update).
    path: Option<String>,
    /// Grid of the page (update).
    grid_type: Option<GridType>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

/// The fields `update` may change.
const UPDATABLE: [&str; 3] = ["name", "path", "grid_type"];

/// Why a state change of a page is refused.
const NO_STATE_CHANGE: &str = "Modyo's published API has no archive or unpublish action for a layout page (it documents \
GET/POST /sites/{site_id}/layout_pages and GET/PUT/DELETE .../layout_pages/{id} only); archive or unpublish the page in the \
Modyo UI, or delete it with action delete";

command! {
    /// What `channels-pages-manage` can be asked.
    enum PageCommand for ManageArgs {
        List => Verb::list(),
        Get { page_id: u64 } => Verb::read("get"),
        Update { page_id: u64 } => Verb::write("update"),
        Delete { page_id: u64 } => Verb::write("delete").confirmed(),
        Archive => Verb::write("archive").refused(NO_STATE_CHANGE),
        Unpublish => Verb::write("unpublish").refused(NO_STATE_CHANGE),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Page, PageCommand>("channels-pages-manage", Module::Channels, within::<Site, _>())
        .describe(
            "List, get, update or delete a site's pages (Modyo's layout pages). list: data.pages (each with its \
children) + coverage, resource the site; get/update: the page as persisted, state.status and published; update sends \
name, path, grid_type (the page's current values for those not given); delete (confirmDelete: true): data null. \
archive and unpublish answer invalid_parameters: Modyo documents no such action for layout pages.",
        )
        .target("page_id", "the page's id")
        .fields(&UPDATABLE)
        .run(run)
}

/// Runs one command of `channels-pages-manage`.
async fn run(ctx: Ctx<ManageArgs, Page, PageCommand>) -> Answer<Managed<Page>> {
    match &ctx.command {
        PageCommand::List => standard::list(&ctx, Query::new()).await,
        PageCommand::Get { .. } => standard::get(&ctx).await,
        PageCommand::Update { .. } => update(ctx).await,
        PageCommand::Delete { .. } => standard::delete(&ctx).await,
        PageCommand::Archive | PageCommand::Unpublish => standard::refused(&ctx).await,
    }
}

/// The documented update body of `page` as it stands: `name`, `path`, `parent_uuid`,
/// `grid_type` (all required by the specification).
pub(crate) fn update_body(page: &Value) -> Map<String, Value> {
    ["name", "path", "parent_uuid", "grid_type"]
        .iter()
        .map(|k| {
            (
                (*k).to_owned(),
                page.get(*k).cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// `PUT` `body` to page `id` of `pages`: the page as persisted.
pub(crate) async fn put_page(
    client: &ModyoClient,
    pages: &Collection<Page>,
    id: u64,
    body: &Value,
) -> Result<Value, ToolError> {
    let path = pages.item(id);
    persist::write(client, Method::PUT, &path, Some(body), &path)
        .await
        .map_err(pages.missing(id))
}

async fn update(ctx: Ctx<ManageArgs, Page, PageCommand>) -> Answer<Managed<Page>> {
    let changes = ctx.body();
    if persist::is_empty(&changes) {
        return Err(CallError::Arguments(format!(
            "update needs at least one of {}",
            UPDATABLE.join(", ")
        )));
    }
    let found = ctx.found(Need::Object).await?;
    let mut body = Value::Object(update_body(&found.object()));
    persist::extend(&mut body, changes.clone());
    let object = put_page(ctx.client()?, &ctx.coll, found.id, &body).await?;
    persist::check_sent(Page::NAME, &object, &changes)?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<Page, _>(object, resource, "updated").into())
}

/// The fields of a new page, as the tool takes them.
#[derive(Debug, Deserialize, JsonSchema)]
struct NewPage {
    /// Name.
    name: String,
    /// URL path segment.
    path: String,
    /// Grid of the page.
    grid_type: Option<GridType>,
    /// Parent page id (sent as the parent's uuid).
    parent_id: Option<u64>,
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
    .describe(
        "Create a page (a Modyo layout page) in a site: name, path, grid_type, parent_id (read for its uuid). data: \
the page as persisted; state.status created.",
    )
    .resource()
    .state()
    .handle(create)
    .writes_state(RareState::PUBLISHED)
    .writes_resource_path()
}

async fn create(call: Call, args: CreateArgs) -> Answer<Echo<Page>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let pages = site.collection::<Page>();
    let parent_uuid = match args.page.parent_id {
        Some(parent) => {
            let parent_page = pages.fetch(client, parent).await?;
            match parent_page.get("uuid").filter(|u| u.is_string()) {
                Some(uuid) => Some(uuid.clone()),
                None => {
                    return Err(ToolError::new(
                        crate::contract::ErrorCode::InvalidUpstreamResponse,
                        format!(
                            "parent page {parent} was read without a uuid; the create needs it"
                        ),
                    )
                    .into());
                }
            }
        }
        None => None,
    };
    let sent = persist::body(vec![
        ("name", Some(Value::from(args.page.name))),
        ("path", Some(Value::from(args.page.path))),
        ("parent_uuid", parent_uuid),
        ("grid_type", args.page.grid_type.map(|g| json!(g))),
    ]);
    let object = persist::create(client, &pages.path, &sent, Page::NAME).await?;
    persist::check_sent(Page::NAME, &object, &sent)?;
    let resource = pages.resource(&object, None);
    Ok(reply::saved::<Page, _>(object, resource, "created").into())
}

/// Arguments of `channels-pages-content`.
// The call is refused before any request, but its arguments stay published and parsed (a
// client was given this input schema); the refusal does not echo them back, since the model
// holds what it asked.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
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
    /// Entry filters (category, tags, sort).
    filters: Option<Map<String, Value>>,
}

pub(crate) fn content_tool() -> ToolDef {
    tool("channels-pages-content", Module::Channels, ToolClass::Mutation)
        .describe(
            "Bind a content page to a space and content type, with its index/show templates and filters. Modyo's \
published API documents no such write (a layout page's update takes name, path, parent_uuid, grid_type, has_router \
and widgets only), so this tool sends nothing and answers invalid_parameters naming the binding asked; bind the page \
in the Modyo UI.",
        )
        .resource()
        .state()
        .handle(content)
        .writes_state(RareState::PUBLISHED)
        .writes_resource_path()
}

async fn content(_call: Call, args: ContentArgs) -> Answer<Echo<Page>> {
    Err(ToolError::invalid_parameters(format!(
        "page {} was not bound: Modyo's published API documents no content binding for a layout page (PUT \
/sites/{{site_id}}/layout_pages/{{id}} takes name, path, parent_uuid, grid_type, has_router and widgets); bind it in \
the Modyo UI",
        args.page_id
    ))
    .into())
}
