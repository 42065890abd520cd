//! Originations (multi-step application flows) with their steps and rules:
//! `customers-originations-manage`, `-validate`, `-steps-edit`, `-steps-clone`, `-rules-edit`
//! and `-copy`.
//!
//! `GET .../originations` is documented; the rest is `[synthetic]`, including the structure
//! this module assumes (the catalogue leaves it open): an origination carries `steps`
//! (`{id, name, position, form_id, hidden}`, ordered by `position` from 0) and `rules`
//! (`{id, name, condition: {question_id, operator, value}, action, target_step_id}`, where
//! `action` is `show_step`, `hide_step`, `skip_to_step` or `end`). A step's questions are its
//! form's `questions` (nested ones under `questions` too), and a question may draw its options
//! from a data set (`data_set_id`). A `hidden` step is only reached when a rule shows it or
//! skips to it.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Realm, resolve_realm};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{
    Coverage, ErrorCode, Evidence, PostCondition, Reply, Resource, ToolClass, ToolError,
};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{
    self, Collection, Need, body, confirmed, created_object, id_of, read_back, required,
    without_owned,
};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const ORIGINATION_KEYS: [(&str, Kind); 10] = [
    ("id", Kind::Int),
    ("uuid", Kind::Str),
    ("name", Kind::Str),
    ("description", Kind::Str),
    ("status", Kind::Str),
    ("steps", Kind::List),
    ("rules", Kind::List),
    ("submissions_count", Kind::Int),
    ("created_at", Kind::Str),
    ("updated_at", Kind::Str),
];

const STEP_KEYS: [(&str, Kind); 9] = [
    ("id", Kind::Int),
    ("name", Kind::Str),
    ("description", Kind::Str),
    ("position", Kind::Int),
    ("form_id", Kind::Int),
    ("hidden", Kind::Bool),
    ("origination_id", Kind::Int),
    ("created_at", Kind::Str),
    ("updated_at", Kind::Str),
];

/// An origination as the API returns it (loose: echoed).
pub(crate) fn origination_schema() -> Value {
    schema::echo(&ORIGINATION_KEYS)
}

/// A step as the API returns it (loose: echoed).
pub(crate) fn step_schema() -> Value {
    schema::echo(&STEP_KEYS)
}

/// A rule as the API returns it (loose: echoed).
pub(crate) fn rule_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("name", Kind::Str),
        ("condition", Kind::Obj),
        ("action", Kind::Str),
        ("target_step_id", Kind::Int),
        ("origination_id", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// The `data` of `customers-originations-steps-edit`: a step, or (reorder) the origination
/// with its steps as persisted. One loose object (C15).
fn steps_edit_schema() -> Value {
    let mut keys: Vec<(&str, Kind)> = STEP_KEYS.to_vec();
    for (key, kind) in ORIGINATION_KEYS {
        if !keys.iter().any(|(k, _)| *k == key) {
            keys.push((key, kind));
        }
    }
    schema::echo(&keys)
}

/// The steps of an origination, ordered by `position`.
fn steps_of(origination: &Value) -> Vec<Value> {
    let mut steps: Vec<Value> = origination
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    steps.sort_by_key(|s| {
        s.get("position")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX)
    });
    steps
}

fn rules_of(origination: &Value) -> Vec<Value> {
    origination
        .get("rules")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Resolves the origination (id or name) and reads it whole (steps and rules included).
async fn read_origination(
    client: &ModyoClient,
    originations: &Collection,
    input: &str,
) -> Result<(u64, Value), ToolError> {
    let found = originations.find(client, input, Need::Id).await?;
    let object = originations.fetch(client, found.id).await?;
    Ok((found.id, object))
}

// ---------------------------------------------------------------------------------------------
// customers-originations-manage

/// Actions of `customers-originations-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Arguments of `customers-originations-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<ManageAction>,
    /// Origination id or name (get, update, delete).
    origination: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("customers-originations-manage", Module::Customers, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete a realm's originations. origination: id or name. list: \
data.originations + coverage, resource = the realm; get: the origination with its steps and rules; \
create/update: data as persisted; delete needs confirmDelete: true. Steps and rules: the -steps-edit and \
-rules-edit tools.",
        )
        .data(kit::manage_schema(origination_schema(), "originations"))
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required("name or description"));
        }
        None => ManageAction::Get,
    };
    // A delete without confirmation answers before any request, the realm lookup included.
    if action == ManageAction::Delete
        && let Err(control) = kit::confirmed(
            args.confirm_delete,
            "customers-originations-manage",
            "delete",
        )
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
    let origination = || {
        required(
            args.origination.as_deref(),
            "this action",
            "origination (id or name)",
        )
    };
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &originations, &query, Some(realm.resource())).await
        }
        ManageAction::Get => {
            let (id, object) = read_origination(client, &originations, origination()?).await?;
            Ok(kit::object_reply(
                call.mode,
                originations.resource(&object, Some(id)),
                object,
            ))
        }
        ManageAction::Create => {
            required(args.name.as_deref(), "create", "name")?;
            kit::create_one(&call, &originations, &fields).await
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description".into(),
                ));
            }
            kit::put_one(
                &call,
                &originations,
                origination()?,
                &fields,
                "updated",
                None,
            )
            .await
        }
        ManageAction::Delete => {
            kit::delete_one(
                &call,
                &originations,
                "customers-originations-manage",
                origination()?,
                args.confirm_delete,
            )
            .await
        }
    }
}

// ---------------------------------------------------------------------------------------------
// customers-originations-validate

/// Arguments of `customers-originations-validate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateArgs {
    /// Realm uid or name.
    realm: Ident,
    /// Origination id or name.
    origination: Ident,
}

fn problem_schema() -> Value {
    schema::strict(
        &[
            ("code", schema::string()),
            ("message", schema::string()),
            ("step_id", schema::integer()),
            ("rule_id", schema::integer()),
            ("form_id", schema::integer()),
            ("question_id", schema::integer()),
            ("data_set_id", schema::integer()),
        ],
        &["code", "message"],
    )
}

pub(crate) fn validate_tool() -> ToolDef {
    tool("customers-originations-validate", Module::Customers, ToolClass::Read)
        .describe(
            "Check an origination's structure without writing: empty steps, steps nothing reaches, steps whose form \
is missing, rules on missing questions or steps, questions bound to missing data sets. data: the problems \
[{code, message, step_id?, rule_id?, form_id?, question_id?, data_set_id?}], empty when sound; \
state.searched: steps + rules checked.",
        )
        .data(schema::array(problem_schema()))
        .resource()
        .state()
        .handle(validate)
}

/// One structural fault: a stable `code` and a human `message` (C13), with the ids involved.
fn problem(code: &str, message: String, ids: &[(&str, Option<u64>)]) -> Value {
    let mut map = Map::new();
    map.insert("code".into(), Value::from(code));
    map.insert("message".into(), Value::from(message));
    for (key, id) in ids {
        if let Some(id) = id {
            map.insert((*key).to_owned(), Value::from(*id));
        }
    }
    Value::Object(map)
}

fn label(object: &Value) -> String {
    ["name", "label"]
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| object.get("id").map(Value::to_string))
        .unwrap_or_else(|| "?".into())
}

fn id(object: &Value, key: &str) -> Option<u64> {
    object.get(key).and_then(Value::as_u64)
}

/// Every question of a form, nested ones included.
fn questions(form: &Value, out: &mut Vec<Value>) {
    for question in form
        .get("questions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(question.clone());
        questions(question, out);
    }
}

/// What the validation knows about the realm: its forms (by id, with questions) and which
/// data set ids exist.
struct Realmscape {
    forms: BTreeMap<u64, Value>,
    data_sets: BTreeSet<u64>,
}

/// The structural faults of an origination, in step order then rule order.
fn faults(origination: &Value, realm: &Realmscape) -> Vec<Value> {
    let steps = steps_of(origination);
    let rules = rules_of(origination);
    let step_ids: BTreeSet<u64> = steps.iter().filter_map(|s| id(s, "id")).collect();
    let shown: BTreeSet<u64> = rules
        .iter()
        .filter(|r| {
            matches!(
                r.get("action").and_then(Value::as_str),
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
        if step.get("hidden") == Some(&Value::Bool(true))
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
        let question = rule.get("condition").and_then(|c| id(c, "question_id"));
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
        let action = rule.get("action").and_then(Value::as_str).unwrap_or("");
        let target = id(rule, "target_step_id");
        match target {
            Some(t) if !step_ids.contains(&t) => out.push(problem(
                "missing_step",
                format!("rule '{name}' targets step {t}, which is not a step of the origination"),
                &[("rule_id", rule_id), ("step_id", Some(t))],
            )),
            None if action != "end" => out.push(problem(
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
    let forms_coll = realm.forms();
    let sets_coll = realm.data_sets();
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
        let complete = known.is_some_and(|f| f.get("questions").is_some_and(Value::is_array));
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

async fn validate(call: Call, args: ValidateArgs) -> ToolResult {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
    let (id, origination) = read_origination(client, &originations, &args.origination).await?;
    let scape = realmscape(client, &realm, &origination).await?;
    let problems = faults(&origination, &scape);
    let checked = steps_of(&origination).len() + rules_of(&origination).len();
    // The origination was read whole and every reference was resolved: the list is complete.
    let coverage = Coverage::with_evidence(problems.len(), Evidence::WholeCorpus).searched(checked);
    let old = (call.mode == crate::contract::Mode::Legacy).then(|| {
        let valid = problems.is_empty();
        json!({
            "valid": valid,
            "message": if valid {
                "Origination structure is valid".to_owned()
            } else {
                format!("Found {} structural issue(s)", problems.len())
            },
            "issues": problems.clone(),
            "stepsChecked": steps_of(&origination).len(),
            "rulesChecked": rules_of(&origination).len(),
        })
    });
    Ok(Reply::new(Value::Array(problems))
        .resource(originations.resource(&origination, Some(id)))
        .state(coverage)
        .legacy(call.mode, || old.unwrap_or_default())
        .into())
}

// ---------------------------------------------------------------------------------------------
// customers-originations-steps-edit

/// Actions of `customers-originations-steps-edit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum StepAction {
    Add,
    Update,
    Remove,
    Reorder,
}

/// Arguments of `customers-originations-steps-edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StepsEditArgs {
    /// Realm uid or name.
    realm: Ident,
    /// Origination id or name.
    origination: Ident,
    /// add, update, remove or reorder.
    action: StepAction,
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
data is the origination with its steps as persisted, state.affected = steps moved.",
    )
    .data(steps_edit_schema())
    .resource()
    .state()
    .control()
    .handle(steps_edit)
}

/// A child collection of an origination (its steps, its rules), whose add, update and remove
/// answer alike: the written object read back, or the removed id, under the collection's noun.
struct Children<'a> {
    /// `<origination>/steps` or `<origination>/rules`.
    path: &'a str,
    /// The resource type (`origination_step`).
    kind: &'static str,
    /// The legacy payload's key (`step`; the removed id goes under `stepId`).
    noun: &'static str,
    /// The noun in the legacy messages (`Step`).
    title: &'static str,
}

impl Children<'_> {
    /// The resource of a child: its own id, or `id` when the object lacks one.
    fn resource(&self, object: &Value, id: Option<u64>) -> Resource {
        let r = Resource::from_object(self.kind, object, None);
        match (r.id_value().is_none(), id) {
            (true, Some(id)) => r.id(id),
            _ => r,
        }
    }

    /// `POST` a new child; answers the created object.
    async fn add(&self, call: &Call, client: &ModyoClient, fields: &Value) -> ToolResult {
        let response = client
            .send(Method::POST, self.path, &Query::new(), Some(fields))
            .await?;
        let object = created_object(response, self.noun)?;
        Ok(kit::written(
            call.mode,
            self.resource(&object, None),
            object,
            PostCondition::status("created"),
            "created",
            format!("{} added successfully", self.title),
            self.noun,
        ))
    }

    /// `PUT` child `id`; answers the object as persisted.
    async fn update(
        &self,
        call: &Call,
        client: &ModyoClient,
        id: u64,
        fields: &Value,
    ) -> ToolResult {
        let path = format!("{}/{id}", self.path);
        let response = client
            .send(Method::PUT, &path, &Query::new(), Some(fields))
            .await?;
        let object = read_back(client, response, &path).await?;
        Ok(kit::written(
            call.mode,
            self.resource(&object, Some(id)),
            object,
            PostCondition::status("updated"),
            "updated",
            format!("{} updated successfully", self.title),
            self.noun,
        ))
    }

    /// `DELETE` child `id`.
    async fn remove(&self, call: &Call, client: &ModyoClient, id: u64) -> ToolResult {
        client
            .send(
                Method::DELETE,
                &format!("{}/{id}", self.path),
                &Query::new(),
                None,
            )
            .await?;
        Ok(kit::deleted(
            call.mode,
            Resource::new(self.kind).id(id),
            format!("{} removed successfully", self.title),
            &format!("{}Id", self.noun),
            Value::from(id),
        ))
    }
}

async fn steps_edit(call: Call, args: StepsEditArgs) -> ToolResult {
    if args.action == StepAction::Remove
        && let Err(control) = confirmed(
            args.confirm_delete,
            "customers-originations-steps-edit",
            "remove",
        )
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
    let origination_id = originations
        .find(client, &args.origination, Need::Id)
        .await?
        .id;
    let steps_path = format!("{}/steps", originations.item(origination_id));
    let form_id = match &args.form {
        Some(form) => Some(realm.forms().find(client, form, Need::Id).await?.id),
        None => None,
    };
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("form_id", form_id.map(Value::from)),
        ("hidden", args.hidden.map(Value::from)),
        ("position", args.position.map(Value::from)),
    ]);
    let steps = Children {
        path: &steps_path,
        kind: "origination_step",
        noun: "step",
        title: "Step",
    };
    match args.action {
        StepAction::Add => {
            required(args.name.as_deref(), "add", "name")?;
            steps.add(&call, client, &fields).await
        }
        StepAction::Update => {
            let step = required(args.step, "update", "step (id)")?;
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, form, hidden, position".into(),
                ));
            }
            steps.update(&call, client, step, &fields).await
        }
        StepAction::Remove => {
            let step = required(args.step, "remove", "step (id)")?;
            steps.remove(&call, client, step).await
        }
        StepAction::Reorder => {
            let order = required(args.order.as_ref(), "reorder", "order (every step id)")?;
            let origination = originations.fetch(client, origination_id).await?;
            reorder(
                &call,
                client,
                &steps_path,
                origination_id,
                origination,
                order,
            )
            .await
        }
    }
}

/// Moves every step whose position changes (one `PUT` each, in order), then reports the
/// steps as the API persisted them: moved ones from their `PUT` answers, the rest as read.
async fn reorder(
    call: &Call,
    client: &ModyoClient,
    steps_path: &str,
    origination_id: u64,
    mut origination: Value,
    order: &[u64],
) -> ToolResult {
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
        .detail("steps", json!(current))
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
        let path = format!("{steps_path}/{step}");
        let response = client
            .send(
                Method::PUT,
                &path,
                &Query::new(),
                Some(&json!({"position": position})),
            )
            .await?;
        persisted.insert(*step, read_back(client, response, &path).await?);
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
        .detail("persisted", json!(landed))
        .into());
    }
    if let Some(map) = origination.as_object_mut() {
        map.insert("steps".into(), Value::Array(steps));
    }
    let status = if moved == 0 { "unchanged" } else { "reordered" };
    Ok(kit::written(
        call.mode,
        Resource::from_object("origination", &origination, None).id(origination_id),
        origination,
        PostCondition::status(status).affected(moved),
        "reordered",
        "Steps reordered successfully".into(),
        "origination",
    ))
}

// ---------------------------------------------------------------------------------------------
// customers-originations-steps-clone

/// Arguments of `customers-originations-steps-clone`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StepsCloneArgs {
    /// Realm uid or name.
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
data is the clone as persisted; resource is the clone.",
    )
    .data(step_schema())
    .resource()
    .state()
    .handle(steps_clone)
}

async fn steps_clone(call: Call, args: StepsCloneArgs) -> ToolResult {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
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
    let path = format!("{}/steps/{}", originations.item(source), args.step);
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
        let name = args.name.clone().unwrap_or_else(|| {
            if target == source {
                format!("{} (copy)", label(&step))
            } else {
                label(&step)
            }
        });
        map.insert("name".into(), Value::from(name));
    }
    let response = client
        .send(
            Method::POST,
            &format!("{}/steps", originations.item(target)),
            &Query::new(),
            Some(&request),
        )
        .await?;
    let object = created_object(response, "step")?;
    Ok(kit::written(
        call.mode,
        Resource::from_object("origination_step", &object, None),
        object,
        PostCondition::status("created"),
        "cloned",
        format!("Step {} cloned successfully", args.step),
        "step",
    ))
}

// ---------------------------------------------------------------------------------------------
// customers-originations-rules-edit

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
    /// Realm uid or name.
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
(confirmDelete: true): data null.",
    )
    .data(rule_schema())
    .resource()
    .state()
    .control()
    .handle(rules_edit)
}

async fn rules_edit(call: Call, args: RulesEditArgs) -> ToolResult {
    if args.action == RuleAction::Remove
        && let Err(control) = confirmed(
            args.confirm_delete,
            "customers-originations-rules-edit",
            "remove",
        )
    {
        return Ok(control);
    }
    if args.effect.is_some_and(|e| e != Effect::End) && args.target_step_id.is_none() {
        return Err(CallError::Arguments(
            "show_step, hide_step and skip_to_step need target_step_id".into(),
        ));
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
    let origination_id = originations
        .find(client, &args.origination, Need::Id)
        .await?
        .id;
    let rules_path = format!("{}/rules", originations.item(origination_id));
    let condition = body(vec![
        ("question_id", args.question_id.map(Value::from)),
        ("operator", args.operator.map(|o| Value::from(o.as_str()))),
        ("value", args.value.clone()),
    ]);
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        (
            "condition",
            (!kit::is_empty(&condition)).then_some(condition),
        ),
        ("action", args.effect.map(|e| Value::from(e.as_str()))),
        ("target_step_id", args.target_step_id.map(Value::from)),
    ]);
    let rules = Children {
        path: &rules_path,
        kind: "origination_rule",
        noun: "rule",
        title: "Rule",
    };
    match args.action {
        RuleAction::Add => {
            required(args.question_id, "add", "question_id")?;
            required(args.operator, "add", "operator")?;
            required(args.effect, "add", "effect")?;
            rules.add(&call, client, &fields).await
        }
        RuleAction::Update => {
            let rule = required(args.rule, "update", "rule (id)")?;
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, question_id, operator, value, effect, target_step_id"
                        .into(),
                ));
            }
            rules.update(&call, client, rule, &fields).await
        }
        RuleAction::Remove => {
            let rule = required(args.rule, "remove", "rule (id)")?;
            rules.remove(&call, client, rule).await
        }
    }
}

// ---------------------------------------------------------------------------------------------
// customers-originations-copy

/// Arguments of `customers-originations-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm uid or name.
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
        .data(origination_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let originations = realm.originations();
    let (source_id, source) = read_origination(client, &originations, &args.origination).await?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{} (copy)", label(&source)));
    let request = body(vec![
        ("name", Some(Value::from(name.clone()))),
        ("description", source.get("description").cloned()),
    ]);
    let response = client
        .send(
            Method::POST,
            &originations.path,
            &Query::new(),
            Some(&request),
        )
        .await?;
    let created = created_object(response, "origination")?;
    let copy_id = id_of(&created, "origination")?;
    let copy_path = originations.item(copy_id);
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
        let result = async {
            let response = client
                .send(
                    Method::POST,
                    &format!("{copy_path}/steps"),
                    &Query::new(),
                    Some(&without_owned(&step)),
                )
                .await?;
            created_object(response, "step")
        }
        .await;
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
        let result = async {
            let response = client
                .send(
                    Method::POST,
                    &format!("{copy_path}/rules"),
                    &Query::new(),
                    Some(&request),
                )
                .await?;
            created_object(response, "rule")
        }
        .await;
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
    Ok(kit::written(
        call.mode,
        originations.resource(&object, Some(copy_id)),
        object,
        PostCondition::status("created").affected(step_ids.len() + rules_created),
        "copied",
        format!("Origination copied successfully from origination {source_id}"),
        "origination",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scape() -> Realmscape {
        let mut forms = BTreeMap::new();
        forms.insert(
            301,
            json!({"id": 301, "name": "Datos", "questions": [
                {"id": 1, "label": "RUT"},
                {"id": 2, "label": "Región", "data_set_id": 401},
                {"id": 3, "label": "Grupo", "questions": [{"id": 4, "label": "Banco", "data_set_id": 999}]}
            ]}),
        );
        forms.insert(302, json!({"id": 302, "name": "Vacío", "questions": []}));
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
        assert_eq!(faults(&origination, &realm), Vec::<Value>::new());
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
                assert!(p["message"].as_str().is_some_and(|m| !m.is_empty()));
                (
                    p["code"].as_str().unwrap().to_owned(),
                    p.get("step_id").and_then(Value::as_u64),
                    p.get("rule_id").and_then(Value::as_u64),
                )
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
    fn problems_match_their_strict_schema() {
        let validator =
            crate::contract::OutputValidator::new(problem_schema().as_object().unwrap()).unwrap();
        let p = problem(
            "empty_step",
            "x".into(),
            &[("step_id", Some(1)), ("rule_id", None)],
        );
        assert!(validator.check(&p).is_ok());
        assert!(p.get("rule_id").is_none());
    }
}
