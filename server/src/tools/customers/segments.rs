//! Segments of a realm's end users: `customers-segments-manage`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/segments[/{id}]`), and so is the
//! shape of a segment's conditions: they are passed through as given and echoed as persisted.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::resolve_realm;
use crate::config::Module;
use crate::contract::ToolClass;
use crate::contract::schema::{self, Kind};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{self, body, required};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A segment as the API returns it (loose: echoed).
pub(crate) fn segment_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("match", Kind::Str),
        ("conditions", Kind::List),
        ("users_count", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `customers-segments-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// How a segment combines its conditions.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Match {
    All,
    Any,
}

/// Arguments of `customers-segments-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<ManageAction>,
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
    tool("customers-segments-manage", Module::Customers, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete a realm's user segments. segment: id or name. list: \
data.segments + coverage, resource = the realm; other actions: data is the segment as persisted; delete needs \
confirmDelete: true.",
        )
        .data(kit::manage_schema(segment_schema(), "segments"))
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        (
            "match",
            args.match_.map(|m| {
                Value::from(match m {
                    Match::All => "all",
                    Match::Any => "any",
                })
            }),
        ),
        ("conditions", args.conditions.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required(
                "name, description, match or conditions",
            ));
        }
        None => ManageAction::Get,
    };
    // A delete without confirmation answers before any request, the realm lookup included.
    if action == ManageAction::Delete
        && let Err(control) =
            kit::confirmed(args.confirm_delete, "customers-segments-manage", "delete")
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let segments = realm.segments();
    let segment = || {
        required(
            args.segment.as_deref(),
            "this action",
            "segment (id or name)",
        )
    };
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &segments, &query, Some(realm.resource())).await
        }
        ManageAction::Get => kit::get_one(&call, &segments, segment()?).await,
        ManageAction::Create => {
            required(args.name.as_deref(), "create", "name")?;
            kit::create_one(&call, &segments, &fields).await
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, match, conditions".into(),
                ));
            }
            kit::put_one(&call, &segments, segment()?, &fields, "updated", None).await
        }
        ManageAction::Delete => {
            kit::delete_one(
                &call,
                &segments,
                "customers-segments-manage",
                segment()?,
                args.confirm_delete,
            )
            .await
        }
    }
}
