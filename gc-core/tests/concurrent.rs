//! Concurrent compaction's races, each against a checksum of the object graph and
//! the heap verifier: many threads faulting on one page, and on neighbouring pages,
//! at once, in both fault modes (SIGBUS: each faulting thread fills or waits in its
//! own handler; server: a fault-serving thread fills); mutators writing into pages
//! while their neighbours are installed; allocation during compaction (black
//! allocation included); a collection requested during compaction; and the
//! compaction inside the flip pause, and the one-pause cycle, giving the same graph
//! as the concurrent path.
//! Skipped (with a message) where the host has no userfaultfd.

use flipgc_core::{FaultMode, FillHook, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};

/// The `/proc/self/smaps` reader of the heap crate's tests.
mod common;
#[path = "../../heap/tests/common/mod.rs"]
mod maps;
use std::sync::{Arc, Barrier, Condvar, Mutex};

/// node: fields 0 and 1 are references, 2 and 3 words.
fn registry() -> (TypeRegistry, TypeId) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 4, &[0, 1]).unwrap();
    (r, node)
}

fn heap(capacity: usize, concurrent: bool) -> Option<(Heap, TypeId)> {
    heap_with(capacity, concurrent, true)
}

fn heap_with(capacity: usize, concurrent: bool, verify: bool) -> Option<(Heap, TypeId)> {
    heap_in(capacity, concurrent, verify, FaultMode::Auto)
}

fn heap_in(
    capacity: usize,
    concurrent: bool,
    verify: bool,
    fault: FaultMode,
) -> Option<(Heap, TypeId)> {
    heap_hooked(capacity, concurrent, verify, fault, None)
}

/// [`heap_in`], with a test hook on the background fill.
fn heap_hooked(
    capacity: usize,
    concurrent: bool,
    verify: bool,
    fault: FaultMode,
    hook: Option<FillHook>,
) -> Option<(Heap, TypeId)> {
    let (r, node) = registry();
    let mut cfg = HeapConfig::new(capacity);
    cfg.fill_hook = hook;
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.verify_after_gc = verify;
    cfg.concurrent_compaction = concurrent;
    cfg.fault_mode = fault;
    Some((common::compaction_heap(cfg, r)?, node))
}

/// Every compaction of `heap` served its faults in `mode`.
fn assert_compacted_in(heap: &Heap, mode: FaultMode) {
    let log = heap.pause_log();
    let modes = log.compaction_fault_modes();
    assert!(!modes.is_empty(), "no concurrent compaction");
    assert!(
        modes.iter().all(|m| *m == mode),
        "{modes:?}, wanted {mode:?}"
    );
}

/// Builds a list of `n` nodes (ids 0..n, word 3 = id * 3) interleaved with as much
/// garbage, on the root stack's top; returns nothing (the head is pushed).
fn build_list(m: &mut Mutator, node: TypeId, n: u64) {
    m.push(None);
    let at = m.stack_len() - 1;
    for id in (0..n).rev() {
        m.alloc_push(node, 0).unwrap(); // garbage
        m.pop();
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        m.write_word(new, 2, id);
        m.write_word(new, 3, id * 3);
        m.write_ref(new, 0, m.stack_get(at));
        m.stack_set(at, Some(new));
    }
}

/// Walks the list at root stack slot `at`: (length, checksum of ids and words).
fn walk(m: &Mutator, at: usize) -> (u64, u64) {
    let mut cur = m.stack_get(at);
    let (mut n, mut sum) = (0u64, 0u64);
    while let Some(c) = cur {
        let (id, w) = (m.read_word(c, 2), m.read_word(c, 3));
        assert_eq!(w, id * 3, "node {id} corrupted");
        sum = sum.wrapping_mul(31).wrapping_add(id ^ w);
        n += 1;
        cur = m.read_ref(c, 0);
    }
    (n, sum)
}

/// `threads` readers, released together right after the flip pause, each read the
/// node `offsets[i % offsets.len()]` nodes down the list from its head (the newest
/// node: the highest address, so compacted into the last pages, which the background
/// fill, in address order, reaches last). The background fill is held back until
/// the readers are done (at most 10 s), so they fault whatever the scheduling: a
/// run where they were descheduled until the fill had finished failed the fault
/// count below. Returns the fault stalls recorded.
fn readers_fault_together(fault: FaultMode, threads: usize, offsets: &[u64]) -> Option<u64> {
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let hook = common::held_fill(&done);
    let (heap, node) = heap_hooked(256 << 20, true, false, fault, Some(hook))?;
    let mode = heap.fault_mode();
    let mut m = heap.bind_mutator().unwrap();
    const N: u64 = 400_000;
    build_list(&mut m, node, N);
    // Globals on the nodes the readers read (ids `offset`): each `offset` nodes
    // (of 40 bytes) below the head.
    let mut targets = Vec::new();
    for &off in offsets {
        let mut cur = m.stack_get(0);
        for _ in 0..off {
            cur = m.read_ref(cur.unwrap(), 0);
        }
        targets.push((Arc::new(m.global(cur.unwrap())), off));
    }
    let before = walk(&m, 0);
    let flipped = Arc::new(Barrier::new(threads + 1));
    let readers: Vec<_> = (0..threads)
        .map(|i| {
            let (target, off) = targets[i % targets.len()].clone();
            let (heap, flipped) = (heap.clone(), Arc::clone(&flipped));
            std::thread::spawn(move || {
                let mut m = heap.bind_mutator().unwrap();
                m.blocking(|| flipped.wait());
                let h = m.get_global(&target);
                assert_eq!(
                    (m.read_word(h, 2), m.read_word(h, 3)),
                    (off, off * 3),
                    "reader {i}"
                );
            })
        })
        .collect();
    m.collect();
    m.blocking(|| flipped.wait());
    for r in readers {
        m.blocking(move || r.join().unwrap());
    }
    common::open(&done);
    assert_eq!(walk(&m, 0), before);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    eprintln!(
        "{}: compaction {:?}, fault stalls {} (max {} us)",
        mode.name(),
        log.compactions(),
        log.fault_stalls().len(),
        log.fault_stalls().max() / 1000
    );
    assert_eq!(log.compactions().len(), 1);
    assert!(log.records().iter().any(|r| r.kind == "flip"));
    assert_compacted_in(&heap, mode);
    assert!(
        !log.fault_stalls().is_empty(),
        "the readers touched the last pages before the background fill got there"
    );
    assert_eq!(log.fault_stalls_lost(), 0);
    m.verify().unwrap();
    Some(log.fault_stalls().len())
}

#[test]
fn many_threads_faulting_on_one_page_all_see_it_filled_once() {
    readers_fault_together(FaultMode::Auto, 6, &[0]);
}

#[test]
fn many_threads_faulting_on_one_page_all_see_it_filled_once_server() {
    readers_fault_together(FaultMode::Server, 6, &[0]);
}

/// Nodes are 40 bytes: about 100 to a 4 KiB page. Two readers per page, on each of
/// the last six pages and every other page below.
const NEIGHBOURS: [u64; 6] = [0, 100, 200, 300, 500, 700];

#[test]
fn many_threads_faulting_on_neighbouring_pages_all_see_them_filled() {
    readers_fault_together(FaultMode::Auto, 12, &NEIGHBOURS);
}

#[test]
fn many_threads_faulting_on_neighbouring_pages_all_see_them_filled_server() {
    readers_fault_together(FaultMode::Server, 12, &NEIGHBOURS);
}

#[test]
fn writers_race_the_background_fill_and_allocation_goes_on() {
    let Some((heap, node)) = heap(128 << 20, true) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    build_list(&mut m, node, 200_000);
    let writer = {
        let heap = heap.clone();
        let started = Arc::new(Barrier::new(2));
        let s2 = Arc::clone(&started);
        let h = std::thread::spawn(move || {
            let mut w = heap.bind_mutator().unwrap();
            build_list(&mut w, node, 20_000);
            w.blocking(|| s2.wait());
            // Runs during the collection's plan and its compaction: black allocation
            // and writes into pages that are being installed around it.
            for round in 0..20u64 {
                build_list(&mut w, node, 5_000);
                let mut cur = w.stack_get(0);
                while let Some(c) = cur {
                    let id = w.read_word(c, 2);
                    w.write_word(c, 3, id * 3);
                    cur = w.read_ref(c, 0);
                }
                w.stack_truncate(1);
                let _ = round;
            }
            walk(&w, 0)
        });
        started.wait();
        h
    };
    let before = walk(&m, 0);
    m.collect();
    // Mutate every node while the compaction runs (each write lands on a page that
    // is installed on demand or just was), then allocate more.
    let mut cur = m.stack_get(0);
    while let Some(c) = cur {
        let id = m.read_word(c, 2);
        m.write_word(c, 3, id * 3);
        cur = m.read_ref(c, 0);
    }
    build_list(&mut m, node, 10_000);
    assert_eq!(walk(&m, 0), before);
    let (n, _) = m.blocking(move || writer.join().unwrap());
    assert_eq!(n, 20_000);
    m.collect(); // waits for the first compaction, then a whole new cycle
    m.collect();
    assert_eq!(walk(&m, 0), before);
    m.blocking(|| heap.wait_idle());
    assert!(heap.pause_log().compactions().len() >= 2);
    m.verify().unwrap();
}

#[test]
fn a_collection_requested_during_compaction_waits_for_it() {
    let Some((heap, node)) = heap(128 << 20, true) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    build_list(&mut m, node, 300_000);
    let before = walk(&m, 0);
    for _ in 0..5 {
        m.collect();
    }
    assert_eq!(walk(&m, 0), before);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    assert_eq!(log.collections(), 5);
    // Cycles never overlap: each mark pause starts after the previous compaction.
    assert_eq!(log.compactions().len(), 5);
    let kinds: Vec<&str> = log
        .records()
        .iter()
        .map(|r| r.kind)
        .filter(|k| *k != "mark-end")
        .collect();
    assert_eq!(kinds, ["mark-start", "flip"].repeat(5));
    let ends = log
        .records()
        .iter()
        .filter(|r| r.kind == "mark-end")
        .count();
    assert!(ends >= 5, "{ends} mark-end pauses");
}

/// The kernel's flags (`VmFlags` in `/proc/self/smaps`) of the mapping holding `addr`.
fn vm_flags_at(addr: usize) -> Vec<String> {
    maps::read_smaps()
        .into_iter()
        .find(|m| (m.start..m.end).contains(&addr))
        .unwrap_or_else(|| panic!("no mapping holds {addr:#x}"))
        .vm_flags
}

/// `AnonHugePages` (KiB) of the mapping holding `addr`, from `/proc/self/smaps`.
fn anon_huge_kib_at(addr: usize) -> u64 {
    let text = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
    let mut inside = false;
    for line in text.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = head.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = (a..b).contains(&addr);
                continue;
            }
        }
        if let Some(v) = line.strip_prefix("AnonHugePages:").filter(|_| inside) {
            return v
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .expect("AnonHugePages");
        }
    }
    panic!("no AnonHugePages for {addr:#x}");
}

/// [`heap`] with `thp` on and the pre-touch on or off.
fn heap_thp(capacity: usize, pretouch: bool) -> Option<(Heap, TypeId)> {
    let (r, node) = registry();
    let mut cfg = HeapConfig::new(capacity);
    cfg.thp = true;
    cfg.pretouch = pretouch;
    cfg.verify_after_gc = true;
    Some((common::compaction_heap(cfg, r)?, node))
}

/// A heap advised `MADV_HUGEPAGE` (for its pre-touch) loses that advice when its
/// first concurrent compaction registers it: there, a first write into an empty
/// 2 MiB range made the kernel allocate and zero a huge page before it reported the
/// userfaultfd fault and dropped the page (`flip::no_huge_faults`).
#[test]
fn compaction_turns_huge_page_faults_off_on_the_heap() {
    let Some((heap, node)) = heap_thp(64 << 20, true) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    build_list(&mut m, node, 10_000);
    let at = m.stack_get(0).unwrap().addr();
    let before = vm_flags_at(at);
    assert!(
        before.iter().any(|f| f == "hg"),
        "the heap starts with MADV_HUGEPAGE (thp: true): {before:?}"
    );
    let sum = walk(&m, 0);
    m.collect();
    m.blocking(|| heap.wait_idle());
    assert_compacted_in(&heap, heap.fault_mode());
    assert_eq!(walk(&m, 0), sum);
    let at = m.stack_get(0).unwrap().addr();
    let after = vm_flags_at(at);
    assert!(
        after.iter().any(|f| f == "nh") && !after.iter().any(|f| f == "hg"),
        "after a concurrent compaction the heap is MADV_NOHUGEPAGE: {after:?}"
    );
}

/// A heap that is not pre-touched never advises its heap span `MADV_HUGEPAGE`,
/// even with `thp` on: a mutator's first write into an empty 2 MiB range would
/// be one fault zeroing 2 MiB, with no GC point inside it (`space/moving.rs`).
/// The span is `MADV_NOHUGEPAGE` from the start, so objects allocated before any
/// collection sit on base pages (`AnonHugePages` 0 in their mapping).
#[test]
fn a_heap_not_pre_touched_allocates_on_base_pages() {
    let Some((heap, node)) = heap_thp(64 << 20, false) else {
        return;
    };
    let mut m = heap.bind_mutator().unwrap();
    // 8 MiB of nodes and garbage: four 2 MiB ranges written for the first time.
    build_list(&mut m, node, 100_000);
    let at = m.stack_get(0).unwrap().addr();
    let flags = vm_flags_at(at);
    assert!(
        flags.iter().any(|f| f == "nh") && !flags.iter().any(|f| f == "hg"),
        "a heap without the pre-touch is MADV_NOHUGEPAGE from the start: {flags:?}"
    );
    assert_eq!(
        anon_huge_kib_at(at),
        0,
        "huge pages in the heap span before any collection"
    );
    let sum = walk(&m, 0);
    m.collect();
    m.blocking(|| heap.wait_idle());
    assert_eq!(walk(&m, 0), sum);
}

#[test]
fn the_in_pause_fallback_gives_the_same_graph() {
    let Some((conc, node)) = heap(64 << 20, true) else {
        return;
    };
    let (in_flip, _) = heap(64 << 20, false).unwrap();
    let (r, _) = registry();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.verify_after_gc = true;
    cfg.concurrent_marking = false;
    let stw = Heap::new(cfg, r).unwrap();
    let run = |heap: &Heap| {
        let mut m = heap.bind_mutator().unwrap();
        build_list(&mut m, node, 100_000);
        let mut sums = vec![walk(&m, 0)];
        for i in 0..3 {
            build_list(&mut m, node, 10_000 * (i + 1));
            m.collect();
            sums.push(walk(&m, 0));
            sums.push(walk(&m, m.stack_len() - 1));
            m.pop();
        }
        m.blocking(|| heap.wait_idle());
        (sums, heap.used_bytes())
    };
    let a = run(&conc);
    let b = run(&in_flip);
    let c = run(&stw);
    assert_eq!(a, b, "concurrent and flip-pause compaction disagree");
    assert_eq!(
        a, c,
        "the concurrent cycle and the one-pause cycle disagree"
    );
    let compacts_in_pause =
        |r: &flipgc_core::PauseRecord| r.phases.iter().any(|(n, _)| *n == "compact");
    let flips = |h: &Heap| -> Vec<bool> {
        let log = h.pause_log();
        let f: Vec<bool> = log
            .records()
            .iter()
            .filter(|r| r.kind == "flip")
            .map(compacts_in_pause)
            .collect();
        f
    };
    assert!(flips(&conc).iter().all(|c| !c) && !flips(&conc).is_empty());
    assert!(flips(&in_flip).iter().all(|c| *c) && !flips(&in_flip).is_empty());
    assert!(stw.pause_log().records().iter().all(|r| r.kind == "full"));
    // The flip pause's phases, in order: the registration is timed apart from the
    // hand-off after it (`collect/flip.rs`).
    let phases = |h: &Heap| -> Vec<Vec<&'static str>> {
        let log = h.pause_log();
        let p: Vec<Vec<&'static str>> = log
            .records()
            .iter()
            .filter(|r| r.kind == "flip")
            .map(|r| r.phases.iter().map(|(n, _)| *n).collect())
            .collect();
        p
    };
    let concurrent = ["roots", "large-objects", "flip", "register", "handoff"];
    let in_pause = [&concurrent[..], &["compact", "release"]].concat();
    for p in phases(&conc) {
        assert_eq!(p, concurrent, "a concurrent cycle's flip pause");
    }
    for p in phases(&in_flip) {
        assert_eq!(p, in_pause, "a flip pause that compacts");
    }
}

/// Recycling ahead (`collect/compaction/recycle.rs`): as a compaction starts,
/// from-space's pages that hold nothing it reads move into the heap above the
/// allocation top, so allocation during the compaction takes present pages, and
/// what it gets reads as zeros. The background fill (which starts right after the
/// ahead pass, on the same thread: one worker) is held back while this mutator
/// allocates 32 MiB, 8,192 one-page zero fills had the pages been empty; each new
/// node is checked to read as zeros (the moved pages hold old nodes), made in each
/// of the four ways that zero in the allocation buffer. Fails with
/// the ahead pass off (thousands of fault stalls), or with the dirty end not
/// raised before it (a new node reads garbage), or with `Tlab::bump_n_then`
/// zeroing neither the leaves nor the parent's last words.
#[test]
fn allocation_during_compaction_takes_recycled_pages_zeroed() {
    let started = Arc::new((Mutex::new((false, false)), Condvar::new()));
    let gate = Arc::clone(&started);
    let hook = FillHook(Arc::new(move |_, _, claimed| {
        if !claimed {
            let (lock, cv) = &*gate;
            let mut g = lock.lock().unwrap();
            g.0 = true;
            cv.notify_all();
            let _ = cv
                .wait_timeout_while(g, std::time::Duration::from_secs(10), |g| !g.1)
                .unwrap();
        }
    }));
    let (r, node) = registry();
    let mut cfg = HeapConfig::new(256 << 20);
    cfg.fill_hook = Some(hook);
    cfg.concurrent_workers = 1;
    cfg.verify_after_gc = true;
    let heap = Heap::new(cfg, r).unwrap();
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return;
    }
    let mut m = heap.bind_mutator().unwrap();
    build_list(&mut m, node, 100_000);
    // 64 MiB of garbage above the list: whole pages with no live word.
    for i in 0..(64u64 << 20) / 40 {
        m.alloc_push(node, 0).unwrap();
        let g = m.pop().unwrap();
        m.write_word(g, 2, i | 1);
        m.write_word(g, 3, !i);
    }
    let before = walk(&m, 0);
    m.collect();
    let fill_started = m.blocking(|| {
        let (lock, cv) = &*started;
        let g = lock.lock().unwrap();
        let limit = std::time::Duration::from_secs(10);
        cv.wait_timeout_while(g, limit, |g| !g.0).unwrap().0 .0
    });
    assert!(fill_started, "the background fill did not start");
    // 32 MiB in four ways, 8 MiB each: one node at a time; three at a time
    // (`push_fixed_n`); a parent with two new leaves (`push_fixed_with_new`); two
    // new leaves stored into a parent (`alloc_fixed_n_into`).
    let t = heap.types().fixed_type(node).unwrap();
    let fs = [0, 1].map(|f| heap.types().ref_field(node, f).unwrap());
    let total = (32u64 << 20) / 40;
    let mut i = 0u64;
    while i < total {
        let way = i * 4 / total;
        let mut check = |m: &flipgc_core::Mutator, n: flipgc_core::Gc<'_>, leaf: bool| {
            let fields = (m.read_ref(n, 0), m.read_ref(n, 1));
            let words = (m.read_word(n, 2), m.read_word(n, 3));
            let fields_ok =
                fields == (None, None) || (!leaf && fields.0.is_some() && fields.1.is_some());
            assert!(
                fields_ok && words == (0, 0),
                "new node {i} reads {fields:?} {words:?}"
            );
            i += 1;
        };
        match way {
            0 => {
                m.alloc_push(node, 0).unwrap();
                check(&m, m.pop().unwrap(), true);
            }
            1 => {
                m.push_fixed_n::<3>(t).unwrap();
                for _ in 0..3 {
                    check(&m, m.pop().unwrap(), true);
                }
            }
            way => {
                if way == 2 {
                    m.push_fixed_with_new::<2>(t, t).unwrap();
                } else {
                    m.push_fixed(t).unwrap();
                    m.alloc_fixed_n_into::<2>(t, m.stack_len() - 1, fs).unwrap();
                }
                let parent = m.pop().unwrap();
                check(&m, parent, false);
                for f in [0, 1] {
                    check(&m, m.read_ref(parent, f).expect("a new leaf"), true);
                }
            }
        }
    }
    {
        let (lock, cv) = &*started;
        lock.lock().unwrap().1 = true;
        cv.notify_all();
    }
    m.blocking(|| heap.wait_idle());
    assert_eq!(walk(&m, 0), before);
    let log = heap.pause_log();
    assert_eq!(log.compactions().len(), 1);
    let stalls = log.fault_stalls().len();
    eprintln!("fault stalls: {stalls}");
    // The list interleaved its nodes with garbage, so from-space holds live words
    // up to about 7.6 MiB while the compacted end is at about 3.8 MiB: the pages in
    // between are read by compaction, not moved, and allocation over them faults,
    // a page at a time (978 faults here). Without the ahead pass, all 32 MiB fault:
    // 8,192 pages.
    assert!(stalls < 2048, "{stalls} fault stalls: allocation faulted");
    m.verify().unwrap();
}
