// A `RefReader` borrows its mutator: it cannot be kept across a GC point (its
// checks were made for objects as they were, and what it returns is a `Gc`).
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("pair", 2, &[0, 1]).unwrap();
    let pair = types.fixed_type(ty).unwrap();
    let fields = [types.ref_field(ty, 0).unwrap(), types.ref_field(ty, 1).unwrap()];
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    m.push_fixed(pair).unwrap();
    let reader = m.ref_reader(fields);
    m.safepoint();
    let a = m.stack_get(0).unwrap();
    let _ = reader.get(a);
}
