//! `content-spaces-manage`: list, get, create, update or delete content spaces, declared on the
//! engine ([`crate::tools::engine::manage`]).
//!
//! The standard actions read and write `/api/admin/content/spaces` (each write reports the
//! space as persisted, C7); a space is named by id, uid or name, as every content tool names
//! it ([`Space`]). The delete is the space's own: it sends the space's name as Modyo's
//! `validation` and starts Modyo's background deletion (`state.status` `queued`,
//! `state.pending`).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolError};
use crate::modyo::{CmsError, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::content::{Confirm, SPACES, Space, SpaceObject};
use crate::tools::engine::tool::ToolDef;
use crate::tools::engine::{
    Action, Answer, Ctx, Managed, Need, Verb, at, command, container, manage, standard,
};

/// Arguments of `content-spaces-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update or delete.
    action: Option<Action>,
    /// Space id, uid or name (get, update, delete).
    space: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Unique identifier (create).
    uid: Option<String>,
    /// Default locale, such as es or en (create, update).
    default_locale: Option<String>,
    /// Enabled locales (create, update).
    locales: Option<Vec<String>>,
    #[serde(flatten)]
    confirm: Confirm,
}

command! {
    /// What `content-spaces-manage` can be asked.
    enum SpaceCommand for ManageArgs {
        List => Verb::list(),
        Get { space: Ident } => Verb::read("get"),
        Create { name: String } => Verb::write("create"),
        Update { space: Ident } => Verb::write("update").changes(),
        Delete { space: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, SpaceObject, SpaceCommand>("content-spaces-manage", Module::Content, at(SPACES))
        .describe(
            "List, get, create, update or delete content spaces. list: data.spaces + coverage; get/create/update: \
data is the space as persisted; delete (confirmDelete: true) sends the space's name as Modyo's validation and \
starts Modyo's background deletion: data null, state.status queued, state.pending true.",
        )
        .target("space", "id, uid or name")
        .fields(&["name", "uid", "default_locale", "locales"])
        .resolve(container::as_target::<Space, _>)
        .run(run)
        .writes_state(RareState::PENDING)
}

/// Runs one command of `content-spaces-manage`.
async fn run(ctx: Ctx<ManageArgs, SpaceObject, SpaceCommand>) -> Answer<Managed<SpaceObject>> {
    match &ctx.command {
        SpaceCommand::List => standard::list(&ctx, Query::new()).await,
        SpaceCommand::Get { .. } => standard::get(&ctx).await,
        SpaceCommand::Create { .. } => standard::create(&ctx).await,
        SpaceCommand::Update { .. } => standard::update(&ctx).await,
        SpaceCommand::Delete { .. } => delete(ctx).await,
    }
}

/// `DELETE <space>?validation=<name>`: Modyo starts deleting the space in the background.
async fn delete(ctx: Ctx<ManageArgs, SpaceObject, SpaceCommand>) -> Answer<Managed<SpaceObject>> {
    let found = ctx.found(Need::Object).await?;
    let object = found.object();
    let id = found.id;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("space {id} has no name; Modyo's delete needs it as validation"),
            )
        })?
        .to_owned();
    ctx.client()?
        .send(
            Method::DELETE,
            &ctx.coll.item(id),
            &Query::new().push("validation", &name),
            None,
        )
        .await
        .map_err(|e| delete_refused(e, id, &name))?;
    let old = Legacy::gone("queued", "Space deletion started", "spaceId", id);
    Ok(Reply::new(Managed::Gone)
        .resource(ctx.coll.resource(&object, Some(id)))
        .state(PostCondition::status("queued").pending(true))
        .old(old)
        .into())
}

/// A refused space delete. Modyo answers 401 when `validation` is not the space's name: after
/// the space was read with the same token, that 401 is the validation, not the credentials.
fn delete_refused(error: CmsError, id: u64, name: &str) -> ToolError {
    if error.status() == Some(401) {
        return ToolError::new(
            ErrorCode::Rejected,
            format!(
                "Modyo refused to delete space {id}: its validation (the space's name, '{name}') did not match (401)"
            ),
        )
        .retryable(false);
    }
    ToolError::from(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16) -> CmsError {
        CmsError::Status {
            method: Method::DELETE,
            path: "/api/admin/content/spaces/7".into(),
            status,
            body: None,
            text: None,
            empty: true,
            retry_after: None,
        }
    }

    #[test]
    fn a_refused_delete_names_the_validation_not_the_credentials() {
        let refused = delete_refused(answered(401), 7, "Blog");
        assert_eq!(refused.code(), ErrorCode::Rejected);
        assert!(
            refused.to_value()["message"]
                .as_str()
                .unwrap()
                .contains("'Blog'")
        );
        assert_eq!(
            delete_refused(answered(404), 7, "Blog").code(),
            ErrorCode::NotFound
        );
    }
}
