// A `Gc` is only valid until its own mutator's next GC point; another thread cannot
// know when that is.
use flipgc_core::{Gc, Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(ty, 0).unwrap();
    let a: Gc<'_> = m.get(&h);
    std::thread::scope(|s| {
        s.spawn(move || a.addr());
    });
}
