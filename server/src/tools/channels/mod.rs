//! The channels module: sites, pages, widget definitions, templates, menus, variables, locks,
//! site assets, account templates, releases (preview and publish, both refused: see
//! [`releases`]) and widget downloads.
//!
//! Site-scoped paths sit under `/api/admin/sites/{site_id}/...`; a [`Site`] is a [`Container`]:
//! the `site` argument (an id, a host, a uuid or a name) resolves into one site and the
//! `resource` that echoes it (C4), and a site's pages, templates or locks are the collection of
//! a `-manage` tool declared `within::<Site, _>()`. Almost every path of this module is
//! synthetic (inferred, not documented): the shapes echoed here are declared key by key from
//! our research notes, so upstream drift only adds keys. Channels objects say whether they are
//! published, and writes report it (`state.published`, read back).

use serde_json::Value;

use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, pick};
use crate::modyo::{ModyoClient, Query};

use super::engine::container::by_id;
use super::engine::tool::ToolDef;
use super::engine::{Collection, Container, Found, Identity, Member, Need, Rules, echoed, view};

mod account_templates;
mod download;
mod locks;
mod menus;
mod pages;
mod releases;
mod site_assets;
mod sites;
mod templates;
mod variables;
mod widgets;

/// The channels tools, in catalogue order.
pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        sites::manage_tool(),
        pages::manage_tool(),
        pages::create_tool(),
        pages::content_tool(),
        pages::widget_tool(),
        pages::copy_tool(),
        widgets::manage_tool(),
        widgets::upsert_tool(),
        widgets::copy_tool(),
        widgets::code_edit_tool(),
        templates::manage_tool(),
        templates::upsert_tool(),
        templates::find_tool(),
        templates::search_tool(),
        templates::replace_tool(),
        templates::copy_tool(),
        menus::upsert_tool(),
        menus::copy_tool(),
        menus::delete_tool(),
        menus::items_manage_tool(),
        variables::manage_tool(),
        locks::manage_tool(),
        site_assets::manage_tool(),
        account_templates::manage_tool(),
        releases::publish_tool(),
        releases::preview_tool(),
        download::download_tool(),
    ]
}

echoed! {
    /// A site as the API returns it.
    SiteObject = "site" {
        id: i64, uuid: String, name: String, host: String, status: String, stages: List
    }
}

impl Member for SiteObject {
    const RULES: Rules = Rules::new("site", "sites")
        .slug("host")
        .published()
        .hint("call channels-sites-manage (action list) to see the sites");
}

/// The name of a copy: the one given, else the source's; a source without one (`what` names
/// it, such as `menu 7`) is an upstream answer to report.
pub(crate) fn copy_name(
    given: Option<&str>,
    source: &Value,
    what: &str,
) -> Result<String, ToolError> {
    given
        .map(str::to_owned)
        .or_else(|| view::<Identity>(source).name)
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("{what} has no name to copy; pass name"),
            )
        })
}

/// The sites collection.
pub(crate) const SITES: &str = "/api/admin/sites";

/// A site, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) id: u64,
    /// The site object, when the resolution read it.
    pub(crate) object: Option<Value>,
}

impl Container for Site {
    const PARAM: &'static str = "site";

    /// An all-digit value is an id; otherwise the exact `host` (compared with case, as the CLI
    /// does) among published sites, then among `status=staging` sites, then the `uuid`, then
    /// the exact `name` across both. The first form with any match decides; more than one
    /// match is `ambiguous`, none is `not_found` naming the forms tried.
    async fn resolve(client: &ModyoClient, input: &str, need: Need) -> Result<Site, ToolError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(ToolError::invalid_parameters(
                "site is empty: pass a site id, host, uuid or name",
            ));
        }
        let sites = Collection::<SiteObject>::at(SITES);
        if let Some(Found { id, object }) = by_id(client, &sites, input, need).await? {
            return Ok(Site { id, object });
        }
        let (published, _) = walk(client, SITES, "sites", &Query::new()).await?;
        if let Some(site) = first_match(input, &published, Stage::exact("host", "host", input))? {
            return site_of(site);
        }
        let staging_filter = Query::new().push("status", "staging");
        let (staging, _) = walk(client, SITES, "sites", &staging_filter).await?;
        if let Some(site) = first_match(input, &staging, Stage::exact("host", "host", input))? {
            return site_of(site);
        }
        let mut all = published;
        for site in staging {
            let id = view::<Identity>(&site).id;
            if id.is_none() || !all.iter().any(|s| view::<Identity>(s).id == id) {
                all.push(site);
            }
        }
        let stages = [
            Stage::exact("uuid", "uuid", input),
            Stage::exact("name", "name", input),
        ];
        match pick("site", input, &all, &stages) {
            Ok(site) => site_of(site),
            Err(e) if e.code() == ErrorCode::NotFound => {
                let tried = ["id", "host (published)", "host (staging)", "uuid", "name"];
                Err(ToolError::not_found(format!(
                    "no site matches '{input}' (tried: {}); hosts compare with case. Call channels-sites-manage (action list) to see the sites",
                    tried.join(", ")
                )))
            }
            Err(e) => Err(e),
        }
    }

    /// The id only when the object was not read.
    fn resource(&self) -> Resource {
        match &self.object {
            Some(object) => Resource::from_object("site", object, Some("host")).id(self.id),
            None => Resource::new("site").id(self.id),
        }
    }

    /// `/api/admin/sites/{id}/{root}`.
    fn collection<T: Member>(&self) -> Collection<T> {
        Collection::at(format!("{SITES}/{}/{}", self.id, T::RULES.root))
            .within(format!("site {}", self.id))
    }
}

impl From<Site> for Found {
    fn from(site: Site) -> Found {
        Found {
            id: site.id,
            object: site.object,
        }
    }
}

/// One lookup stage over one candidate set: `Ok(None)` when nothing matched.
pub(crate) fn first_match<'v>(
    input: &str,
    candidates: &'v [Value],
    stage: Stage<'_>,
) -> Result<Option<&'v Value>, ToolError> {
    match pick("site", input, candidates, &[stage]) {
        Ok(found) => Ok(Some(found)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn site_of(object: &Value) -> Result<Site, ToolError> {
    Ok(Site {
        id: site_id(object)?,
        object: Some(object.clone()),
    })
}

/// The numeric `id` of a site the API returned, or `invalid_upstream_response`.
fn site_id(object: &Value) -> Result<u64, ToolError> {
    match view::<Identity>(object).id {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            "the site the API returned has no numeric id",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Module};
    use crate::contract::ToolClass;
    use crate::server::ModyoServer;

    /// C19: the class of every channels tool, pinned.
    const CLASSES: [(&str, ToolClass); 27] = [
        ("channels-sites-manage", ToolClass::Gated),
        ("channels-pages-manage", ToolClass::Gated),
        ("channels-pages-create", ToolClass::Mutation),
        ("channels-pages-content", ToolClass::Mutation),
        ("channels-pages-widget", ToolClass::Mutation),
        ("channels-pages-copy", ToolClass::Mutation),
        ("channels-widgets-manage", ToolClass::Gated),
        ("channels-widgets-upsert", ToolClass::Mutation),
        ("channels-widgets-copy", ToolClass::Mutation),
        ("channels-widgets-code-edit", ToolClass::Mutation),
        ("channels-templates-manage", ToolClass::Gated),
        ("channels-templates-upsert", ToolClass::Mutation),
        ("channels-templates-find", ToolClass::Read),
        ("channels-templates-search", ToolClass::Read),
        ("channels-templates-replace", ToolClass::Mutation),
        ("channels-templates-copy", ToolClass::Mutation),
        ("channels-menus-upsert", ToolClass::Mutation),
        ("channels-menus-copy", ToolClass::Mutation),
        ("channels-menus-delete", ToolClass::Mutation),
        ("channels-menu-items-manage", ToolClass::Gated),
        ("channels-variables-manage", ToolClass::Gated),
        ("channels-locks-manage", ToolClass::Gated),
        ("channels-site-assets-manage", ToolClass::Gated),
        ("channels-account-templates-manage", ToolClass::Gated),
        ("channels-publish", ToolClass::Mutation),
        ("channels-preview", ToolClass::Read),
        ("channels-download", ToolClass::Mutation),
    ];

    #[test]
    fn every_channels_tool_has_its_catalogue_class_in_catalogue_order() {
        let tools = tools();
        let got: Vec<(&str, ToolClass)> = tools.iter().map(|t| (t.name, t.class)).collect();
        assert_eq!(got, CLASSES.to_vec());
        assert!(tools.iter().all(|t| t.module == Module::Channels));
        let count = |class| CLASSES.iter().filter(|(_, c)| *c == class).count();
        assert_eq!(
            (
                count(ToolClass::Read),
                count(ToolClass::Gated),
                count(ToolClass::Mutation)
            ),
            (3, 9, 15)
        );
    }

    #[test]
    fn gated_tools_are_exactly_the_manage_tools_with_read_actions() {
        for t in tools() {
            assert_eq!(
                t.name.ends_with("-manage"),
                t.class == ToolClass::Gated,
                "{}",
                t.name
            );
            if t.class == ToolClass::Gated {
                assert!(
                    !t.read_actions.is_empty() && !t.write_actions.is_empty(),
                    "{}",
                    t.name
                );
                assert!(
                    t.read_actions
                        .iter()
                        .all(|a| crate::contract::class::is_read_action(a)),
                    "{}",
                    t.name
                );
                assert!(
                    t.slots.control,
                    "{}: gated tools can answer control",
                    t.name
                );
            }
        }
    }

    fn registered(read_only: &str) -> Vec<&'static str> {
        let config = Config::from_vars([
            ("MODYO_URL", "https://acme.modyo.cloud"),
            ("MODYO_TOKEN", "t"),
            ("MODYO_MCP_MODULES", "channels"),
            ("MODYO_READ_ONLY", read_only),
        ])
        .unwrap();
        ModyoServer::new(config).unwrap().tool_names()
    }

    #[test]
    fn twenty_seven_tools_and_twelve_in_read_only_mode() {
        assert_eq!(registered("false").len(), 27);
        let read_only = registered("true");
        assert_eq!(read_only.len(), 12);
        assert!(!read_only.contains(&"channels-download"));
        assert!(!read_only.contains(&"channels-menus-delete"));
        assert!(read_only.contains(&"channels-preview"));
    }
}
