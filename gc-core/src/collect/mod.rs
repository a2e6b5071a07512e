//! The collection pipeline, in order: [`mark`] (parallel, work-stealing) ->
//! [`forward`] (prefix sums: every live object's new address) -> [`compact`] (the
//! per-page plan, then every to-space page produced from from-space) -> [`cycle`]
//! (the driver: the pause, its phases and the flip) -> [`verify`].

pub mod bitmap;
pub mod compact;
pub mod cycle;
pub mod forward;
pub mod mark;
pub mod verify;

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
