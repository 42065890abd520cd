//! The three exemption lists of the contract lint (C10, C11), in one place.
//!
//! They can only shrink. An entry that no longer describes a violation (the tool is gone, its
//! root became strict, it stopped emitting undeclared keys) fails the lint as stale, and a new
//! violation fails until someone adds it here by hand, with the reason next to it. Before
//! adding an entry, fix the tool if you can: declare the keys (C11), make the root strict (C10).
//!
//! - [`ECHOED_ROOT_TOOLS`] (C10, permanent design decisions): the `data` root *is* a foreign
//!   object (or a list of them) echoed from the Modyo API, so it is loose: upstream drift adds
//!   information and never breaks the tool (C8). Its known keys are still declared (C11).
//! - [`OPAQUE_ROOT_TOOLS`] (C10, debt): the server builds the root but cannot enumerate it.
//! - [`KNOWN_UNDERDECLARED`] (C11, debt): the tool emits `data` keys its schema does not declare.

/// One exemption: the tool, and why it is exempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The tool name.
    pub tool: &'static str,
    /// Why: the design decision, or the debt and what would pay it.
    pub reason: &'static str,
}

const fn entry(tool: &'static str, reason: &'static str) -> Entry {
    Entry { tool, reason }
}

/// C10 design decisions: roots that echo foreign objects. Permanent, but still only shrink
/// (a tool that starts building its root key by key leaves the list).
pub const ECHOED_ROOT_TOOLS: &[Entry] = &[
    // channels: every root below is one `Echo` of the Modyo object the call read or
    // persisted (C7 read-back), its known keys declared (C11).
    entry(
        "channels-sites-manage",
        "C15 multi-action root: the API's site object (with its stages) as persisted, or the listed sites; only `counts` is built (strict)",
    ),
    entry(
        "channels-pages-manage",
        "C15 multi-action root: the API's page object as persisted, or the listed pages",
    ),
    entry(
        "channels-pages-create",
        "data is the API's page object as persisted",
    ),
    entry(
        "channels-pages-content",
        "data is the API's content page object as persisted, binding included",
    ),
    entry(
        "channels-pages-copy",
        "data is the API's page object of the copy, as persisted",
    ),
    entry(
        "channels-pages-widget",
        "data is the API's page widget object as persisted",
    ),
    entry(
        "channels-templates-manage",
        "C15 multi-action root: the API's template object as persisted, or the listed templates",
    ),
    entry(
        "channels-templates-upsert",
        "data is the API's template object as persisted",
    ),
    entry(
        "channels-templates-find",
        "data is the API's template object the lookup found (or null)",
    ),
    entry(
        "channels-templates-copy",
        "data is the API's template object of the copy, as persisted",
    ),
    entry(
        "channels-widgets-manage",
        "C15 multi-action root: the API's custom widget object as persisted, or the listed widgets",
    ),
    entry(
        "channels-widgets-upsert",
        "data is the API's custom widget object as persisted",
    ),
    entry(
        "channels-widgets-copy",
        "data is the API's custom widget object of the copy, as persisted",
    ),
    entry(
        "channels-widgets-code-edit",
        "data is the API's custom widget object as persisted after the edit",
    ),
    entry(
        "channels-menus-upsert",
        "data is the API's menu object as persisted",
    ),
    entry(
        "channels-menus-copy",
        "data is the API's menu object of the copy (with its item tree), re-read",
    ),
    entry(
        "channels-menu-items-manage",
        "C15 multi-action root: the API's menu (with its item tree) or menu item as persisted, or the listed menus",
    ),
    entry(
        "channels-variables-manage",
        "C15 multi-action root: the API's variable object as persisted, or the listed variables",
    ),
    entry(
        "channels-locks-manage",
        "C15 multi-action root: the API's lock object as persisted, or the listed locks",
    ),
    entry(
        "channels-site-assets-manage",
        "C15 multi-action root: the API's site asset object as persisted, or the listed assets",
    ),
    entry(
        "channels-account-templates-manage",
        "C15 multi-action root: the API's account template object as persisted, or the listed templates",
    ),
];

/// C10 debt: roots the server builds but cannot enumerate. Empty: keep it so.
pub const OPAQUE_ROOT_TOOLS: &[Entry] = &[];

/// C11 debt: tools that emit `data` keys their schema does not declare. Empty: keep it so.
pub const KNOWN_UNDERDECLARED: &[Entry] = &[];
