//! Runtime features on every collection path: weak handles and weak fields (cleared
//! exactly when their referent is unreachable), finalizers (each object once,
//! resurrected intact), cleaners (one token per dead object), identity hashes
//! (stable across moves, dropped with their object), pinned objects (never move).
//!
//! Every test runs on each path: the concurrent cycle, the one-pause cycle, the
//! concurrent cycle compacting inside its flip pause, a copying flip, and injected
//! userfaultfd failures. Objects carry ids, so a reference left unforwarded or
//! cleared wrongly reads as a wrong id rather than passing silently; the heap
//! verifies itself after every collection (`verify_after_gc`).

mod common;

use flipgc_core::{
    Handle, Heap, HeapConfig, InjectPoint, Mutator, RefField, TypeId, TypeRegistry, WeakHandle,
    WordField,
};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy)]
struct Types {
    /// left (strong), right (strong), id.
    node: TypeId,
    left: RefField,
    id: WordField,
    /// A weak-pair: car weak, cdr strong, id.
    wpair: TypeId,
    wcar: RefField,
    wcdr: RefField,
    wid: WordField,
    bytes: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let wpair = r.fixed_weak("weak-pair", 3, &[1], &[0]).unwrap();
    let t = Types {
        node,
        left: r.ref_field(node, 0).unwrap(),
        id: r.word_field(node, 2).unwrap(),
        wpair,
        wcar: r.ref_field(wpair, 0).unwrap(),
        wcdr: r.ref_field(wpair, 1).unwrap(),
        wid: r.word_field(wpair, 2).unwrap(),
        bytes: r.byte_array("bytes").unwrap(),
    };
    (r, t)
}

/// The collection paths, by name.
fn paths() -> Vec<(&'static str, HeapConfig)> {
    let base = || {
        let mut c = HeapConfig::new(16 << 20);
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c.verify_after_gc = true;
        c
    };
    common::collection_paths(
        base,
        &[
            ("uffd-register injected", InjectPoint::UffdRegister),
            ("mark-rounds injected", InjectPoint::MarkRounds),
        ],
    )
}

fn on_every_path(test: impl Fn(&str, Heap, Types)) {
    for (name, cfg) in paths() {
        let (r, t) = registry();
        let heap = Heap::new(cfg, r).unwrap();
        test(name, heap, t);
    }
}

fn node(m: &mut Mutator, t: Types, id: u64) -> Handle {
    let h = m.alloc(t.node, 0).unwrap();
    m.set_word(m.get(&h), t.id, id);
    h
}

/// Allocates `n` unreachable nodes, so collections have something to move over.
fn garbage(m: &mut Mutator, t: Types, n: usize) {
    for _ in 0..n {
        m.push_fixed(m.heap().types().fixed_type(t.node).unwrap())
            .unwrap();
        m.pop();
    }
}

#[test]
fn weak_handles_are_cleared_exactly_when_their_referent_is_unreachable() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        let mut strong = Vec::new();
        let mut weak: Vec<(u64, WeakHandle)> = Vec::new();
        for id in 0..200u64 {
            garbage(&mut m, t, 50);
            let h = node(&mut m, t, id);
            weak.push((id, m.weak(m.get(&h))));
            if id % 3 != 0 {
                strong.push((id, h));
            }
        }
        // Also keep some alive only through a strong field of a kept node.
        let keeper = node(&mut m, t, 1000);
        let via_field = node(&mut m, t, 1001);
        let w_field = m.weak(m.get(&via_field));
        m.set_ref(m.get(&keeper), t.left, Some(m.get(&via_field)));
        drop(via_field);
        for _ in 0..3 {
            m.collect();
            for (id, w) in &weak {
                let got = m.get_weak(w).map(|o| m.get_word(o, t.id));
                if id % 3 == 0 {
                    assert_eq!(got, None, "{path}: weak {id} not cleared");
                } else {
                    assert_eq!(got, Some(*id), "{path}: weak {id} lost or wrong");
                }
            }
            let o = m.get_weak(&w_field).expect("kept through a field");
            assert_eq!(m.get_weak(&w_field), m.get_ref(m.get(&keeper), t.left));
            assert_eq!(m.get_word(o, t.id), 1001, "{path}");
        }
        // Dropping the strong handles makes the rest go at the next collection.
        strong.clear();
        m.collect();
        assert!(weak.iter().all(|(_, w)| m.get_weak(w).is_none()), "{path}");
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    });
}

#[test]
fn weak_fields_are_cleared_exactly_when_their_referent_is_unreachable() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        // A chain of weak pairs (strong cdrs) whose cars are nodes; every other
        // node is also held strongly.
        let head = m.alloc(t.wpair, 0).unwrap();
        let mut held = Vec::new();
        let mut at = m.root(m.get(&head));
        for id in 0..300u64 {
            garbage(&mut m, t, 20);
            let n = node(&mut m, t, id);
            let p = m.alloc(t.wpair, 0).unwrap();
            m.set_word(m.get(&p), t.wid, id);
            m.set_ref(m.get(&p), t.wcar, Some(m.get(&n)));
            m.set_ref(m.get(&at), t.wcdr, Some(m.get(&p)));
            if id % 2 == 0 {
                held.push(n);
            }
            at = p;
        }
        drop(at);
        for round in 0..3 {
            m.collect();
            let mut p = m.get_ref(m.get(&head), t.wcdr);
            let mut seen = 0;
            while let Some(pair) = p {
                let id = m.get_word(pair, t.wid);
                let car = m.get_ref(pair, t.wcar).map(|o| m.get_word(o, t.id));
                let want = (id % 2 == 0 && round < 2).then_some(id);
                assert_eq!(car, want, "{path}: weak car of pair {id}, round {round}");
                seen += 1;
                p = m.get_ref(pair, t.wcdr);
            }
            assert_eq!(seen, 300, "{path}: the strong spine lost pairs");
            if round == 1 {
                held.clear();
            }
        }
    });
}

#[test]
fn finalizers_return_each_dead_object_once_with_its_graph_intact() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        let q = heap.finalizer_queue();
        let mut kept = Vec::new();
        let mut weak = HashMap::new();
        for id in 0..100u64 {
            garbage(&mut m, t, 50);
            let obj = node(&mut m, t, id);
            // A child only the finalizable object holds: it must come back too.
            let child = node(&mut m, t, 10_000 + id);
            m.set_ref(m.get(&obj), t.left, Some(m.get(&child)));
            m.register_finalizer(m.get(&obj), &q);
            weak.insert(id, m.weak(m.get(&obj)));
            if id % 4 == 0 {
                kept.push(obj);
            }
        }
        m.collect();
        let mut back = HashSet::new();
        let mut revived = Vec::new();
        while let Some(h) = m.poll_finalized(&q) {
            let o = m.get(&h);
            let id = m.get_word(o, t.id);
            let child = m.get_ref(o, t.left).expect("child kept");
            assert_eq!(m.get_word(child, t.id), 10_000 + id, "{path}");
            assert!(back.insert(id), "{path}: {id} finalized twice");
            revived.push(h);
        }
        let want: HashSet<u64> = (0..100).filter(|i| i % 4 != 0).collect();
        assert_eq!(back, want, "{path}: wrong objects finalized");
        // Weak references to a resurrected object are kept (Chez semantics).
        for id in &want {
            assert!(m.get_weak(&weak[id]).is_some(), "{path}: weak {id} cleared");
        }
        // Not registered again: a second collection does not return them.
        m.collect();
        assert!(m.poll_finalized(&q).is_none(), "{path}: finalized again");
        // Revived objects are ordinary: dropped, they go, and their weak refs clear.
        revived.clear();
        m.collect();
        for (id, w) in &weak {
            assert_eq!(m.get_weak(w).is_some(), id % 4 == 0, "{path}: weak {id}");
        }
        // Objects kept all along are still registered.
        kept.clear();
        m.collect();
        let mut last = HashSet::new();
        while let Some(h) = m.poll_finalized(&q) {
            last.insert(m.get_word(m.get(&h), t.id));
        }
        let want: HashSet<u64> = (0..100).filter(|i| i % 4 == 0).collect();
        assert_eq!(last, want, "{path}");
    });
}

#[test]
fn cleaners_queue_one_token_per_dead_object() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        let q = heap.finalizer_queue();
        let mut kept = Vec::new();
        for id in 0..200u64 {
            garbage(&mut m, t, 20);
            let obj = node(&mut m, t, id);
            m.register_cleaner(m.get(&obj), 7_000 + id, &q);
            if id % 2 == 0 {
                kept.push((id, obj));
            }
        }
        m.collect();
        m.collect();
        let mut tokens = Vec::new();
        while let Some(tok) = q.poll_token() {
            tokens.push(tok);
        }
        tokens.sort();
        let want: Vec<u64> = (0..200).filter(|i| i % 2 == 1).map(|i| 7_000 + i).collect();
        assert_eq!(tokens, want, "{path}");
        for (id, h) in &kept {
            assert_eq!(m.get_word(m.get(h), t.id), *id, "{path}");
        }
        kept.clear();
        m.collect();
        let mut rest = Vec::new();
        while let Some(tok) = q.poll_token() {
            rest.push(tok);
        }
        rest.sort();
        let want: Vec<u64> = (0..200).filter(|i| i % 2 == 0).map(|i| 7_000 + i).collect();
        assert_eq!(rest, want, "{path}");
        assert_eq!(q.pending(), (0, 0));
    });
}

#[test]
fn identity_hashes_survive_moves_and_go_with_their_objects() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        let mut objs = Vec::new();
        for id in 0..500u64 {
            garbage(&mut m, t, 10);
            objs.push(node(&mut m, t, id));
        }
        let big = m.alloc(t.bytes, 64 << 10).unwrap(); // a large object
        let hashes: Vec<u64> = objs.iter().map(|h| m.identity_hash(m.get(h))).collect();
        let big_hash = m.identity_hash(m.get(&big));
        let distinct: HashSet<u64> = hashes.iter().copied().collect();
        assert_eq!(distinct.len(), hashes.len(), "{path}: hash collision");
        assert_eq!(heap.hashed_objects(), 501);
        let before = m.get(&objs[0]).addr();
        for round in 0..3 {
            garbage(&mut m, t, 1000);
            m.collect();
            for (i, h) in objs.iter().enumerate() {
                let o = m.get(h);
                assert_eq!(m.identity_hash(o), hashes[i], "{path}: round {round}");
                assert_eq!(
                    m.get_word(o, t.id),
                    i as u64,
                    "{path}: the flag broke the id"
                );
            }
            assert_eq!(m.identity_hash(m.get(&big)), big_hash, "{path}");
        }
        assert_ne!(m.get(&objs[0]).addr(), before, "{path}: nothing moved");
        // Dead objects leave the table.
        objs.truncate(100);
        drop(big);
        m.collect();
        m.blocking(|| heap.wait_idle());
        assert_eq!(heap.hashed_objects(), 100, "{path}");
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    });
}

#[test]
fn pinned_objects_never_move() {
    on_every_path(|path, heap, t| {
        let mut m = heap.bind_mutator().unwrap();
        let buf = m.alloc_pinned(t.bytes, 100).unwrap();
        let pnode = m.alloc_pinned(t.node, 0).unwrap();
        let moving = node(&mut m, t, 5);
        m.set_ref(m.get(&pnode), t.left, Some(m.get(&moving)));
        assert!(m.is_pinned(m.get(&buf)) && m.is_pinned(m.get(&pnode)));
        assert!(!m.is_pinned(m.get(&moving)));
        let p = m.pinned_payload(m.get(&buf));
        // SAFETY: `buf` is a pinned byte array of 100 bytes, kept rooted.
        unsafe { std::ptr::copy_nonoverlapping(b"native".as_ptr(), p, 6) };
        let addr = (m.get(&buf).addr(), m.get(&pnode).addr());
        for _ in 0..3 {
            garbage(&mut m, t, 2000);
            m.collect();
            assert_eq!((m.get(&buf).addr(), m.get(&pnode).addr()), addr, "{path}");
            assert_eq!(m.pinned_payload(m.get(&buf)), p, "{path}");
            let mut out = [0u8; 6];
            m.read_bytes(m.get(&buf), 0, &mut out);
            assert_eq!(&out, b"native", "{path}");
            // A pinned object's references are forwarded like any other's.
            let o = m.get_ref(m.get(&pnode), t.left).unwrap();
            assert_eq!(m.get_word(o, t.id), 5, "{path}");
        }
        let msg = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            m.pinned_payload(m.get(&moving));
        }))
        .unwrap_err();
        let msg = msg.downcast_ref::<String>().unwrap();
        assert!(msg.contains("is not pinned"), "{msg}");
    });
}

/// The weak-reference barrier's schedule. In the snapshot, X is reachable only
/// through a weak handle and a weak field. While marking, the mutator reads X
/// through each and stores it into a new (black, never scanned) object. Only the
/// barrier's log of the weak read marks X; without it, the end of marking would
/// clear the weak references and the black object would hold a dangling reference
/// (the sanity re-trace aborts the process on that).
#[test]
fn a_referent_read_through_a_weak_reference_while_marking_survives() {
    let (r, t) = registry();
    let (hook, go, done) = common::hold_marking();
    let mut cfg = paths().remove(0).1;
    cfg.cycle_hook = Some(hook);
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let x = node(&mut m, t, 42);
    let y = node(&mut m, t, 43);
    let wx = m.weak(m.get(&x));
    let pair = m.alloc(t.wpair, 0).unwrap();
    m.set_ref(m.get(&pair), t.wcar, Some(m.get(&y)));
    drop((x, y)); // weakly reachable only
    let requester = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
    };
    m.blocking(move || go.recv().unwrap());
    let a = m.alloc(t.node, 0).unwrap(); // black
    let b = m.alloc(t.node, 0).unwrap(); // black
    let x_now = m
        .get_weak(&wx)
        .expect("not cleared before the end of marking");
    m.set_ref(m.get(&a), t.left, Some(x_now));
    let y_now = m.get_ref(m.get(&pair), t.wcar).expect("not cleared yet");
    m.set_ref(m.get(&b), t.left, Some(y_now));
    done.send(()).unwrap();
    m.blocking(move || requester.join().unwrap());
    for _ in 0..2 {
        m.collect();
        let x = m.get_ref(m.get(&a), t.left).expect("A holds X");
        assert_eq!(m.get_word(x, t.id), 42);
        assert_eq!(m.get_weak(&wx), Some(x), "X is strongly held: not cleared");
        let y = m.get_ref(m.get(&b), t.left).expect("B holds Y");
        assert_eq!(m.get_word(y, t.id), 43);
        assert_eq!(m.get_ref(m.get(&pair), t.wcar), Some(y));
    }
}
