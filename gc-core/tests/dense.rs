//! The dense prefix of a concurrent compaction: the pages at the heap's base that
//! hold only live objects (which keep their addresses) have their references
//! forwarded in from-space, in place, and are moved into to-space instead of
//! copied (`compaction.rs`, `fill.rs`). Each test checks the object graph by
//! contents and the heap verifier, in both fault modes; a mutator touches dense
//! pages before the background fill does (its handler, or the fault server,
//! produces them), and the background fill moves the rest.
//! Skipped (with a message) where the host has no userfaultfd.

use common::{compaction_heap, held_fill, list_globals, open, push_list, Gate};
use flipgc_core::{FaultMode, Heap, HeapConfig, InjectPoint, Mutator, TypeId, TypeRegistry};
use std::sync::{Arc, Condvar, Mutex};

mod common;

struct Types {
    /// Fields 0 and 1 references, 2 and 3 words (40 bytes: nodes cross page ends).
    node: TypeId,
    bytes: TypeId,
}

/// A heap whose background fill waits (up to 10 s) until `gate` opens, so that the
/// mutator's first touches of dense pages fault; `None` without userfaultfd.
fn heap(fault: FaultMode, gate: &Gate) -> Option<(Heap, Types)> {
    heap_with(fault, gate, true)
}

/// [`heap`], recycling from-space's pages or not.
fn heap_with(fault: FaultMode, gate: &Gate, recycle: bool) -> Option<(Heap, Types)> {
    heap_injected(fault, gate, recycle, None)
}

/// [`heap_with`], with a failure injected at `inject`.
fn heap_injected(
    fault: FaultMode,
    gate: &Gate,
    recycle: bool,
    inject: Option<InjectPoint>,
) -> Option<(Heap, Types)> {
    let mut r = TypeRegistry::new();
    let t = Types {
        node: r.fixed("node", 4, &[0, 1]).unwrap(),
        bytes: r.byte_array("bytes").unwrap(),
    };
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.verify_after_gc = true;
    cfg.fault_mode = fault;
    cfg.recycle_from_space = recycle;
    cfg.fill_hook = Some(held_fill(gate));
    cfg.inject = inject;
    Some((compaction_heap(cfg, r)?, t))
}

/// Pushes a list of `n` nodes (word 2 = `id`, word 3 = `id * 7`), each holding the
/// one made before it in field 0; ids from `first`.
fn list(m: &mut Mutator, node: TypeId, first: u64, n: u64) {
    push_list(m, node, (first, n), (2, 3), 7);
}

/// The list at stack slot `at`, newest first: (id, id of field 1's referent).
fn walk(m: &Mutator, at: usize) -> Vec<(u64, Option<u64>)> {
    let mut out = Vec::new();
    let mut cur = m.stack_get(at);
    while let Some(c) = cur {
        let id = m.read_word(c, 2);
        assert_eq!(m.read_word(c, 3), id * 7, "node {id} corrupted");
        out.push((id, m.read_ref(c, 1).map(|o| m.read_word(o, 2))));
        cur = m.read_ref(c, 0);
    }
    out
}

/// A list A at the heap's base (dense: nothing dies below or inside it) whose
/// nodes point at the nodes of a list B above it, which move down at every
/// collection as the garbage between B's nodes is compacted away: the forwarding
/// of A's references, in place, is what keeps them right.
fn dense_list_pointing_above(fault: FaultMode) {
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let Some((heap, t)) = heap(fault, &gate) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    const A: u64 = 60_000; // 2.4 MB, about 590 pages
    list(&mut m, t.node, 0, A);
    m.push(None); // B
    for id in 0..A / 4 {
        m.alloc_push(t.node, 0).unwrap(); // garbage between B's nodes
        m.pop();
        m.alloc_push(t.node, 0).unwrap();
        let b = m.pop().unwrap();
        m.write_word(b, 2, 1_000_000 + id);
        m.write_word(b, 3, (1_000_000 + id) * 7);
        m.write_ref(b, 0, m.stack_get(1));
        m.stack_set(1, Some(b));
    }
    // A's node i -> B's node i % (A / 4), from the newest down.
    let bs = list_globals(&m, 1);
    let mut cur = m.stack_get(0);
    let mut i = 0;
    while let Some(c) = cur {
        m.write_ref(c, 1, Some(m.get_global(&bs[i % bs.len()])));
        cur = m.read_ref(c, 0);
        i += 1;
    }
    drop(bs);
    let before = (walk(&m, 0), walk(&m, 1));
    for round in 0..3 {
        *gate.0.lock().unwrap() = false;
        m.collect();
        // The fill is held back: the first nodes read now are on dense pages that
        // this mutator's faults produce (the list's newest nodes, at A's top end),
        // then the fill moves the rest.
        let mut cur = m.stack_get(0);
        for _ in 0..2_000 {
            let c = cur.unwrap();
            assert!(m.read_ref(c, 1).is_some());
            cur = m.read_ref(c, 0);
        }
        open(&gate);
        // The fill moves the rest before this mutator reads on: read at once, it
        // raced the fill for the remaining pages (the fill does the black pages
        // first), and copied them all first in some runs.
        m.blocking(|| heap.wait_idle());
        assert_eq!(
            (walk(&m, 0), walk(&m, 1)),
            before,
            "{fault:?}, round {round}"
        );
        m.verify().unwrap();
    }
    let log = heap.pause_log();
    eprintln!(
        "{fault:?}: compactions (ns, pages, moved) {:?}",
        log.compactions()
    );
    assert_eq!(log.compactions().len(), 3);
    if flipgc_heap::Capabilities::probe().userfaultfd.has("MOVE") {
        // Every collection after the first has A at the base, dense, and the
        // background fill moves what this mutator's reads did not copy first.
        let c = log.compactions();
        assert!(c[1].2 > 0 && c[2].2 > 0, "no dense page moved: {c:?}");
    }
}

#[test]
fn a_dense_list_keeps_its_references_to_objects_that_move_sigbus() {
    dense_list_pointing_above(FaultMode::Sigbus);
}

#[test]
fn a_dense_list_keeps_its_references_to_objects_that_move_server() {
    dense_list_pointing_above(FaultMode::Server);
}

/// A byte array of 48 KiB (below the large-object threshold: in the moving space,
/// carved on its own) made in memory never touched since the heap's first
/// compaction (recycling off, so nothing above the top is present; no huge
/// pages after the first flip), so that its inner pages were never written and
/// are holes in from-space at the next collection. It comes right after two
/// lists, compacted at the base by then: all live, so the dense prefix runs
/// through the array. A move stops at a hole; the rest of the run is copied
/// from from-space (a hole reads as zeros), so the array reads as it was
/// written and the lists are whole.
fn a_hole_in_the_dense_prefix(fault: FaultMode) {
    let gate = Arc::new((Mutex::new(true), Condvar::new()));
    let Some((heap, t)) = heap_with(fault, &gate, false) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    list(&mut m, t.node, 0, 20_000);
    list(&mut m, t.node, 100_000, 20_000);
    let before = (walk(&m, 0), walk(&m, 1));
    m.collect();
    m.blocking(|| heap.wait_idle());
    m.alloc_push(t.bytes, 48 << 10).unwrap();
    let arr = m.stack_len() - 1;
    let (head, tail) = ([1u8, 2, 3, 4], [9u8, 8, 7, 6]);
    m.write_bytes(m.stack_get(arr).unwrap(), 0, &head);
    m.write_bytes(m.stack_get(arr).unwrap(), (48 << 10) - 4, &tail);
    for _ in 0..2 {
        m.collect();
        m.blocking(|| heap.wait_idle());
        let a = m.stack_get(arr).unwrap();
        let mut all = vec![0u8; 48 << 10];
        m.read_bytes(a, 0, &mut all);
        assert_eq!(all[..4], head);
        assert_eq!(all[all.len() - 4..], tail);
        assert!(all[4..all.len() - 4].iter().all(|&b| b == 0), "{fault:?}");
        assert_eq!((walk(&m, 0), walk(&m, 1)), before, "{fault:?}");
        m.verify().unwrap();
    }
    let log = heap.pause_log();
    eprintln!(
        "{fault:?}: compactions (ns, pages, moved) {:?}",
        log.compactions()
    );
    if flipgc_heap::Capabilities::probe().userfaultfd.has("MOVE") {
        // The second collection's moves stopped at the holes: fewer pages moved
        // than the third's, which found every page present.
        let c = log.compactions();
        assert!(c[1].2 < c[2].2, "{c:?}");
    }
}

#[test]
fn a_hole_in_the_dense_prefix_is_copied_as_zeros_sigbus() {
    a_hole_in_the_dense_prefix(FaultMode::Sigbus);
}

#[test]
fn a_hole_in_the_dense_prefix_is_copied_as_zeros_server() {
    a_hole_in_the_dense_prefix(FaultMode::Server);
}

/// Moves of dense pages that report fewer pages than they moved
/// (`InjectPoint::UffdMoveCount`: every other move moves its whole run and
/// reports half, with `EEXIST`, as Linux's batched `UFFDIO_MOVE` does after a
/// transient `EAGAIN`). The pages moved but not reported must be found moved and
/// not copied again: copying them found them present, and the process ended with
/// "to-space page ... installed twice" (docs/findings.md). Two lists at the base,
/// all live, so the dense prefix is most of the heap from the second collection
/// on; the fill runs freely.
fn moves_that_report_short(fault: FaultMode) {
    let gate = Arc::new((Mutex::new(true), Condvar::new()));
    let Some((heap, t)) = heap_injected(fault, &gate, true, Some(InjectPoint::UffdMoveCount))
    else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    list(&mut m, t.node, 0, 40_000);
    list(&mut m, t.node, 100_000, 40_000);
    let before = (walk(&m, 0), walk(&m, 1));
    for round in 0..4 {
        m.collect();
        m.blocking(|| heap.wait_idle());
        assert_eq!(
            (walk(&m, 0), walk(&m, 1)),
            before,
            "{fault:?}, round {round}"
        );
        m.verify().unwrap();
    }
    let log = heap.pause_log();
    let c: Vec<(u64, usize, usize)> = (0..log.compactions().len())
        .map(|i| log.compactions()[i])
        .collect();
    eprintln!("{fault:?}: compactions (ns, pages, moved) {c:?}");
    if flipgc_heap::Capabilities::probe().userfaultfd.has("MOVE") {
        assert!(heap.injections_fired() > 0, "no move reported short: {c:?}");
        // Found moved, so counted as moved: the dense prefix moved.
        assert!(c[1..].iter().all(|c| c.2 > 0), "{c:?}");
    }
}

#[test]
fn moves_that_report_short_install_each_page_once_sigbus() {
    moves_that_report_short(FaultMode::Sigbus);
}

#[test]
fn moves_that_report_short_install_each_page_once_server() {
    moves_that_report_short(FaultMode::Server);
}
