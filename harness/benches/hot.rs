//! criterion benches of the hot pieces: the envelope exit (build, self-validation against
//! the outputSchema, serialization), token counting, cassette matching in the replay server,
//! and the offline server's start-up over 20,000 generated interactions (loading, validating,
//! mounting). Thin: the figures land in `reports/performance.md` through `modyo-lab bench`,
//! which reads criterion's estimates back (`make bench` runs both).

#![allow(missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use modyo_lab::serve::{Offline, ServeOptions};
use modyo_mcp::contract::schema;
use modyo_mcp::contract::{
    Coverage, Mode, Outcome, OutputValidator, Platform, Reply, Resource, Slots, ToolClass, exit,
};
use modyo_replay::{Cassette, Interaction, Provenance};
use serde_json::{Value, json};

/// 100 projected rows like `content-entries-list` with `fields` answers.
fn rows() -> Value {
    Value::Array(
        (0..100)
            .map(|i| {
                json!({
                    "id": 1_000_000 + i,
                    "uuid": format!("2f6c1c1e-0000-4000-8000-{i:012}"),
                    "name": format!("Sucursal {i}"),
                    "slug": format!("sucursal-{i}"),
                    "published": i % 3 != 0,
                    "fields": {
                        "title": format!("Sucursal Providencia {i}"),
                        "commune": "Providencia",
                        "phone": "+56 2 2345 6789",
                        "atm_count": i % 7,
                        "customer_rating": 4.5,
                        "opened_on": "2019-03-04",
                        "wheelchair_access": true,
                        "services": ["cajas", "ejecutivos", "cajero automático"],
                        "location": {"lat": -33.4263, "lng": -70.6109},
                        "facade_photo": {"name": format!("fachada-{i}.jpg"), "url": format!("https://cdn.example.com/fachada-{i}.jpg")}
                    }
                })
            })
            .collect(),
    )
}

fn envelope(c: &mut Criterion) {
    // An echoed entry as the content tools publish it: typed keys (each also null), the
    // values by field name, any other key allowed.
    let row = json!({"type": "object", "properties": {
        "id": {"type": ["integer", "null"]},
        "uuid": {"type": ["string", "null"]},
        "name": {"type": ["string", "null"]},
        "slug": {"type": ["string", "null"]},
        "published": {"type": ["boolean", "null"]},
        "fields": schema::map_of(schema::any()),
    }});
    let slots = Slots {
        resource: true,
        state: true,
        control: false,
        ..Slots::default()
    };
    let url = url::Url::parse("https://acme.modyo.cloud").expect("a URL");
    let platform = Platform::new(Some(&url), None);
    let validator = OutputValidator::new(&schema::output_schema(
        ToolClass::Read,
        slots,
        json!({"type": "array", "items": row}),
        &platform,
    ))
    .expect("the schema compiles");
    let data = rows();
    c.bench_function(
        "envelope/exit 100 rows (build + validate + serialize)",
        |b| {
            b.iter_batched(
                || data.clone(),
                |data| {
                    let reply = Reply::new(data)
                        .resource(Resource::new("space").id(636).name("Sucursales"))
                        .state(Coverage::page(100, None, 1));
                    let result = exit::respond(
                        &platform,
                        Mode::Migrated,
                        Some(&validator),
                        Outcome::from(reply),
                    )
                    .expect("the envelope validates");
                    serde_json::to_string(&result).expect("serializes")
                },
                BatchSize::SmallInput,
            )
        },
    );
}

fn tokens(c: &mut Criterion) {
    let text = rows().to_string();
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("o200k_base", |b| {
        b.iter(|| modyo_lab::tokens::o200k_base(&text))
    });
    group.bench_function("cl100k_base", |b| {
        b.iter(|| modyo_lab::tokens::cl100k_base(&text))
    });
    group.bench_function("chars", |b| b.iter(|| text.chars().count()));
    group.finish();
}

fn matching(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut options = ServeOptions::new(modyo_replay::cassette::default_dir());
    options.ignore_latency = true;
    let offline = runtime
        .block_on(Offline::start(&options))
        .expect("the offline server starts");
    let base = offline.replay().uri();
    let http = reqwest::Client::new();
    let mut group = c.benchmark_group("replay");
    for (name, path) in [
        (
            "first mounted",
            "/api/admin/content/spaces?page=1&per_page=10",
        ),
        ("entry 314", "/api/admin/content/spaces/636/entries/1000314"),
    ] {
        let url = format!("{base}{path}");
        group.bench_function(format!("GET {name} (every cassette mounted)"), |b| {
            b.to_async(&runtime).iter(|| async {
                let response = http.get(&url).send().await.expect("replay answers");
                assert!(
                    response.status().is_success(),
                    "{url}: {}",
                    response.status()
                );
                response.bytes().await.expect("a body")
            })
        });
    }
    group.finish();
    drop(runtime);
}

/// `modyo-lab serve` from launch to serving, over a directory of 20,000 distinct
/// interactions in four cassettes (it was quadratic: 2.7 s for 20,000, 71 s for 100,000).
fn startup(c: &mut Criterion) {
    const INTERACTIONS: usize = 20_000;
    const FILES: usize = 4;
    let dir = tempfile::tempdir().expect("a temporary directory");
    for file in 0..FILES {
        let per_file = INTERACTIONS / FILES;
        let cassette = Cassette::new(
            format!("generated/part{file}"),
            Provenance::synthetic("2026-11-29", "start-up load"),
        )
        .interactions((file * per_file..(file + 1) * per_file).map(|i| {
            Interaction::get(format!("/api/admin/content/spaces/{i}"))
                .query("page", "1")
                .respond(
                    200,
                    json!({"id": i, "uid": format!("space-{i}"), "name": format!("Space {i}")}),
                )
        }));
        cassette.save(dir.path()).expect("the cassette is written");
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut options = ServeOptions::new(dir.path());
    options.ignore_latency = true;
    let mut group = c.benchmark_group("serve");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(10));
    group.bench_function("start-up, 20,000 interactions", |b| {
        b.to_async(&runtime).iter(|| async {
            Offline::start(&options)
                .await
                .expect("the offline server starts")
        })
    });
    group.finish();
    drop(runtime);
}

/// Short runs: `make bench` runs on small shared machines, and these pieces are fast.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(40)
}

criterion_group! {
    name = benches;
    config = config();
    targets = envelope, tokens, matching, startup
}
criterion_main!(benches);
