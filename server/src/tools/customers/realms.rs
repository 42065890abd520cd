//! Realms: `customers-realms-manage`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/realms[/{uid}]`). `appearance` and `logo`
//! are `PUT`s of the realm; both are checked after the write (C7): every appearance key must
//! come back with the value sent, and the logo must come back set. The logo is given as a URL
//! (`logo_url`) sent as JSON rather than a multipart upload: the HTTP client carries no
//! multipart support and replay matches JSON bodies only, so a multipart path could not be
//! tested offline (a judgement call, recorded in the report).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{REALMS, Realm, resolve_realm};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, PostCondition, Resource, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{self, body, confirmed, created_object, read_back, required};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A realm as the API returns it (loose: echoed).
pub(crate) fn realm_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uid", Kind::Str),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("default_lang", Kind::Str),
        ("enable_sign_up", Kind::Bool),
        ("users_count", Kind::Int),
        ("appearance", Kind::Obj),
        ("logo_url", Kind::Str),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `customers-realms-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
    Appearance,
    Logo,
}

/// Arguments of `customers-realms-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, appearance or logo.
    action: Option<ManageAction>,
    /// Realm uid or name (all but list and create).
    realm: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Unique identifier (create).
    uid: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Whether end users can sign up (create, update).
    enable_sign_up: Option<bool>,
    /// Appearance settings to set, such as primary_color (appearance).
    appearance: Option<Map<String, Value>>,
    /// Public URL of the logo image (logo).
    logo_url: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("customers-realms-manage", Module::Customers, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete customer realms, or set their appearance or logo (logo_url). \
realm: uid or name. list: data.realms + coverage; other actions: data is the realm as persisted; \
delete needs confirmDelete: true.",
        )
        .data(kit::manage_schema(realm_schema(), "realms"))
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &["create", "update", "delete", "appearance", "logo"],
        )
        .handle(manage)
}

fn realm_resource(object: &Value) -> Resource {
    Resource::from_object("realm", object, Some("uid"))
}

fn written(call: &Call, object: Value, status: &str, message: &str) -> ToolResult {
    Ok(kit::written(
        call.mode,
        realm_resource(&object),
        object,
        PostCondition::status(status),
        status,
        message.into(),
        "realm",
    ))
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("enable_sign_up", args.enable_sign_up.map(Value::from)),
    ]);
    let writes = !kit::is_empty(&fields)
        || args.uid.is_some()
        || args.appearance.is_some()
        || args.logo_url.is_some();
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(kit::action_required(
                "name, uid, description, enable_sign_up, appearance or logo_url",
            ));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    let client = call.client()?;
    let realm = || required(args.realm.as_deref(), "this action", "realm (uid or name)");
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(REALMS, "realms", &query).await?;
            Ok(kit::list_reply(call.mode, "realms", page, true, None))
        }
        ManageAction::Get => {
            let realm = resolve_realm(client, realm()?).await?;
            Ok(kit::object_reply(call.mode, realm.resource(), realm.object))
        }
        ManageAction::Create => {
            let name = required(args.name.as_deref(), "create", "name")?;
            let uid = required(args.uid.as_deref(), "create", "uid")?;
            let request = body(vec![
                ("name", Some(Value::from(name))),
                ("uid", Some(Value::from(uid))),
                ("description", args.description.clone().map(Value::from)),
                ("enable_sign_up", args.enable_sign_up.map(Value::from)),
            ]);
            let response = client
                .send(Method::POST, REALMS, &Query::new(), Some(&request))
                .await?;
            let object = created_object(response, "realm")?;
            written(&call, object, "created", "Realm created successfully")
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, enable_sign_up".into(),
                ));
            }
            let realm = resolve_realm(client, realm()?).await?;
            let object = put(&call, &realm, &fields).await?;
            written(&call, object, "updated", "Realm updated successfully")
        }
        ManageAction::Delete => {
            if let Err(control) =
                confirmed(args.confirm_delete, "customers-realms-manage", "delete")
            {
                return Ok(control);
            }
            let realm = resolve_realm(client, realm()?).await?;
            client
                .send(Method::DELETE, &realm.path(), &Query::new(), None)
                .await?;
            Ok(kit::deleted(
                call.mode,
                realm.resource(),
                "Realm permanently deleted".into(),
                "realmUid",
                Value::from(realm.uid.clone()),
            ))
        }
        ManageAction::Appearance => {
            let appearance = required(args.appearance.as_ref(), "appearance", "appearance")?;
            if appearance.is_empty() {
                return Err(CallError::Arguments(
                    "appearance needs at least one setting".into(),
                ));
            }
            let realm = resolve_realm(client, realm()?).await?;
            let object = put(&call, &realm, &json!({"appearance": appearance})).await?;
            let persisted = object.get("appearance").cloned().unwrap_or(Value::Null);
            for (key, sent) in appearance {
                kit::check_persisted(
                    &persisted,
                    key,
                    sent,
                    &format!("realm '{}' appearance", realm.uid),
                )?;
            }
            written(
                &call,
                object,
                "updated",
                "Realm appearance updated successfully",
            )
        }
        ManageAction::Logo => {
            let url = required(args.logo_url.as_deref(), "logo", "logo_url")?;
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                return Err(ToolError::invalid_parameters(format!(
                    "logo_url '{url}' is not an http(s) URL; upload the image as a content asset and pass its url"
                ))
                .into());
            }
            let realm = resolve_realm(client, realm()?).await?;
            let before = realm.object.get("logo_url").cloned().unwrap_or(Value::Null);
            let object = put(&call, &realm, &json!({"logo_url": url})).await?;
            let after = object.get("logo_url").cloned().unwrap_or(Value::Null);
            let set = after.as_str().is_some_and(|s| !s.is_empty());
            // The API may re-host the image (another URL); a logo left as it was is a failure.
            if !set || (after == before && after.as_str() != Some(url)) {
                return Err(ToolError::new(
                    ErrorCode::PersistedMismatch,
                    format!(
                        "realm '{}': the logo was sent but the API persisted logo_url = {after}; check the URL is a reachable image",
                        realm.uid
                    ),
                )
                .detail("persisted", after)
                .into());
            }
            written(&call, object, "updated", "Realm logo updated successfully")
        }
    }
}

async fn put(call: &Call, realm: &Realm, request: &Value) -> Result<Value, CallError> {
    let client = call.client()?;
    let path = realm.path();
    let response = client
        .send(Method::PUT, &path, &Query::new(), Some(request))
        .await?;
    Ok(read_back(client, response, &path).await?)
}
