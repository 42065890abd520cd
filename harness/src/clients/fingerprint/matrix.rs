//! The fingerprint matrix of `reports/clients.md`: a row per client and version, a column per
//! part, every cell derived from the committed fingerprints; then, per client, the form each
//! result and the instructions arrive in (from the fingerprint's examples and paths).

use std::fmt::Write as _;

use super::{CacheMarks, Definitions, Fingerprint, Part, Seen, Timing};

/// The parts the matrix has a column for, in order.
pub(crate) const COLUMNS: [Part; 11] = [
    Part::Names,
    Part::Description,
    Part::InputSchema,
    Part::OutputSchema,
    Part::Title,
    Part::Annotations,
    Part::Instructions,
    Part::Text,
    Part::StructuredContent,
    Part::ErrorText,
    Part::SchemaErrorText,
];

/// The parts listed under the matrix when a client sends them.
const OTHERS: [Part; 6] = [
    Part::ToolMeta,
    Part::ServerTitle,
    Part::ResultMeta,
    Part::TextOnly,
    Part::Prompt,
    Part::Resource,
];

/// A cell: `—` when absent, else `✓` and the requests it was in; `not probed` for a part the
/// client's marker session did not test (a capture older than the part's probe).
fn cell(seen: Option<&Seen>, total: usize) -> String {
    let Some(seen) = seen else {
        return "not probed".into();
    };
    match seen.timing {
        Timing::Absent => "—".into(),
        Timing::Every => format!("✓ all {total}"),
        Timing::From { first } => format!("✓ {first}–{total}"),
        Timing::Some => format!(
            "✓ {}",
            seen.requests
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The cache-marks cell: `—` when the client marks none, else the requests that mark one.
fn cache_cell(marks: &CacheMarks, total: usize) -> String {
    if !marks.any() {
        return "—".into();
    }
    let seen = Seen {
        part: Part::Names,
        timing: super::analysis::timing(&marks.requests, total),
        requests: marks.requests.clone(),
        paths: Vec::new(),
        example: None,
    };
    cell(Some(&seen), total)
}

/// How definitions arrive, in a few words.
pub(crate) fn definitions(d: Definitions) -> &'static str {
    match d {
        Definitions::EveryRequest => "every request",
        Definitions::OnDemand { names_first: true } => "names first, definitions on demand",
        Definitions::OnDemand { names_first: false } => "on demand (nothing before)",
        Definitions::Some => "some requests",
        Definitions::Never => "never",
    }
}

fn code(text: &str) -> String {
    let one_line = text.replace('\n', "\\n").replace('|', "\\|");
    let ticks = if one_line.contains('`') { "``" } else { "`" };
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{one_line}{pad}{ticks}")
}

/// The matrix section.
pub(crate) fn markdown(fingerprints: &[Fingerprint]) -> String {
    let mut out = String::from("## What reaches the model, per client (fingerprints)\n\n");
    out.push_str(
        "Each client ran once against the lab's marker server (`modyo-lab marker`: every part of the server carries its own marker) \
with the marker plan (`mk_ok`: text and structuredContent; `mk_err`: `isError`; `mk_txt`: text only; `mk_jerr`: `isError` with a JSON \
text, from a tool that lists an `outputSchema`, as every migrated tool of ours does), and every request it sent \
to the model was searched for every marker ([`clients/<client>.marker.jsonl`](clients/) holds the marker-bearing parts of those \
requests, `clients/<client>.fingerprint.json` what is derived from them). A cell says in which requests of the conversation the \
part was (`✓ all 4`: every one of 4; `✓ 2–5`: from the second on, once it was loaded or answered; `—`: never). \
*Error under an output schema* is whether that JSON error text reached the model (a client that parses a JSON text as \
`structuredContent` and validates it against the tool's schema shows the model its own complaint instead); \
*result form* is what of a result with both text and structuredContent reached the model; *error flag* whether an `isError` \
result reached it in a form of its own (not only its text, in the shape of a success); *cache marks* in which requests the client \
marked a prompt-cache breakpoint (Anthropic's `cache_control`), which bills what the previous request already sent at the cache-read rate.\n\n",
    );
    let mut header = vec!["client", "version", "API", "definitions"];
    header.extend(COLUMNS.iter().map(|p| p.label()));
    header.extend(["result form", "error flag", "cache marks"]);
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(
        out,
        "|{}",
        header
            .iter()
            .enumerate()
            .map(|(i, _)| if i < 4 { "---|" } else { ":---:|" })
            .collect::<String>()
    );
    for f in fingerprints {
        let s = &f.subject;
        let mut row = vec![
            format!("{} (`{}`)", s.name, s.client),
            format!("{} `{}` {}", s.registry, s.package, s.version),
            s.api.describe().to_owned(),
            definitions(f.definitions).to_owned(),
        ];
        row.extend(COLUMNS.iter().map(|p| cell(f.seen(*p), f.requests)));
        row.push(f.result.describe().to_owned());
        row.push(if f.error_flag { "yes" } else { "no" }.to_owned());
        row.push(cache_cell(&f.cache_marks, f.requests));
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push_str("\nIn which form, per client (an example of each, cut around the marker):\n\n");
    for f in fingerprints {
        let _ = write!(out, "- **{}**:", f.subject.name);
        let mut notes = Vec::new();
        for part in [
            Part::Instructions,
            Part::StructuredContent,
            Part::Text,
            Part::TextOnly,
            Part::ErrorText,
            Part::SchemaErrorText,
        ] {
            if let Some(seen) = f.seen(part).filter(|s| !s.requests.is_empty()) {
                let at = seen.paths.first().map(String::as_str).unwrap_or_default();
                let example = seen.example.as_deref().unwrap_or_default();
                notes.push(format!("{} at `{at}`: {}", part.label(), code(example)));
            }
        }
        let others: Vec<&str> = OTHERS
            .iter()
            .filter(|p| **p != Part::TextOnly && f.reached(**p))
            .map(|p| p.label())
            .collect();
        if !others.is_empty() {
            notes.push(format!("also reached: {}", others.join(", ")));
        }
        if f.cache_marks.any() {
            let at: Vec<String> = f.cache_marks.paths.iter().map(|p| code(p)).collect();
            notes.push(format!("`cache_control` on {}", at.join(", ")));
        }
        let _ = writeln!(out, " {}.", notes.join("; "));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::Api;
    use crate::clients::fingerprint::{FORMAT, ResultForm, Subject};

    fn fingerprint() -> Fingerprint {
        let parts = Part::ALL
            .iter()
            .map(|&part| {
                let (requests, timing) = match part {
                    Part::Description => (vec![2, 3], Timing::From { first: 2 }),
                    Part::Instructions => (vec![1, 2, 3], Timing::Every),
                    Part::ErrorText => (vec![3], Timing::From { first: 3 }),
                    Part::Prompt => (vec![1, 3], Timing::Some),
                    _ => (Vec::new(), Timing::Absent),
                };
                Seen {
                    part,
                    example: (!requests.is_empty()).then(|| "a|b\n`c`".to_owned()),
                    paths: vec!["$.x".into()],
                    requests,
                    timing,
                }
            })
            .collect();
        Fingerprint {
            format: FORMAT.into(),
            subject: Subject {
                client: "x".into(),
                name: "X".into(),
                registry: "npm".into(),
                package: "x".into(),
                version: "1.2".into(),
                date: "2026-12-01".into(),
                api: Api::Responses,
            },
            requests: 3,
            definitions: Definitions::OnDemand { names_first: false },
            result: ResultForm::Text,
            error_flag: true,
            parts,
            cache_marks: CacheMarks {
                requests: vec![2, 3],
                paths: vec!["$.system[*]".into()],
            },
        }
    }

    #[test]
    fn every_cell_comes_from_the_fingerprint() {
        let md = markdown(&[fingerprint()]);
        let row = md
            .lines()
            .find(|l| l.starts_with("| X (`x`)"))
            .expect("a row");
        assert_eq!(
            row,
            "| X (`x`) | npm `x` 1.2 | OpenAI Responses | on demand (nothing before) | — | ✓ 2–3 | — | — | — | — | ✓ all 3 | — | — | ✓ 3–3 | — | text | yes | ✓ 2–3 |"
        );
        assert!(
            md.contains("instructions at `$.x`: `` a\\|b\\n`c` ``"),
            "{md}"
        );
        assert!(
            md.contains("also reached: prompt; `cache_control` on `$.system[*]`."),
            "{md}"
        );
        let header = md
            .lines()
            .find(|l| l.starts_with("| client"))
            .expect("header");
        assert_eq!(header.matches('|').count(), row.matches(" | ").count() + 2);
    }
}
