//! Several mutators sharing one heap, verifier on. These were the reproducers of a
//! flipgc-core bug the stress programs found (a spurious `OutOfMemory` when other
//! mutators took the room a collection made before the collecting thread retried);
//! they now guard the fix: the minimal case, then GCBench and churn with threads.

use flipgc_core::{FlipMode, Heap, HeapConfig, TypeRegistry};
use flipgc_stress::{churn, gcbench};

/// Several mutators allocating nothing but garbage in a 4 MiB heap never run out of
/// memory, with either compaction path.
#[test]
fn garbage_only_allocation_never_runs_out_of_memory() {
    for concurrent in [false, true] {
        let mut r = TypeRegistry::new();
        let node = r.fixed("node", 3, &[0, 1]).unwrap();
        let mut c = HeapConfig::new(4 << 20);
        c.concurrent_compaction = concurrent;
        let heap = Heap::new(c, r).unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let mut m = heap.bind_mutator().unwrap();
                    for i in 0..2_000_000 {
                        if let Err(e) = m.alloc_push(node, 0) {
                            panic!("concurrent={concurrent}, allocation {i}: {e}");
                        }
                        m.stack_truncate(0);
                    }
                });
            }
        });
    }
}

fn heap<T>(
    capacity: usize,
    register: impl FnOnce(&mut TypeRegistry) -> Result<T, flipgc_core::GcError>,
) -> (Heap, T) {
    let mut r = TypeRegistry::new();
    let t = register(&mut r).unwrap();
    let mut c = HeapConfig::new(capacity);
    c.flip = FlipMode::Auto;
    c.verify_after_gc = true;
    c.gc_workers = 2;
    (Heap::new(c, r).unwrap(), t)
}

#[test]
fn gcbench_threads_share_a_heap() {
    let (heap, t) = heap(32 << 20, gcbench::register);
    let p = gcbench::Params {
        stretch: 14,
        long_lived: 12,
        array_size: 20_000,
        min_depth: 4,
        max_depth: 12,
        rounds: 2,
        threads: 3,
    };
    let s = gcbench::run(&heap, &t, &p).unwrap();
    assert_eq!(s.nodes_allocated, p.total_nodes());
    assert!(!heap.pause_log().records().is_empty());
}

#[test]
fn churn_threads() {
    let (heap, t) = heap(16 << 20, churn::register);
    let p = churn::Params {
        graph: churn::GraphParams {
            garbage: 5000,
            threads: 2,
            cycles: Some(6),
            ops: 3000,
            roots: 32,
            seed: 21,
            ..Default::default()
        },
        refs: 30,
        refs_check: 2,
    };
    let s = churn::run(&heap, &t, &p).unwrap();
    assert_eq!((s.cycles, s.checksums.len()), (12, 2));
    assert!(!heap.pause_log().records().is_empty());
    // The runtime features were checked exactly, and had something to check.
    assert!(
        s.finalized > 0 && s.weak_cleared > 0 && s.tokens > 0,
        "finalized {}, weak cleared {}, tokens {}",
        s.finalized,
        s.weak_cleared,
        s.tokens
    );
}

/// `count_nodes` while another mutator collects over and over: the count polls,
/// parks its pending nodes on the root stack for each stop (where the collection
/// moves them), takes them back, and still counts every node of the tree, every
/// time. The counting goes on until at least ten counts are done and three
/// collections have finished meanwhile (at most 60 s).
#[test]
fn counting_a_tree_while_another_mutator_collects() {
    use flipgc_stress::tree::{count_nodes, make_tree, tree_size, Node};
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::time::{Duration, Instant};
    let (heap, node) = heap(64 << 20, |r| {
        let id = r.fixed("node", 2, &[0, 1])?;
        Node::of(r, id, false)
    });
    let done = AtomicBool::new(false);
    let collections = AtomicU32::new(0);
    /// Stops the collector however the counting thread leaves (a failed assertion
    /// too), so a failure is reported instead of hanging the scope.
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let (counts, during) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut m = heap.bind_mutator().unwrap();
            while !done.load(Ordering::Relaxed) {
                m.collect();
                collections.fetch_add(1, Ordering::Relaxed);
                // Room for the counter to get on between the stops.
                m.blocking(|| std::thread::sleep(Duration::from_millis(2)));
            }
        });
        let _done = Done(&done);
        let mut m = heap.bind_mutator().unwrap();
        make_tree(&mut m, &node, 16).unwrap();
        let (start, since) = (collections.load(Ordering::Relaxed), Instant::now());
        let mut counts = Vec::new();
        while counts.len() < 10
            || collections.load(Ordering::Relaxed) < start + 3
                && since.elapsed() < Duration::from_secs(60)
        {
            counts.push(count_nodes(&mut m, &node, 0));
        }
        let during = collections.load(Ordering::Relaxed) - start;
        // `m` is dropped (unbound) before the scope joins the collector: a running
        // mutator waiting there would hold up its next stop for ever.
        (counts, during)
    });
    assert!(during >= 3, "collections while counting: {during}");
    assert!(
        counts.iter().all(|&c| c == tree_size(16)),
        "{} counts, wrong ones: {:?}",
        counts.len(),
        counts
            .iter()
            .filter(|&&c| c != tree_size(16))
            .collect::<Vec<_>>()
    );
}
