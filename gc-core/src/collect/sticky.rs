//! Young cycles (sticky marks): which concurrent cycles leave the survivors of the
//! last cycle alone, and where those survivors end.
//!
//! A compaction slides every survivor to the bottom of the moving space, end to
//! end, so after a cycle the region `[base, old_end)` holds exactly its survivors,
//! the *old* objects; what mutators allocate afterwards lies above. A young cycle
//! takes every old object as live, without tracing the graph among them: one pass
//! over the old region ([`MarkCtx::scan_old_region`]) marks what old objects
//! reference outside it, and tracing never enters the region. The old region
//! has two parts: the *stable* part, the old region of the last cycle if that
//! was young (its objects did not move: their mark and live bits are kept from
//! that cycle, and the pass reads only the objects on cards mutators wrote,
//! `old_cards.rs`), and the *newly placed* part above it, the survivors the
//! last compaction moved (read whole, its bits set). The old garbage among them
//! (objects that died since they were promoted) floats until the next full
//! cycle; everything else (plan, flip, compaction, weak references, the
//! verifier) sees an ordinary marking, in which the old region is simply all
//! live. As in MMTk's sticky Immix and ART's sticky concurrent mark-sweep, the
//! survivors stay marked, and a card table (`cards.rs`) records where
//! references were stored.
//!
//! Invariants:
//! 1. **The old region is contiguous objects.** `old_end` is set from a plan's
//!    live words (`base + 8 * live_words`: every survivor's new address is `base`
//!    plus the live words below it) and used by the next cycle only, after that
//!    plan's compaction has produced every page below it; nothing is allocated
//!    below the top a cycle leaves (the black region's slide and mutators'
//!    buffers lie above `old_end`). Mutators may store into old objects' fields,
//!    never change their headers' type or length.
//! 2. **Every object reachable in the snapshot is marked** (the SATB argument of
//!    `concurrent_mark.rs` with one more kind of root): a path from a root to a
//!    young object either avoids the old region, and is traced, or leaves it
//!    last through a field of an old object, which the pass reads, or whose old
//!    value the write barrier logged when a mutator overwrote it first.
//! 3. **No reference dangles.** Every old object is live to the collection, dead
//!    or not, and its referents are marked: so every reference the compaction
//!    forwards has a new address, and no old garbage points into freed memory.
//! 4. **Full cycles come often enough.** Explicit collections and collections for
//!    a full heap (`Driver::full_wanted`) are full, so an `OutOfMemory` error still
//!    follows a full collection; so is any cycle once the old region has grown by
//!    [`GROWTH_DIVISOR`]'s share of the room the last full cycle left under the
//!    soft limit (the capacity, unless the heap is growable: the limit follows
//!    the live bytes, old garbage included, and would otherwise ratchet up with
//!    it), or after [`MAX_YOUNG_IN_A_ROW`] young ones, and the first cycle of a
//!    heap.
//! 5. **Every reference out of the stable part is on a card the pass reads.**
//!    At the mark-start pause of a young cycle, every field of the stable part
//!    that holds a reference to an object outside the (new) old region lies on a
//!    card that is dirty in the table or was dirty at the last sweep (the end of
//!    the last cycle). By induction over the cycles: such a reference was stored
//!    since the last cycle's pause (the store's card mark is after it, and only
//!    the sweep clears cards, swapping a dirty card into the swept set), or it
//!    was there at that pause, on a card the last cycle read (dirty, swept or
//!    newly placed): then its referent was either marked below that cycle's
//!    boundary, so it is old now, or black or large, and the pass put the card's
//!    mark back. The pass reads the cards after the pause, which orders every
//!    store and card mark before it (the safepoint hand-off); the next pause
//!    comes after the sweep (the driver claims no cycle until the last one is
//!    done). The compaction relies on the same cards: a dense page of the stable
//!    part whose cards are clean holds no reference to anything that moves.
//! 6. **The kept bits are exact.** After a young cycle, the mark and live bits
//!    of its old region are kept (`Tables::hand_back` clears from there on), and
//!    they are right for the next cycle's stable part, which is that region, in
//!    place. A full cycle clears them before it marks
//!    (`CollectorState::forget_kept_bits`).
//!
//! The one-pause cycle (`full.rs`) is always full and forgets the old region.
//!
//! [`MarkCtx::scan_old_region`]: super::mark::MarkCtx::scan_old_region

use crate::mem::WORD;

/// A full cycle once the old region has grown past the last full cycle's live
/// bytes by the room that cycle left (the soft limit now minus those bytes) divided
/// by this.
pub const GROWTH_DIVISOR: usize = 4;

/// Young cycles in a row after which the next is full, so that old garbage, old
/// finalizable objects and weak references to old objects are dealt with within
/// a bounded number of cycles.
pub const MAX_YOUNG_IN_A_ROW: u32 = 16;

/// What young cycles remember between cycles (in the collector's state, under its
/// lock; read and written by the GC driver only).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sticky {
    /// Where the last cycle's survivors end (absolute address); 0 when no cycle
    /// left a usable old region (none yet, or a one-pause cycle).
    pub old_end: usize,
    /// Bytes the last full cycle found live.
    pub full_live: usize,
    /// Young cycles since the last full one.
    pub young_in_a_row: u32,
    /// Words from the base of the *stable* part of the old region: the old
    /// region of the last cycle if it was young (those objects did not move,
    /// and their mark and live bits and cards carry over: invariants 5 and 6);
    /// 0 after a full cycle, when every old object is newly placed.
    pub stable_words: usize,
}

impl Sticky {
    /// The old end for the cycle about to mark, or `None` for a full cycle: young
    /// cycles are on (`enabled`), the driver does not want this cycle full, there is
    /// an old region, and it is small enough (invariant 4). `base` is the moving
    /// space's, `limit` its soft limit.
    pub fn young_old_end(
        &self,
        enabled: bool,
        full_wanted: bool,
        base: usize,
        limit: usize,
    ) -> Option<usize> {
        if !enabled || full_wanted || self.old_end <= base {
            return None;
        }
        if self.young_in_a_row >= MAX_YOUNG_IN_A_ROW {
            return None;
        }
        let room = limit.saturating_sub(self.full_live);
        let grown = (self.old_end - base).saturating_sub(self.full_live);
        (grown <= room / GROWTH_DIVISOR).then_some(self.old_end)
    }

    /// The bitmap words the tables keep set from one cycle to the next (the
    /// stable part of the next cycle's old region: invariant 6).
    pub fn kept_words(&self) -> usize {
        self.stable_words
    }

    /// Notes a planned cycle (`young` or full) whose survivors are `live_words`
    /// words: after its compaction they are the old region of the next cycle.
    pub fn planned(&mut self, young: bool, base: usize, live_words: usize) {
        self.stable_words = if young {
            (self.old_end - base) / WORD
        } else {
            0
        };
        self.old_end = base + live_words * WORD;
        if young {
            self.young_in_a_row += 1;
        } else {
            self.young_in_a_row = 0;
            self.full_live = live_words * WORD;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: usize = 1 << 30;
    const CAP: usize = 1 << 30;

    #[test]
    fn the_first_cycle_and_wanted_ones_are_full() {
        let s = Sticky::default();
        assert_eq!(s.young_old_end(true, false, BASE, CAP), None);
        let mut s = Sticky::default();
        s.planned(false, BASE, 1000);
        assert_eq!(s.young_old_end(true, false, BASE, CAP), Some(BASE + 8000));
        assert_eq!(s.young_old_end(true, true, BASE, CAP), None);
        assert_eq!(s.young_old_end(false, false, BASE, CAP), None);
    }

    #[test]
    fn growth_and_a_run_of_young_cycles_make_a_full_one() {
        let mut s = Sticky::default();
        let live = 100 << 20;
        s.planned(false, BASE, live / WORD);
        // Room left: 924 MiB; a quarter of it is 231 MiB of growth.
        s.planned(true, BASE, (live + (231 << 20)) / WORD);
        assert!(s.young_old_end(true, false, BASE, CAP).is_some());
        s.planned(true, BASE, (live + (232 << 20)) / WORD);
        assert_eq!(s.young_old_end(true, false, BASE, CAP), None);
        // A full cycle resets both the growth and the run.
        s.planned(false, BASE, live / WORD);
        for _ in 0..MAX_YOUNG_IN_A_ROW {
            assert!(s.young_old_end(true, false, BASE, CAP).is_some());
            s.planned(true, BASE, live / WORD);
        }
        assert_eq!(s.young_old_end(true, false, BASE, CAP), None);
    }
}
