//! The three workloads with small parameters on small heaps (so they collect many
//! times), under every flip mode with the verifier after every collection: each must
//! succeed with its known results, and the heap must really have collected.
//! More multi-threaded runs that collect are in `threads.rs`.

use flipgc_core::{FlipMode, Heap, HeapConfig, TypeRegistry};
use flipgc_stress::tree::tree_size;
use flipgc_stress::{binarytrees, churn, gcbench, StressError};

const MODES: [&str; 4] = ["auto", "pmd", "pte", "copy"];

fn heap<T>(
    mode: &str,
    capacity: usize,
    register: impl FnOnce(&mut TypeRegistry) -> Result<T, flipgc_core::GcError>,
) -> (Heap, T) {
    let mut r = TypeRegistry::new();
    let t = register(&mut r).unwrap();
    let mut c = HeapConfig::new(capacity);
    c.flip = FlipMode::parse(mode).unwrap();
    c.verify_after_gc = true;
    c.gc_workers = 2;
    (Heap::new(c, r).unwrap(), t)
}

fn small_gcbench(threads: usize) -> gcbench::Params {
    gcbench::Params {
        stretch: 14,
        long_lived: 12,
        array_size: 20_000, // 160 KB: a large object
        min_depth: 4,
        max_depth: 12,
        rounds: 2,
        threads,
    }
}

#[test]
fn gcbench_every_mode() {
    for mode in MODES {
        let (heap, t) = heap(mode, 4 << 20, gcbench::register);
        let p = small_gcbench(1);
        let s = gcbench::run(&heap, &t, &p).unwrap();
        assert_eq!(s.long_lived_nodes, tree_size(12));
        assert_eq!(s.nodes_allocated, p.total_nodes());
        // The sum of 1/i for i in 1..10_000.
        let want: f64 = (1..10_000).map(|i| 1.0 / i as f64).sum();
        assert!((s.array_sum - want).abs() < 1e-9, "{mode}: {}", s.array_sum);
        let log = heap.pause_log();
        assert!(log.records().len() >= 5, "{mode}: {}", log.records().len());
        // Pauses that move the heap (not a concurrent cycle's mark pause) do it the
        // way the mode asks.
        let levels: Vec<&str> = log.records().iter().map(|r| r.flip.level).collect();
        assert!(levels.contains(&want_level(mode)), "{mode}: {levels:?}");
        assert!(
            levels
                .iter()
                .all(|l| *l == want_level(mode) || *l == "none"),
            "{mode}: {levels:?}"
        );
    }
}

fn want_level(mode: &str) -> &str {
    if mode == "auto" {
        // PUD on x86_64, whose spans are rounded up to whole PUD entries; PMD where
        // a PUD entry is too large for that (arm64 with 16 or 64 KiB pages).
        HeapConfig::new(4 << 20)
            .flip_level()
            .expect("a moving flip")
            .name()
    } else {
        mode
    }
}

#[test]
fn gcbench_refuses_bad_params() {
    let (heap, t) = heap("auto", 4 << 20, gcbench::register);
    let mut p = small_gcbench(1);
    p.min_depth = 14;
    assert!(matches!(
        gcbench::run(&heap, &t, &p),
        Err(StressError::Params(_))
    ));
}

#[test]
fn gcbench_out_of_memory_is_an_error_not_a_crash() {
    // The long-lived tree alone (2^17 nodes of 40 bytes) cannot fit in 1 MiB.
    let (heap, t) = heap("auto", 1 << 20, gcbench::register);
    let mut p = small_gcbench(1);
    p.long_lived = 16;
    let e = gcbench::run(&heap, &t, &p).unwrap_err();
    assert!(e.to_string().contains("out of memory"), "{e}");
}

#[test]
fn binarytrees_checks_match_the_formula() {
    for mode in MODES {
        // Three threads in a 4 MiB heap collect too (several mutators at once).
        for (threads, capacity) in [(1, 2 << 20), (3, 4 << 20)] {
            let (heap, t) = heap(mode, capacity, binarytrees::register);
            let p = binarytrees::Params { depth: 10, threads };
            let s = binarytrees::run(&heap, &t, &p).unwrap();
            assert_eq!(s.stretch, (11, 4095));
            assert_eq!(s.long_lived, (10, 2047));
            let depths: Vec<u32> = s.lines.iter().map(|l| l.depth).collect();
            assert_eq!(depths, [4, 6, 8, 10]);
            for l in &s.lines {
                assert_eq!(l.iterations, 1 << (10 - l.depth + 4));
                assert_eq!(l.check, l.iterations * ((1 << (l.depth + 1)) - 1));
            }
            let text = s.to_string();
            assert!(
                text.starts_with("stretch tree of depth 11\t check: 4095\n"),
                "{text}"
            );
            assert!(
                text.contains("1024\t trees of depth 4\t check: 31744\n"),
                "{text}"
            );
            assert!(
                text.ends_with("long lived tree of depth 10\t check: 2047"),
                "{text}"
            );
            if threads == 1 {
                assert!(!heap.pause_log().records().is_empty(), "{mode}");
            }
        }
    }
}

#[test]
fn binarytrees_small_depth_uses_six() {
    let (heap, t) = heap("auto", 4 << 20, binarytrees::register);
    let p = binarytrees::Params {
        depth: 2,
        threads: 1,
    };
    let s = binarytrees::run(&heap, &t, &p).unwrap();
    assert_eq!(s.long_lived, (6, 127));
    assert_eq!(s.lines.len(), 2);
}

fn small_churn(threads: usize, seed: u64) -> churn::Params {
    churn::Params {
        graph: churn::GraphParams {
            threads,
            cycles: Some(6),
            ops: 3000,
            roots: 32,
            garbage: 500,
            seed,
            ..Default::default()
        },
        ..churn::Params::default()
    }
}

#[test]
fn churn_every_mode() {
    for mode in MODES {
        let (heap, t) = heap(mode, 2 << 20, churn::register);
        let p = small_churn(1, 11);
        let s = churn::run(&heap, &t, &p).unwrap();
        assert_eq!(s.cycles, 6, "{mode}");
        assert_eq!(s.ops, 18_000);
        assert_eq!(s.checksums.len(), 1);
        assert!(
            heap.pause_log().records().len() >= 3,
            "{mode}: {} collections",
            heap.pause_log().records().len()
        );
    }
}

#[test]
fn churn_is_deterministic_per_seed() {
    let sums = |seed| {
        let (heap, t) = heap("auto", 4 << 20, churn::register);
        churn::run(&heap, &t, &small_churn(1, seed))
            .unwrap()
            .checksums
    };
    assert_eq!(sums(5), sums(5));
    assert_ne!(sums(5), sums(6));
}

#[test]
fn churn_stops_at_the_deadline() {
    let (heap, t) = heap("auto", 4 << 20, churn::register);
    let mut p = small_churn(1, 3);
    p.graph.cycles = None;
    p.graph.seconds = Some(0.2);
    // Ends by itself (the deadline is the only limit) after at least one cycle.
    let s = churn::run(&heap, &t, &p).unwrap();
    assert!(s.cycles >= 1);
}
