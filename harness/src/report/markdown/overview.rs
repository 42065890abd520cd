//! The opening sections of a module report: the summary (before and after, by outcome, the
//! counters' disagreements), the client profiles and their break-even, and the budget.

use std::fmt::Write;

use crate::report::budget::{Budget, Usage};
use crate::report::{Evidence, ModuleReport};
use crate::tokens::{Counter, PerUnit, Tokens, grouped as num};

use super::{calls, cell, delta_k, int, ours, pct, per_k, signed, tok_k};

pub(super) fn summary_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let s = &r.summary;
    let c = &r.catalogue;
    let _ = writeln!(out, "## Summary ({})\n", k.name());
    let _ = writeln!(
        out,
        "| figure | before | after | change |\n|---|---:|---:|---:|"
    );
    let _ = writeln!(
        out,
        "| catalogue in **context** ({} → {} tools; once per session, output schemas dropped) | {} | {} | {} |",
        c.tools_before,
        c.tools_after,
        tok_k(k, &c.context_before),
        tok_k(k, &c.context_after),
        delta_k(k, &c.context_delta)
    );
    let _ = writeln!(
        out,
        "| catalogue on the **wire** (the `tools` array as sent) | {} | {} | {} |",
        tok_k(k, &c.wire_before),
        tok_k(k, &c.wire_after),
        delta_k(k, &c.wire_delta)
    );
    let per_tool = |t: &crate::report::SlotTotals| t.output_schema_per_tool.map(|p| k.per(&p));
    let _ = writeln!(
        out,
        "| **output schema per tool** (wire only; {} of {} tools publish one after) | {} | {} | {} |",
        c.by_slot_after.tools_with_output_schema,
        c.tools_after,
        per_tool(&c.by_slot_before).map_or("n/a".into(), |v| num(v, 1)),
        per_tool(&c.by_slot_after).map_or("n/a".into(), |v| num(v, 1)),
        match (per_tool(&c.by_slot_before), per_tool(&c.by_slot_after)) {
            (Some(b), Some(a)) => signed(crate::tokens::round1(a - b), 1),
            _ => "n/a".into(),
        }
    );
    for (what, before, after) in [
        (
            "server **instructions** (`initialize`; a client that forwards them sends them in every request)",
            c.extras_before.instructions,
            c.extras_after.instructions,
        ),
        (
            "**prompts** list (`prompts/list`)",
            c.extras_before.prompts,
            c.extras_after.prompts,
        ),
        (
            "**resources** list (`resources/list`)",
            c.extras_before.resources,
            c.extras_after.resources,
        ),
    ] {
        if before.is_none() && after.is_none() {
            continue;
        }
        let shown = |t: Option<Tokens>| t.map_or("none".into(), |t| tok_k(k, &t));
        let change = match (before, after) {
            (Some(b), Some(a)) => signed(k.tokens(&a) - k.tokens(&b), 1),
            _ => "n/a".into(),
        };
        let _ = writeln!(
            out,
            "| {what} | {} | {} | {change} |",
            shown(before),
            shown(after)
        );
    }
    for row in &s.by_outcome {
        let what = match row.outcome.as_str() {
            "success" => format!(
                "mean `content[].text` per call, **successes** ({} scenarios that succeed on both sides)",
                row.calls
            ),
            "error" => format!(
                "mean `content[].text` per call, **errors** ({} scenarios that fail on both sides)",
                row.calls
            ),
            "control" => format!(
                "mean `content[].text` per call, **refusals** (`control` after; {} scenarios)",
                row.calls
            ),
            _ => format!(
                "mean `content[].text` per call, **all calls** ({} scenarios measured on both sides, whatever the outcome; what the profiles price)",
                row.calls
            ),
        };
        per_call_row(out, k, &what, &row.text_before, &row.text_after);
    }
    if s.by_outcome.is_empty() {
        let what = format!(
            "mean `content[].text` per call ({} scenarios measured on both sides with outcome success)",
            s.comparable_calls
        );
        per_call_row(
            out,
            k,
            &what,
            &s.text_per_call_before,
            &s.text_per_call_after,
        );
    }
    let _ = writeln!(
        out,
        "| mean per call after, every scenario measured after ({}, whatever the outcome; the budget's `text_per_call`) | — | {} | — |",
        s.measured_after,
        per_k(k, &s.text_per_call_measured_after),
    );
    per_call_row(
        out,
        k,
        "mean per call, successes, a client forwarding text and structuredContent",
        &s.text_per_call_before,
        &s.both_per_call_after,
    );
    if let Some(p) = &r.projection
        && let Some(all) = p.cases.last()
    {
        let _ = writeln!(
            out,
            "| projection, {} (N+1 path vs `fields`, text) | {} | {} | {} |",
            all.case,
            tok_k(k, &all.before.text),
            tok_k(k, &all.after.text),
            delta_k(k, &all.delta_text)
        );
    }
    let disagree = sign_disagreements(r);
    if !disagree.is_empty() {
        let _ = writeln!(
            out,
            "\n**The counters disagree on the sign of a change**, so read these with the counter that matches your model: {}.",
            disagree.join("; ")
        );
    }
    let _ = writeln!(
        out,
        "\nBreak-even per client profile, over every call measured on both sides: **billed input** counts what the client sends, summed over a session's requests \
(every request re-sends the catalogue and every result so far, so a session of n calls bills (n + 1) catalogues and n(n + 1)/2 mean results); \
**final context** is what the model's context ends with (one catalogue, n results). Each is the number of calls after which the session after costs less.\n\n\
| profile | catalogue it prices | basis | break-even by billed input, calls | by final context, calls |\n|---|---|---|---:|---:|"
    );
    for p in &r.profiles {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | **{}** | {} |",
            p.profile,
            p.catalogue.label(),
            p.evidence.label(),
            calls(p.billed_break_even_calls.under(k)),
            calls(p.break_even_calls.under(k))
        );
    }
    let m = &r.module;
    let _ = writeln!(
        out,
        "\n![{m}: session cost against calls, per profile]({m}-session.svg)\n"
    );
}

/// A `| what | before | after | change |` row of two per-call means, by the counter `k`.
fn per_call_row(
    out: &mut String,
    k: Counter,
    what: &str,
    before: &Option<PerUnit>,
    after: &Option<PerUnit>,
) {
    let _ = writeln!(
        out,
        "| {what} | {} | {} | {} |",
        per_k(k, before),
        per_k(k, after),
        pct(before.map(|p| k.per(&p)), after.map(|p| k.per(&p)))
    );
}

/// The headline changes whose sign differs between the counters, each with its three figures.
fn sign_disagreements(r: &ModuleReport) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, changes: [f64; 3]| {
        let positive = changes.iter().filter(|c| **c > 0.0).count();
        let negative = changes.iter().filter(|c| **c < 0.0).count();
        if positive > 0 && negative > 0 {
            out.push(format!(
                "{what} (chars/2.902 {}, o200k_base {}, cl100k_base {})",
                signed(changes[0], 1),
                signed(changes[1], 1),
                signed(changes[2], 1)
            ));
        }
    };
    let c = &r.catalogue;
    for (what, d) in [
        ("catalogue in context", &c.context_delta),
        ("catalogue on the wire", &c.wire_delta),
    ] {
        check(what, Counter::ALL.map(|k| k.delta(d)));
    }
    for row in &r.summary.by_outcome {
        if let (Some(b), Some(a)) = (row.text_before, row.text_after) {
            check(
                &format!("mean text per call, {}", row.outcome),
                Counter::ALL.map(|k| k.per(&a) - k.per(&b)),
            );
        }
    }
    for p in &r.profiles {
        if let (Some(b), Some(a)) = (p.per_call_before, p.per_call_after) {
            check(
                &format!("per call under the `{}` profile", p.profile),
                Counter::ALL.map(|k| k.per(&a) - k.per(&b)),
            );
        }
    }
    out
}

pub(super) fn profiles_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let _ = writeln!(
        out,
        "## Per-client profiles\n\nWhat a session costs under each client behaviour. The catalogue, in the view the profile names, is in every request; \
the per-call figure is the mean over the {} scenarios measured on both sides, whatever their outcome (errors and refusals are turns too). \
Break-even is the number of calls after which the session after costs less (never: the calls after are not cheaper): by billed input \
(summed over the session's requests), then by final context.\n\n\
An `assumed` profile prices a behaviour on the catalogue view it names (`context`: no output schemas; `wire`: the tools array as sent).{}\n",
        r.profiles.first().map_or(0, |p| p.calls),
        if ours(r) {
            " A `measured` profile comes from running that client (`make clients`, [clients.md](clients.md)): its catalogue is `captured`, what the client put in the model's context from our server \
(for Claude Code: the deferred tool names, our instructions and the definitions of the tools the session used, without output schema), its per-call figure the results as it forwarded them, \
over that session's calls."
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "| profile | behaviour | catalogue | basis | catalogue before → after ({0}) | per call before → after ({0}) | change per call ({0}) | break-even by billed input (chars/2.902 / o200k_base / cl100k_base) | by final context |\n|---|---|---|---|---:|---:|---:|---:|---:|",
        k.name()
    );
    let short = |n: Option<u64>| n.map_or("never".into(), int);
    for p in &r.profiles {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} → {} | {} → {} | {} | {} / {} / {} | {} / {} / {} |",
            p.profile,
            cell(&p.behaviour),
            p.catalogue.label(),
            cell(&p.evidence.label()),
            tok_k(k, &p.catalogue_before),
            tok_k(k, &p.catalogue_after),
            per_k(k, &p.per_call_before),
            per_k(k, &p.per_call_after),
            p.per_call_percent
                .map_or("n/a".into(), |x| format!("{}%", signed(x, 1))),
            short(p.billed_break_even_calls.under(k)),
            short(p.billed_break_even_calls.o200k_base),
            short(p.billed_break_even_calls.cl100k_base),
            short(p.break_even_calls.under(k)),
            short(p.break_even_calls.o200k_base),
            short(p.break_even_calls.cl100k_base),
        );
    }
    let _ = writeln!(out, "\nWhat each profile rests on:\n");
    for p in &r.profiles {
        let basis = match &p.evidence {
            // Our reports point at the measurements; another server's points at no file of ours.
            Evidence::Assumed { modelled_on } if ours(r) && modelled_on.contains("measured") => {
                format!("assumed; {modelled_on} ([clients.md](clients.md))")
            }
            Evidence::Assumed { modelled_on } => format!("assumed; {modelled_on}"),
            other => other.label(),
        };
        let _ = writeln!(out, "- `{}`: {basis}.", p.profile);
    }
    out.push('\n');
}

/// A limit's use in percent; a limit of zero is no share of anything: `over a limit of 0`.
fn used(u: &Usage) -> String {
    if u.limit > 0.0 {
        format!("{}%", num(u.percent(), 1))
    } else if u.measured > 0.0 {
        "over a limit of 0".into()
    } else {
        "0%".into()
    }
}

pub(super) fn budget_section(out: &mut String, r: &ModuleReport, budget: &Budget) {
    let usage = budget.usage(r);
    if usage.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Budget\n\nThe limits set in the budget file (tokens, chars/2.902), which `modyo-lab measure --check` and `make test` hold every measurement to. \
The module's figures, then the ten tool figures closest to their limit. Its `mean text per call` averages every scenario measured after, \
whatever the outcome ({} for the module), so it differs from the summary's per-outcome rows, which average only scenarios measured on both sides.\n",
        r.summary.measured_after
    );
    let _ = writeln!(
        out,
        "| where | figure | measured | limit | used |\n|---|---|---:|---:|---:|"
    );
    let row = |out: &mut String, u: &Usage| {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            match &u.place.tool {
                Some(tool) => format!("`{tool}`"),
                None => "module".into(),
            },
            u.figure.label(),
            num(u.measured, 1),
            num(u.limit, 1),
            used(u)
        );
    };
    for u in usage.iter().filter(|u| u.place.tool.is_none()) {
        row(out, u);
    }
    let mut tools: Vec<&Usage> = usage.iter().filter(|u| u.place.tool.is_some()).collect();
    tools.sort_by(|a, b| {
        b.percent()
            .total_cmp(&a.percent())
            .then_with(|| a.place.cmp(&b.place))
            .then_with(|| a.figure.cmp(&b.figure))
    });
    for u in tools.iter().take(10) {
        row(out, u);
    }
    out.push('\n');
}
