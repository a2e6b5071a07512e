//! The black region of a concurrent compaction (objects allocated between the
//! mark-start pause and the flip pause): its pages only slide, by whole pages, so
//! the compaction's own thread produces them in place in from-space and moves
//! them into to-space a run at a time, holding back the old pages that a later
//! page's production still reads (back to its carve's start); the black region's
//! old offsets above the top take spare chunks of from-space instead
//! (`compaction.rs`, `Compaction::work_black`; `compaction/recycle.rs`).
//!
//! A mutator allocates several megabytes of black objects (nodes that cross page
//! ends, and reference arrays carved on their own, across pages) that refer to
//! older objects, which move, and to each other; after the flip it reads a third
//! of them while the background fill is held (its faults produce those pages,
//! ahead of the fill), then lets the fill go and reads on, racing it. The graph is
//! checked by contents and by the heap verifier, in both fault modes; and once
//! with the old objects spread so that no chunk of from-space is spare, so the
//! old offsets take what is left of their own old pages (which must then not be
//! pages the black pass has yet to move).
//! Skipped (with a message) where the host has no userfaultfd.

use common::{compaction_heap, held_fill, list_globals, open, Gate};
use flipgc_core::{CycleHook, CyclePoint, FaultMode, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

mod common;

#[derive(Clone, Copy)]
struct Types {
    /// Fields 0 and 1 references, 2 and 3 words (40 bytes: nodes cross page ends).
    node: TypeId,
    arr: TypeId,
}

/// Old nodes, made before the cycle with garbage between them (so they move).
const OLD: u64 = 5_000;
/// Black nodes: 12 MB, about 3,000 pages, several runs of the black pass (of 512
/// pages each, and moves held back until a run's length can move at once).
const BLACK: u64 = 300_000;
/// Every this many black nodes, a reference array as well.
const ARRAY_EVERY: u64 = 1_000;
/// Its elements: 16 KiB, more than a quarter of an allocation buffer, so it is
/// carved on its own and crosses several pages.
const ARRAY_LEN: usize = 2_000;

/// Pushes a new node labelled `id` (word 2, and `id * 7` in word 3).
fn node(m: &mut Mutator, t: Types, id: u64) {
    m.alloc_push(t.node, 0).unwrap();
    let n = m.stack_get(m.stack_len() - 1).unwrap();
    m.write_word(n, 2, id);
    m.write_word(n, 3, id * 7);
}

/// Where the old list's garbage goes, and so whether the black region's old
/// offsets find spare chunks of from-space.
#[derive(Clone, Copy, Debug)]
enum Garbage {
    /// A little between the old nodes and 8 MB after them: whole chunks (PMDs)
    /// below the boundary that nothing reads, the spares.
    After,
    /// 1.6 KB between each two old nodes and none after: every chunk below the
    /// boundary holds a live word, so there is no spare, and the old offsets get
    /// what is left of their own old pages, once these have moved.
    Between,
}

/// The old list at stack slot 0 (ids `0..OLD`, newest first), with garbage
/// allocated between its nodes and, with [`Garbage::After`], after it.
fn old_list(m: &mut Mutator, t: Types, garbage: Garbage) {
    m.push(None);
    let between = match garbage {
        Garbage::After => 3,
        Garbage::Between => 40,
    };
    for id in 0..OLD {
        for _ in 0..between {
            m.alloc_push(t.node, 0).unwrap();
            m.pop();
        }
        node(m, t, id);
        let n = m.pop().unwrap();
        m.write_ref(n, 0, m.stack_get(0));
        m.stack_set(0, Some(n));
    }
    if let Garbage::Between = garbage {
        return;
    }
    // 8 MB of garbage after it: whole chunks (PMDs) of from-space that nothing
    // reads, below the boundary, the spares for the black region's old offsets
    // (the first chunk, with the list, is not one).
    for _ in 0..200_000 {
        m.alloc_push(t.node, 0).unwrap();
        m.pop();
    }
}

/// The black list at stack slot 1: node `id` (from `1_000_000`) holds the one
/// made before it in field 0 and old node `id % OLD` in field 1; every
/// [`ARRAY_EVERY`] nodes, a reference array whose element `i` is the node made
/// `i` nodes before it (or old node `i % OLD` where there is none) is pushed
/// too, and kept on the stack.
fn black_list(m: &mut Mutator, t: Types) {
    let mut olds = list_globals(m, 0);
    olds.reverse(); // olds[id] is old node id
    m.push(None);
    for k in 0..BLACK {
        let id = 1_000_000 + k;
        node(m, t, id);
        let n = m.pop().unwrap();
        m.write_ref(n, 0, m.stack_get(1));
        m.write_ref(n, 1, Some(m.get_global(&olds[(id % OLD) as usize])));
        m.stack_set(1, Some(n));
        if k % ARRAY_EVERY == ARRAY_EVERY - 1 {
            m.alloc_push(t.arr, ARRAY_LEN).unwrap();
            let a = m.stack_get(m.stack_len() - 1).unwrap();
            let mut cur = m.stack_get(1);
            for i in 0..ARRAY_LEN {
                let v = match cur {
                    Some(c) => Some(c),
                    None => Some(m.get_global(&olds[i % OLD as usize])),
                };
                m.write_ref(a, i, v);
                cur = cur.and_then(|c| m.read_ref(c, 0));
            }
        }
    }
}

/// Checks `count` black nodes from the newest down (all of them for
/// `BLACK`, then with every array on the stack above slot 1), and with `old`
/// their old referents too.
fn check_black(m: &Mutator, count: u64, old: bool) {
    let mut cur = m.stack_get(1);
    let mut want = 1_000_000 + BLACK;
    for _ in 0..count {
        let c = cur.expect("the black list is short");
        want -= 1;
        assert_eq!(m.read_word(c, 2), want, "black node {want}");
        assert_eq!(m.read_word(c, 3), want * 7, "black node {want}");
        let referent = m.read_ref(c, 1).expect("old referent");
        if old {
            let id = m.read_word(referent, 2);
            assert_eq!(id, want % OLD, "black node {want}'s old referent");
        }
        cur = m.read_ref(c, 0);
    }
    if count < BLACK {
        return;
    }
    assert!(cur.is_none(), "the black list is long");
    let arrays = m.stack_len() - 2;
    assert_eq!(arrays as u64, BLACK / ARRAY_EVERY);
    for j in 0..arrays {
        let a = m.stack_get(2 + j).unwrap();
        // Made after node ARRAY_EVERY * (j + 1) - 1: element i is the node i
        // before that one, or old node i % OLD.
        let newest = 1_000_000 + ARRAY_EVERY * (j as u64 + 1) - 1;
        for i in 0..ARRAY_LEN {
            let e = m.read_ref(a, i).expect("array element");
            let want = match newest.checked_sub(i as u64) {
                Some(id) if id >= 1_000_000 => id,
                _ => i as u64 % OLD,
            };
            assert_eq!(m.read_word(e, 2), want, "array {j} element {i}");
        }
    }
}

fn check_old(m: &Mutator) {
    let mut cur = m.stack_get(0);
    let mut want = OLD;
    while let Some(c) = cur {
        want -= 1;
        assert_eq!(m.read_word(c, 2), want, "old node {want}");
        assert_eq!(m.read_word(c, 3), want * 7, "old node {want}");
        cur = m.read_ref(c, 0);
    }
    assert_eq!(want, 0, "the old list is short");
}

fn black_region_moved(fault: FaultMode, garbage: Garbage) {
    let mut r = TypeRegistry::new();
    let t = Types {
        node: r.fixed("node", 4, &[0, 1]).unwrap(),
        arr: r.ref_array("arr").unwrap(),
    };
    // The first cycle's plan waits until the black list is made.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let (go_tx, done_rx) = (Mutex::new(go_tx), Mutex::new(done_rx));
    let hook = move |p: CyclePoint| {
        if p == CyclePoint::Planning && go_tx.lock().unwrap().send(()).is_ok() {
            let _ = done_rx
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(60));
        }
    };
    let gate: Gate = Arc::new((Mutex::new(false), Condvar::new()));
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.verify_after_gc = true;
    cfg.fault_mode = fault;
    cfg.fill_hook = Some(held_fill(&gate));
    cfg.cycle_hook = Some(CycleHook(Arc::new(hook)));
    let Some(heap) = compaction_heap(cfg, r) else {
        return;
    };
    let (ready_tx, ready_rx) = mpsc::channel::<()>();
    let (flipped_tx, flipped_rx) = mpsc::channel::<()>();
    let b = {
        let (heap, gate) = (heap.clone(), Arc::clone(&gate));
        std::thread::spawn(move || {
            let mut m = heap.bind_mutator().unwrap();
            old_list(&mut m, t, garbage);
            ready_tx.send(()).unwrap();
            m.blocking(move || go_rx.recv().unwrap());
            black_list(&mut m, t);
            drop(done_tx); // the plan goes on
            m.blocking(move || flipped_rx.recv().unwrap());
            // The fill is held: these reads fault, and the faults produce the
            // newest third of the black pages, ahead of the black pass. Not the
            // old nodes' pages: the fill produces those after the black pass, which
            // has then moved spare chunks of from-space (a wrong spare, one with
            // old nodes, reads as zeros then).
            check_black(&m, BLACK / 3, false);
            open(&gate);
            // Racing the black pass for the rest.
            check_black(&m, BLACK, false);
            m.blocking(|| heap.wait_idle());
            check_black(&m, BLACK, true);
            check_old(&m);
            m.verify().unwrap();
        })
    };
    let mut m = heap.bind_mutator().unwrap();
    m.blocking(move || ready_rx.recv().unwrap());
    m.collect();
    flipped_tx.send(()).unwrap();
    m.blocking(move || b.join())
        .expect("the black list survived");
    let log = heap.pause_log();
    let c = log.compactions();
    eprintln!("{fault:?}, garbage {garbage:?}: compactions (ns, pages, moved) {c:?}");
    assert_eq!(c.len(), 1);
    if flipgc_heap::Capabilities::probe().userfaultfd.has("MOVE") {
        // Garbage lies at the base, so nothing is dense: what moved is black.
        // About 1,100 pages of black objects, a third produced by the faults.
        assert!(c[0].2 > 300, "black pages moved: {c:?}");
    }
}

#[test]
fn black_pages_move_in_place_and_keep_their_graph_sigbus() {
    black_region_moved(FaultMode::Sigbus, Garbage::After);
}

#[test]
fn black_pages_move_in_place_and_keep_their_graph_server() {
    black_region_moved(FaultMode::Server, Garbage::After);
}

#[test]
fn black_pages_keep_their_graph_without_spare_chunks() {
    black_region_moved(FaultMode::Sigbus, Garbage::Between);
}
