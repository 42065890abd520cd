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

use serde::Serialize;

use super::SpecError;
use super::errata::{Erratum, Place};
use super::shape::Shape;
use super::surface::{Operation, Surface};
use modyo_replay::cassette::{Interaction, Undocumented};
use modyo_replay::template::{self, Segment as TemplateSegment, Template};

mod held;
use held::held;

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
            match crate::amend::apply(&mut corrected, erratum) {
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

/// Counts, for summaries: how many of each key.
pub fn count<K: Ord + Copy>(items: impl IntoIterator<Item = K>) -> BTreeMap<K, usize> {
    let mut counts = BTreeMap::new();
    for item in items {
        *counts.entry(item).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests;
