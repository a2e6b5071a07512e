// Turning the write barrier off makes concurrent marking unsound: the setter is
// `unsafe` (and the field private: satb_barrier_off.rs).
use flipgc_core::HeapConfig;

fn main() {
    let mut cfg = HeapConfig::new(1 << 20);
    cfg.set_satb_barrier(false);
}
