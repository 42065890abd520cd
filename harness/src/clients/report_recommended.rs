//! The clients report under the settings recommended for each client (C22,
//! [`recommend`](super::recommend)): per module, the `recommended` session priced against the
//! legacy one, beside the default (`both`) figures; where the recommendation is the defaults,
//! the `after` session is the recommended one ("= after (defaults)"); where a capture has no
//! recommended session yet, the module says "not captured". Rendered into each client's
//! section of `clients.md`, the break-even table, the lead of the recommendations, and the
//! module reports' measured profiles.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::capture::{Capture, Session, Settings, Side};
use super::fingerprint::Fingerprint;
use super::recommend;
use super::report::{
    ClientReport, ModuleProfile, PriceError, Priced, arrow, by_counter, calls, price,
};
use crate::report::markdown::{signed, tok};
use crate::report::table::{
    Align::{Left, Right},
    Table,
};
use crate::report::{BreakEven, CatalogueView, Profile};
use crate::tokens::{Delta, PerUnit, Tokens, grouped as num};

/// Which session a module's recommended figures are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecommendedSession {
    /// Its own session, under the recommended settings.
    Recommended,
    /// The `after` session: the recommendation is the defaults, so it was not run again.
    AfterDefaults,
    /// None: the capture has no recommended session (a full `make clients` records it).
    NotCaptured,
}

impl RecommendedSession {
    /// How the reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            RecommendedSession::Recommended => "recommended",
            RecommendedSession::AfterDefaults => "= after (defaults)",
            RecommendedSession::NotCaptured => "not captured",
        }
    }
}

/// A module's session under the client's recommended settings, against the legacy one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecommendedProfile {
    /// The settings, as an operator types them (`MODYO_RESULTS=text`), or `defaults (both)`.
    pub settings: String,
    /// Which session the figures are of.
    pub session: RecommendedSession,
    /// The figures; `null` when not captured.
    pub figures: Option<RecommendedFigures>,
}

/// What the session under the recommended settings cost, against the legacy session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecommendedFigures {
    /// Billed input of the legacy session.
    pub billed_before: Tokens,
    /// Billed input under the recommended settings.
    pub billed_after: Tokens,
    /// Of `billed_after`, what the previous request already sent.
    pub repeated_after: Tokens,
    /// Final context of the legacy session.
    pub final_context_before: Tokens,
    /// Final context under the recommended settings.
    pub final_context_after: Tokens,
    /// Paid once under the recommended settings: names, instructions, definitions.
    pub once_after: Tokens,
    /// Every result under the recommended settings, as forwarded.
    pub results_after: Tokens,
    /// Mean result per call before.
    pub per_call_before: PerUnit,
    /// Mean result per call under the recommended settings.
    pub per_call_after: PerUnit,
    /// Change per call in percent (chars/2.902).
    pub per_call_percent: Option<f64>,
    /// Final context, after against before, in percent (chars/2.902).
    pub final_context_percent: Option<f64>,
    /// Calls after which the session ends with less in the model's context (`null`: never).
    pub break_even_calls: BreakEven,
    /// Calls after which the session has billed less input (`null`: never).
    pub billed_break_even_calls: BreakEven,
}

fn figures(before: &Priced, recommended: &Priced, calls: usize) -> RecommendedFigures {
    let (b, r) = (before, recommended);
    RecommendedFigures {
        billed_before: b.cost.billed,
        billed_after: r.cost.billed,
        repeated_after: r.cost.repeated,
        final_context_before: b.cost.total,
        final_context_after: r.cost.total,
        once_after: r.cost.once,
        results_after: r.results.tokens_all(),
        per_call_before: b.results.per(calls as u64),
        per_call_after: r.results.per(calls as u64),
        per_call_percent: Delta::between(b.results, r.results)
            .percent
            .map(|p| p.primary),
        final_context_percent: Delta::between(b.once + b.results, r.once + r.results)
            .percent
            .map(|p| p.primary),
        break_even_calls: BreakEven::of(b.once, r.once, b.results, r.results, calls),
        billed_break_even_calls: BreakEven::billed(b.once, r.once, b.results, r.results, calls),
    }
}

/// `module`'s figures under the recommended settings: its recommended session when the
/// capture has one (under the settings it recorded), else the `after` session when the
/// client's fingerprint recommends the defaults, else not captured; `None` when neither a
/// session nor a fingerprint says what the recommendation is.
pub(crate) fn profile(
    capture: &Capture,
    module: &str,
    before: &Session,
    after: &Session,
    fingerprint: Option<&Fingerprint>,
) -> Result<Option<RecommendedProfile>, PriceError> {
    let calls = before.calls.len();
    if let Some(session) = capture.session(module, Side::Recommended) {
        if session.calls != before.calls {
            return Err(PriceError::DifferentCalls {
                client: capture.header.client.clone(),
                module: module.to_owned(),
            });
        }
        let settings = session.settings.unwrap_or(Settings::DEFAULTS);
        return Ok(Some(RecommendedProfile {
            settings: settings.label(),
            session: RecommendedSession::Recommended,
            figures: Some(figures(&price(before), &price(session), calls)),
        }));
    }
    let Some(fingerprint) = fingerprint else {
        return Ok(None);
    };
    let settings = recommend::recommend(fingerprint).server_settings();
    Ok(Some(if settings.is_defaults() {
        RecommendedProfile {
            settings: settings.label(),
            session: RecommendedSession::AfterDefaults,
            figures: Some(figures(&price(before), &price(after), calls)),
        }
    } else {
        RecommendedProfile {
            settings: settings.label(),
            session: RecommendedSession::NotCaptured,
            figures: None,
        }
    }))
}

/// The billed break-even under the recommended settings: the recommended session's, or the
/// `after` one's when they are the defaults; `None` when the capture has no such session.
pub(crate) fn billed_break_even(m: &ModuleProfile) -> Option<&BreakEven> {
    match m.recommended.as_ref().map(|r| (r.session, &r.figures)) {
        Some((RecommendedSession::Recommended, Some(f))) => Some(&f.billed_break_even_calls),
        Some((RecommendedSession::AfterDefaults, _)) => Some(&m.billed_break_even_calls),
        _ => None,
    }
}

/// The break-even table's cell under the recommended settings: as the default cell (billed /
/// final context, and the final context's change), or what stands in for it.
pub(crate) fn break_even_cell(module: Option<&ModuleProfile>) -> String {
    let Some(recommended) = module.and_then(|m| m.recommended.as_ref()) else {
        return "—".to_owned();
    };
    match (&recommended.figures, recommended.session) {
        (Some(f), RecommendedSession::Recommended) => {
            let cell = format!(
                "**{}** / {}",
                calls(f.billed_break_even_calls.primary),
                calls(f.break_even_calls.primary)
            );
            match f.final_context_percent {
                Some(p) => format!("{cell} ({}%)", signed(p, 1)),
                None => cell,
            }
        }
        (_, session) => session.describe().to_owned(),
    }
}

/// The settings a client's modules are recommended, for the break-even table (the first
/// module's: one fingerprint says them for all), or `—`.
pub(crate) fn settings_cell(client: &ClientReport) -> String {
    client
        .modules
        .iter()
        .find_map(|m| m.recommended.as_ref())
        .map_or("—".to_owned(), |r| format!("`{}`", r.settings))
}

/// The client section's part on its recommended settings: a table of the recommended
/// sessions against the legacy ones, or a sentence when there is none to show.
pub(crate) fn section(client: &ClientReport) -> String {
    let recommended: Vec<(&ModuleProfile, &RecommendedProfile)> = client
        .modules
        .iter()
        .filter_map(|m| m.recommended.as_ref().map(|r| (m, r)))
        .collect();
    let Some((_, first)) = recommended.first() else {
        return String::new();
    };
    let settings = &first.settings;
    if recommended
        .iter()
        .all(|(_, r)| r.session == RecommendedSession::AfterDefaults)
    {
        return format!(
            "Under the recommended settings (`{settings}`): = after (defaults); the sessions above are the recommended ones.\n\n"
        );
    }
    if recommended
        .iter()
        .all(|(_, r)| r.session == RecommendedSession::NotCaptured)
    {
        return format!(
            "Under the recommended settings (`{settings}`): not captured (the capture has no recommended session; a full `make clients` records them).\n\n"
        );
    }
    let mut table = Table::new(&[
        ("module", Left),
        ("settings", Left),
        ("per call before → recommended", Right),
        ("change per call", Right),
        ("final context before → recommended", Right),
        (
            "billed input before → recommended (repeated prefix recommended)",
            Right,
        ),
        (
            "break-even by billed input (chars/2.902 / o200k_base / cl100k_base)",
            Right,
        ),
        ("by final context", Right),
    ]);
    for (m, r) in &recommended {
        let Some(f) = &r.figures else {
            let mut row = vec![m.module.clone(), format!("`{}`", r.settings)];
            row.extend(std::iter::repeat_n(r.session.describe().to_owned(), 6));
            table.row(row.into_iter().map(Into::into));
            continue;
        };
        table.row([
            m.module.as_str().into(),
            format!("`{}`", r.settings).into(),
            format!(
                "{} → {}",
                num(f.per_call_before.primary, 1),
                num(f.per_call_after.primary, 1)
            )
            .into(),
            f.per_call_percent
                .map_or("n/a".into(), |p| format!("{}%", signed(p, 1)))
                .into(),
            format!(
                "{} → {}{}",
                tok(&f.final_context_before),
                tok(&f.final_context_after),
                f.final_context_percent
                    .map_or(String::new(), |p| format!(" ({}%)", signed(p, 1)))
            )
            .into(),
            format!(
                "{} ({})",
                arrow(&f.billed_before, &f.billed_after),
                tok(&f.repeated_after)
            )
            .into(),
            by_counter(&f.billed_break_even_calls, true).into(),
            by_counter(&f.break_even_calls, false).into(),
        ]);
    }
    format!(
        "Under the recommended settings: the same calls, the migrated module under `{settings}`, against the legacy session (a row says \"= after (defaults)\" when the recommendation is the defaults, \"not captured\" when the capture has no recommended session yet):\n\n{}\n",
        table.into_text()
    )
}

/// The sentence of the recommendations' lead that says which sessions are priced under the
/// recommended settings, from what the report holds.
pub(crate) fn priced_sentence(clients: &[ClientReport]) -> String {
    let mut captured = Vec::new();
    let mut missing = Vec::new();
    for c in clients {
        let sessions: Vec<RecommendedSession> = c
            .modules
            .iter()
            .filter_map(|m| m.recommended.as_ref().map(|r| r.session))
            .collect();
        if sessions.contains(&RecommendedSession::Recommended) {
            captured.push(c.name.clone());
        }
        if sessions.contains(&RecommendedSession::NotCaptured) {
            missing.push(c.name.clone());
        }
    }
    const DEFAULTS: &str = "for a client recommended the defaults, the recommended figures are its `after` session's (= after (defaults))";
    match (captured.is_empty(), missing.is_empty()) {
        (true, _) => "The sessions priced below run under the defaults; the same sessions under these settings are not priced yet (a full `make clients` records them).".to_owned(),
        (false, true) => format!(
            "The sessions priced below run under the defaults and, for each client whose settings differ, under these settings too (the \"recommended\" figures beside `both`); {DEFAULTS}."
        ),
        (false, false) => {
            let mut out = format!(
                "The sessions priced below run under the defaults and, for {}, under these settings too (the \"recommended\" figures beside `both`); ",
                captured.join(", ")
            );
            let _ = write!(
                out,
                "under these settings, the sessions of {} are not captured yet (a full `make clients` records them); {DEFAULTS}.",
                missing.join(", ")
            );
            out
        }
    }
}

/// The module report's profile of `client` under its recommended settings on module `m`, when
/// its recommended session was captured (a recommendation of the defaults is the client's own
/// row already).
pub(crate) fn measured_profile(client: &ClientReport, m: &ModuleProfile) -> Option<Profile> {
    let r = m.recommended.as_ref()?;
    let f = r.figures.as_ref()?;
    if r.session != RecommendedSession::Recommended {
        return None;
    }
    Some(Profile {
        profile: format!("{} (recommended: {})", client.client, r.settings),
        behaviour: format!(
            "under {}; per call: {} ({} calls of {} tools)",
            r.settings, client.per_call, m.calls, m.tools_used
        ),
        catalogue: CatalogueView::Captured,
        evidence: client.evidence(),
        catalogue_before: m.before.once,
        catalogue_after: f.once_after,
        calls: m.calls,
        per_call_before: Some(f.per_call_before),
        per_call_after: Some(f.per_call_after),
        per_call_percent: f.per_call_percent,
        break_even_calls: f.break_even_calls,
        billed_break_even_calls: f.billed_break_even_calls,
    })
}

#[cfg(test)]
#[path = "report_recommended_tests.rs"]
mod tests;
