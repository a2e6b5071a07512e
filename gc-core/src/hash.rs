//! Identity hashes that survive moves: [`Mutator::identity_hash`].
//!
//! Design: a hash is handed out the first time one is asked for, from a per-heap
//! sequence run through a mixing function, and kept in a table keyed by the object's
//! current address; the object's header gets the `HASHED` flag. An object never
//! hashed costs nothing (the flag is clear, the table has no entry). When a
//! collection moves objects, the table is re-keyed to the new addresses and entries
//! of dead objects are dropped: the GC driver takes the table's lock inside the flip
//! pause (or the full pause) and re-keys right after it, so a mutator asking for a
//! hash waits for that (it grows with the number of hashed objects, not with live
//! data), and never sees a stale key.
//!
//! (HotSpot and ART keep the hash in the object instead, and grow the object by a
//! word when it moves. Here the Compressor-style plan computes new addresses from
//! the live-words bitmap, and black objects move by one constant slide: an object
//! growing while it moves would break both, so the table is the simpler design.)

use crate::heap::HeapInner;
use crate::mutator::{Gc, Mutator};
use crate::object::HASHED;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The identity-hash table.
#[derive(Default)]
pub struct IdentityHashes {
    map: HashMap<usize, u64>,
    next: u64,
}

impl IdentityHashes {
    fn fresh(&mut self) -> u64 {
        // splitmix64 of a sequence: distinct inputs give distinct, well-spread hashes.
        self.next = self.next.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.next;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Hashed objects in the table.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Re-keys the table after objects moved: `moved(old)` is the object's new
    /// address, or `None` if it died.
    pub fn rekey(&mut self, moved: impl Fn(usize) -> Option<usize>) {
        if self.map.is_empty() {
            return;
        }
        self.map = self
            .map
            .drain()
            .filter_map(|(old, h)| moved(old).map(|new| (new, h)))
            .collect();
    }
}

impl Mutator {
    /// A hash of `obj` that stays the same for its whole life, whatever collections
    /// move it (`System.identityHashCode`). The first call for an object takes a
    /// lock; an object never hashed costs nothing.
    ///
    /// # Panics
    /// On a heap with a VM object model ([`Heap::with_model`](crate::Heap::with_model)):
    /// the hash flag lives in the built-in header, and a VM's word 0 is its own.
    pub fn identity_hash(&self, obj: Gc<'_>) -> u64 {
        assert!(
            !self.vm,
            "identity_hash is not supported on a heap with a VM object model"
        );
        self.type_of(obj); // checks that `obj` is of this heap
        let inner: &HeapInner = &self.heap.inner;
        let mut table = inner.hashes.lock();
        // SAFETY: `obj` is an object of this heap (checked): its header is mapped.
        let cell = unsafe { AtomicU64::from_ptr(obj.addr as *mut u64) };
        // The flag is set only under this lock, so reading it here is exact.
        if cell.load(Ordering::Relaxed) & HASHED != 0 {
            return *table
                .map
                .get(&obj.addr)
                .expect("a hashed object has its entry (re-keyed at every move)");
        }
        let hash = table.fresh();
        // Other threads may read the header meanwhile (markers, field access): a
        // single atomic OR, and every reader masks the flag.
        cell.fetch_or(HASHED, Ordering::Relaxed);
        table.map.insert(obj.addr, hash);
        hash
    }
}
