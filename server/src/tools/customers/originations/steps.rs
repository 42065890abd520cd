//! An origination's steps: `customers-originations-steps-edit` (add, update, remove, reorder)
//! and `customers-originations-steps-clone`.

use std::collections::BTreeMap;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::forms::Form;
use super::{Origination, Step, add, children, id, label, remove, steps_of, update};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, Resource, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::customers::Realm;
use crate::tools::engine::copy::{copy_name, without_owned};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Container, Echo, Echoed, Member, Need, Rules, Verb, body, command,
    echoed, persist, reply,
};

echoed! {
    /// What steps-edit answers: a step, or (reorder) the origination with its steps, in one
    /// loose object (C15).
    StepEdit = "step" {
        id: i64, uuid: String, name: String, position: i64, hidden: bool, steps: List, rules: List
    }
}

impl Member for StepEdit {
    const RULES: Rules = Step::RULES;
}

command! {
    /// What `customers-originations-steps-edit` can be asked.
    enum StepCommand for StepsEditArgs {
        Add { name: String } => Verb::write("add"),
        Update { step as "step (id)": u64 } => Verb::write("update"),
        Remove { step as "step (id)": u64 } => Verb::write("remove").confirmed(),
        Reorder { order as "order (every step id)": Vec<u64> } => Verb::write("reorder"),
    }
}

const STEPS_EDIT: &str = "customers-originations-steps-edit";

/// Arguments of `customers-originations-steps-edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StepsEditArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name.
    origination: Ident,
    /// add, update, remove or reorder.
    action: Action,
    /// Step id (update, remove).
    step: Option<u64>,
    /// Name (add, update).
    name: Option<String>,
    /// Description (add, update).
    description: Option<String>,
    /// Form id or name the step shows (add, update).
    form: Option<Ident>,
    /// Hidden until a rule shows it (add, update).
    hidden: Option<bool>,
    /// Position from 0 (add: default last).
    position: Option<u32>,
    /// Every step id in the new order (reorder).
    order: Option<Vec<u64>>,
    /// Must be true for remove.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn steps_edit_tool() -> ToolDef {
    tool(
        "customers-originations-steps-edit",
        Module::Customers,
        ToolClass::Mutation,
    )
    .describe(
        "Add, update, remove or reorder an origination's steps (read them with customers-originations-manage get). \
add/update: data is the step as persisted; remove (confirmDelete: true): data null; reorder (order: every step id): \
data is the origination with its steps as persisted, state.affected = steps moved. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid. Unverified model: one form per step, rules with skip_to_step/end; docs describe steps of tasks and Show/Hide rules.",
    )
    .resource()
    .state()
    .control()
    .handle(steps_edit)
    .offers::<StepCommand>()
    .writes_state(RareState::AFFECTED)
}

type Edited = Option<Echo<StepEdit>>;

async fn steps_edit(call: Call, args: StepsEditArgs) -> Answer<Edited> {
    let word = args.action.as_str();
    if let Some(control) =
        command::unconfirmed::<StepCommand, _>(STEPS_EDIT, word, args.confirm_delete)
    {
        return control;
    }
    let command = command::parse::<StepCommand>(STEPS_EDIT, word, &args)?;
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let originations = realm.collection::<Origination>();
    let origination_id = originations
        .find(client, &args.origination, Need::Id)
        .await?
        .id;
    let steps = children::<StepEdit>(&originations, origination_id);
    let form_id = match &args.form {
        Some(form) => Some(
            realm
                .collection::<Form>()
                .find(client, form, Need::Id)
                .await?
                .id,
        ),
        None => None,
    };
    let fields = persist::body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("form_id", form_id.map(Value::from)),
        ("hidden", args.hidden.map(Value::from)),
        ("position", args.position.map(Value::from)),
    ]);
    match command {
        StepCommand::Add { .. } => add(client, &steps, &fields).await,
        StepCommand::Update { step } => {
            if persist::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, form, hidden, position".into(),
                ));
            }
            update(client, &steps, step, &fields).await
        }
        StepCommand::Remove { step } => remove(client, &steps, step).await,
        StepCommand::Reorder { order } => {
            let origination = originations.fetch(client, origination_id).await?;
            reorder(client, &steps, origination_id, origination, &order).await
        }
    }
}

/// The body that moves a step: its new position.
#[derive(Serialize)]
struct PositionBody {
    position: usize,
}

/// Moves every step whose position changes (one `PUT` each, in order), then reports the
/// steps as the API persisted them: moved ones from their `PUT` answers, the rest as read.
async fn reorder(
    client: &ModyoClient,
    steps_path: &Collection<StepEdit>,
    origination_id: u64,
    mut origination: Value,
    order: &[u64],
) -> Answer<Edited> {
    let steps = steps_of(&origination);
    let current: Vec<u64> = steps.iter().filter_map(|s| id(s, "id")).collect();
    let mut wanted = order.to_vec();
    wanted.sort_unstable();
    let mut have = current.clone();
    have.sort_unstable();
    if wanted != have {
        return Err(ToolError::invalid_parameters(format!(
            "order must list every step of origination {origination_id} exactly once: it has {current:?}"
        ))
        .into());
    }
    let mut persisted: BTreeMap<u64, Value> = steps
        .into_iter()
        .filter_map(|s| id(&s, "id").map(|i| (i, s)))
        .collect();
    let mut moved = 0;
    for (position, step) in order.iter().enumerate() {
        let now = persisted.get(step).and_then(|s| id(s, "position"));
        if now == Some(position as u64) {
            continue;
        }
        let path = steps_path.item(step);
        let request = body(PositionBody { position });
        let object = persist::write(client, Method::PUT, &path, Some(&request), &path).await?;
        persisted.insert(*step, object);
        moved += 1;
    }
    let mut steps: Vec<Value> = persisted.into_values().collect();
    steps.sort_by_key(|s| id(s, "position").unwrap_or(u64::MAX));
    let landed: Vec<u64> = steps.iter().filter_map(|s| id(s, "id")).collect();
    if landed != order {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "origination {origination_id}: the steps were sent in order {order:?} but the API persisted {landed:?}; read the origination before retrying"
            ),
        )
        .into());
    }
    if let Some(map) = origination.as_object_mut() {
        map.insert("steps".into(), Value::Array(steps));
    }
    let status = if moved == 0 { "unchanged" } else { "reordered" };
    let resource = Resource::from_object("origination", &origination, None).id(origination_id);
    let post = PostCondition::status(status).affected(moved);
    let message = "Steps reordered successfully";
    Ok(reply::saved_as::<Origination, _>(origination, resource, post, "reordered", message).into())
}

/// Arguments of `customers-originations-steps-clone`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StepsCloneArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name the step belongs to.
    origination: Ident,
    /// Step id.
    step: u64,
    /// Origination id or name to clone into (default: the same one).
    target_origination: Option<Ident>,
    /// Name of the clone (default: "<name> (copy)" in the same origination, else the same name).
    name: Option<String>,
}

pub(crate) fn steps_clone_tool() -> ToolDef {
    tool(
        "customers-originations-steps-clone",
        Module::Customers,
        ToolClass::Mutation,
    )
    .describe(
        "Clone one step (same form, same settings) at the end of its origination or of another one in the realm. \
data is the clone as persisted; resource is the clone. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid. Unverified model: one form per step, rules with skip_to_step/end; docs describe steps of tasks and Show/Hide rules.",
    )
    .resource()
    .state()
    .handle(steps_clone)
}

async fn steps_clone(call: Call, args: StepsCloneArgs) -> Answer<Echo<Step>> {
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let originations = realm.collection::<Origination>();
    let mut inputs = vec![args.origination.as_str()];
    inputs.extend(args.target_origination.as_deref());
    let (source, target) = match originations.find_each(client, &inputs).await?.as_slice() {
        [source] => (source.id, source.id),
        [source, target] => (source.id, target.id),
        _ => {
            return Err(
                ToolError::invalid_parameters("one origination, and optionally a target").into(),
            );
        }
    };
    let path = children::<Step>(&originations, source).item(args.step);
    let step = client.get(&path, &Query::new()).await.map_err(|e| {
        let not_found = e.is_not_found();
        let error = ToolError::from(e);
        if not_found {
            error.with_message(format!(
                "step {} not found in origination {source}; call customers-originations-manage get to see its steps",
                args.step
            ))
        } else {
            error
        }
    })?;
    let mut request = without_owned(&step);
    if let Some(map) = request.as_object_mut() {
        map.remove("position");
        let source_name = label(&step);
        let name = copy_name(
            args.name.as_deref(),
            Some(&source_name),
            "step",
            target == source,
        );
        map.insert("name".into(), Value::from(name));
    }
    let targets = children::<Step>(&originations, target);
    let object = persist::create(client, &targets.path, &request, Step::NAME).await?;
    let resource = targets.resource(&object, None);
    let post = PostCondition::status("created");
    let message = format!("Step {} cloned successfully", args.step);
    Ok(reply::saved_as::<Step, _>(object, resource, post, "cloned", message).into())
}
