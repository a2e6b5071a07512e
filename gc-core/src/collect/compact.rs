//! Compaction: the per-page plan, and producing to-space pages from from-space.
//!
//! After the flip, the old heap image is in from-space (read-only from here on) and
//! the heap range is to-space. Live objects keep their order and slide down, so
//! to-space is one contiguous run of live objects; page `p` starts inside (or at)
//! the object recorded in `page_first[p]`. Filling a page copies the words that land
//! in it and rewrites every reference field to its referent's new address
//! ([`Forwarding`]). Pages are independent: any order, any thread (and later, on
//! demand from a userfaultfd fault).

use super::bitmap::Bitmap;
use super::forward::Forwarding;
use crate::mem::{self, WORD};
use crate::object::{Header, TypeRegistry};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Builds `page_first`: for each to-space page (`page_words` words), the from-space
/// word index of the object covering its first word and the offset into it.
/// Returns the number of live objects in the moving space.
pub fn plan_pages(
    mark: &Bitmap,
    types: &TypeRegistry,
    base: usize,
    top_word: usize,
    page_words: usize,
    live_words: usize,
    out: &mut Vec<(usize, usize)>,
) -> usize {
    out.clear();
    out.resize(live_words.div_ceil(page_words), (0, 0));
    let mut new: usize = 0; // to-space word index of the current object
    let mut objects = 0;
    mark.for_each_set(0, top_word, |w| {
        // SAFETY: marked objects are below the top, their headers mapped (the plan
        // runs before the flip, on the heap itself).
        let h = Header(unsafe { mem::load(base + w * WORD) });
        let size = types
            .object_words(h)
            .expect("marked object has a valid header");
        // Pages whose first word falls in [new, new + size).
        let mut p = new.div_ceil(page_words);
        while p * page_words < new + size {
            out[p] = (w, p * page_words - new);
            p += 1;
        }
        new += size;
        objects += 1;
    });
    debug_assert_eq!(new, live_words);
    objects
}

/// Where compaction reads and writes.
pub struct FillCtx<'a> {
    /// Object shapes.
    pub types: &'a TypeRegistry,
    /// Header bits (over from-space word indices).
    pub mark: &'a Bitmap,
    /// Live-word bits.
    pub live: &'a Bitmap,
    /// New addresses.
    pub fwd: &'a Forwarding,
    /// The per-page plan.
    pub page_first: &'a [(usize, usize)],
    /// Heap (to-space) base.
    pub base: usize,
    /// From-space base (holds the old heap image).
    pub from: usize,
    /// Old allocation top as a word index (objects lie below).
    pub top_word: usize,
    /// Live words (the compacted size).
    pub live_words: usize,
    /// Words per page.
    pub page_words: usize,
    /// Moving space end (references at or above are large objects).
    pub end: usize,
}

impl FillCtx<'_> {
    /// The new address of the object (or large object) at old address `v`.
    #[inline]
    pub fn forward(&self, v: usize) -> usize {
        if (self.base..self.end).contains(&v) {
            self.base + WORD * self.fwd.new_index(self.live, (v - self.base) / WORD)
        } else {
            v
        }
    }

    /// Produces to-space page `p`.
    pub fn fill_page(&self, p: usize) {
        let first_word = p * self.page_words;
        let end_word = (first_word + self.page_words).min(self.live_words);
        let (mut obj, mut off) = self.page_first[p];
        let mut at = first_word;
        while at < end_word {
            let src = self.from + obj * WORD;
            // SAFETY: `obj` is a marked object: its header is in from-space (mapped,
            // read-only during compaction).
            let h = Header(unsafe { mem::load(src) });
            let size = self.types.object_words(h).expect("valid header");
            let n = (size - off).min(end_word - at);
            let dst = self.base + at * WORD;
            // SAFETY: [src+off, +n) lies in this object in from-space; [dst, +n) in this
            // page of to-space, written by this call only (pages are disjoint).
            unsafe { mem::copy_words(src + off * WORD, dst, n) };
            self.types.for_each_ref_field(h, |field| {
                let k = field + 1; // word index in the object
                if (off..off + n).contains(&k) {
                    let slot = dst + (k - off) * WORD;
                    // SAFETY: `slot` is in this page, just written.
                    let v = unsafe { mem::load(slot) } as usize;
                    if v != 0 {
                        // SAFETY: as above.
                        unsafe { mem::store(slot, self.forward(v) as u64) };
                    }
                }
            });
            at += n;
            if at < end_word {
                obj = self
                    .mark
                    .next_set(obj + size, self.top_word)
                    .expect("live data continues");
                off = 0;
            }
        }
    }

    /// Produces every to-space page with `workers` threads.
    pub fn fill_all(&self, workers: usize) {
        let pages = self.page_first.len();
        if workers <= 1 || pages < 64 {
            (0..pages).for_each(|p| self.fill_page(p));
            return;
        }
        const BATCH: usize = 16;
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let start = next.fetch_add(BATCH, Ordering::Relaxed);
                    if start >= pages {
                        return;
                    }
                    (start..(start + BATCH).min(pages)).for_each(|p| self.fill_page(p));
                });
            }
        });
    }
}
