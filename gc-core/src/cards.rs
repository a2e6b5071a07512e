//! The card table (spaces layer; the mark itself, `Mutator::card_mark`, is the
//! mutator API's, in `barrier.rs`): one byte per [`CARD_BYTES`] of the moving
//! space, set by the mutator after every reference store into a moving-space object (the card
//! mark, a second part of the write barrier after the SATB log of
//! `barrier.rs`), read and cleared by the collector, which uses it to find the
//! old objects a young cycle must read (`collect/sticky.rs`).
//!
//! - **The mark** (`Mutator::card_mark`): the slot's offset from the moving
//!   space's base, one unsigned compare against its capacity (a large object's
//!   slot is outside, and takes no mark), and one relaxed byte store of
//!   [`DIRTY`] at `cards + (offset >> CARD_SHIFT)`. No fence and no load of the
//!   card first. The base, capacity and table address are reloaded from the
//!   mutator after the store (it is not `Freeze`, so the compiler cannot keep
//!   them across the release store): L1 hits, cheaper than holding three more
//!   registers across the store, which spills the callers' loop state (tried:
//!   taking the card before the store, on the object's address, added a dozen
//!   instructions and three stack spills to the `set_ref` loop).
//! - **The value filter.** A store of null or an immediate (a word that fails
//!   [`is_ref`](crate::object::is_ref)) takes no mark. Sound because every collector path that reads
//!   a reference slot (the old-region pass, the compaction's forwarding, the
//!   verifier) asks [`is_ref`](crate::object::is_ref) first and ignores such a word: a field holding
//!   one needs no card (`collect/sticky.rs`, invariant 5 is about fields that
//!   hold references). Whatever the field held before is covered as without
//!   the filter: its card was marked by the store that put it there (or kept
//!   by the last pass), and the SATB barrier logged it if marking runs. Every
//!   store of a reference is marked, whatever it refers to: an old referent
//!   may be forwarded by a full cycle's compaction, a large or black one has
//!   its card put back by the pass, so no range of referents is filtered.
//! - **The store protocol.** Every store of a reference (or of any word into a
//!   slot that may hold one) into a moving-space object marks the card of the
//!   *slot* (not of the object's header) after the store, before the mutator's
//!   next GC point. Generated code must do the same (`jit.rs`,
//!   docs/embedding.md).
//! - **Why a relaxed store is enough.** The collector reads the cards only after
//!   a stop (a pause) that every mutator has passed since the stores it must see,
//!   and it reads the stored fields only after such a stop too: the safepoint
//!   hand-off (a lock release by the mutator, an acquire by the collector) makes
//!   both the field store and the card store visible, in whichever order the CPU
//!   made them globally visible. A card cleared by the collector concurrently is
//!   cleared with an atomic swap, so a mark lands either before it (the swap
//!   reads [`DIRTY`] and the collector keeps the card on its list) or after it
//!   (the card stays dirty): none is lost (`collect/sticky.rs`, invariant 5).

use crate::mem::WORD;
use std::sync::atomic::{AtomicU8, Ordering};

/// log2 of [`CARD_BYTES`].
pub const CARD_SHIFT: u32 = 9;
/// Bytes of moving space per card (512, as in HotSpot).
pub const CARD_BYTES: usize = 1 << CARD_SHIFT;
/// Words per card.
pub const CARD_WORDS: usize = CARD_BYTES / WORD;
/// A card's value after a store into it.
pub const DIRTY: u8 = 1;

/// The card table of one heap's moving space (in `HeapInner`, fixed for its
/// life).
pub struct CardTable {
    /// One byte per card, padded to a multiple of 8. Every access is a byte
    /// access (no wider atomic over the same bytes: mixed-size atomics are
    /// outside Rust's memory model); the collector looks at eight at a time.
    bytes: Box<[AtomicU8]>,
    /// Cards (the moving space's capacity over [`CARD_BYTES`], rounded up).
    len: usize,
}

impl CardTable {
    /// A clean table for a moving space of `capacity` bytes.
    pub fn new(capacity: usize) -> CardTable {
        let len = capacity.div_ceil(CARD_BYTES);
        let n = len.next_multiple_of(8).max(8);
        let layout = std::alloc::Layout::array::<AtomicU8>(n).expect("card table size");
        // `alloc_zeroed` of a large block is a fresh mapping: pages are
        // committed as cards are first written. The box owns the block
        // (global allocator, this layout, as `Box` frees it).
        // SAFETY: `layout` has a nonzero size; all-zero bytes are a valid
        // `AtomicU8`, so the zeroed block is `n` initialised bytes.
        let bytes = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<AtomicU8>();
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n))
        };
        CardTable { bytes, len }
    }

    /// The first card's byte, for mutators' `Mutator::card_mark`.
    pub(crate) fn bytes(&self) -> *const AtomicU8 {
        self.bytes.as_ptr()
    }

    /// How many cards.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no cards (a moving space of capacity 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether card `card` is dirty now (a relaxed load: the caller orders it).
    pub fn is_dirty(&self, card: usize) -> bool {
        self.bytes[card].load(Ordering::Relaxed) != 0
    }

    /// Dirties card `card` (the collector's re-mark of a card that must be read
    /// again next cycle; a relaxed store as the mutators' are).
    pub fn dirty(&self, card: usize) {
        self.bytes[card].store(DIRTY, Ordering::Relaxed);
    }

    /// The eight cards `8 * w .. 8 * w + 8`, one byte each (card `8w + b` in
    /// bits `8b .. 8b + 8`), loaded one by one (relaxed).
    pub fn word(&self, w: usize) -> u64 {
        let mut v = 0;
        for (b, x) in self.bytes[8 * w..8 * w + 8].iter().enumerate() {
            v |= u64::from(x.load(Ordering::Relaxed)) << (8 * b);
        }
        v
    }

    /// Clears the eight cards of word `w` and returns what they held, as
    /// [`CardTable::word`]: each dirty card is cleared by an atomic swap, so a
    /// mutator's mark is either in the value returned or stays in the table.
    pub fn take_word(&self, w: usize) -> u64 {
        let mut v = 0;
        for (b, x) in self.bytes[8 * w..8 * w + 8].iter().enumerate() {
            if x.load(Ordering::Relaxed) != 0 {
                v |= u64::from(x.swap(0, Ordering::Relaxed)) << (8 * b);
            }
        }
        v
    }

    /// The card of address `addr` in a moving space starting at `base`.
    pub fn card_of(base: usize, addr: usize) -> usize {
        (addr - base) >> CARD_SHIFT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_word_returns_and_clears_eight_cards() {
        let t = CardTable::new(64 * CARD_BYTES + 1);
        assert_eq!(t.len(), 65);
        t.dirty(3);
        t.dirty(64);
        assert!(t.is_dirty(3) && !t.is_dirty(4));
        assert_eq!(t.word(0), 1 << 24);
        assert_eq!(t.take_word(0), 1 << 24);
        assert!(!t.is_dirty(3));
        assert_eq!(t.word(8), 1);
    }
}
