//! Roots: where references live across GC points, all updated by the collector.
//!
//! - [`Handle`]: one slot in its mutator's handle table, freed on drop.
//! - The mutator's **root stack** (`Mutator::push` and friends): a growable stack
//!   of slots, the shape a VM's operand stack needs.
//! - [`Global`]: a heap-wide slot, usable from any thread.
//!
//! A mutator's handle table and root stack live in its [`MutatorShared`], shared
//! with the safepoint registry. Access protocol (safepoint invariant 1): the owning
//! thread touches them only while its mutator is `Running`; the collector only while
//! the world is stopped.
//!
//! Deferred root forwarding (concurrent cycles): the flip pause does not rewrite the
//! mutators' roots. It leaves each mutator a *pending forward*; the first of (a) the
//! mutator itself, on resuming from the pause, before it touches its roots or the
//! heap, (b) the coordinator right after the pause, (c) the compaction's end or the
//! verifier, applies it, under the mutator's `pending` lock ([`MutatorShared::fix_pending`]).
//! So the pause does not grow with the number of threads or the depth of their stacks.

use crate::space::tlab::Tlab;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A mutator's roots and allocation buffer, shared with the collector.
pub struct MutatorShared {
    roots: UnsafeCell<RootTable>,
    tlab: UnsafeCell<Tlab>,
    /// Whether the owning thread is inside `Mutator::blocking`, where the collector
    /// may be walking `roots`. Read and written by the owning thread only (a
    /// `Handle` is not `Send`, so its clones and drops run there too): relaxed.
    in_blocking: AtomicBool,
    /// A root forwarding left by a flip pause, not yet applied.
    pending: parking_lot::Mutex<Option<Arc<dyn RootForward>>>,
}

/// Rewrites old addresses to new ones (a concurrent cycle's forwarding).
pub trait RootForward: Send + Sync {
    /// Rewrites every non-null root in `roots`.
    fn forward_all(&self, roots: &mut RootTable);
}

// SAFETY: the cells are accessed by one thread at a time per the access protocol in
// the module docs (the owner while Running, the collector while stopped), and every
// hand-over goes through the safepoint lock, which orders the accesses.
unsafe impl Sync for MutatorShared {}
// SAFETY: as above; the contents are plain data.
unsafe impl Send for MutatorShared {}

/// Handle slots and the root stack.
#[derive(Default)]
pub struct RootTable {
    slots: Vec<u64>,
    free: Vec<u32>,
    /// The root stack.
    pub stack: Vec<u64>,
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
    /// null check).
    pub fn for_each_mut(&mut self, f: impl FnMut(&mut u64)) {
        self.slots
            .iter_mut()
            .chain(self.stack.iter_mut())
            .for_each(f);
    }
}

impl MutatorShared {
    pub(crate) fn new() -> MutatorShared {
        MutatorShared {
            roots: UnsafeCell::new(RootTable::default()),
            tlab: UnsafeCell::new(Tlab::default()),
            in_blocking: AtomicBool::new(false),
            pending: parking_lot::Mutex::new(None),
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
    fn check_handle_use(&self, what: &str) {
        assert!(
            !self.in_blocking.load(Ordering::Relaxed),
            "a Handle was {what} inside Mutator::blocking (reached through a \
             thread-local?): its mutator's roots may be in use by the collector there"
        );
    }

    /// Leaves a forwarding for these roots (flip pause, world stopped).
    pub(crate) fn set_pending(&self, f: Arc<dyn RootForward>) {
        *self.pending.lock() = Some(f);
    }

    /// Applies the pending forwarding, if any. Called by the owning thread when it
    /// resumes from a pause (before touching its roots), or by the collector for a
    /// mutator that is parked or blocking, or with the world stopped.
    pub(crate) fn fix_pending(&self) {
        let mut p = self.pending.lock();
        if let Some(f) = p.take() {
            // Exclusive access to the roots: the owner touches them only after its
            // own `fix_pending` on resuming, which takes the same lock, and any other
            // caller holds this lock too; so while the forwarding is pending, only
            // the lock holder touches them.
            // SAFETY: as just argued.
            let roots = unsafe { self.roots() };
            f.forward_all(roots);
        }
    }

    /// The roots.
    ///
    /// # Safety
    /// The caller is the owning thread while its mutator is `Running`, or the
    /// collector while the world is stopped; and no other reference from this
    /// method or [`MutatorShared::tlab`]'s sibling call on the same cell is alive.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub unsafe fn roots(&self) -> &mut RootTable {
        // SAFETY: exclusive access per the caller's contract.
        unsafe { &mut *self.roots.get() }
    }

    /// The allocation buffer.
    ///
    /// # Safety
    /// As for [`MutatorShared::roots`].
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub unsafe fn tlab(&self) -> &mut Tlab {
        // SAFETY: exclusive access per the caller's contract.
        unsafe { &mut *self.tlab.get() }
    }
}

/// A rooted reference owned by one mutator (not `Send`): the collector keeps it
/// pointing at its object across collections. Read it with `Mutator::get`.
/// Cloning makes a second slot; dropping frees the slot.
pub struct Handle {
    pub(crate) shared: Arc<MutatorShared>,
    pub(crate) slot: u32,
    _not_send: PhantomData<*const ()>,
}

impl Handle {
    pub(crate) fn new(shared: &Arc<MutatorShared>, value: u64) -> Handle {
        // SAFETY: called by the owning mutator's methods while it is Running.
        let slot = unsafe { shared.roots() }.add(value);
        Handle {
            shared: Arc::clone(shared),
            slot,
            _not_send: PhantomData,
        }
    }
}

impl Clone for Handle {
    fn clone(&self) -> Handle {
        self.shared.check_handle_use("cloned");
        // SAFETY: a Handle lives on its owner's thread (not Send); that thread runs
        // no user code while parked (inside a GC point), and `check_handle_use`
        // refused the one other stopped state, blocking. So the mutator is Running
        // (or already deregistered: the collector no longer sees the table).
        let value = unsafe { self.shared.roots() }.get(self.slot);
        Handle::new(&self.shared, value)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.check_handle_use("dropped");
        // SAFETY: as in `clone`.
        unsafe { self.shared.roots() }.remove(self.slot);
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Handle(slot {})", self.slot)
    }
}

/// Heap-wide root slots.
#[derive(Default)]
pub struct GlobalTable {
    /// Slot values (0 in free slots).
    pub slots: Vec<u64>,
    free: Vec<usize>,
}

impl GlobalTable {
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
        self.slots[i] = 0;
        self.free.push(i);
    }
}

/// A rooted reference usable from any thread of the heap (`Send + Sync`). Read it
/// with `Mutator::get_global`; freed on drop.
pub struct Global {
    pub(crate) heap: Arc<crate::heap::HeapInner>,
    pub(crate) slot: usize,
}

impl Drop for Global {
    fn drop(&mut self) {
        self.heap.globals.lock().remove(self.slot);
    }
}

impl std::fmt::Debug for Global {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Global(slot {})", self.slot)
    }
}
