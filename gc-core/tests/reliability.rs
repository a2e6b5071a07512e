//! Reliability: the in-pause fallback with black allocation, handles reached from
//! inside `blocking`, reference publication across threads, GC threads that panic,
//! and from-space populated ahead of copying flips. Each test was first seen to fail
//! with its defect in place (see docs/testing.md).

use flipgc_core::{
    CycleHook, CyclePoint, FaultMode, FlipMode, Handle, Heap, HeapConfig, InjectPoint, Mutator,
    TypeId, TypeRegistry,
};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn registry() -> (TypeRegistry, TypeId) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap(); // ref, ref, id
    (r, node)
}

/// A chain of `n` nodes with ids `0 .. n`, each linking to the one before; its head.
fn chain(m: &mut Mutator, node: TypeId, n: u64) -> Handle {
    spaced_chain(m, node, n, 0)
}

/// As [`chain`], with `gap` garbage nodes allocated before each node after the
/// first: a collection must copy its pages (they are not a dense prefix).
fn spaced_chain(m: &mut Mutator, node: TypeId, n: u64, gap: u64) -> Handle {
    let head = m.alloc(node, 0).unwrap();
    for i in 1..n {
        for _ in 0..gap {
            drop(m.alloc(node, 0).unwrap());
        }
        let h = m.alloc(node, 0).unwrap();
        m.write_ref(m.get(&h), 0, Some(m.get(&head)));
        m.write_word(m.get(&h), 2, i);
        m.set(&head, m.get(&h));
    }
    head
}

/// Walks a chain made by [`chain`]; panics unless it holds ids `n - 1` down to 0.
fn check_chain(m: &Mutator, head: &Handle, n: u64) {
    let mut at = Some(m.get(head));
    let mut want = n;
    while let Some(o) = at {
        want -= 1;
        assert_eq!(m.read_word(o, 2), want, "chain node {} of {n}", n - want);
        at = m.read_ref(o, 0);
    }
    assert_eq!(want, 0, "the chain is {} nodes short", want);
}

/// Objects allocated between a concurrent cycle's mark pause and its flip pause
/// (black) survive when that cycle falls back to compacting inside the flip pause.
/// The hook holds the cycle in its plan until another mutator has allocated a chain
/// there; the injection point makes the first cycle fall back.
fn black_objects_survive_the_fallback(point: InjectPoint) {
    let (types, node) = registry();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let (go_tx, done_rx) = (Mutex::new(go_tx), Mutex::new(done_rx));
    let hook = move |p: CyclePoint| {
        if p == CyclePoint::Planning {
            // Only the first cycle's plan waits (later sends find no receiver).
            if go_tx.lock().unwrap().send(()).is_ok() {
                let _ = done_rx
                    .lock()
                    .unwrap()
                    .recv_timeout(Duration::from_secs(60));
            }
        }
    };
    let mut cfg = HeapConfig::new(8 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.verify_after_gc = true;
    cfg.inject = Some(point);
    cfg.cycle_hook = Some(CycleHook(Arc::new(hook)));
    let heap = Heap::new(cfg, types).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("no userfaultfd here: nothing to test");
        return;
    }
    let (check_tx, check_rx) = mpsc::channel::<()>();
    const BLACK: u64 = 30_000; // 32-byte nodes: about 240 pages of black objects
    let b = {
        let heap = heap.clone();
        std::thread::spawn(move || {
            let mut m = heap.bind_mutator().unwrap();
            // Dropping the receiver once the first plan has called: later plans'
            // hooks then find nobody to wait for.
            m.blocking(move || go_rx.recv().unwrap());
            let head = chain(&mut m, node, BLACK);
            done_tx.send(()).unwrap();
            m.blocking(move || check_rx.recv().unwrap());
            check_chain(&m, &head, BLACK);
        })
    };
    let mut m = heap.bind_mutator().unwrap();
    let old = chain(&mut m, node, 10_000);
    m.collect();
    check_chain(&m, &old, 10_000);
    check_tx.send(()).unwrap();
    m.blocking(move || b.join())
        .expect("the black chain survived");
    let log = heap.pause_log();
    let flip = log.records().iter().find(|r| r.kind == "flip").unwrap();
    assert!(
        flip.phases.iter().any(|(name, _)| *name == "compact"),
        "the first flip pause compacted in place: {:?}",
        flip.phases
    );
    assert!(heap.injections_fired() >= 1);
    m.collect();
    check_chain(&m, &old, 10_000);
    m.verify().unwrap();
}

#[test]
fn black_objects_survive_a_failed_registration() {
    black_objects_survive_the_fallback(InjectPoint::UffdRegister);
}

#[test]
fn black_objects_survive_a_copying_flip() {
    black_objects_survive_the_fallback(InjectPoint::FlipMremap);
}

#[test]
fn black_objects_survive_without_userfaultfd() {
    black_objects_survive_the_fallback(InjectPoint::UffdOpen);
}

thread_local! {
    static KEPT: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

fn panic_message(f: impl FnOnce()) -> String {
    let Err(payload) = catch_unwind(AssertUnwindSafe(f)) else {
        panic!("expected a panic")
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a string panic payload")
}

/// A `Handle` in a thread-local can be reached from inside `blocking` (the closure is
/// `Send`, but thread-locals need no capture). Cloning or dropping it there would
/// change the root table while the collector may walk it: both are refused.
#[test]
fn handles_reached_inside_blocking_are_refused() {
    let (types, node) = registry();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(node, 0).unwrap();
    m.write_word(m.get(&h), 2, 42);
    KEPT.with(|k| *k.borrow_mut() = Some(h));
    let msg = panic_message(|| {
        m.blocking(|| KEPT.with(|k| drop(k.borrow().as_ref().unwrap().clone())));
    });
    assert!(msg.contains("cloned inside Mutator::blocking"), "{msg}");
    let msg = panic_message(|| {
        m.blocking(|| KEPT.with(|k| drop(k.borrow_mut().take())));
    });
    assert!(msg.contains("dropped inside Mutator::blocking"), "{msg}");
    // Outside `blocking` handles work as before, and the heap is intact.
    let h2 = m.alloc(node, 0).unwrap();
    let h3 = h2.clone();
    drop(h2);
    m.collect();
    assert_eq!(m.read_word(m.get(&h3), 2), 0);
    m.verify().unwrap();
}

/// One thread publishes fresh objects through a reference field, another reads
/// them: every object it sees has its header and the id written before the
/// publication. x86 orders these anyway; on arm64 it needs the release store and
/// acquire load, and under ThreadSanitizer a relaxed publication shows up as a race
/// between the carve's zeroing and the reader (docs/sanitizers.md).
#[test]
fn published_objects_are_seen_whole() {
    let (types, node) = registry();
    let mut cfg = HeapConfig::new(4 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    let heap = Heap::new(cfg, types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let mailbox = m.alloc(node, 0).unwrap();
    let global = m.global(m.get(&mailbox));
    m.collect(); // memory above the top is now recycled: carves zero it
    const N: u64 = 200_000;
    let reader = {
        let heap = heap.clone();
        std::thread::spawn(move || {
            let mut m = heap.bind_mutator().unwrap();
            let mut last = 0;
            let mut seen = 0u64;
            while last < N {
                let mb = m.get_global(&global);
                if let Some(o) = m.read_ref(mb, 0) {
                    assert_eq!(m.type_of(o), node, "a published object's header");
                    let id = m.read_word(o, 2);
                    assert!(id >= last && id <= N, "id {id} after {last}");
                    last = id;
                    seen += 1;
                }
                m.safepoint();
            }
            seen
        })
    };
    for i in 1..=N {
        let o = m.alloc(node, 0).unwrap();
        m.write_word(m.get(&o), 2, i);
        let mb = m.get(&mailbox);
        m.write_ref(mb, 0, Some(m.get(&o)));
    }
    let seen = m.blocking(|| reader.join().unwrap());
    assert!(seen > 0);
}

/// Runs this test binary's test `name` in a child process with `FLIPGC_CHILD` set
/// and returns its exit status and stderr; fails if it runs past `limit`.
fn run_child(name: &str, limit: Duration) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("FLIPGC_CHILD", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (status, err);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the child {name} hung (killed after {limit:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A workload whose collections compact concurrently with live data to fill.
fn compacting_workload(point: InjectPoint) {
    let (types, node) = registry();
    let mut cfg = HeapConfig::new(8 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.inject = Some(point);
    if matches!(
        point,
        InjectPoint::ServerPanic | InjectPoint::CompactionPanic
    ) {
        // Only server mode has a fault server (which runs until the compaction's
        // own thread ends it: a panic there used to leave the process hung).
        cfg.fault_mode = FaultMode::Server;
    }
    let heap = Heap::new(cfg, types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let live = chain(&mut m, node, 50_000);
    let mut kept = Vec::new();
    for _ in 0..5 {
        // Survivors between garbage, new since the last collection: their pages
        // are copied, which the background workers do (after the first cycle the
        // live chain alone is a dense prefix, moved by the compaction's own
        // thread, and a fill worker's injected panic could find nothing to fill:
        // the child then survived in 3 of 8 runs, and 7 of 8 before young cycles).
        kept.push(spaced_chain(&mut m, node, 20_000, 1));
        drop(chain(&mut m, node, 20_000));
        m.collect();
        // Touch the live chain: faults on unfilled pages reach the fault server (or
        // the faulting thread's handler).
        check_chain(&m, &live, 50_000);
    }
    m.blocking(|| heap.wait_idle());
    for k in &kept {
        check_chain(&m, k, 20_000);
    }
}

/// A GC thread that panics ends the process at once, with a message naming the
/// phase (it used to leave mutators asleep on pages nobody would fill).
fn gc_thread_panic_ends_the_process(test: &str, point: InjectPoint, phase: &str) {
    if std::env::var_os("FLIPGC_CHILD").is_some() {
        compacting_workload(point);
        return; // survived: the parent sees exit status 0 and fails
    }
    let probe = Heap::new(HeapConfig::new(1 << 20), TypeRegistry::new()).unwrap();
    if !probe.concurrent_compaction() {
        eprintln!("no userfaultfd here: nothing to test");
        return;
    }
    let (status, stderr) = run_child(test, Duration::from_secs(60));
    assert!(!status.success(), "the child survived {point}: {stderr}");
    assert!(
        stderr.contains(&format!("injected failure: {point}")),
        "the panic itself is shown: {stderr}"
    );
    assert!(
        stderr.contains("flipgc: fatal") && stderr.contains(phase),
        "the abort names the phase {phase:?}: {stderr}"
    );
}

#[test]
fn a_panicking_fill_worker_ends_the_process() {
    gc_thread_panic_ends_the_process(
        "a_panicking_fill_worker_ends_the_process",
        InjectPoint::WorkerPanic,
        "a page-filling worker",
    );
}

#[test]
fn a_panicking_marking_worker_ends_the_process() {
    gc_thread_panic_ends_the_process(
        "a_panicking_marking_worker_ends_the_process",
        InjectPoint::MarkPanic,
        "concurrent marking (a GC worker)",
    );
}

#[test]
fn a_panicking_fault_server_ends_the_process() {
    gc_thread_panic_ends_the_process(
        "a_panicking_fault_server_ends_the_process",
        InjectPoint::ServerPanic,
        "the fault server",
    );
}

#[test]
fn a_panicking_compaction_thread_ends_the_process_while_the_fault_server_runs() {
    gc_thread_panic_ends_the_process(
        "a_panicking_compaction_thread_ends_the_process_while_the_fault_server_runs",
        InjectPoint::CompactionPanic,
        "concurrent compaction",
    );
}

fn rss_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

/// A heap whose flips copy has its from-space faulted in at construction, so the
/// first copying flips do not fault it in page by page inside their pauses.
#[test]
fn copy_heaps_populate_from_space_at_construction() {
    const CAP: usize = 256 << 20;
    let before = rss_bytes();
    let mut cfg = HeapConfig::new(CAP);
    cfg.flip = FlipMode::Copy;
    let copy = Heap::new(cfg, TypeRegistry::new()).unwrap();
    let grown = rss_bytes().saturating_sub(before);
    assert!(grown >= CAP * 9 / 10, "RSS grew by {grown} bytes only");
    drop(copy);
    let before = rss_bytes();
    let auto = Heap::new(HeapConfig::new(CAP), TypeRegistry::new()).unwrap();
    let grown = rss_bytes().saturating_sub(before);
    assert!(
        grown < CAP / 4,
        "an auto heap populates nothing up front: {grown}"
    );
    drop(auto);
}

/// A user `Drop` that allocates and collects while a panic unwinds (to be caught
/// further up): its allocation starts cycles (the pacer's mark-start pause, run by
/// this mutator) and its collections take the pauses the driver offers, all on the
/// unwinding thread. That is not a panic in collector work: the process goes on,
/// the panic is caught, and the heap stays whole. Failed (the child aborted with
/// "collector work panicked during the mark-start pause (run by a mutator)") while
/// the failure guards aborted whenever the thread was unwinding as they dropped.
#[test]
fn a_drop_that_collects_during_a_caught_unwind_does_not_abort() {
    const TEST: &str = "a_drop_that_collects_during_a_caught_unwind_does_not_abort";
    if std::env::var_os("FLIPGC_CHILD").is_none() {
        let (status, stderr) = run_child(TEST, Duration::from_secs(120));
        assert!(status.success(), "the child failed: {stderr}");
        assert!(
            stderr.contains("caught: user panic"),
            "the panic was caught: {stderr}"
        );
        return;
    }
    struct CollectOnDrop<'a> {
        m: &'a mut Mutator,
        node: TypeId,
    }
    impl Drop for CollectOnDrop<'_> {
        fn drop(&mut self) {
            assert!(std::thread::panicking(), "run during the unwind");
            // 64 MB of garbage through an 8 MB heap: the pacer starts cycles.
            for _ in 0..(64 << 20) / 32 {
                drop(self.m.alloc(self.node, 0).unwrap());
            }
            for _ in 0..4 {
                self.m.collect();
            }
        }
    }
    let (types, node) = registry();
    let mut cfg = HeapConfig::new(8 << 20);
    cfg.verify_after_gc = true;
    let heap = Heap::new(cfg, types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let live = chain(&mut m, node, 10_000);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let _guard = CollectOnDrop { m: &mut m, node };
        panic!("user panic");
    }));
    let msg = caught.expect_err("the closure panicked");
    eprintln!("caught: {}", msg.downcast_ref::<&str>().unwrap());
    check_chain(&m, &live, 10_000);
    m.verify().unwrap();
    let cycles = heap.pause_log().collections();
    assert!(cycles >= 4, "the drop ran collections ({cycles} cycles)");
    eprintln!("{cycles} cycles");
}
