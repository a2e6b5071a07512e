// A `Gc` does not survive a GC point: `alloc` may collect and move the object.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(ty, 0).unwrap();
    let a = m.get(&h);
    let _b = m.alloc(ty, 0);
    m.read_word(a, 0);
}
