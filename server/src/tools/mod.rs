//! The tools: one folder per module, one file per Modyo resource, and the registry above them
//! ([`catalog`]).
//!
//! Every module is built on the engine below it (`engine/`), which holds the kit a tool is
//! declared with ([`tool`], `engine/tool.rs`) and the `-manage` declaration; this file only
//! lists the modules' tools, and names the kit's types for `server.rs`. Adding a tool is one
//! function in its resource's file and one line in its module's `tools()`.

pub(crate) mod args;
pub(crate) mod channels;
pub(crate) mod content;
pub(crate) mod core;
pub(crate) mod customers;
pub(crate) mod engine;
pub(crate) mod widgets;

pub(crate) use engine::bulk as fanout;
pub(crate) use engine::tool::{Call, CallError, ToolDef};

/// Every tool of every module, in catalogue order. Declared once per process: building the
/// declarations (their schemas derived from the argument types) was most of what starting a
/// server cost, and tests and the lab start hundreds of servers in one process.
pub(crate) fn catalog() -> &'static [ToolDef] {
    static CATALOG: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut all = Vec::new();
        all.extend(content::tools());
        all.extend(core::tools());
        all.extend(customers::tools());
        all.extend(channels::tools());
        all.extend(widgets::tools());
        all
    })
}
