//! Roots C can keep across calls: handles (one thread's), globals (any
//! thread's), weak handles, and finalizer queues.

use crate::mutator::{flipgc_mutator, mutator, obj};
use crate::setup::flipgc_heap;
use crate::{guard, live, live_mut};
use flipgc_core::{FinalizerQueue, Global, Handle, WeakHandle};

/// A rooted value owned by one thread's mutator (`flipgc_core::Handle`): free it
/// on that thread.
pub struct flipgc_handle(Handle);

/// A heap-wide root (`flipgc_core::Global`), usable and freeable on any thread.
pub struct flipgc_global(Global);

/// A weak reference owned by one thread's mutator (`flipgc_core::WeakHandle`).
pub struct flipgc_weak(WeakHandle);

/// A finalizer queue (`flipgc_core::FinalizerQueue`).
pub struct flipgc_finalizer_queue(FinalizerQueue);

/// A new handle holding root-stack entry `slot` (an object, null or an
/// immediate). Never null.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_handle_new(
    m: *mut flipgc_mutator,
    slot: usize,
) -> *mut flipgc_handle {
    guard("flipgc_handle_new", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_handle_new") };
        let len = m.stack_len();
        assert!(
            slot < len,
            "stack slot {slot} is out of range (the stack holds {len})"
        );
        Box::into_raw(Box::new(flipgc_handle(
            m.root_value(m.stack_get_value(slot)),
        )))
    })
}

/// Pushes what `h` holds.
///
/// # Safety
/// `m` is a live mutator of this thread; `h` a live handle of it.
#[no_mangle]
pub unsafe extern "C" fn flipgc_push_handle(m: *mut flipgc_mutator, h: *const flipgc_handle) {
    guard("flipgc_push_handle", || {
        // SAFETY: the caller's contract.
        let (m, h) = unsafe {
            (
                mutator(m, "flipgc_push_handle"),
                live(h, "flipgc_push_handle"),
            )
        };
        m.push_value(m.handle_value(&h.0));
    })
}

/// Frees a handle.
///
/// # Safety
/// `h` is null or a live handle made on this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_handle_free(h: *mut flipgc_handle) {
    if !h.is_null() {
        // SAFETY: the caller's contract.
        guard("flipgc_handle_free", || drop(unsafe { Box::from_raw(h) }));
    }
}

/// A new global holding root-stack entry `slot`. Never null.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_global_new(
    m: *mut flipgc_mutator,
    slot: usize,
) -> *mut flipgc_global {
    guard("flipgc_global_new", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_global_new") };
        let len = m.stack_len();
        assert!(
            slot < len,
            "stack slot {slot} is out of range (the stack holds {len})"
        );
        Box::into_raw(Box::new(flipgc_global(
            m.global_value(m.stack_get_value(slot)),
        )))
    })
}

/// Pushes what `g` holds.
///
/// # Safety
/// `m` is a live mutator of this thread; `g` a live global of its heap.
#[no_mangle]
pub unsafe extern "C" fn flipgc_push_global(m: *mut flipgc_mutator, g: *const flipgc_global) {
    guard("flipgc_push_global", || {
        // SAFETY: the caller's contract.
        let (m, g) = unsafe {
            (
                mutator(m, "flipgc_push_global"),
                live(g, "flipgc_push_global"),
            )
        };
        m.push_value(m.get_global_value(&g.0));
    })
}

/// Frees a global (on any thread).
///
/// # Safety
/// `g` is null or a live global.
#[no_mangle]
pub unsafe extern "C" fn flipgc_global_free(g: *mut flipgc_global) {
    if !g.is_null() {
        // SAFETY: the caller's contract.
        guard("flipgc_global_free", || drop(unsafe { Box::from_raw(g) }));
    }
}

/// A weak handle to the object in slot `slot`. Never null.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_weak_new(m: *mut flipgc_mutator, slot: usize) -> *mut flipgc_weak {
    guard("flipgc_weak_new", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_weak_new") };
        Box::into_raw(Box::new(flipgc_weak(m.weak(obj(m, slot)))))
    })
}

/// Pushes the object `w` refers to and returns 1, or pushes null and returns 0
/// once a collection found it unreachable.
///
/// # Safety
/// `m` is a live mutator of this thread; `w` a live weak handle of it.
#[no_mangle]
pub unsafe extern "C" fn flipgc_push_weak(m: *mut flipgc_mutator, w: *const flipgc_weak) -> i32 {
    guard("flipgc_push_weak", || {
        // SAFETY: the caller's contract.
        let (m, w) = unsafe { (mutator(m, "flipgc_push_weak"), live(w, "flipgc_push_weak")) };
        let g = m.get_weak(&w.0);
        m.push(g);
        i32::from(g.is_some())
    })
}

/// Frees a weak handle.
///
/// # Safety
/// `w` is null or a live weak handle made on this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_weak_free(w: *mut flipgc_weak) {
    if !w.is_null() {
        // SAFETY: the caller's contract.
        guard("flipgc_weak_free", || drop(unsafe { Box::from_raw(w) }));
    }
}

/// A new finalizer queue of `heap`. Never null.
///
/// # Safety
/// `heap` is live.
#[no_mangle]
pub unsafe extern "C" fn flipgc_finalizer_queue_new(
    heap: *const flipgc_heap,
) -> *mut flipgc_finalizer_queue {
    guard("flipgc_finalizer_queue_new", || {
        // SAFETY: the caller's contract.
        let h = &unsafe { live(heap, "flipgc_finalizer_queue_new") }.0;
        Box::into_raw(Box::new(flipgc_finalizer_queue(h.finalizer_queue())))
    })
}

/// Registers the object in slot `slot` for finalization in `q`: once a
/// collection finds it unreachable, it is kept alive (with everything it
/// reaches) and handed back once by [`flipgc_poll_finalized`].
///
/// # Safety
/// `m` is a live mutator of this thread; `q` a live queue of its heap.
#[no_mangle]
pub unsafe extern "C" fn flipgc_register_finalizer(
    m: *mut flipgc_mutator,
    slot: usize,
    q: *const flipgc_finalizer_queue,
) {
    guard("flipgc_register_finalizer", || {
        // SAFETY: the caller's contract.
        let (m, q) = unsafe {
            (
                mutator(m, "flipgc_register_finalizer"),
                live(q, "flipgc_register_finalizer"),
            )
        };
        m.register_finalizer(obj(m, slot), &q.0);
    })
}

/// Pushes the next finalized object of `q` and returns 1, or returns 0 (pushing
/// nothing) if there is none.
///
/// # Safety
/// `m` is a live mutator of this thread; `q` a live queue of its heap.
#[no_mangle]
pub unsafe extern "C" fn flipgc_poll_finalized(
    m: *mut flipgc_mutator,
    q: *const flipgc_finalizer_queue,
) -> i32 {
    guard("flipgc_poll_finalized", || {
        // SAFETY: the caller's contract.
        let (m, q) = unsafe {
            (
                mutator(m, "flipgc_poll_finalized"),
                live(q, "flipgc_poll_finalized"),
            )
        };
        match m.poll_finalized(&q.0) {
            Some(h) => {
                m.push(Some(m.get(&h)));
                1
            }
            None => 0,
        }
    })
}

/// Registers a cleaner for the object in slot `slot` in `q`: once a collection
/// finds it unreachable, it is freed and `token` is handed back once by
/// [`flipgc_poll_token`] (Java's `Cleaner`: the object itself is gone).
///
/// # Safety
/// `m` is a live mutator of this thread; `q` a live queue of its heap.
#[no_mangle]
pub unsafe extern "C" fn flipgc_register_cleaner(
    m: *mut flipgc_mutator,
    slot: usize,
    token: u64,
    q: *const flipgc_finalizer_queue,
) {
    guard("flipgc_register_cleaner", || {
        // SAFETY: the caller's contract.
        let (m, q) = unsafe {
            (
                mutator(m, "flipgc_register_cleaner"),
                live(q, "flipgc_register_cleaner"),
            )
        };
        m.register_cleaner(obj(m, slot), token, &q.0);
    })
}

/// Writes the next token of `q` (an object with a cleaner that was freed) to
/// `*out` and returns 1, or returns 0 if there is none. Any thread may call it.
///
/// # Safety
/// `q` is a live queue; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_poll_token(q: *const flipgc_finalizer_queue, out: *mut u64) -> i32 {
    guard("flipgc_poll_token", || {
        // SAFETY: the caller's contract.
        let q = unsafe { live(q, "flipgc_poll_token") };
        match q.0.poll_token() {
            Some(t) => {
                // SAFETY: `out` is writable (the caller's contract).
                unsafe { *live_mut(out, "flipgc_poll_token") = t };
                1
            }
            None => 0,
        }
    })
}

/// The identity hash of the object in slot `slot`: the same for its whole life,
/// whatever collections move it (on a heap of registered types, or one whose
/// layout C owns).
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_identity_hash(m: *mut flipgc_mutator, slot: usize) -> u64 {
    guard("flipgc_identity_hash", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_identity_hash") };
        m.identity_hash(obj(m, slot))
    })
}

/// Frees a finalizer queue.
///
/// # Safety
/// `q` is null or a live queue.
#[no_mangle]
pub unsafe extern "C" fn flipgc_finalizer_queue_free(q: *mut flipgc_finalizer_queue) {
    if !q.is_null() {
        guard("flipgc_finalizer_queue_free", || {
            // SAFETY: the caller's contract.
            drop(unsafe { Box::from_raw(q) })
        });
    }
}
