//! The type registry: for each type, its object size and where its references are.
//!
//! Four kinds: fixed-size objects with reference fields at given field indices, a
//! variable-length array of references, a variable-length array of bytes, and a
//! *tailed* type: a fixed part (as a fixed-size type's) followed by a
//! variable-length tail of references or of words (a closure and its captured
//! variables, a JVM array and its header fields). The
//! registry is built before the heap (`&mut self` builders) and grows while the
//! heap runs: [`Heap::register_fixed`](crate::Heap::register_fixed) and its
//! siblings add types from any thread (class loading) while others allocate,
//! access fields and collect. Registered types never change or go away.
//!
//! Every registered type also gets a flat [`Shape`] (kind, payload words, a bit mask
//! of its reference fields), so the hot paths (field access, marking, compaction)
//! answer "is field `i` a reference" with one indexed load and a bit test.
//! Descriptors checked once when they are made ([`FixedType`], [`RefField`],
//! [`WordField`]) let allocation and field access skip even that: an access through
//! a descriptor is one header compare and one load or store.
//!
//! ## Growing while readers read, without a lock
//! Entries never move (`table.rs`): the shapes live in one reserved virtual range
//! with room for every index the registry may hold (`PROT_NONE` address space,
//! committed read-write in doubling steps as types are added), so shape `i` is
//! at a fixed base plus `i` entries; names and kinds live in chunks that are
//! never reallocated. An entry, once written, stays at its address, unchanged,
//! for the registry's life. Writers (registrations, clones) serialize on the
//! registry's mutex; a registration writes the new index's shape and info
//! (committing or allocating memory for them if needed), then publishes the
//! index with a *release* store of the count `len`. Readers take no lock:
//! - **By header** (`shape`, and so `is_ref_field`, `for_each_ref_field`,
//!   `weak_mask`, the mutator's index-based field access, marking, compaction,
//!   the SIGBUS handler's page filling): one indexed load from the fixed base,
//!   no count check, no branch. This is sound because a header
//!   naming type `t` is written only after `t` was registered, by a thread that
//!   knew `t`'s index, so the registration's release store is sequenced before
//!   (or happens-before) that header store; and every reader reaches a header
//!   through a happens-before edge that starts after the header store (the
//!   architecture doc's memory model): a mutator reading a reference field
//!   (acquire load of the release-stored reference, or a global under its lock);
//!   the collector in a pause, or a concurrent marker handed a root or a logged
//!   reference, through the safepoint lock and the intake's lock, or an acquire
//!   load of a reference field; a compaction's fill of a page (a worker, the fault
//!   server, or the SIGBUS handler on a faulting thread), which reads from-space
//!   objects that all existed before the flip pause, through the safepoint lock
//!   the pause was entered with and the SeqCst load of the published compaction
//!   (item 9 of the memory model); a copy of a header the collector made is
//!   read through the same edges. Chaining them: registration (release of `len`)
//!   -> header store -> the edge -> the reader's header load -> its shape load. By
//!   transitivity the entry's write happens-before the read, so the reader sees
//!   the entry's contents (and the commit that mapped them, made before the
//!   write on the registering thread).
//! - **By index or unchecked header** (`get`, `layout`, `fixed_type`,
//!   `ref_field`, `word_field`, `len`, and `object_words`, `fixed_scan`,
//!   `fixed_ref_mask`, which the verifier and the fill paths use on headers they
//!   check): an *acquire* load of `len`, a compare, then the loads. The acquire
//!   synchronizes with the registration's release, so a `TypeId` handed over by
//!   any means, or a header read without an edge, either finds its entry
//!   complete or is refused as unknown.
//!
//! The count is the only publication: a thread that holds a `&TypeInfo` or
//! `&Shape` keeps it valid as long as the registry, since entries never move.
//!
//! Identity: descriptors carry their registry's identity, and a mutator trusts
//! a descriptor whose identity is its heap's. Clones share it, so no two
//! registries of one identity may have different types at one index: a builder
//! registering while a clone of its lives takes a fresh identity first, and a
//! running heap's registry refuses to register while a clone of it lives.

use super::header::{Header, HASHED, MAX_LEN};
use super::table::{Chunks, Flat};
use crate::error::GcError;
use crate::mem::WORD;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Source of registry identities (descriptors name the registry they came from).
static NEXT_REGISTRY: AtomicU32 = AtomicU32::new(1);

/// A registered type's index (never 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub(crate) u32);

impl TypeId {
    /// The raw index.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The filler type: unused heap space (retired allocation-buffer tails), length in
/// payload words. Registered first in every registry; never referenced.
pub const FILLER: TypeId = TypeId(1);

/// The shape of a type's objects.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TypeKind {
    /// `fields` payload words; those listed in `refs` (sorted, unique) are references,
    /// and those in `weak` (sorted, unique, disjoint from `refs`, below 64) are weak
    /// references: they do not keep their referent alive, and read as null once it
    /// is found unreachable.
    Fixed {
        /// Payload words.
        fields: u32,
        /// Field indices holding (strong) references.
        refs: Box<[u32]>,
        /// Field indices holding weak references.
        weak: Box<[u32]>,
    },
    /// An ephemeron (`object/ephemeron.rs`): `fields` payload words, field 0 its
    /// key and field 1 its value, both read through the weak-reference barrier;
    /// the value is traced only once the key is found reachable, and both are
    /// cleared when the key is found unreachable. The fields in `refs` (sorted,
    /// unique, at least 2) are strong references, the rest words.
    Ephemeron {
        /// Payload words (at least 2).
        fields: u32,
        /// Field indices (2 and above) holding strong references.
        refs: Box<[u32]>,
    },
    /// An array of `len` references.
    RefArray,
    /// An array of `len` bytes (padded to whole words).
    ByteArray,
    /// A fixed part of `fields` payload words, those listed in `refs` (sorted,
    /// unique) references, followed by a tail of `len` words (the header's
    /// length), all references or all plain words as `tail` says. Field `i` is
    /// payload word `i`: the tail's element `j` is field `fields + j`.
    Tailed {
        /// Payload words of the fixed part.
        fields: u32,
        /// Fixed-part field indices holding (strong) references.
        refs: Box<[u32]>,
        /// What the tail holds.
        tail: Tail,
    },
}

/// What the tail of a [`TypeKind::Tailed`] type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// References (or immediates, or null), each traced and forwarded.
    Refs,
    /// Plain words the collector never looks into.
    Words,
}

/// A registered type.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TypeInfo {
    /// Name, for errors and the verifier.
    pub name: String,
    /// Shape.
    pub kind: TypeKind,
}

/// The kind of a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShapeKind {
    /// Index 0: no type.
    Invalid,
    /// Fixed-size: `fields` payload words.
    Fixed,
    /// Array of references (`len` in the header).
    RefArray,
    /// Array of bytes (`len` in the header), the filler included.
    ByteArray,
    /// A fixed part of `fields` payload words, then a tail of `len` (the header's)
    /// words: references if `tail_refs`, plain words otherwise.
    Tailed,
}

/// A fixed-size type's shape as a scan of its objects needs it
/// ([`TypeRegistry::fixed_scan`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedScan {
    /// Size in words, header included.
    pub words: usize,
    /// Bit `i`: payload field `i` is a strong reference.
    pub strong: u64,
    /// Whether the type has weak reference fields.
    pub has_weak: bool,
}

/// A type's layout, flat: what allocation, field access, marking and compaction
/// need, without walking a `TypeKind`.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub kind: ShapeKind,
    /// Payload words of a fixed-size type.
    pub fields: u32,
    /// Bit `i`: field `i` (of the first 64) is a reference, strong or weak.
    pub ref_mask: u64,
    /// Bit `i`: field `i` is a weak reference (weak fields are below 64).
    pub weak_mask: u64,
    /// Reference field indices at or above 64, sorted (rare: wide fixed types).
    pub wide_refs: Box<[u32]>,
    /// An ephemeron type: fields 0 (key) and 1 (value) are in `weak_mask`, and
    /// marking treats them as `object/ephemeron.rs` says.
    pub ephemeron: bool,
    /// Whether a tailed type's tail holds references (false for other kinds).
    pub tail_refs: bool,
}

impl Shape {
    fn of(kind: &TypeKind) -> Shape {
        match kind {
            TypeKind::Fixed { fields, refs, weak } => {
                let weak_mask = weak.iter().fold(0, |m, &r| m | 1u64 << r);
                Shape {
                    kind: ShapeKind::Fixed,
                    fields: *fields,
                    ref_mask: refs.iter().filter(|&&r| r < 64).fold(0, |m, &r| m | 1 << r)
                        | weak_mask,
                    weak_mask,
                    wide_refs: refs.iter().copied().filter(|&r| r >= 64).collect(),
                    ephemeron: false,
                    tail_refs: false,
                }
            }
            TypeKind::Ephemeron { fields, refs } => Shape {
                ephemeron: true,
                ..Shape::of(&TypeKind::Fixed {
                    fields: *fields,
                    refs: refs.clone(),
                    weak: Box::new([0, 1]),
                })
            },
            TypeKind::Tailed { fields, refs, tail } => Shape {
                kind: ShapeKind::Tailed,
                fields: *fields,
                ref_mask: refs.iter().filter(|&&r| r < 64).fold(0, |m, &r| m | 1 << r),
                weak_mask: 0,
                wide_refs: refs.iter().copied().filter(|&r| r >= 64).collect(),
                ephemeron: false,
                tail_refs: *tail == Tail::Refs,
            },
            TypeKind::RefArray => Shape {
                kind: ShapeKind::RefArray,
                fields: 0,
                ref_mask: 0,
                weak_mask: 0,
                wide_refs: Box::new([]),
                ephemeron: false,
                tail_refs: false,
            },
            TypeKind::ByteArray => Shape {
                kind: ShapeKind::ByteArray,
                fields: 0,
                ref_mask: 0,
                weak_mask: 0,
                wide_refs: Box::new([]),
                ephemeron: false,
                tail_refs: false,
            },
        }
    }

    fn invalid() -> Shape {
        Shape {
            kind: ShapeKind::Invalid,
            ..Shape::of(&TypeKind::ByteArray)
        }
    }

    /// Payload words of an object of this shape with header length `len`.
    #[inline(always)]
    pub fn payload_words(&self, len: u64) -> usize {
        match self.kind {
            ShapeKind::Fixed => self.fields as usize,
            ShapeKind::RefArray => len as usize,
            ShapeKind::Tailed => self.fields as usize + len as usize,
            ShapeKind::ByteArray | ShapeKind::Invalid => (len as usize).div_ceil(WORD),
        }
    }

    /// Whether payload field `field` of an object of this shape with header length
    /// `len` holds a reference.
    #[inline(always)]
    pub fn is_ref(&self, len: u64, field: usize) -> bool {
        match self.kind {
            ShapeKind::Fixed if field < 64 => self.ref_mask >> field & 1 != 0,
            ShapeKind::Fixed => self.wide_refs.binary_search(&(field as u32)).is_ok(),
            ShapeKind::RefArray => field < len as usize,
            ShapeKind::Tailed => self.tailed_is_ref(len, field),
            ShapeKind::ByteArray | ShapeKind::Invalid => false,
        }
    }

    /// [`Shape::is_ref`] for a tailed shape.
    #[inline]
    fn tailed_is_ref(&self, len: u64, field: usize) -> bool {
        if field < self.fields as usize {
            self.fixed_part_is_ref(field)
        } else {
            self.tail_refs && field - (self.fields as usize) < len as usize
        }
    }

    /// Whether field `field` of a fixed-size type, or of a tailed type's fixed
    /// part, is a reference field.
    #[inline(always)]
    pub(crate) fn fixed_part_is_ref(&self, field: usize) -> bool {
        if field < 64 {
            self.ref_mask >> field & 1 != 0
        } else {
            self.wide_refs.binary_search(&(field as u32)).is_ok()
        }
    }

    /// Calls `f` with each field index of the fixed part (a fixed-size type's or a
    /// tailed type's) whose bit is in `mask` or that is a wide reference field, in
    /// increasing order.
    #[inline(always)]
    fn for_each_fixed_part_ref(&self, mut mask: u64, f: &mut impl FnMut(usize)) {
        while mask != 0 {
            f(mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
        self.wide_refs.iter().for_each(|&r| f(r as usize));
    }

    /// Calls `f` with each tail field index of an object of this (tailed) shape
    /// with header length `len` if its tail holds references.
    #[inline(always)]
    fn for_each_tail_ref(&self, len: u64, f: impl FnMut(usize)) {
        if self.tail_refs {
            let first = self.fields as usize;
            (first..first + len as usize).for_each(f);
        }
    }
}

/// A fixed-size type, checked once ([`TypeRegistry::fixed_type`]): allocating it
/// (`Mutator::alloc_fixed`, `Mutator::push_fixed`) needs no lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedType {
    pub(crate) header: u64,
    pub(crate) words: u32,
    pub(crate) registry: u32,
    /// How many of its first fields are strong reference fields (for
    /// [`Mutator::push_fixed_from_stack`](crate::Mutator::push_fixed_from_stack)).
    pub(crate) lead_refs: u32,
}

impl FixedType {
    /// The type.
    pub fn id(self) -> TypeId {
        Header(self.header).type_id()
    }

    /// Size of one object in bytes, header included.
    pub fn bytes(self) -> usize {
        self.words as usize * WORD
    }
}

/// A reference field of a fixed-size type or of a tailed type's fixed part,
/// checked once ([`TypeRegistry::ref_field`]).
/// An access through it (`Mutator::get_ref`, `Mutator::set_ref`) is one header
/// compare plus one load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefField {
    /// What the object's header must equal, masked to its type index
    /// ([`TYPE_MASK`]: the length bits and the `HASHED` flag off), for the access's
    /// fast path: the type's index for a strong field. Only the type is compared,
    /// so a tailed type's field passes whatever its object's tail length (a
    /// fixed-size object's length bits are always 0: for it this is the whole
    /// header). A weak field carries [`WEAK_FIELD`] as well, a bit the masked
    /// header never has, so its compare always fails and its accesses take the
    /// cold path, which checks the type without that bit and goes through the
    /// weak-reference barrier. The fast path so has no weak test of its own.
    pub(crate) expect: u64,
    pub(crate) offset: u32,
    pub(crate) registry: u32,
}

/// The mark of a weak [`RefField`] in its `expect` word: the header's `HASHED` bit,
/// which the fast path's compare masks off the object's header.
pub(crate) const WEAK_FIELD: u64 = HASHED;

/// What a descriptor's fast path keeps of an object's header before comparing:
/// the type index ([`Header::type_id`]'s bits).
pub(crate) const TYPE_MASK: u64 = (1 << 24) - 1;

impl RefField {
    /// Whether the field is weak (its reads go through the weak-reference barrier).
    #[inline(always)]
    pub(crate) fn is_weak(self) -> bool {
        self.expect & WEAK_FIELD != 0
    }

    /// The header of the field's type (`HASHED` clear).
    #[inline(always)]
    pub(crate) fn type_header(self) -> u64 {
        self.expect & !WEAK_FIELD
    }
}

/// A word (non-reference) field of a fixed-size type or of a tailed type's fixed
/// part, checked once ([`TypeRegistry::word_field`]); see [`RefField`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordField {
    pub(crate) header: u64,
    pub(crate) offset: u32,
    pub(crate) registry: u32,
}

/// All types a heap knows. Type 1 is [`FILLER`].
///
/// Built before the heap with the `&mut self` methods ([`TypeRegistry::fixed`],
/// ...), and grown afterwards, while the heap runs, through
/// [`Heap::register_fixed`](crate::Heap::register_fixed) and its siblings. Its
/// entries never move (`table.rs`), so lookups take no lock
/// and a `&TypeInfo` stays valid while the registry does; see the module docs for
/// why a reader always finds the shape of a type whose objects it meets.
pub struct TypeRegistry {
    /// The shapes, index 0 the placeholder: entries `0..len` are written. One
    /// reserved range with room for `max_types + 1`: a lookup is an indexed load.
    shapes: Flat<Shape>,
    /// Names and kinds, parallel to `shapes`.
    infos: Chunks<TypeInfo>,
    /// Entries published (the placeholder included). Stored with release by the
    /// writer, under `writer`, after it wrote both entries of the new index; loaded
    /// with acquire by every lookup that checks an index against it.
    len: AtomicU32,
    /// Serializes writers (registrations and clones; the latter read a stable
    /// count). std's, which keeps the registry `RefUnwindSafe` as it was.
    writer: Mutex<()>,
    /// The most types this registry accepts (filler included).
    max_types: u32,
    /// This registry's identity, carried by its descriptors (clones share it: their
    /// layouts are the same).
    id: u32,
    /// Shared by the registries with this identity (clones): while another one
    /// lives, registering a type would give two registries of one identity
    /// different types at one index, so a builder takes a fresh identity first and
    /// a running heap's registry refuses (`fork_if_shared`, `register`).
    lineage: Arc<()>,
}

impl Default for TypeRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for TypeRegistry {
    /// A copy with the same types and the same identity: descriptors made from
    /// either work with a heap built from the other. The first of the two (or of
    /// any further clones) to register a type while another lives takes a fresh
    /// identity, so descriptors it made before no longer fit it; a heap's registry
    /// refuses run-time registrations while a clone of it lives.
    fn clone(&self) -> Self {
        let _w = self.write_lock();
        // Relaxed: under `writer`, which every run-time registration holds while it
        // stores `len` (a builder's has `&mut self`, which happens-before this
        // `&self`), so the last one's entries and count happen-before this read.
        let len = self.len.load(Ordering::Relaxed) as usize;
        let copy = TypeRegistry::empty(self.max_types, self.id, Arc::clone(&self.lineage));
        for i in 0..len {
            // SAFETY: entries `0..len` are written, and their writes happen-before
            // (the lock, above); `copy` has one writer (this thread), no readers, and
            // gets indices `0..len` once each, in order.
            unsafe {
                copy.shapes
                    .write(i, self.shapes.get(i).clone())
                    .unwrap_or_else(|e| panic!("copying the type table: {e}"));
                copy.infos.write(i, self.infos.get(i).clone());
            }
        }
        copy.len.store(len as u32, Ordering::Release);
        copy
    }
}

impl Drop for TypeRegistry {
    fn drop(&mut self) {
        let len = *self.len.get_mut() as usize;
        // SAFETY: exactly entries `0..len` of both tables are written (a writer
        // publishes an index only after writing both, and `&mut self` rules out
        // one in progress); the registry is not used after its drop.
        unsafe {
            self.shapes.drop_entries(len);
            self.infos.drop_entries(len);
        }
    }
}

impl std::fmt::Debug for TypeRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = (1..=self.len() as u32)
            .filter_map(|i| self.get(TypeId(i)).map(|t| t.name.as_str()))
            .collect();
        f.debug_struct("TypeRegistry")
            .field("id", &self.id)
            .field("types", &names)
            .finish()
    }
}

/// The most payload words a fixed-size type may have.
pub const MAX_FIXED_FIELDS: u32 = 1 << 16;

/// The most types a registry can hold, the filler included: a header's type index
/// has 24 bits, and index 0 is never a type.
pub const MAX_TYPES: u32 = (1 << 24) - 1;

impl TypeRegistry {
    /// A registry holding only the filler type.
    pub fn new() -> TypeRegistry {
        TypeRegistry::with_max_types(MAX_TYPES)
    }

    /// A registry holding only the filler type that accepts at most `max` types,
    /// the filler included (at least 1, at most [`MAX_TYPES`]): a registration
    /// beyond them, before the heap or while it runs, fails with a
    /// [`GcErrorKind::Type`](crate::GcErrorKind::Type) error saying the type table
    /// is full.
    pub fn with_max_types(max: u32) -> TypeRegistry {
        let r = TypeRegistry::empty(
            max.clamp(1, MAX_TYPES),
            NEXT_REGISTRY.fetch_add(1, Ordering::Relaxed),
            Arc::new(()),
        );
        let placeholder = TypeInfo {
            name: "<invalid>".into(),
            kind: TypeKind::ByteArray,
        };
        let filler = TypeInfo {
            name: "<filler>".into(),
            kind: TypeKind::ByteArray,
        };
        // SAFETY: a new registry: one writer (this thread), no readers, indices 0
        // and 1 written once each, then published.
        unsafe {
            r.shapes
                .write(0, Shape::invalid())
                .and_then(|()| r.shapes.write(1, Shape::of(&filler.kind)))
                .unwrap_or_else(|e| panic!("committing the type table: {e}"));
            r.infos.write(0, placeholder);
            r.infos.write(1, filler);
        }
        r.len.store(2, Ordering::Release);
        r
    }

    /// A registry with no entries at all (not even the placeholder). Panics if
    /// the shape table's address space cannot be reserved (no memory is used
    /// until types are registered).
    fn empty(max_types: u32, id: u32, lineage: Arc<()>) -> TypeRegistry {
        let shapes = Flat::new(max_types as usize + 1)
            .unwrap_or_else(|e| panic!("reserving the type table: {e}"));
        TypeRegistry {
            shapes,
            infos: Chunks::new(),
            len: AtomicU32::new(0),
            writer: Mutex::new(()),
            max_types,
            id,
            lineage,
        }
    }

    /// The writers' lock, poisoning ignored: a panic while it was held left at
    /// most an unpublished entry behind, which the next registration of that index
    /// overwrites without reading (leaking what it held).
    fn write_lock(&self) -> MutexGuard<'_, ()> {
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This registry's identity (descriptors carry it).
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// The shape of the type an object with `header` has. `header` must name a
    /// registered type (every object's header does), and must have reached this
    /// thread through one of the hand-offs of the module docs, after the type's
    /// publication: no lock, no count check, no branch.
    #[inline(always)]
    pub(crate) fn shape(&self, header: Header) -> &Shape {
        let i = header.type_id().0 as usize;
        debug_assert!(i < self.len.load(Ordering::Relaxed) as usize);
        // SAFETY: `i` names a published type whose publication happens-before
        // this read (the caller's promise: the module docs' argument).
        unsafe { self.shapes.get(i) }
    }

    /// The shape of type index `i`, if registered (the placeholder's, `Invalid`,
    /// for 0). For indices from anywhere: checked against the published count.
    #[inline(always)]
    fn checked_shape(&self, i: u32) -> Option<&Shape> {
        // Acquire: pairs with the release store of the count in `add`, so entries
        // below the count read here are visible, whoever registered them.
        if i < self.len.load(Ordering::Acquire) {
            // SAFETY: `i` is below the count, so published; the acquire above
            // makes its writes happen-before this read.
            Some(unsafe { self.shapes.get(i as usize) })
        } else {
            None
        }
    }

    /// The info of type index `i`, if registered (the placeholder's for 0).
    fn checked_info(&self, i: u32) -> Option<&TypeInfo> {
        // Acquire: as in `checked_shape`.
        if i < self.len.load(Ordering::Acquire) {
            // SAFETY: as in `checked_shape`.
            Some(unsafe { self.infos.get(i as usize) })
        } else {
            None
        }
    }

    /// The name of registered type `id` (for error messages).
    fn name(&self, id: TypeId) -> &str {
        self.checked_info(id.0).map_or("?", |t| &t.name)
    }

    /// Before a builder's registration: if another registry shares this one's
    /// identity (a clone of it, or it of one), takes a fresh identity, so that no
    /// identity ever names two different types at one index. `&mut self`: no clone
    /// of this one can be made meanwhile.
    fn fork_if_shared(&mut self) {
        if Arc::strong_count(&self.lineage) > 1 {
            self.lineage = Arc::new(());
            self.id = NEXT_REGISTRY.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Appends a type, published to every thread (see the module docs), for a
    /// registry that may be in use: a running heap's. Refused if another registry
    /// shares this one's identity (it cannot change: the heap's mutators hold it).
    pub(crate) fn register(&self, name: &str, kind: TypeKind) -> Result<TypeId, GcError> {
        let _w = self.write_lock();
        // Under `writer`, which clones take too: none can be made meanwhile, so a
        // count of 1 stays 1 until the type is published.
        if Arc::strong_count(&self.lineage) > 1 {
            return Err(GcError::type_error(format!(
                "cannot register {name:?} while the heap runs: its type registry has a \
                 live clone sharing its identity (descriptors of one would pass on the \
                 other), drop the clone first"
            )));
        }
        self.add_locked(name, kind)
    }

    /// Appends a type; the caller holds `writer` (or `&mut self`).
    fn add_locked(&self, name: &str, kind: TypeKind) -> Result<TypeId, GcError> {
        // Relaxed: only writers store the count, and the caller excludes the others.
        let n = self.len.load(Ordering::Relaxed);
        if n > self.max_types {
            return Err(GcError::type_error(format!(
                "type table full registering {name:?}: the registry holds its limit of {} \
                 types, the filler included (type indices are 24 bits)",
                self.max_types
            )));
        }
        // One writer (the caller's exclusion); index `n` is the next one, at most
        // `max_types` (room in the shapes' range, below 2^24 <= the chunks' CAPACITY).
        // SAFETY: entry `n` was never written, and readers read it only once the
        // count below covers it. If the shape's commit fails, nothing is written.
        unsafe {
            self.shapes.write(n as usize, Shape::of(&kind))?;
            self.infos.write(
                n as usize,
                TypeInfo {
                    name: name.to_string(),
                    kind,
                },
            );
        }
        // Release: publishes both entries (and their memory) to every thread that
        // acquires a count above `n`, and to every thread that later learns the
        // type through a happens-before edge starting after this store (the module
        // docs: the thread that reads a header naming it).
        self.len.store(n + 1, Ordering::Release);
        Ok(TypeId(n))
    }

    /// A builder's registration (`&mut self`).
    pub(super) fn add(&mut self, name: &str, kind: TypeKind) -> Result<TypeId, GcError> {
        self.fork_if_shared();
        self.add_locked(name, kind)
    }

    /// Registers a fixed-size type of `fields` payload words, of which the fields at
    /// the indices in `refs` hold references.
    pub fn fixed(&mut self, name: &str, fields: u32, refs: &[u32]) -> Result<TypeId, GcError> {
        self.fixed_weak(name, fields, refs, &[])
    }

    /// Registers a fixed-size type of `fields` payload words, of which the fields in
    /// `refs` hold references and those in `weak` weak references (below 64, not in
    /// `refs`): a weak field does not keep its referent alive, and reads as null once
    /// a collection found the referent unreachable.
    pub fn fixed_weak(
        &mut self,
        name: &str,
        fields: u32,
        refs: &[u32],
        weak: &[u32],
    ) -> Result<TypeId, GcError> {
        let kind = fixed_kind(name, fields, refs, weak)?;
        self.add(name, kind)
    }

    /// Registers a tailed type: a fixed part of `fields` payload words, of which
    /// the fields at the indices in `refs` hold references, followed by a
    /// variable-length tail of references or words (`tail`), its element count
    /// given at allocation ([`Mutator::alloc`](crate::Mutator::alloc)'s `len`).
    /// An object is `1 + fields + len` words. Its fixed part is accessed through
    /// [`TypeRegistry::ref_field`] and [`TypeRegistry::word_field`] descriptors,
    /// its tail through [`Mutator::read_tail_value`](crate::Mutator::read_tail_value)
    /// and its siblings, and every field by index (element `j` of the tail is
    /// field `fields + j`). Refused as [`TypeRegistry::fixed`] refuses.
    pub fn tailed(
        &mut self,
        name: &str,
        fields: u32,
        refs: &[u32],
        tail: Tail,
    ) -> Result<TypeId, GcError> {
        let kind = tailed_kind(name, fields, refs, tail)?;
        self.add(name, kind)
    }

    /// Registers a variable-length array of references.
    pub fn ref_array(&mut self, name: &str) -> Result<TypeId, GcError> {
        self.add(name, TypeKind::RefArray)
    }

    /// Registers a variable-length array of bytes.
    pub fn byte_array(&mut self, name: &str) -> Result<TypeId, GcError> {
        self.add(name, TypeKind::ByteArray)
    }

    /// The registered type with index `index` (what [`TypeId::index`] gives), for
    /// embedders that pass type indices across a boundary (the C API).
    pub fn type_id(&self, index: u32) -> Option<TypeId> {
        let id = TypeId(index);
        self.get(id).map(|_| id)
    }

    /// The type `id`, if registered (the placeholder index 0 is not).
    pub fn get(&self, id: TypeId) -> Option<&TypeInfo> {
        if id.0 == 0 {
            None
        } else {
            self.checked_info(id.0)
        }
    }

    /// Every registered type but the filler, in index order: those published when
    /// the call is made (a type registered meanwhile may be left out).
    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &TypeInfo)> + '_ {
        // Acquire: as in `checked_shape`; entries below this count are complete.
        let n = self.len.load(Ordering::Acquire);
        (2..n).map(move |i| {
            // SAFETY: `i` is below the count acquired above: published, its writes
            // happen-before this read.
            (TypeId(i), unsafe { self.infos.get(i as usize) })
        })
    }

    /// Number of registered types, filler included (those registered while the
    /// heap runs included, as far as this thread has seen them).
    pub fn len(&self) -> usize {
        // Acquire: as in `checked_shape`.
        self.len.load(Ordering::Acquire) as usize - 1
    }

    /// Always false: the filler is always registered.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The header for a new object of type `id` with `len` elements (a tailed
    /// type's tail elements; ignored for fixed types), and its size in words. Errors for unknown types, the filler,
    /// and lengths a header cannot hold.
    pub fn layout(&self, id: TypeId, len: usize) -> Result<(Header, usize), GcError> {
        let shape = self
            .checked_shape(id.0)
            .filter(|s| s.kind != ShapeKind::Invalid && id != FILLER);
        let Some(shape) = shape else {
            return Err(GcError::type_error(format!("unknown type index {}", id.0)));
        };
        let len64 = len as u64;
        let header = match shape.kind {
            ShapeKind::Fixed => Header::new(id, 0),
            _ if len64 > MAX_LEN => {
                return Err(GcError::type_error(format!(
                    "{}: length {len} exceeds {MAX_LEN}",
                    self.name(id)
                )))
            }
            _ => Header::new(id, len64),
        };
        Ok((header, 1 + shape.payload_words(header.len())))
    }

    /// For an object with `header` of a fixed-size type whose reference fields
    /// are all among its first 64: what a scan of it needs ([`FixedScan`]).
    /// `None` for other types (arrays, wide types, the filler, unknown ones).
    pub(crate) fn fixed_scan(&self, header: Header) -> Option<FixedScan> {
        let shape = self.checked_shape(header.type_id().0)?;
        (shape.kind == ShapeKind::Fixed && shape.wide_refs.is_empty()).then(|| FixedScan {
            words: 1 + shape.fields as usize,
            strong: shape.ref_mask & !shape.weak_mask,
            has_weak: shape.weak_mask != 0,
        })
    }

    /// Size in words (header included) of the object with `header`, or `None` if the
    /// header names no registered type.
    #[inline]
    pub fn object_words(&self, header: Header) -> Option<usize> {
        let shape = self.checked_shape(header.type_id().0)?;
        (shape.kind != ShapeKind::Invalid).then(|| 1 + shape.payload_words(header.len()))
    }

    /// Whether payload field `field` of an object with `header` holds a reference.
    /// `header` must name a registered type.
    #[inline]
    pub fn is_ref_field(&self, header: Header, field: usize) -> bool {
        self.shape(header).is_ref(header.len(), field)
    }

    /// Whether an object with `header` has any reference field (weak ones
    /// included). `header` must name a registered type.
    pub fn has_ref_fields(&self, header: Header) -> bool {
        let shape = self.shape(header);
        match shape.kind {
            ShapeKind::Fixed => shape.ref_mask != 0 || !shape.wide_refs.is_empty(),
            ShapeKind::RefArray => !header.is_empty(),
            ShapeKind::Tailed => {
                shape.ref_mask != 0
                    || !shape.wide_refs.is_empty()
                    || (shape.tail_refs && !header.is_empty())
            }
            ShapeKind::ByteArray | ShapeKind::Invalid => false,
        }
    }

    /// The reference fields (weak ones included) of objects with `header` as a bit
    /// mask, if its type is fixed-size with all of them among its first 64 fields:
    /// what [`TypeRegistry::for_each_ref_field`] visits, for a caller that keeps
    /// the mask of a type it meets again and again. `None` for other types.
    #[inline]
    pub fn fixed_ref_mask(&self, header: Header) -> Option<u64> {
        let shape = self.checked_shape(header.type_id().0)?;
        (shape.kind == ShapeKind::Fixed && shape.wide_refs.is_empty()).then_some(shape.ref_mask)
    }

    /// Calls `f` with each reference field index of an object with `header`, in
    /// increasing order.
    #[inline]
    pub fn for_each_ref_field(&self, header: Header, mut f: impl FnMut(usize)) {
        let shape = self.shape(header);
        match shape.kind {
            ShapeKind::Fixed => shape.for_each_fixed_part_ref(shape.ref_mask, &mut f),
            ShapeKind::RefArray => (0..header.len() as usize).for_each(f),
            ShapeKind::Tailed => {
                shape.for_each_fixed_part_ref(shape.ref_mask, &mut f);
                shape.for_each_tail_ref(header.len(), f);
            }
            ShapeKind::ByteArray | ShapeKind::Invalid => {}
        }
    }

    /// Calls `f` with each *strong* reference field index of an object with `header`
    /// (the fields marking follows), in increasing order.
    #[inline]
    pub fn for_each_strong_ref_field(&self, header: Header, mut f: impl FnMut(usize)) {
        let shape = self.shape(header);
        match shape.kind {
            ShapeKind::Fixed => {
                shape.for_each_fixed_part_ref(shape.ref_mask & !shape.weak_mask, &mut f)
            }
            ShapeKind::RefArray => (0..header.len() as usize).for_each(f),
            ShapeKind::Tailed => {
                // A tailed type has no weak fields.
                shape.for_each_fixed_part_ref(shape.ref_mask, &mut f);
                shape.for_each_tail_ref(header.len(), f);
            }
            ShapeKind::ByteArray | ShapeKind::Invalid => {}
        }
    }

    /// Whether objects with `header` are ephemerons (`object/ephemeron.rs`).
    /// `header` must name a registered type.
    #[inline(always)]
    pub(crate) fn is_ephemeron(&self, header: Header) -> bool {
        self.shape(header).ephemeron
    }

    /// The weak fields of objects with `header`, as a bit mask (0 for most types).
    #[inline(always)]
    pub fn weak_mask(&self, header: Header) -> u64 {
        self.shape(header).weak_mask
    }

    /// The allocation descriptor of fixed-size type `id`: refused for arrays and
    /// tailed types (their size needs a length), the filler and unknown types.
    pub fn fixed_type(&self, id: TypeId) -> Result<FixedType, GcError> {
        let (header, words) = self.layout(id, 0)?;
        // `layout` found the type registered, so its shape is published here.
        let shape = self.shape(header);
        match shape.kind {
            ShapeKind::Fixed => {
                let lead_refs = (0..shape.fields as usize)
                    .take_while(|&f| {
                        shape.is_ref(0, f) && (f >= 64 || shape.weak_mask >> f & 1 == 0)
                    })
                    .count() as u32;
                Ok(FixedType {
                    header: header.0,
                    words: words as u32,
                    registry: self.id,
                    lead_refs,
                })
            }
            ShapeKind::Tailed => Err(GcError::type_error(format!(
                "{} is a tailed type: allocate it with a tail length (Mutator::alloc)",
                self.name(id)
            ))),
            _ => Err(GcError::type_error(format!(
                "{} is an array type: allocate it with a length",
                self.name(id)
            ))),
        }
    }

    /// The descriptor of reference field `field` of fixed-size type `id` (or of a
    /// tailed type's fixed part), strong or weak: refused unless that field exists
    /// and holds a reference.
    pub fn ref_field(&self, id: TypeId, field: u32) -> Result<RefField, GcError> {
        let (header, offset) = self.field_of(id, field, true)?;
        let weak = field < 64 && self.shape(Header(header)).weak_mask >> field & 1 != 0;
        Ok(RefField {
            expect: if weak { header | WEAK_FIELD } else { header },
            offset,
            registry: self.id,
        })
    }

    /// The descriptor of word field `field` of fixed-size type `id` (or of a
    /// tailed type's fixed part): refused unless that field exists and holds no
    /// reference.
    pub fn word_field(&self, id: TypeId, field: u32) -> Result<WordField, GcError> {
        let (header, offset) = self.field_of(id, field, false)?;
        Ok(WordField {
            header,
            offset,
            registry: self.id,
        })
    }

    fn field_of(&self, id: TypeId, field: u32, want_ref: bool) -> Result<(u64, u32), GcError> {
        let (header, _) = self.layout(id, 0)?;
        // `layout` found the type registered, so its shape is published here.
        let shape = self.shape(header);
        let name = self.name(id);
        if !matches!(shape.kind, ShapeKind::Fixed | ShapeKind::Tailed) {
            return Err(GcError::type_error(format!(
                "{name} is an array type: its elements have no field descriptors"
            )));
        }
        // The descriptor's header: the type index alone (length 0), which is what
        // the access's compare keeps of an object's header (`TYPE_MASK`).
        debug_assert_eq!(header.0 & !TYPE_MASK, 0);
        if field >= shape.fields {
            let what = if shape.kind == ShapeKind::Tailed {
                " in the fixed part"
            } else {
                ""
            };
            return Err(GcError::type_error(format!(
                "{name}: field {field} out of range ({} fields{what})",
                shape.fields
            )));
        }
        if shape.is_ref(0, field as usize) != want_ref {
            return Err(GcError::type_error(format!(
                "{name}: field {field} is{} a reference field",
                if want_ref { " not" } else { "" }
            )));
        }
        Ok((header.0, (field + 1) * WORD as u32))
    }
}

/// The kind of tailed type `name` (`TypeRegistry::tailed`'s checks: the builders'
/// and the run-time registrations' alike): the fixed part checked as a fixed-size
/// type's.
pub(crate) fn tailed_kind(
    name: &str,
    fields: u32,
    refs: &[u32],
    tail: Tail,
) -> Result<TypeKind, GcError> {
    match fixed_kind(name, fields, refs, &[])? {
        TypeKind::Fixed { fields, refs, .. } => Ok(TypeKind::Tailed { fields, refs, tail }),
        _ => unreachable!("fixed_kind makes fixed kinds"),
    }
}

/// The kind of fixed-size type `name` (`TypeRegistry::fixed_weak`'s checks: the
/// builders' and the run-time registrations' alike).
pub(crate) fn fixed_kind(
    name: &str,
    fields: u32,
    refs: &[u32],
    weak: &[u32],
) -> Result<TypeKind, GcError> {
    let mut weak_sorted = weak.to_vec();
    weak_sorted.sort_unstable();
    weak_sorted.dedup();
    if weak_sorted.len() != weak.len() {
        return Err(GcError::type_error(format!(
            "{name:?}: duplicate weak field in {weak:?}"
        )));
    }
    if let Some(bad) = weak_sorted.iter().find(|&&w| w >= fields.min(64)) {
        return Err(GcError::type_error(format!(
            "{name:?}: weak field {bad} is not below {} (weak fields are below 64)",
            fields.min(64)
        )));
    }
    if let Some(both) = weak_sorted.iter().find(|w| refs.contains(w)) {
        return Err(GcError::type_error(format!(
            "{name:?}: field {both} is both a reference and a weak field"
        )));
    }
    if fields > MAX_FIXED_FIELDS {
        return Err(GcError::type_error(format!(
            "{name:?}: {fields} fields exceeds {MAX_FIXED_FIELDS}"
        )));
    }
    let mut sorted = refs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != refs.len() {
        return Err(GcError::type_error(format!(
            "{name:?}: duplicate reference field in {refs:?}"
        )));
    }
    if let Some(bad) = sorted.iter().find(|&&r| r >= fields) {
        return Err(GcError::type_error(format!(
            "{name:?}: reference field {bad} is not below {fields}"
        )));
    }
    Ok(TypeKind::Fixed {
        fields,
        refs: sorted.into(),
        weak: weak_sorted.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_and_reference_fields() {
        let mut r = TypeRegistry::new();
        let pair = r.fixed("pair", 2, &[1, 0]).unwrap();
        let node = r.fixed("node", 4, &[0, 1]).unwrap();
        let vec = r.ref_array("vector").unwrap();
        let bytes = r.byte_array("string").unwrap();
        assert_eq!(r.len(), 5);

        let (h, w) = r.layout(pair, 99).unwrap();
        assert_eq!((h.type_id(), h.len(), w), (pair, 0, 3));
        assert!(r.is_ref_field(h, 0) && r.is_ref_field(h, 1));
        let (h, w) = r.layout(node, 0).unwrap();
        assert_eq!(w, 5);
        assert!(!r.is_ref_field(h, 2) && !r.is_ref_field(h, 3));
        let (h, w) = r.layout(vec, 10).unwrap();
        assert_eq!(w, 11);
        assert!(r.is_ref_field(h, 9) && !r.is_ref_field(h, 10));
        let (h, w) = r.layout(bytes, 9).unwrap();
        assert_eq!(w, 3);
        assert!(!r.is_ref_field(h, 0));
        assert_eq!(r.object_words(h), Some(3));
        let mut fields = vec![];
        r.for_each_ref_field(r.layout(vec, 3).unwrap().0, |f| fields.push(f));
        assert_eq!(fields, vec![0, 1, 2]);
    }

    #[test]
    fn tailed_layouts_and_reference_fields() {
        let mut r = TypeRegistry::new();
        let clos = r.tailed("closure", 3, &[0, 2], Tail::Refs).unwrap();
        let words = r.tailed("words", 2, &[1], Tail::Words).unwrap();
        let (h, w) = r.layout(clos, 4).unwrap();
        assert_eq!((h.type_id(), h.len(), w), (clos, 4, 1 + 3 + 4));
        assert_eq!(r.object_words(h), Some(8));
        let refs: Vec<bool> = (0..8).map(|f| r.is_ref_field(h, f)).collect();
        assert_eq!(refs, [true, false, true, true, true, true, true, false]);
        let mut fields = vec![];
        r.for_each_ref_field(h, |f| fields.push(f));
        assert_eq!(fields, [0, 2, 3, 4, 5, 6]);
        let mut strong = vec![];
        r.for_each_strong_ref_field(h, |f| strong.push(f));
        assert_eq!(strong, fields);
        assert!(r.has_ref_fields(h));
        assert_eq!(
            (r.fixed_scan(h).is_none(), r.fixed_ref_mask(h)),
            (true, None)
        );
        let (h, w) = r.layout(words, 5).unwrap();
        assert_eq!(w, 1 + 2 + 5);
        let mut fields = vec![];
        r.for_each_ref_field(h, |f| fields.push(f));
        assert_eq!(fields, [1]);
        let (empty, w) = r.layout(clos, 0).unwrap();
        assert_eq!(w, 4);
        let mut fields = vec![];
        r.for_each_ref_field(empty, |f| fields.push(f));
        assert_eq!(fields, [0, 2]);
        let bare = r.tailed("bare", 0, &[], Tail::Refs).unwrap();
        assert!(!r.has_ref_fields(r.layout(bare, 0).unwrap().0));
        assert!(r.has_ref_fields(r.layout(bare, 1).unwrap().0));
        // The fixed part's descriptors carry the type index alone.
        let f = r.ref_field(clos, 2).unwrap();
        assert_eq!((f.expect, f.offset), (u64::from(clos.0), 3 * WORD as u32));
        assert!(r.layout(clos, MAX_LEN as usize + 1).is_err());
        assert!(r.fixed_type(clos).is_err());
    }

    #[test]
    fn bad_types_are_refused() {
        let mut r = TypeRegistry::new();
        assert!(r
            .fixed("dup", 3, &[1, 1])
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
        assert!(r
            .fixed("oob", 3, &[3])
            .unwrap_err()
            .to_string()
            .contains("not below 3"));
        assert!(r.fixed("huge", MAX_FIXED_FIELDS + 1, &[]).is_err());
        assert!(r.layout(TypeId(0), 0).is_err());
        assert!(r.layout(FILLER, 0).is_err());
        assert!(r.layout(TypeId(42), 0).is_err());
        let arr = r.ref_array("a").unwrap();
        assert!(r.layout(arr, usize::MAX).is_err());
        assert_eq!(r.object_words(Header(0)), None);
    }
}
