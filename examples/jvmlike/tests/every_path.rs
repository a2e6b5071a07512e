//! The class-based VM's programs (GCBench, binary-trees) with small parameters and
//! its churn model check, on small heaps (so they collect many times), on every
//! collection path: flip auto, pmd, pte and copy, in-pause compaction (configured,
//! and as the fallback when userfaultfd registration fails), each in both fault
//! modes (SIGBUS and the fault server), with the verifier after every collection.
//! Each run must pass its own checks, and the heap must really have collected the
//! way the path asks.

use flipgc_core::{FaultMode, FlipMode, Heap, HeapConfig, InjectPoint};
use flipgc_jvmlike::object::Jvm;
use flipgc_jvmlike::tree::tree_size;
use flipgc_jvmlike::{binarytrees, churn, gcbench};

/// What a path must show in the pause log.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Concurrent compaction, whose flips move the heap at this level.
    Concurrent(&'static str),
    /// The copying flip (which compacts in the flip pause).
    Copy,
    /// Compaction in the flip pause, configured.
    InPause,
    /// Compaction in the flip pause when registration fails (injected).
    Fallback,
}

/// (name, config, what to expect), for each path and fault mode.
fn paths(capacity: usize) -> Vec<(String, HeapConfig, Expect)> {
    let mut out = Vec::new();
    for fault in [FaultMode::Sigbus, FaultMode::Server] {
        let base = || {
            let mut c = HeapConfig::new(capacity);
            c.gc_workers = 2;
            c.concurrent_workers = 2;
            c.verify_after_gc = true;
            c.fault_mode = fault;
            c
        };
        let auto_level = base().flip_level().expect("a moving flip").name();
        let mut add = |name: &str, f: &dyn Fn(&mut HeapConfig), e: Expect| {
            let mut c = base();
            f(&mut c);
            out.push((format!("{name}, {fault:?}"), c, e));
        };
        add("auto", &|_| {}, Expect::Concurrent(auto_level));
        add(
            "pmd",
            &|c| c.flip = FlipMode::parse("pmd").unwrap(),
            Expect::Concurrent("pmd"),
        );
        add(
            "pte",
            &|c| c.flip = FlipMode::parse("pte").unwrap(),
            Expect::Concurrent("pte"),
        );
        add("copy", &|c| c.flip = FlipMode::Copy, Expect::Copy);
        add(
            "in-pause compaction",
            &|c| c.concurrent_compaction = false,
            Expect::InPause,
        );
        add(
            "in-pause fallback (uffd-register injected)",
            &|c| c.inject = Some(InjectPoint::UffdRegister),
            Expect::Fallback,
        );
    }
    out
}

/// Asserts that `heap` collected at least `min` times, along `path`.
fn assert_collected(heap: &Heap, path: &str, expect: Expect, fault: FaultMode, min: usize) {
    heap.wait_idle();
    let log = heap.pause_log();
    assert!(
        log.collections() >= min,
        "{path}: only {} collections",
        log.collections()
    );
    let levels: Vec<&str> = log.records().iter().map(|r| r.flip.level).collect();
    let stats = log.compaction_stats();
    match expect {
        Expect::Concurrent(level) => {
            assert!(heap.concurrent_compaction(), "{path}");
            assert!(levels.contains(&level), "{path}: {levels:?}");
            assert!(
                levels.iter().all(|l| *l == level || *l == "none"),
                "{path}: {levels:?}"
            );
            let by_mode = match fault {
                FaultMode::Server => stats.server,
                _ => stats.sigbus,
            };
            assert!(by_mode > 0, "{path}: no compaction by {fault:?}: {stats:?}");
        }
        Expect::Copy => {
            assert!(levels.contains(&"copy"), "{path}: {levels:?}");
            assert!(
                levels.iter().all(|l| *l == "copy" || *l == "none"),
                "{path}: {levels:?}"
            );
        }
        Expect::InPause => {
            assert!(!heap.concurrent_compaction(), "{path}");
            assert_eq!(stats.count, 0, "{path}: {stats:?}");
        }
        Expect::Fallback => {
            assert!(heap.injections_fired() > 0, "{path}: never injected");
        }
    }
}

#[test]
fn gcbench_on_every_path() {
    for (path, config, expect) in paths(4 << 20) {
        let fault = config.fault_mode;
        let (heap, jvm) = Jvm::with_heap(config).unwrap();
        let t = gcbench::load(&jvm).unwrap();
        let p = gcbench::Params {
            stretch: 12,
            long_lived: 11,
            array_size: 20_000, // 160 KB: a large object
            min_depth: 4,
            max_depth: 10,
            rounds: 2,
            threads: 2,
        };
        let s = gcbench::run(&heap, &t, &p).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.long_lived_nodes, tree_size(11));
        assert_eq!(s.nodes_allocated, p.total_nodes());
        let want: f64 = (1..10_000).map(|i| 1.0 / i as f64).sum();
        assert!((s.array_sum - want).abs() < 1e-9, "{path}: {}", s.array_sum);
        assert_collected(&heap, &path, expect, fault, 3);
    }
}

#[test]
fn binarytrees_on_every_path() {
    for (path, config, expect) in paths(4 << 20) {
        let fault = config.fault_mode;
        let (heap, jvm) = Jvm::with_heap(config).unwrap();
        let t = binarytrees::load(&jvm).unwrap();
        let p = binarytrees::Params {
            depth: 12,
            threads: 3,
        };
        let s = binarytrees::run(&heap, &t, &p).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.stretch, (13, tree_size(13)));
        assert_eq!(s.long_lived, (12, tree_size(12)));
        let depths: Vec<u32> = s.lines.iter().map(|l| l.depth).collect();
        assert_eq!(depths, [4, 6, 8, 10, 12]);
        for l in &s.lines {
            assert_eq!(l.iterations, 1 << (12 - l.depth + 4));
            assert_eq!(l.check, l.iterations * tree_size(l.depth));
        }
        assert_collected(&heap, &path, expect, fault, 2);
    }
}

#[test]
fn churn_model_check_on_every_path() {
    for (path, config, expect) in paths(2 << 20) {
        let fault = config.fault_mode;
        let (heap, jvm) = Jvm::with_heap(config).unwrap();
        let t = churn::load(&jvm).unwrap();
        let p = churn::Params {
            threads: 2,
            cycles: Some(4),
            ops: 3000,
            roots: 32,
            garbage: 500,
            seed: 11,
            ..Default::default()
        };
        let s = churn::run(&heap, &jvm, &t, &p).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.cycles, 8, "{path}");
        assert_eq!(s.ops, 24_000);
        assert!(
            s.classes_loaded > 0,
            "{path}: no class loaded while running"
        );
        assert_collected(&heap, &path, expect, fault, 3);
    }
}

#[test]
fn churn_is_deterministic_per_seed() {
    let sums = |seed| {
        let mut c = HeapConfig::new(4 << 20);
        c.verify_after_gc = true;
        let (heap, jvm) = Jvm::with_heap(c).unwrap();
        let t = churn::load(&jvm).unwrap();
        let p = churn::Params {
            cycles: Some(3),
            ops: 2000,
            roots: 16,
            garbage: 200,
            seed,
            ..Default::default()
        };
        churn::run(&heap, &jvm, &t, &p).unwrap().checksums
    };
    assert_eq!(sums(5), sums(5));
    assert_ne!(sums(5), sums(6));
}
