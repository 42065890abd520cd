//! The account's settings: `core-settings-manage`.
//!
//! `GET /api/admin/account` is documented (as the token check) but its shape is not; the
//! `PUT` is `[synthetic]`. The account is always one entity, so there is no list action.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::kit::{self, body, read_back};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, Resource, ToolClass};
use crate::modyo::Query;
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const ACCOUNT: &str = "/api/admin/account";

/// The account as the API returns it (loose: echoed; keys are what the docs let us guess).
pub(crate) fn account_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("host", Kind::Str),
        ("url", Kind::Str),
        ("lang", Kind::Str),
        ("time_zone", Kind::Str),
        ("logo_url", Kind::Str),
        ("sites_count", Kind::Int),
        ("spaces_count", Kind::Int),
        ("realms_count", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `core-settings-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    Get,
    Update,
}

/// Default language of the account.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Lang {
    En,
    Es,
    Pt,
}

impl Lang {
    fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Pt => "pt",
        }
    }
}

/// Arguments of `core-settings-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// get (default) or update.
    action: Option<ManageAction>,
    /// Account name (update).
    name: Option<String>,
    /// Default language (update).
    lang: Option<Lang>,
    /// Time zone, such as America/Santiago (update).
    time_zone: Option<String>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("core-settings-manage", Module::Core, ToolClass::Gated)
        .describe(
            "Get or update the account's settings (name, lang, time_zone). data is the account as the API \
returns it (after update: as persisted).",
        )
        .data(account_schema())
        .resource()
        .state()
        .actions(&["get"], &["update"])
        .handle(manage)
}

fn account_resource(account: &Value) -> Resource {
    Resource::from_object("account", account, Some("host"))
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("lang", args.lang.map(|l| Value::from(l.as_str()))),
        ("time_zone", args.time_zone.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required("name, lang or time_zone"));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    let client = call.client()?;
    match action {
        ManageAction::Get => {
            let account = client.get(ACCOUNT, &Query::new()).await?;
            Ok(kit::object_reply(
                call.mode,
                account_resource(&account),
                account,
            ))
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, lang, time_zone".into(),
                ));
            }
            let response = client
                .send(Method::PUT, ACCOUNT, &Query::new(), Some(&fields))
                .await?;
            let account = read_back(client, response, ACCOUNT).await?;
            Ok(kit::written(
                call.mode,
                account_resource(&account),
                account,
                PostCondition::status("updated"),
                "updated",
                "Settings updated successfully".into(),
                "settings",
            ))
        }
    }
}
