//! Edit locks: `channels-locks-manage` (list, get, acquire, release) under
//! `/api/admin/sites/{site_id}/locks`. A lock taken over in the UI lasts two hours.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, check_persisted, deleted, list_page, list_reply, not_found_as, object_reply,
    resolve_site, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{Resource, ToolClass};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const TOOL: &str = "channels-locks-manage";

/// The JSON schema of a lock as the API returns it (loose: echoed).
fn lock_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("lockable_type", Str),
        ("lockable_id", Int),
        ("lockable_name", Str),
        ("user", Obj),
        ("site_id", Int),
        ("created_at", Str),
        ("expires_at", Str),
    ])
}

/// Actions of `channels-locks-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Acquire,
    Release,
}

/// What a lock holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Lockable {
    Page,
    Template,
    Widget,
    Menu,
}

impl Lockable {
    fn as_str(self) -> &'static str {
        match self {
            Lockable::Page => "page",
            Lockable::Template => "template",
            Lockable::Widget => "widget",
            Lockable::Menu => "menu",
        }
    }
}

/// Arguments of `channels-locks-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), acquire or release.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Lock id (get, release).
    lock_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// What to lock: page, template, widget or menu (acquire).
    lockable_type: Option<Lockable>,
    /// Id of the page, template, widget or menu to lock (acquire).
    lockable_id: Option<u64>,
}

fn manage_schema() -> Value {
    let mut data = lock_schema();
    data["properties"]["locks"] = schema::array(lock_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(TOOL, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, acquire or release a site's edit locks. list: data.locks + coverage; get/acquire: the lock \
as persisted; release: data null, state.status released.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["acquire", "release"])
        .handle(manage)
}

fn lock_resource(object: &Value) -> Resource {
    Resource::from_object("lock", object, None)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let action = match args.action {
        Some(action) => action,
        None if args.lockable_type.is_some() || args.lockable_id.is_some() => {
            return Err(CallError::Arguments(
                "action is required when lockable_type or lockable_id is given (acquire)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let need = if action == Action::List {
        Need::Object
    } else {
        Need::Id
    };
    let site = resolve_site(client, &args.site, need).await?;
    let base = site.at("locks");
    let lock_id = || {
        args.lock_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs lock_id",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let read = |id: u64| {
        let path = format!("{base}/{id}");
        let site_id = site.id;
        async move {
            client.get(&path, &Query::new()).await.map_err(not_found_as(|| {
                format!("lock {id} not found in site {site_id}; call channels-locks-manage (action list) to see them")
            }))
        }
    };
    match action {
        Action::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, &base, "locks", &query).await?;
            Ok(list_reply(
                call.mode,
                "locks",
                listed,
                Some(site.resource()),
            ))
        }
        Action::Get => {
            let object = read(lock_id()?).await?;
            let resource = lock_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Acquire => {
            let (Some(kind), Some(id)) = (args.lockable_type, args.lockable_id) else {
                return Err(CallError::Arguments(
                    "acquire needs lockable_type and lockable_id".into(),
                ));
            };
            let sent = json!({"lockable_type": kind.as_str(), "lockable_id": id});
            let object = write(client, Method::POST, &base, Some(&sent), |r| {
                format!("{base}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            // The type may come back in the API's own spelling (Page); the id may not differ.
            check_persisted("lock", &object, &json!({"lockable_id": id}))?;
            let resource = lock_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "acquired",
                "lock",
                "Lock acquired successfully",
            ))
        }
        Action::Release => {
            let id = lock_id()?;
            let object = read(id).await?;
            client
                .send(Method::DELETE, &format!("{base}/{id}"), &Query::new(), None)
                .await?;
            Ok(deleted(
                call.mode,
                lock_resource(&object),
                "released",
                "Lock released successfully",
                "lockId",
                id,
            ))
        }
    }
}
