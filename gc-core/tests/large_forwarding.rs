//! Lazy forwarding of the large objects' reference fields (`collect/large.rs`): a
//! concurrent cycle's flip pause leaves them pending, and the first thread to touch
//! each after the pause forwards it. The GC driver is held at
//! `CyclePoint::Compacting` (after the flip pause, before the compaction's own
//! forwarding pass), so every large object is still pending when the mutator, or
//! the verifier, touches it. The nodes the arrays refer to all move (garbage lies
//! below each), and each is checked by its contents.
//! Skipped (with a message) where the host has no userfaultfd.

use flipgc_core::{CycleHook, CyclePoint, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Elements per array: 80,000 bytes, over the 64 KiB large-object threshold.
const N: usize = 10_000;

/// Holds the driver at `Compacting` until released: (reached, released).
type Gate = Arc<(Mutex<(bool, bool)>, Condvar)>;

struct Setup {
    heap: Heap,
    node: TypeId,
    array: TypeId,
    gate: Gate,
}

/// A heap whose driver waits at `CyclePoint::Compacting` (at most 10 s) until the
/// gate opens. Types: a node of two word fields, and a reference array.
fn setup() -> Option<Setup> {
    let gate: Gate = Arc::new((Mutex::new((false, false)), Condvar::new()));
    let g = Arc::clone(&gate);
    let hook = move |p: CyclePoint| {
        if p == CyclePoint::Compacting {
            let (lock, cv) = &*g;
            let mut s = lock.lock().unwrap();
            s.0 = true;
            cv.notify_all();
            let _ = cv
                .wait_timeout_while(s, Duration::from_secs(10), |s| !s.1)
                .unwrap();
        }
    };
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 2, &[]).unwrap();
    let array = r.ref_array("array").unwrap();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.cycle_hook = Some(CycleHook(Arc::new(hook)));
    cfg.concurrent_workers = 1;
    cfg.verify_after_gc = true;
    let heap = Heap::new(cfg, r).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return None;
    }
    Some(Setup {
        heap,
        node,
        array,
        gate,
    })
}

/// Waits (counted as stopped) until the driver is held at `Compacting`.
fn wait_held(m: &mut Mutator, gate: &Gate) {
    let held = m.blocking(|| {
        let (lock, cv) = &**gate;
        let s = lock.lock().unwrap();
        cv.wait_timeout_while(s, Duration::from_secs(10), |s| !s.0)
            .unwrap()
            .0
             .0
    });
    assert!(held, "the driver did not reach the compaction");
}

fn release(gate: &Gate) {
    let (lock, cv) = &**gate;
    lock.lock().unwrap().1 = true;
    cv.notify_all();
}

/// Pushes a large reference array whose element `i` is a node holding
/// (`first + i`, 7 * (`first + i`)); a garbage node lies below each node, so that
/// the collection moves every one of them.
fn push_array(m: &mut Mutator, s: &Setup, first: u64) {
    m.alloc_push(s.array, N).unwrap();
    let at = m.stack_len() - 1;
    for i in 0..N {
        m.alloc_push(s.node, 0).unwrap();
        m.pop();
        m.alloc_push(s.node, 0).unwrap();
        let n = m.pop().unwrap();
        let id = first + i as u64;
        m.write_word(n, 0, id);
        m.write_word(n, 1, 7 * id);
        let a = m.stack_get(at).unwrap();
        m.write_ref(a, i, Some(n));
    }
}

/// The array at stack slot `at`: element addresses, after checking every element's
/// contents (ids from `first`).
fn check_array(m: &Mutator, at: usize, first: u64) -> Vec<usize> {
    let a = m.stack_get(at).unwrap();
    (0..N)
        .map(|i| {
            let n = m
                .read_ref(a, i)
                .unwrap_or_else(|| panic!("element {i} is null"));
            let id = first + i as u64;
            let got = (m.read_word(n, 0), m.read_word(n, 1));
            assert_eq!(got, (id, 7 * id), "element {i} at {:#x}", n.addr());
            n.addr()
        })
        .collect()
}

/// A mutator reads every element of a pending large array (each read forwards the
/// array first), and its first access to a second pending array is a store, which
/// must not be forwarded again later. Fails with `Mutator::accessible` not
/// forwarding: the reads return the nodes' old addresses (other objects' memory
/// after compaction), and the stored new address is "forwarded" by the compaction.
#[test]
fn a_mutator_forwards_a_pending_large_object_before_touching_it() {
    let Some(s) = setup() else { return };
    let mut m = s.heap.bind_mutator().unwrap();
    push_array(&mut m, &s, 0);
    push_array(&mut m, &s, 1_000_000);
    let before = check_array(&m, 0, 0);
    m.collect();
    wait_held(&mut m, &s.gate);

    // Held before the compaction's forwarding pass: both arrays are pending.
    let after = check_array(&m, 0, 0);
    let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count();
    assert_eq!(moved, N, "every node moved");
    // The second array's first access is a store of a node made after the flip.
    m.alloc_push(s.node, 0).unwrap();
    let fresh = m.pop().unwrap();
    m.write_word(fresh, 0, 42);
    let fresh_addr = fresh.addr();
    let b = m.stack_get(1).unwrap();
    m.write_ref(b, 0, Some(fresh));

    release(&s.gate);
    m.blocking(|| s.heap.wait_idle());
    let b = m.stack_get(1).unwrap();
    let first = m.read_ref(b, 0).unwrap();
    assert_eq!(
        (first.addr(), m.read_word(first, 0)),
        (fresh_addr, 42),
        "the node stored after the flip"
    );
    for i in 1..N {
        let n = m.read_ref(b, i).unwrap();
        let id = 1_000_000 + i as u64;
        assert_eq!((m.read_word(n, 0), m.read_word(n, 1)), (id, 7 * id));
    }
    m.verify().unwrap();
}

/// The verifier, run by a mutator while the driver is held (every large object
/// pending), forwards what is pending before it walks: it passes, and so does every
/// check after. Fails with the verifier's forwarding pass left out (a large
/// object's field points at an old address).
#[test]
fn the_verifier_forwards_pending_large_objects_first() {
    let Some(s) = setup() else { return };
    let mut m = s.heap.bind_mutator().unwrap();
    push_array(&mut m, &s, 0);
    m.collect();
    wait_held(&mut m, &s.gate);
    let report = m.verify();
    release(&s.gate);
    let report = report.expect("the heap verifies during the compaction");
    assert_eq!(report.large_objects, 1);
    m.blocking(|| s.heap.wait_idle());
    check_array(&m, 0, 0);
}
