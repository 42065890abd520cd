//! Cassette format v1 (`modyo-cassette/1`): one JSON file per scenario under `cassettes/`.
//!
//! A cassette holds the scenarios it answers (tool, arguments, expected outcome), the HTTP
//! interactions those calls make, where they came from ([`Provenance`]) and which other
//! cassettes it builds on (`include`). Its name is its path under `cassettes/` without `.json`
//! (`content/spaces-list`).
//!
//! `tags`, `include`, `scenarios` and `undocumented` may be omitted (a base cassette that others
//! include has no scenarios of its own); so may the optional parts of requests and responses.
//! `undocumented` lists the endpoints the cassette uses that Modyo's published specification
//! lacks, each with its evidence ([`Undocumented`]); `modyo-lab cassettes check` holds every
//! other interaction to the API surface (the `modyo-spec` crate).
//!
//! Parsing is strict: unknown keys, duplicate keys, a second body, a bad method or date are
//! errors that name the file and the JSON path. The writer ([`Cassette::to_json`],
//! [`Cassette::save`]) is deterministic, so generated cassettes are byte-stable and diffs
//! only show real changes.
//!
//! ```json
//! {
//!   "format": "modyo-cassette/1",
//!   "provenance": {"source": "synthetic", "date": "2026-11-29", "description": "..."},
//!   "tags": ["fault"],
//!   "include": ["content/sucursales/base"],
//!   "scenarios": [{"name": "spaces-list", "tool": "content-spaces-list",
//!                  "arguments": {"per_page": 10}, "expect": {"outcome": "success"}}],
//!   "undocumented": [{"method": "GET", "path": "/api/admin/groups",
//!                     "evidence": "modyo-docs:docs/en/platform/core/api.md"}],
//!   "interactions": [{"request": {"method": "GET", "path": "/api/admin/content/spaces",
//!                                 "query": {"page": "1", "only[]": ["id", "name"]}},
//!                     "response": {"status": 200, "body": {"spaces": []}}}]
//! }
//! ```

mod error;
mod interaction;
mod model;
mod store;
mod validate;

pub use error::CassetteError;
pub use interaction::{
    Interaction, OrderedMap, QueryValue, RecordedRequest, RecordedResponse, ResponseBody,
};
pub use model::{
    Cassette, Evidence, Expect, FORMAT_V1, Outcome, Provenance, Scenario, Source, Undocumented,
};
pub use store::{MAX_CASSETTE_BYTES, default_dir, load_path, names, path_of, resolve};

/// `GET /path?a=1` of a stored (redacted) request.
pub fn request_line(request: &RecordedRequest) -> String {
    let mut pairs = Vec::new();
    for (k, v) in request.query.iter() {
        for v in v.values() {
            pairs.push(format!("{k}={v}"));
        }
    }
    if pairs.is_empty() {
        format!("{} {}", request.method, request.path)
    } else {
        format!("{} {}?{}", request.method, request.path, pairs.join("&"))
    }
}
