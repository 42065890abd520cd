//! Argument pieces shared by many tools (pagination, the `space` identifier).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::ToolError;

/// `page` and `per_page`, with the bounds the API does not enforce itself
/// (`server/CONTRACT.md`, "HTTP conventions").
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
pub(crate) struct Paging {
    /// Page number, from 1.
    #[serde(default = "first_page")]
    #[schemars(range(min = 1))]
    pub(crate) page: u32,
    /// Items per page, 1 to 100.
    #[serde(default = "default_per_page")]
    #[schemars(range(min = 1, max = 100))]
    pub(crate) per_page: u32,
}

fn first_page() -> u32 {
    1
}

fn default_per_page() -> u32 {
    10
}

/// A `YYYY-MM-DD` date the API can parse (it drops a whole filter it cannot, and still
/// answers 200, so the check is local).
pub(crate) fn check_date(value: &str, what: &str) -> Result<(), ToolError> {
    let parts: Vec<&str> = value.split('-').collect();
    let ok = match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
            let num = |s: &str| s.parse::<u32>().ok();
            matches!((num(y), num(m), num(d)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ToolError::invalid_parameters(format!(
            "{what} '{value}' is not a YYYY-MM-DD date; the API would silently drop the whole filter"
        )))
    }
}

/// Whether a value was given for an optional argument (mutating fields of a `-manage` call).
pub(crate) fn any_given(values: &[bool]) -> bool {
    values.iter().any(|given| *given)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_locally() {
        assert!(check_date("2026-03-04", "date_range").is_ok());
        for bad in ["2026-3-04", "04-03-2026", "2026-13-01", "2026-02-xx", ""] {
            assert!(check_date(bad, "date_range").is_err(), "{bad}");
        }
    }
}
