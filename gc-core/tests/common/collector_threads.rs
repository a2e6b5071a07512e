//! A workload that makes a heap start every kind of collector thread, for the
//! tests of `HeapConfig::gc_thread_priority` (`thread_priority.rs`,
//! `thread_slice.rs`). Three heaps between them start: the GC driver, a
//! concurrent marker, the fault server and a background fill worker (a
//! concurrent heap in server mode); the in-pause marking and filling workers
//! spawned by a one-pause collection; and in-pause filling workers spawned by a
//! flip pause that runs on the mutator's own thread (concurrent marking,
//! compaction in the pause), which would keep the mutator's scheduling if they
//! did not set their own.

use flipgc_core::{GcThreadPriority, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[path = "mod.rs"]
mod common;

/// What `read` returned on each collector thread as it started, by thread kind.
pub type PerKind<T> = Arc<Mutex<BTreeMap<String, Vec<T>>>>;

/// Installs the process-wide `collector_thread_start` seam so that every
/// collector thread records `read()` (its own scheduling, read from the kernel)
/// under its kind as it starts. Remove it with
/// `set_collector_thread_start(None)`.
pub fn record_each_thread<T: Send + 'static>(read: fn() -> T) -> PerKind<T> {
    let seen: PerKind<T> = Arc::default();
    let log = Arc::clone(&seen);
    flipgc_core::seams::set_collector_thread_start(Some(Box::new(move |kind| {
        let v = read();
        log.lock()
            .unwrap()
            .entry(kind.to_string())
            .or_default()
            .push(v);
    })));
    seen
}

fn registry() -> (TypeRegistry, TypeId) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 4, &[0, 1]).unwrap();
    (r, node)
}

/// Builds a list of `n` nodes with garbage between them, kept on the root stack,
/// and collects twice.
fn churn_and_collect(m: &mut Mutator, node: TypeId, n: u64) {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in 0..n {
        m.alloc_push(node, 0).unwrap();
        m.pop();
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        m.write_word(new, 2, id);
        m.write_ref(new, 0, m.stack_get(at));
        m.stack_set(at, Some(new));
    }
    m.collect();
    m.collect();
    m.pop();
}

/// Runs the three heaps with the collector's threads at `priority`, calling
/// `while_concurrent` with the concurrent heap while its driver still lives.
/// Returns the thread kinds (thread names) that must have started.
pub fn start_every_collector_thread(
    priority: GcThreadPriority,
    while_concurrent: impl FnOnce(&Heap),
) -> Vec<&'static str> {
    let mut expected = vec!["flipgc-driver", "flipgc-mark"];
    let (r, node) = registry();
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.fault_mode = flipgc_core::FaultMode::Server;
    cfg.young_cycles = false;
    cfg.gc_thread_priority = priority;
    if let Some(heap) = common::compaction_heap(cfg, r) {
        if heap.concurrent_compaction() {
            expected.extend(["flipgc-fault-server", "flipgc-fill"]);
        }
        let mut m = heap.bind_mutator().unwrap();
        churn_and_collect(&mut m, node, 40_000);
        while_concurrent(&heap);
        drop(m);
    } else {
        expected.clear();
    }

    let (r, node) = registry();
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_marking = false;
    cfg.concurrent_compaction = false;
    cfg.gc_thread_priority = priority;
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    churn_and_collect(&mut m, node, 40_000);
    expected.extend(["flipgc-pause-mark", "flipgc-pause-fill"]);
    drop(m);
    drop(heap);

    let (r, node) = registry();
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_compaction = false;
    cfg.gc_thread_priority = priority;
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    m.push(None);
    let at = m.stack_len() - 1;
    let flips_by_mutator = |heap: &Heap| {
        let log = heap.pause_log();
        let n = log
            .records()
            .iter()
            .filter(|r| r.kind == "flip" && r.by_mutator)
            .count();
        n
    };
    // Until a flip pause ran on this thread (bounded: 400 rounds of 50,000 nodes).
    for round in 0..400u64 {
        for i in 0..50_000u64 {
            m.alloc_push(node, 0).unwrap();
            let o = m.pop().unwrap();
            if i % 8 == 0 {
                m.write_word(o, 2, round);
                m.write_ref(o, 0, m.stack_get(at));
                m.stack_set(at, Some(o));
            }
            if i % 40_000 == 0 {
                m.stack_set(at, None); // keep the live list near 1 MiB
            }
        }
        if flips_by_mutator(&heap) > 0 {
            break;
        }
    }
    assert!(
        flips_by_mutator(&heap) > 0,
        "no flip pause ran on the mutator's thread"
    );
    drop(m);
    drop(heap);
    expected
}
