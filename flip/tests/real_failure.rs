//! A real (not injected) `mremap` failure ends in a copy with the same bytes.
//!
//! The kernel refuses a move with ENOMEM when the process is at `vm.max_map_count`
//! (Linux 6.18 still moves at a few mappings below it). This test fragments a
//! scratch mapping of its own into tens of thousands of mappings to get there,
//! process-locally, then flips. It is alone in its own test binary (process) because
//! other tests mapping memory meanwhile would fail.
//!
//! (Two other ways were tried and do not fail on Linux 6.18: a source split into two
//! mappings, since 6.17 moves several mappings at once; and RLIMIT_AS with
//! DONTUNMAP, since the destination's own mapping is unmapped first.)

mod common;

use common::*;
use flipgc_flip::{FlipConfig, Flipper, SourceState, Strategy};
use flipgc_heap::Thp;
use memmap2::{MmapMut, MmapOptions};
use nix::errno::Errno;
use nix::sys::mman::{mprotect, ProtFlags};
use std::ptr::NonNull;

fn map_count() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .count()
}

/// Splits a fresh scratch mapping into mappings until the kernel refuses one more
/// split (ENOMEM): the process is then at `vm.max_map_count`.
fn fragment_to_the_limit(max: usize) -> MmapMut {
    let pages = 2 * max.saturating_sub(map_count()) + 8;
    // Read-write but never touched, and MAP_NORESERVE: it costs no memory.
    let scratch = MmapOptions::new()
        .len(pages * PAGE)
        .no_reserve_swap()
        .map_anon()
        .unwrap();
    let base = scratch.as_ptr() as usize;
    let protect = |page: usize, prot: ProtFlags| -> bool {
        let at = NonNull::new((base + page * PAGE) as *mut std::ffi::c_void).unwrap();
        // SAFETY: the page is inside our own scratch mapping that nothing uses;
        // changing its protection only splits the mapping.
        match unsafe { mprotect(at, PAGE, prot) } {
            Ok(()) => true,
            Err(Errno::ENOMEM) => false,
            Err(e) => panic!("mprotect: {e}"),
        }
    };
    // A read-only page inside the read-write mapping adds two mappings ...
    let mut page = 1;
    while page + 2 < pages && protect(page, ProtFlags::PROT_READ) {
        page += 2;
    }
    // ... and an inaccessible page right after a read-only one adds one.
    protect(page - 1, ProtFlags::PROT_NONE);
    scratch
}

#[test]
fn map_count_limit_makes_mremap_fail_and_copy_take_over() {
    let max: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    if max > 1_000_000 {
        eprintln!("skipped: vm.max_map_count {max} is too large to approach in a test");
        return;
    }
    let len = 32 << 20; // below the parallel-copy threshold: no thread stacks to map
    let mut src = source(len, Thp::NoHuge, 0xfa11);
    let mut dst = span_at(len, PMD);
    let flipper = Flipper::new(FlipConfig::default()).unwrap();
    let reason = "mremap needs headroom of a few mappings";
    let fragments = fragment_to_the_limit(max);
    let result = flipper.flip(&mut src, &mut dst);
    let during = map_count();
    drop(fragments);

    let r = result.unwrap();
    assert!(
        matches!(r.strategy, Strategy::Copy { .. }),
        "{reason}: {r} (maps {during}/{max})"
    );
    let why = r.fallback_reason.clone().expect("fallback reason");
    assert!(
        why.contains("mremap") && why.contains("os error 12"),
        "{why}"
    );
    assert_eq!(r.source, SourceState::Intact);
    check(&dst, 0xfa11).unwrap();
    check(&src, 0xfa11).unwrap();
    // Both spans are whole, writable mappings, and with headroom back the move works.
    dst.as_mut_slice()[..PAGE].fill(1);
    let mut third = span_at(len, 0);
    let again = flipper.flip(&mut dst, &mut third).unwrap();
    assert!(matches!(again.strategy, Strategy::Mremap { .. }), "{again}");
    assert_eq!(third.as_slice()[0], 1);
    check(&src, 0xfa11).unwrap();
}
