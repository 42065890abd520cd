//! `modyo-replay`: cassettes and their replay, what a test of any MCP server that calls an HTTP
//! API needs; usable as a dev-dependency.
//!
//! Cassettes record what an HTTP API answered; replay serves them from a local HTTP server so
//! the real server code runs offline: in tests, in the lab and in `modyo-lab serve`.
//!
//! # Layout
//!
//! - [`cassette`]: format v1, strict loading, `include` resolution, the deterministic writer;
//! - [`replay`]: exact-match replay over local HTTP, loud misses with near-miss diagnostics;
//! - [`template`]: path templates (`/content/spaces/{space_id}`) and how a request path matches
//!   one (the `undocumented` marks of a cassette, the operations of an API surface);
//! - [`workspace`]: the checkout whose `cassettes/` and `reports/` are the defaults, found at
//!   run time.
//!
//! # Example
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use modyo_replay::{Cassette, ReplayOptions, ReplayServer};
//!
//! let cassettes = Cassette::load("cassettes", "content/spaces-list")?.with_includes("cassettes")?;
//! let replay = ReplayServer::start(ReplayOptions::default()).await;
//! replay.mount(&cassettes).await?;
//! // point the server (or any HTTP client) at replay.uri()
//! # Ok(())
//! # }
//! ```

pub mod cassette;
pub mod replay;
pub mod template;
pub mod workspace;

pub use cassette::{Cassette, CassetteError, Interaction, Provenance, RecordedResponse, Scenario};
pub use replay::{
    Miss, ReceivedRequest, ReplayError, ReplayOptions, ReplayServer, UnusedInteraction,
};
pub use template::Template;
