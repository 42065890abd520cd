//! An origination's rules: `customers-originations-rules-edit` (add, update, remove).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::super::resolve_realm;
use super::{Origination, Rule, add, children, remove, unconfirmed, update};
use crate::config::Module;
use crate::contract::ToolClass;
use crate::tools::args::Ident;
use crate::tools::engine::{Answer, Echo, Need, persist, required};
use crate::tools::{Call, CallError, ToolDef, tool};

/// Actions of `customers-originations-rules-edit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum RuleAction {
    Add,
    Update,
    Remove,
}

/// What a rule does when its condition holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Effect {
    ShowStep,
    HideStep,
    SkipToStep,
    End,
}

impl Effect {
    fn as_str(self) -> &'static str {
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
    action: RuleAction,
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
}

async fn rules_edit(call: Call, args: RulesEditArgs) -> Answer<Option<Echo<Rule>>> {
    if args.action == RuleAction::Remove
        && let Some(control) = unconfirmed("customers-originations-rules-edit", args.confirm_delete)
    {
        return control;
    }
    if args.effect.is_some_and(|e| e != Effect::End) && args.target_step_id.is_none() {
        return Err(CallError::Arguments(
            "show_step, hide_step and skip_to_step need target_step_id".into(),
        ));
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
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
    match args.action {
        RuleAction::Add => {
            required(args.question_id, "add", "question_id")?;
            required(args.operator, "add", "operator")?;
            required(args.effect, "add", "effect")?;
            add(client, &rules, &fields).await
        }
        RuleAction::Update => {
            let rule = required(args.rule, "update", "rule (id)")?;
            if persist::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, question_id, operator, value, effect, target_step_id"
                        .into(),
                ));
            }
            update(client, &rules, rule, &fields).await
        }
        RuleAction::Remove => {
            let rule = required(args.rule, "remove", "rule (id)")?;
            remove(client, &rules, rule).await
        }
    }
}
