//! The workspace as a build: the cargo commands of the gate and of a newcomer (`cargo build`,
//! `cargo doc`, `cargo run -p modyo-lab`, `cargo test`) resolve one feature set for every shared
//! crate, so none of them recompiles what another built. The "workspace hack" in
//! harness/Cargo.toml keeps it so; this test names what to add there when a dependency change
//! breaks it.

use std::collections::BTreeSet;
use std::process::Command;

use crate::util::workspace;

/// `cargo tree` lines `<crate> <version> <features>` for `args` (deduplicated, sorted).
fn resolved(args: &[&str]) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--offline", "--prefix", "none"])
        .args(["--format", "{p} {f}"])
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.trim_end_matches(" (*)").to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn every_command_resolves_the_features_the_tests_build() {
    let tests = resolved(&["--workspace"]);
    let commands: [(&str, &[&str]); 2] = [
        (
            "cargo build/doc --workspace",
            &["--workspace", "-e", "normal,build"],
        ),
        (
            "cargo run -p modyo-lab",
            &["-p", "modyo-lab", "-e", "normal,build"],
        ),
    ];
    for (command, args) in commands {
        let resolved = resolved(args);
        let differing: Vec<&String> = resolved.difference(&tests).collect();
        assert!(
            differing.is_empty(),
            "{command} resolves other features than `cargo test --workspace` for:\n{}\n\
             ask for the tests' features of these crates in harness/Cargo.toml",
            differing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
