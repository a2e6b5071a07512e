// A `Gc` does not survive a GC point: another thread may collect at `safepoint`.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(ty, 0).unwrap();
    let a = m.get(&h);
    m.safepoint();
    m.read_word(a, 0);
}
