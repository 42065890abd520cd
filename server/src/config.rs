//! Configuration from the environment: where Modyo is, which modules answer, and how.
//!
//! Every variable is read once at start-up through [`Config::from_vars`], which takes the
//! variables as an iterator so tests never touch the process environment.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use crate::contract::{ErrorForm, ResultForm};
use crate::uploads::{RootError, UPLOAD_ROOTS_VAR, UploadRoots};
use url::Url;

/// One of the five tool modules of the server (`MODYO_MCP_MODULES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Module {
    /// Account administration: team users, groups, roles, settings.
    Core,
    /// The headless CMS: spaces, types, entries, assets, categories, jobs.
    Content,
    /// Sites, pages, templates, widgets, menus, variables, releases.
    Channels,
    /// Customer realms, users, forms, data sets, originations.
    Customers,
    /// The local widget component catalogue (no HTTP).
    Widgets,
}

impl Module {
    /// Every module, in the documented order.
    pub const ALL: [Module; 5] = [
        Module::Core,
        Module::Content,
        Module::Channels,
        Module::Customers,
        Module::Widgets,
    ];

    /// The name used in `MODYO_MCP_MODULES` and in tool names.
    pub fn as_str(self) -> &'static str {
        match self {
            Module::Core => "core",
            Module::Content => "content",
            Module::Channels => "channels",
            Module::Customers => "customers",
            Module::Widgets => "widgets",
        }
    }

    /// Parses one module name (exact, lower case).
    pub fn parse(name: &str) -> Option<Module> {
        Module::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// Whether the module talks to the Modyo API (and so needs `MODYO_URL` and `MODYO_TOKEN`).
    pub fn needs_api(self) -> bool {
        !matches!(self, Module::Widgets)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The API token. Its `Debug` and `Display` never show the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Wraps a token value.
    pub fn new(value: impl Into<String>) -> Token {
        Token(value.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token([redacted])")
    }
}

/// Everything the server needs to know, read from the environment.
#[derive(Debug, Clone)]
pub struct Config {
    /// `MODYO_URL`: the account's base URL. Without it (or without a token) the server runs in
    /// public mode and only modules that need no API are registered.
    pub url: Option<Url>,
    /// `MODYO_TOKEN`: the admin API token.
    pub token: Option<Token>,
    /// `MODYO_PLATFORM_NAME`: the display name reported in `platform.name`.
    pub platform_name: Option<String>,
    /// `MODYO_READ_ONLY` (a safety switch that fails closed: `true`, `1`, `yes`, `on` in any
    /// case turn it on; `false`, `0`, `no`, `off` or unset leave it off; anything else refuses
    /// to start): mutation tools are not registered and the mutating actions of gated tools are
    /// refused before any write leaves the server.
    pub read_only: bool,
    /// `MODYO_MCP_MODULES`: the modules whose tools are registered.
    pub modules: BTreeSet<Module>,
    /// `MODYO_MCP_LEGACY_MODULES`: modules that answer the old way (contract rule C21).
    pub legacy_modules: BTreeSet<Module>,
    /// `MODYO_RESULTS` (or `--results`, which wins): what a migrated answer carries (C22):
    /// `both` (the default), `structured` or `text`. Anything else refuses to start.
    pub results: ResultForm,
    /// `MODYO_ERRORS`: the form of a tool error's text (C22): `json` (the default) or `text`.
    /// Anything else refuses to start.
    pub errors: ErrorForm,
    /// `MODYO_OUTPUT_SCHEMA`: whether `tools/list` publishes each tool's `outputSchema` (on by
    /// default; `off` for a client that copies the schemas into every request). The server
    /// validates its answers against them either way (C8).
    pub output_schema: bool,
    /// `MODYO_TIMEOUT_MS`: the per-request timeout for the Modyo API (default 30 s).
    pub timeout: Duration,
    /// `MODYO_DEFAULT_SITE_THEME`: the theme id used by site creation (default 208).
    pub default_site_theme: u64,
    /// `MODYO_MAX_BODY_BYTES`: the most bytes one API answer may hold (default
    /// [`DEFAULT_MAX_BODY_BYTES`]); a longer one is refused, never read whole.
    pub max_body_bytes: u64,
    /// `MODYO_UPLOAD_ROOTS`: the folders upload tools may read files from (see
    /// [`UploadRoots`]).
    pub upload_roots: UploadRoots,
}

/// The default cap on one API answer: 32 MiB (a page of 100 entries with every detail is a
/// few MiB).
pub const DEFAULT_MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// A configuration value that cannot be used; the message names the variable and the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// `MODYO_MCP_MODULES` or `MODYO_MCP_LEGACY_MODULES` named an unknown module.
    #[error(
        "Invalid module(s) in {var}: {}.\nValid values: core, content, channels, customers, widgets.",
        .bad.iter().map(|b| format!("'{b}'")).collect::<Vec<_>>().join(", ")
    )]
    InvalidModules {
        /// The variable that held the bad value.
        var: &'static str,
        /// The names that are not modules.
        bad: Vec<String>,
    },
    /// `MODYO_URL` is not an absolute http(s) URL with a host.
    #[error(
        "MODYO_URL is not a usable URL ({reason}); expected something like https://your-org.modyo.com"
    )]
    InvalidUrl {
        /// What is wrong with it.
        reason: String,
    },
    /// A numeric variable did not parse.
    #[error("{var} must be a positive integer, got '{value}'")]
    InvalidNumber {
        /// The variable name.
        var: &'static str,
        /// The value that did not parse.
        value: String,
    },
    /// A boolean switch had a value that is not one of the usual spellings of true or false.
    #[error(
        "{var} must be true or false (true, 1, yes, on / false, 0, no, off; any case), got '{value}'; refusing to start rather than guess"
    )]
    InvalidSwitch {
        /// The variable name.
        var: &'static str,
        /// The value as given.
        value: String,
    },
    /// `MODYO_UPLOAD_ROOTS` named a folder that cannot be a root.
    #[error(transparent)]
    UploadRoots(#[from] RootError),
    /// `MODYO_RESULTS` is not a result form.
    #[error(
        "MODYO_RESULTS must be both, structured or text (any case), got '{value}'; refusing to start rather than guess"
    )]
    InvalidResults {
        /// The value as given.
        value: String,
    },
    /// `MODYO_ERRORS` is not an error form, or is given twice with two forms.
    #[error(
        "MODYO_ERRORS must be json or text (any case), got '{value}'; refusing to start rather than guess"
    )]
    InvalidErrors {
        /// The value as given (both, when given twice).
        value: String,
    },
    /// `MODYO_RESULTS` is given twice, with two forms.
    #[error(
        "MODYO_RESULTS is given twice, as '{first}' and '{second}'; refusing to start rather than guess"
    )]
    ConflictingResults {
        /// The earlier form.
        first: ResultForm,
        /// The later form.
        second: ResultForm,
    },
}

impl Config {
    /// Reads the configuration from the process environment.
    ///
    /// A variable whose name or value is not UTF-8 is read lossily (`std::env::vars` would
    /// panic on it); a switch so spelt is then not a known value and refuses to start.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_vars(std::env::vars_os().map(|(key, value)| {
            (
                key.to_string_lossy().into_owned(),
                value.to_string_lossy().into_owned(),
            )
        }))
    }

    /// Reads the configuration from the given variables (tests pass their own).
    pub fn from_vars<I, K, V>(vars: I) -> Result<Config, ConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let mut url = None;
        let mut token = None;
        let mut platform_name = None;
        let mut read_only = false;
        let mut modules = Module::ALL.into_iter().collect();
        let mut legacy_modules = BTreeSet::new();
        let mut results: Option<ResultForm> = None;
        let mut errors: Option<ErrorForm> = None;
        let mut output_schema = true;
        let mut timeout = Duration::from_secs(30);
        let mut default_site_theme = 208;
        let mut max_body_bytes = DEFAULT_MAX_BODY_BYTES;
        let mut upload_roots = None;
        for (key, value) in vars {
            let value: String = value.into();
            match key.as_ref() {
                "MODYO_URL" if !value.trim().is_empty() => url = Some(parse_url(value.trim())?),
                "MODYO_TOKEN" if !value.is_empty() => token = Some(Token::new(value)),
                "MODYO_PLATFORM_NAME" if !value.trim().is_empty() => {
                    platform_name = Some(value.trim().to_owned())
                }
                // Present twice (an environment may hold a name twice): every entry must be a
                // known spelling, and any that turns it on wins, so a duplicate fails closed.
                "MODYO_READ_ONLY" => read_only |= parse_switch("MODYO_READ_ONLY", &value)?,
                UPLOAD_ROOTS_VAR => upload_roots = Some(value),
                "MODYO_RESULTS" if !value.trim().is_empty() => {
                    results = Some(parse_results(results, &value)?)
                }
                "MODYO_ERRORS" if !value.trim().is_empty() => {
                    errors = Some(parse_errors(errors, &value)?)
                }
                // Unset or empty: published. Present twice: any entry that turns it off wins
                // (every entry must still be a known spelling).
                "MODYO_OUTPUT_SCHEMA" if !value.trim().is_empty() => {
                    output_schema &= parse_switch("MODYO_OUTPUT_SCHEMA", &value)?
                }
                "MODYO_MCP_MODULES" if !value.trim().is_empty() => {
                    modules = parse_modules("MODYO_MCP_MODULES", &value)?
                }
                "MODYO_MCP_LEGACY_MODULES" if !value.trim().is_empty() => {
                    legacy_modules = parse_modules("MODYO_MCP_LEGACY_MODULES", &value)?
                }
                "MODYO_TIMEOUT_MS" if !value.trim().is_empty() => {
                    timeout = Duration::from_millis(parse_number("MODYO_TIMEOUT_MS", &value)?)
                }
                "MODYO_DEFAULT_SITE_THEME" if !value.trim().is_empty() => {
                    default_site_theme = parse_number("MODYO_DEFAULT_SITE_THEME", &value)?
                }
                "MODYO_MAX_BODY_BYTES" if !value.trim().is_empty() => {
                    max_body_bytes = parse_number("MODYO_MAX_BODY_BYTES", &value)?
                }
                _ => {}
            }
        }
        Ok(Config {
            url,
            token,
            platform_name,
            read_only,
            modules,
            legacy_modules,
            results: results.unwrap_or_default(),
            errors: errors.unwrap_or_default(),
            output_schema,
            timeout,
            default_site_theme,
            max_body_bytes,
            upload_roots: UploadRoots::from_setting(
                upload_roots.as_deref(),
                std::env::current_dir().ok().as_deref(),
            )?,
        })
    }

    /// A configuration pointing at `url` with `token`, every module on, nothing legacy.
    pub fn for_url(url: &str, token: &str) -> Result<Config, ConfigError> {
        Config::from_vars([("MODYO_URL", url), ("MODYO_TOKEN", token)])
    }

    /// The line the binaries print on stderr at start: which mode the read-only switch chose.
    pub fn mode_line(&self) -> &'static str {
        if self.read_only {
            "read-only mode (MODYO_READ_ONLY is on): write tools are not registered, mutating actions are refused"
        } else {
            "read-write mode (MODYO_READ_ONLY is off or unset): write tools are available"
        }
    }

    /// The line the binaries print on stderr at start: the result form (C22) and whether the
    /// output schemas are listed.
    pub fn results_line(&self) -> String {
        let schemas = if !self.results.lists_output_schema() {
            "no outputSchema listed"
        } else if self.output_schema {
            "outputSchema listed"
        } else {
            "outputSchema not listed (MODYO_OUTPUT_SCHEMA is off)"
        };
        format!(
            "results form {}: {}; {schemas}; errors as {}",
            self.results,
            self.results.keeps(),
            match self.errors {
                ErrorForm::Json => "compact JSON",
                ErrorForm::Text => "one plain line (MODYO_ERRORS=text)",
            }
        )
    }

    /// Whether `tools/list` shows each migrated tool's `outputSchema`: the form lists them
    /// and `MODYO_OUTPUT_SCHEMA` is not off.
    pub fn lists_output_schema(&self) -> bool {
        self.output_schema && self.results.lists_output_schema()
    }

    /// Whether the server has what it needs to call the API (else: public mode).
    pub fn has_api(&self) -> bool {
        self.url.is_some() && self.token.is_some()
    }

    /// The modules whose tools are actually registered (public mode drops API modules).
    pub fn active_modules(&self) -> BTreeSet<Module> {
        self.modules
            .iter()
            .copied()
            .filter(|m| self.has_api() || !m.needs_api())
            .collect()
    }
}

fn parse_url(value: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(value).map_err(|e| ConfigError::InvalidUrl {
        reason: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError::InvalidUrl {
            reason: format!("scheme '{}' is not http or https", url.scheme()),
        });
    }
    if url.host().is_none() {
        return Err(ConfigError::InvalidUrl {
            reason: "no host".into(),
        });
    }
    Ok(url)
}

/// A result form; an entry that names another form than an earlier one is refused as well
/// (which of the two was meant cannot be known).
fn parse_errors(earlier: Option<ErrorForm>, value: &str) -> Result<ErrorForm, ConfigError> {
    let form = ErrorForm::parse(value).ok_or_else(|| ConfigError::InvalidErrors {
        value: value.to_owned(),
    })?;
    match earlier {
        Some(first) if first != form => Err(ConfigError::InvalidErrors {
            value: format!("{first}' and '{form}"),
        }),
        _ => Ok(form),
    }
}

fn parse_results(earlier: Option<ResultForm>, value: &str) -> Result<ResultForm, ConfigError> {
    let form = ResultForm::parse(value).ok_or_else(|| ConfigError::InvalidResults {
        value: value.to_owned(),
    })?;
    match earlier {
        Some(first) if first != form => Err(ConfigError::ConflictingResults {
            first,
            second: form,
        }),
        _ => Ok(form),
    }
}

fn parse_modules(var: &'static str, value: &str) -> Result<BTreeSet<Module>, ConfigError> {
    let mut modules = BTreeSet::new();
    let mut bad = Vec::new();
    for name in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match Module::parse(name) {
            Some(m) => {
                modules.insert(m);
            }
            None => bad.push(name.to_owned()),
        }
    }
    if bad.is_empty() {
        Ok(modules)
    } else {
        Err(ConfigError::InvalidModules { var, bad })
    }
}

/// A boolean safety switch: the usual spellings of true and false in any case, surrounding
/// space ignored, empty meaning unset (off); anything else is refused, never guessed.
pub(crate) fn parse_switch(var: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" | "" => Ok(false),
        _ => Err(ConfigError::InvalidSwitch {
            var,
            value: value.to_owned(),
        }),
    }
}

fn parse_number(var: &'static str, value: &str) -> Result<u64, ConfigError> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| ConfigError::InvalidNumber {
            var,
            value: value.to_owned(),
        })
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
