//! Frames: the compaction's own thread produces compacted pages into from-space
//! pages that page filling has finished reading, and moves them into to-space
//! (`compaction/frames.rs`). The heaps here are nearly all live, with a dead node
//! just below each new list, so every page slides down by a few words only: the
//! frames a page may take end right below the page its own first object starts
//! on, and a frame taken one page early is a page still to be read (the
//! compaction checks that after producing each page, and ends the process).
//! Each test checks the lists by contents and the heap verifier, in both fault
//! modes, and that most compacted pages were moved rather than copied. Skipped
//! (with a message) where the host has no userfaultfd.

use common::{compaction_heap, held_fill, open, push_list, Gate};
use flipgc_core::{FaultMode, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::{Arc, Condvar, Mutex};

mod common;

/// A heap whose background fill waits (up to 10 s) while `gate` is closed; its
/// node type (fields 0 and 1 references, 2 and 3 words: 40 bytes, so nodes
/// cross page ends) and a byte array type. `None` without userfaultfd.
fn heap(fault: FaultMode, gate: &Gate) -> Option<(Heap, TypeId, TypeId)> {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 4, &[0, 1]).unwrap();
    let bytes = r.byte_array("bytes").unwrap();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.verify_after_gc = true;
    cfg.fault_mode = fault;
    cfg.fill_hook = Some(held_fill(gate));
    Some((compaction_heap(cfg, r)?, node, bytes))
}

/// The list at stack slot `at`, newest first: its ids, each node's words checked.
fn walk(m: &Mutator, at: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cur = m.stack_get(at);
    while let Some(c) = cur {
        let id = m.read_word(c, 2);
        assert_eq!(m.read_word(c, 3), id * 7, "node {id} corrupted");
        out.push(id);
        cur = m.read_ref(c, 0);
    }
    out
}

/// Every list on the root stack.
fn lists(m: &Mutator) -> Vec<Vec<u64>> {
    (0..m.stack_len()).map(|at| walk(m, at)).collect()
}

/// Three rounds, each a dead object and then a list of 100,000 nodes (4 MB),
/// collected: the earlier lists lie at the base by then (the dense prefix) and
/// the new one slides down by the dead object. The dead object is 3 words, not a
/// node's 5, so that a page whose sources were overwritten early reads a node's
/// payload where a header was (with the dead object a node, the word a node
/// further up is a header of the same type, and such a page came out right).
/// In the last round the fill is held
/// while this mutator reads the newest 2,000 nodes (the top pages: its faults
/// produce them first, into buffers, far above the fill's low-water mark).
fn nearly_all_live(fault: FaultMode) {
    let gate = Arc::new((Mutex::new(true), Condvar::new()));
    let Some((heap, node, bytes)) = heap(fault, &gate) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    for round in 0..3u64 {
        m.alloc_push(bytes, 16).unwrap();
        m.pop(); // dead
        push_list(&mut m, node, (round * 1_000_000, 100_000), (2, 3), 7);
        let before = lists(&m);
        let held = round == 2;
        if held {
            *gate.0.lock().unwrap() = false;
        }
        m.collect();
        if held {
            let mut cur = m.stack_get(m.stack_len() - 1);
            for _ in 0..2_000 {
                cur = m.read_ref(cur.unwrap(), 0);
            }
            open(&gate);
        }
        m.blocking(|| heap.wait_idle());
        assert_eq!(lists(&m), before, "{fault:?}, round {round}");
        m.verify().unwrap();
    }
    let log = heap.pause_log();
    let c: Vec<(u64, usize, usize)> = log.compactions().iter().copied().collect();
    eprintln!("{fault:?}: compactions (ns, pages, moved) {c:?}");
    assert_eq!(c.len(), 3);
    if flipgc_heap::Capabilities::probe().userfaultfd.has("MOVE") {
        // No dense prefix and no black page in the first round: what moved was
        // produced into frames. Every page but the first few (whose sources
        // start on the first page: nothing is read yet there) can take one.
        assert!(c[0].2 * 10 >= c[0].1 * 9, "few pages framed: {c:?}");
        assert!(
            c.iter().all(|c| c.2 * 10 >= c.1 * 9),
            "few pages moved: {c:?}"
        );
    }
}

#[test]
fn nearly_all_live_pages_compact_into_frames_sigbus() {
    nearly_all_live(FaultMode::Sigbus);
}

#[test]
fn nearly_all_live_pages_compact_into_frames_server() {
    nearly_all_live(FaultMode::Server);
}
