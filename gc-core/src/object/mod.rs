//! The object model: one-word headers, the type registry, object references.
//!
//! An object is `1 + payload` words, word-aligned. Word 0 is the [`Header`];
//! payload word `i` is field `i`. A reference field holds the referent's address
//! (the address of its header), 0 for null, or an *immediate*: any word whose low
//! three bits are not all zero ([`IMMEDIATE_TAG_MASK`]). Object addresses are
//! word-aligned, so the two never collide; the collector reads a reference slot
//! with [`is_ref`] and never traces, forwards or logs an immediate.
//!
//! Layer: object model (docs/architecture.md, "Layers").

mod ephemeron;
mod header;
mod table;
mod types;

pub(crate) use ephemeron::ephemeron_kind;
pub use ephemeron::{EPHEMERON_KEY, EPHEMERON_VALUE};
pub use header::{Header, HASHED};
pub(crate) use types::{fixed_kind, tailed_kind, FixedScan, Shape, ShapeKind, TYPE_MASK};
pub use types::{
    FixedType, RefField, Tail, TypeId, TypeInfo, TypeKind, TypeRegistry, WordField, FILLER,
    MAX_TYPES,
};

/// The low bits that mark a word in a reference slot as an immediate: a word `w`
/// is a reference iff `w != 0 && w & IMMEDIATE_TAG_MASK == 0` ([`is_ref`]).
pub const IMMEDIATE_TAG_MASK: u64 = 7;

/// Whether the word `v`, read from a reference slot, is a reference (not null,
/// not an immediate). Every collector path that reads a reference slot asks this
/// before it marks, forwards, logs or checks the word.
#[inline(always)]
pub const fn is_ref(v: usize) -> bool {
    v != 0 && v as u64 & IMMEDIATE_TAG_MASK == 0
}
