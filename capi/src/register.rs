//! Types registered on a live heap (while its mutators run), ephemeron types,
//! and pinned objects, from C.
//!
//! A type registered on the heap gets the next index of the heap's registry, as
//! one registered before it was made; any thread may register, and an index it
//! hands to another thread is usable there (the registry publishes each entry
//! before it returns its index: `flipgc_core::TypeRegistry`). Registration is
//! refused on a heap whose object layout C owns (`flipgc_heap_new_model`).

use crate::mutator::{mutator, obj};
use crate::setup::{c_slice, cstr, flipgc_heap, flipgc_types, registered};
use crate::{fail, flipgc_mutator, flipgc_status, guard, live, live_mut, status};
use std::ffi::c_char;

/// Registers, on a live heap, a fixed-size type of `fields` payload words, the
/// `nrefs` indices at `refs` holding references; its index goes to `*out`.
/// `FLIPGC_TYPE_ERROR` for a bad definition, or on a heap whose layout C owns.
///
/// # Safety
/// `heap` is live; `name` is a NUL-terminated string; `refs` points to `nrefs`
/// values (or is null with `nrefs` 0); `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_register_fixed(
    heap: *const flipgc_heap,
    name: *const c_char,
    fields: u32,
    refs: *const u32,
    nrefs: usize,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_heap_register_fixed", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_heap_register_fixed") }.0;
        // SAFETY: the caller's contract.
        let refs = unsafe { c_slice(refs, nrefs, "flipgc_heap_register_fixed") };
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(h.register_fixed(&name, fields, refs), out)
    })
}

/// Registers, on a live heap, a variable-length array of references; its index
/// goes to `*out`.
///
/// # Safety
/// As [`flipgc_heap_register_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_register_ref_array(
    heap: *const flipgc_heap,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_heap_register_ref_array", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_heap_register_ref_array") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(h.register_ref_array(&name), out)
    })
}

/// Registers, on a live heap, a variable-length array of bytes; its index goes
/// to `*out`.
///
/// # Safety
/// As [`flipgc_heap_register_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_register_byte_array(
    heap: *const flipgc_heap,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_heap_register_byte_array", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_heap_register_byte_array") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(h.register_byte_array(&name), out)
    })
}

/// Registers, on a live heap, an ephemeron type (as
/// [`flipgc_types_ephemeron`]); its index goes to `*out`.
///
/// # Safety
/// As [`flipgc_heap_register_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_register_ephemeron(
    heap: *const flipgc_heap,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_heap_register_ephemeron", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_heap_register_ephemeron") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(h.register_ephemeron(&name), out)
    })
}

/// Registers an ephemeron type: two reference fields, field 0 the key and field
/// 1 the value. The value is reachable through the ephemeron only while the key
/// is reachable from elsewhere (a value that refers to its own key does not keep
/// it); once the key is found unreachable, both fields read as null. Its index
/// goes to `*out`.
///
/// # Safety
/// `types` is live; `name` is a NUL-terminated string; `out` is null or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_ephemeron(
    types: *mut flipgc_types,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_types_ephemeron", || {
        // SAFETY: the caller's contract.
        let r = &mut unsafe { live_mut(types, "flipgc_types_ephemeron") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(r.ephemeron(&name), out)
    })
}

/// Allocates a zeroed object of type `type_index` (`len` elements for an array)
/// that no collection ever moves, and pushes it on the root stack. A GC point.
/// Errors as [`crate::flipgc_alloc`].
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_alloc_pinned(
    m: *mut flipgc_mutator,
    type_index: u32,
    len: usize,
) -> flipgc_status {
    guard("flipgc_alloc_pinned", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_alloc_pinned") };
        let Some(ty) = m.heap().types().type_id(type_index) else {
            return fail(
                flipgc_status::FLIPGC_TYPE_ERROR,
                format!("no type with index {type_index}"),
            );
        };
        status(
            m.alloc_pinned(ty, len)
                .map(|h| m.push_value(m.handle_value(&h))),
        )
    })
}

/// The address of the first payload byte (just past the header) of the pinned
/// object in slot `slot`: its fields, elements or bytes in order. Valid while the
/// object is reachable (keep it in a handle or a global while native code holds
/// the pointer). Reference fields read through it are current only until the
/// next GC point. Aborts if the object is not pinned.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_pinned_payload(m: *mut flipgc_mutator, slot: usize) -> *mut u8 {
    guard("flipgc_pinned_payload", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_pinned_payload") };
        m.pinned_payload(obj(m, slot))
    })
}
