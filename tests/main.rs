//! Workspace integration tests: one binary, one module per topic.
//!
//! - `cassettes`: every cassette under `cassettes/` loads, resolves and says where it is from;
//! - `replay`: exact matching, sequences, shadowing, response fidelity, loud misses;
//! - `scenarios`: every cassette scenario through the real server, against its expectation;
//! - `serve`: the offline server over an in-process duplex and as a child process;
//! - `widgets`: the widgets module (public mode, catalogue, resources, scaffold, validate).

mod cassettes;
mod replay;
mod scenarios;
mod serve;
mod util;
mod widgets;
