//! The collection pipeline, in order: [`mark`] (parallel, work-stealing) ->
//! [`forward`] (prefix sums: every live object's new address) -> [`compact`] (the
//! per-page plan, then every to-space page produced from from-space) -> [`cycle`]
//! (the driver of the one-pause cycle) or [`twopause`] (mark pause, plan, flip pause)
//! with [`concurrent`] compaction -> [`verify`].

pub mod bitmap;
pub mod compact;
#[cfg(target_os = "linux")]
pub mod concurrent;
pub mod cycle;
pub mod forward;
pub mod mark;
#[cfg(target_os = "linux")]
pub mod twopause;
pub mod verify;

/// Where the heap is in a collection cycle (see `twopause.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CyclePhase {
    /// No cycle: a collection may start.
    Idle,
    /// Between a concurrent cycle's mark pause and its flip pause.
    Planning,
    /// After the flip pause, until every to-space page is installed.
    Compacting,
}

use bitmap::Bitmap;

/// The collector's side tables, sized for the whole moving space.
pub struct CollectorState {
    /// A bit at each live object's header word.
    pub mark: Bitmap,
    /// A bit at every word of every live object.
    pub live: Bitmap,
    /// Per to-space page: the from-space word index of the object covering the
    /// page's first word, and that word's offset inside it.
    pub page_first: Vec<(usize, usize)>,
}

impl CollectorState {
    /// Tables for a space of `words` words.
    pub fn new(words: usize) -> CollectorState {
        CollectorState {
            mark: Bitmap::new(words),
            live: Bitmap::new(words),
            page_first: Vec::new(),
        }
    }
}
