//! `modyo-lab`: the measurement lab and offline server for the `modyo-mcp` server, and the
//! `modyo-lab` binary.
//!
//! The harness is three crates, each depending only on those before it:
//!
//! - `modyo-replay` (`harness/replay/`): cassettes and their replay over local HTTP, what a
//!   test of any MCP server needs, usable as a dev-dependency;
//! - `modyo-spec` (`harness/spec/`): Modyo's published API specification as the API surface
//!   (the Swagger import, the surface files beside it) and every cassette held to it;
//! - `modyo-lab` (this crate, `harness/src/`): everything that runs the server.
//!
//! # Layout
//!
//! - [`check`]: what every tool result must satisfy, as a client sees it (C1, C2, C8, C16-C18);
//! - [`corrupt`]: a test-only fault that makes one tool's results break their schema, to prove
//!   strict clients would catch it;
//! - [`fixtures`]: deterministic generators of synthetic cassettes (`modyo-lab generate`);
//! - [`lint`]: the contract lint (`modyo-lab lint`), usable on any stdio MCP server;
//! - [`session`]: in-process sessions (replay + server + client over a duplex) and the
//!   cassette library with mount sets, for tests, the lab and the lint;
//! - [`record`]: record mode (a redacting proxy to a live account, VCR's modes, the drift
//!   check) behind `modyo-lab record`;
//! - [`lifecycle`]: `modyo-lab cassettes check` (parse, redaction, provenance, usage, unused
//!   interactions, and every interaction held to Modyo's published API specification);
//! - [`spec`]: the `modyo-lab spec` subcommands over `modyo_spec` (`spec import`, `spec pull`,
//!   `spec check`) and the API coverage report (`spec coverage`);
//! - [`serve`]: the offline server (`modyo-lab serve`): every cassette mounted, MCP on stdio or
//!   streamable HTTP;
//! - [`probe`]: the built server as a child process, raw JSON-RPC, exact response bytes (M1);
//! - [`tokens`]: the three counters, chars/2.902, o200k_base, cl100k_base (M2);
//! - [`measure`]: `modyo-lab measure`, before and after per module (or any two stdio servers),
//!   the catalogue as context and as wire, by slot and by tool (M3, M4), the budget and its check;
//! - [`report`]: the report model and its Markdown, JSON and SVG renderings (M5);
//! - [`perf`]: `modyo-lab bench`, the performance report against the floor and mcp-recorder;
//! - [`diff`]: `modyo-lab diff`, a pull request's token verdict, base against head;
//! - [`clients`]: `modyo-lab clients`, real MCP clients run headless against the marker server
//!   (`modyo-lab marker`: their fingerprints) and the offline server with a scripted model, and
//!   what they put in the model's context.

pub mod check;
pub mod clients;
pub mod corrupt;
pub mod diff;
pub mod fixtures;
pub mod lifecycle;
pub mod lint;
pub mod measure;
pub mod perf;
pub mod probe;
pub mod record;
pub mod report;
pub mod serve;
pub mod session;
pub mod spec;
pub mod tokens;
