//! `customers-originations-copy`: an origination copied with its steps and rules, the rules
//! re-pointed at the copied steps. A copy that stops halfway says what it left behind.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::super::resolve_realm;
use super::{Origination, Rule, Step, children, id, label, read_origination, rules_of, steps_of};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::tools::args::Ident;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::copy::without_owned;
use crate::tools::engine::{Answer, Echo, persist, reply};
use crate::tools::{Call, CallError, ToolDef, tool};

/// Arguments of `customers-originations-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name to copy.
    origination: Ident,
    /// Name of the copy (default: "<name> (copy)").
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("customers-originations-copy", Module::Customers, ToolClass::Mutation)
        .describe(
            "Copy an origination with its steps and rules (rules re-pointed at the copied steps) within its realm. \
data is the copy as re-read after the copy; resource is the copy; state.affected = steps + rules created.",
        )
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::AFFECTED)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Origination>> {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.collection::<Origination>();
    let (source_id, source) = read_origination(client, &originations, &args.origination).await?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{} (copy)", label(&source)));
    let request = persist::body(vec![
        ("name", Some(Value::from(name.clone()))),
        ("description", source.get("description").cloned()),
    ]);
    let created = persist::create(client, &originations.path, &request, "origination").await?;
    let copy_id = id_of(&created, "origination")?;
    let steps = children::<Step>(&originations, copy_id);
    let rules = children::<Rule>(&originations, copy_id);
    let mut step_ids: BTreeMap<u64, Value> = BTreeMap::new();
    let mut rules_created = 0;
    let partial = |what: String, error: ToolError, steps: usize, rules: usize| -> CallError {
        let message = format!(
            "origination {copy_id} '{name}' was created as the copy of {source_id}, but copying stopped at {what}: {}. \
{steps} step(s) and {rules} rule(s) were copied; delete the partial copy (customers-originations-manage delete) or finish it by hand",
            error.message()
        );
        error
            .with_message(message)
            .detail("copy_id", copy_id)
            .detail("steps_copied", steps)
            .detail("rules_copied", rules)
            .into()
    };
    for step in steps_of(&source) {
        let result = persist::create(client, &steps.path, &without_owned(&step), "step").await;
        match result {
            Ok(new) => {
                if let Some(old) = id(&step, "id") {
                    step_ids.insert(old, new.get("id").cloned().unwrap_or(Value::Null));
                }
            }
            Err(e) => {
                return Err(partial(
                    format!("step '{}'", label(&step)),
                    e,
                    step_ids.len(),
                    0,
                ));
            }
        }
    }
    for rule in rules_of(&source) {
        let mut request = without_owned(&rule);
        if let Some(target) = id(&rule, "target_step_id")
            && let Some(new) = step_ids.get(&target)
        {
            request["target_step_id"] = new.clone();
        }
        let result = persist::create(client, &rules.path, &request, "rule").await;
        if let Err(e) = result {
            return Err(partial(
                format!("rule '{}'", label(&rule)),
                e,
                step_ids.len(),
                rules_created,
            ));
        }
        rules_created += 1;
    }
    let object = originations.fetch(client, copy_id).await?;
    let resource = originations.resource(&object, Some(copy_id));
    let post = PostCondition::status("created").affected(step_ids.len() + rules_created);
    let message = format!("Origination copied successfully from origination {source_id}");
    Ok(reply::saved_as::<Origination, _>(object, resource, post, "copied", message).into())
}
