//! The account's settings: `core-settings-manage`.
//!
//! `GET /api/admin/account` is documented (as the token check) but its shape is not; the
//! `PUT` is `[synthetic]`. The account is always one entity, so there is no list action and
//! no collection: `data` is the account itself.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Lang;
use crate::config::Module;
use crate::contract::{Legacy, PostCondition, Reply, Resource, ToolClass};
use crate::modyo::Query;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Action, Answer, Echo, Verb, command, echoed, persist};

const ACCOUNT: &str = "/api/admin/account";

echoed! {
    /// The account as the API returns it (keys are what the docs let us guess).
    Account = "account" {
        id: i64, uuid: String, name: String
    }
}

command! {
    /// What `core-settings-manage` can be asked.
    enum SettingsCommand for ManageArgs {
        Get => Verb::read("get"),
        Update => Verb::write("update"),
    }
}

const SETTINGS_MANAGE: &str = "core-settings-manage";

/// The settings an update may send.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Settings {
    /// Account name (update).
    name: Option<String>,
    /// Default language (update).
    lang: Option<Lang>,
    /// Time zone, such as America/Santiago (update).
    time_zone: Option<String>,
}

/// Arguments of `core-settings-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// get (default) or update.
    action: Option<Action>,
    #[serde(flatten)]
    settings: Settings,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(SETTINGS_MANAGE, Module::Core, ToolClass::Gated)
        .describe(
            "Get or update the account's settings (name, lang, time_zone). data is the account as the API \
returns it (after update: as persisted).",
        )
        .resource()
        .state()
        .actions(
            command::words::<SettingsCommand>(true),
            command::words::<SettingsCommand>(false),
        )
        .handle(manage)
        .offers::<SettingsCommand>()
}

async fn manage(call: Call, args: ManageArgs) -> Answer<Echo<Account>> {
    let _ = args.verify;
    let fields = persist::given(&args.settings);
    let update = match &args.action {
        Some(action) => {
            let command =
                command::parse::<SettingsCommand>(SETTINGS_MANAGE, action.as_str(), &args)?;
            matches!(command, SettingsCommand::Update)
        }
        None if !persist::is_empty(&fields) => {
            return Err(CallError::Arguments(
                "action is required when name, lang or time_zone are given; without an action the call is a get".into(),
            ));
        }
        None => false,
    };
    let client = call.client()?;
    if !update {
        let account = client.get(ACCOUNT, &Query::new()).await?;
        let resource = Resource::from_object("account", &account, Some("host"));
        return Ok(Reply::new(Echo::new(account)).resource(resource).into());
    }
    if persist::is_empty(&fields) {
        return Err(CallError::Arguments(
            "update needs at least one of name, lang, time_zone".into(),
        ));
    }
    let account = persist::write(client, Method::PUT, ACCOUNT, Some(&fields), ACCOUNT).await?;
    persist::check_sent("account", &account, &fields)?;
    let resource = Resource::from_object("account", &account, Some("host"));
    let old = Legacy::write("updated", "Settings updated successfully", "settings");
    Ok(Reply::new(Echo::new(account))
        .resource(resource)
        .state(PostCondition::status("updated"))
        .old(old)
        .into())
}
