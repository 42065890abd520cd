//! One call of a `-manage` tool as its actions see it: the arguments as given, what the call
//! acts on, and the member its target resolves into.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::collection::{Collection, Found, Member, Need};
use super::command::Verb;
use super::tool::{Call, CallError};
use crate::contract::Resource;
use crate::modyo::{ModyoClient, Query};

pub(super) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A resolved container, as the actions get it back (`Container::of`).
pub(super) type Held = Option<Arc<dyn Any + Send + Sync>>;

pub(super) type ResolveFn<T> =
    Arc<dyn Fn(Call, Given, Scope<T>, Need) -> BoxFuture<Result<Found, CallError>> + Send + Sync>;

/// The arguments of a call as given, by name (what a scope reads: `realm`, `site`).
#[derive(Debug, Clone)]
pub(crate) struct Given(pub(super) Arc<Map<String, Value>>);

impl Given {
    /// A parameter as given (absent or null: `None`).
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// A parameter as text (a number is written out).
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        match self.get(name)? {
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    }
}

/// What a call acts on: the collection, and the container its `list` echoes as `resource`.
#[derive(Debug)]
pub(crate) struct Scope<T> {
    /// The collection.
    pub(crate) coll: Collection<T>,
    /// The realm, site or space the collection lives in, when there is one.
    pub(crate) container: Option<Resource>,
    /// That container itself.
    pub(crate) held: Held,
}

impl<T> Clone for Scope<T> {
    fn clone(&self) -> Self {
        Scope {
            coll: self.coll.clone(),
            container: self.container.clone(),
            held: self.held.clone(),
        }
    }
}

impl<T> Scope<T> {
    /// The collection at a fixed path (the account's groups).
    pub(crate) fn at(path: impl Into<String>) -> Scope<T> {
        Scope {
            coll: Collection::at(path),
            container: None,
            held: None,
        }
    }
}

/// One call of a `-manage` tool, as an action sees it: its command `C` among them.
pub(crate) struct Ctx<A, T, C> {
    /// The call.
    pub(crate) call: Call,
    /// The typed arguments.
    pub(crate) args: Arc<A>,
    /// The command the arguments asked for, with the parameters its action requires.
    pub(crate) command: C,
    /// Its action.
    pub(crate) verb: &'static Verb,
    pub(super) given: Given,
    /// The collection.
    pub(crate) coll: Collection<T>,
    /// The container, echoed by `list`.
    pub(crate) container: Option<Resource>,
    pub(super) held: Held,
    pub(super) target: Option<&'static str>,
    pub(super) fields: &'static [&'static str],
    pub(super) resolve: Option<ResolveFn<T>>,
}

impl<A, T: Member, C> Ctx<A, T, C> {
    /// The Modyo client.
    pub(crate) fn client(&self) -> Result<&ModyoClient, CallError> {
        self.call.client()
    }

    /// A parameter as given (absent or null: `None`).
    pub(crate) fn param(&self, name: &str) -> Option<&Value> {
        self.given.get(name)
    }

    /// The target as typed (a number is written out), checked present by the declaration.
    pub(crate) fn target(&self) -> Result<String, CallError> {
        let param = self.target.unwrap_or("target");
        self.given
            .text(param)
            .ok_or_else(|| CallError::Arguments(format!("{} needs {param}", self.verb.word)))
    }

    /// The target resolved into a member.
    pub(crate) async fn found(&self, need: Need) -> Result<Found, CallError> {
        if let Some(resolve) = &self.resolve {
            let scope = Scope {
                coll: self.coll.clone(),
                container: self.container.clone(),
                held: self.held.clone(),
            };
            return resolve(self.call.clone(), self.given.clone(), scope, need).await;
        }
        let target = self.target()?;
        Ok(self.coll.find(self.client()?, &target, need).await?)
    }

    /// The given writable fields, in declaration order: the body of a write.
    pub(crate) fn body(&self) -> Value {
        let body: Map<String, Value> = self
            .fields
            .iter()
            .filter_map(|f| self.param(f).map(|v| ((*f).to_owned(), v.clone())))
            .collect();
        Value::Object(body)
    }

    /// `page` and `per_page` as given.
    pub(crate) fn paged(&self, query: Query) -> Query {
        let number = |key: &str, default: u32| {
            self.param(key)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(default)
        };
        query.page(number("page", 1), number("per_page", 10))
    }
}
