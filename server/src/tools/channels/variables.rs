//! Global variables: `channels-variables-manage`, at account scope (`/api/admin/variables`)
//! or, with `site`, at site scope (`/api/admin/sites/{site_id}/variables`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Site;
use crate::config::Module;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Given, Managed, Member, Rules, Scope, Verb, command, container, echoed,
    manage, scoped, standard,
};

const ACCOUNT_VARIABLES: &str = "/api/admin/variables";

echoed! {
    /// A variable as the API returns it.
    Variable = "variable" {
        id: i64, uuid: String, name: String
    }
}

impl Member for Variable {
    const RULES: Rules = Rules::new("variable", "variables")
        .published()
        .hint("call channels-variables-manage (action list) to see them");
}

/// Arguments of `channels-variables-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `channels-variables-manage` can be asked.
    enum VariableCommand for ManageArgs {
        List => Verb::list(),
        Get { variable_id: u64 } => Verb::read("get"),
        Create { name: String, value: String } => Verb::write("create"),
        Update { variable_id: u64 } => Verb::write("update").changes(),
        Delete { variable_id: u64 } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    let scope = scoped(|call: Call, given: Given, verb: &'static Verb| async move {
        if given.get("site").is_none() {
            let mut scope = Scope::at(ACCOUNT_VARIABLES);
            scope.coll = scope.coll.within("the account");
            return Ok(scope);
        }
        container::scope::<Site, _>(call, given, verb).await
    });
    manage::<ManageArgs, Variable, VariableCommand>("channels-variables-manage", Module::Channels, scope)
        .describe(
            "List, get, create, update or delete global variables of the account, or of a site when site is given. \
list: data.variables + coverage; get/create/update: the variable as persisted; delete (confirmDelete: true): data null. \
Unverified: one value and description per variable; docs: one value per language (es/en/pt, one default), scopes account/app/widget.",
        )
        .target("variable_id", "the variable's id")
        .fields(&["name", "value", "description"])
        .run(run)
}

/// Runs one command of `channels-variables-manage`.
async fn run(ctx: Ctx<ManageArgs, Variable, VariableCommand>) -> Answer<Managed<Variable>> {
    match &ctx.command {
        VariableCommand::List => standard::list(&ctx, Query::new()).await,
        VariableCommand::Get { .. } => standard::get(&ctx).await,
        VariableCommand::Create { .. } => standard::create(&ctx).await,
        VariableCommand::Update { .. } => standard::update(&ctx).await,
        VariableCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}
