//! The HTTP client for the Modyo admin API.
//!
//! Every request carries `Authorization: Bearer <token>` and the server's own User-Agent
//! (never `MODYO-CLI`, which makes widgets read-only in the UI). Responses are read whole (up
//! to `MODYO_MAX_BODY_BYTES`: a longer answer is refused, never buffered) and parsed here, so
//! tools only ever see JSON values or a [`CmsError`]. The token is never logged: request logs
//! carry method, path and status only.
//!
//! Redirects are followed only within the configured origin (scheme, host and port of
//! `MODYO_URL`), at most [`MAX_REDIRECTS`] hops: another origin's answer would be reported as
//! this platform's data, so a redirect there is refused with an error saying where it
//! pointed. A request whose URL would be longer than [`MAX_URL_BYTES`] is not sent: the
//! inputs that went into it are the caller's to shorten.

use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use url::Url;

use super::error::{CmsError, SetupError};
use super::list::{ListPage, parse_list, read_keeping};
use crate::config::Token;
use crate::scrub::Scrubber;

/// The User-Agent every request carries.
pub const USER_AGENT: &str = concat!("modyo-mcp/", env!("CARGO_PKG_VERSION"));

/// The most redirects followed for one request (all within the configured origin).
pub const MAX_REDIRECTS: usize = 5;

/// The longest request URL sent (what common front ends accept for a request line).
pub const MAX_URL_BYTES: usize = 8 * 1024;

/// How much of an error answer (a non-2xx body) is read: enough for any message, never a
/// whole error page.
const MAX_ERROR_BODY_BYTES: u64 = 64 * 1024;

/// Why a redirect was not followed (the source of reqwest's redirect error).
#[derive(Debug, thiserror::Error)]
enum RedirectRefused {
    #[error("another origin")]
    CrossOrigin { to: String },
    #[error("too many redirects")]
    TooMany,
}

/// Query parameters, in the order they are sent (repeated keys such as `only[]` allowed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// No parameters.
    pub fn new() -> Query {
        Query::default()
    }

    /// Adds one parameter.
    pub fn push(mut self, key: &str, value: impl ToString) -> Query {
        self.0.push((key.to_owned(), value.to_string()));
        self
    }

    /// Adds a parameter when the value is present.
    pub fn push_opt(self, key: &str, value: Option<impl ToString>) -> Query {
        match value {
            Some(v) => self.push(key, v),
            None => self,
        }
    }

    /// `page` and `per_page`.
    pub fn page(self, page: u32, per_page: u32) -> Query {
        self.push("page", page).push("per_page", per_page)
    }

    /// The page asked for: the last `page` parameter as a number, 1 when there is none.
    pub fn asked_page(&self) -> u64 {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == "page")
            .and_then(|(_, value)| value.trim().parse().ok())
            .unwrap_or(1)
    }

    /// The parameters.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

/// A client bound to one Modyo account.
#[derive(Clone)]
pub struct ModyoClient {
    http: reqwest::Client,
    base: String,
    /// `base` parsed, its path ending in `/`: API paths are resolved against it (see
    /// [`ModyoClient::url`]) instead of each request URL being parsed whole.
    base_dir: Url,
    timeout: Duration,
    max_body_bytes: u64,
    /// Scrubs the token from every answer's bytes as they arrive, before anything reads,
    /// quotes or shortens them: a message cut to 80 characters after the token began would
    /// keep a prefix of it that no later scrub can recognise.
    scrubber: Scrubber,
}

impl std::fmt::Debug for ModyoClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModyoClient")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl ModyoClient {
    /// A client for the account at `base` (its path, if any, prefixes every API path).
    pub fn new(base: &Url, token: &Token, timeout: Duration) -> Result<ModyoClient, SetupError> {
        let mut headers = HeaderMap::new();
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                SetupError("MODYO_TOKEN contains characters not allowed in an HTTP header".into())
            })?;
        auth.set_sensitive(true);
        headers.insert(AUTHORIZATION, auth);
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        let origin = base.origin();
        let scrubber = Scrubber::new(token);
        let in_redirects = scrubber.clone();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().origin() != origin {
                // The URL parser lowercased the host: a token echoed there is lowercased too.
                let to =
                    in_redirects.scrub_ignoring_case(&attempt.url().origin().ascii_serialization());
                attempt.error(RedirectRefused::CrossOrigin { to })
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(RedirectRefused::TooMany)
            } else {
                attempt.follow()
            }
        });
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .default_headers(headers)
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .redirect(redirects)
            .no_proxy()
            .build()
            .map_err(|e| SetupError(format!("cannot build the HTTP client: {e}")))?;
        let mut base = base.clone();
        base.set_username("").ok();
        base.set_password(None).ok();
        base.set_query(None);
        base.set_fragment(None);
        let mut base_dir = base.clone();
        if !base_dir.path().ends_with('/') {
            base_dir.set_path(&format!("{}/", base_dir.path()));
        }
        Ok(ModyoClient {
            http,
            base: base.as_str().trim_end_matches('/').to_owned(),
            base_dir,
            timeout,
            max_body_bytes: crate::config::DEFAULT_MAX_BODY_BYTES,
            scrubber,
        })
    }

    /// Caps the bytes of one answer (`MODYO_MAX_BODY_BYTES`).
    pub fn max_body_bytes(mut self, bytes: u64) -> ModyoClient {
        self.max_body_bytes = bytes;
        self
    }

    /// `GET path?query`, parsed as JSON. Every admin read (a single object, or a list body
    /// with its root key) answers a JSON object: anything else (`null`, an empty body, an
    /// array, a scalar) is an `invalid_upstream_response`, never data. An endpoint that
    /// really answers something else goes through [`ModyoClient::send`].
    pub async fn get(&self, path: &str, query: &Query) -> Result<Value, CmsError> {
        Ok(self.get_sized(path, query).await?.0)
    }

    /// [`ModyoClient::get`], with the size of the body it read (a walk counts what it holds).
    async fn get_sized(&self, path: &str, query: &Query) -> Result<(Value, usize), CmsError> {
        let request = self.request(&Method::GET, path, query)?;
        let (status, bytes) = self.execute(&Method::GET, path, request).await?;
        let body = json_body(&bytes).map_err(|e| CmsError::InvalidJson {
            method: Method::GET,
            path: path.to_owned(),
            status: status.as_u16(),
            detail: e.to_string(),
        })?;
        if body.is_object() {
            return Ok((body, bytes.len()));
        }
        Err(not_an_object(path, &body))
    }

    /// The most bytes one answer may hold (`MODYO_MAX_BODY_BYTES`): also what a
    /// whole-collection walk may hold of its pages together.
    pub fn max_body(&self) -> u64 {
        self.max_body_bytes
    }

    /// `GET path?query` for a JSON object that `read` turns into only what the caller needs,
    /// straight from the body's bytes: keys it does not name are skipped, never built (the
    /// `fields` projection reads ten values of each entry, not each whole entry). When `read`
    /// fails, the body is parsed whole to say why, with the errors [`ModyoClient::get`] gives:
    /// invalid JSON, or a body that is not an object; a `read` that refuses an object is a
    /// shape error naming its reason.
    pub async fn get_sparse<T>(
        &self,
        path: &str,
        query: &Query,
        read: impl FnOnce(&[u8]) -> serde_json::Result<T>,
    ) -> Result<T, CmsError> {
        let request = self.request(&Method::GET, path, query)?;
        let (status, bytes) = self.execute(&Method::GET, path, request).await?;
        let refused = match read(&bytes) {
            Ok(value) => return Ok(value),
            Err(refused) => refused,
        };
        Err(match json_body(&bytes) {
            Err(e) => CmsError::InvalidJson {
                method: Method::GET,
                path: path.to_owned(),
                status: status.as_u16(),
                detail: e.to_string(),
            },
            Ok(body) if !body.is_object() => not_an_object(path, &body),
            Ok(_) => CmsError::InvalidShape {
                method: Method::GET,
                path: path.to_owned(),
                reason: refused.to_string(),
            },
        })
    }

    /// `GET` a list endpoint and read its `root` key (with the root-key drift rule of `list::parse_list`).
    pub async fn list(&self, path: &str, root: &str, query: &Query) -> Result<ListPage, CmsError> {
        let (body, bytes) = self.get_sized(path, query).await?;
        let mut page = page_of(path, body, root)?;
        page.asked_page = query.asked_page();
        page.body_bytes = bytes;
        Ok(page)
    }

    /// [`ModyoClient::list`] keeping only the keys in `keep` of each row: the other keys are
    /// skipped while the body is read, never built (`list::read_keeping`).
    pub async fn list_keeping(
        &self,
        path: &str,
        root: &str,
        query: &Query,
        keep: &[&str],
    ) -> Result<ListPage, CmsError> {
        let body = self
            .get_sparse(path, query, |bytes| read_keeping(bytes, root, keep))
            .await?;
        let mut page = page_of(path, body, root)?;
        page.asked_page = query.asked_page();
        Ok(page)
    }

    /// Sends a request with an optional JSON body and parses the JSON answer (an empty 2xx
    /// body is `null`).
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        query: &Query,
        body: Option<&Value>,
    ) -> Result<Value, CmsError> {
        let mut request = self.request(&method, path, query)?;
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let (status, bytes) = self.execute(&method, path, request).await?;
        json_body(&bytes).map_err(|e| CmsError::InvalidJson {
            method,
            path: path.to_owned(),
            status: status.as_u16(),
            detail: e.to_string(),
        })
    }

    /// Sends a `multipart/form-data` request (asset uploads) and parses the JSON answer.
    pub async fn send_multipart(
        &self,
        method: Method,
        path: &str,
        form: reqwest::multipart::Form,
    ) -> Result<Value, CmsError> {
        let request = self.request(&method, path, &Query::new())?.multipart(form);
        let (status, bytes) = self.execute(&method, path, request).await?;
        json_body(&bytes).map_err(|e| CmsError::InvalidJson {
            method,
            path: path.to_owned(),
            status: status.as_u16(),
            detail: e.to_string(),
        })
    }

    /// `GET path?query` for a binary answer (a widget ZIP): the raw bytes of a 2xx body.
    pub async fn get_bytes(&self, path: &str, query: &Query) -> Result<Vec<u8>, CmsError> {
        let request = self
            .request(&Method::GET, path, query)?
            .header(ACCEPT, "*/*");
        let (_, bytes) = self.execute(&Method::GET, path, request).await?;
        Ok(bytes)
    }

    /// The request for `path?query`, unless its URL would be longer than [`MAX_URL_BYTES`].
    // `CmsError` is large because `Status` carries the upstream body; it is built once per
    // failed call, so boxing it everywhere would cost more than it saves here.
    #[allow(clippy::result_large_err)]
    fn request(
        &self,
        method: &Method,
        path: &str,
        query: &Query,
    ) -> Result<reqwest::RequestBuilder, CmsError> {
        let mut url = format!("{}{}", self.base, path);
        if !query.pairs().is_empty() {
            url.push('?');
            url.push_str(
                &url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(query.pairs())
                    .finish(),
            );
        }
        if url.len() > MAX_URL_BYTES {
            return Err(CmsError::TooLong {
                method: method.clone(),
                path: path.to_owned(),
                bytes: url.len(),
                limit: MAX_URL_BYTES,
            });
        }
        Ok(match self.url(&url) {
            Some(parsed) => self.http.request(method.clone(), parsed),
            None => self.http.request(method.clone(), url),
        })
    }

    /// The request URL `base + path?query` parsed, by resolving `path?query` against the
    /// parsed base: what parsing the whole text gives (the same path normalization and
    /// encoding), without parsing the scheme and host (IDNA) again for every request. `None`
    /// for a path this does not cover (not starting with one `/`, or whose first segment has
    /// a `:` and would read as a scheme): the caller parses the whole text then.
    fn url(&self, whole: &str) -> Option<Url> {
        let rest = whole.strip_prefix(self.base.as_str())?.strip_prefix('/')?;
        let first = rest.split(['/', '\\', '?', '#']).next().unwrap_or("");
        if rest.starts_with(['/', '\\']) || first.contains(':') {
            return None;
        }
        self.base_dir.join(rest).ok()
    }

    /// Sends one request: the status and whole body of a 2xx answer (at most
    /// `max_body_bytes`), or the mapped error (with at most 64 KiB of its body read).
    async fn execute(
        &self,
        method: &Method,
        path: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<(StatusCode, Vec<u8>), CmsError> {
        let started = Instant::now();
        let mut response = request
            .send()
            .await
            .map_err(|e| self.transport_error(method, path, &e))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let limit = if status.is_success() {
            self.max_body_bytes
        } else {
            MAX_ERROR_BODY_BYTES.min(self.max_body_bytes)
        };
        let too_large = || CmsError::TooLarge {
            method: method.clone(),
            path: path.to_owned(),
            limit: self.max_body_bytes,
        };
        if status.is_success() && response.content_length().is_some_and(|n| n > limit) {
            return Err(too_large());
        }
        // Sized once from the announced length (within the limit), not grown chunk by chunk.
        let announced = response.content_length().unwrap_or(0).min(limit);
        let mut bytes = Vec::with_capacity(usize::try_from(announced).unwrap_or(0));
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(method, path, &e))?
        {
            let room = limit.saturating_sub(bytes.len() as u64) as usize;
            if chunk.len() > room {
                if status.is_success() {
                    return Err(too_large());
                }
                // An error page: its start says all there is to say.
                bytes.extend_from_slice(&chunk[..room]);
                break;
            }
            bytes.extend_from_slice(&chunk);
        }
        self.scrubber.scrub_bytes(&mut bytes);
        tracing::debug!(
            %method,
            path,
            status = status.as_u16(),
            bytes = bytes.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "modyo request"
        );
        if status.is_success() {
            return Ok((status, bytes));
        }
        Err(status_error(
            method.clone(),
            path,
            status,
            retry_after,
            &bytes,
        ))
    }

    fn transport_error(&self, method: &Method, path: &str, error: &reqwest::Error) -> CmsError {
        if error.is_redirect() {
            let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
            while let Some(cause) = source {
                if let Some(refused) = cause.downcast_ref::<RedirectRefused>() {
                    return CmsError::Redirect {
                        method: method.clone(),
                        path: path.to_owned(),
                        to: match refused {
                            RedirectRefused::CrossOrigin { to } => Some(to.clone()),
                            RedirectRefused::TooMany => None,
                        },
                    };
                }
                source = cause.source();
            }
        }
        if error.is_timeout() {
            CmsError::Timeout {
                method: method.clone(),
                path: path.to_owned(),
                after: self.timeout,
            }
        } else {
            // reqwest errors name the URL; keep only the path and the cause chain.
            let mut detail = String::new();
            let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
            while let Some(cause) = source {
                detail = cause.to_string();
                source = cause.source();
            }
            if detail.is_empty() {
                detail = "the request failed before a response arrived".into();
            }
            CmsError::Unreachable {
                method: method.clone(),
                path: path.to_owned(),
                connect: error.is_connect(),
                detail,
            }
        }
    }
}

/// The page of a list body, or the shape error saying why it is none.
// `CmsError` is large (see `ModyoClient::request`); this runs once per list read.
#[allow(clippy::result_large_err)]
fn page_of(path: &str, body: Value, root: &str) -> Result<ListPage, CmsError> {
    parse_list(body, root).map_err(|reason| CmsError::InvalidShape {
        method: Method::GET,
        path: path.to_owned(),
        reason,
    })
}

/// The shape error of a `GET` whose body is not a JSON object.
fn not_an_object(path: &str, body: &Value) -> CmsError {
    let got = match body {
        Value::Null => "an empty body or null",
        Value::Array(_) => "an array",
        _ => "a scalar",
    };
    CmsError::InvalidShape {
        method: Method::GET,
        path: path.to_owned(),
        reason: format!("expected a JSON object, got {got}"),
    }
}

/// The JSON of a 2xx body (an empty body is `null`).
fn json_body(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(bytes)
}

fn status_error(
    method: Method,
    path: &str,
    status: StatusCode,
    retry_after: Option<u64>,
    bytes: &[u8],
) -> CmsError {
    let empty = bytes.iter().all(u8::is_ascii_whitespace);
    let body = if empty {
        None
    } else {
        serde_json::from_slice::<Value>(bytes).ok()
    };
    let text = if body.is_none() && !empty {
        let snippet: String = String::from_utf8_lossy(bytes).chars().take(200).collect();
        Some(snippet)
    } else {
        None
    };
    CmsError::Status {
        method,
        path: path.to_owned(),
        status: status.as_u16(),
        body,
        text,
        empty,
        retry_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(base: &str) -> ModyoClient {
        let base = Url::parse(base).unwrap();
        ModyoClient::new(&base, &Token::new("t"), Duration::from_secs(5)).unwrap()
    }

    /// Resolving against the parsed base gives what parsing the whole URL gives.
    #[test]
    fn request_urls_resolve_as_the_whole_text_parses() {
        let bases = [
            "https://acme.modyo.cloud",
            "https://acme.modyo.cloud/",
            "https://user:pw@acme.modyo.cloud:8443/prefix?x=1#f",
            "http://127.0.0.1:4010/a/b/",
            "https://bücher.example/api",
        ];
        let paths = [
            "/api/admin/content/spaces/636/entries/1000001",
            "/api/admin/content/spaces/636/entries?page=1&per_page=100&tags%5B%5D=a+b",
            "/api/admin/x/../y/./z",
            "/api/admin/../../../etc",
            "/api/admin/entries/a b/ñ/%41",
            "/api/admin/entries/a?b#c",
            "/api/admin/entries/a:b",
            "/",
        ];
        for base in bases {
            let client = client(base);
            for path in paths {
                let whole = format!("{}{path}", client.base);
                let resolved = client.url(&whole).expect("a path starting with one /");
                assert_eq!(resolved, Url::parse(&whole).unwrap(), "{base} + {path}");
            }
            for path in ["/a:b/c", "//other.host/x", "/\\other.host/x", "no-slash"] {
                let whole = format!("{}{path}", client.base);
                assert_eq!(client.url(&whole), None, "{base} + {path}");
            }
        }
    }
}
