//! Forwarding without forwarding pointers (the Compressor's scheme, Kermany and
//! Petrank, PLDI 2006; Android ART's mark-compact uses the same): after marking,
//! every live object's new address is a pure function of the live-words bitmap,
//!
//! ```text
//! new(obj) = base + 8 * ( live_before[chunk(obj)] + popcount(live[chunk(obj)] & below(obj)) )
//! ```
//!
//! where `live_before` is the exclusive prefix sum of live words per chunk. Nothing
//! is written into from-space, so it stays read-only while to-space pages are
//! produced, each independently and in any order.

use super::bitmap::{Bitmap, CHUNK_WORDS};

/// Prefix sums of live words per chunk.
pub struct Forwarding {
    live_before: Vec<u64>,
    total: usize,
}

impl Forwarding {
    /// Sums the live-words bitmap's first `chunks` chunks into `buf` (its contents
    /// are dropped; its memory is reused: see [`Forwarding::into_buffer`]).
    #[cfg(test)]
    pub fn build(live: &Bitmap, chunks: usize, buf: Vec<u64>) -> Forwarding {
        Self::build_counting(live, None, chunks, buf).0
    }

    /// The prefix sums of `live`'s first `chunks` chunks, written into `buf` (its
    /// contents are dropped, its memory reused: [`Forwarding::into_buffer`]), and
    /// the number of bits of `marks` (the live objects' headers) in those chunks,
    /// 0 without. Marks are counted only where a chunk holds live words (a header
    /// is a live word), so the mark bitmap's garbage-only stretches are not read
    /// (at 4 GiB a separate count read 64 MiB in 5-10 ms).
    pub fn build_counting(
        live: &Bitmap,
        marks: Option<&Bitmap>,
        chunks: usize,
        buf: Vec<u64>,
    ) -> (Forwarding, usize) {
        let mut live_before = buf;
        live_before.clear();
        live_before.reserve(chunks + 1);
        let (mut sum, mut objects) = (0u64, 0usize);
        live_before.extend((0..chunks).map(|c| {
            let before = sum;
            let bits = live.chunk(c);
            if bits != 0 {
                sum += u64::from(bits.count_ones());
                if let Some(m) = marks {
                    objects += m.chunk(c).count_ones() as usize;
                }
            }
            before
        }));
        live_before.push(sum);
        let fwd = Forwarding {
            live_before,
            total: sum as usize,
        };
        (fwd, objects)
    }

    /// The prefix sums' memory, for the next [`Forwarding::build_counting`]. At 4 GiB they
    /// take 64 MiB, and faulting a fresh buffer in took most of the 30-50 ms a
    /// plan took there (2026-12-03), all of it time when every allocation is black.
    pub fn into_buffer(self) -> Vec<u64> {
        self.live_before
    }

    /// Live words in all summed chunks: the compacted size.
    pub fn total_live_words(&self) -> usize {
        self.total
    }

    /// Live words in from-space words `[from, to)`, both multiples of
    /// [`CHUNK_WORDS`] within the summed chunks.
    pub fn live_words_in(&self, from: usize, to: usize) -> usize {
        debug_assert!(from % CHUNK_WORDS == 0 && to % CHUNK_WORDS == 0 && from <= to);
        (self.live_before[to / CHUNK_WORDS] - self.live_before[from / CHUNK_WORDS]) as usize
    }

    /// The to-space word index of the live word at from-space word index `word`.
    #[inline]
    pub fn new_index(&self, live: &Bitmap, word: usize) -> usize {
        let c = word / CHUNK_WORDS;
        let below = (1u64 << (word % CHUNK_WORDS)) - 1;
        self.live_before[c] as usize + (live.chunk(c) & below).count_ones() as usize
    }

    /// The word index of the `n`-th live word (from 0; `n` below
    /// [`Forwarding::total_live_words`]), searching from chunk `*chunk` on and
    /// leaving there the chunk it was found in: calls with increasing `n` sharing
    /// one `chunk` walk the prefix sums once, galloping over chunks with no live
    /// word, so planning costs a step per page, not per object.
    pub fn live_word(&self, live: &Bitmap, n: usize, chunk: &mut usize) -> usize {
        debug_assert!(n < self.total);
        let n = n as u64;
        // The chunk holding it: the last `c` with `live_before[c] <= n`.
        let rest = &self.live_before[*chunk..];
        let mut step = 1;
        while step < rest.len() && rest[step] <= n {
            step *= 2;
        }
        let lo = step / 2;
        let hi = step.min(rest.len());
        let c = *chunk + lo + rest[lo..hi].partition_point(|&sum| sum <= n) - 1;
        *chunk = c;
        let mut bits = live.chunk(c);
        for _ in 0..n - self.live_before[c] {
            bits &= bits - 1;
        }
        c * CHUNK_WORDS + bits.trailing_zeros() as usize
    }

    /// The first live word at or after from-space word index `word`, among the
    /// summed chunks (`live` is the bitmap they were summed from). Past `word`'s own
    /// chunk, the prefix sums say which chunk holds the next live word (a binary
    /// search), so a gap of any size costs `O(log chunks)`: a linear scan of the
    /// bitmap over the gigabytes of garbage between the last old objects and the
    /// newest ones took page filling 11 ms for one page at 4 GiB (a mutator
    /// stalled on it in its `SIGBUS` handler).
    pub fn next_live(&self, live: &Bitmap, word: usize) -> Option<usize> {
        let chunks = self.live_before.len() - 1;
        let c = word / CHUNK_WORDS;
        if c >= chunks {
            return None;
        }
        let here = live.chunk(c) & (u64::MAX << (word % CHUNK_WORDS));
        if here != 0 {
            return Some(c * CHUNK_WORDS + here.trailing_zeros() as usize);
        }
        // The first prefix sum above the live words of chunks `..= c` ends the
        // first chunk after `c` that holds any.
        let upto = self.live_before[c + 1];
        let i = self.live_before.partition_point(|&sum| sum <= upto);
        (i <= chunks).then(|| (i - 1) * CHUNK_WORDS + live.chunk(i - 1).trailing_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a naive model: objects laid out back to back with gaps, the live
        /// ones slid down in order.
        #[test]
        fn new_index_matches_sliding_model(
            objs in proptest::collection::vec((1usize..80, 0usize..40, any::<bool>()), 1..60)
        ) {
            let words: usize = objs.iter().map(|(s, g, _)| s + g).sum();
            let live = Bitmap::new(words);
            let mut at = 0;
            let mut expect = vec![];
            let mut slid = 0;
            for &(size, gap, alive) in &objs {
                at += gap;
                if alive {
                    live.set_range(at, size);
                    expect.push((at, slid));
                    slid += size;
                }
                at += size;
            }
            let f = Forwarding::build(&live, live.chunks(), Vec::new());
            prop_assert_eq!(f.total_live_words(), slid);
            for (old, new) in expect {
                prop_assert_eq!(f.new_index(&live, old), new);
            }
        }

        /// `next_live` finds what a linear scan of the bitmap finds, from every
        /// word, across gaps of many chunks.
        #[test]
        fn next_live_matches_a_linear_scan(
            runs in proptest::collection::vec((0usize..700, 0usize..100), 1..20)
        ) {
            let words: usize = runs.iter().map(|(g, s)| g + s).sum::<usize>() + 64;
            let live = Bitmap::new(words);
            let mut at = 0;
            for &(gap, size) in &runs {
                at += gap;
                live.set_range(at, size);
                at += size;
            }
            let f = Forwarding::build(&live, live.chunks(), Vec::new());
            for w in 0..live.chunks() * CHUNK_WORDS {
                prop_assert_eq!(
                    f.next_live(&live, w),
                    live.next_set(w, live.chunks() * CHUNK_WORDS),
                    "from word {}", w
                );
            }
        }
    }
}
