//! Heap sizing ([`HeapConfig::growable`]): on every collection path, a heap that
//! starts small grows with its live data up to the maximum, refuses more with
//! `OutOfMemory` (every rooted object intact), and works again once roots go; its
//! soft limit follows the live data down as well as up. Memory handed back to the
//! OS is measured in `rss.rs` (a process of its own, so that no other test's heap
//! counts).

mod common;

use flipgc_core::{
    GcError, GcErrorKind, Handle, Heap, HeapConfig, InjectPoint, Mutator, Sizing, TypeId,
    TypeRegistry, WordField,
};

const MIB: usize = 1 << 20;

fn paths(max: usize) -> Vec<(&'static str, HeapConfig)> {
    let base = || {
        let mut c = HeapConfig::growable(max);
        c.sizing = Some(Sizing {
            initial: 4 * MIB,
            growth: 1.0,
        });
        c.gc_workers = 2;
        c.concurrent_workers = 2;
        c.verify_after_gc = true;
        c
    };
    common::collection_paths(base, &[("uffd-move injected", InjectPoint::UffdMove)])
}

struct Types {
    node: TypeId,
    id: WordField,
}

fn heap(cfg: HeapConfig) -> (Heap, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let id = r.word_field(node, 2).unwrap();
    (Heap::new(cfg, r).unwrap(), Types { node, id })
}

/// Pushes a list of `n` nodes (ids `from..`) onto the root stack's top entry.
fn grow_list(
    m: &mut Mutator,
    t: &Types,
    head: &Handle,
    n: usize,
    from: u64,
) -> Result<(), GcError> {
    let fixed = m.heap().types().fixed_type(t.node).unwrap();
    let left = m.heap().types().ref_field(t.node, 0).unwrap();
    for i in 0..n as u64 {
        let h = m.alloc_fixed(fixed)?;
        m.set_word(m.get(&h), t.id, from + i);
        m.set_ref(m.get(&h), left, m.get_ref(m.get(head), left));
        m.set_ref(m.get(head), left, Some(m.get(&h)));
    }
    Ok(())
}

/// The ids along the list, from the head.
fn list_ids(m: &Mutator, t: &Types, head: &Handle) -> Vec<u64> {
    let left = m.heap().types().ref_field(t.node, 0).unwrap();
    let mut out = Vec::new();
    let mut at = m.get_ref(m.get(head), left);
    while let Some(o) = at {
        out.push(m.get_word(o, t.id));
        at = m.get_ref(o, left);
    }
    out
}

#[test]
fn a_growable_heap_grows_to_its_maximum_then_refuses_and_recovers() {
    for (path, cfg) in paths(64 * MIB) {
        let (heap, t) = heap(cfg);
        assert_eq!(heap.soft_limit(), 4 * MIB, "{path}");
        let mut m = heap.bind_mutator().unwrap();
        let head = m.alloc(t.node, 0).unwrap();
        // 32 bytes a node: 1M nodes = 32 MiB live, eight times the initial size.
        grow_list(&mut m, &t, &head, 1 << 20, 0).unwrap();
        m.collect();
        m.blocking(|| heap.wait_idle()); // the soft limit is set at a cycle's very end
        let limit = heap.soft_limit();
        assert!(
            (48 * MIB..=64 * MIB).contains(&limit),
            "{path}: soft limit {limit} after 32 MiB live"
        );
        // More than the maximum holds: out of memory, the list intact.
        let err = grow_list(&mut m, &t, &head, 2 << 20, 1 << 20).unwrap_err();
        assert!(
            matches!(err.kind(), GcErrorKind::OutOfMemory { .. }),
            "{path}: {err:?}"
        );
        let ids = list_ids(&m, &t, &head);
        let n = ids.len() as u64;
        assert!(n > 1 << 20, "{path}: only {n} nodes");
        assert!(
            ids.iter().copied().eq((0..n).rev()),
            "{path}: the list is not intact after out of memory"
        );
        // Dropping the list makes room again, and the soft limit falls back.
        m.set_ref(
            m.get(&head),
            heap.types().ref_field(t.node, 0).unwrap(),
            None,
        );
        m.collect();
        m.collect();
        assert_eq!(
            heap.soft_limit(),
            4 * MIB,
            "{path}: the soft limit did not fall"
        );
        grow_list(&mut m, &t, &head, 1000, 0).unwrap();
        assert_eq!(list_ids(&m, &t, &head).len(), 1000, "{path}");
        m.verify().unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

#[test]
fn cycles_follow_the_soft_limit_not_the_maximum() {
    // A steady 2 MiB live set and 128 MiB of garbage, in a heap of at most 256 MiB.
    // With sizing, cycles are paced against a soft limit of a few MiB; a fixed-size
    // heap would not even start its first cycle before half its capacity (128 MiB)
    // was used. The garbage comes in 4 MiB steps, each followed by a wait for the
    // cycle in progress, so that the peak depends on where cycles start, not on how
    // much CPU the collector gets against this mutator: on a loaded machine, one
    // cycle could otherwise span most of the 128 MiB.
    let mut cfg = paths(256 * MIB).remove(0).1;
    cfg.verify_after_gc = false;
    let (heap, t) = heap(cfg);
    let mut m = heap.bind_mutator().unwrap();
    let head = m.alloc(t.node, 0).unwrap();
    grow_list(&mut m, &t, &head, 64 << 10, 0).unwrap();
    let fixed = heap.types().fixed_type(t.node).unwrap();
    for _ in 0..32 {
        for _ in 0..(128 << 10) {
            m.push_fixed(fixed).unwrap();
            m.pop();
        }
        m.blocking(|| heap.wait_idle());
    }
    let log = heap.pause_log();
    let cycles = log.cycles();
    let peak = cycles
        .iter()
        .map(|c| heap.config().capacity - c.min_free as usize)
        .max()
        .unwrap_or(0);
    eprintln!(
        "{} cycles, peak heap use {} MiB, soft limit now {} KiB",
        cycles.len(),
        peak / MIB,
        heap.soft_limit() >> 10
    );
    assert!(cycles.len() >= 2, "only {} cycles", cycles.len());
    assert!(peak < 32 * MIB, "peak heap use {peak} bytes");
    assert!(
        heap.soft_limit() <= 8 * MIB,
        "soft limit {}",
        heap.soft_limit()
    );
    assert_eq!(list_ids(&m, &t, &head).len(), 64 << 10);
}

#[test]
fn bad_sizing_is_refused_with_its_value() {
    for (s, want) in [
        (
            Sizing {
                initial: 1000,
                growth: 1.0,
            },
            "initial heap size 1000",
        ),
        (
            Sizing {
                initial: 4 * MIB,
                growth: 0.0,
            },
            "heap growth 0",
        ),
        (
            Sizing {
                initial: 4 * MIB,
                growth: f64::NAN,
            },
            "heap growth NaN",
        ),
    ] {
        let mut cfg = HeapConfig::growable(64 * MIB);
        cfg.sizing = Some(s);
        let e = Heap::new(cfg, TypeRegistry::new()).err().unwrap();
        assert!(e.to_string().contains(want), "{e}");
    }
}
