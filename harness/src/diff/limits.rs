//! The `--fail-on` limits of `modyo-lab diff`: how much each figure of the verdict may grow
//! (`per-call=5%`, `catalogue=+200`).

/// How much a figure may grow.
#[derive(Debug, Clone, PartialEq)]
pub enum Amount {
    /// In percent of the base.
    Percent(f64),
    /// In tokens.
    Tokens(f64),
}

/// One `--fail-on` limit: `per-call=5%`, `catalogue=+200`.
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    /// The row key.
    pub key: &'static str,
    /// How much it may grow.
    pub amount: Amount,
    /// As written.
    pub text: String,
}

/// The keys `--fail-on` knows.
pub const LIMIT_KEYS: [&str; 6] = [
    "catalogue",
    "wire",
    "schema",
    "per-call",
    "successes",
    "errors",
];

/// Parses `key=5%` or `key=+200` (tokens), comma-separated.
pub fn parse_limits(text: &str) -> Result<Vec<Limit>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("--fail-on {part}: expected KEY=N% or KEY=+N"))?;
            let key = LIMIT_KEYS
                .iter()
                .find(|k| **k == key.trim())
                .ok_or_else(|| {
                    format!(
                        "--fail-on {part}: unknown figure {key:?}; known: {}",
                        LIMIT_KEYS.join(", ")
                    )
                })?;
            let value = value.trim();
            let amount = match value.strip_suffix('%') {
                Some(p) => Amount::Percent(
                    p.trim_start_matches('+')
                        .parse()
                        .map_err(|_| format!("--fail-on {part}: {value:?} is not a percentage"))?,
                ),
                None => Amount::Tokens(value.trim_start_matches('+').parse().map_err(|_| {
                    format!("--fail-on {part}: {value:?} is not a number of tokens")
                })?),
            };
            Ok(Limit {
                key,
                amount,
                text: format!("{key}={value}"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_and_refuse_what_they_do_not_know() {
        let limits = parse_limits("per-call=5%, catalogue=+200").expect("parses");
        assert_eq!(limits[0].key, "per-call");
        assert_eq!(limits[0].amount, Amount::Percent(5.0));
        assert_eq!(limits[1].amount, Amount::Tokens(200.0));
        assert!(
            parse_limits("speed=5%")
                .unwrap_err()
                .contains("known: catalogue")
        );
        assert!(parse_limits("wire").is_err());
        assert!(parse_limits("wire=lots").is_err());
    }
}
