//! Path templates (`/content/spaces/{space_id}/entries`) and how a concrete request path
//! matches one.
//!
//! A template is `/`-separated segments, each either a literal or a whole-segment variable
//! `{name}`. A concrete path matches when it has as many segments, every literal is equal,
//! and every variable stands for a non-empty segment. Among several matching templates the
//! most specific wins: compared segment by segment from the left, a literal beats a variable
//! (`/content/assets/bulk` before `/content/assets/{asset_id}`).

use std::cmp::Ordering;
use std::fmt;

/// One segment of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A literal segment: `spaces`.
    Literal(String),
    /// A whole-segment variable, its name without braces: `space_id` of `{space_id}`.
    Variable(String),
}

/// A parsed path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    segments: Vec<Segment>,
}

impl Template {
    /// Parses `text`; the error says what is wrong with it.
    ///
    /// ```
    /// use modyo_replay::Template;
    ///
    /// let t = Template::parse("/sites/{site_id}/menus").unwrap();
    /// assert_eq!(t.variables().collect::<Vec<_>>(), ["site_id"]);
    /// assert!(Template::parse("/sites/{site_id").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Template, String> {
        if !text.starts_with('/') {
            return Err(format!("'{text}' must start with '/'"));
        }
        if text.contains(['?', '#']) || text.chars().any(char::is_whitespace) {
            return Err(format!(
                "'{text}' must be a bare path template: no query, fragment or whitespace"
            ));
        }
        let mut segments = Vec::new();
        if text != "/" {
            for segment in text[1..].split('/') {
                if segment.is_empty() {
                    return Err(format!("'{text}' has an empty segment"));
                }
                let variable = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
                match variable {
                    Some(name)
                        if !name.is_empty()
                            && name.chars().all(|c| {
                                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
                            }) =>
                    {
                        segments.push(Segment::Variable(name.to_owned()));
                    }
                    _ if segment.contains(['{', '}']) => {
                        return Err(format!(
                            "'{text}': segment '{segment}' is neither a literal nor a whole {{name}} variable"
                        ));
                    }
                    _ => segments.push(Segment::Literal(segment.to_owned())),
                }
            }
        }
        Ok(Template {
            text: text.to_owned(),
            segments,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Segment `i`, if the template has that many.
    pub fn segment(&self, i: usize) -> Option<&Segment> {
        self.segments.get(i)
    }

    /// The names of its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Variable(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        })
    }

    /// Whether the template has a variable named `name`.
    pub fn has_variable(&self, name: &str) -> bool {
        self.variables().any(|v| v == name)
    }

    /// Matches a concrete path's segments; on success, each variable with the segment it
    /// stands for.
    pub fn bind<'p>(&self, path: &[&'p str]) -> Option<Vec<(&str, &'p str)>> {
        if path.len() != self.segments.len() {
            return None;
        }
        let mut bound = Vec::new();
        for (segment, value) in self.segments.iter().zip(path) {
            match segment {
                Segment::Literal(literal) if literal == value => {}
                Segment::Literal(_) => return None,
                Segment::Variable(_) if value.is_empty() => return None,
                Segment::Variable(name) => bound.push((name.as_str(), *value)),
            }
        }
        Some(bound)
    }

    /// Whether this template matches the same concrete paths as `other` matches at least
    /// (every literal of `self` is the same literal in `other`, and `other` has a literal or
    /// a variable where `self` has a variable): `self` covers `other`'s paths.
    pub fn covers(&self, other: &Template) -> bool {
        self.segments.len() == other.segments.len()
            && self
                .segments
                .iter()
                .zip(&other.segments)
                .all(|(mine, theirs)| match (mine, theirs) {
                    (Segment::Variable(_), _) => true,
                    (Segment::Literal(a), Segment::Literal(b)) => a == b,
                    (Segment::Literal(_), Segment::Variable(_)) => false,
                })
    }

    /// Specificity order: `Greater` when `self` is more specific (a literal where `other` has
    /// a variable, at the first segment where they differ in kind).
    pub fn specificity(&self, other: &Template) -> Ordering {
        for (mine, theirs) in self.segments.iter().zip(&other.segments) {
            match (mine, theirs) {
                (Segment::Literal(_), Segment::Variable(_)) => return Ordering::Greater,
                (Segment::Variable(_), Segment::Literal(_)) => return Ordering::Less,
                _ => {}
            }
        }
        Ordering::Equal
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The segments of a concrete path (`/a/b` gives `["a", "b"]`; `/` gives none).
pub fn segments(path: &str) -> Vec<&str> {
    match path.strip_prefix('/') {
        Some("") | None => Vec::new(),
        Some(rest) => rest.split('/').collect(),
    }
}

/// Joins a base path (`/api/admin`) and an operation template (`/content/spaces`).
pub fn join(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    if path == "/" {
        if base.is_empty() {
            "/".to_owned()
        } else {
            base.to_owned()
        }
    } else {
        format!("{base}{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Template {
        Template::parse(text).expect(text)
    }

    #[test]
    fn templates_parse_whole_segment_variables_only() {
        assert_eq!(t("/").variables().count(), 0);
        assert_eq!(
            t("/a/{b}/c/{d_e}").variables().collect::<Vec<_>>(),
            ["b", "d_e"]
        );
        for bad in [
            "a", "/a//b", "/a/{b", "/a/b}", "/a/x{b}", "/a/{}", "/a?b", "/a b",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn binding_needs_the_same_length_equal_literals_and_non_empty_values() {
        let template = t("/sites/{site_id}/menus/{id}");
        assert_eq!(
            template.bind(&segments("/sites/12/menus/301")),
            Some(vec![("site_id", "12"), ("id", "301")])
        );
        assert_eq!(template.bind(&segments("/sites/12/menus")), None);
        assert_eq!(template.bind(&segments("/sites/12/pages/301")), None);
        assert_eq!(template.bind(&["sites", "", "menus", "1"]), None);
        assert_eq!(t("/").bind(&segments("/")), Some(vec![]));
    }

    #[test]
    fn literals_are_more_specific_than_variables_from_the_left() {
        let bulk = t("/content/assets/bulk");
        let one = t("/content/assets/{asset_id}");
        assert_eq!(bulk.specificity(&one), Ordering::Greater);
        assert_eq!(one.specificity(&bulk), Ordering::Less);
        assert_eq!(one.specificity(&one), Ordering::Equal);
        assert!(one.covers(&bulk) && !bulk.covers(&one) && one.covers(&one));
        assert!(!t("/a/{x}").covers(&t("/a/{x}/b")));
    }

    #[test]
    fn joining_keeps_one_slash() {
        assert_eq!(
            join("/api/admin", "/content/spaces"),
            "/api/admin/content/spaces"
        );
        assert_eq!(join("/api/admin/", "/x"), "/api/admin/x");
        assert_eq!(join("", "/x"), "/x");
        assert_eq!(join("/api", "/"), "/api");
        assert_eq!(join("", "/"), "/");
    }
}
