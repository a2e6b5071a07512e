//! `GcThreadPriority::Fair`: every thread the collector spawns runs with the
//! configured time slice (EEVDF's custom slice, Linux 6.12 and later), read back
//! from the kernel (`se.slice` in `/proc/thread-self/sched`) by the
//! `collector_thread_start` seam on each thread as it starts. No privilege is
//! needed (nice 0, the process's own). On Linux 6.12 or later (custom slices)
//! the setting must take effect; on an older kernel the test checks only that
//! the refusal is reported (`apply_to_current_thread` gives an error) and says it
//! skipped the rest. The seam is process-wide: this file is a test binary of its
//! own.

use flipgc_core::GcThreadPriority;

#[path = "common/collector_threads.rs"]
mod collector_threads;

/// The slice the collector's threads are given, in microseconds.
const SLICE_US: u32 = 300;

/// The calling thread's time slice in nanoseconds, as the scheduler reports it.
fn own_slice_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/sched").ok()?;
    let line = text.lines().find(|l| l.starts_with("se.slice"))?;
    line.split(':').nth(1)?.trim().parse().ok()
}

/// Whether the running kernel is Linux 6.12 or later (EEVDF's custom slices for
/// `SCHED_OTHER`), from `uname -r` as `/proc/sys/kernel/osrelease` gives it.
fn kernel_has_custom_slices() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut parts = release
        .trim()
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (6, 12)
}

#[test]
fn every_collector_thread_takes_the_configured_slice() {
    let fair = GcThreadPriority::Fair {
        nice: 0,
        slice_us: SLICE_US,
    };
    // Probe on a scratch thread, so the test's own thread keeps its slice.
    let probe = std::thread::spawn(move || fair.apply_to_current_thread().map(|()| own_slice_ns()))
        .join()
        .unwrap();
    if !kernel_has_custom_slices() {
        assert!(
            probe.is_err(),
            "a kernel before 6.12 cannot keep a custom slice"
        );
        eprintln!("skipped: this kernel has no custom slices: {probe:?}");
        return;
    }
    let ns = probe.expect("Linux 6.12 or later takes a custom slice");
    assert_eq!(
        ns,
        Some(u64::from(SLICE_US) * 1000),
        "the probe's own slice"
    );
    let own = own_slice_ns().expect("se.slice");
    assert_ne!(
        own,
        u64::from(SLICE_US) * 1000,
        "the test thread must not start at the slice"
    );

    let seen = collector_threads::record_each_thread(own_slice_ns);

    let expected = collector_threads::start_every_collector_thread(fair, |_| {});
    flipgc_core::seams::set_collector_thread_start(None);

    let seen = seen.lock().unwrap();
    for kind in &expected {
        assert!(
            seen.contains_key(*kind),
            "no {kind} thread started: {seen:?}"
        );
    }
    let want = Some(u64::from(SLICE_US) * 1000);
    for (kind, slices) in seen.iter() {
        assert!(
            slices.iter().all(|&s| s == want),
            "{kind}: slices {slices:?} ns, wanted {want:?}"
        );
    }
    // The mutator (the test's thread) kept its own.
    assert_eq!(own_slice_ns(), Some(own));
}
