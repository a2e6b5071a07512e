//! `HeapConfig::gc_thread_priority`: every thread the collector spawns takes the
//! configured scheduling, and out-of-range values are refused by `Heap::new`.
//!
//! `Nice(5)` needs no privilege (raising one's own nice value is always allowed),
//! so the test runs anywhere. Each collector thread reports itself through the
//! `collector_thread_start` seam, which reads the thread's nice value from the
//! kernel (`getpriority` on its thread id); the long-lived GC driver is also read
//! from outside, in `/proc/self/task/*/stat`. Two heaps between them start every
//! kind of collector thread: a concurrent one with two concurrent workers and the
//! fault server (the driver, a concurrent marker, the fault server, a background
//! fill worker), and a one-pause one with two GC workers (the in-pause marking and
//! filling workers, spawned by the mutator that runs the pause, so they would keep
//! the mutator's nice value if they did not set their own). The seam is
//! process-wide: this file is a test binary of its own with one test using it.

use flipgc_core::{GcThreadPriority, Heap, HeapConfig, RtPolicy, TypeRegistry};

#[path = "common/collector_threads.rs"]
mod collector_threads;

/// The nice value the collector's threads are given.
const NICE: i32 = 5;

/// The calling thread's nice value, from the kernel.
fn own_nice() -> i32 {
    // SAFETY: no arguments; returns the calling thread's id.
    let tid = unsafe { libc::gettid() };
    // SAFETY: plain integer arguments. (-1 is a valid nice value; errno is not
    // checked since the call cannot fail for the calling thread's own id.)
    unsafe { libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t) }
}

/// (thread name, nice value) of every thread of this process, from `/proc`.
fn tasks_nice() -> Vec<(String, i32)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let dir = e.expect("a task entry").path();
        let (Ok(comm), Ok(stat)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("stat")),
        ) else {
            continue; // the thread exited meanwhile
        };
        // Fields after the parenthesised name: state is field 3, nice field 19.
        let rest = &stat[stat.rfind(')').expect("stat has a name") + 2..];
        let nice: i32 = rest
            .split(' ')
            .nth(16)
            .expect("a nice field")
            .parse()
            .unwrap();
        out.push((comm.trim().to_string(), nice));
    }
    out
}

#[test]
fn every_collector_thread_takes_the_configured_nice_value() {
    let seen = collector_threads::record_each_thread(own_nice);
    let mutator_nice = own_nice();
    assert_ne!(
        mutator_nice, NICE,
        "the test's own thread must not start at {NICE}"
    );

    let expected =
        collector_threads::start_every_collector_thread(GcThreadPriority::Nice(NICE), |_| {
            // The driver lives as long as the heap: read it from outside too.
            let drivers: Vec<_> = tasks_nice()
                .into_iter()
                .filter(|(name, _)| name == "flipgc-driver")
                .collect();
            assert!(
                !drivers.is_empty(),
                "no flipgc-driver thread in /proc/self/task"
            );
            for (name, nice) in drivers {
                assert_eq!(nice, NICE, "{name} in /proc/self/task");
            }
        });
    flipgc_core::seams::set_collector_thread_start(None);

    let seen = seen.lock().unwrap();
    for kind in &expected {
        assert!(
            seen.contains_key(*kind),
            "no {kind} thread started: {seen:?}"
        );
    }
    for (kind, nices) in seen.iter() {
        assert!(
            nices.iter().all(|&n| n == NICE),
            "{kind}: nice values {nices:?}, wanted {NICE}"
        );
    }
    // The mutator (the test's thread) kept its own.
    assert_eq!(own_nice(), mutator_nice);
}

#[test]
fn out_of_range_priorities_are_refused_by_heap_new() {
    let rt = |policy, priority| GcThreadPriority::RealTime { policy, priority };
    for (p, needle) in [
        (
            GcThreadPriority::Nice(20),
            "nice value 20 must be between -20 and 19",
        ),
        (
            GcThreadPriority::Nice(-21),
            "nice value -21 must be between -20 and 19",
        ),
        (
            rt(RtPolicy::Fifo, 0),
            "real-time priority 0 (Fifo) must be between 1 and 99",
        ),
        (
            rt(RtPolicy::RoundRobin, 100),
            "real-time priority 100 (RoundRobin) must be between 1 and 99",
        ),
    ] {
        let mut cfg = HeapConfig::new(1 << 20);
        cfg.gc_thread_priority = p;
        let Err(e) = Heap::new(cfg, TypeRegistry::new()) else {
            panic!("{p:?} was accepted");
        };
        let e = e.to_string();
        assert!(e.contains(needle), "{p:?}: {e:?} lacks {needle:?}");
    }
    for s in ["rr:-1", "batch:3", "fifo", "nice:x"] {
        let e = GcThreadPriority::parse(s).unwrap_err().to_string();
        assert!(e.contains("not one of inherit, nice:N"), "{s}: {e}");
    }
    for s in ["fifo:0", "nice:20"] {
        let e = GcThreadPriority::parse(s).unwrap_err().to_string();
        assert!(e.contains("must be between"), "{s}: {e}");
    }
}
