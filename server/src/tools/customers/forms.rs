//! Forms of a realm: `customers-forms-manage` and `customers-forms-copy`.
//!
//! `GET /api/admin/customers/{realm_uid}/forms` is documented; the rest is `[synthetic]`, and
//! so is the question JSON (passed through as given). `enable` and `disable` are `PUT`s of
//! `enabled`, checked after the write (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{resolve_realm, resolve_realms};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::core::kit::{self, Need, body, created_object, required, without_owned};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// A form as the API returns it (loose: echoed).
pub(crate) fn form_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("description", Kind::Str),
        ("enabled", Kind::Bool),
        ("questions", Kind::List),
        ("submissions_count", Kind::Int),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

/// Actions of `customers-forms-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
    Enable,
    Disable,
}

/// Arguments of `customers-forms-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update, delete, enable or disable.
    action: Option<ManageAction>,
    /// Form id or name (all but list and create).
    form: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Questions, replacing the current ones (create, update).
    questions: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("customers-forms-manage", Module::Customers, ToolClass::Gated)
        .describe(
            "List, get, create, update, delete, enable or disable a realm's forms. form: id or name. list: \
data.forms + coverage, resource = the realm; other actions: data is the form as persisted (questions \
included); delete needs confirmDelete: true.",
        )
        .data(kit::manage_schema(form_schema(), "forms"))
        .resource()
        .state()
        .actions(
            &["list", "get"],
            &["create", "update", "delete", "enable", "disable"],
        )
        .handle(manage)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let fields = body(vec![
        ("name", args.name.clone().map(Value::from)),
        ("description", args.description.clone().map(Value::from)),
        ("questions", args.questions.clone().map(Value::from)),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if !kit::is_empty(&fields) => {
            return Err(kit::action_required("name, description or questions"));
        }
        None => ManageAction::Get,
    };
    // A delete without confirmation answers before any request, the realm lookup included.
    if action == ManageAction::Delete
        && let Err(control) =
            kit::confirmed(args.confirm_delete, "customers-forms-manage", "delete")
    {
        return Ok(control);
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let forms = realm.forms();
    let form = || required(args.form.as_deref(), "this action", "form (id or name)");
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            kit::list_page(&call, &forms, &query, Some(realm.resource())).await
        }
        ManageAction::Get => kit::get_one(&call, &forms, form()?).await,
        ManageAction::Create => {
            required(args.name.as_deref(), "create", "name")?;
            kit::create_one(&call, &forms, &fields).await
        }
        ManageAction::Update => {
            if kit::is_empty(&fields) {
                return Err(CallError::Arguments(
                    "update needs at least one of name, description, questions".into(),
                ));
            }
            kit::put_one(&call, &forms, form()?, &fields, "updated", None).await
        }
        ManageAction::Delete => {
            kit::delete_one(
                &call,
                &forms,
                "customers-forms-manage",
                form()?,
                args.confirm_delete,
            )
            .await
        }
        ManageAction::Enable | ManageAction::Disable => {
            let enabled = action == ManageAction::Enable;
            let status = if enabled { "enabled" } else { "disabled" };
            kit::put_one(
                &call,
                &forms,
                form()?,
                &json!({"enabled": enabled}),
                status,
                Some("enabled"),
            )
            .await
        }
    }
}

/// The questions (at any depth) bound to a data set, as `(label, data_set_id)`.
fn bound_questions(questions: &Value, out: &mut Vec<Value>) {
    match questions {
        Value::Array(items) => items.iter().for_each(|q| bound_questions(q, out)),
        Value::Object(map) => {
            if let Some(id) = map.get("data_set_id").filter(|v| !v.is_null()) {
                out.push(json!({
                    "question": map.get("label").or_else(|| map.get("name")).cloned().unwrap_or(Value::Null),
                    "data_set_id": id,
                }));
            }
            map.values().for_each(|v| bound_questions(v, out));
        }
        _ => {}
    }
}

/// Arguments of `customers-forms-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm uid or name of the form to copy.
    realm: Ident,
    /// Form id or name.
    form: Ident,
    /// Realm uid or name to copy into (default: the same realm).
    target_realm: Option<Ident>,
    /// Name of the copy (default: the same name in another realm, "<name> (copy)" in the same one).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("customers-forms-copy", Module::Customers, ToolClass::Mutation)
        .describe(
            "Copy a form with its questions, within its realm or into another. data is the copy as persisted; \
resource is the copy. Questions bound to data sets can only be copied within the realm.",
        )
        .data(form_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let mut inputs = vec![args.realm.as_str()];
    inputs.extend(args.target_realm.as_deref());
    let mut realms = resolve_realms(client, &inputs).await?.into_iter();
    let (Some(realm), target) = (realms.next(), realms.next()) else {
        return Err(ToolError::not_found("no realm resolved").into());
    };
    let target = target.unwrap_or_else(|| realm.clone());
    let forms = realm.forms();
    let found = forms.find(client, &args.form, Need::Id).await?;
    let source = forms.fetch(client, found.id).await?;
    let questions = source.get("questions").cloned().unwrap_or(json!([]));
    if target.uid != realm.uid {
        let mut bound = Vec::new();
        bound_questions(&questions, &mut bound);
        if !bound.is_empty() {
            return Err(ToolError::invalid_parameters(format!(
                "form {} has {} question(s) bound to data sets of realm '{}', which do not exist in realm '{}'; copy it within its realm, or copy the data sets and rebind the questions",
                found.id,
                bound.len(),
                realm.uid,
                target.uid
            ))
            .detail("questions", Value::Array(bound))
            .into());
        }
    }
    let source_name = source.get("name").and_then(Value::as_str).unwrap_or("form");
    let name = args.name.clone().unwrap_or_else(|| {
        if target.uid == realm.uid {
            format!("{source_name} (copy)")
        } else {
            source_name.to_owned()
        }
    });
    let request = body(vec![
        ("name", Some(Value::from(name))),
        ("description", source.get("description").cloned()),
        ("questions", Some(without_owned(&questions))),
    ]);
    let target_forms = target.forms();
    let response = client
        .send(
            Method::POST,
            &target_forms.path,
            &Query::new(),
            Some(&request),
        )
        .await?;
    let object = created_object(response, "form")?;
    Ok(kit::written(
        call.mode,
        target_forms.resource(&object, None),
        object,
        PostCondition::status("created"),
        "copied",
        format!("Form copied successfully from form {}", found.id),
        "form",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_keys_go_at_any_depth_and_bindings_stay() {
        let q = json!([{"id": 9, "label": "Región", "data_set_id": 401, "options": [{"id": 1, "value": "x"}]}]);
        assert_eq!(
            without_owned(&q),
            json!([{"label": "Región", "data_set_id": 401, "options": [{"value": "x"}]}])
        );
        let mut bound = Vec::new();
        bound_questions(&q, &mut bound);
        assert_eq!(
            bound,
            vec![json!({"question": "Región", "data_set_id": 401})]
        );
    }
}
