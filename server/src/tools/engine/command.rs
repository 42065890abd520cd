//! Typed commands: what a multi-action tool can be asked, as a Rust enum.
//!
//! The wire keeps one flat object of arguments (C9), with `action` a word among the declared
//! ones. [`command!`] declares, once per tool, an enum with one variant per action: its
//! [`Verb`] (the word, read or write, what the engine checks before anything is sent) and
//! the parameters it requires as typed fields. The engine parses the flat arguments into that
//! enum before any request ([`Command::parse`]): an unknown word or a missing parameter is an
//! argument error there, a misspelt parameter is a compile error (the variant's field reads
//! the argument struct's field of the same name), and handlers match on variants, never on
//! words.

use std::fmt::Debug;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::tool::CallError;
use crate::contract::Control;
use crate::tools::engine::Answer;

/// One action of a multi-action tool: its word on the wire and what the engine decides
/// locally about it (C18, C19).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verb {
    /// The word on the wire (`action: "publish"`).
    pub(crate) word: &'static str,
    /// A read: allowed in read-only mode (C19).
    pub(crate) reads: bool,
    /// The listing of the collection: its container is read whole, to be echoed.
    pub(crate) lists: bool,
    /// Destructive: runs only with `confirmDelete: true` (C18).
    pub(crate) confirmed: bool,
    /// Needs at least one of the tool's writable fields.
    pub(crate) changes: bool,
    /// Modyo documents no endpoint for it: refused with this reason before any request.
    pub(crate) refused: Option<&'static str>,
}

impl Verb {
    const fn new(word: &'static str, reads: bool) -> Verb {
        Verb {
            word,
            reads,
            lists: false,
            confirmed: false,
            changes: false,
            refused: None,
        }
    }

    /// `list`: a page of the collection, echoing its container.
    pub(crate) const fn list() -> Verb {
        Verb {
            lists: true,
            ..Verb::new("list", true)
        }
    }

    /// An action that only reads (`get`, `search`).
    pub(crate) const fn read(word: &'static str) -> Verb {
        Verb::new(word, true)
    }

    /// An action that writes.
    pub(crate) const fn write(word: &'static str) -> Verb {
        Verb::new(word, false)
    }

    /// The action is destructive: it runs only with `confirmDelete: true`.
    pub(crate) const fn confirmed(self) -> Verb {
        Verb {
            confirmed: true,
            ..self
        }
    }

    /// The action needs at least one of the writable fields (an update).
    pub(crate) const fn changes(self) -> Verb {
        Verb {
            changes: true,
            ..self
        }
    }

    /// The action cannot be performed: it answers `why` as an `invalid_parameters` error.
    pub(crate) const fn refused(self, why: &'static str) -> Verb {
        Verb {
            refused: Some(why),
            ..self
        }
    }
}

/// The `action` argument of a multi-action tool: its values are the words of its command
/// (written into the input schema by [`declare_actions`]).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Action(String);

impl JsonSchema for Action {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Action".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": []})
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Action {
    /// The word as given.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// The command `word` asks of a tool that is not a `-manage` declaration (`tool` names it in
/// the errors): an unknown word, or an action without a parameter it requires, is an
/// argument error, before any request.
pub(crate) fn parse<C: Command>(tool: &str, word: &str, args: &C::Args) -> Result<C, CallError> {
    match C::parse(word, args) {
        Some(Ok(command)) => Ok(command),
        Some(Err(missing)) => Err(CallError::Arguments(format!(
            "{word} needs {}",
            one_of(&missing, "and")
        ))),
        None => Err(CallError::Arguments(format!(
            "{tool} has no action '{word}'"
        ))),
    }
}

/// The cancellation of a destructive action asked without `confirmDelete: true` (C18), when
/// `word`'s verb is one; `None` otherwise (and for a word the command lacks, which
/// [`parse`] refuses).
pub(crate) fn unconfirmed<C: Command, D>(
    tool: &str,
    word: &str,
    confirm: Option<bool>,
) -> Option<Answer<D>> {
    let verb = C::VERBS.iter().find(|v| v.word == word)?;
    (verb.confirmed && confirm != Some(true))
        .then(|| Ok(Control::cancelled_unconfirmed(tool, verb.word).into()))
}

/// The words of `C`'s reads (`reads`) or of its writes, in declaration order: what the
/// read-only gate lets through and what it refuses (C19).
pub(crate) fn words<C: Command>(reads: bool) -> &'static [&'static str] {
    let words: Vec<&'static str> = C::VERBS
        .iter()
        .filter(|v| v.reads == reads)
        .map(|v| v.word)
        .collect();
    Box::leak(words.into_boxed_slice())
}

/// `a, b or c`.
pub(crate) fn one_of(items: &[&str], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., tail] => format!("{} {last} {tail}", rest.join(", ")),
    }
}

/// Writes the declared actions into the `action` property of an input schema.
pub(crate) fn declare_actions(schema: &mut Map<String, Value>, words: &[&str]) {
    let Some(Value::Object(action)) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("action"))
    else {
        return;
    };
    let nullable = matches!(action.get("enum"), Some(Value::Array(e)) if e.contains(&Value::Null));
    let mut values: Vec<Value> = words.iter().map(|w| json!(w)).collect();
    if nullable {
        values.push(Value::Null);
    }
    action.insert("enum".into(), Value::Array(values));
}

/// The command of a multi-action tool, declared with [`command!`].
pub(crate) trait Command: Debug + Sized + Send + Sync + 'static {
    /// The tool's arguments, from which a command is parsed.
    type Args;

    /// Every action, in declaration order (the input schema offers them in this order).
    const VERBS: &'static [Verb];

    /// The command `word` asks for: `None` for a word the tool does not declare, the wire
    /// names of the missing required parameters when some are absent (or null).
    fn parse(word: &str, args: &Self::Args) -> Option<Result<Self, Vec<&'static str>>>;

    /// This command's action.
    fn verb(&self) -> &'static Verb;

    /// The wire names of the parameters some action requires, each once.
    fn required() -> Vec<&'static str>;
}

/// The wire name of a command's parameter: its `as "name"` when given, else the field's.
macro_rules! wire_name {
    ($wire:literal, $field:ident) => {
        $wire
    };
    ($field:ident) => {
        stringify!($field)
    };
}
pub(crate) use wire_name;

/// Declares the typed command of a multi-action tool.
///
/// ```ignore
/// command! {
///     /// What `core-groups-manage` can be asked.
///     enum GroupCommand for ManageArgs {
///         List => Verb::list(),
///         Get { group: Ident } => Verb::read("get"),
///         Create { name: String } => Verb::write("create"),
///         Delete { group: Ident } => Verb::write("delete").confirmed(),
///     }
/// }
/// ```
///
/// A variant's fields are the parameters its action requires: each reads the argument
/// struct's `Option` field of the same name (`content_type as "type": Ident` when the wire
/// name differs, for the error message; `name in described: String` for a field of a
/// flattened part) and holds its value.
macro_rules! command {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident for $args:ty {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $({ $($field:ident $(in $sub:ident)? $(as $wire:literal)? : $ty:ty),* $(,)? })? => $verb:expr
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        #[allow(dead_code)] // a field is the proof its parameter was given, read or not
        $vis enum $name {
            $(
                $(#[$vmeta])*
                $variant $({ $($field: $ty),* })?
            ),*
        }

        impl $crate::tools::engine::Command for $name {
            type Args = $args;

            const VERBS: &'static [$crate::tools::engine::Verb] = &[$($verb),*];

            #[allow(unreachable_patterns, unused_variables)]
            fn parse(
                word: &str,
                args: &$args,
            ) -> Option<Result<Self, Vec<&'static str>>> {
                $(
                    if word == { const VERB: $crate::tools::engine::Verb = $verb; VERB.word } {
                        return Some(match ($($(args$(.$sub)?.$field.clone(),)*)?) {
                            ($($(Some($field),)*)?) => Ok($name::$variant $({ $($field),* })?),
                            ($($($field,)*)?) => Err(
                                [$($(($field.is_none(), $crate::tools::engine::command::wire_name!($($wire,)? $field))),*)?]
                                    .into_iter()
                                    .filter(|(missing, _)| *missing)
                                    .map(|(_, wire)| wire)
                                    .collect(),
                            ),
                        });
                    }
                )*
                None
            }

            fn verb(&self) -> &'static $crate::tools::engine::Verb {
                match self {
                    $(
                        $name::$variant { .. } => {
                            const VERB: $crate::tools::engine::Verb = $verb;
                            &VERB
                        }
                    )*
                }
            }

            #[allow(unused_mut)] // a command whose actions require nothing
            fn required() -> Vec<&'static str> {
                let mut names: Vec<&'static str> = Vec::new();
                $($($(
                    let wire = $crate::tools::engine::command::wire_name!($($wire,)? $field);
                    if !names.contains(&wire) {
                        names.push(wire);
                    }
                )*)?)*
                names
            }
        }
    };
}
pub(crate) use command;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default)]
    struct Args {
        thing: Option<String>,
        content_type: Option<u64>,
        name: Option<String>,
    }

    command! {
        /// Things.
        enum ThingCommand for Args {
            List => Verb::list(),
            Get { thing: String } => Verb::read("get"),
            Create { content_type as "type": u64, name: String } => Verb::write("create"),
            Delete { thing: String } => Verb::write("delete").confirmed(),
            Archive => Verb::write("archive").refused("no archive"),
        }
    }

    #[test]
    fn a_word_parses_into_its_variant_with_the_parameters_it_requires() {
        let args = Args {
            thing: Some("7".into()),
            ..Args::default()
        };
        let Some(Ok(ThingCommand::Get { thing })) = ThingCommand::parse("get", &args) else {
            panic!("get parses")
        };
        assert_eq!(thing, "7");
        assert!(matches!(
            ThingCommand::parse("list", &args),
            Some(Ok(ThingCommand::List))
        ));
        assert!(ThingCommand::parse("publish", &args).is_none());
        let Some(Err(missing)) = ThingCommand::parse("create", &args) else {
            panic!("create lacks its parameters")
        };
        assert_eq!(missing, ["type", "name"]);
        let args = Args {
            name: Some("n".into()),
            ..Args::default()
        };
        let Some(Err(missing)) = ThingCommand::parse("create", &args) else {
            panic!("create lacks its type")
        };
        assert_eq!(missing, ["type"]);
    }

    #[test]
    fn each_variant_carries_its_verb() {
        let words: Vec<&str> = ThingCommand::VERBS.iter().map(|v| v.word).collect();
        assert_eq!(words, ["list", "get", "create", "delete", "archive"]);
        assert!(ThingCommand::List.verb().lists);
        let delete = ThingCommand::Delete { thing: "1".into() };
        assert!(delete.verb().confirmed && !delete.verb().reads);
        assert_eq!(ThingCommand::Archive.verb().refused, Some("no archive"));
        assert_eq!(ThingCommand::required(), ["thing", "type", "name"]);
    }

    #[test]
    fn a_tool_outside_the_engine_parses_and_confirms_the_same_way() {
        let args = Args::default();
        let Err(CallError::Arguments(message)) =
            parse::<ThingCommand>("things-edit", "create", &args)
        else {
            panic!("create lacks its parameters")
        };
        assert_eq!(message, "create needs type and name");
        let Err(CallError::Arguments(message)) =
            parse::<ThingCommand>("things-edit", "publish", &args)
        else {
            panic!("an unknown word")
        };
        assert_eq!(message, "things-edit has no action 'publish'");
        assert!(unconfirmed::<ThingCommand, ()>("things-edit", "delete", Some(true)).is_none());
        assert!(unconfirmed::<ThingCommand, ()>("things-edit", "get", None).is_none());
        let Some(Ok(crate::contract::Outcome::Control(control))) =
            unconfirmed::<ThingCommand, ()>("things-edit", "delete", None)
        else {
            panic!("an unconfirmed delete is cancelled")
        };
        assert_eq!(control.outcome(), "cancelled");
    }
}
