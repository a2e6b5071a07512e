//! Roots (mutator API layer): where references live across GC points, all
//! updated by the collector. The tables they live in ([`MutatorShared`],
//! [`RootTable`], `GlobalTable`) are the collector layer's
//! (`collect/root_table.rs`); this file owns the handles and the root API.
//!
//! - [`Handle`]: one slot in its mutator's handle table, freed on drop. No atomic
//!   reference count: a handle is a pointer to its mutator's table and a slot index,
//!   and the count of live handles is touched by the owning thread only.
//! - The mutator's **root stack** (`Mutator::push` and friends): a growable stack
//!   of slots, the shape a VM's operand stack needs. Its frames (`stack_len`, then
//!   `stack_truncate` back to it) release many slots at once, as a handle scope does.
//!   Its storage lives in the [`Mutator`] itself, so that the owner's hot loops keep
//!   its depth in a register; before every stop the mutator publishes it (storage
//!   and depth) to its [`RootTable`] as a [`StackView`], which is what the collector
//!   reads and updates.
//! - [`Global`]: a heap-wide slot, usable from any thread.
//!
//! A mutator's handle table and root stack view live in its [`MutatorShared`],
//! shared with the safepoint registry. Access protocol (safepoint invariant 1): the
//! owning thread touches them (and its stack's storage) only while its mutator is
//! `Running`; the collector only while the world is stopped.
//!
//! Deferred root forwarding (concurrent cycles): the flip pause does not rewrite the
//! mutators' roots. It leaves each mutator a *pending forward*; the first of (a) the
//! mutator itself, on resuming from the pause, before it touches its roots or the
//! heap, (b) the coordinator right after the pause, (c) the compaction's end or the
//! verifier, applies it, under the mutator's `pending` lock ([`MutatorShared::fix_pending`]).
//! So the pause does not grow with the number of threads or the depth of their stacks.

use crate::collect::root_table::{MutatorShared, RootTable, StackView};
use crate::mutator::{Gc, Mutator};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

/// A rooted reference owned by one mutator (not `Send`): the collector keeps it
/// pointing at its object across collections. Read it with `Mutator::get`.
/// Cloning makes a second slot; dropping frees the slot. It may outlive its
/// mutator (it then refers to nothing any mutator accepts).
pub struct Handle {
    shared: NonNull<MutatorShared>,
    pub(crate) slot: u32,
    _not_send: PhantomData<*const ()>,
}

impl Handle {
    #[inline]
    pub(crate) fn new(shared: &Arc<MutatorShared>, value: u64) -> Handle {
        // SAFETY: called by the owning mutator's methods while it is Running.
        let slot = unsafe { shared.roots() }.add(value);
        shared.handles.set(shared.handles.get() + 1);
        Handle {
            shared: NonNull::from(&**shared),
            slot,
            _not_send: PhantomData,
        }
    }

    /// The mutator state this handle belongs to.
    #[inline(always)]
    fn shared(&self) -> &MutatorShared {
        // SAFETY: the state lives while its mutator does, and past it while handles
        // live (`orphan_if_handles_live`: the last handle's drop releases it).
        unsafe { self.shared.as_ref() }
    }

    /// Whether this handle belongs to `shared`.
    #[inline(always)]
    pub(crate) fn belongs_to(&self, shared: &Arc<MutatorShared>) -> bool {
        std::ptr::eq(self.shared.as_ptr(), Arc::as_ptr(shared))
    }
}

impl Clone for Handle {
    fn clone(&self) -> Handle {
        let shared = self.shared();
        shared.check_handle_use("cloned");
        // A Handle lives on its owner's thread (not Send); that thread runs no user
        // code while parked (inside a GC point), and `check_handle_use` refused the
        // one other stopped state, blocking.
        // SAFETY: so the mutator is Running (or deregistered: no collector sees it).
        let table = unsafe { shared.roots() };
        let slot = table.add(table.get(self.slot));
        shared.handles.set(shared.handles.get() + 1);
        Handle {
            shared: self.shared,
            slot,
            _not_send: PhantomData,
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let shared = self.shared();
        shared.check_handle_use("dropped");
        // SAFETY: as in `clone`.
        unsafe { shared.roots() }.remove(self.slot);
        let left = shared.handles.get() - 1;
        shared.handles.set(left);
        if left == 0 && shared.orphaned.get() {
            // SAFETY: the mutator is gone and left one strong count for its handles
            // (`orphan_if_handles_live`); this was the last handle.
            unsafe { Arc::decrement_strong_count(self.shared.as_ptr()) };
        }
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Handle(slot {})", self.slot)
    }
}

/// A weak reference owned by one mutator (not `Send`): it does not keep its object
/// alive, and reads as `None` once a collection found the object unreachable;
/// while the object lives, the collector keeps it pointing there. Read it with
/// `Mutator::get_weak`; dropping it frees the slot.
pub struct WeakHandle {
    shared: NonNull<MutatorShared>,
    slot: u32,
    _not_send: PhantomData<*const ()>,
}

impl WeakHandle {
    fn shared(&self) -> &MutatorShared {
        // SAFETY: as for `Handle::shared` (weak handles count in `handles` too).
        unsafe { self.shared.as_ref() }
    }
}

impl Drop for WeakHandle {
    fn drop(&mut self) {
        let shared = self.shared();
        shared.check_handle_use("dropped");
        // SAFETY: as in `Handle::drop`.
        let table = unsafe { shared.roots() };
        table.weak[self.slot as usize] = 0;
        table.weak_free.push(self.slot);
        let left = shared.handles.get() - 1;
        shared.handles.set(left);
        if left == 0 && shared.orphaned.get() {
            // SAFETY: as in `Handle::drop`.
            unsafe { Arc::decrement_strong_count(self.shared.as_ptr()) };
        }
    }
}

impl std::fmt::Debug for WeakHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WeakHandle(slot {})", self.slot)
    }
}

/// A rooted reference usable from any thread of the heap (`Send + Sync`). Read it
/// with `Mutator::get_global`; freed on drop.
pub struct Global {
    pub(crate) heap: Arc<crate::collect::heap_inner::HeapInner>,
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

/// The root API of a mutator: handles, the root stack, globals.
impl Mutator {
    /// This mutator's root table.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn table(&self) -> &mut RootTable {
        // SAFETY: this mutator's own thread, outside any GC point (we hold `&self`,
        // and GC points take `&mut self`): the mutator is Running. No other
        // reference into the table is alive: every use below is a single call.
        unsafe { self.shared.roots() }
    }

    /// This mutator's root stack.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn stack(&self) -> &mut Vec<u64> {
        // The storage is this (neither `Send` nor `Sync`) mutator's, reached only by
        // its own thread while Running; the collector reads only the published view
        // (`StackView`'s invariant). Every use below is a single call.
        // SAFETY: so no other reference into the storage is alive.
        unsafe { &mut *self.stack.get() }
    }

    /// Publishes the root stack to the collector (`StackView`): called before
    /// every stop, and valid until this mutator runs on after it.
    #[inline]
    pub(crate) fn publish_stack(&mut self) {
        let s = self.stack.get_mut();
        let view = StackView {
            ptr: NonNull::from(s.as_mut_slice()).cast(),
            len: s.len(),
        };
        self.table().stack = view;
    }

    #[inline(always)]
    fn own(&self, h: &Handle) {
        if !h.belongs_to(&self.shared) {
            foreign_handle();
        }
    }

    /// The object `handle` refers to. Panics if it holds null or an immediate
    /// (possible only through [`Mutator::root_value`] / [`Mutator::set_handle_value`]).
    #[inline]
    pub fn get<'m>(&'m self, handle: &Handle) -> Gc<'m> {
        Gc::from_slot(self.handle_word(handle) as usize).unwrap_or_else(|| null_root("handle"))
    }

    /// Points `handle` at `obj`.
    pub fn set(&self, handle: &Handle, obj: Gc<'_>) {
        let v = self.checked(obj);
        self.set_handle_word(handle, v);
    }

    /// A new handle to `obj`.
    pub fn root(&self, obj: Gc<'_>) -> Handle {
        let v = self.checked(obj);
        self.new_handle(v)
    }

    /// The word `handle` holds.
    #[inline(always)]
    pub(crate) fn handle_word(&self, handle: &Handle) -> u64 {
        self.own(handle);
        self.table().get(handle.slot)
    }

    /// Stores a checked word (null, an immediate, an object of this heap) into
    /// `handle`.
    #[inline(always)]
    pub(crate) fn set_handle_word(&self, handle: &Handle, v: u64) {
        self.own(handle);
        self.table().set(handle.slot, v);
    }

    /// A new handle holding a checked word.
    #[inline(always)]
    pub(crate) fn new_handle(&self, v: u64) -> Handle {
        Handle::new(&self.shared, v)
    }

    #[inline(always)]
    fn checked(&self, obj: Gc<'_>) -> u64 {
        if !self.owns(obj.addr) {
            panic!("{obj:?} does not belong to this heap");
        }
        obj.addr as u64
    }

    #[inline(always)]
    fn checked_opt(&self, obj: Option<Gc<'_>>) -> u64 {
        obj.map_or(0, |g| self.checked(g))
    }

    /// Pushes a raw root (an object of this heap, or 0).
    #[inline(always)]
    pub(crate) fn push_raw(&self, v: u64) {
        self.stack().push(v);
    }

    /// Pushes `obj` (or null) on the root stack.
    #[inline]
    pub fn push(&self, obj: Option<Gc<'_>>) {
        let v = self.checked_opt(obj);
        self.push_raw(v);
    }

    /// Pops the root stack. Panics if it is empty.
    #[inline]
    pub fn pop<'m>(&'m self) -> Option<Gc<'m>> {
        Gc::from_slot(self.pop_raw() as usize)
    }

    /// Pops the root stack's top word. Panics if it is empty.
    #[inline(always)]
    pub(crate) fn pop_raw(&self) -> u64 {
        self.stack().pop().expect("root stack underflow")
    }

    /// Root stack entry `i` (0 is the bottom).
    #[inline]
    pub fn stack_get<'m>(&'m self, i: usize) -> Option<Gc<'m>> {
        Gc::from_slot(self.stack_word(i) as usize)
    }

    /// Root stack entry `i`'s word. Panics if out of range.
    #[inline(always)]
    pub(crate) fn stack_word(&self, i: usize) -> u64 {
        self.stack()[i]
    }

    /// Overwrites root stack entry `i`.
    #[inline]
    pub fn stack_set(&self, i: usize, obj: Option<Gc<'_>>) {
        let v = self.checked_opt(obj);
        self.set_stack_word(i, v);
    }

    /// Overwrites root stack entry `i` with a checked word. Panics if out of range.
    #[inline(always)]
    pub(crate) fn set_stack_word(&self, i: usize, v: u64) {
        self.stack()[i] = v;
    }

    /// Pushes a copy of root stack entry `i` (no check: the stack holds only objects
    /// of this heap). Panics if `i` is out of range.
    #[inline]
    pub fn stack_dup(&self, i: usize) {
        let stack = self.stack();
        let v = stack[i];
        stack.push(v);
    }

    /// Copies root stack entry `from` over entry `to` (no check, as
    /// [`Mutator::stack_dup`]). Panics if either is out of range.
    #[inline]
    pub fn stack_copy(&self, from: usize, to: usize) {
        let stack = self.stack();
        stack[to] = stack[from];
    }

    /// Root stack depth.
    #[inline]
    pub fn stack_len(&self) -> usize {
        self.stack().len()
    }

    /// Shrinks the root stack to `len` entries.
    #[inline]
    pub fn stack_truncate(&self, len: usize) {
        self.stack().truncate(len);
    }

    /// A weak handle to `obj` (see [`WeakHandle`]).
    pub fn weak(&self, obj: Gc<'_>) -> WeakHandle {
        let v = self.checked(obj);
        let slot = self.table().add_weak(v);
        self.shared.handles.set(self.shared.handles.get() + 1);
        WeakHandle {
            shared: NonNull::from(&*self.shared),
            slot,
            _not_send: PhantomData,
        }
    }

    /// The object `weak` refers to, or `None` if it was found unreachable. While
    /// concurrent marking runs, the object read is logged as live (the
    /// weak-reference barrier of snapshot collectors): a weak read can make an
    /// object reachable again only before a collection decides it is dead, never
    /// after, since that decision and the clearing happen in one pause.
    pub fn get_weak<'m>(&'m self, weak: &WeakHandle) -> Option<Gc<'m>> {
        if !std::ptr::eq(weak.shared.as_ptr(), Arc::as_ptr(&self.shared)) {
            foreign_handle();
        }
        let v = self.table().weak[weak.slot as usize];
        self.weak_read(v as usize);
        Gc::from_slot(v as usize)
    }

    /// A heap-wide root for `obj`, usable from any thread.
    pub fn global(&self, obj: Gc<'_>) -> Global {
        let v = self.checked(obj);
        self.new_global(v)
    }

    /// A new global holding a checked word.
    pub(crate) fn new_global(&self, v: u64) -> Global {
        let slot = self.heap.inner.globals.lock().add(v);
        Global {
            heap: Arc::clone(&self.heap.inner),
            slot,
        }
    }

    fn own_global(&self, global: &Global) {
        assert!(
            Arc::ptr_eq(&global.heap, &self.heap.inner),
            "global belongs to another heap"
        );
    }

    /// The object `global` refers to.
    pub fn get_global<'m>(&'m self, global: &Global) -> Gc<'m> {
        Gc::from_slot(self.global_word(global) as usize).unwrap_or_else(|| null_root("global"))
    }

    /// Points `global` at `obj`.
    pub fn set_global(&self, global: &Global, obj: Gc<'_>) {
        let v = self.checked(obj);
        self.set_global_word(global, v);
    }

    /// The word `global` holds.
    pub(crate) fn global_word(&self, global: &Global) -> u64 {
        self.own_global(global);
        self.heap.inner.globals.lock().slots[global.slot]
    }

    /// Stores a checked word into `global`.
    pub(crate) fn set_global_word(&self, global: &Global, v: u64) {
        self.own_global(global);
        self.heap.inner.globals.lock().set(global.slot, v);
    }
}

#[cold]
#[inline(never)]
fn foreign_handle() -> ! {
    panic!("handle belongs to another mutator")
}

#[cold]
#[inline(never)]
fn null_root(what: &str) -> ! {
    panic!("the {what} holds null or an immediate (stored as a Value): read it as a Value")
}
