//! SIGBUS mode: the faulting thread fills its own page.
//!
//! With a userfaultfd opened with `UFFD_FEATURE_SIGBUS`, a mutator touching a to-space
//! page that is not there yet does not sleep in the kernel waiting for a fault server:
//! it gets `SIGBUS`, and this module's handler, on that thread, finds the compaction
//! covering the address and has it produce and install the page
//! ([`Compaction::serve_in_handler`]), then returns, so the access retries and
//! succeeds. Android's concurrent mark-compact collector works the same way.
//!
//! Pieces, all made outside the handler:
//! - **The handler**, installed once per process ([`install`]) with `SA_SIGINFO |
//!   SA_ONSTACK`; the disposition it replaced is kept and called for every `SIGBUS`
//!   that is not about a heap span (embedders keep their own `SIGBUS` handling).
//! - **Heap slots** ([`SLOTS`]): a static table. A heap in SIGBUS mode claims one at
//!   construction for its life ([`claim_slot`]) and writes its span's bounds there;
//!   a compaction in progress publishes a pointer to itself in its heap's slot
//!   ([`publish`]) inside the flip pause, before any mutator resumes, and withdraws
//!   it at its end ([`retire`]).
//! - **Fault records** ([`FaultRecord`]): a page-sized buffer to produce a page
//!   into, and a fixed table of stall samples. A mutator thread gets one when it
//!   binds ([`bind_thread`]), reached from the handler through a thread-local with a
//!   constant initialiser and no destructor (a plain TLS load). Threads that are not
//!   mutators borrow one of [`POOL`] preallocated records, claimed by compare-and-swap
//!   for the time of one fault. Every record is also in [`REGISTRY`], where the
//!   compaction's worker collects the stall samples while it runs, and its end
//!   collects the rest ([`drain_stalls`]).
//!
//! **Async-signal safety** (see also docs/architecture.md, "SIGBUS mode"): the
//! handler and everything it calls take no lock, allocate and free nothing, never
//! panic on a path they expect (failures end the process with
//! [`crate::fatal::die`]: `write(2)` then `abort(3)`), and call no `tracing` and no
//! pause log. The system calls it makes are `clock_gettime`, `ioctl(UFFDIO_COPY)`,
//! `sched_yield`, `nanosleep`, and, to chain to a default disposition, `sigaction`
//! and `raise`. It saves and restores `errno`. What it reads: the slot table (atomics),
//! the compaction's read-only fill tables, from-space, the page states (atomics), the
//! fault record (its own thread's, or a pool record it claimed), the descriptor.
//!
//! **Ending a compaction** ([`retire`]): the driver (a) unregisters the heap span from
//! userfaultfd (no new `SIGBUS` for it), (b) clears the slot's pointer, (c) waits until
//! the slot's in-flight count is 0, (d) only then frees what the handler reads. A
//! handler increments the count *before* it reads the pointer (both `SeqCst`), so
//! either the driver's wait sees its increment, or the handler reads the cleared
//! pointer (proof at [`retire`]).

use crate::collect::compaction::Compaction;
use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::atomic::{compiler_fence, AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Heaps in SIGBUS mode that can exist at once; a heap made when all are taken
/// uses the fault server.
pub(crate) const MAX_HEAPS: usize = 128;

/// Records lent to threads that are not mutators (one per fault at a time).
const POOL_RECORDS: usize = 8;

/// Stall samples a record holds (16 bytes each) until its compactions collect them;
/// beyond that a compaction counts the samples it lost.
const STALL_SAMPLES: usize = 16384;

/// The alternate signal stack a mutator thread gets when it binds, unless it has
/// one at least this big already (std gives its threads `SIGSTKSZ`, 8 KiB here,
/// part of which the kernel's signal frame takes).
const ALT_STACK: usize = 64 << 10;

/// One heap's entry in the slot table.
pub(crate) struct Slot {
    /// Whether a heap owns the slot.
    owned: AtomicBool,
    /// The heap span `[lo, hi)` while owned (0, 0 otherwise).
    lo: AtomicUsize,
    hi: AtomicUsize,
    /// The compaction in progress on the heap, if any.
    active: AtomicPtr<Compaction>,
    /// Handlers between their increment and their decrement of this count (they may
    /// be using `active`'s compaction).
    inflight: AtomicUsize,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            owned: AtomicBool::new(false),
            lo: AtomicUsize::new(0),
            hi: AtomicUsize::new(0),
            active: AtomicPtr::new(ptr::null_mut()),
            inflight: AtomicUsize::new(0),
        }
    }
}

/// The slot table.
static SLOTS: [Slot; MAX_HEAPS] = [const { Slot::new() }; MAX_HEAPS];
/// Slots ever claimed (the handler scans `SLOTS[..SLOTS_USED]`).
static SLOTS_USED: AtomicUsize = AtomicUsize::new(0);

/// One stall sample: the compaction's id (0: free), when the stall began
/// ([`now_ns`]) and how long it was (ns).
struct Sample {
    tag: AtomicU64,
    at: AtomicU64,
    ns: AtomicU64,
}

/// A thread's (or a pool lender's) means to serve a fault: a page buffer and a
/// table of stall samples. Never freed: a record outlives its thread and is reused
/// by later ones (the registry keeps every record reachable).
pub(crate) struct FaultRecord {
    /// A page-aligned, page-sized buffer (written only by the record's holder).
    buf: *mut u8,
    /// Whether a thread holds the record (a bound mutator thread for its life, or a
    /// handler for one fault).
    busy: AtomicBool,
    samples: Box<[Sample]>,
    /// Where the holder looks for a free sample next (holder only).
    cursor: AtomicUsize,
    /// Samples in use (written by the holder, collected by drivers).
    pending: AtomicUsize,
    /// One past the highest sample index ever used.
    hwm: AtomicUsize,
}

// SAFETY: `buf` is written only by the thread holding the record (`busy`, claimed
// with an acquire compare-and-swap and released with a release store, which orders
// one holder's writes before the next one's); everything else is atomics.
unsafe impl Sync for FaultRecord {}
// SAFETY: as above.
unsafe impl Send for FaultRecord {}

impl FaultRecord {
    /// A new record (not busy) with a buffer of `page` bytes, faulted in.
    fn new(page: usize) -> &'static FaultRecord {
        let layout = std::alloc::Layout::from_size_align(page, page).expect("a page layout");
        // SAFETY: the layout has a non-zero size.
        let buf = unsafe { std::alloc::alloc_zeroed(layout) };
        if buf.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // Touch it now, so the handler's first use does not fault it in.
        // SAFETY: `buf` is `page` writable bytes just allocated.
        unsafe { ptr::write_volatile(buf, 0) };
        let samples = (0..STALL_SAMPLES)
            .map(|_| Sample {
                tag: AtomicU64::new(0),
                at: AtomicU64::new(0),
                ns: AtomicU64::new(0),
            })
            .collect();
        Box::leak(Box::new(FaultRecord {
            buf,
            busy: AtomicBool::new(false),
            samples,
            cursor: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            hwm: AtomicUsize::new(0),
        }))
    }

    /// The page buffer's address.
    pub(crate) fn buf(&self) -> usize {
        self.buf as usize
    }

    /// Records a stall of `ns` that began at `at` ([`now_ns`]) for compaction `tag`
    /// (holder only, in the handler); false if every sample is taken.
    fn record(&self, tag: u64, at: u64, ns: u64) -> bool {
        let n = self.samples.len();
        // Every sample collected (acquire: pairs with the collections' release
        // decrements, so every tag reads 0 now): start again from the first sample.
        // The samples in use then stay packed at the front, and a collection scans
        // only as far as `hwm`, not the whole table (scanning all 16,384 samples every
        // few runs took 2 % of a GCBench run's CPU). Only the holder writes `hwm`;
        // a collection that read the old, larger value scans a little more, and one
        // that reads 0 after samples were recorded takes them next time: `hwm` goes to
        // 0 only when nothing is pending, so the last collection, which happens after
        // every handler of its compaction returned, sees every index in use.
        if self.pending.load(Ordering::Acquire) == 0 {
            self.cursor.store(0, Ordering::Relaxed);
            self.hwm.store(0, Ordering::Relaxed);
        }
        let start = self.cursor.load(Ordering::Relaxed);
        for k in 0..n {
            let i = (start + k) % n;
            let s = &self.samples[i];
            // Acquire: a driver's collection of this sample (its read of `ns`)
            // happens before our overwrite.
            if s.tag.load(Ordering::Acquire) == 0 {
                s.at.store(at, Ordering::Relaxed);
                s.ns.store(ns, Ordering::Relaxed);
                // Release: the driver that reads this tag reads our `at` and `ns`.
                s.tag.store(tag, Ordering::Release);
                self.cursor.store(i + 1, Ordering::Relaxed);
                self.hwm.fetch_max(i + 1, Ordering::Relaxed);
                self.pending.fetch_add(1, Ordering::Release);
                return true;
            }
        }
        false
    }

    /// [`drain_stalls`] for this record: takes its complete samples of `tag`.
    fn drain(&self, tag: u64, f: &mut impl FnMut(u64, u64)) -> usize {
        // Acquire: pairs with the handlers' release increments; and every handler
        // for `tag` returned before `retire`'s acquire, so all its samples are here.
        if self.pending.load(Ordering::Acquire) == 0 {
            return 0;
        }
        let hwm = self.hwm.load(Ordering::Acquire);
        let mut n = 0;
        for s in &self.samples[..hwm] {
            if s.tag.load(Ordering::Acquire) == tag {
                f(s.at.load(Ordering::Relaxed), s.ns.load(Ordering::Relaxed));
                // Release: the holder's next write of this sample comes after our read.
                s.tag.store(0, Ordering::Release);
                self.pending.fetch_sub(1, Ordering::Release);
                n += 1;
            }
        }
        n
    }
}

/// Every record (for the drivers' collection of samples); taken outside handlers only.
static REGISTRY: parking_lot::Mutex<Vec<&'static FaultRecord>> =
    parking_lot::Mutex::new(Vec::new());

/// Records lent to threads without one, claimed with `busy` (filled at [`install`]).
static POOL: [AtomicPtr<FaultRecord>; POOL_RECORDS] =
    [const { AtomicPtr::new(ptr::null_mut()) }; POOL_RECORDS];

thread_local! {
    /// This thread's record, set when it binds a mutator. A constant initialiser and
    /// no destructor: reading it is one load from the thread's TLS block, which is
    /// async-signal-safe (no lazy initialisation, no destructor registration).
    static MINE: Cell<*const FaultRecord> = const { Cell::new(ptr::null()) };
    /// Gives the record back (and frees the alternate stack) when the thread exits.
    static GUARD: RefCell<Option<ThreadGuard>> = const { RefCell::new(None) };
}

/// What a bound thread gives back at its exit.
struct ThreadGuard {
    record: &'static FaultRecord,
    /// The alternate signal stack installed at bind (mapping base, length, and the
    /// stack's own start), if one was.
    alt: Option<(usize, usize, usize)>,
}

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        // First the handler stops using the record (a SIGBUS from here on, in a later
        // thread-local destructor, borrows a pool record)...
        let _ = MINE.try_with(|m| m.set(ptr::null()));
        compiler_fence(Ordering::SeqCst);
        if let Some((base, len, sp)) = self.alt {
            // ...and the stack (only if it is still this thread's: std's own exit path
            // may have disabled it already).
            // SAFETY: `cur` is written by the kernel; a null `ss` only queries.
            let mut cur: libc::stack_t = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            unsafe { libc::sigaltstack(ptr::null(), &mut cur) };
            if cur.ss_sp as usize == sp && cur.ss_flags & libc::SS_DISABLE == 0 {
                let off = libc::stack_t {
                    ss_sp: ptr::null_mut(),
                    ss_flags: libc::SS_DISABLE,
                    ss_size: 0,
                };
                // SAFETY: disabling this thread's alternate stack; we are not running
                // on it (this is a thread-local destructor, not a handler).
                unsafe { libc::sigaltstack(&off, ptr::null_mut()) };
            }
            // SAFETY: the mapping was made at bind for this thread's stack alone and
            // is no longer its alternate stack.
            unsafe { libc::munmap(base as *mut libc::c_void, len) };
        }
        // ...then the record goes back (release: our uses happen before the next
        // holder's acquire claim).
        self.record.busy.store(false, Ordering::Release);
    }
}

/// The disposition the handler replaced (set once, before the handler is installed).
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
/// Whether [`install`] installed the handler.
static INSTALLED: OnceLock<bool> = OnceLock::new();
/// The page size the records' buffers have.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// Installs the `SIGBUS` handler (once per process) and the pool of records, with
/// buffers of `page` bytes; whether it is installed. Called when the first heap in
/// SIGBUS mode is made, never in a handler. An embedder's handler installed before is
/// chained to; one installed after replaces ours (heaps check [`still_installed`]
/// before each compaction and fall back to the fault server).
pub(crate) fn install(page: usize) -> bool {
    *INSTALLED.get_or_init(|| {
        PAGE.store(page, Ordering::Relaxed);
        {
            let mut reg = REGISTRY.lock();
            for slot in &POOL {
                let r = FaultRecord::new(page);
                reg.push(r);
                slot.store(ptr::from_ref(r).cast_mut(), Ordering::Release);
            }
        }
        // The old disposition is saved before ours is installed (a handler running
        // as soon as it is must find it).
        // SAFETY: a query: `old` is written by the kernel.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::sigaction(libc::SIGBUS, ptr::null(), &mut old) } != 0 {
            return false;
        }
        let _ = PREVIOUS.set(old);
        // SAFETY: a zeroed sigaction is a valid value to fill in.
        let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
        act.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
        // SAFETY: `act.sa_mask` is a valid sigset to empty (SIGBUS itself stays
        // blocked in the handler: no SA_NODEFER).
        unsafe { libc::sigemptyset(&mut act.sa_mask) };
        // SAFETY: `act` is a valid sigaction whose handler has the SA_SIGINFO
        // signature; the previous one was saved above.
        unsafe { libc::sigaction(libc::SIGBUS, &act, ptr::null_mut()) == 0 }
    })
}

/// Whether our handler is still the process's `SIGBUS` disposition (an embedder may
/// have replaced it since [`install`]).
pub(crate) fn still_installed() -> bool {
    if INSTALLED.get() != Some(&true) {
        return false;
    }
    // SAFETY: a query: `cur` is written by the kernel.
    let mut cur: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe { libc::sigaction(libc::SIGBUS, ptr::null(), &mut cur) } == 0;
    ok && cur.sa_sigaction == on_sigbus as *const () as libc::sighandler_t
}

/// Claims a slot for a heap whose span is `[lo, hi)`; `None` if all are taken.
pub(crate) fn claim_slot(lo: usize, hi: usize) -> Option<usize> {
    for (i, s) in SLOTS.iter().enumerate() {
        if s.owned
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            s.lo.store(lo, Ordering::Release);
            s.hi.store(hi, Ordering::Release);
            SLOTS_USED.fetch_max(i + 1, Ordering::AcqRel);
            return Some(i);
        }
    }
    None
}

/// Gives a heap's slot back (the heap is being dropped: no compaction is running).
pub(crate) fn release_slot(i: usize) {
    let s = &SLOTS[i];
    debug_assert!(s.active.load(Ordering::Relaxed).is_null());
    s.lo.store(0, Ordering::Release);
    s.hi.store(0, Ordering::Release);
    s.owned.store(false, Ordering::Release);
}

/// Publishes compaction `c` in slot `i` (inside the flip pause, once `c` is
/// complete: the `SeqCst` store releases its construction to the handler's load).
pub(crate) fn publish(i: usize, c: *const Compaction) {
    SLOTS[i].active.store(c.cast_mut(), Ordering::SeqCst);
}

/// Withdraws slot `i`'s compaction and waits until no handler can still be using it.
/// Called after the heap span was unregistered (no new `SIGBUS` for it).
///
/// Why no handler uses the compaction after this returns: `SeqCst` operations have
/// one total order S. Our clear C precedes our loads L of `inflight` (program order).
/// A handler increments `inflight` (I) and then loads `active` (P), both `SeqCst`. If
/// P returned the compaction, P precedes C in S (a `SeqCst` load returns the last
/// store before it in S), so I precedes C and every L: L reads I's increment, or
/// later values, and reads 0 only after the handler's decrement D. D is a release and
/// L an acquire, so everything the handler did with the compaction happens before we
/// return and the caller frees it. If P returned null, the handler never touches it.
pub(crate) fn retire(i: usize) {
    let s = &SLOTS[i];
    s.active.store(ptr::null_mut(), Ordering::SeqCst);
    let mut spins = 0u32;
    while s.inflight.load(Ordering::SeqCst) != 0 {
        back_off(spins);
        spins = spins.saturating_add(1);
    }
}

/// Gives this thread a fault record (a page buffer, stall samples) and an alternate
/// signal stack big enough for the handler, if it has neither yet. Called when a
/// mutator binds a heap in SIGBUS mode.
pub(crate) fn bind_thread() {
    if !MINE.with(|m| m.get().is_null()) {
        return;
    }
    let page = PAGE.load(Ordering::Relaxed);
    if page == 0 {
        return; // no handler installed
    }
    let record = {
        let mut reg = REGISTRY.lock();
        let free = reg.iter().copied().find(|r| {
            !is_pool(r)
                && r.busy
                    .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
        });
        match free {
            Some(r) => r,
            None => {
                let r = FaultRecord::new(page);
                r.busy.store(true, Ordering::Relaxed);
                reg.push(r);
                r
            }
        }
    };
    let alt = ensure_alt_stack();
    let mut guard = Some(ThreadGuard { record, alt });
    // The thread may be exiting (a mutator bound in a thread-local destructor): then
    // it keeps using pool records, and the guard gives everything back at once.
    let set = GUARD
        .try_with(|g| match g.try_borrow_mut() {
            Ok(mut g) => {
                *g = guard.take();
                true
            }
            Err(_) => false,
        })
        .unwrap_or(false);
    if set {
        compiler_fence(Ordering::SeqCst);
        MINE.with(|m| m.set(record));
    }
    drop(guard); // `Some` only if it was not kept: gives the record back
}

fn is_pool(r: &FaultRecord) -> bool {
    POOL.iter()
        .any(|p| ptr::eq(p.load(Ordering::Relaxed).cast_const(), r))
}

/// Gives this thread an alternate signal stack of [`ALT_STACK`] bytes (plus a guard
/// page) unless it has one at least that big; what to free at its exit.
fn ensure_alt_stack() -> Option<(usize, usize, usize)> {
    // SAFETY: a query: `cur` is written by the kernel.
    let mut cur: libc::stack_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::sigaltstack(ptr::null(), &mut cur) } != 0 {
        return None;
    }
    if cur.ss_flags & libc::SS_DISABLE == 0 && cur.ss_size >= ALT_STACK {
        return None;
    }
    if cur.ss_flags & libc::SS_ONSTACK != 0 {
        return None; // running on it (binding from a signal handler): leave it
    }
    let guard = PAGE.load(Ordering::Relaxed).max(4096);
    let len = ALT_STACK + guard;
    // SAFETY: a fresh private anonymous mapping at an address of the kernel's choice.
    let base = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return None; // keep whatever the thread has
    }
    // The lowest page is a guard: an overflow faults instead of running into memory.
    // SAFETY: the first page of the mapping just made.
    unsafe { libc::mprotect(base, guard, libc::PROT_NONE) };
    let sp = base as usize + guard;
    let st = libc::stack_t {
        ss_sp: sp as *mut libc::c_void,
        ss_flags: 0,
        ss_size: ALT_STACK,
    };
    // SAFETY: `st` describes the writable part of the mapping, which lives until the
    // thread's guard disables it and unmaps it. The old stack (std's, if any) stays
    // mapped and is freed by its owner.
    if unsafe { libc::sigaltstack(&st, ptr::null_mut()) } != 0 {
        // SAFETY: the mapping made above, used by nobody.
        unsafe { libc::munmap(base, len) };
        return None;
    }
    Some((base as usize, len, sp))
}

/// Collects the stall samples of compaction `tag`, calling `f` with each (when it
/// began, [`now_ns`], and how long it was, ns); returns
/// how many. While handlers for `tag` still run (a worker's collection during the
/// compaction) it takes the samples complete so far: a sample is complete once its
/// tag is stored (release, after its `ns`), and a sample it misses is taken by a
/// later call. After [`retire`] ran, every handler for `tag` has returned, and one
/// call takes all that is left.
pub(crate) fn drain_stalls(tag: u64, mut f: impl FnMut(u64, u64)) -> usize {
    REGISTRY.lock().iter().map(|r| r.drain(tag, &mut f)).sum()
}

/// Waits a little, more each time: `sched_yield` for the first [`YIELDS`] calls,
/// then `nanosleep` of 10 us times the attempt, up to 1 ms. Async-signal-safe.
///
/// Most waits are for a page that a worker (or another faulting thread) is
/// installing: a worker's run (up to 64 KiB, claimed a page at a time) takes some
/// tens of microseconds. Yielding keeps
/// this thread ready to go on within about a microsecond of the install, or hands
/// the CPU to the installer if it shares this one. A sleep costs much more than
/// it asks for (a 10 us `nanosleep` took 115-125 us here: timer slack and the
/// wake-up), so sleeping early made such waits that long.
pub(crate) fn back_off(attempt: u32) {
    if attempt < YIELDS {
        // SAFETY: no arguments; a system call with no user-space state.
        unsafe { libc::sched_yield() };
    } else {
        let us = (10 * u64::from(attempt - YIELDS + 1)).min(1000);
        sleep_us(us);
    }
}

/// Yields before [`back_off`] starts to sleep (a `sched_yield` took 0.7-0.8 us
/// here with nothing else ready to run: about 100 us of yielding).
const YIELDS: u32 = 128;

/// `nanosleep` for `us` microseconds (async-signal-safe; an interrupted sleep just
/// ends early).
pub(crate) fn sleep_us(us: u64) {
    let ts = libc::timespec {
        tv_sec: (us / 1_000_000) as libc::time_t,
        tv_nsec: ((us % 1_000_000) * 1000) as libc::c_long,
    };
    // SAFETY: `ts` is a valid timespec; the remainder is not asked for.
    unsafe { libc::nanosleep(&ts, ptr::null_mut()) };
}

/// `CLOCK_MONOTONIC` in ns (async-signal-safe: POSIX lists `clock_gettime`).
pub(crate) fn now_ns() -> u64 {
    // SAFETY: `ts` is written by the call.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: as above; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The record the handler uses on this thread: its own, or a pool record claimed
/// for this fault (`true`: give it back). Waits (backing off) while every pool
/// record is lent out: each lender holds one for one fault, which needs nothing
/// from this thread, so one comes back.
fn record_for_this_fault() -> (&'static FaultRecord, bool) {
    let mine = MINE.with(|m| m.get());
    if !mine.is_null() {
        // SAFETY: records are never freed (leaked into the registry), and this one
        // is held by this thread (`busy`) until its guard clears `MINE` first.
        return (unsafe { &*mine }, false);
    }
    let mut attempt = 0u32;
    loop {
        for slot in &POOL {
            let p = slot.load(Ordering::Acquire);
            if p.is_null() {
                continue;
            }
            // SAFETY: pool records are leaked: valid for the process's life.
            let r = unsafe { &*p };
            if r.busy
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return (r, true);
            }
        }
        back_off(attempt);
        attempt = attempt.saturating_add(1);
    }
}

/// What the handler did with a fault.
enum Outcome {
    /// A compaction served it (or found it served): the access can retry.
    Served,
    /// The address is in a heap span but no compaction covers it now (it ended or
    /// has not been published): the access retries, and either finds the page or
    /// faults normally (the span is no longer registered).
    Retry,
    /// Not a heap's fault: the previous disposition's.
    Foreign,
}

/// Serves a `SIGBUS` at `addr` if it is in a heap span.
fn handle(addr: usize, start_ns: u64) -> Outcome {
    let used = SLOTS_USED.load(Ordering::Acquire).min(MAX_HEAPS);
    let mut in_heap = false;
    for s in &SLOTS[..used] {
        // A slot being reused can be read torn (old `lo`, new `hi`): the bounds only
        // select candidates; the compaction's own bounds decide, and the scan goes on.
        let (lo, hi) = (s.lo.load(Ordering::Acquire), s.hi.load(Ordering::Acquire));
        if !(lo..hi).contains(&addr) {
            continue;
        }
        in_heap = true;
        s.inflight.fetch_add(1, Ordering::SeqCst);
        let c = s.active.load(Ordering::SeqCst);
        let mut served = false;
        if !c.is_null() {
            // SAFETY: `c` was published by `publish` and stays valid until `retire`
            // has seen our decrement below (proof at `retire`).
            let c = unsafe { &*c };
            if c.covers(addr) {
                let (record, lent) = record_for_this_fault();
                c.serve_in_handler(addr, record.buf());
                let ns = now_ns().saturating_sub(start_ns);
                if !record.record(c.id(), start_ns, ns) {
                    c.stall_lost();
                }
                if lent {
                    record.busy.store(false, Ordering::Release);
                }
                served = true;
            }
        }
        s.inflight.fetch_sub(1, Ordering::Release);
        if served {
            return Outcome::Served;
        }
    }
    if in_heap {
        Outcome::Retry
    } else {
        Outcome::Foreign
    }
}

/// The `SIGBUS` handler (`SA_SIGINFO`).
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let start = now_ns();
    // SAFETY: errno is this thread's; saved here and restored before returning, so
    // the interrupted code never sees the handler's system calls' errors.
    let errno_at = unsafe { libc::__errno_location() };
    // SAFETY: as above.
    let saved = unsafe { *errno_at };
    // A uffd SIGBUS is kernel-made with BUS_ADRERR; anything else (a memory error,
    // a file mapping past its end, a signal sent by a process) is not ours.
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler; `si_addr`
    // is the faulting address for a fault-generated SIGBUS.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    let outcome = if code == libc::BUS_ADRERR {
        handle(addr, start)
    } else {
        Outcome::Foreign
    };
    match outcome {
        Outcome::Served => {}
        Outcome::Retry => back_off(0),
        // SAFETY: forwarded from the kernel.
        Outcome::Foreign => unsafe { chain(sig, info, ctx) },
    }
    // SAFETY: as above.
    unsafe { *errno_at = saved };
}

/// Passes a `SIGBUS` that is not a heap's to the disposition we replaced: its
/// `SA_SIGINFO` or plain handler, or the default (restored, then the signal
/// raised again: it is delivered, and kills, when this handler returns).
///
/// # Safety
/// The arguments are the kernel's, from [`on_sigbus`].
unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let Some(prev) = PREVIOUS.get() else {
        // SAFETY: no previous disposition known: the default's.
        unsafe { default_and_raise(sig) };
        return;
    };
    let h = prev.sa_sigaction;
    if h == libc::SIG_DFL {
        // SAFETY: as above.
        unsafe { default_and_raise(sig) };
    } else if h == libc::SIG_IGN {
        // A fault cannot be ignored (the kernel kills a process that ignores the
        // SIGBUS of a fault); a signal sent by a process can.
        // SAFETY: `info` is the kernel's.
        if unsafe { (*info).si_code } > 0 {
            // SAFETY: as above.
            unsafe { default_and_raise(sig) };
        }
    } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: an SA_SIGINFO disposition's handler has this signature; it was
        // installed by the embedder for exactly these arguments.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(h) };
        f(sig, info, ctx);
    } else {
        // SAFETY: a plain disposition's handler takes the signal number.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
        f(sig);
    }
}

/// Restores the default disposition of `sig` and raises it (async-signal-safe).
///
/// # Safety
/// Called from a signal handler for `sig`, which then returns.
unsafe fn default_and_raise(sig: libc::c_int) {
    // SAFETY: a zeroed sigaction with SIG_DFL (0) is the default disposition.
    let mut dfl: libc::sigaction = unsafe { std::mem::zeroed() };
    dfl.sa_sigaction = libc::SIG_DFL;
    // SAFETY: `dfl` is valid; sigaction and raise are async-signal-safe.
    unsafe {
        libc::sigaction(sig, &dfl, ptr::null_mut());
        libc::raise(sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_collected_record_starts_again_at_its_first_sample() {
        let r = FaultRecord::new(4096);
        for ns in 0..1000 {
            assert!(r.record(7, 5_000 + ns, ns));
        }
        let mut got = Vec::new();
        assert_eq!(r.drain(7, &mut |at, ns| got.push((at, ns))), 1000);
        assert_eq!(
            got,
            (0..1000).map(|ns| (5_000 + ns, ns)).collect::<Vec<_>>()
        );
        // Everything was collected: the next samples go to the front, and a
        // collection scans only as far as they go.
        assert!(r.record(8, 0, 1));
        assert!(r.record(8, 0, 2));
        assert_eq!(r.hwm.load(Ordering::Relaxed), 2);
        // A sample of another compaction still pending keeps the table as it is.
        assert_eq!(r.drain(8, &mut |_, _| {}), 2);
        assert!(r.record(9, 0, 1));
        assert!(r.record(10, 0, 1));
        assert_eq!(r.drain(10, &mut |_, _| {}), 1);
        assert!(r.record(10, 0, 2));
        assert_eq!(r.hwm.load(Ordering::Relaxed), 3);
        let mut nine = Vec::new();
        assert_eq!(r.drain(9, &mut |_, ns| nine.push(ns)), 1);
        assert_eq!(nine, [1]);
        assert_eq!(r.drain(10, &mut |_, ns| assert_eq!(ns, 2)), 1);
    }
}
