//! The state shared by every call: configuration, the platform identity, the Modyo client,
//! the token scrubber, and what tools keep between calls ([`ToolState`]).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::config::Config;
use crate::contract::Platform;
use crate::modyo::{ModyoClient, SetupError};
use crate::scrub::Scrubber;

/// Shared by every call of one server instance.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) config: Config,
    pub(crate) platform: Platform,
    pub(crate) client: Option<ModyoClient>,
    /// Scrubs the token from every answer (upstream may echo it).
    pub(crate) scrubber: Scrubber,
    /// What tools keep between calls of this instance (content's registry of the jobs it
    /// started), each kind of its own module's type.
    pub(crate) state: ToolState,
}

impl App {
    pub(crate) fn new(config: Config) -> Result<App, SetupError> {
        let platform = Platform::new(config.url.as_ref(), config.platform_name.as_deref());
        let client = match (&config.url, &config.token) {
            (Some(url), Some(token)) => Some(
                ModyoClient::new(url, token, config.timeout)?.max_body_bytes(config.max_body_bytes),
            ),
            _ => None,
        };
        let scrubber = Scrubber::for_token(config.token.as_ref());
        Ok(App {
            config,
            platform,
            client,
            scrubber,
            state: ToolState::default(),
        })
    }
}

/// State that tools keep between calls of one server instance, one value per type, created
/// on first use. The instance owns it, so two servers in one process never share it, and the
/// type that holds it lives with the tools that use it (App names none of them).
#[derive(Default)]
pub(crate) struct ToolState(Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl ToolState {
    /// The instance's `T`, created empty on first use.
    pub(crate) fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        // A panic elsewhere while the map was held leaves it whole: insertions are atomic.
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let entry = map
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        match Arc::clone(entry).downcast::<T>() {
            Ok(state) => state,
            // The map is keyed by the type: an entry always holds its own type.
            Err(_) => Arc::new(T::default()),
        }
    }
}

impl std::fmt::Debug for ToolState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds = self.0.lock().map_or(0, |map| map.len());
        write!(f, "ToolState({kinds} kinds)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Default)]
    struct Counter(AtomicUsize);

    #[test]
    fn each_kind_is_created_once_per_instance() {
        let (one, two) = (ToolState::default(), ToolState::default());
        one.get::<Counter>().0.fetch_add(1, Ordering::SeqCst);
        one.get::<Counter>().0.fetch_add(1, Ordering::SeqCst);
        assert_eq!(one.get::<Counter>().0.load(Ordering::SeqCst), 2);
        assert_eq!(two.get::<Counter>().0.load(Ordering::SeqCst), 0);
    }
}
