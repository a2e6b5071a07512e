//! Tail access: the elements of a tailed object's variable-length tail
//! ([`TypeKind::Tailed`](crate::TypeKind::Tailed): a fixed part, then `len`
//! references or words), by element index, through a [`Mutator`].
//!
//! The fixed part is accessed as a fixed-size object's is (descriptors, or field
//! indices); the tail's element `j` is also field `fields + j` for the by-index
//! accessors (`read_value`, `write_ref`, ...). What these add: indices counted
//! from the tail's start, and a check that the object is tailed with the right
//! kind of tail. Every access checks that `obj` lies in this heap (and makes a
//! large object ready), its type, and the index against the header's length,
//! and panics on a misuse (not debug-only: a word written into a reference tail
//! would forge a reference). Reference stores take the write barrier and are
//! release stores; reference loads are acquire loads, as in `access.rs`.
//!
//! The tail's layout is the object model's (`object/types.rs`). Layer: mutator API
//! (docs/architecture.md, "Layers").

use crate::mem::{self, WORD};
use crate::mutator::{Gc, Mutator};
use crate::object::ShapeKind;
use crate::value::Value;

impl Mutator {
    /// The element count of tailed object `obj`'s tail (its header's length).
    /// Panics if `obj` is not a tailed object of this heap.
    #[inline]
    pub fn tail_len(&self, obj: Gc<'_>) -> usize {
        let h = self.header_of(obj);
        if self.heap.inner.types.shape(h).kind != ShapeKind::Tailed {
            not_tailed(obj);
        }
        h.len() as usize
    }

    /// What element `index` of tailed object `obj`'s reference tail holds (null, a
    /// reference or an immediate). Panics if `obj` is not a tailed object of this
    /// heap with a reference tail, or `index` is not below its tail's length.
    #[inline]
    pub fn read_tail_value<'m>(&'m self, obj: Gc<'m>, index: usize) -> Value<'m> {
        let at = self.tail_slot(obj, index, true);
        // SAFETY: `at` is a tail element of a live object of this heap (checked).
        // Acquire: the referent's header and fields, written before it was
        // published, are visible (as `read_ref`).
        Value::from_bits(unsafe { mem::load_acquire(at) })
    }

    /// Stores `value` (null, an immediate, or an object of this heap) into element
    /// `index` of tailed object `obj`'s reference tail, with the write barrier.
    /// Panics as [`Mutator::read_tail_value`], or if a reference in `value` is not
    /// of this heap (before storing).
    #[inline]
    pub fn write_tail_value(&self, obj: Gc<'_>, index: usize, value: Value<'_>) {
        let at = self.tail_slot(obj, index, true);
        let v = match value.as_ref() {
            Some(g) => self.checked_value(Some(g)),
            None => value.bits() as usize,
        };
        self.pre_write(at);
        // Release: publishes `v`'s header and fields to readers. Tails have no
        // weak elements, so `at` is a strong reference slot.
        // SAFETY: `at` is a tail element of a live object of this heap; `v` is
        // null, an immediate or an object of this heap (checked).
        unsafe { mem::store_release(at, v as u64) };
        self.card_mark(at, v);
    }

    /// The reference in element `index` of tailed object `obj`'s reference tail.
    /// Panics as [`Mutator::read_tail_value`], and if the element holds an
    /// immediate (read those with `read_tail_value`).
    #[inline]
    pub fn read_tail_ref<'m>(&'m self, obj: Gc<'m>, index: usize) -> Option<Gc<'m>> {
        let at = self.tail_slot(obj, index, true);
        // SAFETY: as in `read_tail_value`; acquire for the same reason.
        Gc::from_slot(unsafe { mem::load_acquire(at) } as usize)
    }

    /// Stores `value` into element `index` of tailed object `obj`'s reference
    /// tail, with the write barrier. Panics as [`Mutator::write_tail_value`].
    #[inline]
    pub fn write_tail_ref(&self, obj: Gc<'_>, index: usize, value: Option<Gc<'_>>) {
        self.write_tail_value(obj, index, Value::from(value));
    }

    /// The word in element `index` of tailed object `obj`'s word tail. Panics if
    /// `obj` is not a tailed object of this heap with a word tail, or `index` is
    /// not below its tail's length.
    #[inline]
    pub fn read_tail_word(&self, obj: Gc<'_>, index: usize) -> u64 {
        let at = self.tail_slot(obj, index, false);
        // SAFETY: `at` is a word-tail element of a live object of this heap.
        unsafe { mem::load(at) }
    }

    /// Stores `value` into element `index` of tailed object `obj`'s word tail.
    /// Panics as [`Mutator::read_tail_word`].
    #[inline]
    pub fn write_tail_word(&self, obj: Gc<'_>, index: usize, value: u64) {
        let at = self.tail_slot(obj, index, false);
        // SAFETY: `at` is a word-tail element (no reference: the collector never
        // reads it) of a live object of this heap.
        unsafe { mem::store(at, value) };
    }

    /// The address of tail element `index` of the tailed object `obj` (its type
    /// checked to have a reference tail if `refs`, a word tail otherwise, and
    /// `index` against its length). Panics on a misuse.
    #[inline(always)]
    pub(crate) fn tail_slot(&self, obj: Gc<'_>, index: usize, refs: bool) -> usize {
        let h = self.header_of(obj);
        let shape = self.heap.inner.types.shape(h);
        if shape.kind != ShapeKind::Tailed {
            not_tailed(obj);
        }
        if shape.tail_refs != refs {
            wrong_tail(refs);
        }
        let len = h.len() as usize;
        if index >= len {
            tail_out_of_range(index, len);
        }
        obj.addr + WORD * (1 + shape.fields as usize + index)
    }
}

#[cold]
#[inline(never)]
pub(crate) fn not_tailed(obj: Gc<'_>) -> ! {
    panic!("tail access on {obj:?}, which is not of a tailed type")
}

#[cold]
#[inline(never)]
fn wrong_tail(refs: bool) -> ! {
    if refs {
        panic!("reference tail access on an object whose tail holds words")
    } else {
        panic!("word tail access on an object whose tail holds references")
    }
}

#[cold]
#[inline(never)]
fn tail_out_of_range(index: usize, len: usize) -> ! {
    panic!("tail element {index} out of range: the tail has {len} elements")
}
