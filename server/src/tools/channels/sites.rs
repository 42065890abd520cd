//! Sites: `channels-sites-manage`, whose `get` is the site overview (the site with its
//! stages, and how many pages, templates, widgets and menus it has).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, SITES, body, check_persisted, deleted, list_page, list_reply, resolve_site, site_schema,
    unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::{Evidence, Reply, Resource, ToolClass, schema};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const TOOL: &str = "channels-sites-manage";

/// Actions of `channels-sites-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Which sites `list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Published,
    Staging,
}

/// Arguments of `channels-sites-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default: the overview), create, update or delete.
    action: Option<Action>,
    /// Site id, host, uuid or name (get, update, delete).
    site: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// list: filter by host or name.
    query: Option<String>,
    /// list: published (default) or staging sites.
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
    /// Theme id (create; default MODYO_DEFAULT_SITE_THEME).
    theme_id: Option<u64>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn counts_schema() -> Value {
    let count = schema::nullable(json!({"type": "integer", "minimum": 0}));
    schema::strict(
        &[
            ("pages", count.clone()),
            ("templates", count.clone()),
            ("widgets", count.clone()),
            ("menus", count),
        ],
        &["pages", "templates", "widgets", "menus"],
    )
}

fn manage_schema() -> Value {
    let mut data = site_schema();
    data["properties"]["sites"] = schema::array(site_schema());
    data["properties"]["counts"] = counts_schema();
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(TOOL, Module::Channels, ToolClass::Gated)
        .describe(
            "List, inspect, create, update or delete sites. list: data.sites + coverage; get (default): the site \
with its stages and data.counts of pages, templates, widgets, menus; create/update: the site as persisted; \
delete (confirmDelete: true): data null, state.status deleted.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.host.is_some(),
        args.description.is_some(),
        args.language.is_some(),
        args.time_zone.is_some(),
        args.theme_id.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when site fields are given (create or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let site_arg = || {
        args.site.as_deref().ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs site (id, host, uuid or name)",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let fields = |theme: Option<u64>| {
        body(vec![
            ("name", args.name.clone().map(Value::from)),
            ("host", args.host.clone().map(Value::from)),
            ("description", args.description.clone().map(Value::from)),
            ("language", args.language.clone().map(Value::from)),
            ("time_zone", args.time_zone.clone().map(Value::from)),
            ("theme_id", theme.map(Value::from)),
        ])
    };
    match action {
        Action::List => {
            let query = Query::new()
                .push_opt("query", args.query.as_deref())
                .push_opt(
                    "status",
                    (args.status == Some(Status::Staging)).then_some("staging"),
                )
                .page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, SITES, "sites", &query).await?;
            Ok(list_reply(call.mode, "sites", listed, None))
        }
        Action::Get => {
            let site = resolve_site(client, site_arg()?, Need::Object).await?;
            let resource = site.resource();
            let counts = json!({
                "pages": count(client, &site.at("pages"), "pages").await?,
                "templates": count(client, &site.at("templates"), "templates").await?,
                "widgets": count(client, &site.at("widget_definitions"), "widget_definitions").await?,
                "menus": count(client, &site.at("menus"), "menus").await?,
            });
            let object = site.object.unwrap_or_default();
            let legacy = json!({"site": object.clone(), "counts": counts.clone()});
            let mut data = match object {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            // C12: the server's own key goes in after the echoed ones.
            data.insert("counts".into(), counts);
            Ok(Reply::new(Value::Object(data))
                .resource(resource)
                .legacy(call.mode, || legacy)
                .into())
        }
        Action::Create => {
            if args.name.is_none() || args.host.is_none() {
                return Err(CallError::Arguments("create needs name and host".into()));
            }
            let sent = fields(Some(
                args.theme_id.unwrap_or(call.app.config.default_site_theme),
            ));
            let object = write(client, Method::POST, SITES, Some(&sent), |r| {
                format!("{SITES}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            check_persisted("site", &object, &sent)?;
            let resource = Resource::from_object("site", &object, Some("host"));
            Ok(written(
                call.mode,
                object,
                resource,
                "created",
                "site",
                "Site created successfully",
            ))
        }
        Action::Update => {
            if !writes {
                return Err(CallError::Arguments(
                    "update needs at least one of name, host, description, language, time_zone, theme_id".into(),
                ));
            }
            let site = resolve_site(client, site_arg()?, Need::Id).await?;
            let sent = fields(args.theme_id);
            let path = site.path();
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("site", &object, &sent)?;
            let resource = Resource::from_object("site", &object, Some("host")).id(site.id);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "site",
                "Site updated successfully",
            ))
        }
        Action::Delete => {
            let site = resolve_site(client, site_arg()?, Need::Object).await?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(TOOL, "delete"));
            }
            client
                .send(Method::DELETE, &site.path(), &Query::new(), None)
                .await?;
            Ok(deleted(
                call.mode,
                site.resource(),
                "deleted",
                "Site permanently deleted",
                "siteId",
                site.id,
            ))
        }
    }
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
