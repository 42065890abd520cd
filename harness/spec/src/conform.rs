//! One interaction held to the API surface: which endpoint it is, and how it contradicts the
//! specification, if it does.
//!
//! The endpoint of a request is found in this order:
//!
//! 1. a documented operation with the request's method whose template matches the path, every
//!    path parameter of its declared type (the most specific template wins);
//! 2. else an `undocumented` mark of the cassette with that method whose template matches;
//! 3. else a contradiction: `path_type` when a documented template with that method matches
//!    but a path parameter is of the wrong type, `method` when templates match but none
//!    declares the method, `path` when no documented template matches at all.
//!
//! A documented request is then held to its operation: every query key a declared parameter
//! of its declared type (`query_name`, `query_type`), every query parameter it marks required
//! sent (`query_required`), every request body key declared with its type (`body_key`,
//! `body_type`), every body key, form field or body it marks required sent (`body_required`; a
//! nested key only where its parent is), the response status declared (`status`) and the response
//! body's types as declared (`response_type`). A value outside the documented enumeration of
//! its parameter or key is a value not of its declared type, and of the same kinds
//! (`query_type`, `body_type`, `response_type`, `path_type`). A response key the operation
//! does not list is a warning, counted, not a contradiction.
//!
//! Three kinds of response are not held to the operation, each counted apart:
//!
//! - every response of a cassette tagged `fault`: a deliberate fault injection (a status, a
//!   body or a shape the API would not give) whose request must still be real or marked;
//! - `5xx` and `429` answers: outages and throttling, which HTTP allows on any request and
//!   no API description lists per operation;
//! - `401` from an API whose document requires credentials.
//!
//! Lists of the admin API also accept `page`, `per_page`, `only[]`, `sort_by` and `order`
//! where the operation does not declare them: the Modyo documentation states that every list
//! takes them (`docs/en/platform/core/api.md`, "Pagination" and "Common collection
//! parameters"). Each such use is a warning, counted.

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::SpecError;
use super::errata::{Erratum, Place};
use super::shape::{Mismatch, Shape, conform};
use super::surface::{Operation, Surface};
use modyo_replay::cassette::{Interaction, ResponseBody, Undocumented};
use modyo_replay::template::{self, Segment as TemplateSegment, Template};

/// The query parameters every list of the admin API takes, documented once for all lists.
pub const COLLECTION_PARAMS: [(&str, Shape); 5] = [
    ("page", Shape::Integer),
    ("per_page", Shape::Integer),
    ("sort_by", Shape::String),
    ("order", Shape::String),
    ("only[]", Shape::String),
];

/// Where the collection parameters are documented.
pub const COLLECTION_PARAMS_EVIDENCE: &str = "modyo-docs:docs/en/platform/core/api.md";

/// The kind of a contradiction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// No documented path matches, and no mark covers the request.
    Path,
    /// Documented paths match, but none declares the method.
    Method,
    /// A path parameter is not of its declared type (or not one of its documented values).
    PathType,
    /// A query key is not a declared parameter.
    QueryName,
    /// A query value is not of its parameter's declared type (or not one of its documented
    /// values).
    QueryType,
    /// A query parameter the operation marks required is not sent.
    QueryRequired,
    /// A request body key is not declared.
    BodyKey,
    /// A request body value is not of its declared type (or not one of its documented values).
    BodyType,
    /// A request body key (or form field, or the body itself) the operation marks required is
    /// not sent.
    BodyRequired,
    /// The response status is not declared.
    Status,
    /// A response body value is not of its declared type (or not one of its documented
    /// values).
    ResponseType,
}

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 11] = [
        Kind::Path,
        Kind::Method,
        Kind::PathType,
        Kind::QueryName,
        Kind::QueryType,
        Kind::QueryRequired,
        Kind::BodyKey,
        Kind::BodyType,
        Kind::BodyRequired,
        Kind::Status,
        Kind::ResponseType,
    ];

    /// The written name (`query_name`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Path => "path",
            Kind::Method => "method",
            Kind::PathType => "path_type",
            Kind::QueryName => "query_name",
            Kind::QueryType => "query_type",
            Kind::QueryRequired => "query_required",
            Kind::BodyKey => "body_key",
            Kind::BodyType => "body_type",
            Kind::BodyRequired => "body_required",
            Kind::Status => "status",
            Kind::ResponseType => "response_type",
        }
    }

    /// The kind written `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A response key the operation does not list.
    ResponseKey,
    /// A collection parameter the operation does not declare (documented for every list).
    CollectionParam,
    /// A query key the operation declares only where no request can carry it.
    UnlocatedParam,
}

impl WarningKind {
    /// The written name (`response_key`).
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::ResponseKey => "response_key",
            WarningKind::CollectionParam => "collection_param",
            WarningKind::UnlocatedParam => "unlocated_param",
        }
    }
}

/// One contradiction found in one interaction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding<K> {
    /// What kind.
    pub kind: K,
    /// What exactly: the parameter, the JSON path (`$.entries[].id`), the status; empty when
    /// the endpoint itself is the subject.
    pub subject: String,
    /// What the specification says instead.
    pub detail: String,
}

/// How a response was held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseHeld {
    /// Held to the declared status and body.
    Held,
    /// A cassette tagged `fault`: deliberately outside the specification.
    Fault,
    /// A `5xx` or `429` answer.
    Outage,
    /// A `401` from an API that requires credentials.
    Unauthorized,
    /// Not held: the request is not documented.
    NotApplicable,
}

/// What one interaction is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Class {
    /// On a documented operation (contradictions, if any, are listed apart).
    Documented,
    /// On an endpoint the cassette marks undocumented (the mark's index).
    Undocumented {
        /// The index of the mark in the cassette's `undocumented`.
        mark: usize,
    },
    /// On no documented operation and under no mark.
    Unknown,
}

/// One interaction, judged.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    /// `METHOD /full/template`: the documented operation, the mark, or for an unknown
    /// endpoint the path with its identifiers generalized.
    pub endpoint: String,
    /// Documented, undocumented or unknown.
    #[serde(flatten)]
    pub class: Class,
    /// How its response was held.
    pub response: ResponseHeld,
    /// Its contradictions.
    pub contradictions: Vec<Finding<Kind>>,
    /// Its warnings.
    pub warnings: Vec<Finding<WarningKind>>,
}

struct IndexedOperation {
    api: usize,
    index: usize,
    template: Template,
}

/// Every surface, indexed for matching request paths; corrected by the errata it was given
/// ([`Surfaces::with_errata`]).
#[derive(Debug)]
pub struct Surfaces {
    surfaces: Vec<Surface>,
    operations: Vec<IndexedOperation>,
    /// The surfaces as published (before any erratum).
    published: Vec<Surface>,
    /// The errata applied, in the given order.
    applied: Vec<Erratum>,
    /// The errata refused (stale or malformed), each with why.
    refused: Vec<(Erratum, String)>,
}

impl fmt::Debug for IndexedOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.template)
    }
}

impl Surfaces {
    /// Indexes `surfaces`.
    pub fn new(surfaces: Vec<Surface>) -> Result<Surfaces, SpecError> {
        let mut operations = Vec::new();
        for (api, surface) in surfaces.iter().enumerate() {
            for (index, op) in surface.operations.iter().enumerate() {
                let full = template::join(&surface.base_path, &op.path);
                let template = Template::parse(&full).map_err(|reason| SpecError::Document {
                    api: surface.api.clone(),
                    reason,
                })?;
                operations.push(IndexedOperation {
                    api,
                    index,
                    template,
                });
            }
        }
        Ok(Surfaces {
            published: surfaces.clone(),
            surfaces,
            operations,
            applied: Vec::new(),
            refused: Vec::new(),
        })
    }

    /// Indexes `surfaces` corrected by `errata`: each erratum that matches the surfaces is
    /// applied; one that does not (stale, or without valid evidence) is refused, with why
    /// ([`Surfaces::refused`]).
    pub fn with_errata(surfaces: Vec<Surface>, errata: &[Erratum]) -> Result<Surfaces, SpecError> {
        let mut corrected = surfaces.clone();
        let mut applied = Vec::new();
        let mut refused = Vec::new();
        for erratum in errata {
            match super::errata::apply(&mut corrected, erratum) {
                Ok(()) => applied.push(*erratum),
                Err(why) => refused.push((*erratum, why)),
            }
        }
        let mut indexed = Surfaces::new(corrected)?;
        indexed.published = surfaces;
        indexed.applied = applied;
        indexed.refused = refused;
        Ok(indexed)
    }

    /// Loads every surface file of `dir`.
    pub fn load(dir: &std::path::Path) -> Result<Surfaces, SpecError> {
        Surfaces::load_with_errata(dir, &[])
    }

    /// Loads every surface file of `dir`, corrected by `errata`.
    pub fn load_with_errata(
        dir: &std::path::Path,
        errata: &[Erratum],
    ) -> Result<Surfaces, SpecError> {
        Surfaces::with_errata(
            super::surface::read_dir(dir)?
                .into_iter()
                .map(|(_, _, s)| s)
                .collect(),
            errata,
        )
    }

    /// The errata applied.
    pub fn errata(&self) -> &[Erratum] {
        &self.applied
    }

    /// The errata refused, each with why.
    pub fn refused(&self) -> &[(Erratum, String)] {
        &self.refused
    }

    /// The published surfaces corrected by every applied erratum but the one at `skip`.
    pub fn without_erratum(&self, skip: usize) -> Result<Surfaces, SpecError> {
        let others: Vec<Erratum> = self
            .applied
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, e)| *e)
            .collect();
        Surfaces::with_errata(self.published.clone(), &others)
    }

    /// `METHOD /full/template` of a place, as judgements name endpoints.
    pub fn endpoint_of(&self, place: &Place) -> Option<String> {
        let (method, path) = place.operation.split_once(' ')?;
        let surface = self.surfaces.iter().find(|s| s.api == place.api)?;
        Some(format!(
            "{method} {}",
            template::join(&surface.base_path, path)
        ))
    }

    /// The surfaces, in file order.
    pub fn surfaces(&self) -> &[Surface] {
        &self.surfaces
    }

    fn operation(&self, indexed: &IndexedOperation) -> (&Surface, &Operation) {
        let surface = &self.surfaces[indexed.api];
        (surface, &surface.operations[indexed.index])
    }

    /// Whether every bound path value is of its declared type.
    fn typed(&self, indexed: &IndexedOperation, bound: &[(&str, &str)]) -> Option<String> {
        let (_, op) = self.operation(indexed);
        bound.iter().find_map(|(name, value)| {
            let shape = op.path_params.get(*name).unwrap_or(&Shape::Any);
            shape
                .conform_query(&[(*value).to_owned()])
                .err()
                .map(|why| format!("path parameter {{{name}}}: {why}"))
        })
    }

    /// A documented operation that a mark would shadow: same method, a template that matches
    /// the same paths (a mark's literal taken as a value of the operation's variable only
    /// when it is of the variable's type).
    pub fn documents_mark(&self, mark: &Undocumented) -> Option<String> {
        let Ok(marked) = Template::parse(&mark.path) else {
            return None;
        };
        self.operations.iter().find_map(|indexed| {
            let (_, op) = self.operation(indexed);
            if op.method != mark.method || !indexed.template.covers(&marked) {
                return None;
            }
            // `covers` took the mark's literals as values of the template's variables.
            let literals: Vec<&str> = template::segments(&mark.path);
            let bound = indexed.template.bind(&literals).unwrap_or_default();
            let typed = bound
                .iter()
                .filter(|(_, v)| !v.starts_with('{'))
                .all(|(name, value)| {
                    op.path_params
                        .get(*name)
                        .unwrap_or(&Shape::Any)
                        .conform_query(&[(*value).to_owned()])
                        .is_ok()
                });
            typed.then(|| format!("{} {}", op.method, indexed.template))
        })
    }

    /// Judges one interaction of a cassette with the given marks.
    pub fn judge(
        &self,
        interaction: &Interaction,
        marks: &[Undocumented],
        fault: bool,
    ) -> Judgement {
        let request = &interaction.request;
        let path = template::segments(&request.path);
        let matching: Vec<(&IndexedOperation, Vec<(&str, &str)>)> = self
            .operations
            .iter()
            .filter_map(|o| o.template.bind(&path).map(|b| (o, b)))
            .collect();
        let same_method = |o: &&(&IndexedOperation, Vec<(&str, &str)>)| {
            self.operation(o.0).1.method == request.method
        };
        let documented = matching
            .iter()
            .filter(same_method)
            .filter(|(o, b)| self.typed(o, b).is_none())
            .max_by(|a, b| a.0.template.specificity(&b.0.template));
        if let Some((indexed, _)) = documented {
            let (surface, op) = self.operation(indexed);
            return held(surface, op, &indexed.template, interaction, fault);
        }
        let mark = marks.iter().enumerate().find(|(_, m)| {
            m.method == request.method
                && Template::parse(&m.path).is_ok_and(|t| t.bind(&path).is_some())
        });
        if let Some((index, mark)) = mark {
            return Judgement {
                endpoint: format!("{} {}", mark.method, mark.path),
                class: Class::Undocumented { mark: index },
                response: ResponseHeld::NotApplicable,
                contradictions: Vec::new(),
                warnings: Vec::new(),
            };
        }
        let unknown = |endpoint: String, kind: Kind, subject: String, detail: String| Judgement {
            endpoint: format!("{} {endpoint}", request.method),
            class: Class::Unknown,
            response: ResponseHeld::NotApplicable,
            contradictions: vec![Finding {
                kind,
                subject,
                detail,
            }],
            warnings: Vec::new(),
        };
        if let Some((indexed, bound)) = matching
            .iter()
            .filter(same_method)
            .max_by(|a, b| a.0.template.specificity(&b.0.template))
        {
            let why = self.typed(indexed, bound).unwrap_or_default();
            let subject = why
                .split_once('}')
                .map(|(p, _)| p.trim_start_matches("path parameter {").to_owned())
                .unwrap_or_default();
            return unknown(indexed.template.to_string(), Kind::PathType, subject, why);
        }
        if let Some((indexed, _)) = matching
            .iter()
            .max_by(|a, b| a.0.template.specificity(&b.0.template))
        {
            let mut declared: Vec<&str> = matching
                .iter()
                .filter(|(o, _)| o.template == indexed.template)
                .map(|(o, _)| self.operation(o).1.method.as_str())
                .collect();
            declared.sort_unstable();
            return unknown(
                indexed.template.to_string(),
                Kind::Method,
                String::new(),
                format!(
                    "{} is not declared for {} (declared: {}); if the specification lacks this endpoint, mark it undocumented with its evidence",
                    request.method,
                    indexed.template,
                    declared.join(", ")
                ),
            );
        }
        unknown(
            self.generalize(&path),
            Kind::Path,
            String::new(),
            "no documented path matches; if the specification lacks this endpoint, mark it undocumented with its evidence".into(),
        )
    }

    /// The path with identifiers generalized: where documented templates sharing the prefix
    /// so far have a variable, its name; otherwise numbers and UUIDs become `{id}`.
    pub fn generalize(&self, path: &[&str]) -> String {
        let mut candidates: Vec<&Template> = self.operations.iter().map(|o| &o.template).collect();
        let mut out = String::new();
        for (i, segment) in path.iter().enumerate() {
            let at = |t: &&Template| t.segment(i).cloned();
            let literal = candidates.iter().any(|t| {
                at(t).is_some_and(|s| s == TemplateSegment::Literal((*segment).to_owned()))
            });
            let variable = candidates.iter().find_map(|t| match at(t) {
                Some(TemplateSegment::Variable(name)) => Some(name),
                _ => None,
            });
            let written = if literal {
                (*segment).to_owned()
            } else if let Some(name) = &variable {
                format!("{{{name}}}")
            } else if is_identifier(segment) {
                "{id}".to_owned()
            } else {
                (*segment).to_owned()
            };
            candidates.retain(|t| match at(t) {
                Some(TemplateSegment::Literal(l)) => literal && l == *segment,
                Some(TemplateSegment::Variable(_)) => !literal,
                None => false,
            });
            out.push('/');
            out.push_str(&written);
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }
}

/// A number or a UUID: a value, not a name.
fn is_identifier(segment: &str) -> bool {
    (!segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()))
        || (segment.len() == 36
            && segment.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
            && segment.bytes().filter(|b| *b == b'-').count() == 4)
}

/// Holds a documented request to its operation.
fn held(
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
                        super::shape::json_type(other)
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

/// Counts, for summaries: how many of each key.
pub fn count<K: Ord + Copy>(items: impl IntoIterator<Item = K>) -> BTreeMap<K, usize> {
    let mut counts = BTreeMap::new();
    for item in items {
        *counts.entry(item).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
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
        let mark =
            |m: &str, p: &str| Undocumented::new(m, p, modyo_replay::cassette::Evidence::None);
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
}
