//! Workspace integration tests: one binary, one module per topic.
//!
//! - `binary`: the production binary's configuration errors and public mode;
//! - `cassettes`: every cassette under `cassettes/` loads, resolves and says where it is from;
//! - `channels`: what channels scenarios cannot express (files on disk, no writes when read-only);
//! - `content`: the content module's classes, read-only gate, coverage, C7 and bulk work;
//! - `contract`: the contract rules of the foundation through the real server (C1-C21);
//! - `core_customers`: classes, the read-only gate, fan-out bulk and legacy mode of two modules;
//! - `errors`: the upstream error table, timeouts, refused connections, malformed bodies;
//! - `faults`: every fault kind as a C16 error, for every tool class;
//! - `gate`: the read-only gate and the class pins (C18, C19);
//! - `lint`: the contract lint, clean on our server, catching a deliberately broken one;
//! - `measure`: the lab end to end (snapshots of every module report, slot sums, determinism);
//! - `properties`: drifted API responses through the real tools (proptest);
//! - `python_client`: the strict Python `mcp` client through every scenario;
//! - `record`: record mode against a local fake upstream, every VCR mode, redaction with a
//!   canary, ordered repeats, latency, `cassettes check`, the drift check, the CLI;
//! - `replay`: exact matching, sequences, shadowing, response fidelity, loud misses;
//! - `scenarios`: every cassette scenario through the real server, against its expectation;
//! - `serve`: the offline server over an in-process duplex and as a child process;
//! - `widgets`: the widgets module (public mode, catalogue, resources, scaffold, validate).

mod binary;
mod cassettes;
mod channels;
mod content;
mod contract;
mod core_customers;
mod errors;
mod faults;
mod gate;
mod lint;
mod measure;
mod properties;
mod python_client;
mod record;
mod replay;
mod scenarios;
mod serve;
mod util;
mod widgets;
