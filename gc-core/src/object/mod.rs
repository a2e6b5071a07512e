//! The object model: one-word headers, the type registry, object references.
//!
//! An object is `1 + payload` words, word-aligned. Word 0 is the [`Header`];
//! payload word `i` is field `i`. A reference field holds the referent's address
//! (the address of its header), or 0 for null.

mod header;
mod table;
mod types;

pub use header::{Header, HASHED};
pub(crate) use types::{fixed_kind, FixedScan, ShapeKind};
pub use types::{
    FixedType, RefField, TypeId, TypeInfo, TypeKind, TypeRegistry, WordField, FILLER, MAX_TYPES,
};
