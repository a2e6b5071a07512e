//! The public API end to end: configuration and type errors, binding mutators,
//! every kind of root across collections (handles, the root stack, globals, from
//! other threads too), the panics that guard field access, large objects, the
//! verifier's counts, `blocking`, and the pause log.
//!
//! Objects carry ids in their word fields (or their first bytes), written before a
//! collection and read back after it, so a root or reference that was not updated
//! reads as a wrong id rather than passing silently.

use flipgc_core::object::FILLER;
use flipgc_core::{
    FlipMode, GcError, GcErrorKind, GcTrigger, Handle, Heap, HeapConfig, Mutator, TypeId,
    TypeRegistry, MAX_CAPACITY, MIN_CAPACITY,
};
use flipgc_heap::Level;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
struct Types {
    /// Three words: references in fields 0 and 1, an id in field 2.
    node: TypeId,
    vec: TypeId,
    bytes: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let vec = r.ref_array("vec").unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    (r, Types { node, vec, bytes })
}

/// Bytes of one `node` (header + 3 fields).
const NODE_BYTES: usize = 32;

fn new_heap(capacity: usize) -> (Heap, Types) {
    let (r, t) = registry();
    let mut cfg = HeapConfig::new(capacity);
    cfg.gc_workers = 2;
    (Heap::new(cfg, r).unwrap(), t)
}

/// The pauses that moved the heap (one per cycle): `"full"` or `"flip"`.
fn moving_pauses(log: &flipgc_core::PauseLog) -> Vec<&flipgc_core::PauseRecord> {
    log.records()
        .iter()
        .filter(|r| r.kind == "full" || r.kind == "flip")
        .collect()
}

/// A rooted node with `id` in its word field.
fn node(m: &mut Mutator, t: Types, id: u64) -> Handle {
    let h = m.alloc(t.node, 0).unwrap();
    m.write_word(m.get(&h), 2, id);
    h
}

fn id_of(m: &Mutator, h: &Handle) -> u64 {
    m.read_word(m.get(h), 2)
}

/// `count` unrooted nodes: garbage below whatever is allocated next.
fn garbage(m: &mut Mutator, t: Types, count: usize) {
    for _ in 0..count {
        drop(m.alloc(t.node, 0).unwrap());
    }
}

/// The message of the panic `f` raises (fails the test if it does not panic).
fn panic_message(f: impl FnOnce()) -> String {
    let Err(payload) = catch_unwind(AssertUnwindSafe(f)) else {
        panic!("expected a panic")
    };
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        panic!("panic payload is not a string")
    }
}

fn page_size() -> usize {
    flipgc_heap::Capabilities::probe().geometry.page
}

// ---- configuration ----

#[test]
fn every_bad_config_field_is_refused_with_its_value() {
    let with = |f: &dyn Fn(&mut HeapConfig)| {
        let mut c = HeapConfig::new(1 << 20);
        f(&mut c);
        c
    };
    let cases: Vec<(HeapConfig, &str)> = vec![
        (HeapConfig::new(0), "capacity 0 bytes"),
        (
            HeapConfig::new(MAX_CAPACITY + 1),
            "capacity 17592186044417 bytes exceeds the maximum",
        ),
        (
            with(&|c| c.large_object_threshold = 8),
            "large-object threshold 8 bytes",
        ),
        (
            with(&|c| c.large_object_threshold = (1 << 20) + 1),
            "large-object threshold 1048577 bytes",
        ),
        (
            with(&|c| c.large_object_capacity = MAX_CAPACITY + 1),
            "large-object capacity 17592186044417 bytes",
        ),
        (with(&|c| c.tlab_size = 128), "TLAB size 128 bytes"),
        (with(&|c| c.tlab_size = 512 << 10), "TLAB size 524288 bytes"),
        (with(&|c| c.tlab_size = 1001), "TLAB size 1001 bytes"),
        (with(&|c| c.gc_workers = 0), "GC worker count 0"),
        (with(&|c| c.gc_workers = 1000), "GC worker count 1000"),
        (
            with(&|c| c.trigger = GcTrigger::AfterBytes(0)),
            "AfterBytes(0)",
        ),
        (
            HeapConfig {
                flip: FlipMode::Level(Level::Pud),
                ..HeapConfig::new(64 << 20)
            },
            "got 67108864",
        ),
    ];
    for (cfg, needle) in cases {
        let shown = format!("{cfg:?}");
        match Heap::new(cfg, TypeRegistry::new()) {
            Err(e) if matches!(e.kind(), GcErrorKind::Config(_)) => {
                let full = e.to_string();
                let GcErrorKind::Config(msg) = e.into_kind() else {
                    unreachable!()
                };
                assert!(msg.contains(needle), "{msg:?} lacks {needle:?} ({shown})");
                assert!(full.starts_with("invalid heap configuration: "), "{full}");
            }
            Err(e) => panic!("{shown}: expected a Config error, got {e:?}"),
            Ok(h) => panic!("{shown}: accepted as {h:?}"),
        }
    }
    // The PUD refusal names the level and the size it needs.
    let e = Heap::new(
        HeapConfig {
            flip: FlipMode::Level(Level::Pud),
            ..HeapConfig::new(64 << 20)
        },
        TypeRegistry::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("flip level pud") && e.contains("1073741824"),
        "{e}"
    );
}

#[test]
fn good_config_is_accepted_with_capacity_rounded_to_pages() {
    let page = page_size();
    let cap = 1_000_001;
    let heap = Heap::new(HeapConfig::new(cap), TypeRegistry::new()).unwrap();
    assert_eq!(heap.config().capacity, cap.next_multiple_of(page));
    assert_eq!(heap.config().capacity % page, 0);
    assert_eq!(heap.mutator_count(), 0);
    assert_eq!(heap.pause_log().records().len(), 0);
    assert_eq!(heap.used_bytes(), 0);
    // The smallest capacity is accepted once the TLAB fits in a quarter of it.
    let small = HeapConfig {
        tlab_size: MIN_CAPACITY / 4,
        ..HeapConfig::new(MIN_CAPACITY)
    };
    assert_eq!(
        Heap::new(small, TypeRegistry::new())
            .unwrap()
            .config()
            .capacity,
        MIN_CAPACITY
    );
}

// ---- types ----

#[test]
fn type_registry_refuses_duplicate_and_out_of_range_reference_fields() {
    let mut r = TypeRegistry::new();
    match r.fixed("dup", 4, &[2, 0, 2]).map_err(GcError::into_kind) {
        Err(GcErrorKind::Type(msg)) => {
            assert!(
                msg.contains("\"dup\"") && msg.contains("duplicate"),
                "{msg}"
            );
        }
        other => panic!("expected a Type error, got {other:?}"),
    }
    match r.fixed("oob", 4, &[1, 4]).map_err(GcError::into_kind) {
        Err(GcErrorKind::Type(msg)) => assert!(
            msg.contains("\"oob\"") && msg.contains("reference field 4 is not below 4"),
            "{msg}"
        ),
        other => panic!("expected a Type error, got {other:?}"),
    }
    // Nothing was registered by the refusals.
    assert_eq!(r.len(), 1);
    let ok = r.fixed("ok", 4, &[3, 1]).unwrap();
    assert_eq!(r.len(), 2);
    assert!(r.get(ok).is_some());
}

#[test]
fn alloc_refuses_unknown_types_and_oversized_lengths() {
    let (small, t) = registry();
    // A type id only a bigger registry knows.
    let mut big = registry().0;
    let foreign = big.fixed("only-in-big", 1, &[]).unwrap();
    assert!(small.get(foreign).is_none());

    let heap = Heap::new(HeapConfig::new(8 << 20), small).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let type_err = |r: Result<Handle, GcError>| match r.map_err(GcError::into_kind) {
        Err(GcErrorKind::Type(msg)) => msg,
        other => panic!("expected a Type error, got {other:?}"),
    };
    let msg = type_err(m.alloc(foreign, 0));
    assert!(
        msg.contains(&format!("unknown type index {}", foreign.index())),
        "{msg}"
    );
    let msg = type_err(m.alloc(FILLER, 3));
    assert!(msg.contains("unknown type index 1"), "{msg}");
    for ty in [t.vec, t.bytes] {
        let msg = type_err(m.alloc(ty, 1 << 40));
        assert!(msg.contains("length 1099511627776 exceeds"), "{msg}");
    }
    let msg = type_err(m.alloc_push(t.vec, usize::MAX).map(|()| unreachable!()));
    assert!(msg.contains("exceeds"), "{msg}");
    assert_eq!(m.stack_len(), 0, "a refused alloc_push pushes nothing");
    // The heap is untouched and still works.
    assert_eq!(heap.used_bytes(), 0);
    let h = node(&mut m, t, 7);
    m.collect();
    assert_eq!(id_of(&m, &h), 7);
}

// ---- mutators ----

#[test]
fn one_mutator_per_thread_per_heap() {
    let (heap, t) = new_heap(8 << 20);
    let m = heap.bind_mutator().unwrap();
    match heap.bind_mutator().map_err(GcError::into_kind) {
        Err(GcErrorKind::Config(msg)) => assert!(msg.contains("already has a mutator"), "{msg}"),
        other => panic!("second bind: {other:?}"),
    }
    // A clone of the heap is the same heap.
    assert!(heap.clone().bind_mutator().is_err());
    assert_eq!(heap.mutator_count(), 1);
    // Another heap on the same thread is fine.
    let (heap2, _) = new_heap(1 << 20);
    let m2 = heap2.bind_mutator().unwrap();
    assert_eq!((heap.mutator_count(), heap2.mutator_count()), (1, 1));
    drop(m);
    assert_eq!(heap.mutator_count(), 0);
    let mut m = heap.bind_mutator().expect("binding again after the drop");
    assert_eq!(heap.mutator_count(), 1);
    let h = node(&mut m, t, 3);
    m.collect();
    assert_eq!(id_of(&m, &h), 3);
    drop(m2);
    assert_eq!(heap2.mutator_count(), 0);
}

#[test]
fn mutators_on_other_threads_work_and_are_counted() {
    const THREADS: usize = 3;
    let (heap, t) = new_heap(16 << 20);
    let mut m0 = heap.bind_mutator().unwrap();
    let mine = node(&mut m0, t, 1000);
    let bound = Barrier::new(THREADS + 1);
    let done = Barrier::new(THREADS + 1);
    // The main thread waits in `blocking`, so the threads' collections need not wait
    // for it. Threads report results instead of asserting, so that a failure cannot
    // leave the others waiting at a barrier forever.
    let (during, results) = m0.blocking(|| {
        std::thread::scope(|s| {
            let threads: Vec<_> = (0..THREADS as u64)
                .map(|i| {
                    let (heap, bound, done) = (&heap, &bound, &done);
                    s.spawn(move || {
                        let mut m = heap.bind_mutator().unwrap();
                        let rebind_refused = heap.bind_mutator().is_err();
                        garbage(&mut m, t, 2000);
                        let hs: Vec<Handle> =
                            (0..100).map(|k| node(&mut m, t, i * 1000 + k)).collect();
                        m.blocking(|| bound.wait());
                        // All collect at once: one coordinates, the others park (and
                        // may coordinate further collections after it).
                        m.collect();
                        let ids: Vec<u64> = hs.iter().map(|h| id_of(&m, h)).collect();
                        m.blocking(|| done.wait());
                        (rebind_refused, ids)
                    })
                })
                .collect();
            bound.wait();
            let during = heap.mutator_count();
            done.wait();
            let results: Vec<_> = threads.into_iter().map(|h| h.join().unwrap()).collect();
            (during, results)
        })
    });
    assert_eq!(during, THREADS + 1);
    for (i, (rebind_refused, ids)) in results.into_iter().enumerate() {
        assert!(rebind_refused, "thread {i} bound twice");
        let want: Vec<u64> = (0..100).map(|k| i as u64 * 1000 + k).collect();
        assert_eq!(ids, want, "thread {i}'s objects after the collection");
    }
    assert_eq!(
        heap.mutator_count(),
        1,
        "the threads' mutators were dropped"
    );
    let log = heap.pause_log();
    assert!((1..=THREADS).contains(&log.collections()));
    assert_eq!(
        moving_pauses(&log)[0].live_objects,
        1 + THREADS as u64 * 100,
        "every thread's objects were roots of the first collection"
    );
    assert_eq!(id_of(&m0, &mine), 1000);
}

// ---- roots ----

#[test]
fn handles_survive_collections_and_follow_their_objects() {
    let (heap, t) = new_heap(16 << 20);
    let mut m = heap.bind_mutator().unwrap();
    garbage(&mut m, t, 5000);
    let hs: Vec<Handle> = (0..500).map(|i| node(&mut m, t, i)).collect();
    // Link each node to the next, and the last back to the first.
    for i in 0..hs.len() {
        let next = m.get(&hs[(i + 1) % hs.len()]);
        m.write_ref(m.get(&hs[i]), 0, Some(next));
    }
    // Re-reading through a handle after each kind of GC point is the supported pattern.
    let h0 = hs[0].clone();
    garbage(&mut m, t, 3000);
    assert_eq!(id_of(&m, &h0), 0);
    m.safepoint();
    assert_eq!(id_of(&m, &h0), 0);
    for _ in 0..3 {
        m.collect();
        for (i, h) in hs.iter().enumerate() {
            let o = m.get(h);
            assert_eq!(m.read_word(o, 2), i as u64);
            let next = m.read_ref(o, 0).expect("linked");
            assert_eq!(m.read_word(next, 2), ((i + 1) % hs.len()) as u64);
            assert_eq!(m.read_ref(o, 1), None);
            assert_eq!(m.type_of(o), t.node);
            assert_eq!(m.len(o), 3);
        }
    }
    // A clone is a second root to the same object; set re-points one handle only.
    assert_eq!(m.get(&h0), m.get(&hs[0]));
    m.set(&h0, m.get(&hs[7]));
    m.collect();
    assert_eq!(id_of(&m, &h0), 7);
    assert_eq!(id_of(&m, &hs[0]), 0);
    // root() makes a handle from a Gc reached through a field.
    let child = m.root(m.read_ref(m.get(&hs[41]), 0).unwrap());
    drop(hs);
    m.collect();
    // Only the cycle reachable from h0 and child survives: still all 500 nodes.
    assert_eq!(id_of(&m, &child), 42);
    assert_eq!(heap.pause_log().records().last().unwrap().live_objects, 500);
    assert_eq!(heap.used_bytes(), 500 * NODE_BYTES);
}

#[test]
fn dropping_a_garbage_prefix_moves_an_object_down() {
    let (heap, t) = new_heap(16 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let prefix: Vec<Handle> = (0..10_000).map(|i| node(&mut m, t, i)).collect();
    let keep = node(&mut m, t, 99_999);
    let before = m.get(&keep).addr();
    drop(prefix);
    m.collect();
    let after = m.get(&keep).addr();
    assert!(
        after + 10_000 * NODE_BYTES <= before,
        "{after:#x} vs {before:#x}: the dead prefix was not compacted away"
    );
    assert_eq!(id_of(&m, &keep), 99_999);
    assert_eq!(heap.used_bytes(), NODE_BYTES);
}

#[test]
fn the_root_stack_survives_collections() {
    let (heap, t) = new_heap(16 << 20);
    let mut m = heap.bind_mutator().unwrap();
    garbage(&mut m, t, 4000);
    for i in 0..50u64 {
        m.alloc_push(t.node, 0).unwrap();
        let top = m.stack_get(m.stack_len() - 1).unwrap();
        m.write_word(top, 2, i);
        if i % 10 == 9 {
            m.push(None);
        }
    }
    assert_eq!(m.stack_len(), 55);
    // Push through a handle, then drop the handle: the stack alone keeps it.
    let h = node(&mut m, t, 500);
    m.push(Some(m.get(&h)));
    drop(h);
    garbage(&mut m, t, 4000);
    m.collect();
    let ids = |m: &Mutator| -> Vec<Option<u64>> {
        (0..m.stack_len())
            .map(|i| m.stack_get(i).map(|o| m.read_word(o, 2)))
            .collect()
    };
    let mut want: Vec<Option<u64>> = Vec::new();
    for i in 0..50u64 {
        want.push(Some(i));
        if i % 10 == 9 {
            want.push(None);
        }
    }
    want.push(Some(500));
    assert_eq!(ids(&m), want);

    // stack_set and pop.
    let o3 = m.stack_get(3).unwrap();
    m.stack_set(0, Some(o3));
    m.stack_set(1, None);
    let top = m.pop().expect("non-null top");
    assert_eq!(m.read_word(top, 2), 500);
    assert_eq!(m.pop(), None, "the null pushed after id 49");
    m.collect();
    want[0] = Some(3);
    want[1] = None;
    want.truncate(54);
    assert_eq!(ids(&m), want);

    // stack_dup and stack_copy move entries without checks, and they stay roots.
    m.stack_dup(2);
    m.stack_copy(4, 1);
    m.collect();
    want[1] = Some(4);
    want.push(Some(2));
    assert_eq!(ids(&m), want);
    m.pop();
    want.pop();
    m.stack_set(1, None);
    want[1] = None;

    // Truncating drops roots: only ids 0..=9 region survives.
    m.stack_truncate(5);
    m.collect();
    assert_eq!(ids(&m), vec![Some(3), None, Some(2), Some(3), Some(4)]);
    assert_eq!(
        heap.pause_log().records().last().unwrap().live_objects,
        3,
        "entries 0 and 3 are one object"
    );
    m.stack_truncate(0);
    m.collect();
    assert_eq!(heap.used_bytes(), 0);
}

#[test]
fn globals_survive_collections_and_work_from_other_threads() {
    let (heap, t) = new_heap(16 << 20);
    let mut m = heap.bind_mutator().unwrap();
    garbage(&mut m, t, 3000);
    let g = {
        let h = node(&mut m, t, 11);
        m.global(m.get(&h))
    };
    let extra = {
        let h = node(&mut m, t, 12);
        m.global(m.get(&h))
    };
    garbage(&mut m, t, 3000);
    m.collect();
    assert_eq!(m.read_word(m.get_global(&g), 2), 11);
    assert_eq!(m.read_word(m.get_global(&extra), 2), 12);
    drop(extra);
    m.collect();
    assert_eq!(heap.pause_log().records().last().unwrap().live_objects, 1);

    // Move the global to another thread; it reads it, re-points it at its own new
    // object, collects, and hands it back. The main thread waits in `blocking`.
    let g = m.blocking(|| {
        let heap = &heap;
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut m2 = heap.bind_mutator().unwrap();
                assert_eq!(m2.read_word(m2.get_global(&g), 2), 11);
                garbage(&mut m2, t, 2000);
                let h = node(&mut m2, t, 22);
                m2.set_global(&g, m2.get(&h));
                drop(h);
                m2.collect();
                assert_eq!(m2.read_word(m2.get_global(&g), 2), 22);
                g
            })
            .join()
            .unwrap()
        })
    });
    m.collect();
    assert_eq!(m.read_word(m.get_global(&g), 2), 22);
    assert_eq!(heap.pause_log().records().last().unwrap().live_objects, 1);
    drop(g);
    m.collect();
    assert_eq!(heap.used_bytes(), 0);
}

// ---- panics guarding field access ----

#[test]
#[should_panic(expected = "field 2 is not a reference field")]
fn read_ref_of_a_word_field_panics() {
    let (heap, t) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(t.node, 0).unwrap();
    m.read_ref(m.get(&h), 2);
}

#[test]
#[should_panic(expected = "field 0 is a reference field")]
fn write_word_to_a_reference_field_panics() {
    let (heap, t) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(t.node, 0).unwrap();
    m.write_word(m.get(&h), 0, 0xdead_beef);
}

#[test]
#[should_panic(expected = "field 3 out of range: object has 3 payload words")]
fn field_index_out_of_range_panics() {
    let (heap, t) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let h = m.alloc(t.node, 0).unwrap();
    m.read_word(m.get(&h), 3);
}

#[test]
#[should_panic(expected = "handle belongs to another mutator")]
fn a_handle_of_another_mutator_panics() {
    let (heap, t) = new_heap(1 << 20);
    let (heap2, _) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let mut m2 = heap2.bind_mutator().unwrap();
    let h2 = m2.alloc(t.node, 0).unwrap();
    let _ = m.alloc(t.node, 0).unwrap();
    m.get(&h2);
}

#[test]
#[should_panic(expected = "does not belong to this heap")]
fn a_gc_of_another_heap_panics_in_write_ref() {
    let (heap, t) = new_heap(1 << 20);
    let (heap2, _) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let mut m2 = heap2.bind_mutator().unwrap();
    let h2 = m2.alloc(t.node, 0).unwrap();
    let h = m.alloc(t.node, 0).unwrap();
    m.write_ref(m.get(&h), 0, Some(m2.get(&h2)));
}

#[test]
fn misuse_panics_name_the_problem_and_leave_the_heap_usable() {
    let (heap, t) = new_heap(4 << 20);
    let (heap2, _) = new_heap(1 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let mut m2 = heap2.bind_mutator().unwrap();
    let n = node(&mut m, t, 5);
    let v = m.alloc(t.vec, 4).unwrap();
    let b = m.alloc(t.bytes, 16).unwrap();
    let empty = m.alloc(t.bytes, 0).unwrap();
    let other = m2.alloc(t.node, 0).unwrap();
    let other_global = m2.global(m2.get(&other));

    type Case<'a> = (&'static str, Box<dyn FnOnce() + 'a>);
    let cases: Vec<Case<'_>> = vec![
        (
            "field 2 is not a reference field",
            Box::new(|| {
                m.read_ref(m.get(&n), 2);
            }),
        ),
        (
            "field 2 is not a reference field",
            Box::new(|| m.write_ref(m.get(&n), 2, None)),
        ),
        (
            "field 0 is a reference field",
            Box::new(|| {
                m.read_word(m.get(&n), 0);
            }),
        ),
        (
            "field 3 is a reference field",
            Box::new(|| m.write_word(m.get(&v), 3, 1)),
        ),
        (
            "field 4 out of range: object has 4 payload words",
            Box::new(|| {
                m.read_ref(m.get(&v), 4);
            }),
        ),
        (
            "field 9 out of range: object has 3 payload words",
            Box::new(|| m.write_word(m.get(&n), 9, 1)),
        ),
        (
            "field access on a byte array",
            Box::new(|| {
                m.read_word(m.get(&b), 0);
            }),
        ),
        (
            "bytes 10+8 out of range 0..16",
            Box::new(|| m.read_bytes(m.get(&b), 10, &mut [0; 8])),
        ),
        (
            "bytes 17+0 out of range 0..16",
            Box::new(|| m.write_bytes(m.get(&b), 17, &[])),
        ),
        (
            "bytes 0+1 out of range 0..0",
            Box::new(|| m.read_bytes(m.get(&empty), 0, &mut [0; 1])),
        ),
        (
            "is not a byte array",
            Box::new(|| m.read_bytes(m.get(&n), 0, &mut [0; 1])),
        ),
        (
            "is not a byte array",
            Box::new(|| m.write_bytes(m.get(&v), 0, &[1])),
        ),
        (
            "handle belongs to another mutator",
            Box::new(|| {
                m.get(&other);
            }),
        ),
        (
            "handle belongs to another mutator",
            Box::new(|| m.set(&other, m.get(&n))),
        ),
        (
            "does not belong to this heap",
            Box::new(|| m.write_ref(m.get(&n), 0, Some(m2.get(&other)))),
        ),
        (
            "does not belong to this heap",
            Box::new(|| {
                m.read_word(m2.get(&other), 2);
            }),
        ),
        (
            "does not belong to this heap",
            Box::new(|| m.push(Some(m2.get(&other)))),
        ),
        (
            "does not belong to this heap",
            Box::new(|| {
                m.root(m2.get(&other));
            }),
        ),
        (
            "global belongs to another heap",
            Box::new(|| {
                m.get_global(&other_global);
            }),
        ),
        (
            "root stack underflow",
            Box::new(|| {
                m.pop();
            }),
        ),
    ];
    for (want, f) in cases {
        let Err(payload) = catch_unwind(AssertUnwindSafe(f)) else {
            panic!("no panic where one saying {want:?} was expected")
        };
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .expect("a string panic payload");
        assert!(msg.contains(want), "{msg:?} lacks {want:?}");
    }
    // Nothing was written by the refused accesses, and the heap is intact.
    m.collect();
    assert_eq!(id_of(&m, &n), 5);
    assert_eq!(m.read_ref(m.get(&n), 0), None);
    assert_eq!(m.stack_len(), 0);
    let report = m.verify().unwrap();
    assert_eq!(report.objects, 4);
}

// ---- fresh memory ----

/// New objects read as zero (invariant Z) after collections that leave old heap
/// images behind: a large live set written with non-zero words, then a small one,
/// so the space above the new top held data at the previous collection. On every
/// flip path, with from-space recycled (its old pages moved back into the heap) and
/// without.
#[test]
fn fresh_objects_read_zero_after_the_heap_shrinks() {
    let modes = [
        (FlipMode::Auto, true),
        (FlipMode::Auto, false),
        (FlipMode::Copy, true),
        (FlipMode::Copy, false),
        (FlipMode::Level(Level::Pte), true),
    ];
    for (flip, recycle) in modes {
        let (r, t) = registry();
        let cfg = HeapConfig {
            flip,
            recycle_from_space: recycle,
            verify_after_gc: true,
            gc_workers: 2,
            ..HeapConfig::new(8 << 20)
        };
        let heap = Heap::new(cfg, r).unwrap();
        let mut m = heap.bind_mutator().unwrap();
        let what = format!("{} recycle={recycle}", flip.name());
        for round in 0..3u64 {
            // 2 MiB of self-referencing nodes full of ones, and dirty byte arrays.
            let dirty: Vec<Handle> = (0..60_000)
                .map(|i| {
                    let h = node(&mut m, t, u64::MAX - i);
                    m.write_ref(m.get(&h), 0, Some(m.get(&h)));
                    m.write_ref(m.get(&h), 1, Some(m.get(&h)));
                    h
                })
                .collect();
            let blobs: Vec<Handle> = (0..100)
                .map(|_| {
                    let h = m.alloc(t.bytes, 1000).unwrap();
                    m.write_bytes(m.get(&h), 0, &[0xa5; 1000]);
                    h
                })
                .collect();
            m.collect();
            m.collect(); // from-space now holds the dirty image too
            drop((dirty, blobs));
            m.collect();
            assert!(heap.used_bytes() < 64 << 10, "{what}: the heap shrank");
            // Everything allocated now lands where dirty objects were.
            for i in 0..200 {
                let h = m.alloc(t.bytes, 1000).unwrap();
                let mut out = [1u8; 1000];
                m.read_bytes(m.get(&h), 0, &mut out);
                assert!(
                    out.iter().all(|b| *b == 0),
                    "{what}: round {round}, fresh byte array {i} is not zero"
                );
            }
            for i in 0..70_000 {
                let h = m.alloc(t.node, 0).unwrap();
                let o = m.get(&h);
                assert_eq!(
                    (m.read_ref(o, 0), m.read_ref(o, 1), m.read_word(o, 2)),
                    (None, None, 0),
                    "{what}: round {round}, fresh node {i} at {o:?} is not zero"
                );
            }
            m.collect();
            m.verify()
                .unwrap_or_else(|e| panic!("{what}: round {round}: {e}"));
        }
    }
}

// ---- large objects ----

#[test]
fn a_large_byte_array_lives_in_the_large_object_space_until_unreachable() {
    let (heap, t) = new_heap(16 << 20);
    assert_eq!(heap.config().large_object_threshold, 64 << 10);
    let mut m = heap.bind_mutator().unwrap();
    let len = 1 << 20;
    let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
    let big = m.alloc(t.bytes, len).unwrap();
    m.write_bytes(m.get(&big), 0, &data);
    assert_eq!(heap.large_object_count(), 1);
    assert!(heap.large_object_bytes() >= len + 8);
    assert_eq!(heap.used_bytes(), 0, "nothing in the moving space");
    // Just below the threshold stays in the moving space.
    let small = m.alloc(t.bytes, (64 << 10) - 16).unwrap();
    assert_eq!(heap.large_object_count(), 1);
    drop(small);
    let at = m.get(&big).addr();
    garbage(&mut m, t, 5000);
    m.collect();
    m.collect();
    assert_eq!(m.get(&big).addr(), at, "large objects do not move");
    assert_eq!(m.len(m.get(&big)), len);
    let mut out = vec![0u8; len];
    m.read_bytes(m.get(&big), 0, &mut out);
    assert!(out == data, "large object contents changed");
    assert_eq!(heap.large_object_count(), 1);
    let rec = heap.pause_log().records().last().unwrap().clone();
    assert_eq!(rec.large_object_bytes as usize, heap.large_object_bytes());
    assert_eq!(rec.large_object_freed_bytes, 0);

    let held = heap.large_object_bytes();
    drop(big);
    m.collect();
    assert_eq!(heap.large_object_count(), 0);
    assert_eq!(heap.large_object_bytes(), 0);
    let rec = heap.pause_log().records().last().unwrap().clone();
    assert_eq!(rec.large_object_freed_bytes as usize, held);
}

#[test]
fn a_large_ref_array_keeps_small_objects_alive_and_follows_their_moves() {
    let (heap, t) = new_heap(16 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let len = 20_000; // 160 KiB of references: a large object
    let arr = m.alloc(t.vec, len).unwrap();
    assert_eq!(heap.large_object_count(), 1);
    let prefix: Vec<Handle> = (0..10_000).map(|i| node(&mut m, t, i)).collect();
    let mut before = Vec::new();
    for k in 0..1000 {
        let h = node(&mut m, t, 1_000_000 + k as u64);
        m.write_ref(m.get(&arr), k * 20, Some(m.get(&h)));
        before.push(m.get(&h).addr());
    }
    // A large object referring to another large object, and one to the array itself.
    let other = m.alloc(t.vec, 10_000).unwrap();
    m.write_ref(m.get(&arr), len - 1, Some(m.get(&other)));
    m.write_ref(m.get(&other), 0, Some(m.get(&arr)));
    drop(other);
    drop(prefix);
    m.collect();
    assert_eq!(heap.large_object_count(), 2);
    let a = m.get(&arr);
    for (k, &was) in before.iter().enumerate() {
        let o = m.read_ref(a, k * 20).expect("still referenced");
        assert!(
            o.addr() < was,
            "object {k} did not move down past the dead prefix"
        );
        assert_eq!(m.read_word(o, 2), 1_000_000 + k as u64);
        assert_eq!(m.read_ref(a, k * 20 + 1), None);
    }
    let o = m.read_ref(a, len - 1).unwrap();
    assert_eq!(m.read_ref(o, 0), Some(a));
    assert_eq!(heap.used_bytes(), 1000 * NODE_BYTES);
    let report = m.verify().unwrap();
    assert_eq!(
        (report.objects, report.large_objects, report.references),
        (1000, 2, 1000 + 2 + 1)
    );
    // Cut the small objects loose: they die, the array stays.
    for k in 0..500 {
        m.write_ref(m.get(&arr), k * 20, None);
    }
    m.collect();
    assert_eq!(heap.used_bytes(), 500 * NODE_BYTES);
    let a = m.get(&arr);
    for k in 500..1000 {
        assert_eq!(
            m.read_word(m.read_ref(a, k * 20).unwrap(), 2),
            1_000_000 + k as u64
        );
    }
    drop(arr);
    m.collect();
    assert_eq!(
        (heap.large_object_count(), heap.used_bytes()),
        (0, 0),
        "the cycle of two large objects and its children are freed"
    );
}

// ---- the verifier ----

/// A graph whose counts are known: `rooted` nodes in a chain (each held by a
/// handle), one large ref array (handle) pointing at three of them, one stack root,
/// one global, and `dead` unrooted nodes pointing into the chain.
fn build_counted_graph(
    m: &mut Mutator,
    t: Types,
    rooted: usize,
    dead: usize,
) -> (Vec<Handle>, Handle, flipgc_core::Global) {
    let hs: Vec<Handle> = (0..rooted).map(|i| node(m, t, i as u64)).collect();
    for w in hs.windows(2) {
        m.write_ref(m.get(&w[0]), 0, Some(m.get(&w[1])));
    }
    for k in 0..dead {
        let d = m.alloc(t.node, 0).unwrap();
        m.write_ref(m.get(&d), 1, Some(m.get(&hs[k % rooted])));
    }
    let arr = m.alloc(t.vec, 10_000).unwrap();
    for (k, h) in hs.iter().take(3).enumerate() {
        m.write_ref(m.get(&arr), k, Some(m.get(h)));
    }
    m.push(Some(m.get(&hs[0])));
    let g = m.global(m.get(&hs[1]));
    (hs, arr, g)
}

#[test]
fn verify_counts_what_was_allocated() {
    let (heap, t) = new_heap(8 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let (rooted, dead) = (10, 5);
    let (hs, arr, g) = build_counted_graph(&mut m, t, rooted, dead);
    m.collect();
    let r = m.verify().expect("a healthy heap verifies");
    assert_eq!(
        r.objects, rooted,
        "dead nodes are gone after the collection"
    );
    assert_eq!(r.large_objects, 1);
    // Chain links + array slots + handles (nodes and the array) + stack + global.
    assert_eq!(r.references, (rooted - 1) + 3 + (rooted + 1) + 1 + 1);
    assert_eq!(r.used_bytes, rooted * NODE_BYTES);
    assert_eq!(r.used_bytes, heap.used_bytes());
    // Verification is read-only: a second run, and a collection after, agree.
    assert_eq!(m.verify().unwrap(), r);
    drop((hs, arr, g));
    m.stack_truncate(0);
    m.collect();
    let r = m.verify().unwrap();
    assert_eq!((r.objects, r.large_objects, r.references), (0, 0, 0));
}

/// Regression: the verifier once walked the moving space up to the top without
/// retiring the mutators' TLABs, so the zeroed, unallocated tail of a live TLAB
/// read as header 0 and a healthy heap failed with "invalid header 0x0".
#[test]
fn verify_right_after_allocation() {
    let (heap, t) = new_heap(8 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let (rooted, dead) = (10, 5);
    let (_hs, _arr, _g) = build_counted_graph(&mut m, t, rooted, dead);
    let r = m
        .verify()
        .expect("a healthy heap verifies before any collection");
    assert_eq!(
        r.objects,
        rooted + dead,
        "unreachable nodes are still there"
    );
    assert_eq!(r.large_objects, 1);
    assert_eq!(r.references, (rooted - 1) + dead + 3 + (rooted + 1) + 1 + 1);
    assert_eq!(heap.pause_log().records().len(), 0);
}

// ---- blocking ----

#[test]
fn a_blocking_thread_does_not_hold_up_a_collection() {
    let (heap, t) = new_heap(16 << 20);
    let entered = Barrier::new(2);
    let collected = AtomicBool::new(false);
    std::thread::scope(|s| {
        let sleeper = s.spawn(|| {
            let mut m = heap.bind_mutator().unwrap();
            let prefix: Vec<Handle> = (0..5000).map(|i| node(&mut m, t, i)).collect();
            let hs: Vec<Handle> = (0..200).map(|i| node(&mut m, t, 50_000 + i)).collect();
            for w in hs.windows(2) {
                m.write_ref(m.get(&w[0]), 0, Some(m.get(&w[1])));
            }
            let before: Vec<usize> = hs.iter().map(|h| m.get(h).addr()).collect();
            drop(prefix);
            // Stay blocked until the other thread's collection has finished (it must
            // not wait for us); give up after 30 s, which means it did wait.
            let seen = m.blocking(|| {
                entered.wait();
                let start = Instant::now();
                while !collected.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(30)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                collected.load(Ordering::SeqCst)
            });
            assert!(
                seen,
                "the collection waited for a thread that was in `blocking`"
            );
            // Handles were updated while this thread was blocked.
            for (i, h) in hs.iter().enumerate() {
                let o = m.get(h);
                assert!(o.addr() < before[i], "moved down past the dead prefix");
                assert_eq!(m.read_word(o, 2), 50_000 + i as u64);
                if i + 1 < hs.len() {
                    assert_eq!(m.read_ref(o, 0), Some(m.get(&hs[i + 1])));
                }
            }
        });
        let collector = s.spawn(|| {
            let mut m = heap.bind_mutator().unwrap();
            m.blocking(|| entered.wait());
            let start = Instant::now();
            m.collect();
            let took = start.elapsed();
            collected.store(true, Ordering::SeqCst);
            took
        });
        let took = collector.join().unwrap();
        eprintln!("collect took {took:?} while another thread was blocking");
        sleeper.join().unwrap();
    });
    let log = heap.pause_log();
    assert_eq!(log.collections(), 1);
    assert_eq!(moving_pauses(&log)[0].live_objects, 200);
}

/// Regression test for the safepoint race fixed in 8a0b25e: a parked mutator waited
/// only for "its" collection (by epoch) and could wake into the next one, which
/// counted it as stopped, and touch the heap during it ("valid header" panics in
/// `field_addr`, wrong ids, verifier failures within a second on 2 cores). Every
/// thread here collects back to back with the others.
#[test]
fn back_to_back_collections_from_many_threads_keep_every_mutator_stopped() {
    let (r, t) = registry();
    let cfg = HeapConfig {
        verify_after_gc: true,
        gc_workers: 1,
        ..HeapConfig::new(8 << 20)
    };
    let heap = Heap::new(cfg, r).unwrap();
    let wrong = std::sync::atomic::AtomicUsize::new(0);
    let collections = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for th in 0..4u64 {
            let (heap, wrong, collections) = (&heap, &wrong, &collections);
            s.spawn(move || {
                let mut m = heap.bind_mutator().unwrap();
                let hs: Vec<Handle> = (0..200).map(|i| node(&mut m, t, th * 1000 + i)).collect();
                // A fixed number of rounds (not a time budget): 4 x 40 collect calls.
                for _ in 0..40 {
                    m.collect();
                    collections.fetch_add(1, Ordering::Relaxed);
                    for (i, h) in hs.iter().enumerate() {
                        let o = m.get(h);
                        let id = m.read_word(o, 2);
                        if id != th * 1000 + i as u64 {
                            wrong.fetch_add(1, Ordering::Relaxed);
                        }
                        m.write_word(o, 2, id);
                    }
                    garbage(&mut m, t, 50);
                }
            });
        }
    });
    assert_eq!(wrong.load(Ordering::Relaxed), 0, "ids read wrong");
    assert_eq!(collections.load(Ordering::Relaxed), 160);
    // Each collection can absorb at most the 3 other threads' concurrent requests.
    assert!(heap.pause_log().records().len() >= 40);
}

#[test]
fn blocking_returns_the_closures_value_and_handles_stay_valid() {
    let (heap, t) = new_heap(4 << 20);
    let mut m = heap.bind_mutator().unwrap();
    let h = node(&mut m, t, 77);
    let data = [1u64, 2, 3];
    let sum = m.blocking(move || data.iter().sum::<u64>());
    assert_eq!(sum, 6);
    assert_eq!(id_of(&m, &h), 77);
    // A panic inside the closure leaves the mutator usable (not stuck as blocking).
    let msg = panic_message(|| m.blocking(|| panic!("native code failed")));
    assert_eq!(msg, "native code failed");
    m.collect();
    assert_eq!(id_of(&m, &h), 77);
    assert_eq!(heap.pause_log().collections(), 1);
}

// ---- the pause log ----

#[test]
fn the_pause_log_records_every_collection_and_its_phases() {
    const N: usize = 5;
    const PHASES: [&str; 7] = [
        "stop", "mark", "plan", "roots", "flip", "compact", "release",
    ];
    // The one-pause cycle; the concurrent cycle's log is checked in tests/concurrent.rs.
    let (r, t) = registry();
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_marking = false;
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let hs: Vec<Handle> = (0..100).map(|i| node(&mut m, t, i)).collect();
    for _ in 0..N {
        garbage(&mut m, t, 1000);
        m.collect();
    }
    let log = heap.pause_log();
    let recs = log.records();
    assert_eq!(recs.len(), N);
    let mut last_at = 0;
    for r in recs {
        assert_eq!(r.kind, "full");
        let names: Vec<&str> = r.phases.iter().map(|(n, _)| *n).collect();
        let mut at = 0;
        for want in PHASES {
            let i = names[at..]
                .iter()
                .position(|n| *n == want)
                .unwrap_or_else(|| panic!("phase {want} missing or out of order in {names:?}"));
            at += i + 1;
        }
        let sum: u64 = r.phases.iter().map(|(_, ns)| ns).sum();
        assert!(r.total_ns >= sum, "total {} < phases {sum}", r.total_ns);
        assert!(r.total_ns >= r.ttsp_ns);
        assert!(r.at_ns >= last_at);
        last_at = r.at_ns;
        assert_eq!(r.live_objects, 100);
        assert_eq!(r.live_bytes as usize, 100 * NODE_BYTES);
        assert!(["pud", "pmd", "pte", "copy"].contains(&r.flip.level));
    }
    assert_eq!(log.histogram().len(), N as u64);
    let max = recs.iter().map(|r| r.total_ns).max().unwrap();
    assert_eq!(log.quantile_ns(1.0), max);

    let j = log.to_json();
    let pauses = j["pauses"].as_array().expect("pauses is an array");
    assert_eq!(pauses.len(), N);
    assert_eq!(j["summary"]["collections"], N);
    assert_eq!(j["summary"]["max_pause_ns"], max);
    for (p, r) in pauses.iter().zip(recs) {
        assert_eq!(p["kind"], "full");
        assert_eq!(p["total_ns"], r.total_ns);
        for (name, ns) in &r.phases {
            assert_eq!(p["phases"][*name], *ns);
        }
        assert_eq!(p["flip"]["level"], r.flip.level);
    }
    // The log is a snapshot: later collections do not change it.
    m.collect();
    assert_eq!(log.records().len(), N);
    assert_eq!(heap.pause_log().records().len(), N + 1);
    assert_eq!(id_of(&m, &hs[99]), 99);
}
