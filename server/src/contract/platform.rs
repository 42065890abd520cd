//! C2: `platform = {name, host}`, the identity of the account that answered.
//!
//! `host` is the bare hostname of `MODYO_URL` (no scheme, port, path or credentials); `name`
//! is `MODYO_PLATFORM_NAME` when set, else the first label of the hostname, or the whole
//! address when the host is an IP.

use serde::Serialize;
use serde_json::{Value, json};
use url::{Host, Url};

/// The platform slot of every response, errors included.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Platform {
    /// Display name of the account.
    pub name: String,
    /// Hostname of `MODYO_URL`.
    pub host: String,
}

/// Name reported in public mode when no `MODYO_URL` is configured.
const PUBLIC_NAME: &str = "public";

impl Platform {
    /// Derives the platform identity from the configured URL and optional display name.
    pub fn new(url: Option<&Url>, name_override: Option<&str>) -> Platform {
        let host = url.map(host_of).unwrap_or_default();
        let name = match name_override.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => name.to_owned(),
            None => match url.and_then(Url::host) {
                Some(Host::Domain(domain)) => domain
                    .trim_end_matches('.')
                    .split('.')
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
                Some(_) => host.clone(),
                None => PUBLIC_NAME.to_owned(),
            },
        };
        Platform { name, host }
    }

    /// The JSON value of the slot.
    pub(crate) fn to_value(&self) -> Value {
        json!({"name": self.name, "host": self.host})
    }
}

fn host_of(url: &Url) -> String {
    match url.host() {
        Some(Host::Domain(domain)) => domain.trim_end_matches('.').to_ascii_lowercase(),
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => ip.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform(url: &str, name: Option<&str>) -> Platform {
        Platform::new(Some(&Url::parse(url).unwrap()), name)
    }

    #[test]
    fn hostname_gives_host_and_first_label() {
        let p = platform("https://langflow.modyo.cloud/", None);
        assert_eq!(p.host, "langflow.modyo.cloud");
        assert_eq!(p.name, "langflow");
    }

    #[test]
    fn port_path_and_scheme_never_reach_the_host() {
        let p = platform("http://Acme.Modyo.com:8443/api/admin?x=1#frag", None);
        assert_eq!(p.host, "acme.modyo.com");
        assert_eq!(p.name, "acme");
    }

    #[test]
    fn userinfo_never_leaks() {
        let p = platform("https://admin:s3cret@bank.modyo.cloud:443", None);
        assert_eq!(p.host, "bank.modyo.cloud");
        assert_eq!(p.name, "bank");
        let text = p.to_value().to_string();
        assert!(
            !text.contains("s3cret") && !text.contains("admin"),
            "{text}"
        );
    }

    #[test]
    fn ipv4_is_returned_whole() {
        let p = platform("http://127.0.0.1:53123", None);
        assert_eq!(p.host, "127.0.0.1");
        assert_eq!(p.name, "127.0.0.1");
    }

    #[test]
    fn ipv6_is_returned_whole_without_brackets() {
        let p = platform("http://[::1]:8080/", None);
        assert_eq!(p.host, "::1");
        assert_eq!(p.name, "::1");
        let p = platform("https://[2001:db8::7]/", None);
        assert_eq!(p.host, "2001:db8::7");
    }

    #[test]
    fn single_label_and_trailing_dot_hosts() {
        assert_eq!(platform("http://localhost:3000", None).name, "localhost");
        let p = platform("https://acme.modyo.cloud./", None);
        assert_eq!(
            (p.name.as_str(), p.host.as_str()),
            ("acme", "acme.modyo.cloud")
        );
    }

    #[test]
    fn platform_name_overrides_the_label_but_not_the_host() {
        let p = platform("https://langflow.modyo.cloud", Some("Production"));
        assert_eq!(p.name, "Production");
        assert_eq!(p.host, "langflow.modyo.cloud");
        assert_eq!(platform("https://a.b.c", Some("  ")).name, "a");
    }

    #[test]
    fn public_mode_has_no_host() {
        let p = Platform::new(None, None);
        assert_eq!((p.name.as_str(), p.host.as_str()), ("public", ""));
    }
}
