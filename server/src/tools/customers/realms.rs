//! Realms: `customers-realms-manage`.
//!
//! Modyo documents three realm operations: the list (`GET /api/admin/customers/realms`, filter
//! `query`), create (`POST` of `{name, slug}`) and delete (`DELETE .../realms/{slug}`, whose
//! `validation` parameter repeats the realm's name, as the admin's confirmation box does). A
//! realm is `{id, name, slug, user_count, created_at}`; `get` reads it from the list. There is
//! no documented way to change a realm (no `PUT`, no appearance or logo endpoint), so `update`,
//! `appearance` and `logo` answer an error that says so and send nothing.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{REALMS, Realm, RealmObject};
use crate::config::Module;
use crate::contract::Legacy;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Container, Ctx, Managed, Need, Verb, at, command, manage, reply, standard,
};

/// Why a realm cannot be changed through the API.
const NOT_EDITABLE: &str = "Modyo's published API has no endpoint to change a realm (its name, appearance or logo): \
realms can only be listed, created ({name, slug}) and deleted. Change it in the Modyo admin (Customers > Realms > Settings).";

/// Arguments of `customers-realms-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create or delete (update, appearance and logo are not in Modyo's API).
    action: Option<Action>,
    /// Realm slug or name (get, delete).
    realm: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Keywords searched in slug or name (list).
    query: Option<String>,
    /// Name (create).
    name: Option<String>,
    /// Unique slug: the `realm_uid` of every path under the realm (create).
    slug: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

command! {
    /// What `customers-realms-manage` can be asked.
    enum RealmCommand for ManageArgs {
        List => Verb::list(),
        Get { realm: Ident } => Verb::read("get"),
        Create { name: String, slug: String } => Verb::write("create"),
        Delete { realm: Ident } => Verb::write("delete").confirmed(),
        Update => Verb::write("update").refused(NOT_EDITABLE),
        Appearance => Verb::write("appearance").refused(NOT_EDITABLE),
        Logo => Verb::write("logo").refused(NOT_EDITABLE),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, RealmObject, RealmCommand>("customers-realms-manage", Module::Customers, at(REALMS))
        .describe(
            "List, get, create or delete customer realms ({id, name, slug, user_count, created_at}). realm: slug or \
name. list: data.realms + coverage (query filters slug or name); get: the realm; create: name and slug; delete \
needs confirmDelete: true. Modyo's API cannot change a realm: update, appearance and logo answer an error.",
        )
        .target("realm", "slug or name")
        .fields(&["name", "slug"])
        .run(run)
}

/// Runs one command of `customers-realms-manage`.
async fn run(ctx: Ctx<ManageArgs, RealmObject, RealmCommand>) -> Answer<Managed<RealmObject>> {
    match &ctx.command {
        RealmCommand::List => {
            standard::list(
                &ctx,
                Query::new().push_opt("query", ctx.args.query.as_deref()),
            )
            .await
        }
        RealmCommand::Get { .. } => get(ctx).await,
        RealmCommand::Create { .. } => standard::create(&ctx).await,
        RealmCommand::Delete { .. } => delete(ctx).await,
        RealmCommand::Update | RealmCommand::Appearance | RealmCommand::Logo => {
            standard::refused(&ctx).await
        }
    }
}

type Realms = Ctx<ManageArgs, RealmObject, RealmCommand>;

async fn realm(ctx: &Realms) -> Result<Realm, CallError> {
    Ok(Realm::resolve(ctx.client()?, &ctx.target()?, Need::Object).await?)
}

async fn get(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let realm = realm(&ctx).await?;
    Ok(reply::one(realm.object.clone(), realm.resource()).into())
}

/// `DELETE .../realms/{slug}?validation=<name>`: Modyo deletes a realm only when `validation`
/// repeats its name.
async fn delete(ctx: Realms) -> Answer<Managed<RealmObject>> {
    let realm = realm(&ctx).await?;
    let name = realm
        .object
        .get("name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let query = Query::new().push("validation", name);
    ctx.client()?
        .send(Method::DELETE, &realm.path(), &query, None)
        .await?;
    let old = Legacy::gone(
        "deleted",
        "Realm permanently deleted",
        "realmUid",
        realm.slug.clone(),
    );
    Ok(reply::gone_as(realm.resource(), "deleted", old).into())
}
