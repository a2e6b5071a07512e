//! The collector's side of the card table (`cards.rs`): which cards of the old
//! region a young cycle reads (`sticky.rs`, invariant 5), and where objects
//! start on them.
//!
//! - **The sweep** ([`OldCards::sweep`]), at the end of every concurrent cycle,
//!   after its compaction, mutators running: every card of the next cycle's old
//!   region is cleared by an atomic swap of its table word, and the cards of its
//!   stable part (the objects that did not move) that were dirty are remembered
//!   in [`OldCards`]' swept set. A mutator's mark lands before the swap (then it
//!   is in the set) or after it (then the card is dirty in the table): none is
//!   lost.
//! - **The next young cycle** reads, after its mark-start pause, the stable
//!   part's cards that are in the swept set or dirty in the table now; every
//!   store before that pause has its card in one or the other, and its field
//!   value visible to the read (the pause's hand-off). It reads the rest of the
//!   old region, the objects the last compaction placed, whole.
//! - **Object starts per card** (`starts`): the word offset from the base of the
//!   object that covers each card's first word, written when a young cycle reads
//!   a newly placed object and kept while the object stays (it does, through
//!   young cycles, until a full one moves everything). A dirty card is read from
//!   that object to the card's end.

use crate::cards::{CardTable, CARD_WORDS};
use std::sync::atomic::{AtomicU32, Ordering};

/// Young cycles' card bookkeeping (in the collector state, under its lock).
pub struct OldCards {
    /// One bit per card: dirty at the last sweep (the cards of the stable part
    /// of the next old region only).
    swept: Vec<u64>,
    /// Per card, the word offset from the base of the object covering the
    /// card's first word (valid for the cards of the stable part).
    starts: Box<[AtomicU32]>,
}

impl OldCards {
    /// Bookkeeping for `cards` cards, all clean, no starts known.
    pub fn new(cards: usize) -> OldCards {
        OldCards {
            swept: vec![0; cards.div_ceil(64)],
            starts: zeroed_u32s(cards),
        }
    }

    /// Whether offsets from the base, in words, fit the starts table (moving
    /// spaces under 32 GiB); larger heaps read the whole old region.
    pub fn usable(words: usize) -> bool {
        u32::try_from(words).is_ok()
    }

    /// The sweep after a compaction: clears the cards `0 .. old_cards` (the
    /// next cycle's old region) in `table`, and remembers which of the first
    /// `stable_cards` were dirty. Runs on the GC driver while mutators run.
    pub fn sweep(&mut self, table: &CardTable, stable_cards: usize, old_cards: usize) {
        self.swept.fill(0);
        for w in 0..old_cards.div_ceil(8).min(table.len().div_ceil(8)) {
            if table.word(w) == 0 {
                continue;
            }
            let v = table.take_word(w);
            for b in 0..8 {
                let card = 8 * w + b;
                if card < stable_cards && (v >> (8 * b)) & 0xff != 0 {
                    self.swept[card / 64] |= 1 << (card % 64);
                }
            }
        }
    }

    /// Whether card `card` was dirty at the last sweep.
    pub fn swept(&self, card: usize) -> bool {
        self.swept
            .get(card / 64)
            .is_some_and(|w| w & (1 << (card % 64)) != 0)
    }

    /// The swept bits of cards `8 * w .. 8 * w + 8` (bit `b` for card `8w + b`),
    /// as [`CardTable::word`] gives their table bytes.
    pub fn swept_byte(&self, w: usize) -> u64 {
        self.swept
            .get(w / 8)
            .map_or(0, |x| (x >> (8 * (w % 8))) & 0xff)
    }

    /// The word offset of the object covering card `card`'s first word.
    pub fn start(&self, card: usize) -> usize {
        self.starts[card].load(Ordering::Relaxed) as usize
    }

    /// The pages among the first `pages` (of `page_words` words) that lie below
    /// `stable_end` (a word offset) and have no card in the swept set: one bit
    /// per page ([`Dense::clean`](super::plan::Dense::clean)).
    pub fn clean_pages(&self, pages: usize, page_words: usize, stable_end: usize) -> Vec<u64> {
        let mut clean = vec![0u64; pages.div_ceil(64)];
        let per_page = page_words.div_ceil(CARD_WORDS);
        for p in 0..pages.min(stable_end / page_words) {
            let first = p * page_words / CARD_WORDS;
            if (first..first + per_page).all(|c| !self.swept(c)) {
                clean[p / 64] |= 1 << (p % 64);
            }
        }
        clean
    }

    /// Notes an object at word offset `word` of `words` words: it covers the
    /// first word of every card that starts inside it. Relaxed: the table is
    /// written by the one marker that reads the old region and read by later
    /// cycles on the driver, after the collector lock's hand-offs.
    pub fn note_object(&self, word: usize, words: usize) {
        let mut card = word.div_ceil(CARD_WORDS);
        while card * CARD_WORDS < word + words {
            self.starts[card].store(word as u32, Ordering::Relaxed);
            card += 1;
        }
    }
}

/// `n` zeroed `AtomicU32`s, committed as they are first written.
fn zeroed_u32s(n: usize) -> Box<[AtomicU32]> {
    if n == 0 {
        return Box::new([]);
    }
    let layout = std::alloc::Layout::array::<AtomicU32>(n).expect("card starts size");
    // The box owns the block (global allocator, this layout, as `Box` frees it).
    // SAFETY: `layout` has a nonzero size; all-zero bytes are a valid
    // `AtomicU32`, so the zeroed block is `n` initialised values.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<AtomicU32>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::CARD_BYTES;

    #[test]
    fn the_sweep_remembers_the_stable_cards_and_clears_all() {
        let t = CardTable::new(100 * CARD_BYTES);
        let mut o = OldCards::new(t.len());
        for c in [1, 9, 40, 70, 90] {
            t.dirty(c);
        }
        o.sweep(&t, 40, 80);
        assert!(o.swept(1) && o.swept(9));
        assert!(!o.swept(40) && !o.swept(70) && !o.swept(2));
        for c in [1, 9, 40, 70] {
            assert!(!t.is_dirty(c), "card {c} left dirty");
        }
        // Beyond the next old region: untouched.
        assert!(t.is_dirty(90));
    }

    #[test]
    fn an_object_covers_the_cards_that_start_inside_it() {
        let o = OldCards::new(8);
        o.note_object(0, CARD_WORDS + 1);
        o.note_object(CARD_WORDS + 1, 3 * CARD_WORDS);
        assert_eq!(o.start(0), 0);
        assert_eq!(o.start(1), 0);
        assert_eq!(o.start(2), CARD_WORDS + 1);
        assert_eq!(o.start(4), CARD_WORDS + 1);
        assert_eq!(o.start(5), 0, "past the last object: not written");
    }
}
