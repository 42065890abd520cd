//! A generated span inside a hand-written file (the README): the text between two HTML
//! comments that a lab command rewrites, so a figure or a table there is never typed by hand,
//! and a test can hold the file to what the lab writes.

use std::ops::Range;

/// The two markers around a generated span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Opens the span (`<!-- bench: server binary size -->`).
    pub start: &'static str,
    /// Closes it (`<!-- /bench -->`).
    pub end: &'static str,
}

impl Span {
    /// `doc` with the text between the markers replaced by `text`; `None` when the markers are
    /// missing or out of order (the file is then left alone and the command says so).
    pub fn rewrite(&self, doc: &str, text: &str) -> Option<String> {
        let range = self.range(doc)?;
        Some(format!(
            "{}{text}{}",
            &doc[..range.start],
            &doc[range.end..]
        ))
    }

    /// The text between the markers, if both are there.
    pub fn text<'a>(&self, doc: &'a str) -> Option<&'a str> {
        self.range(doc).map(|range| &doc[range])
    }

    /// Where the text between the first `start` and the `end` after it lies.
    fn range(&self, doc: &str) -> Option<Range<usize>> {
        let start = doc.find(self.start)? + self.start.len();
        let end = start + doc[start..].find(self.end)?;
        Some(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPAN: Span = Span {
        start: "<!-- x -->",
        end: "<!-- /x -->",
    };

    #[test]
    fn the_span_is_rewritten_in_place_and_only_between_its_markers() {
        let doc = "a <!-- x -->old<!-- /x --> b <!-- /x -->";
        assert_eq!(SPAN.text(doc), Some("old"));
        assert_eq!(
            SPAN.rewrite(doc, "new").as_deref(),
            Some("a <!-- x -->new<!-- /x --> b <!-- /x -->")
        );
        assert_eq!(SPAN.rewrite("<!-- /x --> <!-- x -->", "new"), None);
        assert_eq!(SPAN.text("no markers"), None);
    }
}
