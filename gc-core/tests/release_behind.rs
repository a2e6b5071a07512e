//! Concurrent compaction frees from-space's unread pages below to-space early
//! (`Compaction::release_unread_below`): 64 MiB of garbage, then a 32 MiB live
//! list, so that the list compacts down onto the garbage's offsets. With the
//! background fill held back before its first page, the process's resident set
//! must already be smaller by most of the garbage under the compacted list
//! (before, those pages stayed until the compaction's end, beside the fresh
//! to-space pages); then the fill goes on and the list must read back whole. One
//! test in this file, so no other test's heap shares the process while it
//! measures.

mod common;

use flipgc_core::{HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::{Arc, Condvar, Mutex};

const MIB: usize = 1 << 20;
/// Bytes of one node: a header word and four fields.
const NODE: usize = 40;

/// The process's resident set (bytes), from `/proc/self/statm`.
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = s.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * flipgc_heap::Capabilities::probe().geometry.page
}

/// Walks the list at root stack slot `at`: its length, every node checked.
fn walk(m: &Mutator, at: usize) -> u64 {
    let mut cur = m.stack_get(at);
    let mut n = 0u64;
    while let Some(c) = cur {
        let (id, w) = (m.read_word(c, 2), m.read_word(c, 3));
        assert_eq!((id, w), (n, n * 3), "node {n} corrupted");
        n += 1;
        cur = m.read_ref(c, 0);
    }
    n
}

/// A list of `n` nodes at a new root slot, head first in address order.
fn build_list(m: &mut Mutator, node: TypeId, n: u64) -> usize {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in (0..n).rev() {
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        m.write_word(new, 2, id);
        m.write_word(new, 3, id * 3);
        m.write_ref(new, 0, m.stack_get(at));
        m.stack_set(at, Some(new));
    }
    at
}

#[test]
fn unread_from_space_below_to_space_is_released_before_the_fill() {
    let gate: common::Gate = Arc::new((Mutex::new(false), Condvar::new()));
    // Tells the test the background fill is about to claim its first run.
    let reached = Arc::new((Mutex::new(false), Condvar::new()));
    let hold = common::held_fill(&gate);
    let seen = Arc::clone(&reached);
    let hook = flipgc_core::FillHook(Arc::new(move |a, b, claimed| {
        if !claimed {
            *seen.0.lock().unwrap() = true;
            seen.1.notify_all();
        }
        (hold.0)(a, b, claimed)
    }));
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 4, &[0, 1]).unwrap();
    // Large enough that the pacer starts no cycle of its own while the test
    // allocates: the layout below must be the one the collection sees.
    let mut cfg = HeapConfig::new(1 << 30);
    cfg.fill_hook = Some(hook);
    cfg.concurrent_workers = 1;
    cfg.verify_after_gc = true;
    let Some(heap) = common::compaction_heap(cfg, r) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    let (garbage, live) = (64 * MIB, 32 * MIB);
    for i in 0..(garbage / NODE) as u64 {
        m.alloc_push(node, 0).unwrap();
        let g = m.pop().unwrap();
        m.write_word(g, 2, i | 1);
    }
    let n = (live / NODE) as u64;
    let at = build_list(&mut m, node, n);
    let before = rss();
    m.collect();
    let reached_fill = m.blocking(|| {
        let (lock, cv) = &*reached;
        let g = lock.lock().unwrap();
        let limit = std::time::Duration::from_secs(10);
        *cv.wait_timeout_while(g, limit, |r| !*r).unwrap().0
    });
    assert!(reached_fill, "the background fill did not start");
    let held = rss();
    common::open(&gate);
    // The list's 32 MiB compact onto the first 32 MiB of from-space, all garbage:
    // released, they take the resident set below where it was before the cycle,
    // whatever the side tables added meanwhile (a few MiB at most here).
    assert!(
        held + live / 2 <= before,
        "resident set {} MiB with the fill held, {} MiB before the cycle: from-space's \
         garbage under to-space was not released",
        held / MIB,
        before / MIB
    );
    m.collect();
    assert_eq!(walk(&m, at), n);
}
