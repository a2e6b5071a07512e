//! What the pre-touch tests share: a pre-touched heap and page-fault counting. Each
//! test has a file of its own, so that no other test's heap shares the process
//! while it counts.

use flipgc_core::{FixedType, Heap, HeapConfig, TypeRegistry};

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
