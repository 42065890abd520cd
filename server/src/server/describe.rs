//! What the server says about itself: the `initialize` instructions (C20) and the tool docs
//! resources (`modyo://docs/tools/{tool}`).

use std::collections::BTreeSet;

use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::config::Module;
use crate::tools::ToolDef;

/// The `initialize` instructions for the active modules (pinned by a snapshot, C20).
pub(super) fn instructions(modules: &BTreeSet<Module>, read_only: bool, has_api: bool) -> String {
    let names: Vec<&str> = modules.iter().map(|m| m.as_str()).collect();
    let mut text = format!(
        "Modyo platform tools ({}). Every result is JSON {{platform, data, resource?, state?, control?}}: \
platform names the account that answered; resource is the entity resolved or acted on; \
state is coverage for reads (returned, total, page, per_page; complete appears only when proven) \
or the post-condition for writes (status, published, pending, affected); control appears when a call did not run. \
Errors are {{error: code, message, platform}}. Prefer content-entries-list with fields over one get per entry.",
        names.join(", ")
    );
    if read_only {
        text.push_str(" Read-only: write tools are hidden and mutating actions are refused.");
    }
    if !has_api {
        text.push_str(" Public mode: MODYO_URL and MODYO_TOKEN are not set, so only local tools are available.");
    }
    text
}

/// A tool's docs resource: its module, class, description, actions and schemas. The
/// `outputSchema` is shown whenever the tool has one, whether or not `tools/list` publishes
/// it (C22): it describes the JSON every form of the answer carries.
pub(super) fn tool_doc(def: &ToolDef, tool: &Tool) -> String {
    let mut doc = format!(
        "# {}\n\nModule: {}. Class: {}.\n\n{}\n",
        def.name,
        def.module,
        def.class.as_str(),
        def.description
    );
    if !def.read_actions.is_empty() || !def.write_actions.is_empty() {
        doc.push_str(&format!(
            "\nRead actions: {}. Mutating actions: {}.\n",
            def.read_actions.join(", "),
            def.write_actions.join(", ")
        ));
    }
    let pretty = |m: &Map<String, Value>| serde_json::to_string_pretty(m).unwrap_or_default();
    doc.push_str(&format!(
        "\n## inputSchema\n\n```json\n{}\n```\n",
        pretty(&tool.input_schema)
    ));
    if let Some(output) = &tool.output_schema {
        doc.push_str(&format!(
            "\n## outputSchema\n\n```json\n{}\n```\n",
            pretty(output)
        ));
    }
    doc
}
