//! The response contract (`server/CONTRACT.md`), implemented once so every tool gets it.
//!
//! Where each rule lives:
//! - C1, C3: [`envelope`] (what handlers return) and [`exit`] (the one way out);
//! - C2: [`platform`]; C4: [`resource`]; C5, C6: [`state`] (`complete` in one helper, and
//!   the verdict of a page walk);
//! - C8-C10: [`schema`] (every `outputSchema`), [`validate`] (self-validation);
//! - C16: [`errors`]; C17: [`exit`]; C18: [`control`]; C19: [`class`]; C21: [`legacy`];
//!   C22: [`form`] (the result form the operator chose).

pub mod class;
pub mod control;
pub mod envelope;
pub mod error_form;
pub mod errors;
pub mod exit;
pub mod form;
pub mod legacy;
pub mod platform;
pub mod resource;
pub mod schema;
pub mod state;
pub mod validate;

pub use class::ToolClass;
pub use control::Control;
pub use envelope::{Mode, Outcome, Reply};
pub use error_form::ErrorForm;
pub use errors::{ErrorCode, ToolError};
pub use exit::Invalid;
pub use form::ResultForm;
pub use legacy::Legacy;
pub use platform::Platform;
pub use resource::Resource;
pub use schema::Slots;
pub use state::{Coverage, Evidence, Meta, PostCondition, State, Walk};
pub use validate::OutputValidator;
