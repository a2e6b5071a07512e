//! A concurrency model of the pause offer (`src/collect/pause_offer.rs`), checked
//! by exhaustive exploration of its interleavings with a model checker. The model
//! compiles the collector's own source file, not a copy: the file names its locks,
//! atomics and clock through `crate::sync`, which here is the model checker's
//! (below), and reaches the heap through its `GcPoints` trait, which a stand-in
//! implements.
//!
//! The driver offers a pause that writes the "heap" (a cell whose accesses the
//! checker tracks) and returns a value; a mutator looks for the offer at its GC
//! points, takes it and runs it, or stops running; the driver takes the pause back
//! and runs it itself once its deadline passes or no mutator may come. Checked, in
//! every interleaving:
//! 1. the pause runs exactly once;
//! 2. the driver returns only after it ran, with its result;
//! 3. what the pause wrote, on whichever thread, reaches the driver (a write
//!    without a happens-before edge to the driver's read fails the model);
//! 4. nothing waits for ever (a lost wake-up of the sleeping driver deadlocks the
//!    model, which fails it).
//!
//! Time: the clock advances 700 us at each reading (only the driver reads it): the
//! driver offers at 0, looks at the slot at 0.7 ms (before its 1 ms deadline) and
//! takes the pause back at 1.4 ms, so a mutator's take races with the look and
//! with the take-back; once a mutator has it, the driver polls until its reading
//! passes 2 ms and then sleeps on the condition variable, so the wake-up path is
//! explored too (the pause yields once, so the driver can get there while it
//! runs). A timed wait is modelled as one that times out at once (it returns
//! without a notification; the protocol looks at the slot again either way).

#![allow(dead_code)]

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::Arc;

/// The model checker's primitives behind the interface `pause_offer.rs` uses
/// (parking_lot's lock, guard and condition variable; std's atomics and clock).
mod sync {
    pub mod atomic {
        pub use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    }

    pub use loom::thread::yield_now;
    use std::time::Duration;

    /// A lock with parking_lot's interface.
    #[derive(Default)]
    pub struct Mutex<T>(loom::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard {
                lock: &self.0,
                guard: Some(self.0.lock().unwrap()),
            }
        }
    }

    /// A guard that can be given up for a moment (`MutexGuard::unlocked`) or waited
    /// on in place.
    pub struct MutexGuard<'a, T> {
        lock: &'a loom::sync::Mutex<T>,
        guard: Option<loom::sync::MutexGuard<'a, T>>,
    }

    impl<T> MutexGuard<'_, T> {
        /// As parking_lot's: unlocks, runs `f`, locks again.
        pub fn unlocked<U>(s: &mut Self, f: impl FnOnce() -> U) -> U {
            s.guard = None;
            let u = f();
            s.guard = Some(s.lock.lock().unwrap());
            u
        }
    }

    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.guard.as_ref().unwrap()
        }
    }

    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.guard.as_mut().unwrap()
        }
    }

    /// A condition variable with parking_lot's interface.
    #[derive(Default)]
    pub struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub fn wait<T>(&self, g: &mut MutexGuard<'_, T>) {
            let inner = g.guard.take().unwrap();
            g.guard = Some(self.0.wait(inner).unwrap());
        }

        /// A timed wait that times out at once (see the file's docs).
        pub fn wait_for<T>(&self, g: &mut MutexGuard<'_, T>, _: Duration) {
            MutexGuard::unlocked(g, yield_now);
        }

        pub fn notify_one(&self) -> bool {
            self.0.notify_one();
            true
        }
    }

    std::thread_local! {
        /// Readings of the CPU so far in this execution (reset with the clock).
        pub static CPU_READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The model's CPU: alternately 0 and 1 at each reading, so that the driver
    /// sees its taker on its own CPU (and sleeps) as well as on another (and
    /// polls) in every execution that reads it more than once.
    /// The model's threads are never real-time (the driver polls, as by default).
    pub fn realtime() -> bool {
        false
    }

    pub fn current_cpu() -> usize {
        CPU_READS.with(|c| c.replace(c.get() + 1)) as usize % 2
    }

    /// The model's clock: 700 us pass at each reading.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub struct Instant(u64);

    std::thread_local! {
        /// Microseconds read so far in this execution (reset by each one). The
        /// checker runs a model's threads, and its executions one after another,
        /// on the test's own OS thread: one clock per test.
        pub static CLOCK_US: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    impl Instant {
        pub fn now() -> Instant {
            Instant(CLOCK_US.with(|c| c.replace(c.get() + 700)))
        }
    }

    impl std::ops::Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant(self.0 + d.as_micros() as u64)
        }
    }

    impl std::ops::Sub for Instant {
        type Output = Duration;
        fn sub(self, o: Instant) -> Duration {
            Duration::from_micros(self.0.saturating_sub(o.0))
        }
    }
}

/// The coordinator id of the driver, as the library's.
mod safepoint {
    pub const DRIVER: u64 = 0;
}

#[path = "../src/collect/pause_offer.rs"]
mod pause_offer;

use pause_offer::{GcPoints, PauseOffer};

/// The heap as the offer sees it: how many mutators still run.
struct Mutators {
    running: AtomicUsize,
    requested: AtomicBool,
}

impl GcPoints for Mutators {
    fn offers_on(&self) -> bool {
        true
    }
    fn any_running(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }
    fn call_to_gc_points(&self) {
        self.requested.store(true, Ordering::Release);
    }
}

/// What the pause touches: a heap word (plain accesses, tracked by the checker)
/// and a count of runs.
struct World {
    word: UnsafeCell<u64>,
    runs: AtomicUsize,
}

// SAFETY: `word` is accessed by one thread at a time if the protocol is right;
// the checker reports the race otherwise (that is what the model checks).
unsafe impl Sync for World {}
// SAFETY: as above.
unsafe impl Send for World {}

/// Mutator `id`: looks for the offer at `polls` GC points (yielding between
/// them), as `Mutator::poll` does, runs it if it took it, then stops running (it
/// parks or ends). Whether it ran the pause.
fn mutator(offer: &PauseOffer, heap: &Mutators, polls: usize, id: u64) -> bool {
    let mut ran = false;
    for _ in 0..polls {
        if let Some(task) = offer.take() {
            task.run(id);
            offer.done();
            ran = true;
            break;
        }
        loom::thread::yield_now();
    }
    heap.running.fetch_sub(1, Ordering::SeqCst);
    ran
}

/// The driver offers a pause and checks what it gets back.
fn driver(offer: &PauseOffer, heap: &Mutators, world: &Arc<World>) -> u64 {
    let w = Arc::clone(world);
    let coordinator = offer.run(heap, move |me| {
        // SAFETY: the pause's exclusive access to the heap word (checked).
        w.word.with_mut(|p| unsafe { *p = 42 + me });
        w.runs.fetch_add(1, Ordering::Relaxed);
        // The pause takes a while: the other threads move on meanwhile (the
        // checker runs a thread that yields only once the others cannot).
        loom::thread::yield_now();
        me
    });
    // SAFETY: the driver's read after the offer returned (checked).
    let word = world.word.with(|p| unsafe { *p });
    assert_eq!(
        word,
        42 + coordinator,
        "the pause's write reaches the driver"
    );
    assert_eq!(
        world.runs.load(Ordering::Relaxed),
        1,
        "the pause ran exactly once"
    );
    coordinator
}

/// `mutators` mutators, each looking for the offer at `polls` GC points. Checks
/// that the exploration reached both outcomes (a mutator ran the pause; the
/// driver took it back).
fn model(mutators: u64, polls: usize) {
    use std::sync::atomic::{AtomicUsize as Count, Ordering::Relaxed};
    // Outside the model: counts across its executions (by a mutator, by the driver).
    let outcomes = std::sync::Arc::new([Count::new(0), Count::new(0)]);
    let seen = std::sync::Arc::clone(&outcomes);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(move || {
        sync::CLOCK_US.with(|c| c.set(0));
        sync::CPU_READS.with(|c| c.set(0));
        let offer = Arc::new(PauseOffer::default());
        let heap = Arc::new(Mutators {
            running: AtomicUsize::new(mutators as usize),
            requested: AtomicBool::new(false),
        });
        let world = Arc::new(World {
            word: UnsafeCell::new(0),
            runs: AtomicUsize::new(0),
        });
        let threads: Vec<_> = (1..=mutators)
            .map(|id| {
                let (offer, heap) = (Arc::clone(&offer), Arc::clone(&heap));
                loom::thread::spawn(move || mutator(&offer, &heap, polls, id))
            })
            .collect();
        let coordinator = driver(&offer, &heap, &world);
        for (id, t) in (1..=mutators).zip(threads) {
            let ran = t.join().unwrap();
            assert_eq!(
                ran,
                coordinator == id,
                "the coordinator is the thread that ran it"
            );
        }
        seen[usize::from(coordinator == safepoint::DRIVER)].fetch_add(1, Relaxed);
    });
    let (by_mutator, by_driver) = (outcomes[0].load(Relaxed), outcomes[1].load(Relaxed));
    eprintln!(
        "{} executions explored: the pause run by a mutator in {by_mutator}, by the driver in {by_driver}",
        by_mutator + by_driver
    );
    assert!(by_mutator > 0 && by_driver > 0, "both outcomes explored");
}

/// One mutator, at two GC points, races the driver's look and its take-back;
/// when it takes the pause late, the driver has stopped polling and sleeps, and the
/// mutator's `done` must wake it.
#[test]
fn an_offered_pause_runs_once_and_its_writes_reach_the_driver() {
    model(1, 2);
}

/// Two mutators race for the same offer (and the driver for its take-back).
#[test]
fn two_mutators_racing_for_an_offer_run_it_once() {
    model(2, 1);
}
