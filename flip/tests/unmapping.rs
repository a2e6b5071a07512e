//! Byte-exact round trips for the plain `mremap` (no `MREMAP_DONTUNMAP`), through
//! `Flipper::flip_unmapping`, at every level, 4 KiB and THP backing, 8 KiB to 1 GiB.
//!
//! `flip_unmapping` requires that no other thread maps memory while it runs (the
//! source range is briefly unmapped). The libtest harness spawns threads (mapping
//! their stacks) while tests run, so this binary has no harness: `main` runs the
//! cases one after another on one thread.

mod common;

use common::*;
use flipgc_heap::Thp;

fn main() {
    let cases: [(usize, Thp); 6] = [
        (8 << 10, Thp::NoHuge),
        (PMD + PAGE, Thp::NoHuge),
        (64 << 20, Thp::NoHuge),
        (64 << 20, Thp::Huge),
        (PUD, Thp::NoHuge),
        (PUD, Thp::Huge),
    ];
    for (len, thp) in cases {
        mremap_matrix(len, thp, &|f, src, dst| {
            // SAFETY: this binary runs on a single thread: nothing else maps memory.
            unsafe { f.flip_unmapping(src, dst) }.unwrap()
        });
        println!("unmapping flip {len} bytes {thp:?}: ok");
    }
    println!("{} passed, 0 failed", cases.len());
}
