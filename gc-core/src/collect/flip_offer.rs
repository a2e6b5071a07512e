//! The flip pause, offered to a mutator. The driver prepares the flip concurrently
//! (plan, parking, userfaultfd) and then, rather than stopping the world itself,
//! leaves the pause for a running mutator to run at its next GC point, as the
//! mutator that triggers a cycle runs the mark-start pause. If no mutator takes it
//! within [`OFFER_WAIT`], or none is running, the driver runs it.
//!
//! Why: a driver-run flip waited for the mutator to stop (a median 6 us, 241 us once
//! when the host stalled it), and the mutator, asleep by the end of a 100 us pause,
//! woke 50-100 us after it; the mutator that runs the pause does neither. The
//! driver polls for the outcome (yielding) for [`SPIN`] before it sleeps: asleep, it
//! left its CPU halted, and the `mremap`'s TLB shootdown, which interrupts that CPU
//! whichever thread moves the heap, took longer to reach it (docs/architecture.md,
//! the concurrent cycle, step 5, has the figures).
//!
//! Protocol, one offer at a time, every transition under `slot`'s lock:
//! `Empty -> Offered(job)` (driver) `-> Taken` (a mutator, which runs the pause)
//! `-> Done(result)` (that mutator) `-> Empty` (driver, which goes on with the
//! cycle); or `Offered -> Empty` (the driver takes the job back and runs it).
//! `offered` only tells mutators' GC points when to look (they take the lock
//! before acting), and `Safepoints::requested` sends them to their GC points.
//! The job and the result cross threads through the lock (release by the writer's
//! unlock, acquire by the reader's lock).

use super::flip;
use super::plan::Plan;
use crate::heap::HeapInner;
use crate::safepoint::DRIVER;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the driver waits for a mutator to take the flip pause before it runs
/// the pause itself. A mutator that allocates reaches a GC point at its next
/// allocation-buffer refill (tens of microseconds); one that computes without
/// allocating or polling may never come.
pub const OFFER_WAIT: Duration = Duration::from_millis(1);

/// How long the driver polls (yielding) for the offer to be taken and run before
/// it sleeps.
const SPIN: Duration = Duration::from_millis(2);

/// How often the waiting driver checks that some mutator still runs (one that
/// entered `blocking` or parked cannot take the offer).
const RECHECK: Duration = Duration::from_micros(200);

/// A prepared flip pause: everything [`flip::pause`] needs.
pub struct FlipJob {
    /// The cycle.
    pub n: u64,
    /// Its mark boundary.
    pub boundary: usize,
    /// Its plan.
    pub plan: Plan,
    /// The userfaultfd descriptor opened for it, if any.
    pub uffd: Option<flipgc_heap::Userfault>,
}

impl FlipJob {
    /// Runs the flip pause, coordinated by `me` (the driver, or a mutator at a GC
    /// point that has retired its allocation buffer and handed in its barrier log).
    pub fn run(self, inner: &Arc<HeapInner>, me: u64) -> flip::FlipOutcome {
        flip::pause(inner, self.n, self.boundary, self.plan, self.uffd, me)
    }
}

#[derive(Default)]
enum Offer {
    #[default]
    Empty,
    Offered(FlipJob),
    Taken,
    Done(flip::FlipOutcome),
}

/// The offer slot (one per heap).
#[derive(Default)]
pub struct FlipOffer {
    slot: Mutex<Offer>,
    cv: Condvar,
    offered: AtomicBool,
    /// Mutators in `blocking` that take an offer when one comes (waiting for
    /// memory, or throttled: `Mutator::wait_for_flip`, `Mutator::throttle`).
    takers: AtomicUsize,
}

impl FlipOffer {
    /// The driver: offers `job` to the mutators and returns once its pause has run,
    /// by a mutator or, failing one, by the driver itself.
    pub fn run(&self, inner: &Arc<HeapInner>, job: FlipJob) -> flip::FlipOutcome {
        if !inner.config.flip_by_mutator || !self.someone_may_take(inner) {
            return job.run(inner, DRIVER);
        }
        let deadline = Instant::now() + OFFER_WAIT;
        let mut slot = self.slot.lock();
        *slot = Offer::Offered(job);
        self.offered.store(true, Ordering::Relaxed);
        inner.safepoints.requested.store(true, Ordering::Release);
        inner.driver.nudge();
        let spin_until = Instant::now() + SPIN;
        loop {
            match std::mem::take(&mut *slot) {
                Offer::Offered(job) => {
                    let now = Instant::now();
                    if now >= deadline || !self.someone_may_take(inner) {
                        self.offered.store(false, Ordering::Relaxed);
                        drop(slot);
                        return job.run(inner, DRIVER);
                    }
                    *slot = Offer::Offered(job);
                    if now < spin_until {
                        parking_lot::MutexGuard::unlocked(&mut slot, std::thread::yield_now);
                    } else {
                        let wait = (deadline - now).min(RECHECK);
                        self.cv.wait_for(&mut slot, wait);
                    }
                }
                Offer::Taken => {
                    *slot = Offer::Taken;
                    if Instant::now() < spin_until {
                        parking_lot::MutexGuard::unlocked(&mut slot, std::thread::yield_now);
                    } else {
                        self.cv.wait(&mut slot);
                    }
                }
                Offer::Done(outcome) => return outcome,
                Offer::Empty => unreachable!("the driver's offer vanished"),
            }
        }
    }

    /// Whether a mutator may still take an offer: one is running (it comes to a GC
    /// point), or waits in `blocking` ready to take one.
    fn someone_may_take(&self, inner: &HeapInner) -> bool {
        self.takers.load(Ordering::SeqCst) > 0 || inner.safepoints.any_running()
    }

    /// Whether a flip pause is offered (a hint: [`FlipOffer::take`] decides).
    pub fn offered(&self) -> &AtomicBool {
        &self.offered
    }

    /// A mutator about to wait in `blocking` for memory or out a throttle, ready
    /// to take an offer: counted until the guard drops.
    pub fn taker(&self) -> Taker<'_> {
        self.takers.fetch_add(1, Ordering::SeqCst);
        Taker(self)
    }

    /// A mutator at a GC point: the offered flip pause, if there is one, now this
    /// thread's to run; it then hands the outcome back with [`FlipOffer::done`].
    pub fn take(&self) -> Option<FlipJob> {
        if !self.offered.load(Ordering::Relaxed) {
            return None;
        }
        let mut slot = self.slot.lock();
        match std::mem::take(&mut *slot) {
            Offer::Offered(job) => {
                *slot = Offer::Taken;
                self.offered.store(false, Ordering::Relaxed);
                Some(job)
            }
            other => {
                *slot = other;
                None
            }
        }
    }

    /// The mutator that took the offer: its pause is over, the driver goes on.
    pub fn done(&self, outcome: flip::FlipOutcome) {
        *self.slot.lock() = Offer::Done(outcome);
        self.cv.notify_one();
    }
}

/// A mutator counted as ready to take an offer ([`FlipOffer::taker`]).
pub struct Taker<'a>(&'a FlipOffer);

impl Drop for Taker<'_> {
    fn drop(&mut self) {
        self.0.takers.fetch_sub(1, Ordering::SeqCst);
    }
}
