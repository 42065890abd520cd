//! Submissions of originations: `customers-submissions-list` and `customers-submissions-bulk`.
//!
//! Both lists are documented (`.../originations/{id}/submissions` with `date_range[]` and
//! `updated_date_range[]`, and `.../users/{user_id}/submissions`); the per-submission `PUT` is
//! `[synthetic]` except its documented `due_extension_days`. Dates are checked locally: the API
//! drops a whole filter it cannot parse and still answers 200.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Realm;
use super::originations::Origination;
use super::users::RealmUser;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Resource, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, check_date};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Collection, Command, Container, Echo, Found, Member, Need, Rules, Verb, body,
    bulk, command, echoed, lenient, persist, reply, required, view,
};

echoed! {
    /// A submission as the API returns it (keys from the customers API docs).
    Submission = "form submission" {
        id: i64, uuid: String
    }
}

impl Member for Submission {
    const RULES: Rules = Rules::new("submission", "submissions");
}

/// Arguments of `customers-submissions-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Realm slug or name.
    realm: Ident,
    /// Origination id or name whose submissions to list (or user).
    origination: Option<Ident>,
    /// End user id or email whose submissions to list (or origination).
    user: Option<Ident>,
    /// Created between two days, [from, to] as YYYY-MM-DD (origination only).
    #[schemars(length(min = 2, max = 2))]
    date_range: Option<Vec<String>>,
    /// Updated between two days, [from, to] as YYYY-MM-DD (origination only).
    #[schemars(length(min = 2, max = 2))]
    updated_date_range: Option<Vec<String>>,
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("customers-submissions-list", Module::Customers, ToolClass::Read)
        .describe(
            "List the submissions of one origination (id or name; filters date_range, updated_date_range) or of \
one end user (id or email), one page at a time. resource is the origination or the user. \
Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid.",
        )
        .resource()
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

/// The container's echo: the whole object when the lookup read it, else its id.
fn container<T: Member>(coll: &Collection<T>, found: &Found) -> Resource {
    match &found.object {
        Some(object) => coll.resource(object, Some(found.id)),
        None => Resource::new(T::RULES.resource).id(found.id),
    }
}

/// The submissions of the origination or the user `input` names, and its echo.
async fn owner<T: Member>(
    client: &ModyoClient,
    coll: Collection<T>,
    input: &str,
) -> Result<(String, Resource), ToolError> {
    let found = coll.find(client, input, Need::Id).await?;
    Ok((
        format!("{}/submissions", coll.item(found.id)),
        container(&coll, &found),
    ))
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<Submission>>> {
    let client = call.client()?;
    let mut query = Query::new();
    for (key, range) in [
        ("date_range[]", &args.date_range),
        ("updated_date_range[]", &args.updated_date_range),
    ] {
        for day in range.iter().flatten() {
            check_date(day, key.trim_end_matches("[]"))?;
            query = query.push(key, day);
        }
    }
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let (path, resource) = match (&args.origination, &args.user) {
        (Some(origination), None) => {
            owner(client, realm.collection::<Origination>(), origination).await?
        }
        (None, Some(user)) => {
            if args.date_range.is_some() || args.updated_date_range.is_some() {
                return Err(CallError::Arguments(
                    "date_range and updated_date_range apply to an origination's submissions only"
                        .into(),
                ));
            }
            owner(client, realm.collection::<RealmUser>(), user).await?
        }
        _ => {
            return Err(CallError::Arguments(
                "give exactly one of origination or user".into(),
            ));
        }
    };
    let query = query.page(args.paging.page, args.paging.per_page);
    let page = Collection::<Submission>::at(path)
        .page(client, &query)
        .await?;
    Ok(reply::rows(page, Some(resource)).into())
}

command! {
    /// What `customers-submissions-bulk` can be asked (an assign's `origination` is checked
    /// after its assignee, so it is not a field here).
    enum SubmissionsBulkCommand for BulkArgs {
        SetStatus { status as "status (completed or canceled)": Status } => Verb::write("set_status"),
        Assign => Verb::write("assign"),
        ExtendDue { due_extension_days: u32 } => Verb::write("extend_due"),
    }
}

const SUBMISSIONS_BULK: &str = "customers-submissions-bulk";

/// Final statuses an admin can set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Completed,
    Canceled,
}

/// Arguments of `customers-submissions-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// Realm slug or name.
    realm: Ident,
    /// set_status, assign or extend_due.
    action: Action,
    /// Submission ids, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    submissions: Vec<u64>,
    /// completed or canceled (set_status).
    status: Option<Status>,
    /// Why (set_status canceled: required).
    cancellation_reason: Option<String>,
    /// Origination id or name whose assignees the assignee must be among (assign).
    origination: Option<Ident>,
    /// Team user to assign (assign; with assignee_group_id: that user within that group).
    assignee_user_id: Option<u64>,
    /// Group to assign (assign).
    assignee_group_id: Option<u64>,
    /// Days to add to the due date (extend_due).
    #[schemars(range(min = 1, max = 365))]
    due_extension_days: Option<u32>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("customers-submissions-bulk", Module::Customers, ToolClass::Mutation)
        .describe(
            "Change many submissions of a realm, one request each, 4 at a time; never stops at a failure. \
set_status: completed or canceled (canceled needs cancellation_reason); assign: a user, a group, or a user within \
a group, checked against the origination's assignees; extend_due: due_extension_days. data.succeeded: submission \
ids; data.failed: [{index, error{code, message}}]; state.affected: successes. \
Unverified: PUT /customers/{realm}/submissions/{id}; public paths nest submissions under their origination. Unverified: paths use the numeric id; a docs PR says the API resolves originations by origination_uid.",
        )
        .state()
        .handle(bulk)
        .offers::<SubmissionsBulkCommand>()
}

/// The assignee of an `assign`, in the three kinds documented since 10.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Assignee {
    User(u64),
    Group(u64),
    UserInGroup { user: u64, group: u64 },
}

impl Assignee {
    fn kind(self) -> &'static str {
        match self {
            Assignee::User(_) => "user",
            Assignee::Group(_) => "group",
            Assignee::UserInGroup { .. } => "user_in_group",
        }
    }

    fn id(self) -> u64 {
        match self {
            Assignee::User(id) | Assignee::Group(id) => id,
            Assignee::UserInGroup { user, .. } => user,
        }
    }

    fn body(self) -> Value {
        let group_id = match self {
            Assignee::UserInGroup { group, .. } => Some(group),
            _ => None,
        };
        body(AssigneeBody {
            kind: self.kind(),
            id: self.id(),
            group_id,
        })
    }

    /// Whether an entry of the origination's assignees list is this assignee.
    fn is(self, entry: &Value) -> bool {
        let entry: Offered = view(entry);
        let kind = entry.kind.as_ref().and_then(Value::as_str);
        let id = entry.id.as_ref().and_then(Value::as_u64);
        match self {
            Assignee::UserInGroup { group, .. } => {
                kind == Some("user_in_group")
                    && id == Some(self.id())
                    && entry.group_id.as_ref().and_then(Value::as_u64) == Some(group)
            }
            other => kind == Some(other.kind()) && id == Some(other.id()),
        }
    }
}

/// An assignee as a request sends it.
#[derive(Serialize)]
struct AssigneeBody {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_id: Option<u64>,
}

/// An entry of an origination's assignees list: the keys matched, and those an error lists
/// (`null` when absent).
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct Offered {
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    group_id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    name: Option<Value>,
}

/// The body of an `assign`; with the assignee persisted, what it checks.
#[derive(Serialize)]
struct AssignBody {
    assignee: Value,
}

/// The body of an `extend_due`.
#[derive(Serialize)]
struct ExtendDueBody {
    due_extension_days: u32,
}

/// The body of a `set_status`.
#[derive(Serialize)]
struct StatusBody<'a> {
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancellation_reason: Option<&'a str>,
}

/// The keys a bulk item reads of the submission as persisted.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Persisted {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    assignee: Option<Value>,
}

/// What every item of a bulk call sends, and what must come back.
struct Change {
    request: Value,
    check: Option<(&'static str, Value)>,
    /// For `assign`: the assignee and the origination whose assignees must include it.
    assignee: Option<(Assignee, String)>,
}

/// The change every item gets, checked locally before any request is sent.
fn change(args: &BulkArgs, command: &SubmissionsBulkCommand) -> Result<Change, CallError> {
    match *command {
        SubmissionsBulkCommand::SetStatus { status } => {
            let word = match status {
                Status::Completed => "completed",
                Status::Canceled => "canceled",
            };
            let mut cancellation_reason = None;
            if status == Status::Canceled {
                let reason = args
                    .cancellation_reason
                    .as_deref()
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| {
                        ToolError::invalid_parameters(
                            "set_status canceled needs a cancellation_reason; nothing was changed",
                        )
                    })?;
                cancellation_reason = Some(reason);
            }
            Ok(Change {
                request: body(StatusBody {
                    status: word,
                    cancellation_reason,
                }),
                check: Some(("status", Value::from(word))),
                assignee: None,
            })
        }
        SubmissionsBulkCommand::Assign => {
            let assignee = match (args.assignee_user_id, args.assignee_group_id) {
                (Some(user), Some(group)) => Assignee::UserInGroup { user, group },
                (Some(user), None) => Assignee::User(user),
                (None, Some(group)) => Assignee::Group(group),
                (None, None) => {
                    return Err(CallError::Arguments(
                        "assign needs assignee_user_id, assignee_group_id, or both (a user within a group)"
                            .into(),
                    ));
                }
            };
            let origination = required(
                args.origination.as_deref(),
                "assign",
                "origination (its assignees are checked)",
            )?;
            Ok(Change {
                request: body(AssignBody {
                    assignee: assignee.body(),
                }),
                check: Some(("assignee", assignee.body())),
                assignee: Some((assignee, origination.to_owned())),
            })
        }
        SubmissionsBulkCommand::ExtendDue {
            due_extension_days: days,
        } => Ok(Change {
            request: body(ExtendDueBody {
                due_extension_days: days,
            }),
            check: None,
            assignee: None,
        }),
    }
}

/// The assignee must be one the origination offers (`GET .../assignees`, documented).
async fn check_assignee(
    client: &ModyoClient,
    realm: &Realm,
    origination: &str,
    assignee: Assignee,
) -> Result<(), ToolError> {
    let originations = realm.collection::<Origination>();
    let found = originations.find(client, origination, Need::Id).await?;
    let (assignees, _) = walk(
        client,
        &format!("{}/assignees", originations.item(found.id)),
        "assignees",
        &Query::new(),
    )
    .await?;
    if assignees.iter().any(|a| assignee.is(a)) {
        return Ok(());
    }
    let offered: Vec<Value> = assignees
        .iter()
        .take(20)
        .map(|a| body(view::<Offered>(a)))
        .collect();
    Err(ToolError::invalid_parameters(format!(
        "{} {} is not among the assignees of origination {}; nothing was changed",
        assignee.kind(),
        assignee.id(),
        found.id
    ))
    .detail("assignees", Value::Array(offered)))
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<bulk::Bulk> {
    let command =
        command::parse::<SubmissionsBulkCommand>(SUBMISSIONS_BULK, args.action.as_str(), &args)?;
    let change = change(&args, &command)?;
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    if let Some((assignee, origination)) = &change.assignee {
        check_assignee(client, &realm, origination, *assignee).await?;
    }
    let submissions = realm.collection::<Submission>();
    let out = bulk::run(args.submissions.clone(), |_, id| {
        let change = &change;
        let path = submissions.item(id);
        async move {
            let object =
                persist::write(client, Method::PUT, &path, Some(&change.request), &path).await?;
            let persisted: Persisted = view(&object);
            if let Some((key, wanted)) = &change.check {
                let got = match *key {
                    // Only the identity of the assignee is compared (labels are the API's).
                    "assignee" => body(AssignBody {
                        assignee: keep(persisted.assignee.as_ref(), wanted),
                    }),
                    _ => object,
                };
                persist::check_key(&got, key, wanted, &format!("submission {id}"))?;
            }
            Ok(persisted.id.unwrap_or(Value::from(id)))
        }
    })
    .await;
    Ok(bulk::answer(command.verb().word, out)?.into())
}

/// The keys of `persisted` that `wanted` has (so extra labels do not count as a mismatch).
fn keep(persisted: Option<&Value>, wanted: &Value) -> Value {
    match (persisted, wanted.as_object()) {
        (Some(Value::Object(got)), Some(keys)) => Value::Object(
            keys.keys()
                .map(|k| (k.clone(), got.get(k).cloned().unwrap_or(Value::Null)))
                .collect(),
        ),
        (Some(other), _) => other.clone(),
        (None, _) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn assignees_match_by_kind_id_and_group() {
        let user = json!({"type": "user", "id": 7, "name": "Ana"});
        let in_group = json!({"type": "user_in_group", "id": 7, "group_id": 3});
        assert!(Assignee::User(7).is(&user));
        assert!(!Assignee::User(7).is(&in_group));
        assert!(Assignee::UserInGroup { user: 7, group: 3 }.is(&in_group));
        assert!(!Assignee::UserInGroup { user: 7, group: 4 }.is(&in_group));
        assert!(!Assignee::Group(7).is(&user));
    }

    #[test]
    fn keep_compares_only_the_sent_keys() {
        let persisted = json!({"type": "group", "id": 3, "name": "Backoffice", "label": "x"});
        let wanted = json!({"type": "group", "id": 3});
        assert_eq!(keep(Some(&persisted), &wanted), wanted);
    }
}
