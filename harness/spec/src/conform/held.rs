//! A documented request held to its operation: the query (names, types, required ones), the
//! request body (keys, types, required ones), the status and the response body.

use std::fmt::Write as _;

use serde_json::Value;

use super::{
    COLLECTION_PARAMS, COLLECTION_PARAMS_EVIDENCE, Class, Finding, Judgement, Kind, ResponseHeld,
    WarningKind,
};
use crate::shape::{Mismatch, Shape, conform};
use crate::surface::{Operation, Surface};
use modyo_replay::cassette::{Interaction, ResponseBody};
use modyo_replay::template::Template;

/// Holds a documented request to its operation.
pub(super) fn held(
    surface: &Surface,
    op: &Operation,
    template: &Template,
    interaction: &Interaction,
    fault: bool,
) -> Judgement {
    let mut contradictions = Vec::new();
    let mut warnings = Vec::new();
    let request = &interaction.request;
    let collection = surface.api == "admin" && op.method == "GET" && is_collection(op);
    for (name, value) in request.query.iter() {
        let values = value.values();
        if let Some(shape) = op.query.get(name) {
            if let Err(why) = shape.conform_query(values) {
                contradictions.push(Finding {
                    kind: Kind::QueryType,
                    subject: name.to_owned(),
                    detail: why,
                });
            }
        } else if op.unlocated.contains_key(name) {
            warnings.push(Finding {
                kind: WarningKind::UnlocatedParam,
                subject: name.to_owned(),
                detail: "declared where no request can carry it (in the path without a template variable, or nowhere); sent in the query".into(),
            });
        } else if let Some((_, shape)) = COLLECTION_PARAMS
            .iter()
            .find(|(n, _)| collection && *n == name)
        {
            let shape = if name.ends_with("[]") {
                Shape::Array(Box::new(shape.clone()))
            } else {
                shape.clone()
            };
            match shape.conform_query(values) {
                Ok(()) => warnings.push(Finding {
                    kind: WarningKind::CollectionParam,
                    subject: name.to_owned(),
                    detail: format!("not declared by the operation; documented for every list ({COLLECTION_PARAMS_EVIDENCE})"),
                }),
                Err(why) => contradictions.push(Finding {
                    kind: Kind::QueryType,
                    subject: name.to_owned(),
                    detail: why,
                }),
            }
        } else {
            let declared: Vec<&str> = op.query.keys().map(String::as_str).collect();
            contradictions.push(Finding {
                kind: Kind::QueryName,
                subject: name.to_owned(),
                detail: format!(
                    "not a parameter of {} {} (declared: {})",
                    op.method,
                    op.path,
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
            });
        }
    }
    for name in &op.required.query {
        if request.query.get(name).is_none() {
            contradictions.push(Finding {
                kind: Kind::QueryRequired,
                subject: name.clone(),
                detail: format!(
                    "{} {} requires the query parameter {name}; not sent",
                    op.method, op.path
                ),
            });
        }
    }
    missing_body_keys(op, request.body.as_ref(), &mut contradictions);
    if let Some(body) = &request.body {
        request_body(op, body, &mut contradictions);
    }
    let status = interaction.response.status;
    let response = if fault {
        ResponseHeld::Fault
    } else if let Some(declared) = op.response(status) {
        if let Some(shape) = declared {
            response_body(
                shape,
                &interaction.response.body,
                &mut contradictions,
                &mut warnings,
            );
        }
        ResponseHeld::Held
    } else if status >= 500 || status == 429 {
        ResponseHeld::Outage
    } else if status == 401 && surface.authenticated {
        ResponseHeld::Unauthorized
    } else {
        let declared: Vec<&str> = op.responses.keys().map(String::as_str).collect();
        contradictions.push(Finding {
            kind: Kind::Status,
            subject: status.to_string(),
            detail: format!(
                "{status} is not a declared response of {} {} (declared: {})",
                op.method,
                op.path,
                declared.join(", ")
            ),
        });
        ResponseHeld::Held
    };
    contradictions.sort();
    contradictions.dedup();
    warnings.sort();
    warnings.dedup();
    Judgement {
        endpoint: format!("{} {template}", op.method),
        class: Class::Documented,
        response,
        contradictions,
        warnings,
    }
}

/// A list: the declared `200` body has a top-level array.
fn is_collection(op: &Operation) -> bool {
    matches!(
        op.response(200),
        Some(Some(Shape::Object(keys))) if keys.values().any(|s| matches!(s, Shape::Array(_)))
    )
}

fn request_body(op: &Operation, body: &Value, contradictions: &mut Vec<Finding<Kind>>) {
    let declared = match (&op.body, op.form.is_empty()) {
        (Some(shape), _) => shape.clone(),
        (None, false) => Shape::Object(op.form.clone()),
        (None, true) => {
            match body {
                Value::Null => {}
                Value::Object(map) => {
                    for key in map.keys() {
                        contradictions.push(Finding {
                            kind: Kind::BodyKey,
                            subject: format!("$.{key}"),
                            detail: format!("{} {} declares no request body", op.method, op.path),
                        });
                    }
                }
                other => contradictions.push(Finding {
                    kind: Kind::BodyType,
                    subject: "$".into(),
                    detail: format!(
                        "{} {} declares no request body, found {}",
                        op.method,
                        op.path,
                        crate::shape::json_type(other)
                    ),
                }),
            }
            return;
        }
    };
    let unknown = held_body(body, &declared, Kind::BodyType, "sent", contradictions);
    contradictions.extend(unknown.into_iter().map(|at| Finding {
        kind: Kind::BodyKey,
        subject: at,
        detail: format!("not a declared key of the {} {} body", op.method, op.path),
    }));
}

/// Every required body key (or form field) the request leaves out, as `body_required`: `$`
/// when a required body is absent; a nested key only where its parent is present (each item
/// of an array).
fn missing_body_keys(
    op: &Operation,
    body: Option<&Value>,
    contradictions: &mut Vec<Finding<Kind>>,
) {
    let body = body.filter(|b| !b.is_null());
    let required = &op.required;
    if body.is_none() && required.body.contains("$") {
        contradictions.push(Finding {
            kind: Kind::BodyRequired,
            subject: "$".into(),
            detail: format!(
                "{} {} requires a request body; none sent",
                op.method, op.path
            ),
        });
    }
    let Some(body) = body else {
        // Without a body, no key of it can be checked (a required body is reported above).
        return;
    };
    let form = required.form.iter().map(|f| format!("$.{f}"));
    for path in required.body.iter().cloned().chain(form) {
        if path == "$" {
            continue;
        }
        let missing = absent(body, &path);
        let Some(first) = missing.first() else {
            continue;
        };
        let mut detail = format!("{} {} requires {path}; not sent", op.method, op.path);
        if *first != path {
            let _ = write!(detail, " (at {first}");
            if missing.len() > 1 {
                let _ = write!(detail, " and {} more", missing.len() - 1);
            }
            detail.push(')');
        }
        contradictions.push(Finding {
            kind: Kind::BodyRequired,
            subject: path,
            detail,
        });
    }
}

/// Where the required key at `path` (`$.steps[].name`) is missing in `body`: the concrete
/// paths (`$.steps[1].name`) of every present parent object that lacks it. A parent that is
/// absent or not an object (a wrong type is another contradiction) lacks nothing.
fn absent(body: &Value, path: &str) -> Vec<String> {
    // `$.steps[].name` -> ["steps", "[]", "name"]
    let mut steps: Vec<&str> = Vec::new();
    for part in path
        .trim_start_matches('$')
        .split('.')
        .filter(|p| !p.is_empty())
    {
        let mut rest = part;
        let name = rest.split("[]").next().unwrap_or_default();
        if !name.is_empty() {
            steps.push(name);
        }
        rest = &rest[name.len()..];
        while let Some(more) = rest.strip_prefix("[]") {
            steps.push("[]");
            rest = more;
        }
    }
    let mut found = Vec::new();
    walk_absent(body, &steps, "$".to_owned(), &mut found);
    found
}

fn walk_absent(value: &Value, steps: &[&str], at: String, found: &mut Vec<String>) {
    let Some((step, rest)) = steps.split_first() else {
        return;
    };
    if *step == "[]" {
        if let Value::Array(items) = value {
            for (i, item) in items.iter().enumerate() {
                walk_absent(item, rest, format!("{at}[{i}]"), found);
            }
        }
        return;
    }
    let Value::Object(map) = value else {
        return;
    };
    let here = format!("{at}.{step}");
    match map.get(*step) {
        None => {
            if rest.is_empty() {
                found.push(here);
            }
        }
        Some(next) => walk_absent(next, rest, here, found),
    }
}

/// Holds a JSON body to its shape: every type or value mismatch becomes a contradiction of
/// `kind`, its detail in the words of its side (`verb`: `sent`, `answered`); the paths of
/// the keys the shape does not list are returned.
fn held_body(
    body: &Value,
    shape: &Shape,
    kind: Kind,
    verb: &str,
    contradictions: &mut Vec<Finding<Kind>>,
) -> Vec<String> {
    let mut found = Vec::new();
    conform(body, shape, "$", &mut found);
    let mut unknown = Vec::new();
    for mismatch in found {
        let (subject, detail) = match mismatch {
            Mismatch::Type {
                at,
                expected,
                found,
            } => (at, format!("declared {expected}, {verb} {found}")),
            Mismatch::Value {
                at,
                documented,
                found,
            } => (
                at,
                format!("{verb} '{found}', not a documented value ({documented})"),
            ),
            Mismatch::UnknownKey { at } => {
                unknown.push(at);
                continue;
            }
        };
        contradictions.push(Finding {
            kind,
            subject,
            detail,
        });
    }
    unknown
}

fn response_body(
    shape: &Shape,
    body: &ResponseBody,
    contradictions: &mut Vec<Finding<Kind>>,
    warnings: &mut Vec<Finding<WarningKind>>,
) {
    let value = match body {
        ResponseBody::Json(value) => value,
        ResponseBody::Empty => return,
        ResponseBody::Text(_) | ResponseBody::Bytes(_) => {
            if matches!(
                shape,
                Shape::Object(_) | Shape::FreeObject | Shape::Array(_)
            ) {
                contradictions.push(Finding {
                    kind: Kind::ResponseType,
                    subject: "$".into(),
                    detail: format!("declared {}, answered a non-JSON body", shape.describe()),
                });
            }
            return;
        }
    };
    let unknown = held_body(value, shape, Kind::ResponseType, "answered", contradictions);
    warnings.extend(unknown.into_iter().map(|at| Finding {
        kind: WarningKind::ResponseKey,
        subject: at,
        detail: "a key the specification does not list".into(),
    }));
}
