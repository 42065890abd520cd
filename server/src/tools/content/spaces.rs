//! Content spaces: `content-spaces-list` and `content-spaces-get`.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Need, SPACES, resolve_space, space_schema};
use crate::config::Module;
use crate::contract::{
    Control, Coverage, Outcome, PostCondition, Reply, Resource, ToolClass, legacy, schema,
};
use crate::modyo::Query;
use crate::tools::args::{Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, persisted, tool};

/// Arguments of `content-spaces-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-spaces-list", Module::Content, ToolClass::Read)
        .describe("List the account's content spaces, one page at a time.")
        .data(schema::array(space_schema()))
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = call.client()?.list(SPACES, "spaces", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let legacy_items = page.items.clone();
    Ok(Reply::new(page.items.into())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("spaces", legacy_items.into(), page.raw_meta.as_ref())
        })
        .into())
}

/// Arguments of `content-spaces-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: String,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-spaces-get", Module::Content, ToolClass::Read)
        .describe("Get one content space by id, uid or name (resolved in that order; ambiguous names fail).")
        .data(space_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let space = resolve_space(call.client()?, &args.space, Need::Object).await?;
    let resource = space.resource();
    let object = space.object.unwrap_or_default();
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}

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
    space: Option<String>,
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
data is the space as persisted; delete (confirmDelete: true): data null, state.status deleted.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
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
    let client = call.client()?;
    let need_space = || {
        args.space.as_deref().ok_or_else(|| {
            CallError::Arguments(format!("{action:?} needs space (id, uid or name)").to_lowercase())
        })
    };
    let body = || {
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
    };
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(SPACES, "spaces", &query).await?;
            let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
            let items = Value::Array(page.items);
            let legacy_items = items.clone();
            Ok(Reply::new(json!({"spaces": items}))
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("spaces", legacy_items, page.raw_meta.as_ref())
                })
                .into())
        }
        ManageAction::Get => {
            let space = resolve_space(client, need_space()?, Need::Object).await?;
            let resource = space.resource();
            let object = space.object.unwrap_or_default();
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .legacy(call.mode, || legacy_object)
                .into())
        }
        ManageAction::Create => {
            if args.name.is_none() {
                return Err(CallError::Arguments("create needs name".into()));
            }
            let response = client
                .send(Method::POST, SPACES, &Query::new(), Some(&body()))
                .await?;
            let id = response.get("id").cloned().unwrap_or(Value::Null);
            let object = persisted(client, response, &format!("{SPACES}/{id}")).await?;
            let resource = Resource::from_object("space", &object, Some("uid"));
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .state(PostCondition::status("created"))
                .legacy(call.mode, || {
                    legacy::write(
                        "created",
                        "Space created successfully",
                        "space",
                        legacy_object,
                    )
                })
                .into())
        }
        ManageAction::Update => {
            if !writes {
                return Err(CallError::Arguments(
                    "update needs at least one of name, default_locale, locales".into(),
                ));
            }
            let space = resolve_space(client, need_space()?, Need::Id).await?;
            let response = client
                .send(Method::PUT, &space.path(), &Query::new(), Some(&body()))
                .await?;
            let object = persisted(client, response, &space.path()).await?;
            let resource = Resource::from_object("space", &object, Some("uid")).id(space.id);
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .state(PostCondition::status("updated"))
                .legacy(call.mode, || {
                    legacy::write(
                        "updated",
                        "Space updated successfully",
                        "space",
                        legacy_object,
                    )
                })
                .into())
        }
        ManageAction::Delete => {
            let space = resolve_space(client, need_space()?, Need::Object).await?;
            if args.confirm_delete != Some(true) {
                let control = Control::cancelled_unconfirmed("content-spaces-manage", "delete");
                let legacy = json!({"message": control.message(), "action": "cancelled"});
                return Ok(Outcome::Control { control, legacy });
            }
            client
                .send(Method::DELETE, &space.path(), &Query::new(), None)
                .await?;
            let resource = space.resource();
            let id = space.id;
            Ok(Reply::new(Value::Null)
                .resource(resource)
                .state(PostCondition::status("deleted"))
                .legacy(call.mode, || json!({"message": "Space permanently deleted", "action": "deleted", "spaceId": id}))
                .into())
        }
    }
}
