//! Segments of a realm's end users: `customers-segments-manage`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/segments[/{id}]`), and so is the
//! shape of a segment's conditions: they are passed through as given and echoed as persisted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::in_realm;
use crate::config::Module;
use crate::modyo::Query;
use crate::tools::ToolDef;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{Action, Member, Rules, echoed, manage};

echoed! {
    /// A segment as the API returns it.
    Segment = "segment" {
        id: i64, uuid: String, name: String, description: String, r#match: String,
        conditions: List, users_count: i64, created_at: String, updated_at: String
    }
}

impl Member for Segment {
    const RULES: Rules = Rules::new("segment", "segments")
        .hint("call customers-segments-manage with action list to see the realm's segments");
}

/// How a segment combines its conditions.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Match {
    All,
    Any,
}

/// Arguments of `customers-segments-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<Action>,
    /// Segment id or name (get, update, delete).
    segment: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Whether users must meet all or any conditions (create, update).
    #[serde(rename = "match")]
    match_: Option<Match>,
    /// Conditions, such as {field, operator, value} (create, update).
    conditions: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Segment>("customers-segments-manage", Module::Customers, in_realm())
        .describe(
            "List, get, create, update or delete a realm's user segments. segment: id or name. list: \
data.segments + coverage, resource = the realm; other actions: data is the segment as persisted; delete needs \
confirmDelete: true.",
        )
        .target("segment", "id or name")
        .fields(&["name", "description", "match", "conditions"])
        .list(|_| Query::new())
        .get()
        .create(&["name"])
        .update()
        .delete()
        .build()
}
