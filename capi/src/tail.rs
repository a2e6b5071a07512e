//! Tailed objects from C: registering a type with a fixed part and a tail of
//! references or words ([`flipgc_types_tailed`]), and the tail's elements by
//! element index ([`flipgc_tail_len`], [`flipgc_get_tail`], ...). Allocation is
//! [`crate::flipgc_alloc`] with the tail's length; the fixed part and the tail are
//! also fields by index (`flipgc_get_field`, `flipgc_read_word`, ...: the tail's
//! element `j` is field `fields + j`), and so are the atomic operations
//! (`flipgc_cas_field`, `flipgc_swap_field`, `flipgc_copy_refs`).
//!
//! As elsewhere in the C API, objects are named by root-stack slot, and a misuse
//! (a slot out of range, an index beyond the tail, a tail of the other kind, an
//! object that is not tailed) aborts with a message naming the call.

use crate::mutator::{flipgc_mutator, mutator, obj};
use crate::setup::{cstr, flipgc_types, registered};
use crate::{fail, flipgc_status, guard, live_mut};
use flipgc_core::Tail;
use std::ffi::c_char;

/// [`flipgc_types_tailed`]'s `tail`: the tail holds references.
pub const FLIPGC_TAIL_REFS: u32 = 0;
/// [`flipgc_types_tailed`]'s `tail`: the tail holds plain words.
pub const FLIPGC_TAIL_WORDS: u32 = 1;

/// Registers a tailed type: a fixed part of `fields` payload words, the `nrefs`
/// indices at `refs` holding references, then a tail of references
/// (`FLIPGC_TAIL_REFS`) or words (`FLIPGC_TAIL_WORDS`) whose length is given to
/// `flipgc_alloc`; its index goes to `*out`. `FLIPGC_TYPE_ERROR` for a bad
/// definition, `FLIPGC_INVALID_ARGUMENT` for another `tail` value.
///
/// # Safety
/// As [`crate::flipgc_types_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_tailed(
    types: *mut flipgc_types,
    name: *const c_char,
    fields: u32,
    refs: *const u32,
    nrefs: usize,
    tail: u32,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_types_tailed", || {
        // SAFETY: the caller's contract.
        let r = &mut unsafe { live_mut(types, "flipgc_types_tailed") }.0;
        let tail = match tail {
            FLIPGC_TAIL_REFS => Tail::Refs,
            FLIPGC_TAIL_WORDS => Tail::Words,
            _ => {
                return fail(
                    flipgc_status::FLIPGC_INVALID_ARGUMENT,
                    format!("tail kind {tail} is neither FLIPGC_TAIL_REFS nor FLIPGC_TAIL_WORDS"),
                )
            }
        };
        // SAFETY: `refs` points to `nrefs` values (the caller's contract).
        let refs = unsafe { crate::setup::c_slice(refs, nrefs, "flipgc_types_tailed") };
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(r.tailed(&name, fields, refs, tail), out)
    })
}

/// The tail length of the tailed object in slot `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_tail_len(m: *mut flipgc_mutator, slot: usize) -> usize {
    guard("flipgc_tail_len", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_tail_len") };
        m.tail_len(obj(m, slot))
    })
}

/// Pushes what element `index` of the reference tail of the object in slot
/// `slot` holds (an object, null or an immediate).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_get_tail(m: *mut flipgc_mutator, slot: usize, index: usize) {
    guard("flipgc_get_tail", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_get_tail") };
        let v = m.read_tail_value(obj(m, slot), index);
        m.push_value(v);
    })
}

/// Stores root-stack entry `value` (an object, null or an immediate) into
/// element `index` of the reference tail of the object in slot `slot`, with the
/// write barrier.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_set_tail(
    m: *mut flipgc_mutator,
    slot: usize,
    index: usize,
    value: usize,
) {
    guard("flipgc_set_tail", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_set_tail") };
        let len = m.stack_len();
        assert!(
            value < len,
            "stack slot {value} is out of range (the stack holds {len})"
        );
        m.write_tail_value(obj(m, slot), index, m.stack_get_value(value));
    })
}

/// The word in element `index` of the word tail of the object in slot `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_read_tail_word(
    m: *mut flipgc_mutator,
    slot: usize,
    index: usize,
) -> u64 {
    guard("flipgc_read_tail_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_read_tail_word") };
        m.read_tail_word(obj(m, slot), index)
    })
}

/// Stores `word` into element `index` of the word tail of the object in slot
/// `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_write_tail_word(
    m: *mut flipgc_mutator,
    slot: usize,
    index: usize,
    word: u64,
) {
    guard("flipgc_write_tail_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_write_tail_word") };
        m.write_tail_word(obj(m, slot), index, word);
    })
}
