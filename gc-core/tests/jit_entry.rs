//! The entry points for generated code (`src/jit.rs`), one test (or a few) each:
//! - the safepoint poll's word and slow path: a loop that reads only the poll word
//!   lets collections requested by another thread stop it, and its handles survive;
//! - the write barrier's flag and slow path: "generated" stores through raw field
//!   addresses, during a concurrent marking held open, keep an object the snapshot
//!   reached only through an overwritten field;
//! - `compare_exchange_ref` (by descriptor and by index): its results, and a stress
//!   test of threads exchanging objects among shared arrays and cells while full
//!   cycles run, checked by the sanity re-trace of every cycle, the verifier and a
//!   checksum; and a model of the exchange with its barrier, checked by exhaustive
//!   exploration of its interleavings;
//! - `swap_ref` and `copy_refs`: results, overlap both ways, bounds panics, and
//!   the barrier under marking.
//!
//! Tests whose failure is a lost object run their body in a child process: with
//! the heap verifying after every cycle, the sanity re-trace at the end of marking
//! ends the process when it finds a reachable object unmarked, and the parent
//! reports that with the child's stderr.

mod common;
#[path = "common/timeout.rs"]
mod timeout;

use flipgc_core::{
    flipgc_prepare_object, flipgc_safepoint_slow, flipgc_weak_read_barrier_slow,
    flipgc_weak_write_barrier_slow, flipgc_write_barrier_slow, CycleHook, CyclePoint, FixedType,
    Global, Heap, HeapConfig, Mutator, RefField, TypeId, TypeRegistry, Value,
};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

// ---- shared setup ----

struct Types {
    /// `node`: field 0 a reference (`next`), fields 1 and 2 words (id, 3 * id).
    node: TypeId,
    node_fixed: FixedType,
    next: RefField,
    /// `cell`: field 0 a reference (`val`), field 1 a word.
    cell: TypeId,
    val: RefField,
    /// `weakcell`: field 0 a weak reference.
    weakcell: TypeId,
    weak_val: RefField,
    arr: TypeId,
    bytes: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0]).unwrap();
    let cell = r.fixed("cell", 2, &[0]).unwrap();
    let weakcell = r.fixed_weak("weakcell", 1, &[], &[0]).unwrap();
    let t = Types {
        node,
        node_fixed: r.fixed_type(node).unwrap(),
        next: r.ref_field(node, 0).unwrap(),
        cell,
        val: r.ref_field(cell, 0).unwrap(),
        weakcell,
        weak_val: r.ref_field(weakcell, 0).unwrap(),
        arr: r.ref_array("arr").unwrap(),
        bytes: r.byte_array("bytes").unwrap(),
    };
    (r, t)
}

fn heap_with(f: impl FnOnce(&mut HeapConfig)) -> (Heap, Types) {
    let (r, t) = registry();
    let mut cfg = HeapConfig::new(16 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 1;
    cfg.verify_after_gc = true;
    f(&mut cfg);
    (Heap::new(cfg, r).unwrap(), t)
}

/// Allocates a node labelled `id` (words 1 and 2: `id`, `3 * id`) and pushes it.
fn push_node(m: &mut Mutator, t: &Types, id: u64) {
    m.alloc_push(t.node, 0).unwrap();
    let n = m.stack_get(m.stack_len() - 1).unwrap();
    m.write_word(n, 1, id);
    m.write_word(n, 2, 3 * id);
}

/// Length and checksum of the chain of nodes from `head` through `next`; panics
/// on a node whose words disagree (a freed or overwritten object).
fn chain_sum(m: &Mutator, head: Option<flipgc_core::Gc<'_>>) -> (u64, u64) {
    let (mut n, mut sum) = (0u64, 0u64);
    let mut cur = head;
    while let Some(c) = cur {
        let (id, w) = (m.read_word(c, 1), m.read_word(c, 2));
        assert_eq!(w, 3 * id, "node {id} corrupted");
        sum = sum.wrapping_mul(31).wrapping_add(id);
        n += 1;
        cur = m.read_ref(c, 0);
    }
    (n, sum)
}

/// Pushes a chain of `n` nodes with ids `first..first + n` (the first id at the
/// head) and returns nothing: the head is on top of the stack.
fn push_chain(m: &mut Mutator, t: &Types, first: u64, n: u64) {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in (first..first + n).rev() {
        push_node(m, t, id);
        let new = m.pop().unwrap();
        m.write_ref(new, 0, m.stack_get(at));
        m.stack_set(at, Some(new));
    }
}

/// Runs `body` in a child process (this test binary, running only `test`) and
/// fails with the child's stderr unless it succeeds within 120 s. In the child,
/// runs `body`.
fn in_child(test: &str, body: impl FnOnce()) {
    if std::env::var("FLIPGC_JIT_CHILD").as_deref() == Ok(test) {
        body();
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("FLIPGC_JIT_CHILD", test)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = reader.join().unwrap();
    match status {
        Some(s) if s.success() => eprint!("{err}"),
        Some(s) => panic!("the child failed ({s}):\n{err}"),
        None => panic!("the child hung (killed after 120 s):\n{err}"),
    }
}

/// Runs `mutate` while the first concurrent cycle's marking is held open before
/// any marker runs (the barrier on), with the heap's roots as `setup` left them;
/// then finishes that cycle and runs one more, and returns the mutator.
fn during_marking(
    heap: &Heap,
    go: mpsc::Receiver<()>,
    done: mpsc::Sender<()>,
    m: &mut Mutator,
    mutate: impl FnOnce(&mut Mutator),
) {
    let requester = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
    };
    m.blocking(move || go.recv_timeout(Duration::from_secs(60)).unwrap());
    assert!(m.barrier_active(), "the barrier is on while marking");
    mutate(m);
    done.send(()).unwrap();
    m.blocking(move || requester.join().unwrap());
    m.collect();
}

// ---- the safepoint poll ----

/// A loop that polls only the poll word, calling the slow path when it is set,
/// lets another thread's collections stop it (they complete: no deadlock within
/// 60 s), and the references it holds in its roots survive them, moved.
#[test]
fn a_loop_polling_the_poll_word_lets_collections_stop_it() {
    timeout::with_timeout("poll-loop", || {
        let (heap, t) = heap_with(|_| {});
        let mut m = heap.bind_mutator().unwrap();
        // Garbage first, so that the live chain moves down when compacted.
        for _ in 0..20_000 {
            drop(m.alloc_fixed(t.node_fixed).unwrap());
        }
        push_chain(&mut m, &t, 1, 2_000);
        let head = m.root(m.stack_get(0).unwrap());
        let before = chain_sum(&m, Some(m.get(&head)));
        let addr_before = m.get(&head).addr();
        let cycles_before = heap.pause_log().collections();

        let done = Arc::new(AtomicBool::new(false));
        let requester = {
            let (heap, done) = (heap.clone(), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut other = heap.bind_mutator().unwrap();
                for _ in 0..3 {
                    other.collect();
                }
                done.store(true, Ordering::Release);
            })
        };

        // The "generated code": no GC point but the slow path, called only when
        // the poll byte is set.
        let poll = m.safepoint_poll_addr();
        let mp: *mut Mutator = &mut m;
        let mut slow_calls = 0u64;
        while !done.load(Ordering::Acquire) {
            // SAFETY: the poll word's address is valid while the mutator lives;
            // it is an atomic byte, read here with a relaxed load.
            let set = unsafe { (*poll.cast::<AtomicU8>()).load(Ordering::Relaxed) } != 0;
            if set {
                slow_calls += 1;
                // SAFETY: `mp` is this thread's live mutator, not otherwise
                // borrowed during the call; no unrooted reference is held.
                unsafe { flipgc_safepoint_slow(mp) };
            }
            std::hint::spin_loop();
        }
        requester.join().unwrap();

        assert!(slow_calls > 0, "the loop never took the slow path");
        assert!(heap.pause_log().collections() >= cycles_before + 3);
        assert_eq!(chain_sum(&m, Some(m.get(&head))), before);
        assert_ne!(m.get(&head).addr(), addr_before, "the chain was moved");
        m.verify().expect("the heap verifies");
        eprintln!(
            "poll loop: {slow_calls} slow-path calls, {} collections",
            heap.pause_log().collections() - cycles_before
        );
    });
}

// ---- the write barrier's flag and slow path ----

/// A "generated" reference store: the flag test, the slow path with the field's
/// address when it is set, then a release store.
///
/// # Safety
/// `mp` is this thread's live mutator; `slot` a strong reference field of a live
/// object of its heap; `value` 0 or an object of its heap.
unsafe fn generated_store(mp: *const Mutator, slot: usize, value: usize) {
    // SAFETY: the flag byte lives in the mutator (the caller's contract), at this
    // offset; only this thread writes it, inside GC points.
    let flag = unsafe { mp.cast::<u8>().add(Mutator::BARRIER_FLAG_OFFSET) };
    // SAFETY: as above.
    if unsafe { flag.read() } != 0 {
        // SAFETY: the caller's contract.
        unsafe { flipgc_write_barrier_slow(mp, slot) };
    }
    // SAFETY: `slot` is an aligned heap word (the caller's contract).
    unsafe { AtomicU64::from_ptr(slot as *mut u64) }.store(value as u64, Ordering::Release);
}

/// The lost-object schedule through "generated" stores: in the snapshot, a chain
/// X is reachable only through B's `next` field. While marking (before any marker
/// ran), the generated code copies X into a new, black object A and then
/// overwrites B's field. Only the slow path's log of the overwritten field keeps
/// X; without it the sanity re-trace finds X reachable and unmarked.
#[test]
fn generated_stores_with_the_barrier_slow_path_keep_the_snapshot() {
    in_child(
        "generated_stores_with_the_barrier_slow_path_keep_the_snapshot",
        || {
            let (hook, go, done) = common::hold_marking();
            let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
            let mut m = heap.bind_mutator().unwrap();
            push_node(&mut m, &t, 1_000_000); // B, stack slot 0
            push_chain(&mut m, &t, 1, 500); // X, stack slot 1
            let b = m.stack_get(0).unwrap();
            m.set_ref(b, t.next, m.stack_get(1));
            let want = chain_sum(&m, m.stack_get(1));
            m.stack_truncate(1); // X hangs from B alone

            let flag = m.barrier_flag_addr() as usize;
            assert_eq!(
                flag,
                &m as *const Mutator as usize + Mutator::BARRIER_FLAG_OFFSET
            );
            during_marking(&heap, go, done, &mut m, |m| {
                // SAFETY: the flag byte of the live mutator.
                let set = unsafe { (m.barrier_flag_addr()).read() };
                assert_eq!(set, 1, "the flag is set while marking");
                push_node(m, &t, 2_000_000); // A: allocated while marking (black)
                let a = m.stack_get(1).unwrap();
                let b = m.stack_get(0).unwrap();
                let x = m.get_ref(b, t.next).unwrap();
                let (a_next, b_next) = (a.addr() + 8, b.addr() + 8);
                // SAFETY: field 0 of live nodes of this heap; `x` is an object of it.
                unsafe {
                    generated_store(m, a_next, x.addr());
                    generated_store(m, b_next, 0);
                }
            });
            let a = m.stack_get(1).unwrap();
            assert_eq!(m.get_ref(m.stack_get(0).unwrap(), t.next), None);
            assert_eq!(
                chain_sum(&m, m.get_ref(a, t.next)),
                want,
                "X survived whole"
            );
            m.verify().expect("the heap verifies");
        },
    );
}

/// The slow path with the barrier off (no marking) logs nothing and the store
/// goes on: the same stores, no cycle.
#[test]
fn the_barrier_flag_is_clear_outside_marking() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, &t, 1);
    push_node(&mut m, &t, 2);
    let flag = m.barrier_flag_addr();
    // SAFETY: the flag byte of the live mutator.
    assert_eq!(unsafe { flag.read() }, 0);
    let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    // SAFETY: field 0 of a live node; `b` is of this heap.
    unsafe { generated_store(&m, a.addr() + 8, b.addr()) };
    assert_eq!(m.get_ref(a, t.next), Some(b));
    m.collect();
    assert_eq!(chain_sum(&m, m.stack_get(0)).0, 2);
}

/// The weak-reference barrier's schedule through "generated" code: in the
/// snapshot, a chain Y is reachable only through Z's weak field. While marking,
/// the generated code loads Z's weak field (acquire, then the weak-read slow path
/// since the flag is set) and stores Y strongly into a new, black object A, and
/// weakly (the weak-store slow path with the holder) into a new weak cell W. Only
/// the weak read's log keeps Y; without it the sanity re-trace finds Y reachable
/// through A and unmarked.
#[test]
fn generated_weak_loads_and_stores_take_their_slow_paths() {
    in_child(
        "generated_weak_loads_and_stores_take_their_slow_paths",
        || {
            let (hook, go, done) = common::hold_marking();
            let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
            let mut m = heap.bind_mutator().unwrap();
            m.alloc_push(t.weakcell, 0).unwrap(); // Z, stack slot 0
            push_chain(&mut m, &t, 1, 400); // Y, stack slot 1
            let want = chain_sum(&m, m.stack_get(1));
            let z = m.stack_get(0).unwrap();
            m.set_ref(z, t.weak_val, m.stack_get(1));
            m.stack_truncate(1); // Y is weakly reachable only
            during_marking(&heap, go, done, &mut m, |m| {
                m.alloc_push(t.cell, 0).unwrap(); // A (black), slot 1
                m.alloc_push(t.weakcell, 0).unwrap(); // W (black), slot 2
                let (z, a, w) = (
                    m.stack_get(0).unwrap(),
                    m.stack_get(1).unwrap(),
                    m.stack_get(2).unwrap(),
                );
                let mp: *const Mutator = m;
                // SAFETY: the flag byte of the live mutator, at its offset.
                let flag = unsafe { mp.cast::<u8>().add(Mutator::BARRIER_FLAG_OFFSET).read() };
                assert_eq!(flag, 1);
                // The weak load.
                // SAFETY: Z's field 0, an aligned word of a live object.
                let y = unsafe { AtomicU64::from_ptr((z.addr() + 8) as *mut u64) }
                    .load(Ordering::Acquire) as usize;
                assert_ne!(y, 0, "Y is still there");
                // SAFETY: this thread's mutator; `y` was just loaded from a weak
                // field of a live object of its heap.
                unsafe { flipgc_weak_read_barrier_slow(mp, y) };
                // The strong store into A (the barrier logs A's old null).
                // SAFETY: A's field 0; `y` is an object of this heap.
                unsafe { generated_store(mp, a.addr() + 8, y) };
                // The weak store into W: the holder noted, then the release store.
                // SAFETY: W is a live object of this heap with a weak field 0.
                unsafe {
                    flipgc_weak_write_barrier_slow(mp, w.addr());
                    AtomicU64::from_ptr((w.addr() + 8) as *mut u64)
                        .store(y as u64, Ordering::Release);
                }
            });
            let (a, w) = (m.stack_get(1).unwrap(), m.stack_get(2).unwrap());
            let y = m.get_ref(a, t.val);
            assert_eq!(chain_sum(&m, y), want, "Y survived whole");
            assert_eq!(m.get_ref(w, t.weak_val), y, "W's weak field kept Y");
            m.verify().expect("the heap verifies");
        },
    );
}

/// `flipgc_prepare_object` forwards a large object whose fields still hold the
/// old addresses after a concurrent flip pause: the driver is held right after
/// the flip (before the compaction forwards the large objects itself), and the
/// "generated" code reads a pinned object's reference field through its address
/// after the call. Without the call it reads the moved node's old address.
/// Skipped (with a message) where the host has no userfaultfd: the flip pause
/// then forwards large objects itself.
#[test]
fn prepare_object_makes_a_large_object_current_for_generated_code() {
    timeout::with_timeout("prepare-object", || {
        let gate = common::CycleGate::default();
        let g = gate.clone();
        let (heap, t) = heap_with(move |c| {
            c.cycle_hook = Some(CycleHook(Arc::new(move |p| {
                g.hold(CyclePoint::Compacting, p)
            })));
        });
        if !heap.concurrent_compaction() {
            eprintln!("skipped: no userfaultfd here");
            return;
        }
        let mut m = heap.bind_mutator().unwrap();
        let p = m.alloc_pinned(t.cell, 0).unwrap();
        for _ in 0..20_000 {
            drop(m.alloc_fixed(t.node_fixed).unwrap());
        }
        push_node(&mut m, &t, 77);
        let n = m.root(m.stack_get(0).unwrap());
        m.set_ref(m.get(&p), t.val, Some(m.get(&n)));
        let old = m.get(&n).addr();

        let requester = {
            let heap = heap.clone();
            std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
        };
        assert!(
            gate.wait_held(&mut m),
            "the driver did not reach the compaction"
        );
        let now = m.get(&n).addr();
        assert_ne!(now, old, "the node moved");
        let pa = m.get(&p).addr();
        assert!(m.large_object_space().contains(&pa));
        let mp: *const Mutator = &m;
        // SAFETY: this thread's mutator; `pa` is read from a root since the last
        // GC point.
        let ready = unsafe { flipgc_prepare_object(mp, pa) };
        assert!(ready, "the pinned object is of this heap");
        // SAFETY: the cell's field 0, an aligned word of a live object.
        let v = unsafe { AtomicU64::from_ptr((pa + 8) as *mut u64) }.load(Ordering::Acquire);
        assert_eq!(
            v as usize, now,
            "the field holds the node's current address"
        );
        // SAFETY: as above; an address of no heap.
        assert!(!unsafe { flipgc_prepare_object(mp, 8) });
        gate.release();
        m.blocking(|| requester.join().unwrap());
        m.blocking(|| heap.wait_idle());
        assert_eq!(m.read_word(m.get_ref(m.get(&p), t.val).unwrap(), 1), 77);
        m.verify().expect("the heap verifies");
    });
}

// ---- compare_exchange_ref ----

#[test]
fn compare_exchange_ref_stores_only_over_the_expected_value() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, &t, 1);
    push_node(&mut m, &t, 2);
    m.alloc_push(t.cell, 0).unwrap();
    m.alloc_push(t.arr, 4).unwrap();
    let (x, y) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    let (cell, arr) = (m.stack_get(2).unwrap(), m.stack_get(3).unwrap());
    // By descriptor.
    assert_eq!(m.compare_exchange_ref(cell, t.val, None, Some(x)), Ok(None));
    assert_eq!(
        m.compare_exchange_ref(cell, t.val, None, Some(y)),
        Err(Some(x))
    );
    assert_eq!(
        m.compare_exchange_ref(cell, t.val, Some(x), Some(y)),
        Ok(Some(x))
    );
    assert_eq!(m.get_ref(cell, t.val), Some(y));
    assert_eq!(
        m.compare_exchange_ref(cell, t.val, Some(y), None),
        Ok(Some(y))
    );
    assert_eq!(m.get_ref(cell, t.val), None);
    // By index.
    assert_eq!(m.compare_exchange_ref_at(arr, 3, None, Some(x)), Ok(None));
    assert_eq!(
        m.compare_exchange_ref_at(arr, 3, Some(y), None),
        Err(Some(x))
    );
    assert_eq!(
        m.compare_exchange_ref_at(arr, 3, Some(x), Some(y)),
        Ok(Some(x))
    );
    assert_eq!(m.read_ref(arr, 3), Some(y));
    // A fixed object's strong field by index.
    assert_eq!(m.compare_exchange_ref_at(x, 0, None, Some(y)), Ok(None));
    assert_eq!(m.get_ref(x, t.next), Some(y));
    m.collect();
    m.verify().unwrap();
}

#[test]
#[should_panic(expected = "field of type \"cell\" used on")]
fn compare_exchange_ref_checks_the_descriptor() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, &t, 1);
    let n = m.stack_get(0).unwrap();
    let _ = m.compare_exchange_ref(n, t.val, None, None);
}

#[test]
#[should_panic(expected = "field 4 out of range: object has 4 payload words")]
fn compare_exchange_ref_at_checks_the_index() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 4).unwrap();
    let a = m.stack_get(0).unwrap();
    let _ = m.compare_exchange_ref_at(a, 4, None, None);
}

#[test]
#[should_panic(expected = "field 1 is not a reference field")]
fn compare_exchange_ref_at_refuses_a_word_field() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, &t, 1);
    let n = m.stack_get(0).unwrap();
    let _ = m.compare_exchange_ref_at(n, 1, None, None);
}

#[test]
#[should_panic(expected = "Mutator::compare_exchange_ref on a weak reference field")]
fn compare_exchange_ref_refuses_a_weak_field() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.weakcell, 0).unwrap();
    let w = m.stack_get(0).unwrap();
    let _ = m.compare_exchange_ref(w, t.weak_val, None, None);
}

#[test]
#[should_panic(expected = "does not belong to this heap")]
fn compare_exchange_ref_refuses_a_value_of_another_heap() {
    let (heap, t) = heap_with(|_| {});
    let (heap2, t2) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    let mut m2 = heap2.bind_mutator().unwrap();
    m.alloc_push(t.cell, 0).unwrap();
    m2.alloc_push(t2.node, 0).unwrap();
    let (cell, stranger) = (m.stack_get(0).unwrap(), m2.stack_get(0).unwrap());
    let _ = m.compare_exchange_ref(cell, t.val, None, Some(stranger));
}

/// Threads exchange the objects of shared arrays (by index) and cells (by
/// descriptor) with the one each holds in its root stack, with
/// `compare_exchange_ref`, while another thread runs full cycles back to back.
/// Each exchange that takes an object out of a slot the markers have not scanned
/// yet, into the root stack (scanned at the snapshot only), loses it unless the
/// exchange logged it: the sanity re-trace of every cycle (the heap verifies after
/// each) ends the process then. At the end: the verifier, and the multiset of
/// object ids over arrays, cells and hands as it was.
#[test]
fn compare_exchange_ref_under_concurrent_cycles() {
    in_child("compare_exchange_ref_under_concurrent_cycles", || {
        const THREADS: usize = 3;
        const ARRAYS: usize = 4;
        const SLOTS: usize = 1_500;
        const CELLS: usize = 1_500;
        const CYCLES: usize = 40;
        let (heap, t) = heap_with(|c| c.capacity = 32 << 20);
        let t = Arc::new(t);
        let mut m = heap.bind_mutator().unwrap();
        let mut next_id = 1u64;
        // Each object: a node and a small chain below it (`next`), so that a lost
        // one takes others with it.
        let mut make = |m: &mut Mutator| {
            push_chain(m, &t, next_id, 3);
            next_id += 3;
        };
        let mut globals: Vec<Global> = Vec::new();
        for _ in 0..ARRAYS {
            m.alloc_push(t.arr, SLOTS).unwrap();
            for i in 0..SLOTS {
                make(&mut m);
                let n = m.pop();
                let a = m.stack_get(m.stack_len() - 1).unwrap();
                m.write_ref(a, i, n);
            }
            let a = m.pop().unwrap();
            globals.push(m.global(a));
        }
        m.alloc_push(t.arr, CELLS).unwrap();
        for i in 0..CELLS {
            m.alloc_push(t.cell, 0).unwrap();
            make(&mut m);
            let n = m.pop();
            let c = m.pop().unwrap();
            m.set_ref(c, t.val, n);
            let cells = m.stack_get(m.stack_len() - 1).unwrap();
            m.write_ref(cells, i, Some(c));
        }
        let cells = m.pop().unwrap();
        globals.push(m.global(cells));
        // The hands: one object per thread, and where each thread leaves it.
        m.alloc_push(t.arr, THREADS).unwrap();
        for i in 0..THREADS {
            make(&mut m);
            let n = m.pop();
            let hands = m.stack_get(0).unwrap();
            m.write_ref(hands, i, n);
        }
        let hands = m.pop().unwrap();
        globals.push(m.global(hands));
        let globals = Arc::new(globals);
        let census = |m: &Mutator, g: &[Global]| -> (u64, u64, u64) {
            let (mut n, mut sum, mut sq) = (0u64, 0u64, 0u64);
            let mut count = |o: Option<flipgc_core::Gc<'_>>| {
                let (len, _) = chain_sum(m, o);
                assert_eq!(len, 3, "an object lost part of its chain");
                let id = m.read_word(o.unwrap(), 1);
                n += 1;
                sum = sum.wrapping_add(id);
                sq = sq.wrapping_add(id.wrapping_mul(id));
            };
            for a in &g[..ARRAYS] {
                let a = m.get_global(a);
                (0..SLOTS).for_each(|i| count(m.read_ref(a, i)));
            }
            let cells = m.get_global(&g[ARRAYS]);
            for i in 0..CELLS {
                count(m.get_ref(m.read_ref(cells, i).unwrap(), t.val));
            }
            let hands = m.get_global(&g[ARRAYS + 1]);
            (0..THREADS).for_each(|i| count(m.read_ref(hands, i)));
            (n, sum, sq)
        };
        let before = census(&m, &globals);

        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..THREADS)
            .map(|me| {
                let (heap, t, g, stop) = (
                    heap.clone(),
                    Arc::clone(&t),
                    Arc::clone(&globals),
                    Arc::clone(&stop),
                );
                std::thread::spawn(move || {
                    let mut m = heap.bind_mutator().unwrap();
                    let hands = m.get_global(&g[ARRAYS + 1]);
                    let hand = m.read_ref(hands, me);
                    m.push(hand);
                    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ (me as u64 + 1);
                    let (mut ok, mut failed) = (0u64, 0u64);
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..64 {
                            rng ^= rng << 13;
                            rng ^= rng >> 7;
                            rng ^= rng << 17;
                            let (kind, pick) = (rng % 20, (rng >> 20) as usize);
                            let hand = m.stack_get(0);
                            let r = if kind < 4 {
                                // A cell, by descriptor.
                                let cells = m.get_global(&g[ARRAYS]);
                                let c = m.read_ref(cells, pick % CELLS).unwrap();
                                let cur = m.get_ref(c, t.val);
                                m.compare_exchange_ref(c, t.val, cur, hand)
                            } else {
                                // An array element, by index; one in four among
                                // the first 8 of array 0, which every thread
                                // contends for.
                                let (a, i) = if kind < 9 {
                                    (0, pick % 8)
                                } else {
                                    (pick % ARRAYS, pick / ARRAYS % SLOTS)
                                };
                                let a = m.get_global(&g[a]);
                                let cur = m.read_ref(a, i);
                                m.compare_exchange_ref_at(a, i, cur, hand)
                            };
                            match r {
                                Ok(old) => {
                                    ok += 1;
                                    let old = old.expect("no slot is ever null");
                                    assert_eq!(m.read_word(old, 2), 3 * m.read_word(old, 1));
                                    m.stack_set(0, Some(old));
                                }
                                Err(_) => failed += 1,
                            }
                        }
                        // Some garbage: allocation is this loop's GC point.
                        drop(m.alloc_fixed(t.node_fixed).unwrap());
                    }
                    let hands = m.get_global(&g[ARRAYS + 1]);
                    m.write_ref(hands, me, m.stack_get(0));
                    (ok, failed)
                })
            })
            .collect();
        let start = heap.pause_log().collections();
        let began = Instant::now();
        while heap.pause_log().collections() < start + CYCLES {
            assert!(began.elapsed() < Duration::from_secs(90), "too slow");
            m.collect();
        }
        stop.store(true, Ordering::Relaxed);
        let results: Vec<(u64, u64)> = m.blocking(|| {
            workers
                .into_iter()
                .map(|w| w.join().unwrap())
                .collect::<Vec<_>>()
        });
        m.verify().expect("the heap verifies");
        assert_eq!(census(&m, &globals), before, "the objects are all there");
        let ok: u64 = results.iter().map(|r| r.0).sum();
        let failed: u64 = results.iter().map(|r| r.1).sum();
        assert!(ok > 10_000, "too few exchanges: {ok}");
        eprintln!(
            "cas stress: {ok} exchanges, {failed} failed, {} cycles",
            heap.pause_log().collections() - start
        );
    });
}

/// A model of the exchange with its barrier, explored over every interleaving:
/// a field holds X at the marking's start; two mutators each exchange the value
/// they read for one of their own (logging the expected value first, as
/// `compare_exchange_ref` does), keeping what they took in a root (not scanned
/// again); a marker scans the field once. At the end, X is marked or logged, and
/// so is every value a successful exchange overwrote.
#[test]
fn model_of_the_exchange_and_its_barrier() {
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::Arc;
    const X: usize = 1;
    loom::model(|| {
        let field = Arc::new(AtomicUsize::new(X));
        // Each mutator's log is its own (as the barrier's buffer is), handed over
        // when it ends (as a buffer is before a stop).
        let mutators: Vec<_> = [2usize, 3]
            .into_iter()
            .map(|mine| {
                let field = Arc::clone(&field);
                loom::thread::spawn(move || {
                    let cur = field.load(Ordering::Acquire);
                    // The barrier: the expected value, before the attempt.
                    let logged = cur;
                    let r = field.compare_exchange(cur, mine, Ordering::AcqRel, Ordering::Acquire);
                    (logged, r.ok())
                })
            })
            .collect();
        let marker = {
            let field = Arc::clone(&field);
            loom::thread::spawn(move || field.load(Ordering::Acquire))
        };
        let marked = marker.join().unwrap();
        let (mut logged, mut overwritten) = (Vec::new(), Vec::new());
        for m in mutators {
            let (l, o) = m.join().unwrap();
            logged.push(l);
            overwritten.extend(o);
        }
        assert!(marked == X || logged.contains(&X), "X lost");
        for v in &overwritten {
            assert!(logged.contains(v), "{v} overwritten and not logged");
        }
    });
}

// ---- swap_ref ----

#[test]
fn swap_ref_returns_the_old_value() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    push_node(&mut m, &t, 1);
    push_node(&mut m, &t, 2);
    m.alloc_push(t.cell, 0).unwrap();
    m.alloc_push(t.arr, 2).unwrap();
    let (x, y) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    let (cell, arr) = (m.stack_get(2).unwrap(), m.stack_get(3).unwrap());
    assert_eq!(m.swap_ref(cell, t.val, Some(x)), None);
    assert_eq!(m.swap_ref(cell, t.val, Some(y)), Some(x));
    assert_eq!(m.get_ref(cell, t.val), Some(y));
    assert_eq!(m.swap_ref_at(arr, 1, Some(x)), None);
    assert_eq!(m.swap_ref_at(arr, 1, None), Some(x));
    assert_eq!(m.read_ref(arr, 1), None);
    m.collect();
    m.verify().unwrap();
}

#[test]
#[should_panic(expected = "Mutator::swap_ref_at on a weak reference field")]
fn swap_ref_at_refuses_a_weak_field() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.weakcell, 0).unwrap();
    let w = m.stack_get(0).unwrap();
    let _ = m.swap_ref_at(w, 0, None);
}

/// The lost-object schedule through `swap_ref` (by descriptor) and `swap_ref_at`:
/// X, reachable in the snapshot only through B's field (a cell's, an array's
/// element), is swapped out while marking and stored into a black object.
#[test]
fn swap_ref_logs_the_value_it_overwrites() {
    in_child("swap_ref_logs_the_value_it_overwrites", || {
        let (hook, go, done) = common::hold_marking();
        let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
        let mut m = heap.bind_mutator().unwrap();
        m.alloc_push(t.cell, 0).unwrap(); // slot 0: B (cell)
        m.alloc_push(t.arr, 8).unwrap(); // slot 1: B' (array)
        push_chain(&mut m, &t, 1, 300); // X
        push_chain(&mut m, &t, 1_000, 300); // X'
        let want = (chain_sum(&m, m.stack_get(2)), chain_sum(&m, m.stack_get(3)));
        let (b, b2) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        m.set_ref(b, t.val, m.stack_get(2));
        m.write_ref(b2, 5, m.stack_get(3));
        m.stack_truncate(2);
        during_marking(&heap, go, done, &mut m, |m| {
            m.alloc_push(t.arr, 2).unwrap(); // slot 2: A (black)
            let (b, b2, a) = (
                m.stack_get(0).unwrap(),
                m.stack_get(1).unwrap(),
                m.stack_get(2).unwrap(),
            );
            let x = m.swap_ref(b, t.val, None);
            let x2 = m.swap_ref_at(b2, 5, None);
            m.write_ref(a, 0, x);
            m.write_ref(a, 1, x2);
        });
        let a = m.stack_get(2).unwrap();
        let got = (
            chain_sum(&m, m.read_ref(a, 0)),
            chain_sum(&m, m.read_ref(a, 1)),
        );
        assert_eq!(got, want);
        m.verify().expect("the heap verifies");
    });
}

// ---- copy_refs ----

/// Fills reference array `arr` (stack slot `at`) with `len` fresh nodes (ids
/// `first..`), some null, and returns the ids (0 for null) as a model.
fn fill_array(m: &mut Mutator, t: &Types, at: usize, len: usize, first: u64) -> Vec<u64> {
    let mut model = Vec::new();
    for i in 0..len {
        if i % 7 == 3 {
            model.push(0);
            continue;
        }
        let id = first + i as u64;
        push_node(m, t, id);
        let n = m.pop();
        let a = m.stack_get(at).unwrap();
        m.write_ref(a, i, n);
        model.push(id);
    }
    model
}

fn ids(m: &Mutator, a: flipgc_core::Gc<'_>) -> Vec<u64> {
    (0..m.len(a))
        .map(|i| m.read_ref(a, i).map_or(0, |n| m.read_word(n, 1)))
        .collect()
}

#[test]
fn copy_refs_copies_between_and_within_arrays_like_memmove() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 40).unwrap();
    m.alloc_push(t.arr, 30).unwrap();
    let mut s = fill_array(&mut m, &t, 0, 40, 100);
    let mut d = fill_array(&mut m, &t, 1, 30, 500);
    let check = |m: &Mutator, s: &[u64], d: &[u64]| {
        let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        assert_eq!(ids(m, a), s);
        assert_eq!(ids(m, b), d);
    };
    // Between arrays.
    let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    m.copy_refs(a, 5, b, 2, 20);
    d[2..22].copy_from_slice(&s[5..25]);
    check(&m, &s, &d);
    // Within one array, the destination above the source (overlapping).
    let a = m.stack_get(0).unwrap();
    m.copy_refs(a, 3, a, 10, 25);
    s.copy_within(3..28, 10);
    check(&m, &s, &d);
    // Within one array, the destination below the source (overlapping).
    let a = m.stack_get(0).unwrap();
    m.copy_refs(a, 12, a, 4, 28);
    s.copy_within(12..40, 4);
    check(&m, &s, &d);
    // Onto itself, empty ranges, the whole array.
    let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    m.copy_refs(a, 7, a, 7, 10);
    m.copy_refs(a, 40, b, 30, 0);
    m.copy_refs(b, 0, a, 10, 30);
    s[10..40].copy_from_slice(&d);
    check(&m, &s, &d);
    m.collect();
    check(&m, &s, &d);
    m.verify().unwrap();
}

fn two_arrays(f: impl FnOnce(&Mutator, flipgc_core::Gc<'_>, flipgc_core::Gc<'_>, &Types)) {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 10).unwrap();
    m.alloc_push(t.arr, 5).unwrap();
    let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    f(&m, a, b, &t);
}

#[test]
#[should_panic(
    expected = "Mutator::copy_refs: source range 6..6+5 out of bounds of a reference array of length 10"
)]
fn copy_refs_checks_the_source_range() {
    two_arrays(|m, a, b, _| m.copy_refs(a, 6, b, 0, 5));
}

#[test]
#[should_panic(
    expected = "Mutator::copy_refs: destination range 1..1+5 out of bounds of a reference array of length 5"
)]
fn copy_refs_checks_the_destination_range() {
    two_arrays(|m, a, b, _| m.copy_refs(a, 0, b, 1, 5));
}

#[test]
#[should_panic(
    expected = "Mutator::copy_refs: source range 1..1+18446744073709551615 out of bounds"
)]
fn copy_refs_checks_an_overflowing_range() {
    two_arrays(|m, a, b, _| m.copy_refs(a, 1, b, 0, usize::MAX));
}

#[test]
#[should_panic(expected = "is not a reference array")]
fn copy_refs_refuses_a_byte_array() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 10).unwrap();
    m.alloc_push(t.bytes, 64).unwrap();
    let (a, b) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    m.copy_refs(a, 0, b, 0, 1);
}

#[test]
#[should_panic(expected = "Mutator::copy_refs: the destination")]
fn copy_refs_refuses_a_fixed_object() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 10).unwrap();
    push_node(&mut m, &t, 1);
    let (a, n) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
    m.copy_refs(a, 0, n, 0, 1);
}

/// The lost-object schedule through `copy_refs`: X and Y, reachable in the
/// snapshot only through elements of S, are copied into a black array and their
/// elements then overwritten by copies within S (one each way of overlap).
#[test]
fn copy_refs_logs_the_elements_it_overwrites() {
    in_child("copy_refs_logs_the_elements_it_overwrites", || {
        let (hook, go, done) = common::hold_marking();
        let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
        let mut m = heap.bind_mutator().unwrap();
        m.alloc_push(t.arr, 16).unwrap(); // slot 0: S, nulls but for 4 and 11
        push_chain(&mut m, &t, 1, 300); // X
        push_chain(&mut m, &t, 1_000, 300); // Y
        let want = (chain_sum(&m, m.stack_get(1)), chain_sum(&m, m.stack_get(2)));
        let s = m.stack_get(0).unwrap();
        m.write_ref(s, 4, m.stack_get(1));
        m.write_ref(s, 11, m.stack_get(2));
        m.stack_truncate(1);
        during_marking(&heap, go, done, &mut m, |m| {
            m.alloc_push(t.arr, 2).unwrap(); // slot 1: D (black)
            let (s, d) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
            m.copy_refs(s, 4, d, 0, 1);
            m.copy_refs(s, 11, d, 1, 1);
            // Overlapping, the destination above: elements 3..6 take 1..4 (nulls,
            // over X at 4).
            m.copy_refs(s, 1, s, 3, 3);
            // Overlapping, the destination below: 10..13 take 12..15 (nulls, over
            // Y at 11).
            m.copy_refs(s, 12, s, 10, 3);
            assert!((0..16).all(|i| m.read_ref(s, i).is_none()));
        });
        let d = m.stack_get(1).unwrap();
        let got = (
            chain_sum(&m, m.read_ref(d, 0)),
            chain_sum(&m, m.read_ref(d, 1)),
        );
        assert_eq!(got, want);
        m.verify().expect("the heap verifies");
    });
}

// ---- immediates ----

/// Immediates in reference slots while marking: `copy_refs` copies them as they
/// are, the barrier slow path and `copy_refs` overwrite them without logging them,
/// and `swap_ref_at` over one swaps, then panics (an `Option<Gc>` cannot hold
/// one) without having logged it: a logged immediate would reach the markers as
/// an address and end the process.
#[test]
fn immediates_pass_through_and_are_never_logged() {
    in_child("immediates_pass_through_and_are_never_logged", || {
        let (hook, go, done) = common::hold_marking();
        let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
        let mut m = heap.bind_mutator().unwrap();
        let (five, seven) = (Value::fixnum(5).unwrap(), Value::fixnum(7).unwrap());
        m.alloc_push(t.arr, 6).unwrap(); // S, slot 0
        push_chain(&mut m, &t, 1, 200); // X, slot 1
        let want = chain_sum(&m, m.stack_get(1));
        let s = m.stack_get(0).unwrap();
        m.write_value(s, 0, five);
        m.write_ref(s, 1, m.stack_get(1));
        m.write_value(s, 2, seven);
        m.write_value(s, 4, seven);
        m.stack_truncate(1); // X hangs from S alone
        during_marking(&heap, go, done, &mut m, |m| {
            m.alloc_push(t.arr, 3).unwrap(); // D (black), slot 1
            let (s, d) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
            m.copy_refs(s, 0, d, 0, 3);
            // The generated store over an immediate: the slow path skips it.
            // SAFETY: S's element 0, a live object's reference slot.
            unsafe { generated_store(m, s.addr() + 8, 0) };
            // `copy_refs` over an immediate (element 2 takes element 3, null).
            m.copy_refs(s, 3, s, 2, 1);
            // `swap_ref_at` over an immediate: swapped, then a panic.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                m.swap_ref_at(s, 4, None);
            }));
            assert!(r.is_err(), "swap_ref_at over an immediate panics");
            assert!(m.read_value(s, 4).is_null(), "the swap was made");
            // X's only edge goes; the swap logs X.
            assert!(m.swap_ref_at(s, 1, None).is_some());
        });
        let (s, d) = (m.stack_get(0).unwrap(), m.stack_get(1).unwrap());
        assert_eq!(m.read_value(d, 0), five);
        assert_eq!(m.read_value(d, 2), seven);
        assert_eq!(chain_sum(&m, m.read_ref(d, 1)), want, "X survived whole");
        assert!((0..6).all(|i| m.read_value(s, i).is_null()));
        m.verify().expect("the heap verifies");
    });
}

#[test]
#[should_panic(expected = "the slot holds the immediate 0xb")]
fn compare_exchange_ref_panics_on_an_immediate_it_finds() {
    let (heap, t) = heap_with(|_| {});
    let mut m = heap.bind_mutator().unwrap();
    m.alloc_push(t.arr, 1).unwrap();
    let a = m.stack_get(0).unwrap();
    m.write_value(a, 0, Value::fixnum(5).unwrap());
    let _ = m.compare_exchange_ref_at(a, 0, None, None);
}

/// The lost-object schedule through `compare_exchange_value_at`: in the
/// snapshot, a chain X is reachable only through B's `next` field. While marking
/// (before any marker ran), X is copied into a new, black object A, and B's
/// field is exchanged from X to an immediate. Only the exchange's log of the
/// value it overwrites keeps X. Then a failed exchange (the field holds the
/// immediate, not X) and a swap back to null, both over an immediate.
#[test]
fn compare_exchange_value_at_over_immediates_keeps_the_snapshot() {
    in_child(
        "compare_exchange_value_at_over_immediates_keeps_the_snapshot",
        || {
            let (hook, go, done) = common::hold_marking();
            let (heap, t) = heap_with(|c| c.cycle_hook = Some(hook));
            let mut m = heap.bind_mutator().unwrap();
            push_node(&mut m, &t, 1_000_000); // B, stack slot 0
            push_chain(&mut m, &t, 1, 500); // X, stack slot 1
            let b = m.stack_get(0).unwrap();
            m.set_ref(b, t.next, m.stack_get(1));
            let want = chain_sum(&m, m.stack_get(1));
            m.stack_truncate(1); // X hangs from B alone
            let imm = Value::fixnum(42).unwrap();
            during_marking(&heap, go, done, &mut m, |m| {
                push_node(m, &t, 2_000_000); // A: allocated while marking (black)
                let a = m.stack_get(1).unwrap();
                let b = m.stack_get(0).unwrap();
                let x = m.get_ref(b, t.next).unwrap();
                m.set_ref(a, t.next, Some(x));
                let got = m.compare_exchange_value_at(b, 0, x.into(), imm);
                assert_eq!(got.map(|v| v.bits()), Ok(x.addr() as u64));
                // The field holds the immediate now: expecting X fails.
                let again = m.compare_exchange_value_at(b, 0, x.into(), Value::NULL);
                assert_eq!(again.map_err(|v| v.bits()), Err(imm.bits()));
            });
            let b = m.stack_get(0).unwrap();
            let old = m.swap_value_at(b, 0, Value::NULL);
            assert_eq!(old.bits(), imm.bits());
            assert_eq!(m.get_ref(b, t.next), None);
            let a = m.stack_get(1).unwrap();
            assert_eq!(
                chain_sum(&m, m.get_ref(a, t.next)),
                want,
                "X survived whole"
            );
            m.verify().expect("the heap verifies");
        },
    );
}
