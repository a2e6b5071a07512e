//! Entry points for generated code and the atomic field operations, over the
//! Rust ones (`flipgc_core`'s `jit.rs`; docs/architecture.md, "Generated code",
//! gives the protocols: the poll, the barrier's flag test and slow path, the
//! release store).

use crate::guard;
use crate::mutator::{flipgc_mutator, mutator, obj};

/// The address of the safepoint-poll byte: generated code loads it (a relaxed
/// byte load, not hoisted out of loops) and calls [`flipgc_poll_slow`] when it
/// is not zero. Valid while the heap lives.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_poll_word(m: *mut flipgc_mutator) -> *const u8 {
    guard("flipgc_poll_word", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_poll_word") }.safepoint_poll_addr()
    })
}

/// The poll's slow path: a GC point (objects move; only root-stack slots,
/// handles and globals follow).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_poll_slow(m: *mut flipgc_mutator) {
    guard("flipgc_poll_slow", || {
        // SAFETY: the caller's contract: live, this thread's, unaliased.
        let m = unsafe { mutator(m, "flipgc_poll_slow") };
        // SAFETY: `m` is a live mutator of this thread, borrowed nowhere else.
        unsafe { flipgc_core::flipgc_safepoint_slow(m) };
    })
}

/// The address of the write barrier's flag byte: before a store into a
/// reference field, generated code tests it and, if set, calls
/// [`flipgc_barrier_slow`] with the field's address, then stores with release.
/// Valid while the mutator is not freed; it may change at any GC point.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_barrier_flag(m: *mut flipgc_mutator) -> *const u8 {
    guard("flipgc_barrier_flag", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_barrier_flag") }.barrier_flag_addr()
    })
}

/// The write barrier's slow path for a store into the strong reference field at
/// address `slot` (`object + 8 * (1 + field)`), called before the store. Not a
/// GC point.
///
/// # Safety
/// `m` is a live mutator of this thread; `slot` is a strong reference field of a
/// live object of its heap (an address outside the heap aborts).
#[no_mangle]
pub unsafe extern "C" fn flipgc_barrier_slow(m: *mut flipgc_mutator, slot: usize) {
    guard("flipgc_barrier_slow", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_barrier_slow") };
        // SAFETY: the caller's contract on `slot`; `m` is live and this thread's.
        unsafe { flipgc_core::flipgc_write_barrier_slow(m, slot) };
    })
}

/// The card mark after a store of a reference into the field at address `slot`
/// (strong or weak): part of every generated reference store, after the
/// release store and before the next GC point (a young collection reads only
/// the old objects on marked cards: a store without its mark can lose the
/// objects it makes reachable). A slot outside the moving space (a large
/// object's) needs no mark (the collector reads the moving space's cards
/// only). Not a GC point. Generated code may instead inline
/// it: store the byte 1 at `flipgc_card_table(m) + ((slot - start) >> 9)` when
/// `slot - start < len`, with `start` and `len` from [`flipgc_moving_space`].
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_card_mark(m: *mut flipgc_mutator, slot: usize) {
    guard("flipgc_card_mark", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_card_mark") };
        // SAFETY: `m` is a live mutator of this thread.
        unsafe { flipgc_core::flipgc_card_mark(m, slot) };
    })
}

/// The byte of the moving space's first card, for an inlined card mark
/// ([`flipgc_card_mark`]).
/// Valid while the heap lives.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_card_table(m: *mut flipgc_mutator) -> *const u8 {
    guard("flipgc_card_table", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_card_table") }.card_table_addr()
    })
}

/// The moving space's start address and length in bytes, through `start` and
/// `len` (either may be null): stores into objects in it take a card mark.
/// Fixed for the heap's life.
///
/// # Safety
/// `m` is a live mutator of this thread; `start` and `len` are null or valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn flipgc_moving_space(
    m: *mut flipgc_mutator,
    start: *mut usize,
    len: *mut usize,
) {
    guard("flipgc_moving_space", || {
        // SAFETY: the caller's contract.
        let r = unsafe { mutator(m, "flipgc_moving_space") }.moving_space();
        // SAFETY: each pointer is null or valid for a write (the caller's contract).
        unsafe {
            if !start.is_null() {
                *start = r.start;
            }
            if !len.is_null() {
                *len = r.end - r.start;
            }
        }
    })
}

/// The word in root-stack entry `slot`: an object's address, 0, or an immediate.
/// An address is valid until the next GC point; generated code that works on
/// raw addresses must call `flipgc_poll_slow` (or anything that can collect) only
/// with its references back in root-stack slots.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_word(m: *mut flipgc_mutator, slot: usize) -> u64 {
    guard("flipgc_stack_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_stack_word") };
        let len = m.stack_len();
        assert!(
            slot < len,
            "stack slot {slot} is out of range (the stack holds {len})"
        );
        m.stack_get_value(slot).bits()
    })
}

/// Compare-and-swap on reference field (or array element, or tail element:
/// field `fields + j` of a tailed object) `field` of the object in slot
/// `obj_slot`: if it holds the value of slot `expected`, stores the value
/// of slot `new` (with the write barrier) and returns 1; else returns 0. The
/// values, and what the field holds, may be objects, null or immediates
/// (compared by their bits).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_cas_field(
    m: *mut flipgc_mutator,
    obj_slot: usize,
    field: usize,
    expected: usize,
    new: usize,
) -> i32 {
    guard("flipgc_cas_field", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_cas_field") };
        let (e, n) = (m.stack_get_value(expected), m.stack_get_value(new));
        i32::from(
            m.compare_exchange_value_at(obj(m, obj_slot), field, e, n)
                .is_ok(),
        )
    })
}

/// Stores the value of slot `new` (an object, null or an immediate) into
/// reference field (or array or tail element, as for [`flipgc_cas_field`])
/// `field` of the object in slot `obj_slot`, atomically, with the write
/// barrier, and pushes the value it replaced (an immediate too).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_swap_field(
    m: *mut flipgc_mutator,
    obj_slot: usize,
    field: usize,
    new: usize,
) {
    guard("flipgc_swap_field", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_swap_field") };
        let old = m.swap_value_at(obj(m, obj_slot), field, m.stack_get_value(new));
        m.push_value(old);
    })
}

/// Copies elements `src_index .. src_index + n` of the reference array in slot
/// `src_slot` over elements `dst_index ..` of the one in `dst_slot` (the same
/// array or another; overlapping ranges as `memmove`), with the write barrier on
/// every overwritten element: `System.arraycopy`. Either object may instead be a
/// tailed object with a reference tail: its indices are then field indices
/// (`fields + j` for tail element `j`) and the range must lie in its tail.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_copy_refs(
    m: *mut flipgc_mutator,
    src_slot: usize,
    src_index: usize,
    dst_slot: usize,
    dst_index: usize,
    n: usize,
) {
    guard("flipgc_copy_refs", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_copy_refs") };
        m.copy_refs(obj(m, src_slot), src_index, obj(m, dst_slot), dst_index, n);
    })
}
