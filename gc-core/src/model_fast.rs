//! Checked-once descriptors for a model heap (the VM binding's counterpart of
//! the built-in [`RefField`](crate::RefField), [`WordField`](crate::WordField)
//! and [`FixedType`](crate::FixedType)): [`ModelType`] for allocation,
//! [`SlotRef`] and [`SlotWord`] for slot access, all made from the model's
//! [`fixed_layout`](crate::ObjectModel::fixed_layout) answer for one word 0.
//!
//! The model is asked once, when the descriptor is made; its answer is checked
//! then (the slot in range, of the right kind, not a header word). An access
//! through a descriptor then checks that the object lies in this heap and that
//! its word 0 equals the descriptor's (one load and one compare): the
//! trait's contract makes the layout a function of word 0, so that compare
//! vouches for the slot. A mismatch takes an out-of-line cold path that panics.
//! Every descriptor carries the identity of the heap that made it (its type
//! registry's, as the built-in descriptors do), so one heap's descriptor is
//! refused on another heap, whose model may lay the same word 0 out otherwise.
//!
//! Layer: mutator API (docs/architecture.md, "Layers").

use crate::error::GcError;
use crate::mem::{self, WORD};
use crate::model::{is_filler, FixedLayout};
use crate::mutator::{Gc, Mutator};
use crate::roots::Handle;
use crate::value::Value;

/// An instance layout of a model heap, checked once: allocates objects with
/// word 0 `w0` and no model call ([`Mutator::alloc_object_of`]). Made by
/// [`Mutator::model_type`]; usable only on that heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelType {
    w0: u64,
    words: u32,
    registry: u32,
    /// How many words from word 1 on are reference slots (0 if word 1 is a
    /// header word): what the constructors may fill.
    lead_refs: u32,
}

impl ModelType {
    /// The header (word 0) its objects get.
    pub fn header(self) -> u64 {
        self.w0
    }

    /// Size of its objects in words.
    pub fn words(self) -> usize {
        self.words as usize
    }

    /// How many words from word 1 on are reference slots: the `n` that
    /// [`Mutator::push_object_of_from_stack`] accepts at most.
    pub fn lead_refs(self) -> usize {
        self.lead_refs as usize
    }
}

/// A reference slot of objects with one word 0, checked once: read and written
/// by [`Mutator::get_slot`] and [`Mutator::set_slot`]. Made by
/// [`Mutator::model_ref_slot`]; usable only on that heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotRef {
    w0: u64,
    offset: u32,
    registry: u32,
}

impl SlotRef {
    /// The slot's word index (word 0 is the header).
    pub fn index(self) -> usize {
        self.offset as usize / WORD
    }
}

/// A raw-word slot (not a reference slot, not a header word) of objects with one
/// word 0, checked once: read and written by [`Mutator::get_slot_word`] and
/// [`Mutator::set_slot_word`]. Made by [`Mutator::model_word_slot`]; usable only
/// on that heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotWord {
    w0: u64,
    offset: u32,
    registry: u32,
}

impl SlotWord {
    /// The slot's word index (word 0 is the header).
    pub fn index(self) -> usize {
        self.offset as usize / WORD
    }
}

impl Mutator {
    /// The model's fixed layout for word 0 `w0`, checked: a `Type` error on a
    /// heap without a model, for a filler's word 0 (bit 0 set), when the model
    /// has no fixed layout for `w0` (an array's header, an unknown one), or when
    /// its answer breaks the size rules.
    fn fixed_layout_of(&self, w0: u64, what: &str) -> Result<FixedLayout, GcError> {
        let Some(model) = self.heap.inner.model.as_deref() else {
            return Err(GcError::type_error(format!(
                "{what}: this heap has no object model (built with Heap::new, not \
                 Heap::with_model)"
            )));
        };
        if is_filler(w0) {
            return Err(GcError::type_error(format!(
                "{what}: header {w0:#x} has bit 0 set (reserved for the collector's fillers)"
            )));
        }
        let Some(l) = model.fixed_layout(w0) else {
            return Err(GcError::type_error(format!(
                "{what}: the model has no fixed layout for header {w0:#x} (its size or \
                 slots depend on more than word 0)"
            )));
        };
        if !l.is_well_formed() || l.words > u32::MAX as usize / WORD {
            return Err(GcError::type_error(format!(
                "{what}: the model's layout for header {w0:#x} is malformed: {l:?}"
            )));
        }
        Ok(l)
    }

    /// A checked-once allocation descriptor for objects whose word 0 is `w0`,
    /// from the model's [`fixed_layout`](crate::ObjectModel::fixed_layout). Errors
    /// (a `Type` error): a heap without a model, a word 0 with bit 0 set, no or a
    /// malformed fixed layout for `w0`.
    pub fn model_type(&self, w0: u64) -> Result<ModelType, GcError> {
        let l = self.fixed_layout_of(w0, "model_type")?;
        Ok(ModelType {
            w0,
            words: l.words as u32,
            registry: self.registry,
            // Reference slots lie at or after `header_words` (checked above), so
            // a run from word 1 is empty unless the header is one word. The run
            // stops at a weak slot: the constructors' stores are strong ones.
            lead_refs: ((l.ref_mask & !self.weak_slots_of(w0)) >> 1).trailing_ones(),
        })
    }

    /// A checked-once descriptor of reference slot `i` (a word index) of objects
    /// whose word 0 is `w0`. Errors as [`Mutator::model_type`], and when word `i`
    /// is not a reference slot of that layout.
    pub fn model_ref_slot(&self, w0: u64, i: usize) -> Result<SlotRef, GcError> {
        let l = self.fixed_layout_of(w0, "model_ref_slot")?;
        if !l.is_ref_slot(i) {
            return Err(GcError::type_error(format!(
                "model_ref_slot: word {i} of objects with header {w0:#x} is not a reference \
                 slot ({l:?})"
            )));
        }
        if self.weak_slots_of(w0) >> i & 1 != 0 {
            return Err(GcError::type_error(format!(
                "model_ref_slot: word {i} of objects with header {w0:#x} is a weak slot \
                 (access it with read_slot and write_slot, which apply its barriers)"
            )));
        }
        Ok(SlotRef {
            w0,
            offset: (i * WORD) as u32,
            registry: self.registry,
        })
    }

    /// A checked-once descriptor of raw-word slot `i` (a word index) of objects
    /// whose word 0 is `w0`: in range, neither a reference slot nor a header word.
    /// Errors as [`Mutator::model_type`], and for any other word.
    pub fn model_word_slot(&self, w0: u64, i: usize) -> Result<SlotWord, GcError> {
        let l = self.fixed_layout_of(w0, "model_word_slot")?;
        if i < l.header_words || i >= l.words || l.is_ref_slot(i) {
            return Err(GcError::type_error(format!(
                "model_word_slot: word {i} of objects with header {w0:#x} is not a raw word \
                 slot after the header ({l:?})"
            )));
        }
        Ok(SlotWord {
            w0,
            offset: (i * WORD) as u32,
            registry: self.registry,
        })
    }

    /// The model's [`weak_slots`](crate::ObjectModel::weak_slots) for word 0
    /// `w0` (0 on a heap without a model).
    fn weak_slots_of(&self, w0: u64) -> u64 {
        self.heap
            .inner
            .model
            .as_deref()
            .map_or(0, |m| m.weak_slots(w0))
    }

    /// Whether a model descriptor access may take its fast path: the descriptor
    /// is this heap's, `obj` lies in this heap, and `obj`'s word 0 is `w0`.
    #[inline(always)]
    fn model_fits(&self, obj: Gc<'_>, w0: u64, registry: u32) -> bool {
        // `&&` short-circuits: word 0 is loaded only for an address of this heap.
        registry == self.registry
            && self.accessible(obj.addr)
            // SAFETY: `obj` lies in this heap (checked just before): its word 0 is
            // mapped.
            && unsafe { mem::load(obj.addr) } == w0
    }

    /// The panic of a refused descriptor access (the descriptor's parts passed
    /// as scalars, so callers' loops keep the descriptor in registers).
    #[cold]
    #[inline(never)]
    fn model_mismatch(&self, obj: Gc<'_>, w0: u64, registry: u32, what: &str) -> ! {
        if registry != self.registry {
            panic!("{what}: descriptor made by another heap used on this heap");
        }
        if !self.accessible(obj.addr) {
            crate::access::foreign_object(obj);
        }
        // SAFETY: `obj` lies in this heap (checked just above).
        let got = unsafe { mem::load(obj.addr) };
        panic!(
            "{what}: descriptor for objects with header {w0:#x} used on {obj:?}, whose header \
             is {got:#x}"
        );
    }

    /// What reference slot `s` of `obj` holds. Panics if `obj` is not of this
    /// heap, its word 0 is not `s`'s, or `s` is another heap's.
    #[inline(always)]
    pub fn get_slot<'m>(&'m self, obj: Gc<'m>, s: SlotRef) -> Value<'m> {
        if !self.model_fits(obj, s.w0, s.registry) {
            self.model_mismatch(obj, s.w0, s.registry, "get_slot");
        }
        // SAFETY: the slot is a reference slot inside `obj`: `fixed_layout`'s
        // answer for this word 0, checked when `s` was made, and the word 0
        // compare above. Acquire, as `read_slot`.
        Value::from_bits(unsafe { mem::load_acquire(obj.addr + s.offset as usize) })
    }

    /// What reference slots `ss` of `obj` hold (for example a tree node's two
    /// children), with one check of `obj` for all of them when they are all
    /// descriptors for one word 0 of one heap (otherwise each is checked as
    /// [`Mutator::get_slot`] checks it). Panics as [`Mutator::get_slot`].
    #[inline(always)]
    pub fn get_slots<'m, const N: usize>(
        &'m self,
        obj: Gc<'m>,
        ss: [SlotRef; N],
    ) -> [Value<'m>; N] {
        let Some(&SlotRef { w0, registry, .. }) = ss.first() else {
            return [Value::NULL; N];
        };
        let same = ss.iter().all(|s| s.w0 == w0 && s.registry == registry);
        if !same || !self.model_fits(obj, w0, registry) {
            return ss.map(|s| self.get_slot(obj, s));
        }
        ss.map(|s| {
            // SAFETY: every slot is a reference slot of objects with word 0 `w0`
            // (checked when each was made), and `obj`'s word 0 is `w0` (checked
            // above). Acquire, as `get_slot`.
            Value::from_bits(unsafe { mem::load_acquire(obj.addr + s.offset as usize) })
        })
    }

    /// Stores `v` (null, an immediate, or an object of this heap) into reference
    /// slot `s` of `obj`, with the write barrier. Panics as [`Mutator::get_slot`],
    /// or if a reference in `v` is not of this heap.
    #[inline(always)]
    pub fn set_slot(&self, obj: Gc<'_>, s: SlotRef, v: Value<'_>) {
        if !self.model_fits(obj, s.w0, s.registry) {
            self.model_mismatch(obj, s.w0, s.registry, "set_slot");
        }
        let at = obj.addr + s.offset as usize;
        let w = self.checked_word(v);
        self.pre_write(at);
        // SAFETY: `at` is a reference slot of a live object of this heap (as in
        // `get_slot`); `w` is null, an immediate or an object of this heap.
        // Release: publishes `w`'s header and fields to readers.
        unsafe { mem::store_release(at, w as u64) };
        self.card_mark(at, w);
    }

    /// The raw word in slot `s` of `obj`. Panics as [`Mutator::get_slot`].
    #[inline(always)]
    pub fn get_slot_word(&self, obj: Gc<'_>, s: SlotWord) -> u64 {
        if !self.model_fits(obj, s.w0, s.registry) {
            self.model_mismatch(obj, s.w0, s.registry, "get_slot_word");
        }
        // SAFETY: the slot is a word inside `obj` (checked when `s` was made and by
        // the word 0 compare above).
        unsafe { mem::load(obj.addr + s.offset as usize) }
    }

    /// Stores raw word `w` into slot `s` of `obj` (neither a reference slot nor a
    /// header word, checked when `s` was made). Panics as [`Mutator::get_slot`].
    #[inline(always)]
    pub fn set_slot_word(&self, obj: Gc<'_>, s: SlotWord, w: u64) {
        if !self.model_fits(obj, s.w0, s.registry) {
            self.model_mismatch(obj, s.w0, s.registry, "set_slot_word");
        }
        // SAFETY: the slot is a non-reference, non-header word inside `obj`
        // (checked when `s` was made and by the word 0 compare above).
        unsafe { mem::store(obj.addr + s.offset as usize, w) };
    }

    /// Allocates an object of `t` (word 0 `t`'s header, the rest zero, no model
    /// call: the layout was checked when `t` was made) and returns a handle to it.
    /// A GC point. Errors: a `Type` error for another heap's `t`; `OutOfMemory`
    /// as [`Mutator::alloc`].
    pub fn alloc_object_of(&mut self, t: ModelType) -> Result<Handle, GcError> {
        let addr = self.alloc_model_type(t)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Like [`Mutator::alloc_object_of`], but pushes the new object on the root
    /// stack instead of making a handle.
    #[inline(always)]
    pub fn push_object_of(&mut self, t: ModelType) -> Result<(), GcError> {
        let addr = self.alloc_model_type(t)?;
        self.push_raw(addr as u64);
        Ok(())
    }

    /// Allocates an object of `t` whose reference slots `1..=n` hold the top `n`
    /// entries of the root stack (the deepest in slot 1), and replaces those
    /// entries by the new object: a constructor call, `new Node(left, right)`,
    /// with no model call, no write barrier and no check of the values (they
    /// are roots of this heap, stored into an object no other thread can see
    /// yet; it is published later by a release store). A GC point.
    ///
    /// Panics, before anything is allocated, if `n > t.lead_refs()` or the stack
    /// holds fewer than `n` entries. Errors as [`Mutator::alloc_object_of`],
    /// with the stack as it was.
    #[inline(always)]
    pub fn push_object_of_from_stack(&mut self, t: ModelType, n: usize) -> Result<(), GcError> {
        if n > t.lead_refs as usize || n > self.stack_len() {
            bad_model_constructor(t.w0, t.lead_refs, n, self.stack_len());
        }
        if t.registry != self.registry {
            return Err(foreign_model_type(t.w0));
        }
        // Words `1..=n` are written below, before any GC point: not zeroed first.
        let addr = self.alloc_words(crate::object::Header(t.w0), t.words as usize, n)?;
        // The allocation may have collected: the stack's entries are read after it.
        let stack = self.stack();
        let from = stack.len() - n;
        for (i, v) in stack[from..].iter().enumerate() {
            // SAFETY: word 1 + i (i < n <= lead_refs) is a reference slot of the
            // object just allocated, this thread's until published; `v` is null or
            // an object of this heap (a root-stack entry).
            unsafe { mem::store(addr + WORD * (1 + i), *v) };
        }
        // The new object takes the deepest argument's slot.
        match stack.get_mut(from) {
            Some(slot) => {
                *slot = addr as u64;
                stack.truncate(from + 1);
            }
            None => stack.push(addr as u64),
        }
        Ok(())
    }

    /// Allocates `N` zeroed objects of `leaf` and an object of `t` whose
    /// reference slots `1..=N` hold them (the i-th new object in slot `1 + i`),
    /// and pushes that object on the root stack: `new Node(new Node(), new
    /// Node())` in one step and one bump of the allocation buffer (what
    /// `N` calls of [`Mutator::push_object_of`] of `leaf` and then
    /// [`Mutator::push_object_of_from_stack`] of `t` with `N` do). A GC point.
    ///
    /// Panics, before anything is allocated, if `N > t.lead_refs()`. Errors as
    /// [`Mutator::alloc_object_of`], with the stack as it was.
    #[inline(always)]
    pub fn push_object_of_with_new<const N: usize>(
        &mut self,
        t: ModelType,
        leaf: ModelType,
    ) -> Result<(), GcError> {
        if N > t.lead_refs as usize {
            bad_model_constructor(t.w0, t.lead_refs, N, usize::MAX);
        }
        let (words, last) = (leaf.words as usize, t.words as usize);
        let first = if t.registry == self.registry
            && leaf.registry == self.registry
            && words.max(last) < self.large_words()
        {
            self.tlab.bump_n_then::<N>(words, last, N)
        } else {
            None
        };
        let Some(at) = first else {
            // Anything unusual (no room, a large or foreign type) as its steps;
            // a failed step pops the leaves pushed before it.
            let depth = self.stack_len();
            let steps = (0..N)
                .try_for_each(|_| self.push_object_of(leaf))
                .and_then(|()| self.push_object_of_from_stack(t, N));
            if steps.is_err() {
                self.stack_truncate(depth);
            }
            return steps;
        };
        let parent = at + N * words * WORD;
        for i in 0..N {
            let child = at + i * words * WORD;
            // Leaf i and the parent were just bumped (`Tlab::bump_n_then`); word
            // 1 + i (i < N <= lead_refs) of the parent is one of its skipped words.
            // SAFETY: fresh, unpublished words of this mutator's moving space; the
            // parent's word is a reference slot.
            unsafe {
                mem::store(child, leaf.w0);
                mem::store(parent + WORD * (1 + i), child as u64);
            }
        }
        // SAFETY: the parent's word 0, as above.
        unsafe { mem::store(parent, t.w0) };
        self.push_raw(parent as u64);
        Ok(())
    }

    #[inline(always)]
    fn alloc_model_type(&mut self, t: ModelType) -> Result<usize, GcError> {
        if t.registry != self.registry {
            return Err(foreign_model_type(t.w0));
        }
        self.alloc_words(crate::object::Header(t.w0), t.words as usize, 0)
    }
}

#[cold]
#[inline(never)]
fn foreign_model_type(w0: u64) -> GcError {
    GcError::type_error(format!(
        "alloc_object_of: the ModelType for header {w0:#x} was made by another heap"
    ))
}

#[cold]
#[inline(never)]
fn bad_model_constructor(w0: u64, lead_refs: u32, n: usize, depth: usize) -> ! {
    panic!(
        "model constructor of {n} slots for header {w0:#x}: its objects' first {lead_refs} \
         words after word 0 are reference slots, and the root stack holds {depth} entries"
    )
}
