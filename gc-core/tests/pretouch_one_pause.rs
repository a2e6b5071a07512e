//! The one-pause cycle with pre-touching faults from-space in at construction too,
//! so that its first collection, which moves the heap's pages to from-space and
//! from-space's into the heap (recycling), leaves the heap populated: allocation
//! after it does not fault pages in again. One test in this file, so no other
//! test's heap shares the process while it counts page faults.

#[path = "common/pretouch.rs"]
mod pretouch;
use pretouch::MIB;

#[test]
fn the_first_one_pause_collection_finds_from_space_populated() {
    let (heap, fixed) = pretouch::heap(|c| c.concurrent_marking = false);
    let mut m = heap.bind_mutator().unwrap();
    let live = m.alloc_fixed(fixed).unwrap();
    // 32 MiB of garbage (32-byte nodes): the heap's used part, moved away by the flip.
    for _ in 0..(32 * MIB / 32) {
        drop(m.alloc_fixed(fixed).unwrap());
    }
    m.collect();
    m.blocking(|| heap.wait_idle());
    assert_eq!(heap.pause_log().collections(), 1);
    // 24 MiB of garbage after it: 6,144 pages, each a fault if the heap were empty.
    let faults = pretouch::faults_allocating_24_mib(&heap, &mut m, fixed);
    assert!(
        faults < 600,
        "{faults} page faults allocating 24 MiB after the first collection: \
         from-space was not populated"
    );
    assert!(m.verify().is_ok());
    drop(live);
}
