//! Sites: `channels-sites-manage`, whose `get` is the site overview (the site with its
//! stages, and how many pages, templates, widgets and menus it has).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::{SITES, Site, SiteObject};
use crate::config::Module;
use crate::contract::{Evidence, Reply};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::reply::Object;
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Data, Echoed, Managed, Need, Nullable, Verb, at, command, container,
    manage_as, persist, reply, standard,
};

/// Which sites `list` shows, sent as `status=<value>`. `enabled`, `disabled` and `draft` are
/// the values the published specification lists for that filter (and the words a site's
/// `status` reads); `staging` is the value `@modyo/cli` (3.6.2) sends when the unfiltered list
/// has no match, which the specification does not list (an erratum in the lab's surface).
/// Without it no filter is sent, and Modyo documents that it then lists the enabled sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Enabled,
    Disabled,
    Draft,
    Staging,
}

impl Status {
    /// The filter's value on the wire.
    fn as_str(self) -> &'static str {
        match self {
            Status::Enabled => "enabled",
            Status::Disabled => "disabled",
            Status::Draft => "draft",
            Status::Staging => "staging",
        }
    }
}

/// Arguments of `channels-sites-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default: the overview), create, update or delete.
    action: Option<Action>,
    /// Site id, host, uuid or name (get, update, delete).
    site: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// list: filter by host or name.
    query: Option<String>,
    /// list: only sites in this status: enabled (Modyo's default), disabled or draft, or staging (undocumented; sent as @modyo/cli does).
    status: Option<Status>,
    /// Name (create, update).
    name: Option<String>,
    /// Host, the site's URL segment (create, update).
    host: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Language, such as es or en (create, update).
    language: Option<String>,
    /// Time zone, such as America/Santiago (create, update).
    time_zone: Option<String>,
    /// Theme id (create only, sent as Modyo's `theme`; default MODYO_DEFAULT_SITE_THEME).
    theme_id: Option<u64>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

/// How many pages, templates, widgets and menus a site has (`null`: unknown).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Counts {
    pages: Nullable<u64>,
    templates: Nullable<u64>,
    widgets: Nullable<u64>,
    menus: Nullable<u64>,
}

/// The `data` of `channels-sites-manage`: a site (the overview adds its `counts`), or the
/// listed sites.
pub(crate) enum Sites {
    Managed(Managed<SiteObject>),
    /// The site with the server's own `counts` after the API's keys (C12).
    Overview(Value, Counts),
}

impl From<Managed<SiteObject>> for Sites {
    fn from(managed: Managed<SiteObject>) -> Sites {
        Sites::Managed(managed)
    }
}

impl Object for Sites {
    fn object(object: Value) -> Self {
        Sites::Managed(Managed::one(object))
    }
}

impl Serialize for Sites {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Sites::Managed(managed) => managed.serialize(serializer),
            Sites::Overview(site, counts) => {
                let mut site = match site {
                    Value::Object(map) => map.clone(),
                    _ => serde_json::Map::new(),
                };
                let counts = serde_json::to_value(counts).map_err(serde::ser::Error::custom)?;
                site.insert("counts".into(), counts);
                site.serialize(serializer)
            }
        }
    }
}

impl JsonSchema for Sites {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Sites".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = Managed::<SiteObject>::json_schema(generator);
        let counts = Counts::json_schema(generator);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert("counts".into(), counts.to_value());
        }
        schema
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Data for Sites {
    fn echoed() -> Option<String> {
        Some(
            "C15 multi-action root: the API's site object (with its stages) as persisted, or the listed sites; only `counts` is built (strict)"
                .into(),
        )
    }
}

command! {
    /// What `channels-sites-manage` can be asked.
    enum SiteCommand for ManageArgs {
        List => Verb::list(),
        Get { site: Ident } => Verb::read("get"),
        Create { name: String, host: String } => Verb::write("create"),
        Update { site: Ident } => Verb::write("update").changes(),
        Delete { site: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage_as::<ManageArgs, SiteObject, SiteCommand, Sites>("channels-sites-manage", Module::Channels, at(SITES))
        .describe(
            "List, inspect, create, update or delete sites. list: data.sites + coverage; get (default): the site \
with its stages and data.counts of pages, templates, widgets, menus; create/update: the site as persisted; \
delete (confirmDelete: true): data null, state.status deleted. \
Unverified delete: a bare DELETE; the product confirms by name and deletes in the background (deleted may precede the end).",
        )
        .target("site", "id, host, uuid or name")
        .resolve(container::as_target::<Site, _>)
        .fields(&["name", "host", "description", "language", "time_zone"])
        .run(run)
}

/// Runs one command of `channels-sites-manage`.
async fn run(ctx: Ctx<ManageArgs, SiteObject, SiteCommand>) -> Answer<Sites> {
    match &ctx.command {
        SiteCommand::List => {
            standard::list(&ctx, {
                Query::new()
                    .push_opt("query", ctx.args.query.as_deref())
                    .push_opt("status", ctx.args.status.map(Status::as_str))
            })
            .await
        }
        SiteCommand::Get { .. } => overview(ctx).await,
        SiteCommand::Create { .. } => create(ctx).await,
        SiteCommand::Update { .. } => standard::update(&ctx).await,
        SiteCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}

type SitesCall = Ctx<ManageArgs, SiteObject, SiteCommand>;

async fn overview(ctx: SitesCall) -> Answer<Sites> {
    let client = ctx.client()?;
    let found = ctx.found(Need::Object).await?;
    let resource = ctx.coll.resource(&found.object(), Some(found.id));
    let at = |rest: &str| format!("{}/{rest}", ctx.coll.item(found.id));
    let counts = Counts {
        pages: Nullable(count(client, &at("layout_pages"), "layout_pages").await?),
        templates: Nullable(count(client, &at("templates"), "templates").await?),
        widgets: Nullable(count(client, &at("widget_definitions"), "widget_definitions").await?),
        menus: Nullable(count(client, &at("menus"), "menus").await?),
    };
    let object = found.object.unwrap_or_default();
    let old = crate::contract::Legacy::custom(move |mut data| {
        let counts = data
            .as_object_mut()
            .and_then(|d| d.shift_remove("counts"))
            .unwrap_or_default();
        serde_json::json!({"site": data, "counts": counts})
    });
    Ok(Reply::new(Sites::Overview(object, counts))
        .resource(resource)
        .old(old)
        .into())
}

async fn create(ctx: SitesCall) -> Answer<Sites> {
    let mut sent = ctx.body();
    let theme = ctx
        .args
        .theme_id
        .unwrap_or(ctx.call.app.config.default_site_theme);
    // The create body documents the theme as `theme` (host, name, theme).
    sent["theme"] = Value::from(theme);
    let object = persist::create(ctx.client()?, SITES, &sent, SiteObject::NAME).await?;
    persist::check_sent(SiteObject::NAME, &object, &sent)?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<SiteObject, _>(object, resource, "created").into())
}

/// How many items a site collection holds: `meta.total_entries` of a one-item page, else a
/// walk of every page; `None` when neither can say (the walk was capped).
async fn count(client: &ModyoClient, path: &str, root: &str) -> Result<Option<u64>, CallError> {
    let page = client.list(path, root, &Query::new().page(1, 1)).await?;
    if let Some(total) = page.meta.and_then(|m| m.total_entries) {
        return Ok(Some(total));
    }
    let (items, evidence) = walk(client, path, root, &Query::new()).await?;
    Ok((evidence == Evidence::Exhausted).then_some(items.len() as u64))
}
