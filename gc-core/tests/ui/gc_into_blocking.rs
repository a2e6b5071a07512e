// `blocking` lets collections run meanwhile: a `Gc` captured by its closure would
// dangle.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(ty, 0).unwrap();
    let a = m.get(&h);
    let addr = m.blocking(|| a.addr());
    println!("{addr}");
}
