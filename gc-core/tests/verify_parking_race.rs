//! `Mutator::verify` against the parking of dead extents (reliability round 3,
//! defect 4). The verifier checks that nothing is parked, then walks the heap; the
//! GC driver parks dead extents concurrently (the world stopped by the verifier
//! does not stop the driver). A parking that lands between the check and the walk
//! made the walk read zeros ("invalid header 0x0") on a healthy heap.
//!
//! Deterministic: the driver is held at `CyclePoint::Planning` (before the plan and
//! the parking) until the verifier has made its check; the test seam run after
//! the check (`flipgc_core::seams`, feature `test-seams`) releases the driver and
//! gives it 300 ms to park before the walk goes on. With the check and the walk
//! under one space lock, the parking waits for the walk instead.
//! Its own test binary: the seam is process-wide. Skipped without userfaultfd.

mod common;

use common::CycleGate;
use flipgc_core::{CycleHook, CyclePoint, FlipMode, Heap, HeapConfig, Mutator, TypeRegistry};
use flipgc_heap::Level;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const MIB: usize = 1 << 20;

fn checksum(m: &Mutator) -> (u64, u64) {
    common::lists_checksum(m)
}

#[test]
fn verification_never_walks_into_extents_parked_after_its_check() {
    let gate = CycleGate::default();
    let g = gate.clone();
    let hook = move |p: CyclePoint| g.hold(CyclePoint::Planning, p);
    let cfg = HeapConfig {
        flip: FlipMode::Level(Level::Pmd),
        cycle_hook: Some(CycleHook(Arc::new(hook))),
        ..HeapConfig::new(256 * MIB)
    };
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0]).unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    let heap = Heap::new(cfg, r).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return;
    }
    let mut m = heap.bind_mutator().unwrap();
    // A list, 64 MiB of garbage, another list: whole 2 MiB extents of garbage.
    common::push_list(&mut m, node, (0, 10_000), (1, 2), 3);
    let junk = vec![0xA5u8; 32 << 10];
    for _ in 0..(64 * MIB) / junk.len() {
        m.alloc_push(bytes, junk.len()).unwrap();
        let g = m.pop().unwrap();
        m.write_bytes(g, 0, &junk);
    }
    common::push_list(&mut m, node, (10_000, 10_000), (1, 2), 3);
    let before = checksum(&m);

    // Another thread starts the cycle; the driver holds before its plan.
    let starter = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
    };
    let reached = gate.wait_held(&mut m);
    assert!(reached, "the driver did not reach the plan");

    // The verifier's check finds nothing parked; then the driver goes on and
    // parks while the verifier would walk.
    let armed = Arc::new(AtomicBool::new(true));
    let (a, g) = (Arc::clone(&armed), gate.clone());
    flipgc_core::seams::set_after_parked_check(Some(Box::new(move || {
        if a.swap(false, Ordering::Relaxed) {
            g.release();
            std::thread::sleep(Duration::from_millis(300));
        }
    })));
    let verified = m.verify();
    flipgc_core::seams::set_after_parked_check(None);
    assert!(!armed.load(Ordering::Relaxed), "the seam did not run");
    verified.unwrap_or_else(|e| panic!("verification raced the parking: {e}"));

    m.blocking(|| starter.join().unwrap());
    m.blocking(|| heap.wait_idle());
    let flip = heap
        .pause_log()
        .records()
        .iter()
        .rfind(|r| r.kind == "flip")
        .cloned()
        .expect("a flip pause");
    assert!(flip.flip.parked_bytes > 0, "nothing was parked");
    assert_eq!(checksum(&m), before, "the lists changed");
    m.verify().unwrap();
}
