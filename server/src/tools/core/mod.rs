//! The core module: account-level administration (team users, groups, team members, roles
//! and the account's settings). The nine tool names match the public MCP page word for word.
//!
//! Every path here is `[synthetic]` (inferred) except `GET /api/admin/groups`,
//! `GET /api/admin/roles` and `GET /api/admin/account`. People resolve by email, groups by
//! name and roles by `key` (`server/CONTRACT.md`, "Name resolution"), through the engine's
//! collections.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::engine::tool::ToolDef;

mod groups;
mod members;
mod roles;
mod settings;
mod users;

/// The core tools, in catalogue order.
pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        users::manage_tool(),
        users::upsert_tool(),
        users::bulk_tool(),
        groups::manage_tool(),
        groups::upsert_tool(),
        members::manage_tool(),
        roles::create_tool(),
        roles::manage_tool(),
        settings::manage_tool(),
    ]
}

/// An interface language.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Lang {
    En,
    Es,
    Pt,
}
