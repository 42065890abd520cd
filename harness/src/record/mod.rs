//! Record mode: run the real server against a live Modyo account through a recording proxy and
//! write what it exchanged as a cassette, redacted (`modyo-lab record`).
//!
//! ```text
//! modyo-lab record --scenario spaces --mode once -- content-spaces-list '{}' content-spaces-get '{"space": "blog"}'
//! ```
//!
//! Each tool call runs in its own in-process server pointed at a [`RecordingProxy`], like a
//! scenario replayed alone. Modes have VCR's names and meanings ([`Mode`]):
//!
//! | mode | cassette missing | cassette present |
//! |---|---|---|
//! | `once` (default) | record everything | replay only; new requests fail |
//! | `new_episodes` | record everything | replay what matches, record and append the rest |
//! | `none` | error | replay only; new requests fail (with near-miss report) |
//! | `all` | record everything | re-record everything (the file is replaced) |
//!
//! `--mode none --diff` replays nothing: every request goes live, and each live answer is
//! compared structurally with what the cassette recorded (the drift check, [`drift`]).
//!
//! `--suite read-only --out DIR` runs a suite instead ([`suite`]): discovery and every read
//! tool against the live account, read-only by three layers, into real cassettes under `DIR`
//! and a values-free report of where ours are wrong.
//!
//! Whatever is written (cassette, report, logs) went through the [`Redactor`] first; the live
//! responses the server sees are passed through unchanged. After writing, every recorded call
//! is replayed offline from the new file and must give the same (redacted) result.

pub mod drift;
pub mod guard;
mod options;
mod proxy;
pub mod redact;
mod report;
mod run;
pub mod suite;

pub use guard::{Guard, GuardStats, Limits, Refusal};
pub use options::{Call, Live, Mode, RecordOptions};
pub use proxy::{Drift, Exchange, Origin, Policy, ProxyConfig, ProxyError, RecordingProxy};
pub use redact::Redactor;
pub use report::{CallReport, DriftReport, RecordReport};
pub use run::{RecordError, run};

/// How a report is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For machines (pretty JSON).
    Json,
}

/// Today's date (UTC), `YYYY-MM-DD`: the provenance date of a recording.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0);
    civil_date(days)
}

/// The calendar date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_782), "2024-02-29");
        assert_eq!(civil_date(20_786), "2026-11-29");
        assert_eq!(today().len(), 10);
    }
}
