//! The card mark on every store path (`cards.rs`, `collect/old_cards.rs`): a
//! young cycle reads only the cards of the stable old region that were written,
//! so a store path without its card mark loses the young objects it makes
//! reachable.
//!
//! - For each store path in the list: an old object in the stable part of the
//!   old region (a full collection, then a young cycle, so that the next young
//!   cycle reads it by its card only), on a page of the compaction's dense
//!   prefix, takes a young object through that path;
//!   every other reference to the young object is dropped; after two more young
//!   cycles the young object is still there with its contents (a weak field's
//!   referent, dropped, is cleared instead), and the heap verifies (after every
//!   collection too, with the mark-end pause's sanity re-trace).
//! - The value filter (a store of null or an immediate takes no mark): on seven
//!   paths, null and an immediate leave a stable holder's clean card clean, and
//!   a young object stored after them marks it and survives two young cycles.
//! - Mutator threads storing young objects into old ones while the pacer's
//!   young cycles run lose none of them.

use flipgc_core::{
    flipgc_card_mark, flipgc_write_barrier_slow, FixedLayout, Gc, GcTrigger, Heap, HeapConfig,
    Mutator, ObjectModel, ObjectRef, RefField, Tail, TypeId, TypeRegistry, Value, WordField,
};
use std::sync::Arc;

const MIB: usize = 1 << 20;
/// The id every test's young object carries.
const ID: u64 = 0xC0FFEE;

#[derive(Clone, Copy)]
struct Types {
    /// Field 0: child (strong), field 1: id.
    node: TypeId,
    child: RefField,
    id: WordField,
    /// Field 0: weak.
    weak: TypeId,
    wref: RefField,
    array: TypeId,
    /// One word field, then a reference tail.
    tailed: TypeId,
}

fn config() -> HeapConfig {
    let mut c = HeapConfig::new(16 * MIB);
    c.verify_after_gc = true;
    c.trigger = GcTrigger::AfterBytes(MIB);
    c
}

fn heap() -> (Heap, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 2, &[0]).unwrap();
    let weak = r.fixed_weak("weak", 1, &[], &[0]).unwrap();
    let t = Types {
        node,
        child: r.ref_field(node, 0).unwrap(),
        id: r.word_field(node, 1).unwrap(),
        weak,
        wref: r.ref_field(weak, 0).unwrap(),
        array: r.ref_array("array").unwrap(),
        tailed: r.tailed("tailed", 1, &[], Tail::Refs).unwrap(),
    };
    (Heap::new(config(), r).unwrap(), t)
}

fn young_cycles(m: &mut Mutator, heap: &Heap) -> usize {
    m.blocking(|| heap.wait_idle());
    heap.pause_log().cycles().iter().filter(|c| c.young).count()
}

/// Allocates garbage until `n` more young cycles have run.
fn run_young_cycles(m: &mut Mutator, heap: &Heap, t: TypeId, len: usize, n: usize) {
    let want = young_cycles(m, heap) + n;
    while young_cycles(m, heap) < want {
        for _ in 0..256 {
            m.alloc_push(t, len).unwrap();
            m.pop();
        }
    }
}

/// Makes the objects on the root stack old and stable: a full collection
/// places them at the bottom of the space, and the young cycle after it reads
/// them whole; the next young cycle reads them by their cards only.
fn make_stable(m: &mut Mutator, heap: &Heap, t: TypeId, len: usize) {
    m.collect();
    run_young_cycles(m, heap, t, len, 1);
}

/// Pushes a list of old nodes above the holder (allocated just before), so
/// that the holder's page is one of several whole pages of stable old objects:
/// the compaction's dense prefix, whose clean pages are not forwarded.
fn push_ballast(m: &mut Mutator, t: Types) {
    m.push(None);
    let head = m.stack_len() - 1;
    for _ in 0..8192 {
        m.alloc_push(t.node, 0).unwrap();
        let n = get(m, head + 1);
        m.set_ref(n, t.child, m.stack_get(head));
        m.stack_set(head, Some(n));
        m.pop();
    }
}

/// Pushes a young node with id [`ID`], after some garbage: the node moves in
/// the next compaction, so a reference to it left unforwarded would dangle.
fn push_young(m: &mut Mutator, t: Types) {
    for _ in 0..64 {
        m.alloc_push(t.node, 0).unwrap();
        m.pop();
    }
    m.alloc_push(t.node, 0).unwrap();
    let y = m.stack_get(m.stack_len() - 1).unwrap();
    m.set_word(y, t.id, ID);
}

/// One store path on a built-in heap: `holder_ty` (`len` elements) is made old
/// and stable, then `store(m, holder, young)` stores the young node into it, the
/// young node's root is dropped, and after two young cycles `load(m, holder)`
/// must find it.
fn path(
    holder_ty: fn(Types) -> (TypeId, usize),
    store: impl Fn(&mut Mutator, Types, usize, usize),
    load: impl Fn(&Mutator, Types, Gc<'_>) -> Option<u64>,
) {
    let (heap, t) = heap();
    let mut m = heap.bind_mutator().unwrap();
    let (ty, len) = holder_ty(t);
    m.alloc_push(ty, len).unwrap();
    let holder = m.stack_len() - 1;
    push_ballast(&mut m, t);
    make_stable(&mut m, &heap, t.node, 0);
    assert!(young_cycles(&mut m, &heap) >= 1);
    push_young(&mut m, t);
    let young = m.stack_len() - 1;
    store(&mut m, t, holder, young);
    m.stack_truncate(young);
    run_young_cycles(&mut m, &heap, t.node, 0, 2);
    let h = m.stack_get(holder).unwrap();
    assert_eq!(load(&m, t, h), Some(ID), "the young object is gone");
    m.verify().unwrap();
}

fn node(t: Types) -> (TypeId, usize) {
    (t.node, 0)
}

fn array(t: Types) -> (TypeId, usize) {
    (t.array, 4)
}

fn tailed(t: Types) -> (TypeId, usize) {
    (t.tailed, 4)
}

/// The id of the node in field `child` of `h`.
fn child_id(m: &Mutator, t: Types, h: Gc<'_>) -> Option<u64> {
    m.get_ref(h, t.child).map(|c| m.get_word(c, t.id))
}

/// The id of the node in field (element) 2 of `h`.
fn at2_id(m: &Mutator, t: Types, h: Gc<'_>) -> Option<u64> {
    m.read_ref(h, 2).map(|c| m.get_word(c, t.id))
}

/// The id of the node in tail element 2 of `h`.
fn tail2_id(m: &Mutator, t: Types, h: Gc<'_>) -> Option<u64> {
    m.read_tail_ref(h, 2).map(|c| m.get_word(c, t.id))
}

fn get(m: &Mutator, slot: usize) -> Gc<'_> {
    m.stack_get(slot).unwrap()
}

#[test]
fn set_ref() {
    path(
        node,
        |m, t, h, y| m.set_ref(get(m, h), t.child, Some(get(m, y))),
        child_id,
    );
}

#[test]
fn set_refs() {
    path(
        node,
        |m, t, h, y| m.set_refs(get(m, h), [t.child], [Some(get(m, y))]),
        child_id,
    );
}

#[test]
fn set_value() {
    path(
        node,
        |m, t, h, y| m.set_value(get(m, h), t.child, Value::from(Some(get(m, y)))),
        child_id,
    );
}

#[test]
fn write_ref() {
    path(
        array,
        |m, _, h, y| m.write_ref(get(m, h), 2, Some(get(m, y))),
        at2_id,
    );
}

#[test]
fn write_value() {
    path(
        array,
        |m, _, h, y| m.write_value(get(m, h), 2, Value::from(Some(get(m, y)))),
        at2_id,
    );
}

#[test]
fn write_tail_ref() {
    path(
        tailed,
        |m, _, h, y| m.write_tail_ref(get(m, h), 2, Some(get(m, y))),
        tail2_id,
    );
}

#[test]
fn write_tail_value() {
    path(
        tailed,
        |m, _, h, y| m.write_tail_value(get(m, h), 2, Value::from(Some(get(m, y)))),
        tail2_id,
    );
}

#[test]
fn compare_exchange_ref() {
    path(
        node,
        |m, t, h, y| {
            m.compare_exchange_ref(get(m, h), t.child, None, Some(get(m, y)))
                .unwrap();
        },
        child_id,
    );
}

#[test]
fn compare_exchange_ref_at() {
    path(
        array,
        |m, _, h, y| {
            m.compare_exchange_ref_at(get(m, h), 2, None, Some(get(m, y)))
                .unwrap();
        },
        at2_id,
    );
}

#[test]
fn swap_ref() {
    path(
        node,
        |m, t, h, y| {
            m.swap_ref(get(m, h), t.child, Some(get(m, y)));
        },
        child_id,
    );
}

#[test]
fn swap_ref_at() {
    path(
        array,
        |m, _, h, y| {
            m.swap_ref_at(get(m, h), 2, Some(get(m, y)));
        },
        at2_id,
    );
}

#[test]
fn copy_refs() {
    // From a young array, dropped afterwards with the young node's root.
    path(
        array,
        |m, t, h, y| {
            m.alloc_push(t.array, 4).unwrap();
            let src = m.stack_len() - 1;
            m.write_ref(get(m, src), 1, Some(get(m, y)));
            m.copy_refs(get(m, src), 0, get(m, h), 1, 3);
        },
        at2_id,
    );
}

#[test]
fn alloc_fixed_n_into() {
    path(
        node,
        |m, t, h, _| {
            let ft = m.heap().types().fixed_type(t.node).unwrap();
            m.alloc_fixed_n_into::<1>(ft, h, [t.child]).unwrap();
            let c = m.get_ref(get(m, h), t.child).unwrap();
            m.set_word(c, t.id, ID);
        },
        child_id,
    );
}

#[test]
fn push_fixed_n_into() {
    path(
        node,
        |m, t, h, _| {
            let ft = m.heap().types().fixed_type(t.node).unwrap();
            m.push_fixed_n_into::<1>(ft, h, [t.child]).unwrap();
            let c = m.get_ref(get(m, h), t.child).unwrap();
            m.set_word(c, t.id, ID);
        },
        child_id,
    );
}

#[test]
fn generated_code_store() {
    // What a compiler emits: the barrier's flag test and slow path, a release
    // store, the card mark.
    path(
        node,
        |m, _, h, y| {
            let slot = get(m, h).addr() + 8;
            let v = get(m, y).addr() as u64;
            let m = &*m;
            // SAFETY: `slot` is field 0 (strong) of a live object of `m`'s heap,
            // a moving-space object (ready for access), and `v` a live object of
            // it; no GC point until the card mark.
            unsafe {
                if *m.barrier_flag_addr() != 0 {
                    flipgc_write_barrier_slow(m, slot);
                }
                std::sync::atomic::AtomicU64::from_ptr(slot as *mut u64)
                    .store(v, std::sync::atomic::Ordering::Release);
                flipgc_card_mark(m, slot);
            }
        },
        child_id,
    );
}

/// A weak field: its referent, held by nothing else, dies, and the field must
/// be cleared (without the card, the holder is not looked at, and its field
/// would keep a freed object's address: the verifier fails).
fn weak_path(store: impl Fn(&Mutator, Types, Gc<'_>, Gc<'_>)) {
    let (heap, t) = heap();
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.weak, 0).unwrap();
    let holder = m.stack_len() - 1;
    make_stable(&mut m, &heap, t.node, 0);
    push_young(&mut m, t);
    store(&m, t, get(&m, holder), get(&m, holder + 1));
    m.stack_truncate(holder + 1);
    run_young_cycles(&mut m, &heap, t.node, 0, 2);
    m.verify().unwrap();
    let h = get(&m, holder);
    assert!(m.get_ref(h, t.wref).is_none(), "a dead referent was kept");
}

#[test]
fn weak_set_ref() {
    weak_path(|m, t, h, y| m.set_ref(h, t.wref, Some(y)));
}

#[test]
fn weak_write_ref() {
    weak_path(|m, _, h, y| m.write_ref(h, 0, Some(y)));
}

/// A model heap's objects: word 0 is [`NODE`], word 1 a reference slot, word 2
/// a raw word.
struct NodeModel;

/// The one class's header word (bit 0 clear: not a filler).
const NODE: u64 = 0x1000;

// SAFETY: the answers depend on nothing (one class): three words, slot 1 the
// only reference slot, past the one header word; no allocation, lock or panic.
unsafe impl ObjectModel for NodeModel {
    fn object_words(&self, _: ObjectRef) -> usize {
        3
    }
    fn scan(&self, _: ObjectRef, slot: &mut dyn FnMut(usize)) {
        slot(1)
    }
    fn is_ref_slot(&self, _: ObjectRef, i: usize) -> bool {
        i == 1
    }
    fn header_words(&self, _: ObjectRef) -> usize {
        1
    }
    fn fixed_layout(&self, _: u64) -> Option<FixedLayout> {
        Some(FixedLayout {
            words: 3,
            header_words: 1,
            ref_mask: 0b10,
        })
    }
}

fn model_path(store: impl Fn(&Mutator, Gc<'_>, Gc<'_>)) {
    let heap = Heap::with_model(config(), NodeModel).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let garbage = |m: &mut Mutator, n: usize| {
        let want = young_cycles(m, &heap) + n;
        while young_cycles(m, &heap) < want {
            for _ in 0..256 {
                m.push_object(3, &[NODE]).unwrap();
                m.pop();
            }
        }
    };
    m.push_object(3, &[NODE]).unwrap();
    m.collect();
    garbage(&mut m, 1);
    m.push_object(3, &[NODE]).unwrap();
    m.write_slot_word(get(&m, 1), 2, ID);
    store(&m, get(&m, 0), get(&m, 1));
    m.stack_truncate(1);
    garbage(&mut m, 2);
    let y = m
        .read_slot(get(&m, 0), 1)
        .as_ref()
        .expect("the young object is gone");
    assert_eq!(m.read_slot_word(y, 2), ID);
    m.verify().unwrap();
}

#[test]
fn model_write_slot() {
    model_path(|m, h, y| m.write_slot(h, 1, Value::from(Some(y))));
}

#[test]
fn model_set_slot() {
    model_path(|m, h, y| {
        let s = m.model_ref_slot(NODE, 1).unwrap();
        m.set_slot(h, s, Value::from(Some(y)));
    });
}

/// The value filter of the card mark (`cards.rs`: a store of null or an
/// immediate takes no mark), on one store path: `slot(h)` is the address of
/// the field `store(m, h, v)` writes in a holder of `holder_ty`, made old and
/// stable with a clean card. Null, then an immediate (as null on the paths that
/// take only references), leave the card clean; the young node stored after
/// them dirties it, and survives two young cycles (a filter that also skipped
/// references would lose it).
fn filtered_path(
    holder_ty: fn(Types) -> (TypeId, usize),
    slot: fn(Gc<'_>) -> usize,
    store: impl Fn(&Mutator, Types, Gc<'_>, Value<'_>),
    load: impl Fn(&Mutator, Types, Gc<'_>) -> Option<u64>,
) {
    filtered_or_not(true, holder_ty, slot, store, load)
}

/// As [`filtered_path`], for a path that takes no value filter (the typed
/// reference stores: `set_ref`, `set_refs`, the constructors): a null store
/// marks the card too (sound: a card read in vain), and the young node stored
/// after it survives.
fn unfiltered_path(
    holder_ty: fn(Types) -> (TypeId, usize),
    slot: fn(Gc<'_>) -> usize,
    store: impl Fn(&Mutator, Types, Gc<'_>, Value<'_>),
    load: impl Fn(&Mutator, Types, Gc<'_>) -> Option<u64>,
) {
    filtered_or_not(false, holder_ty, slot, store, load)
}

fn filtered_or_not(
    filtered: bool,
    holder_ty: fn(Types) -> (TypeId, usize),
    slot: fn(Gc<'_>) -> usize,
    store: impl Fn(&Mutator, Types, Gc<'_>, Value<'_>),
    load: impl Fn(&Mutator, Types, Gc<'_>) -> Option<u64>,
) {
    let (heap, t) = heap();
    let mut m = heap.bind_mutator().unwrap();
    let (ty, len) = holder_ty(t);
    m.alloc_push(ty, len).unwrap();
    let holder = m.stack_len() - 1;
    push_ballast(&mut m, t);
    make_stable(&mut m, &heap, t.node, 0);
    push_young(&mut m, t);
    let young = m.stack_len() - 1;
    let at = slot(get(&m, holder));
    assert!(!m.card_is_dirty(at), "the stable holder's card is clean");
    store(&m, t, get(&m, holder), Value::NULL);
    if filtered {
        assert!(!m.card_is_dirty(at), "a null store marks no card");
        store(&m, t, get(&m, holder), Value::fixnum(7).unwrap());
        assert!(!m.card_is_dirty(at), "an immediate store marks no card");
    } else {
        assert!(
            m.card_is_dirty(at),
            "an unfiltered null store marks its card"
        );
    }
    store(&m, t, get(&m, holder), Value::from(Some(get(&m, young))));
    assert!(m.card_is_dirty(at), "a reference store marks its card");
    m.stack_truncate(young);
    run_young_cycles(&mut m, &heap, t.node, 0, 2);
    let h = m.stack_get(holder).unwrap();
    assert_eq!(load(&m, t, h), Some(ID), "the young object is gone");
    m.verify().unwrap();
}

/// Field 0 of a node.
fn child_slot(h: Gc<'_>) -> usize {
    h.addr() + 8
}

/// Element 2 of an array.
fn at2_slot(h: Gc<'_>) -> usize {
    h.addr() + 8 * 3
}

/// Tail element 2 of a tailed object (one word field before the tail).
fn tail2_slot(h: Gc<'_>) -> usize {
    h.addr() + 8 * 4
}

#[test]
fn filter_set_ref() {
    unfiltered_path(
        node,
        child_slot,
        |m, t, h, v| m.set_ref(h, t.child, v.as_ref()),
        child_id,
    );
}

#[test]
fn filter_set_value() {
    filtered_path(
        node,
        child_slot,
        |m, t, h, v| m.set_value(h, t.child, v),
        child_id,
    );
}

#[test]
fn filter_write_ref() {
    filtered_path(
        array,
        at2_slot,
        |m, _, h, v| m.write_ref(h, 2, v.as_ref()),
        at2_id,
    );
}

#[test]
fn filter_write_value() {
    filtered_path(array, at2_slot, |m, _, h, v| m.write_value(h, 2, v), at2_id);
}

#[test]
fn filter_write_tail_value() {
    filtered_path(
        tailed,
        tail2_slot,
        |m, _, h, v| m.write_tail_value(h, 2, v),
        tail2_id,
    );
}

#[test]
fn filter_compare_exchange_and_swap() {
    // The exchange from null to null stores null; the swap of the young node
    // for null after it stores a reference.
    filtered_path(
        node,
        child_slot,
        |m, t, h, v| match v.as_ref() {
            None => {
                m.compare_exchange_ref(h, t.child, None, None).unwrap();
            }
            Some(y) => {
                m.swap_ref(h, t.child, Some(y));
            }
        },
        child_id,
    );
}

/// Mutator threads each keep an old array and store young nodes into it, each
/// dropped at once, while the pacer's young cycles run concurrently (cards
/// dirtied while a cycle reads them, or sweeps them); every node stored must be
/// found with its id.
#[test]
fn stores_racing_young_cycles_are_not_lost() {
    let (heap, t) = heap();
    let heap = Arc::new(heap);
    const THREADS: usize = 3;
    const SLOTS: usize = 64;
    let mut m = heap.bind_mutator().unwrap();
    for _ in 0..THREADS {
        m.alloc_push(t.array, SLOTS).unwrap();
    }
    make_stable(&mut m, &heap, t.node, 0);
    let arrays: Vec<_> = (0..THREADS).map(|i| m.global(get(&m, i))).collect();
    m.stack_truncate(0);
    let before = young_cycles(&mut m, &heap);
    drop(m);
    let threads: Vec<_> = arrays
        .into_iter()
        .enumerate()
        .map(|(k, g)| {
            let heap = Arc::clone(&heap);
            std::thread::spawn(move || {
                let mut m = heap.bind_mutator().unwrap();
                for round in 0..400u64 {
                    for s in 0..SLOTS {
                        let id = (k as u64) << 40 | round << 16 | s as u64;
                        m.alloc_push(t.node, 0).unwrap();
                        let y = get(&m, 0);
                        m.set_word(y, t.id, id);
                        m.write_ref(m.get_global(&g), s, Some(y));
                        m.pop();
                        // Garbage between stores, for the pacer.
                        for _ in 0..8 {
                            m.alloc_push(t.node, 0).unwrap();
                            m.pop();
                        }
                    }
                    for s in (0..SLOTS).step_by(7) {
                        let a = m.get_global(&g);
                        let y = m.read_ref(a, s).expect("a stored young node is gone");
                        let id = (k as u64) << 40 | round << 16 | s as u64;
                        assert_eq!(m.get_word(y, t.id), id, "thread {k}, round {round}");
                    }
                }
                m.verify().unwrap();
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    let mut m = heap.bind_mutator().unwrap();
    let young = young_cycles(&mut m, &heap) - before;
    assert!(young >= 3, "only {young} young cycles ran");
}
