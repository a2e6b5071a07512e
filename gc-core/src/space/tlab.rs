//! Thread-local allocation buffers: a `[cursor, limit)` window of the moving space
//! owned by one mutator, bump-allocated without locks.

use crate::mem::{self, WORD};
use crate::object::{Header, FILLER};

/// A thread-local allocation buffer.
#[derive(Default, Debug)]
pub struct Tlab {
    /// Next free address.
    pub cursor: usize,
    /// End of the buffer.
    pub limit: usize,
}

impl Tlab {
    /// Bump-allocates `words` words; `None` if they do not fit.
    #[inline(always)]
    pub fn bump(&mut self, words: usize) -> Option<usize> {
        let bytes = words * WORD;
        if self.limit - self.cursor >= bytes {
            let at = self.cursor;
            self.cursor += bytes;
            Some(at)
        } else {
            None
        }
    }

    /// Makes the unused tail a filler object (so the heap stays walkable) and
    /// empties the buffer.
    pub fn retire(&mut self) {
        if self.cursor < self.limit {
            write_filler(self.cursor, (self.limit - self.cursor) / WORD);
        }
        *self = Tlab::default();
    }
}

/// Writes a filler header covering `words` words at `addr`.
pub fn write_filler(addr: usize, words: usize) {
    debug_assert!(words >= 1);
    let header = Header::new(FILLER, ((words - 1) * WORD) as u64);
    // Callers pass memory they own, mapped: unused moving space (a retiring TLAB's
    // tail, space carved under the space lock, the padding to the mark boundary with
    // the world stopped) or a page compaction is producing (in place, or in the
    // buffer a concurrent compaction installs).
    // SAFETY: as just listed.
    unsafe { mem::store(addr, header.0) };
}
