//! [`Mutator`]: a thread's access to the heap (allocation, field access, roots), and
//! [`Gc`], an object reference valid until the mutator's next GC point.
//!
//! Safety argument (why safe code cannot hold a dangling reference):
//! 1. A [`Gc<'m>`] borrows its mutator immutably (`'m`). Every GC point (`alloc`,
//!    `safepoint`, `collect`, `blocking`, `verify`) takes `&mut self`, so no `Gc`
//!    survives one. Only roots (handles, the root stack, globals) do, and the
//!    collector updates them.
//! 2. Objects move only while every mutator is stopped (`safepoint.rs`), i.e. inside a
//!    GC point or in `blocking`, whose closure is `Send` and cannot reach the mutator.
//! 3. `Mutator`, `Gc` and `Handle` are not `Send`, and a thread has at most one mutator
//!    per heap; every `Gc` passed in is checked to lie in this heap, and every
//!    handle to belong to this mutator.

use crate::error::GcError;
use crate::heap::Heap;
use crate::mem::{self, WORD};
use crate::object::{Header, TypeId, TypeKind};
use crate::roots::{Global, Handle, MutatorShared};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// How many collections one allocation may run (or wait for) before it reports
/// out-of-memory although the last collection left room: a bound on starvation by
/// other mutators that keep taking the room first.
const MAX_COLLECTIONS_PER_REQUEST: usize = 32;

/// A reference to a heap object, valid until its mutator's next GC point.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gc<'m> {
    addr: usize,
    _m: PhantomData<&'m Mutator>,
}

impl Gc<'_> {
    fn new(addr: usize) -> Self {
        Gc {
            addr,
            _m: PhantomData,
        }
    }

    /// The object's current address (it changes when a collection moves it).
    pub fn addr(self) -> usize {
        self.addr
    }
}

impl std::fmt::Debug for Gc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gc({:#x})", self.addr)
    }
}

/// A thread's access to a [`Heap`]. Not `Send`: bind one per thread with
/// [`Heap::bind_mutator`]. Threads must reach a GC point regularly (allocation does;
/// long loops without allocation call [`Mutator::safepoint`]), and wrap blocking or
/// native work in [`Mutator::blocking`], or collections requested by other threads wait.
///
/// Dropping a mutator deregisters it. Leaking one (`mem::forget`, `Box::leak`)
/// leaves it registered and running for ever, like a thread that never reaches a
/// safepoint: every later collection then waits for it (after 10 s a warning on
/// stderr says so). Deregistering it behind the leaker's back instead could let a
/// collection move objects under code that still uses it, so flipgc does not.
pub struct Mutator {
    heap: Heap,
    id: u64,
    shared: Arc<MutatorShared>,
    _not_send: PhantomData<*const ()>,
}

impl Mutator {
    pub(crate) fn new(heap: Heap) -> Mutator {
        let shared = Arc::new(MutatorShared::new());
        let id = heap.inner.safepoints.register(Arc::clone(&shared));
        Mutator {
            heap,
            id,
            shared,
            _not_send: PhantomData,
        }
    }

    /// The heap.
    pub fn heap(&self) -> &Heap {
        &self.heap
    }

    // ---- allocation (GC points) ----

    /// Allocates a zeroed object of type `ty` (`len` elements for arrays, ignored for
    /// fixed types) and returns a handle to it. A GC point. `Err(OutOfMemory)` when
    /// a full collection could not make room; the heap stays usable.
    #[inline]
    pub fn alloc(&mut self, ty: TypeId, len: usize) -> Result<Handle, GcError> {
        let addr = self.alloc_raw(ty, len)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Like [`Mutator::alloc`], but pushes the new object on the root stack instead
    /// of making a handle (cheaper, for interpreters).
    #[inline]
    pub fn alloc_push(&mut self, ty: TypeId, len: usize) -> Result<(), GcError> {
        let addr = self.alloc_raw(ty, len)?;
        // SAFETY: this mutator is Running (we hold `&mut self` outside any GC point).
        unsafe { self.shared.roots() }.stack.push(addr as u64);
        Ok(())
    }

    #[inline]
    fn alloc_raw(&mut self, ty: TypeId, len: usize) -> Result<usize, GcError> {
        let (header, words) = self.heap.inner.types.layout(ty, len)?;
        if words * WORD >= self.heap.inner.config.large_object_threshold {
            return self.alloc_large(header, words);
        }
        // SAFETY: this mutator is Running.
        let addr = match unsafe { self.shared.tlab() }.bump(words) {
            Some(a) => a,
            None => self.alloc_slow(words)?,
        };
        // SAFETY: `addr` starts `words` fresh words of the moving space owned by this
        // mutator (invariant Z: they read as zero, so the payload is initialised).
        unsafe { mem::store(addr, header.0) };
        Ok(addr)
    }

    /// Records an allocation stall (a slow path that waited for a collection).
    fn stalled(&self, since: std::time::Instant) {
        let ns = since.elapsed().as_nanos() as u64;
        self.heap.inner.log.lock().record_alloc_stall(ns);
    }

    #[cold]
    fn alloc_slow(&mut self, words: usize) -> Result<usize, GcError> {
        let since = std::time::Instant::now();
        let mut waited = self.heap.inner.safepoints.park_if_requested(self.id);
        if let crate::config::GcTrigger::AfterBytes(n) = self.heap.inner.config.trigger {
            if self.heap.inner.space.lock().allocated_since_gc >= n {
                self.collect_inner();
                waited = true;
            }
        }
        if let Some(a) = self.refill(words) {
            if waited {
                self.stalled(since);
            }
            return Ok(a);
        }
        #[cfg(target_os = "linux")]
        if crate::collect::twopause::wait_for_flip(&self.heap, self.id) {
            // A concurrent cycle was between its pauses; its flip may have made room.
            if let Some(a) = self.refill(words) {
                self.stalled(since);
                return Ok(a);
            }
        }
        // Collect until the request fits. Other mutators may take the room a
        // collection made before this one gets to it, so a failed refill is out of
        // memory only when what the last collection kept leaves no room for it.
        let capacity = self.heap.inner.config.capacity;
        for _ in 0..MAX_COLLECTIONS_PER_REQUEST {
            self.collect_inner();
            let got = self.refill(words);
            if let Some(a) = got {
                self.stalled(since);
                return Ok(a);
            }
            let kept = self.heap.inner.space.lock().kept_by_last_gc;
            if kept + words * WORD > capacity {
                break;
            }
        }
        self.stalled(since);
        let space = self.heap.inner.space.lock();
        Err(GcError::OutOfMemory {
            requested: words * WORD,
            capacity,
            live: space.kept_by_last_gc,
        })
    }

    /// Retires the TLAB and carves a new one (or, for objects over a quarter of a
    /// TLAB, just the object). Returns the object's address.
    fn refill(&mut self, words: usize) -> Option<usize> {
        let tlab_bytes = self.heap.inner.config.tlab_size;
        let mut space = self.heap.inner.space.lock();
        // SAFETY: this mutator is Running.
        let tlab = unsafe { self.shared.tlab() };
        tlab.retire();
        if words * WORD > tlab_bytes / 4 {
            return space.carve(words);
        }
        // A whole TLAB if it fits, else whatever is left (if the object fits in it).
        let left = (space.end() - space.top) / WORD;
        let tlab_words = (tlab_bytes / WORD).min(left);
        if tlab_words < words {
            return None;
        }
        let start = space.carve(tlab_words)?;
        tlab.cursor = start;
        tlab.limit = start + tlab_words * WORD;
        tlab.bump(words)
    }

    fn alloc_large(&mut self, header: Header, words: usize) -> Result<usize, GcError> {
        self.safepoint();
        if let crate::config::GcTrigger::AfterBytes(n) = self.heap.inner.config.trigger {
            let mut space = self.heap.inner.space.lock();
            space.allocated_since_gc += words * WORD;
            let due = space.allocated_since_gc >= n;
            drop(space);
            if due {
                self.collect_inner();
            }
        }
        let bytes = words * WORD;
        for _ in 0..MAX_COLLECTIONS_PER_REQUEST {
            let mut los = self.heap.inner.los.lock();
            if los.used() + bytes <= los.capacity() {
                if let Some(addr) = los.alloc(words)? {
                    // SAFETY: `addr` is a fresh, zeroed large object of `words` words.
                    unsafe { mem::store(addr, header.0) };
                    return Ok(addr);
                }
            }
            drop(los);
            self.collect_inner();
            // Out of memory if even right after a collection it cannot fit (what the
            // collection kept is all that is used then, up to other mutators' news).
            let mut los = self.heap.inner.los.lock();
            if los.used() + bytes <= los.capacity() {
                if let Some(addr) = los.alloc(words)? {
                    // SAFETY: as above.
                    unsafe { mem::store(addr, header.0) };
                    return Ok(addr);
                }
            }
            if los.kept_by_last_gc() + bytes > los.capacity() {
                break;
            }
        }
        let los = self.heap.inner.los.lock();
        Err(GcError::OutOfMemory {
            requested: bytes,
            capacity: los.capacity(),
            live: los.used(),
        })
    }

    // ---- GC points ----

    /// Parks here if another thread has requested a collection.
    #[inline]
    pub fn safepoint(&mut self) {
        self.heap.inner.safepoints.park_if_requested(self.id);
    }

    /// Runs a full collection (or waits for one another thread started). With
    /// concurrent compaction, returns after the flip pause, while pages are still
    /// being filled (reads of unfilled pages wait for them, transparently).
    pub fn collect(&mut self) {
        self.collect_inner();
    }

    /// Returns whether this mutator ran the collection itself.
    fn collect_inner(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        if self.heap.inner.concurrent {
            return crate::collect::twopause::collect(&self.heap, self.id);
        }
        let Some(stopped) = self.heap.inner.safepoints.stop_the_world(self.id) else {
            return false;
        };
        crate::collect::cycle::collect(&self.heap, &stopped);
        true
    }

    /// Runs `f` (native or blocking work) with this thread counted as stopped, so
    /// collections need not wait for it. `f` cannot touch the heap: it is `Send` and
    /// the mutator is borrowed.
    pub fn blocking<R: Send>(&mut self, f: impl FnOnce() -> R + Send) -> R {
        struct Leave<'a>(&'a Mutator);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.heap.inner.safepoints.leave_blocking(self.0.id);
                self.0.shared.set_in_blocking(false);
            }
        }
        self.shared.set_in_blocking(true);
        self.heap.inner.safepoints.enter_blocking(self.id);
        let _leave = Leave(self);
        f()
    }

    /// Stops the world and runs the heap verifier.
    pub fn verify(&mut self) -> Result<crate::collect::verify::VerifyReport, String> {
        loop {
            if let Some(stopped) = self.heap.inner.safepoints.stop_the_world(self.id) {
                return crate::collect::verify::verify_stopped(&self.heap, &stopped);
            }
        }
    }

    // ---- checks ----

    #[inline]
    fn check<'m>(&self, obj: Gc<'m>) -> Header {
        assert!(
            self.heap.owns(obj.addr),
            "{obj:?} does not belong to this heap"
        );
        // SAFETY: `obj` is a live object of this heap (mutator invariant 1, checked
        // above): its header word is mapped.
        Header(unsafe { mem::load(obj.addr) })
    }

    fn own(&self, h: &Handle) {
        assert!(
            Arc::ptr_eq(&h.shared, &self.shared),
            "handle belongs to another mutator"
        );
    }

    fn field_addr(&self, obj: Gc<'_>, h: Header, field: usize, want_ref: bool) -> usize {
        let types = &self.heap.inner.types;
        let payload = types.object_words(h).expect("valid header") - 1;
        assert!(
            field < payload,
            "field {field} out of range: object has {payload} payload words"
        );
        if matches!(
            types.get(h.type_id()).map(|t| &t.kind),
            Some(TypeKind::ByteArray)
        ) {
            panic!("field access on a byte array: use read_bytes/write_bytes");
        }
        assert_eq!(
            types.is_ref_field(h, field),
            want_ref,
            "field {field} is{} a reference field",
            if want_ref { " not" } else { "" }
        );
        obj.addr + WORD * (1 + field)
    }

    // ---- object access ----

    /// The reference in field `field` of `obj`. Panics if it is not a reference field.
    pub fn read_ref<'m>(&'m self, obj: Gc<'m>, field: usize) -> Option<Gc<'m>> {
        let h = self.check(obj);
        let at = self.field_addr(obj, h, field, true);
        // SAFETY: `at` is a field of a live object of this heap. Acquire: the
        // referent's header and fields, written before it was published, are visible.
        let v = unsafe { mem::load_acquire(at) } as usize;
        (v != 0).then(|| Gc::new(v))
    }

    /// Stores `value` into reference field `field` of `obj`.
    pub fn write_ref(&self, obj: Gc<'_>, field: usize, value: Option<Gc<'_>>) {
        let h = self.check(obj);
        let at = self.field_addr(obj, h, field, true);
        let v = value.map_or(0, |g| {
            self.check(g);
            g.addr
        });
        // SAFETY: `at` is a field of a live object of this heap; `v` is null or a live
        // object of this heap. Release: publishes `v`'s header and fields to readers.
        unsafe { mem::store_release(at, v as u64) };
    }

    /// The raw word in non-reference field `field` of `obj`.
    pub fn read_word(&self, obj: Gc<'_>, field: usize) -> u64 {
        let h = self.check(obj);
        let at = self.field_addr(obj, h, field, false);
        // SAFETY: `at` is a field of a live object of this heap.
        unsafe { mem::load(at) }
    }

    /// Stores a raw word into non-reference field `field` of `obj` (reference fields
    /// refuse raw words: that would forge references).
    pub fn write_word(&self, obj: Gc<'_>, field: usize, value: u64) {
        let h = self.check(obj);
        let at = self.field_addr(obj, h, field, false);
        // SAFETY: `at` is a non-reference field of a live object of this heap.
        unsafe { mem::store(at, value) };
    }

    /// `obj`'s type.
    pub fn type_of(&self, obj: Gc<'_>) -> TypeId {
        self.check(obj).type_id()
    }

    /// Elements of an array (references or bytes), or fields of a fixed-size object.
    pub fn len(&self, obj: Gc<'_>) -> usize {
        let h = self.check(obj);
        match self.heap.inner.types.get(h.type_id()).map(|t| &t.kind) {
            Some(TypeKind::Fixed { fields, .. }) => *fields as usize,
            _ => h.len() as usize,
        }
    }

    fn byte_range(&self, obj: Gc<'_>, offset: usize, n: usize) -> usize {
        let h = self.check(obj);
        let kind = self.heap.inner.types.get(h.type_id()).map(|t| &t.kind);
        assert!(
            matches!(kind, Some(TypeKind::ByteArray)),
            "{obj:?} is not a byte array"
        );
        let len = h.len() as usize;
        assert!(
            offset.checked_add(n).is_some_and(|e| e <= len),
            "bytes {offset}+{n} out of range 0..{len}"
        );
        obj.addr + WORD + offset
    }

    /// Copies bytes `offset ..` of byte array `obj` into `out`.
    pub fn read_bytes(&self, obj: Gc<'_>, offset: usize, out: &mut [u8]) {
        let at = self.byte_range(obj, offset, out.len());
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: in bounds of a live byte array (checked); atomic byte access
            // keeps racing writers from other threads defined.
            *b = unsafe { AtomicU8::from_ptr((at + i) as *mut u8) }.load(Ordering::Relaxed);
        }
    }

    /// Copies `data` into byte array `obj` at `offset`.
    pub fn write_bytes(&self, obj: Gc<'_>, offset: usize, data: &[u8]) {
        let at = self.byte_range(obj, offset, data.len());
        for (i, b) in data.iter().enumerate() {
            // SAFETY: as in `read_bytes`.
            unsafe { AtomicU8::from_ptr((at + i) as *mut u8) }.store(*b, Ordering::Relaxed);
        }
    }

    // ---- roots ----

    /// The object `handle` refers to.
    pub fn get<'m>(&'m self, handle: &Handle) -> Gc<'m> {
        self.own(handle);
        // SAFETY: this mutator is Running.
        Gc::new(unsafe { self.shared.roots() }.get(handle.slot) as usize)
    }

    /// Points `handle` at `obj`.
    pub fn set(&self, handle: &Handle, obj: Gc<'_>) {
        self.own(handle);
        self.check(obj);
        // SAFETY: this mutator is Running.
        unsafe { self.shared.roots() }.set(handle.slot, obj.addr as u64);
    }

    /// A new handle to `obj`.
    pub fn root(&self, obj: Gc<'_>) -> Handle {
        self.check(obj);
        Handle::new(&self.shared, obj.addr as u64)
    }

    /// Pushes `obj` (or null) on the root stack.
    pub fn push(&self, obj: Option<Gc<'_>>) {
        let v = obj.map_or(0, |g| {
            self.check(g);
            g.addr as u64
        });
        // SAFETY: this mutator is Running.
        unsafe { self.shared.roots() }.stack.push(v);
    }

    /// Pops the root stack. Panics if it is empty.
    pub fn pop<'m>(&'m self) -> Option<Gc<'m>> {
        // SAFETY: this mutator is Running.
        let v = unsafe { self.shared.roots() }
            .stack
            .pop()
            .expect("root stack underflow");
        (v != 0).then(|| Gc::new(v as usize))
    }

    /// Root stack entry `i` (0 is the bottom).
    pub fn stack_get<'m>(&'m self, i: usize) -> Option<Gc<'m>> {
        // SAFETY: this mutator is Running.
        let v = unsafe { self.shared.roots() }.stack[i];
        (v != 0).then(|| Gc::new(v as usize))
    }

    /// Overwrites root stack entry `i`.
    pub fn stack_set(&self, i: usize, obj: Option<Gc<'_>>) {
        let v = obj.map_or(0, |g| {
            self.check(g);
            g.addr as u64
        });
        // SAFETY: this mutator is Running.
        unsafe { self.shared.roots() }.stack[i] = v;
    }

    /// Root stack depth.
    pub fn stack_len(&self) -> usize {
        // SAFETY: this mutator is Running.
        unsafe { self.shared.roots() }.stack.len()
    }

    /// Shrinks the root stack to `len` entries.
    pub fn stack_truncate(&self, len: usize) {
        // SAFETY: this mutator is Running.
        unsafe { self.shared.roots() }.stack.truncate(len);
    }

    /// A heap-wide root for `obj`, usable from any thread.
    pub fn global(&self, obj: Gc<'_>) -> Global {
        self.check(obj);
        let slot = self.heap.inner.globals.lock().add(obj.addr as u64);
        Global {
            heap: Arc::clone(&self.heap.inner),
            slot,
        }
    }

    /// The object `global` refers to.
    pub fn get_global<'m>(&'m self, global: &Global) -> Gc<'m> {
        assert!(
            Arc::ptr_eq(&global.heap, &self.heap.inner),
            "global belongs to another heap"
        );
        Gc::new(self.heap.inner.globals.lock().slots[global.slot] as usize)
    }

    /// Points `global` at `obj`.
    pub fn set_global(&self, global: &Global, obj: Gc<'_>) {
        assert!(
            Arc::ptr_eq(&global.heap, &self.heap.inner),
            "global belongs to another heap"
        );
        self.check(obj);
        self.heap.inner.globals.lock().slots[global.slot] = obj.addr as u64;
    }
}

impl Drop for Mutator {
    fn drop(&mut self) {
        // SAFETY: still Running: the TLAB's tail becomes a filler before we leave.
        unsafe { self.shared.tlab() }.retire();
        self.heap.inner.safepoints.deregister(self.id);
        self.heap.unbind_thread();
    }
}

impl std::fmt::Debug for Mutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mutator({}, {:?})", self.id, self.heap)
    }
}
