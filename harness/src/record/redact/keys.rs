//! Which keys hold secrets: a known key, or a key that ends with a word that names one.
//!
//! A key is compared in its normalized form: without case, `_`, `-` or a trailing `[]`
//! (`X-Api-Key`, `x_api_key`, `xApiKey` and `x-api-key[]` are all `xapikey`). It is sensitive
//! when that form
//!
//! 1. is one of the known keys ([`DEFAULT_KEYS`], plus any given with `--redact-key`), or
//! 2. ends with one of the [`SENSITIVE_ENDINGS`], or
//! 3. ends with `key` and also contains `secret` or `private` (`secret_access_key`,
//!    `delivery_token_private_key`; a `public_key`, `cache_key` or `google_key` is not).
//!
//! An ending, not a word anywhere: a secret's key names the secret last (`webhook_secret`,
//! `auth_token`, `X-Amz-Signature`), while a key that only mentions one names something about
//! it last. Modyo's own API has many of those, and they stay readable: `token_type`,
//! `tokens_count`, `token_endpoint`, `openidc_refresh_token_enabled`,
//! `openidc_refresh_token_clock_skew`, `delivery_token_expiration`,
//! `access_token_expires_in`, `openidc_authorization_endpoint`, `end_session_endpoint`; and so
//! does `secret_santa`. A plural (`tokens`) is a list or a count, not a secret, except
//! `credentials`.
//!
//! The endings, and why each:
//!
//! - `token`: access, refresh, id, delivery, auth, api, private, CSRF and authenticity tokens,
//!   `X-Amz-Security-Token`;
//! - `secret`: `client_secret`, `webhook_secret`, Modyo's `google_secret`, `openidc_secret`;
//! - `password`, `passwd`, `passphrase`: credentials people type;
//! - `signature`: the signature of a presigned or signed URL (`signature`, `X-Amz-Signature`),
//!   which is what lets anyone fetch it;
//! - `apikey`, `secretkey`, `privatekey`: `api_key`, `x-api-key`, `secret_key`, `private_key`;
//! - `jwt`: a bearer token by another name;
//! - `sessionid`: `session_id`, `jsessionid`: a session cookie's value is a login;
//! - `credential`, `credentials`: `X-Amz-Credential`, credential objects;
//! - `cookie`, `authorization`: the headers, under any prefix (`set_cookie`,
//!   `proxy_authorization`).
//!
//! Left readable on purpose: `key` alone and `*_key` without `secret` or `private` (a field's
//! key, a cache key, Modyo's `google_key`, a client id rather than a secret), `*_id` other than
//! a session id, `session` alone, and a value under a sensitive key that is a boolean or null
//! (it says nothing). Give any other key with `--redact-key`.

/// Keys whose values are secrets by default, compared normalized. Most also end with one of
/// the [`SENSITIVE_ENDINGS`]; `password_confirmation` and `current_password`-style keys the
/// endings would miss are listed here.
pub const DEFAULT_KEYS: [&str; 17] = [
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "delivery_token",
    "api_key",
    "password",
    "password_confirmation",
    "current_password",
    "secret",
    "client_secret",
    "private_key",
    "authorization",
    "cookie",
    "set_cookie",
    "jwt",
    "session_id",
];

/// A key whose normalized form ends with one of these is sensitive (see the module docs).
pub const SENSITIVE_ENDINGS: [&str; 15] = [
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "signature",
    "apikey",
    "secretkey",
    "privatekey",
    "jwt",
    "sessionid",
    "credential",
    "credentials",
    "cookie",
    "authorization",
];

/// Words that make a key ending in `key` sensitive wherever they stand before it.
const KEY_QUALIFIERS: [&str; 2] = ["secret", "private"];

/// `Access-Token`, `accessToken`, `access_token[]` all normalize to `accesstoken`.
pub(crate) fn normalize(key: &str) -> String {
    key.trim_end_matches("[]")
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a normalized key names a secret by its words (rules 2 and 3 of the module docs).
pub(crate) fn names_a_secret(normalized: &str) -> bool {
    SENSITIVE_ENDINGS.iter().any(|e| normalized.ends_with(e))
        || (normalized.ends_with("key") && KEY_QUALIFIERS.iter().any(|q| normalized.contains(q)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensitive(key: &str) -> bool {
        let key = normalize(key);
        DEFAULT_KEYS.iter().any(|k| normalize(k) == key) || names_a_secret(&key)
    }

    #[test]
    fn secrets_are_named_by_their_last_word() {
        for key in [
            "api_token",
            "auth_token",
            "secret_key",
            "session_id",
            "jwt",
            "private_token",
            "x-api-key",
            "webhook_secret",
            "signature",
            "X-Amz-Signature",
            "X-Amz-Security-Token",
            "X-Amz-Credential",
            "secret_access_key",
            "delivery_token_private_key",
            "authenticity_token",
            "google_secret",
            "apiKey",
            "JSESSIONID",
            "new_password",
            "password_confirmation",
            "proxy_authorization",
            "credentials",
            "csrf_token[]",
        ] {
            assert!(sensitive(key), "{key}");
        }
    }

    #[test]
    fn keys_that_only_mention_a_secret_stay_readable() {
        for key in [
            "token_type",
            "tokens_count",
            "tokens",
            "token_endpoint",
            "openidc_refresh_token_enabled",
            "openidc_refresh_token_clock_skew",
            "openidc_token_revocation_endpoint",
            "delivery_token_expiration",
            "access_token_expires_in",
            "openidc_authorization_endpoint",
            "end_session_endpoint",
            "secret_santa",
            "signature_version",
            "password_reset_sent_at",
            "key",
            "cache_key",
            "google_key",
            "public_key",
            "api_key_id",
            "session",
            "credentialless",
            "assignee_user_id",
            "",
        ] {
            assert!(!sensitive(key), "{key}");
        }
    }
}
