//! What a cycle gives back: the moving space's new top and bookkeeping, from-space's
//! memory (kept populated for the next cycle, or released), the side tables,
//! cleared, to the collector state, and the memory of dead large objects (after
//! the pause that swept them).

use super::bitmap::Bitmap;
use super::heap_inner::HeapInner;
use super::CollectorState;
use crate::space::los::Dead;
use crate::space::moving::{FromSpace, MovingSpace};

/// The side tables a cycle works with, out of the collector state meanwhile.
pub struct Tables {
    /// Header bits.
    pub mark: Bitmap,
    /// Live-word bits.
    pub live: Bitmap,
    /// Per compacted page: covering object and offset.
    pub page_first: Vec<(usize, usize)>,
    /// The prefix sums' memory, once the compaction is done with it.
    pub live_before: Vec<u64>,
}

impl Tables {
    /// Takes the tables out of `st` (leaving empty ones).
    pub fn take(st: &mut CollectorState) -> Tables {
        Tables {
            mark: std::mem::replace(&mut st.mark, Bitmap::new(0)),
            live: std::mem::replace(&mut st.live, Bitmap::new(0)),
            page_first: std::mem::take(&mut st.page_first),
            live_before: std::mem::take(&mut st.live_before),
        }
    }

    /// Clears the bits of words `kept .. top_word`, where `kept` is what the
    /// next young cycle takes as marked already (`sticky.rs`, invariant 6:
    /// [`Sticky::kept_words`](super::sticky::Sticky::kept_words)), and puts the
    /// tables back.
    pub fn hand_back(mut self, st: &mut CollectorState, top_word: usize) {
        let kept = st.sticky.kept_words();
        self.mark.clear_from(kept, top_word);
        self.live.clear_from(kept, top_word);
        st.mark = self.mark;
        st.live = self.live;
        st.page_first = self.page_first;
        st.live_before = self.live_before;
    }
}

/// The moving space after a collection: objects end at `new_top`, of which
/// `live_bytes` were found live by marking (the rest was allocated during it), and
/// memory up to `dirty_end` may hold garbage (invariant Z).
pub fn reset_space(space: &mut MovingSpace, new_top: usize, live_bytes: usize, dirty_end: usize) {
    let base = space.base();
    space.set_top(new_top);
    space.dirty_end = dirty_end.max(new_top).min(space.end());
    space.allocated_since_gc = 0;
    space.kept_by_last_gc = new_top - base;
    space.live_by_last_gc = live_bytes;
}

/// From-space after a compaction in the pause: its first `populated` bytes are
/// present pages; kept for the next cycle (recycling) or released.
pub fn from_space(from: &mut FromSpace, recycle: bool, populated: usize) {
    if recycle {
        from.populated = populated;
    } else {
        if populated > 0 {
            from.span.release(0, populated).expect("release from-space");
        }
        from.populated = 0;
    }
}

/// Gives dead large objects' memory back, then their ranges to the large-object
/// space. Called by the collecting thread right after the pause that swept them:
/// freeing the pages takes time in proportion to their size (about 1 ms for a few
/// MiB in the churn soak, when it ran inside the flip pause), and it needs no lock;
/// the space's lock is held only to put the ranges back.
pub fn large_objects(inner: &HeapInner, dead: Dead) {
    if dead.count() == 0 {
        return;
    }
    let ranges = dead.free();
    inner.los.lock().reuse(ranges);
}
