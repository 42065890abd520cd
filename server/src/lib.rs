//! `modyo-mcp`: an MCP server for the Modyo platform API with one typed response contract.
//!
//! Every tool answers with the envelope `{platform, data, resource?, state?, control?}` in
//! `structuredContent`, typed by a published `outputSchema`, with the same payload as compact
//! JSON text (or either alone: the result form the operator chooses, C22); errors say which
//! platform they hit. The rules are in `CONTRACT.md` (beside `Cargo.toml`) and are cited in the
//! code as `C1`..`C22`.
//!
//! # Layout
//!
//! - [`config`]: the environment (`MODYO_URL`, `MODYO_TOKEN`, modules, read-only, legacy, the
//!   result form);
//! - [`contract`]: the response contract, one file per rule group;
//! - [`modyo`]: the HTTP client, pagination and `meta`, error mapping, name resolution;
//! - `tools`: one folder per module, one file per resource, and the registry table;
//! - [`server`]: the rmcp handler (registry, gate, dispatch) and the stdio transport;
//! - [`http`]: the streamable HTTP transport (loopback by default, Host/Origin checked, a
//!   header-read timeout and a cap on sessions);
//! - [`logging`]: the binaries' stderr logs (quiet by default, `-v` and `RUST_LOG` for more);
//! - [`stdio`]: the stdio transport, which answers malformed lines (`-32700`, `-32600`);
//! - [`scrub`]: the token scrubbed from every answer and log line;
//! - `widgets`: the widget component catalogue shipped in the binary (data, resources, the
//!   local scaffolding and validation of widget projects), used by `tools/widgets`.
//!
//! # Example
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = modyo_mcp::Config::from_env()?;
//! modyo_mcp::ModyoServer::new(config)?.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```

mod app;
pub mod config;
pub mod contract;
pub mod http;
pub mod logging;
pub mod modyo;
mod screen;
pub mod scrub;
pub mod server;
pub mod stdio;
mod tools;
pub mod uploads;
mod widgets;

pub use config::{Config, ConfigError, Module, Token};
pub use http::{HttpArgs, HttpError, HttpListener, HttpOptions};
pub use server::{ModyoServer, ServerError, catalog_size, echoed_roots};
