//! The pacer: when to start the next cycle, and how hard to push back on mutators
//! that allocate faster than the collector keeps up.
//!
//! A concurrent cycle frees memory only at its flip, after marking and planning, and
//! mutators keep allocating meanwhile. So a cycle must start while enough is free to
//! cover the allocation until its flip. The pacer keeps online estimates of
//! - `R`, the allocation rate (bytes/s): an exponentially weighted moving average of
//!   rates sampled over windows of at least [`SAMPLE_NS`], and of their squared
//!   deviation, so that `R_hi = R + σ` covers some of the spread (after ZGC's
//!   rule-based heuristics, which add a margin for the rate's variance);
//! - `D`, a cycle's duration from its request to its flip, as a function of the live
//!   data: `D = D0 + k·live`, where `k` (ns per live byte) is a moving average of
//!   what past cycles took (their observed duration minus `D0`, over their live
//!   bytes) and `D0` is a floor for the fixed costs;
//! - `A`, the bytes mutators actually allocated from a cycle's request to its flip
//!   (a moving average over past cycles): mutators allocate more slowly while the
//!   collector shares the CPUs, so `R · D` alone overestimates.
//!
//! **The trigger.** A cycle starts when the free memory `F` falls to
//! `T = max(A, R_hi · D) · (1 + SAFETY) + RESERVE`, with `R_hi = R + σ`: at the
//! current rate, less would run out before the flip. The `R_hi · D` term follows a
//! rate that jumps (a burst) within milliseconds; the `A` term keeps what was seen.
//! `T` is recomputed at every rate sample and after every cycle, and mutators
//! compare against it when they refill their allocation buffers. Until
//! [`WARMUP_CYCLES`] cycles have been measured, a cycle also starts at half the
//! capacity used.
//!
//! **Graceful pressure.** While a cycle is under way and `F` falls below `T/2`,
//! each allocation-buffer refill sleeps (counted as stopped) for
//! `MAX_THROTTLE · (1 − F / (T/2))`: allocation slows in proportion as the heap
//! fills, instead of stopping dead at the wall, and the GC threads get the CPU. A
//! hard stall (waiting for the flip) happens only when the heap is really exhausted.
//!
//! Everything here is plain arithmetic on values passed in, unit-tested against
//! hand-made histories; `heap`/`mutator`/`collect` feed it and act on it.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Shortest window a rate sample covers (ns).
pub const SAMPLE_NS: u64 = 2_000_000;
/// Weight of a new rate sample in the moving averages.
const RATE_ALPHA: f64 = 0.3;
/// Weight of a new cycle duration.
const DURATION_ALPHA: f64 = 0.5;
/// Extra margin on top of `max(A, R_hi · D)`.
pub const SAFETY: f64 = 0.25;
/// Fixed part of a cycle's duration, at least (ns): the pauses, thread wake-ups.
pub const D0_NS: f64 = 5_000_000.0;
/// Cycles measured before the trigger relies on the estimates alone.
pub const WARMUP_CYCLES: u32 = 2;
/// Longest throttling sleep per allocation-buffer refill (ns).
pub const MAX_THROTTLE_NS: u64 = 500_000;

/// Why a cycle started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Reason {
    /// The pacer: free memory fell to the trigger.
    Pacer,
    /// An allocation found the heap full.
    HeapFull,
    /// `Mutator::collect`.
    Explicit,
    /// `GcTrigger::AfterBytes`.
    AfterBytes,
}

impl Reason {
    /// The name in logs and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Pacer => "pacer",
            Reason::HeapFull => "heap-full",
            Reason::Explicit => "explicit",
            Reason::AfterBytes => "after-bytes",
        }
    }
}

/// The estimates and the trigger. Updated under the heap's space lock (rate
/// samples, at refills) and by the driver (cycle durations); the trigger is read by
/// every refill, lock-free.
#[derive(Debug)]
pub struct Pacer {
    /// The heap size cycles are paced against: the capacity, or the soft limit.
    limit: AtomicUsize,
    reserve: usize,
    trigger: AtomicUsize,
    est: parking_lot::Mutex<Estimates>,
    /// Nanoseconds mutators have slept in throttling, in all.
    throttled: std::sync::atomic::AtomicU64,
}

/// The moving averages.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Estimates {
    /// Allocation rate, bytes per ns.
    pub rate: f64,
    /// Its variance (squared bytes per ns).
    pub rate_var: f64,
    /// Samples taken.
    pub samples: u64,
    /// Cycle duration per live byte beyond `D0` (ns per byte).
    pub ns_per_live: f64,
    /// Cycles measured.
    pub cycles: u32,
    /// Bytes allocated from a cycle's request to its flip (moving average).
    pub alloc_per_cycle: f64,
    /// Live bytes after the last cycle.
    pub live: usize,
    last_at_ns: u64,
    last_total: u64,
    window_open: bool,
}

impl Estimates {
    /// `R_hi`, bytes per ns.
    pub fn rate_hi(&self) -> f64 {
        self.rate + self.rate_var.max(0.0).sqrt()
    }

    /// `D` for `live` bytes, ns.
    pub fn duration_ns(&self, live: usize) -> f64 {
        D0_NS + self.ns_per_live * live as f64
    }

    /// Takes a rate sample: `total` bytes allocated since the heap began, at
    /// `now_ns`. Windows shorter than [`SAMPLE_NS`] are merged into the next.
    /// Whether a sample was taken.
    pub fn sample(&mut self, now_ns: u64, total: u64) -> bool {
        if !self.window_open {
            // The first call only opens the first window.
            self.window_open = true;
            self.last_at_ns = now_ns;
            self.last_total = total;
            return false;
        }
        let dt = now_ns.saturating_sub(self.last_at_ns);
        if dt < SAMPLE_NS {
            return false;
        }
        let r = total.saturating_sub(self.last_total) as f64 / dt as f64;
        if self.samples == 0 {
            self.rate = r;
            self.rate_var = 0.0;
        } else {
            let d = r - self.rate;
            self.rate += RATE_ALPHA * d;
            self.rate_var = (1.0 - RATE_ALPHA) * (self.rate_var + RATE_ALPHA * d * d);
        }
        self.samples += 1;
        self.last_at_ns = now_ns;
        self.last_total = total;
        true
    }

    /// Records a finished cycle: `duration_ns` from its request to its flip, with
    /// `live` bytes live after it, and `allocated` bytes allocated meanwhile.
    pub fn cycle(&mut self, duration_ns: u64, live: usize, allocated: u64) {
        let k = (duration_ns as f64 - D0_NS).max(0.0) / live.max(1 << 20) as f64;
        let a = allocated as f64;
        if self.cycles == 0 {
            self.ns_per_live = k;
            self.alloc_per_cycle = a;
        } else {
            self.ns_per_live += DURATION_ALPHA * (k - self.ns_per_live);
            self.alloc_per_cycle += DURATION_ALPHA * (a - self.alloc_per_cycle);
        }
        self.cycles += 1;
        self.live = live;
    }

    /// The trigger: free bytes at which a cycle must start, for a heap of `capacity`
    /// bytes with `reserve` bytes kept back.
    pub fn trigger(&self, capacity: usize, reserve: usize) -> usize {
        let need = (self.rate_hi() * self.duration_ns(self.live)).max(self.alloc_per_cycle);
        let paced = need * (1.0 + SAFETY);
        let mut t = paced as usize + reserve;
        if self.cycles < WARMUP_CYCLES {
            t = t.max(capacity / 2);
        }
        t.min(capacity)
    }
}

/// How long a refill should sleep: none while `free` is at least half the trigger,
/// up to [`MAX_THROTTLE_NS`] as it falls to zero.
pub fn throttle_ns(free: usize, trigger: usize) -> u64 {
    let half = trigger / 2;
    if half == 0 || free >= half {
        return 0;
    }
    let pressure = 1.0 - free as f64 / half as f64;
    (MAX_THROTTLE_NS as f64 * pressure) as u64
}

/// Where in a cycle an allocation-buffer refill happens, for throttling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CyclePart {
    /// No cycle requested or under way: no throttling (the trigger starts one).
    Idle,
    /// A cycle is requested, or marking and planning: memory comes at its flip.
    BeforeFlip,
    /// The cycle has flipped and its compaction runs: the next cycle cannot start
    /// before the compaction ends.
    Compacting,
}

/// How long a refill in `part` should sleep with `free` bytes left and trigger
/// `trigger`: before the flip, [`throttle_ns`] below half the trigger; while the
/// compaction runs, below a quarter (the cycle has freed its memory, but a heap
/// run dry then would stop its allocator for the rest of the compaction and the
/// next cycle's marking); never while idle.
pub fn throttle_in(part: CyclePart, free: usize, trigger: usize) -> u64 {
    match part {
        CyclePart::Idle => 0,
        CyclePart::BeforeFlip => throttle_ns(free, trigger),
        CyclePart::Compacting => throttle_ns(free, trigger / 2),
    }
}

impl Pacer {
    /// A pacer for a heap of `limit` bytes (its capacity, or its soft limit);
    /// `reserve` bytes are kept back in every trigger (a few allocation buffers).
    pub fn new(limit: usize, reserve: usize) -> Pacer {
        let est = Estimates::default();
        let trigger = est.trigger(limit, reserve);
        Pacer {
            limit: AtomicUsize::new(limit),
            reserve,
            trigger: AtomicUsize::new(trigger),
            est: parking_lot::Mutex::new(est),
            throttled: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The free bytes at which a cycle must start (lock-free).
    #[inline]
    pub fn trigger(&self) -> usize {
        self.trigger.load(Ordering::Relaxed)
    }

    fn update(&self, f: impl FnOnce(&mut Estimates) -> bool) {
        let mut est = self.est.lock();
        if f(&mut est) {
            let t = est.trigger(self.limit(), self.reserve);
            self.trigger.store(t, Ordering::Relaxed);
        }
    }

    /// The heap size cycles are paced against (bytes).
    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// A new soft limit (heap sizing, after a cycle): the trigger follows.
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
        self.update(|_| true);
    }

    /// A rate sample (see [`Estimates::sample`]).
    pub fn sample(&self, now_ns: u64, total: u64) {
        self.update(|e| e.sample(now_ns, total));
    }

    /// A finished cycle (see [`Estimates::cycle`]).
    pub fn cycle(&self, duration_ns: u64, live: usize, allocated: u64) {
        self.update(|e| {
            e.cycle(duration_ns, live, allocated);
            true
        });
    }

    /// Adds a throttling sleep to the total.
    pub fn add_throttled(&self, ns: u64) {
        self.throttled.fetch_add(ns, Ordering::Relaxed);
    }

    /// Nanoseconds mutators have slept in throttling since the heap began.
    pub fn throttled_ns(&self) -> u64 {
        self.throttled.load(Ordering::Relaxed)
    }

    /// A copy of the estimates.
    pub fn estimates(&self) -> Estimates {
        self.est.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_steady_rate_is_learned_and_sets_the_trigger() {
        let mut e = Estimates::default();
        assert!(!e.sample(0, 0), "the first call opens a window");
        assert!(
            !e.sample(MS, 1 << 20),
            "a window under 2 ms is not a sample"
        );
        // 1 GB/s = 1 byte per ns, for 20 windows of 10 ms.
        for i in 1..=20u64 {
            assert!(e.sample(i * 10 * MS, i * 10_000_000));
        }
        assert!((e.rate - 1.0).abs() < 1e-9, "{}", e.rate);
        assert!(e.rate_var < 1e-9);
        // Two cycles of 105 ms with 100 MiB live, allocating 50 MB each:
        // k = 100 ms / 100 MiB.
        e.cycle(105 * MS, 100 << 20, 50_000_000);
        e.cycle(105 * MS, 100 << 20, 50_000_000);
        let k = 100.0 * MS as f64 / (100u64 << 20) as f64;
        assert!((e.ns_per_live - k).abs() < 1e-12);
        assert!((e.duration_ns(100 << 20) - 105.0 * MS as f64).abs() < 1.0);
        // T = max(50 MB, 1 B/ns * 105 ms) * 1.25 + reserve, under the capacity.
        let t = e.trigger(1 << 30, 1 << 20);
        assert_eq!(t, (105.0 * MS as f64 * 1.25) as usize + (1 << 20));
        // When cycles allocated more than R·D predicts, that is what counts.
        e.cycle(105 * MS, 100 << 20, 500_000_000);
        let a = 50e6 + 0.5 * (500e6 - 50e6);
        assert_eq!(e.trigger(1 << 30, 0), (a * 1.25) as usize);
    }

    #[test]
    fn bursts_raise_the_rate_estimate_with_their_variance() {
        let mut e = Estimates::default();
        e.sample(0, 0);
        let mut total = 0;
        for i in 1..=40u64 {
            // Alternating 0.2 and 1.8 bytes per ns: mean 1, wide spread.
            total += if i % 2 == 0 { 2_000_000 } else { 18_000_000 };
            e.sample(i * 10 * MS, total);
        }
        assert!((0.6..1.4).contains(&e.rate), "{}", e.rate);
        assert!(
            e.rate_hi() > e.rate + 0.5,
            "σ counts: {} vs {}",
            e.rate_hi(),
            e.rate
        );
    }

    #[test]
    fn warmup_triggers_at_half_the_capacity_at_least() {
        let mut e = Estimates::default();
        assert_eq!(e.trigger(1 << 30, 0), 1 << 29);
        e.cycle(10 * MS, 1 << 20, 0);
        assert_eq!(e.trigger(1 << 30, 0), 1 << 29, "one cycle is not enough");
        e.cycle(10 * MS, 1 << 20, 0);
        // No allocation measured yet: the trigger is just the reserve now.
        assert_eq!(e.trigger(1 << 30, 4096), 4096);
    }

    #[test]
    fn the_trigger_never_exceeds_the_capacity() {
        let mut e = Estimates::default();
        e.sample(0, 0);
        e.sample(10 * MS, 10_000_000_000); // 1000 B/ns
        e.cycle(10_000 * MS, 1 << 30, 0);
        e.cycle(10_000 * MS, 1 << 30, 0);
        assert_eq!(e.trigger(1 << 30, 0), 1 << 30);
    }

    #[test]
    fn throttling_follows_the_part_of_the_cycle() {
        use CyclePart::*;
        assert_eq!(throttle_in(Idle, 0, 1000), 0);
        assert_eq!(throttle_in(BeforeFlip, 250, 1000), MAX_THROTTLE_NS / 2);
        // While compacting: nothing until a quarter of the trigger, then the same
        // slope down to the wall.
        assert_eq!(throttle_in(Compacting, 250, 1000), 0);
        assert_eq!(throttle_in(Compacting, 125, 1000), MAX_THROTTLE_NS / 2);
        assert_eq!(throttle_in(Compacting, 0, 1000), MAX_THROTTLE_NS);
    }

    #[test]
    fn throttling_grows_as_the_heap_fills_below_half_the_trigger() {
        assert_eq!(throttle_ns(600, 1000), 0);
        assert_eq!(throttle_ns(500, 1000), 0);
        assert_eq!(throttle_ns(250, 1000), MAX_THROTTLE_NS / 2);
        assert_eq!(throttle_ns(0, 1000), MAX_THROTTLE_NS);
        assert_eq!(throttle_ns(0, 0), 0);
    }

    #[test]
    fn the_shared_pacer_recomputes_its_trigger() {
        let p = Pacer::new(1 << 30, 0);
        assert_eq!(p.trigger(), 1 << 29);
        p.sample(0, 0);
        p.sample(10 * MS, 10_000_000);
        p.cycle(55 * MS, 50 << 20, 0);
        p.cycle(55 * MS, 50 << 20, 0);
        let e = p.estimates();
        assert_eq!(p.trigger(), e.trigger(1 << 30, 0));
        assert!(p.trigger() < 1 << 29);
    }
}
