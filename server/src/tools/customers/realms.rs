//! Realms: `customers-realms-manage`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/realms[/{uid}]`): a realm is written at its
//! uid, so every action but `list` and `create` resolves the realm first and writes its own
//! path. `appearance` and `logo` are `PUT`s of the realm; both are checked after the write
//! (C7): every appearance key must come back with the value sent, and the logo must come back
//! set. The logo is given as a URL (`logo_url`) sent as JSON rather than a multipart upload:
//! replay matches JSON bodies only, so a multipart path could not be tested offline (a
//! judgement call, recorded in the report).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{REALMS, Realm, RealmObject, resolve_realm};
use crate::config::Module;
use crate::contract::{ErrorCode, Legacy, PostCondition, Resource, ToolError};
use crate::modyo::Query;
use crate::tools::CallError;
use crate::tools::ToolDef;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{Action, Answer, Ctx, Managed, at, manage, persist, reply};

/// Arguments of `customers-realms-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update, delete, appearance or logo.
    action: Option<Action>,
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
    manage::<ManageArgs, RealmObject>("customers-realms-manage", Module::Customers, at(REALMS))
        .describe(
            "List, get, create, update or delete customer realms, or set their appearance or logo (logo_url). \
realm: uid or name. list: data.realms + coverage; other actions: data is the realm as persisted; \
delete needs confirmDelete: true.",
        )
        .target("realm", "uid or name")
        .fields(&["name", "uid", "description", "enable_sign_up"])
        .mutating(&["appearance", "logo_url"])
        .list(|_| Query::new())
        .action("get", get)
        .on_target()
        .create(&["name", "uid"])
        .action("update", update)
        .on_target()
        .action("delete", delete)
        .on_target()
        .confirmed()
        .action("appearance", appearance)
        .on_target()
        .needs(&["appearance"])
        .action("logo", logo)
        .on_target()
        .needs(&["logo_url"])
        .build()
}

type Realms = Ctx<ManageArgs, RealmObject>;

async fn realm(ctx: &Realms) -> Result<Realm, CallError> {
    Ok(resolve_realm(ctx.client()?, &ctx.target()?).await?)
}

/// `PUT request` to the realm; the realm as persisted (C7).
async fn put(ctx: &Realms, realm: &Realm, request: &Value) -> Result<Value, CallError> {
    let path = realm.path();
    Ok(persist::write(ctx.client()?, Method::PUT, &path, Some(request), &path).await?)
}

fn written(object: Value, message: &str) -> Answer<Managed<RealmObject>> {
    let resource = Resource::from_object("realm", &object, Some("uid"));
    let post = PostCondition::status("updated");
    Ok(reply::saved_as::<RealmObject, _>(object, resource, post, "updated", message).into())
}

async fn get(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let realm = realm(&ctx).await?;
    Ok(reply::one(realm.object.clone(), realm.resource()).into())
}

async fn update(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let fields = persist::given(&json!({
        "name": ctx.args.name, "description": ctx.args.description,
        "enable_sign_up": ctx.args.enable_sign_up,
    }));
    if persist::is_empty(&fields) {
        return Err(CallError::Arguments(
            "update needs at least one of name, description, enable_sign_up".into(),
        ));
    }
    let realm = realm(&ctx).await?;
    let object = put(&ctx, &realm, &fields).await?;
    persist::check_sent("realm", &object, &fields)?;
    written(object, "Realm updated successfully")
}

async fn delete(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let realm = realm(&ctx).await?;
    ctx.client()?
        .send(Method::DELETE, &realm.path(), &Query::new(), None)
        .await?;
    let old = Legacy::gone(
        "deleted",
        "Realm permanently deleted",
        "realmUid",
        realm.uid.clone(),
    );
    Ok(reply::gone_as(realm.resource(), "deleted", old).into())
}

async fn appearance(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let appearance = ctx.args.appearance.clone().unwrap_or_default();
    if appearance.is_empty() {
        return Err(CallError::Arguments(
            "appearance needs at least one setting".into(),
        ));
    }
    let realm = realm(&ctx).await?;
    let object = put(&ctx, &realm, &json!({"appearance": appearance})).await?;
    let persisted = object.get("appearance").cloned().unwrap_or(Value::Null);
    for (key, sent) in &appearance {
        let what = format!("realm '{}' appearance", realm.uid);
        persist::check_key(&persisted, key, sent, &what)?;
    }
    written(object, "Realm appearance updated successfully")
}

async fn logo(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let url = ctx.args.logo_url.clone().unwrap_or_default();
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(ToolError::invalid_parameters(format!(
            "logo_url '{url}' is not an http(s) URL; upload the image as a content asset and pass its url"
        ))
        .into());
    }
    let realm = realm(&ctx).await?;
    let before = realm.object.get("logo_url").cloned().unwrap_or(Value::Null);
    let object = put(&ctx, &realm, &json!({"logo_url": url})).await?;
    let after = object.get("logo_url").cloned().unwrap_or(Value::Null);
    let set = after.as_str().is_some_and(|s| !s.is_empty());
    // The API may re-host the image (another URL); a logo left as it was is a failure.
    if !set || (after == before && after.as_str() != Some(url.as_str())) {
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
    written(object, "Realm logo updated successfully")
}
