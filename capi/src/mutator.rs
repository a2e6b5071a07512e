//! Mutators: binding a thread, allocation, the root stack, field and array
//! access, safepoints, `blocking`, collection and verification.
//!
//! Objects are named by root-stack index (`slot`); a call given a slot out of
//! range, a null or an immediate where an object is needed, or a field of the
//! wrong kind aborts with a message naming the call.

use crate::setup::flipgc_heap;
use crate::{fail, flipgc_status, gc_fail, guard, live, live_mut, status};
use flipgc_core::{Gc, Mutator, Value};
use std::ffi::c_void;

/// A thread's mutator (`flipgc_core::Mutator`). Use it, and free it, only on the
/// thread that bound it.
pub struct flipgc_mutator(pub(crate) Mutator);

/// The mutator behind `m`.
///
/// # Safety
/// `m` is a live mutator of this thread, not borrowed elsewhere.
pub(crate) unsafe fn mutator<'a>(m: *mut flipgc_mutator, name: &str) -> &'a mut Mutator {
    // SAFETY: the caller's contract.
    &mut unsafe { live_mut(m, name) }.0
}

/// The object in root-stack slot `slot`; panics (an abort at the boundary) if the
/// slot is out of range or holds null or an immediate.
pub(crate) fn obj(m: &Mutator, slot: usize) -> Gc<'_> {
    let len = m.stack_len();
    assert!(
        slot < len,
        "stack slot {slot} is out of range (the stack holds {len})"
    );
    match m.stack_get_value(slot).as_ref() {
        Some(g) => g,
        None => panic!("stack slot {slot} holds no object"),
    }
}

/// Binds a mutator for the calling thread to `heap`; it goes to `*out`.
/// `FLIPGC_BAD_CONFIG` if the binding is refused (two threads each holding
/// mutators of the same two heaps could stop each other for ever).
///
/// # Safety
/// `heap` is live; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_mutator_bind(
    heap: *const flipgc_heap,
    out: *mut *mut flipgc_mutator,
) -> flipgc_status {
    guard("flipgc_mutator_bind", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_mutator_bind") }.0;
        match h.bind_mutator() {
            Ok(m) => {
                let p = Box::into_raw(Box::new(flipgc_mutator(m)));
                // SAFETY: `out` is writable (the caller's contract).
                unsafe { *live_mut(out, "flipgc_mutator_bind") = p };
                flipgc_status::FLIPGC_OK
            }
            Err(e) => gc_fail(e),
        }
    })
}

/// Frees a mutator (deregisters the thread). Its root stack goes with it.
///
/// # Safety
/// `m` is null or a live mutator bound on this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_mutator_free(m: *mut flipgc_mutator) {
    if !m.is_null() {
        // SAFETY: the caller's contract.
        guard("flipgc_mutator_free", || drop(unsafe { Box::from_raw(m) }));
    }
}

/// Allocates a zeroed object of type `type_index` (`len` elements or bytes for an
/// array; ignored for a fixed type) and pushes it on the root stack. A GC point.
/// `FLIPGC_OUT_OF_MEMORY` after a full collection could not make room;
/// `FLIPGC_TYPE_ERROR` for an unknown type.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_alloc(
    m: *mut flipgc_mutator,
    type_index: u32,
    len: usize,
) -> flipgc_status {
    guard("flipgc_alloc", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_alloc") };
        let Some(ty) = m.heap().types().type_id(type_index) else {
            return fail(
                flipgc_status::FLIPGC_TYPE_ERROR,
                format!("no type with index {type_index}"),
            );
        };
        status(m.alloc_push(ty, len))
    })
}

/// The root stack's depth.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_len(m: *mut flipgc_mutator) -> usize {
    guard("flipgc_stack_len", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_stack_len") }.stack_len()
    })
}

/// Shrinks the root stack to `len` entries (no effect if it holds fewer).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_truncate(m: *mut flipgc_mutator, len: usize) {
    guard("flipgc_stack_truncate", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_stack_truncate") }.stack_truncate(len)
    })
}

/// Pushes a copy of root-stack entry `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_dup(m: *mut flipgc_mutator, slot: usize) {
    guard("flipgc_stack_dup", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_stack_dup") };
        let len = m.stack_len();
        assert!(
            slot < len,
            "stack slot {slot} is out of range (the stack holds {len})"
        );
        m.stack_dup(slot);
    })
}

/// Overwrites root-stack entry `to` with a copy of entry `from` (a cursor moving
/// along a list, say).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_set(m: *mut flipgc_mutator, to: usize, from: usize) {
    guard("flipgc_stack_set", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_stack_set") };
        let len = m.stack_len();
        for slot in [to, from] {
            assert!(
                slot < len,
                "stack slot {slot} is out of range (the stack holds {len})"
            );
        }
        m.stack_copy(from, to);
    })
}

/// Pushes null.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_push_null(m: *mut flipgc_mutator) {
    guard("flipgc_push_null", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_push_null") }.push(None)
    })
}

/// Pushes the immediate `bits` (its low three bits not all zero;
/// `FLIPGC_INVALID_ARGUMENT` otherwise). A fixnum `i` is `(i << 1) | 1`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_push_imm(m: *mut flipgc_mutator, bits: u64) -> flipgc_status {
    guard("flipgc_push_imm", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_push_imm") };
        match Value::imm(bits) {
            Some(v) => {
                m.push_value(v);
                flipgc_status::FLIPGC_OK
            }
            None => not_imm(bits),
        }
    })
}

fn not_imm(bits: u64) -> flipgc_status {
    fail(
        flipgc_status::FLIPGC_INVALID_ARGUMENT,
        format!("{bits:#x} is not an immediate (its low three bits are all zero)"),
    )
}

/// What root-stack entry `slot` holds: 0 null, 1 an object, 2 an immediate (its
/// bits go to `*bits` if `bits` is not null).
///
/// # Safety
/// `m` is a live mutator of this thread; `bits` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_kind(
    m: *mut flipgc_mutator,
    slot: usize,
    bits: *mut u64,
) -> i32 {
    guard("flipgc_stack_kind", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_stack_kind") };
        let len = m.stack_len();
        assert!(
            slot < len,
            "stack slot {slot} is out of range (the stack holds {len})"
        );
        let v = m.stack_get_value(slot);
        if let Some(b) = v.as_imm() {
            if !bits.is_null() {
                // SAFETY: writable (the caller's contract).
                unsafe { *bits = b };
            }
            2
        } else {
            i32::from(!v.is_null())
        }
    })
}

/// Whether root-stack entries `a` and `b` hold the same value (the same object,
/// both null, or the same immediate).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_stack_same(m: *mut flipgc_mutator, a: usize, b: usize) -> i32 {
    guard("flipgc_stack_same", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_stack_same") };
        i32::from(m.stack_get_value(a) == m.stack_get_value(b))
    })
}

/// Pushes what reference field (or array element) `field` of the object in slot
/// `slot` holds.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_get_field(m: *mut flipgc_mutator, slot: usize, field: usize) {
    guard("flipgc_get_field", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_get_field") };
        let v = m.read_value(obj(m, slot), field);
        m.push_value(v);
    })
}

/// Stores root-stack entry `value` (an object, null or an immediate) into
/// reference field (or array element) `field` of the object in slot `slot`, with
/// the write barrier.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_set_field(
    m: *mut flipgc_mutator,
    slot: usize,
    field: usize,
    value: usize,
) {
    guard("flipgc_set_field", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_set_field") };
        let len = m.stack_len();
        assert!(
            value < len,
            "stack slot {value} is out of range (the stack holds {len})"
        );
        m.write_value(obj(m, slot), field, m.stack_get_value(value));
    })
}

/// Stores the immediate `bits` into reference field (or array element) `field`
/// of the object in slot `slot`; `FLIPGC_INVALID_ARGUMENT` if `bits` is not one.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_set_field_imm(
    m: *mut flipgc_mutator,
    slot: usize,
    field: usize,
    bits: u64,
) -> flipgc_status {
    guard("flipgc_set_field_imm", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_set_field_imm") };
        let Some(v) = Value::imm(bits) else {
            return not_imm(bits);
        };
        m.write_value(obj(m, slot), field, v);
        flipgc_status::FLIPGC_OK
    })
}

/// The word in non-reference field `field` of the object in slot `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_read_word(
    m: *mut flipgc_mutator,
    slot: usize,
    field: usize,
) -> u64 {
    guard("flipgc_read_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_read_word") };
        m.read_word(obj(m, slot), field)
    })
}

/// Stores `word` into non-reference field `field` of the object in slot `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_write_word(
    m: *mut flipgc_mutator,
    slot: usize,
    field: usize,
    word: u64,
) {
    guard("flipgc_write_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_write_word") };
        m.write_word(obj(m, slot), field, word);
    })
}

/// The element count of an array (bytes of a byte array; payload words of a
/// fixed-size object, or of a tailed object: fixed part plus tail) in slot
/// `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_length(m: *mut flipgc_mutator, slot: usize) -> usize {
    guard("flipgc_length", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_length") };
        m.len(obj(m, slot))
    })
}

/// The type index of the object in slot `slot`.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_type_of(m: *mut flipgc_mutator, slot: usize) -> u32 {
    guard("flipgc_type_of", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_type_of") };
        m.type_of(obj(m, slot)).index()
    })
}

/// Copies `n` bytes of the byte array in slot `slot`, from `offset`, to `out`.
///
/// # Safety
/// `m` is a live mutator of this thread; `out` has room for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn flipgc_read_bytes(
    m: *mut flipgc_mutator,
    slot: usize,
    offset: usize,
    out: *mut u8,
    n: usize,
) {
    guard("flipgc_read_bytes", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_read_bytes") };
        if n == 0 {
            return;
        }
        // SAFETY: `out` has room for `n` bytes (the caller's contract).
        let buf = unsafe { std::slice::from_raw_parts_mut(live_mut(out, "flipgc_read_bytes"), n) };
        m.read_bytes(obj(m, slot), offset, buf);
    })
}

/// Copies `n` bytes from `data` into the byte array in slot `slot`, at `offset`.
///
/// # Safety
/// `m` is a live mutator of this thread; `data` holds `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn flipgc_write_bytes(
    m: *mut flipgc_mutator,
    slot: usize,
    offset: usize,
    data: *const u8,
    n: usize,
) {
    guard("flipgc_write_bytes", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_write_bytes") };
        if n == 0 {
            return;
        }
        // SAFETY: `data` holds `n` bytes (the caller's contract).
        let buf = unsafe { std::slice::from_raw_parts(live(data, "flipgc_write_bytes"), n) };
        m.write_bytes(obj(m, slot), offset, buf);
    })
}

/// Parks here if another thread has requested a collection. Loops that do not
/// allocate call it regularly.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_safepoint(m: *mut flipgc_mutator) {
    guard("flipgc_safepoint", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_safepoint") }.safepoint()
    })
}

/// Whether a collection waits for this thread (one relaxed load): call
/// [`flipgc_safepoint`] soon if so.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_safepoint_requested(m: *mut flipgc_mutator) -> i32 {
    // SAFETY: the caller's contract.
    let m = unsafe { mutator(m, "flipgc_safepoint_requested") };
    i32::from(m.safepoint_requested())
}

/// Runs a full collection and returns once the heap has flipped.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_collect(m: *mut flipgc_mutator) {
    guard("flipgc_collect", || {
        // SAFETY: the caller's contract.
        unsafe { mutator(m, "flipgc_collect") }.collect()
    })
}

/// Waits until no collection is in progress (a cycle's concurrent compaction
/// included), counted as stopped meanwhile: for example before polling a
/// finalizer queue right after [`flipgc_collect`].
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_wait_idle(m: *mut flipgc_mutator) {
    guard("flipgc_wait_idle", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_wait_idle") };
        let heap = m.heap().clone();
        m.blocking(move || heap.wait_idle());
    })
}

struct SendPtr(*mut c_void);
// SAFETY: the pointer is only handed back to the C callback that came with it, on
// this same thread (`blocking` runs its closure on the calling thread); C owns
// whatever thread-safety its data needs.
unsafe impl Send for SendPtr {}

/// Calls `f(arg)` with this thread counted as stopped, so collections need not
/// wait for it: wrap I/O, locks and long native work in it. `f` must not use
/// this mutator (or any object of its heap).
///
/// # Safety
/// `m` is a live mutator of this thread; `f` is a function safe to call with `arg`.
#[no_mangle]
pub unsafe extern "C" fn flipgc_blocking(
    m: *mut flipgc_mutator,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    arg: *mut c_void,
) {
    guard("flipgc_blocking", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_blocking") };
        let Some(f) = f else { return };
        let arg = SendPtr(arg);
        m.blocking(move || {
            let arg = arg;
            // SAFETY: the caller's contract: `f` may be called with `arg`.
            unsafe { f(arg.0) }
        });
    })
}

/// Stops the world and checks the heap: every reference points at an object
/// header, every object's header names a type. `FLIPGC_INVALID_ARGUMENT` with the
/// first problem in [`crate::flipgc_last_error`] if it is broken.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_verify(m: *mut flipgc_mutator) -> flipgc_status {
    guard("flipgc_verify", || {
        // SAFETY: the caller's contract.
        match unsafe { mutator(m, "flipgc_verify") }.verify() {
            Ok(_) => flipgc_status::FLIPGC_OK,
            Err(e) => fail(flipgc_status::FLIPGC_INVALID_ARGUMENT, e),
        }
    })
}
