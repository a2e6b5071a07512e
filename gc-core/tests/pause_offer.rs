//! The mark-end and flip pauses offered to the mutators (`collect/pause_offer.rs`):
//! a mutator at a GC point runs them on its own thread, and the collection comes
//! out the same; when no mutator comes (none running, or none reaching a GC point
//! within the offer's wait), the driver runs them, and nothing hangs.

use flipgc_core::{CycleHook, CyclePoint, FixedType, Heap, HeapConfig, Mutator, RefField};
use flipgc_core::{TypeRegistry, WordField};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/timeout.rs"]
mod timeout;
use timeout::with_timeout;

struct Types {
    node: FixedType,
    next: RefField,
    id: WordField,
}

fn heap(capacity: usize, f: impl FnOnce(&mut HeapConfig)) -> (Heap, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let t = Types {
        node: r.fixed_type(node).unwrap(),
        next: r.ref_field(node, 0).unwrap(),
        id: r.word_field(node, 2).unwrap(),
    };
    let mut cfg = HeapConfig::new(capacity);
    cfg.verify_after_gc = true;
    f(&mut cfg);
    (Heap::new(cfg, r).unwrap(), t)
}

/// Allocates `garbage` nodes, keeping every 10th on a list at root-stack slot 0
/// (its ids counting up from the list's length), then checks the whole list.
fn churn(m: &mut Mutator, t: &Types, garbage: u64) {
    let mut n = list_len(m, t);
    for i in 0..garbage {
        m.push_fixed(t.node).unwrap();
        let o = m.pop().unwrap();
        if i % 10 == 0 {
            m.set_word(o, t.id, n);
            m.set_ref(o, t.next, m.stack_get(0));
            m.stack_set(0, Some(o));
            n += 1;
        }
    }
    assert_eq!(list_len(m, t), n);
}

/// The list's length, checking that its ids count down to 0.
fn list_len(m: &Mutator, t: &Types) -> u64 {
    let mut o = m.stack_get(0);
    let Some(head) = o else { return 0 };
    let n = m.get_word(head, t.id) + 1;
    let mut want = n;
    while let Some(x) = o {
        want -= 1;
        assert_eq!(m.get_word(x, t.id), want, "the list lost or garbled a node");
        o = m.get_ref(x, t.next);
    }
    assert_eq!(want, 0, "the list lost its tail");
    n
}

/// Pauses of `kind` in the log, and how many of them a mutator ran.
fn pauses(heap: &Heap, kind: &str) -> (usize, usize) {
    let log = heap.pause_log();
    let all: Vec<_> = log.records().iter().filter(|r| r.kind == kind).collect();
    let by_mutator = all.iter().filter(|r| r.by_mutator).count();
    (all.len(), by_mutator)
}

fn flips(heap: &Heap) -> (usize, usize) {
    pauses(heap, "flip")
}

/// One mutator allocating flat out takes the mark-end and flip pauses of the cycles
/// its pacer starts, on every flip path, and its list survives every cycle (checked
/// against its ids, by the sanity re-trace in each mark-end pause, and by the
/// verifier after each cycle). With the offer turned off, the driver runs them all.
#[test]
fn a_mutator_runs_the_pauses_offered_to_it() {
    for flip in [
        flipgc_core::FlipMode::Auto,
        flipgc_core::FlipMode::Level(flipgc_heap::Level::Pte),
        flipgc_core::FlipMode::Copy,
    ] {
        for offered in [true, false] {
            let (heap, t) = heap(16 << 20, |c| {
                c.flip = flip;
                c.pauses_by_mutator = offered;
            });
            let mut m = heap.bind_mutator().unwrap();
            m.push(None);
            churn(&mut m, &t, 3_000_000);
            m.blocking(|| heap.wait_idle());
            churn(&mut m, &t, 10);
            m.verify().unwrap();
            for kind in ["mark-end", "flip"] {
                let (all, by_mutator) = pauses(&heap, kind);
                eprintln!(
                    "{flip:?} offered={offered}: {by_mutator} of {all} {kind} by the mutator"
                );
                assert!(all >= 3, "{flip:?}: the pacer ran cycles ({all} {kind})");
                if offered {
                    assert!(
                        by_mutator * 2 >= all,
                        "{flip:?}: the mutator ran most {kind} pauses ({by_mutator} of {all})"
                    );
                } else {
                    assert_eq!(by_mutator, 0, "{flip:?}: the driver ran every {kind} pause");
                }
            }
        }
    }
}

/// A mutator waiting for its explicit collection is in `blocking`: nobody can take
/// the offer, and the driver runs the flip itself at once.
#[test]
fn the_driver_runs_the_flip_when_no_mutator_runs() {
    let (heap, t) = heap(16 << 20, |_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.push(None);
    churn(&mut m, &t, 1_000);
    let before = flips(&heap);
    let since = Instant::now();
    m.collect();
    let (all, by_mutator) = flips(&heap);
    assert_eq!(all, before.0 + 1, "one more flip");
    assert_eq!(by_mutator, before.1, "the driver ran it");
    assert!(
        since.elapsed() < Duration::from_secs(5),
        "the collection did not wait for an offer nobody could take"
    );
    churn(&mut m, &t, 10);
}

/// A second mutator that computes without GC points while the flip is offered: the
/// offer times out and the driver runs the flip, waiting for that mutator to stop
/// like any stop does; nothing hangs and the list survives.
#[test]
fn the_driver_takes_the_offer_back_when_no_mutator_comes() {
    with_timeout("offer taken back", || {
        // At each flip the hook raises `flipping` and waits (up to 10 s, so nothing
        // can hang) until the busy mutator has seen it and started computing: so
        // that mutator is running, not parked in the last stop or not yet woken
        // from it, when the flip is offered and when the driver stops the world.
        let flipping = Arc::new(AtomicBool::new(false));
        let computing = Arc::new(AtomicBool::new(false));
        let (seen, started) = (Arc::clone(&flipping), Arc::clone(&computing));
        let (heap, t) = heap(16 << 20, |c| {
            c.cycle_hook = Some(CycleHook(Arc::new(move |p| {
                if p == CyclePoint::Flipping {
                    started.store(false, Ordering::SeqCst);
                    seen.store(true, Ordering::SeqCst);
                    let since = Instant::now();
                    while !started.load(Ordering::SeqCst)
                        && since.elapsed() < Duration::from_secs(10)
                    {
                        std::thread::yield_now();
                    }
                }
            })));
        });
        let heap = Arc::new(heap);
        let done = Arc::new(AtomicBool::new(false));
        let busy = {
            let (heap, flipping, computing, done) = (
                Arc::clone(&heap),
                Arc::clone(&flipping),
                Arc::clone(&computing),
                Arc::clone(&done),
            );
            std::thread::Builder::new()
                .name("busy mutator".into())
                .spawn(move || {
                    let mut m = heap.bind_mutator().unwrap();
                    while !done.load(Ordering::SeqCst) {
                        if flipping.swap(false, Ordering::SeqCst) {
                            computing.store(true, Ordering::SeqCst);
                            // Fifty times the offer's wait without a GC point.
                            let until = Instant::now() + Duration::from_millis(50);
                            while Instant::now() < until {
                                std::hint::spin_loop();
                            }
                        }
                        m.safepoint();
                        std::thread::yield_now();
                    }
                })
                .unwrap()
        };
        let mut m = heap.bind_mutator().unwrap();
        m.push(None);
        churn(&mut m, &t, 100_000);
        m.blocking(|| heap.wait_idle());
        let before = flips(&heap);
        m.collect();
        let (all, by_mutator) = flips(&heap);
        churn(&mut m, &t, 10);
        done.store(true, Ordering::SeqCst);
        m.blocking(|| busy.join().unwrap());
        assert_eq!(all, before.0 + 1, "one more flip");
        assert_eq!(
            by_mutator, before.1,
            "the driver ran the flip after its offer timed out"
        );
        // The flip's stop waited for the thread computing without a GC point, and
        // its record (and GC log line) says which one (whitespace made `_`).
        let log = heap.pause_log();
        let flip = log
            .records()
            .iter()
            .rev()
            .find(|r| r.kind == "flip")
            .expect("a flip record");
        assert_eq!(flip.waited_for.as_deref(), Some("busy_mutator"));
        assert!(
            flip.ttsp_ns >= 1_000_000,
            "it waited for the busy mutator: {} ns",
            flip.ttsp_ns
        );
        m.verify().unwrap();
    });
}
