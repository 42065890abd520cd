//! `customers-originations-copy`: an origination copied with its steps and rules, the rules
//! re-pointed at the copied steps. A copy that stops halfway says what it left behind.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Origination, Rule, Step, children, id, label, read_origination, rules_of, steps_of};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::ModyoClient;
use crate::tools::args::Ident;
use crate::tools::customers::Realm;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::copy::without_owned;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Collection, Container, Echo, Need, persist, reply};

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
data is the copy as re-read after the copy; resource is the copy; state.affected = steps + rules created. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid. Unverified model: one form per step, rules with skip_to_step/end; docs describe steps of tasks and Show/Hide rules.",
        )
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::AFFECTED)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Origination>> {
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
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
    let (steps, rules) = copy_children(client, &originations, copy_id, &source)
        .await
        .map_err(|stopped| stopped.error(copy_id, &name, source_id))?;
    let object = originations.fetch(client, copy_id).await?;
    let resource = originations.resource(&object, Some(copy_id));
    let post = PostCondition::status("created").affected(steps + rules);
    let message = format!("Origination copied successfully from origination {source_id}");
    Ok(reply::saved_as::<Origination, _>(object, resource, post, "copied", message).into())
}

/// Where copying an origination's steps and rules stopped: what failed, why, and how many
/// steps and rules were copied before.
struct Stopped {
    what: String,
    error: ToolError,
    steps: usize,
    rules: usize,
}

impl Stopped {
    /// The error of a copy that stopped: what failed, what was left behind, and what to do.
    fn error(self, copy_id: u64, name: &str, source_id: u64) -> ToolError {
        let message = format!(
            "origination {copy_id} '{name}' was created as the copy of {source_id}, but copying stopped at {}: {}. \
{} step(s) and {} rule(s) were copied; delete the partial copy (customers-originations-manage delete) or finish it by hand",
            self.what,
            self.error.message(),
            self.steps,
            self.rules
        );
        self.error.with_message(message)
    }
}

/// Copies the source's steps, then its rules (each rule's `target_step_id` re-pointed at the
/// copy of its step), into origination `copy_id`; answers how many steps and rules were
/// created.
async fn copy_children(
    client: &ModyoClient,
    originations: &Collection<Origination>,
    copy_id: u64,
    source: &Value,
) -> Result<(usize, usize), Stopped> {
    let steps = children::<Step>(originations, copy_id);
    let rules = children::<Rule>(originations, copy_id);
    let mut step_ids: BTreeMap<u64, Value> = BTreeMap::new();
    for step in steps_of(source) {
        match persist::create(client, &steps.path, &without_owned(&step), "step").await {
            Ok(new) => {
                if let Some(old) = id(&step, "id") {
                    step_ids.insert(old, new.get("id").cloned().unwrap_or(Value::Null));
                }
            }
            Err(error) => {
                let what = format!("step '{}'", label(&step));
                let steps = step_ids.len();
                return Err(Stopped {
                    what,
                    error,
                    steps,
                    rules: 0,
                });
            }
        }
    }
    let mut rules_created = 0;
    for rule in rules_of(source) {
        let mut request = without_owned(&rule);
        if let Some(target) = id(&rule, "target_step_id")
            && let Some(new) = step_ids.get(&target)
        {
            request["target_step_id"] = new.clone();
        }
        if let Err(error) = persist::create(client, &rules.path, &request, "rule").await {
            let what = format!("rule '{}'", label(&rule));
            let (steps, rules) = (step_ids.len(), rules_created);
            return Err(Stopped {
                what,
                error,
                steps,
                rules,
            });
        }
        rules_created += 1;
    }
    Ok((step_ids.len(), rules_created))
}
