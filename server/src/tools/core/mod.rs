//! The core module: account-level administration (team users, groups, team members, roles
//! and the account's settings). The nine tool names match the public MCP page word for word.
//!
//! Every path here is `[synthetic]` in `catalog.md` except `GET /api/admin/groups`,
//! `GET /api/admin/roles` and `GET /api/admin/account`. People resolve by email, groups by
//! name and roles by `key` (catalogue "Heuristic resolution"), through [`kit::Collection`].

use super::ToolDef;
use kit::{By, Collection};

pub(crate) mod kit;

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

/// Team (admin) users, resolved by email through `?query=`.
pub(crate) fn admin_users() -> Collection {
    Collection {
        kind: "admin_user",
        what: "admin user",
        path: "/api/admin/admin_users".into(),
        root: "admin_users",
        by: By::Email,
        query_filter: true,
        slug_key: Some("email"),
        legacy_key: "user",
        hint: "call core-users-manage with action list to see the team",
    }
}

/// Groups of team users, resolved by name.
pub(crate) fn groups() -> Collection {
    Collection {
        kind: "group",
        what: "group",
        path: "/api/admin/groups".into(),
        root: "groups",
        by: By::Name,
        query_filter: false,
        slug_key: None,
        legacy_key: "group",
        hint: "call core-groups-manage with action list to see the groups",
    }
}

/// Team members: a user or a group holding a role on one site, space or realm (ids only).
pub(crate) fn team_members() -> Collection {
    Collection {
        kind: "team_member",
        what: "team member",
        path: "/api/admin/team_members".into(),
        root: "team_members",
        by: By::Name,
        query_filter: false,
        slug_key: None,
        legacy_key: "teamMember",
        hint: "call core-members-manage with action list and the site, space or realm to see its members",
    }
}

/// Roles, resolved by `key`.
pub(crate) fn roles() -> Collection {
    Collection {
        kind: "role",
        what: "role",
        path: "/api/admin/roles".into(),
        root: "roles",
        by: By::Key,
        query_filter: false,
        slug_key: Some("key"),
        legacy_key: "role",
        hint: "call core-roles-manage with action list to see the roles and their keys",
    }
}
