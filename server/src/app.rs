//! The state shared by every call: configuration, the platform identity, the Modyo client,
//! and the registry of the background jobs this instance started.

use crate::config::Config;
use crate::contract::Platform;
use crate::modyo::{ModyoClient, SetupError};
use crate::tools::content::jobs::JobRegistry;

/// Shared by every call of one server instance.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) config: Config,
    pub(crate) platform: Platform,
    pub(crate) client: Option<ModyoClient>,
    /// Jobs started by `content-entries-bulk`, read by `content-jobs-manage list`.
    pub(crate) jobs: JobRegistry,
}

impl App {
    pub(crate) fn new(config: Config) -> Result<App, SetupError> {
        let platform = Platform::new(config.url.as_ref(), config.platform_name.as_deref());
        let client = match (&config.url, &config.token) {
            (Some(url), Some(token)) => Some(ModyoClient::new(url, token, config.timeout)?),
            _ => None,
        };
        Ok(App {
            config,
            platform,
            client,
            jobs: JobRegistry::default(),
        })
    }
}
