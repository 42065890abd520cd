//! Global variables: `channels-variables-manage`, at account scope (`/api/admin/variables`)
//! or, with `site`, at site scope (`/api/admin/sites/{site_id}/variables`).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{
    Need, body, check_persisted, deleted, list_page, list_reply, not_found_as, object_reply,
    resolve_site, unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{Resource, ToolClass};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const TOOL: &str = "channels-variables-manage";
const ACCOUNT_VARIABLES: &str = "/api/admin/variables";

/// The JSON schema of a variable as the API returns it (loose: echoed).
fn variable_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("value", Str),
        ("values", Obj),
        ("description", Str),
        ("site_id", Int),
        ("created_at", Str),
        ("updated_at", Str),
    ])
}

/// Actions of `channels-variables-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Arguments of `channels-variables-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update or delete.
    action: Option<Action>,
    /// Site id, host, uuid or name for site variables; omit for account variables.
    site: Option<Ident>,
    /// Variable id (get, update, delete).
    variable_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Name, read in Liquid as vars.<name> (create, update).
    name: Option<String>,
    /// Value, plain text without Liquid (create, update).
    #[schemars(length(max = 65535))]
    value: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = variable_schema();
    data["properties"]["variables"] = schema::array(variable_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(TOOL, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete global variables of the account, or of a site when site is given. \
list: data.variables + coverage; get/create/update: the variable as persisted; delete (confirmDelete: true): data null.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
}

fn variable_resource(object: &Value) -> Resource {
    Resource::from_object("variable", object, None)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.value.is_some(),
        args.description.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, value or description is given (create or update)"
                    .into(),
            ));
        }
        None => Action::Get,
    };
    if args
        .value
        .as_ref()
        .is_some_and(|v| v.chars().count() > 65_535)
    {
        return Err(CallError::Arguments(
            "value is longer than 65,535 characters".into(),
        ));
    }
    let client = call.client()?;
    let site = match &args.site {
        Some(site) => {
            let need = if action == Action::List {
                Need::Object
            } else {
                Need::Id
            };
            Some(resolve_site(client, site, need).await?)
        }
        None => None,
    };
    let base = site
        .as_ref()
        .map_or_else(|| ACCOUNT_VARIABLES.to_owned(), |s| s.at("variables"));
    let scope = site
        .as_ref()
        .map_or_else(|| "the account".to_owned(), |s| format!("site {}", s.id));
    let variable_id = || {
        args.variable_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs variable_id",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let fields = || {
        body(vec![
            ("name", args.name.clone().map(Value::from)),
            ("value", args.value.clone().map(Value::from)),
            ("description", args.description.clone().map(Value::from)),
        ])
    };
    let read = |id: u64| {
        let path = format!("{base}/{id}");
        let scope = scope.clone();
        async move {
            client.get(&path, &Query::new()).await.map_err(not_found_as(|| {
                format!("variable {id} not found in {scope}; call channels-variables-manage (action list) to see them")
            }))
        }
    };
    match action {
        Action::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, &base, "variables", &query).await?;
            Ok(list_reply(
                call.mode,
                "variables",
                listed,
                site.map(|s| s.resource()),
            ))
        }
        Action::Get => {
            let object = read(variable_id()?).await?;
            let resource = variable_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Create => {
            if args.name.is_none() || args.value.is_none() {
                return Err(CallError::Arguments("create needs name and value".into()));
            }
            let sent = fields();
            let object = write(client, Method::POST, &base, Some(&sent), |r| {
                format!("{base}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            check_persisted("variable", &object, &sent)?;
            let resource = variable_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "created",
                "variable",
                "Variable created successfully",
            ))
        }
        Action::Update => {
            let id = variable_id()?;
            if !writes {
                return Err(CallError::Arguments(
                    "update needs name, value or description".into(),
                ));
            }
            let sent = fields();
            let path = format!("{base}/{id}");
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("variable", &object, &sent)?;
            let resource = variable_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "variable",
                "Variable updated successfully",
            ))
        }
        Action::Delete => {
            let id = variable_id()?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(TOOL, "delete"));
            }
            let object = read(id).await?;
            client
                .send(Method::DELETE, &format!("{base}/{id}"), &Query::new(), None)
                .await?;
            Ok(deleted(
                call.mode,
                variable_resource(&object),
                "deleted",
                "Variable permanently deleted",
                "variableId",
                id,
            ))
        }
    }
}
