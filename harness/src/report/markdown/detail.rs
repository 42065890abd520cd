//! The detail sections of a module report: the catalogue as context and as wire, the tools by
//! slot, the calls, every scenario, the envelope's cost and the projection.

use std::fmt::Write;

use crate::report::slots::Definition;
use crate::report::{ModuleReport, Side};
use crate::tokens::{Tokens, grouped as num};

use super::{cell, delta, delta_k, int, ours, pct, per_k, signed, tok, tok_k};

pub(super) fn catalogue_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let c = &r.catalogue;
    let m = &r.module;
    let _ = writeln!(
        out,
        "## `tools/list`: context and wire (M3)\n\n- **Context**: {}.\n- **Wire**: {}.\n\n\
| | tools | chars | chars/2.902 | o200k_base | cl100k_base |\n|---|---:|---:|---:|---:|---:|",
        c.context_measured, c.wire_measured
    );
    let pct = |p: Option<f64>| p.map_or(String::new(), |p| format!(" ({}%)", signed(p, 1)));
    for (view, before, after, d) in [
        (
            "context",
            &c.context_before,
            &c.context_after,
            &c.context_delta,
        ),
        ("wire", &c.wire_before, &c.wire_after, &c.wire_delta),
    ] {
        for (label, tools, t) in [
            ("before", c.tools_before, before),
            ("after", c.tools_after, after),
        ] {
            let _ = writeln!(
                out,
                "| {view} {label} | {tools} | {} | {} | {} | {} |",
                int(t.chars),
                tok_k(k, t),
                int(t.o200k_base),
                int(t.cl100k_base)
            );
        }
        let _ = writeln!(
            out,
            "| {view} change | | {} | {}{} | {}{} | {}{} |",
            signed(d.chars as f64, 0),
            signed(d.primary, 1),
            pct(d.percent.map(|p| p.primary)),
            signed(d.o200k_base as f64, 0),
            pct(d.percent.map(|p| p.o200k_base)),
            signed(d.cl100k_base as f64, 0),
            pct(d.percent.map(|p| p.cl100k_base)),
        );
    }
    let _ = writeln!(
        out,
        "\nEvery tool's definition summed by slot (each slot is the member with its key; the array's brackets and commas are in no slot):\n\n\
| slot | before | after | change | after o200k_base / cl100k_base |\n|---|---:|---:|---:|---:|"
    );
    let (b, a) = (&c.by_slot_before, &c.by_slot_after);
    for (slot, before, after) in [
        ("description", &b.description, &a.description),
        ("input schema", &b.input_schema, &a.input_schema),
        ("name, title, annotations, rest", &b.other, &a.other),
        (
            "output schema (wire only)",
            &b.output_schema,
            &a.output_schema,
        ),
    ] {
        let _ = writeln!(
            out,
            "| {slot} | {} | {} | {} | {} / {} |",
            tok_k(k, before),
            tok_k(k, after),
            signed(crate::tokens::round1(after.primary - before.primary), 1),
            int(after.o200k_base),
            int(after.cl100k_base)
        );
    }
    let _ = writeln!(
        out,
        "\n![{m}: tools/list by slot, before and after]({m}-catalogue.svg)\n"
    );
    let _ = writeln!(
        out,
        "### The wire difference by slot\n\nIn characters of the bytes sent (rows with no change left out). The rows sum exactly to the difference; \
BPE counts are given for the totals only, because a token can straddle two slots.\n\n| group | slot | chars | chars/2.902 |\n|---|---|---:|---:|"
    );
    for row in &c.slots {
        let group = serde_json::to_value(row.group)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| {group} | `{}` | {} | {} |",
            cell(&row.slot),
            signed(row.chars as f64, 0),
            signed(row.tokens, 1)
        );
    }
    let _ = writeln!(
        out,
        "| **sum** | | **{}** | **{}** |\n\nSum of the rows: {} chars; after minus before: {} chars.\n",
        signed(c.slot_sum_chars as f64, 0),
        signed(crate::tokens::chars_to_tokens(c.slot_sum_chars), 1),
        c.slot_sum_chars,
        c.difference_chars
    );
}

fn def_cell(d: Option<&Definition>, f: impl Fn(&Definition) -> Option<Tokens>) -> String {
    d.map_or("—".into(), |d| f(d).map_or("—".into(), |t| tok(&t)))
}

pub(super) fn tools_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let m = &r.module;
    let _ = writeln!(
        out,
        "## Per tool, worst first ({})\n\nEvery tool's definition after, ranked by its size on the wire; each slot is the member with its key, \
and `rest` is the name, title, annotations and braces, so the four add up to the wire. — means not listed (or no output schema).\n",
        k.name()
    );
    let _ = writeln!(
        out,
        "| tool | description | input schema | output schema | rest | context | wire | wire before | wire change |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for t in &r.tools {
        let a = t.after.as_ref();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.tool,
            def_cell(a, |d| Some(d.description)),
            def_cell(a, |d| Some(d.input_schema)),
            def_cell(a, |d| d.output_schema),
            def_cell(a, |d| Some(d.other)),
            def_cell(a, |d| Some(d.context)),
            def_cell(a, |d| Some(d.wire)),
            def_cell(t.before.as_ref(), |d| Some(d.wire)),
            t.wire_delta.as_ref().map_or("—".into(), |d| delta_k(k, d)),
        );
    }
    let _ = writeln!(
        out,
        "\nThe same in BPE tokens (`o200k_base` / `cl100k_base`), after:\n\n| tool | description | input schema | output schema | context | wire |\n|---|---:|---:|---:|---:|---:|"
    );
    let bpe = |t: Tokens| format!("{} / {}", int(t.o200k_base), int(t.cl100k_base));
    for t in &r.tools {
        let cell = |f: &dyn Fn(&Definition) -> Option<Tokens>| {
            t.after.as_ref().and_then(f).map_or("—".into(), bpe)
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            t.tool,
            cell(&|d| Some(d.description)),
            cell(&|d| Some(d.input_schema)),
            cell(&|d| d.output_schema),
            cell(&|d| Some(d.context)),
            cell(&|d| Some(d.wire)),
        );
    }
    let _ = writeln!(
        out,
        "\n![{m}: each tool's definition, before and after]({m}-tools.svg)\n"
    );
}

pub(super) fn calls_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let m = &r.module;
    let called: Vec<_> = r
        .tools
        .iter()
        .filter(|t| t.calls_before + t.calls_after > 0)
        .collect();
    if called.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Per tool, per call ({})\n\nMeans over every scenario of the tool measured on that side, whatever its outcome (the budget's `text_per_call`); \
the module's figure over the {} scenarios measured after: {}. A change is given only where both sides measured the same scenarios \
(a parameter the legacy tool lacks leaves some unmeasured before).\n",
        k.name(),
        r.summary.measured_after,
        per_k(k, &r.summary.text_per_call_measured_after)
    );
    let _ = writeln!(
        out,
        "| tool | scenarios before / after | text before | text after | change | structured after | text + structured after |\n|---|---:|---:|---:|---:|---:|---:|"
    );
    for t in called {
        let _ = writeln!(
            out,
            "| `{}` | {} / {} | {} | {} | {} | {} | {} |",
            t.tool,
            t.calls_before,
            t.calls_after,
            per_k(k, &t.text_per_call_before),
            per_k(k, &t.text_per_call_after),
            if t.same_scenarios {
                pct(
                    t.text_per_call_before.map(|p| k.per(&p)),
                    t.text_per_call_after.map(|p| k.per(&p)),
                )
            } else {
                "— (other scenarios)".into()
            },
            per_k(k, &t.structured_per_call_after),
            per_k(k, &t.both_per_call_after),
        );
    }
    let _ = writeln!(
        out,
        "\n![{m}: mean tokens per call of each tool]({m}-calls.svg)\n"
    );
}

fn side_cell(side: &Side, f: impl Fn(&crate::report::Measured) -> String) -> String {
    match side {
        Side::Measured(m) => f(m),
        Side::Skipped { .. } => "—".into(),
    }
}

pub(super) fn scenarios_section(out: &mut String, r: &ModuleReport) {
    let k = r.counters.headline;
    let http = ours(r);
    let (title, what) = if http {
        ("Per scenario", "scenario")
    } else {
        ("Per call", "call")
    };
    let _ = writeln!(
        out,
        "## {title} ({})\n\n`text` is `content[].text` alone, `structured` is `structuredContent` alone (absent when the server sent none), `both` is what a client that forwards both pays. {}\
— means not measured (see the notes).\n",
        k.name(),
        if http {
            "HTTP is the number of requests the replay server received for the call. "
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "| {what} | tool | expect | before text | after text | after structured | after both | change text | change both |{}\n|---|---|---|---:|---:|---:|---:|---:|---:|{}",
        if http { " HTTP before → after |" } else { "" },
        if http { "---:|" } else { "" }
    );
    let mut notes = Vec::new();
    for s in &r.scenarios {
        let (dt, db) = s.delta.as_ref().map_or(("—".into(), "—".into()), |d| {
            (delta_k(k, &d.text), delta_k(k, &d.both))
        });
        let requests =
            |m: &crate::report::Measured| m.http_requests.map_or("—".into(), |n| n.to_string());
        let _ = write!(
            out,
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} | {} |",
            cell(&s.id),
            s.tool,
            if s.expect.is_empty() {
                "—"
            } else {
                &s.expect
            },
            side_cell(&s.before, |m| tok_k(k, &m.text)),
            side_cell(&s.after, |m| tok_k(k, &m.text)),
            side_cell(&s.after, |m| m.structured.as_ref().map_or("—".into(), tok)),
            side_cell(&s.after, |m| tok_k(k, &m.both)),
            dt,
            db,
        );
        if http {
            let _ = write!(
                out,
                " {} → {} |",
                side_cell(&s.before, requests),
                side_cell(&s.after, requests),
            );
        }
        out.push('\n');
        for (side, which) in [(&s.before, "before"), (&s.after, "after")] {
            if let Side::Skipped { skipped } = side {
                notes.push(format!("- `{}` {which}: {skipped}.", s.id));
            }
        }
    }
    let _ = writeln!(
        out,
        "\nThe same in BPE tokens (`o200k_base` / `cl100k_base`):\n\n| {what} | before text | after text | after structured | after both |\n|---|---:|---:|---:|---:|"
    );
    let bpe = |t: &Tokens| format!("{} / {}", int(t.o200k_base), int(t.cl100k_base));
    for s in &r.scenarios {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            cell(&s.id),
            side_cell(&s.before, |m| bpe(&m.text)),
            side_cell(&s.after, |m| bpe(&m.text)),
            side_cell(&s.after, |m| m.structured.as_ref().map_or("—".into(), bpe)),
            side_cell(&s.after, |m| bpe(&m.both)),
        );
    }
    let _ = writeln!(out, "\nArguments:\n");
    for s in &r.scenarios {
        let env = if s.env.is_empty() {
            String::new()
        } else {
            format!(
                " with {}",
                s.env
                    .iter()
                    .map(|(k, v)| format!("`{k}={v}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let _ = writeln!(
            out,
            "- `{}`: `{}` `{}`{env}",
            s.id,
            s.tool,
            serde_json::to_string(&s.arguments).unwrap_or_default()
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n\n{}", notes.join("\n"));
    }
    out.push('\n');
}

pub(super) fn envelope_section(out: &mut String, r: &ModuleReport) {
    let Some(e) = &r.envelope else {
        return;
    };
    let _ = writeln!(
        out,
        "## The envelope: fixed cost per response (characters)\n\nOver the {} migrated responses of this module (results and C16 errors). \
Each slot is priced with its key and comma; `framing` is the braces and the `data` (or `error`) key. Characters add up; BPE tokens do not, so slots are in characters.\n",
        e.responses
    );
    let _ = writeln!(
        out,
        "| slot | responses carrying it | mean chars | min | max |\n|---|---:|---:|---:|---:|"
    );
    for s in &e.slots {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            s.slot,
            s.responses,
            num(s.mean_chars, 1),
            int(s.min_chars),
            int(s.max_chars)
        );
    }
    if let (Some(chars), Some(tokens)) = (e.mean_overhead_chars, e.mean_overhead_tokens) {
        let _ = writeln!(
            out,
            "\nMean envelope overhead: {} chars = {} tokens (chars/2.902) per response, {}% of the structured payload; a client that forwards both pays it twice.\n",
            num(chars, 1),
            num(tokens, 1),
            e.overhead_percent.map_or("n/a".into(), |p| num(p, 1))
        );
    } else {
        out.push('\n');
    }
}

pub(super) fn projection_section(out: &mut String, r: &ModuleReport) {
    let Some(p) = &r.projection else {
        return;
    };
    let _ = writeln!(
        out,
        "## Projection: `fields` against the N+1 path\n\nBefore: `{}` in legacy mode (minimal rows) plus one legacy `{}` per entry it returned (the ids read from the list's text), as an agent did before `fields`. \
After: one migrated `{}` per page with `fields: {}`. Space {}. HTTP requests are those the replay server received.\n",
        p.tool,
        p.get_tool,
        p.tool,
        serde_json::to_string(&p.fields).unwrap_or_default(),
        p.space
    );
    let _ = writeln!(
        out,
        "| case | path | calls | HTTP requests | text (chars/2.902) | structured | text + structured | text per entry | text o200k_base / cl100k_base |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for c in &p.cases {
        let b = &c.before;
        let a = &c.after;
        let _ = writeln!(
            out,
            "| {} | N+1 (legacy) | {} | {} | {} | — | {} | {} | {} / {} |",
            c.case,
            b.calls,
            b.http_requests,
            tok(&b.text),
            tok(&b.text),
            num(b.per_entry.primary, 1),
            int(b.text.o200k_base),
            int(b.text.cl100k_base)
        );
        let _ = writeln!(
            out,
            "| {} | `fields`, {} page(s) of {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            c.case,
            c.pages,
            c.per_page,
            a.calls,
            a.http_requests,
            tok(&a.text),
            tok(&a.structured),
            tok(&a.both),
            num(a.per_entry.primary, 1),
            int(a.text.o200k_base),
            int(a.text.cl100k_base)
        );
        let _ = writeln!(
            out,
            "| {} | change | | | {} | | {} | | |",
            c.case,
            delta(&c.delta_text),
            delta(&c.delta_both)
        );
    }
    let _ = writeln!(
        out,
        "\nCalibration: the legacy figures the pilot fixture was built to weigh (the field case, issue 2), measured through the server.\n\n| figure | measured chars/2.902 | o200k_base | cl100k_base | field case chars/2.902 | off |\n|---|---:|---:|---:|---:|---:|"
    );
    for c in &p.calibration {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {}% |",
            c.figure,
            tok(&c.measured),
            int(c.measured.o200k_base),
            int(c.measured.cl100k_base),
            num(c.field_case, 0),
            signed(c.off_percent, 1)
        );
    }
    out.push('\n');
}
