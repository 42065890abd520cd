//! Segments of a realm's end users: `customers-segments-manage`.
//!
//! Modyo calls them targets: `/api/admin/customers/{realm_uid}/targets[/{id}]`, a list of
//! `{targets, meta}` (rows with `filters_summary` and `matches_count`), one target with its
//! `filters`, written as `{name, description, filters}`. The tool keeps the segment vocabulary
//! an agent expects (`segment`, `data.segments`) and speaks targets to Modyo. Filters are
//! passed through as given (the shape of a filter is Modyo's: `filterable_type`, `operator`,
//! `svalue`, ...), and echoed as persisted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Described, Realm};
use crate::config::Module;
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::ToolDef;
use crate::tools::engine::{
    Action, Answer, Ctx, Managed, Member, Rules, Verb, command, echoed, manage, standard, within,
};

echoed! {
    /// A segment (a Modyo target) as the API returns it.
    Segment = "segment" {
        id: i64, uuid: String, name: String
    }
}

impl Member for Segment {
    const RULES: Rules = Rules::new("segment", "targets")
        .listed("segments")
        .hint("call customers-segments-manage with action list to see the realm's segments");
}

/// Arguments of `customers-segments-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm slug or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<Action>,
    /// Segment id or name (get, update, delete).
    segment: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Keywords to filter the list by (list).
    query: Option<String>,
    #[serde(flatten)]
    described: Described,
    /// Modyo target filters, such as {filterable_type, operator, svalue} (create, update).
    filters: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `customers-segments-manage` can be asked.
    enum SegmentCommand for ManageArgs {
        List => Verb::list(),
        Get { segment: Ident } => Verb::read("get"),
        Create { name in described: String } => Verb::write("create"),
        Update { segment: Ident } => Verb::write("update").changes(),
        Delete { segment: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Segment, SegmentCommand>("customers-segments-manage", Module::Customers, within::<Realm, _>())
        .describe(
            "List, get, create, update or delete a realm's user segments (Modyo targets). segment: id or name. \
list: data.segments (filters_summary, matches_count) + coverage, resource = the realm; other actions: data is the \
segment as persisted with its filters; delete needs confirmDelete: true.",
        )
        .target("segment", "id or name")
        .fields(&["name", "description", "filters"])
        .run(run)
}

/// Runs one command of `customers-segments-manage`.
async fn run(ctx: Ctx<ManageArgs, Segment, SegmentCommand>) -> Answer<Managed<Segment>> {
    match &ctx.command {
        SegmentCommand::List => {
            standard::list(
                &ctx,
                Query::new().push_opt("query", ctx.args.query.as_deref()),
            )
            .await
        }
        SegmentCommand::Get { .. } => standard::get(&ctx).await,
        SegmentCommand::Create { .. } => standard::create(&ctx).await,
        SegmentCommand::Update { .. } => standard::update(&ctx).await,
        SegmentCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}
