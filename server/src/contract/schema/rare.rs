//! C5: which of the `state` keys a tool declares, beyond those every tool of its face has.

/// The `state` keys not every tool of a class writes (C5): a tool that never writes one does
/// not declare it, since a key it cannot emit tells a client nothing. `returned`, `total` and
/// `complete` (coverage) and `status` (post-condition) are declared by every tool of the face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RareState {
    /// `searched` (coverage): the tool walks a corpus and says how big it was.
    pub searched: bool,
    /// `page` and `per_page` (coverage): the tool answers one page of an API list, with the
    /// API's `meta`.
    pub paged: bool,
    /// `published` (post-condition): the tool writes members that say whether they are
    /// published, and reads it back.
    pub published: bool,
    /// `live_version` (post-condition): the tool publishes and reads the live version back.
    pub live_version: bool,
    /// `pending` (post-condition): the tool queues work that may still be running.
    pub pending: bool,
    /// `affected` (post-condition): the tool counts the entities one call wrote.
    pub affected: bool,
}

impl RareState {
    const NONE: RareState = RareState {
        searched: false,
        paged: false,
        published: false,
        live_version: false,
        pending: false,
        affected: false,
    };
    /// Writes `searched`.
    pub const SEARCHED: RareState = RareState {
        searched: true,
        ..RareState::NONE
    };
    /// Writes `page` and `per_page`.
    pub const PAGED: RareState = RareState {
        paged: true,
        ..RareState::NONE
    };
    /// Writes `published`.
    pub const PUBLISHED: RareState = RareState {
        published: true,
        ..RareState::NONE
    };
    /// Writes `live_version`.
    pub const LIVE_VERSION: RareState = RareState {
        live_version: true,
        ..RareState::NONE
    };
    /// Writes `pending`.
    pub const PENDING: RareState = RareState {
        pending: true,
        ..RareState::NONE
    };
    /// Writes `affected`.
    pub const AFFECTED: RareState = RareState {
        affected: true,
        ..RareState::NONE
    };

    /// Every key either declaration writes.
    pub const fn union(self, other: RareState) -> RareState {
        RareState {
            searched: self.searched || other.searched,
            paged: self.paged || other.paged,
            published: self.published || other.published,
            live_version: self.live_version || other.live_version,
            pending: self.pending || other.pending,
            affected: self.affected || other.affected,
        }
    }
}
