//! A module report as a reviewer reads a change to it: one line per headline figure, per
//! profile and per tool, every number of the primary counter with one decimal (the catalogue
//! also in `o200k_base`). The snapshot tests hold this text, so a change to one tool moves its
//! own line and the module's totals, a few lines in all; the per-scenario data stays in the
//! committed `reports/<module>.json`, which a test holds to a rebuild.

use std::fmt::Write as _;

use super::{ModuleReport, Profile, ToolReport};
use crate::tokens::{PerUnit, Tokens};

fn t(x: &Tokens) -> String {
    format!("{:.1}", x.primary)
}

fn p(x: &Option<PerUnit>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}", x.primary))
}

fn calls(n: Option<u64>) -> String {
    n.map_or("never".into(), |n| n.to_string())
}

fn profile_line(profile: &Profile) -> String {
    format!(
        "profile {} ({}, {}): catalogue {} -> {}, per call {} -> {}, break-even billed {} / final {}",
        profile.profile,
        profile.catalogue.label(),
        profile.evidence.label(),
        t(&profile.catalogue_before),
        t(&profile.catalogue_after),
        p(&profile.per_call_before),
        p(&profile.per_call_after),
        calls(profile.billed_break_even_calls.primary),
        calls(profile.break_even_calls.primary),
    )
}

fn tool_line(tool: &ToolReport) -> String {
    let wire = |d: &Option<super::slots::Definition>| d.as_ref().map_or("-".into(), |d| t(&d.wire));
    let schema = tool
        .after
        .as_ref()
        .and_then(|d| d.output_schema)
        .map_or("-".into(), |s| t(&s));
    format!(
        "tool {}: wire {} -> {} (output schema {}), calls {}/{}, text {} -> {}{}",
        tool.tool,
        wire(&tool.before),
        wire(&tool.after),
        schema,
        tool.calls_before,
        tool.calls_after,
        p(&tool.text_per_call_before),
        p(&tool.text_per_call_after),
        if tool.same_scenarios {
            ""
        } else {
            " (other scenarios)"
        }
    )
}

/// The reviewer's view of `report`.
pub fn review(report: &ModuleReport) -> String {
    let s = &report.summary;
    let c = &report.catalogue;
    let mut out = format!(
        "module {} ({} tools, {} scenarios; {} unless named)\n",
        report.module, s.tools, s.scenarios, report.counters.primary
    );
    let _ = writeln!(
        out,
        "catalogue context {} -> {}, wire {} -> {}; o200k_base context {} -> {}, wire {} -> {}",
        t(&c.context_before),
        t(&c.context_after),
        t(&c.wire_before),
        t(&c.wire_after),
        c.context_before.o200k_base,
        c.context_after.o200k_base,
        c.wire_before.o200k_base,
        c.wire_after.o200k_base,
    );
    let _ = writeln!(
        out,
        "output schema per tool {} -> {}",
        p(&c.by_slot_before.output_schema_per_tool),
        p(&c.by_slot_after.output_schema_per_tool)
    );
    for (what, before, after) in [
        (
            "instructions",
            c.extras_before.instructions,
            c.extras_after.instructions,
        ),
        ("prompts", c.extras_before.prompts, c.extras_after.prompts),
        (
            "resources",
            c.extras_before.resources,
            c.extras_after.resources,
        ),
    ] {
        if before.is_some() || after.is_some() {
            let shown = |x: Option<Tokens>| x.map_or("-".into(), |x| t(&x));
            let _ = writeln!(out, "{what} {} -> {}", shown(before), shown(after));
        }
    }
    for row in &s.by_outcome {
        let _ = writeln!(
            out,
            "per call {} ({}): {} -> {}",
            row.outcome,
            row.calls,
            p(&row.text_before),
            p(&row.text_after)
        );
    }
    let _ = writeln!(
        out,
        "per call after, every scenario ({}): {}",
        s.measured_after,
        p(&s.text_per_call_measured_after)
    );
    if let Some(projection) = &report.projection {
        for case in &projection.cases {
            let _ = writeln!(
                out,
                "projection {}: {} -> {}",
                case.case,
                t(&case.before.text),
                t(&case.after.text)
            );
        }
    }
    for profile in &report.profiles {
        out.push_str(&profile_line(profile));
        out.push('\n');
    }
    for tool in &report.tools {
        out.push_str(&tool_line(tool));
        out.push('\n');
    }
    out
}
