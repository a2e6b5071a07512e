//! Model-checked graph churn: random sequences of allocate / link / unlink / drop
//! root / load child / collect run against a plain Rust model of the object graph.
//! After every collection the reachable graph's canonical checksum (shape, ids,
//! contents) must equal the model's, and the verifier runs after every collection
//! (`verify_after_gc`), as does the sanity re-trace of concurrent marking. Every flip path: auto at PUD (1 GiB heap), auto at PMD,
//! forced PMD, forced PTE, copy; from-space recycled (the default) on all of them,
//! and released on one more; and every survivable run-time fault injection point
//! (`flip-mremap`, `uffd-register`, `uffd-copy`, `uffd-move`, `uffd-open`,
//! `mark-rounds`), each of which must give the same graph. Concurrent compaction
//! serves faults in SIGBUS mode (the default where the kernel has it) on the paths
//! above, and with the fault server on the `*_server` paths; each compaction must
//! have used the mode asked for.

use flipgc_core::{
    FaultMode, FlipMode, Gc, Handle, Heap, HeapConfig, InjectPoint, Mutator, TypeId, TypeRegistry,
};
use flipgc_heap::Level;
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy)]
struct Types {
    node: TypeId,
    vec: TypeId,
    blob: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap(); // ref, ref, id
    let vec = r.ref_array("vec").unwrap();
    let blob = r.byte_array("blob").unwrap(); // 8-byte id, then pattern bytes
    (r, Types { node, vec, blob })
}

#[derive(Clone, Debug)]
enum Op {
    Node,
    Vec(usize),
    Blob(usize),
    LargeVec,
    LargeBlob,
    Link(usize, usize, Option<usize>),
    Unroot(usize),
    Child(usize, usize),
    Collect,
    Garbage(usize),
    Build(usize, usize),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        6 => Just(Op::Node),
        2 => (0usize..6).prop_map(Op::Vec),
        2 => (1usize..300).prop_map(Op::Blob),
        1 => Just(Op::LargeVec),
        1 => Just(Op::LargeBlob),
        8 => (any::<usize>(), any::<usize>(), proptest::option::weighted(0.8, any::<usize>()))
            .prop_map(|(a, f, b)| Op::Link(a, f, b)),
        3 => any::<usize>().prop_map(Op::Unroot),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, f)| Op::Child(a, f)),
        2 => Just(Op::Collect),
        1 => (1usize..40_000).prop_map(Op::Garbage),
        2 => (1usize..3000, any::<usize>()).prop_map(|(n, s)| Op::Build(n, s)),
    ];
    proptest::collection::vec(op, 1..120)
}

/// The model: objects with a kind, an id and reference slots.
#[derive(Clone)]
struct MObj {
    kind: u8, // 0 node, 1 vec, 2 blob
    id: u64,
    bytes: usize,
    refs: Vec<Option<usize>>,
}

fn blob_byte(id: u64, i: usize) -> u8 {
    (id as usize).wrapping_mul(31).wrapping_add(i * 7) as u8
}

/// FNV-style mixing of a canonical DFS over the roots, in root order.
fn mix(h: &mut u64, v: u64) {
    *h = (*h ^ v).wrapping_mul(0x100_0000_01b3);
}

fn model_checksum(objs: &[MObj], roots: &[usize]) -> u64 {
    let mut seen: HashMap<usize, u64> = HashMap::new();
    let mut h = 0xcbf2_9ce4_8422_2325;
    for &r in roots {
        visit_model(objs, r, &mut seen, &mut h);
    }
    h
}

fn visit_model(objs: &[MObj], i: usize, seen: &mut HashMap<usize, u64>, h: &mut u64) {
    if let Some(n) = seen.get(&i) {
        mix(h, 1_000_000 + n);
        return;
    }
    let n = seen.len() as u64;
    seen.insert(i, n);
    let o = &objs[i];
    mix(h, u64::from(o.kind));
    mix(h, o.id);
    mix(h, o.bytes as u64);
    for r in &o.refs {
        match r {
            None => mix(h, 7),
            Some(j) => visit_model(objs, *j, seen, h),
        }
    }
}

fn heap_checksum(m: &Mutator, t: Types, roots: &[Handle]) -> u64 {
    let mut seen: HashMap<usize, u64> = HashMap::new();
    let mut h = 0xcbf2_9ce4_8422_2325;
    for r in roots {
        visit_heap(m, t, m.get(r), &mut seen, &mut h);
    }
    h
}

fn visit_heap<'m>(
    m: &'m Mutator,
    t: Types,
    o: Gc<'m>,
    seen: &mut HashMap<usize, u64>,
    h: &mut u64,
) {
    if let Some(n) = seen.get(&o.addr()) {
        mix(h, 1_000_000 + n);
        return;
    }
    let n = seen.len() as u64;
    seen.insert(o.addr(), n);
    let ty = m.type_of(o);
    if ty == t.node {
        mix(h, 0);
        mix(h, m.read_word(o, 2));
        mix(h, 0);
        for f in 0..2 {
            match m.read_ref(o, f) {
                None => mix(h, 7),
                Some(c) => visit_heap(m, t, c, seen, h),
            }
        }
    } else if ty == t.vec {
        mix(h, 1);
        mix(h, 0);
        mix(h, 0);
        for f in 0..m.len(o) {
            match m.read_ref(o, f) {
                None => mix(h, 7),
                Some(c) => visit_heap(m, t, c, seen, h),
            }
        }
    } else {
        let len = m.len(o);
        let mut buf = vec![0u8; len];
        m.read_bytes(o, 0, &mut buf);
        let id = u64::from_le_bytes(buf[..8].try_into().unwrap());
        for (i, b) in buf.iter().enumerate().skip(8) {
            assert_eq!(*b, blob_byte(id, i), "blob {id} byte {i} changed");
        }
        mix(h, 2);
        mix(h, id);
        mix(h, len as u64);
    }
}

/// What one path runs with.
#[derive(Clone, Copy)]
struct Path {
    mode: FlipMode,
    capacity: usize,
    inject: Option<InjectPoint>,
    recycle: bool,
    concurrent: bool,
    marking: bool,
    fault: FaultMode,
}

fn run(
    p: Path,
    ops: Vec<Op>,
    count: &AtomicUsize,
    fired: &AtomicUsize,
) -> Result<(), TestCaseError> {
    let Path {
        mode,
        capacity,
        inject,
        recycle,
        concurrent,
        ..
    } = p;
    let (types, t) = registry();
    let mut cfg = HeapConfig::new(capacity);
    cfg.flip = mode;
    cfg.verify_after_gc = true;
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.tlab_size = 4096;
    cfg.large_object_threshold = 16 << 10;
    cfg.recycle_from_space = recycle;
    cfg.concurrent_compaction = concurrent;
    cfg.concurrent_marking = p.marking;
    cfg.fault_mode = p.fault;
    cfg.inject = inject;
    let heap = Heap::new(cfg, types).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let mut objs: Vec<MObj> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let mut handles: Vec<Handle> = Vec::new();
    let mut next_id = 1u64;
    let mut collections = 0;

    for op in ops {
        match op {
            Op::Node | Op::Vec(_) | Op::LargeVec => {
                let (ty, n, kind) = match op {
                    Op::Node => (t.node, 2, 0),
                    Op::Vec(k) => (t.vec, k, 1),
                    _ => (t.vec, 3000, 1), // 24 KiB: over the large-object threshold
                };
                let h = m.alloc(ty, n).unwrap();
                let id = if kind == 0 { next_id } else { 0 };
                if kind == 0 {
                    m.write_word(m.get(&h), 2, id);
                    next_id += 1;
                }
                objs.push(MObj {
                    kind,
                    id,
                    bytes: 0,
                    refs: vec![None; n],
                });
                roots.push(objs.len() - 1);
                handles.push(h);
            }
            Op::Blob(_) | Op::LargeBlob => {
                let len = match op {
                    Op::Blob(n) => n + 8,
                    _ => 40 << 10,
                };
                let h = m.alloc(t.blob, len).unwrap();
                let id = next_id;
                next_id += 1;
                let mut data: Vec<u8> = (0..len).map(|i| blob_byte(id, i)).collect();
                data[..8].copy_from_slice(&id.to_le_bytes());
                m.write_bytes(m.get(&h), 0, &data);
                objs.push(MObj {
                    kind: 2,
                    id,
                    bytes: len,
                    refs: vec![],
                });
                roots.push(objs.len() - 1);
                handles.push(h);
            }
            Op::Link(a, f, b) if !roots.is_empty() => {
                let a = a % roots.len();
                let nrefs = objs[roots[a]].refs.len();
                if nrefs == 0 {
                    continue;
                }
                let f = f % nrefs;
                let target = b.map(|b| b % roots.len());
                let value = target.map(|b| m.get(&handles[b]));
                m.write_ref(m.get(&handles[a]), f, value);
                objs[roots[a]].refs[f] = target.map(|b| roots[b]);
            }
            Op::Unroot(a) if !roots.is_empty() => {
                let a = a % roots.len();
                roots.remove(a);
                handles.remove(a);
            }
            Op::Child(a, f) if !roots.is_empty() => {
                let a = a % roots.len();
                let nrefs = objs[roots[a]].refs.len();
                if nrefs == 0 {
                    continue;
                }
                let f = f % nrefs;
                if let Some(c) = objs[roots[a]].refs[f] {
                    let child = m
                        .read_ref(m.get(&handles[a]), f)
                        .expect("model says non-null");
                    let h = m.root(child);
                    roots.push(c);
                    handles.push(h);
                } else {
                    prop_assert!(m.read_ref(m.get(&handles[a]), f).is_none());
                }
            }
            Op::Garbage(n) => {
                // Unrooted nodes: fills the heap so allocation triggers collections.
                for _ in 0..n {
                    drop(m.alloc(t.node, 0).unwrap());
                }
            }
            Op::Build(n, seed) => {
                // A chain of mixed-size objects (odd sizes shift alignment, so objects
                // straddle pages), each linking back to the previous one, with extra
                // links to an object a few steps back; rooted at its last object.
                let mut recent: Vec<(Handle, usize)> = Vec::new();
                for i in 0..n {
                    let is_vec = (seed.wrapping_add(i)) % 3 == 0;
                    let k = 1 + (seed.wrapping_add(i * 7)) % 5;
                    let (h, refs, kind, id) = if is_vec {
                        (m.alloc(t.vec, k).unwrap(), k, 1, 0)
                    } else {
                        let h = m.alloc(t.node, 0).unwrap();
                        m.write_word(m.get(&h), 2, next_id);
                        next_id += 1;
                        (h, 2, 0, next_id - 1)
                    };
                    objs.push(MObj {
                        kind,
                        id,
                        bytes: 0,
                        refs: vec![None; refs],
                    });
                    let me = objs.len() - 1;
                    if let Some((ph, pm)) = recent.last() {
                        m.write_ref(m.get(&h), 0, Some(m.get(ph)));
                        objs[me].refs[0] = Some(*pm);
                    }
                    if refs > 1 && recent.len() >= 3 {
                        let (ref oh, om) = recent[recent.len() - 3];
                        m.write_ref(m.get(&h), refs - 1, Some(m.get(oh)));
                        objs[me].refs[refs - 1] = Some(om);
                    }
                    recent.push((h, me));
                    if recent.len() > 4 {
                        recent.remove(0);
                    }
                }
                let (h, me) = recent.pop().expect("n >= 1");
                roots.push(me);
                handles.push(h);
            }
            Op::Collect => {
                m.collect();
                collections += 1;
                prop_assert_eq!(
                    heap_checksum(&m, t, &handles),
                    model_checksum(&objs, &roots)
                );
            }
            _ => {}
        }
    }
    m.collect();
    collections += 1;
    prop_assert_eq!(
        heap_checksum(&m, t, &handles),
        model_checksum(&objs, &roots)
    );
    let log = heap.pause_log();
    prop_assert!(log.collections() >= collections);
    // The flip path really was the one asked for, and so was the cycle: with
    // concurrent marking, "mark-start", one or more "mark-end" and a "flip" per
    // cycle, the flip compacting in place only where it must; else one "full".
    let marking = p.marking;
    let concurrent_here = concurrent && heap.concurrent_compaction() && mode != FlipMode::Copy;
    let mremap_fails = inject == Some(InjectPoint::FlipMremap);
    let may_fall_back = matches!(
        inject,
        Some(InjectPoint::FlipMremap | InjectPoint::UffdRegister | InjectPoint::UffdOpen)
    );
    let moving_pauses = if marking { "flip" } else { "full" };
    for r in log.records() {
        if !marking {
            prop_assert_eq!(r.kind, "full");
        }
        if r.kind != moving_pauses {
            prop_assert!(["mark-start", "mark-end"].contains(&r.kind), "{}", r.kind);
            continue;
        }
        let copied = r.flip.fallback_reason.is_some();
        prop_assert!(mremap_fails || !copied, "a flip copied without injection");
        let want = match mode {
            _ if copied => "copy",
            FlipMode::Copy => "copy",
            FlipMode::Level(l) => l.name(),
            // PUD on x86_64 at any capacity: the spans are whole PUD entries.
            FlipMode::Auto => HeapConfig::new(capacity)
                .flip_level()
                .expect("a moving flip")
                .name(),
            other => panic!("no expected level for flip mode {other:?}"),
        };
        prop_assert_eq!(r.flip.level, want);
        let in_pause = r.phases.iter().any(|(n, _)| *n == "compact");
        if marking && !concurrent_here {
            prop_assert!(in_pause || r.live_bytes == 0, "{:?}", r.phases);
        }
        if marking && concurrent_here && !may_fall_back && r.live_bytes > 0 {
            prop_assert!(!in_pause, "a flip compacted in place: {:?}", r.phases);
        }
    }
    // Every concurrent compaction served its faults in the heap's fault mode (the
    // one asked for, unless Auto).
    if p.fault != FaultMode::Auto && heap.concurrent_compaction() {
        prop_assert_eq!(heap.fault_mode(), p.fault);
    }
    for m in log.compaction_fault_modes() {
        prop_assert_eq!(*m, heap.fault_mode());
    }
    let count_of = |kind: &str| log.records().iter().filter(|r| r.kind == kind).count();
    if marking {
        prop_assert_eq!(count_of("mark-start"), log.collections());
        prop_assert_eq!(count_of("flip"), log.collections());
        prop_assert!(count_of("mark-end") >= log.collections());
        // The sanity re-trace ran at every cycle's end of marking.
        prop_assert_eq!(log.sanity_checks().len(), log.collections());
    }
    m.blocking(|| heap.wait_idle());
    count.fetch_add(log.collections(), Ordering::Relaxed);
    fired.fetch_add(heap.injections_fired() as usize, Ordering::Relaxed);
    Ok(())
}

const CASES: u32 = 64;

fn path(mode: FlipMode, capacity: usize) -> Path {
    Path {
        mode,
        capacity,
        inject: None,
        recycle: true,
        concurrent: true,
        marking: true,
        fault: FaultMode::Auto,
    }
}

fn check(mode: FlipMode, capacity: usize) {
    check_with(path(mode, capacity));
}

fn check_stw(mode: FlipMode, capacity: usize, inject: Option<InjectPoint>) {
    check_with(Path {
        marking: false,
        inject,
        ..path(mode, capacity)
    });
}

fn check_injected(point: InjectPoint) {
    check_with(Path {
        inject: Some(point),
        ..path(FlipMode::Auto, 4 << 20)
    });
}

fn check_with(p: Path) {
    let Path {
        mode,
        capacity,
        inject,
        recycle,
        concurrent,
        marking,
        fault,
    } = p;
    let count = AtomicUsize::new(0);
    let fired = AtomicUsize::new(0);
    let config = ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(ops in ops())| {
        run(p, ops, &count, &fired)?;
    });
    let n = count.load(Ordering::Relaxed);
    let fired = fired.load(Ordering::Relaxed);
    eprintln!(
        "{} {}{}{}{}{}: {n} verified collections",
        mode.name(),
        flipgc_heap::fmt_bytes(capacity),
        match fault {
            FaultMode::Auto => "",
            FaultMode::Sigbus => " (faults: sigbus)",
            FaultMode::Server => " (faults: server)",
            _ => " (faults: other)",
        },
        match (marking, concurrent) {
            (false, _) => " one-pause",
            (true, false) => " compaction in the flip pause",
            (true, true) => "",
        },
        if recycle {
            ""
        } else {
            " (from-space released)"
        },
        match inject {
            Some(point) => format!(" (injected {point}: fired {fired} times)"),
            None => String::new(),
        }
    );
    assert!(n >= CASES as usize, "{n} collections");
    if inject.is_some() {
        assert!(fired > 0, "the injection point never fired");
    }
}

#[test]
fn churn_auto_pud() {
    check(FlipMode::Auto, 1 << 30);
}

#[test]
fn churn_auto_pmd() {
    check(FlipMode::Auto, 4 << 20);
}

#[test]
fn churn_forced_pmd() {
    check(FlipMode::Level(Level::Pmd), 4 << 20);
}

#[test]
fn churn_forced_pte() {
    check(FlipMode::Level(Level::Pte), 4 << 20);
}

#[test]
fn churn_copy() {
    check(FlipMode::Copy, 4 << 20);
}

#[test]
fn churn_auto_pmd_from_space_released() {
    check_with(Path {
        recycle: false,
        ..path(FlipMode::Auto, 4 << 20)
    });
}

#[test]
fn churn_injected_flip_mremap() {
    check_injected(InjectPoint::FlipMremap);
}

#[test]
fn churn_injected_uffd_register() {
    check_injected(InjectPoint::UffdRegister);
}

#[test]
fn churn_injected_uffd_copy() {
    check_injected(InjectPoint::UffdCopy);
}

#[test]
fn churn_injected_uffd_move() {
    check_injected(InjectPoint::UffdMove);
}

#[test]
fn churn_injected_uffd_open() {
    check_injected(InjectPoint::UffdOpen);
}

#[test]
fn churn_injected_mark_rounds() {
    check_injected(InjectPoint::MarkRounds);
}

#[test]
fn churn_auto_pmd_compaction_in_the_flip_pause() {
    check_with(Path {
        concurrent: false,
        ..path(FlipMode::Auto, 4 << 20)
    });
}

fn check_server(p: Path) {
    check_with(Path {
        fault: FaultMode::Server,
        ..p
    });
}

#[test]
fn churn_auto_pud_server() {
    check_server(path(FlipMode::Auto, 1 << 30));
}

#[test]
fn churn_auto_pmd_server() {
    check_server(path(FlipMode::Auto, 4 << 20));
}

#[test]
fn churn_forced_pte_server() {
    check_server(path(FlipMode::Level(Level::Pte), 4 << 20));
}

#[test]
fn churn_injected_uffd_copy_server() {
    check_server(Path {
        inject: Some(InjectPoint::UffdCopy),
        ..path(FlipMode::Auto, 4 << 20)
    });
}

#[test]
fn churn_in_pause_auto_pud() {
    check_stw(FlipMode::Auto, 1 << 30, None);
}

#[test]
fn churn_in_pause_forced_pte() {
    check_stw(FlipMode::Level(Level::Pte), 4 << 20, None);
}

#[test]
fn churn_in_pause_injected_flip_mremap() {
    check_stw(FlipMode::Auto, 4 << 20, Some(InjectPoint::FlipMremap));
}
