//! Helpers shared by the integration tests (each test binary uses some of them).
#![allow(dead_code)]

use flipgc_core::{
    FaultMode, FillHook, FlipMode, GcTrigger, Global, Heap, HeapConfig, InjectPoint, Level,
    Mutator, ObjectModel, TypeId, TypeRegistry,
};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A heap for a test of concurrent compaction in `cfg.fault_mode`, or `None`, with
/// a message, where that cannot run here: SIGBUS mode refused by the host, or no
/// userfaultfd (when `cfg.concurrent_compaction`). Asserts a fault mode asked for
/// by name is the one the heap uses.
pub fn compaction_heap(cfg: HeapConfig, r: TypeRegistry) -> Option<Heap> {
    let (fault, concurrent) = (cfg.fault_mode, cfg.concurrent_compaction);
    let heap = match Heap::new(cfg, r) {
        Ok(h) => h,
        Err(e) if fault == FaultMode::Sigbus => {
            eprintln!("skipped: {e}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    if concurrent && !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return None;
    }
    if fault != FaultMode::Auto {
        assert_eq!(heap.fault_mode(), fault);
    }
    Some(heap)
}

/// A gate for the background fill: closed (`false`) or open.
pub type Gate = Arc<(Mutex<bool>, Condvar)>;

/// A fill hook that holds each background run, before it claims a page, until
/// `gate` opens (at most 10 s), so that mutators touch pages first.
pub fn held_fill(gate: &Gate) -> FillHook {
    let gate = Arc::clone(gate);
    FillHook(Arc::new(move |_, _, claimed| {
        if !claimed {
            let (lock, cv) = &*gate;
            let g = lock.lock().unwrap();
            let _ = cv
                .wait_timeout_while(g, Duration::from_secs(10), |open| !*open)
                .unwrap();
        }
    }))
}

/// Opens `gate`: held background runs go on.
pub fn open(gate: &Gate) {
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
}

/// The collection paths a runtime feature must work on, each `base()` with one
/// change: concurrent (as is), one-pause, in-pause compaction, copying flip, and
/// one named injected fallback per entry of `injected`.
pub fn collection_paths(
    base: impl Fn() -> HeapConfig,
    injected: &[(&'static str, InjectPoint)],
) -> Vec<(&'static str, HeapConfig)> {
    let with = |f: &dyn Fn(&mut HeapConfig)| {
        let mut c = base();
        f(&mut c);
        c
    };
    let mut paths = vec![
        ("concurrent", base()),
        ("one-pause", with(&|c| c.concurrent_marking = false)),
        (
            "in-pause compaction",
            with(&|c| c.concurrent_compaction = false),
        ),
        ("copying flip", with(&|c| c.flip = FlipMode::Copy)),
    ];
    for &(name, point) in injected {
        paths.push((name, with(&|c| c.inject = Some(point))));
    }
    paths
}

/// Pushes a list of `n` nodes of `node` on the root stack, each holding the one
/// made before it in field 0, with ids from `first`: payload word `words.0` holds
/// the id and word `words.1` the id times `k`.
pub fn push_list(
    m: &mut Mutator,
    node: TypeId,
    (first, n): (u64, u64),
    words: (usize, usize),
    k: u64,
) {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in first..first + n {
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        m.write_word(new, words.0, id);
        m.write_word(new, words.1, id * k);
        m.write_ref(new, 0, m.stack_get(at));
        m.stack_set(at, Some(new));
    }
}

/// Length and checksum of the lists made by [`push_list`] (words 1 and 2, `k` 3)
/// in every root stack slot; panics on a node whose words disagree.
pub fn lists_checksum(m: &Mutator) -> (u64, u64) {
    let (mut n, mut sum) = (0u64, 0u64);
    for at in 0..m.stack_len() {
        let mut cur = m.stack_get(at);
        while let Some(c) = cur {
            let (id, w) = (m.read_word(c, 1), m.read_word(c, 2));
            assert_eq!(w, id * 3, "node {id} corrupted");
            sum = sum.wrapping_mul(31).wrapping_add(id ^ w);
            n += 1;
            cur = m.read_ref(c, 0);
        }
    }
    (n, sum)
}

/// A global for each node of the list at stack slot `at` (linked through field
/// 0), newest first.
pub fn list_globals(m: &Mutator, at: usize) -> Vec<Global> {
    let mut v = Vec::new();
    let mut cur = m.stack_get(at);
    while let Some(c) = cur {
        v.push(m.global(c));
        cur = m.read_ref(c, 0);
    }
    v
}

/// Holds the GC driver at one [`CyclePoint`](flipgc_core::CyclePoint) until a test
/// releases it: the first time the driver reaches the point it waits (at most
/// 20 s) for [`CycleGate::release`]; once released, later cycles run through.
#[derive(Clone, Default)]
pub struct CycleGate(Arc<(Mutex<(bool, bool)>, Condvar)>);

impl CycleGate {
    /// For the cycle hook: holds the driver if `reached` is `point`.
    pub fn hold(&self, point: flipgc_core::CyclePoint, reached: flipgc_core::CyclePoint) {
        if reached != point {
            return;
        }
        let (lock, cv) = &*self.0;
        let mut s = lock.lock().unwrap();
        if s.1 {
            return;
        }
        s.0 = true;
        cv.notify_all();
        let _ = cv
            .wait_timeout_while(s, std::time::Duration::from_secs(20), |s| !s.1)
            .unwrap();
    }

    /// Waits (in `blocking`, counted as stopped) until the driver is held;
    /// whether it was, within 20 s.
    pub fn wait_held(&self, m: &mut Mutator) -> bool {
        m.blocking(|| {
            let (lock, cv) = &*self.0;
            let s = lock.lock().unwrap();
            cv.wait_timeout_while(s, std::time::Duration::from_secs(20), |s| !s.0)
                .unwrap()
                .0
                 .0
        })
    }

    /// Lets the driver go on, now and at every later cycle.
    pub fn release(&self) {
        let (lock, cv) = &*self.0;
        lock.lock().unwrap().1 = true;
        cv.notify_all();
    }
}

/// A cycle hook that, at the first cycle's `Marking` point (the mark-start pause
/// done, no marker started), tells the test to mutate (`go`) and waits until it
/// has (`done`, at most 60 s): marking held open with the barrier on.
pub fn hold_marking() -> (
    flipgc_core::CycleHook,
    std::sync::mpsc::Receiver<()>,
    std::sync::mpsc::Sender<()>,
) {
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let once = Mutex::new(Some((go_tx, done_rx)));
    let hook = move |p: flipgc_core::CyclePoint| {
        if p == flipgc_core::CyclePoint::Marking {
            if let Some((go, done)) = once.lock().unwrap().take() {
                go.send(()).unwrap();
                done.recv_timeout(Duration::from_secs(60)).unwrap();
            }
        }
    };
    (flipgc_core::CycleHook(Arc::new(hook)), go_rx, done_tx)
}

/// [`collection_paths`] with `injected`, the PMD and PTE flips if `levels`, and
/// young cycles (a 256 KiB trigger), each in both fault modes: `base()` with its
/// fault mode set. Each name ends in the fault mode.
pub fn paths_in_both_fault_modes(
    base: impl Fn() -> HeapConfig,
    injected: &[(&'static str, InjectPoint)],
    levels: bool,
) -> Vec<(String, HeapConfig)> {
    let mut out = Vec::new();
    for fault in [FaultMode::Sigbus, FaultMode::Server] {
        let base = || {
            let mut c = base();
            c.fault_mode = fault;
            c
        };
        let mut paths = collection_paths(base, injected);
        if levels {
            for (name, level) in [("PMD flip", Level::Pmd), ("PTE flip", Level::Pte)] {
                let mut c = base();
                c.flip = FlipMode::Level(level);
                paths.push((name, c));
            }
        }
        let mut young = base();
        young.young_cycles = true;
        young.trigger = GcTrigger::AfterBytes(256 << 10);
        paths.push(("young cycles", young));
        out.extend(
            paths
                .into_iter()
                .map(|(n, c)| (format!("{n}, {fault:?}"), c)),
        );
    }
    out
}

/// Runs `body` on a heap of `model()` built on each of `paths` (its name, the
/// heap), skipping a path this host cannot build; panics if none could run.
pub fn on_every_model_path<M: ObjectModel>(
    paths: Vec<(String, HeapConfig)>,
    model: impl Fn() -> M,
    mut body: impl FnMut(&str, Heap),
) {
    let mut ran = 0;
    for (path, cfg) in paths {
        let heap = match Heap::with_model(cfg, model()) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{path}: skipped: {e}");
                continue;
            }
        };
        body(&path, heap);
        ran += 1;
    }
    assert!(ran > 0, "no collection path could run on this host");
}
