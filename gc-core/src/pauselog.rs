//! The pause log: one record per stop-the-world pause (kind, time-to-safepoint,
//! each phase, live and moved bytes, the flip), per finished cycle, per concurrent
//! compaction and per sanity re-trace, kept in bounded rings (`ring.rs`: the last
//! [`HeapConfig::pause_log_capacity`](crate::HeapConfig::pause_log_capacity) of
//! each); whole-run statistics beside them (counts, totals, maxima, HDR histograms
//! of pause totals and stalls) that count every record ever made; and JSON export.
//!
//! [`SanityReport`], the sanity re-trace's record, is defined here with the others.
//! Layer: base (docs/architecture.md, "Layers").

use crate::ring::{OwnedBytes, Ring};
use hdrhistogram::Histogram;
use serde::ser::SerializeMap;
use serde::Serialize;

/// How the heap was moved in a pause.
#[derive(Clone, Debug, Serialize)]
pub struct FlipSummary {
    /// `"mremap+dontunmap"`, `"mremap"` or `"copy"`.
    pub strategy: &'static str,
    /// `"pud"`, `"pmd"`, `"pte"` or `"copy"`.
    pub level: &'static str,
    /// Time of the flip itself.
    pub elapsed_ns: u64,
    /// Why mremap fell back to copying, if it did.
    pub fallback_reason: Option<String>,
    /// Bytes of garbage-only heap extents moved out before the pause, so that the
    /// flip skipped them (`collect/park.rs`).
    pub parked_bytes: u64,
}

impl FlipSummary {
    /// For pauses that move nothing (the mark pause).
    pub fn none() -> FlipSummary {
        FlipSummary {
            strategy: "none",
            level: "none",
            elapsed_ns: 0,
            fallback_reason: None,
            parked_bytes: 0,
        }
    }

    /// Summarises a flip engine report.
    pub fn of(report: &flipgc_flip::FlipReport) -> FlipSummary {
        FlipSummary {
            strategy: report.strategy.name(),
            level: report.level_name(),
            elapsed_ns: report.elapsed.as_nanos() as u64,
            fallback_reason: report.fallback_reason.clone(),
            parked_bytes: 0,
        }
    }

    /// This summary, with `bytes` parked before the pause.
    pub fn with_parked(self, bytes: usize) -> FlipSummary {
        FlipSummary {
            parked_bytes: bytes as u64,
            ..self
        }
    }
}

/// Every pause kind, in cycle order: `"full"` (a whole collection in one pause),
/// and a concurrent cycle's `"mark-start"`, `"mark-end"` (one per marking round)
/// and `"flip"`.
pub const PAUSE_KINDS: [&str; 4] = ["full", "mark-start", "mark-end", "flip"];

/// One pause.
#[derive(Clone, Debug, Serialize)]
pub struct PauseRecord {
    /// One of [`PAUSE_KINDS`].
    pub kind: &'static str,
    /// The cycle it belongs to (numbered from 1).
    pub cycle: u64,
    /// When every mutator had stopped (the pause began `ttsp_ns` earlier), since the
    /// heap was created.
    pub at_ns: u64,
    /// From the stop request until mutators could resume.
    pub total_ns: u64,
    /// From the stop request until every mutator had stopped.
    pub ttsp_ns: u64,
    /// Bytes used in the moving space (below its top) once the world had stopped.
    pub used_before_bytes: u64,
    /// Bytes used in the moving space when the pause ended.
    pub used_after_bytes: u64,
    /// Phase names and durations, in order.
    #[serde(serialize_with = "phases_as_map")]
    pub phases: Vec<(&'static str, u64)>,
    /// Live bytes in the moving space after the collection (= bytes moved).
    pub live_bytes: u64,
    /// Live objects in the moving space.
    pub live_objects: u64,
    /// Bytes held by live large objects.
    pub large_object_bytes: u64,
    /// Large-object bytes freed.
    pub large_object_freed_bytes: u64,
    /// The flip.
    pub flip: FlipSummary,
    /// Whether a mutator ran the pause on its own thread (a mark-start pause it
    /// triggered, or a mark-end or flip pause offered to it), rather than the GC
    /// driver.
    pub by_mutator: bool,
    /// The mutator the stop waited for last, if it waited for any (its thread's
    /// name, or `mutator-<id>`): the one that made the time to safepoint.
    pub waited_for: Option<String>,
}

fn phases_as_map<S: serde::Serializer>(
    phases: &[(&'static str, u64)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(phases.len()))?;
    for (k, v) in phases {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// One collection cycle: why it started, and what the pacer saw.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct CycleRecord {
    /// Its number (from 1).
    pub n: u64,
    /// Why it started: `"pacer"` (free memory fell to the trigger), `"heap-full"`
    /// (an allocation found no room), `"explicit"` (`Mutator::collect`) or
    /// `"after-bytes"` (`GcTrigger::AfterBytes`).
    pub reason: &'static str,
    /// When it was first asked for, since the heap was created (ns).
    pub requested_at_ns: u64,
    /// When the driver started it (ns).
    pub started_at_ns: u64,
    /// When marking ended (the final mark-end pause's, or the one pause's, end).
    pub marked_at_ns: u64,
    /// When its memory became available: the flip pause's (or the one pause's) end.
    pub flipped_at_ns: u64,
    /// When it was over (compaction and verification included).
    pub done_at_ns: u64,
    /// Free bytes in the moving space when it started.
    pub free_at_start: u64,
    /// The least free bytes from its start to its flip.
    pub min_free: u64,
    /// The pacer's trigger (free bytes) when it started.
    pub trigger_bytes: u64,
    /// The pacer's allocation-rate estimate when it started (bytes/s).
    pub rate_bytes_per_s: u64,
    /// Live bytes marking found (in a young cycle, the whole old region: its
    /// garbage included).
    pub live_bytes: u64,
    /// Concurrent marking rounds (0 for a one-pause cycle).
    pub mark_rounds: u32,
    /// Whether it was a young cycle: the survivors of the cycle before were taken
    /// as live without tracing them (`collect/sticky.rs`).
    pub young: bool,
    /// Time mutators slept in throttling during it (all threads, ns).
    pub throttled_ns: u64,
    /// Bytes in the moving space after its flip (live data, with what was allocated
    /// during marking): what compaction produced.
    pub moved_bytes: u64,
    /// Bytes held by live large objects after it.
    pub large_object_bytes: u64,
    /// How its flip moved the heap (`"mremap+dontunmap"`, `"mremap"`, `"copy"`).
    pub flip_strategy: &'static str,
    /// The flip's level (`"pud"`, `"pmd"`, `"pte"`, `"copy"`).
    pub flip_level: &'static str,
    /// Its pauses.
    pub pauses: u32,
    /// Its pauses' totals added up (ns).
    pub pause_ns: u64,
    /// `"concurrent"` (pages filled after the flip pause, through userfaultfd) or
    /// `"in-pause"` (by the flip pause, or the one pause).
    pub compaction: &'static str,
    /// Time producing to-space pages (ns): a concurrent compaction's duration, or
    /// the `compact` phase of the pause that compacted.
    pub compaction_ns: u64,
    /// Pages a concurrent compaction filled (0 for an in-pause one).
    pub compaction_pages: u64,
    /// Of those, the pages moved into to-space rather than copied (the dense
    /// prefix's and the black region's, produced in place, and compacted pages
    /// produced into from-space pages already read).
    pub compaction_moved_pages: u64,
    /// Fault stalls recorded since the previous cycle's end.
    pub fault_stalls: u64,
    /// The longest of those (ns).
    pub fault_stall_max_ns: u64,
    /// Allocation stalls recorded since the previous cycle's end.
    pub alloc_stalls: u64,
    /// The longest of those (ns).
    pub alloc_stall_max_ns: u64,
}

/// Stalls recorded since the window was last taken: count, total and longest (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StallSum {
    /// How many.
    pub count: u64,
    /// Added up (ns).
    pub total_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
}

impl StallSum {
    fn add(&mut self, ns: u64) {
        self.count += 1;
        self.total_ns += ns;
        self.max_ns = self.max_ns.max(ns);
    }
}

/// The element at quantile `q` (0..=1) of ascending `sorted`, by nearest rank
/// (exact: the smallest value with at least `q` of all values at or below it); 0 if
/// empty.
pub fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// 1 ns to one hour, 3 significant digits (`Histogram::new` starts tiny and
/// `saturating_record` then clamps instead of growing).
fn stall_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

/// Fault stalls at least this long (1 ms) are kept with their times
/// ([`PauseLog::long_fault_stalls`]).
pub const LONG_FAULT_STALL_NS: u64 = 1_000_000;

/// At most this many long fault stalls are kept.
pub const LONG_FAULT_STALLS_KEPT: usize = 10_000;

/// The pause log's capacity by default ([`HeapConfig::pause_log_capacity`](crate::HeapConfig::pause_log_capacity)):
/// the last 10,000 of each kind of exact record (pauses, cycles, compactions,
/// sanity re-traces) are kept.
pub const DEFAULT_PAUSE_LOG_CAPACITY: usize = 10_000;

/// An auto-resizing histogram of 3 significant digits: it grows with the largest
/// value recorded (a few KiB for pauses of up to a few ms), instead of covering an
/// hour up front as [`stall_histogram`] does.
fn growing_histogram() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 2, 3).expect("valid bounds");
    h.auto(true);
    h
}

/// Records `ns` (at least 1) in `h`, clamping what it cannot grow to hold.
fn record_in(h: &mut Histogram<u64>, ns: u64) {
    if h.record(ns.max(1)).is_err() {
        h.saturating_record(ns.max(1));
    }
}

/// Whole-run statistics of pauses (all of them, or one kind): every pause ever
/// recorded counts, also those the log's ring no longer holds.
#[derive(Clone)]
pub struct PauseStats {
    count: u64,
    total_ns: u64,
    max_ns: u64,
    max_ttsp_ns: u64,
    totals: Histogram<u64>,
}

impl PauseStats {
    fn new(totals: Histogram<u64>) -> PauseStats {
        PauseStats {
            count: 0,
            total_ns: 0,
            max_ns: 0,
            max_ttsp_ns: 0,
            totals,
        }
    }

    fn add(&mut self, r: &PauseRecord) {
        self.count += 1;
        self.total_ns = self.total_ns.saturating_add(r.total_ns);
        self.max_ns = self.max_ns.max(r.total_ns);
        self.max_ttsp_ns = self.max_ttsp_ns.max(r.ttsp_ns);
        record_in(&mut self.totals, r.total_ns);
    }

    /// Pauses recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Their totals added up (ns).
    pub fn total_ns(&self) -> u64 {
        self.total_ns
    }

    /// The longest pause total (ns, exact); 0 if none.
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// The longest time to safepoint (ns, exact); 0 if none.
    pub fn max_ttsp_ns(&self) -> u64 {
        self.max_ttsp_ns
    }

    /// The histogram of pause totals (ns, 3 significant digits).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.totals
    }

    /// Pause total at quantile `q` (0..=1) from the histogram, by nearest rank: the
    /// bucket's highest value (its lowest for `q = 0`), within 0.1% of the exact
    /// value, and never above the exact maximum (so `q = 1` is exact); 0 if there
    /// were none.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.totals
                .value_at_quantile(q.clamp(0.0, 1.0))
                .min(self.max_ns)
        }
    }
}

/// Whole-run statistics of one pause phase (by name): every occurrence counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseStats {
    /// Occurrences.
    pub count: u64,
    /// Their durations added up (ns).
    pub total_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
}

/// Whole-run statistics of the finished cycles: every cycle counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleStats {
    /// Cycles finished.
    pub count: u64,
    /// Cycles by [`CycleRecord::reason`].
    pub by_reason: std::collections::BTreeMap<&'static str, u64>,
    /// Time mutators slept in throttling, all cycles (ns).
    pub throttled_ns: u64,
    /// The most live bytes a cycle found ([`CycleRecord::live_bytes`]).
    pub max_live_bytes: u64,
    /// The least free bytes any cycle saw ([`CycleRecord::min_free`]); `None` before
    /// the first cycle.
    pub least_min_free: Option<u64>,
    /// Young cycles.
    pub young: u64,
}

impl CycleStats {
    fn add(&mut self, c: &CycleRecord) {
        self.count += 1;
        *self.by_reason.entry(c.reason).or_default() += 1;
        self.throttled_ns = self.throttled_ns.saturating_add(c.throttled_ns);
        self.max_live_bytes = self.max_live_bytes.max(c.live_bytes);
        self.least_min_free = Some(
            self.least_min_free
                .map_or(c.min_free, |m| m.min(c.min_free)),
        );
        self.young += u64::from(c.young);
    }

    /// Cycles that started for `reason` (0 if none).
    pub fn reason_count(&self, reason: &str) -> u64 {
        self.by_reason.get(reason).copied().unwrap_or(0)
    }
}

/// Whole-run statistics of concurrent compactions: every compaction counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactionStats {
    /// Compactions.
    pub count: u64,
    /// Their durations added up (ns).
    pub total_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
    /// Pages filled, all compactions.
    pub pages: u64,
    /// Of those, pages moved rather than copied.
    pub moved_pages: u64,
    /// Compactions whose faults were served in SIGBUS mode.
    pub sigbus: u64,
    /// Compactions whose faults were served by the fault server.
    pub server: u64,
}

/// What one sanity re-trace found (`collect/sanity.rs`), as the pause log keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SanityReport {
    /// Objects reached (moving space below the boundary, and large objects).
    pub reached: u64,
    /// Objects reached that were allocated during marking (black).
    pub black: u64,
    /// Marked objects below the boundary that are unreachable now.
    pub floating: u64,
}

/// Whole-run statistics of the sanity re-traces of concurrent marking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SanityStats {
    /// Re-traces run.
    pub count: u64,
    /// Floating garbage they found, added up (objects).
    pub floating: u64,
}

/// How many records of each kind the log's rings let go (the oldest, pushed out by
/// newer ones); the whole-run statistics still count them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Pause records.
    pub pauses: u64,
    /// Cycle records.
    pub cycles: u64,
    /// Compaction records (and their fault modes).
    pub compactions: u64,
    /// Sanity reports.
    pub sanity_checks: u64,
}

/// What a cycle's record takes from the pause that moved the heap (the flip pause,
/// or the one pause), kept apart from the ring so that it is there whatever the
/// ring's capacity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MovingPause {
    /// The pause's sequence number in the log.
    pub seq: u64,
    pub live_bytes: u64,
    pub large_object_bytes: u64,
    pub strategy: &'static str,
    pub level: &'static str,
    /// Its `compact` phase (ns), 0 if it had none.
    pub compact_ns: u64,
}

impl OwnedBytes for PauseRecord {
    fn owned_bytes(&self) -> usize {
        self.phases.capacity() * std::mem::size_of::<(&'static str, u64)>()
            + self
                .flip
                .fallback_reason
                .as_ref()
                .map_or(0, String::capacity)
            + self.waited_for.as_ref().map_or(0, String::capacity)
    }
}

impl OwnedBytes for CycleRecord {}

/// The pauses of a heap, and its cycles, compactions and sanity re-traces: exact
/// records of the last [`PauseLog::capacity`] of each (in [`Ring`]s, so that the log's
/// memory stays bounded however long the heap runs), and whole-run statistics
/// (counts, totals, maxima, HDR histograms) that count every record ever made.
#[derive(Clone)]
pub struct PauseLog {
    records: Ring<PauseRecord>,
    /// Every pause.
    all: PauseStats,
    /// Every pause, by kind (indexed as [`PAUSE_KINDS`]).
    kinds: [PauseStats; 4],
    phases: std::collections::BTreeMap<&'static str, PhaseStats>,
    /// The last pause that moved the heap.
    moving: Option<MovingPause>,
    /// The cycle of the last mark-end pause, and its mark-end pauses so far.
    mark_end_round: (u64, usize),
    alloc_stalls: Histogram<u64>,
    fault_stalls: Histogram<u64>,
    compactions: Ring<(u64, usize, usize)>,
    compaction_modes: Ring<crate::FaultMode>,
    compaction_stats: CompactionStats,
    fault_stalls_lost: u64,
    long_fault_stalls: Vec<(u64, u64)>,
    long_alloc_stalls: Vec<(u64, u64)>,
    sanity: Ring<SanityReport>,
    sanity_stats: SanityStats,
    cycles: Ring<CycleRecord>,
    cycle_stats: CycleStats,
    throttles: Histogram<u64>,
    /// (fault, allocation) stalls since the last cycle record.
    window: (StallSum, StallSum),
}

impl Default for PauseLog {
    fn default() -> Self {
        Self::new()
    }
}

impl PauseLog {
    /// An empty log of [`DEFAULT_PAUSE_LOG_CAPACITY`].
    pub fn new() -> PauseLog {
        PauseLog::with_capacity(DEFAULT_PAUSE_LOG_CAPACITY)
    }

    /// An empty log that keeps the last `capacity` records of each kind (pauses,
    /// cycles, compactions, sanity re-traces). The whole-run statistics count every
    /// record whatever the capacity.
    pub fn with_capacity(capacity: usize) -> PauseLog {
        PauseLog {
            records: Ring::new(capacity),
            all: PauseStats::new(stall_histogram()),
            kinds: std::array::from_fn(|_| PauseStats::new(growing_histogram())),
            phases: Default::default(),
            moving: None,
            mark_end_round: (0, 0),
            alloc_stalls: stall_histogram(),
            fault_stalls: stall_histogram(),
            compactions: Ring::new(capacity),
            compaction_modes: Ring::new(capacity),
            compaction_stats: CompactionStats::default(),
            fault_stalls_lost: 0,
            long_fault_stalls: Vec::new(),
            long_alloc_stalls: Vec::new(),
            sanity: Ring::new(capacity),
            sanity_stats: SanityStats::default(),
            cycles: Ring::new(capacity),
            cycle_stats: CycleStats::default(),
            throttles: stall_histogram(),
            window: Default::default(),
        }
    }

    /// The most records of each kind kept ([`HeapConfig::pause_log_capacity`](crate::HeapConfig::pause_log_capacity)).
    pub fn capacity(&self) -> usize {
        self.records.capacity()
    }

    /// Adds a pause.
    pub fn record(&mut self, r: PauseRecord) {
        let seq = self.records.total();
        self.all.add(&r);
        if let Some(i) = PAUSE_KINDS.iter().position(|k| *k == r.kind) {
            self.kinds[i].add(&r);
        }
        for (name, ns) in &r.phases {
            let p = self.phases.entry(name).or_default();
            p.count += 1;
            p.total_ns = p.total_ns.saturating_add(*ns);
            p.max_ns = p.max_ns.max(*ns);
        }
        if r.kind == "flip" || r.kind == "full" {
            self.moving = Some(MovingPause {
                seq,
                live_bytes: r.live_bytes,
                large_object_bytes: r.large_object_bytes,
                strategy: r.flip.strategy,
                level: r.flip.level,
                compact_ns: r
                    .phases
                    .iter()
                    .find(|(name, _)| *name == "compact")
                    .map_or(0, |(_, ns)| *ns),
            });
        }
        if r.kind == "mark-end" {
            self.mark_end_round = match self.mark_end_round {
                (cycle, n) if cycle == r.cycle => (cycle, n + 1),
                _ => (r.cycle, 1),
            };
        }
        self.records.push(r);
    }

    /// The mark-end pauses recorded so far in `cycle` (the round of the last one).
    pub(crate) fn mark_end_round(&self, cycle: u64) -> usize {
        match self.mark_end_round {
            (c, n) if c == cycle => n,
            _ => 0,
        }
    }

    /// The last pause that moved the heap, if its sequence number is `first` or later.
    pub(crate) fn moving_pause_since(&self, first: u64) -> Option<MovingPause> {
        self.moving.filter(|m| m.seq >= first)
    }

    /// Records an allocation stall: an allocation slow path that waited for a
    /// collection (its own or another thread's), from entering the slow path until
    /// it had memory (or gave up), in ns.
    /// `at_ns` is when it began, on the heap's clock (as [`PauseRecord::at_ns`]);
    /// the log keeps it for stalls of at least [`LONG_FAULT_STALL_NS`]
    /// ([`PauseLog::long_alloc_stalls`]).
    pub fn record_alloc_stall(&mut self, at_ns: u64, ns: u64) {
        self.window.1.add(ns);
        self.alloc_stalls.saturating_record(ns.max(1));
        if ns >= LONG_FAULT_STALL_NS && self.long_alloc_stalls.len() < LONG_FAULT_STALLS_KEPT {
            self.long_alloc_stalls.push((at_ns, ns));
        }
    }

    /// Allocation stalls of at least [`LONG_FAULT_STALL_NS`], `(start, length)` in
    /// ns (start on the heap's clock), oldest first; the first
    /// [`LONG_FAULT_STALLS_KEPT`] of them.
    pub fn long_alloc_stalls(&self) -> &[(u64, u64)] {
        &self.long_alloc_stalls
    }

    /// Records a fault stall: a mutator waiting for a page to be filled during
    /// concurrent compaction, in ns. In SIGBUS mode the faulting thread measured it
    /// itself, from its handler's entry to its return (end to end); in server mode the
    /// fault server did, from reading the fault to the page's install (a lower bound).
    /// `at_ns` is when it began, on the heap's clock (as [`PauseRecord::at_ns`]); the
    /// log keeps it for stalls of at least [`LONG_FAULT_STALL_NS`].
    pub fn record_fault_stall(&mut self, at_ns: u64, ns: u64) {
        self.window.0.add(ns);
        self.fault_stalls.saturating_record(ns.max(1));
        if ns >= LONG_FAULT_STALL_NS && self.long_fault_stalls.len() < LONG_FAULT_STALLS_KEPT {
            self.long_fault_stalls.push((at_ns, ns));
        }
    }

    /// The fault stalls of at least [`LONG_FAULT_STALL_NS`], as (when it began on the
    /// heap's clock, how long), ns, in the order their compactions recorded them; the
    /// first [`LONG_FAULT_STALLS_KEPT`] only. For telling a long stall's cause: a
    /// benchmark lays them over what a plain thread saw of the machine meanwhile.
    pub fn long_fault_stalls(&self) -> &[(u64, u64)] {
        &self.long_fault_stalls
    }

    /// Counts fault stalls measured but not kept (a thread's sample table was full).
    pub(crate) fn record_fault_stalls_lost(&mut self, n: u64) {
        self.fault_stalls_lost += n;
    }

    /// Fault stalls measured but not kept (SIGBUS mode: a thread faulted more than
    /// its sample table holds during one compaction).
    pub fn fault_stalls_lost(&self) -> u64 {
        self.fault_stalls_lost
    }

    /// Records who served the faults of the compaction just recorded.
    pub(crate) fn record_compaction_mode(&mut self, mode: crate::FaultMode) {
        match mode {
            crate::FaultMode::Sigbus => self.compaction_stats.sigbus += 1,
            _ => self.compaction_stats.server += 1,
        }
        self.compaction_modes.push(mode);
    }

    /// Who served each concurrent compaction's faults (`Sigbus` or `Server`), oldest
    /// first, as [`PauseLog::compactions`] (the last [`PauseLog::capacity`]; for all
    /// of them, [`CompactionStats::sigbus`] and [`CompactionStats::server`]).
    pub fn compaction_fault_modes(&self) -> &Ring<crate::FaultMode> {
        &self.compaction_modes
    }

    /// Records a concurrent compaction: from the end of its flip pause until its last
    /// page was installed (ns), and how many pages it filled.
    pub fn record_compaction(&mut self, ns: u64, pages: usize, moved: usize) {
        let s = &mut self.compaction_stats;
        s.count += 1;
        s.total_ns = s.total_ns.saturating_add(ns);
        s.max_ns = s.max_ns.max(ns);
        s.pages += pages as u64;
        s.moved_pages += moved as u64;
        self.compactions.push((ns, pages, moved));
    }

    /// The (fault, allocation) stalls recorded since the last call, and a new window.
    pub(crate) fn take_stall_window(&mut self) -> (StallSum, StallSum) {
        std::mem::take(&mut self.window)
    }

    /// Records a finished cycle.
    pub(crate) fn record_cycle(&mut self, c: CycleRecord) {
        self.cycle_stats.add(&c);
        self.cycles.push(c);
    }

    /// The last [`PauseLog::capacity`] finished cycles, oldest first.
    pub fn cycles(&self) -> &Ring<CycleRecord> {
        &self.cycles
    }

    /// Whole-run statistics of the finished cycles.
    pub fn cycle_stats(&self) -> &CycleStats {
        &self.cycle_stats
    }

    /// Records a throttling sleep of an allocating thread (the pacer's pressure), ns.
    pub fn record_throttle(&mut self, ns: u64) {
        self.throttles.saturating_record(ns.max(1));
    }

    /// The histogram of throttling sleeps (ns).
    pub fn throttles(&self) -> &Histogram<u64> {
        &self.throttles
    }

    /// Records what a sanity re-trace of concurrent marking found.
    pub(crate) fn record_sanity(&mut self, r: SanityReport) {
        self.sanity_stats.count += 1;
        self.sanity_stats.floating += r.floating;
        self.sanity.push(r);
    }

    /// The last [`PauseLog::capacity`] sanity re-traces (one per concurrent cycle
    /// with `verify_after_gc`): objects reached, reached black objects, floating
    /// garbage; oldest first.
    pub fn sanity_checks(&self) -> &Ring<SanityReport> {
        &self.sanity
    }

    /// Whole-run statistics of the sanity re-traces.
    pub fn sanity_stats(&self) -> SanityStats {
        self.sanity_stats
    }

    /// The last [`PauseLog::capacity`] concurrent compactions: (duration ns, pages
    /// filled, of which moved rather than copied), oldest first.
    pub fn compactions(&self) -> &Ring<(u64, usize, usize)> {
        &self.compactions
    }

    /// Whole-run statistics of the concurrent compactions (and who served their
    /// faults).
    pub fn compaction_stats(&self) -> CompactionStats {
        self.compaction_stats
    }

    /// Collection cycles: pauses of kind `"full"` or `"mark-start"` (a concurrent
    /// cycle has a mark-start, one or more mark-end, and a flip pause); whole run.
    pub fn collections(&self) -> usize {
        (self.kinds[0].count + self.kinds[1].count) as usize
    }

    /// Whole-run statistics of every pause.
    pub fn pause_stats(&self) -> &PauseStats {
        &self.all
    }

    /// Whole-run statistics of the pauses of `kind` (one of [`PAUSE_KINDS`]; `None`
    /// for another name).
    pub fn kind_stats(&self, kind: &str) -> Option<&PauseStats> {
        PAUSE_KINDS
            .iter()
            .position(|k| *k == kind)
            .map(|i| &self.kinds[i])
    }

    /// Whole-run statistics of each pause phase, by name.
    pub fn phase_stats(&self) -> &std::collections::BTreeMap<&'static str, PhaseStats> {
        &self.phases
    }

    /// Pause total at quantile `q` over pauses of `kind` only, whole run: exact (nearest
    /// rank) while the ring holds every pause, else from the kind's histogram
    /// ([`PauseStats::quantile_ns`]); 0 if none.
    pub fn kind_quantile_ns(&self, kind: &str, q: f64) -> u64 {
        if self.records.dropped() > 0 {
            return self.kind_stats(kind).map_or(0, |s| s.quantile_ns(q));
        }
        let mut totals: Vec<u64> = self
            .records
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.total_ns)
            .collect();
        totals.sort_unstable();
        nearest_rank(&totals, q)
    }

    /// [`PauseLog::quantile_ns`] for `"all"`, else [`PauseLog::kind_quantile_ns`].
    pub fn kind_quantile_or_all(&self, kind: &str, q: f64) -> u64 {
        if kind == "all" {
            self.quantile_ns(q)
        } else {
            self.kind_quantile_ns(kind, q)
        }
    }

    /// The histogram of allocation stalls (ns); see [`PauseLog::record_alloc_stall`].
    pub fn alloc_stalls(&self) -> &Histogram<u64> {
        &self.alloc_stalls
    }

    /// The histogram of fault stalls (ns); empty unless compaction ran concurrently.
    pub fn fault_stalls(&self) -> &Histogram<u64> {
        &self.fault_stalls
    }

    /// The last [`PauseLog::capacity`] pauses, oldest first. For whole-run figures,
    /// [`PauseLog::pause_stats`], [`PauseLog::kind_stats`], [`PauseLog::quantile_ns`].
    pub fn records(&self) -> &Ring<PauseRecord> {
        &self.records
    }

    /// The histogram of pause totals (ns), whole run.
    pub fn histogram(&self) -> &Histogram<u64> {
        self.all.histogram()
    }

    /// Pause total at quantile `q` (0..=1), in ns, whole run: while the ring holds
    /// every pause, by nearest rank over them (exact; results as before the ring
    /// existed); once it has let some go, from the whole-run histogram
    /// ([`PauseStats::quantile_ns`]: within 0.1%, the maximum exact); 0 if there were
    /// none.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.records.dropped() > 0 {
            return self.all.quantile_ns(q);
        }
        let mut totals: Vec<u64> = self.records.iter().map(|r| r.total_ns).collect();
        totals.sort_unstable();
        nearest_rank(&totals, q)
    }

    /// How many records of each kind the rings let go.
    pub fn dropped(&self) -> Dropped {
        Dropped {
            pauses: self.records.dropped(),
            cycles: self.cycles.dropped(),
            compactions: self.compactions.dropped(),
            sanity_checks: self.sanity.dropped(),
        }
    }

    /// Bytes of memory the log's growing parts hold: every ring's slots and what its
    /// records own, and the long fault stalls kept. Bounded by the capacity
    /// (the histograms and per-phase statistics, not counted, have a size of their
    /// own that does not grow with the number of records).
    pub fn footprint_bytes(&self) -> usize {
        self.records.footprint_bytes()
            + self.cycles.footprint_bytes()
            + self.compactions.footprint_bytes()
            + self.compaction_modes.footprint_bytes()
            + self.sanity.footprint_bytes()
            + self.long_fault_stalls.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.long_alloc_stalls.capacity() * std::mem::size_of::<(u64, u64)>()
    }

    fn by_kind(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (kind, s) in PAUSE_KINDS.iter().zip(&self.kinds) {
            if s.count > 0 {
                m.insert(
                    (*kind).into(),
                    serde_json::json!({
                        "count": s.count,
                        "p50_ns": self.kind_quantile_ns(kind, 0.5),
                        "p99_ns": self.kind_quantile_ns(kind, 0.99),
                        "max_ns": s.max_ns,
                    }),
                );
            }
        }
        serde_json::Value::Object(m)
    }

    /// `{"pauses": [...], "cycles": [...], "summary": {"collections" (cycles), "pauses", "p50_pause_ns", "p99_pause_ns",
    /// "max_pause_ns", "max_ttsp_ns", "alloc_stalls", "alloc_stall_p99_ns",
    /// "alloc_stall_max_ns", "fault_stalls", "fault_stall_p99_ns", "fault_stall_max_ns",
    /// "fault_stalls_lost", "compactions", "compaction_fault_modes": {"sigbus", "server"},
    /// "compaction_max_ns", "by_kind": {kind: {"count", "p50_ns", "p99_ns",
    /// "max_ns"}}, "log_capacity", "dropped": {"pauses", "cycles", "compactions",
    /// "sanity_checks"}}}`.
    /// `"pauses"` and `"cycles"` hold the records the rings still have (the last
    /// `log_capacity`); the summary is of the whole run
    /// (stall quantiles come from HDR histograms, 3 significant digits; 0 when none).
    pub fn to_json(&self) -> serde_json::Value {
        let comp = self.compaction_stats;
        serde_json::json!({
            "pauses": self.records,
            "cycles": self.cycles,
            "summary": {
                "collections": self.collections(),
                "pauses": self.all.count,
                "p50_pause_ns": self.quantile_ns(0.5),
                "p99_pause_ns": self.quantile_ns(0.99),
                "max_pause_ns": self.all.max_ns,
                "max_ttsp_ns": self.all.max_ttsp_ns,
                "alloc_stalls": self.alloc_stalls.len(),
                "alloc_stall_p99_ns": self.alloc_stalls.value_at_quantile(0.99),
                "alloc_stall_max_ns": self.alloc_stalls.max(),
                "fault_stalls": self.fault_stalls.len(),
                "fault_stall_p99_ns": self.fault_stalls.value_at_quantile(0.99),
                "fault_stall_max_ns": self.fault_stalls.max(),
                "fault_stalls_lost": self.fault_stalls_lost,
                "compactions": comp.count,
                "compaction_fault_modes": {
                    "sigbus": comp.sigbus,
                    "server": comp.server,
                },
                "throttles": self.throttles.len(),
                "throttle_p99_ns": self.throttles.value_at_quantile(0.99),
                "throttle_max_ns": self.throttles.max(),
                "throttle_total_ns": self.cycle_stats.throttled_ns,
                "sanity_checks": self.sanity_stats.count,
                "floating_objects": self.sanity_stats.floating,
                "compaction_max_ns": comp.max_ns,
                "by_kind": self.by_kind(),
                "log_capacity": self.capacity(),
                "dropped": self.dropped(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(total: u64) -> PauseRecord {
        PauseRecord {
            kind: "full",
            cycle: 1,
            at_ns: 0,
            total_ns: total,
            ttsp_ns: 5,
            used_before_bytes: 0,
            used_after_bytes: 0,
            phases: vec![("mark", 3), ("flip", 2)],
            live_bytes: 0,
            live_objects: 0,
            large_object_bytes: 0,
            large_object_freed_bytes: 0,
            flip: FlipSummary {
                strategy: "copy",
                level: "copy",
                elapsed_ns: 2,
                fallback_reason: None,
                parked_bytes: 0,
            },
            by_mutator: false,
            waited_for: None,
        }
    }

    #[test]
    fn json_has_the_agreed_keys_and_quantiles() {
        let mut log = PauseLog::new();
        for t in [100, 200, 300, 400, 10_000] {
            log.record(rec(t));
        }
        let j = log.to_json();
        assert_eq!(j["summary"]["collections"], 5);
        assert_eq!(j["summary"]["max_pause_ns"], 10_000);
        assert_eq!(j["summary"]["p50_pause_ns"], 300);
        assert_eq!(j["summary"]["p99_pause_ns"], 10_000);
        assert_eq!(log.quantile_ns(0.0), 100);
        assert_eq!(log.histogram().len(), 5);
        assert_eq!(j["pauses"][0]["phases"]["mark"], 3);
        assert_eq!(j["pauses"][0]["flip"]["level"], "copy");
        assert_eq!(PauseLog::new().quantile_ns(0.99), 0);
        assert_eq!(j["summary"]["alloc_stalls"], 0);
        assert_eq!(j["summary"]["fault_stall_max_ns"], 0);
    }

    #[test]
    fn stalls_have_their_own_histograms() {
        let mut log = PauseLog::new();
        log.record_alloc_stall(0, 1_000);
        log.record_alloc_stall(10, 50_000);
        log.record_fault_stall(0, 7_000);
        let (fault, alloc) = log.take_stall_window();
        assert_eq!((fault.count, fault.max_ns), (1, 7_000));
        assert_eq!(
            (alloc.count, alloc.total_ns, alloc.max_ns),
            (2, 51_000, 50_000)
        );
        assert_eq!(log.take_stall_window().0.count, 0);
        let j = log.to_json();
        assert_eq!(j["summary"]["alloc_stalls"], 2);
        assert_eq!(j["summary"]["fault_stalls"], 1);
        // HDR rounding: within 0.1% of the recorded value.
        let max = j["summary"]["alloc_stall_max_ns"].as_u64().unwrap();
        assert!((49_950..=50_050).contains(&max), "{max}");
        assert_eq!(j["summary"]["collections"], 0);
    }

    #[test]
    fn long_fault_stalls_keep_their_times() {
        let mut log = PauseLog::new();
        log.record_fault_stall(5, 999_999);
        log.record_fault_stall(10, LONG_FAULT_STALL_NS);
        log.record_fault_stall(20, 30_000_000);
        assert_eq!(
            log.long_fault_stalls(),
            [(10, LONG_FAULT_STALL_NS), (20, 30_000_000)]
        );
        assert_eq!(log.fault_stalls().len(), 3);
        // Only the first LONG_FAULT_STALLS_KEPT are kept; the histogram has all.
        for i in 0..LONG_FAULT_STALLS_KEPT as u64 {
            log.record_fault_stall(100 + i, LONG_FAULT_STALL_NS);
        }
        assert_eq!(log.long_fault_stalls().len(), LONG_FAULT_STALLS_KEPT);
        assert_eq!(
            log.long_fault_stalls().last(),
            Some(&(100 + 9_997, LONG_FAULT_STALL_NS))
        );
        assert_eq!(log.fault_stalls().len(), 3 + LONG_FAULT_STALLS_KEPT as u64);
    }

    fn rec_of(kind: &'static str, cycle: u64, total: u64) -> PauseRecord {
        PauseRecord {
            kind,
            cycle,
            ttsp_ns: total / 10,
            ..rec(total)
        }
    }

    #[test]
    fn the_ring_keeps_the_last_records_and_the_statistics_all() {
        let cap = 8;
        let mut log = PauseLog::with_capacity(cap);
        let n = 5 * cap as u64;
        // Totals 1..=n µs; the largest ones come first, so that they leave the ring.
        for i in 0..n {
            log.record(rec_of("full", i + 1, (n - i) * 1_000));
        }
        assert_eq!(log.records().len(), cap);
        assert_eq!(log.records().total(), n);
        assert_eq!(log.dropped().pauses, n - cap as u64);
        assert_eq!(log.records().first().unwrap().cycle, n - cap as u64 + 1);
        let s = log.pause_stats();
        assert_eq!(s.count(), n);
        assert_eq!(s.total_ns(), (1..=n).sum::<u64>() * 1_000);
        assert_eq!(
            s.max_ns(),
            n * 1_000,
            "the max left the ring, not the stats"
        );
        assert_eq!(s.max_ttsp_ns(), n * 100);
        assert_eq!(log.collections(), n as usize);
        assert_eq!(log.kind_stats("full").unwrap().count(), n);
        assert_eq!(log.kind_stats("flip").unwrap().count(), 0);
        assert!(log.kind_stats("other").is_none());
        // Whole-run percentiles: over 1..=n µs, not over the ring's 1..=cap µs.
        let exact = |q: f64| {
            let all: Vec<u64> = (1..=n).map(|v| v * 1_000).collect();
            nearest_rank(&all, q)
        };
        for q in [0.0, 0.5, 0.99, 1.0] {
            let got = log.quantile_ns(q);
            let want = exact(q);
            assert!(
                got >= want && got <= want + want / 1000,
                "q {q}: {got} vs {want}"
            );
            assert_eq!(log.kind_quantile_ns("full", q), got);
        }
        assert_eq!(log.quantile_ns(1.0), n * 1_000, "the maximum is exact");
        let j = log.to_json();
        assert_eq!(j["summary"]["pauses"], n);
        assert_eq!(j["summary"]["max_pause_ns"], n * 1_000);
        assert_eq!(j["summary"]["dropped"]["pauses"], n - cap as u64);
        assert_eq!(j["summary"]["log_capacity"], cap);
        assert_eq!(j["pauses"].as_array().unwrap().len(), cap);
        assert_eq!(j["summary"]["by_kind"]["full"]["count"], n);
        let phases = log.phase_stats();
        assert_eq!(phases["mark"].count, n);
        assert_eq!(phases["mark"].total_ns, 3 * n);
    }

    #[test]
    fn percentiles_are_exact_while_nothing_was_dropped() {
        // 10,001 is inside a histogram bucket (10,000..=10,007 at 3 significant
        // digits): only the exact path reports it as it was recorded.
        let mut log = PauseLog::with_capacity(3);
        for t in [10_001, 20_001, 30_001] {
            log.record(rec(t));
        }
        assert_eq!(log.dropped().pauses, 0);
        assert_eq!(log.quantile_ns(0.0), 10_001);
        assert_eq!(log.quantile_ns(0.5), 20_001);
        log.record(rec(40_001));
        assert_eq!(log.dropped().pauses, 1);
        // From the histogram now: the dropped pause still counts (rank 1 of 4), as
        // its bucket's highest value, within 0.1%.
        let p25 = log.quantile_ns(0.25);
        assert_ne!(p25, 10_001, "the histogram's figure, not the record's");
        assert!((10_001..=10_011).contains(&p25), "{p25}");
        assert_eq!(log.quantile_ns(1.0), 40_001, "the maximum is exact");
    }

    #[test]
    fn cycle_figures_do_not_need_the_ring() {
        let mut log = PauseLog::with_capacity(1);
        log.record(rec_of("mark-start", 7, 10));
        let first = log.records().total() - 1;
        log.record(rec_of("mark-end", 7, 20));
        log.record(rec_of("mark-end", 7, 30));
        assert_eq!(log.mark_end_round(7), 2);
        assert_eq!(log.mark_end_round(8), 0);
        let mut flip = rec_of("flip", 7, 40);
        flip.live_bytes = 123;
        flip.phases = vec![("compact", 9)];
        log.record(flip);
        assert_eq!(log.records().len(), 1, "only the flip is held");
        let m = log.moving_pause_since(first).unwrap();
        assert_eq!((m.seq, m.live_bytes, m.compact_ns), (first + 3, 123, 9));
        assert!(log.moving_pause_since(first + 4).is_none());
        log.record(rec_of("mark-end", 8, 20));
        assert_eq!(
            log.mark_end_round(8),
            1,
            "a new cycle starts its rounds again"
        );
    }

    #[test]
    fn every_ring_is_bounded_and_its_statistics_are_not() {
        let cap = 4;
        let mut log = PauseLog::with_capacity(cap);
        let mut footprints = Vec::new();
        for round in 0..3 {
            for i in 0..(10 * cap as u64) {
                log.record(rec(i + 1));
                log.record_compaction(i + 1, 2, 1);
                log.record_compaction_mode(if i % 2 == 0 {
                    crate::FaultMode::Sigbus
                } else {
                    crate::FaultMode::Server
                });
                log.record_sanity(SanityReport {
                    reached: 1,
                    black: 0,
                    floating: 1,
                });
                log.record_cycle(CycleRecord {
                    n: i,
                    reason: "explicit",
                    requested_at_ns: 0,
                    started_at_ns: 0,
                    marked_at_ns: 0,
                    flipped_at_ns: 0,
                    done_at_ns: 0,
                    free_at_start: 0,
                    min_free: 100 + i,
                    trigger_bytes: 0,
                    rate_bytes_per_s: 0,
                    live_bytes: i,
                    mark_rounds: 0,
                    young: false,
                    throttled_ns: 1,
                    moved_bytes: 0,
                    large_object_bytes: 0,
                    flip_strategy: "copy",
                    flip_level: "copy",
                    pauses: 1,
                    pause_ns: 1,
                    compaction: "in-pause",
                    compaction_ns: 0,
                    compaction_pages: 0,
                    compaction_moved_pages: 0,
                    fault_stalls: 0,
                    fault_stall_max_ns: 0,
                    alloc_stalls: 0,
                    alloc_stall_max_ns: 0,
                });
            }
            footprints.push(log.footprint_bytes());
            let n = 10 * cap as u64 * (round + 1);
            let d = log.dropped();
            assert_eq!(
                (d.pauses, d.cycles, d.compactions, d.sanity_checks),
                (
                    n - cap as u64,
                    n - cap as u64,
                    n - cap as u64,
                    n - cap as u64
                )
            );
            assert_eq!(log.compaction_fault_modes().len(), cap);
            let c = log.compaction_stats();
            assert_eq!((c.count, c.pages, c.moved_pages), (n, 2 * n, n));
            assert_eq!(c.sigbus + c.server, n);
            assert_eq!(log.sanity_stats().count, n);
            assert_eq!(log.sanity_stats().floating, n);
            let cs = log.cycle_stats();
            assert_eq!((cs.count, cs.reason_count("explicit")), (n, n));
            assert_eq!(cs.throttled_ns, n);
            assert_eq!(cs.least_min_free, Some(100));
            assert_eq!(cs.max_live_bytes, 10 * cap as u64 - 1);
        }
        assert!(
            footprints.windows(2).all(|w| w[0] == w[1]),
            "{footprints:?}"
        );
        let s = crate::gclog::summary_bodies(&log);
        let n = 30 * cap;
        assert!(
            s[0].starts_with(&format!("pauses kind=all count={n} ")),
            "{s:?}"
        );
        assert!(s.contains(&format!(
            "cycles count={n} pacer=0 heap-full=0 explicit={n} after-bytes=0"
        )));
    }
}
