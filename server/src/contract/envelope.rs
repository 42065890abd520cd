//! C1, C3: what a tool handler hands to the exit: its `data`, the `resource` it resolved, the
//! `state` it observed, and (for C21) the shape of the payload the old server sent.
//!
//! Handlers never build JSON-RPC results: they return an [`Outcome`] or a
//! [`crate::contract::ToolError`], and [`crate::contract::exit`] turns it into the response.
//! `data` is typed by the tool (`D`); the registry serializes it before the exit, which sees
//! `Outcome<Value>`.

use serde_json::Value;

use super::control::Control;
use super::legacy::Legacy;
use super::resource::Resource;
use super::state::State;

/// Whether the tool's module answers the old way (C21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The contract: `structuredContent` + compact text.
    Migrated,
    /// The old `success(data)`: pretty text, canned message, echoed `meta`.
    Legacy,
}

/// A successful result before it reaches the exit.
#[derive(Debug)]
pub struct Reply<D = Value> {
    pub(crate) data: D,
    pub(crate) resource: Option<Resource>,
    pub(crate) state: Option<State>,
    pub(crate) legacy: Legacy,
}

impl<D> Reply<D> {
    /// A reply whose `data` is `data` (C3: the tool's own result, no prose, no flags).
    pub fn new(data: D) -> Reply<D> {
        Reply {
            data,
            resource: None,
            state: None,
            legacy: Legacy::Data,
        }
    }

    /// The entity resolved or acted on (C4).
    pub fn resource(mut self, resource: Resource) -> Reply<D> {
        self.resource = Some(resource);
        self
    }

    /// Coverage or post-condition (C5).
    pub fn state(mut self, state: impl Into<State>) -> Reply<D> {
        self.state = Some(state.into());
        self
    }

    /// The shape of the old payload (C21); without it the old payload is `data` itself.
    pub fn old(mut self, legacy: Legacy) -> Reply<D> {
        self.legacy = legacy;
        self
    }

    /// The `data` of the reply.
    pub fn data(&self) -> &D {
        &self.data
    }

    /// The same reply with its `data` turned into another type.
    pub fn map<E>(self, f: impl FnOnce(D) -> E) -> Reply<E> {
        Reply {
            data: f(self.data),
            resource: self.resource,
            state: self.state,
            legacy: self.legacy,
        }
    }
}

/// What a handler returns when it did not fail.
#[derive(Debug)]
pub enum Outcome<D = Value> {
    /// The call ran.
    Reply(Box<Reply<D>>),
    /// The call did not run (C18).
    Control(Control),
}

impl<D> From<Reply<D>> for Outcome<D> {
    fn from(reply: Reply<D>) -> Outcome<D> {
        Outcome::Reply(Box::new(reply))
    }
}

impl<D> From<Control> for Outcome<D> {
    fn from(control: Control) -> Outcome<D> {
        Outcome::Control(control)
    }
}

impl<D> Outcome<D> {
    /// The same outcome with its `data` turned into another type.
    pub fn map<E>(self, f: impl FnOnce(D) -> E) -> Outcome<E> {
        match self {
            Outcome::Reply(reply) => Outcome::Reply(Box::new(reply.map(f))),
            Outcome::Control(control) => Outcome::Control(control),
        }
    }
}
