//! The root tables, from the collector's side of the mutator API (collector
//! layer; docs/architecture.md, "Layers"): [`MutatorShared`] (a mutator's handle
//! slots, weak handle slots and published root stack view, with the root work a
//! pause leaves pending), [`RootTask`], and the heap-wide [`GlobalTable`]. The
//! handles that fill them (`Handle`, `WeakHandle`, `Global`) and the mutator's
//! root API are in the API layer (`roots.rs`), which owns the access protocol
//! described there: the owning thread touches a mutator's tables only while it is
//! `Running`; the collector only while the world is stopped.

use crate::object::is_ref;
use std::cell::{Cell, UnsafeCell};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A mutator's roots, shared with the collector.
pub struct MutatorShared {
    roots: UnsafeCell<RootTable>,
    /// Whether the owning thread is inside `Mutator::blocking`, where the collector
    /// may be walking `roots`. Read and written by the owning thread only (a
    /// `Handle` is not `Send`, so its clones and drops run there too): relaxed.
    in_blocking: AtomicBool,
    /// Live handles of this mutator. Owner thread only (handles are not `Send`).
    pub(crate) handles: Cell<usize>,
    /// Set when the mutator was dropped while handles lived: the last handle's drop
    /// then releases the reference the mutator left behind for them.
    pub(crate) orphaned: Cell<bool>,
    /// Root work left by a pause, not yet done.
    pending: parking_lot::Mutex<Pending>,
}

/// Work on a mutator's roots that a pause leaves pending: the mutator does it
/// itself when it resumes, or the collector does it for a mutator that has not.
pub trait RootTask: Send + Sync {
    /// Does the work on `roots` (exclusive access).
    fn apply(&self, roots: &mut RootTable);
}

/// A mutator's pending root work.
#[derive(Default)]
struct Pending {
    /// Rewriting the roots to new addresses (left by a flip pause).
    forward: Option<Arc<dyn RootTask>>,
    /// Scanning the roots for marking (left by a mark-start pause).
    scan: Option<Arc<dyn RootTask>>,
}

// SAFETY: `roots` is accessed by one thread at a time per the access protocol in the
// module docs (the owner while Running, the collector while stopped), and every
// hand-over goes through the safepoint lock, which orders the accesses. `handles`
// and `orphaned` are touched by the owning thread only: by its mutator's methods and
// by its handles, which are not `Send`.
unsafe impl Sync for MutatorShared {}
// SAFETY: as above; the contents are plain data.
unsafe impl Send for MutatorShared {}

/// Handle slots, the root stack, and weak handle slots.
#[derive(Default)]
pub struct RootTable {
    slots: Vec<u64>,
    free: Vec<u32>,
    /// The root stack as its mutator published it at its last stop.
    pub(crate) stack: StackView,
    /// Weak handles: not roots (marking does not follow them), cleared when their
    /// referent is found unreachable, forwarded like the others otherwise.
    pub(crate) weak: Vec<u64>,
    pub(crate) weak_free: Vec<u32>,
}

impl RootTable {
    /// Stores `value` in a free slot; its index.
    pub fn add(&mut self, value: u64) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = value;
                i
            }
            None => {
                self.slots.push(value);
                u32::try_from(self.slots.len() - 1).expect("more than 4 billion handles")
            }
        }
    }

    /// Frees slot `i`.
    pub fn remove(&mut self, i: u32) {
        self.slots[i as usize] = 0;
        self.free.push(i);
    }

    /// The value in slot `i`.
    pub fn get(&self, i: u32) -> u64 {
        self.slots[i as usize]
    }

    /// Overwrites slot `i`.
    pub fn set(&mut self, i: u32, value: u64) {
        self.slots[i as usize] = value;
    }

    /// Calls `f` on every root (free slots hold 0 and are skipped by callers via the
    /// null check). Weak handles are not roots: see [`RootTable::for_each_weak_mut`].
    pub fn for_each_mut(&mut self, f: impl FnMut(&mut u64)) {
        // SAFETY: the caller has exclusive access to these roots (the module docs'
        // protocol), so the owning mutator is stopped, or has not touched its stack
        // since it published this view (`StackView`).
        let stack = unsafe { self.stack.as_mut_slice() };
        self.slots.iter_mut().chain(stack.iter_mut()).for_each(f);
    }

    /// Calls `f` on every weak handle slot (0 in free or cleared ones).
    pub fn for_each_weak_mut(&mut self, f: impl FnMut(&mut u64)) {
        self.weak.iter_mut().for_each(f);
    }

    pub(crate) fn add_weak(&mut self, value: u64) -> u32 {
        match self.weak_free.pop() {
            Some(i) => {
                self.weak[i as usize] = value;
                i
            }
            None => {
                self.weak.push(value);
                u32::try_from(self.weak.len() - 1).expect("more than 4 billion weak handles")
            }
        }
    }
}

/// A mutator's root stack as the collector sees it: the storage and depth the
/// mutator published before its last stop (`Mutator::publish_stack`, `roots.rs`).
///
/// Invariant: the storage stays allocated and the mutator neither writes nor
/// reallocates it from its publication until the mutator runs again after its own
/// pending root work (`MutatorShared::fix_pending`, which the collector's accesses
/// also hold the lock of); and a mutator clears its view before it frees the storage
/// (`MutatorShared::forget_stack`).
pub(crate) struct StackView {
    pub(crate) ptr: NonNull<u64>,
    pub(crate) len: usize,
}

impl Default for StackView {
    fn default() -> StackView {
        StackView {
            ptr: NonNull::dangling(),
            len: 0,
        }
    }
}

impl StackView {
    /// The published entries.
    ///
    /// # Safety
    /// The caller has exclusive access to the owning mutator's roots (the module
    /// docs' protocol), so the view is current ([`StackView`]'s invariant).
    unsafe fn as_mut_slice(&mut self) -> &mut [u64] {
        // SAFETY: `ptr` is the storage of `len` initialised words, or dangling with
        // `len` 0; nobody else touches it (the caller's contract).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl MutatorShared {
    pub(crate) fn new() -> MutatorShared {
        MutatorShared {
            roots: UnsafeCell::new(RootTable::default()),
            in_blocking: AtomicBool::new(false),
            handles: Cell::new(0),
            orphaned: Cell::new(false),
            pending: parking_lot::Mutex::new(Pending::default()),
        }
    }

    /// Notes that the owning thread enters (`true`) or leaves `Mutator::blocking`.
    /// Called by the owning thread only.
    pub(crate) fn set_in_blocking(&self, on: bool) {
        self.in_blocking.store(on, Ordering::Relaxed);
    }

    /// Refuses (panics) a handle operation made inside `Mutator::blocking`: the
    /// closure cannot capture a `Handle` (it must be `Send`), but it can reach one
    /// kept in a thread-local, and the collector may be walking the table then.
    #[inline]
    pub(crate) fn check_handle_use(&self, what: &str) {
        if self.in_blocking.load(Ordering::Relaxed) {
            handle_in_blocking(what);
        }
    }

    /// Called by the mutator's drop (owner thread): if handles still live, keep this
    /// state alive for them (one strong count, released by the last handle's drop).
    pub(crate) fn orphan_if_handles_live(&self, this: &Arc<MutatorShared>) {
        if self.handles.get() > 0 {
            self.orphaned.set(true);
            std::mem::forget(Arc::clone(this));
        }
    }

    /// Leaves a forwarding for these roots (flip pause, world stopped).
    pub(crate) fn set_pending_forward(&self, f: Arc<dyn RootTask>) {
        self.pending.lock().forward = Some(f);
    }

    /// Leaves a root scan for marking (mark-start pause, world stopped).
    pub(crate) fn set_pending_scan(&self, f: Arc<dyn RootTask>) {
        self.pending.lock().scan = Some(f);
    }

    /// Does the pending root work, if any: the forwarding first (a cycle's), then
    /// the scan (the next cycle's). Called by the owning thread when it resumes from
    /// a pause (before touching its roots), or by the collector for a mutator that
    /// is parked or blocking, or with the world stopped.
    pub(crate) fn fix_pending(&self) {
        let mut p = self.pending.lock();
        if p.forward.is_none() && p.scan.is_none() {
            return;
        }
        // Exclusive access to the roots: the owner touches them only after its
        // own `fix_pending` on resuming, which takes the same lock, and any other
        // caller holds this lock too; so while work is pending, only the lock
        // holder touches them.
        // SAFETY: as just argued.
        let roots = unsafe { self.roots() };
        if let Some(f) = p.forward.take() {
            f.apply(roots);
        }
        if let Some(s) = p.scan.take() {
            s.apply(roots);
        }
    }

    /// Clears the published root stack view, under the lock the collector's
    /// accesses to a running mutator's roots hold: called by the owning mutator
    /// before it frees its stack's storage (when it is dropped).
    pub(crate) fn forget_stack(&self) {
        let _p = self.pending.lock();
        // SAFETY: the owning thread, Running; any other access to the roots now
        // holds the lock just taken (`fix_pending`) or waits for a stop.
        unsafe { self.roots() }.stack = StackView::default();
    }

    /// The roots.
    ///
    /// # Safety
    /// The caller is the owning thread while its mutator is `Running`, or the
    /// collector while the world is stopped; and no other reference from this
    /// method is alive.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub unsafe fn roots(&self) -> &mut RootTable {
        // SAFETY: exclusive access per the caller's contract.
        unsafe { &mut *self.roots.get() }
    }
}

#[cold]
#[inline(never)]
fn handle_in_blocking(what: &str) -> ! {
    panic!(
        "a Handle was {what} inside Mutator::blocking (reached through a thread-local?): \
         its mutator's roots may be in use by the collector there"
    )
}

/// Heap-wide root slots.
///
/// While a concurrent cycle marks, the globals are scanned concurrently, so every
/// value a slot loses (overwritten or freed) is logged first (`logging`), as the
/// write barrier does for heap fields: the marker drains `logged`.
#[derive(Default)]
pub struct GlobalTable {
    /// Slot values (0 in free slots).
    pub slots: Vec<u64>,
    free: Vec<usize>,
    /// Whether overwritten values are logged (concurrent marking is on).
    pub logging: bool,
    /// Values overwritten or freed while logging.
    pub logged: Vec<u64>,
}

impl GlobalTable {
    fn log(&mut self, i: usize) {
        let old = self.slots[i];
        if self.logging && is_ref(old as usize) {
            self.logged.push(old);
        }
    }

    /// Overwrites slot `i`.
    pub(crate) fn set(&mut self, i: usize, value: u64) {
        self.log(i);
        self.slots[i] = value;
    }

    pub(crate) fn add(&mut self, value: u64) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = value;
                i
            }
            None => {
                self.slots.push(value);
                self.slots.len() - 1
            }
        }
    }

    pub(crate) fn remove(&mut self, i: usize) {
        self.set(i, 0);
        self.free.push(i);
    }
}
