//! The card table (spaces layer; the mark itself, `Mutator::card_mark`, is the
//! mutator API's, in `barrier.rs`): one byte per [`CARD_BYTES`] of the moving
//! space, set by the mutator after every reference store into a moving-space object (the card
//! mark, a second part of the write barrier after the SATB log of
//! `barrier.rs`), read and cleared by the collector, which uses it to find the
//! old objects a young cycle must read (`collect/sticky.rs`).
//!
//! - **The mark** (`Mutator::card_mark_field`): one load of the mutator's
//!   *biased* table address, a shift of the slot's address, and one relaxed
//!   byte store of [`DIRTY`] at `biased + (slot >> CARD_SHIFT)` (HotSpot's
//!   card mark). No compare, no fence, no load of the card first. The table
//!   covers, at one byte per card, every address from the lower of the moving
//!   space and the large-object space to the higher one's end
//!   ([`CardTable::covering`]), so the slot of any object of the heap has a
//!   byte: a large object's slot marks a card the collector never reads (it
//!   reads the moving space's cards only), and the addresses between the two
//!   spaces are never stored to, so their pages of the table are never
//!   committed. The biased address is reloaded from the mutator after the
//!   field's release store (the mutator is not `Freeze`, so the compiler
//!   cannot keep it across): an L1 hit, cheaper than a register held across
//!   the store. (Before 2026-12-07 the mark subtracted the base and compared
//!   against the capacity, reloading both: `write/set_ref` 1.3x 33b1a5a's,
//!   against about 1.1x with this form, in one run.)
//! - **The value filter.** On the store paths that may store an immediate
//!   (`set_value`, `write_value`, `write_ref`, tails, a model's slots, the
//!   atomics: `Mutator::card_mark`), a store of null or an immediate (a word
//!   that fails [`is_ref`](crate::object::is_ref)) takes no mark; the typed
//!   reference stores (`set_ref`, `set_refs`, the constructors' parent stores:
//!   `Mutator::card_mark_field` directly) mark every store, a null store's mark
//!   costing a card read in vain. Skipping is sound because every collector path that reads
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
/// life), and the bytes mutators' card marks may hit around it.
pub struct CardTable {
    /// One byte per card of the covered range, the moving space's padded to a
    /// multiple of 8. Every access is a byte access (no wider atomic over the
    /// same bytes: mixed-size atomics are outside Rust's memory model); the
    /// collector looks at eight at a time.
    bytes: Box<[AtomicU8]>,
    /// The index in `bytes` of the moving space's first card.
    first: usize,
    /// Cards of the moving space (its capacity over [`CARD_BYTES`], rounded up).
    len: usize,
    /// The card number (`address >> CARD_SHIFT`) of `bytes[0]`.
    lo_card: usize,
}

impl CardTable {
    /// A clean table for a moving space of `capacity` bytes at address 0, with
    /// nothing around it (for tests, and as a placeholder).
    pub fn new(capacity: usize) -> CardTable {
        CardTable::covering(0, capacity, 0..0).expect("a card table for a moving space alone")
    }

    /// A clean table for the moving space `[base, base + capacity)` (`base` a
    /// multiple of [`CARD_BYTES`]) that also has a byte for every card of
    /// `also` (the large-object space) and of whatever lies between the two:
    /// the range mutators' unchecked card marks may hit. Only the pages of the
    /// table that are written are ever committed, but the whole range is
    /// allocated (address space), so an error if it cannot be (for example
    /// under an address-space limit, with the two spaces far apart).
    pub fn covering(
        base: usize,
        capacity: usize,
        also: std::ops::Range<usize>,
    ) -> Result<CardTable, crate::error::GcError> {
        debug_assert_eq!(base % CARD_BYTES, 0);
        let len = capacity.div_ceil(CARD_BYTES);
        let base_card = base >> CARD_SHIFT;
        let mut lo_card = base_card;
        let mut hi_card = base_card + len.next_multiple_of(8).max(8);
        if !also.is_empty() {
            lo_card = lo_card.min(also.start >> CARD_SHIFT);
            hi_card = hi_card.max(((also.end - 1) >> CARD_SHIFT) + 1);
        }
        let n = hi_card - lo_card;
        let refused = || {
            crate::error::GcError::from(flipgc_heap::HeapError::Invalid {
                what: "card table",
                detail: format!(
                    "{n} bytes (one per {CARD_BYTES} bytes from {:#x} to {:#x}, the moving \
                     space and the large-object space) could not be allocated",
                    lo_card << CARD_SHIFT,
                    hi_card << CARD_SHIFT
                ),
            })
        };
        let layout = std::alloc::Layout::array::<AtomicU8>(n).map_err(|_| refused())?;
        // `alloc_zeroed` of a large block is a fresh mapping: pages are
        // committed as cards are first written. The box owns the block
        // (global allocator, this layout, as `Box` frees it).
        // SAFETY: `layout` has a nonzero size; all-zero bytes are a valid
        // `AtomicU8`, so the zeroed block is `n` initialised bytes.
        let bytes = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<AtomicU8>();
            if ptr.is_null() {
                return Err(refused());
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n))
        };
        Ok(CardTable {
            bytes,
            first: base_card - lo_card,
            len,
            lo_card,
        })
    }

    /// The moving space's first card's byte (for generated code,
    /// `Mutator::card_table_addr`).
    pub(crate) fn bytes(&self) -> *const AtomicU8 {
        self.bytes[self.first..].as_ptr()
    }

    /// The *biased* table address, for mutators' card marks: the byte of the
    /// card of any address `a` of the covered range is at `biased() + (a >>
    /// CARD_SHIFT)`. Only an address in that range may be formed from it.
    pub(crate) fn biased(&self) -> usize {
        (self.bytes.as_ptr() as usize).wrapping_sub(self.lo_card)
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
        self.bytes[self.first + card].load(Ordering::Relaxed) != 0
    }

    /// Dirties card `card` (the collector's re-mark of a card that must be read
    /// again next cycle; a relaxed store as the mutators' are).
    pub fn dirty(&self, card: usize) {
        self.bytes[self.first + card].store(DIRTY, Ordering::Relaxed);
    }

    /// The eight cards `8 * w .. 8 * w + 8`, one byte each (card `8w + b` in
    /// bits `8b .. 8b + 8`), loaded one by one (relaxed).
    pub fn word(&self, w: usize) -> u64 {
        let mut v = 0;
        for (b, x) in self.bytes[self.first + 8 * w..self.first + 8 * w + 8]
            .iter()
            .enumerate()
        {
            v |= u64::from(x.load(Ordering::Relaxed)) << (8 * b);
        }
        v
    }

    /// Clears the eight cards of word `w` and returns what they held, as
    /// [`CardTable::word`]: each dirty card is cleared by an atomic swap, so a
    /// mutator's mark is either in the value returned or stays in the table.
    pub fn take_word(&self, w: usize) -> u64 {
        let mut v = 0;
        for (b, x) in self.bytes[self.first + 8 * w..self.first + 8 * w + 8]
            .iter()
            .enumerate()
        {
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

    #[test]
    fn a_covering_table_has_a_byte_for_both_ranges_and_reads_the_moving_space_only() {
        let base = 1 << 30;
        // A large-object range below the moving space, and one above.
        for also in [
            (1 << 28)..(1 << 28) + 8 * CARD_BYTES,
            (3 << 30)..(3 << 30) + 1,
        ] {
            let t = CardTable::covering(base, 64 * CARD_BYTES, also.clone()).unwrap();
            assert_eq!(t.len(), 64);
            let mark = |a: usize| {
                // SAFETY: `a` lies in the covered range (the test's own table).
                unsafe {
                    (*((t.biased() + (a >> CARD_SHIFT)) as *const AtomicU8))
                        .store(DIRTY, Ordering::Relaxed)
                }
            };
            mark(base + 5 * CARD_BYTES + 8);
            mark(also.start);
            mark(also.end - 1);
            assert!(t.is_dirty(5));
            assert_eq!((0..64).filter(|&c| t.is_dirty(c)).count(), 1);
            assert_eq!(t.take_word(0), 1 << 40);
            assert!(!t.is_dirty(5));
            assert_eq!(t.bytes() as usize, t.biased() + (base >> CARD_SHIFT));
        }
    }
}
