//! The budget ([`crate::report::budget`]) held to a report as `compare` builds it: overruns,
//! missing and stale limits, the output schema per tool, lowering.

use std::collections::BTreeMap;

use super::compare::sample;
use crate::report::budget::{Budget, Figure, Limits, ModuleBudget, Place};

#[test]
fn the_check_finds_overruns_missing_limits_and_stale_ones() {
    let report = sample();
    let reports = std::slice::from_ref(&report);
    let mut budget = Budget::from_reports(reports, 0.0);
    assert_eq!(budget.check(reports, true), vec![], "a fresh budget holds");
    let m = budget.modules.get_mut("m").unwrap();
    // `b` is never called: it has catalogue limits only.
    assert_eq!(m.tools["b"].text_per_call, None);
    assert!(m.tools["a"].text_per_call.is_some());
    m.tools.get_mut("a").unwrap().catalogue_context = Some(1.0);
    m.tools.get_mut("b").unwrap().text_per_call = Some(10.0);
    m.tools.insert("gone".into(), Limits::default());
    m.module.catalogue_wire = Some(0.0);
    let found: Vec<String> = budget
        .check(reports, true)
        .iter()
        .map(ToString::to_string)
        .collect();
    let has = |start: &str| found.iter().any(|f| f.starts_with(start));
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(has("a: catalogue context is"), "{found:#?}");
    assert!(has(
        "b: the budget limits its mean text per call but nothing measured it"
    ));
    assert!(has("gone: in the budget but not measured"), "{found:#?}");
    assert!(has("module m: catalogue wire is"), "{found:#?}");
    let m = budget.modules.get_mut("m").unwrap();
    m.tools.remove("a");
    assert!(budget.check(reports, true).iter().any(|f| {
        f.to_string()
            .starts_with("a: measured but not in the budget")
    }));
    budget
        .modules
        .insert("other".into(), budget.modules["m"].clone());
    assert!(budget.check(reports, true).iter().any(
        |f| f.to_string() == "module other: in the budget but not measured (remove its entry)"
    ));
    assert!(
        !budget
            .check(reports, false)
            .iter()
            .any(|f| f.to_string().contains("other"))
    );
}

#[test]
fn the_output_schema_per_tool_is_held_per_tool_per_module_and_over_every_module() {
    let report = sample();
    let reports = std::slice::from_ref(&report);
    let mut budget = Budget::from_reports(reports, 0.0);
    let all = budget.all_modules.and_then(|l| l.output_schema_per_tool);
    let module = budget.modules["m"].module.output_schema_per_tool;
    assert!(all.is_some() && all == module, "{all:?} {module:?}");
    assert_eq!(budget.check(reports, true), vec![]);
    budget.all_modules = Some(Limits {
        output_schema_per_tool: Some(1.0),
        ..Limits::default()
    });
    let found: Vec<String> = budget
        .check(reports, true)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("all modules: output schema per tool is")
            && found[0].contains("over its budget of 1 by"),
        "{found:#?}"
    );
    assert_eq!(
        budget.check(reports, false),
        vec![],
        "every module together is held on a full run only"
    );
    let tool = budget
        .modules
        .get_mut("m")
        .unwrap()
        .tools
        .get_mut("a")
        .unwrap();
    tool.output_schema_per_tool = tool.output_schema_per_tool.map(|l| l - 1.0);
    assert!(
        budget
            .check(reports, false)
            .iter()
            .any(|f| f.to_string().starts_with("a: output schema per tool is"))
    );
}

#[test]
fn lowering_tightens_limits_above_the_figures_and_never_raises_or_adds_one() {
    let report = sample();
    let reports = std::slice::from_ref(&report);
    let exact = Budget::from_reports(reports, 0.0);
    let mut budget = exact.clone();
    let m = budget.modules.get_mut("m").unwrap();
    // Too loose: lowered to the figure. Too tight: kept, over budget still.
    m.tools.get_mut("a").unwrap().catalogue_context = Some(1_000_000.0);
    m.tools.get_mut("a").unwrap().catalogue_wire = Some(1.0);
    // No limit: none added.
    m.tools.get_mut("a").unwrap().text_per_call = None;
    // An unmeasured module keeps its limits.
    let other = ModuleBudget {
        module: Limits {
            catalogue_context: Some(7.0),
            ..Limits::default()
        },
        tools: BTreeMap::new(),
    };
    budget.modules.insert("other".into(), other.clone());
    budget.all_modules = Some(Limits {
        output_schema_per_tool: Some(1_000_000.0),
        ..Limits::default()
    });

    let lowering = budget.lower(reports, 0.0, true);

    let m = &budget.modules["m"];
    let a = exact.modules["m"].tools["a"];
    assert_eq!(m.tools["a"].catalogue_context, a.catalogue_context);
    assert_eq!(m.tools["a"].catalogue_wire, Some(1.0));
    assert_eq!(m.tools["a"].text_per_call, None);
    assert_eq!(budget.modules["other"], other);
    assert_eq!(budget.all_modules, exact.all_modules);
    let lowered: Vec<String> = lowering.lowered.iter().map(ToString::to_string).collect();
    assert_eq!(lowered.len(), 2, "{lowered:#?}");
    assert!(lowered[0].starts_with("a: catalogue context 1,000,000 -> "));
    assert!(lowered[1].starts_with("all modules: output schema per tool 1,000,000 -> "));
    assert_eq!(
        lowering.unbudgeted,
        [(
            Place {
                module: "m".into(),
                tool: Some("a".into())
            },
            Figure::TextPerCall
        )]
    );
    // Every limit that was not lowered was kept (the module's own, `a`'s wire, `b`'s...).
    assert!(lowering.kept > 0);
    // With headroom the candidate is the figure plus headroom; lowering again changes nothing.
    let mut again = budget.clone();
    assert!(again.lower(reports, 10.0, true).lowered.is_empty());
    assert_eq!(again, budget);
    // Not a full run: every module together is left alone.
    let mut partial = exact.clone();
    partial.all_modules = Some(Limits {
        output_schema_per_tool: Some(1_000_000.0),
        ..Limits::default()
    });
    assert!(partial.lower(reports, 0.0, false).lowered.is_empty());
}
