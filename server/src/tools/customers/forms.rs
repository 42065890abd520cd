//! Forms of a realm: `customers-forms-manage` and `customers-forms-copy`.
//!
//! `GET /api/admin/customers/{realm_uid}/forms` is documented; the rest is `[synthetic]`, and
//! so is the question JSON (passed through as given). `enable` and `disable` are `PUT`s of
//! `enabled`, checked after the write (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::copy::Realms;
use super::in_realm;
use crate::config::Module;
use crate::contract::{PostCondition, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::copy::{copy_name, without_owned};
use crate::tools::engine::{
    Action, Answer, Ctx, Echo, Echoed, Managed, Member, Need, Rules, echoed, manage, persist, reply,
};
use crate::tools::{Call, ToolDef, tool};

echoed! {
    /// A form as the API returns it.
    Form = "form" {
        id: i64, uuid: String, name: String, description: String, enabled: bool,
        questions: List, submissions_count: i64, created_at: String, updated_at: String
    }
}

impl Member for Form {
    const RULES: Rules = Rules::new("form", "forms")
        .hint("call customers-forms-manage with action list to see the realm's forms");
}

/// Arguments of `customers-forms-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm uid or name.
    realm: Ident,
    /// list, get (default), create, update, delete, enable or disable.
    action: Option<Action>,
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
    manage::<ManageArgs, Form>("customers-forms-manage", Module::Customers, in_realm())
        .describe(
            "List, get, create, update, delete, enable or disable a realm's forms. form: id or name. list: \
data.forms + coverage, resource = the realm; other actions: data is the form as persisted (questions \
included); delete needs confirmDelete: true.",
        )
        .target("form", "id or name")
        .fields(&["name", "description", "questions"])
        .list(|_| Query::new())
        .get()
        .create(&["name"])
        .update()
        .delete()
        .action("enable", |ctx| enable(ctx, true))
        .on_target()
        .action("disable", |ctx| enable(ctx, false))
        .on_target()
        .build()
}

/// `PUT {enabled}`; the persisted `enabled` must be what was sent (C7).
async fn enable(ctx: Ctx<ManageArgs, Form>, enabled: bool) -> Answer<Managed<Form>> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let request = json!({"enabled": enabled});
    let object = persist::write(ctx.client()?, Method::PUT, &path, Some(&request), &path).await?;
    let what = format!("form {}", found.id);
    persist::check_key(&object, "enabled", &json!(enabled), &what)?;
    let status = if enabled { "enabled" } else { "disabled" };
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<Form, _>(object, resource, status).into())
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
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Form>> {
    let client = call.client()?;
    let realms = Realms::resolve(client, &args.realm, args.target_realm.as_deref()).await?;
    let forms = realms.source.collection::<Form>();
    let found = forms.find(client, &args.form, Need::Id).await?;
    let source = forms.fetch(client, found.id).await?;
    let questions = source.get("questions").cloned().unwrap_or(json!([]));
    if !realms.same() {
        let mut bound = Vec::new();
        bound_questions(&questions, &mut bound);
        if !bound.is_empty() {
            return Err(ToolError::invalid_parameters(format!(
                "form {} has {} question(s) bound to data sets of realm '{}', which do not exist in realm '{}'; copy it within its realm, or copy the data sets and rebind the questions",
                found.id,
                bound.len(),
                realms.source.uid,
                realms.target.uid
            ))
            .detail("questions", Value::Array(bound))
            .into());
        }
    }
    let name = copy_name(args.name.as_deref(), &source, "form", realms.same());
    let request = persist::body(vec![
        ("name", Some(Value::from(name))),
        ("description", source.get("description").cloned()),
        ("questions", Some(without_owned(&questions))),
    ]);
    let target = realms.target.collection::<Form>();
    let object = persist::create(client, &target.path, &request, Form::NAME).await?;
    let resource = target.resource(&object, None);
    let post = PostCondition::status("created");
    let message = format!("Form copied successfully from form {}", found.id);
    Ok(reply::saved_as::<Form, _>(object, resource, post, "copied", message).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_bound_to_data_sets_are_found_at_any_depth() {
        let q = json!([{"id": 9, "label": "Región", "data_set_id": 401, "options": [{"id": 1, "value": "x"}]}]);
        let mut bound = Vec::new();
        bound_questions(&q, &mut bound);
        assert_eq!(
            bound,
            vec![json!({"question": "Región", "data_set_id": 401})]
        );
    }
}
