//! The VM binding ([`ObjectModel`]): a heap whose objects a small class-based
//! model lays out (word 0 the address of a leaked `&'static Class`; plain objects
//! with a reference bitmap, reference arrays and word arrays with their length in
//! word 1), driven by several mutator threads that build and mutate graphs
//! (objects, arrays, immediates in reference slots, large objects), on every
//! collection path and in both fault modes. Each thread's graph checksum must be
//! the same before and after every collection, and the verifier (which also
//! checks the model's answers) must pass. Nodes are made and read both through
//! the checked slot accessors and through the checked-once descriptors
//! (`model_type`, `model_ref_slot`, `model_word_slot`, the constructors). Then
//! the error paths: sizes the model disagrees with, slots of the wrong kind, a
//! heap without a model, the built-in features refused on a model heap, and
//! descriptor misuse (another class, another heap, an array header, a model
//! whose `fixed_layout` lies, which the verifier must catch).

mod common;

use flipgc_core::{
    FixedLayout, GcErrorKind, GcTrigger, Heap, HeapConfig, InjectPoint, ModelType, Mutator,
    ObjectModel, ObjectRef, SlotRef, SlotWord, TypeRegistry, Value,
};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a class says about its objects' layout.
#[derive(Debug)]
enum Kind {
    /// A fixed-size object of `words` words (header included); word `i` is a
    /// reference slot iff bit `i` of `refs` is set.
    Plain { words: usize, refs: u64 },
    /// Word 1 the length `n`, words `2..2 + n` reference slots.
    RefArray,
    /// Word 1 the length `n`, words `2..2 + n` raw words.
    WordArray,
}

/// A class descriptor: leaked, so it outlives every heap (the model reads it from
/// the fault handler and GC threads).
#[derive(Debug)]
struct Class {
    kind: Kind,
}

impl Class {
    fn leak(kind: Kind) -> &'static Class {
        Box::leak(Box::new(Class { kind }))
    }

    /// The header word of this class's objects: its address (8-aligned, so bit 0
    /// is clear, as the header rule asks).
    fn header(&'static self) -> u64 {
        self as *const Class as u64
    }
}

/// The test's object model.
struct ClassModel;

impl ClassModel {
    fn class(obj: ObjectRef) -> &'static Class {
        // SAFETY: word 0 of every VM object on the test heaps is the address of a
        // leaked `Class` (the only headers `alloc_object` is given here, apart from
        // the refused ones, which never reach the model as objects).
        unsafe { &*(obj.load(0) as *const Class) }
    }

    fn len(obj: ObjectRef) -> usize {
        // SAFETY: arrays have two header words; word 1 is their length.
        unsafe { obj.load(1) as usize }
    }
}

// SAFETY: answers depend only on the header words and the immutable classes;
// `scan` visits exactly the `is_ref_slot` words, in increasing order, all past the
// header words; no allocation, lock or panic (bitmaps below 64 words).
unsafe impl ObjectModel for ClassModel {
    fn object_words(&self, obj: ObjectRef) -> usize {
        match Self::class(obj).kind {
            Kind::Plain { words, .. } => words,
            Kind::RefArray | Kind::WordArray => 2 + Self::len(obj),
        }
    }

    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
        match Self::class(obj).kind {
            Kind::Plain { mut refs, .. } => {
                while refs != 0 {
                    slot(refs.trailing_zeros() as usize);
                    refs &= refs - 1;
                }
            }
            Kind::RefArray => (2..2 + Self::len(obj)).for_each(slot),
            Kind::WordArray => {}
        }
    }

    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
        match Self::class(obj).kind {
            Kind::Plain { words, refs } => i < words && i < 64 && refs >> i & 1 != 0,
            Kind::RefArray => (2..2 + Self::len(obj)).contains(&i),
            Kind::WordArray => false,
        }
    }

    fn header_words(&self, obj: ObjectRef) -> usize {
        match Self::class(obj).kind {
            Kind::Plain { .. } => 1,
            Kind::RefArray | Kind::WordArray => 2,
        }
    }

    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        // SAFETY: every word 0 given to the model here is a leaked `Class`'s
        // address: the objects' (as above) and the tests' descriptor requests,
        // which name only classes.
        match unsafe { &*(w0 as *const Class) }.kind {
            Kind::Plain { words, refs } => Some(FixedLayout {
                words,
                header_words: 1,
                ref_mask: refs,
            }),
            Kind::RefArray | Kind::WordArray => None,
        }
    }
}

/// A model whose `fixed_layout` lies about plain objects (`lie` flips bits of
/// the reference mask, or adds to the size): the verifier must catch it.
struct LyingModel {
    mask_xor: u64,
    extra_words: usize,
}

// SAFETY: NOT sound: `fixed_layout` breaks the contract on purpose. The heap
// built with it only allocates through the checked path (which never asks
// `fixed_layout`) and is then verified, which must report the lie.
unsafe impl ObjectModel for LyingModel {
    fn object_words(&self, obj: ObjectRef) -> usize {
        ClassModel.object_words(obj)
    }
    fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
        ClassModel.scan(obj, slot)
    }
    fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
        ClassModel.is_ref_slot(obj, i)
    }
    fn header_words(&self, obj: ObjectRef) -> usize {
        ClassModel.header_words(obj)
    }
    fn fixed_layout(&self, w0: u64) -> Option<FixedLayout> {
        ClassModel.fixed_layout(w0).map(|l| FixedLayout {
            words: l.words + self.extra_words,
            header_words: l.header_words,
            ref_mask: l.ref_mask ^ self.mask_xor,
        })
    }
}

/// The classes of the test graphs.
#[derive(Clone, Copy)]
struct Classes {
    /// `[hdr, next, id, val, id * 7]`: `next` and `val` reference slots (`val`
    /// holds a word array, or an immediate).
    node: &'static Class,
    refs: &'static Class,
    words: &'static Class,
}

fn classes() -> Classes {
    Classes {
        node: Class::leak(Kind::Plain {
            words: 5,
            refs: 1 << 1 | 1 << 3,
        }),
        refs: Class::leak(Kind::RefArray),
        words: Class::leak(Kind::WordArray),
    }
}

/// Node slots.
const NEXT: usize = 1;
const ID: usize = 2;
const VAL: usize = 3;
const CHECK: usize = 4;

/// The large-object threshold of the test heaps, in bytes: arrays of more than
/// 512 - 2 elements are large.
const LARGE: usize = 4096;

/// A node's checked-once descriptors on one heap.
#[derive(Clone, Copy)]
struct NodeDesc {
    ty: ModelType,
    next: SlotRef,
    val: SlotRef,
    id: SlotWord,
    check: SlotWord,
}

impl NodeDesc {
    fn of(m: &Mutator, c: Classes) -> NodeDesc {
        let h = c.node.header();
        NodeDesc {
            ty: m.model_type(h).unwrap(),
            next: m.model_ref_slot(h, NEXT).unwrap(),
            val: m.model_ref_slot(h, VAL).unwrap(),
            id: m.model_word_slot(h, ID).unwrap(),
            check: m.model_word_slot(h, CHECK).unwrap(),
        }
    }
}

/// Allocates a node with `id` on the root stack; its `val` is a word array of
/// `id % 13 + 1` words for odd ids, an immediate for even ones. Ids `3 (mod 4)`
/// go through the checked-once descriptors, the others through the checked
/// slot accessors.
fn push_node(m: &mut Mutator, c: Classes, id: u64) {
    let n = (id % 13 + 1) as usize;
    m.push_object(2 + n, &[c.words.header(), n as u64]).unwrap();
    let arr = m.pop().unwrap();
    for j in 0..n {
        m.write_slot_word(arr, 2 + j, id * 1000 + j as u64);
    }
    m.push(Some(arr));
    let val = |arr| {
        if id % 2 == 1 {
            Value::from(arr)
        } else {
            Value::fixnum(id as i64).unwrap()
        }
    };
    if id % 4 == 3 {
        let d = NodeDesc::of(m, c);
        m.push_object_of(d.ty).unwrap();
        let node = m.pop().unwrap();
        let arr = m.pop().unwrap();
        m.set_slot_word(node, d.id, id);
        m.set_slot_word(node, d.check, id * 7);
        m.set_slot(node, d.val, val(arr));
        m.push(Some(node));
        return;
    }
    m.push_object(5, &[c.node.header()]).unwrap();
    let node = m.pop().unwrap();
    let arr = m.pop().unwrap();
    m.write_slot_word(node, ID, id);
    m.write_slot_word(node, CHECK, id * 7);
    m.write_slot(node, VAL, val(arr));
    m.push(Some(node));
}

/// Allocates a node with even `id` whose `next` is the root stack's top entry,
/// through the constructor (`push_object_of_from_stack`), and leaves it in that
/// entry's place.
fn push_node_from_stack(m: &mut Mutator, c: Classes, id: u64) {
    assert!(id % 2 == 0, "an immediate val");
    let d = NodeDesc::of(m, c);
    m.push_object_of_from_stack(d.ty, 1).unwrap();
    let node = m.stack_get(m.stack_len() - 1).unwrap();
    m.set_slot_word(node, d.id, id);
    m.set_slot_word(node, d.check, id * 7);
    m.set_slot(node, d.val, Value::fixnum(id as i64).unwrap());
}

/// Pushes a list of `n` nodes (ids from `first`) on the root stack.
fn push_list(m: &mut Mutator, c: Classes, first: u64, n: u64) {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in first..first + n {
        if id % 4 == 0 {
            m.stack_dup(at);
            push_node_from_stack(m, c, id);
            let node = m.pop().unwrap();
            m.stack_set(at, Some(node));
            continue;
        }
        push_node(m, c, id);
        let node = m.pop().unwrap();
        m.write_slot(node, NEXT, Value::from(m.stack_get(at)));
        m.stack_set(at, Some(node));
    }
}

/// Pushes a reference array of `len` elements holding the list at root-stack
/// slot `list`'s nodes (cycling), a fixnum every 4th element and null every 5th.
fn push_ref_array(m: &mut Mutator, c: Classes, list: usize, len: usize) {
    m.push_object(2 + len, &[c.refs.header(), len as u64])
        .unwrap();
    let arr = m.pop().unwrap();
    let mut cur = m.stack_get(list);
    for k in 0..len {
        let v = if k % 4 == 3 {
            Value::fixnum(k as i64 * -3).unwrap()
        } else if k % 5 == 4 {
            Value::NULL
        } else {
            let node = cur.expect("a non-empty list");
            cur = m.read_slot(node, NEXT).as_ref().or(m.stack_get(list));
            Value::from(node)
        };
        m.write_slot(arr, 2 + k, v);
    }
    m.push(Some(arr));
}

/// Pushes a word array of `len` words, word `j` `seed ^ j`.
fn push_word_array(m: &mut Mutator, c: Classes, len: usize, seed: u64) {
    m.push_object(2 + len, &[c.words.header(), len as u64])
        .unwrap();
    let arr = m.pop().unwrap();
    for j in 0..len {
        m.write_slot_word(arr, 2 + j, seed ^ j as u64);
    }
    m.push(Some(arr));
}

/// A checksum of the graph reachable from this mutator's root stack: a depth-first
/// walk in slot order, folding in every raw word, every immediate's bits and the
/// walk order of the objects (never an address), and checking each node's and
/// word array's own redundancy on the way.
fn checksum(m: &Mutator, c: Classes) -> u64 {
    let mut seen: HashMap<usize, u64> = HashMap::new();
    let mut desc: Option<NodeDesc> = None;
    let mut sum = 0u64;
    let mut fold = |x: u64| sum = sum.wrapping_mul(0x100_0000_01b3).wrapping_add(x ^ 0x9e37);
    let mut todo: Vec<Value<'_>> = (0..m.stack_len())
        .rev()
        .map(|i| m.stack_get_value(i))
        .collect();
    while let Some(v) = todo.pop() {
        let Some(g) = v.as_ref() else {
            fold(v.bits());
            continue;
        };
        if let Some(&order) = seen.get(&g.addr()) {
            fold(order);
            continue;
        }
        let order = seen.len() as u64 + 1_000_000;
        seen.insert(g.addr(), order);
        let class = m.read_slot_word(g, 0);
        if class == c.node.header() {
            let id = m.read_slot_word(g, ID);
            assert_eq!(m.read_slot_word(g, CHECK), id * 7, "node {id} corrupted");
            fold(id);
            let val = m.read_slot(g, VAL);
            if id % 2 == 0 {
                assert_eq!(val.as_fixnum(), Some(id as i64), "node {id}'s immediate");
            }
            // The descriptors read what the checked accessors read.
            let d = desc.get_or_insert_with(|| NodeDesc::of(m, c));
            assert_eq!(m.get_slot_word(g, d.id), id);
            assert_eq!(m.get_slot_word(g, d.check), id * 7);
            let [next, val2] = m.get_slots(g, [d.next, d.val]);
            assert_eq!(val2, val);
            assert_eq!(m.get_slot(g, d.val), val);
            todo.push(val);
            todo.push(next);
        } else if class == c.refs.header() {
            let len = m.read_slot_word(g, 1) as usize;
            fold(len as u64);
            for k in (0..len).rev() {
                todo.push(m.read_slot(g, 2 + k));
            }
        } else if class == c.words.header() {
            let len = m.read_slot_word(g, 1) as usize;
            fold(len as u64 | 1 << 40);
            for j in 0..len {
                fold(m.read_slot_word(g, 2 + j));
            }
        } else {
            panic!("object {g:?} has an unknown header {class:#x}");
        }
    }
    sum
}

/// Garbage: `n` short-lived nodes and arrays (some large), popped at once.
fn garbage(m: &mut Mutator, c: Classes, n: u64) {
    for i in 0..n {
        push_node(m, c, i);
        m.pop();
        if i % 500 == 0 {
            push_word_array(m, c, 600, i);
            m.pop();
        }
    }
}

/// One mutator's work on `heap`: builds its graph, then rounds of mutation,
/// garbage and collection, checking the checksum around each collection.
fn mutator_work(heap: &Heap, c: Classes, t: u64, young: bool, path: &str) {
    let mut m = heap.bind_mutator().unwrap();
    let base = t * 100_000;
    push_list(&mut m, c, base, 1500); // slot 0
    push_ref_array(&mut m, c, 0, 64); // slot 1
    push_ref_array(&mut m, c, 0, 700); // slot 2: large
    push_word_array(&mut m, c, 1000, base); // slot 3: large
    let handle = {
        let h = m.alloc_object(5, &[c.node.header()]).unwrap();
        let g = m.get(&h);
        m.write_slot_word(g, ID, base + 99_999);
        m.write_slot_word(g, CHECK, (base + 99_999) * 7);
        m.write_slot(g, VAL, Value::fixnum((base + 99_999) as i64).unwrap());
        m.write_slot(g, NEXT, Value::from(m.stack_get(0)));
        h
    };
    for round in 0..4u64 {
        // Mutate: new nodes into both arrays, a new list tail, changed words.
        for k in 0..8 {
            push_node(&mut m, c, base + 50_000 + round * 100 + k);
            let node = m.pop().unwrap();
            let (small, large) = (m.stack_get(1).unwrap(), m.stack_get(2).unwrap());
            m.write_slot(
                small,
                2 + (k as usize * 7 + round as usize) % 64,
                Value::from(node),
            );
            m.write_slot(
                large,
                2 + (k as usize * 89 + round as usize) % 700,
                Value::from(node),
            );
            let words = m.stack_get(3).unwrap();
            m.write_slot_word(words, 2 + (k as usize * 31) % 1000, round * 1000 + k);
        }
        let g = m.get(&handle);
        m.write_slot(g, NEXT, Value::from(m.stack_get(1)));
        let before = checksum(&m, c);
        if young {
            garbage(&mut m, c, 6000);
        } else {
            garbage(&mut m, c, 1500);
            m.collect();
        }
        let after = checksum(&m, c);
        assert_eq!(
            before, after,
            "{path}, thread {t}, round {round}: the graph changed"
        );
        let g = m.get(&handle);
        assert_eq!(
            m.read_slot_word(g, ID),
            base + 99_999,
            "{path}: the handle's object"
        );
    }
    m.verify()
        .unwrap_or_else(|e| panic!("{path}, thread {t}: {e}"));
}

/// Every flip path (auto, PMD, PTE, copying), the in-pause and one-pause
/// collections, injected faults and young cycles, in both fault modes.
fn paths() -> Vec<(String, HeapConfig)> {
    let base = || {
        let mut c = HeapConfig::new(32 << 20);
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c.verify_after_gc = true;
        c.large_object_threshold = LARGE;
        c
    };
    common::paths_in_both_fault_modes(
        base,
        &[
            ("uffd-register injected", InjectPoint::UffdRegister),
            ("uffd-move injected", InjectPoint::UffdMove),
            ("flip-mremap injected", InjectPoint::FlipMremap),
            ("mark-rounds injected", InjectPoint::MarkRounds),
        ],
        true,
    )
}

#[test]
fn vm_graphs_survive_every_collection_path() {
    let c = classes();
    let mut ran = 0;
    for (path, cfg) in paths() {
        let young = matches!(cfg.trigger, GcTrigger::AfterBytes(_));
        let heap = match Heap::with_model(cfg, ClassModel) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{path}: skipped: {e}");
                continue;
            }
        };
        std::thread::scope(|s| {
            for t in 0..3 {
                let (heap, path) = (&heap, &path);
                s.spawn(move || mutator_work(heap, c, t, young, path));
            }
        });
        if young {
            heap.wait_idle();
            let n = heap.pause_log().cycles().iter().filter(|r| r.young).count();
            assert!(n >= 1, "{path}: no young cycle ran");
        }
        assert!(
            heap.pause_log().cycles().iter().next().is_some(),
            "{path}: no collection ran"
        );
        let c = heap.pause_log().compaction_stats();
        eprintln!(
            "{path}: {} concurrent compactions ({} SIGBUS, {} server), {} pages",
            c.count, c.sigbus, c.server, c.pages
        );
        ran += 1;
    }
    assert!(ran > 0, "no collection path could run on this host");
}

/// Runs `body` on a model heap built on each of [`paths`] (its name, the heap),
/// skipping a path this host cannot build; panics if none could run.
fn on_every_path(body: impl FnMut(&str, Heap)) {
    common::on_every_model_path(paths(), || ClassModel, body)
}

fn model_heap() -> Heap {
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.large_object_threshold = LARGE;
    Heap::with_model(cfg, ClassModel).unwrap()
}

fn is_type_error(e: &flipgc_core::GcError) -> bool {
    matches!(e.kind(), GcErrorKind::Type(_))
}

#[test]
fn allocation_the_model_disagrees_with_is_refused_and_leaves_the_heap_sound() {
    let c = classes();
    let heap = model_heap();
    let mut m = heap.bind_mutator().unwrap();
    push_list(&mut m, c, 0, 50);
    let want = checksum(&m, c);
    // A node is 5 words; a word array of 3 is 5 words.
    for (words, prefix) in [
        (6, vec![c.node.header()]),
        (4, vec![c.node.header()]),
        (5, vec![c.words.header(), 4]),
        (5, vec![c.words.header()]),   // the length word is a header word
        (5, vec![c.node.header(), 0]), // a node has one header word
        (700, vec![c.refs.header(), 700]), // large: 702 words wanted
        (702, vec![c.refs.header(), 701]), // large, off by one the other way
    ] {
        let e = m.alloc_object(words, &prefix).unwrap_err();
        assert!(is_type_error(&e), "{words} words, {prefix:x?}: {e}");
        assert!(e.to_string().contains("the model says"), "{e}");
    }
    for (words, prefix) in [
        (5, vec![]),
        (1, vec![c.words.header(), 0]),
        (5, vec![c.node.header() | 1]),
    ] {
        let e = m.alloc_object(words, &prefix).unwrap_err();
        assert!(is_type_error(&e), "{words} words, {prefix:x?}: {e}");
    }
    m.collect();
    m.verify().unwrap();
    assert_eq!(checksum(&m, c), want);
    // The refused large objects were given back: a large one still fits.
    let big = m.alloc_object(702, &[c.refs.header(), 700]).unwrap();
    assert!(m.is_pinned(m.get(&big)));
    m.verify().unwrap();
}

fn panics(f: impl FnOnce()) -> String {
    let e = catch_unwind(AssertUnwindSafe(f)).expect_err("it must panic");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn slot_accessors_refuse_the_wrong_slot_kind() {
    let c = classes();
    let heap = model_heap();
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, c, 1);
    let node = m.stack_get(0).unwrap();
    // A reference slot is not a word slot, and the reverse.
    let msg = panics(|| m.write_slot(node, ID, Value::NULL));
    assert!(msg.contains("not a reference slot"), "{msg}");
    let msg = panics(|| {
        m.read_slot(node, CHECK);
    });
    assert!(msg.contains("not a reference slot"), "{msg}");
    let msg = panics(|| m.write_slot_word(node, NEXT, 8));
    assert!(msg.contains("is a reference slot"), "{msg}");
    let msg = panics(|| {
        m.read_slot_word(node, VAL);
    });
    assert!(msg.contains("is a reference slot"), "{msg}");
    // Header words are fixed at allocation.
    let msg = panics(|| m.write_slot_word(node, 0, 0));
    assert!(msg.contains("header word"), "{msg}");
    push_word_array(&mut m, c, 3, 0);
    let arr = m.stack_get(1).unwrap();
    let msg = panics(|| m.write_slot_word(arr, 1, 1_000_000));
    assert!(msg.contains("header word"), "{msg}");
    assert_eq!(m.read_slot_word(arr, 1), 3, "the length word is unchanged");
    // Out of range.
    let msg = panics(|| m.write_slot_word(arr, 5, 0));
    assert!(msg.contains("out of range"), "{msg}");
    // What the panics refused left the heap as it was.
    m.collect();
    m.verify().unwrap();
}

#[test]
fn a_heap_without_a_model_refuses_the_binding_and_a_model_heap_the_builtin_api() {
    let c = classes();
    let mut types = TypeRegistry::new();
    let pair = types.fixed("pair", 2, &[0]).unwrap();
    let plain = Heap::new(HeapConfig::new(8 << 20), types).unwrap();
    let mut p = plain.bind_mutator().unwrap();
    let e = p.alloc_object(5, &[c.node.header()]).unwrap_err();
    assert!(
        is_type_error(&e) && e.to_string().contains("no object model"),
        "{e}"
    );
    let e = p.push_object(5, &[c.node.header()]).unwrap_err();
    assert!(is_type_error(&e), "{e}");
    let h = p.alloc(pair, 0).unwrap();
    let msg = panics(|| {
        p.read_slot(p.get(&h), 1);
    });
    assert!(msg.contains("no object model"), "{msg}");
    drop(p);

    let heap = model_heap();
    let mut m = heap.bind_mutator().unwrap();
    assert!(heap.has_model() && !plain.has_model());
    assert!(heap.register_fixed("pair", 2, &[0]).is_err());
    assert!(heap.register_ref_array("refs").is_err());
    assert!(
        m.alloc(pair, 0).is_err(),
        "no built-in types on a model heap"
    );
    push_node(&mut m, c, 2);
    let node = m.stack_get(0).unwrap();
    for (what, msg) in [
        (
            "read_word",
            panics(|| {
                m.read_word(node, 1);
            }),
        ),
        (
            "type_of",
            panics(|| {
                m.type_of(node);
            }),
        ),
        (
            "read_value",
            panics(|| {
                m.read_value(node, 0);
            }),
        ),
    ] {
        assert!(msg.contains("VM object model"), "{what}: {msg}");
    }
    // The entry points for generated code: by word index, checked by the model.
    push_node(&mut m, c, 4);
    let other = m.pop().unwrap();
    let node = m.stack_get(0).unwrap();
    assert_eq!(
        m.compare_exchange_ref_at(node, NEXT, None, Some(other)),
        Ok(None)
    );
    assert_eq!(m.swap_ref_at(node, NEXT, None), Some(other));
    let msg = panics(|| {
        let _ = m.swap_ref_at(node, ID, None);
    });
    assert!(msg.contains("not a reference slot"), "{msg}");
    let msg = panics(|| m.copy_refs(node, 0, node, 0, 0));
    assert!(msg.contains("VM object model"), "{msg}");
    // Weak handles are roots, not slots: they work, and clear when the object dies.
    let (kept, lost) = (m.weak(node), m.weak(other));
    m.collect();
    m.verify().unwrap();
    assert_eq!(m.get_weak(&kept), m.stack_get(0));
    assert_eq!(m.get_weak(&lost), None);
}

#[test]
fn descriptors_are_checked_once_and_refuse_what_the_layout_does_not_say() {
    let c = classes();
    let heap = model_heap();
    let mut m = heap.bind_mutator().unwrap();
    let h = c.node.header();
    // What the layout says, checked when the descriptor is made.
    for (what, e) in [
        (
            "an array header",
            m.model_type(c.refs.header()).unwrap_err(),
        ),
        ("a word array", m.model_type(c.words.header()).unwrap_err()),
        (
            "an array's slot",
            m.model_ref_slot(c.refs.header(), 2).unwrap_err(),
        ),
    ] {
        assert!(is_type_error(&e), "{what}: {e}");
        assert!(e.to_string().contains("no fixed layout"), "{what}: {e}");
    }
    for (what, e) in [
        (
            "a word slot as a reference",
            m.model_ref_slot(h, ID).unwrap_err(),
        ),
        (
            "the header as a reference",
            m.model_ref_slot(h, 0).unwrap_err(),
        ),
        ("past the end", m.model_ref_slot(h, 5).unwrap_err()),
        (
            "a reference slot as a word",
            m.model_word_slot(h, NEXT).unwrap_err(),
        ),
        ("the header as a word", m.model_word_slot(h, 0).unwrap_err()),
        (
            "past the end as a word",
            m.model_word_slot(h, 5).unwrap_err(),
        ),
        ("a filler's word 0", m.model_type(h | 1).unwrap_err()),
    ] {
        assert!(is_type_error(&e), "{what}: {e}");
    }
    let d = NodeDesc::of(&m, c);
    assert_eq!((d.ty.words(), d.ty.header(), d.ty.lead_refs()), (5, h, 1));
    assert_eq!((d.next.index(), d.val.index()), (NEXT, VAL));
    assert_eq!((d.id.index(), d.check.index()), (ID, CHECK));

    // The constructors: `new Node(new Node())`, and a node over the stack's top.
    m.push_object_of_with_new::<1>(d.ty, d.ty).unwrap();
    let parent = m.stack_get(0).unwrap();
    let leaf = m.get_slot(parent, d.next).as_ref().expect("the new leaf");
    assert_eq!(m.read_slot_word(leaf, 0), h);
    assert_eq!(m.get_slot(leaf, d.next), Value::NULL);
    let msg = panics(|| {
        let _ = m.push_object_of_with_new::<2>(d.ty, d.ty);
    });
    assert!(msg.contains("first 1"), "{msg}");
    let msg = panics(|| {
        let _ = m.push_object_of_from_stack(d.ty, 2);
    });
    assert!(msg.contains("first 1"), "{msg}");
    assert_eq!(m.stack_len(), 1, "refused constructors leave the stack");

    // A descriptor of one class on an object of another: a panic, not a read.
    push_word_array(&mut m, c, 4, 9);
    let arr = m.stack_get(1).unwrap();
    let msg = panics(|| {
        m.get_slot(arr, d.next);
    });
    assert!(msg.contains("descriptor for objects with header"), "{msg}");
    let msg = panics(|| m.set_slot(arr, d.val, Value::NULL));
    assert!(msg.contains("descriptor for objects with header"), "{msg}");
    let msg = panics(|| {
        m.get_slots(arr, [d.next, d.val]);
    });
    assert!(msg.contains("descriptor for objects with header"), "{msg}");
    let msg = panics(|| {
        m.get_slot_word(arr, d.id);
    });
    assert!(msg.contains("descriptor for objects with header"), "{msg}");
    let msg = panics(|| m.set_slot_word(arr, d.check, 77));
    assert!(msg.contains("descriptor for objects with header"), "{msg}");
    assert_eq!(
        m.read_slot_word(arr, 2 + 2),
        9 ^ 2,
        "the refused store stored nothing"
    );

    // Another heap's descriptors, on the same model and the same classes.
    let other = model_heap();
    let mut o = other.bind_mutator().unwrap();
    let e = o.push_object_of(d.ty).unwrap_err();
    assert!(
        is_type_error(&e) && e.to_string().contains("another heap"),
        "{e}"
    );
    assert!(o.push_object_of_with_new::<1>(d.ty, d.ty).is_err());
    assert_eq!(o.stack_len(), 0);
    let od = NodeDesc::of(&o, c);
    o.push_object_of(od.ty).unwrap();
    let there = o.stack_get(0).unwrap();
    let msg = panics(|| {
        o.get_slot(there, d.next);
    });
    assert!(msg.contains("another heap"), "{msg}");
    let msg = panics(|| o.set_slot_word(there, d.id, 1));
    assert!(msg.contains("another heap"), "{msg}");
    // This heap's descriptor on the other heap's object: a foreign object.
    let msg = panics(|| {
        m.get_slot(there, d.next);
    });
    assert!(msg.contains("does not belong to this heap"), "{msg}");
    drop(o);

    // A heap without a model makes no descriptors.
    let plain = Heap::new(HeapConfig::new(8 << 20), TypeRegistry::new()).unwrap();
    let p = plain.bind_mutator().unwrap();
    let e = p.model_type(h).unwrap_err();
    assert!(e.to_string().contains("no object model"), "{e}");
    drop(p);

    m.collect();
    m.verify().unwrap();
    let parent = m.stack_get(0).unwrap();
    assert!(
        m.get_slot(parent, d.next).as_ref().is_some(),
        "the leaf survived"
    );
}

#[test]
fn the_verifier_catches_a_fixed_layout_that_lies() {
    let c = classes();
    for (mask_xor, extra_words, what) in [
        (1 << ID, 0, "a word slot named a reference"),
        (1 << VAL, 0, "a reference slot left out"),
        (0, 1, "a size one word too big"),
    ] {
        let mut cfg = HeapConfig::new(16 << 20);
        cfg.large_object_threshold = LARGE;
        let heap = Heap::with_model(
            cfg,
            LyingModel {
                mask_xor,
                extra_words,
            },
        )
        .unwrap();
        let mut m = heap.bind_mutator().unwrap();
        // The checked path never asks fixed_layout: the object is made.
        m.push_object(5, &[c.node.header()]).unwrap();
        let e = m.verify().expect_err(what);
        assert!(e.to_string().contains("fixed_layout says"), "{what}: {e}");
    }
}

/// The identity hashes of a list's nodes, in list order, and the nodes' ids.
fn list_hashes(m: &Mutator, at: usize) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut cur = m.stack_get(at);
    while let Some(n) = cur {
        out.push((m.read_slot_word(n, ID), m.identity_hash(n)));
        cur = m.read_slot(n, NEXT).as_ref();
    }
    out
}

/// Identity hashes on a VM model's heap (no header flag: the table alone): each
/// node's hash stays the same through collections that move it, on every path,
/// hashes of distinct objects differ, a large object keeps its hash, and the
/// entries of objects that died are dropped.
#[test]
fn identity_hashes_survive_every_collection_path_on_a_model_heap() {
    let c = classes();
    on_every_path(|path, heap| {
        let mut m = heap.bind_mutator().unwrap();
        push_list(&mut m, c, 1, 400); // slot 0: kept
        push_list(&mut m, c, 1000, 300); // slot 1: dropped later
        push_word_array(&mut m, c, 1000, 7); // slot 2: a large object
        let kept = list_hashes(&m, 0);
        let dropped = list_hashes(&m, 1);
        let large = m.identity_hash(m.stack_get(2).unwrap());
        let mut all: Vec<u64> = kept.iter().chain(&dropped).map(|p| p.1).collect();
        all.push(large);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 701, "{path}: hashes of distinct objects collide");
        assert_eq!(heap.hashed_objects(), 701, "{path}");
        for round in 0..3 {
            garbage(&mut m, c, 3000);
            m.collect();
            assert_eq!(list_hashes(&m, 0), kept, "{path}: round {round}");
            assert_eq!(list_hashes(&m, 1), dropped, "{path}: round {round}");
            assert_eq!(m.identity_hash(m.stack_get(2).unwrap()), large, "{path}");
        }
        m.stack_truncate(1);
        m.collect();
        m.collect();
        m.blocking(|| heap.wait_idle());
        assert_eq!(list_hashes(&m, 0), kept, "{path}: after the drop");
        assert_eq!(
            heap.hashed_objects(),
            400,
            "{path}: the dead objects' entries are dropped"
        );
    });
}

/// A node's id, after checking its words and its `val` (a word array for odd
/// ids, the id as a fixnum for even ones): panics on a node whose contents
/// changed.
fn node_id(m: &Mutator, n: flipgc_core::Gc<'_>) -> u64 {
    let id = m.read_slot_word(n, ID);
    assert_eq!(m.read_slot_word(n, CHECK), id * 7, "node {id} corrupted");
    let val = m.read_slot(n, VAL);
    if id % 2 == 1 {
        let arr = val.as_ref().expect("an array");
        let len = m.read_slot_word(arr, 1) as usize;
        assert_eq!(len as u64, id % 13 + 1);
        for j in 0..len {
            assert_eq!(m.read_slot_word(arr, 2 + j), id * 1000 + j as u64);
        }
    } else {
        assert_eq!(val.as_fixnum(), Some(id as i64));
    }
    id
}

/// Finalizers and cleaners on a VM model's heap, on every path: 200 dropped
/// nodes registered for finalization come back whole (their words and their
/// arrays), 100 dropped nodes with cleaners give back their tokens, and 50
/// registered nodes still rooted are left alone.
#[test]
fn finalizers_and_cleaners_work_on_a_model_heap() {
    let c = classes();
    on_every_path(|path, heap| {
        let q = heap.finalizer_queue();
        let mut m = heap.bind_mutator().unwrap();
        for id in 0..350u64 {
            push_node(&mut m, c, id);
            let n = m.stack_get(m.stack_len() - 1).unwrap();
            if !(200..300).contains(&id) {
                m.register_finalizer(n, &q);
            } else {
                m.register_cleaner(n, id, &q);
            }
            if id < 300 {
                m.pop();
            }
        }
        // The 50 kept nodes are on the stack (ids 300..350).
        garbage(&mut m, c, 2000);
        m.collect();
        m.collect();
        m.blocking(|| heap.wait_idle());
        let mut finalized = Vec::new();
        while let Some(h) = m.poll_finalized(&q) {
            finalized.push(node_id(&m, m.get(&h)));
        }
        finalized.sort_unstable();
        assert_eq!(finalized, (0..200).collect::<Vec<_>>(), "{path}");
        let mut tokens = std::iter::from_fn(|| q.poll_token()).collect::<Vec<_>>();
        tokens.sort_unstable();
        assert_eq!(tokens, (200..300).collect::<Vec<_>>(), "{path}");
        for (i, id) in (300..350).enumerate() {
            assert_eq!(node_id(&m, m.stack_get(i).unwrap()), id, "{path}");
        }
        m.verify().expect("the heap verifies");
    });
}
