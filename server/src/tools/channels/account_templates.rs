//! Account templates (the account's email and system templates):
//! `channels-account-templates-manage` under `/api/admin/account_templates`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::Module;
use crate::modyo::Query;
use crate::tools::args::Paging;
use crate::tools::engine::tool::ToolDef;
use crate::tools::engine::{
    Action, Answer, Ctx, Managed, Member, Rules, Verb, at, command, echoed, manage, standard,
};

const ACCOUNT_TEMPLATES: &str = "/api/admin/account_templates";

echoed! {
    /// An account template as the API returns it.
    AccountTemplate = "account template" {
        id: i64, uuid: String, name: String
    }
}

impl Member for AccountTemplate {
    const RULES: Rules = Rules::new("account_template", "account_templates")
        .published()
        .hint("call channels-account-templates-manage (action list) to see them");
}

/// Arguments of `channels-account-templates-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `channels-account-templates-manage` can be asked.
    enum AccountTemplateCommand for ManageArgs {
        List => Verb::list(),
        Get { template_id: u64 } => Verb::read("get"),
        Update { template_id: u64 } => Verb::write("update").changes(),
        Restore { template_id: u64 } => Verb::write("restore"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, AccountTemplate, AccountTemplateCommand>(
        "channels-account-templates-manage",
        Module::Channels,
        at(ACCOUNT_TEMPLATES),
    )
    .describe(
        "List, get, update or restore the account's templates. list: data.account_templates + coverage; \
get/update/restore: the template as persisted.",
    )
    .target("template_id", "the account template's id")
    .fields(&["subject", "content"])
    .run(run)
}

/// Runs one command of `channels-account-templates-manage`.
async fn run(
    ctx: Ctx<ManageArgs, AccountTemplate, AccountTemplateCommand>,
) -> Answer<Managed<AccountTemplate>> {
    match &ctx.command {
        AccountTemplateCommand::List => standard::list(&ctx, Query::new()).await,
        AccountTemplateCommand::Get { .. } => standard::get(&ctx).await,
        AccountTemplateCommand::Update { .. } => standard::update(&ctx).await,
        AccountTemplateCommand::Restore { .. } => standard::transition(&ctx, "restored").await,
    }
}
