//! What the customers copies share: a source realm and a target realm (the same one when no
//! target is given), resolved with one walk of the realms list.

use super::{Realm, resolve_realms};
use crate::contract::ToolError;
use crate::modyo::ModyoClient;

/// The realm a copy reads from and the realm it writes to.
pub(crate) struct Realms {
    /// Where the source lives.
    pub(crate) source: Realm,
    /// Where the copy goes (the source realm unless another was named).
    pub(crate) target: Realm,
}

impl Realms {
    /// Resolves `realm` and, when given, `target`.
    pub(crate) async fn resolve(
        client: &ModyoClient,
        realm: &str,
        target: Option<&str>,
    ) -> Result<Realms, ToolError> {
        let mut inputs = vec![realm];
        inputs.extend(target);
        let mut realms = resolve_realms(client, &inputs).await?.into_iter();
        let Some(source) = realms.next() else {
            return Err(ToolError::not_found("no realm resolved"));
        };
        let target = realms.next().unwrap_or_else(|| source.clone());
        Ok(Realms { source, target })
    }

    /// Whether the copy stays in its source's realm.
    pub(crate) fn same(&self) -> bool {
        self.target.slug == self.source.slug
    }
}
