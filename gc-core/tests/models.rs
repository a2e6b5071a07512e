//! Concurrency models of two protocols, checked by exhaustive exploration of their
//! interleavings (and of the values weak memory orderings allow) with a model
//! checker. Each model compiles the collector's own source file, not a copy: the
//! file names its atomics and locks through `crate::sync`, which here is the model
//! checker's (below) and in the library `gc-core/src/sync.rs`.
//!
//! - **The page state machine** (`src/collect/page_state.rs`): background workers
//!   claim and install runs of pages; mutators touching a page either install it
//!   themselves (`SIGBUS` mode) or sleep in the kernel until a fault server installs
//!   it or wakes them (server mode); the end of the compaction waits for every page
//!   and then reuses from-space. Checked: each page installed exactly once; a
//!   touching mutator resumes and reads the page's right contents; no read of
//!   from-space by an installer races with the end's reuse of it.
//! - **The safepoint handshake** (`src/safepoint.rs`) with pending root work:
//!   mutators run, park at GC points, enter and leave blocking code, and resume; a
//!   coordinator stops the world, changes the heap, leaves each mutator a root
//!   forwarding, resumes the world and applies forwardings not yet applied. Checked:
//!   no mutator touches the heap while the world is stopped (a data race on the
//!   modelled heap otherwise), and no mutator touches the heap with roots not yet
//!   forwarded.
//!
//! The kernel's side is modelled: an install writes the page's contents and marks it
//! present with plain (relaxed) stores, so the page state's own release/acquire pair
//! must carry the contents to a waiting `SIGBUS` handler, which is stricter than the
//! kernel (whose page-table lock also orders them).

#![allow(dead_code)]

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use loom::sync::Arc;

/// The model checker's primitives behind the interface the protocol files use
/// (parking_lot's lock and condition variable, std's atomics).
mod sync {
    pub mod atomic {
        pub use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
    }

    pub use loom::thread::yield_now;
    /// CPUs, as the library's `sync::cpus` (the models' mutators are fewer).
    pub fn cpus() -> usize {
        2
    }
    /// The driver's hand-over after a pause: a yield in the model.
    pub fn hand_over_cpu() {
        loom::thread::yield_now();
    }

    /// One poll before the condition variable: the polling path is explored, and
    /// the state space stays small.
    pub const HANDSHAKE_POLLS: u32 = 1;

    /// A lock with parking_lot's interface.
    #[derive(Default)]
    pub struct Mutex<T>(loom::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub fn new(t: T) -> Mutex<T> {
            Mutex(loom::sync::Mutex::new(t))
        }

        pub fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap()))
        }
    }

    /// A guard a condition variable can wait on in place.
    pub struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().unwrap()
        }
    }

    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().unwrap()
        }
    }

    /// A condition variable with parking_lot's interface.
    #[derive(Default)]
    pub struct Condvar(loom::sync::Condvar);

    /// A timed wait's result: the model has no time, so waits never time out.
    pub struct WaitResult;

    impl WaitResult {
        pub fn timed_out(&self) -> bool {
            false
        }
    }

    impl Condvar {
        pub fn wait<T>(&self, g: &mut MutexGuard<'_, T>) {
            let inner = g.0.take().unwrap();
            g.0 = Some(self.0.wait(inner).unwrap());
        }

        pub fn wait_for<T>(&self, g: &mut MutexGuard<'_, T>, _: std::time::Duration) -> WaitResult {
            self.wait(g);
            WaitResult
        }

        pub fn notify_all(&self) -> bool {
            self.0.notify_all();
            true
        }
    }
}

/// The mutator's roots, as the safepoint protocol sees them: a pending forwarding
/// (the epoch of the heap it forwards to) and the roots (the epoch they point into).
mod roots {
    use loom::cell::UnsafeCell;

    pub struct MutatorShared {
        pending: crate::sync::Mutex<Option<u64>>,
        roots: UnsafeCell<u64>,
    }

    // SAFETY: as the library's: `roots` is touched by one party at a time per the
    // access protocol, which is what the model checks (a race is reported).
    unsafe impl Sync for MutatorShared {}
    // SAFETY: plain data.
    unsafe impl Send for MutatorShared {}

    impl MutatorShared {
        pub fn new() -> MutatorShared {
            MutatorShared {
                pending: crate::sync::Mutex::new(None),
                roots: UnsafeCell::new(0),
            }
        }

        /// A pause leaves a forwarding (world stopped).
        pub fn set_pending_forward(&self, epoch: u64) {
            *self.pending.lock() = Some(epoch);
        }

        /// As the library's: applies pending work under the lock.
        pub fn fix_pending(&self) {
            let mut p = self.pending.lock();
            if let Some(e) = p.take() {
                // SAFETY: the lock holder is the only party touching the roots
                // while work is pending (the library's argument).
                self.roots.with_mut(|r| unsafe { *r = e });
            }
        }

        /// The owning thread reads its roots (while `Running`).
        pub fn read_roots(&self) -> u64 {
            // SAFETY: owner thread while Running; the model checks the races.
            self.roots.with(|r| unsafe { *r })
        }
    }
}

/// Where `safepoint.rs` names `MutatorShared`: the library's
/// `collect/root_table.rs`, here the model above.
mod collect {
    pub mod root_table {
        pub use crate::roots::MutatorShared;
    }
}

#[path = "../src/collect/page_state.rs"]
mod page_state;

#[path = "../src/safepoint.rs"]
mod safepoint;

// ---------------------------------------------------------------------------
// The page state machine.

/// The pages' contents as the kernel holds them. An install writes them with plain
/// stores (see the module docs).
struct Kernel {
    data: Vec<UnsafeCell<u64>>,
    present: Vec<AtomicBool>,
    installs: Vec<AtomicUsize>,
    /// Server mode: sleeping touchers (page table lock + wake-ups) and the event
    /// queue the server reads.
    pte: sync::Mutex<Vec<u64>>,
    woken: sync::Condvar,
    events: sync::Mutex<(Vec<usize>, bool)>,
    event_cv: sync::Condvar,
    /// Installs completed (states stored and counted): what the spin-waits wait
    /// for. The model waits on it instead of spinning (see [`Compaction::spin`]).
    installed: sync::Mutex<u64>,
    installed_cv: sync::Condvar,
}

/// One compaction of `pages` pages.
struct Compaction {
    states: Vec<AtomicU8>,
    filled: AtomicUsize,
    from_space: Vec<UnsafeCell<u64>>,
    kernel: Kernel,
}

fn contents(p: usize) -> u64 {
    100 + p as u64
}

impl Compaction {
    fn new(pages: usize) -> Compaction {
        Compaction {
            states: (0..pages)
                .map(|_| AtomicU8::new(page_state::UNFILLED))
                .collect(),
            filled: AtomicUsize::new(0),
            from_space: (0..pages).map(|p| UnsafeCell::new(contents(p))).collect(),
            kernel: Kernel {
                data: (0..pages).map(|_| UnsafeCell::new(0)).collect(),
                present: (0..pages).map(|_| AtomicBool::new(false)).collect(),
                installs: (0..pages).map(|_| AtomicUsize::new(0)).collect(),
                pte: sync::Mutex::new(vec![0; pages]),
                woken: sync::Condvar::default(),
                events: sync::Mutex::new((Vec::new(), false)),
                event_cv: sync::Condvar::default(),
                installed: sync::Mutex::new(0),
                installed_cv: sync::Condvar::default(),
            },
        }
    }

    /// `UFFDIO_COPY` of produced pages `[first, end)`: produced from from-space,
    /// written, made present, and sleeping touchers woken.
    fn install(&self, first: usize, end: usize) {
        page_state::install(&self.states, &self.filled, first, end, || {
            for p in first..end {
                // SAFETY: from-space is read-only until every page is filled (the
                // model checks the end's write against this read).
                let v = self.from_space[p].with(|s| unsafe { *s });
                assert_eq!(
                    self.kernel.installs[p].fetch_add(1, Ordering::Relaxed),
                    0,
                    "page {p} installed twice"
                );
                // SAFETY: the claimant is the only writer (checked just above).
                self.kernel.data[p].with_mut(|d| unsafe { *d = v });
                // The kernel orders the contents before the page table entry (a
                // write barrier before setting it): release.
                self.kernel.present[p].store(true, Ordering::Release);
            }
            let mut pte = self.kernel.pte.lock();
            for w in &mut pte[first..end] {
                *w += 1;
            }
            self.kernel.woken.notify_all();
        });
        *self.kernel.installed.lock() += 1;
        self.kernel.installed_cv.notify_all();
    }

    /// The number of installs completed so far.
    fn installs_so_far(&self) -> u64 {
        *self.kernel.installed.lock()
    }

    /// One turn of a spin-wait that began when `seen` installs had completed: the
    /// library spins (yields, sleeps), which a model checker would explore turn by
    /// turn without end; the model instead blocks until another install completes,
    /// which is when the spinning condition can change. Reading `seen` before the
    /// condition's first look, under the lock the installers take after their
    /// stores, makes this miss no wake-up.
    fn spin(&self, seen: &mut u64) {
        let mut n = self.kernel.installed.lock();
        while *n == *seen {
            self.kernel.installed_cv.wait(&mut n);
        }
        *seen = *n;
    }

    /// A background worker's run: claims what it can and installs each claimed
    /// stretch with one copy (`compaction.rs`'s `work`).
    fn work(&self, start: usize, end: usize) {
        let mut p = start;
        while p < end {
            if !page_state::claim(&self.states, p) {
                p += 1;
                continue;
            }
            let first = p;
            p += 1;
            while p < end && page_state::claim(&self.states, p) {
                p += 1;
            }
            self.install(first, p);
        }
    }

    /// A mutator's read of page `p` after its fault was served: the page is
    /// present, with its contents.
    fn read_installed(&self, p: usize) -> u64 {
        assert!(
            self.kernel.present[p].load(Ordering::Relaxed),
            "page {p}: the access retried before the page was present"
        );
        // SAFETY: installed once, never written again.
        self.kernel.data[p].with(|d| unsafe { *d })
    }

    /// `SIGBUS` mode: the touching thread's handler (`serve_in_handler`).
    fn touch_sigbus(&self, p: usize) -> u64 {
        if !self.kernel.present[p].load(Ordering::Acquire) {
            if page_state::claim(&self.states, p) {
                self.install(p, p + 1);
            } else {
                let mut seen = self.installs_so_far();
                page_state::wait_filled(&self.states, p, |_| self.spin(&mut seen));
            }
        }
        self.read_installed(p)
    }

    /// Server mode: the touching thread sleeps in the kernel until woken, and
    /// retries. The kernel checks the page table under its lock before sleeping.
    fn touch_server(&self, p: usize) -> u64 {
        loop {
            let mut pte = self.kernel.pte.lock();
            // The page walk (acquire: the kernel's barrier before the entry).
            if self.kernel.present[p].load(Ordering::Acquire) {
                drop(pte);
                return self.read_installed(p);
            }
            {
                let mut ev = self.kernel.events.lock();
                ev.0.push(p);
                self.kernel.event_cv.notify_all();
            }
            let seen = pte[p];
            while pte[p] == seen {
                self.kernel.woken.wait(&mut pte);
            }
        }
    }

    /// `UFFDIO_WAKE` of page `p`.
    fn wake(&self, p: usize) {
        let mut pte = self.kernel.pte.lock();
        pte[p] += 1;
        self.kernel.woken.notify_all();
    }

    /// The fault server (`compaction.rs`'s `serve`): reads events until told to
    /// stop.
    fn serve(&self) {
        loop {
            let p = {
                let mut ev = self.kernel.events.lock();
                loop {
                    if let Some(p) = ev.0.pop() {
                        break p;
                    }
                    if ev.1 {
                        return;
                    }
                    self.kernel.event_cv.wait(&mut ev);
                }
            };
            match page_state::on_fault_event(&self.states, p) {
                page_state::OnFault::Install => self.install(p, p + 1),
                page_state::OnFault::Installing => {}
                page_state::OnFault::Wake => self.wake(p),
            }
        }
    }

    fn stop_server(&self) {
        let mut ev = self.kernel.events.lock();
        ev.1 = true;
        self.kernel.event_cv.notify_all();
    }

    /// The end of the compaction, first part (`run`, then `recycle`): waits until
    /// every page is filled, then reuses from-space (the fault server, if any, may
    /// still be answering faults).
    fn end(&self) {
        let pages = self.states.len();
        let mut seen = self.installs_so_far();
        while !page_state::all_filled(&self.filled, pages) {
            self.spin(&mut seen);
        }
        for f in &self.from_space {
            // SAFETY: every installer's read happened before (the model checks it).
            f.with_mut(|s| unsafe { *s = 0 });
        }
    }

    /// The end's last part (`finish`), after the server stopped and every handler
    /// returned: the states are reset for the next compaction.
    fn finish(&self) {
        page_state::reset(&self.states);
    }
}

fn bound(name: &str, d: usize) -> usize {
    std::env::var(format!("BOUND_{name}"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

/// Explores `f`'s executions; returns how many there were.
fn checked(bound: usize, f: impl Fn() + Sync + Send + 'static) -> usize {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(bound);
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&runs);
    b.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    let n = runs.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{n} executions explored");
    n
}

/// `SIGBUS` mode: a worker installs pages 0 and 1 in one run while two mutators
/// touch them; the worker's thread then ends the compaction.
#[test]
fn page_states_sigbus_mode() {
    checked(bound("SIGBUS", 4), || {
        let c = Arc::new(Compaction::new(2));
        let touchers: Vec<_> = [1usize, 0]
            .into_iter()
            .map(|p| {
                let c = Arc::clone(&c);
                loom::thread::spawn(move || assert_eq!(c.touch_sigbus(p), contents(p)))
            })
            .collect();
        c.work(0, 2);
        c.end();
        for t in touchers {
            t.join().unwrap();
        }
        c.finish();
        for p in 0..2 {
            assert_eq!(c.kernel.installs[p].load(Ordering::Relaxed), 1);
        }
    });
}

/// Two mutators fault on the same page in `SIGBUS` mode with no worker: one
/// installs, the other waits for it.
#[test]
fn page_states_sigbus_same_page() {
    checked(bound("SAME", 10), || {
        let c = Arc::new(Compaction::new(1));
        let other = {
            let c = Arc::clone(&c);
            loom::thread::spawn(move || assert_eq!(c.touch_sigbus(0), contents(0)))
        };
        assert_eq!(c.touch_sigbus(0), contents(0));
        c.end();
        other.join().unwrap();
        c.finish();
        assert_eq!(c.kernel.installs[0].load(Ordering::Relaxed), 1);
    });
}

/// Server mode: a mutator sleeps on page 1 while a worker installs both pages and
/// the server answers its fault event (installing, or finding it installing or
/// installed).
#[test]
fn page_states_server_mode() {
    checked(bound("SERVER", 4), || {
        let c = Arc::new(Compaction::new(2));
        let toucher = {
            let c = Arc::clone(&c);
            loom::thread::spawn(move || assert_eq!(c.touch_server(1), contents(1)))
        };
        let server = {
            let c = Arc::clone(&c);
            loom::thread::spawn(move || c.serve())
        };
        c.work(0, 2);
        toucher.join().unwrap();
        c.end();
        c.stop_server();
        server.join().unwrap();
        c.finish();
        assert_eq!(c.kernel.installs[1].load(Ordering::Relaxed), 1);
    });
}

// ---------------------------------------------------------------------------
// The safepoint handshake.

/// The heap as the model sees it: the number of collections so far. Mutators read
/// it (while running); the coordinator writes it (world stopped).
struct World {
    sp: safepoint::Safepoints,
    heap: UnsafeCell<u64>,
}

impl World {
    /// A mutator's heap access: its roots must point into the current heap.
    fn touch(&self, m: &roots::MutatorShared) {
        // SAFETY: the model checks this read against the coordinator's write.
        let epoch = self.heap.with(|h| unsafe { *h });
        assert_eq!(
            m.read_roots(),
            epoch,
            "a mutator used roots not yet forwarded"
        );
    }

    /// One collection: stop, change the heap, leave root work, resume, then apply
    /// the root work not yet applied (as the coordinator after a flip pause).
    fn collect(&self, me: u64) {
        if let Some(stopped) = self.sp.stop_the_world(me) {
            // SAFETY: the world is stopped (the model checks it).
            let epoch = self.heap.with_mut(|h| unsafe {
                *h += 1;
                *h
            });
            for m in &stopped.mutators {
                m.set_pending_forward(epoch);
            }
            let mutators = stopped.mutators.clone();
            drop(stopped);
            for m in &mutators {
                m.fix_pending();
            }
        }
    }
}

/// A mutator parks at a GC point, then spends a while in blocking code, while
/// the GC driver collects once.
#[test]
fn safepoint_park_and_blocking() {
    checked(bound("PARK", 6), || {
        let w = Arc::new(World {
            sp: safepoint::Safepoints::default(),
            heap: UnsafeCell::new(0),
        });
        let shared = std::sync::Arc::new(roots::MutatorShared::new());
        let id = w.sp.register(std::sync::Arc::clone(&shared));
        let mutator = {
            let w = Arc::clone(&w);
            loom::thread::spawn(move || {
                w.touch(&shared);
                w.sp.park_if_requested(id);
                w.touch(&shared);
                w.sp.enter_blocking(id);
                w.sp.leave_blocking(id);
                w.touch(&shared);
                w.sp.deregister(id);
            })
        };
        w.collect(safepoint::DRIVER);
        mutator.join().unwrap();
    });
}

/// Two mutators both try to collect: one coordinates, the other parks in its own
/// stop request and resumes with its roots forwarded.
#[test]
fn safepoint_two_coordinators() {
    checked(bound("TWO", 6), || {
        let w = Arc::new(World {
            sp: safepoint::Safepoints::default(),
            heap: UnsafeCell::new(0),
        });
        // Both registered before either runs (a mutator registered later has no
        // roots to forward).
        let registered: Vec<_> = (0..2)
            .map(|_| {
                let shared = std::sync::Arc::new(roots::MutatorShared::new());
                let id = w.sp.register(std::sync::Arc::clone(&shared));
                (shared, id)
            })
            .collect();
        let threads: Vec<_> = registered
            .into_iter()
            .map(|(shared, id)| {
                let w = Arc::clone(&w);
                loom::thread::spawn(move || {
                    w.touch(&shared);
                    w.collect(id);
                    w.touch(&shared);
                    w.sp.deregister(id);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // SAFETY: every thread has ended.
        assert!((1..=2).contains(&w.heap.with(|h| unsafe { *h })));
    });
}
