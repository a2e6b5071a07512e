//! What the pre-touch tests share: a pre-touched heap and page-fault counting. Each
//! test has a file of its own, so that no other test's heap shares the process
//! while it counts.

use flipgc_core::{FixedType, Heap, HeapConfig, Mutator, TypeRegistry};

/// Bytes in a mebibyte.
pub const MIB: usize = 1 << 20;

/// A pre-touched 128 MiB heap with 4 KiB pages (so that every page faulted in
/// counts), changed by `f`, and its node type (32 bytes: two references and a word).
pub fn heap(f: impl FnOnce(&mut HeapConfig)) -> (Heap, FixedType) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let mut cfg = HeapConfig {
        pretouch: true,
        thp: false,
        ..HeapConfig::new(128 * MIB)
    };
    f(&mut cfg);
    let heap = Heap::new(cfg, r).unwrap();
    let fixed = heap.types().fixed_type(node).unwrap();
    (heap, fixed)
}

/// Minor page faults taken by this thread so far.
pub fn minor_faults() -> i64 {
    // SAFETY: `usage` is written by the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_THREAD is Linux's, for the calling thread.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    assert_eq!(rc, 0);
    usage.ru_minflt
}

/// Allocates 24 MiB of garbage (32-byte nodes of `fixed`: 6,144 pages, each a page
/// fault if nothing had populated them) and returns the minor faults this thread
/// took meanwhile. Fails if a collection ran meanwhile (it would move pages).
pub fn faults_allocating_24_mib(heap: &Heap, m: &mut Mutator, fixed: FixedType) -> i64 {
    let cycles = heap.pause_log().collections();
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
    faults
}
