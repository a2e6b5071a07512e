//! Heaps whose object layout the C embedder owns (the VM binding,
//! `flipgc_core::ObjectModel`): the model as a table of C functions
//! ([`flipgc_model`]), a heap built on it ([`flipgc_heap_new_model`]),
//! allocation with the VM's own header words ([`flipgc_alloc_object`]) and slot
//! access by word index ([`flipgc_get_slot`] and kin).
//!
//! Every other mutator call (the root stack, handles, globals, weak handles,
//! finalizers, `flipgc_collect`, `flipgc_verify`, the atomics by word index)
//! works on such a heap as on a heap of registered types; the calls that take a
//! type or a field index (`flipgc_alloc`, `flipgc_get_field`, ...) abort with
//! their name on it, as the Rust API panics.

use crate::mutator::{mutator, obj};
use crate::setup::{c_slice, flipgc_config, flipgc_heap};
use crate::{fail, flipgc_status, gc_fail, guard, live, live_mut, status};
use flipgc_core::{FixedLayout, Heap, ObjectModel, ObjectRef, Value};
use std::ffi::c_void;

/// The layout of every object with a given header word (the answer of
/// [`flipgc_model::fixed_layout`]): as `flipgc_core::FixedLayout`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct flipgc_fixed_layout {
    /// Size in words, header included.
    pub words: usize,
    /// Leading words fixed at allocation (header, length word, ...).
    pub header_words: usize,
    /// Bit `i` set iff word `i` is a reference slot (all below 64).
    pub ref_mask: u64,
}

/// An object layout owned by the embedder: how big an object is and where its
/// reference slots are, answered by C functions from the object's first
/// `header_words` words (and data outside the heap, such as a class the header
/// points to). Each function gets `ctx` first and a pointer to the object's word
/// 0. The heap copies the table when it is made; `ctx` and what it points to
/// must stay valid and unchanged for the heap's life.
///
/// The functions are called by GC threads, by mutators, and inside a mutator's
/// `SIGBUS` handler while it fills a page of the heap, at any time, concurrently.
/// So each must be async-signal-safe and wait-free: no allocation, no lock, no
/// blocking, no call into flipgc, no read of the object past its header words
/// (the mutator may be writing the rest), and the same answer for the same
/// object every time. Word 0 of every object must have bit 0 clear (bit 0 set
/// marks the collector's fillers, which the model never sees). A reference slot
/// holds null, an object, or an immediate (low three bits not all zero).
/// The full contract is `flipgc_core::ObjectModel`'s; a model that breaks it
/// corrupts the heap (run tests with `verify_after_gc`, which checks the
/// model's answers against each other).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct flipgc_model {
    /// Passed to every function below.
    pub ctx: *const c_void,
    /// Size in words of the object, header included (`>= header_words`).
    /// Required.
    pub object_words: Option<unsafe extern "C" fn(ctx: *const c_void, obj: *const u64) -> usize>,
    /// How many leading words of the object are fixed at allocation (`>= 1`).
    /// Required.
    pub header_words: Option<unsafe extern "C" fn(ctx: *const c_void, obj: *const u64) -> usize>,
    /// Whether word `i` of the object is a reference slot (nonzero) or not (0).
    /// Required.
    pub is_ref_slot:
        Option<unsafe extern "C" fn(ctx: *const c_void, obj: *const u64, i: usize) -> i32>,
    /// Calls `visit(visit_ctx, i)` for every reference slot `i` of the object, in
    /// increasing order, each once: exactly the `i` that `is_ref_slot` accepts.
    /// Optional: without it the collector asks `is_ref_slot` for every word
    /// from `header_words` to `object_words`.
    pub scan: Option<
        unsafe extern "C" fn(
            ctx: *const c_void,
            obj: *const u64,
            visit: extern "C" fn(visit_ctx: *mut c_void, i: usize),
            visit_ctx: *mut c_void,
        ),
    >,
    /// If every object whose word 0 is `w0` has one layout, writes it to `*out`
    /// and returns nonzero; else returns 0. Optional (none means 0 for every
    /// header): with it, the descriptors of generated code and the verifier's
    /// cross-check use the layout.
    pub fixed_layout: Option<
        unsafe extern "C" fn(ctx: *const c_void, w0: u64, out: *mut flipgc_fixed_layout) -> i32,
    >,
    /// The weak reference slots of every object whose word 0 is `w0`, as a
    /// mask (bit `i` for word `i`; each a reference slot, all below 64): slots
    /// that collections do not follow, and that read as null once a
    /// collection found their referent otherwise unreachable. Read and write
    /// them with `flipgc_get_slot` and `flipgc_set_slot`, which apply their
    /// barriers. Optional (none means no weak slot): as
    /// `flipgc_core::ObjectModel::weak_slots`.
    pub weak_slots: Option<unsafe extern "C" fn(ctx: *const c_void, w0: u64) -> u64>,
    /// If every object whose word 0 is `w0` is an ephemeron, writes the word
    /// indices of its key slot and value slot (two weak slots) to `*key` and
    /// `*value` and returns nonzero; else returns 0. The value is traced only
    /// while the key is reachable some other way; once the key is found
    /// unreachable, both slots read as null. Optional (none means no
    /// ephemeron): as `flipgc_core::ObjectModel::ephemeron_slots`.
    pub ephemeron_slots: Option<
        unsafe extern "C" fn(
            ctx: *const c_void,
            w0: u64,
            key: *mut usize,
            value: *mut usize,
        ) -> i32,
    >,
}

/// The functions of a checked [`flipgc_model`]: the three required ones are
/// present.
struct CModel {
    ctx: *const c_void,
    object_words: unsafe extern "C" fn(*const c_void, *const u64) -> usize,
    header_words: unsafe extern "C" fn(*const c_void, *const u64) -> usize,
    is_ref_slot: unsafe extern "C" fn(*const c_void, *const u64, usize) -> i32,
    scan: Option<
        unsafe extern "C" fn(
            *const c_void,
            *const u64,
            extern "C" fn(*mut c_void, usize),
            *mut c_void,
        ),
    >,
    fixed_layout: Option<unsafe extern "C" fn(*const c_void, u64, *mut flipgc_fixed_layout) -> i32>,
    weak_slots: Option<unsafe extern "C" fn(*const c_void, u64) -> u64>,
    ephemeron_slots:
        Option<unsafe extern "C" fn(*const c_void, u64, *mut usize, *mut usize) -> i32>,
}

// SAFETY: `ctx` is only passed back to the embedder's functions, which
// `flipgc_model`'s contract requires to be callable from any thread,
// concurrently, with `ctx` unchanged for the heap's life.
unsafe impl Send for CModel {}
// SAFETY: as for `Send`: the model is immutable, and its functions are
// thread-safe by contract.
unsafe impl Sync for CModel {}

/// The scan's trampoline: `visit_ctx` is the collector's `&mut dyn FnMut(usize)`.
extern "C" fn visit_slot(visit_ctx: *mut c_void, i: usize) {
    // SAFETY: `CModel::scan` passes a pointer to its live `&mut dyn FnMut`
    // for the duration of the C scan, which calls this only inside it.
    let f = unsafe { &mut *visit_ctx.cast::<&mut dyn FnMut(usize)>() };
    f(i);
}

// SAFETY: the answers are the embedder's, who promises in `flipgc_model`'s
// contract what `ObjectModel`'s requires (consistent sizes and slots, no heap
// access past the header words, async-signal-safe and wait-free); the
// collector's verifier checks them in tests.
unsafe impl ObjectModel for CModel {
    fn object_words(&self, obj: ObjectRef) -> usize {
        // SAFETY: `obj` is a whole object (the trait's contract); the function
        // is the embedder's, called as `flipgc_model` documents.
        unsafe { (self.object_words)(self.ctx, obj.addr() as *const u64) }
    }

    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
        let at = obj.addr() as *const u64;
        match self.scan {
            Some(scan) => {
                let mut f: &mut dyn FnMut(usize) = slot;
                let visit_ctx = (&mut f as *mut &mut dyn FnMut(usize)).cast::<c_void>();
                // SAFETY: as `object_words`; `visit_ctx` points to `f`, alive
                // until the call returns, and `visit_slot` reads it as such.
                unsafe { scan(self.ctx, at, visit_slot, visit_ctx) };
            }
            None => {
                for i in self.header_words(obj)..self.object_words(obj) {
                    if self.is_ref_slot(obj, i) {
                        slot(i);
                    }
                }
            }
        }
    }

    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
        // SAFETY: as `object_words`.
        unsafe { (self.is_ref_slot)(self.ctx, obj.addr() as *const u64, i) != 0 }
    }

    fn header_words(&self, obj: ObjectRef) -> usize {
        // SAFETY: as `object_words`.
        unsafe { (self.header_words)(self.ctx, obj.addr() as *const u64) }
    }

    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        let f = self.fixed_layout?;
        let mut out = flipgc_fixed_layout::default();
        // SAFETY: the embedder's function, called as documented, with a
        // writable `out`.
        let known = unsafe { f(self.ctx, w0, &mut out) } != 0;
        known.then_some(FixedLayout {
            words: out.words,
            header_words: out.header_words,
            ref_mask: out.ref_mask,
        })
    }

    fn weak_slots(&self, w0: u64) -> u64 {
        match self.weak_slots {
            // SAFETY: the embedder's function, called as documented.
            Some(f) => unsafe { f(self.ctx, w0) },
            None => 0,
        }
    }

    fn ephemeron_slots(&self, w0: u64) -> Option<(usize, usize)> {
        let f = self.ephemeron_slots?;
        let (mut key, mut value) = (0, 0);
        // SAFETY: the embedder's function, called as documented, with two
        // writable words.
        let yes = unsafe { f(self.ctx, w0, &mut key, &mut value) } != 0;
        yes.then_some((key, value))
    }
}

/// Makes a heap from `cfg` (consumed: freed whatever the outcome) whose objects
/// are laid out by `model` (copied; see [`flipgc_model`] for what its functions
/// may do); the heap goes to `*out`. `FLIPGC_INVALID_ARGUMENT` if a required
/// function is missing.
///
/// # Safety
/// `cfg` is live and unconsumed; `model` points to a readable table whose
/// functions keep its contract for the heap's life; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn flipgc_heap_new_model(
    cfg: *mut flipgc_config,
    model: *const flipgc_model,
    out: *mut *mut flipgc_heap,
) -> flipgc_status {
    guard("flipgc_heap_new_model", || {
        // SAFETY: the caller's contract: live and unconsumed; taken here.
        let cfg = unsafe {
            live(cfg, "flipgc_heap_new_model");
            Box::from_raw(cfg).0
        };
        // SAFETY: the caller's contract.
        let t = *unsafe { live(model, "flipgc_heap_new_model") };
        let (Some(object_words), Some(header_words), Some(is_ref_slot)) =
            (t.object_words, t.header_words, t.is_ref_slot)
        else {
            return fail(
                flipgc_status::FLIPGC_INVALID_ARGUMENT,
                "flipgc_heap_new_model: object_words, header_words and is_ref_slot are required",
            );
        };
        let model = CModel {
            ctx: t.ctx,
            object_words,
            header_words,
            is_ref_slot,
            scan: t.scan,
            fixed_layout: t.fixed_layout,
            weak_slots: t.weak_slots,
            ephemeron_slots: t.ephemeron_slots,
        };
        match Heap::with_model(cfg, model) {
            Ok(h) => {
                // SAFETY: `out` is writable (the caller's contract).
                unsafe {
                    *live_mut(out, "flipgc_heap_new_model") =
                        Box::into_raw(Box::new(flipgc_heap(h)))
                };
                flipgc_status::FLIPGC_OK
            }
            Err(e) => gc_fail(e),
        }
    })
}

/// Allocates an object of `words` words whose first `nprefix` words are
/// `prefix` (the header, then for example a length word: exactly the model's
/// `header_words` for it), the rest zero, and pushes it on the root stack. A GC
/// point. `FLIPGC_TYPE_ERROR` on a heap without a model, for a bad prefix
/// (empty, longer than `words`, a header with bit 0 set) or when the model
/// disagrees with `words` or `nprefix` for the written object (which is then
/// never published); `FLIPGC_OUT_OF_MEMORY` after a full collection could not
/// make room.
///
/// # Safety
/// `m` is a live mutator of this thread; `prefix` points to `nprefix` readable
/// words.
#[no_mangle]
pub unsafe extern "C" fn flipgc_alloc_object(
    m: *mut crate::flipgc_mutator,
    words: usize,
    prefix: *const u64,
    nprefix: usize,
) -> flipgc_status {
    guard("flipgc_alloc_object", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_alloc_object") };
        // SAFETY: `nprefix` readable words at `prefix` (the caller's contract).
        let prefix = unsafe { c_slice(prefix, nprefix, "flipgc_alloc_object") };
        status(m.push_object(words, prefix))
    })
}

/// Pushes what reference slot `i` (a word index; word 0 is the header) of the
/// object in root-stack slot `slot` holds. Aborts if `i` is not a reference
/// slot of it.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_get_slot(m: *mut crate::flipgc_mutator, slot: usize, i: usize) {
    guard("flipgc_get_slot", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_get_slot") };
        let v = m.read_slot(obj(m, slot), i);
        m.push_value(v);
    })
}

/// Stores root-stack entry `value` (an object, null or an immediate) into
/// reference slot `i` of the object in slot `slot`, with the write barrier.
/// Aborts if `i` is not a reference slot of it.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_set_slot(
    m: *mut crate::flipgc_mutator,
    slot: usize,
    i: usize,
    value: usize,
) {
    guard("flipgc_set_slot", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_set_slot") };
        let len = m.stack_len();
        assert!(
            value < len,
            "stack slot {value} is out of range (the stack holds {len})"
        );
        m.write_slot(obj(m, slot), i, m.stack_get_value(value));
    })
}

/// Stores the immediate `bits` into reference slot `i` of the object in slot
/// `slot`; `FLIPGC_INVALID_ARGUMENT` if `bits` is not an immediate.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_set_slot_imm(
    m: *mut crate::flipgc_mutator,
    slot: usize,
    i: usize,
    bits: u64,
) -> flipgc_status {
    guard("flipgc_set_slot_imm", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_set_slot_imm") };
        let Some(v) = Value::imm(bits) else {
            return fail(
                flipgc_status::FLIPGC_INVALID_ARGUMENT,
                format!("{bits:#x} is not an immediate (its low three bits are all zero)"),
            );
        };
        m.write_slot(obj(m, slot), i, v);
        flipgc_status::FLIPGC_OK
    })
}

/// Word `i` of the object in slot `slot`: any word that is not a reference
/// slot, header words included. Aborts for a reference slot or past the end.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_read_slot_word(
    m: *mut crate::flipgc_mutator,
    slot: usize,
    i: usize,
) -> u64 {
    guard("flipgc_read_slot_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_read_slot_word") };
        m.read_slot_word(obj(m, slot), i)
    })
}

/// Stores `word` into word `i` of the object in slot `slot`: neither a
/// reference slot nor a header word (those are fixed at allocation), else an
/// abort.
///
/// # Safety
/// `m` is a live mutator of this thread.
#[no_mangle]
pub unsafe extern "C" fn flipgc_write_slot_word(
    m: *mut crate::flipgc_mutator,
    slot: usize,
    i: usize,
    word: u64,
) {
    guard("flipgc_write_slot_word", || {
        // SAFETY: the caller's contract.
        let m = unsafe { mutator(m, "flipgc_write_slot_word") };
        m.write_slot_word(obj(m, slot), i, word);
    })
}
