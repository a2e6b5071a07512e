// A `Handle`'s slot belongs to the collector while its mutator is blocking: it must
// not be used (here: dropped) inside the closure. `Handle` is not `Send`.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(ty, 0).unwrap();
    m.blocking(move || drop(h));
}
