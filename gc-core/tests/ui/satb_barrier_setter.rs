// Turning the write barrier off makes concurrent marking unsound: the value that
// does it comes from an `unsafe fn` (and cannot be built: satb_barrier_off.rs).
use flipgc_core::{HeapConfig, SatbBarrier};

fn main() {
    let mut cfg = HeapConfig::new(1 << 20);
    cfg.satb_barrier = SatbBarrier::off();
}
