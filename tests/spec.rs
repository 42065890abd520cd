//! The API surface and every cassette held to it: `spec import` byte for byte on documents
//! written for the purpose, the committed surfaces canonical (and regenerated from Modyo's
//! published documents when a local copy is at hand), each kind of contradiction caught on
//! small cassettes, undocumented endpoints and their evidence, the shrink-only list, the
//! workspace's cassettes checked, `spec pull` against a local fake account, and the committed
//! API coverage report equal to a regeneration.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use modyo_lab::lifecycle::{self, CheckOptions, ProblemKind};
use modyo_lab::spec::coverage;
use modyo_replay::cassette::{Evidence, Undocumented};
use modyo_replay::{Cassette, Interaction, Provenance, RecordedResponse};
use modyo_spec::check::{self, Standing};
use modyo_spec::conform::{Kind, ResponseHeld, WarningKind};
use modyo_spec::errata::{Erratum, Evidence as ErratumEvidence, Part, Place as ErratumPlace};
use modyo_spec::import::{ImportInput, import};
use modyo_spec::known::{KNOWN_CONTRADICTIONS, Known};
use modyo_spec::pull::{self, PullOptions};
use modyo_spec::source::{self, FileCheck, Source};
use modyo_spec::{SourceProvenance, Surface, Surfaces};
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::util::{lab_binary, workspace};

fn fixtures() -> PathBuf {
    workspace().join("tests/fixtures/spec")
}

/// Imports a fixture document the way `spec import --source file --date 2026-11-29` does.
fn import_fixture(file: &str, api: &str) -> Surface {
    let bytes = std::fs::read(fixtures().join(file)).expect("fixture");
    import(ImportInput {
        api,
        bytes: &bytes,
        provenance: SourceProvenance {
            source: "file".into(),
            path: file.into(),
            date: Some("2026-11-29".into()),
            ..SourceProvenance::default()
        },
    })
    .expect("imports")
}

fn library() -> Surfaces {
    Surfaces::new(vec![import_fixture("library-swagger.json", "library")]).expect("indexes")
}

// ---------------------------------------------------------------------------------------
// Import

#[test]
fn import_writes_a_swagger_2_document_byte_for_byte() {
    // Arrange
    let expected =
        std::fs::read_to_string(fixtures().join("library.expected.json")).expect("golden");

    // Act
    let text = import_fixture("library-swagger.json", "library").to_json();

    // Assert
    assert_eq!(text, expected);
    assert!(
        !text.contains("Prose") && !text.contains("Rayuela") && !text.contains("title is missing")
    );
}

#[test]
fn import_writes_an_openapi_3_document_byte_for_byte() {
    let expected = std::fs::read_to_string(fixtures().join("shop.expected.json")).expect("golden");

    let text = import_fixture("shop-openapi.json", "shop").to_json();

    assert_eq!(text, expected);
    assert!(
        !text.contains("Prose") && !text.contains("session"),
        "cookies are not kept"
    );
}

#[test]
fn the_command_line_import_writes_the_same_bytes_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = || {
        let output = std::process::Command::new(lab_binary())
            .args([
                "spec",
                "import",
                "--source",
                "file",
                "--date",
                "2026-11-29",
                "--out",
            ])
            .arg(dir.path())
            .arg(fixtures().join("library-swagger.json"))
            .arg(fixtures().join("shop-openapi.json"))
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        (
            std::fs::read(dir.path().join("library.json")).expect("library"),
            std::fs::read(dir.path().join("shop.json")).expect("shop"),
        )
    };
    let first = run();
    let second = run();
    assert_eq!(first, second);
    assert_eq!(
        first.0,
        std::fs::read(fixtures().join("library.expected.json")).expect("golden")
    );
}

#[test]
fn key_order_in_the_document_does_not_change_the_surface() {
    // The same document with every object's keys reversed.
    fn reversed(value: serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => {
                let mut entries: Vec<_> = map.into_iter().collect();
                entries.reverse();
                serde_json::Value::Object(
                    entries.into_iter().map(|(k, v)| (k, reversed(v))).collect(),
                )
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(reversed).collect())
            }
            other => other,
        }
    }
    let original: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures().join("library-swagger.json")).expect("fixture"),
    )
    .expect("json");
    let bytes = serde_json::to_vec(&reversed(original)).expect("bytes");
    let mut surface = import(ImportInput {
        api: "library",
        bytes: &bytes,
        provenance: SourceProvenance {
            source: "file".into(),
            path: "library-swagger.json".into(),
            date: Some("2026-11-29".into()),
            ..SourceProvenance::default()
        },
    })
    .expect("imports");
    // Different bytes, so a different digest; everything else is the same.
    assert_ne!(
        surface.provenance.sha256,
        import_fixture("library-swagger.json", "library")
            .provenance
            .sha256
    );
    surface.provenance.sha256 = import_fixture("library-swagger.json", "library")
        .provenance
        .sha256;
    assert_eq!(
        surface.to_json(),
        std::fs::read_to_string(fixtures().join("library.expected.json")).expect("golden")
    );
}

#[test]
fn the_committed_surfaces_are_canonical_and_regenerate_from_the_published_documents() {
    let dir = modyo_spec::default_dir();
    let canonical = source::canonical(&dir).expect("reads the surfaces");
    assert_eq!(canonical.len(), 3, "admin, content and customers");
    for (path, check) in &canonical {
        assert_eq!(
            *check,
            FileCheck::Same,
            "{}: run `make spec`",
            path.display()
        );
    }
    for (_, _, surface) in modyo_spec::surface::read_dir(&dir).expect("reads") {
        let published = source::PUBLISHED;
        assert_eq!(surface.provenance.source, published.source);
        assert_eq!(
            surface.provenance.git_ref.as_deref(),
            Some(published.git_ref)
        );
        assert_eq!(surface.provenance.commit.as_deref(), Some(published.commit));
        assert_eq!(surface.provenance.sha256.len(), 64);
    }
    // The published documents are proprietary and not in the repository: regenerate only
    // when a local copy is given, and say so plainly when it is not.
    match Source::from_env(std::env::vars()) {
        Some(source) => {
            for (path, check) in source::regenerate(&dir, &source).expect("regenerates") {
                assert_eq!(
                    check,
                    FileCheck::Same,
                    "{} does not regenerate",
                    path.display()
                );
            }
        }
        None => eprintln!(
            "SKIPPED: regeneration of harness/spec from the published documents (set MODYO_DOCS_GIT or MODYO_SPEC_SOURCES; `make spec` fetches a copy){}",
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                " [CI: no network to GitHub, skipping is expected]"
            } else {
                ""
            }
        ),
    }
}

#[test]
fn regeneration_notices_another_document_and_a_hand_edited_surface() {
    // Arrange: a surface directory and a "published" directory holding its document.
    let surfaces = tempfile::tempdir().expect("tempdir");
    let sources = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(fixtures().join("library-swagger.json")).expect("fixture");
    std::fs::write(sources.path().join("library-swagger.json"), &bytes).expect("writes");
    let surface = import_fixture("library-swagger.json", "library");
    let file = surface.save(surfaces.path()).expect("saves");
    let source = Source::Dir(sources.path().to_owned());

    // Act / Assert: the same document regenerates the same bytes.
    assert_eq!(
        source::regenerate(surfaces.path(), &source).expect("regenerates"),
        [(file.clone(), FileCheck::Same)]
    );
    // A hand edit is caught by both checks.
    let text = std::fs::read_to_string(&file).expect("reads");
    std::fs::write(
        &file,
        text.replace("\"page\": \"integer\"", "\"page\": \"string\""),
    )
    .expect("writes");
    assert!(matches!(
        source::regenerate(surfaces.path(), &source).expect("regenerates")[0].1,
        FileCheck::Differs(_)
    ));
    std::fs::write(&file, text.replace("\n", "\n ")).expect("writes");
    assert!(
        source::canonical(surfaces.path()).is_err()
            || matches!(
                source::canonical(surfaces.path()).expect("reads")[0].1,
                FileCheck::Differs(_)
            )
    );
    // Another document under the same name is refused by its digest.
    std::fs::write(&file, &text).expect("writes");
    std::fs::write(
        sources.path().join("library-swagger.json"),
        b"{\"swagger\": \"2.0\", \"paths\": {}}",
    )
    .expect("writes");
    assert!(matches!(
        source::regenerate(surfaces.path(), &source).expect("regenerates")[0].1,
        FileCheck::OtherSource(_)
    ));
}

// ---------------------------------------------------------------------------------------
// The check: each kind of contradiction on small cassettes

fn shelf(path: &str) -> String {
    format!("/api/library/shelves{path}")
}

fn books_page() -> serde_json::Value {
    json!({"books": [{"id": 1, "title": "Rayuela", "tags": ["novel"]}], "meta": {"total_entries": 1}})
}

/// Judges one interaction in a plain cassette (no marks, not a fault).
fn judge(interaction: Interaction) -> modyo_spec::conform::Judgement {
    library().judge(&interaction, &[], false)
}

fn kinds(judgement: &modyo_spec::conform::Judgement) -> Vec<(Kind, String)> {
    judgement
        .contradictions
        .iter()
        .map(|f| (f.kind, f.subject.clone()))
        .collect()
}

#[test]
fn a_request_in_agreement_is_documented() {
    let judgement = judge(
        Interaction::get(shelf("/3/books"))
            .query("page", "2")
            .query("states[]", "lent")
            .query("states[]", "shelved")
            .respond(200, books_page()),
    );
    assert_eq!(
        judgement.endpoint,
        "GET /api/library/shelves/{shelf_id}/books"
    );
    assert!(judgement.contradictions.is_empty(), "{judgement:?}");
    assert!(judgement.warnings.is_empty(), "{judgement:?}");
    assert_eq!(judgement.response, ResponseHeld::Held);
    // A literal segment beats a variable: bulk is its own operation, not a book id.
    let bulk = judge(
        Interaction::patch(shelf("/3/books/bulk"))
            .query("act", "lend")
            .body(json!({"ids": [1, 2]}))
            .respond_with(RecordedResponse::empty(200)),
    );
    assert_eq!(
        bulk.endpoint,
        "PATCH /api/library/shelves/{shelf_id}/books/bulk"
    );
    assert!(bulk.contradictions.is_empty(), "{bulk:?}");
}

#[test]
fn each_kind_of_contradiction_is_caught() {
    let cases: Vec<(Interaction, Kind, &str)> = vec![
        // path: no documented path matches.
        (
            Interaction::get("/api/library/racks").respond(200, json!({})),
            Kind::Path,
            "",
        ),
        // method: the path is documented, the method is not.
        (
            Interaction::put(shelf("/3/books")).respond(200, json!({})),
            Kind::Method,
            "",
        ),
        // path_type: a path parameter of the wrong type.
        (
            Interaction::get(shelf("/fiction/books")).respond(200, books_page()),
            Kind::PathType,
            "shelf_id",
        ),
        // query_name: a parameter the operation does not declare.
        (
            Interaction::get(shelf("/3/books"))
                .query("sort", "title")
                .respond(200, books_page()),
            Kind::QueryName,
            "sort",
        ),
        // query_type: a declared parameter with a value of the wrong type...
        (
            Interaction::get(shelf("/3/books"))
                .query("page", "two")
                .respond(200, books_page()),
            Kind::QueryType,
            "page",
        ),
        // ...or a single parameter sent twice.
        (
            Interaction::get(shelf("/3/books"))
                .query("page", "1")
                .query("page", "2")
                .respond(200, books_page()),
            Kind::QueryType,
            "page",
        ),
        // ...or a value outside the parameter's documented enumeration (here an array's items).
        (
            Interaction::get(shelf("/3/books"))
                .query("states[]", "lent")
                .query("states[]", "lost")
                .respond(200, books_page()),
            Kind::QueryType,
            "states[]",
        ),
        (
            Interaction::patch(shelf("/3/books/bulk"))
                .query("act", "burn")
                .body(json!({"ids": [1, 2]}))
                .respond_with(RecordedResponse::empty(200)),
            Kind::QueryType,
            "act",
        ),
        // query_required: a parameter the operation marks required, not sent.
        (
            Interaction::patch(shelf("/3/books/bulk"))
                .body(json!({"ids": [1, 2]}))
                .respond_with(RecordedResponse::empty(200)),
            Kind::QueryRequired,
            "act",
        ),
        // body_required: a required body key left out...
        (
            Interaction::post(shelf("/3/books"))
                .body(json!({"tags": ["novel"]}))
                .respond(201, json!({"id": 9})),
            Kind::BodyRequired,
            "$.title",
        ),
        // ...or the required body itself...
        (
            Interaction::post(shelf("/3/books")).respond(201, json!({"id": 9})),
            Kind::BodyRequired,
            "$",
        ),
        // ...or a required form field.
        (
            Interaction::post("/api/library/covers")
                .body(json!({"title": "Rayuela"}))
                .respond(200, json!({})),
            Kind::BodyRequired,
            "$.data",
        ),
        // body_key: a key the body does not declare (nested ones too).
        (
            Interaction::post(shelf("/3/books"))
                .body(json!({"title": "Ficciones", "isbn": "978"}))
                .respond(201, json!({"id": 9})),
            Kind::BodyKey,
            "$.isbn",
        ),
        // body_type: a declared key with a value of the wrong type.
        (
            Interaction::post(shelf("/3/books"))
                .body(json!({"title": "Ficciones", "tags": [7]}))
                .respond(201, json!({"id": 9})),
            Kind::BodyType,
            "$.tags[]",
        ),
        // status: a response status the operation does not declare.
        (
            Interaction::post(shelf("/3/books"))
                .body(json!({"title": "Ficciones"}))
                .respond(200, json!({"id": 9})),
            Kind::Status,
            "200",
        ),
        // response_type: a response value of the wrong type.
        (
            Interaction::get(shelf("/3/books")).respond(
                200,
                json!({"books": [{"id": "1"}], "meta": {"total_entries": 1}}),
            ),
            Kind::ResponseType,
            "$.books[].id",
        ),
        (
            Interaction::get(shelf("/3/books/4"))
                .respond_with(RecordedResponse::text(200, "<html></html>")),
            Kind::ResponseType,
            "$",
        ),
    ];
    for (interaction, kind, subject) in cases {
        let line = format!(
            "{} {}",
            interaction.request.method, interaction.request.path
        );
        let judgement = judge(interaction);
        assert_eq!(
            kinds(&judgement),
            [(kind, subject.to_owned())],
            "{line}: {judgement:?}"
        );
        assert!(!judgement.contradictions[0].detail.is_empty());
    }
}

#[test]
fn a_required_key_nested_in_an_array_is_required_of_every_item_present() {
    let shop = Surfaces::new(vec![import_fixture("shop-openapi.json", "shop")]).expect("indexes");
    let order = |body: serde_json::Value| {
        shop.judge(
            &Interaction::post("/api/shop/v1/orders")
                .body(body)
                .respond(201, json!({"id": "o1"})),
            &[],
            false,
        )
    };
    assert!(
        order(json!({"lines": [{"sku": "a", "quantity": 1}]}))
            .contradictions
            .is_empty()
    );
    // An empty list has no item to lack a key.
    assert!(order(json!({"lines": []})).contradictions.is_empty());
    let judgement = order(json!({"lines": [{"sku": "a"}, {"quantity": 2}, {}]}));
    assert_eq!(
        kinds(&judgement),
        [(Kind::BodyRequired, "$.lines[].sku".to_owned())]
    );
    assert!(
        judgement.contradictions[0]
            .detail
            .ends_with("not sent (at $.lines[1].sku and 1 more)"),
        "{judgement:?}"
    );
    // A required parent left out is one contradiction, not one per key below it.
    assert_eq!(
        kinds(&order(json!({}))),
        [(Kind::BodyRequired, "$.lines".to_owned())]
    );
}

/// The purpose-made cassette `tests/fixtures/spec/cassettes/library/bulk-without-act.json`
/// omits the bulk action's required `act`; `cassettes check` (the command) must fail on it
/// with a `query_required` contradiction, and pass once the cassette sends it.
#[test]
fn the_command_line_check_catches_a_missing_required_query_parameter() {
    // Arrange: the fixture surface alone in a spec directory, the purpose-made cassette in
    // a copy of its directory (to fix it in the second half).
    let spec = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        fixtures().join("library.expected.json"),
        spec.path().join("library.json"),
    )
    .expect("copies the surface");
    let cassettes = tempfile::tempdir().expect("tempdir");
    let file = cassettes.path().join("library/bulk-without-act.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let text = std::fs::read_to_string(fixtures().join("cassettes/library/bulk-without-act.json"))
        .expect("the purpose-made cassette");
    std::fs::write(&file, &text).expect("writes");
    let check = || {
        std::process::Command::new(lab_binary())
            .args(["cassettes", "check", "--cassettes"])
            .arg(cassettes.path())
            .arg("--spec")
            .arg(spec.path())
            .output()
            .expect("runs")
    };

    // Act
    let missing = check();

    // Assert
    let out = String::from_utf8_lossy(&missing.stdout);
    assert!(!missing.status.success(), "{out}");
    assert!(
        out.contains(
            "PATCH /api/library/shelves/{shelf_id}/books/bulk query_required act: PATCH /shelves/{shelf_id}/books/bulk requires the query parameter act; not sent"
        ),
        "{out}"
    );

    // The same cassette sending `act` holds.
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("json");
    value["interactions"][0]["request"]["query"] = json!({"act": "lend"});
    std::fs::write(
        &file,
        serde_json::to_string_pretty(&value).expect("json") + "\n",
    )
    .expect("writes");
    let sent = check();
    assert!(
        sent.status.success(),
        "{}{}",
        String::from_utf8_lossy(&sent.stdout),
        String::from_utf8_lossy(&sent.stderr)
    );
}

#[test]
fn warnings_are_counted_not_failed() {
    let judgement = judge(
        Interaction::get(shelf("/3/books"))
            .query("validation", "x")
            .respond(200, json!({"books": [{"id": 1, "isbn": "978"}, {"id": 2, "isbn": "979"}], "meta": {}, "links": {}})),
    );
    assert!(judgement.contradictions.is_empty(), "{judgement:?}");
    let warnings: Vec<(WarningKind, &str)> = judgement
        .warnings
        .iter()
        .map(|w| (w.kind, w.subject.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [
            (WarningKind::ResponseKey, "$.books[].isbn"),
            (WarningKind::ResponseKey, "$.links"),
            (WarningKind::UnlocatedParam, "validation"),
        ]
    );
}

#[test]
fn faults_outages_and_unauthorized_answers_are_not_held_but_their_requests_are() {
    let surfaces = library();
    let garbage = Interaction::get(shelf("/3/books")).respond(200, json!({"books": "nope"}));
    // A fault cassette's response is outside the specification on purpose.
    let fault = surfaces.judge(&garbage, &[], true);
    assert_eq!(fault.response, ResponseHeld::Fault);
    assert!(fault.contradictions.is_empty(), "{fault:?}");
    // Its request is not: a wrong parameter is still a contradiction.
    let wrong = surfaces.judge(
        &Interaction::get(shelf("/3/books"))
            .query("sort", "x")
            .respond(500, json!({})),
        &[],
        true,
    );
    assert_eq!(kinds(&wrong), [(Kind::QueryName, "sort".to_owned())]);
    // Outages and throttling anywhere; 401 from an API that requires credentials.
    for (status, held) in [
        (503, ResponseHeld::Outage),
        (429, ResponseHeld::Outage),
        (401, ResponseHeld::Unauthorized),
    ] {
        let judgement = surfaces.judge(
            &Interaction::get(shelf("/3/books")).respond(status, json!({})),
            &[],
            false,
        );
        assert_eq!(judgement.response, held, "{status}");
        assert!(
            judgement.contradictions.is_empty(),
            "{status}: {judgement:?}"
        );
    }
    // Any other undeclared status is a contradiction.
    let judgement = surfaces.judge(
        &Interaction::get(shelf("/3/books")).respond(403, json!({})),
        &[],
        false,
    );
    assert_eq!(kinds(&judgement), [(Kind::Status, "403".to_owned())]);
}

fn library_cassette(name: &str) -> Cassette {
    Cassette::new(name, Provenance::synthetic("2026-11-29", "spec test"))
        .scenario(modyo_replay::Scenario::new("one").tool("library-books-manage"))
}

#[test]
fn an_undocumented_endpoint_needs_a_mark_with_its_evidence() {
    let surfaces = library();
    let racks = Interaction::get("/api/library/racks/7").respond(200, json!({"id": 7}));

    // Without a mark: a contradiction, and so a problem.
    let unmarked = library_cassette("library/racks").interaction(racks.clone());
    let result = check::run(&[unmarked], &surfaces, &[]);
    assert_eq!(result.totals.contradicted, 1);
    assert_eq!(result.problems.len(), 1, "{:?}", result.problems);
    assert_eq!(result.problems[0].kind, ProblemKind::Contradiction);
    assert!(
        result.problems[0]
            .detail
            .contains("GET /api/library/racks/{id} path"),
        "{:?}",
        result.problems
    );

    // With a mark: undocumented, with its evidence; no problem.
    let marked = library_cassette("library/racks")
        .undocumented(Undocumented::new(
            "GET",
            "/api/library/racks/{rack_id}",
            Evidence::None,
        ))
        .interaction(racks.clone());
    let result = check::run(&[marked], &surfaces, &[]);
    assert!(result.problems.is_empty(), "{:?}", result.problems);
    assert_eq!(result.verdicts[0].standing(), Standing::Undocumented);
    assert_eq!(
        result.verdicts[0].judgement.endpoint,
        "GET /api/library/racks/{rack_id}"
    );

    // A mark must carry evidence in one of the accepted forms: the cassette does not load.
    let mut value = serde_json::to_value(
        library_cassette("library/racks")
            .undocumented(Undocumented::new(
                "GET",
                "/api/library/racks/{rack_id}",
                Evidence::None,
            ))
            .interaction(racks.clone()),
    )
    .expect("value");
    for bad in [json!(""), json!("trust me"), json!(null)] {
        value["undocumented"][0]["evidence"] = bad.clone();
        let err = Cassette::parse("library/racks", Path::new("racks.json"), &value.to_string())
            .expect_err("evidence");
        assert!(
            err.to_string().contains("undocumented[0].evidence"),
            "{bad}: {err}"
        );
    }
    value["undocumented"][0]
        .as_object_mut()
        .expect("object")
        .remove("evidence");
    let err = Cassette::parse("library/racks", Path::new("racks.json"), &value.to_string())
        .expect_err("no evidence");
    assert!(
        err.to_string().contains("missing field `evidence`"),
        "{err}"
    );

    // A mark no interaction uses is stale; a mark on a documented endpoint is refused.
    let stale = library_cassette("library/racks")
        .undocumented(Undocumented::new(
            "GET",
            "/api/library/racks/{rack_id}",
            Evidence::None,
        ))
        .undocumented(Undocumented::new(
            "DELETE",
            "/api/library/racks/{rack_id}",
            Evidence::None,
        ))
        .undocumented(Undocumented::new(
            "GET",
            "/api/library/shelves/{shelf}/books",
            Evidence::docs("docs/en/platform/core/api.md"),
        ))
        .interaction(racks);
    let result = check::run(&[stale], &surfaces, &[]);
    let details: Vec<&str> = result.problems.iter().map(|p| p.detail.as_str()).collect();
    assert_eq!(result.problems.len(), 2, "{details:?}");
    assert!(
        result
            .problems
            .iter()
            .all(|p| p.kind == ProblemKind::UndocumentedMark)
    );
    assert!(
        details
            .iter()
            .any(|d| d.contains("DELETE /api/library/racks/{rack_id}: no interaction"))
    );
    assert!(details.iter().any(|d| d.contains(
        "GET /api/library/shelves/{shelf}/books: the specification documents GET /api/library/shelves/{shelf_id}/books"
    )));
}

#[test]
fn a_mark_cannot_hide_a_wrong_path_parameter() {
    // `fiction` is not a shelf id; marking the endpoint undocumented is refused, since the
    // specification documents it.
    let cassette = library_cassette("library/by-name")
        .undocumented(Undocumented::new(
            "GET",
            "/api/library/shelves/{shelf_name}/books",
            Evidence::None,
        ))
        .interaction(Interaction::get(shelf("/fiction/books")).respond(200, books_page()));
    let result = check::run(&[cassette], &library(), &[]);
    assert!(
        result
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::UndocumentedMark),
        "{:?}",
        result.problems
    );
}

#[test]
fn the_known_list_only_shrinks() {
    let surfaces = library();
    let cassette = library_cassette("library/sorted").interaction(
        Interaction::get(shelf("/3/books"))
            .query("sort", "title")
            .respond(200, books_page()),
    );
    let listed = Known {
        tool: "library-books-manage",
        endpoint: "GET /api/library/shelves/{shelf_id}/books",
        kind: Kind::QueryName,
        subject: "sort",
        reason: "the list takes no sort parameter",
    };

    // Listed: known, not a problem.
    let result = check::run(std::slice::from_ref(&cassette), &surfaces, &[listed]);
    assert!(result.problems.is_empty(), "{:?}", result.problems);
    assert_eq!(
        result.contradictions[0].known,
        Some("the list takes no sort parameter")
    );
    assert_eq!(result.known_per_module.get("library"), Some(&1));

    // Unlisted: a problem.
    let result = check::run(std::slice::from_ref(&cassette), &surfaces, &[]);
    assert_eq!(result.problems.len(), 1);
    assert_eq!(result.problems[0].kind, ProblemKind::Contradiction);

    // Fixed in the cassette but still listed: stale. Listed under a tool that does not use it:
    // refused.
    let fixed = library_cassette("library/sorted")
        .interaction(Interaction::get(shelf("/3/books")).respond(200, books_page()));
    let result = check::run(&[fixed], &surfaces, &[listed]);
    assert_eq!(result.problems.len(), 1);
    assert_eq!(result.problems[0].kind, ProblemKind::KnownList);
    assert!(
        result.problems[0].detail.contains("stale entry"),
        "{:?}",
        result.problems
    );
    let elsewhere = Known {
        tool: "library-shelves-list",
        ..listed
    };
    let result = check::run(&[cassette], &surfaces, &[elsewhere]);
    assert!(
        result
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::KnownList
                && p.detail.contains("names library-shelves-list")),
        "{:?}",
        result.problems
    );
}

// ---------------------------------------------------------------------------------------
// Errata

/// A correction of the fixture's books list: ids answered as strings, shown by a docs page.
const BOOK_ID_ERRATUM: Erratum = Erratum {
    name: "book-id",
    subject: "library definitions.Book.properties.id",
    places: &[ErratumPlace {
        api: "library",
        operation: "GET /shelves/{shelf_id}/books",
        part: Part::Response("200"),
        at: "$.books[].id",
    }],
    declared: Some("\"integer\""),
    corrected: "\"string\"",
    evidence: &[ErratumEvidence::Source {
        source: "modyo-docs:docs/en/platform/core/api.md",
        shows: "ids are strings",
    }],
    reason: "a test",
};

/// The books list's `meta.total_entries` (an integer), cited as evidence.
const TOTAL_ENTRIES: ErratumPlace = ErratumPlace {
    api: "library",
    operation: "GET /shelves/{shelf_id}/books",
    part: Part::Response("200"),
    at: "$.meta.total_entries",
};

/// A key the fixture's create body lacks, with evidence elsewhere in the surface.
const BOOK_SHELF_ERRATUM: Erratum = Erratum {
    name: "book-shelf",
    subject: "library definitions.BookInput",
    places: &[ErratumPlace {
        api: "library",
        operation: "POST /shelves/{shelf_id}/books",
        part: Part::Body,
        at: "$.isbn",
    }],
    declared: None,
    corrected: "\"string\"",
    evidence: &[ErratumEvidence::Spec {
        place: TOTAL_ENTRIES,
        shape: "\"integer\"",
    }],
    reason: "a test",
};

fn library_with(errata: &[Erratum]) -> Surfaces {
    Surfaces::with_errata(
        vec![import_fixture("library-swagger.json", "library")],
        errata,
    )
    .expect("indexes")
}

fn string_ids() -> Cassette {
    library_cassette("library/string-ids").interaction(
        Interaction::get(shelf("/3/books"))
            .respond(200, json!({"books": [{"id": "7", "title": "Rayuela"}]})),
    )
}

#[test]
fn an_erratum_corrects_the_surface_where_it_has_evidence() {
    // Without it, the published text contradicts the cassette.
    let result = check::run(&[string_ids()], &library(), &[]);
    assert_eq!(result.problems.len(), 1, "{:?}", result.problems);
    assert_eq!(result.problems[0].kind, ProblemKind::Contradiction);

    // With it: agreement, and the erratum counts what it resolves.
    let surfaces = library_with(&[BOOK_ID_ERRATUM]);
    assert!(surfaces.refused().is_empty(), "{:?}", surfaces.refused());
    assert_eq!(surfaces.errata(), &[BOOK_ID_ERRATUM]);
    let result = check::run(&[string_ids()], &surfaces, &[]);
    assert!(result.problems.is_empty(), "{:?}", result.problems);
    assert_eq!(result.totals.documented, 1);
    assert_eq!(result.errata.len(), 1);
    assert_eq!(
        (result.errata[0].name, result.errata[0].resolved),
        ("book-id", 1)
    );

    // A key the document lacks is added where the evidence puts it.
    let create = library_cassette("library/isbn").interaction(
        Interaction::post(shelf("/3/books"))
            .body(json!({"title": "Rayuela", "isbn": "978-84-376-0494-7"}))
            .respond(201, json!({"id": 9, "title": "Rayuela"})),
    );
    let result = check::run(std::slice::from_ref(&create), &library(), &[]);
    assert_eq!(
        result
            .contradictions
            .iter()
            .map(|c| (c.kind, c.subject.as_str()))
            .collect::<Vec<_>>(),
        vec![(Kind::BodyKey, "$.isbn")]
    );
    let result = check::run(&[create], &library_with(&[BOOK_SHELF_ERRATUM]), &[]);
    assert!(result.problems.is_empty(), "{:?}", result.problems);
}

#[test]
fn an_erratum_no_interaction_needs_is_unused() {
    // An empty list: agreement with the published text and the correction alike.
    let empty = library_cassette("library/empty")
        .interaction(Interaction::get(shelf("/3/books")).respond(200, json!({"books": []})));
    let result = check::run(&[empty], &library_with(&[BOOK_ID_ERRATUM]), &[]);
    assert_eq!(result.problems.len(), 1, "{:?}", result.problems);
    assert_eq!(result.problems[0].kind, ProblemKind::Erratum);
    assert!(
        result.problems[0].detail.contains("unused erratum book-id"),
        "{:?}",
        result.problems
    );
}

#[test]
fn a_stale_or_unevidenced_erratum_is_refused_and_fails_the_check() {
    let cases: Vec<(Erratum, &str)> = vec![
        // The surface declares something else there now.
        (
            Erratum {
                declared: Some("\"boolean\""),
                ..BOOK_ID_ERRATUM
            },
            "the surface declares \"integer\", the erratum expects \"boolean\"",
        ),
        // The place is gone.
        (
            Erratum {
                places: &[ErratumPlace {
                    api: "library",
                    operation: "GET /racks",
                    part: Part::Response("200"),
                    at: "$.id",
                }],
                ..BOOK_ID_ERRATUM
            },
            "no such place",
        ),
        // No evidence, or `none`.
        (
            Erratum {
                evidence: &[],
                ..BOOK_ID_ERRATUM
            },
            "no evidence",
        ),
        (
            Erratum {
                evidence: &[ErratumEvidence::Source {
                    source: "none",
                    shows: "nothing",
                }],
                ..BOOK_ID_ERRATUM
            },
            "`none` is no evidence",
        ),
        // Evidence in the surface that no longer says what the erratum cites.
        (
            Erratum {
                evidence: &[ErratumEvidence::Spec {
                    place: TOTAL_ENTRIES,
                    shape: "\"string\"",
                }],
                ..BOOK_ID_ERRATUM
            },
            "the erratum cites \"string\"",
        ),
    ];
    for (erratum, why) in cases {
        let surfaces = library_with(&[erratum]);
        assert!(surfaces.errata().is_empty(), "{why}: applied");
        let result = check::run(&[string_ids()], &surfaces, &[]);
        let refused: Vec<&str> = result
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::Erratum)
            .map(|p| p.detail.as_str())
            .collect();
        assert_eq!(refused.len(), 1, "{why}: {:?}", result.problems);
        assert!(
            refused[0].contains("stale or invalid erratum book-id") && refused[0].contains(why),
            "{why}: {refused:?}"
        );
        // Not applied: the published text still contradicts the cassette.
        assert!(
            result
                .problems
                .iter()
                .any(|p| p.kind == ProblemKind::Contradiction),
            "{why}"
        );
    }
}

#[test]
fn included_cassettes_lend_their_interactions_to_every_includer_s_tools() {
    let base = Cassette::new("library/base", Provenance::synthetic("2026-11-29", "base"));
    let a = library_cassette("library/a").include("library/base");
    let mut b = library_cassette("library/b").include("library/base");
    b.scenarios[0].tool = "library-shelves-list".into();
    let tools = check::attribution(&[base, a, b]);
    assert_eq!(
        tools["library/base"],
        BTreeSet::from([
            "library-books-manage".to_owned(),
            "library-shelves-list".to_owned()
        ])
    );
}

// ---------------------------------------------------------------------------------------
// The workspace's cassettes

#[tokio::test]
async fn the_workspace_cassettes_hold_to_the_published_specification() {
    // Arrange: what `modyo-lab cassettes check` does on the workspace.
    let options = CheckOptions::new(modyo_replay::cassette::default_dir()).with_defaults();
    assert_eq!(
        options.known.len(),
        KNOWN_CONTRADICTIONS.len(),
        "the built-in list applies"
    );

    // Act
    let report = lifecycle::check(&options).await.expect("checks");

    // Assert: no unlisted contradiction, no bad mark, no stale entry.
    assert!(report.ok, "{}", report.to_text());
    let conformance = report.conformance.as_ref().expect("held to the surface");
    assert_eq!(conformance.totals.interactions, report.interactions);
    assert_eq!(
        conformance
            .contradictions
            .iter()
            .filter(|c| c.known.is_some())
            .count(),
        KNOWN_CONTRADICTIONS.len()
    );
    // Every cassette that marks an endpoint uses it.
    assert!(
        report
            .problems
            .iter()
            .all(|p| p.kind != ProblemKind::UndocumentedMark)
    );
}

#[tokio::test]
async fn the_sites_staging_filter_holds_only_by_its_erratum() {
    // Arrange: the workspace check without the erratum that adds `staging` to the documented
    // values of the sites list's `status` filter.
    let mut options = CheckOptions::new(modyo_replay::cassette::default_dir()).with_defaults();
    let before = options.errata.len();
    options.errata.retain(|e| e.name != "sites-status-staging");
    assert_eq!(options.errata.len(), before - 1, "the workspace has it");

    // Act
    let report = lifecycle::check(&options).await.expect("checks");

    // Assert: the value outside the published enumeration is a contradiction, like a type.
    let conformance = report.conformance.as_ref().expect("held to the surface");
    let found: Vec<(&str, Kind, &str, usize)> = conformance
        .contradictions
        .iter()
        .filter(|c| c.known.is_none())
        .map(|c| {
            (
                c.endpoint.as_str(),
                c.kind,
                c.subject.as_str(),
                c.occurrences.len(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [("GET /api/admin/sites", Kind::QueryType, "status", 2)],
        "{}",
        report.to_text()
    );
    assert!(
        conformance
            .contradictions
            .iter()
            .any(|c| c.known.is_none() && c.detail.contains("'staging'"))
    );
    assert!(!report.ok);
}

#[tokio::test]
async fn dropping_an_entry_from_the_list_fails_the_workspace_check() {
    let Some((first, rest)) = KNOWN_CONTRADICTIONS.split_first() else {
        return; // the list is empty: nothing left to shrink
    };
    let options = CheckOptions::new(modyo_replay::cassette::default_dir())
        .spec(modyo_spec::default_dir(), rest);
    let report = lifecycle::check(&options).await.expect("checks");
    assert!(!report.ok);
    let new: Vec<&str> = report
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::Contradiction)
        .map(|p| p.detail.as_str())
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(new[0].contains(first.endpoint), "{new:?}");
}

#[test]
fn the_command_line_check_reports_the_surface_and_says_when_regeneration_is_skipped() {
    let output = std::process::Command::new(lab_binary())
        .args(["spec", "check"])
        .env_remove("MODYO_DOCS_GIT")
        .env_remove("MODYO_SPEC_SOURCES")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(
        stdout.matches("in the writer's canonical form").count(),
        3,
        "{stdout}"
    );
    assert!(
        stdout.contains("regeneration from the published documents: SKIPPED"),
        "{stdout}"
    );

    let output = std::process::Command::new(lab_binary())
        .args(["spec", "check", "--require-source"])
        .env_remove("MODYO_DOCS_GIT")
        .env_remove("MODYO_SPEC_SOURCES")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
}

// ---------------------------------------------------------------------------------------
// spec pull

const TOKEN: &str = "pull-canary-0c1d2e3f-token";

fn swagger_document() -> serde_json::Value {
    serde_json::from_slice(
        &std::fs::read(fixtures().join("library-swagger.json")).expect("fixture"),
    )
    .expect("json")
}

#[tokio::test]
async fn spec_pull_imports_the_account_s_documents_and_never_leaks_the_token() {
    // Arrange: a fake account. The admin API answers its document at its docs path; the
    // content API answers the interactive page, which loads the document from the same
    // origin (and names a foreign one, which must never get the token).
    let account = MockServer::start().await;
    let auth = format!("Bearer {TOKEN}");
    let mut document = swagger_document();
    document["info"]["description"] = json!(format!("echoes {TOKEN}"));
    Mock::given(method("GET"))
        .and(path("/api/admin/docs"))
        .and(header("authorization", auth.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(&document))
        .mount(&account)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/content/docs"))
        .and(header("authorization", auth.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            "<html><script>ui({urls: ['https://elsewhere.invalid/leak.json']}); swaggerInit('/api/content/docs/swagger.json')</script></html>",
            "text/html",
        ))
        .mount(&account)
        .await;
    let shop: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures().join("shop-openapi.json")).expect("fixture"),
    )
    .expect("json");
    Mock::given(method("GET"))
        .and(path("/api/content/docs/swagger.json"))
        .and(header("authorization", auth.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(&shop))
        .mount(&account)
        .await;
    let out = tempfile::tempdir().expect("tempdir");

    // Act: through the binary, as a user runs it, with every log on.
    let output = std::process::Command::new(lab_binary())
        .args([
            "spec", "pull", "--api", "admin", "--api", "content", "--out",
        ])
        .arg(out.path())
        .env("MODYO_URL", account.uri())
        .env("MODYO_TOKEN", TOKEN)
        .env("RUST_LOG", "trace")
        .output()
        .expect("runs");

    // Assert
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let admin = std::fs::read_to_string(out.path().join("admin.json")).expect("admin surface");
    let content =
        std::fs::read_to_string(out.path().join("content.json")).expect("content surface");
    assert!(
        admin.contains("\"source\": \"live:127.0.0.1\"")
            && admin.contains("\"path\": \"/api/admin/docs\""),
        "{admin}"
    );
    assert!(
        content.contains("\"path\": \"/api/content/docs/swagger.json\""),
        "{content}"
    );
    assert!(
        content.contains("\"/orders/{order_id}/receipt\""),
        "{content}"
    );
    for (what, text) in [
        ("stdout", &*stdout),
        ("stderr", &*stderr),
        ("admin.json", &admin),
        ("content.json", &content),
    ] {
        assert!(!text.contains(TOKEN), "the token leaked into {what}");
    }
    // Only the account's own documents were asked for (a request to the foreign URL would
    // have failed the pull: `.invalid` never resolves).
    let mut asked: Vec<String> = account
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/api/admin/docs",
            "/api/content/docs",
            "/api/content/docs/swagger.json"
        ]
    );
}

#[tokio::test]
async fn spec_pull_fails_clearly_and_without_the_token() {
    let account = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/admin/docs"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_json(json!({"error": format!("bad token {TOKEN}")})),
        )
        .mount(&account)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/content/docs"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html>no document here</html>", "text/html"),
        )
        .mount(&account)
        .await;
    let options = |api: &str| PullOptions {
        url: url::Url::parse(&account.uri()).expect("url"),
        token: TOKEN.into(),
        apis: vec![api.into()],
        date: "2026-11-29".into(),
    };

    let unauthorized = pull::pull(&options("admin"))
        .await
        .expect_err("401")
        .to_string();
    let no_document = pull::pull(&options("content"))
        .await
        .expect_err("html")
        .to_string();

    assert!(
        unauthorized.contains("GET /api/admin/docs answered 401")
            && unauthorized.contains("MODYO_TOKEN"),
        "{unauthorized}"
    );
    assert!(
        no_document.contains("neither a Swagger/OpenAPI document nor a page"),
        "{no_document}"
    );
    assert!(!unauthorized.contains(TOKEN) && !no_document.contains(TOKEN));

    let output = std::process::Command::new(lab_binary())
        .args(["spec", "pull"])
        .env_remove("MODYO_URL")
        .env_remove("MODYO_TOKEN")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("needs MODYO_URL and MODYO_TOKEN"));
}

// ---------------------------------------------------------------------------------------
// The coverage report

/// A call a public source contradicts that is kept or refused says so where the model reads it:
/// each of its tools' descriptions carries the entry's words (and the report lists it).
#[tokio::test]
async fn every_contested_call_is_said_in_its_tools_descriptions() {
    let session = modyo_lab::session::Session::start(&[], &[])
        .await
        .expect("a session");
    let tools = session.tools().await.expect("tools/list");
    session.close().await;
    for entry in modyo_spec::contested::CONTESTED {
        for name in entry.tools {
            let tool = tools
                .iter()
                .find(|t| t.name == *name)
                .unwrap_or_else(|| panic!("{}: no tool {name}", entry.name));
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(
                description.contains(entry.said),
                "{}: {name}'s description lacks {:?}: {description}",
                entry.name,
                entry.said
            );
        }
    }
}

#[tokio::test]
async fn the_committed_api_coverage_report_is_a_regeneration() {
    // Arrange / Act: every scenario replayed, as `make api-coverage` does.
    let report = coverage::build(
        &modyo_replay::cassette::default_dir(),
        &modyo_spec::default_dir(),
        4,
    )
    .await
    .expect("builds");

    // Assert: the committed files are this report, byte for byte.
    let reports = modyo_lab::report::default_dir();
    let stale = coverage::stale(&report, &reports);
    assert!(
        stale.is_empty(),
        "regenerate with `make api-coverage`: {stale:?}"
    );
    assert_eq!(report.contradictions, KNOWN_CONTRADICTIONS.len());

    // The README names exactly the tools that stand on endpoints no public source confirms.
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README");
    let section = readme
        .split("<!-- unconfirmed-tools -->")
        .nth(1)
        .expect("the README has the unconfirmed tools section");
    let named: BTreeSet<&str> = section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| t.contains('-') && !t.contains(' ') && !t.contains('/'))
        .collect();
    let unconfirmed: BTreeSet<&str> = report
        .unconfirmed()
        .into_iter()
        .map(|(tool, _)| tool)
        .collect();
    assert_eq!(
        named, unconfirmed,
        "update the README's list of tools on unconfirmed endpoints"
    );
}
