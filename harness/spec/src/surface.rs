//! The API surface files under `harness/spec/`: one per API (`admin.json`, `content.json`,
//! `customers.json`), format `modyo-api-surface/3`, written by `modyo-lab spec import`.
//! Format 2 added the enumerated form of a scalar type (`{"string": ["a", "b"]}`, see
//! `shape.rs`); format 3 added what the document marks required (`required`: query parameters,
//! form fields, JSON body keys), so a file without it no longer means "nothing is required". A
//! build that reads an older format refuses these files by their `format` key instead of
//! misreading them, and this build refuses older files (regenerate them with `spec import`).
//!
//! A surface holds only the facts of an interface: for each operation its method, its path
//! template (relative to the API's `base_path`), its path, query and form parameters with their
//! types, the request body as a tree of keys and types, and each response status with its body
//! tree; a type carries the values the document enumerates for it, when it does; the query
//! parameters, form fields and body keys it marks required are listed apart. No description,
//! summary or example of the source document is kept. `provenance` says
//! which document it was made from (repository, ref, commit, path, date) and the SHA-256 of
//! that document's bytes, so a regeneration can prove it read the same input.
//!
//! The writer is canonical: operations sorted by path then method, every map sorted by key,
//! 2-space pretty JSON with a trailing newline. The same document always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::SpecError;
use super::shape::Shape;
use modyo_replay::Template;

/// The value of the `format` key of every surface file.
pub const SURFACE_FORMAT: &str = "modyo-api-surface/3";

/// One API's surface: every documented operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Surface {
    format: SurfaceFormat,
    /// The API's short name (`admin`), also the file name.
    pub api: String,
    /// The document's title (`Modyo Admin API`).
    pub title: String,
    /// The document's version string.
    pub version: String,
    /// Where the API is mounted (`/api/admin`); operation paths are relative to it.
    pub base_path: String,
    /// Whether the document requires credentials for its operations (so any of them may
    /// answer `401`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub authenticated: bool,
    /// Which document this was made from.
    pub provenance: SourceProvenance,
    /// The operations, sorted by path then method.
    pub operations: Vec<Operation>,
}

/// The `format` key: only [`SURFACE_FORMAT`] parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SurfaceFormat;

impl Serialize for SurfaceFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(SURFACE_FORMAT)
    }
}

impl<'de> Deserialize<'de> for SurfaceFormat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let found = String::deserialize(deserializer)?;
        if found == SURFACE_FORMAT {
            Ok(SurfaceFormat)
        } else {
            Err(de::Error::custom(format!(
                "unsupported format '{found}', expected '{SURFACE_FORMAT}'"
            )))
        }
    }
}

/// Where a surface comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceProvenance {
    /// The source: `github:<owner>/<repo>`, `live:<host>` (pulled from an account) or `file`.
    pub source: String,
    /// The git ref the document was read at (`refs/pull/604/head`).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The full commit id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The document's path in the source (or its URL path for a live account).
    pub path: String,
    /// The day of the commit, or of the pull (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// SHA-256 of the document's bytes, lower-case hex.
    pub sha256: String,
}

/// One documented operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// Upper-case HTTP method.
    pub method: String,
    /// The path template, relative to the API's base path.
    pub path: String,
    /// The template's variables and their types (`any` when the document declares none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub path_params: BTreeMap<String, Shape>,
    /// Query parameters by name, as sent (`states[]` for an array sent as `states[]=a`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query: BTreeMap<String, Shape>,
    /// Form fields of a multipart or url-encoded body.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub form: BTreeMap<String, Shape>,
    /// Parameters the document declares where no request can carry them: `in: path` for a
    /// name the template lacks, or no location at all. Kept as declared; the check counts a
    /// query key that matches one as a warning.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unlocated: BTreeMap<String, Shape>,
    /// The JSON request body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Shape>,
    /// What the document marks required (none when it marks nothing).
    #[serde(default, skip_serializing_if = "Required::is_empty")]
    pub required: Required,
    /// Declared statuses (`200`, `404`, `default`) and their body, `null` when none is
    /// described.
    pub responses: BTreeMap<String, Option<Shape>>,
}

/// What an operation's document marks required. Path parameters are not listed: a template's
/// variables are required by the template itself (a request without one does not match it),
/// and Swagger 2.0 requires `required: true` of every path parameter anyway. Nor are parameters
/// declared where no request can carry them (`unlocated`): no request could satisfy them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Required {
    /// Query parameters, by name as sent (`states[]`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub query: BTreeSet<String>,
    /// Form fields of a multipart or url-encoded body, by name.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub form: BTreeSet<String>,
    /// JSON body keys, as JSON paths (`$.name`, `$.steps[].name`); `$` itself when the body
    /// must be sent. A nested key is required only where its parent is present.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub body: BTreeSet<String>,
}

impl Required {
    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.query.is_empty() && self.form.is_empty() && self.body.is_empty()
    }
}

impl Operation {
    /// `GET /content/spaces` (relative path).
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The declared response for `status`: the exact code, else its class (`2XX`), else
    /// `default`. `None` when the status is not declared.
    pub fn response(&self, status: u16) -> Option<&Option<Shape>> {
        let code = status.to_string();
        let class = format!("{}XX", status / 100);
        self.responses
            .get(&code)
            .or_else(|| {
                self.responses
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(&class))
                    .map(|(_, v)| v)
            })
            .or_else(|| self.responses.get("default"))
    }
}

impl Surface {
    /// A surface from its parts (operations are sorted here).
    pub fn new(
        api: impl Into<String>,
        title: impl Into<String>,
        version: impl Into<String>,
        base_path: impl Into<String>,
        provenance: SourceProvenance,
        mut operations: Vec<Operation>,
    ) -> Surface {
        operations.sort_by(|a, b| (&a.path, &a.method).cmp(&(&b.path, &b.method)));
        Surface {
            format: SurfaceFormat,
            api: api.into(),
            title: title.into(),
            version: version.into(),
            base_path: base_path.into(),
            authenticated: false,
            provenance,
            operations,
        }
    }

    /// The file as the canonical writer produces it.
    pub fn to_json(&self) -> String {
        // Every value of a surface serializes (string keys, no floats).
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Parses a surface file's text.
    pub fn parse(path: &Path, text: &str) -> Result<Surface, SpecError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let surface: Surface =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
                SpecError::Surface {
                    path: path.to_owned(),
                    reason: format!("at {}: {}", e.path(), e.inner()),
                }
            })?;
        for op in &surface.operations {
            Template::parse(&op.path).map_err(|reason| SpecError::Surface {
                path: path.to_owned(),
                reason,
            })?;
        }
        Ok(surface)
    }

    /// The file name of this surface in a surface directory (`admin.json`).
    pub fn file_name(&self) -> String {
        format!("{}.json", self.api)
    }

    /// Writes the surface into `dir` (creating it) and returns the file's path.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, SpecError> {
        fs::create_dir_all(dir).map_err(|source| SpecError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let path = dir.join(self.file_name());
        fs::write(&path, self.to_json()).map_err(|source| SpecError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

/// Every surface file (`*.json`) in `dir`, with its text, sorted by file name.
pub fn read_dir(dir: &Path) -> Result<Vec<(PathBuf, String, Surface)>, SpecError> {
    let io = |source| SpecError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    if files.is_empty() {
        return Err(SpecError::NoSurface {
            path: dir.to_owned(),
        });
    }
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).map_err(|source| SpecError::Io {
                path: path.clone(),
                source,
            })?;
            let surface = Surface::parse(&path, &text)?;
            Ok((path, text, surface))
        })
        .collect()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(status: &[&str]) -> Operation {
        Operation {
            method: "GET".into(),
            path: "/x".into(),
            path_params: BTreeMap::new(),
            query: BTreeMap::new(),
            form: BTreeMap::new(),
            unlocated: BTreeMap::new(),
            body: None,
            required: Required::default(),
            responses: status
                .iter()
                .map(|s| ((*s).to_owned(), Some(Shape::String)))
                .collect(),
        }
    }

    #[test]
    fn a_status_is_declared_exactly_by_class_or_by_default() {
        assert!(op(&["200"]).response(200).is_some());
        assert!(op(&["200"]).response(201).is_none());
        assert!(op(&["2XX"]).response(204).is_some());
        assert!(op(&["200", "default"]).response(503).is_some());
    }

    #[test]
    fn sha256_is_lower_case_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_writer_reads_back_to_the_same_bytes() {
        let surface = Surface::new(
            "demo",
            "Demo",
            "1",
            "/api/demo",
            SourceProvenance {
                source: "file".into(),
                path: "demo.json".into(),
                sha256: sha256_hex(b"{}"),
                ..SourceProvenance::default()
            },
            vec![op(&["200"])],
        );
        let text = surface.to_json();
        let back = Surface::parse(Path::new("demo.json"), &text).expect("parses");
        assert_eq!(back, surface);
        assert_eq!(back.to_json(), text);
        let err = Surface::parse(Path::new("x.json"), &text.replace("surface/3", "surface/2"))
            .expect_err("bad format");
        assert!(err.to_string().contains("unsupported format"), "{err}");
    }
}
