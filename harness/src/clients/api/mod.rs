//! The model APIs the capture endpoint stands in for, and the scripted model they share.
//!
//! A client speaks one API ([`Api`]): Anthropic Messages, Gemini `generateContent`, OpenAI
//! Responses or OpenAI Chat Completions. Each API module reads a request into a `View` (the
//! tools it declares, as the client names them, and the ids of the call results it holds),
//! writes the scripted model's `Turn` in the API's own answer (as JSON or as server-sent
//! events, whichever the request asks for), and locates our parts in a request for the
//! extraction: the declared tools, the results of the calls, the calls the model made, and
//! the texts the model reads besides them.
//!
//! The `Script` is the same for every API and a pure function of the request: the first
//! planned call without a result is next; if its tool is not declared yet, the model loads it
//! the way the client requires (`Loading`); when every call has a result it says `done`. A
//! request that declares no tool at all is a side request of the client's own (a title, a
//! routing or next-speaker check) and gets a plain answer. Call ids are fixed per call
//! (`toolu_lab_0000`, `call_lab_0000`...), so the extraction finds each call's result by id.

pub(crate) mod anthropic;
pub(crate) mod chat;
pub(crate) mod gemini;
pub(crate) mod responses;

use std::collections::BTreeSet;

use serde_json::Value;

use super::endpoint::Answer;

/// A model API.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// Gemini (`POST .../models/<model>:generateContent` or `:streamGenerateContent`).
    Gemini,
    /// OpenAI Responses (`POST .../responses`).
    Responses,
    /// OpenAI Chat Completions (`POST .../chat/completions`).
    Chat,
}

impl Api {
    /// As the reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            Api::Anthropic => "Anthropic Messages",
            Api::Gemini => "Gemini generateContent",
            Api::Responses => "OpenAI Responses",
            Api::Chat => "OpenAI Chat Completions",
        }
    }

    /// Whether a request to `path` is one of this API's model requests.
    pub(crate) fn serves(self, path: &str) -> bool {
        match self {
            Api::Anthropic => anthropic::serves(path),
            Api::Gemini => gemini::serves(path),
            Api::Responses => responses::serves(path),
            Api::Chat => chat::serves(path),
        }
    }

    /// The request as the script reads it.
    pub(crate) fn view(self, body: &Value) -> View {
        match self {
            Api::Anthropic => anthropic::view(body),
            Api::Gemini => gemini::view(body),
            Api::Responses => responses::view(body),
            Api::Chat => chat::view(body),
        }
    }

    /// Every tool the request declares, with the object that declares it.
    pub(crate) fn declarations(self, body: &Value) -> Vec<(Declared, &Value)> {
        match self {
            Api::Anthropic => anthropic::declarations(body),
            Api::Gemini => gemini::declarations(body),
            Api::Responses => responses::declarations(body),
            Api::Chat => chat::declarations(body),
        }
    }

    /// Every call result the request holds, in order.
    pub(crate) fn results(self, body: &Value) -> Vec<Returned<'_>> {
        match self {
            Api::Anthropic => anthropic::results(body),
            Api::Gemini => gemini::results(body),
            Api::Responses => responses::results(body),
            Api::Chat => chat::results(body),
        }
    }

    /// Every call the model made in the request's history: its id and the name it called.
    pub(crate) fn calls(self, body: &Value) -> Vec<(String, String)> {
        match self {
            Api::Anthropic => anthropic::calls(body),
            Api::Gemini => gemini::calls(body),
            Api::Responses => responses::calls(body),
            Api::Chat => chat::calls(body),
        }
    }

    /// Every text the model reads besides tools and tool traffic (system prompt, messages).
    pub(crate) fn texts(self, body: &Value) -> Vec<&str> {
        match self {
            Api::Anthropic => anthropic::texts(body),
            Api::Gemini => gemini::texts(body),
            Api::Responses => responses::texts(body),
            Api::Chat => chat::texts(body),
        }
    }

    /// The id of planned call `index` in this API's answers.
    pub(crate) fn call_id(self, index: usize) -> String {
        match self {
            Api::Anthropic => anthropic::call_id(index),
            _ => format!("call_lab_{index:04}"),
        }
    }

    /// The id of the tool-search call.
    pub(crate) fn search_id(self) -> &'static str {
        match self {
            Api::Anthropic => anthropic::SEARCH_ID,
            _ => "call_lab_search",
        }
    }
}

/// A tool a request declares, as the client names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    /// The tool's name in the request (`mcp__modyo-offline__content-spaces-list`).
    pub(crate) name: String,
    /// The namespace it is declared in (Codex: `mcp__modyo-offline`).
    pub(crate) namespace: Option<String>,
}

impl Declared {
    /// A tool outside any namespace.
    pub(crate) fn plain(name: &str) -> Declared {
        Declared {
            name: name.to_owned(),
            namespace: None,
        }
    }
}

/// One call result in a request.
#[derive(Debug, Clone)]
pub(crate) struct Returned<'a> {
    /// The call id it answers.
    pub(crate) id: String,
    /// The value that stands for the result (what the reports price).
    pub(crate) sent: &'a Value,
}

/// What the script reads of a request.
#[derive(Debug, Clone, Default)]
pub(crate) struct View {
    /// Every declared tool.
    pub(crate) declared: Vec<Declared>,
    /// The client's tool-search tool is declared (`ToolSearch`, `tool_search`).
    pub(crate) search: bool,
    /// The client's code tool is declared (Codex's `exec`).
    pub(crate) code: bool,
    /// The call ids the request holds a result for.
    pub(crate) answered: BTreeSet<String>,
    /// The request asks for a JSON answer (a side request with a response schema).
    pub(crate) wants_json: bool,
}

/// How the scripted model reaches a tool the client has not declared yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loading {
    /// Every tool is declared from the start.
    Declared,
    /// Claude Code: `ToolSearch` with `select:<names>` for every planned tool not loaded.
    ClaudeSearch,
    /// Codex: a client-executed `tool_search` call whose query names the tools.
    CodexSearch,
    /// Codex's code mode: the tools are reached from JavaScript run by `exec`.
    CodexCode,
}

/// One planned call, in our server's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Our tool's name.
    pub tool: String,
    /// The arguments.
    pub arguments: Value,
}

/// What the scripted model does next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Turn {
    /// Load these tools (the client's names for Claude, our names for Codex).
    Search(Vec<String>),
    /// Make call `index` with the tool as declared.
    Call(usize, Declared),
    /// Code mode: list the tools (`None`), or make call `index` from JavaScript.
    Code(Option<usize>),
    /// Every call has a result: stop.
    Finish,
    /// A planned tool cannot be reached: stop, the extraction will say so.
    GiveUp(String),
    /// Not the session's conversation: a plain answer.
    Aside,
}

/// The scripted model of one session.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    /// The API it answers.
    pub(crate) api: Api,
    /// The calls, in order.
    pub(crate) steps: Vec<Step>,
    /// Every tool our server lists (to tell our tools among the declared ones).
    pub(crate) tools: Vec<String>,
    /// How tools not declared yet are loaded.
    pub(crate) loading: Loading,
    /// The name our server is registered under.
    pub(crate) server: String,
}

/// The id of the code-mode listing step.
pub(crate) const LIST_ID: &str = "call_lab_list";

impl Script {
    /// Our tool a declared name stands for.
    pub(crate) fn ours(&self, declared: &Declared) -> Option<&str> {
        resolve(&declared.name, &self.tools)
    }

    /// The next turn for a request.
    pub(crate) fn turn(&self, view: &View) -> Turn {
        if self.loading == Loading::CodexCode && view.code {
            if !view.answered.contains(LIST_ID) {
                return Turn::Code(None);
            }
            return match self.next(view) {
                Some(i) => Turn::Code(Some(i)),
                None => Turn::Finish,
            };
        }
        if view.declared.is_empty() && !view.search {
            return Turn::Aside;
        }
        let Some(next) = self.next(view) else {
            return Turn::Finish;
        };
        let tool = &self.steps[next].tool;
        if let Some(declared) = view
            .declared
            .iter()
            .find(|d| self.ours(d) == Some(tool.as_str()))
        {
            return Turn::Call(next, declared.clone());
        }
        let searchable = matches!(self.loading, Loading::ClaudeSearch | Loading::CodexSearch);
        if !searchable || !view.search || view.answered.contains(self.api.search_id()) {
            return Turn::GiveUp(format!("{tool} is not among the tools"));
        }
        let declared: BTreeSet<&str> = view.declared.iter().filter_map(|d| self.ours(d)).collect();
        let mut wanted: Vec<String> = Vec::new();
        for step in &self.steps {
            let name = match self.loading {
                Loading::ClaudeSearch => format!("mcp__{}__{}", self.server, step.tool),
                _ => step.tool.clone(),
            };
            if !declared.contains(step.tool.as_str()) && !wanted.contains(&name) {
                wanted.push(name);
            }
        }
        Turn::Search(wanted)
    }

    /// The first call without a result.
    fn next(&self, view: &View) -> Option<usize> {
        (0..self.steps.len()).find(|i| !view.answered.contains(&self.api.call_id(*i)))
    }

    /// The answer to one request.
    pub(crate) fn answer(&self, path: &str, body: &Value) -> Answer {
        if !self.api.serves(path) {
            return not_served(self.api, path, body);
        }
        let turn = self.turn(&self.api.view(body));
        match self.api {
            Api::Anthropic => anthropic::answer(self, &turn, body),
            Api::Gemini => gemini::answer(self, &turn, path, body),
            Api::Responses => responses::answer(self, &turn, body),
            Api::Chat => chat::answer(self, &turn, body),
        }
    }

    /// The JavaScript of a code-mode step: list our tools, or make one call and print it.
    pub(crate) fn code(&self, step: Option<usize>) -> String {
        let prefix = format!("mcp__{}__", self.server);
        match step {
            None => format!(
                "text(JSON.stringify(ALL_TOOLS.filter((t) => t.name.startsWith({}))));",
                Value::from(prefix)
            ),
            Some(i) => {
                let step = &self.steps[i];
                format!(
                    "const r = await tools[{}]({});\ntext(JSON.stringify(r));",
                    Value::from(format!("{prefix}{}", step.tool)),
                    step.arguments
                )
            }
        }
    }
}

/// The answer to a request the API does not serve (a model listing, a token count).
fn not_served(api: Api, path: &str, body: &Value) -> Answer {
    if body.is_null() && path.ends_with("/models") {
        return Answer::json(
            200,
            &serde_json::json!({"object": "list", "data": [], "models": []}),
        );
    }
    if api == Api::Gemini && path.contains(":countTokens") {
        return Answer::json(200, &serde_json::json!({"totalTokens": 1}));
    }
    Answer::json(
        404,
        &serde_json::json!({"type": "error", "error": {"type": "not_found_error", "code": 404, "status": "NOT_FOUND",
            "message": format!("the lab's endpoint does not serve {path}")}}),
    )
}

/// The text of a closing turn.
pub(crate) fn closing_text(turn: &Turn) -> String {
    match turn {
        Turn::Finish => "done".into(),
        Turn::GiveUp(why) => format!("stopping: {why}"),
        _ => "ok".into(),
    }
}

/// Our tool `name` stands for, among `tools`: the name itself, or the longest of our names it
/// ends with after a separator a client puts between its prefix and the tool (`__`, `_`, `.`,
/// `/`, `:`), also with `-` read as `_` (clients that rewrite names to identifiers).
pub(crate) fn resolve<'a>(name: &str, tools: &'a [String]) -> Option<&'a str> {
    if let Some(t) = tools.iter().find(|t| *t == name) {
        return Some(t);
    }
    let matches = |name: &str, tool: &str| {
        name.strip_suffix(tool)
            .and_then(|head| head.chars().last())
            .is_some_and(|c| matches!(c, '_' | '.' | '/' | ':'))
    };
    let underscored = name.replace('-', "_");
    if let Some(t) = tools.iter().find(|t| t.replace('-', "_") == underscored) {
        return Some(t);
    }
    tools
        .iter()
        .filter(|t| matches(name, t) || matches(&underscored, &t.replace('-', "_")))
        .max_by_key(|t| t.len())
        .map(String::as_str)
}

/// The items of every `inner` array of the items of `body`'s `outer` array (the blocks of
/// every message, the parts of every content, the declarations of every tool).
pub(crate) fn nested<'a>(
    body: &'a Value,
    outer: &'static str,
    inner: &'static str,
) -> impl Iterator<Item = &'a Value> {
    items(body, outer)
        .filter_map(move |item| item.get(inner).and_then(Value::as_array))
        .flatten()
}

/// The items of `body`'s `key` array (none when it is not an array).
pub(crate) fn items<'a>(body: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    body.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// `value[key]` as a string.
pub(crate) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The text of a message content: the string itself, or the `text` of each text part.
pub(crate) fn content_texts<'a>(content: &'a Value, out: &mut Vec<&'a str>) {
    match content {
        Value::String(s) => out.push(s),
        Value::Array(parts) => out.extend(
            parts
                .iter()
                .filter(|p| {
                    matches!(
                        str_of(p, "type"),
                        Some("text" | "input_text" | "output_text")
                    )
                })
                .filter_map(|p| str_of(p, "text")),
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<String> {
        ["get", "book_get", "content-spaces-list"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn a_declared_name_resolves_to_the_longest_of_our_tools_it_names() {
        let tools = tools();
        assert_eq!(resolve("get", &tools), Some("get"));
        assert_eq!(resolve("mcp__s__book_get", &tools), Some("book_get"));
        assert_eq!(resolve("mcp_s_get", &tools), Some("get"));
        assert_eq!(
            resolve("mcp__modyo-offline__content-spaces-list", &tools),
            Some("content-spaces-list")
        );
        assert_eq!(
            resolve("mcp__modyo_offline__content_spaces_list", &tools),
            Some("content-spaces-list")
        );
        assert_eq!(
            resolve("content_spaces_list", &tools),
            Some("content-spaces-list")
        );
        assert_eq!(resolve("forget", &tools), None);
        assert_eq!(resolve("spaces-list", &tools), None);
    }

    fn script(loading: Loading, api: Api) -> Script {
        Script {
            api,
            steps: vec![
                Step {
                    tool: "get".into(),
                    arguments: json!({"id": 1}),
                },
                Step {
                    tool: "book_get".into(),
                    arguments: json!({}),
                },
            ],
            tools: tools(),
            loading,
            server: "s".into(),
        }
    }

    fn view(declared: &[&str], search: bool, answered: &[&str]) -> View {
        View {
            declared: declared.iter().map(|n| Declared::plain(n)).collect(),
            search,
            code: false,
            answered: answered.iter().map(|s| s.to_string()).collect(),
            wants_json: false,
        }
    }

    #[test]
    fn the_script_calls_each_step_once_in_order_then_stops() {
        let s = script(Loading::Declared, Api::Chat);
        let all = ["mcp_s_get", "mcp_s_book_get", "other"];
        assert_eq!(
            s.turn(&view(&all, false, &[])),
            Turn::Call(0, Declared::plain("mcp_s_get"))
        );
        assert_eq!(
            s.turn(&view(&all, false, &["call_lab_0000"])),
            Turn::Call(1, Declared::plain("mcp_s_book_get"))
        );
        assert_eq!(
            s.turn(&view(&all, false, &["call_lab_0000", "call_lab_0001"])),
            Turn::Finish
        );
        assert_eq!(s.turn(&view(&[], false, &[])), Turn::Aside);
        assert!(matches!(
            s.turn(&view(&["other"], false, &[])),
            Turn::GiveUp(_)
        ));
    }

    #[test]
    fn a_tool_not_declared_is_searched_once_the_way_the_client_requires() {
        let claude = script(Loading::ClaudeSearch, Api::Anthropic);
        assert_eq!(
            claude.turn(&view(&["ToolSearch"], true, &[])),
            Turn::Search(vec!["mcp__s__get".into(), "mcp__s__book_get".into()])
        );
        assert!(matches!(
            claude.turn(&view(&["ToolSearch"], true, &[anthropic::SEARCH_ID])),
            Turn::GiveUp(_)
        ));
        let codex = script(Loading::CodexSearch, Api::Responses);
        assert_eq!(
            codex.turn(&view(&["get"], true, &[])),
            Turn::Call(0, Declared::plain("get"))
        );
        assert_eq!(
            codex.turn(&view(&["get"], true, &["call_lab_0000"])),
            Turn::Search(vec!["book_get".into()])
        );
    }

    #[test]
    fn code_mode_lists_the_tools_then_calls_each_from_javascript() {
        let s = script(Loading::CodexCode, Api::Responses);
        let mut v = view(&["exec"], false, &[]);
        v.code = true;
        assert_eq!(s.turn(&v), Turn::Code(None));
        v.answered.insert(LIST_ID.into());
        assert_eq!(s.turn(&v), Turn::Code(Some(0)));
        assert_eq!(
            s.code(Some(0)),
            "const r = await tools[\"mcp__s__get\"]({\"id\":1});\ntext(JSON.stringify(r));"
        );
        assert!(s.code(None).contains("startsWith(\"mcp__s__\")"));
    }

    #[test]
    fn a_model_listing_and_unknown_paths_are_answered_without_the_script() {
        let s = script(Loading::Declared, Api::Chat);
        assert_eq!(s.answer("/v1/models", &Value::Null).status, 200);
        assert_eq!(s.answer("/v1/embeddings", &json!({})).status, 404);
    }
}
