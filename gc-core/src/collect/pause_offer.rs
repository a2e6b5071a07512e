//! Pauses offered to a mutator. For a concurrent cycle's mark-end and flip pauses,
//! the driver, rather than stopping the world itself, leaves the pause for a
//! running mutator to run at its next GC point, as the mutator that triggers a
//! cycle runs the mark-start pause. If no mutator takes it within [`OFFER_WAIT`], or
//! none is running or waiting to take one, the driver runs it.
//!
//! Why: a driver-run pause waits for the mutator to stop (a median 6 us; 0.5 ms,
//! and once 17 ms, when the host stalled the mutator's CPU just then), and the
//! mutator, asleep by the end of a 100 us pause, wakes 50-100 us after it; the
//! mutator that runs the pause does neither. The driver polls for the outcome
//! (yielding) for [`SPIN`] before it sleeps: asleep, it left its CPU halted, and
//! the flip's TLB shootdown, which interrupts that CPU whichever thread moves the
//! heap, took longer to reach it (docs/findings.md, design history, the concurrent cycle, has
//! the figures). It does not poll once the taker runs the pause on the driver's
//! own CPU: the poll would take that CPU from the pause. It polls while the pause
//! is still only offered too: sleeping
//! until a mutator took it (woken by `take`) left its CPU free for the mutators
//! and gave slightly shorter flips at the median, but a halted CPU sometimes woke
//! milliseconds late, and flips waited for it (figures in the same place).
//!
//! Protocol, one offer at a time, every transition under `slot`'s lock:
//! `Empty -> Offered(task)` (driver) `-> Taken` (a mutator, which runs the task)
//! `-> Done` (that mutator) `-> Empty` (driver, which goes on with the cycle); or
//! `Offered -> Empty` (the driver takes the task back and runs it). `offered` only
//! tells mutators' GC points when to look (they take the lock before acting), and
//! `Safepoints::requested` sends them to their GC points. The task, what it
//! borrows and what it writes back cross threads through the lock: the driver's
//! unlock after `Offered` releases them to the taker's lock; the taker's unlock
//! after `Done` releases its writes to the driver's lock.
//!
//! The file names its locks, atomics and clock through `crate::sync`, and reaches
//! the heap through [`GcPoints`], so that its concurrency model
//! (`tests/offer_model.rs`) compiles this same file against a model checker's
//! primitives: exactly one thread runs each offered pause, the driver returns only
//! after it ran, and the pause's writes reach the driver.

use crate::safepoint::DRIVER;
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::sync::{current_cpu, realtime, yield_now, Condvar, Instant, Mutex, MutexGuard};
use std::ptr::NonNull;
use std::time::Duration;

/// What an offer needs from the heap: implemented by `HeapInner` (`heap.rs`), and
/// by a stand-in in the concurrency model.
pub trait GcPoints {
    /// Whether pauses may be offered at all (`HeapConfig::pauses_by_mutator`).
    fn offers_on(&self) -> bool;
    /// Whether some mutator is running (it will reach a GC point).
    fn any_running(&self) -> bool;
    /// Sends the running mutators to their next GC point, and wakes the ones
    /// waiting in `blocking` (for memory, or throttled) to look at the offer.
    fn call_to_gc_points(&self);
}

/// How long the driver waits for a mutator to take a pause before it runs the
/// pause itself. A mutator that allocates reaches a GC point at its next
/// allocation-buffer refill (tens of microseconds); one that computes without
/// allocating or polling may never come.
pub const OFFER_WAIT: Duration = Duration::from_millis(1);

/// How long the driver polls (yielding) for the offer to be taken and run before
/// it sleeps.
const SPIN: Duration = Duration::from_millis(2);

/// How often the waiting driver checks that some mutator may still take the offer
/// (one that entered `blocking` or parked cannot).
const RECHECK: Duration = Duration::from_micros(200);

/// An offered pause: the driver's closure, called once with the coordinator's id.
/// Its lifetime is erased: see the safety argument in [`PauseOffer::run`].
pub struct Task(NonNull<dyn FnMut(u64) + Send>);

// SAFETY: the closure behind the pointer is `Send`, and it is called by one
// thread at a time, the hand-offs ordered by the offer's lock (module docs).
unsafe impl Send for Task {}

impl Task {
    /// Runs the pause, coordinated by `me` (a mutator at a GC point that has
    /// retired its allocation buffer and handed in its barrier log).
    pub fn run(mut self, me: u64) {
        // SAFETY: the driver that made this task waits in `PauseOffer::run`, its
        // closure alive on its stack, until `done` (module docs), and nobody else
        // holds the pointer: the slot gave it to this thread alone.
        unsafe { self.0.as_mut()(me) }
    }
}

#[derive(Default)]
enum Slot {
    #[default]
    Empty,
    Offered(Task),
    Taken,
    Done,
}

/// The offer slot (one per heap).
#[derive(Default)]
pub struct PauseOffer {
    slot: Mutex<Slot>,
    cv: Condvar,
    offered: AtomicBool,
    /// Mutators in `blocking` that take an offer when one comes (waiting for
    /// memory, or throttled: `Mutator::wait_for_flip`, `Mutator::throttle`).
    takers: AtomicUsize,
    /// The CPU the taker of the current offer was on when it took it (written and
    /// read under `slot`'s lock).
    taker_cpu: AtomicUsize,
}

impl PauseOffer {
    /// The driver: offers `pause` (called with the coordinator's id) to the
    /// mutators and returns its result once it has run, by a mutator or, failing
    /// one, by the driver itself.
    pub fn run<R: Send>(&self, inner: &impl GcPoints, pause: impl FnOnce(u64) -> R + Send) -> R {
        if !inner.offers_on() || !self.someone_may_take(inner) {
            return pause(DRIVER);
        }
        let mut pause = Some(pause);
        let mut out: Option<R> = None;
        let mut call = |me: u64| {
            let pause = pause.take().expect("an offered pause runs once");
            out = Some(pause(me));
        };
        let call: NonNull<dyn FnMut(u64) + Send + '_> = NonNull::from(&mut call);
        // The lifetime is erased below. This function returns only after the slot
        // went back to `Empty` from `Done` (the taker has returned from the call
        // and will not touch it again) or from `Offered` (the driver took the task
        // back; nobody else had it), and a taker's panic aborts the process (its
        // `AbortOnUnwind`), so the driver never leaves while a taker runs it.
        // SAFETY: `call`, and what it borrows, outlive every use of the pointer.
        let call = unsafe {
            std::mem::transmute::<NonNull<dyn FnMut(u64) + Send + '_>, NonNull<dyn FnMut(u64) + Send>>(
                call,
            )
        };
        let task = Task(call);
        let offered_at = Instant::now();
        // A real-time driver does not poll: its yields would hand the CPU to no
        // mutator of normal priority (the taker, or one on its way to a GC
        // point), so it sleeps on the condition variable from the start.
        let spin = if realtime() { Duration::ZERO } else { SPIN };
        let (deadline, spin_until) = (offered_at + OFFER_WAIT, offered_at + spin);
        let mut slot = self.slot.lock();
        *slot = Slot::Offered(task);
        self.offered.store(true, Ordering::Relaxed);
        inner.call_to_gc_points();
        loop {
            match std::mem::take(&mut *slot) {
                Slot::Offered(task) => {
                    let now = Instant::now();
                    if now >= deadline || !self.someone_may_take(inner) {
                        self.offered.store(false, Ordering::Relaxed);
                        drop(slot);
                        task.run(DRIVER);
                        break;
                    }
                    *slot = Slot::Offered(task);
                    if now < spin_until {
                        MutexGuard::unlocked(&mut slot, yield_now);
                    } else {
                        self.cv.wait_for(&mut slot, (deadline - now).min(RECHECK));
                    }
                }
                Slot::Taken => {
                    *slot = Slot::Taken;
                    // Polling on the CPU the taker runs the pause on would take
                    // that CPU from it: the scheduler often keeps the yielding
                    // driver running (a yield does not hand over to a thread that
                    // has had its share) until the next tick, 4 ms here. Seen with
                    // a CPU-bound neighbour on the other CPU, which left the driver
                    // and the taker sharing one: a flip pause's `register` phase
                    // took 3.7 ms, 3.6 ms of it with the taker preempted by the
                    // polling driver (docs/findings.md, pause tails). So the
                    // driver sleeps then (`done` wakes it).
                    let shares_cpu = self.taker_cpu.load(Ordering::Relaxed) == current_cpu();
                    if !shares_cpu && Instant::now() < spin_until {
                        MutexGuard::unlocked(&mut slot, yield_now);
                    } else {
                        self.cv.wait(&mut slot);
                    }
                }
                Slot::Done => break,
                Slot::Empty => unreachable!("the driver's offer vanished"),
            }
        }
        out.expect("the offered pause ran")
    }

    /// Whether a mutator may still take an offer: one is running (it comes to a GC
    /// point), or waits in `blocking` ready to take one.
    fn someone_may_take(&self, inner: &impl GcPoints) -> bool {
        self.takers.load(Ordering::SeqCst) > 0 || inner.any_running()
    }

    /// Whether a pause is offered (a hint: [`PauseOffer::take`] decides).
    pub fn offered(&self) -> &AtomicBool {
        &self.offered
    }

    /// A mutator about to wait in `blocking` for memory or out a throttle, ready
    /// to take an offer: counted until the guard drops.
    pub fn taker(&self) -> Taker<'_> {
        self.takers.fetch_add(1, Ordering::SeqCst);
        Taker(self)
    }

    /// A mutator at a GC point: the offered pause, if there is one, now this
    /// thread's to run ([`Task::run`]); it then says so with [`PauseOffer::done`].
    pub fn take(&self) -> Option<Task> {
        if !self.offered.load(Ordering::Relaxed) {
            return None;
        }
        let mut slot = self.slot.lock();
        match std::mem::take(&mut *slot) {
            Slot::Offered(task) => {
                *slot = Slot::Taken;
                self.taker_cpu.store(current_cpu(), Ordering::Relaxed);
                self.offered.store(false, Ordering::Relaxed);
                Some(task)
            }
            other => {
                *slot = other;
                None
            }
        }
    }

    /// The mutator that took the offer: the pause has run, the driver goes on.
    pub fn done(&self) {
        *self.slot.lock() = Slot::Done;
        self.cv.notify_one();
    }
}

/// A mutator counted as ready to take an offer ([`PauseOffer::taker`]).
pub struct Taker<'a>(&'a PauseOffer);

impl Drop for Taker<'_> {
    fn drop(&mut self) {
        self.0.takers.fetch_sub(1, Ordering::SeqCst);
    }
}
