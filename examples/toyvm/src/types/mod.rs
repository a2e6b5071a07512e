//! The VM's heap object types: [`VmTypes`] and [`register_types`].
//!
//! A runtime value is a `flipgc_core::Value`: the empty list is the null
//! reference; fixnums (63-bit integers), characters, `#t`, `#f` and the
//! unspecified value are immediates (tagged words, never heap objects: see
//! `crate::vm::value` for the encoding); everything else is a heap object of one
//! of the types here. Integers outside the fixnum range but inside 64 bits are
//! boxed (`scm-int`), as are all floats.
//!
//! Besides the type ids, [`VmTypes`] holds the checked-once descriptors of the
//! fixed-size types ([`FixedTypes`], for allocation) and of their fields (for
//! access): the interpreter's hot paths use those. A descriptor used on an object
//! of another type panics, so code that must report a Scheme-level type error
//! checks the type first (`m.type_of(g) == t.pair`), then uses the descriptor.
//! Vectors are arrays, allocated with a length and read by index; closures are
//! tailed objects (a fixed part, one raw word: the index of their prototype,
//! then a tail of captured values), allocated with the number of captured
//! values: their prototype is read and written through a descriptor, a
//! captured value by tail index.
//! Continuations ([`ContDesc`]) are tailed objects too. The runtime features'
//! types (weak pairs, `#!bwp`, hashtables, guardians) are in [`runtime`];
//! ports, `#<eof>`, error objects and bytevectors in [`io`].

pub mod io;
pub mod runtime;

pub use io::IoTypes;
pub use runtime::{EntryDesc, RtTypes, WeakPairDesc};

use flipgc_core::{FixedType, GcError, RefField, Tail, TypeId, TypeRegistry, WordField};

/// The type ids of every VM object kind, and the descriptors of the fixed-size
/// ones and of their fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmTypes {
    /// A pair: car and cdr (references).
    pub pair: TypeId,
    /// A 64-bit integer outside the 63-bit fixnum range (one raw word).
    pub int: TypeId,
    /// A 64-bit float (one raw word, the bits).
    pub float: TypeId,
    /// A string: UTF-8 bytes.
    pub string: TypeId,
    /// A vector of references.
    pub vector: TypeId,
    /// A record (`builtins/record.rs`): a reference array, element 0 its
    /// record type, then its fields.
    pub record: TypeId,
    /// A closure: field 0 its prototype's index (a raw word, its fixed part),
    /// then a tail of the captured values (fields `1..`).
    pub closure: TypeId,
    /// A builtin procedure (one raw word: its index).
    pub prim: TypeId,
    /// A mutable cell for a captured, assigned local (one reference).
    pub cell: TypeId,
    /// A global variable: value (reference) and raw word `symbol id << 1 | bound`.
    pub global: TypeId,
    /// A thread from `spawn` (one raw word: its index).
    pub thread: TypeId,
    /// Allocation descriptors of the fixed-size types.
    pub alloc: FixedTypes,
    /// A pair's car.
    pub car: RefField,
    /// A pair's cdr.
    pub cdr: RefField,
    /// A cell's value.
    pub cell_value: RefField,
    /// A closure's prototype index (into the VM's prototypes).
    pub closure_proto: WordField,
    /// A global's value.
    pub global_value: RefField,
    /// A global's raw word: `symbol id << 1 | bound`.
    pub global_word: WordField,
    /// An integer's value (the `i64` as `u64`).
    pub int_value: WordField,
    /// A float's bits.
    pub float_bits: WordField,
    /// A builtin's index in [`crate::builtins::BUILTINS`].
    pub prim_index: WordField,
    /// A thread's index among the spawned threads.
    pub thread_index: WordField,
    /// Weak pairs, `#!bwp`, hashtables and guardians.
    pub rt: RtTypes,
    /// Ports, the end-of-file object, error objects and bytevectors.
    pub io: IoTypes,
    /// Continuations.
    pub cont: ContDesc,
}

/// A continuation (`crate::vm` `cont.rs`): a tailed object whose fixed part is
/// four words and whose reference tail holds the captured value-stack entries,
/// then the captured frames as three fixnums each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContDesc {
    /// Its type.
    pub ty: TypeId,
    /// The id of the barrier it was captured under.
    pub barrier: WordField,
    /// That barrier's stack base.
    pub base: WordField,
    /// The index of that barrier's sentinel frame.
    pub frame: WordField,
    /// How many tail elements are stack entries (the rest are frames).
    pub nstack: WordField,
}

/// The allocation descriptor of every fixed-size VM type (see [`VmTypes`] for
/// what each holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedTypes {
    /// Pairs.
    pub pair: FixedType,
    /// Integers.
    pub int: FixedType,
    /// Floats.
    pub float: FixedType,
    /// Builtin procedures.
    pub prim: FixedType,
    /// Cells.
    pub cell: FixedType,
    /// Globals.
    pub global: FixedType,
    /// Threads.
    pub thread: FixedType,
}

/// Registers the VM's object types and makes their descriptors.
pub fn register_types(types: &mut TypeRegistry) -> Result<VmTypes, GcError> {
    let pair = types.fixed("scm-pair", 2, &[0, 1])?;
    let int = types.fixed("scm-int", 1, &[])?;
    let float = types.fixed("scm-float", 1, &[])?;
    let string = types.byte_array("scm-string")?;
    let vector = types.ref_array("scm-vector")?;
    let closure = types.tailed("scm-closure", 1, &[], Tail::Refs)?;
    let prim = types.fixed("scm-prim", 1, &[])?;
    let cell = types.fixed("scm-cell", 1, &[0])?;
    let global = types.fixed("scm-global", 2, &[0])?;
    let thread = types.fixed("scm-thread", 1, &[])?;
    let cont = types.tailed("scm-continuation", 4, &[], Tail::Refs)?;
    let record = types.ref_array("scm-record")?;
    let alloc = FixedTypes {
        pair: types.fixed_type(pair)?,
        int: types.fixed_type(int)?,
        float: types.fixed_type(float)?,
        prim: types.fixed_type(prim)?,
        cell: types.fixed_type(cell)?,
        global: types.fixed_type(global)?,
        thread: types.fixed_type(thread)?,
    };
    Ok(VmTypes {
        pair,
        int,
        float,
        string,
        vector,
        record,
        closure,
        prim,
        cell,
        global,
        thread,
        alloc,
        car: types.ref_field(pair, 0)?,
        cdr: types.ref_field(pair, 1)?,
        cell_value: types.ref_field(cell, 0)?,
        closure_proto: types.word_field(closure, 0)?,
        global_value: types.ref_field(global, 0)?,
        global_word: types.word_field(global, 1)?,
        int_value: types.word_field(int, 0)?,
        float_bits: types.word_field(float, 0)?,
        prim_index: types.word_field(prim, 0)?,
        thread_index: types.word_field(thread, 0)?,
        rt: runtime::register(types)?,
        io: io::register(types)?,
        cont: ContDesc {
            ty: cont,
            barrier: types.word_field(cont, 0)?,
            base: types.word_field(cont, 1)?,
            frame: types.word_field(cont, 2)?,
            nstack: types.word_field(cont, 3)?,
        },
    })
}
