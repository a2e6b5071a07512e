//! Tagged immediates in every slot kind, on every collection path and in both
//! fault modes: reference fields (fixed objects by descriptor, array elements by
//! index, a large pinned object's fields, a weak field), root-stack entries,
//! handles and globals.
//!
//! The immediates are chosen to look like the heap: most are the address of a live
//! object with a tag in its low bits (`addr | 1`, `addr | 2`, ...), so a collector
//! path that took one for a reference would mark, forward or clear something it
//! must not, and the test would read back changed bits, a wrong id, or fail
//! verification. Each check compares the exact bits stored.

mod common;

use common::CycleGate;
use flipgc_core::{
    CycleHook, CyclePoint, GcTrigger, Handle, Heap, HeapConfig, InjectPoint, Mutator, RefField,
    TypeId, TypeRegistry, Value, WordField, FIXNUM_MAX, FIXNUM_MIN,
};
use std::sync::Arc;

#[derive(Clone, Copy)]
struct Types {
    /// Field 0: next (strong), field 1: value (strong slot, holds an immediate),
    /// field 2: id.
    node: TypeId,
    next: RefField,
    val: RefField,
    id: WordField,
    vec: TypeId,
    /// Field 0 weak, field 1 strong.
    wpair: TypeId,
    wcar: RefField,
    wcdr: RefField,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let wpair = r.fixed_weak("weak-pair", 2, &[1], &[0]).unwrap();
    let t = Types {
        node,
        next: r.ref_field(node, 0).unwrap(),
        val: r.ref_field(node, 1).unwrap(),
        id: r.word_field(node, 2).unwrap(),
        vec: r.ref_array("vec").unwrap(),
        wpair,
        wcar: r.ref_field(wpair, 0).unwrap(),
        wcdr: r.ref_field(wpair, 1).unwrap(),
    };
    (r, t)
}

const TAGS: [u64; 7] = [1, 2, 4, 6, 3, 5, 7];
const NODES: u64 = 600;
const VEC: usize = 64;

/// An immediate that looks like the object at `addr` with tag `TAGS[i % 7]`.
fn lookalike(addr: usize, i: usize) -> u64 {
    addr as u64 | TAGS[i % TAGS.len()]
}

/// What the test stored, and where.
struct State {
    list: Handle,
    vec: Handle,
    pinned: Handle,
    wpair: Handle,
    /// The bits of each node's value field, by id.
    node_vals: Vec<u64>,
    /// The bits of each odd vector element, by index.
    vec_imms: Vec<u64>,
    /// (stack index, bits) of the immediates pushed on the root stack.
    stack: Vec<(usize, u64)>,
    handle: (Handle, u64),
    global: (flipgc_core::Global, u64),
    pinned_val: u64,
    wcar: u64,
}

fn build(m: &mut Mutator, t: Types) -> State {
    // The list: node `i` holds node `i - 1` in `next`, and an immediate in `val`.
    let list = m.root_value(Value::NULL);
    let mut node_vals = Vec::new();
    for id in 0..NODES {
        let n = m.alloc(t.node, 0).unwrap();
        let g = m.get(&n);
        m.set_word(g, t.id, id);
        m.set_value(g, t.next, m.handle_value(&list));
        let bits = match id % 4 {
            0 => Value::fixnum(id as i64 * 1000 - 7).unwrap().bits(),
            _ => lookalike(g.addr(), id as usize),
        };
        m.set_value(g, t.val, Value::imm(bits).unwrap());
        node_vals.push(bits);
        m.set_handle_value(&list, g.into());
    }
    // A vector: even elements refer to list nodes, odd ones hold immediates.
    let vec = m.alloc(t.vec, VEC).unwrap();
    let mut vec_imms = vec![0; VEC];
    let mut cur = m.handle_value(&list).as_ref();
    for (j, imm) in vec_imms.iter_mut().enumerate() {
        let v = m.get(&vec);
        if j % 2 == 0 {
            m.write_value(v, j, cur.into());
            cur = cur.and_then(|c| m.get_ref(c, t.next));
        } else {
            *imm = lookalike(v.addr() + 8 * j, j);
            m.write_value(v, j, Value::imm(*imm).unwrap());
        }
    }
    // The root stack, a handle and a global.
    let head = m.get(&list).addr();
    let mut stack = Vec::new();
    for (k, bits) in [
        lookalike(head, 0),
        Value::fixnum(FIXNUM_MIN).unwrap().bits(),
        lookalike(m.get(&vec).addr(), 1),
        Value::fixnum(FIXNUM_MAX).unwrap().bits(),
    ]
    .into_iter()
    .enumerate()
    {
        m.push_value(Value::imm(bits).unwrap());
        stack.push((m.stack_len() - 1, bits));
        m.push(Some(m.get(&vec))); // a reference between them
        let _ = k;
    }
    let hbits = lookalike(head, 2);
    let handle = (m.root_value(Value::imm(hbits).unwrap()), hbits);
    let gbits = lookalike(m.get(&vec).addr(), 3);
    let global = (m.global_value(Value::imm(gbits).unwrap()), gbits);
    // A large pinned node (its fields are forwarded lazily after a flip).
    let pinned = m.alloc_pinned(t.node, 0).unwrap();
    let pinned_val = lookalike(head, 4);
    m.set_value(m.get(&pinned), t.val, Value::imm(pinned_val).unwrap());
    m.set_ref(m.get(&pinned), t.next, Some(m.get(&list)));
    // A weak field holding an immediate that looks like a dead object: never
    // cleared.
    m.alloc_push(t.node, 0).unwrap();
    let dead = m.pop().unwrap().addr();
    let wpair = m.alloc(t.wpair, 0).unwrap();
    let wcar = lookalike(dead, 5);
    m.set_value(m.get(&wpair), t.wcar, Value::imm(wcar).unwrap());
    m.set_ref(m.get(&wpair), t.wcdr, Some(m.get(&list)));
    State {
        list,
        vec,
        pinned,
        wpair,
        node_vals,
        vec_imms,
        stack,
        handle,
        global,
        pinned_val,
        wcar,
    }
}

/// Every slot holds what was stored: the list's ids and immediates, the vector's
/// references (by the id they reach) and immediates, the roots' immediates.
fn check(m: &Mutator, t: Types, s: &State, what: &str) {
    let mut cur = m.handle_value(&s.list).as_ref();
    let mut ids = Vec::new();
    while let Some(c) = cur {
        let id = m.get_word(c, t.id);
        assert_eq!(
            m.get_value(c, t.val).bits(),
            s.node_vals[id as usize],
            "{what}: node {id}'s immediate"
        );
        ids.push(id);
        cur = m.get_value(c, t.next).as_ref();
    }
    let want: Vec<u64> = (0..NODES).rev().collect();
    assert_eq!(ids, want, "{what}: the list");
    let v = m.get(&s.vec);
    for j in 0..VEC {
        let e = m.read_value(v, j);
        if j % 2 == 0 {
            let id = m.get_word(e.as_ref().expect("a reference"), t.id);
            assert_eq!(id, NODES - 1 - j as u64 / 2, "{what}: vector element {j}");
        } else {
            assert_eq!(e.bits(), s.vec_imms[j], "{what}: vector element {j}");
        }
    }
    for &(i, bits) in &s.stack {
        assert_eq!(m.stack_get_value(i).bits(), bits, "{what}: stack entry {i}");
        assert_eq!(m.stack_get(i + 1), Some(v), "{what}: stack entry {}", i + 1);
    }
    assert_eq!(
        m.handle_value(&s.handle.0).bits(),
        s.handle.1,
        "{what}: handle"
    );
    assert_eq!(
        m.get_global_value(&s.global.0).bits(),
        s.global.1,
        "{what}: global"
    );
    let p = m.get(&s.pinned);
    assert_eq!(m.get_value(p, t.val).bits(), s.pinned_val, "{what}: pinned");
    assert_eq!(
        m.get_ref(p, t.next),
        Some(m.get(&s.list)),
        "{what}: pinned next"
    );
    let w = m.get(&s.wpair);
    assert_eq!(m.get_value(w, t.wcar).bits(), s.wcar, "{what}: weak field");
    assert_eq!(
        m.get_ref(w, t.wcdr),
        Some(m.get(&s.list)),
        "{what}: weak pair"
    );
}

/// Unreachable nodes, so that collections move the survivors.
fn garbage(m: &mut Mutator, t: Types, n: usize) {
    let f = m.heap().types().fixed_type(t.node).unwrap();
    for _ in 0..n {
        m.push_fixed(f).unwrap();
        m.pop();
    }
}

fn paths() -> Vec<(String, HeapConfig)> {
    let base = || {
        let mut c = HeapConfig::new(32 << 20);
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c.verify_after_gc = true;
        c
    };
    common::paths_in_both_fault_modes(
        base,
        &[
            ("uffd-register injected", InjectPoint::UffdRegister),
            ("uffd-move injected", InjectPoint::UffdMove),
            ("mark-rounds injected", InjectPoint::MarkRounds),
        ],
        false,
    )
}

#[test]
fn immediates_in_every_slot_kind_survive_every_collection_path() {
    for (path, cfg) in paths() {
        let young = matches!(cfg.trigger, GcTrigger::AfterBytes(_));
        let (r, t) = registry();
        let heap = match Heap::new(cfg, r) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{path}: skipped: {e}");
                continue;
            }
        };
        let mut m = heap.bind_mutator().unwrap();
        let s = build(&mut m, t);
        check(&m, t, &s, &format!("{path}, before"));
        for round in 0..4 {
            garbage(&mut m, t, if young { 20_000 } else { 3000 });
            if !young {
                m.collect();
            }
            check(&m, t, &s, &format!("{path}, after collection {round}"));
        }
        m.verify().unwrap();
        if young {
            m.blocking(|| heap.wait_idle());
            let n = heap.pause_log().cycles().iter().filter(|c| c.young).count();
            assert!(n >= 2, "{path}: only {n} young cycles");
        }
        check(&m, t, &s, &format!("{path}, at the end"));
    }
}

#[test]
fn option_readers_refuse_an_immediate_instead_of_forging_a_reference() {
    let (r, t) = registry();
    let heap = Heap::new(HeapConfig::new(8 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let n = m.alloc(t.node, 0).unwrap();
    m.set_value(m.get(&n), t.val, Value::fixnum(7).unwrap());
    m.push_value(Value::fixnum(8).unwrap());
    let h = m.root_value(Value::fixnum(9).unwrap());
    let panics = |f: &dyn Fn()| {
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    assert!(panics(&|| {
        let _ = m.get_ref(m.get(&n), t.val);
    })
    .contains("immediate"));
    assert!(panics(&|| {
        let _ = m.read_ref(m.get(&n), 1);
    })
    .contains("immediate"));
    assert!(panics(&|| {
        let _ = m.stack_get(0);
    })
    .contains("immediate"));
    assert!(panics(&|| {
        let _ = m.get(&h);
    })
    .contains("immediate"));
    // The Value readers give the bits back.
    assert_eq!(m.get_value(m.get(&n), t.val).as_fixnum(), Some(7));
    assert_eq!(m.pop_value().as_fixnum(), Some(8));
    assert_eq!(m.handle_value(&h).as_fixnum(), Some(9));
    // Word fields still refuse to be written as references and vice versa.
    assert!(Value::imm(0x1000).is_none());
}

/// The write barrier skips an overwritten immediate: while concurrent marking
/// runs, every node's immediate (each the lookalike of a dead object) is
/// overwritten, and nothing the barrier logged may reach the markers as a
/// reference (a marker handed `addr | tag` reads a header where there is none).
#[test]
fn overwriting_immediates_while_marking_logs_none_of_them() {
    let gate = CycleGate::default();
    let g = gate.clone();
    let cfg = HeapConfig {
        verify_after_gc: true,
        cycle_hook: Some(CycleHook(Arc::new(move |p| g.hold(CyclePoint::Marking, p)))),
        ..HeapConfig::new(32 << 20)
    };
    let (r, t) = registry();
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    // Dead objects first, then a list whose immediates look like them.
    let mut dead = Vec::new();
    for _ in 0..NODES {
        m.alloc_push(t.node, 0).unwrap();
        dead.push(m.pop().unwrap().addr());
    }
    let list = m.root_value(Value::NULL);
    for (id, &d) in dead.iter().enumerate() {
        let n = m.alloc(t.node, 0).unwrap();
        let g = m.get(&n);
        m.set_word(g, t.id, id as u64);
        m.set_value(g, t.next, m.handle_value(&list));
        m.set_value(g, t.val, Value::imm(lookalike(d, id)).unwrap());
        m.set_handle_value(&list, g.into());
    }
    let starter = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
    };
    assert!(gate.wait_held(&mut m), "the driver did not reach marking");
    assert!(m.barrier_active(), "marking is on");
    let mut cur = m.handle_value(&list).as_ref();
    while let Some(c) = cur {
        let id = m.get_word(c, t.id);
        m.set_value(c, t.val, Value::fixnum(-(id as i64)).unwrap());
        cur = m.get_value(c, t.next).as_ref();
    }
    gate.release();
    m.blocking(|| starter.join().unwrap());
    m.collect();
    m.verify().unwrap();
    let mut cur = m.handle_value(&list).as_ref();
    let mut n = 0;
    while let Some(c) = cur {
        let id = m.get_word(c, t.id);
        assert_eq!(m.get_value(c, t.val).as_fixnum(), Some(-(id as i64)));
        cur = m.get_value(c, t.next).as_ref();
        n += 1;
    }
    assert_eq!(n, NODES);
}
