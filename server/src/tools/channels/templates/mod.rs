//! Templates (layouts, snippets, CSS, JS): `channels-templates-manage`, `-upsert`, `-find` and
//! `-copy` here; `-search` and `-replace`, which read every body, in [`search`].
//!
//! A template is addressed by id, or by `name` + `category` in Modyo's per-type lists
//! ([`resolve`], [`named_templates`]); a view has no such list, so it is addressed by id only.
//! The site-wide list (`GET .../templates`) carries each body but no name or type: the search
//! reads bodies there. A whole template is read one at a time (`GET .../templates/{id}`).
//!
//! The tools' `category` is Modyo's template `type` and their `content` its `body`. Modyo
//! creates a template from its name and type only (`POST .../templates`, answering its id) and
//! saves a body with `POST .../templates/{id}/save` (answering the lock and the versions, not the
//! template); `PUT .../templates/{id}` takes the name and type. So every write that sets a body
//! saves it and then re-reads the template to say what was persisted.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Site;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, ErrorCode, Evidence, Legacy, Reply, ToolClass, ToolError};
use crate::modyo::list::{read_array, walk};
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::collection::{id_of, parse_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Container, Ctx, Echo, Echoed, Found, Given, Managed, Member, Need,
    Rules, Scope, Verb, body, command, echoed, lenient, manage, persist, reply, standard, view,
    within,
};

mod search;

pub(crate) use search::{replace_tool, search_tool};

echoed! {
    /// A template as the API returns it.
    Template = "template" {
        id: i64, uuid: String, name: String, r#type: String, body: String, status: String,
        published: bool
    }
}

impl Member for Template {
    const RULES: Rules = Rules::new("template", "templates")
        .published()
        .hint("call channels-templates-manage (action list) to see its templates");
}

/// Template categories: the values of Modyo's template `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Category {
    Layout,
    Snippet,
    Css,
    Js,
    View,
}

impl Category {
    fn as_str(self) -> &'static str {
        match self {
            Category::Layout => "layout",
            Category::Snippet => "snippet",
            Category::Css => "css",
            Category::Js => "js",
            Category::View => "view",
        }
    }

    fn of(given: &Given) -> Option<Category> {
        given
            .get("category")
            .and_then(|c| serde_json::from_value(c.clone()).ok())
    }
}

/// Every template of the site as Modyo's site-wide list answers it (`GET .../templates`,
/// rows `{id, site_id, path, body}`: each body, no name or type), and what the walk proves.
/// The list documents no `meta`, so `complete` rests on the walk alone ([`walk`]).
async fn all_templates(
    client: &ModyoClient,
    templates: &Collection<Template>,
) -> Result<(Vec<Value>, Evidence), ToolError> {
    Ok(walk(client, &templates.path, "templates", &Query::new()).await?)
}

/// The per-type lists Modyo documents for a category (`GET .../templates/{list}`, each a bare
/// array of `{id, name, path, ...}`); a snippet may be a theme's or a custom one. A view has
/// no such list.
fn named_lists(category: Option<Category>) -> &'static [&'static str] {
    match category {
        Some(Category::Layout) => &["layouts"],
        Some(Category::Snippet) => &["snippets", "custom_snippets"],
        Some(Category::Css) => &["css"],
        Some(Category::Js) => &["js"],
        Some(Category::View) => &[],
        None => &["layouts", "snippets", "custom_snippets", "css", "js"],
    }
}

/// Why a view template cannot be looked up by name.
const NO_VIEW_LOOKUP: &str = "a view template cannot be looked up by name: Modyo lists the names of layouts, snippets, \
css and js only (the site-wide template list has no name or type); pass the template id";

/// Every template of the site with its name, within `category` (every category but view
/// when none is given), read from the per-type lists, and what they prove.
///
/// Each per-type list answers a bare array and declares no pagination parameter (and Modyo's
/// paginated lists are objects with `meta`, which an array cannot carry), so this relies on
/// the documented interface: one `GET` answers the whole list. That is the evidence for
/// `Exhausted`; a list that answered otherwise would be a shape error, not a short page.
async fn named_templates(
    client: &ModyoClient,
    templates: &Collection<Template>,
    category: Option<Category>,
) -> Result<(Vec<Value>, Evidence), ToolError> {
    if category == Some(Category::View) {
        return Err(ToolError::invalid_parameters(NO_VIEW_LOOKUP));
    }
    let mut rows = Vec::new();
    for list in named_lists(category) {
        let path = format!("{}/{list}", templates.path);
        rows.extend(read_array(client, &path, &Query::new()).await?);
    }
    Ok((rows, Evidence::Exhausted))
}

/// The one row named `name` (rows of [`named_templates`]): `Ok(None)` when none is.
fn pick_named(rows: &[Value], name: &str) -> Result<Option<Value>, ToolError> {
    match pick(
        "template",
        name,
        rows,
        &[Stage::exact("name", "name", name)],
    ) {
        Ok(row) => Ok(Some(row.clone())),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn no_template(site: &str, name: &str, category: Option<Category>) -> ToolError {
    let within = category.map_or(String::new(), |c| format!(" in category {}", c.as_str()));
    ToolError::not_found(format!(
        "{site} has no template named '{name}'{within}; call channels-templates-manage (action list) to see its templates"
    ))
}

/// Resolves a template: an all-digit input is an id; a name is matched exactly (within the
/// category when given) over the site's per-type lists.
async fn template_id(
    client: &ModyoClient,
    templates: &Collection<Template>,
    input: &str,
    category: Option<Category>,
) -> Result<u64, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return parse_id(input, "template");
    }
    let (rows, _) = named_templates(client, templates, category).await?;
    match pick_named(&rows, input)? {
        Some(row) => id_of(&row, "template"),
        None => Err(no_template(templates.place(), input, category)),
    }
}

/// The body of a template save: the template's own body (its code).
#[derive(Serialize)]
struct SaveBody<'a> {
    body: &'a str,
}

/// The name and type a template create or rename sends.
#[derive(Serialize)]
struct TemplateBody<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
}

/// The keys of a template as the API holds them: its `id` as sent (`null` included), its
/// uuid, name, type and body, each when a string.
#[derive(Default, Deserialize)]
#[serde(default)]
struct TemplateKeys {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    uuid: Option<String>,
    #[serde(deserialize_with = "lenient")]
    name: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    body: Option<String>,
}

/// The old payload of a find that found nothing.
#[derive(Serialize)]
struct NotFound<'a> {
    found: bool,
    name: &'a str,
    category: &'static str,
}

/// Saves `content` as the body of template `id` (`POST .../templates/{id}/save`, which
/// answers the lock and versions, not the template) and re-reads the template: as persisted,
/// its body checked.
async fn save_body(
    client: &ModyoClient,
    templates: &Collection<Template>,
    id: u64,
    content: &str,
) -> Result<Value, ToolError> {
    let sent = body(SaveBody { body: content });
    client
        .send(
            Method::POST,
            &templates.item(format!("{id}/save")),
            &Query::new(),
            Some(&sent),
        )
        .await
        .map_err(|e| templates.missing(id)(ToolError::from(e)))?;
    let object = templates.fetch(client, id).await?;
    persist::check_sent(Template::NAME, &object, &sent)?;
    Ok(object)
}

/// Creates a template from its name and type (`POST .../templates`, answering its id and
/// path), saves its body when given, and answers the template as persisted (re-read).
async fn create_template(
    client: &ModyoClient,
    templates: &Collection<Template>,
    name: &str,
    kind: &str,
    content: Option<&str>,
) -> Result<Value, ToolError> {
    let sent = body(TemplateBody { name, kind });
    let created = persist::create(client, &templates.path, &sent, Template::NAME).await?;
    let id = id_of(&created, "template")?;
    let object = match content {
        Some(content) => save_body(client, templates, id, content).await.map_err(|e| {
            e.context(format!(
                "template {id} ('{name}') was created in {} without its body, then saving the body failed",
                templates.place()
            ))
        })?,
        None => templates.fetch(client, id).await?,
    };
    persist::check_sent(Template::NAME, &object, &sent)?;
    Ok(object)
}

/// The `template` argument of a `-manage` call, by id or by name within `category`; a body
/// is always read whole (list rows carry none).
async fn resolve(
    call: Call,
    given: Given,
    scope: Scope<Template>,
    need: Need,
) -> Result<Found, CallError> {
    let client = call.client()?;
    let templates = scope.coll;
    let input = given.text("template").unwrap_or_default();
    let id = template_id(client, &templates, &input, Category::of(&given)).await?;
    let object = match need {
        Need::Id => None,
        Need::Object | Need::Row => Some(templates.fetch(client, id).await?),
    };
    Ok(Found { id, object })
}

/// Arguments of `channels-templates-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete or unpublish.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Template id or name (every action but list and create).
    template: Option<Ident>,
    /// layout, snippet, css, js or view (Modyo's template type): narrows a name lookup; required for create.
    category: Option<Category>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Template body (create, update): saved as the template's body.
    content: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `channels-templates-manage` can be asked.
    enum TemplateCommand for ManageArgs {
        List => Verb::list(),
        Get { template: Ident } => Verb::read("get"),
        Create { name: String, category: Category } => Verb::write("create"),
        Update { template: Ident } => Verb::write("update"),
        Delete { template: Ident } => Verb::write("delete").confirmed(),
        Unpublish { template: Ident } => Verb::write("unpublish"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Template, TemplateCommand>("channels-templates-manage", Module::Channels, within::<Site, _>())
        .describe(
            "List, get, create, update, delete or unpublish a site's templates (by id, or name + category; category \
is Modyo's template type; a view only by id). list: data.templates as Modyo lists them (id, path, body; no name or \
type) + coverage; get/create/update/unpublish: the template as persisted, \
its content in body; create/update save content as the template body, then re-read it; delete (confirmDelete: \
true): data null.",
        )
        .target("template", "id, or name with category")
        .resolve(resolve)
        .fields(&["name", "content"])
        .run(run)
}

/// Runs one command of `channels-templates-manage`.
async fn run(ctx: Ctx<ManageArgs, Template, TemplateCommand>) -> Answer<Managed<Template>> {
    match &ctx.command {
        TemplateCommand::List => standard::list(&ctx, Query::new()).await,
        TemplateCommand::Get { .. } => standard::get(&ctx).await,
        TemplateCommand::Create { .. } => create(ctx).await,
        TemplateCommand::Update { .. } => update(ctx).await,
        TemplateCommand::Delete { .. } => standard::delete(&ctx).await,
        TemplateCommand::Unpublish { .. } => unpublish(ctx).await,
    }
}

/// Unpublishes a template: Modyo documents it as `POST` on the template itself (not on an
/// `/unpublish` sub-path), answering the template.
async fn unpublish(ctx: Ctx<ManageArgs, Template, TemplateCommand>) -> Answer<Managed<Template>> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let object = persist::write(ctx.client()?, Method::POST, &path, None, &path)
        .await
        .map_err(ctx.coll.missing(found.id))?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<Template, _>(object, resource, "unpublished").into())
}

async fn create(ctx: Ctx<ManageArgs, Template, TemplateCommand>) -> Answer<Managed<Template>> {
    let (Some(name), Some(category)) = (ctx.args.name.as_deref(), ctx.args.category) else {
        return Err(CallError::Arguments(
            "create needs name and category".into(),
        ));
    };
    let object = create_template(
        ctx.client()?,
        &ctx.coll,
        name,
        category.as_str(),
        ctx.args.content.as_deref(),
    )
    .await?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<Template, _>(object, resource, "created").into())
}

/// Renames a template (`PUT` of its name with its type, both of which Modyo requires) and/or
/// saves its body, then answers it as persisted.
async fn update(ctx: Ctx<ManageArgs, Template, TemplateCommand>) -> Answer<Managed<Template>> {
    let (name, content) = (ctx.args.name.as_deref(), ctx.args.content.as_deref());
    if name.is_none() && content.is_none() {
        return Err(CallError::Arguments("update needs name or content".into()));
    }
    let client = ctx.client()?;
    let found = ctx.found(Need::Id).await?;
    let mut object = None;
    if let Some(name) = name {
        let kind = match ctx.args.category {
            Some(category) => Some(category.as_str().to_owned()),
            None => view::<TemplateKeys>(&ctx.coll.fetch(client, found.id).await?).kind,
        };
        let Some(kind) = kind else {
            return Err(ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!(
                    "template {} has no type to rename it with; pass category",
                    found.id
                ),
            )
            .into());
        };
        let sent = body(TemplateBody { name, kind: &kind });
        let path = ctx.coll.item(found.id);
        let renamed = persist::write(client, Method::PUT, &path, Some(&sent), &path)
            .await
            .map_err(ctx.coll.missing(found.id))?;
        persist::check_sent(Template::NAME, &renamed, &sent)?;
        object = Some(renamed);
    }
    if let Some(content) = content {
        object = Some(save_body(client, &ctx.coll, found.id, content).await?);
    }
    let object = object.unwrap_or_default();
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<Template, _>(object, resource, "updated").into())
}

/// Arguments of `channels-templates-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact template name.
    name: String,
    /// layout, snippet, css, js or view (Modyo's template type).
    category: Category,
    /// Template body.
    content: String,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("channels-templates-upsert", Module::Channels, ToolClass::Mutation)
        .describe(
            "Create a template, or replace the body of the one with this name and category (Modyo's template type; \
not view: Modyo lists no view names); the body is saved, then the template re-read. data: the template as persisted (content in body); state.status \
created or updated.",
        )
        .resource()
        .state()
        .handle(upsert)
        .writes_state(RareState::PUBLISHED)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<Template>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let templates = site.collection::<Template>();
    let name = args.name.trim();
    let (rows, _) = named_templates(client, &templates, Some(args.category)).await?;
    let (object, status) = match pick_named(&rows, name)? {
        Some(row) => {
            let id = id_of(&row, "template")?;
            let object = save_body(client, &templates, id, &args.content).await?;
            (object, "updated")
        }
        None => {
            let kind = args.category.as_str();
            let object =
                create_template(client, &templates, name, kind, Some(&args.content)).await?;
            (object, "created")
        }
    };
    let resource = templates.resource(&object, None);
    Ok(reply::saved::<Template, _>(object, resource, status).into())
}

/// Arguments of `channels-templates-find`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FindArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact template name.
    name: String,
    /// layout, snippet, css, js or view (Modyo's template type).
    category: Category,
}

pub(crate) fn find_tool() -> ToolDef {
    tool("channels-templates-find", Module::Channels, ToolClass::Read)
        .describe(
            "Find the one template with this exact name and category, with its body (not view: Modyo lists no view \
names). data: the template, or null when none has it; state.searched: templates looked at.",
        )
        .resource()
        .state()
        .handle(find)
        .writes_state(RareState::SEARCHED)
}

async fn find(call: Call, args: FindArgs) -> Answer<Option<Echo<Template>>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let templates = site.collection::<Template>();
    let (rows, evidence) = named_templates(client, &templates, Some(args.category)).await?;
    let searched = rows.len();
    let name = args.name.trim();
    let Some(row) = pick_named(&rows, name)? else {
        let old = body(NotFound {
            found: false,
            name,
            category: args.category.as_str(),
        });
        return Ok(Reply::new(None)
            .state(Coverage::with_evidence(0, evidence).searched(searched))
            .old(Legacy::custom(move |_| old))
            .into());
    };
    let object = templates.fetch(client, id_of(&row, "template")?).await?;
    let resource = templates.resource(&object, None);
    Ok(Reply::new(Some(Echo::new(object)))
        .resource(resource)
        .state(Coverage::with_evidence(1, evidence).searched(searched))
        .into())
}

/// Arguments of `channels-templates-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Site id, host, uuid or name of the source template.
    site: Ident,
    /// Source template id or name.
    template: Ident,
    /// layout, snippet, css, js or view (Modyo's template type): narrows a name lookup.
    category: Option<Category>,
    /// Target site id, host, uuid or name (default: the same site).
    target_site: Option<Ident>,
    /// Name of the copy (default: the source's; needed within one site).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-templates-copy", Module::Channels, ToolClass::Mutation)
        .describe(
            "Copy a template (name, type, body) within a site or to another site: created from its name and type, \
its body saved, then re-read. data: the copy as persisted.",
        )
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::PUBLISHED)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Template>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let templates = site.collection::<Template>();
    let id = template_id(client, &templates, &args.template, args.category).await?;
    let source = templates.fetch(client, id).await?;
    let target = Site::target(client, args.target_site.as_deref(), &site).await?;
    let source: TemplateKeys = view(&source);
    let name = args.name.as_deref().or(source.name.as_deref());
    let (Some(name), Some(kind)) = (name, source.kind.as_deref()) else {
        return Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("template {id} has no name or type to copy; pass name"),
        )
        .into());
    };
    let copies = target.collection::<Template>();
    let object = create_template(client, &copies, name, kind, source.body.as_deref()).await?;
    let resource = copies.resource(&object, None);
    let post = reply::post::<Template>("created", &object);
    let message = "Template copied successfully";
    Ok(reply::saved_as::<Template, _>(object, resource, post, "created", message).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_picked_exactly_and_ambiguity_is_an_error() {
        let rows = vec![
            json!({"id": 1, "name": "home", "path": "layouts/home"}),
            json!({"id": 2, "name": "home", "path": "css/home"}),
            json!({"id": 3, "name": "theme", "path": "css/theme"}),
        ];
        assert_eq!(pick_named(&rows, "theme").unwrap().unwrap()["id"], 3);
        assert_eq!(
            pick_named(&rows, "home").unwrap_err().code(),
            ErrorCode::Ambiguous
        );
        assert!(pick_named(&rows, "base").unwrap().is_none());
    }

    #[test]
    fn every_category_but_view_has_a_named_list() {
        assert_eq!(
            named_lists(Some(Category::Snippet)),
            ["snippets", "custom_snippets"]
        );
        assert!(named_lists(Some(Category::View)).is_empty());
        assert_eq!(named_lists(None).len(), 5);
    }
}
