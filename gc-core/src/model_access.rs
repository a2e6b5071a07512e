//! A mutator's side of the VM binding (`model.rs`): allocating VM objects
//! ([`Mutator::alloc_object`], [`Mutator::push_object`]) and accessing their
//! slots by word index ([`Mutator::read_slot`] and kin), on a heap built with
//! [`Heap::with_model`](crate::Heap::with_model).
//!
//! Allocation writes the VM's prefix (header, length word, ...) and zeroes the
//! rest before any GC point, then asks the model whether it agrees with the size
//! and the prefix length; an object it disagrees with is never published (it
//! becomes a filler, or a large object is given back) and the call fails. Slot
//! accessors check, every time, that the slot index is in range and of the
//! right kind (a reference slot or not) by asking the model: a raw word written
//! into a reference slot would forge a reference.
//!
//! Layer: mutator API (docs/architecture.md, "Layers").

use crate::error::GcError;
use crate::mem::{self, WORD};
use crate::model::{is_filler, ObjectModel, ObjectRef};
use crate::mutator::{Gc, Mutator};
use crate::roots::Handle;
use crate::value::Value;

impl Mutator {
    /// The heap's VM model; panics (naming `what`) on a heap without one.
    #[inline(always)]
    pub(crate) fn vm_model(&self, what: &str) -> &dyn ObjectModel {
        match self.heap.inner.model.as_deref() {
            Some(m) => m,
            None => no_model(what),
        }
    }

    /// Allocates a VM object of `words` words whose leading words are `prefix`
    /// (`prefix[0]` the header, then for example a length word; `1 <=
    /// prefix.len() <= words`), the rest zero, and returns a handle to it. A GC
    /// point. Objects of at least the large-object threshold go to the
    /// large-object space.
    ///
    /// Errors (the heap stays usable): a `Type` error on a heap without a model,
    /// for a bad `prefix` (empty, longer than `words`, a header with bit 0 set),
    /// or when the model disagrees (`object_words != words` or `header_words !=
    /// prefix.len()` for the written object, which is then never published);
    /// `OutOfMemory` as [`Mutator::alloc`].
    ///
    /// The model is asked about the written object, so `words` must cover every
    /// header word the model reads for this header (for example an array's
    /// length word): a model told about a one-word object whose class promises
    /// two header words reads past it.
    pub fn alloc_object(&mut self, words: usize, prefix: &[u64]) -> Result<Handle, GcError> {
        let addr = self.alloc_vm(words, prefix)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Like [`Mutator::alloc_object`], but pushes the new object on the root stack
    /// instead of making a handle.
    pub fn push_object(&mut self, words: usize, prefix: &[u64]) -> Result<(), GcError> {
        let addr = self.alloc_vm(words, prefix)?;
        self.push_raw(addr as u64);
        Ok(())
    }

    fn alloc_vm(&mut self, words: usize, prefix: &[u64]) -> Result<usize, GcError> {
        if self.heap.inner.model.is_none() {
            return Err(GcError::type_error(
                "alloc_object: this heap has no object model (built with Heap::new, not \
                 Heap::with_model)"
                    .into(),
            ));
        }
        check_prefix(words, prefix)?;
        let inner = std::sync::Arc::clone(&self.heap.inner);
        let model = inner.model.as_deref().expect("checked above");
        if words >= self.large_words() {
            let check = |addr: usize| agrees(model, addr, words, prefix.len());
            return self.alloc_large_prefix(prefix, words, Some(&check));
        }
        let addr = self.alloc_small_prefix(words, prefix)?;
        if let Err(e) = agrees(model, addr, words, prefix.len()) {
            for i in 1..prefix.len() {
                // SAFETY: `addr` starts `words` words this mutator just allocated
                // and has not published; `i < prefix.len() <= words`.
                unsafe { mem::store(addr + i * WORD, 0) };
            }
            // SAFETY: as above: the object's words are this mutator's, unpublished;
            // from here on they are a filler (which the collector parses itself).
            unsafe { crate::space::tlab::write_filler(addr, words) };
            return Err(e);
        }
        Ok(addr)
    }

    // ---- slots by word index ----

    /// The address of word `i` of VM object `obj`, after checking that `obj` is of
    /// this heap, `i` is in range and (`want_ref`) is or is not a reference slot.
    /// Panics otherwise.
    #[inline]
    pub(crate) fn vm_slot(&self, obj: Gc<'_>, i: usize, want_ref: bool, what: &str) -> usize {
        let model = self.vm_model(what);
        if !self.accessible(obj.addr) {
            crate::access::foreign_object(obj);
        }
        let r = ObjectRef::new(obj.addr);
        let words = model.object_words(r);
        if i >= words {
            panic!("{what}: word {i} of {obj:?} is out of range (the object has {words} words)");
        }
        if model.is_ref_slot(r, i) != want_ref {
            if want_ref {
                panic!("{what}: word {i} of {obj:?} is not a reference slot");
            }
            panic!("{what}: word {i} of {obj:?} is a reference slot");
        }
        obj.addr + i * WORD
    }

    /// Whether reference slot `i` of VM object `obj` (checked by
    /// [`Mutator::vm_slot`]) is weak ([`ObjectModel::weak_slots`]).
    #[inline]
    pub(crate) fn vm_slot_is_weak(&self, obj: Gc<'_>, i: usize) -> bool {
        // SAFETY: `obj` is an object of this heap (`vm_slot` checked it): its
        // word 0 is mapped and fixed since allocation.
        let w0 = unsafe { mem::load(obj.addr) };
        i < 64 && self.vm_model("weak_slots").weak_slots(w0) >> i & 1 != 0
    }

    /// What reference slot `i` (a word index; word 0 is the header) of VM object
    /// `obj` holds. Panics if `i` is not a reference slot of `obj`, or on a heap
    /// without a model. A weak slot ([`ObjectModel::weak_slots`]) reads as null
    /// once a collection found its referent unreachable; while marking runs, a
    /// reference read from it is logged as live (the weak-read barrier), as
    /// [`Mutator::read_ref`] does for a weak field.
    #[inline]
    pub fn read_slot<'m>(&'m self, obj: Gc<'m>, i: usize) -> Value<'m> {
        let at = self.vm_slot(obj, i, true, "read_slot");
        // SAFETY: `at` is a reference slot of a live object of this heap. Acquire,
        // as `read_ref` (access.rs).
        let v = unsafe { mem::load_acquire(at) };
        if self.marking && self.vm_slot_is_weak(obj, i) {
            self.weak_read(v as usize);
        }
        Value::from_bits(v)
    }

    /// Stores `v` (null, an immediate, or an object of this heap) into reference
    /// slot `i` of VM object `obj`, with the write barrier (a weak slot's own,
    /// as [`Mutator::write_ref`] for a weak field). Panics if `i` is not a
    /// reference slot of `obj`, a reference in `v` is not of this heap, or on a
    /// heap without a model.
    #[inline]
    pub fn write_slot(&self, obj: Gc<'_>, i: usize, v: Value<'_>) {
        let at = self.vm_slot(obj, i, true, "write_slot");
        let w = self.checked_word(v);
        // The barriers do nothing unless marking runs: only then ask the model
        // whether the slot is weak.
        if self.marking {
            if self.vm_slot_is_weak(obj, i) {
                self.pre_write_weak(obj.addr);
            } else {
                self.pre_write(at);
            }
        }
        // SAFETY: `at` is a reference slot of a live object of this heap; `w` is
        // null, an immediate or an object of this heap. Release: publishes `w`'s
        // header and fields to readers.
        unsafe { mem::store_release(at, w as u64) };
        self.card_mark(at, w);
    }

    /// The raw word `i` of VM object `obj` (any word that is not a reference slot,
    /// the header words included). Panics if `i` is out of range or a reference
    /// slot, or on a heap without a model.
    #[inline]
    pub fn read_slot_word(&self, obj: Gc<'_>, i: usize) -> u64 {
        let at = self.vm_slot(obj, i, false, "read_slot_word");
        // SAFETY: `at` is a word of a live object of this heap.
        unsafe { mem::load(at) }
    }

    /// Stores the raw word `w` into word `i` of VM object `obj`: a word that is
    /// neither a reference slot nor one of its header words (those are fixed at
    /// allocation). Panics otherwise, or on a heap without a model.
    #[inline]
    pub fn write_slot_word(&self, obj: Gc<'_>, i: usize, w: u64) {
        let at = self.vm_slot(obj, i, false, "write_slot_word");
        let header = self
            .vm_model("write_slot_word")
            .header_words(ObjectRef::new(obj.addr));
        if i < header {
            panic!(
                "write_slot_word: word {i} of {obj:?} is a header word (the first {header} \
                 are fixed at allocation)"
            );
        }
        // SAFETY: `at` is a non-reference, non-header word of a live object of this
        // heap.
        unsafe { mem::store(at, w) };
    }
}

/// Checks an allocation's `prefix` against its size and the header rule.
fn check_prefix(words: usize, prefix: &[u64]) -> Result<(), GcError> {
    if prefix.is_empty() || prefix.len() > words {
        return Err(GcError::type_error(format!(
            "alloc_object: a prefix of {} words for an object of {words} (needs 1 <= \
             prefix <= words)",
            prefix.len()
        )));
    }
    if is_filler(prefix[0]) {
        return Err(GcError::type_error(format!(
            "alloc_object: header {:#x} has bit 0 set (reserved for the collector's fillers)",
            prefix[0]
        )));
    }
    Ok(())
}

/// Whether `model` agrees with the object just written at `addr`: `words` words,
/// `prefix` of its header words.
fn agrees(
    model: &dyn ObjectModel,
    addr: usize,
    words: usize,
    prefix: usize,
) -> Result<(), GcError> {
    let r = ObjectRef::new(addr);
    let (w, h) = (model.object_words(r), model.header_words(r));
    if w != words || h != prefix {
        return Err(GcError::type_error(format!(
            "alloc_object: the model says the object has {w} words and {h} header words; \
             the allocation asked for {words} words with a prefix of {prefix}"
        )));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn no_model(what: &str) -> ! {
    panic!("{what}: this heap has no object model (built with Heap::new, not Heap::with_model)")
}
