//! Ephemerons on every collection path, in both fault modes: 100,000 entries in a
//! table, each an ephemeron whose value refers to its own key. With the keys kept
//! (in another array) every entry keeps its key and value, contents intact; with
//! the keys dropped every entry is cleared (key and value null) and the live bytes
//! fall by at least the keys' and values' bytes. A control with a strong pair in
//! place of the ephemeron keeps all its entries. A chain (the value of each
//! ephemeron is the key of the next, reachable only through it) needs a marking
//! round a link, and must survive whole while its first key lives. On the young
//! path, fresh entries with young keys are decided by young cycles. Every
//! collection verifies the heap (and, concurrent, re-traces the marking). A
//! second test plays a schedule of mutator reads and stores on ephemerons while
//! concurrent marking runs (the weak-read barrier's part).

mod common;

use flipgc_core::{
    FaultMode, FlipMode, GcTrigger, Handle, Heap, HeapConfig, InjectPoint, Mutator, TypeId,
    TypeRegistry,
};
use flipgc_heap::Level;

/// Entries in the big tables.
const N: usize = 100_000;
/// Links in the chain.
const CHAIN: usize = 64;

#[derive(Clone, Copy)]
struct Types {
    /// Ephemeron: key (field 0), value (field 1).
    eph: TypeId,
    /// The control: a strong pair with the same two fields.
    pair: TypeId,
    /// A key: field 0 its id (a word).
    key: TypeId,
    /// A value: field 0 its key (strong), field 1 the id.
    val: TypeId,
    arr: TypeId,
    junk: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let t = Types {
        eph: r.ephemeron("eph").unwrap(),
        pair: r.fixed("pair", 2, &[0, 1]).unwrap(),
        key: r.fixed("key", 1, &[]).unwrap(),
        val: r.fixed("val", 2, &[0]).unwrap(),
        arr: r.ref_array("table").unwrap(),
        junk: r.fixed("junk", 3, &[0]).unwrap(),
    };
    (r, t)
}

/// Every path, or those whose name contains `EPHEMERON_PATH` if it is set (to
/// rerun one path).
fn paths() -> Vec<(String, HeapConfig)> {
    let only = std::env::var("EPHEMERON_PATH").ok();
    let mut out = Vec::new();
    for fault in [FaultMode::Sigbus, FaultMode::Server] {
        let base = move || {
            let mut c = HeapConfig::new(96 << 20);
            c.gc_workers = 2;
            c.concurrent_workers = 2;
            c.verify_after_gc = true;
            c.fault_mode = fault;
            c
        };
        let mut paths = common::collection_paths(
            base,
            &[
                ("uffd-register injected", InjectPoint::UffdRegister),
                ("uffd-move injected", InjectPoint::UffdMove),
                ("uffd-open injected", InjectPoint::UffdOpen),
                ("mark-rounds injected", InjectPoint::MarkRounds),
            ],
        );
        for (name, level) in [("pmd flip", Level::Pmd), ("pte flip", Level::Pte)] {
            let mut c = base();
            c.flip = FlipMode::Level(level);
            paths.push((name, c));
        }
        let mut young = base();
        young.young_cycles = true;
        young.trigger = GcTrigger::AfterBytes(1 << 20);
        paths.push(("young cycles", young));
        out.extend(
            paths
                .into_iter()
                .map(|(n, c)| (format!("{n}, {fault:?}"), c)),
        );
    }
    out.retain(|(n, _)| only.as_ref().is_none_or(|o| n.contains(o.as_str())));
    assert!(!out.is_empty(), "no path matches EPHEMERON_PATH={only:?}");
    out
}

/// Builds `n` entries of type `entry` into a new table: entry `i` holds key `i`
/// (field 0) and value `i` (field 1), which refers to key `i`. With `keys`, key
/// `i` is also stored at index `i` of that array. Returns the table.
fn build(m: &mut Mutator, t: Types, entry: TypeId, n: usize, keys: Option<&Handle>) -> Handle {
    let table = m.alloc(t.arr, n).unwrap();
    for i in 0..n {
        m.alloc_push(t.key, 0).unwrap();
        m.alloc_push(t.val, 0).unwrap();
        m.alloc_push(entry, 0).unwrap();
        let at = m.stack_len() - 3;
        let (k, v, e) = (
            m.stack_get(at).unwrap(),
            m.stack_get(at + 1).unwrap(),
            m.stack_get(at + 2).unwrap(),
        );
        m.write_word(k, 0, i as u64);
        m.write_ref(v, 0, Some(k));
        m.write_word(v, 1, i as u64);
        m.write_ref(e, 0, Some(k));
        m.write_ref(e, 1, Some(v));
        m.write_ref(m.get(&table), i, Some(e));
        if let Some(keys) = keys {
            m.write_ref(m.get(keys), i, Some(k));
        }
        for _ in 0..3 {
            m.pop();
        }
    }
    table
}

/// How many entries of `table` are intact (key `i` and value `i` referring to
/// it, and the key the one in `keys` if given) and how many cleared (key and
/// value null). Panics on anything else.
fn census(m: &Mutator, table: &Handle, keys: Option<&Handle>, what: &str) -> (usize, usize) {
    let (mut intact, mut cleared) = (0, 0);
    let tab = m.get(table);
    for i in 0..m.len(tab) {
        let e = m.read_ref(tab, i).expect("entry");
        match (m.read_ref(e, 0), m.read_ref(e, 1)) {
            (None, None) => cleared += 1,
            (Some(k), Some(v)) => {
                assert_eq!(m.read_word(k, 0), i as u64, "{what}: key {i}");
                assert_eq!(m.read_word(v, 1), i as u64, "{what}: value {i}");
                assert_eq!(m.read_ref(v, 0), Some(k), "{what}: value {i}'s key");
                if let Some(keys) = keys {
                    assert_eq!(m.read_ref(m.get(keys), i), Some(k), "{what}: kept key {i}");
                }
                intact += 1;
            }
            (k, v) => panic!("{what}: entry {i} half cleared: key {k:?}, value {v:?}"),
        }
    }
    (intact, cleared)
}

/// Unreachable objects, so that young cycles run and survivors move.
fn garbage(m: &mut Mutator, t: Types, n: usize) {
    for _ in 0..n {
        m.alloc_push(t.junk, 0).unwrap();
        m.pop();
    }
}

/// Live bytes the last cycle found (once it is recorded).
fn last_live(m: &mut Mutator, heap: &Heap) -> u64 {
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    let cycles = log.cycles();
    cycles
        .get(cycles.len() - 1)
        .expect("a cycle ran")
        .live_bytes
}

fn young_cycles(heap: &Heap) -> usize {
    heap.pause_log().cycles().iter().filter(|c| c.young).count()
}

/// The chain: `CHAIN` ephemerons in a table, the first keyed by the key in the
/// returned handle, each one's value the key (id `i + 1`) of the next.
fn build_chain(m: &mut Mutator, t: Types) -> (Handle, Handle) {
    let table = m.alloc(t.arr, CHAIN).unwrap();
    let first = m.alloc(t.key, 0).unwrap();
    m.push(Some(m.get(&first)));
    for i in 0..CHAIN {
        m.alloc_push(t.key, 0).unwrap();
        m.alloc_push(t.eph, 0).unwrap();
        let at = m.stack_len() - 3;
        let (prev, next, e) = (
            m.stack_get(at).unwrap(),
            m.stack_get(at + 1).unwrap(),
            m.stack_get(at + 2).unwrap(),
        );
        m.write_word(next, 0, i as u64 + 1);
        m.write_ref(e, 0, Some(prev));
        m.write_ref(e, 1, Some(next));
        // The table lists the links last first, so that no pass in table order
        // meets a key before the link that makes it reachable.
        m.write_ref(m.get(&table), CHAIN - 1 - i, Some(e));
        m.pop();
        let next = m.pop();
        m.pop();
        m.push(next);
    }
    m.pop();
    (table, first)
}

/// Links of the chain intact (key id `i`, value id `i + 1`) and cleared.
fn chain_census(m: &Mutator, table: &Handle, what: &str) -> (usize, usize) {
    let (mut intact, mut cleared) = (0, 0);
    let tab = m.get(table);
    for i in 0..CHAIN {
        let e = m.read_ref(tab, CHAIN - 1 - i).expect("link");
        match (m.read_ref(e, 0), m.read_ref(e, 1)) {
            (None, None) => cleared += 1,
            (Some(k), Some(v)) => {
                assert_eq!(m.read_word(k, 0), i as u64, "{what}: link {i}'s key");
                assert_eq!(m.read_word(v, 0), i as u64 + 1, "{what}: link {i}'s value");
                intact += 1;
            }
            (k, v) => panic!("{what}: link {i} half cleared: key {k:?}, value {v:?}"),
        }
    }
    (intact, cleared)
}

#[test]
fn ephemeron_entries_are_freed_with_their_keys_on_every_path() {
    for (path, cfg) in paths() {
        let young = matches!(cfg.trigger, GcTrigger::AfterBytes(_));
        let (r, t) = registry();
        let heap = match Heap::new(cfg, r) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{path}: skipped: {e}");
                continue;
            }
        };
        let mut m = heap.bind_mutator().unwrap();
        let entry_bytes = {
            let ty = heap.types();
            (ty.fixed_type(t.key).unwrap().bytes() + ty.fixed_type(t.val).unwrap().bytes()) as u64
        };

        // Keys kept: every entry survives, with its contents.
        let keys = m.alloc(t.arr, N).unwrap();
        let table = build(&mut m, t, t.eph, N, Some(&keys));
        let (chain, first) = build_chain(&mut m, t);
        m.collect();
        if young {
            garbage(&mut m, t, 200_000);
            m.blocking(|| heap.wait_idle());
        }
        assert_eq!(
            census(&m, &table, Some(&keys), &path),
            (N, 0),
            "{path}: kept"
        );
        assert_eq!(chain_census(&m, &chain, &path), (CHAIN, 0), "{path}: chain");
        m.collect();
        let live_kept = last_live(&mut m, &heap);

        // The control: strong pairs keep every entry, keys dropped or not.
        let control = build(&mut m, t, t.pair, N, None);
        m.collect();
        assert_eq!(census(&m, &control, None, &path), (N, 0), "{path}: control");
        drop(control);

        // Keys dropped: every entry is cleared, and its key and value freed.
        let nulls = m.alloc(t.arr, N).unwrap();
        m.set(&keys, m.get(&nulls));
        drop(nulls);
        drop(first);
        if young {
            garbage(&mut m, t, 200_000);
            m.blocking(|| heap.wait_idle());
        }
        m.collect();
        assert_eq!(census(&m, &table, None, &path), (0, N), "{path}: dropped");
        assert_eq!(chain_census(&m, &chain, &path), (0, CHAIN), "{path}: chain");
        let live_dropped = last_live(&mut m, &heap);
        assert!(
            live_kept >= live_dropped + N as u64 * entry_bytes,
            "{path}: live bytes {live_kept} with the keys, {live_dropped} without: \
             not {N} entries of {entry_bytes} bytes fewer"
        );

        if young {
            // Fresh entries with young keys, half of them kept, decided by young
            // cycles (and any full one among them).
            let before = young_cycles(&heap);
            let fresh_keys = m.alloc(t.arr, N / 10).unwrap();
            let fresh = build(&mut m, t, t.eph, N / 10, Some(&fresh_keys));
            let keys_now = m.get(&fresh_keys);
            for i in (1..N / 10).step_by(2) {
                m.write_ref(keys_now, i, None);
            }
            garbage(&mut m, t, 400_000);
            m.blocking(|| heap.wait_idle());
            assert!(
                young_cycles(&heap) >= before + 2,
                "{path}: only {} young cycles after the fresh entries",
                young_cycles(&heap) - before
            );
            let tab = m.get(&fresh);
            for i in 0..N / 10 {
                let e = m.read_ref(tab, i).unwrap();
                let kept = i % 2 == 0;
                assert_eq!(m.read_ref(e, 0).is_some(), kept, "{path}: fresh key {i}");
                assert_eq!(m.read_ref(e, 1).is_some(), kept, "{path}: fresh value {i}");
            }
        }
        m.verify().unwrap();
        eprintln!(
            "{path}: live {live_kept} bytes with the keys, {live_dropped} without; {} cycles, {} young",
            heap.pause_log().cycles().len(),
            young_cycles(&heap)
        );
    }
}

/// Mutators and ephemerons during concurrent marking. In the snapshot, E1's key
/// and E2's key are unreachable but through them, E1's value too. While marking,
/// the mutator reads E1's value and E2's key and stores each into a new (black,
/// never scanned) object, and makes a black ephemeron E3 with a black key it
/// drops at once. The weak-read barrier marks what was read: E1 (key dead) is
/// cleared while its value lives on in A; E2 keeps key and value (its key was
/// read, so it is live). E3 and its black key float through this cycle and are
/// cleared by the next. Without the barrier's log, the end of marking would free
/// an object a black one holds (the sanity re-trace aborts on that).
#[test]
fn ephemeron_fields_read_while_marking_keep_what_they_return() {
    let (r, t) = registry();
    let (hook, go, done) = common::hold_marking();
    let mut cfg = paths().remove(0).1;
    cfg.cycle_hook = Some(hook);
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let tagged = |m: &mut Mutator, ty: TypeId, id: u64| {
        let h = m.alloc(ty, 0).unwrap();
        m.write_word(m.get(&h), if ty == t.key { 0 } else { 1 }, id);
        h
    };
    let e1 = m.alloc(t.eph, 0).unwrap();
    let e2 = m.alloc(t.eph, 0).unwrap();
    {
        let (k1, v1) = (tagged(&mut m, t.key, 1), tagged(&mut m, t.val, 11));
        let (k2, v2) = (tagged(&mut m, t.key, 2), tagged(&mut m, t.val, 22));
        for (e, k, v) in [(&e1, &k1, &v1), (&e2, &k2, &v2)] {
            m.write_ref(m.get(e), 0, Some(m.get(k)));
            m.write_ref(m.get(e), 1, Some(m.get(v)));
        }
    } // only the ephemerons hold them now
    let requester = {
        let heap = heap.clone();
        std::thread::spawn(move || heap.bind_mutator().unwrap().collect())
    };
    m.blocking(move || go.recv().unwrap());
    assert!(m.barrier_active(), "marking is on");
    let a = m.alloc(t.val, 0).unwrap(); // black
    let b = m.alloc(t.val, 0).unwrap(); // black
    let v1 = m
        .read_ref(m.get(&e1), 1)
        .expect("not cleared before the end");
    m.write_ref(m.get(&a), 0, Some(v1));
    let k2 = m
        .read_ref(m.get(&e2), 0)
        .expect("not cleared before the end");
    m.write_ref(m.get(&b), 0, Some(k2));
    let e3 = m.alloc(t.eph, 0).unwrap(); // black, noted by the weak-store barrier
    {
        let (k3, v3) = (tagged(&mut m, t.key, 3), tagged(&mut m, t.val, 33));
        m.write_ref(m.get(&e3), 0, Some(m.get(&k3)));
        m.write_ref(m.get(&e3), 1, Some(m.get(&v3)));
    }
    done.send(()).unwrap();
    m.blocking(move || requester.join().unwrap());
    m.blocking(|| heap.wait_idle());

    let held = m.read_ref(m.get(&a), 0).expect("A holds E1's value");
    assert_eq!(m.read_word(held, 1), 11);
    assert_eq!(m.read_ref(m.get(&e1), 0), None, "E1's key died");
    assert_eq!(m.read_ref(m.get(&e1), 1), None, "E1 is cleared whole");
    let k2 = m.read_ref(m.get(&b), 0).expect("B holds E2's key");
    assert_eq!(m.read_word(k2, 0), 2);
    assert_eq!(
        m.read_ref(m.get(&e2), 0),
        Some(k2),
        "E2's key was read: live"
    );
    let v2 = m.read_ref(m.get(&e2), 1).expect("E2's value is kept");
    assert_eq!(m.read_word(v2, 1), 22);
    let k3 = m.read_ref(m.get(&e3), 0).expect("E3's black key floats");
    assert_eq!(m.read_word(k3, 0), 3);
    m.collect();
    assert_eq!(m.read_ref(m.get(&e3), 0), None, "E3's key died");
    assert_eq!(m.read_ref(m.get(&e3), 1), None);
    let v2 = m
        .read_ref(m.get(&e2), 1)
        .expect("E2's key is still held by B");
    assert_eq!(m.read_word(v2, 1), 22);
    m.verify().unwrap();
}

/// A young cycle takes every old object as live, so it keeps a young
/// ephemeron whose key is old even when nothing else holds the key; the next
/// full cycle clears it.
#[test]
fn young_cycles_keep_ephemerons_whose_key_is_old() {
    let (r, t) = registry();
    let mut cfg = HeapConfig::new(96 << 20);
    cfg.concurrent_workers = 2;
    cfg.verify_after_gc = true;
    cfg.young_cycles = true;
    cfg.trigger = GcTrigger::AfterBytes(1 << 20);
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let key = m.alloc(t.key, 0).unwrap();
    m.write_word(m.get(&key), 0, 5);
    m.collect(); // full: the key is old from now on
    m.blocking(|| heap.wait_idle());
    let cycles_before = heap.pause_log().cycles().len();
    let e = m.alloc(t.eph, 0).unwrap();
    let v = m.alloc(t.val, 0).unwrap();
    m.write_word(m.get(&v), 1, 55);
    m.write_ref(m.get(&e), 0, Some(m.get(&key)));
    m.write_ref(m.get(&e), 1, Some(m.get(&v)));
    drop((key, v)); // only the ephemeron holds them
    garbage(&mut m, t, 150_000);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    let since: Vec<bool> = log
        .cycles()
        .iter()
        .skip(cycles_before)
        .map(|c| c.young)
        .collect();
    assert!(
        !since.is_empty() && since.iter().all(|&y| y),
        "young cycles only since the key became old: {since:?}"
    );
    let k = m
        .read_ref(m.get(&e), 0)
        .expect("an old key is live to a young cycle");
    assert_eq!(m.read_word(k, 0), 5);
    let v = m.read_ref(m.get(&e), 1).expect("so its value is kept");
    assert_eq!(m.read_word(v, 1), 55);
    m.collect();
    assert_eq!(
        m.read_ref(m.get(&e), 0),
        None,
        "a full cycle finds the key dead"
    );
    assert_eq!(m.read_ref(m.get(&e), 1), None);
}
