//! Side bitmaps over the moving space, one bit per heap word: the **mark bitmap**
//! (a bit at each live object's header word) and the **live-words bitmap** (a bit
//! at every word of every live object). Bits are set atomically by parallel
//! markers; a 64-bit bitmap word covers one 512-byte **chunk**.

use std::sync::atomic::{AtomicU64, Ordering};

/// Heap words per chunk: one bitmap word.
pub const CHUNK_WORDS: usize = 64;

/// An atomic bitmap of `len` bits.
pub struct Bitmap {
    words: Box<[AtomicU64]>,
    len: usize,
}

impl Bitmap {
    /// A cleared bitmap of `len` bits.
    pub fn new(len: usize) -> Bitmap {
        let words = (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Bitmap { words, len }
    }

    /// Writes every page of the bitmap's memory once, so that marking never takes
    /// a first-touch fault on it. A fresh bitmap's pages may be the kernel's shared
    /// zero page (an optimised build allocates zeroed memory lazily), and a
    /// marker's first store to each then cost a copy-on-write fault and a TLB
    /// flush on every CPU (1,213 in a GCBench 1 GiB run, the first cycles' marking).
    /// For heaps that pre-touch their memory (`HeapConfig::pretouch`).
    pub fn pretouch(&mut self) {
        // Every 512th word: one store per 4 KiB, so per page on every geometry.
        for w in self.words.iter_mut().step_by(512) {
            // SAFETY: `w` is a valid, exclusively borrowed word of the bitmap.
            // Volatile: a store of the zero the word already holds must not be
            // optimised away (the compiler may know the allocation is zeroed).
            unsafe { std::ptr::write_volatile(w.get_mut(), 0) };
        }
    }

    /// Sets bit `i`; true if it was clear (this caller set it).
    #[inline]
    pub fn set(&self, i: usize) -> bool {
        debug_assert!(i < self.len);
        let bit = 1u64 << (i % 64);
        self.words[i / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// As [`Bitmap::set`], with a plain load and store instead of an atomic
    /// read-modify-write (on x86_64 a locked instruction, a full barrier).
    ///
    /// # Safety
    /// No other thread sets bits in this bitmap meanwhile: of two racing writers one
    /// could undo the other's bit (a marked object unmarked, then freed while
    /// reachable). Readers may run at any time (the accesses are atomic).
    #[inline]
    pub unsafe fn set_single(&self, i: usize) -> bool {
        debug_assert!(i < self.len);
        let bit = 1u64 << (i % 64);
        let w = &self.words[i / 64];
        let old = w.load(Ordering::Relaxed);
        w.store(old | bit, Ordering::Relaxed);
        old & bit == 0
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
    }

    /// Sets bits `start .. start + n`.
    pub fn set_range(&self, start: usize, n: usize) {
        self.masks(start, n, |w, mask| {
            w.fetch_or(mask, Ordering::Relaxed);
        });
    }

    /// As [`Bitmap::set_range`], with plain loads and stores.
    ///
    /// # Safety
    /// As for [`Bitmap::set_single`].
    #[inline]
    pub unsafe fn set_range_single(&self, start: usize, n: usize) {
        self.masks(start, n, |w, mask| {
            w.store(w.load(Ordering::Relaxed) | mask, Ordering::Relaxed);
        });
    }

    /// Calls `f` with each bitmap word that bits `start .. start + n` touch, and the
    /// mask of those bits in it.
    #[inline]
    fn masks(&self, start: usize, n: usize, mut f: impl FnMut(&AtomicU64, u64)) {
        debug_assert!(start + n <= self.len);
        let (mut i, end) = (start, start + n);
        while i < end {
            let w = i / 64;
            let lo = i % 64;
            let hi = (end - w * 64).min(64);
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            f(&self.words[w], mask);
            i = w * 64 + hi;
        }
    }

    /// Prefetches the bitmap word holding bit `i` (a hint; any `i` is safe).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        crate::mem::prefetch(self.words.as_ptr() as usize + (i / 64) * 8);
    }

    /// The bitmap word of chunk `c` (bits `64c .. 64c + 64`).
    #[inline]
    pub fn chunk(&self, c: usize) -> u64 {
        self.words[c].load(Ordering::Relaxed)
    }

    /// Number of chunks (bitmap words).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn chunks(&self) -> usize {
        self.words.len()
    }

    /// Clears bits `0 .. n` (rounded up to whole chunks).
    ///
    /// Writes only the words that are set: a page of the bitmap that no marker
    /// wrote is still the kernel's shared zero page after the plan read it, and a
    /// store of zero to it made the kernel copy it into a fresh page and flush every
    /// CPU's TLB for the process (an interrupt to each other CPU): 3,742 such
    /// flushes in one GCBench 1 GiB run, a quarter of all the collector's, before
    /// pre-touching heaps wrote their bitmaps at creation ([`Bitmap::pretouch`]);
    /// heaps that do not pre-touch still have such pages.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn clear_prefix(&mut self, n: usize) {
        let w = n.div_ceil(64).min(self.words.len());
        for x in &mut self.words[..w] {
            let x = x.get_mut();
            if *x != 0 {
                *x = 0;
            }
        }
    }

    /// Clears bits `from .. to`, rounded up to a whole chunk at `to` (bits below
    /// `from` are kept exactly). Writes only the words that are set, as
    /// [`Bitmap::clear_prefix`].
    pub fn clear_from(&mut self, from: usize, to: usize) {
        let last = to.div_ceil(64).min(self.words.len());
        let first = from / 64;
        for (k, x) in self.words[first.min(last)..last].iter_mut().enumerate() {
            let x = x.get_mut();
            let keep = if k == 0 && from % 64 != 0 {
                (1u64 << (from % 64)) - 1
            } else {
                0
            };
            if *x & !keep != 0 {
                *x &= keep;
            }
        }
    }

    /// The first set bit in `from .. to`, if any.
    pub fn next_set(&self, from: usize, to: usize) -> Option<usize> {
        let mut i = from;
        while i < to {
            let w = self.chunk(i / 64) & (u64::MAX << (i % 64));
            if w != 0 {
                let found = (i / 64) * 64 + w.trailing_zeros() as usize;
                return (found < to).then_some(found);
            }
            i = (i / 64 + 1) * 64;
        }
        None
    }

    /// The last set bit at or below `i`, if any.
    pub fn prev_set(&self, i: usize) -> Option<usize> {
        let mut c = i / 64;
        let mut w = self.chunk(c) & (u64::MAX >> (63 - i % 64));
        loop {
            if w != 0 {
                return Some(c * 64 + 63 - w.leading_zeros() as usize);
            }
            c = c.checked_sub(1)?;
            w = self.chunk(c);
        }
    }

    /// Calls `f` with every set bit in `from .. to`, in order.
    pub fn for_each_set(&self, from: usize, to: usize, mut f: impl FnMut(usize)) {
        if from >= to {
            return;
        }
        for c in from / 64..to.div_ceil(64) {
            let mut w = self.chunk(c);
            if c == from / 64 {
                w &= u64::MAX << (from % 64);
            }
            while w != 0 {
                let i = c * 64 + w.trailing_zeros() as usize;
                if i >= to {
                    return;
                }
                f(i);
                w &= w - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bitmap_matches_a_vector_of_bools(
            len in 1usize..700,
            ops in proptest::collection::vec((0usize..700, 0usize..130), 0..40),
            probe in 0usize..700,
        ) {
            let bm = Bitmap::new(len);
            let mut model = vec![false; len];
            for (k, (start, n)) in ops.into_iter().enumerate() {
                let start = start % len;
                let n = n.min(len - start);
                // Every other operation through the single-writer variants (this
                // test is the only writer).
                let single = k % 2 == 1;
                if n == 1 {
                    // SAFETY: no other thread writes `bm`.
                    let set = if single { unsafe { bm.set_single(start) } } else { bm.set(start) };
                    prop_assert_eq!(set, !model[start]);
                } else if single {
                    // SAFETY: as above.
                    unsafe { bm.set_range_single(start, n) };
                } else {
                    bm.set_range(start, n);
                }
                model[start..start + n].iter_mut().for_each(|b| *b = true);
            }
            for (i, &b) in model.iter().enumerate() {
                prop_assert_eq!(bm.get(i), b, "bit {}", i);
            }
            let from = probe % len;
            let to = (from + 200).min(len);
            let expect: Vec<usize> = (from..to).filter(|&i| model[i]).collect();
            let mut got = vec![];
            bm.for_each_set(from, to, |i| got.push(i));
            prop_assert_eq!(&got, &expect);
            prop_assert_eq!(bm.next_set(from, to), expect.first().copied());
        }
    }

    /// The thread's minor page faults so far.
    #[cfg(target_os = "linux")]
    fn minor_faults() -> i64 {
        // SAFETY: an all-zero `rusage` is a valid value for getrusage to overwrite.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid, writable rusage.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        assert_eq!(rc, 0, "getrusage");
        usage.ru_minflt
    }

    /// A clear bitmap of `len` bits whose whole pages map the kernel's shared zero
    /// page, as the collector's do after an optimised build's lazily zeroed
    /// allocation (whether a fresh one's pages are present depends on the
    /// allocator): the pages are given back, then read.
    #[cfg(target_os = "linux")]
    fn on_the_zero_page(len: usize) -> Bitmap {
        let bm = Bitmap::new(len);
        let page = 4096;
        let start = (bm.words.as_ptr() as usize).next_multiple_of(page);
        let end = (bm.words.as_ptr() as usize + len / 8) / page * page;
        use flipgc_heap::sys::{madvise, MmapAdvise};
        // SAFETY: [start, end) lies inside the bitmap's own allocation, which holds
        // only zeros; private anonymous memory given back reads as zeros.
        unsafe { madvise(start, end - start, MmapAdvise::MADV_DONTNEED) }.expect("madvise");
        assert_eq!(bm.next_set(0, len), None);
        bm
    }

    /// Clearing a prefix that holds no bit writes nothing: pages of the bitmap
    /// that were only read stay the shared zero page (no copy-on-write fault, no
    /// TLB flush on every CPU).
    #[cfg(target_os = "linux")]
    #[test]
    fn clear_prefix_leaves_untouched_pages_unwritten() {
        let len = 64 << 20; // 8 MiB of bitmap: 2,048 pages
        let mut bm = on_the_zero_page(len);
        bm.set(3);
        let before = minor_faults();
        bm.clear_prefix(len);
        let faults = minor_faults() - before;
        assert!(!bm.get(3));
        assert!(
            faults < 64,
            "clearing a clear bitmap took {faults} page faults"
        );
    }

    /// After `pretouch`, setting bits takes no page fault, even where the pages
    /// were the shared zero page.
    #[cfg(target_os = "linux")]
    #[test]
    fn pretouched_bitmap_marks_without_faults() {
        let len = 64 << 20;
        let mut bm = on_the_zero_page(len);
        bm.pretouch();
        let before = minor_faults();
        let step = 4096 * 8; // a bit per page of the bitmap
        for i in (0..len).step_by(step) {
            bm.set(i);
        }
        let faults = minor_faults() - before;
        assert!(
            faults < 64,
            "marking a pre-touched bitmap took {faults} page faults"
        );
        assert!(bm.get(0) && bm.get(step) && !bm.get(1));
    }

    #[test]
    fn clear_from_keeps_the_bits_below_exactly() {
        let mut bm = Bitmap::new(256);
        bm.set_range(0, 200);
        bm.clear_from(70, 130);
        assert!(bm.get(69) && !bm.get(70) && !bm.get(129));
        // Rounded up to the chunk at `to`.
        assert!(!bm.get(191) && bm.get(192) && bm.get(199));
        bm.clear_from(0, 256);
        assert_eq!(bm.next_set(0, 256), None);
    }

    #[test]
    fn clear_prefix_clears_whole_chunks_only() {
        let mut bm = Bitmap::new(256);
        bm.set_range(0, 256);
        bm.clear_prefix(65);
        assert!(!bm.get(0) && !bm.get(127));
        assert!(bm.get(128) && bm.get(255));
    }
}
