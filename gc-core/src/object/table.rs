//! The type table's storage: entries that never move, in a growing sequence of
//! chunks, read without a lock while one writer at a time appends.
//!
//! Chunk `k` holds `FIRST << k` entries (32, 64, 128, ...), so the 20 chunk
//! pointers kept inline cover more than the 2^24 indices a header can name, and
//! the table costs nothing until it grows. Index `i` lives in chunk
//! `log2(i + FIRST) - log2(FIRST)`: a lookup is a few register operations, one load
//! of the chunk pointer and the entry's load, with no lock, no reference count and
//! no branch. An entry is written once, before the index is published, and then
//! neither moved nor changed until the table is dropped; a chunk, once allocated,
//! stays where it is. This file owns only the storage: when an index may be read
//! (its publication, the memory-ordering argument) is `types.rs`'s business.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicPtr, Ordering};

/// log2 of the first chunk's size.
const FIRST_SHIFT: u32 = 5;
/// Chunk pointers: chunks `0..CHUNKS` hold `FIRST * (2^CHUNKS - 1)` entries, more
/// than the 2^24 a 24-bit type index can name.
pub(super) const CHUNKS: usize = 20;
/// The most entries the chunks hold.
pub(super) const CAPACITY: usize = ((1 << CHUNKS) - 1) << FIRST_SHIFT;
// Every 24-bit type index has a slot.
const _: () = assert!(CAPACITY >= 1 << 24);

/// Chunk and offset of index `i` (below [`CAPACITY`]).
#[inline(always)]
fn locate(i: usize) -> (usize, usize) {
    let j = i + (1 << FIRST_SHIFT);
    let k = (usize::BITS - 1 - j.leading_zeros()) - FIRST_SHIFT;
    (k as usize, j - (1 << (k + FIRST_SHIFT)))
}

/// The number of entries chunk `k` holds.
fn chunk_len(k: usize) -> usize {
    1 << (k as u32 + FIRST_SHIFT)
}

/// Append-only storage of `T`s whose entries never move. It does not know how
/// many entries are written: its owner counts them, and promises the accesses
/// below keep within that count.
pub(super) struct Chunks<T> {
    ptrs: [AtomicPtr<T>; CHUNKS],
}

impl<T> Chunks<T> {
    /// No chunk allocated.
    pub fn new() -> Chunks<T> {
        Chunks {
            ptrs: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
        }
    }

    /// Entry `i`.
    ///
    /// # Safety
    /// Entry `i` was written ([`Chunks::write`]) and that write happens-before
    /// this call; `i < CAPACITY`.
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> &T {
        debug_assert!(i < CAPACITY);
        let (k, off) = locate(i);
        // SAFETY: `k < CHUNKS` as `i < CAPACITY` (the caller's promise).
        let chunk = unsafe { self.ptrs.get_unchecked(k) };
        // Relaxed: the chunk pointer was stored before entry `i` was written, and
        // that write happens-before this load (the caller's promise), so coherence
        // gives this load that pointer (chunks are never replaced).
        let p = chunk.load(Ordering::Relaxed);
        // SAFETY: chunk `k` is allocated with `chunk_len(k) > off` entries and entry
        // `off` was written (the caller's promise); entries are never moved or
        // changed until the table is dropped, which `&self` rules out.
        unsafe { &*p.add(off) }
    }

    /// Writes `v` as entry `i`, allocating its chunk if needed.
    ///
    /// # Safety
    /// One writer at a time; `i < CAPACITY`; entry `i` was never written; no
    /// reader reads entry `i` until the owner publishes it after this call.
    pub unsafe fn write(&self, i: usize, v: T) {
        assert!(i < CAPACITY);
        let (k, off) = locate(i);
        let mut p = self.ptrs[k].load(Ordering::Relaxed);
        if p.is_null() {
            let mut chunk: Vec<MaybeUninit<T>> = Vec::with_capacity(chunk_len(k));
            p = chunk.as_mut_ptr().cast();
            std::mem::forget(chunk);
            // Release (though the owner's publication of the index, a release made
            // after this store, already orders it): a reader that finds the
            // pointer finds the chunk's allocation.
            self.ptrs[k].store(p, Ordering::Release);
        }
        // SAFETY: chunk `k` holds `chunk_len(k) > off` entries; entry `off` is not
        // yet written, and no one reads it until it is published (the caller's
        // promise), so this write races with nothing.
        unsafe { p.add(off).write(v) };
    }

    /// Drops entries `0..n` and frees the chunks.
    ///
    /// # Safety
    /// Exactly entries `0..n` were written; the table is not used afterwards.
    pub unsafe fn drop_entries(&mut self, n: usize) {
        for (k, ptr) in self.ptrs.iter_mut().enumerate() {
            let p = *ptr.get_mut();
            if p.is_null() {
                continue;
            }
            let first = chunk_len(k) - (1 << FIRST_SHIFT);
            let written = n.saturating_sub(first).min(chunk_len(k));
            // SAFETY: chunk `k` was made by `write` as a `Vec` of `chunk_len(k)`
            // entries, of which the first `written` (indices `first..first +
            // written`) were written and are dropped here; nothing reads them again.
            unsafe {
                let v: Vec<T> = Vec::from_raw_parts(p, written, chunk_len(k));
                drop(v);
            }
            *ptr.get_mut() = std::ptr::null_mut();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_map_to_chunks_without_gaps() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(31), (0, 31));
        assert_eq!(locate(32), (1, 0));
        assert_eq!(locate(95), (1, 63));
        assert_eq!(locate(96), (2, 0));
        // The largest 24-bit type index fits.
        let (k, off) = locate((1 << 24) - 1);
        assert!(k < CHUNKS && off < chunk_len(k));
        let (k, off) = locate(CAPACITY - 1);
        assert_eq!((k, off), (CHUNKS - 1, chunk_len(CHUNKS - 1) - 1));
        // Consecutive indices are consecutive slots.
        let mut at = (0, 0);
        for i in 1..5000 {
            let next = locate(i);
            if next.1 == 0 {
                assert_eq!((next.0, at.1), (at.0 + 1, chunk_len(at.0) - 1));
            } else {
                assert_eq!(next, (at.0, at.1 + 1));
            }
            at = next;
        }
    }

    #[test]
    fn entries_stay_put_and_are_dropped() {
        let mut c = Chunks::<String>::new();
        for i in 0..300 {
            // SAFETY: one writer, each index once, in order.
            unsafe { c.write(i, i.to_string()) };
        }
        // SAFETY: entries 0..300 were written above, on this thread.
        let first: *const String = unsafe { c.get(0) };
        for i in 0..300 {
            // SAFETY: as above.
            assert_eq!(unsafe { c.get(i) }, &i.to_string());
        }
        // SAFETY: as above.
        assert_eq!(first, unsafe { c.get(0) } as *const String);
        // SAFETY: entries 0..300 were written; `c` is not used afterwards.
        unsafe { c.drop_entries(300) };
    }
}
