//! Log setup shared by the binaries (`modyo-mcp`, `modyo-lab`): plain text on stderr (stdout is
//! the MCP channel or a report), and a default that keeps dependencies' INFO chatter out of the
//! way (rmcp announces every session, task and shutdown at INFO): warnings from everyone plus
//! this project's own progress lines. `-v` (repeatable) asks for more; `RUST_LOG`, when set,
//! decides instead.

use tracing_subscriber::EnvFilter;

use crate::scrub::{Scrubber, ScrubbingWriter};

/// The crates whose INFO lines are this project's progress (shown by default).
const OUR_CRATES: [&str; 2] = ["modyo_mcp", "modyo_lab"];

/// What a command prints when neither `-v` nor `RUST_LOG` says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quiet {
    /// Warnings from everyone, and this project's INFO progress lines.
    Progress,
    /// Errors only (a command whose output is its report, such as the lint).
    Errors,
}

/// The `-v` flag of both binaries.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct LogArgs {
    /// More log lines on stderr: -v everything at INFO (dependencies included), -vv DEBUG,
    /// -vvv TRACE. Without it: warnings and this project's progress lines. RUST_LOG, when set,
    /// takes precedence.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// The filter directives for `verbose` (the count of `-v`) over the default `quiet`.
pub fn directives(verbose: u8, quiet: Quiet) -> String {
    match (verbose, quiet) {
        (0, Quiet::Errors) => "error".to_owned(),
        (0, Quiet::Progress) => {
            let ours: Vec<String> = OUR_CRATES.iter().map(|c| format!("{c}=info")).collect();
            format!("warn,{}", ours.join(","))
        }
        (1, _) => "info".to_owned(),
        (2, _) => "debug".to_owned(),
        _ => "trace".to_owned(),
    }
}

/// The filter: `rust_log` (the value of `RUST_LOG`) when set and non-empty, else
/// [`directives`]. An unparsable `RUST_LOG` falls back to the default rather than to silence.
pub fn filter(rust_log: Option<&str>, verbose: u8, quiet: Quiet) -> EnvFilter {
    rust_log
        .filter(|value| !value.trim().is_empty())
        .and_then(|value| EnvFilter::try_new(value).ok())
        .unwrap_or_else(|| EnvFilter::new(directives(verbose, quiet)))
}

/// Installs the stderr logger for a binary: [`filter`] over this process's `RUST_LOG`, every
/// line passed through `scrubber` (the configured token never reaches the logs).
pub fn init(verbose: u8, quiet: Quiet, scrubber: Scrubber) {
    let rust_log = std::env::var("RUST_LOG").ok();
    tracing_subscriber::fmt()
        .with_writer(ScrubbingWriter::new(scrubber, std::io::stderr))
        .with_env_filter(filter(rust_log.as_deref(), verbose, quiet))
        .with_ansi(false)
        .init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_default_dependencies_log_warnings_and_our_crates_their_progress() {
        assert_eq!(
            directives(0, Quiet::Progress),
            "warn,modyo_mcp=info,modyo_lab=info"
        );
        assert_eq!(directives(0, Quiet::Errors), "error");
    }

    #[test]
    fn each_v_gives_more() {
        for quiet in [Quiet::Progress, Quiet::Errors] {
            assert_eq!(directives(1, quiet), "info");
            assert_eq!(directives(2, quiet), "debug");
            assert_eq!(directives(3, quiet), "trace");
            assert_eq!(directives(9, quiet), "trace");
        }
    }

    #[test]
    fn rust_log_takes_precedence_unless_empty_or_invalid() {
        let default = directives(0, Quiet::Progress);
        assert_eq!(
            filter(Some("rmcp=debug"), 0, Quiet::Progress).to_string(),
            "rmcp=debug"
        );
        for unset in [None, Some(""), Some("  "), Some("rmcp=[")] {
            let got = filter(unset, 0, Quiet::Progress).to_string();
            for directive in default.split(',') {
                assert!(got.contains(directive), "{unset:?}: {got}");
            }
        }
    }
}
