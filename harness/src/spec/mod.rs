//! The `modyo-lab spec` subcommands over the API surface of `modyo_spec`.
//!
//! - [`command`]: `spec import`, `spec pull`, `spec check` and `spec coverage`;
//! - [`coverage`]: `modyo-lab spec coverage`, the per-module, per-tool report
//!   `reports/api-coverage.md` (and `.json`), from a replay of every scenario through the server.

pub mod command;
pub mod coverage;
