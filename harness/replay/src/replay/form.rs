//! A `multipart/form-data` request body in canonical form, so replay can match a form upload
//! the way it matches a JSON body.
//!
//! The canonical form is a JSON object: a text field is its value as a string; a field whose
//! name ends in `[]`, or that appears more than once, is the array of its values in order; a
//! file part is `{"file_name", "content_type", "size"}` (its bytes are not kept). A cassette
//! records a form request with this object as `body` and the request header
//! `content-type: multipart/form-data`, which is what tells replay to compare it with a form
//! rather than with a JSON body.

use serde_json::{Map, Value, json};

/// The media type of a form upload.
pub(crate) const FORM_MEDIA_TYPE: &str = "multipart/form-data";

/// Whether a `content-type` value names a form upload.
pub(crate) fn is_form(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case(FORM_MEDIA_TYPE))
}

/// The canonical object of a form body, or `None` when the body is not a well-formed form
/// with the boundary its `content-type` names.
pub(crate) fn parse(content_type: &str, body: &[u8]) -> Option<Value> {
    if !is_form(content_type) {
        return None;
    }
    let boundary = content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_owned())
    })?;
    let delimiter = format!("--{boundary}");
    let mut fields: Vec<(String, Value)> = Vec::new();
    let mut rest = body;
    // Everything before the first delimiter is preamble.
    rest = &rest[find(rest, delimiter.as_bytes())? + delimiter.len()..];
    loop {
        if rest.starts_with(b"--") {
            break;
        }
        rest = rest.strip_prefix(b"\r\n")?;
        let end = find(rest, format!("\r\n{delimiter}").as_bytes())?;
        let part = &rest[..end];
        rest = &rest[end + 2 + delimiter.len()..];
        let split = find(part, b"\r\n\r\n")?;
        let headers = String::from_utf8_lossy(&part[..split]);
        let content = &part[split + 4..];
        let (name, file_name, part_type) = part_headers(&headers)?;
        let value = match file_name {
            Some(file_name) => json!({
                "file_name": file_name,
                "content_type": part_type,
                "size": content.len(),
            }),
            None => Value::String(String::from_utf8_lossy(content).into_owned()),
        };
        fields.push((name, value));
    }
    let mut object = Map::new();
    for (name, value) in fields {
        let repeated = name.ends_with("[]");
        match object.get_mut(&name) {
            Some(Value::Array(values)) if repeated => values.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = match first {
                    Value::Array(mut values) => {
                        values.push(value);
                        Value::Array(values)
                    }
                    single => Value::Array(vec![single, value]),
                };
            }
            None if repeated => {
                object.insert(name, Value::Array(vec![value]));
            }
            None => {
                object.insert(name, value);
            }
        }
    }
    Some(Value::Object(object))
}

/// The field name, file name and content type of a part's headers.
fn part_headers(headers: &str) -> Option<(String, Option<String>, Option<String>)> {
    let mut name = None;
    let mut file_name = None;
    let mut content_type = None;
    for line in headers.split("\r\n") {
        let Some((header, value)) = line.split_once(':') else {
            continue;
        };
        if header.trim().eq_ignore_ascii_case("content-type") {
            content_type = Some(value.trim().to_owned());
        } else if header.trim().eq_ignore_ascii_case("content-disposition") {
            for param in value.split(';').skip(1) {
                let Some((key, raw)) = param.split_once('=') else {
                    continue;
                };
                let text = raw.trim().trim_matches('"').to_owned();
                match key.trim() {
                    "name" => name = Some(text),
                    "filename" => file_name = Some(text),
                    _ => {}
                }
            }
        }
    }
    Some((name?, file_name, content_type))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPE: &str = "multipart/form-data; boundary=XyZ";

    fn body(parts: &[&str]) -> Vec<u8> {
        let mut out = String::from("preamble\r\n");
        for part in parts {
            out.push_str("--XyZ\r\n");
            out.push_str(part);
            out.push_str("\r\n");
        }
        out.push_str("--XyZ--\r\n");
        out.into_bytes()
    }

    #[test]
    fn text_fields_repeated_fields_and_files_take_their_canonical_form() {
        let raw = body(&[
            "Content-Disposition: form-data; name=\"title\"\r\n\r\nFachada 42",
            "Content-Disposition: form-data; name=\"tags[]\"\r\n\r\nsur",
            "Content-Disposition: form-data; name=\"data\"; filename=\"a b.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\u{1}\u{2}\u{3}",
            "Content-Disposition: form-data; name=\"tags[]\"\r\n\r\nnorte",
            "Content-Disposition: form-data; name=\"note\"\r\n\r\nuno",
            "Content-Disposition: form-data; name=\"note\"\r\n\r\ndos",
        ]);
        assert_eq!(
            parse(TYPE, &raw),
            Some(json!({
                "title": "Fachada 42",
                "tags[]": ["sur", "norte"],
                "data": {"file_name": "a b.jpg", "content_type": "image/jpeg", "size": 3},
                "note": ["uno", "dos"],
            }))
        );
    }

    #[test]
    fn a_single_bracketed_field_is_still_an_array_and_a_json_body_is_not_a_form() {
        let raw = body(&["Content-Disposition: form-data; name=\"tags[]\"\r\n\r\nsur"]);
        assert_eq!(parse(TYPE, &raw), Some(json!({"tags[]": ["sur"]})));
        assert_eq!(parse("application/json", b"{}"), None);
        assert_eq!(parse("multipart/form-data", &raw), None, "no boundary");
        assert_eq!(parse(TYPE, b"--XyZ\r\nbroken"), None);
    }
}
