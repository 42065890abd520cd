//! The engine every tool runs on: what the tools have in common, written once.
//!
//! - [`data`]: typed `data` ([`Data`]); an echoed Modyo object is an [`Echo`] of the keys we
//!   rely on ([`echoed!`]); a `-manage` tool answers a [`Managed`] (C15). The `outputSchema`
//!   is derived from the type, and so is the lint's list of echoed roots (C10).
//! - [`collection`]: a kind of object ([`Member`], its [`Rules`]) at a path, how an identifier
//!   resolves into a member (`server/CONTRACT.md`, "Name resolution"), its `resource` (C4).
//! - [`container`]: what a collection lives in (a space, a site, a realm), resolved one way
//!   ([`Container`]); a `-manage` tool's members live [`within`] one.
//! - [`command`]: what a multi-action tool can be asked, as a typed enum ([`command!`]): each
//!   action's [`Verb`] and the parameters it requires.
//! - [`manage`]: a `-manage` tool as a declaration: its collection, its fields, its command,
//!   the confirmation before any request (C18); `ctx`: one call as its actions see it;
//!   [`standard`]: the standard actions (list, get, create, update, delete, a transition).
//! - [`reply`]: the answers of those actions with their `state` (C5) and old payloads (C21).
//! - [`persist`]: the read-back of what a write persisted (C7).
//! - [`bulk`]: fan-out over many items and its answer.
//! - [`tool`]: the kit a tool is declared with ([`tool::tool`], its builder, [`tool::Call`],
//!   [`tool::CallError`]); the registry above the modules re-exports it.
//! - [`view`]: typed reads of the objects the API sent ([`view()`], its keys [`lenient`], the
//!   keys that name an object [`Identity`]).

pub(crate) mod bulk;
pub(crate) mod collection;
pub(crate) mod command;
pub(crate) mod container;
pub(crate) mod copy;
mod ctx;
pub(crate) mod data;
pub(crate) mod manage;
pub(crate) mod persist;
pub(crate) mod reply;
pub(crate) mod standard;
pub(crate) mod tool;
pub(crate) mod view;

pub(crate) use collection::{Collection, Found, Member, Names, Need, Rules};
pub(crate) use command::{Action, Command, Verb, command};
pub(crate) use container::{Container, within};
pub(crate) use ctx::{Ctx, Given, Scope};
pub(crate) use data::{Data, Echo, Echoed, Id, Managed, Nothing, Nullable, echoed};
pub(crate) use manage::{Answer, at, manage, manage_as, required, scoped};
pub(crate) use reply::Object;
pub(crate) use view::{Identity, body, lenient, view, views};
