//! The MCP face of the server: `initialize`, `tools/list`, `tools/call`, the tool docs
//! resources and (with the widgets module) the widget catalogue resources, on rmcp.
//!
//! The registry is built once from the catalogue, filtered by module and by the read-only
//! gate (C19), with each tool's mode (migrated or legacy, C21) fixed by configuration. Every
//! call goes through the same path: input validation against the tool's own `inputSchema`,
//! the read-only gate, the handler, then [`crate::contract::exit`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode as RpcCode, Implementation,
    InitializeRequestParams, InitializeResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::app::App;
use crate::config::{Config, Module};
use crate::contract::Platform;
use crate::contract::{
    Control, ErrorCode, ErrorForm, Invalid, Mode, Outcome, OutputValidator, ResultForm, ToolClass,
    ToolError, exit, schema,
};
use crate::scrub::Scrubber;
use crate::tools::{Call, CallError, ToolDef, catalog};

mod describe;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The HTTP client could not be built.
    #[error("cannot set up the Modyo client: {0}")]
    Client(#[from] crate::modyo::SetupError),
    /// A tool's declared schema does not compile (a bug in the server).
    #[error("tool {tool}: {reason}")]
    Schema {
        /// The tool.
        tool: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The widget catalogue shipped in the binary does not parse or is inconsistent (a bug
    /// in the server's data).
    #[error("widget catalogue: {0}")]
    Catalogue(String),
    /// The transport failed.
    #[error("MCP transport: {0}")]
    Transport(String),
    /// The HTTP transport could not start.
    #[error(transparent)]
    Http(#[from] crate::http::HttpError),
}

struct Registered {
    def: &'static ToolDef,
    mode: Mode,
    tool: Tool,
    input: OutputValidator,
    output: Option<OutputValidator>,
}

struct Inner {
    app: Arc<App>,
    tools: Vec<Arc<Registered>>,
    index: HashMap<&'static str, usize>,
    instructions: String,
    /// The widgets module is active: its catalogue resources are listed and readable.
    widgets: bool,
    /// What a migrated answer carries (C22).
    form: ResultForm,
    /// The form of a tool error's text (C22).
    errors: ErrorForm,
    /// Whether `tools/list` shows the migrated tools' `outputSchema` (the form and
    /// `MODYO_OUTPUT_SCHEMA` agree); they are compiled and answers validated either way (C8).
    list_schemas: bool,
}

/// The Modyo MCP server. Cheap to clone; every clone shares one registry and one client.
#[derive(Clone)]
pub struct ModyoServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ModyoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModyoServer")
            .field("tools", &self.inner.tools.len())
            .finish()
    }
}

/// The number of tools in the full catalogue.
pub fn catalog_size() -> usize {
    catalog().len()
}

/// The tools whose `data` root is a Modyo object (or a list of them) echoed whole, with why:
/// the loose roots of C10, as the tools' `data` types declare them (the lint's echoed-root
/// list is this, not a list kept by hand).
pub fn echoed_roots() -> Vec<(&'static str, String)> {
    catalog()
        .iter()
        .filter_map(|def| def.echoed.clone().map(|reason| (def.name, reason)))
        .collect()
}

impl ModyoServer {
    /// Builds the registry for `config`: module filter, read-only gate, migrated or legacy.
    pub fn new(config: Config) -> Result<ModyoServer, ServerError> {
        let app = Arc::new(App::new(config)?);
        let config = &app.config;
        let active = config.active_modules();
        let widgets = active.contains(&Module::Widgets);
        if widgets {
            crate::widgets::check().map_err(ServerError::Catalogue)?;
        }
        let all = catalog();
        let total = all.len();
        let mut tools = Vec::new();
        for def in all {
            if !active.contains(&def.module) {
                continue;
            }
            if config.read_only && !def.class.registered_when_read_only() {
                continue;
            }
            let mode = if config.legacy_modules.contains(&def.module) {
                Mode::Legacy
            } else {
                Mode::Migrated
            };
            tools.push(registered(def, mode, &app.platform)?);
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.def.name, i))
            .collect();
        // DEBUG here: tests and the lab build many servers per process; a binary announces
        // its one server at INFO (`log_registry`).
        tracing::debug!("Tools: {} (filtered from {total}).", tools.len());
        let instructions = describe::instructions(&active, config.read_only, config.has_api());
        let (form, errors, list_schemas) =
            (config.results, config.errors, config.lists_output_schema());
        Ok(ModyoServer {
            inner: Arc::new(Inner {
                app,
                tools,
                index,
                instructions,
                widgets,
                form,
                errors,
                list_schemas,
            }),
        })
    }

    /// Logs at INFO what the registry holds (the tool count; read-only mode and its counts):
    /// the start-up lines of a binary.
    pub fn log_registry(&self) {
        let tools = &self.inner.tools;
        tracing::info!("Tools: {} (filtered from {}).", tools.len(), catalog_size());
        if self.inner.app.config.read_only {
            let count = |class| tools.iter().filter(|t| t.def.class == class).count();
            tracing::info!(
                "Read-only mode active (MODYO_READ_ONLY). Read tools exposed: {}. Multi-action tools gated: {}.",
                count(ToolClass::Read),
                count(ToolClass::Gated)
            );
        }
    }

    /// The start-up line naming the result form (C22): [`Config::results_line`].
    pub fn results_line(&self) -> String {
        self.inner.app.config.results_line()
    }

    /// The names of the registered tools, in catalogue order.
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.inner.tools.iter().map(|t| t.def.name).collect()
    }

    /// The registered tools as `tools/list` shows them.
    pub fn tools(&self) -> Vec<Tool> {
        self.inner.tools.iter().map(|t| self.listed(t)).collect()
    }

    /// A tool as `tools/list` shows it: without its `outputSchema` when the form has none or
    /// `MODYO_OUTPUT_SCHEMA` is off (C22).
    fn listed(&self, registered: &Registered) -> Tool {
        let mut tool = registered.tool.clone();
        if !self.inner.list_schemas {
            tool.output_schema = None;
        }
        tool
    }

    /// Serves MCP over the given transport until the peer closes it.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServerError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running = ServiceExt::serve(self, transport)
            .await
            .map_err(|e| ServerError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServerError::Transport(e.to_string()))?;
        Ok(())
    }

    /// Serves MCP over this process's stdin and stdout ([`crate::stdio`]: every malformed
    /// line is answered).
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        self.serve(crate::stdio::stdio()).await
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(&i) = self.inner.index.get(request.name.as_ref()) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "Unknown tool: {}. Call tools/list for the tools this server exposes.",
                    request.name
                ),
                None,
            ));
        };
        let registered = &self.inner.tools[i];
        let def = &registered.def;
        let platform = &self.inner.app.platform;
        let args = request.arguments.unwrap_or_default();
        if let Err(violations) = registered.input.check(&Value::Object(args.clone())) {
            return Err(ErrorData::invalid_params(
                format!("Invalid arguments for {}: {violations}", def.name),
                None,
            ));
        }
        if let Some(refused) = gate(def, self.inner.app.config.read_only, &args) {
            return answer(registered, platform, refused.into());
        }
        let call = Call {
            app: self.inner.app.clone(),
        };
        let started = std::time::Instant::now();
        let result = tokio::select! {
            result = (def.handler)(call, args) => result,
            () = context.ct.cancelled() => {
                tracing::info!(tool = def.name, "call cancelled by the client");
                return Err(ErrorData::new(RpcCode(-32800), "Request cancelled", None));
            }
        };
        let elapsed_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(outcome) => {
                tracing::debug!(tool = def.name, elapsed_ms, "call answered");
                answer(registered, platform, outcome)
            }
            Err(CallError::Tool(error)) => {
                tracing::info!(
                    tool = def.name,
                    elapsed_ms,
                    code = error.code().as_str(),
                    "call failed"
                );
                Ok(exit::fail(platform, registered.mode, &error))
            }
            Err(CallError::Arguments(message)) => Err(ErrorData::invalid_params(
                format!("Invalid arguments for {}: {message}", def.name),
                None,
            )),
        }
    }

    fn tool_doc(&self, name: &str) -> Option<String> {
        let registered = &self.inner.tools[*self.inner.index.get(name)?];
        Some(describe::tool_doc(registered.def, &registered.tool))
    }
}

/// `def` registered in `mode` for `platform`, compiled once per process: the three schema
/// compilations per tool are most of the cost of [`ModyoServer::new`], and tests and the lab
/// build a server per session. The catalogue is fixed at compile time, so a tool's name and
/// mode determine it, and the platform its `outputSchema`'s `const` (C2): a process serving
/// several accounts compiles each tool once per account.
fn registered(
    def: &'static ToolDef,
    mode: Mode,
    platform: &Platform,
) -> Result<Arc<Registered>, ServerError> {
    type Compiled = HashMap<(&'static str, bool, Platform), Arc<Registered>>;
    static COMPILED: OnceLock<Mutex<Compiled>> = OnceLock::new();
    let key = (def.name, mode == Mode::Legacy, platform.clone());
    let compiled = COMPILED.get_or_init(Mutex::default);
    if let Some(found) = compiled.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(found.clone());
    }
    // Compiled outside the lock: a concurrent first build of the same tool only does the work
    // twice, and both results are the same.
    let fresh = Arc::new(register(def, mode, platform)?);
    let mut compiled = compiled.lock().unwrap_or_else(|e| e.into_inner());
    Ok(compiled.entry(key).or_insert(fresh).clone())
}

/// A tool's echoed type declares every key the engine reads of it (an echoed object declares
/// the keys the server relies on; the rest stays loose).
pub(crate) fn check_declared(def: &ToolDef) -> Result<(), ServerError> {
    match def.undeclared.first() {
        None => Ok(()),
        Some(key) => Err(ServerError::Schema {
            tool: def.name,
            reason: format!(
                "the engine reads the key '{key}' of its echoed objects, which their type does not declare"
            ),
        }),
    }
}

fn register(
    def: &'static ToolDef,
    mode: Mode,
    platform: &Platform,
) -> Result<Registered, ServerError> {
    check_declared(def)?;
    let declared = def
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    if let Some(param) = def
        .params
        .iter()
        .find(|p| !declared.is_some_and(|d| d.contains_key(**p)))
    {
        return Err(ServerError::Schema {
            tool: def.name,
            reason: format!("the declaration reads '{param}', which the input schema lacks"),
        });
    }
    let mut input = def.input_schema.clone();
    if mode == Mode::Legacy {
        if let Some(Value::Object(props)) = input.get_mut("properties") {
            for p in def.new_params {
                props.remove(*p);
            }
        }
        if let Some(Value::Array(required)) = input.get_mut("required") {
            required.retain(|r| !def.new_params.iter().any(|p| r == p));
        }
    }
    let input_validator = OutputValidator::new(&input).map_err(|reason| ServerError::Schema {
        tool: def.name,
        reason,
    })?;
    let mut tool = Tool::new(def.name, def.description.clone(), Arc::new(input));
    tool.annotations = Some(ToolAnnotations::new().read_only(def.class == ToolClass::Read));
    let output = match mode {
        Mode::Legacy => None,
        Mode::Migrated => {
            let schema =
                schema::output_schema(def.class, def.slots, def.data_schema.clone(), platform);
            let validator =
                OutputValidator::new(&schema).map_err(|reason| ServerError::Schema {
                    tool: def.name,
                    reason,
                })?;
            tool.output_schema = Some(Arc::new(schema));
            Some(validator)
        }
    };
    Ok(Registered {
        def,
        mode,
        tool,
        input: input_validator,
        output,
    })
}

/// The exit (C8): the envelope is validated once against the tool's `outputSchema`. `data`
/// carries the API's values, so when only they break it (a known key whose type drifted
/// upstream) the call fails as an `invalid_upstream_response` naming the pointer (C16),
/// instead of an output validation error that blames the client's request; a violation in
/// what the server built itself stays a `-32602`, a bug in the server.
fn answer(
    registered: &Registered,
    platform: &crate::contract::Platform,
    outcome: Outcome,
) -> Result<CallToolResult, ErrorData> {
    let name = registered.def.name;
    match exit::respond(
        platform,
        registered.mode,
        registered.output.as_ref(),
        outcome,
    ) {
        Ok(result) => Ok(result),
        Err(Invalid::Upstream(violations)) => {
            let mut shown: String = violations.chars().take(600).collect();
            if shown.len() < violations.len() {
                shown.push_str("...");
            }
            let error = ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!(
                    "the API answered values that do not fit {name}'s output schema (data{shown})"
                ),
            )
            .retryable(false);
            tracing::warn!(tool = name, "{}", error.message());
            Ok(exit::fail(platform, registered.mode, &error))
        }
        Err(Invalid::Server(violations)) => {
            tracing::error!(%violations, tool = name, "structured result does not match the tool's outputSchema");
            Err(ErrorData::invalid_params(
                format!("Output validation error: {violations}"),
                None,
            ))
        }
    }
}

/// Scrubs the token from a result, wherever upstream text put it (an error message, a
/// relayed body, a value of `data`). The text is the compact serialization of the payload, so
/// when no form of the token is in it, `structuredContent` holds none either.
fn scrub_result(scrubber: &Scrubber, result: &mut CallToolResult) {
    let mut found = false;
    for content in &mut result.content {
        if let rmcp::model::ContentBlock::Text(text) = content
            && scrubber.finds(&text.text)
        {
            scrubber.scrub_string(&mut text.text);
            found = true;
        }
    }
    if found && let Some(structured) = result.structured_content.as_mut() {
        scrubber.scrub_value(structured);
    }
}

/// C19: the read-only gate. A mutating action of a gated tool is refused through `control`
/// (C18) before the handler runs, so nothing can be written.
fn gate(def: &ToolDef, read_only: bool, args: &Map<String, Value>) -> Option<Control> {
    if !read_only || def.class != ToolClass::Gated {
        return None;
    }
    let action = args.get("action").and_then(Value::as_str)?;
    if !def.write_actions.contains(&action) {
        return None;
    }
    Some(Control::refused_read_only(def.name, action))
}

impl ServerHandler for ModyoServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        let mut info =
            ServerConfig::new(capabilities).with_instructions(self.inner.instructions.clone());
        info.server_info = Implementation::new("modyo-mcp", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let i = *self.inner.index.get(name)?;
        Some(self.listed(&self.inner.tools[i]))
    }

    /// The default `initialize`, and the client's name recorded: the operator chooses the
    /// result form (C22) for the client that connects, and this line says which one did.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let client = &request.client_info;
        tracing::info!(
            client = %client.name,
            version = %client.version,
            results = %self.inner.form,
            "client connected"
        );
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scrubber = &self.inner.app.scrubber;
        match self.call(request, context).await {
            Ok(mut result) => {
                // Validated whole (C8), scrubbed whole (the text is what the scrubber
                // searches), then shaped to the result and error forms (C22).
                scrub_result(scrubber, &mut result);
                self.inner.form.shape(&mut result);
                self.inner.errors.shape(&mut result);
                Ok(CallToolResponse::from(result))
            }
            Err(mut error) => {
                scrubber.scrub_string(error.message.to_mut());
                Err(error)
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = Vec::new();
        if self.inner.widgets {
            resources.extend(crate::widgets::resources::list());
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let docs = ResourceTemplate::new("modyo://docs/tools/{toolPath}", "tool-docs")
            .with_description("What a tool does, its class, actions and schemas")
            .with_mime_type("text/markdown");
        let mut templates = vec![docs];
        if self.inner.widgets {
            templates.extend(crate::widgets::resources::templates());
        }
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        if self.inner.widgets && crate::widgets::resources::owns(uri) {
            return match crate::widgets::resources::read(uri) {
                Ok(text) => Ok(ReadResourceResult::new(vec![
                    ResourceContents::text(text, uri)
                        .with_mime_type(crate::widgets::resources::MIME),
                ])
                .into()),
                Err(message) => Err(ErrorData::resource_not_found(message, None)),
            };
        }
        let doc = uri
            .strip_prefix("modyo://docs/tools/")
            .and_then(|name| self.tool_doc(name));
        match doc {
            Some(text) => {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
            }
            None => Err(ErrorData::resource_not_found(
                format!("no resource {uri}; tool docs live at modyo://docs/tools/<tool-name>"),
                None,
            )),
        }
    }
}
