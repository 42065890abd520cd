//! Account templates (the account's email and system templates):
//! `channels-account-templates-manage` under `/api/admin/account_templates`.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{
    body, check_persisted, list_page, list_reply, not_found_as, object_reply, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{Resource, ToolClass};
use crate::modyo::Query;
use crate::tools::args::Paging;
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const ACCOUNT_TEMPLATES: &str = "/api/admin/account_templates";

/// The JSON schema of an account template as the API returns it (loose: echoed).
fn template_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("type", Str),
        ("subject", Str),
        ("content", Str),
        ("customized", Bool),
        ("created_at", Str),
        ("updated_at", Str),
    ])
}

/// Actions of `channels-account-templates-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Update,
    Restore,
}

/// Arguments of `channels-account-templates-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), update or restore (back to the default body).
    action: Option<Action>,
    /// Account template id (get, update, restore).
    template_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Subject line (update).
    subject: Option<String>,
    /// Body (update).
    content: Option<String>,
}

fn manage_schema() -> Value {
    let mut data = template_schema();
    data["properties"]["account_templates"] = schema::array(template_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("channels-account-templates-manage", Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, update or restore the account's templates. list: data.account_templates + coverage; \
get/update/restore: the template as persisted.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["update", "restore"])
        .handle(manage)
}

fn template_resource(object: &Value) -> Resource {
    Resource::from_object("account_template", object, None)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = args.subject.is_some() || args.content.is_some();
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when subject or content is given (update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let template_id = || {
        args.template_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs template_id",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let not_found = |id: u64| {
        move || {
            format!(
                "account template {id} not found; call channels-account-templates-manage (action list) to see them"
            )
        }
    };
    match action {
        Action::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, ACCOUNT_TEMPLATES, "account_templates", &query).await?;
            Ok(list_reply(call.mode, "account_templates", listed, None))
        }
        Action::Get => {
            let id = template_id()?;
            let object = client
                .get(&format!("{ACCOUNT_TEMPLATES}/{id}"), &Query::new())
                .await
                .map_err(not_found_as(not_found(id)))?;
            let resource = template_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Update => {
            let id = template_id()?;
            if !writes {
                return Err(CallError::Arguments(
                    "update needs subject or content".into(),
                ));
            }
            let sent = body(vec![
                ("subject", args.subject.clone().map(Value::from)),
                ("content", args.content.clone().map(Value::from)),
            ]);
            let path = format!("{ACCOUNT_TEMPLATES}/{id}");
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("account template", &object, &sent)?;
            let resource = template_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "account_template",
                "Account template updated successfully",
            ))
        }
        Action::Restore => {
            let id = template_id()?;
            let path = format!("{ACCOUNT_TEMPLATES}/{id}");
            let object = write(
                client,
                Method::POST,
                &format!("{path}/restore"),
                None,
                |_| path.clone(),
            )
            .await
            .map_err(|e| match e {
                CallError::Tool(e) if e.code() == crate::contract::ErrorCode::NotFound => {
                    CallError::Tool(e.with_message(not_found(id)()))
                }
                other => other,
            })?;
            let resource = template_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "restored",
                "account_template",
                "Account template restored successfully",
            ))
        }
    }
}
