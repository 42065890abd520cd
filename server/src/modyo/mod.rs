//! The Modyo admin API client: requests, pagination and `meta`, status-to-error mapping, and
//! the heuristic resolution of names into entities.
//!
//! - [`client`]: reqwest with bearer auth, timeout, `no_proxy`, its own User-Agent;
//! - [`error`]: what can go wrong upstream, and its mapping to C16 codes (`server/CONTRACT.md`, "HTTP conventions");
//! - [`list`]: list bodies (`{<plural>: [...], meta}`), the root-key drift rule, page walking;
//! - [`resolve`]: id / uid / name lookups that refuse to guess (`ambiguous`, `not_found`).

pub mod client;
pub mod error;
pub mod list;
pub mod resolve;

pub use client::{ModyoClient, Query};
pub use error::{CmsError, SetupError};
pub use list::ListPage;
