//! Which platform version each source describes, and what Modyo changed after the published
//! specification: the endpoints of those changes may have moved since.
//!
//! The surface under `harness/spec/` is the Swagger of an unmerged documentation pull request
//! (modyo-docs 604, committed 2023-08-07), older than Modyo 10. An undocumented endpoint's
//! evidence is a page of the documentation's master branch (Modyo 10.1), a file of a later pull
//! request, or a published package; `none` is no source at all. `reports/api-coverage.md` says,
//! per tool, which of these its endpoints were checked against ([`checked_against`]), and lists
//! the tools that call an endpoint a [`Change`] touches.

use super::errata::Evidence;

/// What the published specification describes.
pub const SURFACE_PLATFORM: &str = "the Swagger of modyo-docs pull request 604 (unmerged, committed 2023-08-07), older than Modyo 10 (whose first release notes, 10.0.1, are dated May 31, 2024): Modyo 9, by that inference";

/// What the documentation's master branch describes.
pub const DOCS_PLATFORM: &str = "the documentation's master branch, which describes Modyo 10.1 (its release notes reach 10.1.17, July 17, 2026; a few pages describe 10.2)";

/// The sources of [`SURFACE_PLATFORM`] and [`DOCS_PLATFORM`].
pub const PLATFORM_EVIDENCE: &[Evidence] = &[
    Evidence::Source {
        source: "modyo-docs:docs/en/platform/release-notes.md",
        shows: "Modyo 10.0.1 is dated May 31, 2024 (no earlier 10.x release is listed), 10.1.0 July 3, 2025, the newest entry 10.1.17 July 17, 2026",
    },
    Evidence::Source {
        source: "modyo-docs:docs/en/platform/content/asset-manager.md",
        shows: "names Modyo 9 as the version before 10 (its File Manager became Modyo 10's media), and describes a check added since Modyo 10.2",
    },
];

/// A change of the platform after the published specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// A short name (`media-spaces`).
    pub name: &'static str,
    /// What changed, and in which version.
    pub what: &'static str,
    /// What shows it.
    pub evidence: &'static [Evidence],
    /// The endpoints it touches: `METHOD /path` exactly, `*` for any method, a trailing `*` for
    /// every path that starts with the rest (`* /api/admin/roles*`).
    pub endpoints: &'static [&'static str],
}

/// What Modyo changed after the published specification.
pub const CHANGES: &[Change] = &[
    Change {
        name: "media-spaces",
        what: "Modyo 10 moved the account's assets (Modyo 9's File Manager) into media spaces; migrated assets land in the default media space",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/content/asset-manager.md",
            shows: "\"In Modyo 9, this space is called File Manager. If you migrate from Modyo 9 to Modyo 10, all assets are preserved, and are moved to the default media space\"",
        }],
        endpoints: &["* /api/admin/content/assets*"],
    },
    Change {
        name: "custom-roles",
        what: "Modyo 10.1.0 (July 3, 2025) added customizable roles",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/release-notes.md",
            shows: "10.1.0, Core: \"Adds customizable role creation option\"",
        }],
        endpoints: &["* /api/admin/roles*"],
    },
    Change {
        name: "originations",
        what: "Modyo 10.1.0 (July 3, 2025) added the origination module, with an Origination API",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/release-notes.md",
            shows: "10.1.0, Customers: \"Adds new origination module ... Origination API\"",
        }],
        endpoints: &[
            "* /api/admin/customers/{realm_uid}/originations*",
            "* /api/admin/customers/{realm_uid}/submissions*",
            "* /api/admin/customers/{realm_uid}/users/{user_id}/submissions*",
        ],
    },
    Change {
        name: "data-sets",
        what: "Modyo 10.1.0 (July 3, 2025) added realm data sets",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/release-notes.md",
            shows: "10.1.0, Customers: \"Adds datasets at realm level that can be used in forms and originations\"",
        }],
        endpoints: &["* /api/admin/customers/{realm_uid}/data_sets*"],
    },
    Change {
        name: "sites-per-page",
        what: "the documentation's current API pages say GET /api/admin/sites paginates like every list (at most 100, 10 by default, per_page=0 gives 10), where the Swagger says \"0 for all\", a maximum of 1000 and a default of 25",
        evidence: &[Evidence::Source {
            source: "modyo-docs:docs/en/platform/core/api.md",
            shows: "its Pagination section: \"The Swagger catalog for GET /api/admin/sites declares per_page with the description 'Number of items per page (0 for all)', a maximum of 1000, and a default value of 25. All three are false\"",
        }],
        endpoints: &["GET /api/admin/sites"],
    },
];

impl Change {
    /// Whether `endpoint` (`GET /api/admin/sites/{site_id}`) is one this change touches.
    pub fn touches(&self, endpoint: &str) -> bool {
        let Some((method, path)) = endpoint.split_once(' ') else {
            return false;
        };
        self.endpoints.iter().any(|pattern| {
            let Some((want, template)) = pattern.split_once(' ') else {
                return false;
            };
            let method_ok = want == "*" || want == method;
            let path_ok = match template.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => path == template,
            };
            method_ok && path_ok
        })
    }
}

/// What a tool's endpoints were checked against, from the standing and the evidence of each
/// (as the coverage report writes it: `modyo-docs:docs/....md (note)`): the published
/// specification, the documentation's master branch, a pull request, a package, or nothing.
pub fn checked_against<'a>(
    endpoints: impl IntoIterator<Item = (bool, &'a [String])>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |source: String| {
        if !out.contains(&source) {
            out.push(source);
        }
    };
    for (documented, evidence) in endpoints {
        if documented {
            push("Swagger 2023 (before Modyo 10)".into());
        }
        for written in evidence {
            let source = written.split(" (").next().unwrap_or(written);
            match modyo_replay::cassette::Evidence::parse(source) {
                Ok(modyo_replay::cassette::Evidence::Docs(_)) => {
                    push("docs master (Modyo 10.1)".into())
                }
                Ok(modyo_replay::cassette::Evidence::DocsPull { number, .. }) => {
                    push(format!("docs pull request {number} (unmerged)"));
                }
                Ok(modyo_replay::cassette::Evidence::Package { name, version, .. }) => {
                    push(format!("{name} {version}"));
                }
                Ok(modyo_replay::cassette::Evidence::None) | Err(_) => {
                    push("no public source".into())
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_touches_its_endpoints_and_no_other() {
        let roles = CHANGES
            .iter()
            .find(|c| c.name == "custom-roles")
            .expect("listed");
        assert!(roles.touches("GET /api/admin/roles"));
        assert!(roles.touches("POST /api/admin/roles/{role_id}/restore"));
        assert!(!roles.touches("GET /api/admin/sites"));
        let sites = CHANGES
            .iter()
            .find(|c| c.name == "sites-per-page")
            .expect("listed");
        assert!(sites.touches("GET /api/admin/sites"));
        assert!(!sites.touches("GET /api/admin/sites/{site_id}"));
        assert!(!sites.touches("POST /api/admin/sites"));
    }

    #[test]
    fn every_change_and_platform_cites_a_public_source() {
        for evidence in CHANGES
            .iter()
            .flat_map(|c| c.evidence)
            .chain(PLATFORM_EVIDENCE)
        {
            let Evidence::Source { source, shows } = evidence else {
                panic!("cite a public source");
            };
            let parsed = modyo_replay::cassette::Evidence::parse(source).expect("parses");
            assert!(!parsed.is_none() && !shows.is_empty(), "{source}");
        }
    }

    #[test]
    fn sources_are_named_by_the_version_they_describe() {
        let none = ["none (a note)".to_owned()];
        let docs = ["modyo-docs:docs/en/platform/core/api.md (names it)".to_owned()];
        let pull = ["modyo-docs#1059:docs/en/platform/tools/cli.md (the zip)".to_owned()];
        let cli = ["@modyo/cli@3.6.2:lib/push/publish-widget.js".to_owned()];
        assert_eq!(
            checked_against([
                (true, &[][..]),
                (false, &none[..]),
                (false, &docs[..]),
                (false, &pull[..]),
                (false, &cli[..]),
            ]),
            [
                "@modyo/cli 3.6.2",
                "Swagger 2023 (before Modyo 10)",
                "docs master (Modyo 10.1)",
                "docs pull request 1059 (unmerged)",
                "no public source",
            ]
        );
    }
}
