//! The GC driver: one thread per heap that runs every collection cycle, so that a
//! mutator asking for one is not the one running it (with concurrent marking, a
//! cycle spans marking, planning and compaction: the asker keeps running if it has
//! memory, and waits only if it has none).
//!
//! The one exception: the pacer's trigger, seen by a mutator on its allocation
//! slow path, makes that mutator *claim* the next cycle ([`Driver::claim`]) and run
//! its mark-start pause itself (it is at a GC point already, while the driver
//! would first have to wake); it then hands the cycle over ([`Driver::hand_over`])
//! and the driver runs the rest. The driver leaves a claimed cycle alone until then.
//! Likewise the mark-end and flip pauses: the driver offers them to the mutators
//! (`pause_offer.rs`), and one at a GC point, or waiting here for the flip
//! ([`Driver::wait_for`]), runs each.
//!
//! Cycles are numbered from 1. A request asks for the first cycle that *starts*
//! after it (its snapshot is taken after the request); the driver runs cycles
//! while some are requested and not yet started (or handed over). Waiters wait on
//! three counters:
//! - `started`: cycles whose first pause has happened (their snapshot is taken);
//! - `flipped`: cycles whose memory is available again (the flip pause, or the one
//!   pause of a full cycle, is over);
//! - `done`: cycles completely over (compaction finished, tables handed back).
//!
//! The thread is spawned at the first request and holds only a weak reference to
//! the heap while idle: dropping the heap's last handle shuts it down.
//!
//! Hand-off: every counter change and every request happens under `state`'s lock,
//! and waiters wait on its condition variable, so a waiter that sees a counter also
//! sees everything the cycle did before bumping it (lock release and acquire).
//!
//! The pacer's look at the allocation slow path takes no lock: `busy` and
//! `awaiting_flip` are atomics, written under the lock and read relaxed, as hints. A mutator that has just requested a cycle must not then wait
//! for this lock: the driver it woke is about to take it, and parking_lot may hand
//! the lock straight to the woken driver (its fair unlock), so the mutator slept
//! until the driver, 50-200 us from waking on an idle CPU, had run and let go; the
//! driver meanwhile asked for a stop that the sleeping mutator could not answer
//! (times to safepoint of 340-550 us, a `sched_switch` trace with call graphs).
//!
//! Its unit tests that build a whole heap are in `driver_tests.rs`. Layer:
//! collector (docs/architecture.md, "Layers").

use super::heap_inner::HeapInner;
use crate::pacer::Reason;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

/// The driver's counters and hand-overs, under its lock.
#[derive(Default)]
pub(crate) struct State {
    requested: u64,
    started: u64,
    pub(crate) flipped: u64,
    done: u64,
    spawned: bool,
    shutdown: bool,
    /// Why and when the next cycle (`started + 1`) was first requested.
    next: Option<(Reason, Instant)>,
    /// A cycle whose mark-start pause a mutator has claimed and is running (the
    /// driver must not start it too), with why and when.
    claimed: Option<(u64, Reason, Instant)>,
    /// That pause, run: the driver goes on with the cycle from it.
    handed: Option<(u64, Reason, Instant, super::MarkStarted)>,
    /// Cycles up to this number must be full (not young, `sticky.rs`): asked for
    /// explicitly, or for a full heap.
    full_until: u64,
}

/// What ended a [`Driver::wait_for`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woke {
    /// The cycle waited for has flipped.
    Flipped,
    /// A flip pause is offered to the mutators.
    Offered,
    /// The time ran out.
    TimedOut,
}

/// The driver's state, shared by the heap and the driver thread.
#[derive(Default)]
pub struct Driver {
    /// The request counters (read directly by the driver's tests, `driver_tests.rs`).
    pub(crate) state: Mutex<State>,
    cv: Condvar,
    /// Whether a cycle is requested or under way (read lock-free by the pacer's
    /// check at every allocation-buffer refill).
    busy: AtomicBool,
    /// Whether `State::requested > State::flipped`, for the lock-free
    /// [`Driver::awaiting_flip`] (written under the lock whenever either changes).
    awaiting_flip: AtomicBool,
}

impl Driver {
    /// Whether a cycle is requested or under way (relaxed: a hint for the pacer,
    /// which asks again at its next refill if it read a stale value).
    #[inline]
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Requests a cycle that starts after this call, for `reason` (spawning the
    /// driver thread the first time); returns its number.
    pub fn request(&self, heap: &Arc<HeapInner>, reason: Reason) -> u64 {
        let mut st = self.state.lock();
        let n = st.started + 1;
        if st.requested < n {
            st.requested = n;
            self.awaiting_flip.store(true, Ordering::Relaxed);
            st.next = Some((reason, Instant::now()));
        }
        if matches!(reason, Reason::Explicit | Reason::HeapFull) {
            // Even if this request joins one made for another reason: whoever
            // asks for a collection of everything, or finds the heap full, waits
            // for a full cycle (an `OutOfMemory` error follows one).
            st.full_until = st.full_until.max(n);
        }
        self.busy.store(true, Ordering::Relaxed);
        self.spawn_once(&mut st, heap);
        self.cv.notify_all();
        n
    }

    /// Whether cycle `n` must be full: an explicit or heap-full request asked for
    /// it, or for a later one (read by the driver as the cycle's marking begins,
    /// after its mark-start pause; the requests it answers were made before the
    /// pause, so before this read, under the state lock).
    pub fn full_wanted(&self, n: u64) -> bool {
        n <= self.state.lock().full_until
    }

    /// Called by a mutator, on its allocation slow path, when the pacer wants a
    /// cycle: if none is requested or under way, claims the next one for this
    /// mutator to run its mark-start pause (and returns its number), as a request
    /// for `reason` that the driver does not act on until [`Driver::hand_over`].
    ///
    /// Why the mutator runs that pause: it is at a GC point already, so the pause
    /// need not wait for it; the driver, asleep on an idle CPU, would first have to
    /// wake, and on this VM the mutator's virtual CPU was seen not running for up
    /// to 0.65 ms just then (times to safepoint of 0.2-0.65 ms, docs/pausebench.md).
    /// The driver is woken after the pause instead.
    pub fn claim(&self, heap: &Arc<HeapInner>, reason: Reason) -> Option<u64> {
        let mut st = self.state.lock();
        if st.requested > st.done || st.claimed.is_some() || st.shutdown {
            return None;
        }
        let n = st.started + 1;
        st.requested = n;
        st.claimed = Some((n, reason, Instant::now()));
        self.awaiting_flip.store(true, Ordering::Relaxed);
        self.busy.store(true, Ordering::Relaxed);
        self.spawn_once(&mut st, heap);
        // No wake-up: the driver has nothing to do until the hand-over.
        Some(n)
    }

    /// The mutator that claimed cycle `n` has run its mark-start pause: the driver
    /// goes on with the cycle (woken here, with the world running).
    pub fn hand_over(&self, n: u64, started: super::MarkStarted) {
        let mut st = self.state.lock();
        let (claimed, reason, at) = st.claimed.take().expect("a claimed cycle");
        debug_assert_eq!(claimed, n);
        st.handed = Some((n, reason, at, started));
        self.cv.notify_all();
    }

    fn spawn_once(&self, st: &mut State, heap: &Arc<HeapInner>) {
        if !st.spawned {
            st.spawned = true;
            let weak = Arc::downgrade(heap);
            let driver = Arc::clone(&heap.driver);
            let priority = heap.config.gc_thread_priority;
            std::thread::Builder::new()
                .name("flipgc-driver".into())
                .spawn(move || {
                    crate::priority::collector_thread_start(priority, "flipgc-driver");
                    driver.run(weak)
                })
                .expect("spawning the GC driver thread");
        }
    }

    /// The cycle in progress (started, not yet done), if any.
    pub fn in_progress(&self) -> Option<u64> {
        let st = self.state.lock();
        (st.started > st.done).then_some(st.started)
    }

    /// Waits until cycle `n` has made its memory available (its flip is over).
    pub fn wait_flipped(&self, n: u64) {
        let mut st = self.state.lock();
        while st.flipped < n {
            self.cv.wait(&mut st);
        }
    }

    /// A mutator, in `blocking` (waiting for memory, or throttled): waits until
    /// cycle `n` (if given) has flipped, until `until` (if given), or until a flip
    /// pause is offered to the mutators (`offered`, set before the offer calls
    /// [`Driver::nudge`]), whichever comes first.
    ///
    /// Memory ordering: `offered` is read under `state`'s lock, and the offer takes
    /// that lock to notify after setting it, so a waiter either sees it before
    /// sleeping or is woken after it was set (and sees it then, the lock ordering
    /// the store before).
    pub fn wait_for(&self, n: Option<u64>, until: Option<Instant>, offered: &AtomicBool) -> Woke {
        let mut st = self.state.lock();
        loop {
            if n.is_some_and(|n| st.flipped >= n) {
                return Woke::Flipped;
            }
            if offered.load(Ordering::Relaxed) {
                return Woke::Offered;
            }
            match until {
                Some(t) if Instant::now() >= t => return Woke::TimedOut,
                Some(t) => {
                    self.cv.wait_until(&mut st, t);
                }
                None => self.cv.wait(&mut st),
            }
        }
    }

    /// Wakes the mutators waiting in [`Driver::wait_for`] (a flip pause is offered).
    pub fn nudge(&self) {
        let _st = self.state.lock();
        self.cv.notify_all();
    }

    /// Whether memory a cycle will free is still to come: a cycle is requested or
    /// under way and has not flipped yet. Lock-free and relaxed: a hint for the
    /// pacer's throttling, which looks again at its next refill.
    pub fn awaiting_flip(&self) -> bool {
        self.awaiting_flip.load(Ordering::Relaxed)
    }

    /// Waits until no cycle is in progress or requested.
    pub fn wait_idle(&self) {
        let mut st = self.state.lock();
        while st.done < st.requested {
            self.cv.wait(&mut st);
        }
    }

    /// Cycle `n` took its snapshot (in its first pause, by the driver or the
    /// mutator that claimed it). Wakes nobody: no waiter waits for `started` (the
    /// driver's own wait only becomes less likely to end), and a wake-up in the
    /// pause would cost it.
    pub fn started(&self, n: u64) {
        let mut st = self.state.lock();
        st.started = n;
        self.awaiting_flip
            .store(st.requested > st.flipped, Ordering::Relaxed);
    }

    /// The driver: cycle `n`'s memory is available.
    pub fn flipped(&self, n: u64) {
        self.bump(|st| st.flipped = n);
    }

    fn bump(&self, f: impl FnOnce(&mut State)) {
        let mut st = self.state.lock();
        f(&mut st);
        self.awaiting_flip
            .store(st.requested > st.flipped, Ordering::Relaxed);
        self.cv.notify_all();
    }

    /// Stops the driver thread once it is idle (the heap is being dropped).
    pub fn shut_down(&self) {
        self.bump(|st| st.shutdown = true);
    }

    /// The driver thread: runs requested cycles until the heap is gone.
    fn run(&self, heap: Weak<HeapInner>) {
        loop {
            let (n, (reason, requested_at), mark_started) = {
                let mut st = self.state.lock();
                loop {
                    if let Some((n, reason, at, m)) = st.handed.take() {
                        break (n, (reason, at), Some(m));
                    }
                    if st.shutdown {
                        return;
                    }
                    if st.requested > st.started && st.claimed.is_none() {
                        let why = st.next.take().unwrap_or((Reason::Explicit, Instant::now()));
                        break (st.started + 1, why, None);
                    }
                    self.cv.wait(&mut st);
                }
            };
            let Some(inner) = heap.upgrade() else { return };
            let cycle = super::CycleStart {
                n,
                reason,
                requested_at,
                mark_started,
            };
            super::run_cycle(&inner, cycle);
            // Let go of the heap before waking the waiters: one that drops the last
            // handle after `wait_idle` then drops the heap itself, at once and on its
            // own thread (the GC log's summary included), not this thread later.
            drop(inner);
            // Cycles bump every counter; make sure of it even on paths that skip
            // some (and wake every waiter).
            self.bump(|st| {
                st.started = st.started.max(n);
                st.flipped = st.flipped.max(n);
                st.done = st.done.max(n);
                if st.requested <= st.done {
                    self.busy.store(false, Ordering::Relaxed);
                }
            });
        }
    }
}
