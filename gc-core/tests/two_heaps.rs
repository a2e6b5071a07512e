//! Several heaps, several threads (reliability round 3, defect 2). A thread stopped
//! in one heap's pause still counts as running in the other heaps it holds
//! mutators of: two threads that both hold mutators of heaps A and B deadlocked
//! (T1 parked in A's pause, T2 in B's; A's stop waited for T2, B's for T1). Such a
//! binding, or any that closes a cycle of threads and heaps, is now refused with
//! a clear error; the shapes that cannot deadlock (one thread on two heaps, with
//! other threads on each) run.
//!
//! With the cycle check in `bindings::bind` taken out,
//! `two_threads_on_two_heaps_refused_or_done` deadlocks and fails at its 60 s
//! deadline.

use flipgc_core::{GcError, GcErrorKind, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn heap() -> (Heap, TypeId) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 2, &[0]).unwrap();
    let mut cfg = HeapConfig::new(4 << 20);
    cfg.verify_after_gc = false;
    (Heap::new(cfg, r).unwrap(), node)
}

/// A chain of `n` nodes labelled from `label` (field 1), its head on the stack.
fn push_chain(m: &mut Mutator, node: TypeId, label: u64, n: u64) {
    m.alloc_push(node, 0).unwrap();
    let at = m.stack_len() - 1;
    let head = m.stack_get(at).unwrap();
    m.write_word(head, 1, label);
    for i in 1..n {
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        let head = m.stack_get(at).unwrap();
        m.write_ref(new, 0, Some(head));
        m.write_word(new, 1, label + i);
        m.stack_set(at, Some(new));
    }
}

fn check_chain(m: &Mutator, at: usize, label: u64, n: u64) {
    let mut cur = m.stack_get(at);
    let mut want = n;
    while let Some(c) = cur {
        want -= 1;
        assert_eq!(m.read_word(c, 1), label + want);
        cur = m.read_ref(c, 0);
    }
    assert_eq!(want, 0);
}

/// Allocation alternating between the thread's mutators (each entry a heap and
/// its node type), with collections, for `rounds` rounds; checks a chain kept in
/// each heap.
fn churn(ms: &mut [(Mutator, TypeId)], rounds: u64, seed: u64) {
    for (i, (m, node)) in ms.iter_mut().enumerate() {
        push_chain(m, *node, seed * 1_000_000 + i as u64 * 100_000, 1_000);
    }
    for r in 0..rounds {
        for (m, node) in ms.iter_mut() {
            // Garbage: 2 MB through a 4 MB heap, so that cycles run often.
            for _ in 0..(2 << 20) / 24 / rounds.max(1) as usize * 8 {
                m.alloc_push(*node, 0).unwrap();
                m.pop();
            }
            if r % 4 == 0 {
                m.collect();
            }
        }
    }
    for (i, (m, _)) in ms.iter().enumerate() {
        check_chain(m, 0, seed * 1_000_000 + i as u64 * 100_000, 1_000);
    }
}

fn config_error(r: Result<Mutator, GcError>) -> String {
    match r.map_err(GcError::into_kind) {
        Err(GcErrorKind::Config(msg)) => msg,
        Err(other) => panic!("not a configuration error: {other:?}"),
        Ok(_) => panic!("the binding was not refused"),
    }
}

/// Two threads, each binding heaps A and B and alternating between them. The
/// second thread's second binding is refused (it would close the cycle T1-A-T2-B);
/// it goes on with A alone, and both threads finish. Before the check, the two
/// threads deadlocked (seen within the first seconds of the run).
#[test]
fn two_threads_on_two_heaps_refused_or_done() {
    let (a, na) = heap();
    let (b, nb) = heap();
    let order = Arc::new(Barrier::new(2));
    let (done_tx, done_rx) = mpsc::channel();
    let mut threads = Vec::new();
    for t in 0..2u64 {
        let (a, b, order, done) = (a.clone(), b.clone(), Arc::clone(&order), done_tx.clone());
        threads.push(std::thread::spawn(move || {
            // Thread 0 binds both heaps first, then thread 1 tries.
            if t == 1 {
                order.wait();
            }
            let mut ms = vec![(a.bind_mutator().unwrap(), na)];
            let refused = match b.bind_mutator() {
                Ok(m) => {
                    ms.push((m, nb));
                    None
                }
                Err(e) => Some(e.to_string()),
            };
            if t == 0 {
                order.wait();
            }
            churn(&mut ms, 40, t);
            done.send((t, refused)).unwrap();
        }));
    }
    let mut results = Vec::new();
    for _ in 0..2 {
        let r = done_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the threads deadlocked");
        results.push(r);
    }
    for t in threads {
        t.join().unwrap();
    }
    results.sort();
    assert!(results[0].1.is_none(), "the first thread holds both heaps");
    let msg = results[1]
        .1
        .as_deref()
        .expect("the second binding is refused");
    assert!(
        msg.contains("wait for each other") && msg.contains("bind each thread to"),
        "{msg}"
    );
}

/// The shapes that cannot deadlock run: one thread on A and B, another on A only,
/// a third on B only, all alternating and collecting.
#[test]
fn a_tree_of_threads_and_heaps_runs() {
    let (a, na) = heap();
    let (b, nb) = heap();
    let (done_tx, done_rx) = mpsc::channel();
    let shapes: [&[usize]; 3] = [&[0, 1], &[0], &[1]];
    for (t, heaps) in shapes.into_iter().enumerate() {
        let (a, b, done) = (a.clone(), b.clone(), done_tx.clone());
        std::thread::spawn(move || {
            let mut ms: Vec<(Mutator, TypeId)> = heaps
                .iter()
                .map(|&h| {
                    if h == 0 {
                        (a.bind_mutator().unwrap(), na)
                    } else {
                        (b.bind_mutator().unwrap(), nb)
                    }
                })
                .collect();
            churn(&mut ms, 40, t as u64);
            done.send(t).unwrap();
        });
    }
    for _ in 0..3 {
        done_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a thread did not finish (deadlock?)");
    }
}

/// A longer cycle is refused too: T1 on A and B, T2 on B and C, then T3 on C and A.
/// After T1 drops its mutator of B, T3 may bind A.
#[test]
fn a_cycle_of_three_threads_and_three_heaps_is_refused() {
    let (a, _) = heap();
    let (b, _) = heap();
    let (c, _) = heap();
    let (t1_tx, t1_rx) = mpsc::channel::<()>();
    let (ready_tx, ready_rx) = mpsc::channel::<()>();
    let (a1, b1) = (a.clone(), b.clone());
    let t1 = std::thread::spawn(move || {
        let _ma = a1.bind_mutator().unwrap();
        let mb = b1.bind_mutator().unwrap();
        ready_tx.send(()).unwrap();
        t1_rx.recv().unwrap();
        drop(mb); // now T1 holds A alone
        ready_tx.send(()).unwrap();
        t1_rx.recv().unwrap();
    });
    ready_rx.recv().unwrap();
    let (b2, c2) = (b.clone(), c.clone());
    let (t2_tx, t2_rx) = mpsc::channel::<()>();
    let (ready2_tx, ready2_rx) = mpsc::channel::<()>();
    let t2 = std::thread::spawn(move || {
        let _mb = b2.bind_mutator().unwrap();
        let _mc = c2.bind_mutator().unwrap();
        ready2_tx.send(()).unwrap();
        t2_rx.recv().unwrap();
    });
    ready2_rx.recv().unwrap();
    // This thread is T3: C, then A closes A-T1-B-T2-C-T3-A.
    let _mc = c.bind_mutator().unwrap();
    let msg = config_error(a.bind_mutator());
    assert!(msg.contains("wait for each other"), "{msg}");
    // With T1 off B the cycle is open.
    t1_tx.send(()).unwrap();
    ready_rx.recv().unwrap();
    let ma = a.bind_mutator().expect("no cycle once T1 dropped B");
    drop(ma);
    t1_tx.send(()).unwrap();
    t2_tx.send(()).unwrap();
    t1.join().unwrap();
    t2.join().unwrap();
}
