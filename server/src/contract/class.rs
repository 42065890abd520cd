//! C19: every tool is `read`, `gated` or `mutation`, and the read-only gate acts on the class.
//!
//! `gated` is exactly the `*-manage` tools: they have read actions (`list`, `get`, `search`,
//! `find`) beside mutating ones. With `MODYO_READ_ONLY=true` mutation tools are not
//! registered and the mutating actions of gated tools are refused through `control` before
//! any HTTP write leaves the server.

use serde::Serialize;

/// The class of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    /// Never writes, upstream or on the local disk (`readOnlyHint: true`).
    Read,
    /// A `*-manage` tool: read actions and mutating actions behind `action`.
    Gated,
    /// Everything else: it writes.
    Mutation,
}

impl ToolClass {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClass::Read => "read",
            ToolClass::Gated => "gated",
            ToolClass::Mutation => "mutation",
        }
    }

    /// Whether a tool of this class is registered in read-only mode.
    pub fn registered_when_read_only(self) -> bool {
        !matches!(self, ToolClass::Mutation)
    }
}

/// The actions that count as reads for a gated tool; nothing else does.
pub const READ_ACTIONS: [&str; 4] = ["list", "get", "search", "find"];

/// Whether `action` is a read action.
pub fn is_read_action(action: &str) -> bool {
    READ_ACTIONS.contains(&action)
}
