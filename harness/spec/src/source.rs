//! Where the published documents come from, and the regeneration of the committed surfaces.
//!
//! The surfaces under `harness/spec/` are imported from the Swagger documents Modyo publishes
//! in the `modyo/modyo-docs` repository ([`PUBLISHED`]). Those documents are under a
//! proprietary agreement and are not in this repository, so a regeneration needs a local copy:
//!
//! - `MODYO_DOCS_GIT`: a git directory (bare or not) of that repository holding the commit
//!   (`make spec` fetches one into `.tools/` when the network allows);
//! - `MODYO_SPEC_SOURCES`: a directory holding the three files by name.
//!
//! [`regenerate`] reads each committed surface's provenance, reads the document it names,
//! checks its SHA-256 against the recorded one, imports it again and compares the bytes.
//! [`canonical`] needs no source: every committed file must be what the writer produces.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::SpecError;
use super::import::{ImportInput, import};
use super::surface::{SourceProvenance, Surface, read_dir, sha256_hex};

/// One published document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishedDocument {
    /// The API's short name.
    pub api: &'static str,
    /// Its path in the repository.
    pub path: &'static str,
}

/// The documents the committed surfaces are made from, and where they were published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    /// `github:<owner>/<repo>`.
    pub source: &'static str,
    /// The git ref they were published under (an unmerged pull request).
    pub git_ref: &'static str,
    /// The commit.
    pub commit: &'static str,
    /// The commit's date.
    pub date: &'static str,
    /// The documents.
    pub documents: [PublishedDocument; 3],
}

/// Modyo's published Swagger documents: `modyo/modyo-docs` pull request 604.
pub const PUBLISHED: Published = Published {
    source: "github:modyo/modyo-docs",
    git_ref: "refs/pull/604/head",
    commit: "4dadfd2ad3cd81edfb46bb16eb0c7b893b67b9b2",
    date: "2023-08-07",
    documents: [
        PublishedDocument {
            api: "admin",
            path: "docs/.vuepress/public/swagger/json/admin-swagger.json",
        },
        PublishedDocument {
            api: "content",
            path: "docs/.vuepress/public/swagger/json/content-swagger.json",
        },
        PublishedDocument {
            api: "customers",
            path: "docs/.vuepress/public/swagger/json/customers-swagger.json",
        },
    ],
};

/// A local copy of the published documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A git directory of the repository.
    Git(PathBuf),
    /// A directory holding the documents by file name.
    Dir(PathBuf),
}

impl Source {
    /// `MODYO_DOCS_GIT`, else `MODYO_SPEC_SOURCES`, when set and not empty.
    pub fn from_env(vars: impl IntoIterator<Item = (String, String)>) -> Option<Source> {
        let vars: std::collections::BTreeMap<String, String> = vars.into_iter().collect();
        let set = |name: &str| {
            vars.get(name)
                .filter(|v| !v.trim().is_empty())
                .map(PathBuf::from)
        };
        set("MODYO_DOCS_GIT")
            .map(Source::Git)
            .or_else(|| set("MODYO_SPEC_SOURCES").map(Source::Dir))
    }

    /// The bytes of the document a provenance names.
    pub fn read(&self, provenance: &SourceProvenance) -> Result<Vec<u8>, SpecError> {
        match self {
            Source::Git(dir) => {
                let revision = provenance
                    .commit
                    .as_deref()
                    .or(provenance.git_ref.as_deref())
                    .ok_or_else(|| {
                        SpecError::Source(format!(
                            "{}: the provenance names no commit or ref to read from git",
                            provenance.path
                        ))
                    })?;
                let output = Command::new("git")
                    .arg("-C")
                    .arg(dir)
                    .arg("show")
                    .arg(format!("{revision}:{}", provenance.path))
                    .output()
                    .map_err(|e| SpecError::Source(format!("git: {e}")))?;
                if !output.status.success() {
                    return Err(SpecError::Source(format!(
                        "git -C {} show {revision}:{}: {}",
                        dir.display(),
                        provenance.path,
                        String::from_utf8_lossy(&output.stderr).trim()
                    )));
                }
                Ok(output.stdout)
            }
            Source::Dir(dir) => {
                let name = provenance
                    .path
                    .rsplit('/')
                    .next()
                    .unwrap_or(&provenance.path);
                let path = dir.join(name);
                std::fs::read(&path).map_err(|source| SpecError::Io { path, source })
            }
        }
    }
}

/// The provenance of a published document.
pub fn provenance_of(document: &PublishedDocument) -> SourceProvenance {
    SourceProvenance {
        source: PUBLISHED.source.to_owned(),
        git_ref: Some(PUBLISHED.git_ref.to_owned()),
        commit: Some(PUBLISHED.commit.to_owned()),
        path: document.path.to_owned(),
        date: Some(PUBLISHED.date.to_owned()),
        sha256: String::new(),
    }
}

/// Imports every published document from `source`.
pub fn import_published(source: &Source) -> Result<Vec<Surface>, SpecError> {
    PUBLISHED
        .documents
        .iter()
        .map(|document| {
            let provenance = provenance_of(document);
            let bytes = source.read(&provenance)?;
            import(ImportInput {
                api: document.api,
                bytes: &bytes,
                provenance,
            })
        })
        .collect()
}

/// What a check of one committed surface file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileCheck {
    /// As expected.
    Same,
    /// Not what the writer (or the import) produces; the first differing line.
    Differs(String),
    /// The source's document is not the one recorded (SHA-256 found).
    OtherSource(String),
}

/// Every committed surface file in `dir`, checked to be in the writer's canonical form.
pub fn canonical(dir: &Path) -> Result<Vec<(PathBuf, FileCheck)>, SpecError> {
    Ok(read_dir(dir)?
        .into_iter()
        .map(|(path, text, surface)| {
            let check = compare(&text, &surface.to_json());
            (path, check)
        })
        .collect())
}

/// Every committed surface file in `dir` imported again from `source` and compared byte for
/// byte, after its source document's SHA-256 is checked against the recorded one.
pub fn regenerate(dir: &Path, source: &Source) -> Result<Vec<(PathBuf, FileCheck)>, SpecError> {
    read_dir(dir)?
        .into_iter()
        .map(|(path, text, surface)| {
            let bytes = source.read(&surface.provenance)?;
            let found = sha256_hex(&bytes);
            if found != surface.provenance.sha256 {
                return Ok((path, FileCheck::OtherSource(found)));
            }
            let again = import(ImportInput {
                api: &surface.api,
                bytes: &bytes,
                provenance: surface.provenance.clone(),
            })?;
            let check = compare(&text, &again.to_json());
            Ok((path, check))
        })
        .collect()
}

fn compare(on_disk: &str, written: &str) -> FileCheck {
    if on_disk == written {
        return FileCheck::Same;
    }
    let line = on_disk
        .lines()
        .zip(written.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| on_disk.lines().count().min(written.lines().count()));
    FileCheck::Differs(format!("first difference at line {}", line + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_names_a_git_directory_or_a_directory() {
        let env = |pairs: &[(&str, &str)]| {
            Source::from_env(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            )
        };
        assert_eq!(env(&[]), None);
        assert_eq!(env(&[("MODYO_DOCS_GIT", " ")]), None);
        assert_eq!(
            env(&[("MODYO_SPEC_SOURCES", "/s"), ("MODYO_DOCS_GIT", "/g")]),
            Some(Source::Git("/g".into()))
        );
        assert_eq!(
            env(&[("MODYO_SPEC_SOURCES", "/s")]),
            Some(Source::Dir("/s".into()))
        );
    }

    #[test]
    fn a_directory_source_reads_by_file_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("admin-swagger.json"), b"{}").expect("writes");
        let provenance = provenance_of(&PUBLISHED.documents[0]);
        let bytes = Source::Dir(dir.path().to_owned())
            .read(&provenance)
            .expect("reads");
        assert_eq!(bytes, b"{}");
        assert!(
            Source::Dir(dir.path().to_owned())
                .read(&provenance_of(&PUBLISHED.documents[1]))
                .is_err()
        );
    }

    #[test]
    fn differences_name_their_first_line() {
        assert_eq!(compare("a\nb\n", "a\nb\n"), FileCheck::Same);
        assert_eq!(
            compare("a\nb\n", "a\nc\n"),
            FileCheck::Differs("first difference at line 2".into())
        );
        assert_eq!(
            compare("a\n", "a\nb\n"),
            FileCheck::Differs("first difference at line 2".into())
        );
    }
}
