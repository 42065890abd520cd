//! The state shared by every call: configuration, the platform identity, the Modyo client.

use crate::config::Config;
use crate::contract::Platform;
use crate::modyo::{ModyoClient, SetupError};

/// Shared by every call of one server instance.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) config: Config,
    pub(crate) platform: Platform,
    pub(crate) client: Option<ModyoClient>,
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
        })
    }
}
