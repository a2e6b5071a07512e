//! The one-pause cycle with pre-touching faults from-space in at construction too,
//! so that its first collection, which moves the heap's pages to from-space and
//! from-space's into the heap (recycling), leaves the heap populated: allocation
//! after it does not fault pages in again. One test in this file, so no other
//! test's heap shares the process while it counts page faults.

use flipgc_core::{Heap, HeapConfig, TypeRegistry};

const MIB: usize = 1 << 20;

/// Minor page faults taken by this thread so far.
fn minor_faults() -> i64 {
    // SAFETY: `usage` is written by the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_THREAD is Linux's, for the calling thread.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    assert_eq!(rc, 0);
    usage.ru_minflt
}

#[test]
fn the_first_one_pause_collection_finds_from_space_populated() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let cfg = HeapConfig {
        pretouch: true,
        concurrent_marking: false,
        // 4 KiB pages, so that every page faulted in counts.
        thp: false,
        ..HeapConfig::new(128 * MIB)
    };
    let heap = Heap::new(cfg, r).unwrap();
    let fixed = heap.types().fixed_type(node).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let live = m.alloc_fixed(fixed).unwrap();
    // 32 MiB of garbage (32-byte nodes): the heap's used part, moved away by the flip.
    for _ in 0..(32 * MIB / 32) {
        drop(m.alloc_fixed(fixed).unwrap());
    }
    m.collect();
    m.blocking(|| heap.wait_idle());
    let cycles = heap.pause_log().collections();
    assert_eq!(cycles, 1);
    // 24 MiB of garbage after it: 6,144 pages, each a fault if the heap were empty.
    let before = minor_faults();
    for _ in 0..(24 * MIB / 32) {
        drop(m.alloc_fixed(fixed).unwrap());
    }
    let faults = minor_faults() - before;
    assert_eq!(
        heap.pause_log().collections(),
        cycles,
        "no collection may run while faults are counted"
    );
    assert!(
        faults < 600,
        "{faults} page faults allocating 24 MiB after the first collection: \
         from-space was not populated"
    );
    assert!(m.verify().is_ok());
    drop(live);
}
