//! [`Mutator`]: a thread's access to the heap: allocation and the GC points. Field
//! access is in `access.rs`, the root API in `roots.rs`.
//!
//! Safety argument (why safe code cannot hold a dangling reference):
//! 1. A [`Gc<'m>`] borrows its mutator immutably (`'m`). Every GC point (`alloc`,
//!    `safepoint`, `collect`, `blocking`, `verify`) takes `&mut self`, so no `Gc`
//!    survives one. Only roots (handles, the root stack, globals) do, and the
//!    collector updates them.
//! 2. Objects move only while every mutator is stopped (`safepoint.rs`), i.e. inside a
//!    GC point or in `blocking`, whose closure is `Send` and cannot reach the mutator.
//! 3. `Mutator`, `Gc` and `Handle` are not `Send`, and a thread has at most one mutator
//!    per heap; every `Gc` passed in is checked to lie in this heap (two compares
//!    against bounds cached here), and every handle to belong to this mutator.
//!
//! The allocation buffer and the write barrier's buffer live in the mutator itself,
//! not in state shared with the collector: before it stops (at every GC point that
//! can stop, and in `blocking`) a mutator retires the first (its tail becomes a
//! filler) and hands the second to the marking intake, so the collector never
//! touches either. The root stack's storage lives here too; before a stop the
//! mutator publishes it to the collector (`roots.rs`, `StackView`). When it resumes
//! it re-reads the barrier flag.
//!
//! Collections run on the heap's GC driver thread (`collect/driver.rs`). A mutator
//! asks for one and waits for it counted as stopped: with [`Mutator::collect`], or
//! when its allocation finds the heap full.

use crate::barrier::SatbBuffer;
use crate::collect::root_table::MutatorShared;
use crate::error::{GcError, GcErrorKind};
use crate::heap::Heap;
use crate::mem::{self, WORD};
use crate::object::{FixedType, Header, TypeId};
use crate::pacer::Reason;
use crate::roots::Handle;
use crate::space::tlab::Tlab;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How many collections one allocation may run (or wait for) before it reports
/// out-of-memory although the last collection left room: a bound on starvation by
/// other mutators that keep taking the room first.
const MAX_COLLECTIONS_PER_REQUEST: usize = 32;

/// A reference to a heap object, valid until its mutator's next GC point.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gc<'m> {
    pub(crate) addr: usize,
    _m: PhantomData<&'m Mutator>,
}

impl Gc<'_> {
    #[inline(always)]
    pub(crate) fn new(addr: usize) -> Self {
        Gc {
            addr,
            _m: PhantomData,
        }
    }

    /// The object's current address (it changes when a collection moves it).
    pub fn addr(self) -> usize {
        self.addr
    }

    /// The reference a reference slot's word `v` holds, or `None` for null. Panics
    /// if `v` is an immediate: the `Option<Gc>` readers must not forge a reference
    /// from one (read such slots as a [`crate::Value`]).
    #[inline(always)]
    pub(crate) fn from_slot(v: usize) -> Option<Self> {
        if v as u64 & crate::object::IMMEDIATE_TAG_MASK != 0 {
            immediate_read_as_ref(v);
        }
        (v != 0).then(|| Gc::new(v))
    }
}

#[cold]
#[inline(never)]
fn immediate_read_as_ref(v: usize) -> ! {
    panic!(
        "the slot holds the immediate {v:#x}, not a reference: read it as a Value \
         (Mutator::get_value, read_value, stack_get_value, ...)"
    )
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
    pub(crate) heap: Heap,
    pub(crate) id: u64,
    pub(crate) shared: Arc<MutatorShared>,
    /// This thread's allocation buffer (retired before every stop).
    pub(crate) tlab: Tlab,
    /// Whether the write barrier logs (concurrent marking is on); see `barrier.rs`.
    pub(crate) marking: bool,
    /// The write barrier's log (handed in before every stop).
    pub(crate) satb: SatbBuffer,
    /// The moving space's base and capacity, and the large-object space's (cached
    /// from the heap, fixed for its life): `owns` is two compares.
    pub(crate) base: usize,
    pub(crate) cap: usize,
    pub(crate) los_base: usize,
    pub(crate) los_cap: usize,
    /// The root stack's storage (`roots.rs`): here, not in `shared`, so that the
    /// owner's code keeps its depth in registers; published to the collector before
    /// every stop.
    pub(crate) stack: std::cell::UnsafeCell<Vec<u64>>,
    /// The heap's type registry identity, which descriptors must carry.
    pub(crate) registry: u32,
    /// Whether the heap has a VM object model (`model.rs`): the built-in typed
    /// accessors refuse its objects.
    pub(crate) vm: bool,
    /// The heap's card table's *biased* address (`cards.rs`,
    /// `CardTable::biased`), for the card mark (an address, not a pointer: the
    /// `Mutator`'s auto traits come from its other fields).
    pub(crate) cards: usize,
    /// Objects of at least this many words go to the large-object space.
    large_words: usize,
    /// The thread it is bound to (`bindings.rs`).
    thread: std::thread::ThreadId,
    _not_send: PhantomData<*const ()>,
}

impl Mutator {
    pub(crate) fn new(heap: Heap) -> Mutator {
        let shared = Arc::new(MutatorShared::new());
        let id = heap.inner.safepoints.register(Arc::clone(&shared));
        let i = &heap.inner;
        Mutator {
            id,
            shared,
            tlab: Tlab::default(),
            // Registration waited out any pause: the flag is current.
            marking: i.intake.active() && i.config.satb_barrier.is_on(),
            satb: SatbBuffer::default(),
            base: i.base,
            cap: i.end - i.base,
            los_base: i.los_base,
            los_cap: i.los_end - i.los_base,
            stack: std::cell::UnsafeCell::new(Vec::new()),
            registry: i.types.id(),
            vm: i.model.is_some(),
            cards: i.cards.biased(),
            large_words: i.config.large_object_threshold.div_ceil(WORD),
            thread: std::thread::current().id(),
            heap,
            _not_send: PhantomData,
        }
    }

    /// The heap.
    pub fn heap(&self) -> &Heap {
        &self.heap
    }

    /// Whether `addr` lies in this heap's moving or large-object space.
    #[inline(always)]
    pub(crate) fn owns(&self, addr: usize) -> bool {
        addr.wrapping_sub(self.base) < self.cap || addr.wrapping_sub(self.los_base) < self.los_cap
    }

    /// Whether the object at `addr` lies in this heap ([`Mutator::owns`]), made
    /// ready for an access to its fields: a large object whose fields still await
    /// forwarding since a flip pause is forwarded first (`collect/large.rs`; one
    /// side-table byte read on the large-object branch, nothing on the moving one).
    #[inline(always)]
    pub(crate) fn accessible(&self, addr: usize) -> bool {
        if addr.wrapping_sub(self.base) < self.cap {
            return true;
        }
        if addr.wrapping_sub(self.los_base) < self.los_cap {
            if self.heap.inner.los_marks.awaits_forwarding(addr) {
                self.forward_large(addr);
            }
            return true;
        }
        false
    }

    /// The slow path of [`Mutator::accessible`]. No GC point.
    #[cold]
    #[inline(never)]
    fn forward_large(&self, addr: usize) {
        crate::collect::large::ensure_forwarded(&self.heap.inner, addr);
    }

    // ---- allocation (GC points) ----

    /// Allocates a zeroed object of type `ty` (`len` elements for arrays, ignored for
    /// fixed types) and returns a handle to it. A GC point. `Err(OutOfMemory)` when
    /// a full collection could not make room; the heap stays usable.
    #[inline]
    pub fn alloc(&mut self, ty: TypeId, len: usize) -> Result<Handle, GcError> {
        let addr = self.alloc_typed(ty, len)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Like [`Mutator::alloc`], but pushes the new object on the root stack instead
    /// of making a handle (cheaper, for interpreters).
    #[inline]
    pub fn alloc_push(&mut self, ty: TypeId, len: usize) -> Result<(), GcError> {
        let addr = self.alloc_typed(ty, len)?;
        self.push_raw(addr as u64);
        Ok(())
    }

    /// Allocates a zeroed object of the fixed-size type `t` (checked when `t` was
    /// made: no lookup here) and returns a handle to it. A GC point.
    #[inline]
    pub fn alloc_fixed(&mut self, t: FixedType) -> Result<Handle, GcError> {
        let addr = self.alloc_fixed_raw(t, 0)?;
        Ok(Handle::new(&self.shared, addr as u64))
    }

    /// Like [`Mutator::alloc_fixed`], but pushes the new object on the root stack.
    #[inline(always)]
    pub fn push_fixed(&mut self, t: FixedType) -> Result<(), GcError> {
        let addr = self.alloc_fixed_raw(t, 0)?;
        self.push_raw(addr as u64);
        Ok(())
    }

    /// Allocates `N` zeroed objects of the fixed-size type `t` and pushes them on the
    /// root stack in order: what `N` calls of [`Mutator::push_fixed`] do, folded
    /// into one step (one check of `t`, one bump of the allocation buffer, one
    /// growth check of the stack), as a compiler folds allocations with no GC point
    /// between them. For example a node's two new children. A GC point.
    /// `Err(OutOfMemory)` as [`Mutator::push_fixed`], with the stack as it was.
    #[inline(always)]
    pub fn push_fixed_n<const N: usize>(&mut self, t: FixedType) -> Result<(), GcError> {
        let addrs = self.alloc_fixed_n::<N>(t)?;
        self.stack().extend_from_slice(&addrs.map(|a| a as u64));
        Ok(())
    }

    /// Allocates `N` zeroed objects of the fixed-size type `t` in one step, as
    /// [`Mutator::push_fixed_n`], but returns their addresses instead of pushing
    /// them: the caller stores them somewhere the collector finds (a root, or a
    /// field of a rooted object) before its next GC point. A GC point.
    #[inline(always)]
    pub(crate) fn alloc_fixed_n<const N: usize>(
        &mut self,
        t: FixedType,
    ) -> Result<[usize; N], GcError> {
        if t.registry != self.registry {
            return Err(foreign_type(t.id()));
        }
        let words = t.words as usize;
        let first = if words < self.large_words {
            self.tlab.bump_n::<N>(words)
        } else {
            None
        };
        let Some(at) = first else {
            return self.alloc_fixed_each::<N>(t);
        };
        Ok(std::array::from_fn(|i| {
            let addr = at + i * words * WORD;
            // SAFETY: object i of the `N` just bumped (`Tlab::bump_n`): fresh words
            // of the moving space owned by this mutator, its payload zeroed.
            unsafe { mem::store(addr, t.header) };
            addr
        }))
    }

    /// The slow path of [`Mutator::alloc_fixed_n`]: the objects are made one at a
    /// time on the root stack (each one a root while the next is allocated), then
    /// taken off it.
    #[cold]
    #[inline(never)]
    fn alloc_fixed_each<const N: usize>(&mut self, t: FixedType) -> Result<[usize; N], GcError> {
        self.push_fixed_each(t, N)?;
        let stack = self.stack();
        let from = stack.len() - N;
        let addrs = std::array::from_fn(|i| stack[from + i] as usize);
        stack.truncate(from);
        Ok(addrs)
    }

    /// The slow path of [`Mutator::alloc_fixed_n`] (the objects do not all fit in
    /// the allocation buffer, or are large): one [`Mutator::push_fixed`] each,
    /// those made undone on an error.
    #[cold]
    #[inline(never)]
    fn push_fixed_each(&mut self, t: FixedType, n: usize) -> Result<(), GcError> {
        let base = self.stack_len();
        for _ in 0..n {
            if let Err(e) = self.push_fixed(t) {
                self.stack_truncate(base);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Allocates an object of the fixed-size type `t` whose fields `0..n` take the
    /// top `n` root-stack entries (the deepest into field 0), pops them and pushes
    /// the new object: a constructor call of an interpreter (`cons`, `new
    /// Node(left, right)`) with its arguments on the stack, in one step. A GC point.
    ///
    /// Checked once per call, not per field: `n` against the stack depth and against
    /// `t`'s leading strong reference fields (known since `t` was made). The stores
    /// need no write barrier (a new object's old values are null, and it is black
    /// while marking) and no check of the values (the root stack holds only objects
    /// of this heap, or null). Panics if the stack holds fewer than `n` entries or
    /// `t`'s fields `0..n` are not all strong reference fields. `Err(OutOfMemory)`
    /// as [`Mutator::push_fixed`], with the stack as it was.
    #[inline(always)]
    pub fn push_fixed_from_stack(&mut self, t: FixedType, n: usize) -> Result<(), GcError> {
        if n > t.lead_refs as usize || n > self.stack_len() {
            bad_constructor(t.id(), t.lead_refs, n, self.stack_len());
        }
        // Fields `0..n` (payload words `1..=n`) are written below, before any GC
        // point: not zeroed first.
        let addr = self.alloc_fixed_raw(t, n)?;
        // The allocation may have collected: the stack's entries are read after it.
        let stack = self.stack();
        let from = stack.len() - n;
        // Plain stores: the object is published later by a release store (`mem.rs`).
        for (i, v) in stack[from..].iter().enumerate() {
            // SAFETY: field i < n <= lead_refs of the object just allocated (this
            // thread's until published); `v` is null or an object of this heap.
            unsafe { mem::store(addr + WORD * (1 + i), *v) };
        }
        // The new object takes the deepest argument's slot: no capacity check.
        match stack.get_mut(from) {
            Some(slot) => {
                *slot = addr as u64;
                stack.truncate(from + 1);
            }
            None => stack.push(addr as u64),
        }
        Ok(())
    }

    /// Allocates `N` zeroed objects of the fixed-size type `leaf` and an object of
    /// `t` whose fields `0..N` hold them (the i-th new object in field i), and
    /// pushes that object on the root stack: `new Node(new Node(), new Node())`
    /// in one step, as a compiler folds allocations with no GC point between them.
    /// What [`Mutator::push_fixed_n`] of `leaf` and then
    /// [`Mutator::push_fixed_from_stack`] of `t` with `N` do, with one bump of the
    /// allocation buffer for all `N + 1` objects and no root-stack traffic for
    /// the new leaves. A GC point.
    ///
    /// Panics, before anything is allocated, if `t`'s fields `0..N` are not all
    /// strong reference fields (checked against `t`, known since it was made: the
    /// stores need neither a write barrier nor a check of the values, as in
    /// [`Mutator::push_fixed_from_stack`]). `Err(OutOfMemory)` as
    /// [`Mutator::push_fixed`], with the stack as it was.
    #[inline(always)]
    pub fn push_fixed_with_new<const N: usize>(
        &mut self,
        t: FixedType,
        leaf: FixedType,
    ) -> Result<(), GcError> {
        if N > t.lead_refs as usize {
            bad_leaf_constructor(t.id(), t.lead_refs, N);
        }
        let (words, last) = (leaf.words as usize, t.words as usize);
        let first = if t.registry == self.registry
            && leaf.registry == self.registry
            && words.max(last) < self.large_words
        {
            self.tlab.bump_n_then::<N>(words, last, N)
        } else {
            None
        };
        let Some(at) = first else {
            // Anything unusual (no room, a large or foreign type) as its two steps.
            self.push_fixed_n::<N>(leaf)?;
            return self.push_fixed_from_stack(t, N);
        };
        let parent = at + N * words * WORD;
        for i in 0..N {
            let child = at + i * words * WORD;
            // SAFETY: leaf i and the parent were just bumped (`Tlab::bump_n_then`):
            // fresh words of the moving space owned by this mutator, unpublished;
            // field i < N <= lead_refs of the parent is one of its skipped words.
            unsafe {
                mem::store(child, leaf.header);
                mem::store(parent + WORD * (1 + i), child as u64);
            }
        }
        // SAFETY: the parent's header word, as above.
        unsafe { mem::store(parent, t.header) };
        self.push_raw(parent as u64);
        Ok(())
    }

    #[inline]
    fn alloc_typed(&mut self, ty: TypeId, len: usize) -> Result<usize, GcError> {
        let (header, words) = self.heap.inner.types.layout(ty, len)?;
        self.alloc_words(header, words, 0)
    }

    /// Allocates an object of `t` with payload words `1..=skip` left for the
    /// caller to write before its next GC point (see [`Tlab::bump`]).
    #[inline(always)]
    fn alloc_fixed_raw(&mut self, t: FixedType, skip: usize) -> Result<usize, GcError> {
        if t.registry != self.registry {
            return Err(foreign_type(t.id()));
        }
        self.alloc_words(Header(t.header), t.words as usize, skip)
    }

    /// Allocates `words` words and writes `header`; payload words `1..=skip` are
    /// the caller's to write before its next GC point, the others are zero.
    #[inline(always)]
    pub(crate) fn alloc_words(
        &mut self,
        header: Header,
        words: usize,
        skip: usize,
    ) -> Result<usize, GcError> {
        if words >= self.large_words {
            return self.alloc_large(header, words);
        }
        let addr = match self.tlab.bump(words, skip) {
            Some(a) => a,
            None => self.alloc_slow(words, skip)?,
        };
        // SAFETY: `addr` starts `words` fresh words of the moving space owned by this
        // mutator, zeroed but for the header word and the `skip` the caller writes
        // next (invariant Z, or `Tlab::bump` in a dirty buffer).
        unsafe { mem::store(addr, header.0) };
        Ok(addr)
    }

    /// Objects of at least this many words go to the large-object space.
    #[inline(always)]
    pub(crate) fn large_words(&self) -> usize {
        self.large_words
    }

    /// Allocates `words` (below the large-object threshold) words in the moving
    /// space and writes `prefix` (its first words; the rest are zero) before any
    /// GC point.
    #[inline]
    pub(crate) fn alloc_small_prefix(
        &mut self,
        words: usize,
        prefix: &[u64],
    ) -> Result<usize, GcError> {
        debug_assert!(!prefix.is_empty() && prefix.len() <= words && words < self.large_words);
        let skip = prefix.len() - 1;
        let addr = match self.tlab.bump(words, skip) {
            Some(a) => a,
            None => self.alloc_slow(words, skip)?,
        };
        for (i, w) in prefix.iter().enumerate() {
            // SAFETY: `addr` starts `words` fresh words of the moving space owned by
            // this mutator, zeroed but for the header word and the `skip` after it,
            // which this loop writes (`Tlab::bump`); `i < prefix.len() <= words`.
            unsafe { mem::store(addr + i * WORD, *w) };
        }
        Ok(addr)
    }

    /// Records an allocation stall (a slow path that waited for a collection).
    fn stalled(&self, since: std::time::Instant) {
        let ns = since.elapsed().as_nanos() as u64;
        let at = since.saturating_duration_since(self.heap.inner.started);
        self.heap
            .inner
            .log
            .lock()
            .record_alloc_stall(at.as_nanos() as u64, ns);
    }

    #[cold]
    fn alloc_slow(&mut self, words: usize, skip: usize) -> Result<usize, GcError> {
        self.pace();
        let since = std::time::Instant::now();
        let waited = self.poll();
        self.trigger_after_bytes();
        if let Some(a) = self.refill(words, skip) {
            if waited {
                self.stalled(since);
            }
            return Ok(a);
        }
        // The space is full. A cycle in progress may free enough when it flips.
        let inner = std::sync::Arc::clone(&self.heap.inner);
        if let Some(n) = inner.driver.in_progress() {
            self.wait_for_flip(&inner, n);
            if let Some(a) = self.refill(words, skip) {
                self.stalled(since);
                return Ok(a);
            }
        }
        // Collect until the request fits: each time a cycle that starts after this
        // point (so every object unreachable now is freed by it). Other mutators may
        // take the room it made first, so a failed refill is out of memory only when
        // what the last cycle found live leaves no room.
        let capacity = inner.config.capacity;
        for _ in 0..MAX_COLLECTIONS_PER_REQUEST {
            let n = inner.driver.request(&inner, Reason::HeapFull);
            self.wait_for_flip(&inner, n);
            if let Some(a) = self.refill(words, skip) {
                self.stalled(since);
                return Ok(a);
            }
            let live = inner.space.lock().live_by_last_gc;
            if live + words * WORD > capacity {
                break;
            }
        }
        self.stalled(since);
        let live = inner.space.lock().live_by_last_gc;
        Err(GcErrorKind::OutOfMemory {
            requested: words * WORD,
            capacity,
            live,
        }
        .into())
    }

    /// With `GcTrigger::AfterBytes(n)`: once `n` bytes were allocated since the last
    /// cycle, runs one (and waits for its flip, as `collect` does).
    fn trigger_after_bytes(&mut self) {
        if let crate::config::GcTrigger::AfterBytes(n) = self.heap.inner.config.trigger {
            let due = self.heap.inner.space.lock().allocated_since_gc >= n;
            if due {
                self.collect_for(Reason::AfterBytes);
            }
        }
    }

    /// Retires the TLAB and carves a new one (or, for objects over a quarter of a
    /// TLAB, just the object). Returns the object's address.
    fn refill(&mut self, words: usize, skip: usize) -> Option<usize> {
        let tlab_bytes = self.heap.inner.config.tlab_size;
        let mut space = self.heap.inner.space.lock();
        self.tlab.retire();
        if words * WORD > tlab_bytes / 4 {
            space.carve(words)
        } else {
            // A whole TLAB if it fits, else whatever is left (if the object fits).
            let left = (space.end() - space.top) / WORD;
            let tlab_words = (tlab_bytes / WORD).min(left);
            if tlab_words < words {
                None
            } else {
                space.carve_unzeroed(tlab_words).map(|(start, dirty)| {
                    self.tlab.cursor = start;
                    self.tlab.limit = start + tlab_words * WORD;
                    self.tlab.dirty = dirty;
                    self.tlab
                        .bump(words, skip)
                        .expect("the object fits its new TLAB")
                })
            }
        }
    }

    /// The pacer's part of the allocation slow path, before the refill (this may
    /// stop, so no object may be half-made): its rate sample, its trigger, its
    /// pressure.
    fn pace(&mut self) {
        use crate::pacer::CyclePart;
        let inner = std::sync::Arc::clone(&self.heap.inner);
        let pacer = &inner.pacer;
        let seen = &inner.space_published;
        let (hard_free, used, total) = (seen.free(), seen.used(), seen.allocated_total());
        // Free memory as the pacer sees it: below the soft limit with heap sizing
        // (large objects count), else below the capacity.
        let free = if inner.config.sizing.is_some() {
            let in_use = used + inner.los.lock().used();
            pacer.limit().saturating_sub(in_use).min(hard_free)
        } else {
            hard_free
        };
        pacer.sample(inner.started.elapsed().as_nanos() as u64, total);
        let trigger = pacer.trigger();
        if free > trigger {
            return;
        }
        if !inner.driver.busy() {
            self.start_cycle(&inner);
        }
        // Throttling pushes back only as the real wall nears: past a soft limit,
        // the heap just grows.
        let part = if !inner.driver.busy() {
            CyclePart::Idle
        } else if inner.driver.awaiting_flip() {
            CyclePart::BeforeFlip
        } else {
            CyclePart::Compacting
        };
        let ns = crate::pacer::throttle_in(part, hard_free, trigger);
        if ns > 0 {
            let d = std::time::Duration::from_nanos(ns);
            let slept = self.throttle(&inner, std::time::Instant::now() + d);
            pacer.add_throttled(slept);
            inner.log.lock().record_throttle(slept);
        }
    }

    /// Starts a cycle for the pacer. With concurrent marking, this mutator runs the
    /// cycle's mark-start pause itself, coordinating the stop (it is at a GC point
    /// already: nobody waits for it), unless a cycle is requested or under way; the
    /// driver goes on from there. Otherwise it asks the driver for the cycle.
    fn start_cycle(&mut self, inner: &std::sync::Arc<crate::collect::heap_inner::HeapInner>) {
        if !inner.config.concurrent_marking {
            inner.driver.request(inner, Reason::Pacer);
            return;
        }
        if let Some(n) = inner.driver.claim(inner, Reason::Pacer) {
            self.mark_start_claimed(inner, n);
        }
    }

    /// Runs the mark-start pause of cycle `n`, claimed by this mutator
    /// ([`Driver::claim`](crate::collect::driver::Driver::claim)), and hands the
    /// cycle over to the driver.
    pub(crate) fn mark_start_claimed(
        &mut self,
        inner: &std::sync::Arc<crate::collect::heap_inner::HeapInner>,
        n: u64,
    ) {
        use crate::collect::{concurrent_mark, MarkStarted, Opening};
        // Until the hand-over, the driver waits for this thread: a panic here would
        // leave the cycle claimed for ever (or the world stopped), so it aborts.
        let fatal = crate::fatal::AbortOnUnwind::new("the mark-start pause (run by a mutator)");
        self.before_stop();
        let opening = Opening::take(inner, n);
        let (boundary, stopped) = concurrent_mark::start_pause(inner, n, self.id);
        // Invariant 1 of concurrent marking: this mutator's roots are scanned before
        // it runs on (the pause left it a pending scan, as every mutator).
        self.shared.fix_pending();
        self.resumed();
        let started = MarkStarted {
            opening,
            boundary,
            stopped,
        };
        inner.driver.hand_over(n, started);
        drop(fatal);
    }

    pub(crate) fn alloc_large(&mut self, header: Header, words: usize) -> Result<usize, GcError> {
        self.alloc_large_prefix(&[header.0], words, None)
    }

    /// Allocates a large object of `words` words whose leading words are `prefix`
    /// (the rest zero), written under the space's lock before any marker can reach
    /// the object. With `check`, a VM model's verdict on the written object
    /// (`model_access.rs`): an object it refuses is given back at once and its
    /// error returned.
    pub(crate) fn alloc_large_prefix(
        &mut self,
        prefix: &[u64],
        words: usize,
        check: Option<&dyn Fn(usize) -> Result<(), GcError>>,
    ) -> Result<usize, GcError> {
        debug_assert!(!prefix.is_empty() && prefix.len() <= words);
        self.safepoint();
        if self.heap.inner.config.sizing.is_some() {
            self.pace(); // large objects count against the soft limit
        }
        if let crate::config::GcTrigger::AfterBytes(_) = self.heap.inner.config.trigger {
            self.heap.inner.space.lock().allocated_since_gc += words * WORD;
            self.trigger_after_bytes();
        }
        let bytes = words * WORD;
        let inner = std::sync::Arc::clone(&self.heap.inner);
        let try_alloc = || -> Result<Option<usize>, GcError> {
            let mut los = inner.los.lock();
            if los.used() + bytes > los.capacity() {
                return Ok(None);
            }
            let addr = los.alloc(words)?;
            if let Some(addr) = addr {
                for (i, w) in prefix.iter().enumerate().rev() {
                    // SAFETY: `addr` is a fresh, zeroed large object of `words`
                    // words, and `i < prefix.len() <= words`.
                    unsafe { mem::store(addr + i * WORD, *w) };
                }
                if let Some(check) = check {
                    if let Err(e) = check(addr) {
                        los.abandon(addr);
                        return Err(e);
                    }
                }
            }
            Ok(addr)
        };
        if let Some(addr) = try_alloc()? {
            return Ok(addr);
        }
        for _ in 0..MAX_COLLECTIONS_PER_REQUEST {
            let n = inner.driver.request(&inner, Reason::HeapFull);
            self.wait_for_flip(&inner, n);
            if let Some(addr) = try_alloc()? {
                return Ok(addr);
            }
            // Out of memory if even right after a collection it cannot fit (what the
            // collection kept is all that is used then, up to other mutators' news).
            let los = inner.los.lock();
            if los.kept_by_last_gc() + bytes > los.capacity() {
                break;
            }
        }
        let los = inner.los.lock();
        Err(GcErrorKind::OutOfMemory {
            requested: bytes,
            capacity: los.capacity(),
            live: los.used(),
        }
        .into())
    }

    // ---- GC points ----

    /// Before this mutator stops: its allocation buffer's tail becomes a filler and
    /// its barrier log goes to the marking intake, so the collector needs neither.
    fn before_stop(&mut self) {
        self.tlab.retire();
        self.flush_barrier();
        self.publish_stack();
    }

    /// If a collection has requested a stop, parks until it is over; whether it
    /// parked.
    #[inline]
    fn poll(&mut self) -> bool {
        if !self.heap.inner.safepoints.requested.load(Ordering::Acquire) {
            return false;
        }
        self.before_stop();
        if let Some(task) = self.heap.inner.pause_offer.take() {
            self.run_offered(task);
            return false;
        }
        let parked = self.heap.inner.safepoints.park_if_requested(self.id);
        self.resumed();
        parked
    }

    /// Waits, counted as stopped, until cycle `n` has flipped; if the driver offers a
    /// pause meanwhile (that cycle's mark-end or flip), leaves `blocking` and runs it
    /// (it is at a GC point: its allocation slow path).
    fn wait_for_flip(
        &mut self,
        inner: &std::sync::Arc<crate::collect::heap_inner::HeapInner>,
        n: u64,
    ) {
        use crate::collect::driver::Woke;
        while self.wait_taking_offers(inner, Some(n), None) == Woke::Offered {
            self.take_offered(inner);
        }
    }

    /// A throttling sleep until `until`, counted as stopped; a pause the driver
    /// offers meanwhile is run, and the sleep goes on after it. The nanoseconds
    /// slept (the pauses not included).
    fn throttle(
        &mut self,
        inner: &std::sync::Arc<crate::collect::heap_inner::HeapInner>,
        until: std::time::Instant,
    ) -> u64 {
        use crate::collect::driver::Woke;
        let mut slept = 0;
        loop {
            let since = std::time::Instant::now();
            let woke = self.wait_taking_offers(inner, None, Some(until));
            slept += since.elapsed().as_nanos() as u64;
            if woke != Woke::Offered {
                return slept;
            }
            self.take_offered(inner);
        }
    }

    /// Waits in `blocking`, counted as ready to take an offered pause, until cycle
    /// `n` (if given) has flipped, until `until` (if given), or until a pause is
    /// offered ([`Driver::wait_for`](crate::collect::driver::Driver::wait_for)).
    fn wait_taking_offers(
        &mut self,
        inner: &crate::collect::heap_inner::HeapInner,
        n: Option<u64>,
        until: Option<std::time::Instant>,
    ) -> crate::collect::driver::Woke {
        self.blocking(|| {
            let _taker = inner.pause_offer.taker();
            inner.driver.wait_for(n, until, inner.pause_offer.offered())
        })
    }

    /// Out of `blocking` after an offer woke it: runs the offered pause, unless
    /// another mutator (or the driver) took it first.
    fn take_offered(&mut self, inner: &crate::collect::heap_inner::HeapInner) {
        if let Some(task) = inner.pause_offer.take() {
            self.before_stop();
            self.run_offered(task);
        }
    }

    /// Runs a concurrent cycle's pause (mark-end or flip) that the driver offered
    /// (`collect/pause_offer.rs`), coordinating the stop itself (it is at a GC
    /// point, its allocation buffer retired and its barrier log handed in), then
    /// applies its own pending root work and hands the cycle back to the driver.
    #[cold]
    fn run_offered(&mut self, task: crate::collect::pause_offer::Task) {
        // The driver waits for the pause: a panic here would leave it (and the
        // cycle) waiting for ever, so it aborts.
        let fatal = crate::fatal::AbortOnUnwind::new("a pause offered to a mutator");
        task.run(self.id);
        // Like every mutator resuming from a pause: its roots forwarded (after a
        // flip) first, and its barrier flag read again (off after the last mark-end).
        self.shared.fix_pending();
        self.resumed();
        self.heap.inner.pause_offer.done();
        drop(fatal);
    }

    /// Parks here if another thread has requested a collection.
    #[inline]
    pub fn safepoint(&mut self) {
        self.poll();
    }

    /// Whether a collection is waiting for this mutator to reach a safepoint: one
    /// load, for code that holds unrooted `Gc` values and polls cheaply, rooting
    /// them and calling [`Mutator::safepoint`] only when this says so (as
    /// `flipgc-stress`'s tree walks do). Relaxed: it is only a hint; `safepoint`
    /// itself synchronises with the collection.
    #[inline]
    pub fn safepoint_requested(&self) -> bool {
        self.heap.inner.safepoints.requested.load(Ordering::Relaxed)
    }

    /// Runs a full collection cycle whose snapshot is taken after this call (waiting,
    /// counted as stopped, for the one in progress to end first), and returns once
    /// its memory is available: after its flip pause (with concurrent compaction,
    /// pages are still being filled then; reads of unfilled pages wait for them).
    pub fn collect(&mut self) {
        self.collect_for(Reason::Explicit);
    }

    fn collect_for(&mut self, reason: Reason) {
        let inner = std::sync::Arc::clone(&self.heap.inner);
        let n = inner.driver.request(&inner, reason);
        self.blocking(|| inner.driver.wait_flipped(n));
    }

    /// Runs `f` (native or blocking work) with this thread counted as stopped, so
    /// collections need not wait for it. `f` cannot touch the heap: it is `Send` and
    /// the mutator is borrowed.
    pub fn blocking<R: Send>(&mut self, f: impl FnOnce() -> R + Send) -> R {
        struct Leave<'a>(&'a mut Mutator);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.heap.inner.safepoints.leave_blocking(self.0.id);
                self.0.shared.set_in_blocking(false);
                self.0.resumed();
            }
        }
        self.before_stop();
        self.shared.set_in_blocking(true);
        self.heap.inner.safepoints.enter_blocking(self.id);
        let _leave = Leave(self);
        f()
    }

    /// Stops the world and runs the heap verifier.
    ///
    /// Between the parking of dead extents and the flip pause (`collect/park.rs`)
    /// the heap holds ranges that read as zeros, which its walk cannot cross: then
    /// this resumes the world, waits (counted as stopped, so the flip pause need
    /// not wait for it) and tries again, after the flip.
    pub fn verify(&mut self) -> Result<crate::collect::verify::VerifyReport, String> {
        loop {
            self.before_stop();
            let inner = &self.heap.inner;
            let stopped = loop {
                if let Some(s) = inner.safepoints.stop_the_world(self.id) {
                    break s;
                }
            };
            let result = crate::collect::verify::verify_unless_parked(inner, &stopped);
            drop(stopped);
            self.resumed();
            match result {
                Some(r) => return r,
                None => self.blocking(|| std::thread::sleep(std::time::Duration::from_micros(50))),
            }
        }
    }
}

/// The error of an allocation with a type descriptor made from another registry
/// (kept out of line: the allocation fast path only branches to it).
#[cold]
#[inline(never)]
fn foreign_type(id: TypeId) -> GcError {
    GcError::type_error(format!(
        "a FixedType of {id:?} comes from another type registry than this heap's"
    ))
}

#[cold]
#[inline(never)]
fn bad_constructor(id: TypeId, lead_refs: u32, n: usize, depth: usize) -> ! {
    panic!(
        "push_fixed_from_stack(a FixedType of {id:?}, {n}): the type's first {lead_refs} \
         fields are strong references and the root stack holds {depth} entries"
    )
}

#[cold]
#[inline(never)]
fn bad_leaf_constructor(id: TypeId, lead_refs: u32, n: usize) -> ! {
    panic!(
        "push_fixed_with_new::<{n}>(a FixedType of {id:?}, ..): the type's first {lead_refs} \
         fields are strong references"
    )
}

impl Drop for Mutator {
    fn drop(&mut self) {
        // The allocation buffer's tail becomes a filler, the barrier log goes to
        // the marking intake, before we leave.
        self.before_stop();
        // The stack's storage is freed after this: no view of it may remain.
        self.shared.forget_stack();
        self.heap.inner.safepoints.deregister(self.id);
        self.heap.unbind_thread(self.thread);
        self.shared.orphan_if_handles_live(&self.shared);
    }
}

impl std::fmt::Debug for Mutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mutator({}, {:?})", self.id, self.heap)
    }
}
