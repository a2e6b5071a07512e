//! Tailed objects (a fixed part, then a tail of references or of words) on every
//! collection path, in both fault modes: a chain of closures, each holding its
//! code object (a word-tail object) in a fixed field and its captured values in a
//! reference tail, whose *last* element is the only reference to the next closure
//! (a closure with an empty tail links through a fixed field instead). Odd tail
//! elements are the only references to small word-tail objects; even ones hold
//! immediates that look like the closure's own address. Word tails hold words
//! that look like references (addresses of live objects, untagged): a collector
//! that scanned them would move or trip over them. Tails of length 0, small
//! tails, and tails big enough for the large-object space, of both kinds.
//!
//! Each check walks the chain and compares a checksum of everything reachable
//! (ids, tail lengths, immediates' bits, tail words) with the one taken right
//! after building it; the verifier runs after every collection.

mod common;

use flipgc_core::{
    GcErrorKind, GcTrigger, Handle, Heap, HeapConfig, InjectPoint, Mutator, RefField, Tail, TypeId,
    TypeRegistry, Value, WordField,
};

#[derive(Clone, Copy)]
struct Types {
    /// Fixed part: 0 code (ref), 1 id (word), 2 link (ref); then a reference tail.
    clos: TypeId,
    code: RefField,
    id: WordField,
    link: RefField,
    /// Fixed part: 0 id (word); then a word tail.
    words: TypeId,
    wid: WordField,
    /// A plain fixed-size type, for misuse checks.
    pair: TypeId,
}

/// Payload words of the closure's fixed part.
const CLOS_FIELDS: usize = 3;
/// Closures in the chain.
const N: u64 = 120;
/// Tail lengths that put an object into the large-object space (at least 64 KiB).
const LARGE_REFS: usize = 9000;
const LARGE_WORDS: usize = 10_000;

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let clos = r.tailed("closure", 3, &[0, 2], Tail::Refs).unwrap();
    let words = r.tailed("words", 1, &[], Tail::Words).unwrap();
    let pair = r.fixed("pair", 2, &[0, 1]).unwrap();
    let t = Types {
        clos,
        code: r.ref_field(clos, 0).unwrap(),
        id: r.word_field(clos, 1).unwrap(),
        link: r.ref_field(clos, 2).unwrap(),
        words,
        wid: r.word_field(words, 0).unwrap(),
        pair,
    };
    (r, t)
}

/// Closure `i`'s tail length: empty, small, or large.
fn clos_len(i: u64) -> usize {
    match i {
        5 | 77 => LARGE_REFS,
        _ if i % 7 == 0 => 0,
        _ => 1 + (i % 13) as usize,
    }
}

/// Closure `i`'s code object's tail length.
fn code_len(i: u64) -> usize {
    match i {
        3 | 50 => LARGE_WORDS,
        _ if i % 5 == 0 => 0,
        _ => 1 + (i % 9) as usize,
    }
}

/// A word-tail object with id `id` and `len` words, each the address of an
/// object (word-aligned: a reference, were it in a reference slot).
fn word_obj(m: &mut Mutator, t: Types, id: u64, len: usize, lookalike: usize) -> Handle {
    let h = m.alloc(t.words, len).unwrap();
    let g = m.get(&h);
    m.set_word(g, t.wid, id);
    for j in 0..len {
        m.write_tail_word(g, j, (lookalike + 8 * (j % 4)) as u64);
    }
    h
}

/// Builds the chain, last closure first; returns a handle to its head.
fn build(m: &mut Mutator, t: Types) -> Handle {
    let next = m.root_value(Value::NULL);
    for i in (0..N).rev() {
        let len = clos_len(i);
        let c = m.alloc(t.clos, len).unwrap();
        let near = m.get(&c).addr();
        let code = word_obj(m, t, 1000 + i, code_len(i), near);
        let g = m.get(&c);
        m.set_ref(g, t.code, Some(m.get(&code)));
        m.set_word(g, t.id, i);
        for j in 0..len {
            if j + 1 == len {
                m.write_tail_value(m.get(&c), j, m.handle_value(&next));
            } else if j % 2 == 0 {
                let bits = m.get(&c).addr() as u64 | [1, 2, 4, 6, 3, 5, 7][j % 7];
                m.write_tail_value(m.get(&c), j, Value::imm(bits).unwrap());
            } else {
                let e = word_obj(m, t, i * 100_000 + j as u64, 1 + j % 3, near);
                m.write_tail_ref(m.get(&c), j, Some(m.get(&e)));
            }
        }
        if len == 0 {
            m.set_value(m.get(&c), t.link, m.handle_value(&next));
        }
        m.set_handle_value(&next, m.get(&c).into());
    }
    next
}

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x100_0000_01b3).rotate_left(17)
}

/// A word-tail object's id, length and words, read through the tail accessors,
/// the descriptor, and field indices.
fn words_sum(m: &Mutator, t: Types, w: flipgc_core::Gc<'_>) -> u64 {
    assert_eq!(m.type_of(w), t.words);
    let len = m.tail_len(w);
    assert_eq!(m.len(w), 1 + len);
    let mut h = mix(m.get_word(w, t.wid), len as u64);
    for j in 0..len {
        let v = m.read_tail_word(w, j);
        if j % 997 == 0 {
            assert_eq!(m.read_word(w, 1 + j), v);
        }
        h = mix(h, v);
    }
    h
}

/// Walks the chain: its checksum, and the ids in order.
fn checksum(m: &Mutator, t: Types, head: &Handle) -> (u64, Vec<u64>) {
    let mut h = 0;
    let mut ids = Vec::new();
    let mut cur = m.handle_value(head).as_ref();
    while let Some(c) = cur {
        let id = m.get_word(c, t.id);
        ids.push(id);
        let len = m.tail_len(c);
        assert_eq!(len, clos_len(id), "closure {id}'s tail length");
        h = mix(h, id);
        h = mix(h, words_sum(m, t, m.get_ref(c, t.code).expect("code")));
        for j in 0..len.saturating_sub(1) {
            let v = m.read_tail_value(c, j);
            if j % 1000 == 0 {
                assert_eq!(m.read_value(c, CLOS_FIELDS + j), v, "by field index");
            }
            h = mix(
                h,
                match v.as_ref() {
                    Some(e) => words_sum(m, t, e),
                    None => v.bits(),
                },
            );
        }
        cur = if len == 0 {
            m.get_value(c, t.link).as_ref()
        } else {
            assert!(m.get_value(c, t.link).is_null());
            m.read_tail_ref(c, len - 1)
        };
    }
    (h, ids)
}

/// Unreachable closures and word-tail objects, so that collections move the
/// survivors.
fn garbage(m: &mut Mutator, t: Types, n: usize) {
    for k in 0..n {
        m.alloc_push(t.clos, k % 5).unwrap();
        m.pop();
        m.alloc_push(t.words, k % 3).unwrap();
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
        true,
    )
}

#[test]
fn tailed_graphs_survive_every_collection_path() {
    let want_ids: Vec<u64> = (0..N).collect();
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
        let head = build(&mut m, t);
        let (before, ids) = checksum(&m, t, &head);
        assert_eq!(ids, want_ids, "{path}: the chain");
        for round in 0..4 {
            garbage(&mut m, t, if young { 20_000 } else { 3000 });
            if !young {
                m.collect();
            }
            let (after, ids) = checksum(&m, t, &head);
            assert_eq!(ids, want_ids, "{path}: the chain after collection {round}");
            assert_eq!(after, before, "{path}: checksum after collection {round}");
        }
        m.verify().unwrap();
        if young {
            m.blocking(|| heap.wait_idle());
            let n = heap.pause_log().cycles().iter().filter(|c| c.young).count();
            assert!(n >= 2, "{path}: only {n} young cycles");
        }
        assert_eq!(checksum(&m, t, &head).0, before, "{path}: at the end");
        // The collections ran (a request may join a cycle already under way).
        let cycles = heap.pause_log().cycles().len();
        assert!(cycles >= 2, "{path}: only {cycles} cycles");
    }
}

/// Whether `f` panics with a message containing `what`.
fn panics_with(what: &str, f: impl FnOnce()) -> bool {
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    if !msg.contains(what) {
        eprintln!("panic message {msg:?} lacks {what:?}");
    }
    msg.contains(what)
}

#[test]
fn misuse_of_tailed_types_is_refused() {
    let (r, t) = registry();
    // Registration: the fixed part is checked as a fixed-size type's.
    let mut r2 = TypeRegistry::new();
    let e = r2.tailed("bad", 2, &[2], Tail::Refs).unwrap_err();
    assert!(e.to_string().contains("not below 2"), "{e}");
    assert!(r2.tailed("dup", 2, &[1, 1], Tail::Words).is_err());
    // Descriptors: none for the tail, none for word/ref mismatches, no FixedType.
    assert!(r
        .ref_field(t.clos, 3)
        .unwrap_err()
        .to_string()
        .contains("fixed part"));
    assert!(r.ref_field(t.clos, 1).is_err());
    assert!(r.word_field(t.clos, 0).is_err());
    let e = r.fixed_type(t.clos).unwrap_err();
    assert!(e.to_string().contains("tailed"), "{e}");
    let heap = Heap::new(HeapConfig::new(16 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    // Lengths a header cannot hold.
    let e = m.alloc(t.clos, 1 << 40).unwrap_err();
    assert!(matches!(e.kind(), GcErrorKind::Type(_)), "{e}");
    assert!(e.to_string().contains("exceeds"), "{e}");
    assert!(m.alloc_push(t.words, usize::MAX).is_err());
    // A length the header holds but the heap cannot: out of memory, no crash.
    let e = m.alloc(t.words, 1 << 32).unwrap_err();
    assert!(matches!(e.kind(), GcErrorKind::OutOfMemory { .. }), "{e}");

    let c = m.alloc(t.clos, 4).unwrap();
    let w = m.alloc(t.words, 2).unwrap();
    let e0 = m.alloc(t.clos, 0).unwrap();
    let p = m.alloc(t.pair, 0).unwrap();
    let (c, w, e0, p) = (m.get(&c), m.get(&w), m.get(&e0), m.get(&p));
    assert_eq!((m.tail_len(c), m.len(c)), (4, 7));
    assert_eq!((m.tail_len(e0), m.len(e0)), (0, 3));
    // Bad indices.
    assert!(panics_with("out of range", || {
        m.read_tail_value(c, 4);
    }));
    assert!(panics_with("out of range", || {
        m.write_tail_value(e0, 0, Value::NULL)
    }));
    assert!(panics_with("out of range", || {
        m.read_tail_word(w, 2);
    }));
    assert!(panics_with("out of range", || {
        m.read_value(c, CLOS_FIELDS + 4);
    }));
    assert!(panics_with("out of range", || m.write_word(w, 3, 1)));
    // The wrong kind of tail, or of field.
    assert!(panics_with("tail holds references", || {
        m.read_tail_word(c, 0);
    }));
    assert!(panics_with("tail holds words", || {
        m.read_tail_value(w, 0);
    }));
    assert!(panics_with("is not a reference field", || {
        m.read_value(w, 1);
    }));
    assert!(panics_with("is a reference field", || {
        m.write_word(c, CLOS_FIELDS, 8)
    }));
    // Tail access on a fixed-size object.
    assert!(panics_with("not of a tailed type", || {
        m.tail_len(p);
    }));
    assert!(panics_with("not of a tailed type", || {
        m.read_tail_value(p, 0);
    }));
    // Descriptors of another type.
    assert!(panics_with("used on", || {
        m.get_ref(p, t.code);
    }));
    assert!(panics_with("used on", || {
        m.get_word(c, t.wid);
    }));
    // Nothing was stored by the refused calls.
    assert!(m.read_tail_value(c, 0).is_null());
    assert_eq!(m.read_tail_word(w, 1), 0);
}

#[test]
fn fixed_part_descriptors_work_whatever_the_tail_length_and_at_run_time() {
    let heap = Heap::new(HeapConfig::new(16 << 20), TypeRegistry::new()).unwrap();
    let env = heap.register_tailed("env", 2, &[0], Tail::Refs).unwrap();
    let up = heap.ref_field(env, 0).unwrap();
    let n = heap.word_field(env, 1).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let hs: Vec<Handle> = (0..6).map(|len| m.alloc(env, len * 3).unwrap()).collect();
    for (k, h) in hs.iter().enumerate() {
        let g = m.get(h);
        m.set_word(g, n, k as u64);
        m.set_ref(g, up, (k > 0).then(|| m.get(&hs[k - 1])));
        for j in 0..m.tail_len(g) {
            m.write_tail_value(g, j, Value::fixnum((k * 100 + j) as i64).unwrap());
        }
    }
    // A hashed header keeps its fast path too.
    let _ = m.identity_hash(m.get(&hs[2]));
    m.collect();
    for (k, h) in hs.iter().enumerate() {
        let g = m.get(h);
        assert_eq!(m.get_word(g, n), k as u64);
        assert_eq!(m.get_ref(g, up), (k > 0).then(|| m.get(&hs[k - 1])));
        assert_eq!(m.get_refs(g, [up])[0], m.get_ref(g, up));
        for j in 0..m.tail_len(g) {
            let v = m.read_tail_value(g, j).as_fixnum();
            assert_eq!(v, Some((k * 100 + j) as i64));
        }
    }
    m.verify().unwrap();
}

#[test]
fn jit_entry_points_take_tail_field_indices() {
    let (r, t) = registry();
    let heap = Heap::new(HeapConfig::new(16 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let a = m.alloc(t.clos, 6).unwrap();
    let b = m.alloc(t.clos, 4).unwrap();
    let x = m.alloc(t.words, 1).unwrap();
    let y = m.alloc(t.words, 1).unwrap();
    let (ga, gb, gx, gy) = (m.get(&a), m.get(&b), m.get(&x), m.get(&y));
    let f = CLOS_FIELDS; // tail element 0
    assert_eq!(m.compare_exchange_ref_at(ga, f, None, Some(gx)), Ok(None));
    assert_eq!(
        m.compare_exchange_ref_at(ga, f, None, Some(gy)),
        Err(Some(gx))
    );
    assert_eq!(m.swap_ref_at(ga, f + 5, Some(gy)), None);
    assert_eq!(m.swap_ref_at(ga, 0, Some(gx)), None, "a fixed-part field");
    // Tail elements 0..6 of `a` into tail elements 0..4 of `b`, by field index.
    m.copy_refs(ga, f + 2, gb, f, 4);
    assert_eq!(m.read_tail_ref(gb, 3), Some(gy));
    m.copy_refs(ga, f, ga, f + 1, 5); // overlapping, as memmove
    assert_eq!(m.read_tail_ref(ga, 1), Some(gx));
    assert!(panics_with("out of bounds", || m.copy_refs(ga, 0, gb, f, 1)));
    assert!(panics_with("out of bounds", || m.copy_refs(
        ga,
        f,
        gb,
        f + 1,
        4
    )));
    assert!(panics_with("not a reference array", || {
        m.copy_refs(gx, 1, gb, f, 1)
    }));
    assert!(panics_with("not a reference field", || {
        m.swap_ref_at(ga, 1, None);
    }));
    assert!(panics_with("out of range", || {
        m.swap_ref_at(ga, f + 6, None);
    }));
    m.collect();
    let (ga, gb) = (m.get(&a), m.get(&b));
    assert_eq!(m.read_tail_ref(ga, 1), Some(m.get(&x)));
    assert_eq!(m.read_tail_ref(gb, 3), Some(m.get(&y)));
    assert_eq!(m.get_ref(ga, t.code), Some(m.get(&x)));
    m.verify().unwrap();
}
