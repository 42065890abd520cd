//! Forms of a realm: `customers-forms-manage` and `customers-forms-copy`.
//!
//! What Modyo documents: the list (`GET /api/admin/customers/{realm_uid}/forms`), one form
//! (`GET .../forms/{id}`, its questions under `question`), its update (`PUT .../forms/{id}`,
//! whose body the specification leaves open: the tool sends the keys a form answers with),
//! `PUT .../forms/{id}/enable` and `.../disable` (`204`, so the form is read again and its
//! `enabled` checked, C7), and a site-scoped delete
//! (`DELETE /api/admin/customers/{realm_uid}/sites/{site_id}/forms/{id}`, the site being the
//! form's `site_id`). There is no documented way to create a form, so `create` and
//! `customers-forms-copy` answer an error that says so and send nothing.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Realm;
use crate::config::Module;
use crate::contract::{ErrorCode, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Ctx, Echo, Managed, Member, Need, Rules, Verb, command, echoed, lenient,
    manage, persist, reply, standard, view, within,
};

/// Why a form cannot be created (or copied) through the API.
const NO_CREATE: &str = "Modyo's published API has no endpoint to create a form (forms are listed, read, updated, \
enabled, disabled and deleted): create it in the Modyo admin (Customers > Forms), then manage it here.";

echoed! {
    /// A form as the API returns it.
    Form = "form" {
        id: i64, uuid: String, name: String, site_id: i64
    }
}

impl Member for Form {
    const RULES: Rules = Rules::new("form", "forms")
        .hint("call customers-forms-manage with action list to see the realm's forms");
}

/// Arguments of `customers-forms-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm slug or name.
    realm: Ident,
    /// list, get (default), update, delete, enable or disable (create is not in Modyo's API).
    action: Option<Action>,
    /// Form id or name (all but list and create).
    form: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Only the forms of this site (list).
    site_id: Option<u64>,
    /// Name (update).
    name: Option<String>,
    /// Description (update).
    description: Option<String>,
    /// Questions, replacing the current ones: sent as the form's `question` (update).
    questions: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `customers-forms-manage` can be asked.
    enum FormCommand for ManageArgs {
        List => Verb::list(),
        Get { form: Ident } => Verb::read("get"),
        Create => Verb::write("create").refused(NO_CREATE),
        Update { form: Ident } => Verb::write("update"),
        Delete { form: Ident } => Verb::write("delete").confirmed(),
        Enable { form: Ident } => Verb::write("enable"),
        Disable { form: Ident } => Verb::write("disable"),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, Form, FormCommand>("customers-forms-manage", Module::Customers, within::<Realm, _>())
        .describe(
            "List, get, update, delete, enable or disable a realm's forms. form: id or name. list: data.forms + \
coverage, resource = the realm; other actions: data is the form as persisted (questions under `question`); delete \
needs confirmDelete: true. Modyo's API cannot create a form: create answers an error.",
        )
        .target("form", "id or name")
        .fields(&["name", "description", "questions"])
        .run(run)
}

/// Runs one command of `customers-forms-manage`.
async fn run(ctx: Ctx<ManageArgs, Form, FormCommand>) -> Answer<Managed<Form>> {
    match &ctx.command {
        FormCommand::List => {
            standard::list(&ctx, Query::new().push_opt("site_id", ctx.args.site_id)).await
        }
        FormCommand::Get { .. } => standard::get(&ctx).await,
        FormCommand::Create => standard::refused(&ctx).await,
        FormCommand::Update { .. } => update(ctx).await,
        FormCommand::Delete { .. } => delete(ctx).await,
        FormCommand::Enable { .. } => enable(ctx, true).await,
        FormCommand::Disable { .. } => enable(ctx, false).await,
    }
}

type Forms = Ctx<ManageArgs, Form, FormCommand>;

/// The keys a form update may send (the given ones are).
#[derive(Serialize)]
struct FormChanges<'a> {
    name: &'a Option<String>,
    description: &'a Option<String>,
    question: &'a Option<Vec<Value>>,
}

/// The site a form belongs to.
#[derive(Default, Deserialize)]
#[serde(default)]
struct FormSite {
    #[serde(deserialize_with = "lenient")]
    site_id: Option<u64>,
}

/// `PUT {name, description, question}` (the given ones), read back and checked (C7).
async fn update(ctx: Forms) -> Answer<Managed<Form>> {
    let body = persist::given(&FormChanges {
        name: &ctx.args.name,
        description: &ctx.args.description,
        question: &ctx.args.questions,
    });
    if persist::is_empty(&body) {
        return Err(CallError::Arguments(
            "update needs at least one of name, description, questions".into(),
        ));
    }
    standard::update_with(&ctx, body).await
}

/// `DELETE /api/admin/customers/{realm_uid}/sites/{site_id}/forms/{id}`: the site is the form's.
async fn delete(ctx: Forms) -> Answer<Managed<Form>> {
    let found = ctx.found(Need::Object).await?;
    let object = found.object();
    let Some(site_id) = view::<FormSite>(&object).site_id else {
        return Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!(
                "form {} came back without a site_id, and Modyo deletes a form through its site",
                found.id
            ),
        )
        .into());
    };
    // `/api/admin/customers/{realm_uid}/forms` -> `.../{realm_uid}/sites/{site_id}/forms/{id}`.
    let realm = ctx
        .coll
        .path
        .strip_suffix("/forms")
        .unwrap_or(&ctx.coll.path);
    let path = format!("{realm}/sites/{site_id}/forms/{}", found.id);
    ctx.client()?
        .send(Method::DELETE, &path, &Query::new(), None)
        .await
        .map_err(ctx.coll.not_found(found.id))?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    let message = String::from("Form permanently deleted");
    Ok(reply::gone::<Form, _>(resource, found.id, "deleted", message).into())
}

/// `PUT .../forms/{id}/enable` or `/disable` (`204`), then the form read again: its `enabled`
/// must be what was asked (C7).
async fn enable(ctx: Forms, enabled: bool) -> Answer<Managed<Form>> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let word = if enabled { "enable" } else { "disable" };
    let object = persist::write(
        ctx.client()?,
        Method::PUT,
        &format!("{path}/{word}"),
        None,
        &path,
    )
    .await
    .map_err(ctx.coll.missing(found.id))?;
    let what = format!("form {}", found.id);
    persist::check_key(&object, "enabled", &Value::Bool(enabled), &what)?;
    let status = if enabled { "enabled" } else { "disabled" };
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<Form, _>(object, resource, status).into())
}

/// Arguments of `customers-forms-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm slug or name of the form to copy.
    #[expect(dead_code, reason = "the copy is refused before any argument is used")]
    realm: Ident,
    /// Form id or name.
    #[expect(dead_code, reason = "the copy is refused before any argument is used")]
    form: Ident,
    /// Realm slug or name to copy into (default: the same realm).
    #[expect(dead_code, reason = "the copy is refused before any argument is used")]
    target_realm: Option<Ident>,
    /// Name of the copy.
    #[expect(dead_code, reason = "the copy is refused before any argument is used")]
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("customers-forms-copy", Module::Customers, ToolClass::Mutation)
        .describe(
            "Copy a form. Modyo's published API has no endpoint to create a form, so this tool answers an error \
(invalid_parameters) without sending a request; duplicate the form in the Modyo admin instead.",
        )
        .resource()
        .state()
        .handle(copy)
}

async fn copy(_call: Call, _args: CopyArgs) -> Answer<Echo<Form>> {
    Err(ToolError::invalid_parameters(NO_CREATE).into())
}
