//! The kit every tool is declared with: [`tool`] starts a declaration (name, module, class,
//! description, the envelope slots it emits, for gated tools its read and mutating actions)
//! and [`ToolBuilder::handle`] finishes it with a typed handler `async fn(Call, Args) ->
//! Answer<D>`. Arguments are typed structs (serde + schemars) whose `///` docs are the text
//! the model reads; `D` is the type of `data` ([`Data`]), from which the `outputSchema` is
//! derived.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Data;
use super::command::{Command, declare_actions};
use crate::app::App;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Outcome, Slots, ToolClass, ToolError, schema};
use crate::modyo::{CmsError, ModyoClient};

/// What a registered handler returns once its typed `data` is serialized: an outcome, or a
/// failure.
type ToolResult = Result<Outcome, CallError>;

/// A handler failure: a C16 tool error, or bad arguments (a JSON-RPC error).
#[derive(Debug)]
pub(crate) enum CallError {
    /// The model should read it (C16).
    Tool(ToolError),
    /// The call itself is malformed: JSON-RPC `-32602`.
    Arguments(String),
}

impl From<ToolError> for CallError {
    fn from(e: ToolError) -> CallError {
        CallError::Tool(e)
    }
}

impl From<CmsError> for CallError {
    fn from(e: CmsError) -> CallError {
        CallError::Tool(e.into())
    }
}

/// The per-call context a handler gets.
#[derive(Clone)]
pub(crate) struct Call {
    pub(crate) app: Arc<App>,
}

impl Call {
    /// The Modyo client (absent only in public mode, where API tools are not registered).
    pub(crate) fn client(&self) -> Result<&ModyoClient, CallError> {
        self.app.client.as_ref().ok_or_else(|| {
            CallError::Tool(ToolError::new(
                crate::contract::ErrorCode::Unauthorized,
                "this tool needs MODYO_URL and MODYO_TOKEN; the server is in public mode",
            ))
        })
    }
}

type BoxedFuture = Pin<Box<dyn Future<Output = ToolResult> + Send>>;
type Handler = Arc<dyn Fn(Call, Map<String, Value>) -> BoxedFuture + Send + Sync>;

/// One tool, as declared.
pub(crate) struct ToolDef {
    pub(crate) name: &'static str,
    pub(crate) module: Module,
    pub(crate) class: ToolClass,
    pub(crate) description: String,
    pub(crate) read_actions: &'static [&'static str],
    pub(crate) write_actions: &'static [&'static str],
    pub(crate) slots: Slots,
    pub(crate) data_schema: Value,
    /// Why the `data` root is loose, when it echoes a Modyo object (C10).
    pub(crate) echoed: Option<String>,
    pub(crate) input_schema: Map<String, Value>,
    /// Parameters the declaration reads by name: each must be in the input schema.
    pub(crate) params: Vec<&'static str>,
    /// Parameters the migrated tool added; the legacy input schema does not have them (C21).
    pub(crate) new_params: &'static [&'static str],
    /// Keys of the echoed object the engine relies on that its type does not declare: must be
    /// empty (an echoed object declares the keys the server relies on; the rest stays loose).
    pub(crate) undeclared: Vec<&'static str>,
    pub(crate) handler: Handler,
}

impl ToolDef {
    /// The `action` values of a multi-action tool that is not a `-manage` declaration: the
    /// words of its command, in declaration order (its `action` argument is an [`Action`]).
    ///
    /// [`Action`]: super::Action
    pub(crate) fn offers<C: Command>(mut self) -> ToolDef {
        let words: Vec<&str> = C::VERBS.iter().map(|v| v.word).collect();
        declare_actions(&mut self.input_schema, &words);
        self
    }

    /// Declares rare `state` keys (C5) this tool's handler can write, besides those already
    /// declared (the `-manage` engine derives some from the actions it runs); the others stay
    /// out of its `outputSchema`. A key written but not declared fails the answer's own
    /// validation (a server bug, C8), so a wrong declaration cannot pass a replayed scenario
    /// silently.
    pub(crate) fn writes_state(mut self, rare: RareState) -> ToolDef {
        self.slots.rare = self.slots.rare.union(rare);
        self
    }

    /// Declares that this tool's `resource` can carry a `path` (C4: pages, categories, local
    /// directories); without it the key stays out of its `outputSchema`, and writing one fails
    /// the answer's own validation like any undeclared key.
    pub(crate) fn writes_resource_path(mut self) -> ToolDef {
        self.slots.resource_path = true;
        self
    }
}

/// Starts the declaration of a tool.
pub(crate) fn tool(name: &'static str, module: Module, class: ToolClass) -> ToolBuilder {
    ToolBuilder {
        name,
        module,
        class,
        description: String::new(),
        read_actions: &[],
        write_actions: &[],
        slots: Slots {
            control: class == ToolClass::Gated,
            ..Slots::default()
        },
        new_params: &[],
    }
}

/// The declaration of a tool under construction; [`ToolBuilder::handle`] finishes it.
pub(crate) struct ToolBuilder {
    name: &'static str,
    module: Module,
    class: ToolClass,
    description: String,
    read_actions: &'static [&'static str],
    write_actions: &'static [&'static str],
    slots: Slots,
    new_params: &'static [&'static str],
}

impl ToolBuilder {
    /// The model-facing description; the docs link is appended.
    pub(crate) fn describe(mut self, text: &str) -> ToolBuilder {
        self.description = format!("{text} Docs: modyo://docs/tools/{}", self.name);
        self
    }

    /// The tool reports a `resource`.
    pub(crate) fn resource(mut self) -> ToolBuilder {
        self.slots.resource = true;
        self
    }

    /// The tool reports `state`.
    pub(crate) fn state(mut self) -> ToolBuilder {
        self.slots.state = true;
        self
    }

    /// The tool can answer with `control` (a confirmation it did not get).
    pub(crate) fn control(mut self) -> ToolBuilder {
        self.slots.control = true;
        self
    }

    /// The read and mutating actions of a gated tool.
    pub(crate) fn actions(
        mut self,
        read: &'static [&'static str],
        write: &'static [&'static str],
    ) -> ToolBuilder {
        self.read_actions = read;
        self.write_actions = write;
        self
    }

    /// Parameters that did not exist before the migration (absent from the legacy schema).
    pub(crate) fn new_params(mut self, params: &'static [&'static str]) -> ToolBuilder {
        self.new_params = params;
        self
    }

    /// Finishes the declaration with the handler: the input schema comes from `A`, the
    /// `data` schema from `D`, the type of what the handler answers.
    pub(crate) fn handle<A, D, F, Fut>(self, handler: F) -> ToolDef
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        D: Data,
        F: Fn(Call, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Outcome<D>, CallError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let handler: Handler =
            Arc::new(
                move |call, args| match serde_json::from_value::<A>(Value::Object(args)) {
                    Ok(args) => {
                        let answer = handler(call, args);
                        Box::pin(async move { Ok(answer.await?.map(D::into_value)) })
                    }
                    Err(e) => {
                        Box::pin(std::future::ready(Err(CallError::Arguments(e.to_string()))))
                    }
                },
            );
        let mut slots = self.slots;
        slots.rare = slots.rare.union(D::state());
        ToolDef {
            name: self.name,
            module: self.module,
            class: self.class,
            description: self.description,
            read_actions: self.read_actions,
            write_actions: self.write_actions,
            slots,
            data_schema: schema::derived::<D>(),
            echoed: D::echoed(),
            input_schema: schema::input_schema::<A>(),
            params: Vec::new(),
            new_params: self.new_params,
            undeclared: Vec::new(),
            handler,
        }
    }
}
