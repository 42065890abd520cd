//! A test-only fault: make one tool's answers break its own `outputSchema` on the way out, to
//! prove that a strict client would catch an invalid output.
//!
//! The production server cannot emit an invalid structured result: every answer leaves
//! through `contract::exit`, which validates it against the tool's `outputSchema` and turns a
//! violation into an error. To show that the peers we run in CI (the Python `mcp` client, the
//! TypeScript SDK, the MCP Inspector) would reject one anyway, the offline server can wrap the
//! real server in [`Corrupting`], which rewrites the successful results of one tool *after*
//! that exit: `platform` becomes a string where the schema wants the account's `{name, host}`,
//! and the text content is kept equal to the structured content so that only the schema is
//! violated.
//!
//! Only `modyo-lab serve --corrupt-output TOOL` (or `MODYO_LAB_CORRUPT_OUTPUT=TOOL`) turns it
//! on; the `modyo-mcp` binary has no such switch.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

/// What `platform` is replaced with in a corrupted result.
pub const CORRUPTED_PLATFORM: &str = "corrupted by modyo-lab (test fault)";

/// The real handler `inner`, with the successful results of `tool` made invalid.
#[derive(Debug, Clone)]
pub struct Corrupting<H> {
    inner: H,
    tool: String,
}

impl<H> Corrupting<H> {
    /// Wraps `inner`; the results of `tool` will violate its `outputSchema`.
    pub fn new(inner: H, tool: impl Into<String>) -> Corrupting<H> {
        Corrupting {
            inner,
            tool: tool.into(),
        }
    }
}

/// Breaks `platform` (the account's `{name, host}` in every envelope schema) in a structured,
/// non-error result, and keeps the text content, when there is one, equal to the new
/// structured content.
fn corrupt(response: &mut CallToolResponse) -> bool {
    let CallToolResponse::Complete(result) = response else {
        return false;
    };
    if result.is_error == Some(true) {
        return false;
    }
    let Some(Value::Object(envelope)) = result.structured_content.as_mut() else {
        return false;
    };
    envelope.insert("platform".into(), Value::String(CORRUPTED_PLATFORM.into()));
    // The structured form (C22) sends no content: it stays empty.
    if !result.content.is_empty() {
        let text = Value::Object(envelope.clone()).to_string();
        result.content = vec![ContentBlock::text(text)];
    }
    true
}

impl<H: ServerHandler + Clone> ServerHandler for Corrupting<H> {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.inner.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let target = request.name == self.tool;
        let mut response = self.inner.call_tool(request, context).await?;
        if target && corrupt(&mut response) {
            tracing::warn!(tool = %self.tool, "test fault: result corrupted after validation");
        }
        Ok(response)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.inner.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.inner.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.inner.read_resource(request, context).await
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::CallToolResult;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_structured_success_gets_a_string_platform_and_matching_text() {
        let mut response = CallToolResponse::from(CallToolResult::structured(
            json!({"platform": {"name": "x", "host": "h"}, "data": []}),
        ));
        assert!(corrupt(&mut response));
        let CallToolResponse::Complete(result) = response else {
            panic!("complete")
        };
        let structured = result.structured_content.expect("structured");
        assert_eq!(structured["platform"], CORRUPTED_PLATFORM);
        let text = result.content[0].as_text().expect("text").text.clone();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), structured);
    }

    #[test]
    fn errors_and_unstructured_results_are_left_alone() {
        let mut error = CallToolResponse::from(CallToolResult::error(vec![ContentBlock::text(
            "{\"error\":{}}",
        )]));
        assert!(!corrupt(&mut error));
        let mut text_only =
            CallToolResponse::from(CallToolResult::success(vec![ContentBlock::text("legacy")]));
        assert!(!corrupt(&mut text_only));
    }
}
