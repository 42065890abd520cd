//! Edit locks: `channels-locks-manage` (list, get, acquire, release) under
//! `/api/admin/sites/{site_id}/locks`. A lock taken over in the UI lasts two hours.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Site;
use crate::config::Module;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Echoed, Managed, Member, Need, Rules, Verb, body, command, echoed, manage,
    persist, reply, standard, within,
};

echoed! {
    /// A lock as the API returns it (it has no `name`: the key is declared because a
    /// non-numeric identifier is matched against it).
    Lock = "lock" {
        id: i64, uuid: String, name: String
    }
}

impl Member for Lock {
    const RULES: Rules = Rules::new("lock", "locks")
        .published()
        .hint("call channels-locks-manage (action list) to see them");
}

/// What a lock holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Lockable {
    Page,
    Template,
    Widget,
    Menu,
}

/// The keys of a lock an acquire sends; without `lockable_type`, the ones checked on the lock
/// as persisted.
#[derive(Serialize)]
struct LockBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    lockable_type: Option<Lockable>,
    lockable_id: u64,
}

/// Arguments of `channels-locks-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `channels-locks-manage` can be asked.
    enum LockCommand for ManageArgs {
        List => Verb::list(),
        Get { lock_id: u64 } => Verb::read("get"),
        Acquire { lockable_type: Lockable, lockable_id: u64 } => Verb::write("acquire"),
        Release { lock_id: u64 } => Verb::write("release"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Lock, LockCommand>("channels-locks-manage", Module::Channels, within::<Site, _>())
        .describe(
            "List, get, acquire or release a site's edit locks. list: data.locks + coverage; get/acquire: the lock \
as persisted; release: data null, state.status released.",
        )
        .target("lock_id", "the lock's id")
        .mutating(&["lockable_type", "lockable_id"])
        .run(run)
}

/// Runs one command of `channels-locks-manage`.
async fn run(ctx: Ctx<ManageArgs, Lock, LockCommand>) -> Answer<Managed<Lock>> {
    match &ctx.command {
        LockCommand::List => standard::list(&ctx, Query::new()).await,
        LockCommand::Get { .. } => standard::get(&ctx).await,
        LockCommand::Acquire { .. } => acquire(ctx).await,
        LockCommand::Release { .. } => release(ctx).await,
    }
}

type Locks = Ctx<ManageArgs, Lock, LockCommand>;

async fn acquire(ctx: Locks) -> Answer<Managed<Lock>> {
    let (Some(kind), Some(id)) = (ctx.args.lockable_type, ctx.args.lockable_id) else {
        return Err(CallError::Arguments(
            "acquire needs lockable_type and lockable_id".into(),
        ));
    };
    let sent = body(LockBody {
        lockable_type: Some(kind),
        lockable_id: id,
    });
    let object = persist::create(ctx.client()?, &ctx.coll.path, &sent, Lock::NAME).await?;
    // The type may come back in the API's own spelling (Page); the id may not differ.
    let checked = body(LockBody {
        lockable_type: None,
        lockable_id: id,
    });
    persist::check_sent(Lock::NAME, &object, &checked)?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<Lock, _>(object, resource, "acquired").into())
}

async fn release(ctx: Locks) -> Answer<Managed<Lock>> {
    let found = ctx.found(Need::Object).await?;
    ctx.client()?
        .send(
            Method::DELETE,
            &ctx.coll.item(found.id),
            &Query::new(),
            None,
        )
        .await?;
    let resource = ctx.coll.resource(&found.object(), Some(found.id));
    let message = "Lock released successfully";
    Ok(reply::gone::<Lock, _>(resource, found.id, "released", message).into())
}
