// A `Gc` read through a field descriptor does not survive the descriptor-based
// allocation either: `push_fixed` is a GC point like `alloc`.
use flipgc_core::{Heap, HeapConfig, TypeRegistry};

fn main() {
    let mut types = TypeRegistry::new();
    let ty = types.fixed("pair", 2, &[0, 1]).unwrap();
    let pair = types.fixed_type(ty).unwrap();
    let left = types.ref_field(ty, 0).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    m.push_fixed(pair).unwrap();
    let a = m.stack_get(0).unwrap();
    let child = m.get_ref(a, left);
    m.push_fixed(pair).unwrap();
    m.set_ref(a, left, child);
}
