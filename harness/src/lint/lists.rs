//! The exemption lists of the contract lint (C10, C11) that are kept by hand, in one place.
//!
//! The third list, the echoed roots (C10, permanent design decisions: the `data` root *is* a
//! foreign object, or a list of them, echoed from the Modyo API, so it is loose: upstream drift
//! adds information and never breaks the tool, C8; it declares the keys the server relies on or
//! guarantees and the rest travels under `additionalProperties`, so C11 does not apply to it),
//! is not kept here: each tool declares it through the type of its `data`
//! (`modyo_mcp::echoed_roots`), with the reason.
//!
//! The lists can only shrink. An entry that no longer describes a violation (the tool is gone, its
//! root became strict, it stopped emitting undeclared keys) fails the lint as stale, and a new
//! violation fails until someone adds it here by hand, with the reason next to it. Before
//! adding an entry, fix the tool if you can: declare the keys (C11), make the root strict (C10).
//!
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

/// C10 debt: roots the server builds but cannot enumerate. Empty: keep it so.
pub const OPAQUE_ROOT_TOOLS: &[Entry] = &[];

/// C11 debt: tools that emit `data` keys their schema does not declare. Empty: keep it so.
pub const KNOWN_UNDERDECLARED: &[Entry] = &[];
