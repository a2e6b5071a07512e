//! Weak slots on a VM model's heap ([`ObjectModel::weak_slots`]): a small
//! class-based model (word 0 a leaked `&'static Class`) whose `WeakBox` class
//! has one weak slot (word 1) and one strong slot (word 2), on every collection
//! path and in both fault modes.
//!
//! - A weak slot whose referent is otherwise unreachable reads as null after a
//!   collection; one whose referent is still reachable (through the box's own
//!   strong slot, or a root) keeps it, moved, with its contents; an immediate in
//!   a weak slot stays. The verifier passes (every weak slot was forwarded).
//! - Mutators that read weak slots while collections run and make what they read
//!   strongly reachable (the weak-read barrier's case) never see it cleared
//!   afterwards: at the end, every box's strong slot equals its weak slot.
//! - Ephemerons (`ephemeron_slots`): entries whose values refer to their own
//!   keys are all cleared once the keys are dropped, and all kept while the
//!   keys are held.
//! - The checked-once descriptors and the atomic entry points refuse weak slots.

mod common;

use flipgc_core::{
    FixedLayout, GcErrorKind, GcTrigger, Heap, HeapConfig, InjectPoint, Mutator, ObjectModel,
    ObjectRef, Value,
};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A fixed-size class: `words` words, reference slots `refs`, of which `weak`
/// are weak.
#[derive(Debug)]
struct Class {
    words: usize,
    refs: u64,
    weak: u64,
    /// An ephemeron's key and value slots.
    eph: Option<(usize, usize)>,
}

impl Class {
    fn leak(words: usize, refs: u64, weak: u64) -> &'static Class {
        Box::leak(Box::new(Class {
            words,
            refs,
            weak,
            eph: None,
        }))
    }

    fn header(&'static self) -> u64 {
        self as *const Class as u64
    }
}

/// The test's model: every object is a fixed-size instance of its class.
struct WeakModel;

fn class_of(w0: u64) -> &'static Class {
    // SAFETY: every word 0 given to the model on these heaps is a leaked
    // `Class`'s address (the only headers the tests allocate with or ask about).
    unsafe { &*(w0 as *const Class) }
}

fn class(obj: ObjectRef) -> &'static Class {
    // SAFETY: word 0 is a header word of a whole object.
    class_of(unsafe { obj.load(0) })
}

// SAFETY: answers depend only on word 0 and the immutable classes; `scan`
// visits exactly the `refs` words (weak ones included) in increasing order,
// all past the one header word; every weak slot is a reference slot below 64.
unsafe impl ObjectModel for WeakModel {
    fn object_words(&self, obj: ObjectRef) -> usize {
        class(obj).words
    }

    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
        let mut refs = class(obj).refs;
        while refs != 0 {
            slot(refs.trailing_zeros() as usize);
            refs &= refs - 1;
        }
    }

    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
        i < 64 && class(obj).refs >> i & 1 != 0
    }

    fn header_words(&self, _obj: ObjectRef) -> usize {
        1
    }

    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        let c = class_of(w0);
        Some(FixedLayout {
            words: c.words,
            header_words: 1,
            ref_mask: c.refs,
        })
    }

    fn weak_slots(&self, w0: u64) -> u64 {
        class_of(w0).weak
    }

    fn ephemeron_slots(&self, w0: u64) -> Option<(usize, usize)> {
        class_of(w0).eph
    }
}

/// `[hdr, strong, id, weak]`: the weak slot last, so that nothing here
/// depends on a weak slot's being word 1.
const STRONG: usize = 1;
const BOX_ID: usize = 2;
const WEAK: usize = 3;
/// `[hdr, next, id, id * 3]`: the referents (`next` links garbage lists).
const NEXT: usize = 1;
const ID: usize = 2;
const CHECK: usize = 3;

#[derive(Clone, Copy)]
struct Classes {
    weak_box: &'static Class,
    target: &'static Class,
}

fn classes() -> Classes {
    Classes {
        weak_box: Class::leak(4, 0b1010, 0b1000),
        target: Class::leak(4, 0b010, 0),
    }
}

/// Pushes a target with id `id`.
fn push_target(m: &mut Mutator, c: Classes, id: u64) {
    m.push_object(4, &[c.target.header()]).expect("alloc");
    let t = m.stack_get(m.stack_len() - 1).unwrap();
    m.write_slot_word(t, ID, id);
    m.write_slot_word(t, CHECK, id * 3);
}

/// The id of target `v`, after checking its contents.
fn target_id(m: &Mutator, v: Value<'_>, what: &str) -> u64 {
    let t = v
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: not a reference"));
    let id = m.read_slot_word(t, ID);
    assert_eq!(m.read_slot_word(t, CHECK), id * 3, "{what}: target {id}");
    id
}

/// `n` unreachable targets chained through `next`, in chunks.
fn garbage(m: &mut Mutator, c: Classes, n: u64) {
    let base = m.stack_len();
    for i in 0..n {
        push_target(m, c, 1 << 40 | i);
        if i % 100 != 0 {
            let t = m.stack_get(m.stack_len() - 1).unwrap();
            let prev = m.stack_get(m.stack_len() - 2).unwrap();
            m.write_slot(t, NEXT, prev.into());
            m.stack_truncate(m.stack_len() - 2);
            m.push(Some(t));
        } else {
            m.stack_truncate(base);
            push_target(m, c, i);
        }
    }
    m.stack_truncate(base);
}

fn paths() -> Vec<(String, HeapConfig)> {
    let base = || {
        let mut c = HeapConfig::new(32 << 20);
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c.verify_after_gc = true;
        // Collections while the threads run, not only the tests' own.
        c.trigger = GcTrigger::AfterBytes(256 << 10);
        c
    };
    common::paths_in_both_fault_modes(
        base,
        &[
            ("uffd-register injected", InjectPoint::UffdRegister),
            ("mark-rounds injected", InjectPoint::MarkRounds),
        ],
        true,
    )
}

fn on_every_path(body: impl FnMut(&str, Heap)) {
    common::on_every_model_path(paths(), || WeakModel, body)
}

/// What box `i` of [`dead_referents_are_cleared_and_live_ones_kept`] holds: the
/// target is kept by the box's strong slot (`Own`), by the keep list
/// (`Rooted`), by nothing (`Dead`), or the weak slot holds an immediate.
#[derive(Debug, PartialEq)]
enum Case {
    Own,
    Rooted,
    Dead,
    Immediate,
}

fn case(i: u64) -> Case {
    match i % 4 {
        0 => Case::Own,
        1 => Case::Rooted,
        2 => Case::Dead,
        _ => Case::Immediate,
    }
}

const BOXES: u64 = 2000;

#[test]
fn dead_referents_are_cleared_and_live_ones_kept() {
    let c = classes();
    on_every_path(|path, heap| {
        let mut m = heap.bind_mutator().unwrap();
        // The boxes stay on the root stack; rooted targets are held by handles.
        let boxes_at = m.stack_len();
        for i in 0..BOXES {
            m.push_object(4, &[c.weak_box.header()]).expect("alloc");
            let b = m.stack_get(m.stack_len() - 1).unwrap();
            m.write_slot_word(b, BOX_ID, i);
        }
        let mut rooted = Vec::new();
        for i in 0..BOXES {
            if case(i) == Case::Immediate {
                let b = m.stack_get(boxes_at + i as usize).unwrap();
                m.write_slot(b, WEAK, Value::fixnum(i as i64).unwrap());
                continue;
            }
            push_target(&mut m, c, i);
            let t = m.stack_get(m.stack_len() - 1).unwrap();
            let b = m.stack_get(boxes_at + i as usize).unwrap();
            m.write_slot(b, WEAK, t.into());
            match case(i) {
                Case::Own => m.write_slot(b, STRONG, t.into()),
                Case::Rooted => rooted.push(m.root(t)),
                _ => {}
            }
            m.pop();
            if i % 500 == 0 {
                garbage(&mut m, c, 300);
            }
        }
        for _ in 0..2 {
            garbage(&mut m, c, 3000);
            m.collect();
        }
        m.blocking(|| heap.wait_idle());
        m.collect();
        let mut rooted = rooted.iter();
        for i in 0..BOXES {
            let b = m.stack_get(boxes_at + i as usize).unwrap();
            assert_eq!(m.read_slot_word(b, BOX_ID), i, "{path}: box {i}");
            let w = m.read_slot(b, WEAK);
            let what = format!("{path}: box {i} ({:?})", case(i));
            match case(i) {
                Case::Own => {
                    assert_eq!(target_id(&m, w, &what), i);
                    assert_eq!(w, m.read_slot(b, STRONG), "{what}");
                }
                Case::Rooted => {
                    assert_eq!(target_id(&m, w, &what), i);
                    let h = rooted.next().unwrap();
                    assert_eq!(w.as_ref(), Some(m.get(h)), "{what}");
                }
                Case::Dead => assert!(w.is_null(), "{what}: the dead referent was not cleared"),
                Case::Immediate => assert_eq!(w.as_fixnum(), Some(i as i64), "{what}"),
            }
        }
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    });
}

/// Threads that read weak slots while collections run, and store what they
/// read into the box's strong slot: a referent a mutator read (and so made
/// strongly reachable) must never be cleared. At the end every box whose
/// strong slot is set has the same reference in its weak slot, and the heap
/// verifies (a cleared-but-read referent would leave the strong slot dangling).
#[test]
fn referents_read_while_marking_stay() {
    let c = classes();
    on_every_path(|path, heap| {
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let heap = &heap;
                s.spawn(move || {
                    let mut m = heap.bind_mutator().unwrap();
                    let base = m.stack_len();
                    const N: u64 = 400;
                    for round in 0..10u64 {
                        m.stack_truncate(base);
                        for i in 0..N {
                            m.push_object(4, &[c.weak_box.header()]).expect("alloc");
                            push_target(&mut m, c, t << 32 | round << 16 | i);
                            let tg = m.stack_get(m.stack_len() - 1).unwrap();
                            let b = m.stack_get(m.stack_len() - 2).unwrap();
                            m.write_slot(b, WEAK, tg.into());
                            m.write_slot_word(b, BOX_ID, i);
                            m.pop();
                        }
                        // Rescue every other referent, in passes interleaved
                        // with garbage, so that reads fall inside markings.
                        for pass in 0..4 {
                            for i in (pass..N).step_by(8) {
                                let b = m.stack_get(base + i as usize).unwrap();
                                let w = m.read_slot(b, WEAK);
                                if let Some(r) = w.as_ref() {
                                    m.write_slot(b, STRONG, r.into());
                                }
                                m.safepoint();
                            }
                            garbage(&mut m, c, 1500);
                        }
                        for i in 0..N {
                            let b = m.stack_get(base + i as usize).unwrap();
                            let (w, st) = (m.read_slot(b, WEAK), m.read_slot(b, STRONG));
                            if !st.is_null() {
                                assert_eq!(w, st, "{path}: thread {t} round {round} box {i}");
                                target_id(&m, st, path);
                            }
                        }
                    }
                    m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
                });
            }
        });
        let cycles = heap.pause_log().cycles().iter().count();
        eprintln!("{path}: {cycles} cycles");
        assert!(cycles > 0, "{path}: no collection ran");
    });
}

#[test]
fn descriptors_and_atomics_refuse_weak_slots() {
    let c = classes();
    let heap = Heap::with_model(HeapConfig::new(16 << 20), WeakModel).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let e = m.model_ref_slot(c.weak_box.header(), WEAK).unwrap_err();
    assert!(matches!(e.kind(), GcErrorKind::Type(_)), "{e}");
    assert!(e.to_string().contains("weak slot"), "{e}");
    m.model_ref_slot(c.weak_box.header(), STRONG)
        .expect("a strong slot has a descriptor");
    // The constructors' leading run of reference slots stops at a weak slot.
    let strong_then_weak = Class::leak(3, 0b110, 0b100);
    assert_eq!(
        m.model_type(strong_then_weak.header()).unwrap().lead_refs(),
        1
    );
    assert_eq!(m.model_type(c.weak_box.header()).unwrap().lead_refs(), 1);
    assert_eq!(m.model_type(c.target.header()).unwrap().lead_refs(), 1);
    m.push_object(4, &[c.weak_box.header()]).unwrap();
    let b = m.stack_get(0).unwrap();
    let msg = |r: std::thread::Result<()>| match r {
        Ok(()) => panic!("the call on a weak slot was not refused"),
        Err(p) => p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
    };
    let cas = catch_unwind(AssertUnwindSafe(|| {
        let _ = m.compare_exchange_value_at(b, WEAK, Value::NULL, Value::NULL);
    }));
    assert!(msg(cas).contains("weak"));
    let swap = catch_unwind(AssertUnwindSafe(|| {
        let _ = m.swap_value_at(b, WEAK, Value::NULL);
    }));
    assert!(msg(swap).contains("weak"));
    // The strong slot takes both.
    assert!(m
        .compare_exchange_value_at(b, STRONG, Value::NULL, Value::NULL)
        .is_ok());
}

/// The weak-read barrier, deterministically: box W, made before the cycle,
/// is the only thing that refers to target T (weakly). While marking runs
/// (held open by the hook), the mutator reads T out of W and stores it into
/// the strong slot of box A, made during marking (black, so never scanned).
/// The barrier logs T as live: after the cycle A still holds T, whole, and W's
/// weak slot was not cleared. Without the barrier T would be freed under A (and
/// W's slot cleared); the verifier and the assertions below catch either.
#[test]
fn a_referent_read_while_marking_is_kept() {
    let c = classes();
    for (path, mut cfg) in paths()
        .into_iter()
        .filter(|(p, _)| p.starts_with("concurrent"))
    {
        let (hook, go, done) = common::hold_marking();
        cfg.cycle_hook = Some(hook);
        cfg.trigger = GcTrigger::WhenFull;
        let Ok(heap) = Heap::with_model(cfg, WeakModel) else {
            eprintln!("{path}: skipped");
            continue;
        };
        let mut m = heap.bind_mutator().unwrap();
        m.push_object(4, &[c.weak_box.header()]).unwrap(); // W, slot 0
        push_target(&mut m, c, 77);
        let (w, t) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        m.write_slot(w, WEAK, t.into());
        m.pop(); // only W refers to T now, weakly
        let requester = {
            let heap = heap.clone();
            std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
        };
        m.blocking(move || go.recv().unwrap());
        assert!(m.barrier_active(), "{path}: marking is on");
        m.push_object(4, &[c.weak_box.header()]).unwrap(); // A (black), slot 1
        let (w, a) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        let got = m.read_slot(w, WEAK);
        assert!(
            !got.is_null(),
            "{path}: not cleared before the end of marking"
        );
        m.write_slot(a, STRONG, got);
        done.send(()).unwrap();
        m.blocking(move || requester.join().unwrap());
        m.blocking(|| heap.wait_idle());
        let (w, a) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        let held = m.read_slot(a, STRONG);
        assert_eq!(target_id(&m, held, &path), 77);
        assert_eq!(m.read_slot(w, WEAK), held, "{path}: a read referent lives");
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

/// `[hdr, strong, value, key]`, an ephemeron whose key (word 3) and value
/// (word 2) are neither words 1 and 2 nor in that order (a built-in
/// ephemeron's); values are `[hdr, key, id]` with `key` strong: each value
/// refers to its own entry's key.
const EKEY: usize = 3;
const EVALUE: usize = 2;
const ENTRIES: u64 = 20_000;

/// Ephemerons on a model heap, on every path: `ENTRIES` entries whose values
/// refer to their keys. With the keys dropped, every entry is cleared (key and
/// value null: the value did not keep its key alive); with the keys held on the
/// stack, every entry keeps its key and its value, whose key slot is that key.
#[test]
fn ephemerons_whose_values_hold_their_keys_are_freed_with_the_keys() {
    let c = classes();
    let eph: &'static Class = Box::leak(Box::new(Class {
        words: 4,
        refs: 0b1110,
        weak: 0b1100,
        eph: Some((EKEY, EVALUE)),
    }));
    let value: &'static Class = Class::leak(3, 0b010, 0);
    on_every_path(|path, heap| {
        let mut m = heap.bind_mutator().unwrap();
        for keep in [false, true] {
            m.stack_truncate(0);
            for i in 0..ENTRIES {
                m.push_object(4, &[eph.header()]).unwrap();
                push_target(&mut m, c, i);
                m.push_object(3, &[value.header()]).unwrap();
                let n = m.stack_len();
                let (e, k, v) = (
                    m.stack_get(n - 3).unwrap(),
                    m.stack_get(n - 2).unwrap(),
                    m.stack_get(n - 1).unwrap(),
                );
                m.write_slot(v, 1, k.into());
                m.write_slot_word(v, 2, i);
                m.write_slot(e, EKEY, k.into());
                m.write_slot(e, EVALUE, v.into());
                m.pop();
                if !keep {
                    m.pop();
                }
            }
            garbage(&mut m, c, 2000);
            m.collect();
            m.blocking(|| heap.wait_idle());
            m.collect();
            let step = if keep { 2 } else { 1 };
            for i in 0..ENTRIES {
                let at = (i * step) as usize;
                let e = m.stack_get(at).unwrap();
                let (k, v) = (m.read_slot(e, EKEY), m.read_slot(e, EVALUE));
                if keep {
                    let held = m.stack_get(at + 1).unwrap();
                    assert_eq!(k.as_ref(), Some(held), "{path}: entry {i}'s key");
                    let v = v
                        .as_ref()
                        .unwrap_or_else(|| panic!("{path}: entry {i} lost its value"));
                    assert_eq!(m.read_slot_word(v, 2), i, "{path}: entry {i}'s value");
                    assert_eq!(m.read_slot(v, 1), k, "{path}: entry {i}'s value's key");
                    assert_eq!(target_id(&m, k, path), i);
                } else {
                    assert!(
                        k.is_null() && v.is_null(),
                        "{path}: entry {i} was not cleared (key {k:?}, value {v:?})"
                    );
                }
            }
            m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    });
}

/// Weak slots of large objects (in the large-object space, which marking,
/// lazy forwarding and weak clearing treat apart), on every path: a large box
/// whose weak slot (word 5) refers to a dropped target reads null after the
/// collections, one whose target is rooted keeps it (moved, whole), and one
/// whose target its own strong slot (word 1) holds keeps it too.
#[test]
fn weak_slots_of_large_objects() {
    let c = classes();
    // 9,000 words: above the default large-object threshold (64 KiB).
    let large: &'static Class = Class::leak(9000, 0b100010, 0b100000);
    const LWEAK: usize = 5;
    on_every_path(|path, heap| {
        let mut m = heap.bind_mutator().unwrap();
        for _ in 0..3 {
            m.push_object(9000, &[large.header()]).unwrap();
        }
        let mut held = None;
        for (i, b) in (0..3).enumerate() {
            push_target(&mut m, c, 500 + i as u64);
            let t = m.stack_get(m.stack_len() - 1).unwrap();
            let bx = m.stack_get(b).unwrap();
            m.write_slot(bx, LWEAK, t.into());
            match i {
                1 => held = Some(m.root(t)),
                2 => m.write_slot(bx, 1, t.into()),
                _ => {}
            }
            m.pop();
        }
        garbage(&mut m, c, 3000);
        m.collect();
        m.blocking(|| heap.wait_idle());
        m.collect();
        let w = [0, 1, 2].map(|b| m.read_slot(m.stack_get(b).unwrap(), LWEAK));
        assert!(w[0].is_null(), "{path}: the dropped target was not cleared");
        assert_eq!(target_id(&m, w[1], path), 501);
        assert_eq!(w[1].as_ref(), Some(m.get(held.as_ref().unwrap())), "{path}");
        assert_eq!(target_id(&m, w[2], path), 502);
        assert_eq!(w[2], m.read_slot(m.stack_get(2).unwrap(), 1), "{path}");
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    });
}
