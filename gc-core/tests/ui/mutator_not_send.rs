// A `Mutator` is bound to its thread.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let heap = Heap::new(HeapConfig::new(1 << 20), TypeRegistry::new()).unwrap();
    let m = heap.bind_mutator().unwrap();
    std::thread::spawn(move || drop(m)).join().unwrap();
}
