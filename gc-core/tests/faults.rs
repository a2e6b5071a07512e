//! Faults during concurrent compaction that are not a mutator's plain read, in both
//! fault modes (SIGBUS: the faulting thread fills or waits in its own handler;
//! server: a fault-serving thread fills):
//! - a fault inside `Mutator::blocking` (counted as stopped), one on a thread that is
//!   not a mutator, and faults taken by the heap verifier with the world stopped and
//!   the space, large-object and globals locks held, all at once, with the
//!   background fill held back so that every touched page is filled on demand;
//! - a fault on a page a background worker has claimed and is still filling (a test
//!   hook holds it there): the toucher waits for that install, and the stall recorded
//!   covers the wait;
//! - more threads that are not mutators than SIGBUS mode's pool of fault records,
//!   faulting at once; and how much of an alternate signal stack the handler uses.
//!
//! Every test runs under a 60 s limit: a hang fails as "deadlock suspected".
//! Skipped (with a message) where the host has no userfaultfd or no SIGBUS feature.

use flipgc_core::{FaultMode, FillHook, Global, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[path = "common/timeout.rs"]
mod timeout;
use timeout::with_timeout;

fn page() -> usize {
    flipgc_heap::Capabilities::probe().geometry.page
}

/// node: fields 0 and 1 are references, 2 and 3 words (field `i` is the word at
/// `addr + 8 * (i + 1)`, after the header).
fn heap(fault: FaultMode, hook: FillHook) -> Option<(Heap, TypeId)> {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 4, &[0, 1]).unwrap();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.fault_mode = fault;
    cfg.fill_hook = Some(hook);
    let heap = match Heap::new(cfg, r) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("skipped: {e}");
            return None;
        }
    };
    if !heap.concurrent_compaction() {
        eprintln!("skipped: no userfaultfd here");
        return None;
    }
    assert_eq!(heap.fault_mode(), fault);
    Some((heap, node))
}

/// A list of `n` nodes (word 2 = id, word 3 = id * 3), id 0 at the head (the newest,
/// highest address), on the root stack's top.
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

/// Globals on the list's nodes with ids `ids` (the list at root stack slot 0).
fn globals_on(m: &Mutator, ids: &[u64]) -> Vec<(Global, u64)> {
    let mut out = Vec::new();
    let mut cur = m.stack_get(0);
    let mut id = 0;
    while let Some(c) = cur {
        if ids.contains(&id) {
            out.push((m.global(c), id));
        }
        cur = m.read_ref(c, 0);
        id += 1;
    }
    assert_eq!(out.len(), ids.len());
    out
}

/// A gate the background fill waits at (before its first claim), so that pages are
/// filled on demand only until it opens. Opens by itself after 20 s (no test hangs on it).
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !*open && Instant::now() < deadline {
            open = self
                .cv
                .wait_timeout(open, Duration::from_millis(50))
                .unwrap()
                .0;
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }

    fn close(&self) {
        *self.open.lock().unwrap() = false;
    }
}

fn gated() -> (Arc<Gate>, FillHook) {
    let gate = Arc::new(Gate::default());
    let g = Arc::clone(&gate);
    (
        gate,
        FillHook(Arc::new(move |_, _, claimed| {
            if !claimed {
                g.wait();
            }
        })),
    )
}

/// Every compaction served its faults in `mode`; the stalls recorded.
fn compacted_in(heap: &Heap, mode: FaultMode) -> hdrhistogram::Histogram<u64> {
    let log = heap.pause_log();
    let modes = log.compaction_fault_modes();
    assert!(
        !modes.is_empty() && modes.iter().all(|m| *m == mode),
        "{modes:?}"
    );
    log.fault_stalls().clone()
}

/// With the background fill held back: a second mutator reads heap words inside
/// `blocking` (counted as stopped), a thread that is not a mutator reads others, and
/// the main mutator runs the verifier (world stopped, space, large-object and
/// globals locks held: its faults are served with those locks held), all at once.
/// Every value read during the compaction must be the one read after it.
fn faults_off_the_mutator_path(fault: FaultMode) {
    let (gate, hook) = gated();
    let Some((heap, node)) = heap(fault, hook) else {
        return;
    };
    let page = page();
    with_timeout("off-path", move || {
        let mut m = heap.bind_mutator().unwrap();
        build_list(&mut m, node, 100_000);
        let targets = globals_on(&m, &[0, 10_000, 40_000, 80_000]);
        m.collect(); // returns after the flip pause; the fill waits at the gate
                     // To-space addresses (the roots are forwarded); pages around each target.
        let addrs: Vec<(usize, u64)> = targets
            .iter()
            .map(|(g, id)| (m.get_global(g).addr(), *id))
            .collect();
        let spread: Vec<usize> = (0..64)
            .map(|k| (addrs[3].0 & !(page - 1)) - k * page)
            .collect();

        let blocker = {
            let heap = heap.clone();
            let (a, id) = addrs[0];
            let spread = spread.clone();
            std::thread::spawn(move || {
                let mut b = heap.bind_mutator().unwrap();
                b.blocking(|| {
                    assert_eq!(heap.peek_word(a + 24), Some(id), "inside blocking");
                    assert_eq!(heap.peek_word(a + 32), Some(id * 3));
                    spread
                        .iter()
                        .map(|&p| heap.peek_word(p).unwrap())
                        .collect::<Vec<_>>()
                })
            })
        };
        let stranger = {
            let heap = heap.clone();
            let (a, id) = addrs[1];
            std::thread::spawn(move || {
                assert_eq!(heap.peek_word(a + 24), Some(id), "not a mutator");
                assert_eq!(heap.peek_word(a + 32), Some(id * 3));
            })
        };
        let report = m
            .verify()
            .expect("the verifier, world stopped, mid-compaction");
        assert!(report.objects >= 100_000);
        let during = m.blocking(move || {
            stranger.join().unwrap();
            blocker.join().unwrap()
        });
        gate.open();
        m.blocking(|| heap.wait_idle());
        let after: Vec<u64> = spread.iter().map(|&p| heap.peek_word(p).unwrap()).collect();
        assert_eq!(during, after, "words read during the compaction");
        for (a, id) in &addrs {
            assert_eq!(heap.peek_word(a + 32), Some(id * 3));
        }
        let stalls = compacted_in(&heap, fault);
        eprintln!(
            "{}: {} fault stalls, max {} us",
            fault.name(),
            stalls.len(),
            stalls.max() / 1000
        );
        assert!(!stalls.is_empty());
        m.verify().unwrap();
    });
}

#[test]
fn faults_inside_blocking_off_mutators_and_in_the_verifier_sigbus() {
    faults_off_the_mutator_path(FaultMode::Sigbus);
}

#[test]
fn faults_inside_blocking_off_mutators_and_in_the_verifier_server() {
    faults_off_the_mutator_path(FaultMode::Server);
}

/// A mutator touches the list's head while a background worker has claimed its page
/// and sleeps (the hook) before filling it: the read waits for that worker's install,
/// reads the right values, and the stall recorded covers the wait.
fn fault_on_a_page_a_worker_is_filling(fault: FaultMode) {
    const HOLD: Duration = Duration::from_millis(300);
    let target = Arc::new(AtomicUsize::new(0));
    let claimed = Arc::new(AtomicBool::new(false));
    let hook = {
        let (target, claimed) = (Arc::clone(&target), Arc::clone(&claimed));
        FillHook(Arc::new(move |start, end, after_claim| {
            if !after_claim {
                return;
            }
            // Hold every claim until the test has named its page (no page is filled
            // before), then hold the claim of that page for HOLD.
            let deadline = Instant::now() + Duration::from_secs(20);
            while target.load(Ordering::Acquire) == 0 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            if (start..end).contains(&target.load(Ordering::Acquire)) {
                claimed.store(true, Ordering::Release);
                std::thread::sleep(HOLD);
            }
        }))
    };
    let Some((heap, node)) = heap(fault, hook) else {
        return;
    };
    let page = page();
    with_timeout("worker-filling", move || {
        let mut m = heap.bind_mutator().unwrap();
        build_list(&mut m, node, 100_000);
        let head = globals_on(&m, &[0]).pop().unwrap().0;
        m.collect();
        let at = m.get_global(&head).addr();
        target.store(at & !(page - 1), Ordering::Release);
        m.blocking(|| {
            let deadline = Instant::now() + Duration::from_secs(20);
            while !claimed.load(Ordering::Acquire) {
                assert!(
                    Instant::now() < deadline,
                    "no worker claimed the head's page"
                );
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        let t = Instant::now();
        let h = m.get_global(&head);
        assert_eq!((m.read_word(h, 2), m.read_word(h, 3)), (0, 0));
        let waited = t.elapsed();
        m.blocking(|| heap.wait_idle());
        let stalls = compacted_in(&heap, fault);
        eprintln!(
            "{}: the read waited {waited:?}; {} stalls recorded, max {} us",
            fault.name(),
            stalls.len(),
            stalls.max() / 1000
        );
        assert!(
            waited >= HOLD / 2,
            "the read did not wait for the worker: {waited:?}"
        );
        assert!(
            stalls.max() >= (HOLD / 2).as_nanos() as u64,
            "no stall recorded covers the wait ({waited:?}): max {} ns",
            stalls.max()
        );
        m.verify().unwrap();
    });
}

#[test]
fn a_fault_on_a_page_a_worker_is_filling_waits_for_it_sigbus() {
    fault_on_a_page_a_worker_is_filling(FaultMode::Sigbus);
}

#[test]
fn a_fault_on_a_page_a_worker_is_filling_waits_for_it_server() {
    fault_on_a_page_a_worker_is_filling(FaultMode::Server);
}

/// Bytes of a painted stack region that were written (from the low end up to the
/// first byte still holding the paint, counted from the top).
fn used_from_top(stack: &[u8], paint: u8) -> usize {
    stack.len()
        - stack
            .iter()
            .position(|&b| b != paint)
            .unwrap_or(stack.len())
}

/// Sixteen threads that are not mutators (twice SIGBUS mode's pool of fault
/// records) read sixteen different unfilled pages at once, then forty more each,
/// the background fill held back (every page is filled by its reader, in a buffer
/// borrowed from the pool); one of them runs its handler on an alternate stack painted first, to
/// see how much of it the kernel's signal frame and the handler use.
fn strangers_fault_at_once(fault: FaultMode) {
    const THREADS: usize = 16;
    const ROUNDS: usize = 4;
    let (gate, hook) = gated();
    let Some((heap, node)) = heap(fault, hook) else {
        return;
    };
    with_timeout("strangers", move || {
        let mut m = heap.bind_mutator().unwrap();
        build_list(&mut m, node, 100_000);
        let ids: Vec<u64> = (0..THREADS as u64).map(|k| k * 5_000).collect();
        let targets = globals_on(&m, &ids);
        let page = page();
        // Each thread also reads 40 pages below its target (the targets are about 50
        // pages apart), compared with the same words after the compaction.
        let region = |a: usize| -> Vec<usize> {
            (1..=40)
                .map(|k| (a & !(page - 1)) - k * page + (k * 136) % page)
                .collect()
        };
        let mut used = None;
        // Several compactions: races between the strangers get several chances.
        for round in 0..ROUNDS {
            gate.close();
            m.collect();
            let addrs: Vec<(usize, u64)> = targets
                .iter()
                .map(|(g, id)| (m.get_global(g).addr(), *id))
                .collect();
            let start = Arc::new(std::sync::Barrier::new(THREADS));
            let threads: Vec<_> = addrs
                .iter()
                .enumerate()
                .map(|(i, &(a, id))| {
                    let (heap, start) = (heap.clone(), Arc::clone(&start));
                    let words = region(a);
                    std::thread::spawn(move || {
                        let painted = (i == 0 && round == 0).then(AltStack::painted);
                        start.wait();
                        assert_eq!(heap.peek_word(a + 32), Some(id * 3), "stranger {i}");
                        let read: Vec<u64> =
                            words.iter().map(|&w| heap.peek_word(w).unwrap()).collect();
                        (painted.map(|s| s.used()), read)
                    })
                })
                .collect();
            let results: Vec<(Option<usize>, Vec<u64>)> =
                m.blocking(move || threads.into_iter().map(|t| t.join().unwrap()).collect());
            used = used.or(results[0].0);
            gate.open();
            m.blocking(|| heap.wait_idle());
            for (&(a, _), (_, read)) in addrs.iter().zip(&results) {
                let after: Vec<u64> = region(a)
                    .iter()
                    .map(|&w| heap.peek_word(w).unwrap())
                    .collect();
                assert_eq!(read, &after, "words a stranger read in round {round}");
            }
        }
        let stalls = compacted_in(&heap, fault);
        assert!(!stalls.is_empty());
        if fault == FaultMode::Sigbus {
            let used = used.unwrap();
            eprintln!("the handler's alternate stack: {used} bytes used (signal frame included)");
            assert!(used > 0, "the handler ran on the alternate stack");
            // std gives its threads max(SIGSTKSZ, AT_MINSIGSTKSZ) bytes, 8 KiB here:
            // threads that are not mutators run the handler there.
            assert!(used <= 6 << 10, "{used} bytes: too close to std's 8 KiB");
        }
        m.verify().unwrap();
    });
}

/// This thread's alternate signal stack, replaced by a painted one (restored on
/// drop).
struct AltStack {
    mem: Vec<u8>,
    old: libc::stack_t,
}

const PAINT: u8 = 0xa5;

impl AltStack {
    fn painted() -> AltStack {
        let mut mem = vec![PAINT; 64 << 10];
        // SAFETY: zeroed stack_t values are valid; the kernel writes `old`.
        let mut old: libc::stack_t = unsafe { std::mem::zeroed() };
        let st = libc::stack_t {
            ss_sp: mem.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: mem.len(),
        };
        // SAFETY: `mem` outlives its use as this thread's alternate stack (restored in
        // `used`, before it is dropped).
        assert_eq!(unsafe { libc::sigaltstack(&st, &mut old) }, 0);
        AltStack { mem, old }
    }

    fn used(self) -> usize {
        // SAFETY: puts back the thread's previous alternate stack (or none).
        unsafe { libc::sigaltstack(&self.old, std::ptr::null_mut()) };
        used_from_top(&self.mem, PAINT)
    }
}

#[test]
fn more_strangers_than_pool_records_fault_at_once_sigbus() {
    strangers_fault_at_once(FaultMode::Sigbus);
}

#[test]
fn more_strangers_than_pool_records_fault_at_once_server() {
    strangers_fault_at_once(FaultMode::Server);
}
