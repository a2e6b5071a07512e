//! The VM binding: [`ObjectModel`], an object layout the embedder owns (object
//! size, where the reference slots are), and [`ObjectRef`], an object's address as
//! the model sees it. A heap built with [`Heap::with_model`](crate::Heap::with_model)
//! decodes every object through its model; a heap built with
//! [`Heap::new`](crate::Heap::new) uses the built-in descriptor model (the
//! [`TypeRegistry`](crate::TypeRegistry) and one-word [`Header`](crate::object::Header)s),
//! which is the built-in binding and the default. The collector decodes objects
//! through `decode.rs`, statically for each model.

use crate::mem;

/// An object's address, as given to an [`ObjectModel`]. `Copy`, one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ObjectRef(usize);

impl ObjectRef {
    /// The reference for the object at `addr` (the collector's: it vouches that an
    /// object starts there).
    #[inline(always)]
    pub(crate) fn new(addr: usize) -> ObjectRef {
        ObjectRef(addr)
    }

    /// The object's address (the address of its word 0).
    #[inline(always)]
    pub fn addr(self) -> usize {
        self.0
    }

    /// Word `i` of the object (word 0 is the header), a plain load.
    ///
    /// # Safety
    /// `i < object_words` of this object. A model may call it only from the
    /// [`ObjectModel`] method it was given this reference in, and (see the trait's
    /// contract) only for `i < header_words`: words the mutator never writes after
    /// allocation, so the load races with nothing.
    #[inline(always)]
    pub unsafe fn load(self, i: usize) -> u64 {
        // SAFETY: the caller's contract: word `i` lies inside a live (or
        // being-copied) object, so it is mapped.
        unsafe { mem::load(self.0 + i * mem::WORD) }
    }
}

/// A VM-owned object layout: the embedder's answer to "how big is this object and
/// where are its references". `unsafe` to implement: the collector trusts the
/// answers for memory safety (a wrong size corrupts the heap walk, a missed slot
/// leaves a dangling reference).
///
/// # The header rule
/// Word 0 of every VM object is the VM's own, and its bit 0 must be clear (an
/// aligned class pointer satisfies this). A word 0 with bit 0 set is the
/// collector's *filler* (unused space between objects); the collector parses
/// fillers itself and never passes one to the model. Reference slots use the
/// built-in immediate rule: a slot word is a reference iff it is nonzero and its
/// low three bits are clear ([`is_ref`](crate::object::is_ref)); other nonzero
/// words are immediates, never traced.
///
/// The collector keeps its own per-object metadata (mark bits, forwarding) in
/// side tables: it never writes a VM object's header.
///
/// # Contract (who calls what, where, and what it must not do)
/// Every method is called with the [`ObjectRef`] of a whole, allocated VM object
/// (never a filler), whose first `header_words` words the mutator wrote at
/// allocation ([`Mutator::alloc_object`](crate::Mutator::alloc_object)) and never
/// changes. The callers:
/// - GC worker threads and the driver thread: marking (in pauses and concurrently
///   with mutators), heap walks, the verifier and the sanity check;
/// - the SIGBUS fault handler of a mutator thread, or the fault-server thread,
///   while filling a page during concurrent compaction (copying and forwarding its
///   objects), concurrently with mutators;
/// - mutator threads: allocation checks, the slot accessors
///   ([`Mutator::read_slot`](crate::Mutator::read_slot) and kin), the entry points
///   for generated code.
///
/// So every method must be *async-signal-safe and wait-free*: it must not
/// allocate, take a lock, block, panic, unwind, or touch the heap other than by
/// [`ObjectRef::load`] of the given object's words `< header_words`. It may read
/// immutable data outside the heap (for example a class descriptor the header
/// points to, leaked or otherwise kept alive for the heap's life). The answers
/// must depend only on those words and that data, so that every call for one
/// object agrees, whoever makes it and whenever.
///
/// The model is fixed when the heap is built and never changes.
///
/// # Safety
/// The implementation must answer truthfully and consistently:
/// `object_words(obj) >= header_words(obj) >= 1`; `scan` visits exactly the
/// indices `i` for which `is_ref_slot(obj, i)` is true, each once, in increasing
/// order, all with `header_words <= i < object_words`; every bit `i` set in
/// `weak_slots(w0)` is a reference slot (`is_ref_slot(obj, i)`) of every object
/// whose word 0 is `w0`; the two slots `ephemeron_slots(w0)` names, if any, are
/// distinct weak slots of `weak_slots(w0)`; and the restrictions of the
/// contract above hold.
pub unsafe trait ObjectModel: Send + Sync + 'static {
    /// Size in words (header included, `>= 1`) of the object at `obj`.
    fn object_words(&self, obj: ObjectRef) -> usize;

    /// Calls `slot(i)` for the word index `i` (from the object start; word 0 is the
    /// header) of every reference slot of `obj`, in increasing order.
    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize));

    /// Whether word `i` of `obj` is a reference slot (what [`ObjectModel::scan`]
    /// visits).
    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool;

    /// How many leading words of `obj` (header, length word, ...) are fixed at
    /// allocation and never written again (`>= 1`).
    fn header_words(&self, obj: ObjectRef) -> usize;

    /// The layout of every object whose word 0 is `w0`, if it follows from `w0`
    /// alone (for example a plain instance of a class, but not an array, whose
    /// size depends on its length word); `None` otherwise, and by default. The
    /// mutator asks it once, when it makes a checked-once descriptor
    /// ([`Mutator::model_type`](crate::Mutator::model_type) and kin), and the
    /// verifier asks it for every object it checks.
    ///
    /// Contract (part of the trait's safety contract): for every object whose
    /// word 0 is `w0`, a `Some` layout agrees with the other methods:
    /// `words == object_words`, `header_words == header_words`, and bit `i` of
    /// `ref_mask` is set iff `is_ref_slot(obj, i)`, so every reference slot is
    /// below 64 (answer `None` for a wider layout). Like them it must not
    /// allocate, lock, block, panic or unwind; it gets no object, so it reads no
    /// heap word.
    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        let _ = w0;
        None
    }

    /// The *weak* reference slots of every object whose word 0 is `w0`, as a
    /// mask: bit `i` set iff word `i` is a weak slot (0, no weak slot, by
    /// default). A weak slot is a reference slot ([`ObjectModel::scan`] visits
    /// it, and the collector forwards it when its referent moves) that marking
    /// does not follow: once a collection finds its referent unreachable
    /// otherwise, the collector stores null into it, in the pause that ends
    /// marking (a `WeakReference`'s referent, a weak-keyed table's key). Weak
    /// slots lie below word 64 (in the fixed part of an object).
    ///
    /// Called by the markers for every object they scan (so it should be a
    /// table lookup, or a constant), by the young cycles' pass over old
    /// objects, by the pause that clears dead referents, and by the mutator's
    /// slot accessors, which give a weak slot its own barriers
    /// ([`Mutator::read_slot`](crate::Mutator::read_slot) and
    /// [`Mutator::write_slot`](crate::Mutator::write_slot); the checked-once
    /// descriptors and the atomic entry points refuse weak slots). The rules of
    /// the contract above apply: no allocation, lock, panic or heap access; it
    /// gets no object, so it reads no heap word.
    fn weak_slots(&self, w0: u64) -> u64 {
        let _ = w0;
        0
    }

    /// If every object whose word 0 is `w0` is an *ephemeron*, the word
    /// indices of its key slot and its value slot (`None`, no ephemeron, by
    /// default). Both must be weak slots ([`ObjectModel::weak_slots`]). The
    /// collector traces the value only once marking finds the key reachable
    /// some other way, so a value that refers to its own key does not keep the
    /// entry alive (the building block of a weak-keyed table such as
    /// JavaScript's `WeakMap`); once a collection finds the key unreachable,
    /// both slots read as null. Called when marking meets such an object and in
    /// the pause that ends marking, under the contract above.
    fn ephemeron_slots(&self, w0: u64) -> Option<(usize, usize)> {
        let _ = w0;
        None
    }
}

/// A layout fixed by an object's word 0 alone: what
/// [`ObjectModel::fixed_layout`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedLayout {
    /// Size in words, header included (as [`ObjectModel::object_words`]).
    pub words: usize,
    /// Leading words fixed at allocation (as [`ObjectModel::header_words`]).
    pub header_words: usize,
    /// Bit `i` set iff word `i` is a reference slot (as
    /// [`ObjectModel::is_ref_slot`]).
    pub ref_mask: u64,
}

impl FixedLayout {
    /// Whether the layout keeps the trait's size rules: `words >= header_words >=
    /// 1`, and every reference slot lies in `header_words..words`.
    pub fn is_well_formed(&self) -> bool {
        let in_range = |i: usize| i >= self.header_words && i < self.words;
        self.header_words >= 1
            && self.words >= self.header_words
            && (0..64).all(|i| self.ref_mask >> i & 1 == 0 || in_range(i))
    }

    /// Whether word `i` is a reference slot.
    pub fn is_ref_slot(&self, i: usize) -> bool {
        i < 64 && self.ref_mask >> i & 1 != 0
    }
}

/// Whether word 0 `w0` of an object is a filler's (bit 0 set), on a model heap.
#[inline(always)]
pub(crate) fn is_filler(w0: u64) -> bool {
    w0 & 1 != 0
}
