//! Types registered while the heap runs (`Heap::register_fixed` and siblings):
//! mutators register types, allocate objects of them at once, link them into
//! their graphs and check them across collections, while other threads do the
//! same and a reader lists the registry; and the registrations' refusals.

use flipgc_core::{
    FaultMode, FlipMode, GcErrorKind, Heap, HeapConfig, Mutator, TypeId, TypeKind, TypeRegistry,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

/// What a test type is, as generated (and as its name spells it).
#[derive(Clone, Debug, PartialEq)]
enum Spec {
    Fixed {
        fields: u32,
        refs: Vec<u32>,
        weak: Vec<u32>,
    },
    RefArray,
    ByteArray,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The `n`th test type: mostly fixed types with varied reference masks (some wider
/// than 64 fields, some with a weak field), some arrays of each kind.
fn spec(n: u64) -> Spec {
    let r = mix(n);
    match r % 10 {
        0 => Spec::RefArray,
        1 => Spec::ByteArray,
        _ => {
            let fields = if n % 17 == 3 {
                65 + (r >> 8) as u32 % 12
            } else {
                1 + (r >> 8) as u32 % 12
            };
            let bits = mix(r);
            let refs: Vec<u32> = (0..fields)
                .filter(|&f| mix(bits ^ u64::from(f)) % 2 == 0)
                .collect();
            let weak: Vec<u32> = if n % 7 == 2 {
                (0..fields.min(64))
                    .filter(|f| !refs.contains(f))
                    .take(1)
                    .collect()
            } else {
                vec![]
            };
            Spec::Fixed { fields, refs, weak }
        }
    }
}

/// The name a test type is registered under: it spells the kind and size, so the
/// registry lister can check an entry against its name alone.
fn name_of(n: u64, s: &Spec) -> String {
    match s {
        Spec::Fixed { fields, .. } => format!("rt{n}-f{fields}"),
        Spec::RefArray => format!("rt{n}-a"),
        Spec::ByteArray => format!("rt{n}-b"),
    }
}

fn register(heap: &Heap, n: u64) -> (TypeId, Spec) {
    let s = spec(n);
    let name = name_of(n, &s);
    let id = match &s {
        Spec::Fixed { fields, refs, weak } => heap.register_fixed_weak(&name, *fields, refs, weak),
        Spec::RefArray => heap.register_ref_array(&name),
        Spec::ByteArray => heap.register_byte_array(&name),
    }
    .unwrap_or_else(|e| panic!("registering {name}: {e}"));
    (id, s)
}

/// A registry entry agrees with its name (`name_of`).
fn check_entry(name: &str, kind: &TypeKind) {
    let Some(rest) = name.strip_prefix("rt") else {
        return; // the base types
    };
    let tag = rest.split('-').nth(1).expect("tag");
    match kind {
        TypeKind::Fixed { fields, .. } => assert_eq!(tag, format!("f{fields}"), "{name}"),
        TypeKind::RefArray => assert_eq!(tag, "a", "{name}"),
        TypeKind::ByteArray => assert_eq!(tag, "b", "{name}"),
        _ => panic!("{name}: unexpected kind"),
    }
}

/// Chain cells: field 0 the next (older) cell, 1 the object, word 2 its seed.
const NEXT: usize = 0;
const OBJ: usize = 1;
const SEED: usize = 2;
/// Cells kept in a chain (older ones are cut off; those still referenced live on).
const KEEP: usize = 600;

fn word(seed: u64, field: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(field as u64)
}

/// How far back (in cells) field or element `i` of the object of `seed` points.
fn back(seed: u64, i: usize) -> u64 {
    1 + (seed + i as u64) % 8
}

fn byte(seed: u64, i: usize) -> u8 {
    (seed as usize).wrapping_add(i * 7) as u8
}

/// One thread's graph: a chain of cells on root-stack slot 0.
struct Graph {
    cell: TypeId,
    first_seed: u64,
    next_seed: u64,
    types: HashMap<TypeId, Spec>,
}

impl Graph {
    /// The cell `d` cells behind the head (1: the head), if it was made.
    fn target<'m>(&self, m: &'m Mutator, seed: u64, d: u64) -> Option<flipgc_core::Gc<'m>> {
        if seed < self.first_seed + d {
            return None;
        }
        let mut c = m.stack_get(0);
        for _ in 1..d {
            c = m.read_ref(c.expect("chain"), NEXT);
        }
        let c = c.expect("target");
        assert_eq!(m.read_word(c, SEED), seed - d);
        Some(c)
    }

    /// Allocates an object of `ty`, fills it, and links it into the chain.
    fn add(&mut self, m: &mut Mutator, ty: TypeId, spec: &Spec) {
        let heap = m.heap().clone();
        let seed = self.next_seed;
        self.next_seed += 1;
        let r = mix(seed);
        let len = match spec {
            Spec::Fixed { .. } => 0,
            Spec::RefArray if r % 50 == 0 => 9000, // a large object
            Spec::RefArray => (r % 24) as usize,
            Spec::ByteArray if r % 50 == 0 => 70_000,
            Spec::ByteArray => (r % 200) as usize,
        };
        // Fixed types by descriptor half of the time.
        if matches!(spec, Spec::Fixed { .. }) && r % 2 == 0 {
            let t = heap.fixed_type(ty).expect("fixed_type");
            m.push_fixed(t).expect("alloc");
        } else {
            m.alloc_push(ty, len).expect("alloc");
        }
        let obj = m.stack_get(1).expect("new object");
        assert_eq!(m.type_of(obj), ty);
        match spec {
            Spec::Fixed { fields, refs, weak } => {
                for f in 0..*fields as usize {
                    let is_ref = refs.contains(&(f as u32)) || weak.contains(&(f as u32));
                    if !is_ref {
                        if f % 3 == 0 {
                            let wf = heap.word_field(ty, f as u32).expect("word_field");
                            m.set_word(obj, wf, word(seed, f));
                        } else {
                            m.write_word(obj, f, word(seed, f));
                        }
                        continue;
                    }
                    let t = self.target(m, seed, back(seed, f));
                    if f % 3 == 1 {
                        let rf = heap.ref_field(ty, f as u32).expect("ref_field");
                        m.set_ref(obj, rf, t);
                    } else {
                        m.write_ref(obj, f, t);
                    }
                }
            }
            Spec::RefArray => {
                for i in 0..len {
                    let t = self.target(m, seed, back(seed, i));
                    m.write_ref(obj, i, t);
                }
            }
            Spec::ByteArray => {
                let bytes: Vec<u8> = (0..len).map(|i| byte(seed, i)).collect();
                m.write_bytes(obj, 0, &bytes);
            }
        }
        let cell = heap.fixed_type(self.cell).expect("cell");
        m.push_fixed(cell).expect("alloc");
        let c = m.stack_get(2).expect("cell");
        m.write_ref(c, NEXT, m.stack_get(0));
        m.write_ref(c, OBJ, m.stack_get(1));
        m.write_word(c, SEED, seed);
        m.stack_set(0, Some(c));
        m.stack_truncate(1);
        // Cut the chain now and then: the cells behind become garbage, but for
        // those the last ones still refer to.
        if seed % 200 == 0 {
            let mut c = m.stack_get(0);
            for _ in 1..KEEP {
                c = c.and_then(|c| m.read_ref(c, NEXT));
            }
            if let Some(c) = c {
                m.write_ref(c, NEXT, None);
            }
        }
    }

    /// Checks every object of the chain against its seed; returns the cell count
    /// and a checksum of the contents (weak fields left out: a collection may
    /// clear them).
    fn check(&self, m: &Mutator) -> (u64, u64) {
        let (mut n, mut sum) = (0u64, 0u64);
        let mut add = |x: u64| sum = mix(sum ^ x);
        let mut c = m.stack_get(0);
        while let Some(cell) = c {
            let seed = m.read_word(cell, SEED);
            let obj = m.read_ref(cell, OBJ).expect("object");
            let ty = m.type_of(obj);
            let spec = &self.types[&ty];
            add(seed);
            add(u64::from(ty.index()));
            let ref_seed = |r: Option<flipgc_core::Gc<'_>>| r.map(|r| m.read_word(r, SEED));
            let want = |i: usize| {
                let d = back(seed, i);
                (seed >= self.first_seed + d).then(|| seed - d)
            };
            match spec {
                Spec::Fixed { fields, refs, weak } => {
                    for f in 0..*fields as usize {
                        if weak.contains(&(f as u32)) {
                            let got = ref_seed(m.read_ref(obj, f));
                            assert!(got.is_none() || got == want(f), "weak {f} of {seed}");
                        } else if refs.contains(&(f as u32)) {
                            let got = ref_seed(m.read_ref(obj, f));
                            assert_eq!(got, want(f), "field {f} of {seed} ({spec:?})");
                            add(got.unwrap_or(u64::MAX));
                        } else {
                            let got = m.read_word(obj, f);
                            assert_eq!(got, word(seed, f), "word {f} of {seed} ({spec:?})");
                            add(got);
                        }
                    }
                }
                Spec::RefArray => {
                    let len = m.len(obj);
                    add(len as u64);
                    for i in 0..len {
                        let got = ref_seed(m.read_ref(obj, i));
                        assert_eq!(got, want(i), "element {i} of {seed}");
                        add(got.unwrap_or(u64::MAX));
                    }
                }
                Spec::ByteArray => {
                    let len = m.len(obj);
                    let mut bytes = vec![0; len];
                    m.read_bytes(obj, 0, &mut bytes);
                    for (i, b) in bytes.iter().enumerate() {
                        assert_eq!(*b, byte(seed, i), "byte {i} of {seed}");
                    }
                    add(len as u64);
                }
            }
            n += 1;
            c = m.read_ref(cell, NEXT);
        }
        (n, sum)
    }
}

/// Types registered by anyone so far, for the mutators to pick from.
type Shared = Arc<Mutex<Vec<(TypeId, Spec)>>>;

const REGISTRAR_TYPES: u64 = 300;
const MUTATOR_TYPES: u64 = 30;
const MUTATORS: u64 = 4;

/// Registrar (`who == MUTATORS`): registers `REGISTRAR_TYPES` types one after
/// another and allocates an object of each at once. Mutators (`who <
/// MUTATORS`): allocate objects of the newest type and of an older one, register
/// `MUTATOR_TYPES` of their own (allocating one at once), make garbage, collect.
fn run(heap: Heap, cell: TypeId, shared: Shared, who: u64, done: Arc<AtomicUsize>) -> u64 {
    let mut m = heap.bind_mutator().expect("bind");
    let mut g = Graph {
        cell,
        first_seed: (who + 1) << 40,
        next_seed: (who + 1) << 40,
        types: HashMap::new(),
    };
    m.push(None);
    let registrar = who == MUTATORS;
    let (mut registered, mut round, mut collections) = (0u64, 0u64, 0u64);
    let garbage = heap.types().iter().find(|(_, t)| t.name == "garbage");
    let garbage = garbage.expect("garbage type").0;
    loop {
        let own_turn = if registrar {
            registered < REGISTRAR_TYPES
        } else {
            registered < MUTATOR_TYPES && round % 12 == 5
        };
        if own_turn {
            let n = who * 10_000 + registered;
            let (ty, s) = register(&heap, n);
            registered += 1;
            g.types.insert(ty, s.clone());
            g.add(&mut m, ty, &s);
            shared.lock().unwrap().push((ty, s));
        }
        if !registrar {
            let picks = {
                let v = shared.lock().unwrap();
                if v.is_empty() {
                    vec![]
                } else {
                    let old = mix(round ^ who) as usize % v.len();
                    vec![v[v.len() - 1].clone(), v[old].clone()]
                }
            };
            for (ty, s) in picks {
                g.types.insert(ty, s.clone());
                g.add(&mut m, ty, &s);
            }
            // Allocation pressure: garbage.
            for _ in 0..16 {
                m.alloc_push(garbage, 1500).expect("garbage");
                m.stack_truncate(1);
            }
            if round % 150 == 149 {
                let before = g.check(&m);
                m.collect();
                collections += 1;
                assert_eq!(
                    g.check(&m),
                    before,
                    "thread {who}: graph changed by a collection"
                );
            }
            if round % 600 == 599 {
                m.verify().expect("verify");
            }
        } else {
            std::thread::sleep(Duration::from_micros(300));
        }
        round += 1;
        let finished = if registrar {
            registered == REGISTRAR_TYPES
        } else {
            registered == MUTATOR_TYPES && round >= 1500
        };
        if finished {
            break;
        }
    }
    let before = g.check(&m);
    m.collect();
    assert_eq!(
        g.check(&m),
        before,
        "thread {who}: graph changed by the last collection"
    );
    m.verify().expect("verify");
    done.fetch_add(1, Ordering::Release);
    // Keep the graph until everyone is done (others' collections move it too).
    while done.load(Ordering::Acquire) < (MUTATORS + 1) as usize {
        m.blocking(|| std::thread::sleep(Duration::from_millis(2)));
    }
    assert_eq!(
        g.check(&m),
        before,
        "thread {who}: graph changed at the end"
    );
    eprintln!(
        "thread {who}: {} objects, {} types used, {registered} registered, {collections} collects",
        g.next_seed - g.first_seed,
        g.types.len()
    );
    g.next_seed - g.first_seed
}

fn many_threads_register_and_use_types(cfg: HeapConfig, mode: &str) {
    let mut r = TypeRegistry::new();
    let cell = r.fixed("cell", 3, &[0, 1]).unwrap();
    r.byte_array("garbage").unwrap();
    let base_types = r.len();
    let heap = if cfg.flip == FlipMode::Copy {
        Heap::new(cfg, r).expect("heap")
    } else {
        match common::compaction_heap(cfg, r) {
            Some(h) => h,
            None => return,
        }
    };
    eprintln!(
        "{mode}: concurrent compaction {}, fault mode {:?}",
        heap.concurrent_compaction(),
        heap.fault_mode()
    );
    let shared: Shared = Arc::default();
    let done = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // A lister: walks the registry while it grows, checking each entry.
    let lister = {
        let (heap, stop) = (heap.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut passes = 0u64;
            while !stop.load(Ordering::Acquire) {
                for (id, t) in heap.types().iter() {
                    check_entry(&t.name, &t.kind);
                    assert_eq!(heap.types().get(id).unwrap().name, t.name);
                }
                passes += 1;
            }
            passes
        })
    };
    let started = Instant::now();
    let threads: Vec<_> = (0..=MUTATORS)
        .map(|who| {
            let (heap, shared, done) = (heap.clone(), Arc::clone(&shared), Arc::clone(&done));
            std::thread::spawn(move || run(heap, cell, shared, who, done))
        })
        .collect();
    let objects: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    stop.store(true, Ordering::Release);
    let passes = lister.join().unwrap();
    let added = heap.types().len() - base_types;
    assert_eq!(added as u64, REGISTRAR_TYPES + MUTATORS * MUTATOR_TYPES);
    let cycles = heap.pause_log().cycle_stats().count;
    eprintln!(
        "{mode}: {objects} objects of {added} run-time types in {:?}, {cycles} cycles, \
         {passes} lister passes",
        started.elapsed()
    );
    // Each mutator's explicit collections wait for one cycle each, in turn; other
    // mutators' requests may share those cycles, so that is the floor.
    // (at least 10 each: one per 150 of their 1,500 or more rounds).
    assert!(
        cycles >= 10,
        "{mode}: only {cycles} cycles for at least 10 collections per mutator"
    );
}

fn config() -> HeapConfig {
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.large_object_capacity = 64 << 20;
    cfg
}

/// Default mode: concurrent marking and compaction (SIGBUS or server fills
/// where the host has userfaultfd).
#[test]
fn registered_while_running_default_mode() {
    many_threads_register_and_use_types(config(), "default");
}

/// Default mode with the fault server filling the pages mutators touch.
#[test]
fn registered_while_running_server_fills() {
    let mut cfg = config();
    cfg.fault_mode = FaultMode::Server;
    many_threads_register_and_use_types(cfg, "server");
}

/// Copy mode: the flip copies the heap, compaction happens inside the pause.
#[test]
fn registered_while_running_copy_mode() {
    let mut cfg = config();
    cfg.flip = FlipMode::Copy;
    many_threads_register_and_use_types(cfg, "copy");
}

/// Refusals: the builders' checks, bad descriptors, a full table, a live clone.
#[test]
fn bad_registrations_are_refused() {
    let mut r = TypeRegistry::with_max_types(8);
    let node = r.fixed("node", 2, &[0]).unwrap();
    let heap = Heap::new(HeapConfig::new(8 << 20), r).unwrap();
    let msg = |e: flipgc_core::GcError| {
        assert!(matches!(e.kind(), GcErrorKind::Type(_)), "{e}");
        e.to_string()
    };
    let err = msg(heap.register_fixed("oob", 3, &[3]).unwrap_err());
    assert!(err.contains("reference field 3 is not below 3"), "{err}");
    let err = msg(heap.register_fixed("dup", 3, &[1, 1]).unwrap_err());
    assert!(err.contains("duplicate reference field"), "{err}");
    let err = msg(heap.register_fixed_weak("both", 3, &[1], &[1]).unwrap_err());
    assert!(err.contains("both a reference and a weak field"), "{err}");
    let err = msg(heap.register_fixed_weak("far", 80, &[], &[70]).unwrap_err());
    assert!(err.contains("weak field 70 is not below 64"), "{err}");
    let err = msg(heap.register_fixed("huge", (1 << 16) + 1, &[]).unwrap_err());
    assert!(err.contains("exceeds"), "{err}");
    assert_eq!(heap.types().len(), 2, "a refused type was registered");

    // Descriptors of a run-time type are checked as the builder's are.
    let t = heap.register_fixed("t", 3, &[1]).unwrap();
    let arr = heap.register_ref_array("arr").unwrap();
    let err = msg(heap.ref_field(t, 0).unwrap_err());
    assert!(err.contains("t: field 0 is not a reference field"), "{err}");
    let err = msg(heap.word_field(t, 1).unwrap_err());
    assert!(err.contains("t: field 1 is a reference field"), "{err}");
    let err = msg(heap.word_field(t, 3).unwrap_err());
    assert!(err.contains("t: field 3 out of range (3 fields)"), "{err}");
    let err = msg(heap.fixed_type(arr).unwrap_err());
    assert!(err.contains("arr is an array type"), "{err}");
    assert!(heap.ref_field(t, 1).is_ok() && heap.word_field(t, 2).is_ok());

    // A live clone shares the registry's identity: no registration meanwhile.
    let clone = heap.types().clone();
    let err = msg(heap.register_byte_array("while cloned").unwrap_err());
    assert!(err.contains("live clone"), "{err}");
    drop(clone);
    heap.register_byte_array("b").unwrap();

    // Full: 8 types allowed, filler included (filler, node, t, arr, b so far).
    heap.register_byte_array("b2").unwrap();
    heap.register_byte_array("b3").unwrap();
    let last = heap.register_byte_array("b4").unwrap();
    assert_eq!(heap.types().len(), 8);
    let err = msg(heap.register_byte_array("one too many").unwrap_err());
    assert!(
        err.contains("type table full registering \"one too many\"")
            && err.contains("limit of 8 types"),
        "{err}"
    );
    assert_eq!(heap.types().len(), 8);

    // The heap is fine: old and new types allocate, survive and read back.
    let mut m = heap.bind_mutator().unwrap();
    let a = m.alloc(node, 0).unwrap();
    let b = m.alloc(t, 0).unwrap();
    let s = m.alloc(last, 5).unwrap();
    m.write_ref(m.get(&b), 1, Some(m.get(&a)));
    m.write_word(m.get(&b), 2, 42);
    m.write_bytes(m.get(&s), 0, b"hello");
    m.collect();
    assert_eq!(m.read_ref(m.get(&b), 1), Some(m.get(&a)));
    assert_eq!(m.read_word(m.get(&b), 2), 42);
    let mut out = [0; 5];
    m.read_bytes(m.get(&s), 0, &mut out);
    assert_eq!(&out, b"hello");
    assert_eq!(heap.types().get(last).unwrap().name, "b4");
    m.verify().unwrap();
}

/// The real limit: a registry holds at most `MAX_TYPES` (2^24 - 1) types, and
/// with_max_types cannot raise it.
#[test]
fn the_limit_is_the_24_bit_index() {
    assert_eq!(flipgc_core::MAX_TYPES, (1 << 24) - 1);
    let mut r = TypeRegistry::with_max_types(u32::MAX);
    let id = r.byte_array("x").unwrap();
    assert_eq!(id.index(), 2);
    // Builders and run-time registrations share the limit.
    let mut small = TypeRegistry::with_max_types(1);
    let err = small.byte_array("no room").unwrap_err().to_string();
    assert!(err.contains("type table full"), "{err}");
}

/// A clone of a registry that then registers takes a fresh identity, so the
/// descriptors of a type that only one of them has never pass on the other's heap.
#[test]
fn a_diverging_clone_takes_a_fresh_identity() {
    let mut r = TypeRegistry::new();
    let pair = r.fixed("pair", 2, &[0, 1]).unwrap();
    let mut c = r.clone();
    let only_c = c.fixed("only in c", 4, &[]).unwrap();
    let d = c.fixed_type(only_c).unwrap();
    r.fixed("only in r", 1, &[]).unwrap();
    let heap = Heap::new(HeapConfig::new(8 << 20), r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let err = m.alloc_fixed(d).unwrap_err().to_string();
    assert!(err.contains("another type registry"), "{err}");
    // The heap's own types still allocate, by id and by descriptor.
    m.alloc(pair, 0).unwrap();
    m.alloc_fixed(heap.fixed_type(pair).unwrap()).unwrap();
}
