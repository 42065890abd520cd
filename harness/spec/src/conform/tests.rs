//! The conformance of interactions to small surfaces: every kind of contradiction and warning.

use super::*;
use crate::SourceProvenance;

fn op(method: &str, path: &str, params: &[(&str, Shape)]) -> Operation {
    Operation {
        method: method.into(),
        path: path.into(),
        path_params: params
            .iter()
            .map(|(n, s)| ((*n).to_owned(), s.clone()))
            .collect(),
        query: BTreeMap::new(),
        form: BTreeMap::new(),
        unlocated: BTreeMap::new(),
        body: None,
        required: crate::surface::Required::default(),
        responses: BTreeMap::from([("200".to_owned(), None)]),
    }
}

fn surfaces() -> Surfaces {
    Surfaces::new(vec![Surface::new(
        "admin",
        "Admin",
        "1",
        "/api/admin",
        SourceProvenance::default(),
        vec![
            op(
                "GET",
                "/customers/{realm_uid}/targets",
                &[("realm_uid", Shape::String)],
            ),
            op("GET", "/sites/{site_id}", &[("site_id", Shape::Integer)]),
        ],
    )])
    .expect("indexes")
}

fn written(value: serde_json::Value) -> Shape {
    Shape::from_value(&value).expect("a shape")
}

/// `GET /sites` with an enumerated `status` filter and answer, `POST /reports` with an
/// enumerated body key.
fn enumerated() -> Surface {
    let mut list = op("GET", "/sites", &[]);
    list.query.insert(
        "status".into(),
        written(serde_json::json!({"string": ["enabled", "draft"]})),
    );
    list.responses.insert(
        "200".into(),
        Some(written(serde_json::json!({"object": {"sites": {"array": {
            "object": {"status": {"string": ["enabled", "draft"]}}
        }}}}))),
    );
    let mut report = op("POST", "/reports", &[]);
    report.body = Some(written(
        serde_json::json!({"object": {"file_type": {"string": ["CSV", "XLSX"]}}}),
    ));
    Surface::new(
        "admin",
        "Admin",
        "1",
        "/api/admin",
        SourceProvenance::default(),
        vec![list, report],
    )
}

fn sites(status: &str, answered: &str) -> Interaction {
    Interaction::get("/api/admin/sites")
        .query("status", status)
        .respond(200, serde_json::json!({"sites": [{"status": answered}]}))
}

fn findings(judgement: &Judgement) -> Vec<(Kind, &str, &str)> {
    judgement
        .contradictions
        .iter()
        .map(|f| (f.kind, f.subject.as_str(), f.detail.as_str()))
        .collect()
}

#[test]
fn a_value_outside_a_documented_enumeration_is_a_contradiction() {
    let s = Surfaces::new(vec![enumerated()]).expect("indexes");
    let judge = |i: &Interaction| s.judge(i, &[], false);
    assert!(judge(&sites("draft", "enabled")).contradictions.is_empty());
    assert_eq!(
        findings(&judge(&sites("staging", "archived"))),
        [
            (
                Kind::QueryType,
                "status",
                "'staging' is not a documented value (enabled, draft)"
            ),
            (
                Kind::ResponseType,
                "$.sites[].status",
                "answered 'archived', not a documented value (enabled, draft)"
            ),
        ]
    );
    let report = |file_type: &str| {
        Interaction::post("/api/admin/reports")
            .body(serde_json::json!({"file_type": file_type}))
            .respond(201, serde_json::json!({}))
    };
    let created = judge(&report("CSV"));
    assert!(
        created
            .contradictions
            .iter()
            .all(|f| f.kind == Kind::Status),
        "{created:?}"
    );
    assert!(findings(&judge(&report("PDF"))).contains(&(
        Kind::BodyType,
        "$.file_type",
        "sent 'PDF', not a documented value (CSV, XLSX)"
    )));
}

#[test]
fn an_erratum_with_evidence_adds_a_value_to_an_enumeration_and_no_other() {
    use crate::errata::{Erratum, Evidence, Part, Place};
    const STAGING: Erratum = Erratum {
        name: "staging",
        subject: "paths./sites.get.parameters.status",
        places: &[Place {
            api: "admin",
            operation: "GET /sites",
            part: Part::Query,
            at: "status",
        }],
        declared: Some(r#"{"string": ["enabled", "draft"]}"#),
        corrected: r#"{"string": ["enabled", "draft", "staging"]}"#,
        evidence: &[Evidence::Source {
            source: "@modyo/cli@3.6.2:lib/push/get-modyo-site-id.js",
            shows: "the CLI sends status=staging",
        }],
        reason: "the vendor's client sends it",
    };
    let s = Surfaces::with_errata(vec![enumerated()], &[STAGING]).expect("indexes");
    assert!(s.refused().is_empty(), "{:?}", s.refused());
    assert!(
        s.judge(&sites("staging", "draft"), &[], false)
            .contradictions
            .is_empty()
    );
    assert_eq!(
        findings(&s.judge(&sites("archived", "draft"), &[], false)),
        [(
            Kind::QueryType,
            "status",
            "'archived' is not a documented value (enabled, draft, staging)"
        )]
    );
    // An erratum that expects another declaration is stale, and refused.
    let stale = Erratum {
        declared: Some(r#"{"string": ["enabled"]}"#),
        ..STAGING
    };
    let s = Surfaces::with_errata(vec![enumerated()], &[stale]).expect("indexes");
    assert_eq!(s.refused().len(), 1);
    assert_eq!(
        findings(&s.judge(&sites("staging", "draft"), &[], false)).len(),
        1
    );
}

#[test]
fn unknown_paths_are_generalized_with_the_documented_variable_names() {
    let s = surfaces();
    let general = |p: &str| s.generalize(&template::segments(p));
    assert_eq!(
        general("/api/admin/customers/personas/segments"),
        "/api/admin/customers/{realm_uid}/segments"
    );
    assert_eq!(
        general("/api/admin/sites/12/pages/102"),
        "/api/admin/sites/{site_id}/pages/{id}"
    );
    assert_eq!(
        general("/api/admin/background_jobs/9ae2dfeb-5f2e-5885-87ec-0c687d178057"),
        "/api/admin/background_jobs/{id}"
    );
    assert_eq!(general("/api/admin/admin_users"), "/api/admin/admin_users");
    assert_eq!(general("/"), "/");
}

#[test]
fn a_mark_is_refused_where_a_documented_operation_would_answer() {
    let s = surfaces();
    let mark = |m: &str, p: &str| Undocumented::new(m, p, modyo_replay::cassette::Evidence::None);
    assert_eq!(
        s.documents_mark(&mark("GET", "/api/admin/sites/{id}"))
            .as_deref(),
        Some("GET /api/admin/sites/{site_id}")
    );
    assert_eq!(
        s.documents_mark(&mark("GET", "/api/admin/sites/12"))
            .as_deref(),
        Some("GET /api/admin/sites/{site_id}")
    );
    // `locks` is no site id, another method is another endpoint, a longer path too.
    assert_eq!(
        s.documents_mark(&mark("GET", "/api/admin/sites/locks")),
        None
    );
    assert_eq!(
        s.documents_mark(&mark("DELETE", "/api/admin/sites/{id}")),
        None
    );
    assert_eq!(
        s.documents_mark(&mark("GET", "/api/admin/sites/{id}/locks")),
        None
    );
}
