//! One run's results ([`RunRecord`], also one JSON run) and the JSON [`Document`]:
//! `{"runs": [{"workload", "heap_bytes", "mode", "wall_ns", "pauses": [...],
//! "summary": {...}}]}`. Other tools read these names ([`RUN_KEYS`],
//! [`PAUSE_KEYS`], [`SUMMARY_KEYS`]); keys may be added, never renamed.

use super::workload::Measured;
pub use flipgc_core::nearest_rank;
use flipgc_core::{PauseLog, PauseRecord, PhaseStats, PAUSE_KINDS};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// Keys every JSON run has.
pub const RUN_KEYS: [&str; 6] = [
    "workload",
    "heap_bytes",
    "mode",
    "wall_ns",
    "pauses",
    "summary",
];
/// Keys every JSON pause has.
pub const PAUSE_KEYS: [&str; 5] = ["kind", "total_ns", "ttsp_ns", "phases", "flip"];
/// Keys every JSON run summary has.
pub const SUMMARY_KEYS: [&str; 12] = [
    "collections",
    "p50_pause_ns",
    "p99_pause_ns",
    "max_pause_ns",
    "max_ttsp_ns",
    "hiccup_p99_ns",
    "hiccup_max_ns",
    "peak_rss_bytes",
    "machine_hiccup_p99_ns",
    "machine_hiccup_max_ns",
    "pauses_over_1ms",
    "pauses_over_1ms_machine",
];

/// The JSON document.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Document {
    /// Every run, in run order.
    pub runs: Vec<RunRecord>,
}

/// One run: a (workload, heap size, mode, repeat) and what it measured.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    /// Workload name (`gcbench`, `binarytrees`, `churn`, `bursts`,
    /// `jvmlike-gcbench`, `jvmlike-binarytrees`, `toyvm:FILE`).
    pub workload: String,
    /// Heap capacity asked for.
    pub heap_bytes: usize,
    /// Mode name (see `pause::mode`).
    pub mode: String,
    /// Who served the faults of the run's concurrent compactions: `"sigbus"` (the
    /// faulting threads, in their handlers: stalls measured end to end), `"server"`
    /// (the fault server: stalls from reading the fault to the install, a lower
    /// bound), `"mixed"`, or `"none"` (no concurrent compaction).
    pub fault_mode: String,
    /// Repeat index, from 0.
    pub repeat: usize,
    /// The workload's parameters (`null` for the toy VM).
    pub params: serde_json::Value,
    /// Wall time of the workload.
    pub wall_ns: u64,
    /// How long pausebench waited before the run for the guest to finish reporting
    /// freed memory to the host (`--settle`; outside the wall time), ns.
    pub settle_ns: u64,
    /// The collector's threads' scheduling (`--gc-priority`: `inherit`, `nice:N`, `slice:US`,
    /// `fifo:N`, `rr:N`).
    pub gc_priority: String,
    /// The workload's mutators' scheduling (`--mutator-priority`).
    pub mutator_priority: String,
    /// Every pause, oldest first: the last `HeapConfig::pause_log_capacity` (10,000
    /// by default) the pause log still holds; the summary's figures are of every pause.
    pub pauses: Vec<Pause>,
    /// Aggregates.
    pub summary: Summary,
    /// Pause statistics per pause kind.
    pub by_kind: BTreeMap<String, KindStats>,
    /// Every collection cycle: why it started and what the pacer saw
    /// ([`flipgc_core::CycleRecord`]); the last `HeapConfig::pause_log_capacity`.
    pub cycles: Vec<flipgc_core::CycleRecord>,
    /// Fault stalls of 1 ms or more, `[start, length]` in ns (start on the pause
    /// log's clock, as a pause's `at_ns`): `PauseLog::long_fault_stalls`.
    pub long_fault_stalls: Vec<(u64, u64)>,
    /// The machine meter's wake-ups that came 1 ms or more late, `[due, late]` in ns
    /// (due on the pause log's clock): when the machine held a plain thread up.
    pub machine_stalls: Vec<(u64, u64)>,
    /// Allocation stalls of 1 ms or more, `[start, length]` in ns:
    /// `PauseLog::long_alloc_stalls`.
    pub long_alloc_stalls: Vec<(u64, u64)>,
    /// Every pause, fault stall and allocation stall of 1 ms or more, with its
    /// cause (`outliers.rs`), oldest first.
    pub outliers: Vec<super::outliers::Outlier>,
    /// What the timeline plot draws besides pauses and cycles (not in the JSON).
    #[serde(skip)]
    pub timeline: Timeline,
}

/// A run's time-stamped samples, in ns since the heap was created (the pause log's
/// clock), oldest first.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// The hiccup meter's wake-ups: (when due, how late).
    pub hiccups: Vec<(u64, u64)>,
    /// The moving space's used bytes, (when, bytes): the hiccup meter's samples,
    /// and every pause's used bytes when the world had stopped and when it ended.
    pub heap_used: Vec<(u64, u64)>,
}

impl Timeline {
    /// The timeline of a run: the meter's samples with the pauses' used bytes.
    pub fn new(
        hiccups: &[(u64, u64)],
        heap_used: &[(u64, u64)],
        pauses: &[PauseRecord],
    ) -> Timeline {
        let mut used = heap_used.to_vec();
        for p in pauses {
            used.push((p.at_ns, p.used_before_bytes));
            used.push((p.at_ns + p.total_ns - p.ttsp_ns, p.used_after_bytes));
        }
        used.sort_by_key(|&(t, _)| t);
        Timeline {
            hiccups: hiccups.to_vec(),
            heap_used: used,
        }
    }
}

/// One pause.
#[derive(Clone, Debug, Serialize)]
pub struct Pause {
    /// One of [`flipgc_core::PAUSE_KINDS`]: `"full"`, `"mark-start"`, `"mark-end"`,
    /// `"flip"`.
    pub kind: String,
    /// The cycle it belongs to (from 1).
    pub cycle: u64,
    /// When every mutator had stopped (the pause began `ttsp_ns` earlier), since the
    /// heap was created.
    pub at_ns: u64,
    /// From the stop request until mutators could resume.
    pub total_ns: u64,
    /// Time to safepoint: from the stop request until every mutator had stopped.
    pub ttsp_ns: u64,
    /// The moving space's used bytes once the world had stopped.
    pub used_before_bytes: u64,
    /// The moving space's used bytes when the pause ended.
    pub used_after_bytes: u64,
    /// Phase name to duration.
    pub phases: BTreeMap<String, u64>,
    /// Live bytes in the moving space afterwards.
    pub live_bytes: u64,
    /// How the heap was moved.
    pub flip: Flip,
    /// Whether a mutator ran the pause on its own thread (not the GC driver).
    pub by_mutator: bool,
    /// The mutator the stop waited for last, if any: its thread's name (`main`
    /// for GCBench, binary-trees and the toy VM, `churn-<i>` for the churn's
    /// threads, `hiccup-meter` for the hiccup meter), or `mutator-<id>`.
    pub waited_for: Option<String>,
}

/// A pause's flip.
#[derive(Clone, Debug, Serialize)]
pub struct Flip {
    /// `"mremap+dontunmap"`, `"mremap"` or `"copy"`.
    pub strategy: String,
    /// `"pud"`, `"pmd"`, `"pte"` or `"copy"`.
    pub level: String,
    /// Time of the flip itself.
    pub elapsed_ns: u64,
    /// Bytes of garbage-only heap extents moved out before the pause, so that the
    /// flip skipped them.
    pub parked_bytes: u64,
}

/// The phase that took longest in any single pause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LargestPhase {
    /// Phase name.
    pub name: String,
    /// Its longest single occurrence.
    pub max_ns: u64,
    /// Its total over all pauses.
    pub total_ns: u64,
}

/// A run's aggregates. Pause quantiles are exact (nearest rank over the pauses);
/// hiccup and stall quantiles come from HDR histograms (3 significant digits).
/// Everything is 0 when there was nothing to measure.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Collection cycles (a concurrent cycle has a `mark-start`, one or more
    /// `mark-end` and a `flip` pause; a one-pause cycle one `full` pause).
    pub collections: usize,
    /// Pauses of every kind.
    pub pauses: usize,
    /// Median pause.
    pub p50_pause_ns: u64,
    /// 99th-percentile pause.
    pub p99_pause_ns: u64,
    /// Longest pause.
    pub max_pause_ns: u64,
    /// Longest time to safepoint.
    pub max_ttsp_ns: u64,
    /// Hiccup meter wake-ups recorded.
    pub hiccup_samples: u64,
    /// Median hiccup.
    pub hiccup_p50_ns: u64,
    /// 99th-percentile hiccup.
    pub hiccup_p99_ns: u64,
    /// 99.9th-percentile hiccup.
    pub hiccup_p999_ns: u64,
    /// Longest hiccup.
    pub hiccup_max_ns: u64,
    /// Allocation stalls (slow paths that waited for a collection).
    pub alloc_stalls: u64,
    /// 99th-percentile allocation stall.
    pub alloc_stall_p99_ns: u64,
    /// Longest allocation stall.
    pub alloc_stall_max_ns: u64,
    /// Fault stalls (waits for a page during concurrent compaction).
    pub fault_stalls: u64,
    /// Median fault stall.
    pub fault_stall_p50_ns: u64,
    /// 99th-percentile fault stall.
    pub fault_stall_p99_ns: u64,
    /// All fault stalls added up (from the histogram: within its 0.1 % precision):
    /// the time mutators lost waiting for, or filling, pages.
    pub fault_stall_total_ns: u64,
    /// Longest fault stall.
    pub fault_stall_max_ns: u64,
    /// Fault stalls measured but not kept (a thread's sample table was full).
    pub fault_stalls_lost: u64,
    /// Throttling sleeps (the pacer slowing allocation while a cycle was behind).
    pub throttles: u64,
    /// 99th-percentile throttling sleep.
    pub throttle_p99_ns: u64,
    /// Longest throttling sleep.
    pub throttle_max_ns: u64,
    /// All throttling sleeps added up (every thread).
    pub throttle_total_ns: u64,
    /// Cycles started by the pacer (the rest: a full heap, or asked for).
    pub paced_cycles: usize,
    /// Peak RSS of the process during the run (0 if unreadable).
    pub peak_rss_bytes: u64,
    /// 99th-percentile lateness of the machine meter (a plain thread sleeping 1 ms
    /// at a time, not a mutator: what the machine does to any thread).
    pub machine_hiccup_p99_ns: u64,
    /// The machine meter's longest lateness.
    pub machine_hiccup_max_ns: u64,
    /// Pauses of 1 ms or more (time to safepoint included).
    pub pauses_over_1ms: usize,
    /// Of those, the ones a machine-meter stall overlapped that was at least half
    /// as long as the pause (the machine's, at least partly).
    pub pauses_over_1ms_machine: usize,
    /// Fault stalls of 1 ms or more (`PauseLog::long_fault_stalls`; the first 10,000).
    pub fault_stalls_over_1ms: usize,
    /// Of those, the ones a machine-meter stall overlapped that was at least half
    /// as long as the stall.
    pub fault_stalls_over_1ms_machine: usize,
    /// CPU time the hypervisor took from the machine during the workload (steal,
    /// every CPU added up), ns; 0 if unreadable, and on bare metal.
    pub steal_ns: u64,
    /// CPU time the machine spent on anything but this process during the workload
    /// (other programs, kernel threads, interrupts; every CPU added up), ns, counted
    /// a 10 ms tick at a time; 0 if unreadable.
    pub others_cpu_ns: u64,
    /// The phase with the longest single occurrence, if there were pauses.
    pub largest_phase: Option<LargestPhase>,
}

/// Pause statistics of one kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KindStats {
    /// Pauses of this kind.
    pub count: usize,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Longest.
    pub max_ns: u64,
}

/// (p99, max) of a histogram, 0 when empty.
fn tail(h: &Histogram<u64>) -> (u64, u64) {
    if h.is_empty() {
        (0, 0)
    } else {
        (h.value_at_quantile(0.99), h.max())
    }
}

/// Statistics per pause kind that occurred, whole run (from the log's whole-run
/// statistics: every pause counts, also those its ring no longer holds; the
/// percentiles are exact while it holds them all, [`PauseLog::kind_quantile_ns`]).
pub fn by_kind(log: &PauseLog) -> BTreeMap<String, KindStats> {
    PAUSE_KINDS
        .iter()
        .filter_map(|k| {
            let s = log.kind_stats(k).filter(|s| s.count() > 0)?;
            let stats = KindStats {
                count: s.count() as usize,
                p50_ns: log.kind_quantile_ns(k, 0.5),
                p99_ns: log.kind_quantile_ns(k, 0.99),
                max_ns: s.max_ns(),
            };
            Some((k.to_string(), stats))
        })
        .collect()
}

/// The phase with the longest single occurrence (ties: the larger total), from the
/// log's whole-run statistics per phase ([`PauseLog::phase_stats`]).
pub fn largest_phase(phases: &BTreeMap<&'static str, PhaseStats>) -> Option<LargestPhase> {
    phases
        .iter()
        .max_by_key(|(_, p)| (p.max_ns, p.total_ns))
        .map(|(name, p)| LargestPhase {
            name: name.to_string(),
            max_ns: p.max_ns,
            total_ns: p.total_ns,
        })
}

impl RunRecord {
    /// The record of a finished run.
    pub fn new(
        workload: String,
        heap_bytes: usize,
        mode: String,
        repeat: usize,
        params: serde_json::Value,
        m: &Measured,
    ) -> RunRecord {
        // The exact records the log still holds (the last `pause_log_capacity`):
        // for the per-pause list, the timeline and the machine overlaps. Every count,
        // total and percentile below is whole-run, from the log's statistics.
        let records = m.log.records().to_vec();
        let stats = m.log.pause_stats();
        let (alloc_p99, alloc_max) = tail(m.log.alloc_stalls());
        let (fault_p99, fault_max) = tail(m.log.fault_stalls());
        let (throttle_p99, throttle_max) = tail(m.log.throttles());
        let cycles = m.log.cycle_stats();
        let windows: Vec<(u64, u64)> = records
            .iter()
            .map(|r| (r.at_ns.saturating_sub(r.ttsp_ns), r.total_ns))
            .collect();
        let (over_1ms, over_1ms_machine) =
            super::hiccup::machine_overlaps(&windows, &m.machine_samples, 1_000_000);
        let (faults_over_1ms, faults_over_1ms_machine) = super::hiccup::machine_overlaps(
            m.log.long_fault_stalls(),
            &m.machine_samples,
            flipgc_core::LONG_FAULT_STALL_NS,
        );
        let (machine_p99, machine_max) = tail(&m.machine);
        let h = &m.hiccups;
        let hq = |q: f64| {
            if h.is_empty() {
                0
            } else {
                h.value_at_quantile(q)
            }
        };
        let summary = Summary {
            collections: m.log.collections(),
            pauses: stats.count() as usize,
            p50_pause_ns: m.log.quantile_ns(0.5),
            p99_pause_ns: m.log.quantile_ns(0.99),
            max_pause_ns: stats.max_ns(),
            max_ttsp_ns: stats.max_ttsp_ns(),
            hiccup_samples: h.len(),
            hiccup_p50_ns: hq(0.5),
            hiccup_p99_ns: hq(0.99),
            hiccup_p999_ns: hq(0.999),
            hiccup_max_ns: if h.is_empty() { 0 } else { h.max() },
            alloc_stalls: m.log.alloc_stalls().len(),
            alloc_stall_p99_ns: alloc_p99,
            alloc_stall_max_ns: alloc_max,
            fault_stalls: m.log.fault_stalls().len(),
            fault_stall_p50_ns: m.log.fault_stalls().value_at_quantile(0.5),
            fault_stall_p99_ns: fault_p99,
            fault_stall_total_ns: (m.log.fault_stalls().mean() * m.log.fault_stalls().len() as f64)
                as u64,
            fault_stall_max_ns: fault_max,
            fault_stalls_lost: m.log.fault_stalls_lost(),
            throttles: m.log.throttles().len(),
            throttle_p99_ns: throttle_p99,
            throttle_max_ns: throttle_max,
            throttle_total_ns: cycles.throttled_ns,
            paced_cycles: cycles.reason_count("pacer") as usize,
            peak_rss_bytes: m.peak_rss.unwrap_or(0),
            machine_hiccup_p99_ns: machine_p99,
            machine_hiccup_max_ns: machine_max,
            pauses_over_1ms: over_1ms,
            pauses_over_1ms_machine: over_1ms_machine,
            fault_stalls_over_1ms: faults_over_1ms,
            fault_stalls_over_1ms_machine: faults_over_1ms_machine,
            steal_ns: m.steal_ns.unwrap_or(0),
            others_cpu_ns: m.others_cpu_ns.unwrap_or(0),
            largest_phase: largest_phase(m.log.phase_stats()),
        };
        let pauses: Vec<Pause> = records.iter().map(Pause::from).collect();
        let machine_stalls: Vec<(u64, u64)> = m
            .machine_samples
            .iter()
            .copied()
            .filter(|&(_, late)| late >= 1_000_000)
            .collect();
        let outliers = super::outliers::attribute(
            &pauses,
            m.log.long_fault_stalls(),
            m.log.long_alloc_stalls(),
            &machine_stalls,
        );
        RunRecord {
            workload,
            heap_bytes,
            mode,
            fault_mode: fault_mode_name(m.log.compaction_stats()).to_string(),
            repeat,
            params,
            wall_ns: m.wall.as_nanos() as u64,
            settle_ns: 0,
            gc_priority: "inherit".into(),
            mutator_priority: "inherit".into(),
            pauses,
            summary,
            by_kind: by_kind(&m.log),
            cycles: m.log.cycles().to_vec(),
            long_fault_stalls: m.log.long_fault_stalls().to_vec(),
            machine_stalls,
            long_alloc_stalls: m.log.long_alloc_stalls().to_vec(),
            outliers,
            timeline: Timeline::new(&m.hiccup_samples, &m.heap_used, &records),
        }
    }
}

/// `"sigbus"`, `"server"`, `"mixed"` or `"none"`: who served the faults of a run's
/// compactions (all of them: whole-run counts).
pub fn fault_mode_name(c: flipgc_core::CompactionStats) -> &'static str {
    match (c.sigbus > 0, c.server > 0) {
        (true, true) => "mixed",
        (true, false) => "sigbus",
        (false, true) => "server",
        (false, false) => "none",
    }
}

impl From<&PauseRecord> for Pause {
    fn from(r: &PauseRecord) -> Pause {
        Pause {
            kind: r.kind.to_string(),
            cycle: r.cycle,
            at_ns: r.at_ns,
            total_ns: r.total_ns,
            ttsp_ns: r.ttsp_ns,
            used_before_bytes: r.used_before_bytes,
            used_after_bytes: r.used_after_bytes,
            phases: r.phases.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            live_bytes: r.live_bytes,
            flip: Flip {
                strategy: r.flip.strategy.to_string(),
                level: r.flip.level.to_string(),
                elapsed_ns: r.flip.elapsed_ns,
                parked_bytes: r.flip.parked_bytes,
            },
            by_mutator: r.by_mutator,
            waited_for: r.waited_for.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_core::FlipSummary;

    fn rec(kind: &'static str, total: u64, phases: Vec<(&'static str, u64)>) -> PauseRecord {
        PauseRecord {
            kind,
            cycle: 1,
            at_ns: 0,
            total_ns: total,
            ttsp_ns: total / 10,
            used_before_bytes: 0,
            used_after_bytes: 0,
            phases,
            live_bytes: 0,
            live_objects: 0,
            large_object_bytes: 0,
            large_object_freed_bytes: 0,
            flip: FlipSummary {
                strategy: "copy",
                level: "copy",
                elapsed_ns: 1,
                fallback_reason: None,
                parked_bytes: 0,
            },
            by_mutator: false,
            waited_for: None,
        }
    }

    #[test]
    fn the_timeline_merges_the_pauses_used_bytes() {
        let mut p = rec("flip", 100, vec![("flip", 90)]);
        (p.at_ns, p.ttsp_ns, p.used_before_bytes, p.used_after_bytes) = (1_000, 10, 900, 300);
        let t = Timeline::new(&[(5, 1)], &[(0, 100), (2_000, 400)], &[p]);
        assert_eq!(
            t.heap_used,
            [(0, 100), (1_000, 900), (1_090, 300), (2_000, 400)]
        );
        assert_eq!(t.hiccups, [(5, 1)]);
    }

    #[test]
    fn quantiles_kinds_and_phases() {
        assert_eq!(nearest_rank(&[], 0.5), 0);
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 0.5), 2);
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 0.99), 4);
        let r = [
            rec("full", 100, vec![("mark", 60), ("flip", 40)]),
            rec("mark-start", 30, vec![("mark", 30)]),
            rec("full", 300, vec![("mark", 50), ("flip", 250)]),
        ];
        let mut log = PauseLog::new();
        for p in &r {
            log.record(p.clone());
        }
        let k = by_kind(&log);
        assert_eq!(k.keys().collect::<Vec<_>>(), ["full", "mark-start"]);
        assert_eq!(
            (k["full"].count, k["full"].p50_ns, k["full"].max_ns),
            (2, 100, 300)
        );
        assert_eq!(k["mark-start"].p99_ns, 30);
        let p = largest_phase(log.phase_stats()).unwrap();
        assert_eq!((p.name.as_str(), p.max_ns, p.total_ns), ("flip", 250, 290));
        assert_eq!(largest_phase(PauseLog::new().phase_stats()), None);
        let j = serde_json::to_value(Pause::from(&r[0])).unwrap();
        for key in PAUSE_KEYS {
            assert!(j.get(key).is_some(), "{key}: {j}");
        }
        assert_eq!(j["phases"]["mark"], 60);
        assert_eq!(j["flip"]["level"], "copy");
    }
}
