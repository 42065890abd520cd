//! The state shared by every call: configuration, the platform identity, the Modyo client,
//! the token scrubber, and the registry of the background jobs this instance started.

use crate::config::Config;
use crate::contract::Platform;
use crate::modyo::{ModyoClient, SetupError};
use crate::scrub::Scrubber;
use crate::tools::content::jobs::JobRegistry;

/// Shared by every call of one server instance.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) config: Config,
    pub(crate) platform: Platform,
    pub(crate) client: Option<ModyoClient>,
    /// Scrubs the token from every answer (upstream may echo it).
    pub(crate) scrubber: Scrubber,
    /// Jobs started by `content-entries-bulk`, read by `content-jobs-manage list`.
    pub(crate) jobs: JobRegistry,
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
            jobs: JobRegistry::default(),
        })
    }
}
