//! The widgets module: the component catalogue shipped in the binary and widget projects on
//! the local disk. No HTTP and no token, so it also runs in public mode.
//!
//! - `catalog.rs`: `widgets-list-components`, `widgets-get-component-props`,
//!   `widgets-list-patterns` (reads over the in-memory catalogue: complete by evidence, C6);
//! - `project.rs`: `widgets-scaffold` (mutation: writes a project, reports it read back, C7)
//!   and `widgets-validate` (read: findings as data with `code`, C13).
//!
//! The data and the local work live in [`crate::widgets`].

use super::engine::tool::ToolDef;

mod catalog;
mod project;

/// The widgets tools, in catalogue order.
pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        catalog::list_components_tool(),
        catalog::get_component_props_tool(),
        catalog::list_patterns_tool(),
        project::scaffold_tool(),
        project::validate_tool(),
    ]
}
