//! Setup: heap configurations, type registries and heaps.

use crate::{fail, flipgc_status, gc_fail, guard, live, live_mut};
use flipgc_core::{
    FaultMode, FlipMode, GcThreadPriority, Heap, HeapConfig, InjectPoint, TypeId, TypeRegistry,
};
use std::ffi::{c_char, CStr};

/// A heap configuration (`flipgc_core::HeapConfig`).
pub struct flipgc_config(pub(crate) HeapConfig);

/// A type registry being built (`flipgc_core::TypeRegistry`).
pub struct flipgc_types(pub(crate) TypeRegistry);

/// A heap (`flipgc_core::Heap`). Any thread may use it.
pub struct flipgc_heap(pub(crate) Heap);

/// A new configuration for a heap of `capacity` bytes with every default
/// (concurrent cycles, the best flip level, fault mode `auto`). Never null.
#[no_mangle]
pub extern "C" fn flipgc_config_new(capacity: usize) -> *mut flipgc_config {
    guard("flipgc_config_new", || {
        Box::into_raw(Box::new(flipgc_config(HeapConfig::new(capacity))))
    })
}

/// Frees a configuration not handed to [`flipgc_heap_new`].
///
/// # Safety
/// `cfg` is null or came from [`flipgc_config_new`] and was not freed or consumed.
#[no_mangle]
pub unsafe extern "C" fn flipgc_config_free(cfg: *mut flipgc_config) {
    if !cfg.is_null() {
        // SAFETY: the caller's contract: an unconsumed configuration.
        drop(unsafe { Box::from_raw(cfg) });
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool, String> {
    match v {
        "true" | "1" | "on" => Ok(true),
        "false" | "0" | "off" => Ok(false),
        _ => Err(format!("{key}: {v:?} is not true or false")),
    }
}

fn parse_count(key: &str, v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{key}: {v:?} is not a positive count"))
}

/// Sets one option: `flip` (`auto`, `pud`, `pmd`, `pte`, `copy`), `fault_mode`
/// (`auto`, `sigbus`, `server`), `concurrent_marking`, `concurrent_compaction`,
/// `young_cycles`, `verify_after_gc` (`true`/`false`), `gc_workers`,
/// `concurrent_workers` (a positive count), `gc_thread_priority` (`inherit`,
/// `nice:N` with N from -20 to 19, `slice:US` or `nice:N,slice:US` with US from
/// 100 to 100000 microseconds, `fifo:N` or `rr:N` with N from 1 to 99: the
/// scheduling of the collector's own threads), `inject` (a fault to inject, by name:
/// `flip-mremap`, `uffd-register`, `uffd-copy`, `uffd-move`, ...; for tests of the
/// fallbacks). `FLIPGC_BAD_CONFIG` for an unknown key
/// or a bad value, with the reason in [`crate::flipgc_last_error`].
///
/// # Safety
/// `cfg` is a live configuration; `key` and `value` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn flipgc_config_set(
    cfg: *mut flipgc_config,
    key: *const c_char,
    value: *const c_char,
) -> flipgc_status {
    guard("flipgc_config_set", || {
        // SAFETY: the caller's contract.
        let c = &mut unsafe { live_mut(cfg, "flipgc_config_set") }.0;
        // SAFETY: the caller's contract: NUL-terminated strings.
        let (k, v) = unsafe { (cstr(key), cstr(value)) };
        let r: Result<(), String> = (|| {
            match k.as_str() {
                "flip" => c.flip = FlipMode::parse(&v).map_err(|e| e.to_string())?,
                "fault_mode" => c.fault_mode = FaultMode::parse(&v).map_err(|e| e.to_string())?,
                "concurrent_marking" => c.concurrent_marking = parse_bool(&k, &v)?,
                "concurrent_compaction" => c.concurrent_compaction = parse_bool(&k, &v)?,
                "young_cycles" => c.young_cycles = parse_bool(&k, &v)?,
                "verify_after_gc" => c.verify_after_gc = parse_bool(&k, &v)?,
                "gc_workers" => c.gc_workers = parse_count(&k, &v)?,
                "concurrent_workers" => c.concurrent_workers = parse_count(&k, &v)?,
                "gc_thread_priority" => {
                    c.gc_thread_priority = GcThreadPriority::parse(&v).map_err(|e| e.to_string())?
                }
                "inject" => c.inject = Some(InjectPoint::parse(&v).map_err(|e| e.to_string())?),
                _ => return Err(format!("unknown configuration key {k:?}")),
            }
            Ok(())
        })();
        match r {
            Ok(()) => flipgc_status::FLIPGC_OK,
            Err(e) => fail(flipgc_status::FLIPGC_BAD_CONFIG, e),
        }
    })
}

/// The string at `p` (lossily decoded), or "" for null.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
pub(crate) unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A new, empty type registry (it holds only the filler type). Never null.
#[no_mangle]
pub extern "C" fn flipgc_types_new() -> *mut flipgc_types {
    guard("flipgc_types_new", || {
        Box::into_raw(Box::new(flipgc_types(TypeRegistry::new())))
    })
}

/// Frees a registry not handed to [`flipgc_heap_new`].
///
/// # Safety
/// `types` is null or came from [`flipgc_types_new`] and was not freed or consumed.
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_free(types: *mut flipgc_types) {
    if !types.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(types) });
    }
}

/// `n` values at `p` as a slice: empty if `n` is 0 (whatever `p` is), else an
/// abort naming `name` if `p` is null.
///
/// # Safety
/// `p` points to `n` readable values, or `n` is 0.
pub(crate) unsafe fn c_slice<'a, T>(p: *const T, n: usize, name: &str) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract; `live` aborts on null.
        unsafe { std::slice::from_raw_parts(live(p, name), n) }
    }
}

pub(crate) fn registered(r: Result<TypeId, flipgc_core::GcError>, out: *mut u32) -> flipgc_status {
    match r {
        Ok(id) => {
            if !out.is_null() {
                // SAFETY: `out` is null (checked) or points to a `uint32_t` (the
                // callers' contract).
                unsafe { *out = id.index() };
            }
            flipgc_status::FLIPGC_OK
        }
        Err(e) => gc_fail(e),
    }
}

/// Registers a fixed-size type of `fields` payload words, the `nrefs` indices at
/// `refs` holding references; its index goes to `*out`.
///
/// # Safety
/// `types` is live; `name` is a NUL-terminated string; `refs` points to `nrefs`
/// values (or is null with `nrefs` 0); `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_fixed(
    types: *mut flipgc_types,
    name: *const c_char,
    fields: u32,
    refs: *const u32,
    nrefs: usize,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_types_fixed", || {
        // SAFETY: the caller's contract.
        let r = &mut unsafe { live_mut(types, "flipgc_types_fixed") }.0;
        // SAFETY: `refs` points to `nrefs` values (the caller's contract).
        let refs = unsafe { c_slice(refs, nrefs, "flipgc_types_fixed") };
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(r.fixed(&name, fields, refs), out)
    })
}

/// Registers a variable-length array of references; its index goes to `*out`.
///
/// # Safety
/// As [`flipgc_types_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_ref_array(
    types: *mut flipgc_types,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_types_ref_array", || {
        // SAFETY: the caller's contract.
        let r = &mut unsafe { live_mut(types, "flipgc_types_ref_array") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(r.ref_array(&name), out)
    })
}

/// Registers a variable-length array of bytes; its index goes to `*out`.
///
/// # Safety
/// As [`flipgc_types_fixed`].
#[no_mangle]
pub unsafe extern "C" fn flipgc_types_byte_array(
    types: *mut flipgc_types,
    name: *const c_char,
    out: *mut u32,
) -> flipgc_status {
    guard("flipgc_types_byte_array", || {
        // SAFETY: the caller's contract.
        let r = &mut unsafe { live_mut(types, "flipgc_types_byte_array") }.0;
        // SAFETY: the caller's contract.
        let name = unsafe { cstr(name) };
        registered(r.byte_array(&name), out)
    })
}

/// Makes a heap from `cfg` and `types`, both consumed (freed, whatever the
/// outcome); the heap goes to `*out`.
///
/// # Safety
/// `cfg` and `types` are live and unconsumed; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_new(
    cfg: *mut flipgc_config,
    types: *mut flipgc_types,
    out: *mut *mut flipgc_heap,
) -> flipgc_status {
    guard("flipgc_heap_new", || {
        // SAFETY: the caller's contract: both live and unconsumed; taken here.
        let (cfg, types) = unsafe {
            live(cfg, "flipgc_heap_new");
            live(types, "flipgc_heap_new");
            (Box::from_raw(cfg).0, Box::from_raw(types).0)
        };
        match Heap::new(cfg, types) {
            Ok(h) => {
                // SAFETY: `out` is writable (the caller's contract).
                unsafe {
                    *live_mut(out, "flipgc_heap_new") = Box::into_raw(Box::new(flipgc_heap(h)))
                };
                flipgc_status::FLIPGC_OK
            }
            Err(e) => gc_fail(e),
        }
    })
}

/// Drops this reference to the heap. The heap itself lives until its last
/// mutator, handle, global and queue are freed too.
///
/// # Safety
/// `heap` is null or came from [`flipgc_heap_new`] and was not freed.
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_free(heap: *mut flipgc_heap) {
    if !heap.is_null() {
        // SAFETY: the caller's contract.
        guard("flipgc_heap_free", || drop(unsafe { Box::from_raw(heap) }));
    }
}

/// Whether collections of this heap compact concurrently (1) or inside the
/// pause (0: no userfaultfd here; the GC log's `gc,init` line says why).
///
/// # Safety
/// `heap` is live.
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_concurrent_compaction(heap: *const flipgc_heap) -> i32 {
    // SAFETY: the caller's contract.
    let h = &unsafe { live(heap, "flipgc_heap_concurrent_compaction") }.0;
    i32::from(h.concurrent_compaction())
}
