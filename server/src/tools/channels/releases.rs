//! Releases: `channels-preview` (the dry run) and `channels-publish`.
//!
//! The pending set comes from `GET /api/admin/versions?only=editable,current` (documented),
//! walked whole and kept to the site's own versions (`site_id`). An item is pending when it
//! has an editable version and either no current (published) one, or a current one with
//! another `checksum` (else another `number`); an item whose versions cannot be compared is
//! counted as pending, so a publish never skips it silently. The version objects' keys and the
//! `POST /api/admin/sites/{id}/publish` body (`{"items": [{type, id}]}`) are synthetic.
//!
//! `channels-publish` reads the set again after releasing it, and its post-condition says
//! what that re-read shows (C7): `affected` counts the items no longer pending, `published`
//! whether every one asked for was released, `pending` whether the site still has changes.

use std::collections::BTreeMap;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Need, Site, resolve_site};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{
    Coverage, ErrorCode, Evidence, Legacy, PostCondition, Reply, ToolClass, ToolError,
};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::engine::{Answer, Data, Echo, Id, Nullable, echoed};
use crate::tools::{Call, ToolDef, tool};

const VERSIONS: &str = "/api/admin/versions";

/// One pending item: what it is, and the versions that differ.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Item {
    #[serde(rename = "type")]
    kind: String,
    id: Id,
    uuid: Nullable<String>,
    name: Nullable<String>,
    #[serde(rename = "editable_version")]
    editable: Nullable<Id>,
    #[serde(rename = "live_version")]
    live: Nullable<Id>,
}

impl Item {
    fn key(&self) -> (String, String) {
        (self.kind.clone(), key_text(&self.id.0))
    }

    fn selected(&self) -> Value {
        json!({"type": self.kind, "id": self.id})
    }
}

fn key_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every editable and current version of the account, and whether the walk saw them all.
async fn versions(client: &ModyoClient) -> Result<(Vec<Value>, Evidence), ToolError> {
    let filter = Query::new().push("only", "editable,current");
    Ok(walk(client, VERSIONS, "versions", &filter).await?)
}

/// The site's items whose editable version differs from the published one, sorted by type
/// then id.
fn pending(versions: &[Value], site_id: u64) -> Vec<Item> {
    // (type, id) -> (editable, current)
    type Versions<'a> = (Option<&'a Value>, Option<&'a Value>);
    let mut groups: BTreeMap<(String, String), Versions<'_>> = BTreeMap::new();
    for version in versions {
        if version.get("site_id").and_then(Value::as_u64) != Some(site_id) {
            continue;
        }
        let (Some(kind), Some(id)) = (
            version.get("versionable_type").and_then(Value::as_str),
            version
                .get("versionable_id")
                .filter(|v| v.is_u64() || v.is_string()),
        ) else {
            continue;
        };
        let slot = groups.entry((kind.to_owned(), key_text(id))).or_default();
        match version.get("type").and_then(Value::as_str) {
            Some("editable") => slot.0 = Some(version),
            Some("current") => slot.1 = Some(version),
            _ => {}
        }
    }
    groups
        .into_iter()
        .filter_map(|((kind, _), (editable, current))| {
            let editable = editable?;
            let same = current.is_some_and(|current| {
                let field = |v: &Value, k: &str| v.get(k).filter(|x| !x.is_null()).cloned();
                match (field(editable, "checksum"), field(current, "checksum")) {
                    (Some(a), Some(b)) => a == b,
                    _ => matches!(
                        (field(editable, "number"), field(current, "number")),
                        (Some(a), Some(b)) if a == b
                    ),
                }
            });
            if same {
                return None;
            }
            let text = |k: &str| editable.get(k).and_then(Value::as_str).map(str::to_owned);
            let number = |v: Option<&Value>| {
                v.and_then(|v| v.get("number"))
                    .filter(|n| n.is_u64() || n.is_string())
                    .cloned()
                    .map(Id)
            };
            Some(Item {
                kind,
                id: Id(editable
                    .get("versionable_id")
                    .cloned()
                    .unwrap_or(Value::Null)),
                uuid: Nullable(text("versionable_uuid")),
                name: Nullable(text("name")),
                editable: Nullable(number(Some(editable))),
                live: Nullable(number(current)),
            })
        })
        .collect()
}

/// A stage of the site and the URL it is served at.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Stage {
    name: Nullable<String>,
    stage_name: Nullable<String>,
    host: Nullable<String>,
    url: Nullable<String>,
}

/// The stages of a site with the URL each is served at: the stage's own `url` when the API
/// gives one; else the site's `url` with the stage's host in place of the site's (the site
/// is served at `<account>/<host>`); else `<MODYO_URL>/<stage host>`.
fn stages(site: &Value, account: Option<&url::Url>) -> Vec<Stage> {
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let from_site = match (text(site, "url"), text(site, "host")) {
        (Some(url), Some(host)) => url.strip_suffix(&format!("/{host}")).map(str::to_owned),
        _ => None,
    };
    let base = from_site.or_else(|| account.map(|u| u.as_str().trim_end_matches('/').to_owned()));
    site.get("stages")
        .and_then(Value::as_array)
        .map(|stages| {
            stages
                .iter()
                .map(|stage| {
                    let url = text(stage, "url")
                        .or_else(|| Some(format!("{}/{}", base.as_deref()?, text(stage, "host")?)));
                    Stage {
                        name: Nullable(text(stage, "name")),
                        stage_name: Nullable(text(stage, "stage_name")),
                        host: Nullable(text(stage, "host")),
                        url: Nullable(url),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Arguments of `channels-preview`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PreviewArgs {
    /// Site id, host, uuid or name.
    site: Ident,
}

/// What a publish would release, and where each stage is served.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Preview {
    items: Vec<Item>,
    stages: Vec<Stage>,
}

impl Data for Preview {}

pub(crate) fn preview_tool() -> ToolDef {
    tool("channels-preview", Module::Channels, ToolClass::Read)
        .describe(
            "Dry run of channels-publish: the site's items whose editable version differs from the published one \
(data.items, with both version numbers), and the URL of each stage (data.stages). Writes nothing.",
        )
        .resource()
        .state()
        .handle(preview)
}

/// The site object with its stages (re-read when the lookup's row had none).
async fn site_with_stages(client: &ModyoClient, input: &str) -> Result<(Site, Value), ToolError> {
    let site = resolve_site(client, input, Need::Object).await?;
    let object = match &site.object {
        Some(object) if object.get("stages").is_some_and(Value::is_array) => object.clone(),
        _ => client.get(&site.path(), &Query::new()).await?,
    };
    Ok((site, object))
}

async fn preview(call: Call, args: PreviewArgs) -> Answer<Preview> {
    let client = call.client()?;
    let (site, object) = site_with_stages(client, &args.site).await?;
    let (all, evidence) = versions(client).await?;
    let items = pending(&all, site.id);
    let stages = stages(&object, call.app.config.url.as_ref());
    let coverage = Coverage::with_evidence(items.len(), evidence);
    Ok(Reply::new(Preview { items, stages })
        .resource(site.resource())
        .state(coverage)
        .into())
}

/// One item to release, as channels-preview lists it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Selected {
    /// The item's type, as in channels-preview (Page, Template, ...).
    #[serde(rename = "type")]
    kind: String,
    /// The item's id.
    id: u64,
}

/// Arguments of `channels-publish`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PublishArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Only these pending items (default: every pending item of the site).
    items: Option<Vec<Selected>>,
}

echoed! {
    /// A release as the API answers a publish.
    Release = "release" {
        id: i64, uuid: String
    }
}

/// What a publish released, as the re-read shows: the release, the items released, and
/// those still pending.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Published {
    release: Nullable<Echo<Release>>,
    released: Vec<Item>,
    still_pending: Vec<Item>,
}

impl Data for Published {}

pub(crate) fn publish_tool() -> ToolDef {
    tool("channels-publish", Module::Channels, ToolClass::Mutation)
        .describe(
            "Publish a site's pending changes (all, or the items named), then read the pending set back. data: the \
release, the items released and those still pending; state: published, live_version, pending, affected.",
        )
        .resource()
        .state()
        .handle(publish)
        .writes_state(RareState::LIVE_VERSION
            .union(RareState::PENDING)
            .union(RareState::PUBLISHED)
            .union(RareState::AFFECTED))
}

/// The old payload of a publish: `{message, action, result: data}`.
fn old(message: &'static str, action: &'static str) -> Legacy {
    Legacy::custom(move |result| json!({"message": message, "action": action, "result": result}))
}

/// The pending items to release: every one when `items` is not given, else the ones named
/// (each once), which must all be pending in the site.
fn select(
    items: Option<&[Selected]>,
    before: &[Item],
    site_id: u64,
) -> Result<Vec<Item>, ToolError> {
    let Some(items) = items else {
        return Ok(before.to_vec());
    };
    let mut out = Vec::new();
    for wanted in items {
        let key = (wanted.kind.clone(), wanted.id.to_string());
        match before.iter().find(|i| i.key() == key) {
            Some(item) if out.contains(item) => {}
            Some(item) => out.push(item.clone()),
            None => {
                let pending: Vec<Value> = before.iter().map(Item::selected).collect();
                return Err(ToolError::invalid_parameters(format!(
                    "{} {} has no pending changes in site {site_id}; call channels-preview to see what is pending",
                    wanted.kind, wanted.id
                ))
                .detail("pending", Value::Array(pending)));
            }
        }
    }
    Ok(out)
}

/// Releases the selected items (`POST /sites/{id}/publish`); an answer naming errors is a
/// rejection.
async fn release(client: &ModyoClient, site: &Site, selected: &[Item]) -> Result<Value, ToolError> {
    let sent = json!({"items": selected.iter().map(Item::selected).collect::<Vec<_>>()});
    let path = site.at("publish");
    let release = client
        .send(Method::POST, &path, &Query::new(), Some(&sent))
        .await?;
    if let Some(errors) = release.get("errors").or_else(|| release.get("error")) {
        return Err(ToolError::new(
            ErrorCode::Rejected,
            format!("POST {path} answered with errors: {errors}"),
        ));
    }
    Ok(release)
}

async fn publish(call: Call, args: PublishArgs) -> Answer<Published> {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Object).await?;
    let (all, _) = versions(client).await?;
    let before = pending(&all, site.id);
    let selected = select(args.items.as_deref(), &before, site.id)?;
    let resource = site.resource();
    if selected.is_empty() {
        let state = PostCondition::status("unchanged")
            .published(true)
            .pending(!before.is_empty())
            .affected(0);
        let data = Published {
            release: Nullable(None),
            released: Vec::new(),
            still_pending: before,
        };
        return Ok(Reply::new(data)
            .resource(resource)
            .state(state)
            .old(old("Nothing to publish", "unchanged"))
            .into());
    }
    let release = release(client, &site, &selected).await?;
    // The post-condition is what a re-read of the pending set shows (C7).
    let (after_all, _) = versions(client).await?;
    let after = pending(&after_all, site.id);
    let still_keys: Vec<(String, String)> = after.iter().map(Item::key).collect();
    let released: Vec<Item> = selected
        .iter()
        .filter(|i| !still_keys.contains(&i.key()))
        .cloned()
        .collect();
    let all_released = released.len() == selected.len();
    let mut state = PostCondition::status(if all_released { "published" } else { "partial" })
        .published(all_released)
        .pending(!after.is_empty())
        .affected(released.len());
    if let Some(version) = release
        .get("version")
        .filter(|v| v.is_u64() || v.is_string())
    {
        state = state.live_version(version.clone());
    }
    let data = Published {
        release: Nullable(release.is_object().then(|| Echo::new(release))),
        released,
        still_pending: after,
    };
    Ok(Reply::new(data)
        .resource(resource)
        .state(state)
        .old(old("Site published successfully", "published"))
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(kind: &str, id: u64, which: &str, checksum: &str, number: u64) -> Value {
        json!({"type": which, "versionable_type": kind, "versionable_id": id, "name": format!("{kind} {id}"),
               "site_id": 12, "checksum": checksum, "number": number})
    }

    #[test]
    fn pending_items_differ_by_checksum_or_have_no_published_version() {
        let versions = vec![
            version("Page", 1, "editable", "a", 3),
            version("Page", 1, "current", "a", 3),
            version("Page", 2, "editable", "b", 5),
            version("Page", 2, "current", "c", 4),
            version("Template", 7, "editable", "d", 1),
            json!({"type": "editable", "versionable_type": "Page", "versionable_id": 9, "site_id": 99}),
        ];
        let items = pending(&versions, 12);
        let keys: Vec<(String, String)> = items.iter().map(Item::key).collect();
        assert_eq!(
            keys,
            vec![("Page".into(), "2".into()), ("Template".into(), "7".into())]
        );
        assert_eq!(items[0].editable, Nullable(Some(Id(json!(5)))));
        assert_eq!(items[0].live, Nullable(Some(Id(json!(4)))));
        assert_eq!(items[1].live, Nullable(None));
    }

    #[test]
    fn versions_that_cannot_be_compared_count_as_pending() {
        let versions = vec![
            json!({"type": "editable", "versionable_type": "Menu", "versionable_id": 4, "site_id": 12}),
            json!({"type": "current", "versionable_type": "Menu", "versionable_id": 4, "site_id": 12}),
        ];
        assert_eq!(pending(&versions, 12).len(), 1);
    }

    #[test]
    fn stage_urls_come_from_the_stage_the_site_or_the_account_url() {
        let base = url::Url::parse("https://acme.modyo.cloud/").unwrap();
        let served = json!({"url": "https://www.acme.cl/portal", "host": "portal", "stages": [
            {"host": "portal-qa"}
        ]});
        assert_eq!(
            stages(&served, Some(&base))[0].url.0.as_deref(),
            Some("https://www.acme.cl/portal-qa")
        );
        let site = json!({"stages": [
            {"name": "Main", "stage_name": "main", "host": "portal"},
            {"name": "QA", "stage_name": "qa", "host": "portal-qa", "url": "https://qa.example/portal"}
        ]});
        let out = stages(&site, Some(&base));
        assert_eq!(
            out[0].url.0.as_deref(),
            Some("https://acme.modyo.cloud/portal")
        );
        assert_eq!(out[1].url.0.as_deref(), Some("https://qa.example/portal"));
        assert!(stages(&json!({}), Some(&base)).is_empty());
    }
}
