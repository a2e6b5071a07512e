//! The checked-once access API: field descriptors (`RefField`, `WordField`) and
//! allocation descriptors (`FixedType`), refused when made for the wrong kind of
//! field, and refusing objects of another type or heap when used; handles without
//! a reference count, outliving their mutator; bulk byte copies.

use flipgc_core::{Heap, HeapConfig, TypeRegistry};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn panic_message(f: impl FnOnce()) -> String {
    let Err(payload) = catch_unwind(AssertUnwindSafe(f)) else {
        panic!("expected a panic")
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a string panic payload")
}

#[test]
fn descriptors_are_refused_for_the_wrong_field_kind() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let vec = r.ref_array("vec").unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    assert!(r.fixed_type(node).is_ok());
    assert!(r.ref_field(node, 0).is_ok() && r.ref_field(node, 1).is_ok());
    assert!(r.word_field(node, 2).is_ok());
    let cases = [
        (
            r.ref_field(node, 2).unwrap_err(),
            "field 2 is not a reference field",
        ),
        (
            r.word_field(node, 0).unwrap_err(),
            "field 0 is a reference field",
        ),
        (r.ref_field(node, 3).unwrap_err(), "field 3 out of range"),
        (r.word_field(node, 9).unwrap_err(), "field 9 out of range"),
        (r.fixed_type(vec).unwrap_err(), "array type"),
        (r.ref_field(bytes, 0).unwrap_err(), "array type"),
        (
            r.fixed_type(flipgc_core::object::FILLER).unwrap_err(),
            "unknown type",
        ),
    ];
    for (e, want) in cases {
        assert!(e.to_string().contains(want), "{e} lacks {want:?}");
    }
}

#[test]
fn descriptor_access_reads_and_writes_and_survives_collections() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let t = r.fixed_type(node).unwrap();
    let (left, right) = (r.ref_field(node, 0).unwrap(), r.ref_field(node, 1).unwrap());
    let id = r.word_field(node, 2).unwrap();
    assert_eq!(t.bytes(), 32);
    assert_eq!(t.id(), node);
    let heap = Heap::new(HeapConfig::new(4 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let a = m.alloc_fixed(t).unwrap();
    m.push_fixed(t).unwrap();
    let b = m.pop().unwrap();
    m.set_word(b, id, 7);
    m.set_ref(m.get(&a), right, Some(b));
    m.set_word(m.get(&a), id, 6);
    // Garbage below and between, so that the objects move.
    for _ in 0..100_000 {
        m.push_fixed(t).unwrap();
        m.stack_truncate(0);
    }
    m.collect();
    let a_now = m.get(&a);
    assert_eq!(m.get_word(a_now, id), 6);
    assert_eq!(m.get_ref(a_now, left), None);
    let b_now = m.get_ref(a_now, right).unwrap();
    assert_eq!(m.get_word(b_now, id), 7);
    // Index and descriptor access agree.
    assert_eq!(m.read_ref(a_now, 1), Some(b_now));
    assert_eq!(m.read_word(b_now, 2), 7);
    m.verify().unwrap();
}

#[test]
fn descriptors_refuse_objects_of_another_type_or_registry() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let cell = r.fixed("cell", 3, &[]).unwrap();
    let left = r.ref_field(node, 0).unwrap();
    let id = r.word_field(node, 2).unwrap();
    let cell_t = r.fixed_type(cell).unwrap();
    let mut other = TypeRegistry::new();
    let onode = other.fixed("node", 3, &[0, 1]).unwrap();
    let oleft = other.ref_field(onode, 0).unwrap();
    let ot = other.fixed_type(onode).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let c = m.alloc_fixed(cell_t).unwrap();
    // A node's reference field used on a cell (whose field 0 is a word): refused,
    // since that would hide or forge a reference.
    let msg = panic_message(|| m.set_ref(m.get(&c), left, None));
    assert!(
        msg.contains("field of type \"node\"") && msg.contains("\"cell\""),
        "{msg}"
    );
    let msg = panic_message(|| {
        m.get_word(m.get(&c), id);
    });
    assert!(msg.contains("field of type \"node\""), "{msg}");
    // Descriptors of another registry, even with the same layout, are refused.
    let msg = panic_message(|| {
        m.get_ref(m.get(&c), oleft);
    });
    assert!(msg.contains("another type registry"), "{msg}");
    let e = m.alloc_fixed(ot).unwrap_err().to_string();
    assert!(e.contains("another type registry"), "{e}");
    // Nothing was written: the cell reads as allocated.
    assert_eq!(m.read_word(m.get(&c), 0), 0);
    m.verify().unwrap();
}

#[test]
fn wide_fixed_types_keep_their_references() {
    // References past the first 64 fields take the slow side of the shape.
    let mut r = TypeRegistry::new();
    let wide = r.fixed("wide", 100, &[3, 70, 99]).unwrap();
    let leaf = r.fixed("leaf", 1, &[]).unwrap();
    let f70 = r.ref_field(wide, 70).unwrap();
    assert!(r.ref_field(wide, 69).is_err());
    let heap = Heap::new(HeapConfig::new(1 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let w = m.alloc(wide, 0).unwrap();
    let l = m.alloc(leaf, 0).unwrap();
    m.write_word(m.get(&l), 0, 4242);
    m.set_ref(m.get(&w), f70, Some(m.get(&l)));
    m.write_ref(m.get(&w), 99, Some(m.get(&l)));
    drop(l);
    for _ in 0..10_000 {
        drop(m.alloc(leaf, 0).unwrap());
    }
    m.collect();
    let w = m.get(&w);
    let l70 = m.get_ref(w, f70).unwrap();
    assert_eq!(m.read_word(l70, 0), 4242);
    assert_eq!(m.read_ref(w, 99), Some(l70));
    assert_eq!(m.read_ref(w, 3), None);
    m.verify().unwrap();
}

#[test]
fn handles_outlive_their_mutator() {
    let mut r = TypeRegistry::new();
    let cell = r.fixed("cell", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), r).unwrap();
    let m = heap.bind_mutator();
    let mut m = m.unwrap();
    let h = m.alloc(cell, 0).unwrap();
    let h2 = h.clone();
    drop(m);
    // The handles still drop and clone safely; a new mutator refuses them.
    let h3 = h2.clone();
    drop(h2);
    let m = heap.bind_mutator().unwrap();
    let msg = panic_message(|| {
        m.get(&h);
    });
    assert!(msg.contains("handle belongs to another mutator"), "{msg}");
    drop((h, h3));
}

#[test]
fn bulk_bytes_round_trip_at_any_offset() {
    let mut r = TypeRegistry::new();
    let blob = r.byte_array("blob").unwrap();
    let heap = Heap::new(HeapConfig::new(1 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let b = m.alloc(blob, 301).unwrap();
    let data: Vec<u8> = (0..301u32).map(|i| (i * 37 % 251) as u8).collect();
    m.write_bytes(m.get(&b), 0, &data);
    for (off, len) in [
        (0, 301),
        (1, 7),
        (3, 200),
        (8, 8),
        (295, 6),
        (300, 1),
        (5, 0),
    ] {
        let mut out = vec![0u8; len];
        m.read_bytes(m.get(&b), off, &mut out);
        assert_eq!(out, data[off..off + len], "read {off}+{len}");
    }
    m.write_bytes(m.get(&b), 5, &[0xff; 11]);
    let mut all = vec![0u8; 301];
    m.read_bytes(m.get(&b), 0, &mut all);
    let mut want = data.clone();
    want[5..16].fill(0xff);
    assert_eq!(all, want);
    let msg = panic_message(|| m.write_bytes(m.get(&b), 300, &[1, 2]));
    assert!(msg.contains("out of range"), "{msg}");
}

/// The constructors' tests' types: a node (fields 0 and 1 references, 2 a word), a
/// cell (field 1 a reference, field 0 a word), a weak pair (field 0 strong, 1 weak).
struct Kinds {
    t: flipgc_core::FixedType,
    cell_t: flipgc_core::FixedType,
    weak_t: flipgc_core::FixedType,
    left: flipgc_core::RefField,
    right: flipgc_core::RefField,
    id: flipgc_core::WordField,
    strong_f: flipgc_core::RefField,
    weak_f: flipgc_core::RefField,
}

/// A 4 MiB heap of [`Kinds`].
fn constructor_heap() -> (Heap, Kinds) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let cell = r.fixed("cell", 2, &[1]).unwrap();
    let weak = r.fixed_weak("weak", 2, &[0], &[1]).unwrap();
    let k = Kinds {
        t: r.fixed_type(node).unwrap(),
        cell_t: r.fixed_type(cell).unwrap(),
        weak_t: r.fixed_type(weak).unwrap(),
        left: r.ref_field(node, 0).unwrap(),
        right: r.ref_field(node, 1).unwrap(),
        id: r.word_field(node, 2).unwrap(),
        strong_f: r.ref_field(weak, 0).unwrap(),
        weak_f: r.ref_field(weak, 1).unwrap(),
    };
    (Heap::new(HeapConfig::new(4 << 20), r).unwrap(), k)
}

/// `push_fixed_from_stack`: the new object's leading reference fields take the top
/// stack entries (deepest first), across allocations that collect and move them;
/// refused beyond the type's leading strong reference fields or the stack's depth,
/// with the stack left as it was.
#[test]
fn constructors_from_the_stack_take_their_fields_and_are_checked_once() {
    let (heap, k) = constructor_heap();
    let Kinds {
        t,
        cell_t,
        weak_t,
        left,
        right,
        id,
        ..
    } = k;
    let mut m = heap.bind_mutator().unwrap();
    // 400 trees of depth 10, each built bottom-up with every inner node made by
    // the constructor (half of all allocations: many collections land in one) and
    // checked (its leaves' labels) before it is dropped: 26 MB through a 4 MB heap.
    fn build(
        m: &mut flipgc_core::Mutator,
        t: flipgc_core::FixedType,
        id: flipgc_core::WordField,
        depth: u32,
        next: &mut u64,
    ) {
        if depth == 0 {
            m.push_fixed(t).unwrap();
            let leaf = m.stack_get(m.stack_len() - 1).unwrap();
            m.set_word(leaf, id, *next);
            *next += 1;
            return;
        }
        build(m, t, id, depth - 1, next);
        build(m, t, id, depth - 1, next);
        m.push_fixed_from_stack(t, 2).unwrap();
    }
    let mut next = 0u64;
    for _ in 0..400 {
        let first = next;
        build(&mut m, t, id, 10, &mut next);
        assert_eq!(m.stack_len(), 1);
        // Leaves left to right carry first, first + 1, ...
        let mut todo = vec![m.stack_get(0).unwrap()];
        let mut leaves = Vec::new();
        while let Some(n) = todo.pop() {
            match (m.get_ref(n, left), m.get_ref(n, right)) {
                (Some(l), Some(r)) => {
                    // The constructor wrote fields 0 and 1 only: the label, in
                    // recycled memory too, must read as zero.
                    assert_eq!(m.get_word(n, id), 0, "an inner node's label");
                    todo.extend([r, l]);
                }
                (None, None) => leaves.push(m.get_word(n, id)),
                other => panic!("a half-made node: {other:?}"),
            }
        }
        assert_eq!(leaves, (first..next).collect::<Vec<_>>());
        m.stack_truncate(0);
    }
    assert!(
        heap.pause_log().records().len() > 6,
        "the allocations collected"
    );
    m.verify().unwrap();

    // Refusals: the stack is left as it was.
    m.stack_truncate(0);
    m.push_fixed(t).unwrap();
    let msg = panic_message(|| drop(m.push_fixed_from_stack(t, 2)));
    assert!(msg.contains("the root stack holds 1 entries"), "{msg}");
    m.push_fixed(t).unwrap();
    let msg = panic_message(|| drop(m.push_fixed_from_stack(t, 3)));
    assert!(
        msg.contains("first 2 fields are strong references"),
        "{msg}"
    );
    let msg = panic_message(|| drop(m.push_fixed_from_stack(cell_t, 1)));
    assert!(msg.contains("first 0 fields"), "{msg}");
    let msg = panic_message(|| drop(m.push_fixed_from_stack(weak_t, 2)));
    assert!(msg.contains("first 1 fields"), "{msg}");
    assert_eq!(m.stack_len(), 2);
    m.push_fixed_from_stack(weak_t, 1).unwrap();
    m.push_fixed_from_stack(cell_t, 0).unwrap();
    assert_eq!(m.stack_len(), 3);
}

/// `push_fixed_n_into`: the new objects land in the parent's fields and on the
/// stack, across allocations that collect and move the parent (trees built
/// top-down, each checked: every inner node's children are the objects pushed for
/// it, leaves are zeroed); refused, before anything is allocated, for a slot out
/// of range or null, and for a parent of another type; a weak field takes its cold
/// path.
#[test]
fn top_down_constructors_store_new_objects_into_their_parent() {
    let (heap, k) = constructor_heap();
    let Kinds {
        t,
        cell_t,
        weak_t,
        left,
        right,
        id,
        strong_f,
        weak_f,
    } = k;
    let mut m = heap.bind_mutator().unwrap();
    // Gives the node in slot `at` two children, labelled, down to `depth`.
    fn populate(
        m: &mut flipgc_core::Mutator,
        fs: (flipgc_core::FixedType, [flipgc_core::RefField; 2]),
        id: flipgc_core::WordField,
        depth: u32,
        at: usize,
        next: &mut u64,
    ) {
        if depth == 0 {
            return;
        }
        m.push_fixed_n_into::<2>(fs.0, at, fs.1).unwrap();
        let first = m.stack_len() - 2;
        for i in [first, first + 1] {
            let child = m.stack_get(i).unwrap();
            assert_eq!(m.get_refs(child, fs.1), [None, None], "a new node");
            m.set_word(child, id, *next);
            *next += 1;
        }
        let parent = m.stack_get(at).unwrap();
        let stored = m.get_refs(parent, fs.1);
        assert_eq!(stored, [m.stack_get(first), m.stack_get(first + 1)]);
        populate(m, fs, id, depth - 1, first, next);
        populate(m, fs, id, depth - 1, first + 1, next);
        m.stack_truncate(first);
    }
    // 400 trees of depth 10 (2,047 nodes of 32 bytes each): 26 MB through 4 MB.
    let mut next = 1u64;
    for _ in 0..400 {
        m.stack_truncate(0);
        m.push_fixed(t).unwrap();
        let first = next;
        populate(&mut m, (t, [left, right]), id, 10, 0, &mut next);
        assert_eq!(m.stack_len(), 1);
        // Pre-order, left first: the labels each node's children got, in order.
        let mut todo = vec![m.stack_get(0).unwrap()];
        let mut labels = Vec::new();
        while let Some(n) = todo.pop() {
            if let [Some(l), Some(r)] = m.get_refs(n, [left, right]) {
                labels.push((m.get_word(l, id), m.get_word(r, id)));
                todo.extend([r, l]);
            }
        }
        assert_eq!(labels.len(), 1023);
        let pairs: Vec<_> = labels.iter().map(|&(l, r)| (l, r - l)).collect();
        assert!(pairs.iter().all(|&(_, d)| d == 1), "siblings made together");
        let mut seen: Vec<u64> = labels.iter().flat_map(|&(l, r)| [l, r]).collect();
        seen.sort_unstable();
        assert_eq!(seen, (first..next).collect::<Vec<_>>());
    }
    assert!(
        heap.pause_log().records().len() > 6,
        "the allocations collected"
    );
    m.verify().unwrap();

    // Refusals: nothing allocated, nothing pushed.
    m.stack_truncate(0);
    m.push_fixed(cell_t).unwrap();
    m.push(None);
    // Two probes: the second lies straight after the first unless something was
    // allocated between them.
    m.push_fixed(cell_t).unwrap();
    let before = m.stack_get(2).unwrap().addr();
    m.stack_truncate(2);
    for (at, what) in [(2, "slot 2 holds no object"), (1, "slot 1 holds no object")] {
        let msg = panic_message(|| drop(m.push_fixed_n_into::<2>(t, at, [left, right])));
        assert!(msg.contains(what), "{msg}");
    }
    let msg = panic_message(|| drop(m.push_fixed_n_into::<2>(t, 0, [left, right])));
    assert!(msg.contains("node"), "{msg}");
    assert_eq!(m.stack_len(), 2);
    m.push_fixed(cell_t).unwrap();
    let after = m.stack_get(2).unwrap().addr();
    assert_eq!(after, before + 24, "a refused call allocated");
    // A weak field, through the cold path: both stores land.
    m.stack_truncate(0);
    m.push_fixed(weak_t).unwrap();
    m.push_fixed_n_into::<2>(cell_t, 0, [strong_f, weak_f])
        .unwrap();
    let w = m.stack_get(0).unwrap();
    let (a, b) = (m.stack_get(1), m.stack_get(2));
    assert_eq!((m.get_ref(w, strong_f), m.get_ref(w, weak_f)), (a, b));
}

/// `push_fixed_with_new` (bottom-up) and `alloc_fixed_n_into` (top-down): leaves
/// made with no root slot of their own, across allocations that collect and move
/// their parents. Every tree is walked whole: complete to its depth (a parent
/// read before the allocation, or a store lost, leaves a hole), every node
/// distinct and its label zero, no stack entry left behind (zeroing in recycled
/// memory, which this heap does not hand out, is checked by
/// `concurrent.rs::allocation_during_compaction_takes_recycled_pages_zeroed`). It
/// fails with the parent read before the allocation, with a leaf stored twice,
/// or with the leaves pushed. Refused, with
/// nothing allocated, beyond the parent type's leading strong references and for
/// a null parent slot; a weak field takes its cold path.
#[test]
fn leaf_constructors_store_zeroed_leaves_without_stack_slots() {
    let (heap, k) = constructor_heap();
    let Kinds {
        t,
        cell_t,
        weak_t,
        left,
        right,
        id,
        strong_f,
        weak_f,
    } = k;
    let mut m = heap.bind_mutator().unwrap();
    fn build(m: &mut flipgc_core::Mutator, t: flipgc_core::FixedType, depth: u32) {
        if depth == 1 {
            m.push_fixed_with_new::<2>(t, t).unwrap();
            return;
        }
        build(m, t, depth - 1);
        build(m, t, depth - 1);
        m.push_fixed_from_stack(t, 2).unwrap();
    }
    fn populate(
        m: &mut flipgc_core::Mutator,
        t: flipgc_core::FixedType,
        fs: [flipgc_core::RefField; 2],
        depth: u32,
        at: usize,
    ) {
        if depth == 1 {
            m.alloc_fixed_n_into::<2>(t, at, fs).unwrap();
            return;
        }
        m.push_fixed_n_into::<2>(t, at, fs).unwrap();
        let first = m.stack_len() - 2;
        populate(m, t, fs, depth - 1, first);
        populate(m, t, fs, depth - 1, first + 1);
        m.stack_truncate(first);
    }
    // 600 trees of depth 9 (1,023 nodes of 32 bytes): 20 MB through a 4 MB heap.
    const DEPTH: u32 = 9;
    for round in 0..600 {
        m.stack_truncate(0);
        if round % 2 == 0 {
            build(&mut m, t, DEPTH);
        } else {
            m.push_fixed(t).unwrap();
            populate(&mut m, t, [left, right], DEPTH, 0);
        }
        assert_eq!(m.stack_len(), 1, "round {round}: a stack entry left");
        let mut todo = vec![(m.stack_get(0).unwrap(), 0)];
        let mut seen = std::collections::HashSet::new();
        while let Some((n, d)) = todo.pop() {
            assert!(seen.insert(n.addr()), "round {round}: a node twice");
            assert_eq!(m.get_word(n, id), 0, "round {round}: a node not zeroed");
            m.set_word(n, id, u64::MAX);
            match (m.get_refs(n, [left, right]), d < DEPTH) {
                ([Some(l), Some(r)], true) => todo.extend([(l, d + 1), (r, d + 1)]),
                ([None, None], false) => {}
                (refs, _) => panic!("round {round}: a node at depth {d} has {refs:?}"),
            }
        }
        assert_eq!(seen.len(), 1023);
    }
    assert!(
        heap.pause_log().records().len() > 4,
        "the allocations collected"
    );
    m.verify().unwrap();

    // Refusals: nothing allocated, nothing pushed.
    m.stack_truncate(0);
    m.push_fixed(cell_t).unwrap();
    m.push(None);
    m.push_fixed(cell_t).unwrap();
    let before = m.stack_get(2).unwrap().addr();
    m.stack_truncate(2);
    let msg = panic_message(|| drop(m.push_fixed_with_new::<3>(t, t)));
    assert!(
        msg.contains("first 2 fields are strong references"),
        "{msg}"
    );
    let msg = panic_message(|| drop(m.push_fixed_with_new::<1>(cell_t, t)));
    assert!(msg.contains("first 0 fields"), "{msg}");
    let msg = panic_message(|| drop(m.alloc_fixed_n_into::<2>(t, 1, [left, right])));
    assert!(msg.contains("slot 1 holds no object"), "{msg}");
    let msg = panic_message(|| drop(m.alloc_fixed_n_into::<2>(t, 0, [left, right])));
    assert!(msg.contains("node"), "{msg}");
    assert_eq!(m.stack_len(), 2);
    m.push_fixed(cell_t).unwrap();
    assert_eq!(
        m.stack_get(2).unwrap().addr(),
        before + 24,
        "a refused call allocated"
    );
    // A weak field, through the cold path: both stores land, nothing is pushed.
    m.stack_truncate(0);
    m.push_fixed(weak_t).unwrap();
    m.alloc_fixed_n_into::<2>(cell_t, 0, [strong_f, weak_f])
        .unwrap();
    assert_eq!(m.stack_len(), 1);
    let w = m.stack_get(0).unwrap();
    let (a, b) = (
        m.get_ref(w, strong_f).unwrap(),
        m.get_ref(w, weak_f).unwrap(),
    );
    assert_eq!(b.addr(), a.addr() + 24, "two new cells, side by side");
}

/// `push_fixed_n`: `N` objects of a type pushed in one step, each of the type,
/// zeroed and distinct, through collections (the allocation buffer's refills take
/// the slow path, which makes them one at a time: the first may end the old buffer
/// and the others start a new one, so they need not be one after the other); and
/// on out-of-memory, the stack as it was (fails if the slow path does not undo the
/// pushes it made). Zeroing in recycled memory,
/// which this heap's collections do not hand out here, is checked by
/// `concurrent.rs::allocation_during_compaction_takes_recycled_pages_zeroed`.
#[test]
fn folded_allocations_push_zeroed_objects_of_their_type() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let (left, right) = (r.ref_field(node, 0).unwrap(), r.ref_field(node, 1).unwrap());
    let label = r.word_field(node, 2).unwrap();
    let t = r.fixed_type(node).unwrap();
    let heap = Heap::new(HeapConfig::new(4 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    // 100,000 steps of three nodes of 32 bytes: 9.6 MB through a 4 MB heap.
    for step in 0..100_000u64 {
        m.push_fixed_n::<3>(t).unwrap();
        let top = m.stack_len();
        let made: Vec<_> = (top - 3..top).map(|i| m.stack_get(i).unwrap()).collect();
        for (k, &g) in made.iter().enumerate() {
            // Of the node type (the descriptors check the header) and zeroed.
            assert_eq!(m.get_refs(g, [left, right]), [None, None], "step {step}");
            assert_eq!(m.get_word(g, label), 0, "step {step}, object {k}");
            if k > 0 {
                assert_ne!(g, made[k - 1], "step {step}: one object pushed twice");
            }
        }
        // Garbage in every field, for the memory's next use.
        for &g in &made {
            m.set_refs(g, [left, right], [Some(g), Some(made[0])]);
            m.set_word(g, label, u64::MAX);
        }
        if top >= 3_000 {
            m.stack_truncate(0);
        }
    }
    assert!(
        heap.pause_log().records().len() > 2,
        "the allocations collected"
    );
    m.verify().unwrap();

    // Out of memory: the stack is as it was, also when some of the objects fit.
    m.stack_truncate(0);
    let err = loop {
        let before = m.stack_len();
        match m.push_fixed_n::<7>(t) {
            Ok(()) => assert_eq!(m.stack_len(), before + 7),
            Err(e) => {
                assert_eq!(m.stack_len(), before, "a refused call pushes nothing");
                break e;
            }
        }
    };
    assert!(err.to_string().starts_with("out of memory"), "{err}");
    m.verify().unwrap();
    m.stack_truncate(0);
    m.push_fixed_n::<2>(t).unwrap();
}

/// `get_refs` and `set_refs`: several reference fields for one check of the object;
/// refused for descriptors of different types, for an object of another type, and
/// (`set_refs`, before any store) for a value of another heap.
#[test]
fn get_refs_and_set_refs_access_fields_with_one_check() {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let cell = r.fixed("cell", 1, &[0]).unwrap();
    let (left, right) = (r.ref_field(node, 0).unwrap(), r.ref_field(node, 1).unwrap());
    let cell_ref = r.ref_field(cell, 0).unwrap();
    let (t, cell_t) = (r.fixed_type(node).unwrap(), r.fixed_type(cell).unwrap());
    let heap = Heap::new(HeapConfig::new(1 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    m.push_fixed(t).unwrap();
    m.push_fixed(t).unwrap();
    m.push_fixed(cell_t).unwrap();
    let (a, b, c) = (
        m.stack_get(0).unwrap(),
        m.stack_get(1).unwrap(),
        m.stack_get(2).unwrap(),
    );
    m.set_ref(a, right, Some(b));
    assert_eq!(m.get_refs(a, [left, right]), [None, Some(b)]);
    assert_eq!(
        m.get_refs(a, [right, right, left]),
        [Some(b), Some(b), None]
    );
    assert_eq!(m.get_refs::<0>(a, []), []);
    let msg = panic_message(|| {
        let _ = m.get_refs(a, [left, cell_ref]);
    });
    assert!(msg.contains("different types"), "{msg}");
    let msg = panic_message(|| {
        let _ = m.get_refs(c, [left, right]);
    });
    assert!(msg.contains("used on"), "{msg}");

    // set_refs: the same checks, then each store in order.
    m.set_refs(b, [left, right], [Some(a), Some(c)]);
    assert_eq!(m.get_refs(b, [left, right]), [Some(a), Some(c)]);
    m.set_refs(b, [right, left, right], [None, None, Some(b)]);
    assert_eq!(m.get_refs(b, [left, right]), [None, Some(b)], "in order");
    m.set_refs::<0>(b, [], []);
    let msg = panic_message(|| m.set_refs(a, [left, cell_ref], [None, None]));
    assert!(msg.contains("different types"), "{msg}");
    let msg = panic_message(|| m.set_refs(c, [left, right], [None, None]));
    assert!(msg.contains("used on"), "{msg}");
    let (other, other_t) = {
        let mut r = TypeRegistry::new();
        let n = r.fixed("node", 3, &[0, 1]).unwrap();
        let t = r.fixed_type(n).unwrap();
        (Heap::new(HeapConfig::new(1 << 20), r).unwrap(), t)
    };
    let mut om = other.bind_mutator().unwrap();
    om.push_fixed(other_t).unwrap();
    let foreign = om.stack_get(0).unwrap();
    let msg = panic_message(|| m.set_refs(a, [left, right], [Some(c), Some(foreign)]));
    assert!(msg.contains("does not belong to this heap"), "{msg}");
    assert_eq!(
        m.get_refs(a, [left, right]),
        [None, Some(b)],
        "a refused pair stores nothing"
    );
}

/// `ref_reader`: a reader checked once reads what `get_refs` reads, across
/// collections (a new reader after each GC point) and for a weak field (its cold
/// path); and it refuses what `get_refs` refuses: descriptors of different types
/// (when made), an object of another type, an object of another heap, and
/// descriptors of another registry. Fails with the reader's header compare or its
/// range check taken out (the misuse reads fields instead of panicking).
#[test]
fn ref_readers_read_as_get_refs_and_refuse_the_same() {
    let (heap, k) = constructor_heap();
    let Kinds {
        t,
        cell_t,
        weak_t,
        left,
        right,
        strong_f,
        weak_f,
        ..
    } = k;
    let mut m = heap.bind_mutator().unwrap();
    // A chain of nodes (each one's right is the next), with garbage between, through
    // collections; compared node by node after each round.
    let mut compared = 0;
    for round in 0..40 {
        m.stack_truncate(0);
        m.push_fixed(t).unwrap(); // slot 0: the head
        m.stack_dup(0); // slot 1: the tail
        for i in 0..2_000 {
            m.push_fixed(t).unwrap(); // garbage
            m.stack_truncate(2);
            m.push_fixed_n_into::<1>(t, 1, [right]).unwrap(); // tail.right, slot 2
            if i % 3 == 0 {
                m.alloc_fixed_n_into::<1>(t, 1, [left]).unwrap();
            }
            m.stack_copy(2, 1);
            m.stack_truncate(2);
        }
        let reader = m.ref_reader([left, right]);
        let mut n = m.stack_get(0);
        while let Some(o) = n {
            let got = reader.get(o);
            assert_eq!(got, m.get_refs(o, [left, right]), "round {round}");
            assert_eq!(reader.get(o), got);
            compared += 1;
            n = got[1];
        }
    }
    assert_eq!(compared, 40 * 2_001);
    assert!(heap.pause_log().records().len() > 2, "the rounds collected");
    // Longer chains, read after collections.
    m.stack_truncate(0);
    m.push_fixed(t).unwrap();
    for _ in 0..20_000 {
        m.push_fixed_n_into::<1>(t, m.stack_len() - 1, [right])
            .unwrap();
        if m.stack_len() > 64 {
            m.stack_copy(m.stack_len() - 1, 1);
            m.stack_truncate(2);
        }
    }
    m.collect();
    let reader = m.ref_reader([right, left]);
    let mut n = m.stack_get(0);
    let mut len = 0;
    while let Some(o) = n {
        let [r, l] = reader.get(o);
        assert_eq!([r, l], m.get_refs(o, [right, left]));
        assert_eq!(l, None);
        len += 1;
        n = r;
    }
    assert!(len >= 64, "{len}");
    // A weak field: the cold path, the same answer.
    m.stack_truncate(0);
    m.push_fixed(weak_t).unwrap();
    m.alloc_fixed_n_into::<2>(cell_t, 0, [strong_f, weak_f])
        .unwrap();
    let w = m.stack_get(0).unwrap();
    let both = m.ref_reader([strong_f, weak_f]).get(w);
    assert!(both[0].is_some() && both[1].is_some());
    assert_eq!(both, m.get_refs(w, [strong_f, weak_f]));

    // Refusals.
    m.push_fixed(cell_t).unwrap();
    let cell = m.stack_get(1).unwrap();
    let msg = panic_message(|| {
        let _ = m.ref_reader([left, strong_f]);
    });
    assert!(msg.contains("different types"), "{msg}");
    let msg = panic_message(|| {
        let _ = m.ref_reader([left, right]).get(cell);
    });
    assert!(msg.contains("used on"), "{msg}");
    let (other, other_k) = constructor_heap();
    let mut om = other.bind_mutator().unwrap();
    om.push_fixed(other_k.t).unwrap();
    let foreign = om.stack_get(0).unwrap();
    let msg = panic_message(|| {
        let _ = m.ref_reader([left, right]).get(foreign);
    });
    assert!(msg.contains("does not belong to this heap"), "{msg}");
    let node = m.stack_get(0).unwrap();
    let msg = panic_message(|| {
        let _ = m.ref_reader([other_k.left, other_k.right]).get(node);
    });
    assert!(msg.contains("another type registry"), "{msg}");
}
