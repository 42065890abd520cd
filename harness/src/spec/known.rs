//! The shrink-only list of contradictions between our cassettes and Modyo's published
//! specification.
//!
//! Every entry is one contradiction (endpoint, kind, subject), the tool whose interactions
//! carry it, and why the cassette disagrees with the specification. The list can only shrink:
//! `cassettes check` fails on a contradiction that is not here, and on an entry that no longer
//! matches anything (stale). The conformance work empties it by fixing the server's requests
//! and the cassettes together, never by loosening the check or by adding entries.

use super::conform::Kind;

/// The file that holds the list, for messages.
pub const LIST_FILE: &str = "harness/src/spec/known.rs";

/// One known contradiction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// A tool whose interactions carry it.
    pub tool: &'static str,
    /// `METHOD /full/template`.
    pub endpoint: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// The parameter, key path or status (empty when the endpoint is the subject).
    pub subject: &'static str,
    /// Why the cassette disagrees, and what the specification documents instead.
    pub reason: &'static str,
}

const fn known(
    tool: &'static str,
    endpoint: &'static str,
    kind: Kind,
    subject: &'static str,
    reason: &'static str,
) -> Known {
    Known {
        tool,
        endpoint,
        kind,
        subject,
        reason,
    }
}

/// Every contradiction the cassettes still carry.
pub const KNOWN_CONTRADICTIONS: &[Known] = &[
    known(
        "content-spaces-copy",
        "GET /api/admin/content/spaces/{space_id}/entries/{entry_id}",
        Kind::ResponseType,
        "$.field_values[].value",
        "specification error: FieldValue.value is typed string while FieldValue.type lists list- and object-valued kinds (multiple, checkbox, locations, assets, content_types); the cassette answers the value as Modyo stores it",
    ),
    known(
        "channels-sites-manage",
        "GET /api/admin/sites/{site_id}",
        Kind::ResponseType,
        "$.status",
        "the specification declares integer; the cassette answers string",
    ),
    known(
        "channels-templates-manage",
        "GET /api/admin/sites/{site_id}/templates/{template_id}",
        Kind::ResponseType,
        "$.site_id",
        "specification inconsistency: the Template definition types site_id string while the templates list types it integer; the cassette answers integer",
    ),
    known(
        "channels-sites-manage",
        "GET /api/admin/sites/{site_id}/widget_definitions",
        Kind::QueryName,
        "page",
        "the specification declares this list's 200 as a single widget definition, not a paginated list; it takes query and states[]",
    ),
    known(
        "channels-sites-manage",
        "GET /api/admin/sites/{site_id}/widget_definitions",
        Kind::QueryName,
        "per_page",
        "the specification declares this list's 200 as a single widget definition, not a paginated list; it takes query and states[]",
    ),
    known(
        "content-spaces-copy",
        "POST /api/admin/content/spaces",
        Kind::BodyKey,
        "$.default_locale",
        "the specification declares default_locale only as a path parameter the template lacks, not a body key",
    ),
    known(
        "content-spaces-copy",
        "POST /api/admin/content/spaces/{space_id}/entries",
        Kind::BodyType,
        "$.field_values[].value",
        "specification error: FieldValue.value is typed string while FieldValue.type lists list- and object-valued kinds (multiple, checkbox, locations, assets, content_types); the server sends the value of such a field as an array or object",
    ),
    known(
        "content-spaces-copy",
        "POST /api/admin/content/spaces/{space_id}/entries",
        Kind::ResponseType,
        "$.field_values[].value",
        "specification error: FieldValue.value is typed string while FieldValue.type lists list- and object-valued kinds (multiple, checkbox, locations, assets, content_types); the cassette answers the value as Modyo stores it",
    ),
    known(
        "content-entries-manage",
        "POST /api/admin/content/spaces/{space_id}/entries/{entry_id}/publish",
        Kind::Status,
        "409",
        "the operation declares 200, 404",
    ),
    known(
        "customers-users-bulk",
        "POST /api/admin/customers/{realm_uid}/users",
        Kind::ResponseType,
        "$.active",
        "spec error: the single realm user answer (create, read, update, activate) references the same `User` definition as /scim/users (the SCIM user: active and id strings, emails, userName, schemas), while the realm users list declares the realm user with active boolean and the create body takes email, first_name, ...: a copy error in the published Swagger; the cassette answers the realm user",
    ),
    known(
        "customers-users-bulk",
        "POST /api/admin/customers/{realm_uid}/users",
        Kind::ResponseType,
        "$.id",
        "spec error: the single realm user answer (create, read, update, activate) references the same `User` definition as /scim/users (the SCIM user: active and id strings, emails, userName, schemas), while the realm users list declares the realm user with id integer and the create body takes email, first_name, ...: a copy error in the published Swagger; the cassette answers the realm user",
    ),
    known(
        "channels-sites-manage",
        "POST /api/admin/sites",
        Kind::ResponseType,
        "$.status",
        "the specification declares integer; the cassette answers string",
    ),
    known(
        "channels-widgets-copy",
        "POST /api/admin/sites/{site_id}/widget_definitions",
        Kind::Status,
        "409",
        "the operation declares 200",
    ),
    known(
        "customers-users-upsert",
        "PUT /api/admin/customers/{realm_uid}/users/{user_id}",
        Kind::ResponseType,
        "$.active",
        "spec error: the single realm user answer (create, read, update, activate) references the same `User` definition as /scim/users (the SCIM user: active and id strings, emails, userName, schemas), while the realm users list declares the realm user with active boolean and the create body takes email, first_name, ...: a copy error in the published Swagger; the cassette answers the realm user",
    ),
    known(
        "customers-users-upsert",
        "PUT /api/admin/customers/{realm_uid}/users/{user_id}",
        Kind::ResponseType,
        "$.id",
        "spec error: the single realm user answer (create, read, update, activate) references the same `User` definition as /scim/users (the SCIM user: active and id strings, emails, userName, schemas), while the realm users list declares the realm user with id integer and the create body takes email, first_name, ...: a copy error in the published Swagger; the cassette answers the realm user",
    ),
    known(
        "channels-sites-manage",
        "PUT /api/admin/sites/{site_id}",
        Kind::ResponseType,
        "$.status",
        "the specification declares integer; the cassette answers string",
    ),
    known(
        "channels-widgets-code-edit",
        "PUT /api/admin/sites/{site_id}/widget_definitions/{id}",
        Kind::Status,
        "409",
        "the operation declares 200",
    ),
];
