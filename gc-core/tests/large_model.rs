//! A concurrency model of the lazy forwarding of large objects' reference fields
//! (`src/collect/large.rs`), checked by exhaustive exploration of its
//! interleavings (and of the values weak memory orderings allow) with a model
//! checker. The model compiles the collector's own side table,
//! `src/space/los_marks.rs`, not a copy: the file names its atomics through
//! `crate::sync`, which here is the model checker's (below). The two small loops
//! that drive it, `large.rs`'s `forward_one` and `wait_forwarded`, and the
//! mutator's check before an access (`Mutator::accessible`), are re-implemented
//! here, a few lines each (they reach the heap's forwarder, which the model has
//! no use for); the only change is that the wait yields at every turn.
//!
//! One large object, with one reference field, at the start of the second page
//! of the space. As the flip pause would, before the threads start, the object
//! is allocated (`UNMARKED`, as `Los::alloc` stores it), its field holds the old
//! address (1), and it is marked `PENDING` (as the flip pause's `Los::sweep` does).
//! Forwarding adds 1 to the field (every address moved by one: 1 becomes 2, and
//! a second forwarding of the same field would show as a 3 or a 4). The field is
//! a cell whose plain accesses the checker tracks: a read or a write of it that
//! is not ordered after the forwarding's write (or the forwarding's write after
//! another thread's access) fails the model. Threads:
//! - a *mutator* looks at the object's state before it accesses it; if it awaits
//!   forwarding, it forwards it or waits for the thread that does; then it reads
//!   the field;
//! - a *writing mutator* does the same, then stores a new address (3) into the
//!   field, as a mutator may once the field is current;
//! - the *compaction* forwards every object still pending as it starts
//!   (`forward_pending`: a scan of the table, then a claim of each).
//!
//! Checked, in every interleaving: every read by a mutator finds the new address
//! (2); the field was forwarded exactly once (claims that returned `Mine`); with
//! a writing mutator, the field ends with its store (3: not forwarded again after
//! it); and the checker finds no access unordered with the forwarding's write.
//! Each model also checks that it reached each path of a mutator (forwarding,
//! waiting, finding the object current).
//!
//! The two-thread models (two mutators; the compaction and a writing mutator)
//! are explored without bounds. The three-thread models (three mutators; the
//! compaction and two mutators) are explored with at most 3 preemptions
//! (`BOUND` raises it) and with waits cut after two turns ([`SPIN_LIMIT`]).

#![allow(dead_code)]

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use std::collections::BTreeMap;

/// The model checker's atomics behind the interface `los_marks.rs` uses (std's).
mod sync {
    pub mod atomic {
        pub use loom::sync::atomic::{AtomicU8, Ordering};
    }
}

#[path = "../src/space/los_marks.rs"]
mod los_marks;

use los_marks::{Claim, LosMarks, PENDING, UNMARKED};

/// The page size of the modelled space.
const PAGE: usize = 4096;
/// The start of the modelled space (two pages).
const BASE: usize = 0x10_0000;
/// The large object: the start of the space's second page.
const ADDR: usize = BASE + PAGE;
/// The field's address before the flip.
const OLD: u64 = 1;
/// The field's address after forwarding.
const NEW: u64 = 2;
/// What the writing mutator stores into the field.
const STORED: u64 = 3;

/// The large object's one reference field, and a count of its forwardings.
struct Object {
    field: UnsafeCell<u64>,
    forwardings: AtomicUsize,
}

// SAFETY: `field` is accessed as the protocol allows; if the protocol is wrong,
// the checker reports the unordered accesses (that is what the model checks).
unsafe impl Sync for Object {}
// SAFETY: as above.
unsafe impl Send for Object {}

impl Object {
    /// The compaction's `ForwardFields::forward_fields`: rewrites the field to
    /// the new address. The caller holds the claim.
    fn forward_fields(&self) {
        // SAFETY: the claimant's exclusive access to the field (checked).
        self.field.with_mut(|p| unsafe { *p += NEW - OLD });
        self.forwardings.fetch_add(1, Ordering::Relaxed);
    }

    /// A mutator's read of the field (after its check).
    fn read(&self) -> u64 {
        // SAFETY: a read ordered after the forwarding (checked).
        self.field.with(|p| unsafe { *p })
    }

    /// A mutator's store into the field (after its check).
    fn write(&self, v: u64) {
        // SAFETY: a write ordered after the forwarding (checked).
        self.field.with_mut(|p| unsafe { *p = v });
    }
}

/// What a thread's touch of the object did.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Path {
    /// It claimed the object and forwarded its field.
    Forwarded,
    /// It found another thread forwarding it, and waited.
    Waited,
    /// It found it forwarded already (its claim returned `Done`, or the
    /// compaction's scan did not list it).
    Done,
    /// A mutator's check found it not awaiting forwarding: no claim.
    Current,
}

/// `large.rs`'s `forward_one`: forwards the object at `addr` if it is pending,
/// or waits for the claim in progress.
fn forward_one(marks: &LosMarks, obj: &Object, addr: usize, limit: Option<u32>) -> Path {
    match marks.claim_forwarding(addr) {
        Claim::Mine => {
            obj.forward_fields();
            marks.forwarded(addr);
            Path::Forwarded
        }
        Claim::Busy => {
            wait_forwarded(marks, addr, limit);
            Path::Waited
        }
        Claim::Done => Path::Done,
    }
}

/// `large.rs`'s `wait_forwarded`, yielding at every turn (the checker runs a
/// yielding thread only when no other can run). After `limit` turns still
/// waiting, the checker stops branching in this execution (see
/// [`SPIN_LIMIT`]); it runs on to its end on one schedule, checked as any.
fn wait_forwarded(marks: &LosMarks, addr: usize, limit: Option<u32>) {
    let mut turns = 0;
    while marks.awaits_forwarding(addr) {
        assert!(
            !marks.is_pending(addr),
            "large object {addr:#x} pending with no forwarder (invariant 3)"
        );
        turns += 1;
        if Some(turns) == limit {
            CUTS.with(|c| c.set(c.get() + 1));
            loom::skip_branch();
        }
        loom::thread::yield_now();
    }
}

/// The three-thread models' limit on a waiting thread's turns. loom 0.7 can
/// alternate for ever between two threads that both spin, yielding, on a third
/// (tokio-rs/loom#53; the model then fails with "Model exceeded maximum number of
/// branches", with a preemption bound of 3 too), so there a waiter that has
/// looked at the state this many times and still finds the object being
/// forwarded stops the exploration of that execution: the rest of it runs on
/// one schedule (the checker's default, which lets the forwarding thread run
/// on) and is checked as any, but its other interleavings from that point are
/// not explored. The two-thread models have no limit.
const SPIN_LIMIT: u32 = 2;

std::thread_local! {
    /// Executions whose exploration a waiter stopped ([`SPIN_LIMIT`]). The
    /// checker runs a model's threads, and its executions, on the test's own OS
    /// thread: one count per test.
    static CUTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What a thread of the model does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Makes the object accessible (`Mutator::accessible`), then reads the field.
    Mutator,
    /// As a mutator, then stores [`STORED`] into the field.
    Writer,
    /// Forwards every object still pending (`large.rs`'s `forward_pending`).
    Compaction,
}

/// Runs `role` on the object; what its touch did.
fn run(role: Role, marks: &LosMarks, obj: &Object, limit: Option<u32>) -> Path {
    if role == Role::Compaction {
        let mut path = Path::Done;
        for addr in marks.pending() {
            assert_eq!(addr, ADDR, "only the object is pending");
            path = forward_one(marks, obj, addr, limit);
        }
        return path;
    }
    let path = if marks.awaits_forwarding(ADDR) {
        forward_one(marks, obj, ADDR, limit)
    } else {
        Path::Current
    };
    assert_eq!(
        obj.read(),
        NEW,
        "a mutator reads the forwarded address ({path:?})"
    );
    if role == Role::Writer {
        obj.write(STORED);
    }
    path
}

/// What each thread did (by role, in order), and in how many executions.
type Outcomes = BTreeMap<Vec<Path>, usize>;

/// Explores every execution of `roles`, one thread each, on the pending object,
/// with at most `preemptions` preemptions (`None`: any number) and waits of at
/// most `limit` turns ([`SPIN_LIMIT`]). Returns how many executions ended with
/// each combination of the threads' paths.
fn model(roles: &'static [Role], preemptions: Option<usize>, limit: Option<u32>) -> Outcomes {
    // Outside the model: counts across its executions.
    let outcomes = std::sync::Arc::new(std::sync::Mutex::new(Outcomes::new()));
    let seen = std::sync::Arc::clone(&outcomes);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    CUTS.with(|c| c.set(0));
    builder.check(move || {
        let marks = Arc::new(LosMarks::new(BASE, 2 * PAGE, PAGE));
        let obj = Arc::new(Object {
            field: UnsafeCell::new(OLD),
            forwardings: AtomicUsize::new(0),
        });
        // The allocation, then the flip pause; the spawns publish both.
        let state = marks.state(ADDR).expect("a page start");
        state.store(UNMARKED, Ordering::Release);
        state.store(PENDING, Ordering::Relaxed);
        assert!(marks.is_pending(ADDR));
        let threads: Vec<_> = roles
            .iter()
            .map(|&role| {
                let (marks, obj) = (Arc::clone(&marks), Arc::clone(&obj));
                loom::thread::spawn(move || run(role, &marks, &obj, limit))
            })
            .collect();
        let done: Vec<Path> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(
            obj.forwardings.load(Ordering::Relaxed),
            1,
            "forwarded exactly once ({done:?})"
        );
        assert_eq!(
            done.iter().filter(|p| **p == Path::Forwarded).count(),
            1,
            "exactly one claim was Mine ({done:?})"
        );
        assert!(!marks.awaits_forwarding(ADDR), "left forwarded");
        let last = if roles.contains(&Role::Writer) {
            STORED
        } else {
            NEW
        };
        assert_eq!(
            obj.read(),
            last,
            "the field ends as the mutators left it ({done:?})"
        );
        *seen.lock().unwrap().entry(done).or_default() += 1;
    });
    let outcomes = outcomes.lock().unwrap().clone();
    let n: usize = outcomes.values().sum();
    let mut by_thread = vec![[0usize; 4]; roles.len()];
    for (paths, k) in &outcomes {
        for (i, p) in paths.iter().enumerate() {
            by_thread[i][*p as usize] += k;
        }
    }
    let cuts = CUTS.with(|c| c.get());
    eprintln!(
        "{n} executions explored of {roles:?} ({cuts} cut by a wait's limit); \
         paths taken (forwarded, waited, done, current) by each thread: {by_thread:?}"
    );
    outcomes
}

/// Whether some execution ended with thread `i` having taken path `p`.
fn reached(outcomes: &Outcomes, i: usize, p: Path) -> bool {
    outcomes.keys().any(|paths| paths[i] == p)
}

/// The preemption bound of the three-thread models: `BOUND` if set, else 3.
/// Unbounded, three mutators ran for over 20 minutes without finishing; bound 3
/// explores 43,041 executions in 3 s, 4 285,627 in 18 s, 5 1,569,895 in 100 s.
fn bound() -> Option<usize> {
    Some(std::env::var("BOUND").map_or(3, |b| b.parse().expect("BOUND: a number")))
}

/// Checks that the exploration of `roles` reached each path of a mutator:
/// forwarding the object, waiting for another thread's forwarding, finding it
/// current.
fn assert_explored(outcomes: &Outcomes, roles: &[Role]) {
    for p in [Path::Forwarded, Path::Waited, Path::Current] {
        assert!(
            (0..roles.len()).any(|i| roles[i] != Role::Compaction && reached(outcomes, i, p)),
            "no mutator took the path {p:?}"
        );
    }
}

/// Two mutators touch the object: either may forward it while the other waits,
/// or find it forwarded.
#[test]
fn two_mutators_forward_once_and_read_the_new_address() {
    const ROLES: &[Role] = &[Role::Mutator, Role::Mutator];
    assert_explored(&model(ROLES, None, None), ROLES);
}

/// Three mutators.
#[test]
fn three_mutators_forward_once_and_read_the_new_address() {
    const ROLES: &[Role] = &[Role::Mutator, Role::Mutator, Role::Mutator];
    assert_explored(&model(ROLES, bound(), Some(SPIN_LIMIT)), ROLES);
}

/// Two mutators and the compaction's pass over the pending objects.
#[test]
fn two_mutators_and_the_compaction_forward_once() {
    const ROLES: &[Role] = &[Role::Compaction, Role::Mutator, Role::Mutator];
    let outcomes = model(ROLES, bound(), Some(SPIN_LIMIT));
    assert_explored(&outcomes, ROLES);
    assert!(
        (0..3).all(|i| reached(&outcomes, i, Path::Forwarded)),
        "each thread forwarded it in some execution"
    );
}

/// A mutator stores a new address into the field once it is current, while the
/// compaction's pass runs: the store is never forwarded again.
#[test]
fn a_store_after_forwarding_is_not_forwarded_again() {
    const ROLES: &[Role] = &[Role::Compaction, Role::Writer];
    let outcomes = model(ROLES, None, None);
    assert_explored(&outcomes, ROLES);
    assert!(
        outcomes.contains_key(&vec![Path::Done, Path::Forwarded]),
        "the compaction claimed it after the writing mutator forwarded it"
    );
}
