//! `modyo-lab spec ...`: the command line of the API surface, its arguments and what each
//! subcommand prints. The binary only parses and prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::coverage::{self, CoverageError};
use modyo_spec::import::{ImportInput, api_name, import};
use modyo_spec::pull::{self, PullOptions};
use modyo_spec::source::{self, FileCheck, PUBLISHED, Source};
use modyo_spec::surface::{SourceProvenance, Surface};
use modyo_spec::{SpecError, default_dir};

/// The `spec` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum SpecCommand {
    /// Import Swagger 2.0 or OpenAPI 3 documents into API surface files (one per API).
    Import(ImportArgs),
    /// Fetch the account's own specification (MODYO_URL, MODYO_TOKEN) and import it.
    Pull(PullArgs),
    /// Check the committed surface files: the writer's canonical form, and a byte-for-byte
    /// regeneration from the published documents when a local copy is at hand
    /// (MODYO_DOCS_GIT or MODYO_SPEC_SOURCES).
    Check(CheckArgs),
    /// Write reports/api-coverage.md and .json: every scenario replayed, every endpoint each
    /// tool calls marked documented, undocumented or contradicted.
    Coverage(CoverageArgs),
}

/// Arguments of `spec import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Where to write the surface files.
    #[arg(long, default_value_os_t = default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::dir_help("Where to write the surface files.", modyo_spec::DEFAULT_DIR))]
    pub out: PathBuf,
    /// Import Modyo's published documents (modyo/modyo-docs, pull request 604) from a local
    /// copy: --git, --sources, MODYO_DOCS_GIT or MODYO_SPEC_SOURCES.
    #[arg(long, conflicts_with = "files")]
    pub published: bool,
    /// A git directory of modyo/modyo-docs (with --published).
    #[arg(long, value_name = "DIR")]
    pub git: Option<PathBuf>,
    /// A directory holding the published documents by file name (with --published).
    #[arg(long, value_name = "DIR", conflicts_with = "git")]
    pub sources: Option<PathBuf>,
    /// The API's name (default: from the file name; `admin-swagger.json` gives `admin`).
    #[arg(long)]
    pub api: Option<String>,
    /// The provenance's source (`github:<owner>/<repo>`, `file`).
    #[arg(long, default_value = "file")]
    pub source: String,
    /// The provenance's git ref.
    #[arg(long = "ref")]
    pub git_ref: Option<String>,
    /// The provenance's commit.
    #[arg(long)]
    pub commit: Option<String>,
    /// The provenance's date (`YYYY-MM-DD`).
    #[arg(long)]
    pub date: Option<String>,
    /// The directory of the documents in their source (the provenance path is
    /// `<dir>/<file name>`; default: the file name alone).
    #[arg(long, value_name = "DIR")]
    pub source_dir: Option<String>,
    /// The documents.
    pub files: Vec<PathBuf>,
}

/// Arguments of `spec pull`.
#[derive(Debug, clap::Args)]
pub struct PullArgs {
    /// Where to write the surface files.
    #[arg(long, default_value_os_t = default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::dir_help("Where to write the surface files.", modyo_spec::DEFAULT_DIR))]
    pub out: PathBuf,
    /// An API to pull (repeatable; default: admin, content and customers).
    #[arg(long = "api")]
    pub apis: Vec<String>,
}

/// Arguments of `spec check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The surface files.
    #[arg(long, default_value_os_t = default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::dir_help("The surface files.", modyo_spec::DEFAULT_DIR))]
    pub spec: PathBuf,
    /// A git directory of modyo/modyo-docs to regenerate from.
    #[arg(long, value_name = "DIR")]
    pub git: Option<PathBuf>,
    /// A directory holding the published documents by file name.
    #[arg(long, value_name = "DIR", conflicts_with = "git")]
    pub sources: Option<PathBuf>,
    /// Fail when no local copy of the published documents is given.
    #[arg(long)]
    pub require_source: bool,
}

/// Arguments of `spec coverage`.
#[derive(Debug, clap::Args)]
pub struct CoverageArgs {
    /// The cassettes.
    #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes."))]
    pub cassettes: PathBuf,
    /// The surface files.
    #[arg(long, default_value_os_t = default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::dir_help("The surface files.", modyo_spec::DEFAULT_DIR))]
    pub spec: PathBuf,
    /// Where to write the report.
    #[arg(long, default_value_os_t = crate::report::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::dir_help("Where to write the report.", "reports"))]
    pub out: PathBuf,
    /// Write nothing; fail if the committed report differs from a regeneration.
    #[arg(long)]
    pub check: bool,
    /// Scenario sessions run at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
}

/// A subcommand's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The surface.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The coverage report.
    #[error(transparent)]
    Coverage(#[from] CoverageError),
    /// The arguments.
    #[error("{0}")]
    Usage(String),
}

/// What a subcommand prints, and whether it succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The report for stdout.
    pub text: String,
    /// Whether the command succeeded.
    pub ok: bool,
}

fn source_of(
    git: Option<PathBuf>,
    sources: Option<PathBuf>,
    vars: &BTreeMap<String, String>,
) -> Option<Source> {
    git.map(Source::Git)
        .or(sources.map(Source::Dir))
        .or_else(|| Source::from_env(vars.clone()))
}

/// Runs a subcommand with the given environment.
pub async fn run(
    command: SpecCommand,
    vars: impl IntoIterator<Item = (String, String)>,
) -> Result<Outcome, CommandError> {
    let vars: BTreeMap<String, String> = vars.into_iter().collect();
    match command {
        SpecCommand::Import(args) => import_command(args, &vars),
        SpecCommand::Pull(args) => pull_command(args, &vars).await,
        SpecCommand::Check(args) => check_command(args, &vars),
        SpecCommand::Coverage(args) => coverage_command(args).await,
    }
}

fn import_command(
    args: ImportArgs,
    vars: &BTreeMap<String, String>,
) -> Result<Outcome, CommandError> {
    let surfaces = if args.published {
        let source = source_of(args.git, args.sources, vars).ok_or_else(|| {
            CommandError::Usage(
                "--published needs a local copy of modyo/modyo-docs: --git DIR, --sources DIR, MODYO_DOCS_GIT or MODYO_SPEC_SOURCES (`make spec` fetches one)".into(),
            )
        })?;
        source::import_published(&source)?
    } else {
        if args.files.is_empty() {
            return Err(CommandError::Usage(
                "name the documents to import, or --published".into(),
            ));
        }
        if args.api.is_some() && args.files.len() > 1 {
            return Err(CommandError::Usage("--api names one document".into()));
        }
        let mut surfaces = Vec::new();
        for file in &args.files {
            let bytes = std::fs::read(file).map_err(|source| SpecError::Io {
                path: file.clone(),
                source,
            })?;
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let api = args.api.clone().unwrap_or_else(|| api_name(&name));
            let path = match &args.source_dir {
                Some(dir) => format!("{}/{name}", dir.trim_end_matches('/')),
                None => name,
            };
            surfaces.push(import(ImportInput {
                api: &api,
                bytes: &bytes,
                provenance: SourceProvenance {
                    source: args.source.clone(),
                    git_ref: args.git_ref.clone(),
                    commit: args.commit.clone(),
                    path,
                    date: args.date.clone(),
                    sha256: String::new(),
                },
            })?);
        }
        surfaces
    };
    written(&surfaces, &args.out)
}

/// Writes `surfaces` into `dir` and says what each file holds.
fn written(surfaces: &[Surface], dir: &Path) -> Result<Outcome, CommandError> {
    let mut text = String::new();
    for surface in surfaces {
        let path = surface.save(dir)?;
        let _ = writeln!(
            text,
            "{}: {} operation(s) from {} (sha256 {})",
            path.display(),
            surface.operations.len(),
            surface.provenance.path,
            surface.provenance.sha256
        );
    }
    Ok(Outcome { text, ok: true })
}

async fn pull_command(
    args: PullArgs,
    vars: &BTreeMap<String, String>,
) -> Result<Outcome, CommandError> {
    let url = vars
        .get("MODYO_URL")
        .map(|u| u.trim())
        .filter(|u| !u.is_empty());
    let token = vars.get("MODYO_TOKEN").filter(|t| !t.is_empty());
    let (Some(url), Some(token)) = (url, token) else {
        return Err(CommandError::Usage(
            "spec pull needs MODYO_URL and MODYO_TOKEN (the account and an API token)".into(),
        ));
    };
    let url = url::Url::parse(url)
        .map_err(|e| CommandError::Usage(format!("MODYO_URL is not a URL: {e}")))?;
    let apis = if args.apis.is_empty() {
        pull::APIS.iter().map(|a| (*a).to_owned()).collect()
    } else {
        args.apis
    };
    let options = PullOptions {
        url,
        token: token.clone(),
        apis,
        date: crate::record::today(),
    };
    let surfaces = pull::pull(&options).await?;
    written(&surfaces, &args.out)
}

fn check_command(
    args: CheckArgs,
    vars: &BTreeMap<String, String>,
) -> Result<Outcome, CommandError> {
    let mut text = String::new();
    let mut ok = true;
    for (path, check) in source::canonical(&args.spec)? {
        let verdict = match check {
            FileCheck::Same => "in the writer's canonical form".to_owned(),
            FileCheck::Differs(at) | FileCheck::OtherSource(at) => {
                ok = false;
                format!("NOT in the writer's canonical form ({at}); run `make spec`")
            }
        };
        let _ = writeln!(text, "{}: {verdict}", path.display());
    }
    match source_of(args.git, args.sources, vars) {
        None => {
            ok &= !args.require_source;
            let _ = writeln!(
                text,
                "regeneration from the published documents: SKIPPED, no local copy (set MODYO_DOCS_GIT to a git directory of modyo/modyo-docs holding {} or MODYO_SPEC_SOURCES to a directory holding its three documents; `make spec` fetches one when the network allows)",
                &PUBLISHED.commit[..10]
            );
        }
        Some(source) => {
            for (path, check) in source::regenerate(&args.spec, &source)? {
                let verdict = match check {
                    FileCheck::Same => {
                        "regenerated byte for byte from its recorded source (SHA-256 matches)"
                            .to_owned()
                    }
                    FileCheck::Differs(at) => {
                        ok = false;
                        format!("differs from a regeneration ({at}); run `make spec`")
                    }
                    FileCheck::OtherSource(found) => {
                        ok = false;
                        format!(
                            "the local source's document has SHA-256 {found}, not the recorded one"
                        )
                    }
                };
                let _ = writeln!(text, "{}: {verdict}", path.display());
            }
        }
    }
    Ok(Outcome { text, ok })
}

async fn coverage_command(args: CoverageArgs) -> Result<Outcome, CommandError> {
    let report = coverage::build(&args.cassettes, &args.spec, args.concurrency).await?;
    if args.check {
        let stale = coverage::stale(&report, &args.out);
        let text = if stale.is_empty() {
            "the committed API coverage report is up to date\n".to_owned()
        } else {
            format!(
                "stale (run `make api-coverage`): {}\n",
                stale
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Ok(Outcome {
            ok: stale.is_empty(),
            text,
        });
    }
    let written = coverage::write(&report, &args.out)?;
    Ok(Outcome {
        text: written
            .iter()
            .map(|p| format!("wrote {}\n", p.display()))
            .collect(),
        ok: true,
    })
}
