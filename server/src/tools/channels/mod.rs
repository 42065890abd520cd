//! The channels module: sites, pages, widget definitions, templates, menus, variables, locks,
//! site assets, account templates, releases (preview and publish) and widget downloads.
//!
//! Site-scoped paths sit under `/api/admin/sites/{site_id}/...`; [`resolve_site`] turns the
//! `site` argument (an id, a host, a uuid or a name) into one site and the `resource` that
//! echoes it (C4). Almost every path of this module is synthetic (`catalog.md`): the shapes
//! echoed here are declared key by key from `modyo-api.md` so upstream drift only adds keys.
//!
//! Shared rules of the module, so each tool file stays about its resource:
//! - writes report the object the API persisted (C7): the response body, or a re-read, and
//!   [`check_persisted`] turns a value persisted differently from what was sent into
//!   `persisted_mismatch` in the same call;
//! - delete-type actions need `confirmDelete: true`, else [`unconfirmed`] answers `control`;
//! - lists report coverage from the API's `meta` ([`list_page`]); lookups walk every page.

use reqwest::Method;
use serde_json::{Map, Value, json};

use crate::contract::{
    Control, Coverage, ErrorCode, Mode, Outcome, PostCondition, Reply, Resource, ToolError, legacy,
    schema,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{CmsError, ModyoClient, Query};

use super::{CallError, ToolDef, persisted};

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

/// The sites collection.
pub(crate) const SITES: &str = "/api/admin/sites";

/// A site, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) id: u64,
    /// The site object, when the resolution read it.
    pub(crate) object: Option<Value>,
}

impl Site {
    /// The `resource` echo of the site (the id only when the object was not read).
    pub(crate) fn resource(&self) -> Resource {
        match &self.object {
            Some(object) => Resource::from_object("site", object, Some("host")).id(self.id),
            None => Resource::new("site").id(self.id),
        }
    }

    /// `/api/admin/sites/{id}`.
    pub(crate) fn path(&self) -> String {
        format!("{SITES}/{}", self.id)
    }

    /// `/api/admin/sites/{id}/{rest}`.
    pub(crate) fn at(&self, rest: impl std::fmt::Display) -> String {
        format!("{SITES}/{}/{rest}", self.id)
    }
}

/// How much of the site a tool needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Only its id (the site is not the resource of the call).
    Id,
    /// The whole object (the site is the resource or the payload).
    Object,
}

/// Resolves `site`: an all-digit value is an id; otherwise the exact `host` (compared with
/// case, as the CLI does) among published sites, then among `status=staging` sites, then the
/// `uuid`, then the exact `name` across both. The first form with any match decides; more
/// than one match is `ambiguous`, none is `not_found` naming the forms tried.
pub(crate) async fn resolve_site(
    client: &ModyoClient,
    input: &str,
    need: Need,
) -> Result<Site, ToolError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(ToolError::invalid_parameters(
            "site is empty: pass a site id, host, uuid or name",
        ));
    }
    if is_id(input) {
        let id: u64 = input.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("site id '{input}' is too large"))
        })?;
        if need == Need::Id {
            return Ok(Site { id, object: None });
        }
        let object = client
            .get(&format!("{SITES}/{id}"), &Query::new())
            .await
            .map_err(not_found_as(|| {
                format!(
                    "site {id} not found; call channels-sites-manage (action list) to see the sites"
                )
            }))?;
        return Ok(Site {
            id,
            object: Some(object),
        });
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
        let id = site.get("id");
        if id.is_none() || !all.iter().any(|s| s.get("id") == id) {
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
            ))
            .detail("tried", json!(tried)))
        }
        Err(e) => Err(e),
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
        id: id_of(object, "site")?,
        object: Some(object.clone()),
    })
}

/// The numeric `id` of an API object, or `invalid_upstream_response`.
pub(crate) fn id_of(object: &Value, what: &str) -> Result<u64, ToolError> {
    match object.get("id") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("the {what} the API returned has no numeric id"),
        )
    })
}

/// Maps a 404 to an actionable message; other failures keep their own.
pub(crate) fn not_found_as(message: impl FnOnce() -> String) -> impl FnOnce(CmsError) -> ToolError {
    move |e| {
        let not_found = e.is_not_found();
        let error = ToolError::from(e);
        if not_found {
            error.with_message(message())
        } else {
            error
        }
    }
}

/// A JSON object of the fields that were given (absent ones are not sent).
pub(crate) fn body(fields: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect(),
    )
}

/// Whether a persisted object says it is published: its boolean `published`, else its
/// `status` (`published` or anything else). `None` when it says neither.
pub(crate) fn published_of(object: &Value) -> Option<bool> {
    match object.get("published") {
        Some(Value::Bool(b)) => Some(*b),
        _ => match object.get("status").and_then(Value::as_str) {
            Some("") | None => None,
            Some(status) => Some(status == "published"),
        },
    }
}

/// The post-condition of a write: its status, and `published` as read back.
pub(crate) fn post(status: &str, object: &Value) -> PostCondition {
    let post = PostCondition::status(status);
    match published_of(object) {
        Some(published) => post.published(published),
        None => post,
    }
}

fn preview(value: &Value) -> Value {
    match value {
        Value::String(s) if s.chars().count() > 120 => {
            let head: String = s.chars().take(120).collect();
            Value::from(format!("{head}… ({} chars)", s.chars().count()))
        }
        other => other.clone(),
    }
}

/// C7: the values `sent` that the persisted `object` holds differently. A key the API does
/// not echo cannot be checked and is skipped; objects and arrays are not compared (the API
/// may normalise them). Any difference fails the call with `persisted_mismatch`.
pub(crate) fn check_persisted(what: &str, object: &Value, sent: &Value) -> Result<(), ToolError> {
    let Some(sent) = sent.as_object() else {
        return Ok(());
    };
    let mismatches: Vec<Value> = sent
        .iter()
        .filter(|(_, v)| !v.is_object() && !v.is_array() && !v.is_null())
        .filter_map(|(key, value)| {
            let persisted = object.get(key)?;
            (persisted != value).then(
                || json!({"field": key, "sent": preview(value), "persisted": preview(persisted)}),
            )
        })
        .collect();
    if mismatches.is_empty() {
        return Ok(());
    }
    let fields: Vec<&str> = mismatches
        .iter()
        .filter_map(|m| m.get("field").and_then(Value::as_str))
        .collect();
    Err(ToolError::new(
        ErrorCode::PersistedMismatch,
        format!(
            "the {what} was written, but the API persisted different values for: {}; read it back and correct it",
            fields.join(", ")
        ),
    )
    .detail("mismatches", Value::Array(mismatches)))
}

/// `control` for a delete-type action that was not confirmed (C18).
pub(crate) fn unconfirmed(tool: &str, action: &str) -> Outcome {
    let control = Control::cancelled_unconfirmed(tool, action);
    let legacy = json!({"message": control.message(), "action": "cancelled"});
    Outcome::Control { control, legacy }
}

/// One page of a list endpoint, with its coverage.
pub(crate) struct Listed {
    pub(crate) items: Vec<Value>,
    pub(crate) coverage: Coverage,
    pub(crate) raw_meta: Option<Value>,
}

/// Reads one page of `path` under `root`.
pub(crate) async fn list_page(
    client: &ModyoClient,
    path: &str,
    root: &str,
    query: &Query,
) -> Result<Listed, CallError> {
    let page = client.list(path, root, query).await?;
    Ok(Listed {
        coverage: Coverage::page(page.items.len(), page.meta.as_ref()),
        items: page.items,
        raw_meta: page.raw_meta,
    })
}

/// The reply of a `list` action of a `-manage` tool: `data = {root: [...]}` (C15).
pub(crate) fn list_reply(
    mode: Mode,
    root: &str,
    listed: Listed,
    container: Option<Resource>,
) -> Outcome {
    let items = Value::Array(listed.items);
    let legacy_items = items.clone();
    let raw_meta = listed.raw_meta;
    let mut data = Map::new();
    data.insert(root.to_owned(), items);
    let reply = Reply::new(Value::Object(data)).state(listed.coverage);
    let reply = match container {
        Some(resource) => reply.resource(resource),
        None => reply,
    };
    reply
        .legacy(mode, || legacy::list(root, legacy_items, raw_meta.as_ref()))
        .into()
}

/// The reply of a read of one entity: `data` is the object as the API returned it.
pub(crate) fn object_reply(mode: Mode, object: Value, resource: Resource) -> Outcome {
    let legacy_object = object.clone();
    Reply::new(object)
        .resource(resource)
        .legacy(mode, || legacy_object)
        .into()
}

/// The reply of a write: `data` is the persisted object, `state` its post-condition, and the
/// legacy payload `{message, action, <key>: object}`.
pub(crate) fn written(
    mode: Mode,
    object: Value,
    resource: Resource,
    status: &str,
    key: &str,
    message: &str,
) -> Outcome {
    let state = post(status, &object);
    let legacy_object = object.clone();
    let message = message.to_owned();
    let status_word = status.to_owned();
    Reply::new(object)
        .resource(resource)
        .state(state)
        .legacy(mode, || {
            legacy::write(&status_word, message, key, legacy_object)
        })
        .into()
}

/// The reply of a delete-type write: `data: null`, `state.status` (`deleted`, `removed`,
/// `released`), the legacy `{message, action, <id_key>: id}`.
pub(crate) fn deleted(
    mode: Mode,
    resource: Resource,
    status: &str,
    message: &str,
    id_key: &str,
    id: u64,
) -> Outcome {
    let message = message.to_owned();
    let id_key = id_key.to_owned();
    let action = status.to_owned();
    Reply::new(Value::Null)
        .resource(resource)
        .state(PostCondition::status(status))
        .legacy(
            mode,
            || json!({"message": message, "action": action, id_key: id}),
        )
        .into()
}

/// Sends a write and returns the persisted object (C7): the response body when it is an
/// object, else a re-read of `read_path`.
pub(crate) async fn write(
    client: &ModyoClient,
    method: Method,
    path: &str,
    body: Option<&Value>,
    read_path: impl FnOnce(&Value) -> String,
) -> Result<Value, CallError> {
    let response = client.send(method, path, &Query::new(), body).await?;
    let read_path = read_path(&response);
    Ok(persisted(client, response, &read_path).await?)
}

/// The JSON schema of a site as the API returns it (loose: echoed).
pub(crate) fn site_schema() -> Value {
    use schema::Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("host", Str),
        ("description", Str),
        ("tagline", Str),
        ("language", Str),
        ("time_zone", Str),
        ("url", Str),
        ("realm_slug", Str),
        ("meta_tags", Any),
        ("status", Str),
        ("theme_id", Int),
        ("stages", List),
        ("created_at", Str),
        ("updated_at", Str),
        ("published_at", Str),
    ])
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

    #[test]
    fn check_persisted_reports_what_differs_and_skips_what_is_not_echoed() {
        let object = json!({"name": "Home", "content": "<p>x</p>", "position": 2});
        let sent = json!({"name": "Home", "content": "<p>y</p>", "missing": "a", "position": 2});
        let err = check_persisted("template", &object, &sent).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistedMismatch);
        assert_eq!(
            err.to_value()["mismatches"],
            json!([{"field": "content", "sent": "<p>y</p>", "persisted": "<p>x</p>"}])
        );
        assert!(check_persisted("template", &object, &json!({"name": "Home"})).is_ok());
    }

    #[test]
    fn published_is_read_from_the_flag_then_the_status() {
        assert_eq!(
            published_of(&json!({"published": false, "status": "published"})),
            Some(false)
        );
        assert_eq!(published_of(&json!({"status": "published"})), Some(true));
        assert_eq!(published_of(&json!({"status": "draft"})), Some(false));
        assert_eq!(published_of(&json!({"name": "x"})), None);
    }
}
