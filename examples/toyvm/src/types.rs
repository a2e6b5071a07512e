//! The VM's heap object types: [`VmTypes`] and [`register_types`].
//!
//! Every runtime value is a heap object (the empty list is the null reference);
//! numbers, characters and booleans are small boxed objects.

use flipgc_core::{GcError, TypeId, TypeRegistry};

/// The type ids of every VM object kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmTypes {
    /// A pair: car and cdr (references).
    pub pair: TypeId,
    /// A 64-bit integer (one raw word).
    pub int: TypeId,
    /// A 64-bit float (one raw word, the bits).
    pub float: TypeId,
    /// A character (one raw word, the code point).
    pub char: TypeId,
    /// A string: UTF-8 bytes.
    pub string: TypeId,
    /// A symbol (one raw word: its interned id).
    pub symbol: TypeId,
    /// A vector of references.
    pub vector: TypeId,
    /// A closure: element 0 the code object, then the captured values.
    pub closure: TypeId,
    /// Compiled code (one raw word: the prototype index).
    pub code: TypeId,
    /// A builtin procedure (one raw word: its index).
    pub prim: TypeId,
    /// A mutable cell for a captured, assigned local (one reference).
    pub cell: TypeId,
    /// A global variable: value (reference) and raw word `symbol id << 1 | bound`.
    pub global: TypeId,
    /// `#f` (one unused raw word).
    pub false_: TypeId,
    /// `#t` (one unused raw word).
    pub true_: TypeId,
    /// The unspecified value (one unused raw word).
    pub unspec: TypeId,
    /// A thread from `spawn` (one raw word: its index).
    pub thread: TypeId,
}

/// Registers the VM's object types.
pub fn register_types(types: &mut TypeRegistry) -> Result<VmTypes, GcError> {
    Ok(VmTypes {
        pair: types.fixed("scm-pair", 2, &[0, 1])?,
        int: types.fixed("scm-int", 1, &[])?,
        float: types.fixed("scm-float", 1, &[])?,
        char: types.fixed("scm-char", 1, &[])?,
        string: types.byte_array("scm-string")?,
        symbol: types.fixed("scm-symbol", 1, &[])?,
        vector: types.ref_array("scm-vector")?,
        closure: types.ref_array("scm-closure")?,
        code: types.fixed("scm-code", 1, &[])?,
        prim: types.fixed("scm-prim", 1, &[])?,
        cell: types.fixed("scm-cell", 1, &[0])?,
        global: types.fixed("scm-global", 2, &[0])?,
        false_: types.fixed("scm-false", 1, &[])?,
        true_: types.fixed("scm-true", 1, &[])?,
        unspec: types.fixed("scm-unspecified", 1, &[])?,
        thread: types.fixed("scm-thread", 1, &[])?,
    })
}
