//! The large-object space: objects at or above the large-object threshold, each in
//! its own page-granular span inside one reservation (so "is this address in the
//! heap" stays a range check). Never moved; freed when a collection finds them
//! unreachable.
//!
//! Mark state lives in a side table with one byte per page of the reservation
//! ([`LosMarks`], in `los_marks.rs`): `FREE` where no object starts, else
//! `UNMARKED` or `MARKED`. Markers read and set it without the space's lock, so
//! large objects can be allocated while marking runs concurrently (born `MARKED`
//! then: black allocation).
//!
//! The same byte carries lazy forwarding (`collect/large.rs`). A concurrent
//! cycle's flip pause does not rewrite the live large objects' reference fields: it
//! marks each one that has any `PENDING` ([`Los::sweep`]), and the first
//! thread to touch it after the pause forwards it (`PENDING` -> `FORWARDING` ->
//! `UNMARKED`): a mutator about to access it, the compaction, or the verifier. The
//! compaction forwards every one left before it ends, and marking never runs
//! during a compaction, so markers never see either state.

use crate::error::GcError;
use flipgc_heap::{Reservation, Span};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub use super::los_marks::{Claim, LosMarks};
use super::los_marks::{FREE, MARKED, PENDING, UNMARKED};

/// One large object.
pub struct LargeObject {
    span: Span,
    /// Object size in words (header included).
    pub words: usize,
}

/// Large objects a sweep found dead ([`Los::sweep`]): unlinked, nothing refers to
/// them, but their memory and address ranges are not given back yet.
#[must_use = "dead large objects keep their address range until freed and reused"]
pub struct Dead {
    objects: Vec<LargeObject>,
}

impl Dead {
    /// Objects found dead.
    pub fn count(&self) -> usize {
        self.objects.len()
    }

    /// Their bytes (whole pages).
    pub fn bytes(&self) -> usize {
        self.objects.iter().map(|o| o.span.len()).sum()
    }

    /// Frees their pages (each span returns to `PROT_NONE`) and returns their
    /// ranges, for [`Los::reuse`]. Needs no lock: nothing refers to them, and no
    /// allocation can use their ranges before they are reused.
    pub fn free(self) -> Vec<(usize, usize)> {
        self.objects
            .into_iter()
            .map(|obj| {
                let range = (obj.span.offset(), obj.span.len());
                drop(obj); // the span returns to PROT_NONE
                range
            })
            .collect()
    }
}

/// The large-object space.
pub struct Los {
    res: Reservation,
    page: usize,
    /// Live objects by address.
    objects: BTreeMap<usize, LargeObject>,
    /// Free page-granular ranges `(offset, len)` by offset.
    free: BTreeMap<usize, usize>,
    used: usize,
    /// Black allocation: set from a concurrent cycle's mark-start pause until its
    /// sweep, so objects allocated then are born marked (live by definition).
    pub black: bool,
    /// Bytes in use right after the last sweep.
    kept: usize,
    /// The mark side table, shared with the markers.
    marks: Arc<LosMarks>,
}

impl Los {
    /// A space of `capacity` bytes (rounded up to pages).
    pub fn new(capacity: usize, page: usize) -> Result<Los, GcError> {
        let cap = capacity.next_multiple_of(page).max(page);
        let res = Reservation::new(cap, page)?;
        let free = BTreeMap::from([(0, cap)]);
        let marks = Arc::new(LosMarks::new(res.base(), cap, page));
        Ok(Los {
            marks,
            res,
            page,
            objects: BTreeMap::new(),
            free,
            used: 0,
            black: false,
            kept: 0,
        })
    }

    /// Start of the space's address range.
    pub fn base(&self) -> usize {
        self.res.base()
    }

    /// End of the space's address range.
    pub fn end(&self) -> usize {
        self.res.base() + self.res.len()
    }

    /// Bytes held by live large objects (page-rounded).
    pub fn used(&self) -> usize {
        self.used
    }

    /// Bytes the space can hold.
    pub fn capacity(&self) -> usize {
        self.res.len()
    }

    /// Allocates zeroed memory for an object of `words` words; its address, or
    /// `None` if no free range fits.
    pub fn alloc(&mut self, words: usize) -> Result<Option<usize>, GcError> {
        let len = (words * 8).next_multiple_of(self.page);
        let Some((&off, &flen)) = self.free.iter().find(|(_, &l)| l >= len) else {
            return Ok(None);
        };
        self.free.remove(&off);
        if flen > len {
            self.free.insert(off + len, flen - len);
        }
        let span = match self.res.commit(off, len) {
            Ok(s) => s,
            Err(e) => {
                self.release_range(off, len);
                return Err(e.into());
            }
        };
        let addr = span.addr();
        self.objects.insert(addr, LargeObject { span, words });
        let state = if self.black { MARKED } else { UNMARKED };
        // Release: a marker that finds the object (through a reference published
        // later) sees its state; its header is published by the allocating thread.
        self.marks
            .state(addr)
            .expect("an object start")
            .store(state, Ordering::Release);
        self.used += len;
        Ok(Some(addr))
    }

    /// The mark side table (for markers, which use it without this space's lock).
    pub fn marks(&self) -> &Arc<LosMarks> {
        &self.marks
    }

    /// The object starting at `addr`, if any.
    pub fn get(&self, addr: usize) -> Option<&LargeObject> {
        self.objects.get(&addr)
    }

    /// Unlinks every unmarked object and clears the marks of the rest, leaving each
    /// survivor for which `pending` holds `PENDING` instead: its reference fields
    /// are forwarded after the pause that sweeps, lazily (`collect/large.rs`). The dead
    /// objects' memory and address ranges are not given back here: that takes time
    /// in proportion to their size (freeing their pages, a TLB shootdown), so a
    /// collector sweeps in its pause and gives them back after it ([`Dead::free`],
    /// then [`Los::reuse`]). They count as free from here on ([`Los::used`]); an
    /// allocation that finds no range before they are reusable takes the slow
    /// path, as any allocation that finds the space full. No marking may be in
    /// progress.
    pub fn sweep(&mut self, pending: impl Fn(usize) -> bool) -> Dead {
        let dead: Vec<usize> = self
            .objects
            .keys()
            .copied()
            .filter(|a| !self.marks.is_marked(*a))
            .collect();
        let mut objects = Vec::with_capacity(dead.len());
        for addr in &dead {
            self.marks
                .state(*addr)
                .expect("an object start")
                .store(FREE, Ordering::Relaxed);
            objects.push(self.objects.remove(addr).expect("listed above"));
        }
        let dead = Dead { objects };
        self.used -= dead.bytes();
        self.kept = self.used;
        for &addr in self.objects.keys() {
            let s = self.marks.state(addr).expect("an object start");
            // Relaxed: the pause's end (the safepoint lock) publishes `PENDING` to
            // the mutators, and the compaction starts after the pause.
            s.store(
                if pending(addr) { PENDING } else { UNMARKED },
                Ordering::Relaxed,
            );
        }
        dead
    }

    /// Gives back the object just allocated at `addr`, which was never published
    /// (its allocation was refused after the fact: `model_access.rs`).
    pub fn abandon(&mut self, addr: usize) {
        // Relaxed: no other thread knows the object (it was never published), and
        // this runs under the space's lock, as allocation does.
        self.marks
            .state(addr)
            .expect("an object start")
            .store(FREE, Ordering::Relaxed);
        let object = self.objects.remove(&addr).expect("an object start");
        let dead = Dead {
            objects: vec![object],
        };
        self.used -= dead.bytes();
        let ranges = dead.free();
        self.reuse(ranges);
    }

    /// Marks the object at `addr`'s fields forwarded (`PENDING` -> `UNMARKED`) by
    /// a pause that forwarded them itself, with the world stopped.
    pub fn forwarded_in_pause(&self, addr: usize) {
        let s = self.marks.state(addr).expect("an object start");
        s.store(UNMARKED, Ordering::Relaxed);
    }

    /// Makes the ranges of dead objects whose memory [`Dead::free`] gave back
    /// available to allocation again.
    pub fn reuse(&mut self, ranges: Vec<(usize, usize)>) {
        for (off, len) in ranges {
            self.release_range(off, len);
        }
    }

    /// Bytes in use right after the last sweep (what the last collection kept).
    pub fn kept_by_last_gc(&self) -> usize {
        self.kept
    }

    /// Live large objects, by address.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &LargeObject)> {
        self.objects.iter().map(|(a, o)| (*a, o))
    }

    /// Number of live large objects.
    pub fn count(&self) -> usize {
        self.objects.len()
    }

    fn release_range(&mut self, mut off: usize, mut len: usize) {
        // Merge with the free neighbours on both sides.
        if let Some((&poff, &plen)) = self.free.range(..off).next_back() {
            if poff + plen == off {
                self.free.remove(&poff);
                off = poff;
                len += plen;
            }
        }
        if let Some(&nlen) = self.free.get(&(off + len)) {
            self.free.remove(&(off + len));
            len += nlen;
        }
        self.free.insert(off, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_mark_sweep_reuse() {
        let mut los = Los::new(64 << 10, 4096).unwrap();
        let a = los.alloc(1000).unwrap().unwrap(); // 8000 bytes -> 2 pages
        let b = los.alloc(10).unwrap().unwrap();
        assert_eq!(los.used(), 3 * 4096);
        assert!(a >= los.base() && b < los.end());
        assert_eq!(los.marks().mark(b), Some(true));
        assert_eq!(los.marks().mark(b), Some(false));
        assert_eq!(los.marks().mark(b + 8), None);
        let dead = los.sweep(|_| false);
        assert_eq!((dead.count(), dead.bytes()), (1, 2 * 4096));
        assert_eq!(los.used(), 4096, "counted free at the sweep");
        // First fit: a's range is taken again only once it was freed and reused.
        let c = los.alloc(1000).unwrap().unwrap();
        assert_ne!(c, a, "a's range was reused before it was freed");
        los.reuse(dead.free());
        let d = los.alloc(1000).unwrap().unwrap();
        assert_eq!(d, a, "a's range is reused after it was freed");
        assert_eq!(los.marks().mark(b), Some(true));
        let dead = los.sweep(|_| false);
        assert_eq!((dead.count(), dead.bytes()), (2, 4 * 4096));
        los.reuse(dead.free());
        assert!(los.get(a).is_none() && los.get(b).is_some());
        assert!(!los.marks().is_marked(b));
        assert_eq!(
            los.marks().mark(a),
            None,
            "freed: no object starts there now"
        );
        // Space runs out, and freed ranges merge and are reused.
        assert!(los.alloc(8 * 1024).unwrap().is_none());
        let dead = los.sweep(|_| false);
        assert_eq!((dead.count(), dead.bytes()), (1, 4096));
        assert_eq!(los.used(), 0);
        los.reuse(dead.free());
        assert!(
            los.alloc(8 * 1024).unwrap().is_some(),
            "the whole 64 KiB is one free range again"
        );
    }
}
