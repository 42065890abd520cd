//! Literal secrets (the token) found in every URL spelling, not in a list of spellings.
//!
//! A secret may reach a cassette as it is, form-encoded (`+` for a space, `%2F` for `/`),
//! percent-encoded with `%20` for a space, with lower-case hex (`%2f`), or any mix of these
//! (a client that encodes only what its encode set names). Listing the forms misses the next
//! one; instead, [`Literal`] matches a stretch of text that *decodes* to the secret: each byte
//! of the secret may appear as itself, as `%XX` in either case, or, for a space, as `+`. The
//! secret's own bytes are never case-folded. Double encoding (`%252F`) and JSON escapes
//! (`\/`) are not decoded: nothing the recorder stores holds them (JSON bodies are parsed).

/// One literal secret and how to find it in any URL spelling.
#[derive(Clone)]
pub(super) struct Literal {
    secret: Box<[u8]>,
    /// Whether a `%` of the secret may be matched two ways (as `%` or as `%25`): only then can
    /// a match need to try both.
    has_percent: bool,
}

impl Literal {
    pub(super) fn new(secret: &str) -> Literal {
        Literal {
            secret: secret.as_bytes().into(),
            has_percent: secret.contains('%'),
        }
    }

    /// The secret as given.
    pub(super) fn as_str(&self) -> &str {
        // Built from a `&str`, never changed.
        std::str::from_utf8(&self.secret).unwrap_or_default()
    }

    pub(super) fn len(&self) -> usize {
        self.secret.len()
    }

    /// Whether `haystack` holds the secret in any spelling.
    pub(super) fn is_in(&self, haystack: &[u8]) -> bool {
        self.find(haystack, 0).is_some()
    }

    /// `haystack` with every spelling of the secret replaced by `with`; `None` when there is
    /// none (nothing to copy).
    pub(super) fn replace(&self, haystack: &[u8], with: &[u8]) -> Option<Vec<u8>> {
        let (mut start, mut end) = self.find(haystack, 0)?;
        let mut out = Vec::with_capacity(haystack.len());
        let mut copied = 0;
        loop {
            out.extend_from_slice(&haystack[copied..start]);
            out.extend_from_slice(with);
            copied = end;
            match self.find(haystack, end) {
                Some(found) => (start, end) = found,
                None => break,
            }
        }
        out.extend_from_slice(&haystack[copied..]);
        Some(out)
    }

    /// The first match at or after `from`: `(start, end)`.
    fn find(&self, haystack: &[u8], from: usize) -> Option<(usize, usize)> {
        let first = *self.secret.first()?;
        let mut at = from;
        while at < haystack.len() {
            // A match starts with the first byte, spelled as itself, `%XX` or `+`.
            let start = at
                + haystack[at..]
                    .iter()
                    .position(|&b| b == first || b == b'%' || (first == b' ' && b == b'+'))?;
            if let Some(end) = self.match_at(haystack, start, 0) {
                return Some((start, end));
            }
            at = start + 1;
        }
        None
    }

    /// Where a spelling of `secret[from..]` that starts at `haystack[at]` ends.
    fn match_at(&self, haystack: &[u8], mut at: usize, from: usize) -> Option<usize> {
        for (i, &want) in self.secret.iter().enumerate().skip(from) {
            let got = *haystack.get(at)?;
            let encoded = (got == b'%')
                .then(|| decode(haystack.get(at + 1..at + 3)?))
                .flatten();
            if self.has_percent && want == b'%' && got == b'%' && encoded == Some(b'%') {
                // `%25...`: the secret's `%` encoded, or its `%` followed by `25`.
                return self
                    .match_at(haystack, at + 3, i + 1)
                    .or_else(|| self.match_at(haystack, at + 1, i + 1));
            }
            at += if got == want || (want == b' ' && got == b'+') {
                1
            } else if encoded == Some(want) {
                3
            } else {
                return None;
            };
        }
        Some(at)
    }
}

/// The byte two hex digits (either case) spell.
fn decode(hex: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16);
    match hex {
        [high, low] => Some((digit(*high)? * 16 + digit(*low)?) as u8),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaced(secret: &str, text: &str) -> String {
        let literal = Literal::new(secret);
        match literal.replace(text.as_bytes(), b"<r>") {
            Some(out) => String::from_utf8(out).expect("utf-8"),
            None => text.to_owned(),
        }
    }

    #[test]
    fn every_percent_spelling_of_the_secret_is_found() {
        let secret = "Tok en/7f+=ñ";
        for spelling in [
            "Tok en/7f+=ñ",
            "Tok+en%2F7f%2B%3D%C3%B1",
            "Tok+en%2f7f%2b%3d%c3%b1",
            "Tok%20en%2F7f%2B%3D%C3%B1",
            "Tok%20en%2f7f%2b%3d%c3%b1",
            "Tok%20en/7f%2B=%C3%B1",
            "%54%6f%6b%20en%2F7f%2B%3Dñ",
        ] {
            assert_eq!(
                replaced(secret, &format!("a {spelling} b")),
                "a <r> b",
                "{spelling}"
            );
        }
        assert_eq!(
            replaced(secret, "Tok en/7f+=ñTok+en%2f7f%2b%3d%c3%b1"),
            "<r><r>"
        );
    }

    #[test]
    fn near_spellings_are_left_alone() {
        let secret = "Tok en/7f";
        for text in [
            "tok en/7f",
            "Tok en/7",
            "Tok%2en/7f",
            "Tok%zzen/7f",
            "Tok++en/7f",
            "%",
            "T",
        ] {
            assert_eq!(replaced(secret, text), text, "{text}");
        }
        // A `+` of the secret is a `+` (or `%2B`), never a space.
        assert_eq!(replaced("a+b", "a b a%20b"), "a b a%20b");
        assert_eq!(replaced("a+b", "a+b a%2bb"), "<r> <r>");
    }

    #[test]
    fn a_percent_in_the_secret_matches_as_itself_or_encoded() {
        assert_eq!(replaced("x%25y", "x%25y"), "<r>", "as it is");
        assert_eq!(replaced("x%25y", "x%2525y"), "<r>", "encoded");
        assert_eq!(replaced("50%off", "50%25off 50%off"), "<r> <r>");
    }

    #[test]
    fn replacing_twice_changes_nothing_more() {
        let secret = "s3cr3t/t0ken value";
        let once = replaced(secret, "x s3cr3t%2ft0ken%20value y");
        assert_eq!(once, "x <r> y");
        assert_eq!(replaced(secret, &once), once);
        assert!(!Literal::new(secret).is_in(once.as_bytes()));
    }
}
