//! Memory goes back to the OS after a burst (heap sizing): the process's resident
//! set, before, during and after a burst of 128 MiB of live data, for a growable
//! heap on the concurrent and the one-pause path, and for a fixed-size heap (which
//! keeps its memory for reuse, by design). One test in this file, so no other
//! test's heap shares the process while it measures.

use flipgc_core::{Heap, HeapConfig, Sizing, TypeRegistry};

const MIB: usize = 1 << 20;

/// The process's resident set (bytes), from `/proc/self/statm`.
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = s.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * flipgc_heap::Capabilities::probe().geometry.page
}

/// (before, during, after) the burst, in bytes.
fn burst(cfg: HeapConfig) -> (usize, usize, usize) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let heap = Heap::new(cfg, r).unwrap();
    let fixed = heap.types().fixed_type(node).unwrap();
    let next = heap.types().ref_field(node, 0).unwrap();
    let id = heap.types().word_field(node, 2).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let head = m.alloc_fixed(fixed).unwrap();
    for i in 0..(64 << 10) {
        // a small steady live set: 2 MiB
        let h = m.alloc_fixed(fixed).unwrap();
        m.set_word(m.get(&h), id, i);
        m.set_ref(m.get(&h), next, m.get_ref(m.get(&head), next));
        m.set_ref(m.get(&head), next, Some(m.get(&h)));
    }
    m.collect();
    m.blocking(|| heap.wait_idle());
    let before = rss();
    // The burst: 4M nodes (128 MiB) live at once.
    let burst = m.alloc_fixed(fixed).unwrap();
    for _ in 0..(4 << 20) {
        let h = m.alloc_fixed(fixed).unwrap();
        m.set_ref(m.get(&h), next, m.get_ref(m.get(&burst), next));
        m.set_ref(m.get(&burst), next, Some(m.get(&h)));
    }
    m.collect();
    m.blocking(|| heap.wait_idle());
    let during = rss();
    drop(burst);
    for _ in 0..2 {
        m.collect();
        m.blocking(|| heap.wait_idle());
    }
    let after = rss();
    // The steady set is intact.
    let mut n = 0;
    let mut at = m.get_ref(m.get(&head), next);
    while let Some(o) = at {
        assert_eq!(m.get_word(o, id), (64 << 10) - 1 - n);
        n += 1;
        at = m.get_ref(o, next);
    }
    assert_eq!(n, 64 << 10);
    (before, during, after)
}

#[test]
fn resident_memory_falls_after_a_burst_with_heap_sizing() {
    let growable = || {
        let mut c = HeapConfig::growable(1 << 30);
        c.sizing = Some(Sizing {
            initial: 16 * MIB,
            growth: 1.0,
        });
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c
    };
    let mut stw = growable();
    stw.concurrent_marking = false;
    let mut fixed = growable();
    fixed.sizing = None;
    for (name, cfg, falls) in [
        ("growable, concurrent", growable(), true),
        ("growable, one-pause", stw, true),
        ("fixed size", fixed, false),
    ] {
        let (before, during, after) = burst(cfg);
        eprintln!(
            "{name}: RSS before {} MiB, during {} MiB, after {} MiB",
            before / MIB,
            during / MIB,
            after / MIB
        );
        assert!(
            during > before + 100 * MIB,
            "{name}: the burst did not show"
        );
        if falls {
            assert!(
                after < before + 64 * MIB,
                "{name}: RSS stayed at {} MiB after the burst",
                after / MIB
            );
        } else {
            assert!(
                after > before + 100 * MIB,
                "{name}: a fixed heap gave memory back"
            );
        }
    }
}
