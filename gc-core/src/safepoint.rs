//! Stopping the world: the mutator registry and the safepoint handshake.
//!
//! State machine per mutator: `Running` -> `Parked` (inside a GC point, waiting for
//! a collection to end) -> `Running`; `Running` -> `Blocking` (inside
//! `Mutator::blocking`, touching no heap memory) -> `Running`, which waits first if a
//! collection is in progress.
//!
//! A collection starts when one mutator (the coordinator) sets `collecting` and
//! `requested`, then waits until no *other* mutator is `Running`. Invariants:
//! 1. While `collecting`, no registered mutator other than the coordinator touches
//!    heap memory or its own roots: parked ones wait inside a GC point, blocking ones
//!    run code that cannot reach the mutator (the closure is `Send` and the mutator
//!    is borrowed), and `Running` is re-entered only after `collecting` ends.
//! 2. The coordinator takes the space and large-object locks only after the stop,
//!    so a mutator holding them briefly while `Running` cannot deadlock the stop.
//! 3. A parked or blocking mutator becomes `Running` only when no collection is in
//!    progress (not merely when the one it parked for has ended): a new collection
//!    may start before it wakes, and that one counts it as stopped.
//! 4. All transitions happen under `state`'s lock, which orders every mutator's heap
//!    writes before the collector's reads and the collector's writes before the
//!    resumed mutators' reads.
//! 5. (Scheduling, not safety.) The driver, having resumed the world, sleeps a
//!    moment ([`crate::sync::hand_over_cpu`]) if it resumed parked mutators, fewer
//!    than the CPUs, before it goes on with its concurrent work. Otherwise a parked
//!    mutator that yielded its CPU to the driver was left runnable behind it: the
//!    driver ran on for 1.4 ms with the other CPU idle for 1.8 ms of it (a
//!    `sched_switch` trace), and such waits reached 1-4 ms, seen as allocation
//!    stalls after pauses of under 0.5 ms. With as many mutators as CPUs or more,
//!    they fill the CPUs anyway, and a driver that gave its CPU up waited behind
//!    them (the 8-thread churn ran 13 % fewer cycles).

//!
//! This file names its lock, condition variable and atomics through `crate::sync`
//! only: `tests/models.rs` compiles it against a model checker and explores the
//! handshake's interleavings, pending root work included.

use crate::collect::root_table::MutatorShared;
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::sync::{Condvar, Mutex, MutexGuard};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The id the GC driver stops the world with: no mutator has it.
pub const DRIVER: u64 = 0;

/// How long a stop waits before it warns on stderr that some mutator does not stop.
const STOP_WARNING: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Running,
    Parked,
    Blocking,
}

struct Entry {
    id: u64,
    shared: Arc<MutatorShared>,
    status: Status,
    /// How pause records name it ([`Stopped::waited_for`]): made when it registers,
    /// so that no pause formats it.
    name: Arc<str>,
}

#[derive(Default)]
struct State {
    mutators: Vec<Entry>,
    collecting: bool,
    next_id: u64,
}

/// The registry and handshake.
#[derive(Default)]
pub struct Safepoints {
    /// Set while a collection wants mutators to stop; polled on slow paths.
    pub requested: AtomicBool,
    /// Counts changes of `state` (raised under its lock, after the change): a
    /// polling side of the handshake watches it without the lock and takes the lock
    /// again only once it moved (see [`Safepoints::poll`]).
    changes: AtomicUsize,
    state: Mutex<State>,
    /// Waited on for the end of a collection (`collecting` cleared): parked
    /// mutators, mutators leaving `blocking` or registering, a second coordinator.
    cv: Condvar,
    /// Waited on by the coordinator of a stop, for a mutator to stop (park, enter
    /// `blocking`, or leave). Apart from `cv` so that a mutator that parks wakes only
    /// the coordinator: with one condition variable, each park woke every parked
    /// mutator too, and parking_lot queues the woken on the lock, so the coordinator
    /// could wake last, after each of them had woken (50-400 us apiece on an idle
    /// CPU here) and found the world still stopped: a traced mark-start stop waited
    /// 0.3 ms for pausebench's hiccup meter to wake and go back to sleep.
    stopped_cv: Condvar,
}

/// Proof that the world is stopped, held by the coordinator; resumes on drop.
pub struct Stopped<'a> {
    sp: &'a Safepoints,
    me: u64,
    /// Every registered mutator's shared state, the coordinator's included.
    pub mutators: Vec<Arc<MutatorShared>>,
    /// Time from the request to the last mutator stopping.
    pub time_to_safepoint: Duration,
    /// The mutator the stop waited for last (the last one still running when the
    /// coordinator looked), if it waited for any: what made the time to safepoint.
    /// Named by its thread's name (whitespace replaced by `_`), or `mutator-<id>`
    /// for a thread without one.
    pub waited_for: Option<Arc<str>>,
}

/// How pause records name mutator `id`, registered by the calling thread.
fn mutator_name(id: u64) -> Arc<str> {
    match std::thread::current().name() {
        Some(name) => name
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect::<String>()
            .into(),
        None => format!("mutator-{id}").into(),
    }
}

impl Safepoints {
    /// Registers a mutator (waiting out a collection in progress); its id.
    pub fn register(&self, shared: Arc<MutatorShared>) -> u64 {
        let mut st = self.state.lock();
        while st.collecting {
            self.cv.wait(&mut st);
        }
        st.next_id += 1;
        let id = st.next_id;
        st.mutators.push(Entry {
            id,
            shared,
            status: Status::Running,
            name: mutator_name(id),
        });
        self.changed();
        id
    }

    /// Removes a mutator (which must be `Running`, i.e. called by its own thread).
    pub fn deregister(&self, id: u64) {
        let mut st = self.state.lock();
        st.mutators.retain(|e| e.id != id);
        self.changed();
        self.stopped_cv.notify_all();
    }

    /// Whether some registered mutator is running (not parked, not in `blocking`):
    /// one that could still come to a GC point.
    pub fn any_running(&self) -> bool {
        self.state
            .lock()
            .mutators
            .iter()
            .any(|e| e.status == Status::Running)
    }

    /// Number of registered mutators.
    pub fn count(&self) -> usize {
        self.state.lock().mutators.len()
    }

    fn set(&self, st: &mut State, id: u64, status: Status) {
        if let Some(e) = st.mutators.iter_mut().find(|e| e.id == id) {
            e.status = status;
        }
        self.changed();
    }

    /// Notes a change of the state (call holding its lock, after the change).
    /// Release: a poller whose acquire load sees the new count and then takes the
    /// lock finds the change (the lock orders it anyway; the count only tells the
    /// poller when to look).
    fn changed(&self) {
        self.changes.fetch_add(1, Ordering::Release);
    }

    /// At a GC point: if a collection is in progress, park until it ends. Returns
    /// whether it parked.
    pub fn park_if_requested(&self, id: u64) -> bool {
        if !self.requested.load(Ordering::Acquire) {
            return false;
        }
        let mut st = self.state.lock();
        if !st.collecting {
            return false;
        }
        self.set(&mut st, id, Status::Parked);
        self.stopped_cv.notify_all();
        // Wait while *any* collection is in progress: another may start before this
        // thread wakes from the last one, and it counts this thread as stopped.
        let mut polls = 0;
        while st.collecting {
            st = match self.poll(st, &mut polls) {
                Ok(st) => st,
                Err(mut st) => {
                    self.cv.wait(&mut st);
                    st
                }
            };
        }
        self.set(&mut st, id, Status::Running);
        Self::resume(st, id);
        true
    }

    /// One poll of the handshake, waiting for a change of `state`: while fewer than
    /// [`crate::sync::HANDSHAKE_POLLS`] polls (counted in `polls`) were made, gives
    /// the lock up, yields until the state changes (or the polls run out), and takes
    /// the lock back (`Ok`); after that, hands the guard back (`Err`) for the caller
    /// to sleep on the condition variable.
    ///
    /// Why poll: most pauses last some tens of microseconds, and a thread woken from
    /// the condition variable on another CPU that went idle starts running 50-100 us
    /// later on this VM (a futex wake-up, an interrupt to a halted virtual CPU). A
    /// coordinator that slept while the last mutator parked saw that delay as time
    /// to safepoint, and a parked mutator saw it added to every pause. Polling costs
    /// a CPU for about 40 us here (200 yields, [`crate::sync::HANDSHAKE_POLLS`]),
    /// and yielding lets the other side run if it shares this CPU.
    ///
    /// Why watch `changes` rather than take the lock at every poll: the party that
    /// must change the state (a mutator entering `blocking` or parking) needs the
    /// lock, and a poller that took it back after every yield kept it from it: a
    /// mutator asleep on the lock wakes 50-100 us after it is released, by which
    /// time the poller held it again, for up to the whole polling budget and beyond
    /// (times to safepoint of 1-3.5 ms, the mutator asleep on the lock throughout).
    /// Memory ordering is the lock's, as before: every decision is made holding it;
    /// the count only says when to look.
    fn poll<'a>(
        &'a self,
        st: MutexGuard<'a, State>,
        polls: &mut u32,
    ) -> Result<MutexGuard<'a, State>, MutexGuard<'a, State>> {
        if *polls >= crate::sync::HANDSHAKE_POLLS {
            return Err(st);
        }
        let seen = self.changes.load(Ordering::Relaxed);
        drop(st);
        while *polls < crate::sync::HANDSHAKE_POLLS {
            *polls += 1;
            crate::sync::yield_now();
            if self.changes.load(Ordering::Acquire) != seen {
                break;
            }
        }
        Ok(self.state.lock())
    }

    /// A mutator resumes: it applies its pending root forwarding (left by a flip
    /// pause) before it touches its roots or the heap again.
    fn resume(st: MutexGuard<'_, State>, id: u64) {
        let shared = st
            .mutators
            .iter()
            .find(|e| e.id == id)
            .map(|e| Arc::clone(&e.shared));
        drop(st);
        if let Some(s) = shared {
            s.fix_pending();
        }
    }

    /// Enters native/blocking code: counts as stopped.
    pub fn enter_blocking(&self, id: u64) {
        let mut st = self.state.lock();
        self.set(&mut st, id, Status::Blocking);
        self.stopped_cv.notify_all();
    }

    /// Leaves blocking code, waiting out a collection in progress.
    pub fn leave_blocking(&self, id: u64) {
        let mut st = self.state.lock();
        while st.collecting {
            self.cv.wait(&mut st);
        }
        self.set(&mut st, id, Status::Running);
        Self::resume(st, id);
    }

    /// Stops every other mutator so `me` can collect. `None` if another mutator was
    /// already collecting: `me` then parked until that collection ended.
    pub fn stop_the_world(&self, me: u64) -> Option<Stopped<'_>> {
        let start = Instant::now();
        let mut st = self.state.lock();
        if st.collecting {
            self.set(&mut st, me, Status::Parked);
            self.stopped_cv.notify_all();
            while st.collecting {
                self.cv.wait(&mut st);
            }
            self.set(&mut st, me, Status::Running);
            Self::resume(st, me);
            return None;
        }
        st.collecting = true;
        self.changed();
        self.requested.store(true, Ordering::Release);
        self.set(&mut st, me, Status::Parked);
        let mut warned = false;
        let mut polls = 0;
        let mut waited_for = None;
        while let Some(e) = st
            .mutators
            .iter()
            .find(|e| e.id != me && e.status == Status::Running)
        {
            waited_for = Some(Arc::clone(&e.name));
            st = match self.poll(st, &mut polls) {
                Ok(polled) => {
                    st = polled;
                    continue;
                }
                Err(st) => st,
            };
            let timed_out = self.stopped_cv.wait_for(&mut st, STOP_WARNING).timed_out();
            if timed_out && !warned {
                warned = true;
                let running = st
                    .mutators
                    .iter()
                    .filter(|e| e.id != me && e.status == Status::Running)
                    .count();
                eprintln!(
                    "flipgc: a stop-the-world has waited {} s for {running} mutator(s) to reach \
                     a safepoint: a thread that neither allocates nor calls \
                     Mutator::safepoint, or that waits without Mutator::blocking",
                    STOP_WARNING.as_secs()
                );
            }
        }
        let mutators = st.mutators.iter().map(|e| Arc::clone(&e.shared)).collect();
        Some(Stopped {
            sp: self,
            me,
            mutators,
            time_to_safepoint: start.elapsed(),
            waited_for,
        })
    }
}

impl Stopped<'_> {
    /// Applies every mutator's pending root forwarding (the verifier and the mark
    /// phase need current roots).
    pub fn fix_pending_roots(&self) {
        for m in &self.mutators {
            m.fix_pending();
        }
    }
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        let mut st = self.sp.state.lock();
        st.collecting = false;
        self.sp.changed();
        self.sp.requested.store(false, Ordering::Release);
        self.sp.set(&mut st, self.me, Status::Running);
        self.sp.cv.notify_all();
        // Invariant 5: the driver hands its CPU to the mutators it resumes, when
        // they are fewer than the CPUs.
        if self.me == DRIVER {
            let parked = st
                .mutators
                .iter()
                .filter(|e| e.status == Status::Parked)
                .count();
            drop(st);
            if parked > 0 && parked < crate::sync::cpus() {
                crate::sync::hand_over_cpu();
            }
        }
    }
}
