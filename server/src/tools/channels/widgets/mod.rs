//! Widget definitions (custom widgets): `channels-widgets-manage` here; `-upsert`, `-copy` and
//! `-code-edit` in [`code`]; and the name lookup the download shares.
//!
//! A name is looked up through `GET .../widget_definitions?query=<name>` (documented, as the
//! CLI does); the query matches loosely, so only exact name matches count and exactly one is
//! required. Writes carry the server's own User-Agent (the client's), never `MODYO-CLI`, which
//! would make the widget read-only in the UI.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Site;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::collection::{id_of, parse_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Collection, Ctx, Found, Given, Managed, Member, Need, Rules, Scope, Verb, body,
    command, echoed, lenient, manage, persist, reply, standard, view, within,
};

mod code;

pub(crate) use code::{code_edit_tool, copy_tool, upsert_tool};

echoed! {
    /// A widget definition as the API returns it.
    Widget = "widget" {
        id: i64, uuid: String, name: String, status: String, published: bool
    }
}

impl Member for Widget {
    const RULES: Rules = Rules::new("widget", "widget_definitions")
        .listed("widgets")
        .published()
        .hint("call channels-widgets-manage (action list) to see its widgets");
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
            Some(row) => Resource::from_object("widget", row, None).id(self.id),
            None => Resource::new("widget").id(self.id),
        }
    }
}

/// Looks a widget up by name through `?query=`: exactly one exact name match resolves, more
/// are `ambiguous`. With none, an all-digit input is taken as an id; anything else is
/// `not_found`.
pub(crate) async fn find_widget(
    client: &ModyoClient,
    widgets: &Collection<Widget>,
    input: &str,
) -> Result<WidgetRef, ToolError> {
    let input = input.trim();
    let query = Query::new().push("query", input);
    let (rows, _) = walk(client, &widgets.path, "widget_definitions", &query).await?;
    match pick(
        "widget",
        input,
        &rows,
        &[Stage::exact("name", "name", input)],
    ) {
        Ok(row) => Ok(WidgetRef {
            id: id_of(row, "widget")?,
            row: Some(row.clone()),
        }),
        Err(e) if e.code() == ErrorCode::NotFound && is_id(input) => Ok(WidgetRef {
            id: parse_id(input, "widget")?,
            row: None,
        }),
        Err(e) if e.code() == ErrorCode::NotFound => Err(ToolError::not_found(format!(
            "{} has no widget named exactly '{input}' (looked up with ?query=, then exact name); call channels-widgets-manage (action list) to see its widgets",
            widgets.place()
        ))),
        Err(e) => Err(e),
    }
}

/// Arguments of `channels-widgets-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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
    /// Name (create).
    name: Option<String>,
    /// Whether the widget is public (create).
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

command! {
    /// What `channels-widgets-manage` can be asked.
    enum WidgetCommand for ManageArgs {
        List => Verb::list(),
        Get { widget: Ident } => Verb::read("get"),
        Create { name: String } => Verb::write("create"),
        Update { widget: Ident } => Verb::write("update"),
        Delete { widget: Ident } => Verb::write("delete").confirmed(),
        Archive { widget: Ident } => Verb::write("archive"),
        Publish { widget: Ident } => Verb::write("publish"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Widget, WidgetCommand>("channels-widgets-manage", Module::Channels, within::<Site, _>())
        .describe(
            "List, get, create, update, delete, archive or publish a site's custom widgets. list: data.widgets + \
coverage; others: the widget as persisted (publish: state.published and live_version read back); delete \
(confirmDelete: true): data null. create sends name and public, then the code; update sends html, css, js only (Modyo \
documents no other update key).",
        )
        .target("widget", "id or exact name")
        .resolve(resolve)
        .fields(&["name", "public", "html", "css", "js"])
        .run(run)
        .writes_state(RareState::LIVE_VERSION)
}

/// Runs one command of `channels-widgets-manage`.
async fn run(ctx: Ctx<ManageArgs, Widget, WidgetCommand>) -> Answer<Managed<Widget>> {
    match &ctx.command {
        WidgetCommand::List => {
            standard::list(
                &ctx,
                Query::new().push_opt("query", ctx.args.query.as_deref()),
            )
            .await
        }
        WidgetCommand::Get { .. } => standard::get(&ctx).await,
        WidgetCommand::Create { .. } => create(ctx).await,
        WidgetCommand::Update { .. } => update(ctx).await,
        WidgetCommand::Delete { .. } => standard::delete(&ctx).await,
        WidgetCommand::Archive { .. } => standard::transition(&ctx, "archived").await,
        WidgetCommand::Publish { .. } => publish(ctx).await,
    }
}

async fn create(ctx: Ctx<ManageArgs, Widget, WidgetCommand>) -> Answer<Managed<Widget>> {
    let args = &ctx.args;
    let name = Value::from(args.name.clone().unwrap_or_default());
    let code = code::code_body(args.html.clone(), args.css.clone(), args.js.clone());
    let public = args.public.map(Value::from);
    let object = code::create_widget(ctx.client()?, &ctx.coll, name, public, &code).await?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<Widget, _>(object, resource, "created").into())
}

/// Updates a widget's code: Modyo's update body takes `html`, `css` and `js` only.
async fn update(ctx: Ctx<ManageArgs, Widget, WidgetCommand>) -> Answer<Managed<Widget>> {
    let args = &ctx.args;
    if args.name.is_some() || args.public.is_some() {
        return Err(ToolError::invalid_parameters(
            "Modyo's widget definition update takes html, css and js only: name and public cannot change; nothing was sent",
        )
        .into());
    }
    let code = code::code_body(args.html.clone(), args.css.clone(), args.js.clone());
    if persist::is_empty(&code) {
        return Err(CallError::Arguments(
            "update needs at least one of html, css, js".into(),
        ));
    }
    standard::update_with(&ctx, code).await
}

/// The `widget` argument of `-manage`: an id directly, a name through the lookup; the
/// lookup's row stands for the widget when only its identity is needed.
async fn resolve(
    call: Call,
    given: Given,
    scope: Scope<Widget>,
    need: Need,
) -> Result<Found, CallError> {
    let client = call.client()?;
    let widgets = scope.coll;
    let input = given.text("widget").unwrap_or_default();
    let input = input.trim();
    let found = if is_id(input) {
        WidgetRef {
            id: parse_id(input, "widget")?,
            row: None,
        }
    } else {
        find_widget(client, &widgets, input).await?
    };
    let object = match (need, found.row) {
        (Need::Id, row) => row,
        (Need::Row, Some(row)) => Some(row),
        (Need::Object | Need::Row, _) => Some(widgets.fetch(client, found.id).await?),
    };
    Ok(Found {
        id: found.id,
        object,
    })
}

/// The CLI's publish body: `{"widget": {"publish_at": "", "unpublish_at": ""}}`.
#[derive(Serialize)]
struct PublishBody {
    widget: Schedule,
}

/// When a publish takes effect: both empty, as the CLI sends them.
#[derive(Serialize)]
struct Schedule {
    publish_at: &'static str,
    unpublish_at: &'static str,
}

/// The keys of a publish answer that say it failed, each as sent (`null` included).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Rejection {
    #[serde(deserialize_with = "lenient")]
    errors: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    error: Option<Value>,
}

/// The version a widget says is live, as sent.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Live {
    #[serde(deserialize_with = "lenient")]
    version: Option<Value>,
}

async fn publish(ctx: Ctx<ManageArgs, Widget, WidgetCommand>) -> Answer<Managed<Widget>> {
    let client = ctx.client()?;
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    // The CLI's body; an `errors`/`error` key in a 2xx answer is a failure, as for the CLI.
    let sent = body(PublishBody {
        widget: Schedule {
            publish_at: "",
            unpublish_at: "",
        },
    });
    let response = client
        .send(
            Method::POST,
            &format!("{path}/publish"),
            &Query::new(),
            Some(&sent),
        )
        .await?;
    let rejection: Rejection = view(&response);
    if let Some(errors) = rejection.errors.or(rejection.error) {
        return Err(ToolError::new(
            ErrorCode::Rejected,
            format!("POST {path}/publish answered with errors: {errors}"),
        )
        .into());
    }
    // The publish answer is not the widget: read it back (C7).
    let object = ctx.coll.fetch(client, found.id).await?;
    let resource = ctx.coll.resource(&object, None);
    let mut post = reply::post::<Widget>("published", &object);
    if let Some(version) = view::<Live>(&object)
        .version
        .filter(|v| v.is_string() || v.is_u64())
    {
        post = post.live_version(version);
    }
    let message = "Widget published successfully";
    Ok(reply::saved_as::<Widget, _>(object, resource, post, "published", message).into())
}
