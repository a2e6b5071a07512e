//! Identity hashes that survive moves (object model layer): the table of hashes
//! handed out. The mutator's side, `Mutator::identity_hash`, is the mutator API's
//! (`access.rs`).
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

use std::collections::HashMap;

/// The identity-hash table.
#[derive(Default)]
pub struct IdentityHashes {
    pub(crate) map: HashMap<usize, u64>,
    next: u64,
}

impl IdentityHashes {
    pub(crate) fn fresh(&mut self) -> u64 {
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
