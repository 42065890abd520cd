//! Errata: the places where Modyo's published specification is wrong, corrected with the
//! evidence that shows it.
//!
//! An erratum names what the published document gets wrong (`subject`, as a reader finds it
//! there), every place of the imported surface where that shows (`places`: an operation, the
//! request body or a response, a JSON path in it, or a query parameter), what the surface
//! declares there now
//! (`declared`), the correction (`corrected`, as narrow as the evidence allows), the evidence
//! and why it proves the correction. Shapes are written in the compact form of the surface
//! files ([`super::shape`]).
//!
//! Evidence is either another place of the same surface that declares the thing differently
//! (checked: the surface must still declare `shape` there) or a public source, written as a
//! cassette mark's evidence (`modyo-docs:docs/....md`, `@modyo/<package>@<version>:<file>`;
//! never `none`) with what it shows. An erratum without evidence is refused.
//!
//! The surfaces are corrected when they are loaded for `cassettes check` and `spec coverage`
//! ([`super::Surfaces::with_errata`]); the committed surface files stay what the import gives.
//! `cassettes check` fails on an erratum that no longer matches the surface (stale: a place
//! gone or declaring something else, or evidence the surface no longer holds) and on one no
//! interaction needs (unused: judging the cassettes without it finds no more contradictions).
//! `reports/api-coverage.md` lists every erratum in its own section.

use std::fmt;

use serde_json::Value;

use super::shape::Shape;
use super::surface::{Operation, Surface};

/// The file that holds the list, for messages.
pub const LIST_FILE: &str = "harness/spec/src/errata.rs";

/// Which part of an operation a place is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The JSON request body.
    Body,
    /// The body of the response with this declared status (`"200"`).
    Response(&'static str),
    /// A query parameter (`at` is its name, as sent: `states[]`).
    Query,
    /// A parameter declared where no request can carry it (`at` is its name); evidence only.
    Unlocated,
}

/// A place in a surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The surface (`admin`).
    pub api: &'static str,
    /// `METHOD /path` relative to the API's base path (`GET /sites/{site_id}`).
    pub operation: &'static str,
    /// Which part of it.
    pub part: Part,
    /// A JSON path in that part (`$.field_values[].value`; `$` for the whole of it), or the
    /// parameter's name for [`Part::Query`] and [`Part::Unlocated`].
    pub at: &'static str,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.part {
            Part::Body => write!(f, "{} {} body {}", self.api, self.operation, self.at),
            Part::Response(status) => {
                write!(f, "{} {} {status} {}", self.api, self.operation, self.at)
            }
            Part::Query => write!(f, "{} {} query {}", self.api, self.operation, self.at),
            Part::Unlocated => write!(
                f,
                "{} {} parameter {} (declared where no request can carry it)",
                self.api, self.operation, self.at
            ),
        }
    }
}

/// What shows that the published document is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Another place of the surface declares `shape` (checked against the surface).
    Spec {
        /// The place.
        place: Place,
        /// What it declares there (compact shape).
        shape: &'static str,
    },
    /// A public source.
    Source {
        /// `modyo-docs:docs/....md` or `@modyo/<package>@<version>:<file>`.
        source: &'static str,
        /// What it shows, in our words.
        shows: &'static str,
    },
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evidence::Spec { place, shape } => write!(f, "{place} declares {shape}"),
            Evidence::Source { source, shows } => write!(f, "{source}: {shows}"),
        }
    }
}

/// One correction of the published specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Erratum {
    /// A short name (`site-status`).
    pub name: &'static str,
    /// What the published document gets wrong, as named there (`definitions.Site.status`).
    pub subject: &'static str,
    /// Every place of the surface where it shows.
    pub places: &'static [Place],
    /// What the surface declares at each place (compact shape); `None`: the key is absent.
    pub declared: Option<&'static str>,
    /// The correction (compact shape).
    pub corrected: &'static str,
    /// What shows the document is wrong; never empty.
    pub evidence: &'static [Evidence],
    /// Why the evidence proves the correction, in our words.
    pub reason: &'static str,
}

impl Erratum {
    /// The correction, parsed.
    pub fn corrected_shape(&self) -> Result<Shape, String> {
        parse_shape(self.corrected)
    }
}

fn parse_shape(text: &str) -> Result<Shape, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("'{text}': {e}"))?;
    Shape::from_value(&value).map_err(|e| format!("'{text}': {e}"))
}

/// Every correction applied to the published specification.
pub const ERRATA: &[Erratum] = &[
    Erratum {
        name: "site-status",
        subject: "admin definitions.Site.properties.status (integer, enum 0, 2, 3)",
        places: &[
            Place {
                api: "admin",
                operation: "GET /sites/{site_id}",
                part: Part::Response("200"),
                at: "$.status",
            },
            Place {
                api: "admin",
                operation: "POST /sites",
                part: Part::Response("201"),
                at: "$.status",
            },
            Place {
                api: "admin",
                operation: "PUT /sites/{site_id}",
                part: Part::Response("200"),
                at: "$.status",
            },
        ],
        declared: Some(r#"{"integer": [0, 2, 3]}"#),
        corrected: "\"string\"",
        evidence: &[
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "GET /sites",
                    part: Part::Response("200"),
                    at: "$.sites[].status",
                },
                shape: SITE_STATUSES,
            },
            Evidence::Source {
                source: "@modyo/cli@3.6.2:lib/push/get-modyo-site-id.js",
                shows: "the CLI filters the sites list by a status word (`status=staging`)",
            },
            Evidence::Source {
                source: "modyo-docs:docs/en/platform/channels/sites.md",
                shows: "a web application is in one of three states named by words: Enabled, Draft and Disabled (besides two transient ones the platform sets while cloning or deleting)",
            },
        ],
        reason: "the same document types a site's status as a string in the sites list (enum enabled, disabled, draft) and in that list's `status` filter; only the single-site definition says integer",
    },
    Erratum {
        name: "sites-status-staging",
        subject: "admin paths./sites.get.parameters.status (enum enabled, disabled, draft)",
        places: &[Place {
            api: "admin",
            operation: "GET /sites",
            part: Part::Query,
            at: "status",
        }],
        declared: Some(SITE_STATUSES),
        corrected: r#"{"string": ["enabled", "disabled", "draft", "staging"]}"#,
        evidence: &[Evidence::Source {
            source: "@modyo/cli@3.6.2:lib/push/get-modyo-site-id.js",
            shows: "when the sites list is empty, the CLI asks for it again with `status=staging` to find a site not yet published",
        }],
        reason: "Modyo's own CLI sends `status=staging` to this operation, a value its enumeration lacks; the correction adds that one value and no other",
    },
    Erratum {
        name: "widget-definitions-list",
        subject: "admin paths./sites/{site_id}/widget_definitions.get.responses.200 (a single WidgetDefinition)",
        places: &[Place {
            api: "admin",
            operation: "GET /sites/{site_id}/widget_definitions",
            part: Part::Response("200"),
            at: "$",
        }],
        declared: Some(WIDGET_DEFINITION),
        corrected: WIDGET_DEFINITIONS_LIST,
        evidence: &[
            Evidence::Source {
                source: "@modyo/cli@3.6.2:lib/push/get-widget-id-in-site.js",
                shows: "the CLI reads this answer's `widget_definitions` array and looks for a name in it",
            },
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "GET /sites/{site_id}/widget_definitions/{id}",
                    part: Part::Response("200"),
                    at: "$",
                },
                shape: WIDGET_DEFINITION,
            },
        ],
        reason: "the list operation (it takes the `query` and `states[]` filters) declares the same single WidgetDefinition as the read of one widget; the CLI reads its answer as `{widget_definitions: [...]}`, rows of that definition. `meta` is not added: no source shows it",
    },
    Erratum {
        name: "space-default-locale",
        subject: "admin paths./content/spaces.post.parameters.default_locale (in: path, a path without that variable)",
        places: &[Place {
            api: "admin",
            operation: "POST /content/spaces",
            part: Part::Body,
            at: "$.default_locale",
        }],
        declared: None,
        corrected: "\"string\"",
        evidence: &[
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "POST /content/spaces",
                    part: Part::Unlocated,
                    at: "default_locale",
                },
                shape: "\"string\"",
            },
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "POST /content/spaces",
                    part: Part::Response("201"),
                    at: "$.default_locale",
                },
                shape: "\"string\"",
            },
        ],
        reason: "the operation declares a string `default_locale` parameter in a path that has no place for it, and the space it creates has a `default_locale`: the operation takes it, the document misplaces it. Where it goes is our reading (the document does not say): a top-level key of the JSON body, beside the space's other keys, as the server sends it",
    },
    Erratum {
        name: "field-value-value",
        subject: "admin definitions.FieldValue.properties.value (string)",
        places: &[
            Place {
                api: "admin",
                operation: "POST /content/spaces/{space_id}/entries",
                part: Part::Body,
                at: "$.field_values[].value",
            },
            Place {
                api: "admin",
                operation: "POST /content/spaces/{space_id}/entries",
                part: Part::Response("201"),
                at: "$.field_values[].value",
            },
            Place {
                api: "admin",
                operation: "GET /content/spaces/{space_id}/entries/{entry_id}",
                part: Part::Response("200"),
                at: "$.field_values[].value",
            },
            Place {
                api: "admin",
                operation: "PUT /content/spaces/{space_id}/entries/{entry_id}",
                part: Part::Body,
                at: "$.field_values[].value",
            },
        ],
        declared: Some("\"string\""),
        corrected: r#"{"any_of": ["string", "number", "boolean", {"array": "any"}, "object"]}"#,
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/content/types.md",
            shows: "field kinds hold numbers, booleans, several choices, several locations or assets, and links to entries",
        }],
        reason: "the same definition's `type` enum lists integer and decimal (a number), boolean, checkbox and multiple (several values), locations, assets and content_types (lists), asset and content_type (an object); a string value fits only the text, choice and date kinds",
    },
    Erratum {
        name: "realm-user-id",
        subject: "admin definitions.User.properties.id (string), the SCIM user, referenced by the realm user operations",
        places: &[
            Place {
                api: "admin",
                operation: "POST /customers/{realm_uid}/users",
                part: Part::Response("201"),
                at: "$.id",
            },
            Place {
                api: "admin",
                operation: "GET /customers/{realm_uid}/users/{user_id}",
                part: Part::Response("200"),
                at: "$.id",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}",
                part: Part::Response("200"),
                at: "$.id",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}/activate",
                part: Part::Response("200"),
                at: "$.id",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}/deactivate",
                part: Part::Response("200"),
                at: "$.id",
            },
        ],
        declared: Some("\"string\""),
        corrected: "\"integer\"",
        evidence: &[
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "GET /customers/{realm_uid}/users",
                    part: Part::Response("200"),
                    at: "$.users[].id",
                },
                shape: "\"integer\"",
            },
            Evidence::Spec {
                place: Place {
                    api: "admin",
                    operation: "PATCH /customers/{realm_uid}/users/bulk",
                    part: Part::Body,
                    at: "$.id",
                },
                shape: r#"{"array": "integer"}"#,
            },
        ],
        reason: "the single realm user answer references `User`, the SCIM user of /scim/users (schemas, userName, emails), while the realm users list declares the realm user (UserList) with an integer id and the bulk action takes integer user ids: a copy error",
    },
    Erratum {
        name: "realm-user-active",
        subject: "admin definitions.User.properties.active (string), the SCIM user, referenced by the realm user operations",
        places: &[
            Place {
                api: "admin",
                operation: "POST /customers/{realm_uid}/users",
                part: Part::Response("201"),
                at: "$.active",
            },
            Place {
                api: "admin",
                operation: "GET /customers/{realm_uid}/users/{user_id}",
                part: Part::Response("200"),
                at: "$.active",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}",
                part: Part::Response("200"),
                at: "$.active",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}/activate",
                part: Part::Response("200"),
                at: "$.active",
            },
            Place {
                api: "admin",
                operation: "PUT /customers/{realm_uid}/users/{user_id}/deactivate",
                part: Part::Response("200"),
                at: "$.active",
            },
        ],
        declared: Some("\"string\""),
        corrected: "\"boolean\"",
        evidence: &[Evidence::Spec {
            place: Place {
                api: "admin",
                operation: "GET /customers/{realm_uid}/users",
                part: Part::Response("200"),
                at: "$.users[].active",
            },
            shape: "\"boolean\"",
        }],
        reason: "the single realm user answer references `User`, the SCIM user of /scim/users, while the realm users list declares the realm user (UserList) with a boolean `active`: a copy error",
    },
];

/// The statuses of the sites list and its `status` filter, as the surface declares them.
const SITE_STATUSES: &str = r#"{"string": ["enabled", "disabled", "draft"]}"#;

/// The WidgetDefinition definition as the surface declares it.
const WIDGET_DEFINITION: &str = r#"{"object": {"created_at": "string", "dirty": "boolean", "id": "integer", "name": "string", "public": "boolean", "referenced": "boolean", "status": "string", "tags": "string", "updated_at": "string", "uuid": "string"}}"#;

/// A list of them, as the CLI reads it.
const WIDGET_DEFINITIONS_LIST: &str = r#"{"object": {"widget_definitions": {"array": {"object": {"created_at": "string", "dirty": "boolean", "id": "integer", "name": "string", "public": "boolean", "referenced": "boolean", "status": "string", "tags": "string", "updated_at": "string", "uuid": "string"}}}}}"#;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Item,
}

/// `$.a[].b` as steps; `None` when it is not such a path.
fn steps(at: &str) -> Option<Vec<Step>> {
    let mut rest = at.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[]") {
            out.push(Step::Item);
            rest = after;
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else {
            return None;
        }
    }
    Some(out)
}

fn operation<'a>(surfaces: &'a mut [Surface], place: &Place) -> Option<&'a mut Operation> {
    let (method, path) = place.operation.split_once(' ')?;
    surfaces
        .iter_mut()
        .find(|s| s.api == place.api)?
        .operations
        .iter_mut()
        .find(|o| o.method == method && o.path == path)
}

/// The shape of the part a place is in.
fn part<'a>(op: &'a mut Operation, place: &Place) -> Option<&'a mut Shape> {
    match place.part {
        Part::Body => op.body.as_mut(),
        Part::Response(status) => op.responses.get_mut(status)?.as_mut(),
        Part::Unlocated => op.unlocated.get_mut(place.at),
        // A query parameter is a whole; `declared_at` and `put` read and write it by name.
        Part::Query => None,
    }
}

/// The shape at `steps` in `shape`, or where it would go: the object holding the last key.
fn descend<'a>(shape: &'a mut Shape, steps: &[Step]) -> Option<&'a mut Shape> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(shape);
    };
    match (first, shape) {
        (Step::Key(key), Shape::Object(keys)) => descend(keys.get_mut(key)?, rest),
        (Step::Item, Shape::Array(item)) => descend(item, rest),
        _ => None,
    }
}

/// What the surface declares at `place` (`Ok(None)`: an object without that key); an error
/// when the place does not exist.
fn declared_at(surfaces: &mut [Surface], place: &Place) -> Result<Option<Shape>, String> {
    let missing = || format!("{place}: no such place in the surface");
    let op = operation(surfaces, place).ok_or_else(missing)?;
    if place.part == Part::Query {
        return Ok(op.query.get(place.at).cloned());
    }
    let whole = part(op, place).ok_or_else(missing)?;
    if place.part == Part::Unlocated {
        return Ok(Some(whole.clone()));
    }
    let steps = steps(place.at).ok_or_else(|| format!("{place}: not a JSON path"))?;
    if let Some(found) = descend(whole, &steps) {
        return Ok(Some(found.clone()));
    }
    match steps.split_last() {
        Some((Step::Key(_), parent)) => match descend(whole, parent) {
            Some(Shape::Object(_)) => Ok(None),
            _ => Err(missing()),
        },
        _ => Err(missing()),
    }
}

/// Puts `shape` at `place` (which [`declared_at`] found).
fn put(surfaces: &mut [Surface], place: &Place, shape: Shape) -> Result<(), String> {
    let missing = || format!("{place}: no such place in the surface");
    let op = operation(surfaces, place).ok_or_else(missing)?;
    if place.part == Part::Query {
        op.query.insert(place.at.to_owned(), shape);
        return Ok(());
    }
    let whole = part(op, place).ok_or_else(missing)?;
    let steps = steps(place.at).ok_or_else(missing)?;
    match steps.split_last() {
        None => *whole = shape,
        Some((last, parent)) => match (last, descend(whole, parent).ok_or_else(missing)?) {
            (Step::Key(key), Shape::Object(keys)) => {
                keys.insert(key.clone(), shape);
            }
            (Step::Item, Shape::Array(item)) => **item = shape,
            _ => return Err(missing()),
        },
    }
    Ok(())
}

fn describe(shape: Option<&Shape>) -> String {
    shape.map_or_else(
        || "nothing (no such key)".to_owned(),
        |s| serde_json::to_string(s).unwrap_or_default(),
    )
}

/// Why `erratum` cannot be applied to `surfaces` (stale, or not a valid erratum), if it
/// cannot.
pub fn refusal(surfaces: &[Surface], erratum: &Erratum) -> Option<String> {
    let mut scratch = surfaces.to_vec();
    let mut why = Vec::new();
    if erratum.evidence.is_empty() {
        why.push("it gives no evidence".to_owned());
    }
    if erratum.places.is_empty() {
        why.push("it names no place".to_owned());
    }
    if let Err(e) = erratum.corrected_shape() {
        why.push(format!("its correction is no shape: {e}"));
    }
    let declared = match erratum.declared.map(parse_shape).transpose() {
        Ok(declared) => declared,
        Err(e) => {
            why.push(format!("its declared shape is no shape: {e}"));
            None
        }
    };
    for place in erratum.places {
        if place.part == Part::Unlocated {
            why.push(format!(
                "{place}: only evidence can be an unlocated parameter"
            ));
            continue;
        }
        match declared_at(&mut scratch, place) {
            Err(e) => why.push(e),
            Ok(found) if found != declared => why.push(format!(
                "{place}: the surface declares {}, the erratum expects {}",
                describe(found.as_ref()),
                describe(declared.as_ref())
            )),
            Ok(_) => {}
        }
    }
    for evidence in erratum.evidence {
        match evidence {
            Evidence::Spec { place, shape } => {
                let expected = parse_shape(shape).ok();
                match declared_at(&mut scratch, place) {
                    Err(e) => why.push(format!("evidence {e}")),
                    Ok(found) if found != expected => why.push(format!(
                        "evidence {place}: the surface declares {}, the erratum cites {shape}",
                        describe(found.as_ref())
                    )),
                    Ok(_) => {}
                }
            }
            Evidence::Source { source, shows } => {
                match modyo_replay::cassette::Evidence::parse(source) {
                    Ok(parsed) if parsed.is_none() => {
                        why.push("evidence `none` is no evidence".to_owned());
                    }
                    Ok(_) if shows.trim().is_empty() => {
                        why.push(format!("evidence {source}: say what it shows"));
                    }
                    Ok(_) => {}
                    Err(e) => why.push(format!("evidence {e}")),
                }
            }
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Applies `erratum` to `surfaces`, or says why it cannot (nothing is changed then).
pub fn apply(surfaces: &mut [Surface], erratum: &Erratum) -> Result<(), String> {
    if let Some(why) = refusal(surfaces, erratum) {
        return Err(why);
    }
    let corrected = erratum.corrected_shape()?;
    for place in erratum.places {
        put(surfaces, place, corrected.clone())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_parse_into_steps() {
        assert_eq!(steps("$"), Some(vec![]));
        assert_eq!(
            steps("$.field_values[].value"),
            Some(vec![
                Step::Key("field_values".into()),
                Step::Item,
                Step::Key("value".into())
            ])
        );
        assert_eq!(steps("$[]"), Some(vec![Step::Item]));
        assert_eq!(steps("status"), None);
        assert_eq!(steps("$..a"), None);
    }

    #[test]
    fn every_erratum_is_well_formed() {
        for erratum in ERRATA {
            assert!(!erratum.evidence.is_empty(), "{}", erratum.name);
            assert!(!erratum.places.is_empty(), "{}", erratum.name);
            erratum.corrected_shape().expect("a correction is a shape");
            if let Some(declared) = erratum.declared {
                parse_shape(declared).expect("a declared shape is a shape");
            }
        }
        let mut names: Vec<&str> = ERRATA.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ERRATA.len(), "names are unique");
    }
}
