//! The type table's storage: entries that never move, read without a lock while
//! one writer at a time appends.
//!
//! - [`Flat`], for the shapes the hot paths read: one reserved virtual range
//!   (`PROT_NONE`, `MAP_NORESERVE`: address space only) with room for every index
//!   the registry may hold, committed read-write in doubling steps as the table
//!   grows. Entry `i` is at `base + i * size`, `base` fixed for the table's life:
//!   a lookup is one indexed load, as in a `Vec` but without its bounds check,
//!   and with no lock, reference count or branch.
//! - [`Chunks`], for the names and kinds (cold): a growing sequence of chunks,
//!   chunk `k` holding `FIRST << k` entries (32, 64, 128, ...), behind 20 chunk
//!   pointers kept inline, which cover more than the 2^24 indices a header can
//!   name; index `i` lives in chunk `log2(i + FIRST) - log2(FIRST)`.
//!
//! An entry is written once, before its index is published, and then neither
//! moved nor changed until the table is dropped. This file owns only the storage:
//! when an index may be read (its publication, the memory-ordering argument) is
//! `types.rs`'s business.

use flipgc_heap::{HeapError, Reservation, Span};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

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

/// Entries in one reserved range, committed as they are written; see the module
/// docs.
pub(super) struct Flat<T> {
    /// Entry 0; entry `i` is `base.add(i)`. Fixed for the table's life.
    base: *mut T,
    /// Entries the range has room for.
    cap: usize,
    /// The writer's side: the range and what of it is committed.
    grow: Mutex<Grow>,
}

/// The committed part of a [`Flat`]'s range.
struct Grow {
    reservation: Reservation,
    /// Committed spans, in order from the range's start, and their bytes.
    spans: Vec<Span>,
    committed: usize,
    page: usize,
}

// SAFETY: a `Flat<T>` owns its entries (as a `Vec<T>` would, so it may go to
// another thread with them when `T: Send`), and shares them through `&T` from
// `get` (so `T: Sync` for `&Flat<T>` to cross threads); its raw pointer is to its
// own reservation, which lives as long as it does.
unsafe impl<T: Send + Sync> Send for Flat<T> {}
// SAFETY: as for `Send`; writes through `&self` are serialized by the owner and
// touch only unpublished entries (`write`'s contract).
unsafe impl<T: Send + Sync> Sync for Flat<T> {}

impl<T> Flat<T> {
    /// A table with room for `cap` entries (at least one), nothing committed.
    pub fn new(cap: usize) -> Result<Flat<T>, HeapError> {
        const { assert!(std::mem::size_of::<T>() > 0) };
        let page = flipgc_heap::sys::page_size();
        let bytes = (cap.max(1) * std::mem::size_of::<T>()).next_multiple_of(page);
        // Page-aligned: entries are aligned, as `T`'s alignment divides its size
        // and is below a page.
        let reservation = Reservation::new(bytes, page)?;
        Ok(Flat {
            base: reservation.base() as *mut T,
            cap: bytes / std::mem::size_of::<T>(),
            grow: Mutex::new(Grow {
                reservation,
                spans: Vec::new(),
                committed: 0,
                page,
            }),
        })
    }

    /// Entry `i`.
    ///
    /// # Safety
    /// Entry `i` was written ([`Flat::write`]) and that write happens-before this
    /// call.
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> &T {
        debug_assert!(i < self.cap);
        // SAFETY: entry `i` lies in a committed span (its write committed it) and
        // holds a written `T` (the caller's promise); entries are never moved or
        // changed until the table is dropped, which `&self` rules out.
        unsafe { &*self.base.add(i) }
    }

    /// Writes `v` as entry `i`, committing the range up to it if needed. An error
    /// if the commit fails (`v` is dropped).
    ///
    /// # Safety
    /// One writer at a time; entry `i` was never written; no reader reads entry
    /// `i` until the owner publishes it after this call.
    pub unsafe fn write(&self, i: usize, v: T) -> Result<(), HeapError> {
        assert!(i < self.cap, "type table index {i} beyond its {}", self.cap);
        let end = (i + 1) * std::mem::size_of::<T>();
        let mut g = self.grow.lock().unwrap_or_else(|e| e.into_inner());
        if end > g.committed {
            // Doubling steps, page-sized, within the range.
            let to = end
                .next_multiple_of(g.page)
                .max(2 * g.committed)
                .min(g.reservation.len());
            let span = g.reservation.commit(g.committed, to - g.committed)?;
            g.spans.push(span);
            g.committed = to;
        }
        drop(g);
        // SAFETY: entry `i` lies in the committed part of the range (above), is
        // aligned (see `new`), not yet written, and no one reads it until it is
        // published (the caller's promise), so this write races with nothing.
        unsafe { self.base.add(i).write(v) };
        Ok(())
    }

    /// Drops entries `0..n` (the range is unmapped when the table is dropped).
    ///
    /// # Safety
    /// Exactly entries `0..n` were written; the table is not used afterwards but
    /// to be dropped.
    pub unsafe fn drop_entries(&mut self, n: usize) {
        for i in 0..n {
            // SAFETY: entry `i` was written (the caller's promise) and is dropped
            // once, here; nothing reads it again.
            unsafe { std::ptr::drop_in_place(self.base.add(i)) };
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

    #[test]
    fn a_flat_table_commits_as_it_grows_and_keeps_its_entries() {
        let mut t = Flat::<String>::new(100_000).unwrap();
        for i in 0..5000 {
            // SAFETY: one writer, each index once, in order.
            unsafe { t.write(i, i.to_string()) }.unwrap();
        }
        // SAFETY: entries 0..5000 were written above, on this thread.
        let first: *const String = unsafe { t.get(0) };
        for i in 0..5000 {
            // SAFETY: as above.
            assert_eq!(unsafe { t.get(i) }, &i.to_string());
        }
        // SAFETY: as above.
        assert_eq!(first, unsafe { t.get(0) } as *const String);
        // SAFETY: entries 0..5000 were written; `t` is only dropped afterwards.
        unsafe { t.drop_entries(5000) };
    }
}
