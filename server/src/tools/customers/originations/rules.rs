//! An origination's rules: `customers-originations-rules-edit` (add, update, remove).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Origination, Rule, add, children, remove, update};
use crate::config::Module;
use crate::contract::ToolClass;
use crate::tools::args::Ident;
use crate::tools::customers::Realm;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Action, Answer, Container, Echo, Need, Verb, command, persist};

command! {
    /// What `customers-originations-rules-edit` can be asked.
    enum RuleCommand for RulesEditArgs {
        Add { question_id: u64, operator: Operator, effect: Effect } => Verb::write("add"),
        Update { rule as "rule (id)": u64 } => Verb::write("update"),
        Remove { rule as "rule (id)": u64 } => Verb::write("remove").confirmed(),
    }
}

const RULES_EDIT: &str = "customers-originations-rules-edit";

/// What a rule does when its condition holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum Effect {
    ShowStep,
    HideStep,
    SkipToStep,
    End,
}

impl Effect {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Effect::ShowStep => "show_step",
            Effect::HideStep => "hide_step",
            Effect::SkipToStep => "skip_to_step",
            Effect::End => "end",
        }
    }
}

/// How a condition compares the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Operator {
    Equals,
    NotEquals,
    Contains,
    GreaterThan,
    LessThan,
    IsPresent,
    IsBlank,
}

impl Operator {
    fn as_str(self) -> &'static str {
        match self {
            Operator::Equals => "equals",
            Operator::NotEquals => "not_equals",
            Operator::Contains => "contains",
            Operator::GreaterThan => "greater_than",
            Operator::LessThan => "less_than",
            Operator::IsPresent => "is_present",
            Operator::IsBlank => "is_blank",
        }
    }
}

/// Arguments of `customers-originations-rules-edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RulesEditArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name.
    origination: Ident,
    /// add, update or remove.
    action: Action,
    /// Rule id (update, remove).
    rule: Option<u64>,
    /// Name (add, update).
    name: Option<String>,
    /// Question the condition reads (add, update).
    question_id: Option<u64>,
    /// Comparison (add, update).
    operator: Option<Operator>,
    /// Value compared with the answer (add, update).
    value: Option<Value>,
    /// What the rule does: show_step, hide_step, skip_to_step or end (add, update).
    effect: Option<Effect>,
    /// Step the effect applies to (all effects but end).
    target_step_id: Option<u64>,
    /// Must be true for remove.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn rules_edit_tool() -> ToolDef {
    tool(
        "customers-originations-rules-edit",
        Module::Customers,
        ToolClass::Mutation,
    )
    .describe(
        "Add, update or remove an origination's rules: when question_id <operator> value, effect \
(show_step, hide_step, skip_to_step, end) on target_step_id. add/update: data is the rule as persisted; remove \
(confirmDelete: true): data null. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid. Unverified model: one form per step, rules with skip_to_step/end; docs describe steps of tasks and Show/Hide rules.",
    )
    .resource()
    .state()
    .control()
    .handle(rules_edit)
    .offers::<RuleCommand>()
}

async fn rules_edit(call: Call, args: RulesEditArgs) -> Answer<Option<Echo<Rule>>> {
    let word = args.action.as_str();
    if let Some(control) =
        command::unconfirmed::<RuleCommand, _>(RULES_EDIT, word, args.confirm_delete)
    {
        return control;
    }
    if args.effect.is_some_and(|e| e != Effect::End) && args.target_step_id.is_none() {
        return Err(CallError::Arguments(
            "show_step, hide_step and skip_to_step need target_step_id".into(),
        ));
    }
    let command = command::parse::<RuleCommand>(RULES_EDIT, word, &args)?;
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let originations = realm.collection::<Origination>();
    let origination_id = originations
        .find(client, &args.origination, Need::Id)
        .await?
        .id;
    let rules = children::<Rule>(&originations, origination_id);
    let condition = persist::body(vec![
        ("question_id", args.question_id.map(Value::from)),
        ("operator", args.operator.map(|o| Value::from(o.as_str()))),
        ("value", args.value.clone()),
    ]);
    let fields = persist::body(vec![
        ("name", args.name.clone().map(Value::from)),
        (
            "condition",
            (!persist::is_empty(&condition)).then_some(condition),
        ),
        ("action", args.effect.map(|e| Value::from(e.as_str()))),
        ("target_step_id", args.target_step_id.map(Value::from)),
    ]);
    match command {
        RuleCommand::Add { .. } => add(client, &rules, &fields).await,
        RuleCommand::Update { rule } => {
            if persist::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, question_id, operator, value, effect, target_step_id"
                        .into(),
                ));
            }
            update(client, &rules, rule, &fields).await
        }
        RuleCommand::Remove { rule } => remove(client, &rules, rule).await,
    }
}
