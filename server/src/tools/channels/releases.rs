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
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Need, Site, resolve_site};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{Coverage, ErrorCode, Evidence, PostCondition, Reply, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::{Call, ToolDef, ToolResult, tool};

const VERSIONS: &str = "/api/admin/versions";

/// One pending item: what it is, and the versions that differ.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    kind: String,
    id: Value,
    uuid: Value,
    name: Value,
    editable: Value,
    live: Value,
}

impl Item {
    fn to_value(&self) -> Value {
        json!({
            "type": self.kind,
            "id": self.id,
            "uuid": self.uuid,
            "name": self.name,
            "editable_version": self.editable,
            "live_version": self.live,
        })
    }

    fn key(&self) -> (String, String) {
        (self.kind.clone(), key_text(&self.id))
    }
}

fn key_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn item_schema() -> Value {
    let version = schema::nullable(schema::id());
    schema::strict(
        &[
            ("type", schema::string()),
            ("id", schema::id()),
            ("uuid", schema::nullable(schema::string())),
            ("name", schema::nullable(schema::string())),
            ("editable_version", version.clone()),
            ("live_version", version),
        ],
        &[
            "type",
            "id",
            "uuid",
            "name",
            "editable_version",
            "live_version",
        ],
    )
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
            let text = |k: &str| {
                editable
                    .get(k)
                    .filter(|v| v.is_string())
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            let number = |v: Option<&Value>| {
                v.and_then(|v| v.get("number"))
                    .filter(|n| n.is_u64() || n.is_string())
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            Some(Item {
                kind,
                id: editable
                    .get("versionable_id")
                    .cloned()
                    .unwrap_or(Value::Null),
                uuid: text("versionable_uuid"),
                name: text("name"),
                editable: number(Some(editable)),
                live: number(current),
            })
        })
        .collect()
}

fn stage_schema() -> Value {
    let text = schema::nullable(schema::string());
    schema::strict(
        &[
            ("name", text.clone()),
            ("stage_name", text.clone()),
            ("host", text.clone()),
            ("url", text),
        ],
        &["name", "stage_name", "host", "url"],
    )
}

/// The stages of a site with the URL each is served at: the stage's own `url` when the API
/// gives one; else the site's `url` with the stage's host in place of the site's (the site
/// is served at `<account>/<host>`); else `<MODYO_URL>/<stage host>`.
fn stages(site: &Value, account: Option<&url::Url>) -> Vec<Value> {
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
                    json!({
                        "name": text(stage, "name"),
                        "stage_name": text(stage, "stage_name"),
                        "host": text(stage, "host"),
                        "url": url,
                    })
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

pub(crate) fn preview_tool() -> ToolDef {
    tool("channels-preview", Module::Channels, ToolClass::Read)
        .describe(
            "Dry run of channels-publish: the site's items whose editable version differs from the published one \
(data.items, with both version numbers), and the URL of each stage (data.stages). Writes nothing.",
        )
        .data(schema::strict(
            &[
                ("items", schema::array(item_schema())),
                ("stages", schema::array(stage_schema())),
            ],
            &["items", "stages"],
        ))
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

async fn preview(call: Call, args: PreviewArgs) -> ToolResult {
    let client = call.client()?;
    let (site, object) = site_with_stages(client, &args.site).await?;
    let (all, evidence) = versions(client).await?;
    let items: Vec<Value> = pending(&all, site.id).iter().map(Item::to_value).collect();
    let stages = stages(&object, call.app.config.url.as_ref());
    let coverage = Coverage::with_evidence(items.len(), evidence);
    let data = json!({"items": items, "stages": stages});
    let legacy_data = data.clone();
    Ok(Reply::new(data)
        .resource(site.resource())
        .state(coverage)
        .legacy(call.mode, || legacy_data)
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

fn release_schema() -> Value {
    use Kind::*;
    schema::nullable(schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("version", Any),
        ("status", Str),
        ("items_count", Int),
        ("site_id", Int),
        ("created_at", Str),
        ("published_at", Str),
    ]))
}

pub(crate) fn publish_tool() -> ToolDef {
    tool("channels-publish", Module::Channels, ToolClass::Mutation)
        .describe(
            "Publish a site's pending changes (all, or the items named), then read the pending set back. data: the \
release, the items released and those still pending; state: published, live_version, pending, affected.",
        )
        .data(schema::strict(
            &[
                ("release", release_schema()),
                ("released", schema::array(item_schema())),
                ("still_pending", schema::array(item_schema())),
            ],
            &["release", "released", "still_pending"],
        ))
        .resource()
        .state()
        .handle(publish)
}

async fn publish(call: Call, args: PublishArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Object).await?;
    let (all, _) = versions(client).await?;
    let before = pending(&all, site.id);
    let selected: Vec<Item> = match &args.items {
        Some(items) => {
            let mut out = Vec::new();
            for wanted in items {
                let key = (wanted.kind.clone(), wanted.id.to_string());
                match before.iter().find(|i| i.key() == key) {
                    Some(item) if out.contains(item) => {}
                    Some(item) => out.push(item.clone()),
                    None => {
                        let pending: Vec<Value> = before
                            .iter()
                            .map(|i| json!({"type": i.kind, "id": i.id}))
                            .collect();
                        return Err(ToolError::invalid_parameters(format!(
                            "{} {} has no pending changes in site {}; call channels-preview to see what is pending",
                            wanted.kind, wanted.id, site.id
                        ))
                        .detail("pending", Value::Array(pending))
                        .into());
                    }
                }
            }
            out
        }
        None => before.clone(),
    };
    let resource = site.resource();
    if selected.is_empty() {
        let still: Vec<Value> = before.iter().map(Item::to_value).collect();
        let state = PostCondition::status("unchanged")
            .published(true)
            .pending(!still.is_empty())
            .affected(0);
        let data = json!({"release": null, "released": [], "still_pending": still});
        let legacy_data = data.clone();
        return Ok(Reply::new(data)
            .resource(resource)
            .state(state)
            .legacy(call.mode, || {
                json!({"message": "Nothing to publish", "action": "unchanged", "result": legacy_data})
            })
            .into());
    }
    let sent = json!({
        "items": selected.iter().map(|i| json!({"type": i.kind, "id": i.id})).collect::<Vec<_>>()
    });
    let path = site.at("publish");
    let release = client
        .send(Method::POST, &path, &Query::new(), Some(&sent))
        .await?;
    if let Some(errors) = release.get("errors").or_else(|| release.get("error")) {
        return Err(ToolError::new(
            ErrorCode::Rejected,
            format!("POST {path} answered with errors: {errors}"),
        )
        .into());
    }
    // The post-condition is what a re-read of the pending set shows (C7).
    let (after_all, _) = versions(client).await?;
    let after = pending(&after_all, site.id);
    let still_keys: Vec<(String, String)> = after.iter().map(Item::key).collect();
    let released: Vec<&Item> = selected
        .iter()
        .filter(|i| !still_keys.contains(&i.key()))
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
    let release = if release.is_object() {
        release
    } else {
        Value::Null
    };
    let data = json!({
        "release": release,
        "released": released.iter().map(|i| i.to_value()).collect::<Vec<_>>(),
        "still_pending": after.iter().map(Item::to_value).collect::<Vec<_>>(),
    });
    let legacy_data = data.clone();
    Ok(Reply::new(data)
        .resource(resource)
        .state(state)
        .legacy(call.mode, || {
            json!({"message": "Site published successfully", "action": "published", "result": legacy_data})
        })
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
        assert_eq!(items[0].editable, json!(5));
        assert_eq!(items[0].live, json!(4));
        assert_eq!(items[1].live, Value::Null);
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
            stages(&served, Some(&base))[0]["url"],
            "https://www.acme.cl/portal-qa"
        );
        let site = json!({"stages": [
            {"name": "Main", "stage_name": "main", "host": "portal"},
            {"name": "QA", "stage_name": "qa", "host": "portal-qa", "url": "https://qa.example/portal"}
        ]});
        let out = stages(&site, Some(&base));
        assert_eq!(out[0]["url"], "https://acme.modyo.cloud/portal");
        assert_eq!(out[1]["url"], "https://qa.example/portal");
        assert_eq!(stages(&json!({}), Some(&base)), Vec::<Value>::new());
    }
}
