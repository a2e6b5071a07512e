//! A pre-touched heap stays populated across collections: recycling moves every
//! populated from-space page above the allocation top back into the heap, not only
//! the old image's, so allocation after a collection does not fault pages in again
//! (each such first touch was a page fault, and with huge pages a 1-2 ms one during
//! which the allocating thread reaches no safepoint). One test in this file, so no
//! other test's heap shares the process while it counts page faults.

#[path = "common/pretouch.rs"]
mod pretouch;

#[test]
fn allocation_after_a_collection_reuses_the_pre_touched_pages() {
    let (heap, fixed) = pretouch::heap(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    let live = m.alloc_fixed(fixed).unwrap();
    // A collection while the heap's top is low: its old image is a few pages, and
    // the rest of the pre-touched span is above it.
    m.collect();
    m.blocking(|| heap.wait_idle());
    // 24 MiB of garbage: 6,144 pages, each a fault if freed.
    let faults = pretouch::faults_allocating_24_mib(&heap, &mut m, fixed);
    assert!(
        faults < 600,
        "{faults} page faults allocating 24 MiB after a collection: the pre-touched \
         pages were freed, not recycled"
    );
    assert!(m.verify().is_ok());
    drop(live);
}
