//! `content-spaces-manage`: list, get, create, update or delete content spaces.
//!
//! [`manage`] decides what is decided locally (which action, the confirmation of a delete)
//! before any request, then runs the action; each write reports the space as persisted (C7).
//! A delete sends the space's name as Modyo's `validation` and starts Modyo's background
//! deletion (`state.status` `queued`, `state.pending`).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{get_reply, list_reply};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{
    ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy, schema,
};
use crate::modyo::{CmsError, ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::content::{Need, SPACES, resolve_space, space_schema, unconfirmed};
use crate::tools::engine::persist;
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// Actions of `content-spaces-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Arguments of `content-spaces-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update or delete.
    action: Option<ManageAction>,
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
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = space_schema();
    data["properties"]["spaces"] = schema::array(space_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-spaces-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete content spaces. list: data.spaces + coverage; get/create/update: \
data is the space as persisted; delete (confirmDelete: true) sends the space's name as Modyo's validation and \
starts Modyo's background deletion: data null, state.status queued, state.pending true.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
        .writes_state(RareState::PENDING.union(RareState::PAGED))
}
async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.uid.is_some(),
        args.default_locale.is_some(),
        args.locales.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, uid, default_locale or locales are given (create or update)".into(),
            ));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    // Decided before any request: an unconfirmed delete sends nothing.
    if action == ManageAction::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-spaces-manage", "delete"));
    }
    let client = call.client()?;
    match action {
        ManageAction::List => {
            list_reply(&call, &args.paging, |items| json!({"spaces": items})).await
        }
        ManageAction::Get => {
            let space = resolve_space(client, space_arg(&args, action)?, Need::Object).await?;
            get_reply(&call, space)
        }
        ManageAction::Create => create(&call, client, &args).await,
        ManageAction::Update => update(&call, client, &args, writes).await,
        ManageAction::Delete => delete(&call, client, &args).await,
    }
}

/// The `space` argument an action needs, or the argument error that names it.
fn space_arg(args: &ManageArgs, action: ManageAction) -> Result<&str, CallError> {
    args.space.as_deref().ok_or_else(|| {
        CallError::Arguments(format!("{action:?} needs space (id, uid or name)").to_lowercase())
    })
}

/// The given writable fields: the body of a create or an update.
fn body(args: &ManageArgs) -> Value {
    let mut body = Map::new();
    for (key, value) in [
        ("name", args.name.clone().map(Value::from)),
        ("uid", args.uid.clone().map(Value::from)),
        (
            "default_locale",
            args.default_locale.clone().map(Value::from),
        ),
        ("locales", args.locales.clone().map(Value::from)),
    ] {
        if let Some(value) = value {
            body.insert(key.to_owned(), value);
        }
    }
    Value::Object(body)
}

/// The answer of a write: the space as persisted, in `status`.
fn write_reply(
    call: &Call,
    object: Value,
    resource: Resource,
    status: &str,
    message: &str,
) -> ToolResult {
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(PostCondition::status(status))
        .legacy(call.mode, || {
            legacy::write(status, message, "space", legacy_object)
        })
        .into())
}

async fn create(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    if args.name.is_none() {
        return Err(CallError::Arguments("create needs name".into()));
    }
    let response = client
        .send(Method::POST, SPACES, &Query::new(), Some(&body(args)))
        .await?;
    let id = response.get("id").cloned().unwrap_or(Value::Null);
    let object = persist::read_back(client, response, &format!("{SPACES}/{id}")).await?;
    let resource = Resource::from_object("space", &object, Some("uid"));
    write_reply(
        call,
        object,
        resource,
        "created",
        "Space created successfully",
    )
}

async fn update(call: &Call, client: &ModyoClient, args: &ManageArgs, writes: bool) -> ToolResult {
    if !writes {
        return Err(CallError::Arguments(
            "update needs at least one of name, default_locale, locales".into(),
        ));
    }
    let space = resolve_space(client, space_arg(args, ManageAction::Update)?, Need::Id).await?;
    let path = space.path();
    let object = persist::write(client, Method::PUT, &path, Some(&body(args)), &path).await?;
    let resource = Resource::from_object("space", &object, Some("uid")).id(space.id);
    write_reply(
        call,
        object,
        resource,
        "updated",
        "Space updated successfully",
    )
}

async fn delete(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let space = resolve_space(client, space_arg(args, ManageAction::Delete)?, Need::Object).await?;
    let name = space
        .object
        .as_ref()
        .and_then(|o| o.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!(
                    "space {} has no name; Modyo's delete needs it as validation",
                    space.id
                ),
            )
        })?
        .to_owned();
    let id = space.id;
    client
        .send(
            Method::DELETE,
            &space.path(),
            &Query::new().push("validation", &name),
            None,
        )
        .await
        .map_err(|e| delete_refused(e, id, &name))?;
    let resource = space.resource();
    Ok(Reply::new(Value::Null)
        .resource(resource)
        .state(PostCondition::status("queued").pending(true))
        .legacy(
            call.mode,
            || json!({"message": "Space deletion started", "action": "queued", "spaceId": id}),
        )
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
