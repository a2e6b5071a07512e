//! Criterion benches of the collector:
//! - `alloc/node`: the small-object allocation fast path (a 32-byte node with two
//!   reference fields), through `alloc_push` (root stack) in batches of 100 000,
//!   truncating the stack after each batch; and through `alloc` (a `Handle` made
//!   and dropped per object). The 256 MiB heap is filled three times before
//!   measuring, so its pages are present (recycled by the collector): the first
//!   pass over fresh memory is bound by the kernel's THP page faults instead. The
//!   collections when the heap fills (every ~8 M objects) are included.
//! - `collect/<mode>`: one full collection of a 1 GiB heap holding ~100 MiB live (a
//!   binary tree of nodes plus ref arrays), for flip modes auto (PUD), pmd, pte
//!   and copy. Everything stays live, so every collection marks, moves and fills
//!   all ~100 MiB. After each mode the median of every pause phase is printed.
//! - `from_space/<backing>/<way>`: what reusing 100 MiB of from-space memory costs
//!   after a collection: `release` = `MADV_DONTNEED` now plus faulting every page in
//!   again when compaction next writes it (what the collector does today);
//!   `recycle` = keep the pages and zero them with `memset` (the alternative).

use criterion::{Criterion, SamplingMode, Throughput};
use flipgc_core::{FlipMode, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use flipgc_heap::Level;
use std::time::{Duration, Instant};

fn types() -> (TypeRegistry, TypeId, TypeId) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).expect("node type");
    let vec = r.ref_array("vec").expect("vec type");
    (r, node, vec)
}

fn alloc(c: &mut Criterion) {
    let (r, node, _) = types();
    let heap = Heap::new(HeapConfig::new(256 << 20), r).expect("heap");
    let mut m = heap.bind_mutator().expect("mutator");
    let warm = Instant::now();
    for i in 0..(3 * (256 << 20) / 32) {
        m.alloc_push(node, 0).expect("alloc");
        if i % 100_000 == 0 {
            m.stack_truncate(0);
        }
    }
    m.stack_truncate(0);
    eprintln!(
        "alloc: warmed the heap in {:?} ({} collections)",
        warm.elapsed(),
        heap.pause_log().collections()
    );
    let mut g = c.benchmark_group("alloc");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    const BATCH: u64 = 100_000;
    g.throughput(Throughput::Elements(BATCH));
    g.bench_function("node/alloc_push", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                m.alloc_push(node, 0).expect("alloc");
            }
            m.stack_truncate(0);
        })
    });
    g.bench_function("node/handle", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                drop(m.alloc(node, 0).expect("alloc"));
            }
        })
    });
    g.finish();
    eprintln!(
        "alloc benches: {} collections in the 256 MiB heap",
        heap.pause_log().collections()
    );
}

/// Builds ~`bytes` of live data reachable from the root stack: complete binary trees
/// of nodes (32 bytes each) hung from ref arrays (~8 KiB each).
fn build_live(m: &mut Mutator, node: TypeId, vec: TypeId, bytes: usize) {
    let depth = 12; // 8191 nodes = 256 KiB per tree
    let trees = bytes / ((1 << (depth + 1)) * 32);
    m.alloc_push(vec, trees).expect("spine");
    for t in 0..trees {
        // Bottom-up: children are built first and kept on the root stack.
        let base = m.stack_len();
        for _ in 0..(1 << depth) {
            m.alloc_push(node, 0).expect("leaf");
        }
        for _level in 0..depth {
            let n = m.stack_len() - base;
            for i in 0..n / 2 {
                m.alloc_push(node, 0).expect("inner");
                let parent = m.pop().expect("just pushed");
                let (l, r) = (m.stack_get(base + 2 * i), m.stack_get(base + 2 * i + 1));
                m.write_ref(parent, 0, l);
                m.write_ref(parent, 1, r);
                let h = m.root(parent);
                m.stack_set(base + i, Some(m.get(&h)));
            }
            m.stack_truncate(base + n / 2);
        }
        let tree = m.pop().expect("tree root");
        let spine = m.stack_get(0).expect("spine");
        m.write_ref(spine, t, Some(tree));
    }
}

fn collect(c: &mut Criterion) {
    let (_, node, vec) = types();
    let mut g = c.benchmark_group("collect");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100));
    g.measurement_time(Duration::from_secs(5));
    let modes = [
        FlipMode::Auto,
        FlipMode::Level(Level::Pmd),
        FlipMode::Level(Level::Pte),
        FlipMode::Copy,
    ];
    for mode in modes {
        let (r, _, _) = types();
        let mut cfg = HeapConfig::new(1 << 30);
        cfg.flip = mode;
        let heap = Heap::new(cfg, r).expect("heap");
        let mut m = heap.bind_mutator().expect("mutator");
        let t = Instant::now();
        build_live(&mut m, node, vec, 100 << 20);
        m.collect();
        // Sequence numbers: the log's ring may let older records go.
        let first = heap.pause_log().records().total();
        let live = heap
            .pause_log()
            .records()
            .last()
            .map_or(0, |p| p.live_bytes);
        eprintln!(
            "{}: built {} MiB live in {:?}",
            mode.name(),
            live >> 20,
            t.elapsed()
        );
        g.throughput(Throughput::Bytes(live));
        g.bench_function(format!("{}/1GiB-heap/100MiB-live", mode.name()), |b| {
            b.iter(|| m.collect())
        });
        let log = heap.pause_log();
        let recs: Vec<_> = log.records().since(first).collect();
        if recs.is_empty() {
            continue; // filtered out on the command line
        }
        let med = |mut v: Vec<u64>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        let mut line = format!("{} phases (median of {} pauses):", mode.name(), recs.len());
        for (i, (name, _)) in recs[0].phases.iter().enumerate() {
            line += &format!(
                " {name} {:.2} ms,",
                med(recs.iter().map(|r| r.phases[i].1).collect()) as f64 / 1e6
            );
        }
        line += &format!(
            " total {:.2} ms; flip {} at {}",
            med(recs.iter().map(|r| r.total_ns).collect()) as f64 / 1e6,
            recs[0].flip.strategy,
            recs[0].flip.level
        );
        eprintln!("{line}");
    }
    g.finish();
}

fn from_space(c: &mut Criterion) {
    use flipgc_heap::{Reservation, Thp};
    let len = 100 << 20;
    let mut g = c.benchmark_group("from_space");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100));
    g.measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(len as u64));
    for (name, thp) in [("4k", Thp::NoHuge), ("thp", Thp::Huge)] {
        let res = Reservation::new(len, 2 << 20).expect("reserve");
        let mut span = res.commit(0, len).expect("commit");
        span.set_thp(thp).expect("advice");
        span.populate(0, len).expect("populate");
        g.bench_function(format!("{name}/release+refault"), |b| {
            b.iter(|| {
                span.release(0, len).expect("release");
                // Compaction writes every page again: one store per page faults it in.
                span.as_mut_slice()
                    .iter_mut()
                    .step_by(4096)
                    .for_each(|x| *x = 1);
            })
        });
        g.bench_function(format!("{name}/recycle (memset)"), |b| {
            b.iter(|| span.as_mut_slice().fill(0))
        });
    }
    g.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, written out: the macro's
// generated `pub fn` would be undocumented (the workspace warns on missing_docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    alloc(&mut c);
    collect(&mut c);
    from_space(&mut c);
    c.final_summary();
}
