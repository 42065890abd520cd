//! Workspace integration tests: one binary, one module per topic.
//!
//! - `cassettes`: every cassette under `cassettes/` loads, resolves and says where it is from;
//! - `replay`: exact matching, sequences, shadowing, response fidelity, loud misses;
//! - `scenarios`: every cassette scenario through the real server, against its expectation;
//! - `serve`: the offline server over an in-process duplex and as a child process;
//! - `lint`: the contract lint, clean on our server, catching a deliberately broken one;
//! - `properties`: drifted API responses through the real tools (proptest);
//! - `faults`: every fault kind as a C16 error, for every tool class;
//! - `gate`: the read-only gate and the class pins (C18, C19).

mod cassettes;
mod faults;
mod gate;
mod lint;
mod properties;
mod replay;
mod scenarios;
mod serve;
mod util;
