//! C1, C3: what a tool handler hands to the exit: its `data`, the `resource` it resolved, the
//! `state` it observed, and (for C21) the payload the old server would have sent.
//!
//! Handlers never build JSON-RPC results: they return an [`Outcome`] or a
//! [`crate::contract::ToolError`], and [`crate::contract::exit`] turns it into the response.

use serde_json::Value;

use super::control::Control;
use super::resource::Resource;
use super::state::State;

/// Whether the tool's module answers the old way (C21). Handlers pass it to
/// [`Reply::legacy`] so the old payload is only built when it will be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The contract: `structuredContent` + compact text.
    Migrated,
    /// The old `success(data)`: pretty text, canned message, echoed `meta`.
    Legacy,
}

/// A successful result before it reaches the exit.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub(crate) data: Value,
    pub(crate) resource: Option<Resource>,
    pub(crate) state: Option<State>,
    pub(crate) legacy: Option<Value>,
}

impl Reply {
    /// A reply whose `data` is `data` (C3: the tool's own result, no prose, no flags).
    pub fn new(data: Value) -> Reply {
        Reply {
            data,
            resource: None,
            state: None,
            legacy: None,
        }
    }

    /// The entity resolved or acted on (C4).
    pub fn resource(mut self, resource: Resource) -> Reply {
        self.resource = Some(resource);
        self
    }

    /// Coverage or post-condition (C5).
    pub fn state(mut self, state: impl Into<State>) -> Reply {
        self.state = Some(state.into());
        self
    }

    /// The payload the old server sent for this call; built only in legacy mode.
    pub fn legacy(mut self, mode: Mode, payload: impl FnOnce() -> Value) -> Reply {
        if mode == Mode::Legacy {
            self.legacy = Some(payload());
        }
        self
    }

    /// The `data` of the reply.
    pub fn data(&self) -> &Value {
        &self.data
    }
}

/// What a handler returns when it did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The call ran.
    Reply(Box<Reply>),
    /// The call did not run (C18); `legacy` is the old server's payload for the same case.
    Control {
        /// Why not.
        control: Control,
        /// The legacy rendering (`{"readOnly": true, "rejected": ..., "message": ...}`).
        legacy: Value,
    },
}

impl From<Reply> for Outcome {
    fn from(reply: Reply) -> Outcome {
        Outcome::Reply(Box::new(reply))
    }
}
