//! The shrink-only list of contradictions between our cassettes and Modyo's published
//! specification.
//!
//! Every entry is one contradiction (endpoint, kind, subject), the tool whose interactions
//! carry it, and why the cassette disagrees with the specification. The list can only shrink:
//! `cassettes check` fails on a contradiction that is not here, and on an entry that no longer
//! matches anything (stale). The conformance work empties it by fixing the server's requests
//! and the cassettes together, never by loosening the check or by adding entries.

use super::conform::Kind;

/// The file that holds the list, for messages.
pub const LIST_FILE: &str = "harness/spec/src/known.rs";

/// One known contradiction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// A tool whose interactions carry it.
    pub tool: &'static str,
    /// `METHOD /full/template`.
    pub endpoint: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// The parameter, key path or status (empty when the endpoint is the subject).
    pub subject: &'static str,
    /// Why the cassette disagrees, and what the specification documents instead.
    pub reason: &'static str,
}

/// Every contradiction the cassettes still carry: none. The conformance work (issues 17 and 18)
/// emptied it; where Modyo's published text is wrong, `errata.rs` corrects it with evidence.
/// Importing what the specification marks required (issue 33) found three, each fixed in the
/// server since (the entry publish sends its body; the releases, which cannot send `GET
/// /versions` its `oid` and `type`, are refused before any request).
pub const KNOWN_CONTRADICTIONS: &[Known] = &[];
