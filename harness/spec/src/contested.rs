//! The calls a public source contradicts, and what was done about each.
//!
//! The conformance check ([`super::check`]) holds every request to the published
//! specification, but the specification is one source among several, and an endpoint it lacks
//! is only marked (with its evidence) in the cassettes. Read against every public source we
//! could find (Modyo's documentation pages, unmerged documentation pull requests, `@modyo/cli`),
//! some calls the server makes would likely fail or do something else on a real account
//! (issue 33). Each is listed here with the sources that contradict it and what was done:
//!
//! - [`Resolution::Fixed`]: the server's call or the cassettes changed to agree with the
//!   sources (what remains unverified is said);
//! - [`Resolution::Refused`]: the tool answers `rejected` before any request, the reason in its
//!   description;
//! - [`Resolution::Kept`]: the call stays as it is, because a fix would need facts no source
//!   gives; the evidence and the risk are said in the tool's description (the words in
//!   [`Contested::said`], which a test finds there) and in `reports/api-coverage.md`.
//!
//! Evidence is written as a cassette mark's (`modyo-docs:docs/....md`,
//! `modyo-docs#<pull request>:docs/...`, `@modyo/<package>@<version>:<file>`) with what it
//! shows, and `reports/api-coverage.md` lists every entry. An inference is said to be one.

use super::errata::Evidence;

/// What was done about a contested call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Changed to agree with the sources.
    Fixed,
    /// Refused before any request.
    Refused,
    /// Kept, with the evidence and the risk said.
    Kept,
}

impl Resolution {
    /// The written name (`kept`).
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Fixed => "fixed",
            Resolution::Refused => "refused before any request",
            Resolution::Kept => "kept, risk stated",
        }
    }
}

/// One call a public source contradicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contested {
    /// A short name (`origination-uid`).
    pub name: &'static str,
    /// The tools that make the call.
    pub tools: &'static [&'static str],
    /// What the server sends (or sent, when fixed or refused).
    pub call: &'static str,
    /// What the sources show instead; never empty.
    pub evidence: &'static [Evidence],
    /// What was done.
    pub resolution: Resolution,
    /// What the change was, or why the call is kept or refused.
    pub why: &'static str,
    /// What may go wrong on a real account (for a fix: what is still unverified).
    pub risk: &'static str,
    /// Words every tool's description carries (empty for a fix that needs none).
    pub said: &'static str,
}

/// Every contested call.
pub const CONTESTED: &[Contested] = &[
    Contested {
        name: "versions-oid-type",
        tools: &["channels-preview", "channels-publish"],
        call: "GET /api/admin/versions?only=editable,current, walked whole and kept to the site, without oid and type",
        evidence: &[
            Evidence::Source {
                source: "modyo-docs#604:docs/.vuepress/public/swagger/json/admin-swagger.json",
                shows: "GET /versions requires oid (the resource ID, common to all its versions) and type (the type of the resource): it lists one resource's versions",
            },
            Evidence::Source {
                source: "modyo-docs:docs/en/platform/core/api.md",
                shows: "only on GET /api/admin/versions filters versions by type (editable, current, backup, scheduled); says nothing of oid and type",
            },
        ],
        resolution: Resolution::Refused,
        why: "no public source says which oid and type a page, a template, a widget or a menu takes, nor lists a site's pending changes: the server cannot build the pending set both tools stand on",
        risk: "none on an account (no request is sent); the tools do nothing until a source shows how to read a site's pending changes",
        said: "Refused before any request",
    },
    Contested {
        name: "site-publish",
        tools: &["channels-publish"],
        call: "POST /api/admin/sites/{site_id}/publish with {\"items\": [{type, id}]}",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/channels/sites.md",
            shows: "publishing is the Publish button's review and joint publication screen; no API request is shown, and no other source shows this path or body",
        }],
        resolution: Resolution::Refused,
        why: "the release itself is shown by no source, and the items it would release come from the pending set the server cannot read (versions-oid-type)",
        risk: "none on an account (no request is sent)",
        said: "POST /sites/{id}/publish",
    },
    Contested {
        name: "entry-publish-body",
        tools: &["content-entries-manage"],
        call: "POST /api/admin/content/spaces/{space_id}/entries/{entry_id}/publish with no body",
        evidence: &[
            Evidence::Source {
                source: "modyo-docs#604:docs/.vuepress/public/swagger/json/admin-swagger.json",
                shows: "the publish operation requires a body: published_immediately, published_at, unpublished_at, unpublish_scheduled, force_publish",
            },
            Evidence::Source {
                source: "modyo-docs:docs/en/platform/content/entries.md",
                shows: "the publish window offers Publish now (the entry is published immediately) or a scheduled date",
            },
        ],
        resolution: Resolution::Fixed,
        why: "publish sends {\"published_immediately\": true}",
        risk: "that this key means \"publish now\" is our inference from its name and the entries page; no source shows a publish request's body",
        said: "",
    },
    Contested {
        name: "origination-uid",
        tools: &[
            "customers-originations-copy",
            "customers-originations-manage",
            "customers-originations-rules-edit",
            "customers-originations-steps-clone",
            "customers-originations-steps-edit",
            "customers-originations-validate",
            "customers-submissions-bulk",
            "customers-submissions-list",
        ],
        call: "/api/admin/customers/{realm_uid}/originations/{id} and every path under it (steps, rules, submissions, assignees) with the origination's numeric id",
        evidence: &[Evidence::Source {
            source: "modyo-docs#1080:docs/en/platform/core/activity-logs.md",
            shows: "origination_uid, the flow's readable identifier, \"is the one the Admin API resolves originations by\"",
        }],
        resolution: Resolution::Kept,
        why: "no source gives the key a list row carries it in, nor whether a numeric id is also accepted: a fix would guess both",
        risk: "if the Admin API resolves originations only by origination_uid, every call that names one origination answers 404 (not_found); the realm's list of originations, which names none, is unaffected",
        said: "origination_uid",
    },
    Contested {
        name: "submission-path",
        tools: &["customers-submissions-bulk"],
        call: "PUT /api/admin/customers/{realm_uid}/submissions/{id}",
        evidence: &[
            Evidence::Source {
                source: "modyo-docs:docs/en/platform/core/api.md",
                shows: "names GET /api/admin/customers/{realm_uid}/originations/{origination_id}/submissions among the lists that take date ranges",
            },
            Evidence::Source {
                source: "modyo-docs:docs/en/platform/customers/origination.md",
                shows: "an agent task's path nests the submission: /admin/customers/{realm_uid}/originations/{origination_id}/submissions/{submission_id}/...; the submission update endpoint takes due_extension_days, its path not given",
            },
        ],
        resolution: Resolution::Kept,
        why: "every public path nests submissions under their origination, but none shows the update itself: a nested path would be an inference too",
        risk: "if submissions are only reachable under their origination, every change answers 404; each failure is reported per submission (data.failed) and nothing is retried",
        said: "nest submissions",
    },
    Contested {
        name: "origination-structure",
        tools: &[
            "customers-originations-copy",
            "customers-originations-rules-edit",
            "customers-originations-steps-clone",
            "customers-originations-steps-edit",
            "customers-originations-validate",
        ],
        call: "steps {name, position, form_id, hidden}; rules {name, condition {question_id, operator, value}, action show_step | hide_step | skip_to_step | end, target_step_id}",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/customers/origination.md",
            shows: "a flow is made of steps that group tasks (input, validation, signature, ...), and conditional logic shows or hides steps, tasks and input fields: \"The available actions are Show and Hide\"",
        }],
        resolution: Resolution::Kept,
        why: "no source shows the API's shape of a step, a task or a rule: a fix would invent another model",
        risk: "writes in our shape may be refused (422) or half applied; skip_to_step and end have no documented counterpart; what validate reports about forms and unreachable steps rests on the same model",
        said: "Show/Hide",
    },
    Contested {
        name: "variables-per-language",
        tools: &["channels-variables-manage"],
        call: "account (/api/admin/variables) or site (/api/admin/sites/{site_id}/variables) variables written as {name, value, description}",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/channels/global-variables.md",
            shows: "a variable stores one value per language (Spanish, English, Portuguese), one of them the default; scopes are account, app and widget; the name is normalized to the identifier; no description is shown",
        }],
        resolution: Resolution::Kept,
        why: "no source shows how a request names the language of a value or sets the default",
        risk: "a write may set only one language's value (or be refused), a read may show one language's value as the variable's, description may be ignored; widget variables are out of reach",
        said: "per language",
    },
    Contested {
        name: "site-asset-upload",
        tools: &["channels-site-assets-manage"],
        call: "POST /api/admin/sites/{site_id}/site_assets with the file as base64 in a JSON body (data, file_name, content_type, name, description)",
        evidence: &[Evidence::Source {
            source: "modyo-docs#604:docs/.vuepress/public/swagger/json/admin-swagger.json",
            shows: "every file upload it documents (a content asset's create, update and change, a realm user's avatar) is a multipart form; the content asset create takes its file in the form field data",
        }],
        resolution: Resolution::Fixed,
        why: "upload sends a multipart form: the file in data (with its file name and content type), name and description as text fields",
        risk: "the endpoint and its fields are shown by no source: the field names are our inference from the documented content asset upload",
        said: "",
    },
    Contested {
        name: "widget-download-layout",
        tools: &["channels-download"],
        call: "GET /api/admin/sites/{site_id}/widget_definitions/{widget_id}/download, unpacked as it comes; the cassette's archive held dist/main.js, dist/main.css, index.html and package.json",
        evidence: &[Evidence::Source {
            source: "modyo-docs#1059:docs/en/platform/tools/cli.md",
            shows: "the Download button calls this path; the platform rebuilds the ZIP from the stored templates: entry files renamed <uuid>.js, <uuid>.css and <uuid>.html, chunks without their folders, source maps included; not redeployable",
        }],
        resolution: Resolution::Fixed,
        why: "the cassette's archive now has the documented layout, and the description says what the ZIP holds (the server unpacks any layout)",
        risk: "the pull request is unmerged; its layout is what Modyo's documentation team wrote, not yet published",
        said: "<uuid>.js",
    },
    Contested {
        name: "site-delete",
        tools: &["channels-sites-manage"],
        call: "DELETE /api/admin/sites/{site_id} once confirmDelete is true, answered as deleted without a read-back",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/channels/sites.md",
            shows: "deleting asks for the application's name to confirm, and starts an asynchronous deletion; while it lasts the application is in a transient state and not listed",
        }],
        resolution: Resolution::Kept,
        why: "no source shows the API request, nor whether it takes the name: a fix would guess its parameter",
        risk: "the API may refuse a DELETE without the confirmation the product asks for; state.status deleted may come before the site is gone (the deletion runs in the background)",
        said: "background",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_evidence_from_a_public_source_that_says_what_it_shows() {
        let mut names = std::collections::BTreeSet::new();
        for entry in CONTESTED {
            assert!(names.insert(entry.name), "{} twice", entry.name);
            assert!(!entry.tools.is_empty(), "{}", entry.name);
            assert!(!entry.evidence.is_empty(), "{}", entry.name);
            for evidence in entry.evidence {
                let Evidence::Source { source, shows } = evidence else {
                    panic!("{}: cite a public source", entry.name);
                };
                let parsed = modyo_replay::cassette::Evidence::parse(source)
                    .unwrap_or_else(|e| panic!("{}: {e}", entry.name));
                assert!(!parsed.is_none(), "{}: `none` is no evidence", entry.name);
                assert!(!shows.trim().is_empty(), "{}: {source}", entry.name);
            }
            assert!(
                !entry.why.is_empty() && !entry.risk.is_empty(),
                "{}",
                entry.name
            );
            // What is kept or refused is said where the model reads it.
            if entry.resolution != Resolution::Fixed {
                assert!(!entry.said.is_empty(), "{}", entry.name);
            }
        }
    }
}
