//! Originations (multi-step application flows) with their steps and rules:
//! `customers-originations-manage` here, `-validate` ([`validate`]), `-steps-edit` and
//! `-steps-clone` ([`steps`]), `-rules-edit` ([`rules`]) and `-copy` ([`copy`]).
//!
//! `GET .../originations` is documented; the rest is `[synthetic]`, including the structure
//! this module assumes (the catalogue leaves it open): an origination carries `steps`
//! (`{id, name, position, form_id, hidden}`, ordered by `position` from 0) and `rules`
//! (`{id, name, condition: {question_id, operator, value}, action, target_step_id}`, where
//! `action` is `show_step`, `hide_step`, `skip_to_step` or `end`). A step's questions are its
//! form's `questions` (nested ones under `questions` too), and a question may draw its options
//! from a data set (`data_set_id`). A `hidden` step is only reached when a rule shows it or
//! skips to it.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Realm;
use crate::config::Module;
use crate::contract::{PostCondition, Resource, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::reply::Absent;
use crate::tools::engine::tool::ToolDef;
use crate::tools::engine::{
    Action, Answer, Collection, Ctx, Managed, Member, Need, Object, Rules, Verb, command, echoed,
    lenient, manage, persist, reply, standard, view, within,
};

mod copy;
mod rules;
mod steps;
mod validate;

pub(crate) use copy::copy_tool;
pub(crate) use rules::rules_edit_tool;
pub(crate) use steps::{steps_clone_tool, steps_edit_tool};
pub(crate) use validate::validate_tool;

echoed! {
    /// An origination as the API returns it.
    Origination = "origination" {
        id: i64, uuid: String, name: String, steps: List, rules: List
    }
}

impl Member for Origination {
    const RULES: Rules = Rules::new("origination", "originations").hint(
        "call customers-originations-manage with action list to see the realm's originations",
    );
}

/// The keys validation reads of an origination, and of its steps and rules.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Parts {
    #[serde(deserialize_with = "lenient")]
    steps: Option<Vec<Value>>,
    #[serde(deserialize_with = "lenient")]
    rules: Option<Vec<Value>>,
    #[serde(deserialize_with = "lenient")]
    position: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    label: Option<String>,
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
}

/// The steps of an origination, ordered by `position`.
fn steps_of(origination: &Value) -> Vec<Value> {
    let mut steps = view::<Parts>(origination).steps.unwrap_or_default();
    steps.sort_by_key(|s| view::<Parts>(s).position.unwrap_or(u64::MAX));
    steps
}

fn rules_of(origination: &Value) -> Vec<Value> {
    view::<Parts>(origination).rules.unwrap_or_default()
}

/// What a fault calls a step or a rule: its name, its label, its id, or `?`.
fn label(object: &Value) -> String {
    let parts: Parts = view(object);
    parts
        .name
        .or(parts.label)
        .or_else(|| parts.id.map(|id| id.to_string()))
        .unwrap_or_else(|| "?".into())
}

fn id(object: &Value, key: &str) -> Option<u64> {
    object.get(key).and_then(Value::as_u64)
}

/// Resolves the origination (id or name) and reads it whole (steps and rules included).
async fn read_origination(
    client: &ModyoClient,
    originations: &Collection<Origination>,
    input: &str,
) -> Result<(u64, Value), ToolError> {
    let found = originations.find(client, input, Need::Id).await?;
    let object = originations.fetch(client, found.id).await?;
    Ok((found.id, object))
}

/// Arguments of `customers-originations-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm slug or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<Action>,
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

command! {
    /// What `customers-originations-manage` can be asked.
    enum OriginationCommand for ManageArgs {
        List => Verb::list(),
        Get { origination: Ident } => Verb::read("get"),
        Create { name: String } => Verb::write("create"),
        Update { origination: Ident } => Verb::write("update").changes(),
        Delete { origination: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Origination, OriginationCommand>("customers-originations-manage", Module::Customers, within::<Realm, _>())
        .describe(
            "List, get, create, update or delete a realm's originations. origination: id or name. list: \
data.originations + coverage, resource = the realm; get: the origination with its steps and rules; \
create/update: data as persisted; delete needs confirmDelete: true. Steps and rules: the -steps-edit and \
-rules-edit tools. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid.",
        )
        .target("origination", "id or name")
        .fields(&["name", "description"])
        .run(run)
}

/// Runs one command of `customers-originations-manage`.
async fn run(
    ctx: Ctx<ManageArgs, Origination, OriginationCommand>,
) -> Answer<Managed<Origination>> {
    match &ctx.command {
        OriginationCommand::List => standard::list(&ctx, Query::new()).await,
        OriginationCommand::Get { .. } => get(ctx).await,
        OriginationCommand::Create { .. } => standard::create(&ctx).await,
        OriginationCommand::Update { .. } => standard::update(&ctx).await,
        OriginationCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}

/// `get` reads the origination by id even when a name resolved it: the list row may lack its
/// steps and rules.
async fn get(
    ctx: Ctx<ManageArgs, Origination, OriginationCommand>,
) -> Answer<Managed<Origination>> {
    let (id, object) = read_origination(ctx.client()?, &ctx.coll, &ctx.target()?).await?;
    let resource = ctx.coll.resource(&object, Some(id));
    Ok(reply::one(object, resource).into())
}

echoed! {
    /// A step as the API returns it.
    Step = "step" {
        id: i64, name: String, position: i64, hidden: bool
    }
}

impl Member for Step {
    const RULES: Rules = Rules::new("origination_step", "steps").legacy("step", "Step");
}

echoed! {
    /// A rule as the API returns it.
    Rule = "rule" {
        id: i64, name: String, condition: Object, action: String
    }
}

impl Member for Rule {
    const RULES: Rules = Rules::new("origination_rule", "rules").legacy("rule", "Rule");
}

/// The steps or rules of origination `id`: `<origination>/steps`, `<origination>/rules`.
fn children<T: Member>(originations: &Collection<Origination>, id: u64) -> Collection<T> {
    Collection::at(originations.item(format!("{id}/{}", T::RULES.root)))
}

/// `POST` a new step or rule; answers the created object.
async fn add<T: Member, D: Object>(
    client: &ModyoClient,
    children: &Collection<T>,
    fields: &Value,
) -> Answer<D> {
    let object = persist::create(client, &children.path, fields, T::NAME).await?;
    persist::check_sent(T::NAME, &object, fields)?;
    let resource = children.resource(&object, None);
    let message = format!("{} added successfully", T::noun());
    let post = PostCondition::status("created");
    Ok(reply::saved_as::<T, D>(object, resource, post, "created", message).into())
}

/// `PUT` step or rule `id`; answers the object as persisted.
async fn update<T: Member, D: Object>(
    client: &ModyoClient,
    children: &Collection<T>,
    id: u64,
    fields: &Value,
) -> Answer<D> {
    let path = children.item(id);
    let object = persist::write(client, Method::PUT, &path, Some(fields), &path).await?;
    persist::check_sent(T::NAME, &object, fields)?;
    let resource = children.resource(&object, Some(id));
    Ok(reply::saved::<T, D>(object, resource, "updated").into())
}

/// `DELETE` step or rule `id`.
async fn remove<T: Member, D: Absent>(
    client: &ModyoClient,
    children: &Collection<T>,
    id: u64,
) -> Answer<D> {
    client
        .send(Method::DELETE, &children.item(id), &Query::new(), None)
        .await?;
    let resource = Resource::new(T::RULES.resource).id(id);
    let message = format!("{} removed successfully", T::noun());
    Ok(reply::gone::<T, D>(resource, id, "deleted", message).into())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::{rules_edit_tool, steps_edit_tool};
    use crate::app::App;
    use crate::config::Config;
    use crate::contract::Outcome;
    use crate::tools::engine::tool::{Call, CallError, ToolDef};

    /// A call whose client points at a closed port: a request sent fails as a tool error,
    /// never as the argument error the tests expect.
    fn call() -> Call {
        let config = Config::from_vars([("MODYO_URL", "http://127.0.0.1:9"), ("MODYO_TOKEN", "t")])
            .expect("a config");
        Call {
            app: Arc::new(App::new(config).expect("an app")),
        }
    }

    async fn run(def: ToolDef, args: Value) -> Result<Outcome, CallError> {
        let Value::Object(args) = args else {
            panic!("an object")
        };
        (def.handler)(call(), args).await
    }

    #[tokio::test]
    async fn a_missing_parameter_is_answered_before_any_request() {
        let at = json!({"realm": "r", "origination": "o"});
        for (def, action, message) in [
            (steps_edit_tool(), "update", "update needs step (id)"),
            (
                steps_edit_tool(),
                "reorder",
                "reorder needs order (every step id)",
            ),
            (
                rules_edit_tool(),
                "add",
                "add needs question_id, operator and effect",
            ),
            (rules_edit_tool(), "remove", "remove needs rule (id)"),
            (
                rules_edit_tool(),
                "rename",
                "customers-originations-rules-edit has no action 'rename'",
            ),
        ] {
            let mut args = at.clone();
            args["action"] = json!(action);
            args["confirmDelete"] = json!(true);
            let Err(CallError::Arguments(got)) = run(def, args).await else {
                panic!("{action}: an argument error, before the realm is looked up")
            };
            assert_eq!(got, message);
        }
    }

    #[tokio::test]
    async fn an_unconfirmed_remove_is_cancelled_before_any_request() {
        let args = json!({"realm": "r", "origination": "o", "action": "remove", "step": 3});
        let Ok(Outcome::Control(control)) = run(steps_edit_tool(), args).await else {
            panic!("a remove without confirmDelete is a control")
        };
        assert_eq!(control.outcome(), "cancelled");
    }
}
