//! Pinned objects: [`Mutator::alloc_pinned`] allocates an object that no collection
//! ever moves, for buffers handed to native code (I/O, FFI).
//!
//! A pinned object lives in the large-object space, which collections sweep but
//! never compact, whatever its size; it takes at least one page there. Its payload's
//! address ([`Mutator::pinned_payload`]) stays valid for as long as the object is
//! reachable: the embedder must keep it rooted (a [`Handle`] or [`Global`]) while
//! native code holds the pointer. Reaching the memory through the pointer is the
//! embedder's `unsafe`; nothing in safe Rust dereferences it.
//!
//! [`Handle`]: crate::Handle
//! [`Global`]: crate::Global

use crate::error::GcError;
use crate::mem::WORD;
use crate::mutator::{Gc, Mutator};
use crate::object::TypeId;
use crate::roots::Handle;

impl Mutator {
    /// Allocates a zeroed object of type `ty` (`len` elements for arrays) that never
    /// moves, and returns a handle to it. A GC point. Same errors as
    /// [`Mutator::alloc`]; `Err(OutOfMemory)` when the large-object space cannot
    /// hold it even after a collection.
    pub fn alloc_pinned(&mut self, ty: TypeId, len: usize) -> Result<Handle, GcError> {
        let (header, words) = self.heap.inner.types.layout(ty, len)?;
        let addr = self.alloc_large(header, words)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Whether `obj` never moves (it lives in the large-object space: allocated
    /// with [`Mutator::alloc_pinned`], or large).
    pub fn is_pinned(&self, obj: Gc<'_>) -> bool {
        if !self.accessible(obj.addr) {
            crate::access::foreign_object(obj);
        }
        obj.addr.wrapping_sub(self.los_base) < self.los_cap
    }

    /// The address of a pinned object's first payload byte (just past its header):
    /// fields, elements or bytes, in order. Valid while the object is reachable.
    ///
    /// Reference fields read through it hold current addresses only until the next
    /// GC point: a concurrent collection forwards a large object's fields lazily,
    /// when it is next accessed through a mutator (`collect/large.rs`), which this
    /// call does. Call it again after each GC point before reading references
    /// through it.
    ///
    /// # Panics
    /// If `obj` is not pinned ([`Mutator::is_pinned`]).
    pub fn pinned_payload(&self, obj: Gc<'_>) -> *mut u8 {
        assert!(
            self.is_pinned(obj),
            "{obj:?} is not pinned: its address changes at every collection"
        );
        (obj.addr + WORD) as *mut u8
    }
}
