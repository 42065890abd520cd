//! The client profiles of a report: which catalogue each assumes reaches the model, the
//! evidence behind it (measured or stated), and the break-even of a module's change by calls
//! and by billed session.

use serde::{Deserialize, Serialize};

use crate::tokens::{Count, Delta, PerUnit, Tokens};

/// Which catalogue a profile assumes reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CatalogueView {
    /// Each tool's `name`, `title`, `description`, `inputSchema` and `annotations`: the client
    /// drops the output schema.
    Context,
    /// The whole `tools` array as sent, output schemas included.
    Wire,
    /// What a real client was captured sending once per session (`modyo-lab clients`): for
    /// Claude Code the deferred tool names, our instructions and the definitions of the tools
    /// the session loaded, without output schema; the profile's behaviour says which.
    Captured,
}

impl CatalogueView {
    /// How reports print it.
    pub fn label(self) -> &'static str {
        match self {
            CatalogueView::Context => "context",
            CatalogueView::Wire => "wire",
            CatalogueView::Captured => "captured",
        }
    }
}

/// What a profile rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "basis", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Evidence {
    /// A behaviour the lab assumes; `modelled_on` names the observations it follows, if any.
    Assumed {
        /// The clients (with versions and dates) seen to behave this way (`modelled on ...`),
        /// or why the profile is kept without one.
        modelled_on: String,
    },
    /// A behaviour measured on a real client: what reached its model, captured.
    Measured {
        /// The client.
        client: String,
        /// Its version.
        version: String,
        /// When it was measured (`YYYY-MM-DD`).
        date: String,
        /// The client's fingerprint (what of our server it forwards, from the marker
        /// server), relative to the reports directory, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fingerprint: Option<String>,
    },
}

impl Evidence {
    /// `assumed`, or `measured (client version, date)` with its fingerprint file when it has
    /// one.
    pub fn label(&self) -> String {
        match self {
            Evidence::Assumed { .. } => "assumed".into(),
            Evidence::Measured {
                client,
                version,
                date,
                fingerprint: None,
            } => format!("measured ({client} {version}, {date})"),
            Evidence::Measured {
                client,
                version,
                date,
                fingerprint: Some(file),
            } => format!("measured ({client} {version}, {date}; fingerprint `{file}`)"),
        }
    }
}

/// One client profile: what reaches the model, and what a session costs.
#[derive(Debug, Clone, Serialize)]
pub struct Profile {
    /// Short name (`text`, `structured`, `both`, `text-wire`, `schema-per-call`).
    pub profile: String,
    /// What the client puts in the model's context per call.
    pub behaviour: String,
    /// Which catalogue it puts in context, once per session.
    pub catalogue: CatalogueView,
    /// Assumed or measured.
    pub evidence: Evidence,
    /// The catalogue before, in the view the profile assumes.
    pub catalogue_before: Tokens,
    /// The catalogue after.
    pub catalogue_after: Tokens,
    /// Scenarios the per-call means are over.
    pub calls: usize,
    /// Mean cost per call before.
    pub per_call_before: Option<PerUnit>,
    /// Mean cost per call after.
    pub per_call_after: Option<PerUnit>,
    /// Change per call in percent (chars/2.902).
    pub per_call_percent: Option<f64>,
    /// Calls after which the session after ends with less in the model's context (final
    /// context), per counter (`null`: never).
    pub break_even_calls: BreakEven,
    /// Calls after which the session after has billed less input, per counter (`null`: never):
    /// every request re-sends the catalogue and every result so far (see
    /// [`BreakEven::billed`]).
    pub billed_break_even_calls: BreakEven,
}

impl Profile {
    /// A profile priced from counts: what each side puts in context once per session and
    /// what its `calls` results add up to, the per-call means and break-evens derived here.
    pub fn priced(
        profile: String,
        behaviour: String,
        catalogue: CatalogueView,
        evidence: Evidence,
        (once_before, results_before): (Count, Count),
        (once_after, results_after): (Count, Count),
        calls: usize,
    ) -> Profile {
        let per_call = |results: Count| (calls > 0).then(|| results.per(calls as u64));
        Profile {
            profile,
            behaviour,
            catalogue,
            evidence,
            catalogue_before: once_before.tokens_all(),
            catalogue_after: once_after.tokens_all(),
            calls,
            per_call_before: per_call(results_before),
            per_call_after: per_call(results_after),
            per_call_percent: Delta::between(results_before, results_after)
                .percent
                .map(|p| p.primary),
            break_even_calls: BreakEven::of(
                once_before,
                once_after,
                results_before,
                results_after,
                calls,
            ),
            billed_break_even_calls: BreakEven::billed(
                once_before,
                once_after,
                results_before,
                results_after,
                calls,
            ),
        }
    }
}

/// A break-even call count per counter; `None` means the migrated session never pays back.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct BreakEven {
    /// Characters / 2.902 (the same count as characters).
    #[serde(rename = "chars/2.902")]
    pub primary: Option<u64>,
    /// `o200k_base`.
    pub o200k_base: Option<u64>,
    /// `cl100k_base`.
    pub cl100k_base: Option<u64>,
}

impl BreakEven {
    /// The count under `counter`.
    pub fn under(&self, counter: crate::tokens::Counter) -> Option<u64> {
        match counter {
            crate::tokens::Counter::Chars => self.primary,
            crate::tokens::Counter::O200k => self.o200k_base,
            crate::tokens::Counter::Cl100k => self.cl100k_base,
        }
    }

    /// The smallest `n` from which on the session after leaves no more in the model's context
    /// than before: `catalogue_after + m * after <= catalogue_before + m * before` for every
    /// `m >= n`, given per-call sums over `calls` calls. `None` (never) when the calls after
    /// cost more, even if the catalogue after is smaller: that session is cheaper only for its
    /// first few calls.
    pub fn of(
        catalogue_before: Count,
        catalogue_after: Count,
        sum_before: Count,
        sum_after: Count,
        calls: usize,
    ) -> BreakEven {
        BreakEven::per_counter(
            catalogue_before,
            catalogue_after,
            sum_before,
            sum_after,
            calls,
            1,
        )
    }

    /// The same by billed input: a session of `m` calls sends `m + 1` requests, request `k`
    /// (from 0) carrying the catalogue and the `k` results so far, so it bills
    /// `(m + 1) * catalogue + per_call * m * (m + 1) / 2`. The session after bills no more
    /// once `catalogue_after - catalogue_before <= (before - after) * m / 2` (per-call means):
    /// twice the final-context count, because the catalogue is paid again on every request
    /// while each call's saving is paid back only by the requests after it.
    pub fn billed(
        catalogue_before: Count,
        catalogue_after: Count,
        sum_before: Count,
        sum_after: Count,
        calls: usize,
    ) -> BreakEven {
        BreakEven::per_counter(
            catalogue_before,
            catalogue_after,
            sum_before,
            sum_after,
            calls,
            2,
        )
    }

    fn per_counter(
        catalogue_before: Count,
        catalogue_after: Count,
        sum_before: Count,
        sum_after: Count,
        calls: usize,
        factor: u128,
    ) -> BreakEven {
        let one = |cb: u64, ca: u64, sb: u64, sa: u64| -> Option<u64> {
            if sa > sb {
                return None;
            }
            if ca <= cb {
                return Some(0);
            }
            if calls == 0 || sa == sb {
                return None;
            }
            // n >= factor * (ca - cb) / ((sb - sa) / calls)
            let need = factor * (ca - cb) as u128 * calls as u128;
            let saving = (sb - sa) as u128;
            Some(need.div_ceil(saving) as u64)
        };
        BreakEven {
            primary: one(
                catalogue_before.chars,
                catalogue_after.chars,
                sum_before.chars,
                sum_after.chars,
            ),
            o200k_base: one(
                catalogue_before.o200k_base,
                catalogue_after.o200k_base,
                sum_before.o200k_base,
                sum_after.o200k_base,
            ),
            cl100k_base: one(
                catalogue_before.cl100k_base,
                catalogue_after.cl100k_base,
                sum_before.cl100k_base,
                sum_after.cl100k_base,
            ),
        }
    }
}

/// What a session of `calls` calls bills, summed over its `calls + 1` requests: each request
/// carries `catalogue` and the results so far, each result costing `per_call`.
pub fn billed_input(catalogue: f64, per_call: f64, calls: u64) -> f64 {
    let n = calls as f64;
    (n + 1.0) * catalogue + per_call * n * (n + 1.0) / 2.0
}
