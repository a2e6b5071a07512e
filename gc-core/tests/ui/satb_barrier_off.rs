// Turning the write barrier off makes concurrent marking unsound, so safe code
// cannot: the field is private (and its setter is `unsafe`: satb_barrier_setter.rs).
use flipgc_core::HeapConfig;

fn main() {
    let mut cfg = HeapConfig::new(1 << 20);
    cfg.satb_barrier = false;
}
