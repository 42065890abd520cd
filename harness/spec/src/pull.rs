//! `modyo-lab spec pull`: the account's own specification, fetched with `MODYO_URL` and
//! `MODYO_TOKEN` and imported, so the surface can be refreshed from the live platform.
//!
//! The Modyo documentation (`docs/en/platform/core/api.md`, "General Information") says each
//! API serves its Swagger documentation under its `docs` path: `/api/admin/docs`,
//! `/api/content/docs` and `/api/customers/docs`. It does not say whether that path answers
//! the document itself or the interactive page that loads it, so both are handled: a JSON
//! answer is imported as is; an HTML page is searched for the JSON document it loads (a
//! quoted URL ending in `.json`), which is fetched from the same origin only.
//!
//! The token travels only in the `Authorization` header of same-origin requests, marked
//! sensitive so no HTTP layer logs it; redirects are followed only within the origin. No
//! error, log line or written file carries it: a surface that would contain it is refused.

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use url::Url;

use super::SpecError;
use super::import::{ImportInput, import};
use super::surface::{SourceProvenance, Surface};

/// The APIs whose documents `spec pull` fetches by default.
pub const APIS: [&str; 3] = ["admin", "content", "customers"];

/// What to pull.
#[derive(Debug, Clone)]
pub struct PullOptions {
    /// The account (`MODYO_URL`).
    pub url: Url,
    /// The token (`MODYO_TOKEN`); never printed.
    pub token: String,
    /// The APIs to pull.
    pub apis: Vec<String>,
    /// The provenance date to record (`YYYY-MM-DD`).
    pub date: String,
}

/// Fetches and imports each API's document; returns the surfaces, not yet written.
pub async fn pull(options: &PullOptions) -> Result<Vec<Surface>, SpecError> {
    let scrub = |text: String| text.replace(&options.token, "<redacted>");
    let mut auth = HeaderValue::from_str(&format!("Bearer {}", options.token))
        .map_err(|_| SpecError::Pull("MODYO_TOKEN is not a valid header value".into()))?;
    auth.set_sensitive(true);
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, auth);
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/html;q=0.9, */*;q=0.1"),
    );
    let origin = options.url.origin();
    let same_origin = origin.clone();
    let client = reqwest::Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() < 5 && attempt.url().origin() == same_origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }))
        .build()
        .map_err(|e| SpecError::Pull(scrub(e.to_string())))?;
    let mut surfaces = Vec::new();
    for api in &options.apis {
        let docs = options
            .url
            .join(&format!("/api/{api}/docs"))
            .map_err(|e| SpecError::Pull(format!("MODYO_URL: {e}")))?;
        let (url, bytes) = fetch_document(&client, &docs, &origin)
            .await
            .map_err(|e| SpecError::Pull(scrub(format!("{api}: {e}"))))?;
        let provenance = SourceProvenance {
            source: format!("live:{}", options.url.host_str().unwrap_or_default()),
            git_ref: None,
            commit: None,
            path: url.path().to_owned(),
            date: Some(options.date.clone()),
            sha256: String::new(),
        };
        let surface = import(ImportInput {
            api,
            bytes: &bytes,
            provenance,
        })
        .map_err(|e| SpecError::Pull(scrub(e.to_string())))?;
        if surface.to_json().contains(&options.token) {
            return Err(SpecError::Pull(format!(
                "{api}: the document carries the token; refusing to write it"
            )));
        }
        surfaces.push(surface);
    }
    Ok(surfaces)
}

/// GETs the docs URL; follows an HTML page to the JSON document it loads (same origin).
async fn fetch_document(
    client: &reqwest::Client,
    docs: &Url,
    origin: &url::Origin,
) -> Result<(Url, Vec<u8>), String> {
    let body = get(client, docs).await?;
    if is_document(&body) {
        return Ok((docs.clone(), body));
    }
    let page = String::from_utf8_lossy(&body);
    let candidates = json_links(&page)
        .into_iter()
        .filter_map(|link| docs.join(&link).ok())
        .filter(|url| url.origin() == *origin)
        .collect::<Vec<_>>();
    if candidates.is_empty() {
        return Err(format!(
            "GET {} answered neither a Swagger/OpenAPI document nor a page that loads one from the same origin",
            docs.path()
        ));
    }
    let mut tried = Vec::new();
    for url in candidates {
        let body = get(client, &url).await?;
        if is_document(&body) {
            return Ok((url, body));
        }
        tried.push(url.path().to_owned());
    }
    Err(format!(
        "GET {}: the page loads {}, none of which is a Swagger/OpenAPI document",
        docs.path(),
        tried.join(", ")
    ))
}

async fn get(client: &reqwest::Client, url: &Url) -> Result<Vec<u8>, String> {
    let response = client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| format!("GET {}: {}", url.path(), e.without_url()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!(
            "GET {} answered {status}{}",
            url.path(),
            if status.as_u16() == 401 {
                " (check MODYO_TOKEN)"
            } else {
                ""
            }
        ));
    }
    response
        .bytes()
        .await
        .map(|b| b.to_vec())
        .map_err(|e| format!("GET {}: {}", url.path(), e.without_url()))
}

/// Whether `body` is a JSON object with a `swagger` or `openapi` key.
fn is_document(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| {
        v.get("swagger").is_some_and(serde_json::Value::is_string)
            || v.get("openapi").is_some_and(serde_json::Value::is_string)
    })
}

/// Quoted strings in a page that look like JSON document URLs (`'/swagger/admin.json'`,
/// `"docs.json?v=2"`), in page order, each once.
fn json_links(page: &str) -> Vec<String> {
    let mut links = Vec::new();
    for quote in ['"', '\''] {
        let mut parts = page.split(quote);
        parts.next();
        // Every other part is inside quotes.
        while let Some(inside) = parts.next() {
            let path = inside.split(['?', '#']).next().unwrap_or_default();
            if path.ends_with(".json")
                && !inside.contains(char::is_whitespace)
                && !links.iter().any(|l| l == inside)
            {
                links.push(inside.to_owned());
            }
            parts.next();
        }
    }
    let position = |link: &String| page.find(link.as_str()).unwrap_or(usize::MAX);
    links.sort_by_key(position);
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_name_their_json_documents() {
        let page = r#"<script src="../swagger-ui-bundle.js"></script>
            <script>window.onload = swaggerInit('/swagger/json/admin-swagger.json')</script>
            <a href="docs.json?v=2">raw</a> <p>"not a link.json because of spaces"</p>"#;
        assert_eq!(
            json_links(page),
            ["/swagger/json/admin-swagger.json", "docs.json?v=2"]
        );
        assert!(is_document(br#"{"swagger": "2.0", "paths": {}}"#));
        assert!(is_document(br#"{"openapi": "3.0.3"}"#));
        assert!(!is_document(b"<html></html>"));
        assert!(!is_document(br#"{"swagger": 2}"#));
    }
}
