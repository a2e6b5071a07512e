//! Stores that follow a GC point into an object checked before it (reliability
//! round 3, defect 1). `push_fixed_n_into` and `alloc_fixed_n_into` check the
//! parent, allocate (a GC point), then store into the parent. When the parent is a
//! large or pinned object and a flip pause runs inside that allocation, the pause
//! leaves the parent's fields pending lazy forwarding (`collect/large.rs`); a store
//! of a post-flip address made before the parent is forwarded would later be
//! forwarded a second time, as if it were an old address, and point elsewhere.
//!
//! The schedule is made deterministic: the GC driver is held at
//! `CyclePoint::Flipping` (the plan made, the flip pause next), and the children
//! are sized so that two never fit in one allocation buffer, so their allocation
//! takes the slow path, whose poll runs (or parks for) the flip pause.
//! Skipped (with a message) where the host has no userfaultfd: without it the flip
//! pause forwards large objects itself and nothing is left pending.

mod common;

use common::CycleGate;
use flipgc_core::{
    CycleHook, CyclePoint, FixedType, Heap, HeapConfig, Mutator, RefField, TypeId, TypeRegistry,
};
use std::sync::Arc;
use std::time::Duration;

/// Words of a child: 2,400 bytes, so two children never share a 4 KiB buffer.
const CHILD_WORDS: u32 = 300;

struct Setup {
    heap: Heap,
    node: TypeId,
    parent: TypeId,
    child: FixedType,
    fields: [RefField; 2],
    gate: CycleGate,
    compacting: CycleGate,
}

fn setup() -> Option<Setup> {
    let (gate, compacting) = (CycleGate::default(), CycleGate::default());
    let (g, c) = (gate.clone(), compacting.clone());
    let hook = move |p: CyclePoint| {
        g.hold(CyclePoint::Flipping, p);
        c.hold(CyclePoint::Compacting, p);
    };
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 2, &[]).unwrap();
    let parent = r.fixed("parent", 2, &[0, 1]).unwrap();
    let child_id = r.fixed("child", CHILD_WORDS, &[]).unwrap();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.tlab_size = 4096;
    cfg.cycle_hook = Some(CycleHook(Arc::new(hook)));
    cfg.concurrent_workers = 1;
    cfg.verify_after_gc = true;
    let heap = Heap::new(cfg, r).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return None;
    }
    let types = heap.types();
    let child = types.fixed_type(child_id).unwrap();
    let fields = [
        types.ref_field(parent, 0).unwrap(),
        types.ref_field(parent, 1).unwrap(),
    ];
    Some(Setup {
        heap,
        node,
        parent,
        child,
        fields,
        gate,
        compacting,
    })
}

/// A node labelled `id` with a garbage node below it (so the collection moves it),
/// left on the stack.
fn push_node(m: &mut Mutator, node: TypeId, id: u64) {
    m.alloc_push(node, 0).unwrap();
    m.pop();
    m.alloc_push(node, 0).unwrap();
    let n = m.stack_get(m.stack_len() - 1).unwrap();
    m.write_word(n, 0, id);
    m.write_word(n, 1, 3 * id);
}

/// Runs `store` (a `*_fixed_n_into` into the pinned parent in stack slot 0) with
/// the flip pause inside its allocation, and checks the parent's fields afterwards.
fn flip_inside_the_allocation(store: impl FnOnce(&mut Mutator, &Setup)) {
    let Some(s) = setup() else { return };
    let mut m = s.heap.bind_mutator().unwrap();
    // Slot 0: the pinned parent, whose fields hold two moving nodes (slots 1, 2).
    let p = m.alloc_pinned(s.parent, 0).unwrap();
    let pg = m.get(&p);
    m.push(Some(pg));
    for i in 0..2 {
        push_node(&mut m, s.node, 100 + i);
        let n = m.stack_get(1 + i as usize).unwrap();
        let pg = m.stack_get(0).unwrap();
        m.write_ref(pg, i as usize, Some(n));
    }
    // Some garbage, so that the cycle has something to compact.
    for _ in 0..10_000 {
        m.alloc_push(s.node, 0).unwrap();
        m.pop();
    }

    // Another thread starts the cycle; this one runs on until the driver is held
    // just before the flip pause.
    let heap = s.heap.clone();
    let starter = std::thread::spawn(move || {
        let mut other = heap.bind_mutator().unwrap();
        other.collect();
    });
    assert!(
        s.gate.wait_held(&mut m),
        "the driver did not reach the flip"
    );
    s.gate.release();
    // The flip pause is requested now (offered, or run by the driver), and needs
    // this mutator at a GC point: the allocation inside `store`.
    let t0 = std::time::Instant::now();
    while !m.safepoint_requested() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no flip requested");
        std::hint::spin_loop();
    }
    store(&mut m, &s);
    // The flip pause ran inside the allocation, and the driver is held before the
    // compaction's own forwarding of the large objects: the parent is still
    // pending, as the stores left it.
    assert!(
        s.compacting.wait_held(&mut m),
        "no flip pause inside the allocation"
    );

    // Label the children through the parent's fields (each read forwards the
    // parent first, if still pending), then let the compaction finish.
    let pg = m.stack_get(0).unwrap();
    let c0 = m.read_ref(pg, 0).expect("field 0 set");
    let c1 = m.read_ref(pg, 1).expect("field 1 set");
    assert_ne!(c0.addr(), c1.addr(), "two distinct children");
    for (c, label) in [(c0, 7u64), (c1, 8)] {
        assert_eq!(
            (m.read_word(c, 0), m.read_word(c, CHILD_WORDS as usize - 1)),
            (0, 0),
            "a fresh child reads as zeros (field points at {:#x})",
            c.addr()
        );
        m.write_word(c, 0, label);
        m.write_word(c, CHILD_WORDS as usize - 1, label * 11);
    }
    s.compacting.release();
    m.blocking(|| starter.join().unwrap());
    m.blocking(|| s.heap.wait_idle());
    m.collect();
    m.blocking(|| s.heap.wait_idle());
    let pg = m.stack_get(0).unwrap();
    for (i, label) in [(0usize, 7u64), (1, 8)] {
        let c = m.read_ref(pg, i).unwrap();
        assert_eq!(m.type_of(c), s.child.id(), "field {i} points at a child");
        assert_eq!(
            (m.read_word(c, 0), m.read_word(c, CHILD_WORDS as usize - 1)),
            (label, label * 11),
            "child {i} kept its contents"
        );
    }
    // The two nodes the fields held before are intact on the stack.
    for i in 0..2u64 {
        let n = m.stack_get(1 + i as usize).unwrap();
        assert_eq!(
            (m.read_word(n, 0), m.read_word(n, 1)),
            (100 + i, 3 * (100 + i))
        );
    }
    m.verify().expect("the heap verifies");
}

/// Fails without the parent made ready again after the allocation
/// (`fixed_n_into` in access.rs): the children's post-flip addresses are forwarded
/// a second time with the parent, and its fields point elsewhere.
#[test]
fn push_fixed_n_into_a_pinned_parent_with_a_flip_inside_the_allocation() {
    flip_inside_the_allocation(|m, s| {
        m.push_fixed_n_into::<2>(s.child, 0, s.fields).unwrap();
        // The two children were pushed too.
        assert_eq!(m.stack_len(), 5);
        m.stack_truncate(3);
    });
}

/// As above, without the push.
#[test]
fn alloc_fixed_n_into_a_pinned_parent_with_a_flip_inside_the_allocation() {
    flip_inside_the_allocation(|m, s| {
        m.alloc_fixed_n_into::<2>(s.child, 0, s.fields).unwrap();
        assert_eq!(m.stack_len(), 3);
    });
}
