//! Workspace integration tests: one binary, one module per topic.
//!
//! - `bench_report`: the committed `reports/performance.md` and the README agree on the size of
//!   the server binary (`make bench` writes both);
//! - `binary`: the production binary's configuration errors and public mode;
//! - `cancellation`: `notifications/cancelled` stops upstream work; 64 concurrent calls on one
//!   session, over the duplex and over HTTP;
//! - `cassettes`: every cassette under `cassettes/` loads, resolves and says where it is from;
//! - `cli`: both binaries' default logs (quiet), `-v`/`RUST_LOG`/`DEBUG`, and `--help` free of
//!   build-machine paths;
//! - `client_captures`: the committed captures of real clients (`make clients`) rebuild the
//!   committed `clients.md`/`clients.json`, still match the server, and mark the module reports;
//!   every committed fingerprint is what its marker capture shows;
//! - `client_lab`: the marker server over stdio, a foreign server's reference, and
//!   `clients --server` without any client installed;
//! - `channels`: what channels scenarios cannot express (files on disk, no writes when read-only);
//! - `content`: the content module's classes, read-only gate, coverage, C7 and bulk work;
//! - `contract`: the contract rules of the foundation through the real server (C1-C21);
//! - `core_customers`: classes, the read-only gate, fan-out bulk and legacy mode of two modules;
//! - `errors`: the upstream error table, timeouts, refused connections, malformed bodies;
//! - `faults`: every fault kind as a C16 error, for every tool class;
//! - `forms`: the result forms (C22): every scenario in each form against its whole answer,
//!   the listing and docs per form, C8 where no schema is listed, legacy modules unchanged;
//! - `gate`: the read-only gate and the class pins (C18, C19);
//! - `http`: the streamable HTTP transport (same answers as stdio, DNS-rebinding protection,
//!   loopback only, both binaries with `--http`, header-read timeout, session cap);
//! - `identifiers`: identifier parameters take a JSON integer as well as a string;
//! - `limits`: the upstream body cap, `maxLength` on every string input, too-long inputs;
//! - `layout`: the harness's shape: no import cycle between the folders of a crate, no source
//!   file over 600 lines;
//! - `lint`: the contract lint, clean on our server, catching a deliberately broken one;
//! - `measure`: the lab end to end (snapshots of every module report, slot sums, determinism);
//! - `peers`: the strict peers as programs (Python `mcp`, TypeScript SDK, MCP Inspector CLI,
//!   conformance suite) through every scenario, and each rejecting an invalid output;
//! - `properties`: drifted API responses through the real tools (proptest);
//! - `redirects`: same-origin redirects followed, cross-origin ones refused, too many named;
//! - `record`: record mode against a local fake upstream, every VCR mode, redaction with a
//!   canary, ordered repeats, latency, `cassettes check`, the drift check, the CLI;
//! - `record_suite`: `record --suite read-only` against a fake account with planted
//!   differences (GET only, the budget, no token or host written, the report, offline replay,
//!   the exit status through the binary), the guard (refusals, `Retry-After`), the suite's plan;
//! - `replay`: exact matching, sequences, shadowing, response fidelity, loud misses;
//! - `scenarios`: every cassette scenario through the real server, against its expectation;
//! - `secrets`: the token never comes back, whatever upstream echoes, nor reaches the logs;
//! - `serve`: the offline server over an in-process duplex and as a child process (single
//!   cassette files, non-regular files refused, a bounded ledger);
//! - `spec`: the API surface (`spec import` byte for byte, regeneration, `spec pull` against a
//!   fake account), every kind of contradiction on small cassettes, undocumented marks, the
//!   shrink-only list, the workspace's cassettes held to the published specification, and the
//!   committed API coverage report;
//! - `stdio`: malformed stdio lines answered with `-32700` / `-32600`;
//! - `walk`: whole-collection walks against capped, contradicting and page-ignoring upstreams;
//! - `diff`: `modyo-lab diff`, a change's token verdict on a purpose-made pair of builds;
//! - `widgets`: the widgets module (public mode, catalogue, resources, scaffold, validate);
//! - `workspace`: every cargo command resolves the features the tests build (no recompiling).

mod bench_report;
mod binary;
mod cancellation;
mod cassettes;
mod channels;
mod cli;
mod client_captures;
mod client_lab;
mod content;
mod contract;
mod core_customers;
mod diff;
mod errors;
mod faults;
mod forms;
mod gate;
mod http;
mod identifiers;
mod layout;
mod limits;
mod lint;
mod measure;
mod peers;
mod properties;
mod record;
mod record_suite;
mod redirects;
mod replay;
mod scenarios;
mod secrets;
mod serve;
mod spec;
mod stdio;
mod util;
mod walk;
mod widgets;
mod workspace;
