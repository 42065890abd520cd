//! `-manage` tools: one declaration of a collection and its actions (C15, C18, C19).
//!
//! What every `-manage` call shares runs here, once: which action was asked (none and no
//! mutating field is a `get`), what that action requires, the confirmation of a destructive
//! action (checked before any request is sent), resolving the collection and the member, and
//! the standard actions `list`, `get`, `create`, `update` and `delete` with their read-back
//! (C7). A tool declares its collection, its writable fields and its actions, and writes code
//! only for the actions that are its own.
//!
//! The engine reads the arguments by name from their serialized form (the argument struct
//! derives `Serialize`), so a declaration names parameters exactly as the input schema does;
//! [`ManageTool::build`] checks every name it was given against that schema.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::collection::{Found, Member, Need};
use super::ctx::{BoxFuture, Ctx, Given, ResolveFn, Scope};
use super::data::{Data, Managed};
use super::standard::{create, delete, get, list, transition, update};
use crate::config::Module;
use crate::contract::class::is_read_action;
use crate::contract::schema::RareState;
use crate::contract::{Control, Outcome, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::{Call, CallError, ToolDef, tool};

/// What a typed handler returns.
pub(crate) type Answer<D> = Result<Outcome<D>, CallError>;

type Run<A, T, D> = Arc<dyn Fn(Ctx<A, T>) -> BoxFuture<Answer<D>> + Send + Sync>;
type ScopeFn<T> =
    Arc<dyn Fn(Call, Given, &'static str) -> BoxFuture<Result<Scope<T>, CallError>> + Send + Sync>;

/// The `action` argument of a `-manage` tool: its values are the actions the tool declares
/// (the engine writes them into the input schema).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Action(String);

impl JsonSchema for Action {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Action".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": []})
    }

    fn inline_schema() -> bool {
        true
    }
}

#[derive(Clone, Copy)]
enum Standard {
    List,
    Get,
    Create,
    Update,
    Delete,
    /// `POST <member>/<action>`, then the member read back, in this status.
    Transition(&'static str),
}

enum Does<A, T, D> {
    Standard(Standard),
    Own(Run<A, T, D>),
    Refuse(&'static str),
}

struct Declared<A, T, D> {
    word: &'static str,
    targeted: bool,
    needs: Vec<&'static str>,
    any_field: bool,
    confirm: bool,
    does: Does<A, T, D>,
}

/// The declaration of a `-manage` tool, finished by [`ManageTool::build`]. Its `data` is `D`:
/// a [`Managed`] object by default, or a type of the tool's own that a [`Managed`] turns into.
pub(crate) struct ManageTool<A, T, D = Managed<T>> {
    name: &'static str,
    module: Module,
    description: String,
    scope: ScopeFn<T>,
    resolve: Option<ResolveFn<T>>,
    target: Option<(&'static str, &'static str)>,
    fields: &'static [&'static str],
    mutating: &'static [&'static str],
    query: fn(&A) -> Query,
    actions: Vec<Declared<A, T, D>>,
}

/// Where the members of a `-manage` tool live, resolved for each call.
pub(crate) struct Where<T>(ScopeFn<T>);

/// The members live at a fixed path (the account's groups).
pub(crate) fn at<T: 'static>(path: &'static str) -> Where<T> {
    Where(Arc::new(move |_, _, _| {
        Box::pin(std::future::ready(Ok(Scope::at(path))))
    }))
}

/// The members live where `scope` resolves them for each call (a realm's forms, a site's
/// variables); it gets the action, to resolve only what that action needs.
pub(crate) fn scoped<T, F, Fut>(scope: F) -> Where<T>
where
    F: Fn(Call, Given, &'static str) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Scope<T>, CallError>> + Send + 'static,
{
    Where(Arc::new(move |call, args, action| {
        Box::pin(scope(call, args, action))
    }))
}

/// Starts the declaration of the `-manage` tool `name`, whose arguments are `A` and whose
/// members are `T`s, living where `scope` says; its `data` is a [`Managed`] `T`.
pub(crate) fn manage<A, T>(
    name: &'static str,
    module: Module,
    scope: Where<T>,
) -> ManageTool<A, T> {
    manage_as(name, module, scope)
}

/// [`manage`] for a tool whose `data` is a type of its own, `D`.
pub(crate) fn manage_as<A, T, D>(
    name: &'static str,
    module: Module,
    scope: Where<T>,
) -> ManageTool<A, T, D> {
    ManageTool {
        name,
        module,
        description: String::new(),
        scope: scope.0,
        resolve: None,
        target: None,
        fields: &[],
        mutating: &[],
        query: |_| Query::new(),
        actions: Vec::new(),
    }
}

impl<A, T, D> ManageTool<A, T, D>
where
    A: DeserializeOwned + Serialize + JsonSchema + Send + Sync + 'static,
    T: Member,
    D: Data + From<Managed<T>>,
{
    /// The model-facing description.
    pub(crate) fn describe(mut self, text: &str) -> Self {
        self.description = text.to_owned();
        self
    }

    /// The parameter naming the member (`group`) and how it may be given (`id or name`).
    pub(crate) fn target(mut self, param: &'static str, help: &'static str) -> Self {
        self.target = Some((param, help));
        self
    }

    /// How the target resolves into a member, when not as the collection's [`Rules`] say
    /// (a template by name within a category).
    pub(crate) fn resolve<F, Fut>(mut self, resolve: F) -> Self
    where
        F: Fn(Call, Given, Scope<T>, Need) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Found, CallError>> + Send + 'static,
    {
        self.resolve = Some(Arc::new(move |call, given, coll, need| {
            Box::pin(resolve(call, given, coll, need))
        }));
        self
    }

    /// The writable fields: sent as the body of `create` and `update` when given, in this
    /// order; giving any of them without an action is an error (the call would be a `get`).
    pub(crate) fn fields(mut self, fields: &'static [&'static str]) -> Self {
        self.fields = fields;
        self
    }

    /// Other parameters that only a mutating action reads (`user_ids`).
    pub(crate) fn mutating(mut self, params: &'static [&'static str]) -> Self {
        self.mutating = params;
        self
    }

    fn push(mut self, word: &'static str, does: Does<A, T, D>) -> Self {
        self.actions.push(Declared {
            word,
            targeted: false,
            needs: Vec::new(),
            any_field: false,
            confirm: false,
            does,
        });
        self
    }

    fn last(&mut self) -> &mut Declared<A, T, D> {
        match self.actions.last_mut() {
            Some(last) => last,
            None => panic!("{}: declare an action before its requirements", self.name),
        }
    }

    /// `list`: one page, filtered by `query` (the paging is added).
    pub(crate) fn list(mut self, query: fn(&A) -> Query) -> Self {
        self.query = query;
        self.push("list", Does::Standard(Standard::List))
    }

    /// `get`: the member, resolved from the target.
    pub(crate) fn get(self) -> Self {
        self.push("get", Does::Standard(Standard::Get)).on_target()
    }

    /// `create`: `POST` the given fields; `required` must be among them.
    pub(crate) fn create(self, required: &'static [&'static str]) -> Self {
        self.push("create", Does::Standard(Standard::Create))
            .needs(required)
    }

    /// `update`: `PUT` the given fields (at least one) to the member, read back and checked.
    pub(crate) fn update(self) -> Self {
        self.push("update", Does::Standard(Standard::Update))
            .on_target()
            .changes()
    }

    /// `delete`: confirmed, then `DELETE` the member.
    pub(crate) fn delete(self) -> Self {
        self.push("delete", Does::Standard(Standard::Delete))
            .on_target()
            .confirmed()
    }

    /// A state change of the member: `POST <member>/<word>` without a body, then the member
    /// as persisted, in `status` (`archive` leaves it `archived`).
    pub(crate) fn transition(self, word: &'static str, status: &'static str) -> Self {
        self.push(word, Does::Standard(Standard::Transition(status)))
            .on_target()
    }

    /// An action of the tool's own.
    pub(crate) fn action<F, Fut>(self, word: &'static str, run: F) -> Self
    where
        F: Fn(Ctx<A, T>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer<D>> + Send + 'static,
    {
        let run: Run<A, T, D> = Arc::new(move |ctx| Box::pin(run(ctx)));
        self.push(word, Does::Own(run))
    }

    /// An action the tool cannot perform (Modyo documents no endpoint for it): it answers
    /// `why` as an `invalid_parameters` error, before any request is sent.
    pub(crate) fn refuse(self, word: &'static str, why: &'static str) -> Self {
        self.push(word, Does::Refuse(why))
    }

    /// Parameters the last action requires.
    pub(crate) fn needs(mut self, params: &'static [&'static str]) -> Self {
        self.last().needs.extend(params);
        self
    }

    /// The last action needs the target.
    pub(crate) fn on_target(mut self) -> Self {
        self.last().targeted = true;
        self
    }

    /// The last action needs at least one of the writable fields (an update of its own).
    pub(crate) fn changes(mut self) -> Self {
        self.last().any_field = true;
        self
    }

    /// The last action is destructive: it runs only with `confirmDelete: true` (C18).
    pub(crate) fn confirmed(mut self) -> Self {
        self.last().confirm = true;
        self
    }

    /// Finishes the declaration: a gated tool whose `action` values are the declared ones.
    pub(crate) fn build(self) -> ToolDef {
        let name = self.name;
        let read: Vec<&'static str> = self
            .actions
            .iter()
            .map(|a| a.word)
            .filter(|w| is_read_action(w))
            .collect();
        let write: Vec<&'static str> = self
            .actions
            .iter()
            .map(|a| a.word)
            .filter(|w| !is_read_action(w))
            .collect();
        let words: Vec<&'static str> = self.actions.iter().map(|a| a.word).collect();
        let declared: Vec<&'static str> = self
            .fields
            .iter()
            .chain(self.mutating)
            .chain(self.target.iter().map(|(p, _)| p))
            .chain(self.actions.iter().flat_map(|a| a.needs.iter()))
            .copied()
            .collect();
        let description = self.description.clone();
        let module = self.module;
        let writes = self.writes_state(!write.is_empty());
        let this = Arc::new(self);
        let mut def = tool(name, module, ToolClass::Gated)
            .describe(&description)
            .resource()
            .state()
            .actions(leak(read), leak(write))
            .handle(move |call, args: A| {
                let this = this.clone();
                async move { this.run(call, args).await }
            });
        declare_actions(&mut def.input_schema, &words);
        def.params = declared;
        def.undeclared = super::data::undeclared::<T>();
        def.slots.resource_path = T::RULES.path.is_some();
        def.writes_state(writes)
    }

    /// The rare `state` keys the engine's own actions write (C5): `page` and `per_page` from a
    /// standard `list`, `published` from a write of members that say it. What the tool's own
    /// actions write besides, it declares with [`ToolDef::writes_state`].
    fn writes_state(&self, writes: bool) -> RareState {
        RareState {
            paged: self
                .actions
                .iter()
                .any(|a| matches!(a.does, Does::Standard(Standard::List))),
            published: writes && T::RULES.published,
            ..RareState::default()
        }
    }

    async fn run(self: Arc<Self>, call: Call, args: A) -> Answer<D> {
        let given = match serde_json::to_value(&args) {
            Ok(Value::Object(given)) => given,
            _ => Map::new(),
        };
        let action = self.action_of(&given)?;
        self.check(action, &given)?;
        if action.confirm && given.get("confirmDelete") != Some(&Value::Bool(true)) {
            return Ok(Control::cancelled_unconfirmed(self.name, action.word).into());
        }
        if let Does::Refuse(why) = action.does {
            return Err(ToolError::invalid_parameters(why).into());
        }
        let given = Given(Arc::new(given));
        let scope = (self.scope)(call.clone(), given.clone(), action.word).await?;
        let ctx = Ctx {
            call,
            args: Arc::new(args),
            action: action.word,
            given,
            coll: scope.coll,
            container: scope.container,
            target: self.target.map(|(param, _)| param),
            fields: self.fields,
            query: self.query,
            resolve: self.resolve.clone(),
        };
        let standard = match &action.does {
            Does::Standard(Standard::List) => list(ctx).await,
            Does::Standard(Standard::Get) => get(ctx).await,
            Does::Standard(Standard::Create) => create(ctx).await,
            Does::Standard(Standard::Update) => update(ctx).await,
            Does::Standard(Standard::Delete) => delete(ctx).await,
            Does::Standard(Standard::Transition(status)) => transition(ctx, status).await,
            Does::Own(run) => return run(ctx).await,
            Does::Refuse(why) => return Err(ToolError::invalid_parameters(*why).into()),
        };
        Ok(standard?.map(D::from))
    }

    fn action_of(&self, given: &Map<String, Value>) -> Result<&Declared<A, T, D>, CallError> {
        let word = match given.get("action").and_then(Value::as_str) {
            Some(word) => word,
            None => {
                let writes: Vec<&str> = self.fields.iter().chain(self.mutating).copied().collect();
                if writes.iter().any(|p| is_given(given, p)) {
                    return Err(CallError::Arguments(format!(
                        "action is required when {} {} given; without an action the call is a get",
                        one_of(&writes, "or"),
                        if writes.len() == 1 { "is" } else { "are" }
                    )));
                }
                "get"
            }
        };
        self.actions
            .iter()
            .find(|a| a.word == word)
            .ok_or_else(|| CallError::Arguments(format!("{} has no action '{word}'", self.name)))
    }

    fn check(
        &self,
        action: &Declared<A, T, D>,
        given: &Map<String, Value>,
    ) -> Result<(), CallError> {
        let target = self
            .target
            .filter(|_| action.targeted)
            .map(|(param, _)| param);
        let missing: Vec<String> = target
            .iter()
            .chain(&action.needs)
            .filter(|p| !is_given(given, p))
            .map(|p| match self.target {
                Some((target, help)) if target == *p => format!("{p} ({help})"),
                _ => (*p).to_owned(),
            })
            .collect();
        if !missing.is_empty() {
            let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
            return Err(CallError::Arguments(format!(
                "{} needs {}",
                action.word,
                one_of(&missing, "and")
            )));
        }
        if action.any_field && !self.fields.iter().any(|f| is_given(given, f)) {
            return Err(CallError::Arguments(format!(
                "{} needs at least one of {}",
                action.word,
                self.fields.join(", ")
            )));
        }
        Ok(())
    }
}

/// A required argument of an action, or the JSON-RPC argument error that names it.
pub(crate) fn required<V>(value: Option<V>, action: &str, what: &str) -> Result<V, CallError> {
    value.ok_or_else(|| CallError::Arguments(format!("{action} needs {what}")))
}

fn leak(words: Vec<&'static str>) -> &'static [&'static str] {
    Box::leak(words.into_boxed_slice())
}

fn is_given(given: &Map<String, Value>, param: &str) -> bool {
    given.get(param).is_some_and(|v| !v.is_null())
}

/// `a, b or c`.
fn one_of(items: &[&str], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., tail] => format!("{} {last} {tail}", rest.join(", ")),
    }
}

/// Writes the declared actions into the `action` property of an input schema.
fn declare_actions(schema: &mut Map<String, Value>, words: &[&str]) {
    let Some(Value::Object(action)) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("action"))
    else {
        return;
    };
    let nullable = matches!(action.get("enum"), Some(Value::Array(e)) if e.contains(&Value::Null));
    let mut values: Vec<Value> = words.iter().map(|w| json!(w)).collect();
    if nullable {
        values.push(Value::Null);
    }
    action.insert("enum".into(), Value::Array(values));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::App;
    use crate::config::Config;
    use crate::contract::ErrorCode;
    use crate::tools::engine::{Rules, echoed};

    echoed! {
        /// A thing, for the tests.
        Thing = "thing" { id: i64, name: String }
    }

    impl Member for Thing {
        const RULES: Rules = Rules::new("thing", "things");
    }

    /// Arguments of `things-manage`.
    #[derive(Debug, serde::Deserialize, Serialize, JsonSchema)]
    struct Args {
        /// The action.
        action: Option<Action>,
        /// Thing id.
        thing: Option<String>,
        /// Name.
        name: Option<String>,
        /// Must be true for delete.
        #[serde(rename = "confirmDelete")]
        confirm_delete: Option<bool>,
    }

    fn tool() -> ToolDef {
        manage::<Args, Thing>("things-manage", Module::Core, at("/things"))
            .target("thing", "id")
            .fields(&["name"])
            .list(|_| Query::new())
            .get()
            .update()
            .delete()
            .refuse("archive", "Modyo documents no archive for things")
            .build()
    }

    /// A call whose client points at a closed port: any request would fail the test.
    fn call() -> Call {
        let config = Config::from_vars([("MODYO_URL", "http://127.0.0.1:9"), ("MODYO_TOKEN", "t")])
            .expect("a config");
        Call {
            app: Arc::new(App::new(config).expect("an app")),
        }
    }

    async fn run(args: Value) -> Result<Outcome, CallError> {
        let Value::Object(args) = args else {
            panic!("an object")
        };
        (tool().handler)(call(), args).await
    }

    #[test]
    fn the_input_schema_offers_exactly_the_declared_actions() {
        let def = tool();
        assert_eq!(
            def.input_schema["properties"]["action"]["enum"],
            json!(["list", "get", "update", "delete", "archive", null])
        );
        assert_eq!(def.read_actions, ["list", "get"]);
        assert_eq!(def.write_actions, ["update", "delete", "archive"]);
        assert_eq!(def.params, ["name", "thing"]);
        assert!(def.undeclared.is_empty());
    }

    #[tokio::test]
    async fn what_is_decided_locally_is_answered_before_any_request() {
        let Ok(Outcome::Control(control)) = run(json!({"action": "delete", "thing": "7"})).await
        else {
            panic!("an unconfirmed delete is a control")
        };
        assert_eq!(control.outcome(), "cancelled");
        let Err(CallError::Tool(refused)) = run(json!({"action": "archive", "thing": "7"})).await
        else {
            panic!("an undocumented action is an error")
        };
        assert_eq!(refused.code(), ErrorCode::InvalidParameters);
        assert_eq!(refused.message(), "Modyo documents no archive for things");
        for (args, message) in [
            (json!({"action": "get"}), "get needs thing (id)"),
            (
                json!({"action": "update", "thing": "7"}),
                "update needs at least one of name",
            ),
            (
                json!({"name": "x"}),
                "action is required when name is given; without an action the call is a get",
            ),
        ] {
            let Err(CallError::Arguments(got)) = run(args.clone()).await else {
                panic!("{args}: an argument error")
            };
            assert_eq!(got, message, "{args}");
        }
    }
}
