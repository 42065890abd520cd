//! The size of the server binary a user installs, measured on the build the bench ran, and
//! carried into the README's install section so the figure there is never typed by hand.
//!
//! The README holds the figure between two markers ([`README_START`], [`README_END`]);
//! `modyo-lab bench` rewrites what lies between them when it writes the report to its default
//! place, and a test holds the README and `reports/performance.md` to the same figure.

use crate::report::Span;
use std::path::Path;

/// Opens the README span `make bench` rewrites.
pub const README_START: &str = "<!-- bench: server binary size -->";
/// Closes it.
pub const README_END: &str = "<!-- /bench -->";

/// The server binary the bench measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Binary {
    /// Its path, relative to the workspace when it lies inside it.
    pub path: String,
    /// Its size on disk, bytes.
    pub bytes: u64,
}

impl Binary {
    /// Reads the size of `server`, naming it relative to `workspace` where it can.
    pub fn measure(server: &Path, workspace: &Path) -> std::io::Result<Binary> {
        let bytes = std::fs::metadata(server)?.len();
        let path = server
            .strip_prefix(workspace)
            .unwrap_or(server)
            .display()
            .to_string();
        Ok(Binary { path, bytes })
    }

    /// The size in megabytes (10^6 bytes, as `ls -h --si` and the crates' docs count), one
    /// decimal.
    pub fn megabytes(&self) -> String {
        format!("{:.1} MB", self.bytes as f64 / 1e6)
    }

    /// The README span's text: the figure and where it comes from.
    pub fn readme_text(&self) -> String {
        format!(
            "`{}` measured **{}** ({}, reported by `make bench` in `reports/performance.md`)",
            self.path,
            self.megabytes(),
            std::env::consts::ARCH
        )
    }
}

/// The README span `make bench` rewrites.
const SPAN: Span = Span {
    start: README_START,
    end: README_END,
};

/// `readme` with the text between the markers replaced by `text`; `None` when the markers are
/// missing or out of order (the README is then left alone and the bench says so).
pub fn rewrite_readme(readme: &str, text: &str) -> Option<String> {
    SPAN.rewrite(readme, text)
}

/// The text between the README's markers, if both are there.
pub fn readme_span(readme: &str) -> Option<&str> {
    SPAN.text(readme)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary() -> Binary {
        Binary {
            path: "target/release/modyo-mcp".into(),
            bytes: 29_712_345,
        }
    }

    #[test]
    fn megabytes_are_decimal_with_one_digit() {
        assert_eq!(binary().megabytes(), "29.7 MB");
    }

    #[test]
    fn the_span_between_the_markers_is_replaced_and_nothing_else() {
        let readme = format!("a {README_START}old figure{README_END} b {README_END}");
        let new = rewrite_readme(&readme, "new").expect("markers present");
        assert_eq!(
            new,
            format!("a {README_START}new{README_END} b {README_END}")
        );
        assert_eq!(readme_span(&new), Some("new"));
    }

    #[test]
    fn a_readme_without_both_markers_is_left_alone() {
        assert_eq!(rewrite_readme("no markers", "x"), None);
        assert_eq!(
            rewrite_readme(&format!("{README_END}{README_START}"), "x"),
            None
        );
        assert_eq!(readme_span(README_START), None);
    }

    #[test]
    fn the_path_is_named_relative_to_the_workspace() {
        let dir = std::env::temp_dir().join(format!("bin-size-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("target")).expect("temp dir");
        let file = dir.join("target/server");
        std::fs::write(&file, [0u8; 1234]).expect("write");
        let measured = Binary::measure(&file, &dir).expect("measured");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(measured.path, "target/server");
        assert_eq!(measured.bytes, 1234);
    }
}
