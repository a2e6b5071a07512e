//! The pacer on a real heap: at a steady rate the collector can sustain, cycles are
//! started by the pacer before the heap fills and nobody waits long for memory;
//! when the collector cannot keep up, throttling engages, the heap stays intact,
//! and out of memory is an `Err` only when the live data truly does not fit.
//! Thresholds are generous: this machine is noisy; the real figures are
//! pausebench's (`--workload bursts`, and the allocation-stall columns).

use flipgc_core::{GcError, GcErrorKind, Heap, HeapConfig, TypeRegistry};
use std::time::{Duration, Instant};

struct Types {
    node: flipgc_core::FixedType,
    left: flipgc_core::RefField,
    id: flipgc_core::WordField,
}

fn heap(capacity: usize) -> (Heap, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let t = Types {
        node: r.fixed_type(node).unwrap(),
        left: r.ref_field(node, 0).unwrap(),
        id: r.word_field(node, 2).unwrap(),
    };
    let mut cfg = HeapConfig::new(capacity);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.verify_after_gc = true;
    (Heap::new(cfg, r).unwrap(), t)
}

/// A list of `n` nodes with ids `0..n` on the root stack's top.
fn list(m: &mut flipgc_core::Mutator, t: &Types, n: u64) -> Result<(), GcError> {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in 0..n {
        m.push_fixed(t.node)?;
        let o = m.pop().unwrap();
        m.set_word(o, t.id, id);
        m.set_ref(o, t.left, m.stack_get(at));
        m.stack_set(at, Some(o));
    }
    Ok(())
}

/// Runs `f(mutator, k)` on `threads` threads, each with its own mutator of `heap`,
/// while `m` waits for them counted as stopped.
fn on_mutator_threads(
    m: &mut flipgc_core::Mutator,
    heap: &Heap,
    threads: u64,
    f: impl Fn(&mut flipgc_core::Mutator, u64) + Sync,
) {
    let f = &f;
    m.blocking(|| {
        std::thread::scope(|s| {
            for k in 0..threads {
                s.spawn(move || f(&mut heap.bind_mutator().unwrap(), k));
            }
        })
    });
}

fn check_list(m: &flipgc_core::Mutator, t: &Types, at: usize, n: u64) {
    let mut o = m.stack_get(at);
    let mut want = n;
    while let Some(x) = o {
        want -= 1;
        assert_eq!(m.get_word(x, t.id), want);
        o = m.get_ref(x, t.left);
    }
    assert_eq!(want, 0);
}

#[test]
fn at_a_sustainable_rate_the_pacer_starts_cycles_before_the_heap_fills() {
    let (heap, t) = heap(64 << 20);
    let mut m = heap.bind_mutator().unwrap();
    list(&mut m, &t, 100_000).unwrap(); // 3.2 MB live
                                        // About 100 MB/s for 2 s: 1 MiB of garbage, then a 10 ms sleep.
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        for _ in 0..(1 << 20) / 32 {
            m.push_fixed(t.node).unwrap();
            m.pop();
        }
        m.blocking(|| std::thread::sleep(Duration::from_millis(10)));
    }
    check_list(&m, &t, 0, 100_000);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    let cycles = log.cycles();
    let paced = cycles.iter().filter(|c| c.reason == "pacer").count();
    let full = cycles.iter().filter(|c| c.reason == "heap-full").count();
    eprintln!(
        "{} cycles ({paced} paced, {full} at a full heap); longest allocation stall {} us",
        cycles.len(),
        log.alloc_stalls().max() / 1000
    );
    assert!(paced >= 2, "the pacer started cycles: {cycles:?}");
    assert!(full <= 1, "at most the first cycle may find the heap full");
    assert!(
        log.alloc_stalls().max() < 200_000_000,
        "no allocation waited 200 ms or more"
    );
    for c in cycles.iter().filter(|c| c.reason == "pacer") {
        assert!(
            c.min_free > 0,
            "a paced cycle never let the heap fill: {c:?}"
        );
    }
}

#[test]
fn when_the_collector_cannot_keep_up_allocation_is_throttled_and_nothing_breaks() {
    let (heap, t) = heap(32 << 20);
    let mut m = heap.bind_mutator().unwrap();
    list(&mut m, &t, 400_000).unwrap(); // 12.8 MB live of 32 MiB
                                        // Two more threads allocate garbage flat out, each with its own live list.
                                        // This thread waits for them counted as stopped.
    on_mutator_threads(&mut m, &heap, 2, |m, k| {
        list(m, &t, 50_000 + k).unwrap();
        for _ in 0..3_000_000 {
            m.push_fixed(t.node).unwrap();
            m.pop();
        }
        check_list(m, &t, 0, 50_000 + k);
    });
    check_list(&m, &t, 0, 400_000);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    eprintln!(
        "{} cycles, {} throttling sleeps (longest {} us), {} allocation stalls",
        log.cycles().len(),
        log.throttles().len(),
        log.throttles().max() / 1000,
        log.alloc_stalls().len()
    );
    assert!(!log.throttles().is_empty(), "throttling engaged");
    m.verify().unwrap();

    // Out of memory only when the live data does not fit: 40 MB more live in a
    // 32 MiB heap fails, and the heap stays usable after.
    m.stack_truncate(0);
    let e = list(&mut m, &t, 1_300_000).unwrap_err();
    assert!(matches!(e.kind(), GcErrorKind::OutOfMemory { .. }), "{e}");
    m.stack_truncate(0);
    list(&mut m, &t, 100_000).unwrap();
    check_list(&m, &t, 0, 100_000);
}

/// Eight mutators allocating flat out start the pacer's cycles from their own
/// allocation slow paths: one claims each cycle and runs its mark-start pause,
/// stopping the seven others (which may be in their slow paths too). Each keeps
/// growing a live list across the cycles (a node prepended for every 8 of
/// garbage, the list checked and dropped at 20,000), so objects allocated around
/// every mark-start must survive; the verifier runs after every cycle. One
/// mark-start pause per cycle.
#[test]
fn eight_mutators_start_paced_cycles_among_themselves() {
    let (heap, t) = heap(32 << 20);
    let mut m = heap.bind_mutator().unwrap();
    on_mutator_threads(&mut m, &heap, 8, |m, _| {
        m.push(None);
        let mut n = 0u64;
        for i in 0..1_500_000u64 {
            m.push_fixed(t.node).unwrap();
            if i % 9 != 0 {
                m.pop();
                continue;
            }
            let o = m.pop().unwrap();
            m.set_word(o, t.id, n);
            m.set_ref(o, t.left, m.stack_get(0));
            m.stack_set(0, Some(o));
            n += 1;
            if n == 20_000 {
                check_list(m, &t, 0, n);
                m.stack_set(0, None);
                n = 0;
            }
        }
        check_list(m, &t, 0, n);
    });
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    let cycles = log.cycles();
    let paced = cycles.iter().filter(|c| c.reason == "pacer").count();
    let starts = log
        .records()
        .iter()
        .filter(|r| r.kind == "mark-start")
        .count();
    eprintln!("{} cycles, {paced} paced", cycles.len());
    assert!(paced >= 3, "the pacer started cycles: {cycles:?}");
    assert_eq!(starts, cycles.len(), "one mark-start pause per cycle");
    m.verify().unwrap();
}
