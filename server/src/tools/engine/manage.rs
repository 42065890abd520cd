//! `-manage` tools: one declaration of a collection and its command (C15, C18, C19).
//!
//! What every `-manage` call shares runs here, once: which command the arguments ask for (no
//! action and no mutating field is a `get`), parsed into the tool's typed [`Command`] with the
//! parameters its action requires; the confirmation of a destructive action and the refusal
//! of an undocumented one (both before any request is sent); resolving the collection. The
//! tool's `run` then matches on the command and calls the [`standard`] actions (`list`, `get`,
//! `create`, `update`, `delete`, a transition, each with its read-back, C7) or its own.
//!
//! The writable fields and the target are still named as the input schema names them (the
//! body of a standard write is the given fields, read from the arguments' serialized form);
//! `server.rs` checks every such name, and every parameter a command requires, against that
//! schema when the tool is registered.
//!
//! [`standard`]: super::standard

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::collection::{Found, Member, Need};
use super::command::{Command, Verb, declare_actions, one_of, words};
use super::ctx::{BoxFuture, Ctx, Given, ResolveFn, Scope};
use super::data::{Data, Managed};
use super::tool::{Call, CallError, ToolDef, tool};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Control, Outcome, ToolClass, ToolError};

/// What a typed handler returns.
pub(crate) type Answer<D> = Result<Outcome<D>, CallError>;

type Run<A, T, C, D> = Arc<dyn Fn(Ctx<A, T, C>) -> BoxFuture<Answer<D>> + Send + Sync>;
type ScopeFn<T> =
    Arc<dyn Fn(Call, Given, &'static Verb) -> BoxFuture<Result<Scope<T>, CallError>> + Send + Sync>;

/// The declaration of a `-manage` tool, finished by [`ManageTool::run`]. Its arguments are
/// `A`, its members `T`, its actions the command `C`; its `data` is `D`: a [`Managed`] object
/// by default, or a type of the tool's own that a [`Managed`] turns into.
pub(crate) struct ManageTool<A, T, C, D = Managed<T>> {
    name: &'static str,
    module: Module,
    description: String,
    scope: ScopeFn<T>,
    resolve: Option<ResolveFn<T>>,
    target: Option<(&'static str, &'static str)>,
    fields: &'static [&'static str],
    mutating: &'static [&'static str],
    marker: std::marker::PhantomData<fn(A, C) -> D>,
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
    F: Fn(Call, Given, &'static Verb) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Scope<T>, CallError>> + Send + 'static,
{
    Where(Arc::new(move |call, args, verb| {
        Box::pin(scope(call, args, verb))
    }))
}

/// Starts the declaration of the `-manage` tool `name`, whose arguments are `A`, whose
/// members are `T`s, living where `scope` says, and whose actions are the command `C`; its
/// `data` is a [`Managed`] `T`.
pub(crate) fn manage<A, T, C>(
    name: &'static str,
    module: Module,
    scope: Where<T>,
) -> ManageTool<A, T, C> {
    manage_as(name, module, scope)
}

/// [`manage`] for a tool whose `data` is a type of its own, `D`.
pub(crate) fn manage_as<A, T, C, D>(
    name: &'static str,
    module: Module,
    scope: Where<T>,
) -> ManageTool<A, T, C, D> {
    ManageTool {
        name,
        module,
        description: String::new(),
        scope: scope.0,
        resolve: None,
        target: None,
        fields: &[],
        mutating: &[],
        marker: std::marker::PhantomData,
    }
}

impl<A, T, C, D> ManageTool<A, T, C, D>
where
    A: DeserializeOwned + Serialize + JsonSchema + Send + Sync + 'static,
    T: Member,
    C: Command<Args = A>,
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
    ///
    /// [`Rules`]: super::Rules
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

    /// Finishes the declaration with what runs each command (a `match` on the command that
    /// calls the [`standard`] actions or the tool's own): a gated tool whose `action` values
    /// are the command's.
    ///
    /// [`standard`]: super::standard
    pub(crate) fn run<F, Fut>(self, run: F) -> ToolDef
    where
        F: Fn(Ctx<A, T, C>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer<D>> + Send + 'static,
    {
        let run: Run<A, T, C, D> = Arc::new(move |ctx| Box::pin(run(ctx)));
        let (read, write) = (words::<C>(true), words::<C>(false));
        let all: Vec<&'static str> = C::VERBS.iter().map(|v| v.word).collect();
        let mut declared: Vec<&'static str> = self
            .fields
            .iter()
            .chain(self.mutating)
            .chain(self.target.iter().map(|(p, _)| p))
            .copied()
            .collect();
        for param in C::required() {
            if !declared.contains(&param) {
                declared.push(param);
            }
        }
        let (name, module) = (self.name, self.module);
        let description = self.description.clone();
        let writes = RareState {
            paged: C::VERBS.iter().any(|v| v.lists),
            published: !write.is_empty() && T::RULES.published,
            ..RareState::default()
        };
        let this = Arc::new(self);
        let mut def = tool(name, module, ToolClass::Gated)
            .describe(&description)
            .resource()
            .state()
            .actions(read, write)
            .handle(move |call, args: A| {
                let (this, run) = (this.clone(), run.clone());
                async move { this.call(call, args, run).await }
            });
        declare_actions(&mut def.input_schema, &all);
        def.params = declared;
        def.undeclared = super::data::undeclared::<T>();
        def.slots.resource_path = T::RULES.path.is_some();
        def.writes_state(writes)
    }

    async fn call(self: Arc<Self>, call: Call, args: A, run: Run<A, T, C, D>) -> Answer<D> {
        let given = match serde_json::to_value(&args) {
            Ok(Value::Object(given)) => given,
            _ => Map::new(),
        };
        let command = self.command_of(&given, &args)?;
        let verb = command.verb();
        if verb.changes && !self.fields.iter().any(|f| is_given(&given, f)) {
            return Err(CallError::Arguments(format!(
                "{} needs at least one of {}",
                verb.word,
                self.fields.join(", ")
            )));
        }
        if verb.confirmed && given.get("confirmDelete") != Some(&Value::Bool(true)) {
            return Ok(Control::cancelled_unconfirmed(self.name, verb.word).into());
        }
        if let Some(why) = verb.refused {
            return Err(ToolError::invalid_parameters(why).into());
        }
        let given = Given(Arc::new(given));
        let scope = (self.scope)(call.clone(), given.clone(), verb).await?;
        run(Ctx {
            call,
            args: Arc::new(args),
            command,
            verb,
            given,
            coll: scope.coll,
            container: scope.container,
            held: scope.held,
            target: self.target.map(|(param, _)| param),
            fields: self.fields,
            resolve: self.resolve.clone(),
        })
        .await
    }

    /// The command the arguments ask for: `get` when no action is given (and no mutating
    /// field, which would make the call a silent `get`).
    fn command_of(&self, given: &Map<String, Value>, args: &A) -> Result<C, CallError> {
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
        match C::parse(word, args) {
            Some(Ok(command)) => Ok(command),
            Some(Err(missing)) => {
                let missing: Vec<String> = missing
                    .into_iter()
                    .map(|p| match self.target {
                        Some((target, help)) if target == p => format!("{p} ({help})"),
                        _ => p.to_owned(),
                    })
                    .collect();
                let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
                Err(CallError::Arguments(format!(
                    "{word} needs {}",
                    one_of(&missing, "and")
                )))
            }
            None => Err(CallError::Arguments(format!(
                "{} has no action '{word}'",
                self.name
            ))),
        }
    }
}

/// A required argument of an action, or the JSON-RPC argument error that names it.
pub(crate) fn required<V>(value: Option<V>, action: &str, what: &str) -> Result<V, CallError> {
    value.ok_or_else(|| CallError::Arguments(format!("{action} needs {what}")))
}

fn is_given(given: &Map<String, Value>, param: &str) -> bool {
    given.get(param).is_some_and(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::App;
    use crate::config::Config;
    use crate::contract::ErrorCode;
    use crate::modyo::Query;
    use crate::tools::engine::{Action, Rules, command, echoed, standard};
    use serde_json::json;

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

    command! {
        /// What `things-manage` can be asked.
        enum ThingCommand for Args {
            List => Verb::list(),
            Get { thing: String } => Verb::read("get"),
            Update { thing: String } => Verb::write("update").changes(),
            Delete { thing: String } => Verb::write("delete").confirmed(),
            Archive => Verb::write("archive").refused("Modyo documents no archive for things"),
        }
    }

    fn tool() -> ToolDef {
        manage::<Args, Thing, ThingCommand>("things-manage", Module::Core, at("/things"))
            .target("thing", "id")
            .fields(&["name"])
            .run(|ctx| async move {
                match &ctx.command {
                    ThingCommand::List => standard::list(&ctx, Query::new()).await,
                    ThingCommand::Get { .. } => standard::get(&ctx).await,
                    ThingCommand::Update { .. } => standard::update(&ctx).await,
                    ThingCommand::Delete { .. } => standard::delete(&ctx).await,
                    ThingCommand::Archive => standard::refused(&ctx).await,
                }
            })
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
