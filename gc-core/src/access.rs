//! Object access through a [`Mutator`] (mutator API layer): fields by descriptor (checked once, when the
//! descriptor was made) or by index (checked against the flat type table), array
//! lengths and types, and bulk byte copies.
//!
//! Every access first checks that the `Gc` lies in this heap (two compares against
//! bounds cached in the mutator: a `Gc` from another heap must not be trusted), then:
//! - through a descriptor ([`RefField`], [`WordField`]): the descriptor's registry is
//!   the heap's and the object's type index (its header masked to it) equals the
//!   descriptor's, then one load or store. Only the type is compared: a tailed
//!   type's fixed-part fields are where they are whatever the tail's length, and
//!   a fixed-size object's length bits are 0, so for it the compare is the
//!   whole header's (its `HASHED` flag aside);
//! - by index: the type's [`Shape`](crate::object::Shape) says whether the field
//!   exists and holds a reference (one indexed load and a bit test).
//!
//! A wrong field kind must never pass: writing a raw word into a reference field, or
//! a reference into a word field, forges or hides references. So these checks are
//! not debug-only; they fail with a panic that names the misuse.
//!
//! Reference stores go through the write barrier (`barrier.rs`) first, and are
//! release stores; reference loads are acquire loads (the memory model in `mem.rs`). The store of a `Gc` needs no header load of the
//! stored value: the range check is enough, since a `Gc` is always an object.

use crate::collect::heap_inner::HeapInner;
use crate::error::GcError;
use crate::mem::{self, WORD};
use crate::mutator::{Gc, Mutator};
use crate::object::{
    is_ref, FixedType, Header, RefField, Shape, ShapeKind, TypeId, WordField, HASHED,
    IMMEDIATE_TAG_MASK, TYPE_MASK,
};
use std::sync::atomic::{AtomicU64, Ordering};

impl Mutator {
    /// The header of `obj`, after checking that `obj` lies in this heap.
    #[inline(always)]
    pub(crate) fn header_of(&self, obj: Gc<'_>) -> Header {
        if self.vm {
            builtin_refused(obj);
        }
        if !self.accessible(obj.addr) {
            foreign_object(obj);
        }
        // SAFETY: `obj` is a live object of this heap (mutator invariant 1, and the
        // check above): its header word is mapped.
        Header(unsafe { mem::load(obj.addr) })
    }

    /// Whether a descriptor access may take its fast path: the descriptor belongs to
    /// this heap's registry, `obj` to this heap, and `obj`'s header masked to its
    /// type index ([`TYPE_MASK`]) equals `expect`. Never for a weak [`RefField`]
    /// (its `expect` has a bit the masked header lacks).
    #[inline(always)]
    pub(crate) fn descriptor_fits(&self, obj: Gc<'_>, expect: u64, registry: u32) -> bool {
        // `&&` short-circuits: the header is loaded only for an address of this heap.
        registry == self.registry
            && self.accessible(obj.addr)
            // SAFETY: `obj` lies in this heap (checked just before): its header word
            // is mapped.
            && unsafe { mem::load(obj.addr) } & TYPE_MASK == expect
    }

    /// Checks a descriptor access: the descriptor belongs to this heap's registry,
    /// `obj` to this heap, and `obj`'s header is `header` (a type's header, weak
    /// mark clear). Panics otherwise.
    #[inline(always)]
    pub(crate) fn check_descriptor(&self, obj: Gc<'_>, header: u64, registry: u32) {
        if !self.descriptor_fits(obj, header, registry) {
            self.descriptor_mismatch(obj, header, registry);
        }
    }

    #[cold]
    #[inline(never)]
    fn descriptor_mismatch(&self, obj: Gc<'_>, header: u64, registry: u32) -> ! {
        if registry != self.registry {
            panic!("field descriptor from another type registry used on this heap");
        }
        let types = &self.heap.inner.types;
        let want = types.get(Header(header).type_id()).map_or("?", |t| &t.name);
        let h = self.header_of(obj);
        let got = types.get(h.type_id()).map_or("?", |t| &t.name);
        panic!("field of type {want:?} used on {obj:?}, an object of type {got:?}");
    }

    /// The address of reference field `field` of `obj`, after checking that it
    /// exists and is a reference field; and whether it is a weak one.
    #[inline(always)]
    pub(crate) fn ref_slot(&self, obj: Gc<'_>, field: usize) -> (usize, bool) {
        let (at, weak_mask) = self.slot_and_weak_mask(obj, field, true);
        (at, field < 64 && weak_mask >> field & 1 != 0)
    }

    /// The address of field `field` of `obj`, after checking that it exists and is
    /// (`want_ref`) or is not a reference field.
    #[inline(always)]
    fn field_slot(&self, obj: Gc<'_>, field: usize, want_ref: bool) -> usize {
        self.slot_and_weak_mask(obj, field, want_ref).0
    }

    /// [`Mutator::field_slot`], and the type's weak-field mask (one header load and
    /// one shape lookup for both).
    #[inline(always)]
    fn slot_and_weak_mask(&self, obj: Gc<'_>, field: usize, want_ref: bool) -> (usize, u64) {
        let h = self.header_of(obj);
        let shape = self.heap.inner.types.shape(h);
        // Each kind checks the range and answers "reference?" in its own arm: one
        // dispatch on the kind (a shared range check before a second dispatch
        // measured 8 more instructions an access on the fixed-type path), the
        // tailed kind's out of line (inline, it added one to the others).
        let is_ref = match shape.kind {
            ShapeKind::Fixed => {
                if field >= shape.fields as usize {
                    out_of_range(field, shape.fields as usize);
                }
                shape.fixed_part_is_ref(field)
            }
            ShapeKind::RefArray => {
                let len = h.len() as usize;
                if field >= len {
                    out_of_range(field, len);
                }
                true
            }
            ShapeKind::Tailed => tailed_field_is_ref(shape, h, field),
            ShapeKind::ByteArray | ShapeKind::Invalid => byte_array_field(),
        };
        if is_ref != want_ref {
            wrong_kind(field, want_ref);
        }
        (obj.addr + WORD * (1 + field), shape.weak_mask)
    }

    // ---- by descriptor ----

    /// The reference in field `f` of `obj`. Panics if `obj` is not of `f`'s type.
    /// A weak field reads as `None` once its referent was found unreachable.
    #[inline]
    pub fn get_ref<'m>(&'m self, obj: Gc<'m>, f: RefField) -> Option<Gc<'m>> {
        if !self.descriptor_fits(obj, f.expect, f.registry) {
            return self.get_ref_cold(obj, f.expect, f.offset, f.registry);
        }
        // SAFETY: the field lies inside `obj` (its type's layout, checked when `f`
        // was made and by the header compare). Acquire: see the module docs.
        let v = unsafe { mem::load_acquire(obj.addr + f.offset as usize) } as usize;
        if v as u64 & IMMEDIATE_TAG_MASK != 0 {
            // An immediate: the cold path reads the slot again and panics.
            return self.get_ref_cold(obj, f.expect, f.offset, f.registry);
        }
        (v != 0).then(|| Gc::new(v))
    }

    /// The cold path of [`Mutator::get_ref`]: a weak field (through the weak-reference
    /// barrier), an immediate or a misuse (a panic). It takes the descriptor's parts
    /// as scalars: a `RefField` argument is passed through memory, and the caller's
    /// loop would then copy its descriptor to the stack on every call of `get_ref`.
    #[cold]
    #[inline(never)]
    fn get_ref_cold<'m>(
        &'m self,
        obj: Gc<'m>,
        expect: u64,
        offset: u32,
        registry: u32,
    ) -> Option<Gc<'m>> {
        let f = RefField {
            expect,
            offset,
            registry,
        };
        Gc::from_slot(self.load_field_cold(obj, f))
    }

    /// The word in reference field `f` of `obj` on the cold path: a weak field
    /// (through the weak-reference barrier), or a misuse (a panic).
    #[cold]
    #[inline(never)]
    pub(crate) fn load_field_cold(&self, obj: Gc<'_>, f: RefField) -> usize {
        self.check_descriptor(obj, f.type_header(), f.registry);
        // SAFETY: as in `get_ref` (checked just above).
        let v = unsafe { mem::load_acquire(obj.addr + f.offset as usize) } as usize;
        if f.is_weak() {
            self.weak_read(v);
        }
        v
    }

    /// The references in fields `fs` of `obj` (for example a tree node's two
    /// children), with one check of `obj` for all of them instead of one per field.
    /// Panics if the descriptors are not all of one type, or `obj` is not of it.
    #[inline]
    pub fn get_refs<'m, const N: usize>(
        &'m self,
        obj: Gc<'m>,
        fs: [RefField; N],
    ) -> [Option<Gc<'m>>; N] {
        let Some(expect) = same_type(&fs) else {
            return [None; N];
        };
        if !self.descriptor_fits(obj, expect, fs[0].registry) {
            return fs.map(|f| self.get_ref_cold(obj, f.expect, f.offset, f.registry));
        }
        // SAFETY: every descriptor is of `obj`'s type and strong (checked above).
        unsafe { load_refs(obj, fs) }
    }

    /// A reader of the reference fields `fs` (all of one type) for a run of reads,
    /// such as a traversal's inner loop: the descriptors are checked once here,
    /// and each [`RefReader::get`] then costs what [`Mutator::get_refs`] does
    /// without its per-call part (see [`RefReader`]). Panics, as `get_refs`
    /// does, if the descriptors are not all of one type.
    #[inline(always)]
    pub fn ref_reader<const N: usize>(&self, fs: [RefField; N]) -> RefReader<'_, N> {
        // A reader that can never take its fast path (another registry's
        // descriptors, none at all) sends every read to `get_refs`, which
        // answers (or panics) as usual: no masked header has bit 63.
        let expect = match same_type(&fs) {
            Some(e) if fs[0].registry == self.registry => e,
            _ => u64::MAX,
        };
        RefReader {
            m: self,
            fs,
            base: self.base,
            cap: self.cap,
            expect,
        }
    }

    /// Stores `value` into reference field `f` of `obj`. Panics if `obj` is not of
    /// `f`'s type or `value` is not of this heap.
    #[inline(always)]
    pub fn set_ref(&self, obj: Gc<'_>, f: RefField, value: Option<Gc<'_>>) {
        if !self.descriptor_fits(obj, f.expect, f.registry) {
            return self.store_fields_cold(obj, [f], [self.checked_value(value)]);
        }
        let v = self.checked_value(value);
        // SAFETY: `obj` is of `f`'s type and `f` is strong (checked above); `v` was
        // checked.
        unsafe { self.store_strong(obj, f, v) };
    }

    /// Stores `values` into reference fields `fs` of `obj` (for example a tree
    /// node's two children), with one check of `obj` for all of them instead of one
    /// per field; each store as [`Mutator::set_ref`] does it (the value checked, the
    /// write barrier, a release store), in order. Panics, before any store, if the
    /// descriptors are not all of one type, `obj` is not of it, or a value is not of
    /// this heap.
    #[inline(always)]
    pub fn set_refs<const N: usize>(
        &self,
        obj: Gc<'_>,
        fs: [RefField; N],
        values: [Option<Gc<'_>>; N],
    ) {
        let Some(expect) = same_type(&fs) else {
            return;
        };
        if !self.descriptor_fits(obj, expect, fs[0].registry) {
            return self.store_fields_cold(obj, fs, values.map(|v| self.checked_value(v)));
        }
        // Every value is checked before the first store: a refused call stores
        // nothing.
        let values = values.map(|v| self.checked_value(v));
        for (f, v) in fs.into_iter().zip(values) {
            // SAFETY: every descriptor is of `obj`'s type and strong (checked
            // above); each value was checked.
            unsafe { self.store_strong(obj, f, v) };
        }
    }

    /// Allocates `N` zeroed objects of the fixed-size type `t`, stores the i-th into
    /// reference field `fs[i]` of the object in root-stack slot `at`, and pushes
    /// them on the root stack in order: `p.left = new Node(); p.right = new
    /// Node();` in one step, as [`Mutator::push_fixed_from_stack`] is a constructor
    /// call in one step. A GC point (the allocation comes first; the object in
    /// slot `at` is read after it, so a collection in between is harmless).
    ///
    /// What [`Mutator::push_fixed_n`], then [`Mutator::stack_get`] of `at` and of
    /// the new entries, then [`Mutator::set_refs`] do, with the checks that cannot
    /// fail here left out: the stored values need no check (objects just made in
    /// this heap), nor do stack indices beyond `at`. The one check left is the
    /// store's own: the object in slot `at` is of `fs`' type (one header compare).
    /// Each store takes the write barrier and is a release store, as in
    /// [`Mutator::set_ref`].
    ///
    /// Panics, before anything is allocated, if `at` is out of range or its slot
    /// is null, the descriptors are not all of one type or the object is not of
    /// it. `Err(OutOfMemory)` as [`Mutator::push_fixed_n`], with the stack and the
    /// object as they were.
    #[inline(always)]
    pub fn push_fixed_n_into<const N: usize>(
        &mut self,
        t: FixedType,
        at: usize,
        fs: [RefField; N],
    ) -> Result<(), GcError> {
        self.fixed_n_into::<N, true>(t, at, fs)
    }

    /// [`Mutator::push_fixed_n_into`] without the push: allocates `N` zeroed
    /// objects of `t` and stores the i-th into reference field `fs[i]` of the
    /// object in root-stack slot `at`, and that is all (the new objects are
    /// reachable through it). For children that need no root of their own, such
    /// as the leaves of a tree built top-down: no stack entries to push and pop
    /// again. A GC point; the same checks, panics and errors.
    #[inline(always)]
    pub fn alloc_fixed_n_into<const N: usize>(
        &mut self,
        t: FixedType,
        at: usize,
        fs: [RefField; N],
    ) -> Result<(), GcError> {
        self.fixed_n_into::<N, false>(t, at, fs)
    }

    /// The body of [`Mutator::push_fixed_n_into`] (`PUSH`) and
    /// [`Mutator::alloc_fixed_n_into`].
    #[inline(always)]
    fn fixed_n_into<const N: usize, const PUSH: bool>(
        &mut self,
        t: FixedType,
        at: usize,
        fs: [RefField; N],
    ) -> Result<(), GcError> {
        let Some(expect) = same_type(&fs) else {
            return Ok(());
        };
        // Misuse panics before anything is allocated. The checks hold after the
        // allocation too: a collection moves the object in slot `at`, but keeps its
        // header and never nulls the slot or shortens the stack. What does not hold
        // is readiness: a flip pause inside the allocation leaves a large parent's
        // fields pending lazy forwarding, so the parent is made ready again below.
        let parent = match self.stack().get(at) {
            Some(&v) if is_ref(v as usize) => Gc::new(v as usize),
            _ => bad_parent(at, self.stack_len()),
        };
        let fast = self.descriptor_fits(parent, expect, fs[0].registry);
        if !fast {
            // A misuse panics here; weak fields pass, for the cold path below.
            self.check_descriptor(parent, fs[0].type_header(), fs[0].registry);
        }
        // No GC point from here on: the new objects need no root until they are
        // stored into the parent (and pushed, with `PUSH`).
        let values = self.alloc_fixed_n::<N>(t)?;
        // The allocation may have collected: the parent is read after it, and made
        // ready for the stores. A flip pause inside the allocation may have left a
        // large parent's fields pending lazy forwarding (`collect/large.rs`): they
        // are forwarded now, before a post-flip address is stored among them, or the
        // later forwarding would take that address for an old one and forge a
        // reference. One range compare for a moving-space parent.
        let obj = Gc::new(self.stack()[at] as usize);
        let ready = self.accessible(obj.addr);
        debug_assert!(ready, "the parent was checked to be of this heap");
        let stack = self.stack();
        if PUSH {
            stack.extend_from_slice(&values.map(|v| v as u64));
        }
        if !fast {
            self.store_fields_cold(obj, fs, values);
            return Ok(());
        }
        for (f, v) in fs.into_iter().zip(values) {
            // SAFETY: every descriptor is of `obj`'s type and strong (`fast`,
            // checked above; the allocation kept the header); each value is an
            // object just allocated in this heap.
            unsafe { self.store_strong(obj, f, v) };
        }
        Ok(())
    }

    /// The cold path of [`Mutator::set_ref`], [`Mutator::set_refs`] and
    /// [`Mutator::set_value`]: weak fields among `fs` (their own write barrier), or
    /// a misuse (a panic before any store). `values` were checked (null, an
    /// immediate, or an object of this heap).
    #[cold]
    #[inline(never)]
    pub(crate) fn store_fields_cold<const N: usize>(
        &self,
        obj: Gc<'_>,
        fs: [RefField; N],
        values: [usize; N],
    ) {
        self.check_descriptor(obj, fs[0].type_header(), fs[0].registry);
        for (f, v) in fs.into_iter().zip(values) {
            let slot = obj.addr + f.offset as usize;
            if f.is_weak() {
                self.pre_write_weak(obj.addr);
            } else {
                self.pre_write(slot);
            }
            // SAFETY: the field lies inside `obj` (all of `fs` are of `obj`'s type:
            // `same_type` and the check above); `v` is null, an immediate or an
            // object of this heap (the caller checked it).
            unsafe { mem::store_release(slot, v as u64) };
            self.card_mark(slot, v);
        }
    }

    /// The fast store of `set_ref` and `set_refs`: the write barrier, then a
    /// release store (it publishes `v`'s header and fields to readers).
    ///
    /// # Safety
    /// `obj` is an object of this heap of `f`'s type, `f` is a strong field, and `v`
    /// is 0, an immediate, or an object of this heap.
    #[inline(always)]
    pub(crate) unsafe fn store_strong(&self, obj: Gc<'_>, f: RefField, v: usize) {
        let slot = obj.addr + f.offset as usize;
        self.pre_write(slot);
        // SAFETY: the field lies inside `obj` (the caller's contract, as in
        // `get_ref`); `v` is null, an immediate or an object of this heap.
        unsafe { mem::store_release(slot, v as u64) };
        // No value filter: the typed stores hold references (or null, whose
        // mark is only a card read in vain).
        self.card_mark_field(slot);
    }

    /// As [`Mutator::store_strong`], for a word that may be an immediate: the
    /// card mark takes the value filter (`cards.rs`), so that a VM storing
    /// fixnums into old objects does not dirty their cards.
    ///
    /// # Safety
    /// As [`Mutator::store_strong`].
    #[inline(always)]
    pub(crate) unsafe fn store_strong_value(&self, obj: Gc<'_>, f: RefField, v: usize) {
        let slot = obj.addr + f.offset as usize;
        self.pre_write(slot);
        // SAFETY: as in `store_strong`.
        unsafe { mem::store_release(slot, v as u64) };
        self.card_mark(slot, v);
    }

    /// The word in field `f` of `obj`. Panics if `obj` is not of `f`'s type.
    #[inline]
    pub fn get_word(&self, obj: Gc<'_>, f: WordField) -> u64 {
        self.check_descriptor(obj, f.header, f.registry);
        // SAFETY: the field lies inside `obj` (as in `get_ref`).
        unsafe { mem::load(obj.addr + f.offset as usize) }
    }

    /// Stores `value` into word field `f` of `obj`. Panics if `obj` is not of `f`'s
    /// type.
    #[inline]
    pub fn set_word(&self, obj: Gc<'_>, f: WordField, value: u64) {
        self.check_descriptor(obj, f.header, f.registry);
        // SAFETY: a non-reference field inside `obj` (as in `get_ref`).
        unsafe { mem::store(obj.addr + f.offset as usize, value) };
    }

    /// `value`'s address (0 for `None`), after checking it lies in this heap.
    #[inline(always)]
    pub(crate) fn checked_value(&self, value: Option<Gc<'_>>) -> usize {
        match value {
            Some(g) if !self.owns(g.addr) => foreign_object(g),
            Some(g) => g.addr,
            None => 0,
        }
    }

    // ---- by index ----

    /// The reference in field `field` of `obj` (an element, for a reference array).
    /// Panics if it is not a reference field.
    #[inline]
    pub fn read_ref<'m>(&'m self, obj: Gc<'m>, field: usize) -> Option<Gc<'m>> {
        let (at, weak) = self.ref_slot(obj, field);
        // SAFETY: `at` is a field of a live object of this heap. Acquire: the
        // referent's header and fields, written before it was published, are visible.
        let v = unsafe { mem::load_acquire(at) } as usize;
        if weak {
            self.weak_read(v);
        }
        Gc::from_slot(v)
    }

    /// Stores `value` into reference field `field` of `obj`.
    #[inline]
    pub fn write_ref(&self, obj: Gc<'_>, field: usize, value: Option<Gc<'_>>) {
        self.store_by_index(obj, field, || self.checked_value(value));
    }

    /// The store of [`Mutator::write_ref`] and [`Mutator::write_value`]: checks that
    /// `field` is a reference field of `obj`, then the word `checked()` gives (it
    /// checks the value: null, an immediate, or an object of this heap), then the
    /// field's write barrier and a release store.
    #[inline(always)]
    pub(crate) fn store_by_index(
        &self,
        obj: Gc<'_>,
        field: usize,
        checked: impl FnOnce() -> usize,
    ) {
        let (at, weak) = self.ref_slot(obj, field);
        let v = checked();
        if weak {
            self.pre_write_weak(obj.addr);
        } else {
            self.pre_write(at);
        }
        // SAFETY: `at` is a field of a live object of this heap; `v` is null, an
        // immediate or an object of this heap (`checked`). Release: publishes `v`'s
        // header and fields to readers.
        unsafe { mem::store_release(at, v as u64) };
        self.card_mark(at, v);
    }

    /// The raw word in non-reference field `field` of `obj`.
    #[inline]
    pub fn read_word(&self, obj: Gc<'_>, field: usize) -> u64 {
        let at = self.field_slot(obj, field, false);
        // SAFETY: `at` is a field of a live object of this heap.
        unsafe { mem::load(at) }
    }

    /// Stores a raw word into non-reference field `field` of `obj` (reference fields
    /// refuse raw words: that would forge references).
    #[inline]
    pub fn write_word(&self, obj: Gc<'_>, field: usize, value: u64) {
        let at = self.field_slot(obj, field, false);
        // SAFETY: `at` is a non-reference field of a live object of this heap.
        unsafe { mem::store(at, value) };
    }

    /// `obj`'s type.
    #[inline]
    pub fn type_of(&self, obj: Gc<'_>) -> TypeId {
        self.header_of(obj).type_id()
    }

    /// Elements of an array (references or bytes), fields of a fixed-size object,
    /// or payload words of a tailed object (its fixed part's fields plus its tail's
    /// elements: the field indices it has; [`Mutator::tail_len`] gives the tail's).
    #[inline(always)]
    pub fn len(&self, obj: Gc<'_>) -> usize {
        let h = self.header_of(obj);
        let shape = self.heap.inner.types.shape(h);
        match shape.kind {
            ShapeKind::Fixed => shape.fields as usize,
            ShapeKind::Tailed => shape.fields as usize + h.len() as usize,
            _ => h.len() as usize,
        }
    }

    // ---- bytes ----

    fn byte_range(&self, obj: Gc<'_>, offset: usize, n: usize) -> usize {
        let h = self.header_of(obj);
        assert!(
            self.heap.inner.types.shape(h).kind == ShapeKind::ByteArray,
            "{obj:?} is not a byte array"
        );
        let len = h.len() as usize;
        assert!(
            offset.checked_add(n).is_some_and(|e| e <= len),
            "bytes {offset}+{n} out of range 0..{len}"
        );
        obj.addr + WORD + offset
    }

    /// Copies bytes `offset ..` of byte array `obj` into `out` (in bulk: see
    /// [`mem::read_bytes`] for what a racing writer can do).
    pub fn read_bytes(&self, obj: Gc<'_>, offset: usize, out: &mut [u8]) {
        let at = self.byte_range(obj, offset, out.len());
        // SAFETY: `[at, at + out.len())` lies inside a live byte array of this heap.
        unsafe { mem::read_bytes(at, out) };
    }

    /// Copies `data` into byte array `obj` at `offset` (in bulk).
    pub fn write_bytes(&self, obj: Gc<'_>, offset: usize, data: &[u8]) {
        let at = self.byte_range(obj, offset, data.len());
        // SAFETY: `[at, at + data.len())` lies inside a live byte array of this heap.
        unsafe { mem::write_bytes(at, data) };
    }
}

#[cold]
#[inline(never)]
fn builtin_refused(obj: Gc<'_>) -> ! {
    panic!(
        "{obj:?}: the built-in typed accessors (types, lengths, fields by index, bytes, \
         identity hashes) are refused on a heap with a VM object model; use read_slot, \
         write_slot, read_slot_word and write_slot_word"
    )
}

#[cold]
#[inline(never)]
pub(crate) fn foreign_object(obj: Gc<'_>) -> ! {
    panic!("{obj:?} does not belong to this heap")
}

/// Whether field `field` of an object of tailed shape `shape` with header `h` is
/// a reference field, after checking that it exists (panics otherwise): out of
/// line, so that the fixed-type arm of `Mutator::slot_and_weak_mask`'s dispatch stays as
/// short as it was before tailed types.
#[inline(never)]
fn tailed_field_is_ref(shape: &Shape, h: Header, field: usize) -> bool {
    let (fields, len) = (shape.fields as usize, h.len() as usize);
    if field >= fields + len {
        out_of_range(field, fields + len);
    }
    if field < fields {
        shape.fixed_part_is_ref(field)
    } else {
        shape.tail_refs
    }
}

#[cold]
#[inline(never)]
fn byte_array_field() -> ! {
    panic!("field access on a byte array: use read_bytes/write_bytes")
}

#[cold]
#[inline(never)]
fn out_of_range(field: usize, payload: usize) -> ! {
    panic!("field {field} out of range: object has {payload} payload words")
}

#[cold]
#[inline(never)]
fn wrong_kind(field: usize, want_ref: bool) -> ! {
    panic!(
        "field {field} is{} a reference field",
        if want_ref { " not" } else { "" }
    )
}

/// What an access through all of `fs` expects of the object's header (see
/// [`RefField`]): their type's header, with the weak mark if any of them is weak;
/// `None` for no descriptors. Panics if they are not all of one type and registry.
#[inline(always)]
fn same_type(fs: &[RefField]) -> Option<u64> {
    let first = fs.first()?;
    if fs
        .iter()
        .any(|f| f.type_header() != first.type_header() || f.registry != first.registry)
    {
        mixed_descriptors();
    }
    Some(fs.iter().fold(0, |a, f| a | f.expect))
}

/// Reads the reference fields of objects of one type, checked once: made by
/// [`Mutator::ref_reader`]. It holds the mutator's moving-space bounds, the
/// fields' offsets and the header their type has, so that in a loop they stay in
/// registers; through the mutator they are reloaded for every read (its root
/// stack is an `UnsafeCell`, so the compiler cannot assume the mutator unchanged
/// across the loop's own stores). Each read checks, as [`Mutator::get_refs`]
/// does, that the object lies in this heap (the moving space's range; anything
/// else, a large object or a misuse, goes to `get_refs` itself) and that its
/// header is the fields' type's, then loads each field with acquire.
///
/// It borrows the mutator, so no GC point happens while it lives, and what it
/// returns lives no longer than that borrow.
#[derive(Clone, Copy, Debug)]
pub struct RefReader<'m, const N: usize> {
    m: &'m Mutator,
    fs: [RefField; N],
    base: usize,
    cap: usize,
    expect: u64,
}

impl<'m, const N: usize> RefReader<'m, N> {
    /// The references in `obj`'s fields, in the order of the reader's
    /// descriptors. Panics, as [`Mutator::get_refs`] does, if `obj` is not of
    /// their type or not of this heap.
    #[inline(always)]
    pub fn get(&self, obj: Gc<'m>) -> [Option<Gc<'m>>; N] {
        if obj.addr.wrapping_sub(self.base) < self.cap
            // SAFETY: `obj` lies in the moving space (checked just before): its
            // header word is mapped.
            && unsafe { mem::load(obj.addr) } & TYPE_MASK == self.expect
        {
            // SAFETY: every descriptor is of `obj`'s type (one type, checked when the
            // reader was made, and the header compare above) and strong.
            unsafe { load_refs(obj, self.fs) }
        } else {
            self.m.get_refs(obj, self.fs)
        }
    }
}

/// The references in fields `fs` of `obj`, each an acquire load (it makes the
/// referent's header and fields visible: `mem.rs`): the fast path of
/// [`Mutator::get_refs`] and [`RefReader::get`].
///
/// # Safety
/// `obj` is an object of this heap and every descriptor in `fs` is a strong
/// reference field of its type.
#[inline(always)]
unsafe fn load_refs<'m, const N: usize>(obj: Gc<'m>, fs: [RefField; N]) -> [Option<Gc<'m>>; N] {
    fs.map(|f| {
        // SAFETY: the field lies inside `obj` (the caller's contract).
        let v = unsafe { mem::load_acquire(obj.addr + f.offset as usize) } as usize;
        Gc::from_slot(v)
    })
}

#[cold]
#[inline(never)]
fn bad_parent(at: usize, depth: usize) -> ! {
    panic!(
        "Mutator::push_fixed_n_into / alloc_fixed_n_into: root stack slot {at} holds no \
         object (the stack holds {depth} entries)"
    )
}

#[cold]
#[inline(never)]
fn mixed_descriptors() -> ! {
    panic!("Mutator::get_refs or set_refs: field descriptors of different types (or registries)")
}

/// Identity hashes (the table is `hash.rs`'s, with the design).
impl Mutator {
    /// A hash of `obj` that stays the same for its whole life, whatever collections
    /// move it (`System.identityHashCode`). The first call for an object takes a
    /// lock; an object never hashed costs nothing.
    ///
    /// On a heap with a VM object model ([`Heap::with_model`](crate::Heap::with_model))
    /// every call takes the lock and looks the object up by address: the flag
    /// that says "hashed" lives in the built-in header, and a VM's word 0 is its
    /// own. Panics if `obj` is not of this heap.
    pub fn identity_hash(&self, obj: Gc<'_>) -> u64 {
        if self.vm {
            return self.vm_identity_hash(obj);
        }
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

    /// [`Mutator::identity_hash`] on a VM model's heap: the table alone, keyed
    /// by the object's current address. Sound without the flag because a
    /// mutator only looks at the table re-keyed: the collection takes its lock
    /// in the pause that moves objects or sweeps the large-object space, and
    /// holds it until every entry is at its object's new address and dead
    /// objects' entries are dropped (`collect/flip.rs`). At most, a large object
    /// allocated over a dead one's space between that pause and the end of the
    /// re-keying, and kept by it as allocated black, inherits the dead object's
    /// entry: its hash is then that one, for its whole life, which is all an
    /// identity hash promises.
    fn vm_identity_hash(&self, obj: Gc<'_>) -> u64 {
        if !self.accessible(obj.addr) {
            foreign_object(obj);
        }
        let mut table = self.heap.inner.hashes.lock();
        if let Some(&hash) = table.map.get(&obj.addr) {
            return hash;
        }
        let hash = table.fresh();
        table.map.insert(obj.addr, hash);
        hash
    }
}
