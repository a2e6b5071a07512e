//! The synchronisation primitives of the protocols that have concurrency models
//! (`collect/page_state.rs`, `safepoint.rs`, `collect/pause_offer.rs`,
//! `space/los_marks.rs`). Those files name their locks and atomics through this
//! module only, so the model tests (`tests/models.rs`, `tests/offer_model.rs`,
//! `tests/large_model.rs`) can compile the same source files against a model
//! checker's versions instead.

pub use parking_lot::{Condvar, Mutex, MutexGuard};
pub use std::sync::atomic;
/// The clock of the pause offer's deadlines (`collect/pause_offer.rs`).
pub use std::time::Instant;

/// Gives up the CPU for a moment (the handshake's polling before it sleeps).
pub use std::thread::yield_now;

/// Whether the calling thread runs under a real-time policy: the pause offer's
/// driver then sleeps at once instead of polling (`priority.rs`).
pub(crate) use crate::priority::realtime;

/// The CPU the calling thread runs on (`sched_getcpu`; 0 where unknown). A hint:
/// the thread may move right after.
pub fn current_cpu() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns the CPU or -1.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    0
}

/// How many times a side of the safepoint handshake polls, yielding between looks,
/// before it sleeps on the condition variable (`safepoint.rs`).
///
/// A yield with nothing else to run takes about 0.2 us here, so 200 of them poll
/// for some 40 us, not longer (a C loop of 200 `sched_yield`s: 41-47 us,
/// 2026-12-02). Polling for 500 us instead (a time budget), so that a parked
/// mutator's vCPU stayed busy through the flip's TLB-flush interrupts, was tried
/// and dropped: in two pausebench runs each (GCBench and binary-trees, 1 and
/// 4 GiB, `auto`, alternating order), the flips' median at 4 GiB was 166-203 us
/// against 132-180 us with 200 yields, and no other pause or the hiccups
/// improved beyond the noise.
pub const HANDSHAKE_POLLS: u32 = 200;

/// The driver gives its CPU up for a moment after it resumes the world
/// (`safepoint.rs`, invariant 5): a short sleep, so that a resumed mutator waiting
/// for this CPU gets it.
pub fn hand_over_cpu() {
    std::thread::sleep(HAND_OVER);
}

/// How long [`hand_over_cpu`] asks to sleep. A sleep costs more than it asks for
/// (a 10 us `nanosleep` took 66 us on average and 130 us at most here, idle); the
/// driver's concurrent work starts that much later, after each pause that parked a
/// mutator.
pub const HAND_OVER: std::time::Duration = std::time::Duration::from_micros(20);

/// The CPUs this process may run on (`std::thread::available_parallelism`, read
/// once; 1 if unknown).
pub fn cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
