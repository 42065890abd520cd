//! Argument pieces shared by many tools (pagination, the `space` identifier).

use schemars::JsonSchema;
use serde::Deserialize;

/// `page` and `per_page`, with the bounds the API does not enforce itself (`catalog.md`).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
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

/// Whether a value was given for an optional argument (mutating fields of a `-manage` call).
pub(crate) fn any_given(values: &[bool]) -> bool {
    values.iter().any(|given| *given)
}
