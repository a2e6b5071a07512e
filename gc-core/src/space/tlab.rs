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
            // SAFETY: `[cursor, limit)` was carved for this buffer alone and nothing
            // has been allocated in it: mapped, writable, referenced by nobody.
            unsafe { write_filler(self.cursor, (self.limit - self.cursor) / WORD) };
        }
        *self = Tlab::default();
    }
}

/// Writes a filler header covering `words` words at `addr`.
///
/// # Safety
/// `[addr, addr + 8 * words)` is word-aligned, mapped and writable memory that the
/// caller owns and that no object occupies: unused moving space (a retiring TLAB's
/// tail, the padding to the mark boundary with the world stopped) or part of a page
/// that compaction is producing (in place, or in its own buffer).
pub unsafe fn write_filler(addr: usize, words: usize) {
    debug_assert!(words >= 1);
    let header = Header::new(FILLER, ((words - 1) * WORD) as u64);
    // SAFETY: the caller's contract: `addr` is mapped, writable, owned by the caller.
    unsafe { mem::store(addr, header.0) };
}
