//! Tagged immediates: [`Value`], what a reference slot holds (null, a reference,
//! or an immediate), and the mutator's accessors that read and write one in every
//! slot kind: reference fields (by descriptor and by index, array elements
//! included), the root stack, handles and globals.
//!
//! The tag rule is fixed and costs the collector one mask test per slot
//! ([`crate::object::is_ref`]): a word is a reference iff it is nonzero and its low
//! three bits are clear. Any word with one of those bits set is an immediate,
//! which the collector never traces, forwards or logs in its barrier. A VM picks
//! its encoding inside that rule: 63-bit fixnums with the low bit set
//! ([`Value::fixnum`]), and other immediates (characters, booleans, the empty
//! list) under the tags `0b010`, `0b100`, `0b110` ([`Value::imm`]) are the usual
//! choices. A scheme that tags *pointers* instead (V8's heap-object bit) is not one
//! of them.
//!
//! The `Option<Gc>` readers ([`Mutator::get_ref`], [`Mutator::read_ref`],
//! [`Mutator::pop`], ...) panic on an immediate rather than forge a reference.
//!
//! A `Value<'m>` borrows its mutator, as a `Gc<'m>` does; the encoding itself
//! ([`is_ref`], [`IMMEDIATE_TAG_MASK`]) is the object model's (`object/mod.rs`).
//! Layer: mutator API (docs/architecture.md, "Layers").

use crate::mem;
use crate::mutator::{Gc, Mutator};
use crate::object::{is_ref, RefField, IMMEDIATE_TAG_MASK};
use crate::roots::{Global, Handle};
use std::marker::PhantomData;

/// What a reference slot holds: null, a reference ([`Gc`]), or an immediate (a
/// word with a nonzero low-3-bit tag). Like a `Gc`, a `Value` holding a reference
/// is valid until its mutator's next GC point; an immediate is valid for ever.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value<'m> {
    bits: u64,
    _m: PhantomData<Gc<'m>>,
}

/// The largest fixnum [`Value::fixnum`] encodes (63-bit two's complement).
pub const FIXNUM_MAX: i64 = i64::MAX >> 1;
/// The smallest fixnum [`Value::fixnum`] encodes.
pub const FIXNUM_MIN: i64 = i64::MIN >> 1;

impl<'m> Value<'m> {
    /// Null.
    pub const NULL: Value<'static> = Value {
        bits: 0,
        _m: PhantomData,
    };

    #[inline(always)]
    pub(crate) const fn from_bits(bits: u64) -> Self {
        Value {
            bits,
            _m: PhantomData,
        }
    }

    /// The immediate with raw word `bits`, or `None` if `bits` is not one (its low
    /// three bits are all clear: null, or what could be an object address).
    #[inline(always)]
    pub const fn imm(bits: u64) -> Option<Self> {
        if bits & IMMEDIATE_TAG_MASK != 0 {
            Some(Value::from_bits(bits))
        } else {
            None
        }
    }

    /// The fixnum `i` as an immediate, `i << 1 | 1`, or `None` outside
    /// [`FIXNUM_MIN`]`..=`[`FIXNUM_MAX`].
    #[inline(always)]
    pub const fn fixnum(i: i64) -> Option<Self> {
        if i < FIXNUM_MIN || i > FIXNUM_MAX {
            None
        } else {
            Some(Value::from_bits(((i << 1) | 1) as u64))
        }
    }

    /// The fixnum this value encodes (low bit set), if it is one.
    #[inline(always)]
    pub const fn as_fixnum(self) -> Option<i64> {
        if self.bits & 1 != 0 {
            Some(self.bits as i64 >> 1)
        } else {
            None
        }
    }

    /// The raw word: 0, an object's address, or the immediate's bits.
    #[inline(always)]
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// Whether this is null.
    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.bits == 0
    }

    /// Whether this is an immediate.
    #[inline(always)]
    pub const fn is_imm(self) -> bool {
        self.bits & IMMEDIATE_TAG_MASK != 0
    }

    /// The reference, if this is one.
    #[inline(always)]
    pub fn as_ref(self) -> Option<Gc<'m>> {
        is_ref(self.bits as usize).then(|| Gc::new(self.bits as usize))
    }

    /// The immediate's bits, if this is one.
    #[inline(always)]
    pub const fn as_imm(self) -> Option<u64> {
        if self.is_imm() {
            Some(self.bits)
        } else {
            None
        }
    }
}

impl<'m> From<Gc<'m>> for Value<'m> {
    #[inline(always)]
    fn from(g: Gc<'m>) -> Self {
        Value::from_bits(g.addr as u64)
    }
}

impl<'m> From<Option<Gc<'m>>> for Value<'m> {
    #[inline(always)]
    fn from(g: Option<Gc<'m>>) -> Self {
        Value::from_bits(g.map_or(0, |g| g.addr as u64))
    }
}

impl std::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_null() {
            write!(f, "Value::NULL")
        } else if let Some(i) = self.as_fixnum() {
            write!(f, "Value::fixnum({i})")
        } else if self.is_imm() {
            write!(f, "Value::imm({:#x})", self.bits)
        } else {
            write!(f, "Value({:?})", Gc::new(self.bits as usize))
        }
    }
}

impl Mutator {
    /// `value`'s word after checking that a reference in it is of this heap
    /// (panics otherwise); null and immediates pass as they are.
    #[inline(always)]
    pub(crate) fn checked_word(&self, value: Value<'_>) -> usize {
        match value.as_ref() {
            Some(g) => self.checked_value(Some(g)),
            None => value.bits as usize,
        }
    }

    /// What reference field `f` of `obj` holds. Panics if `obj` is not of `f`'s
    /// type. A weak field reads as null once its referent was found unreachable.
    #[inline]
    pub fn get_value<'m>(&'m self, obj: Gc<'m>, f: RefField) -> Value<'m> {
        if !self.descriptor_fits(obj, f.expect, f.registry) {
            return Value::from_bits(self.load_field_cold(obj, f) as u64);
        }
        // SAFETY: the field lies inside `obj` (its type's layout, checked when `f`
        // was made and by the header compare). Acquire, as in `get_ref`.
        Value::from_bits(unsafe { mem::load_acquire(obj.addr + f.offset as usize) })
    }

    /// Stores `value` (null, an immediate, or an object of this heap) into reference
    /// field `f` of `obj`, with the write barrier (which skips an overwritten
    /// immediate). Panics if `obj` is not of `f`'s type or a reference in `value`
    /// is not of this heap.
    #[inline]
    pub fn set_value(&self, obj: Gc<'_>, f: RefField, value: Value<'_>) {
        let v = self.checked_word(value);
        if !self.descriptor_fits(obj, f.expect, f.registry) {
            return self.store_fields_cold(obj, [f], [v]);
        }
        // SAFETY: `obj` is of `f`'s type and `f` is strong (checked above); `v` is
        // null, an immediate, or was checked to be an object of this heap.
        unsafe { self.store_strong_value(obj, f, v) };
    }

    /// What reference field (or array element) `field` of `obj` holds. Panics if it
    /// is not a reference field.
    #[inline(always)]
    pub fn read_value<'m>(&'m self, obj: Gc<'m>, field: usize) -> Value<'m> {
        let (at, weak) = self.ref_slot(obj, field);
        // SAFETY: `at` is a field of a live object of this heap. Acquire, as in
        // `read_ref`.
        let v = unsafe { mem::load_acquire(at) };
        if weak {
            self.weak_read(v as usize);
        }
        Value::from_bits(v)
    }

    /// Stores `value` into reference field (or array element) `field` of `obj`,
    /// with the write barrier. Panics if it is not a reference field, or a
    /// reference in `value` is not of this heap.
    #[inline]
    pub fn write_value(&self, obj: Gc<'_>, field: usize, value: Value<'_>) {
        self.store_by_index(obj, field, || self.checked_word(value));
    }

    /// Pushes `value` on the root stack.
    #[inline]
    pub fn push_value(&self, value: Value<'_>) {
        let v = self.checked_word(value);
        self.push_raw(v as u64);
    }

    /// Pops the root stack. Panics if it is empty.
    #[inline]
    pub fn pop_value<'m>(&'m self) -> Value<'m> {
        Value::from_bits(self.pop_raw())
    }

    /// Root stack entry `i` (0 is the bottom). Panics if out of range.
    #[inline]
    pub fn stack_get_value<'m>(&'m self, i: usize) -> Value<'m> {
        Value::from_bits(self.stack_word(i))
    }

    /// Overwrites root stack entry `i`. Panics if out of range, or a reference in
    /// `value` is not of this heap.
    #[inline]
    pub fn stack_set_value(&self, i: usize, value: Value<'_>) {
        let v = self.checked_word(value);
        self.set_stack_word(i, v as u64);
    }

    /// A new handle holding `value` (a handle may hold an immediate or null; read
    /// it back with [`Mutator::handle_value`]).
    pub fn root_value(&self, value: Value<'_>) -> Handle {
        let v = self.checked_word(value);
        self.new_handle(v as u64)
    }

    /// What `handle` holds.
    #[inline]
    pub fn handle_value<'m>(&'m self, handle: &Handle) -> Value<'m> {
        Value::from_bits(self.handle_word(handle))
    }

    /// Points `handle` at `value`.
    pub fn set_handle_value(&self, handle: &Handle, value: Value<'_>) {
        let v = self.checked_word(value);
        self.set_handle_word(handle, v as u64);
    }

    /// A heap-wide root holding `value`, usable from any thread.
    pub fn global_value(&self, value: Value<'_>) -> Global {
        let v = self.checked_word(value);
        self.new_global(v as u64)
    }

    /// What `global` holds.
    pub fn get_global_value<'m>(&'m self, global: &Global) -> Value<'m> {
        Value::from_bits(self.global_word(global))
    }

    /// Points `global` at `value`.
    pub fn set_global_value(&self, global: &Global, value: Value<'_>) {
        let v = self.checked_word(value);
        self.set_global_word(global, v as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        for i in [0, 1, -1, 42, FIXNUM_MAX, FIXNUM_MIN] {
            let v = Value::fixnum(i).unwrap();
            assert!(v.is_imm() && !v.is_null());
            assert_eq!(v.as_fixnum(), Some(i));
            assert_eq!(v.as_ref(), None);
        }
        assert!(Value::fixnum(FIXNUM_MAX + 1).is_none());
        assert!(Value::fixnum(FIXNUM_MIN - 1).is_none());
        for bits in [0u64, 8, 0x1000, 0xdead_bee8] {
            assert!(Value::imm(bits).is_none(), "{bits:#x} is no immediate");
        }
        let c = Value::imm(u64::from('λ') << 3 | 0b010).unwrap();
        assert_eq!(c.as_fixnum(), None);
        assert_eq!(c.as_imm(), Some(u64::from('λ') << 3 | 0b010));
        assert!(Value::NULL.is_null() && Value::NULL.as_ref().is_none());
    }
}
