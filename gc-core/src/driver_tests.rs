//! Unit tests of the GC driver (`collect/driver.rs`) that need a whole heap: they
//! build a [`Heap`] (mutator API layer), so they live up here rather than in the
//! collector's file (docs/architecture.md, "Layers").

use crate::pacer::Reason;
use crate::{Heap, HeapConfig, TypeRegistry};
use std::sync::Arc;

/// The pacer's lock-free hint follows the counters: set by a request, cleared
/// once that cycle has flipped (and never waits for the driver's lock).
#[test]
fn awaiting_flip_follows_requests_and_flips_without_the_lock() {
    let heap = Heap::new(HeapConfig::new(8 << 20), TypeRegistry::new()).unwrap();
    let inner = &heap.inner;
    assert!(!inner.driver.awaiting_flip(), "nothing requested yet");
    let mut attempts = 0;
    let n = loop {
        attempts += 1;
        assert!(attempts <= 100, "every cycle flipped before the look");
        // Hold the driver's lock across the look, made on another thread: the
        // hint must answer without the lock (a version that took it would time
        // out here rather than hang).
        let n = inner.driver.request(inner, Reason::Explicit);
        let held = inner.driver.state.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        let looker = Arc::clone(inner);
        std::thread::spawn(move || tx.send(looker.driver.awaiting_flip()));
        let seen = rx.recv_timeout(std::time::Duration::from_secs(5));
        if seen == Ok(false) && held.flipped >= n {
            // The cycle (an empty heap's) flipped before the lock was taken:
            // the hint was right to say no. Again, with the next cycle.
            drop(held);
            inner.driver.wait_idle();
            continue;
        }
        assert_eq!(seen, Ok(true), "cycle {n} is requested; answered lock-free");
        break n;
    };
    inner.driver.wait_flipped(n);
    assert!(!inner.driver.awaiting_flip(), "cycle {n} has flipped");
    inner.driver.wait_idle();
}

/// A cycle claimed by a mutator (the pacer's start, `Mutator::start_cycle`):
/// one claim at a time; a request made meanwhile is served by that cycle; the
/// driver does not start it (its mark-start pause is the mutator's) until the
/// hand-over, then runs the rest of it once.
#[test]
fn a_claimed_cycle_waits_for_its_mutator_and_runs_once() {
    let heap = Heap::new(HeapConfig::new(8 << 20), TypeRegistry::new()).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let inner = Arc::clone(&heap.inner);
    let n = inner
        .driver
        .claim(&inner, Reason::Pacer)
        .expect("nothing under way");
    assert_eq!(
        inner.driver.claim(&inner, Reason::Pacer),
        None,
        "one claim at a time"
    );
    assert_eq!(
        inner.driver.request(&inner, Reason::Explicit),
        n,
        "a request before the claimed cycle's snapshot is served by it"
    );
    std::thread::sleep(std::time::Duration::from_millis(100));
    let kinds = |inner: &crate::collect::heap_inner::HeapInner| -> Vec<&'static str> {
        inner.log.lock().records().iter().map(|r| r.kind).collect()
    };
    assert_eq!(
        kinds(&inner),
        Vec::<&str>::new(),
        "the driver left the claimed cycle alone"
    );
    m.mark_start_claimed(&inner, n);
    assert_eq!(
        inner.driver.request(&inner, Reason::Explicit),
        n + 1,
        "a request after the snapshot asks for the next cycle"
    );
    let waiter = Arc::clone(&inner);
    m.blocking(move || waiter.driver.wait_idle());
    let ks = kinds(&inner);
    let count = |k: &str| ks.iter().filter(|x| **x == k).count();
    assert_eq!((count("mark-start"), count("flip")), (2, 2), "{ks:?}");
    let log = inner.log.lock();
    let reasons: Vec<_> = log.cycles().iter().map(|c| (c.n, c.reason)).collect();
    assert_eq!(reasons, [(n, "pacer"), (n + 1, "explicit")]);
    assert_eq!(
        log.records()[0].cycle,
        n,
        "the mutator's pause is the cycle's"
    );
}

/// Explicit and heap-full requests make their cycle full, also when they join
/// a cycle claimed for the pacer (`sticky.rs`, invariant 4); a request after
/// that cycle's snapshot makes the next one full too.
#[test]
fn explicit_and_heap_full_requests_want_full_cycles() {
    let heap = Heap::new(HeapConfig::new(8 << 20), TypeRegistry::new()).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let inner = Arc::clone(&heap.inner);
    let n = inner.driver.claim(&inner, Reason::Pacer).unwrap();
    assert!(
        !inner.driver.full_wanted(n),
        "the pacer's cycle may be young"
    );
    assert_eq!(inner.driver.request(&inner, Reason::AfterBytes), n);
    assert!(!inner.driver.full_wanted(n), "so may an after-bytes one");
    assert_eq!(inner.driver.request(&inner, Reason::HeapFull), n);
    assert!(inner.driver.full_wanted(n), "a full heap joined it");
    m.mark_start_claimed(&inner, n);
    assert!(!inner.driver.full_wanted(n + 1));
    assert_eq!(inner.driver.request(&inner, Reason::Explicit), n + 1);
    assert!(inner.driver.full_wanted(n + 1), "an explicit request");
    let waiter = Arc::clone(&inner);
    m.blocking(move || waiter.driver.wait_idle());
}
