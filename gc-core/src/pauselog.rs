//! The pause log: one record per stop-the-world pause (kind, time-to-safepoint,
//! each phase, live and moved bytes, the flip), an HDR histogram of pause totals,
//! and JSON export.

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
    /// prefix's and the black region's, produced in place).
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

/// All pauses of a heap.
#[derive(Clone)]
pub struct PauseLog {
    records: Vec<PauseRecord>,
    totals: Histogram<u64>,
    alloc_stalls: Histogram<u64>,
    fault_stalls: Histogram<u64>,
    compactions: Vec<(u64, usize, usize)>,
    compaction_modes: Vec<crate::FaultMode>,
    fault_stalls_lost: u64,
    long_fault_stalls: Vec<(u64, u64)>,
    sanity: Vec<crate::collect::sanity::SanityReport>,
    cycles: Vec<CycleRecord>,
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
    /// An empty log.
    pub fn new() -> PauseLog {
        PauseLog {
            records: Vec::new(),
            totals: stall_histogram(),
            alloc_stalls: stall_histogram(),
            fault_stalls: stall_histogram(),
            compactions: Vec::new(),
            compaction_modes: Vec::new(),
            fault_stalls_lost: 0,
            long_fault_stalls: Vec::new(),
            sanity: Vec::new(),
            cycles: Vec::new(),
            throttles: stall_histogram(),
            window: Default::default(),
        }
    }

    /// Adds a pause.
    pub fn record(&mut self, r: PauseRecord) {
        self.totals.saturating_record(r.total_ns.max(1));
        self.records.push(r);
    }

    /// Records an allocation stall: an allocation slow path that waited for a
    /// collection (its own or another thread's), from entering the slow path until
    /// it had memory (or gave up), in ns.
    pub fn record_alloc_stall(&mut self, ns: u64) {
        self.window.1.add(ns);
        self.alloc_stalls.saturating_record(ns.max(1));
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
        self.compaction_modes.push(mode);
    }

    /// Who served each concurrent compaction's faults (`Sigbus` or `Server`), oldest
    /// first, as [`PauseLog::compactions`].
    pub fn compaction_fault_modes(&self) -> &[crate::FaultMode] {
        &self.compaction_modes
    }

    /// Records a concurrent compaction: from the end of its flip pause until its last
    /// page was installed (ns), and how many pages it filled.
    pub fn record_compaction(&mut self, ns: u64, pages: usize, moved: usize) {
        self.compactions.push((ns, pages, moved));
    }

    /// The (fault, allocation) stalls recorded since the last call, and a new window.
    pub(crate) fn take_stall_window(&mut self) -> (StallSum, StallSum) {
        std::mem::take(&mut self.window)
    }

    /// Records a finished cycle.
    pub(crate) fn record_cycle(&mut self, c: CycleRecord) {
        self.cycles.push(c);
    }

    /// The finished cycles, oldest first.
    pub fn cycles(&self) -> &[CycleRecord] {
        &self.cycles
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
    pub(crate) fn record_sanity(&mut self, r: crate::collect::sanity::SanityReport) {
        self.sanity.push(r);
    }

    /// The sanity re-traces run (one per concurrent cycle with `verify_after_gc`):
    /// objects reached, reached black objects, floating garbage; oldest first.
    pub fn sanity_checks(&self) -> &[crate::collect::sanity::SanityReport] {
        &self.sanity
    }

    /// Concurrent compactions: (duration ns, pages filled, of which moved rather
    /// than copied), oldest first.
    pub fn compactions(&self) -> &[(u64, usize, usize)] {
        &self.compactions
    }

    /// Collection cycles: pauses of kind `"full"` or `"mark-start"` (a concurrent
    /// cycle has a mark-start, one or more mark-end, and a flip pause).
    pub fn collections(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.kind == "full" || r.kind == "mark-start")
            .count()
    }

    /// Pause total at quantile `q` over pauses of `kind` only (nearest rank; 0 if none).
    pub fn kind_quantile_ns(&self, kind: &str, q: f64) -> u64 {
        let mut totals: Vec<u64> = self
            .records
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.total_ns)
            .collect();
        totals.sort_unstable();
        nearest_rank(&totals, q)
    }

    /// The histogram of allocation stalls (ns); see [`PauseLog::record_alloc_stall`].
    pub fn alloc_stalls(&self) -> &Histogram<u64> {
        &self.alloc_stalls
    }

    /// The histogram of fault stalls (ns); empty unless compaction ran concurrently.
    pub fn fault_stalls(&self) -> &Histogram<u64> {
        &self.fault_stalls
    }

    /// The pauses, oldest first.
    pub fn records(&self) -> &[PauseRecord] {
        &self.records
    }

    /// The histogram of pause totals (ns).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.totals
    }

    /// Pause total at quantile `q` (0..=1), in ns, by nearest rank over the recorded
    /// pauses (exact; the histogram's own quantiles round the rank down, which makes
    /// "p99" of a few pauses smaller than the largest); 0 if there were none.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        let mut totals: Vec<u64> = self.records.iter().map(|r| r.total_ns).collect();
        totals.sort_unstable();
        nearest_rank(&totals, q)
    }

    fn by_kind(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for kind in PAUSE_KINDS {
            let n = self.records.iter().filter(|r| r.kind == kind).count();
            if n > 0 {
                m.insert(
                    kind.into(),
                    serde_json::json!({
                        "count": n,
                        "p50_ns": self.kind_quantile_ns(kind, 0.5),
                        "p99_ns": self.kind_quantile_ns(kind, 0.99),
                        "max_ns": self.kind_quantile_ns(kind, 1.0),
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
    /// "max_ns"}}}}`
    /// (stall quantiles come from HDR histograms, 3 significant digits; 0 when none).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "pauses": self.records,
            "cycles": self.cycles,
            "summary": {
                "collections": self.collections(),
                "pauses": self.records.len(),
                "p50_pause_ns": self.quantile_ns(0.5),
                "p99_pause_ns": self.quantile_ns(0.99),
                "max_pause_ns": self.records.iter().map(|r| r.total_ns).max().unwrap_or(0),
                "max_ttsp_ns": self.records.iter().map(|r| r.ttsp_ns).max().unwrap_or(0),
                "alloc_stalls": self.alloc_stalls.len(),
                "alloc_stall_p99_ns": self.alloc_stalls.value_at_quantile(0.99),
                "alloc_stall_max_ns": self.alloc_stalls.max(),
                "fault_stalls": self.fault_stalls.len(),
                "fault_stall_p99_ns": self.fault_stalls.value_at_quantile(0.99),
                "fault_stall_max_ns": self.fault_stalls.max(),
                "fault_stalls_lost": self.fault_stalls_lost,
                "compactions": self.compactions.len(),
                "compaction_fault_modes": {
                    "sigbus": self.compaction_modes.iter().filter(|m| **m == crate::FaultMode::Sigbus).count(),
                    "server": self.compaction_modes.iter().filter(|m| **m == crate::FaultMode::Server).count(),
                },
                "throttles": self.throttles.len(),
                "throttle_p99_ns": self.throttles.value_at_quantile(0.99),
                "throttle_max_ns": self.throttles.max(),
                "throttle_total_ns": self.cycles.iter().map(|c| c.throttled_ns).sum::<u64>(),
                "sanity_checks": self.sanity.len(),
                "floating_objects": self.sanity.iter().map(|r| r.floating).sum::<u64>(),
                "compaction_max_ns": self.compactions.iter().map(|c| c.0).max().unwrap_or(0),
                "by_kind": self.by_kind(),
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
        log.record_alloc_stall(1_000);
        log.record_alloc_stall(50_000);
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
}
