//! [`JvmModel`]: this VM's object layout, as flipgc's collector sees it (the
//! `ObjectModel` binding).
//!
//! Word 0 of an object is its class pointer (see [`crate::class`]); an array's
//! word 1 is its length. Everything else follows from the immutable descriptor the
//! class pointer names: an instance has its reference fields at words
//! `1..=refs` and `words` words in all; an array of references has its elements
//! at `2..2 + len`; an array of primitives has no reference slot.
//!
//! The model reads only those header words (through `ObjectRef::load`) and the
//! descriptor, which lives outside the heap and never changes: no allocation, no
//! lock, no panic, as the binding's contract asks of code that runs in the
//! collector's workers and in a mutator's SIGBUS handler. A header that names no
//! class of this VM's table (which the VM's own allocation never writes) is read
//! as a one-word object without references, so that even a forged header cannot
//! make the model answer inconsistently; the collector's allocation check then
//! refuses it unless it was allocated as exactly that.

use crate::class::{ClassTable, Shape, ARRAY_HEADER_WORDS};
use flipgc_core::{FixedLayout, ObjectModel, ObjectRef};

/// The object model of one VM: its class table.
#[derive(Clone, Copy, Debug)]
pub struct JvmModel {
    table: &'static ClassTable,
}

impl JvmModel {
    /// The model for objects whose headers point into `table`.
    pub fn new(table: &'static ClassTable) -> JvmModel {
        JvmModel { table }
    }

    /// The shape of `obj`'s class and, for an array, its length word; `None` for
    /// a header that names no class of the table.
    #[inline(always)]
    fn decode(&self, obj: ObjectRef) -> Option<(Shape, usize)> {
        // SAFETY: every object has at least one word (its header), and the header
        // is fixed at allocation (header_words >= 1), so the load races with
        // nothing.
        let header = unsafe { obj.load(0) };
        let class = self.table.resolve(header)?;
        let shape = class.shape();
        let len = match shape {
            Shape::Instance { .. } => 0,
            // `object::push_array` allocates `2 + len` words with the header and the
            // length as its prefix, and word 1 is fixed at allocation like word 0.
            // (A raw `Mutator::alloc_object` of one word with an array class's
            // header would make this read the word after it during the
            // collector's allocation check; the VM never does that.)
            // SAFETY: an array-class object has both array header words (above).
            Shape::RefArray | Shape::PrimArray(_) => (unsafe { obj.load(1) }) as usize,
        };
        Some((shape, len))
    }
}

// SAFETY: the answers depend only on words 0 and 1 (an array's length), both fixed
// at allocation, and on the class descriptor, which is immutable for the life of
// the process; so every call for one object agrees. object_words >= header_words
// >= 1 (an instance's `words` counts its header; an array has 2 + len words and 2
// header words; an unknown header is one word of one header word). `scan` visits
// exactly the slots `is_ref_slot` accepts, in increasing order, all between
// header_words and object_words. No method allocates, locks or panics: `resolve`
// is arithmetic and an atomic load, the rest is arithmetic (saturating, so a huge
// length word cannot overflow). `fixed_layout` answers only for instances, whose
// layout is the class's alone, with exactly what the other methods answer for
// them (`words`, one header word, slots `1..=refs`).
unsafe impl ObjectModel for JvmModel {
    #[inline]
    fn object_words(&self, obj: ObjectRef) -> usize {
        match self.decode(obj) {
            Some((Shape::Instance { words, .. }, _)) => words,
            Some((_, len)) => ARRAY_HEADER_WORDS.saturating_add(len),
            None => 1,
        }
    }

    #[inline]
    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
        match self.decode(obj) {
            Some((Shape::Instance { refs, .. }, _)) => (1..=refs).for_each(slot),
            Some((Shape::RefArray, len)) => {
                (ARRAY_HEADER_WORDS..ARRAY_HEADER_WORDS.saturating_add(len)).for_each(slot)
            }
            Some((Shape::PrimArray(_), _)) | None => {}
        }
    }

    #[inline]
    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
        match self.decode(obj) {
            Some((Shape::Instance { refs, .. }, _)) => (1..=refs).contains(&i),
            Some((Shape::RefArray, len)) => i >= ARRAY_HEADER_WORDS && i - ARRAY_HEADER_WORDS < len,
            Some((Shape::PrimArray(_), _)) | None => false,
        }
    }

    #[inline]
    fn header_words(&self, obj: ObjectRef) -> usize {
        // SAFETY: word 0 is every object's header (see `decode`).
        let header = unsafe { obj.load(0) };
        match self.table.resolve(header).map(|c| c.shape()) {
            Some(Shape::RefArray | Shape::PrimArray(_)) => ARRAY_HEADER_WORDS,
            Some(Shape::Instance { .. }) | None => 1,
        }
    }

    /// An instance's layout follows from its class pointer alone: `words` words,
    /// one header word, references at `1..=refs` (`None` for more than 63 of
    /// them, for arrays, whose size is in their length word, and for headers
    /// that name no class).
    #[inline]
    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        match self.table.resolve(w0)?.shape() {
            Shape::Instance { refs, words } if refs < 64 => Some(FixedLayout {
                words,
                header_words: 1,
                ref_mask: ((1u64 << refs) - 1) << 1,
            }),
            _ => None,
        }
    }
}
