// Turning the write barrier off makes concurrent marking unsound, so safe code
// cannot make the value that does it (nor call its `unsafe` constructor:
// satb_barrier_setter.rs).
use flipgc_core::{HeapConfig, SatbBarrier};

fn main() {
    let mut cfg = HeapConfig::new(1 << 20);
    cfg.satb_barrier = SatbBarrier(false);
}
