//! Criterion benches of the mutator's access paths, in ns per operation, each next
//! to the same shape in plain Rust with no collector (a `Vec`-backed arena of nodes
//! linked by index: the floor):
//! - `read/*`: follow a node's reference field (`get_ref` through a `RefField`;
//!   `read_ref` by index; the arena), along a 1000-node cycle;
//! - `write/*`: store a reference field (`set_ref`, `write_ref`, the arena);
//! - `word/*`: read then write a word field (`get_word`/`set_word`, the arena);
//! - `alloc/*`: allocate a 4-word node on the root stack (`push_fixed` through a
//!   `FixedType`; `alloc_push` by type id; the arena's `Vec::push`), batches of
//!   10 000, truncated after each batch. The heap is warmed first (its pages
//!   recycled), and the collections when it fills are included.
//! - `tree/*`: the tree shapes of binary-trees and GCBench, per node, with
//!   binary-trees' node: `make` builds a tree of depth 12 bottom-up
//!   (`flipgc_stress::tree::make_tree`: leaves two at a time by `push_fixed_n`,
//!   inner nodes by `push_fixed_from_stack`) and drops it, collections included;
//!   `populate` builds one top-down (`flipgc_stress::tree::populate`: each node's
//!   two children made and stored into it in one step, by `push_fixed_n_into`);
//!   `count` walks a kept tree of depth 16 (`count_nodes`: `get_refs`, polling);
//!   `arena_make`, `arena_populate` and `arena_count` do the same in a `Vec` of
//!   index-linked nodes (recursive, cleared after each tree).
//! - `barrier/set_ref` (after the criterion groups, timed by hand): a reference
//!   store with marking off and with marking on (the write barrier logging).

use criterion::{black_box, Criterion, Throughput};
use flipgc_core::{Heap, HeapConfig, Mutator, RefField, TypeRegistry, WordField};
use std::time::Duration;

struct Shapes {
    node: flipgc_core::TypeId,
    /// binary-trees' node: two references.
    tree: flipgc_stress::tree::Node,
    fixed: flipgc_core::FixedType,
    left: RefField,
    right: RefField,
    id: WordField,
}

fn shapes(r: &mut TypeRegistry) -> Shapes {
    let node = r.fixed("node", 4, &[0, 1]).expect("node");
    let tree = r.fixed("tree", 2, &[0, 1]).expect("tree");
    Shapes {
        node,
        tree: flipgc_stress::tree::Node::of(r, tree, false).expect("tree"),
        fixed: r.fixed_type(node).expect("fixed"),
        left: r.ref_field(node, 0).expect("left"),
        right: r.ref_field(node, 1).expect("right"),
        id: r.word_field(node, 2).expect("id"),
    }
}

/// The floor: nodes in a `Vec`, linked by index.
#[derive(Clone, Copy, Default)]
struct ArenaNode {
    left: u32,
    right: u32,
    id: u64,
    _pad: u64,
}

const RING: usize = 1000;

/// A ring of `RING` nodes on the root stack (slots 0..RING), each's left field
/// pointing at the next.
fn ring(m: &mut Mutator, s: &Shapes) {
    for _ in 0..RING {
        m.push_fixed(s.fixed).expect("alloc");
    }
    for i in 0..RING {
        let a = m.stack_get(i).expect("node");
        m.set_ref(a, s.left, m.stack_get((i + 1) % RING));
    }
}

fn access(c: &mut Criterion) {
    let mut r = TypeRegistry::new();
    let s = shapes(&mut r);
    let mut cfg = HeapConfig::new(256 << 20);
    cfg.pretouch = true;
    let heap = Heap::new(cfg, r).expect("heap");
    let mut m = heap.bind_mutator().expect("mutator");
    ring(&mut m, &s);
    let mut arena = vec![ArenaNode::default(); RING];
    for (i, n) in arena.iter_mut().enumerate() {
        n.left = ((i + 1) % RING) as u32;
    }
    const STEPS: u64 = 10_000;

    let mut g = c.benchmark_group("read");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(STEPS));
    g.bench_function("get_ref", |b| {
        b.iter(|| {
            let mut at = m.stack_get(0).expect("node");
            for _ in 0..STEPS {
                at = m.get_ref(at, s.left).expect("ring");
            }
            black_box(at);
        })
    });
    g.bench_function("read_ref", |b| {
        b.iter(|| {
            let mut at = m.stack_get(0).expect("node");
            for _ in 0..STEPS {
                at = m.read_ref(at, 0).expect("ring");
            }
            black_box(at);
        })
    });
    g.bench_function("arena", |b| {
        b.iter(|| {
            let mut at = 0usize;
            for _ in 0..STEPS {
                at = black_box(&arena)[at].left as usize;
            }
            black_box(at);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("write");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(STEPS));
    g.bench_function("set_ref", |b| {
        b.iter(|| {
            for i in 0..STEPS as usize {
                let a = m.stack_get(i % RING).expect("node");
                m.set_ref(a, s.right, m.stack_get((i + 7) % RING));
            }
        })
    });
    g.bench_function("write_ref", |b| {
        b.iter(|| {
            for i in 0..STEPS as usize {
                let a = m.stack_get(i % RING).expect("node");
                m.write_ref(a, 1, m.stack_get((i + 7) % RING));
            }
        })
    });
    g.bench_function("arena", |b| {
        b.iter(|| {
            for i in 0..STEPS as usize {
                let a = black_box(&mut arena);
                a[i % RING].right = ((i + 7) % RING) as u32;
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("word");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(STEPS));
    g.bench_function("get_set_word", |b| {
        b.iter(|| {
            for i in 0..STEPS as usize {
                let a = m.stack_get(i % RING).expect("node");
                m.set_word(a, s.id, m.get_word(a, s.id) + 1);
            }
        })
    });
    g.bench_function("arena", |b| {
        b.iter(|| {
            for i in 0..STEPS as usize {
                let a = black_box(&mut arena);
                a[i % RING].id += 1;
            }
        })
    });
    g.finish();

    // Allocation: warm the heap so its pages are present (recycled), then measure.
    m.stack_truncate(0);
    for i in 0..(3 * (256 << 20) / 40) {
        m.push_fixed(s.fixed).expect("alloc");
        if i % 10_000 == 0 {
            m.stack_truncate(0);
        }
    }
    m.stack_truncate(0);
    let mut g = c.benchmark_group("alloc");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(STEPS));
    g.bench_function("push_fixed", |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                m.push_fixed(s.fixed).expect("alloc");
            }
            m.stack_truncate(0);
        })
    });
    g.bench_function("alloc_push", |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                m.alloc_push(s.node, 0).expect("alloc");
            }
            m.stack_truncate(0);
        })
    });
    let mut floor: Vec<ArenaNode> = Vec::with_capacity(STEPS as usize);
    g.bench_function("arena", |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                floor.push(ArenaNode::default());
            }
            black_box(&floor);
            floor.clear();
        })
    });
    g.finish();

    // Trees: binary-trees' node (a header and two references, 24 bytes).
    let node = s.tree;
    const MAKE_DEPTH: u32 = 12;
    const COUNT_DEPTH: u32 = 16;
    let mut g = c.benchmark_group("tree");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(flipgc_stress::tree::tree_size(
            MAKE_DEPTH,
        )));
    g.bench_function("make", |b| {
        b.iter(|| {
            flipgc_stress::tree::make_tree(&mut m, &node, MAKE_DEPTH).expect("alloc");
            m.stack_truncate(0);
        })
    });
    // The floor's node has the same 24 bytes: a header word, then the children's
    // indices.
    let mut arena: Vec<[u64; 3]> = Vec::new();
    fn arena_make(a: &mut Vec<[u64; 3]>, depth: u32) -> u64 {
        let [l, r] = if depth == 0 {
            [u64::MAX; 2]
        } else {
            [arena_make(a, depth - 1), arena_make(a, depth - 1)]
        };
        a.push([1, l, r]);
        (a.len() - 1) as u64
    }
    g.bench_function("arena_make", |b| {
        b.iter(|| {
            black_box(arena_make(&mut arena, MAKE_DEPTH));
            arena.clear();
        })
    });
    // Top-down: a root, then each node's two children made and stored into it.
    g.bench_function("populate", |b| {
        b.iter(|| {
            m.push_fixed(node.ty).expect("alloc");
            flipgc_stress::tree::populate(&mut m, &node, MAKE_DEPTH, 0, &mut None).expect("alloc");
            m.stack_truncate(0);
        })
    });
    fn arena_populate(a: &mut Vec<[u64; 3]>, at: usize, depth: u32) {
        if depth == 0 {
            return;
        }
        let l = a.len();
        a.extend([[1, u64::MAX, u64::MAX]; 2]);
        a[at][1] = l as u64;
        a[at][2] = l as u64 + 1;
        arena_populate(a, l, depth - 1);
        arena_populate(a, l + 1, depth - 1);
    }
    g.bench_function("arena_populate", |b| {
        b.iter(|| {
            arena.push([1, u64::MAX, u64::MAX]);
            arena_populate(&mut arena, 0, MAKE_DEPTH);
            black_box(&arena);
            arena.clear();
        })
    });
    g.throughput(Throughput::Elements(flipgc_stress::tree::tree_size(
        COUNT_DEPTH,
    )));
    flipgc_stress::tree::make_tree(&mut m, &node, COUNT_DEPTH).expect("alloc");
    g.bench_function("count", |b| {
        b.iter(|| black_box(flipgc_stress::tree::count_nodes(&mut m, &node, 0)))
    });
    let root = arena_make(&mut arena, COUNT_DEPTH);
    fn arena_count(a: &[[u64; 3]], n: u64) -> u64 {
        match a[n as usize] {
            [_, u64::MAX, _] => 1,
            [_, l, r] => 1 + arena_count(a, l) + arena_count(a, r),
        }
    }
    g.bench_function("arena_count", |b| {
        b.iter(|| black_box(arena_count(&arena, black_box(root))))
    });
    g.finish();
    drop(m);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    access(&mut c);
    c.final_summary();
    barrier();
}

/// The write barrier's cost: `set_ref` with marking off, and with marking on (every
/// store logs the value it overwrites), timed by hand in the same run. Marking is
/// held on by a cycle hook at `CyclePoint::Marking` (the driver waits there, so the
/// markers do not drain the log meanwhile): 5 rounds of 2 M stores each way; the
/// medians in ns per store.
fn barrier() {
    use flipgc_core::{CycleHook, CyclePoint};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let once = Mutex::new(Some((go_tx, release_rx)));
    let hook = move |p: CyclePoint| {
        if p == CyclePoint::Marking {
            if let Some((go, release)) = once.lock().expect("hook").take() {
                go.send(()).expect("go");
                release.recv().expect("release");
            }
        }
    };
    let mut r = TypeRegistry::new();
    let s = shapes(&mut r);
    let mut cfg = HeapConfig::new(256 << 20);
    cfg.cycle_hook = Some(CycleHook(Arc::new(hook)));
    let heap = Heap::new(cfg, r).expect("heap");
    let mut m = heap.bind_mutator().expect("mutator");
    ring(&mut m, &s);
    const STORES: usize = 2_000_000;
    let time = |m: &mut Mutator| {
        let start = Instant::now();
        for i in 0..STORES {
            let a = m.stack_get(i % RING).expect("node");
            m.set_ref(a, s.right, m.stack_get((i + 7) % RING));
        }
        start.elapsed().as_nanos() as f64 / STORES as f64
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let off: Vec<f64> = (0..5).map(|_| time(&mut m)).collect();
    let requester = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().expect("mutator").collect())
    };
    m.blocking(move || go_rx.recv().expect("marking started"));
    assert!(
        m.barrier_active(),
        "the barrier is on while the cycle is held"
    );
    let on: Vec<f64> = (0..5).map(|_| time(&mut m)).collect();
    release_tx.send(()).expect("release");
    m.blocking(move || requester.join().expect("collect"));
    println!(
        "barrier/set_ref: marking off {:.2} ns per store, marking on {:.2} ns per store \
         (medians of 5 x {STORES} stores)",
        median(off),
        median(on)
    );
}
