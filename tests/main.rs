//! Workspace integration tests: one binary, one module per topic.
//!
//! - `cassettes`: every cassette under `cassettes/` loads, resolves and says where it is from;
//! - `core_customers`: classes, the read-only gate, fan-out bulk and legacy mode of two modules;
//! - `replay`: exact matching, sequences, shadowing, response fidelity, loud misses;
//! - `scenarios`: every cassette scenario through the real server, against its expectation;
//! - `serve`: the offline server over an in-process duplex and as a child process.

mod cassettes;
mod core_customers;
mod replay;
mod scenarios;
mod serve;
mod util;
