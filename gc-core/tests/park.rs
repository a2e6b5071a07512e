//! Parking dead extents before the flip pause (`collect/park.rs`): extents of the
//! flip's level that hold only garbage below the mark boundary are moved to the
//! scratch span before the pause, so that the flip skips them; recycling brings
//! their pages back. Each test checks the graph (a list below the garbage and one
//! above it, by checksum) and the verifier, on every path that parks: concurrent
//! compaction, and the in-pause fallbacks after a refused registration and after a
//! refused `mremap` (a copying flip of the parked, empty range).
//! Skipped (with a message) where the host has no userfaultfd.

mod common;

// Only its page-fault counter and `MIB` are used here.
#[allow(dead_code)]
#[path = "common/pretouch.rs"]
mod pretouch;

use flipgc_core::{
    CycleHook, CyclePoint, FlipMode, Heap, HeapConfig, InjectPoint, Mutator, PauseRecord, TypeId,
    TypeRegistry,
};
use flipgc_heap::Level;
use pretouch::MIB;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const GIB: usize = 1 << 30;

/// A heap with `cfg` and its types: node (field 0 a reference, 1 and 2 words) and
/// a byte array.
fn heap(cfg: HeapConfig) -> Option<(Heap, TypeId, TypeId)> {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0]).unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    let heap = Heap::new(cfg, r).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return None;
    }
    Some((heap, node, bytes))
}

/// Pushes a list of `n` nodes (ids from `first`) on the root stack.
fn push_list(m: &mut Mutator, node: TypeId, first: u64, n: u64) {
    common::push_list(m, node, (first, n), (1, 2), 3);
}

fn checksum(m: &Mutator) -> (u64, u64) {
    common::lists_checksum(m)
}

/// `bytes` of garbage byte arrays (32 KiB each, below the large-object threshold),
/// each filled with non-zero bytes, as the parked pages will be.
fn garbage(m: &mut Mutator, bytes_ty: TypeId, bytes: usize) {
    let chunk = 32 << 10;
    let junk = vec![0xA5u8; chunk];
    for _ in 0..bytes / chunk {
        m.alloc_push(bytes_ty, chunk).unwrap();
        let g = m.pop().unwrap();
        m.write_bytes(g, 0, &junk);
    }
}

/// A list of `n` nodes, `bytes` of garbage above it, and another list of `n` above
/// that (ids from 0); returns the lists' checksum.
fn lists_around_garbage(
    m: &mut Mutator,
    (node, bytes_ty): (TypeId, TypeId),
    n: u64,
    bytes: usize,
) -> (u64, u64) {
    push_list(m, node, 0, n);
    garbage(m, bytes_ty, bytes);
    push_list(m, node, n, n);
    checksum(m)
}

/// The flip pauses recorded so far.
fn flips(heap: &Heap) -> Vec<PauseRecord> {
    let log = heap.pause_log();
    log.records()
        .iter()
        .filter(|r| r.kind == "flip")
        .cloned()
        .collect()
}

/// A PMD-level heap of 256 MiB (so that the pacer, which starts the first cycles
/// at half the capacity, starts none): lists below and above 64 MiB of garbage, one
/// collection, then 24 MiB of new nodes, which must read as zeros and fault few
/// pages in (the parked pages came back). `inject` picks the path.
fn pmd_heap_parks(path: &str, inject: Option<InjectPoint>) {
    let cfg = HeapConfig {
        flip: FlipMode::Level(Level::Pmd),
        pretouch: true,
        thp: false,
        verify_after_gc: true,
        inject,
        ..HeapConfig::new(256 * MIB)
    };
    let Some((heap, node, bytes_ty)) = heap(cfg) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    let before = lists_around_garbage(&mut m, (node, bytes_ty), 10_000, 64 * MIB);
    m.collect();
    m.blocking(|| heap.wait_idle());
    let flip = flips(&heap).pop().expect("a flip pause");
    assert_eq!(
        flip.flip.level,
        if inject == Some(InjectPoint::FlipMremap) {
            "copy"
        } else {
            "pmd"
        },
        "{path}"
    );
    // At least the 2 MiB extents wholly inside the garbage (64 MiB, less the
    // extents shared with a list), less what the pre-touched heap had above.
    assert!(
        flip.flip.parked_bytes >= 48 * MIB as u64,
        "{path}: parked {} MiB",
        flip.flip.parked_bytes >> 20
    );
    assert_eq!(checksum(&m), before, "{path}: the lists changed");
    m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));

    // New nodes over the parked range: zeroed, and mostly present pages.
    let cycles = heap.pause_log().collections();
    let faults = pretouch::minor_faults();
    for i in 0..(24 * MIB / 32) {
        m.alloc_push(node, 0).unwrap();
        let n = m.pop().unwrap();
        let got = (m.read_ref(n, 0), m.read_word(n, 1), m.read_word(n, 2));
        assert_eq!(got, (None, 0, 0), "{path}: new node {i} is not zeroed");
    }
    let faults = pretouch::minor_faults() - faults;
    if inject.is_none() {
        // The in-pause paths free what was parked (and the pacer, having timed a
        // slow in-pause cycle, may start another meanwhile); concurrent compaction
        // recycles it.
        assert_eq!(
            heap.pause_log().collections(),
            cycles,
            "no collection while counting"
        );
        assert!(
            faults < 600,
            "{path}: {faults} page faults: parked pages were not recycled"
        );
    }
    assert_eq!(
        checksum(&m),
        before,
        "{path}: the lists changed after allocating"
    );
    m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
}

#[test]
fn pmd_heap_parks_dead_extents_and_recycles_them() {
    pmd_heap_parks("concurrent", None);
}

#[test]
fn pmd_heap_parks_before_a_refused_registration() {
    pmd_heap_parks("registration refused", Some(InjectPoint::UffdRegister));
}

#[test]
fn pmd_heap_parks_before_a_refused_mremap() {
    pmd_heap_parks("mremap refused", Some(InjectPoint::FlipMremap));
}

/// The case parking is for: a heap of whole gigabytes (PUD-level flips), with live
/// objects in the first and the third, and only garbage in the second (6 GiB, so
/// that the pacer starts no cycle before the one requested). The second is
/// parked, and so are the free ones above the top; the heap stays one mapping: the
/// next flip still moves it with one PUD-level `mremap`.
#[test]
fn pud_heap_parks_a_dead_gigabyte() {
    let cfg = HeapConfig {
        verify_after_gc: true,
        ..HeapConfig::new(6 * GIB)
    };
    let Some((heap, node, bytes_ty)) = heap(cfg) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    let before = lists_around_garbage(&mut m, (node, bytes_ty), 1_000, 2 * GIB + 256 * MIB);
    for round in 0..2 {
        m.collect();
        m.blocking(|| heap.wait_idle());
        let flip = flips(&heap).pop().expect("a flip pause");
        assert_eq!(
            (flip.flip.strategy, flip.flip.level),
            ("mremap+dontunmap", "pud"),
            "round {round}"
        );
        // Round 0: the second gigabyte (garbage) and the three above the top
        // (free); round 1: the five above the top (the survivors are in the first).
        let parked = [4 * GIB, 5 * GIB][round] as u64;
        assert_eq!(flip.flip.parked_bytes, parked, "round {round}");
        assert_eq!(checksum(&m), before, "round {round}");
        m.verify().unwrap();
    }
}

/// The heap verifier walks the heap object by object, and cannot cross a parked
/// range (it reads as zeros): a verification asked for between the parking and the
/// flip pause waits for the flip. The cycle hook holds the cycle there while
/// another mutator verifies. Fails ("invalid header 0x0") if `Mutator::verify`
/// walks the parked heap.
#[test]
fn verification_waits_for_the_flip_while_extents_are_parked() {
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let go_tx = Mutex::new(go_tx);
    let hook = move |p: CyclePoint| {
        if p == CyclePoint::Flipping {
            // Only the first cycle waits (later sends find no receiver).
            if go_tx.lock().unwrap().send(()).is_ok() {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    };
    let cfg = HeapConfig {
        flip: FlipMode::Level(Level::Pmd),
        cycle_hook: Some(CycleHook(Arc::new(hook))),
        ..HeapConfig::new(256 * MIB)
    };
    let Some((heap, node, bytes_ty)) = heap(cfg) else {
        return;
    };
    let verifier = {
        let heap = heap.clone();
        std::thread::spawn(move || {
            let mut m = heap.bind_mutator().unwrap();
            m.blocking(move || go_rx.recv().unwrap());
            m.verify()
        })
    };
    let mut m = heap.bind_mutator().unwrap();
    let before = lists_around_garbage(&mut m, (node, bytes_ty), 10_000, 64 * MIB);
    m.collect();
    let verified = m.blocking(move || verifier.join().unwrap());
    verified.unwrap_or_else(|e| panic!("verification during the parking: {e}"));
    let flip = flips(&heap).pop().expect("a flip pause");
    assert!(flip.flip.parked_bytes > 0, "nothing was parked");
    assert_eq!(checksum(&m), before);
}
