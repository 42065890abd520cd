//! Keeping the token out of everything the server says: the one mechanism that scrubs it from
//! text that leaves the process, whoever wrote the text.
//!
//! The server never writes the token itself, but upstream can echo it (`401 {"error":
//! "invalid token: Bearer <token>"}`, a name that happens to hold it), and what upstream said
//! is relayed in error messages, bodies, lists of keys and `DEBUG` logs. So the token is
//! scrubbed where text leaves: every `tools/call` answer (results and JSON-RPC errors, see
//! `server.rs`) and every log line ([`ScrubbingWriter`], installed by the binary). A
//! [`Scrubber`] replaces the token in each form it can take in text (as is, URL-encoded,
//! JSON-escaped, Rust-escaped), so `Bearer <token>` becomes `Bearer <redacted>`, the way the
//! recorder redacts cassettes.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

use memchr::memmem;
use serde_json::{Map, Value};
use tracing_subscriber::fmt::MakeWriter;

use crate::config::Token;

/// What the token becomes: the recorder's placeholder, so an answer recorded live and the
/// same answer replayed from its cassette agree.
pub const REDACTED: &str = "<redacted>";

/// Replaces the token wherever it appears. Cheap to clone; its `Debug` never shows the token.
#[derive(Clone, Default)]
pub struct Scrubber {
    /// The forms of the token, longest first (so a form containing another is replaced whole).
    forms: Arc<[Form]>,
}

/// One form of the token with its searcher, built once: every answer (about 100 KB for a page
/// of 100 entries) is searched for every form on its way out. `str::contains` took 14-180 µs a
/// form on such an answer, depending on the token (its SIMD path covers needles up to 32 bytes
/// only; longer ones fall back to Two-Way); `memmem` takes 4-20 µs for any length.
struct Form {
    text: String,
    finder: memmem::Finder<'static>,
}

impl Form {
    fn new(text: String) -> Form {
        let finder = memmem::Finder::new(text.as_bytes()).into_owned();
        Form { text, finder }
    }

    fn is_in(&self, text: &str) -> bool {
        self.finder.find(text.as_bytes()).is_some()
    }
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber([{} forms redacted])", self.forms.len())
    }
}

/// The shortest token scrubbed. A real admin token is a long random string; a shorter value
/// (a placeholder such as `t` in a test) is not a secret worth erasing every `t` of every
/// answer for.
pub const MIN_SCRUBBED_CHARS: usize = 8;

impl Scrubber {
    /// A scrubber for `token` (none for a token shorter than [`MIN_SCRUBBED_CHARS`]).
    ///
    /// The forms: the token as is; URL-encoded as a form (`+` for a space) and as a path or
    /// query component (`%20`), each with upper- and lower-case hex digits (both are valid and
    /// servers differ); JSON-escaped once and twice (an upstream text quoted inside a JSON
    /// string that is itself quoted); Rust-escaped (`{:?}`).
    pub fn new(token: &Token) -> Scrubber {
        let value = token.expose();
        if value.chars().count() < MIN_SCRUBBED_CHARS {
            return Scrubber::default();
        }
        let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        let percent = percent_encoded(value);
        let unquoted = |s: &str| {
            let s = s.strip_prefix('"').unwrap_or(s);
            s.strip_suffix('"').unwrap_or(s).to_owned()
        };
        let json = unquoted(&serde_json::to_string(value).unwrap_or_default());
        let json_twice = unquoted(&serde_json::to_string(&json).unwrap_or_default());
        let debug = unquoted(&format!("{value:?}"));
        let mut forms: Vec<String> = [
            value.to_owned(),
            lower_hex(&form),
            form,
            lower_hex(&percent),
            percent,
            json,
            json_twice,
            debug,
        ]
        .into_iter()
        .filter(|f| !f.is_empty())
        .collect();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        Scrubber {
            forms: forms.into_iter().map(Form::new).collect(),
        }
    }

    /// A scrubber for the configured token, if there is one.
    pub fn for_token(token: Option<&Token>) -> Scrubber {
        token.map(Scrubber::new).unwrap_or_default()
    }

    /// Whether any form of the token appears in `text`.
    pub fn finds(&self, text: &str) -> bool {
        self.forms.iter().any(|form| form.is_in(text))
    }

    /// `text` with every form of the token replaced by [`REDACTED`].
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.finds(text) {
            return Cow::Borrowed(text);
        }
        let mut out = text.to_owned();
        for form in self.forms.iter() {
            if form.is_in(&out) {
                out = out.replace(form.text.as_str(), REDACTED);
            }
        }
        Cow::Owned(out)
    }

    /// Scrubs a string in place.
    pub fn scrub_string(&self, text: &mut String) {
        if let Cow::Owned(clean) = self.scrub(text) {
            *text = clean;
        }
    }

    /// Scrubs raw bytes in place (an upstream body before anything reads it): every form of
    /// the token becomes [`REDACTED`]. A JSON body stays valid JSON: each form is text inside
    /// a string and the placeholder needs no escaping.
    pub fn scrub_bytes(&self, bytes: &mut Vec<u8>) {
        if !self
            .forms
            .iter()
            .any(|form| form.finder.find(bytes).is_some())
        {
            return;
        }
        for form in self.forms.iter() {
            if form.finder.find(bytes).is_none() {
                continue;
            }
            let mut out = Vec::with_capacity(bytes.len());
            let mut rest = 0;
            for at in form.finder.find_iter(bytes) {
                if at < rest {
                    continue;
                }
                out.extend_from_slice(&bytes[rest..at]);
                out.extend_from_slice(REDACTED.as_bytes());
                rest = at + form.text.len();
            }
            out.extend_from_slice(&bytes[rest..]);
            *bytes = out;
        }
    }

    /// [`Scrubber::scrub`], also where the text was lower- or upper-cased on the way (a host
    /// name in a URL is lowercased by the parser, so a token echoed in a redirect's host
    /// comes back lowercased).
    pub fn scrub_ignoring_case(&self, text: &str) -> String {
        let mut out = self.scrub(text).into_owned();
        for form in self.forms.iter() {
            let needle = form.text.to_ascii_lowercase();
            let mut from = 0;
            while let Some(found) = out
                .get(from..)
                .and_then(|rest| rest.to_ascii_lowercase().find(&needle))
            {
                let at = from + found;
                out.replace_range(at..at + needle.len(), REDACTED);
                from = at + REDACTED.len();
            }
        }
        out
    }

    /// Scrubs every string and every key of a JSON value in place.
    pub fn scrub_value(&self, value: &mut Value) {
        match value {
            Value::String(text) => self.scrub_string(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.scrub_value(v)),
            Value::Object(map) if map.keys().any(|k| self.finds(k)) => {
                let old = std::mem::take(map);
                let mut clean = Map::with_capacity(old.len());
                for (key, mut v) in old {
                    self.scrub_value(&mut v);
                    clean.insert(self.scrub(&key).into_owned(), v);
                }
                *map = clean;
            }
            Value::Object(map) => map.values_mut().for_each(|v| self.scrub_value(v)),
            _ => {}
        }
    }
}

/// `text` percent-encoded as a URL component: every byte but the unreserved ones (RFC 3986:
/// letters, digits, `-`, `.`, `_`, `~`) as `%XX`, so a space is `%20` (a form writes `+`).
fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A URL-encoded text with its hex digits in lower case (`%2f` for `%2F`).
fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex_left = 0;
    for c in encoded.chars() {
        if c == '%' {
            hex_left = 2;
            out.push(c);
        } else if hex_left > 0 {
            hex_left -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A [`MakeWriter`] whose writers scrub the token from every log line before it reaches
/// `inner` (stderr for the binary). Each event is buffered whole and written when the writer
/// is dropped, so a token split across two writes is still found.
#[derive(Debug, Clone)]
pub struct ScrubbingWriter<M> {
    scrubber: Scrubber,
    inner: M,
}

impl<M> ScrubbingWriter<M> {
    /// Wraps `inner`.
    pub fn new(scrubber: Scrubber, inner: M) -> ScrubbingWriter<M> {
        ScrubbingWriter { scrubber, inner }
    }
}

impl<'a, M> MakeWriter<'a> for ScrubbingWriter<M>
where
    M: MakeWriter<'a>,
{
    type Writer = ScrubbedLine<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        ScrubbedLine {
            scrubber: self.scrubber.clone(),
            buffer: Vec::new(),
            inner: self.inner.make_writer(),
        }
    }
}

/// One log event on its way out: buffered, then scrubbed and written on drop.
#[derive(Debug)]
pub struct ScrubbedLine<W: Write> {
    scrubber: Scrubber,
    buffer: Vec<u8>,
    inner: W,
}

impl<W: Write> ScrubbedLine<W> {
    fn emit(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.buffer);
        let clean = self.scrubber.scrub(&text);
        self.inner.write_all(clean.as_bytes())?;
        self.buffer.clear();
        self.inner.flush()
    }
}

impl<W: Write> Write for ScrubbedLine<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A partial event stays buffered: the token may straddle two writes.
        Ok(())
    }
}

impl<W: Write> Drop for ScrubbedLine<W> {
    fn drop(&mut self) {
        let _ = self.emit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOKEN: &str = "canary+7f3a/9c51\"x";

    fn scrubber() -> Scrubber {
        Scrubber::new(&Token::new(TOKEN))
    }

    #[test]
    fn every_form_of_the_token_is_replaced() {
        let s = scrubber();
        let encoded: String = url::form_urlencoded::byte_serialize(TOKEN.as_bytes()).collect();
        for text in [
            format!("invalid token: Bearer {TOKEN}"),
            format!("?token={encoded}&page=1"),
            serde_json::to_string(&json!({"error": format!("Bearer {TOKEN}")})).unwrap(),
            format!("keys: {:?}", [TOKEN]),
        ] {
            let clean = s.scrub(&text);
            assert!(!clean.contains("canary"), "{text} -> {clean}");
            assert!(clean.contains(REDACTED), "{clean}");
        }
        assert_eq!(s.scrub("nothing here"), "nothing here");
        assert!(matches!(s.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_long_token_is_found_in_a_long_answer() {
        // Past 32 bytes `str::contains` changes algorithm; the searcher must not care.
        let token = format!("{TOKEN}-{}", "0123456789abcdef".repeat(8));
        let s = Scrubber::new(&Token::new(token.clone()));
        let filler = r#"{"id":1,"name":"Sucursal"},"#.repeat(4000);
        for text in [
            format!("{filler}Bearer {token}"),
            format!("Bearer {token}{filler}"),
        ] {
            assert!(s.finds(&text));
            let clean = s.scrub(&text);
            assert!(!clean.contains(&token) && clean.contains(REDACTED));
        }
        assert!(!s.finds(&format!("{filler}{}", &token[..token.len() - 1])));
    }

    #[test]
    fn percent_encoded_lower_hex_and_twice_escaped_forms_are_replaced() {
        // A token with a space, a slash, a quote and a backslash, as an attacker chose it.
        let token = "Ab c/d\"e\\f-0123456789";
        let s = Scrubber::new(&Token::new(token));
        let twice = serde_json::to_string(&serde_json::to_string(token).unwrap()).unwrap();
        for text in [
            "token=Ab%20c%2Fd%22e%5Cf-0123456789".to_owned(),
            "token=Ab%20c%2fd%22e%5cf-0123456789".to_owned(),
            "token=Ab+c%2fd%22e%5cf-0123456789".to_owned(),
            format!("detail: {twice}"),
        ] {
            let clean = s.scrub(&text);
            assert!(!clean.contains("0123456789"), "{text} -> {clean}");
        }
        let lowered = "https://ab c/d\"e\\f-0123456789.evil.test/";
        let clean = s.scrub_ignoring_case(lowered);
        assert!(!clean.contains("0123456789"), "{clean}");
    }

    #[test]
    fn bytes_are_scrubbed_and_json_stays_json() {
        let s = scrubber();
        let body =
            serde_json::to_vec(&json!({"a": format!("x{TOKEN}y"), "b": [TOKEN, TOKEN]})).unwrap();
        let mut scrubbed = body.clone();
        s.scrub_bytes(&mut scrubbed);
        let value: Value = serde_json::from_slice(&scrubbed).expect("still JSON");
        assert_eq!(value["a"], format!("x{REDACTED}y"));
        assert_eq!(value["b"], json!([REDACTED, REDACTED]));
        let mut clean = b"{}".to_vec();
        s.scrub_bytes(&mut clean);
        assert_eq!(clean, b"{}");
    }

    #[test]
    fn values_are_scrubbed_in_strings_and_keys() {
        let mut value = json!({"a": [format!("Bearer {TOKEN}")], TOKEN: {"b": TOKEN}, "n": 1});
        scrubber().scrub_value(&mut value);
        assert!(!value.to_string().contains("canary"), "{value}");
        assert_eq!(value["a"][0], "Bearer <redacted>");
        assert_eq!(value[REDACTED]["b"], REDACTED);
    }

    #[test]
    fn no_token_scrubs_nothing_and_debug_hides_it() {
        let none = Scrubber::for_token(None);
        assert_eq!(none.scrub(TOKEN), TOKEN);
        let placeholder = Scrubber::new(&Token::new("t"));
        assert_eq!(
            placeholder.scrub("state"),
            "state",
            "a placeholder token is no secret"
        );
        assert!(!format!("{:?}", scrubber()).contains("canary"));
    }

    #[test]
    fn the_log_writer_scrubs_a_token_split_across_writes() {
        #[derive(Clone, Default)]
        struct Sink(Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let make = ScrubbingWriter::new(scrubber(), {
            let sink = sink.clone();
            move || sink.clone()
        });
        {
            let mut line = make.make_writer();
            let (head, tail) = TOKEN.split_at(6);
            write!(line, "DEBUG response: Bearer {head}").unwrap();
            line.flush().unwrap();
            writeln!(line, "{tail} end").unwrap();
        }
        let written = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        assert_eq!(written, "DEBUG response: Bearer <redacted> end\n");
    }
}
