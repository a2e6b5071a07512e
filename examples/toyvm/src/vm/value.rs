//! The VM's value representation: what a slot (stack entry, pair or vector
//! element, closure variable, cell, global, hashtable entry, weak pair) holds is
//! a [`Value`]: the null reference (the empty list), a reference to a heap
//! object, or an immediate. The immediates (low three bits not all zero, the
//! collector's rule: `flipgc_core::Value`):
//!
//! | low bits | what | payload |
//! |----------|------|---------|
//! | `xx1`    | fixnum | the integer, 63-bit two's complement (`i << 1 \| 1`) |
//! | `010`    | character | the code point (`code << 3 \| 0b010`) |
//! | `100`    | symbol | its id in the interner (`id << 3 \| 0b100`) |
//! | `110`    | special | `#f` (0), `#t` (1), the unspecified value (2) (`n << 3 \| 0b110`); and (3) [`UNBOUND`], which only an unbound global's cell holds |
//!
//! Integers outside the 63-bit fixnum range but inside 64 bits stay boxed
//! (`scm-int`); an integer in the fixnum range is always a fixnum, so `eqv?` on
//! two fixnums is a compare of their bits, as on two symbols. Floats, strings,
//! `#!bwp` and everything else are heap objects. This file owns the encoding, the
//! classifier [`kind`] ([`Vm::kind_at`]) and the stack readers [`Vm::val`] and [`Vm::obj`].

use super::Vm;
use flipgc_core::{Gc, Value};

/// `#f`.
pub const FALSE: Value<'static> = special(0);
/// `#t`.
pub const TRUE: Value<'static> = special(1);
/// The unspecified value.
pub const UNSPEC: Value<'static> = special(2);
/// What the value field of an unbound global's cell holds (with the bound bit
/// of its word clear), so that a global read tests one field: never a Scheme
/// value, never on the stack or in another object.
pub const UNBOUND: Value<'static> = special(3);

/// The tag of characters (low three bits).
const CHAR_TAG: u64 = 0b010;
/// The tag of the specials (low three bits).
const SPECIAL_TAG: u64 = 0b110;
/// The tag of symbols (low three bits).
const SYMBOL_TAG: u64 = 0b100;

const fn special(n: u64) -> Value<'static> {
    match Value::imm(n << 3 | SPECIAL_TAG) {
        Some(v) => v,
        None => panic!("a special is an immediate"),
    }
}

/// `#t` or `#f`.
#[inline(always)]
pub const fn bool_value(b: bool) -> Value<'static> {
    if b {
        TRUE
    } else {
        FALSE
    }
}

/// The character `c`.
#[inline(always)]
pub fn char_value(c: char) -> Value<'static> {
    Value::imm(u64::from(c) << 3 | CHAR_TAG).expect("a character is an immediate")
}

/// The character `v` encodes, if it is one.
#[inline(always)]
pub fn as_char(v: Value<'_>) -> Option<char> {
    let bits = v.bits();
    if bits & 7 == CHAR_TAG {
        char::from_u32((bits >> 3) as u32)
    } else {
        None
    }
}

/// The symbol whose interned id is `id` (`Shared::intern`).
#[inline(always)]
pub fn symbol_value(id: u64) -> Value<'static> {
    Value::imm(id << 3 | SYMBOL_TAG).expect("a symbol is an immediate")
}

/// The interned id of the symbol `v` encodes, if it is one.
#[inline(always)]
pub fn as_symbol(v: Value<'_>) -> Option<u64> {
    let bits = v.bits();
    (bits & 7 == SYMBOL_TAG).then_some(bits >> 3)
}

/// What a [`Value`] is, from its bits (and, for a reference, nothing more: the
/// object's type is read separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    /// The empty list (null).
    Nil,
    /// A fixnum.
    Fixnum(i64),
    /// A character.
    Char(char),
    /// A symbol: its interned id.
    Symbol(u64),
    /// `#t` or `#f`.
    Bool(bool),
    /// The unspecified value.
    Unspec,
    /// A heap object.
    Obj(Gc<'a>),
}

/// Classifies `v`. Panics on an immediate this VM never makes.
#[inline]
pub fn kind(v: Value<'_>) -> Kind<'_> {
    if v.is_null() {
        return Kind::Nil;
    }
    if let Some(i) = v.as_fixnum() {
        return Kind::Fixnum(i);
    }
    if let Some(g) = v.as_ref() {
        return Kind::Obj(g);
    }
    if let Some(c) = as_char(v) {
        return Kind::Char(c);
    }
    if let Some(id) = as_symbol(v) {
        return Kind::Symbol(id);
    }
    let bits = v.bits();
    if bits == FALSE.bits() {
        Kind::Bool(false)
    } else if bits == TRUE.bits() {
        Kind::Bool(true)
    } else if bits == UNSPEC.bits() {
        Kind::Unspec
    } else {
        panic!("not a toyvm value: {v:?}")
    }
}

impl Vm {
    /// The value at stack index `i`.
    #[inline(always)]
    pub fn val(&self, i: usize) -> Value<'_> {
        self.m.stack_get_value(i)
    }

    /// The heap object at stack index `i`: `None` for the empty list *and* for
    /// an immediate (never read `None` as `()`: use [`Vm::val`] for that).
    #[inline(always)]
    pub fn obj(&self, i: usize) -> Option<Gc<'_>> {
        self.m.stack_get_value(i).as_ref()
    }

    /// What the value at stack index `i` is.
    #[inline]
    pub fn kind_at(&self, i: usize) -> Kind<'_> {
        kind(self.val(i))
    }
}
