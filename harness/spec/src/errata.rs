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
//! ([`super::Surfaces::with_errata`], by [`super::amend`]); the committed surface files stay what
//! the import gives.
//! `cassettes check` fails on an erratum that no longer matches the surface (stale: a place
//! gone or declaring something else, or evidence the surface no longer holds) and on one no
//! interaction needs (unused: judging the cassettes without it finds no more contradictions).
//! `reports/api-coverage.md` lists every erratum in its own section.

use std::fmt;

use serde_json::Value;

use super::shape::Shape;

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

pub(crate) fn parse_shape(text: &str) -> Result<Shape, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
