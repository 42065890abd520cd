//! C18: `control = {outcome, message}`, present only when the call did not run.
//!
//! Two outcomes exist: the read-only gate refused a mutating action (`refused`), or a
//! destructive action was not confirmed (`cancelled`). `data` is then `null` and the result
//! still validates against the tool's `outputSchema`. The message says what to do, not what
//! the outcome and the call already say (the tool called, that it did not run); the legacy
//! rendering (C21) keeps the old sentence, which named both.

use serde::Serialize;

/// Why a call did not run, and the text a client shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Control {
    outcome: &'static str,
    message: String,
    /// The action that did not run (the old payload names it, C21).
    #[serde(skip)]
    action: String,
    /// The tool called (the old sentence names it, C21).
    #[serde(skip)]
    tool: String,
}

impl Control {
    /// The read-only gate refused `action` of `tool` before anything was sent.
    pub fn refused_read_only(tool: &str, action: &str) -> Control {
        Control {
            outcome: "refused",
            message: format!(
                "action '{action}' writes and the server is read-only (MODYO_READ_ONLY=true); list, get, search and find still work"
            ),
            action: action.to_owned(),
            tool: tool.to_owned(),
        }
    }

    /// A destructive action was not confirmed (`confirmDelete` missing or false).
    pub fn cancelled_unconfirmed(tool: &str, action: &str) -> Control {
        Control {
            outcome: "cancelled",
            message: format!("pass confirmDelete: true to run action '{action}'"),
            action: action.to_owned(),
            tool: tool.to_owned(),
        }
    }

    /// The outcome (`refused` or `cancelled`).
    pub fn outcome(&self) -> &str {
        self.outcome
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The action that did not run.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The sentence the old payload carried (C21): the tool, that the action was not run,
    /// and why.
    pub fn legacy_message(&self) -> String {
        let (tool, action) = (&self.tool, &self.action);
        match self.outcome {
            "refused" => format!(
                "{tool} action '{action}' was not run: the server is read-only (MODYO_READ_ONLY=true). Read actions (list, get, search, find) still work."
            ),
            _ => format!(
                "{tool} action '{action}' was not run: pass confirmDelete: true to confirm it."
            ),
        }
    }
}
