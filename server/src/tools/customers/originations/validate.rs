//! `customers-originations-validate`: an origination's structure checked without writing
//! (empty steps, steps nothing reaches, missing forms, rules on missing questions or steps,
//! questions bound to missing data sets).

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::datasets::DataSet;
use super::super::forms::Form;
use super::rules::Effect;
use super::{Origination, id, label, read_origination, rules_of, steps_of};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, Evidence, Legacy, Reply, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::customers::Realm;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Container, Data, Need, body, lenient, view};

/// Arguments of `customers-originations-validate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name.
    origination: Ident,
}

/// One structural fault: a stable `code` and a human `message` (C13), with the ids involved.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Problem {
    code: &'static str,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    step_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    rule_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    form_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    question_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    data_set_id: Option<u64>,
}

impl Data for Vec<Problem> {}

pub(crate) fn validate_tool() -> ToolDef {
    tool("customers-originations-validate", Module::Customers, ToolClass::Read)
        .describe(
            "Check an origination's structure without writing: empty steps, steps nothing reaches, steps whose form \
is missing, rules on missing questions or steps, questions bound to missing data sets. data: the problems \
[{code, message, step_id?, rule_id?, form_id?, question_id?, data_set_id?}], empty when sound; \
state.searched: steps + rules checked. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid. Unverified model: one form per step, rules with skip_to_step/end; docs describe steps of tasks and Show/Hide rules.",
        )
        .resource()
        .state()
        .handle(validate)
        .writes_state(RareState::SEARCHED)
}

/// One structural fault with the ids involved (each id named once).
fn problem(code: &'static str, message: String, ids: &[(&str, Option<u64>)]) -> Problem {
    let id = |key: &str| ids.iter().find(|(k, _)| *k == key).and_then(|(_, id)| *id);
    Problem {
        code,
        message,
        step_id: id("step_id"),
        rule_id: id("rule_id"),
        form_id: id("form_id"),
        question_id: id("question_id"),
        data_set_id: id("data_set_id"),
    }
}

/// The questions of a form or of a question (Modyo's key is `question`), when a list.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Asked {
    #[serde(deserialize_with = "lenient")]
    question: Option<Vec<Value>>,
}

/// Whether a step is hidden.
#[derive(Default, Deserialize)]
#[serde(default)]
struct StepKeys {
    #[serde(deserialize_with = "lenient")]
    hidden: Option<bool>,
}

/// What a rule does (`action`) and on which answer (`condition`, as sent).
#[derive(Default, Deserialize)]
#[serde(default)]
struct RuleKeys {
    #[serde(deserialize_with = "lenient")]
    action: Option<String>,
    #[serde(deserialize_with = "lenient")]
    condition: Option<Value>,
}

/// Every question of a form, nested ones included.
fn questions(form: &Value, out: &mut Vec<Value>) {
    for question in view::<Asked>(form).question.unwrap_or_default() {
        out.push(question.clone());
        questions(&question, out);
    }
}

/// What the validation knows about the realm: its forms (by id, with questions) and which
/// data set ids exist.
struct Realmscape {
    forms: BTreeMap<u64, Value>,
    data_sets: BTreeSet<u64>,
}

/// The structural faults of an origination, in step order then rule order.
fn faults(origination: &Value, realm: &Realmscape) -> Vec<Problem> {
    let steps = steps_of(origination);
    let rules = rules_of(origination);
    let step_ids: BTreeSet<u64> = steps.iter().filter_map(|s| id(s, "id")).collect();
    let shown: BTreeSet<u64> = rules
        .iter()
        .filter(|r| {
            matches!(
                view::<RuleKeys>(r).action.as_deref(),
                Some("show_step" | "skip_to_step")
            )
        })
        .filter_map(|r| id(r, "target_step_id"))
        .collect();
    let mut known_questions = BTreeSet::new();
    let mut out = Vec::new();
    for step in &steps {
        let step_id = id(step, "id");
        let name = label(step);
        if view::<StepKeys>(step).hidden == Some(true)
            && !step_id.is_some_and(|s| shown.contains(&s))
        {
            out.push(problem(
                "unreachable_step",
                format!("step '{name}' is hidden and no rule shows it or skips to it"),
                &[("step_id", step_id)],
            ));
        }
        let Some(form_id) = id(step, "form_id") else {
            out.push(problem(
                "empty_step",
                format!("step '{name}' has no form"),
                &[("step_id", step_id)],
            ));
            continue;
        };
        let Some(form) = realm.forms.get(&form_id) else {
            out.push(problem(
                "missing_form",
                format!("step '{name}' uses form {form_id}, which does not exist in the realm"),
                &[("step_id", step_id), ("form_id", Some(form_id))],
            ));
            continue;
        };
        let mut asked = Vec::new();
        questions(form, &mut asked);
        if asked.is_empty() {
            out.push(problem(
                "empty_step",
                format!(
                    "step '{name}' uses form '{}', which has no questions",
                    label(form)
                ),
                &[("step_id", step_id), ("form_id", Some(form_id))],
            ));
        }
        for question in &asked {
            let question_id = id(question, "id");
            known_questions.extend(question_id);
            if let Some(set) = id(question, "data_set_id")
                && !realm.data_sets.contains(&set)
            {
                out.push(problem(
                    "missing_data_set",
                    format!(
                        "question '{}' of step '{name}' draws its options from data set {set}, which does not exist in the realm",
                        label(question)
                    ),
                    &[
                        ("step_id", step_id),
                        ("form_id", Some(form_id)),
                        ("question_id", question_id),
                        ("data_set_id", Some(set)),
                    ],
                ));
            }
        }
    }
    for rule in &rules {
        let rule_id = id(rule, "id");
        let name = label(rule);
        let keys: RuleKeys = view(rule);
        let question = keys.condition.as_ref().and_then(|c| id(c, "question_id"));
        match question {
            Some(q) if known_questions.contains(&q) => {}
            Some(q) => out.push(problem(
                "missing_question",
                format!(
                    "rule '{name}' depends on question {q}, which no step of the origination asks"
                ),
                &[("rule_id", rule_id), ("question_id", Some(q))],
            )),
            None => out.push(problem(
                "missing_question",
                format!("rule '{name}' has no condition question"),
                &[("rule_id", rule_id)],
            )),
        }
        let action = keys.action.as_deref().unwrap_or("");
        let target = id(rule, "target_step_id");
        match target {
            Some(t) if !step_ids.contains(&t) => out.push(problem(
                "missing_step",
                format!("rule '{name}' targets step {t}, which is not a step of the origination"),
                &[("rule_id", rule_id), ("step_id", Some(t))],
            )),
            // `end` is the one effect without a target step.
            None if action != Effect::End.as_str() => out.push(problem(
                "missing_step",
                format!("rule '{name}' ({action}) names no target step"),
                &[("rule_id", rule_id)],
            )),
            _ => {}
        }
    }
    out
}

/// Reads what the origination points to: forms (with questions) and data set ids. A form or
/// data set the walk did not see (or a form row without questions) is read by id, so a cap on
/// the walk can never make an existing one look missing.
async fn realmscape(
    client: &ModyoClient,
    realm: &Realm,
    origination: &Value,
) -> Result<Realmscape, ToolError> {
    let forms_coll = realm.collection::<Form>();
    let sets_coll = realm.collection::<DataSet>();
    let (form_rows, forms_seen) = walk(client, &forms_coll.path, "forms", &Query::new()).await?;
    let (set_rows, sets_seen) = walk(client, &sets_coll.path, "data_sets", &Query::new()).await?;
    let mut forms: BTreeMap<u64, Value> = form_rows
        .into_iter()
        .filter_map(|f| id(&f, "id").map(|i| (i, f)))
        .collect();
    let wanted: BTreeSet<u64> = steps_of(origination)
        .iter()
        .filter_map(|s| id(s, "form_id"))
        .collect();
    for form_id in wanted {
        let known = forms.get(&form_id);
        let complete = known.is_some_and(|f| view::<Asked>(f).question.is_some());
        if complete || (known.is_none() && forms_seen == Evidence::Exhausted) {
            continue;
        }
        match forms_coll.fetch(client, form_id).await {
            Ok(form) => {
                forms.insert(form_id, form);
            }
            Err(e) if e.status() == Some(404) => {
                forms.remove(&form_id);
            }
            Err(e) => return Err(e),
        }
    }
    let mut data_sets: BTreeSet<u64> = set_rows.iter().filter_map(|s| id(s, "id")).collect();
    if sets_seen != Evidence::Exhausted {
        let mut bound = Vec::new();
        for form in forms.values() {
            questions(form, &mut bound);
        }
        for set in bound.iter().filter_map(|q| id(q, "data_set_id")) {
            if data_sets.contains(&set) {
                continue;
            }
            match sets_coll.fetch(client, set).await {
                Ok(_) => {
                    data_sets.insert(set);
                }
                Err(e) if e.status() == Some(404) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(Realmscape { forms, data_sets })
}

/// The old payload of `customers-originations-validate`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OldValidation {
    valid: bool,
    message: String,
    issues: Value,
    steps_checked: usize,
    rules_checked: usize,
}

async fn validate(call: Call, args: ValidateArgs) -> Answer<Vec<Problem>> {
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let originations = realm.collection::<Origination>();
    let (id, origination) = read_origination(client, &originations, &args.origination).await?;
    let scape = realmscape(client, &realm, &origination).await?;
    let problems = faults(&origination, &scape);
    let (steps, rules) = (steps_of(&origination).len(), rules_of(&origination).len());
    // The origination was read whole and every reference was resolved: the list is complete.
    let coverage =
        Coverage::with_evidence(problems.len(), Evidence::WholeCorpus).searched(steps + rules);
    let old = Legacy::custom(move |issues| {
        let count = issues.as_array().map_or(0, Vec::len);
        body(OldValidation {
            valid: count == 0,
            message: if count == 0 {
                "Origination structure is valid".to_owned()
            } else {
                format!("Found {count} structural issue(s)")
            },
            issues,
            steps_checked: steps,
            rules_checked: rules,
        })
    });
    Ok(Reply::new(problems)
        .resource(originations.resource(&origination, Some(id)))
        .state(coverage)
        .old(old)
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scape() -> Realmscape {
        let mut forms = BTreeMap::new();
        forms.insert(
            301,
            json!({"id": 301, "name": "Datos", "question": [
                {"id": 1, "label": "RUT"},
                {"id": 2, "label": "Región", "data_set_id": 401},
                {"id": 3, "label": "Grupo", "question": [{"id": 4, "label": "Banco", "data_set_id": 999}]}
            ]}),
        );
        forms.insert(302, json!({"id": 302, "name": "Vacío", "question": []}));
        Realmscape {
            forms,
            data_sets: BTreeSet::from([401]),
        }
    }

    #[test]
    fn a_sound_origination_has_no_faults() {
        let origination = json!({
            "steps": [
                {"id": 11, "name": "Datos", "position": 0, "form_id": 301},
                {"id": 12, "name": "Extra", "position": 1, "form_id": 301, "hidden": true}
            ],
            "rules": [{"id": 21, "name": "r", "condition": {"question_id": 1}, "action": "show_step", "target_step_id": 12}]
        });
        let mut realm = scape();
        realm.data_sets.insert(999);
        assert!(faults(&origination, &realm).is_empty());
    }

    #[test]
    fn every_kind_of_fault_is_reported_with_code_message_and_ids() {
        let origination = json!({
            "steps": [
                {"id": 13, "name": "Oculto", "position": 2, "form_id": 301, "hidden": true},
                {"id": 11, "name": "Datos", "position": 0, "form_id": 301},
                {"id": 12, "name": "Vacío", "position": 1, "form_id": 302},
                {"id": 14, "name": "Sin form", "position": 3},
                {"id": 15, "name": "Perdido", "position": 4, "form_id": 777}
            ],
            "rules": [
                {"id": 21, "name": "a", "condition": {"question_id": 55}, "action": "end"},
                {"id": 22, "name": "b", "condition": {"question_id": 1}, "action": "skip_to_step", "target_step_id": 99}
            ]
        });
        let codes: Vec<(String, Option<u64>, Option<u64>)> = faults(&origination, &scape())
            .iter()
            .map(|p| {
                assert!(!p.message.is_empty());
                (p.code.to_owned(), p.step_id, p.rule_id)
            })
            .collect();
        assert_eq!(
            codes,
            vec![
                ("missing_data_set".into(), Some(11), None),
                ("empty_step".into(), Some(12), None),
                ("unreachable_step".into(), Some(13), None),
                ("missing_data_set".into(), Some(13), None),
                ("empty_step".into(), Some(14), None),
                ("missing_form".into(), Some(15), None),
                ("missing_question".into(), None, Some(21)),
                ("missing_step".into(), Some(99), Some(22)),
            ]
        );
    }

    #[test]
    fn problems_name_each_id_once_in_schema_order() {
        let p = problem(
            "missing_step",
            "x".into(),
            &[("rule_id", Some(2)), ("step_id", Some(1))],
        );
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"code": "missing_step", "message": "x", "step_id": 1, "rule_id": 2})
        );
    }
}
