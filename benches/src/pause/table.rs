//! pausebench's printed tables. Other tools can match the format by building rows
//! with [`run_cells`] / [`kind_cells`] and printing them with [`render`].
//!
//! The runs table ([`RUN_HEADER`]), one row per run; times in microseconds
//! (rounded down) unless noted:
//!
//! | column | meaning |
//! |---|---|
//! | `workload`, `heap`, `mode` | the run |
//! | `wall s` | workload wall time, seconds |
//! | `GCs` | collection cycles (a concurrent cycle has a `mark` and a `flip` pause) |
//! | `p50`, `p99`, `max` | pause totals (stop request to resume), nearest rank |
//! | `ttsp` | longest time to safepoint (stop request until all mutators stopped) |
//! | `top phase (max)` | the phase with the longest single occurrence, and that occurrence |
//! | `hic p99`, `hic p99.9`, `hic max` | hiccup meter: how late a 1 ms sleep woke up |
//! | `alloc p99`, `alloc max` | allocation slow paths that waited for a collection |
//! | `faults` | who served faults: `sigbus` (the faulting thread), `server`, `mixed`, `none` |
//! | `fault p99`, `fault max` | waits for a page during concurrent compaction |
//! | `RSS MiB` | peak resident memory of the process during the run |
//!
//! The pauses-by-kind table ([`KIND_HEADER`]): workload, heap, mode, pause kind,
//! count, and p50/p99/max pause totals of that kind (us).
//!
//! The long-pauses table ([`LONG_HEADER`]): per run, the CPU time the hypervisor
//! took from the machine during it (steal, ms, every CPU added up), the CPU time
//! the machine spent on anything but this process (other programs, kernel threads,
//! interrupts; ms), the machine
//! meter's p99 and max lateness (a plain thread, not a mutator), the pauses of 1 ms
//! or more and how many of them a machine stall at least half as long overlapped,
//! and the same for fault stalls of 1 ms or more.

use super::record::RunRecord;
use flipgc_heap::fmt_bytes;

/// The runs table's columns.
pub const RUN_HEADER: [&str; 19] = [
    "workload",
    "heap",
    "mode",
    "wall s",
    "GCs",
    "p50",
    "p99",
    "max",
    "ttsp",
    "top phase (max)",
    "hic p99",
    "hic p99.9",
    "hic max",
    "alloc p99",
    "alloc max",
    "faults",
    "fault p99",
    "fault max",
    "RSS MiB",
];

/// The long-pauses table's columns: steal and other work's CPU time (ms), the
/// machine meter's p99 and max
/// lateness (us), pauses of 1 ms or more, how many of those a machine stall
/// overlapped (at least half as long as the pause), and the same for fault stalls.
pub const LONG_HEADER: [&str; 11] = [
    "workload",
    "heap",
    "mode",
    "steal ms",
    "others ms",
    "machine p99",
    "machine max",
    "pauses >= 1 ms",
    "with a machine stall",
    "fault stalls >= 1 ms",
    "faults with a machine stall",
];

/// The pauses-by-kind table's columns.
pub const KIND_HEADER: [&str; 8] = [
    "workload", "heap", "mode", "kind", "count", "p50", "p99", "max",
];

/// Columns left-aligned (text); the rest are right-aligned numbers.
const TEXT_COLUMNS: [&str; 6] = [
    "workload",
    "heap",
    "mode",
    "kind",
    "top phase (max)",
    "faults",
];

fn us(ns: u64) -> String {
    (ns / 1000).to_string()
}

/// A run's row of the runs table.
pub fn run_cells(r: &RunRecord) -> Vec<String> {
    let s = &r.summary;
    let phase = s
        .largest_phase
        .as_ref()
        .map_or("-".to_string(), |p| format!("{} {}", p.name, us(p.max_ns)));
    vec![
        r.workload.clone(),
        fmt_bytes(r.heap_bytes),
        r.mode.clone(),
        format!("{:.2}", r.wall_ns as f64 / 1e9),
        s.collections.to_string(),
        us(s.p50_pause_ns),
        us(s.p99_pause_ns),
        us(s.max_pause_ns),
        us(s.max_ttsp_ns),
        phase,
        us(s.hiccup_p99_ns),
        us(s.hiccup_p999_ns),
        us(s.hiccup_max_ns),
        us(s.alloc_stall_p99_ns),
        us(s.alloc_stall_max_ns),
        r.fault_mode.clone(),
        us(s.fault_stall_p99_ns),
        us(s.fault_stall_max_ns),
        (s.peak_rss_bytes >> 20).to_string(),
    ]
}

/// A run's rows of the pauses-by-kind table (one per kind, none without pauses).
pub fn kind_cells(r: &RunRecord) -> Vec<Vec<String>> {
    r.by_kind
        .iter()
        .map(|(kind, k)| {
            vec![
                r.workload.clone(),
                fmt_bytes(r.heap_bytes),
                r.mode.clone(),
                kind.clone(),
                k.count.to_string(),
                us(k.p50_ns),
                us(k.p99_ns),
                us(k.max_ns),
            ]
        })
        .collect()
}

/// Renders `rows` under `header`, columns padded to their widest cell, text left-
/// and numbers right-aligned, two spaces apart; one line per row.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let parts: Vec<String> = cells
            .zip(header.iter().zip(&widths))
            .map(|(cell, (h, &w))| {
                if TEXT_COLUMNS.contains(h) {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&mut header.iter().copied());
    for row in rows {
        out += &line(&mut row.iter().map(String::as_str));
    }
    out
}

/// The runs table.
pub fn runs_table(runs: &[RunRecord]) -> String {
    let rows: Vec<Vec<String>> = runs.iter().map(run_cells).collect();
    render(&RUN_HEADER, &rows)
}

/// The long-pauses table ([`LONG_HEADER`]), one row per run.
pub fn long_pauses_table(runs: &[RunRecord]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            vec![
                r.workload.clone(),
                fmt_bytes(r.heap_bytes),
                r.mode.clone(),
                (s.steal_ns / 1_000_000).to_string(),
                (s.others_cpu_ns / 1_000_000).to_string(),
                us(s.machine_hiccup_p99_ns),
                us(s.machine_hiccup_max_ns),
                s.pauses_over_1ms.to_string(),
                s.pauses_over_1ms_machine.to_string(),
                s.fault_stalls_over_1ms.to_string(),
                s.fault_stalls_over_1ms_machine.to_string(),
            ]
        })
        .collect();
    render(&LONG_HEADER, &rows)
}

/// Rows of the outliers table per run at most; the JSON has them all.
pub const OUTLIER_ROWS: usize = 12;

/// The outliers table: the pauses and stalls of 1 ms or more, with their causes
/// (`outliers.rs`), one row each, at most [`OUTLIER_ROWS`] per run (then a row
/// saying how many more the JSON has); empty when there is none.
pub fn outliers_table(runs: &[RunRecord]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .flat_map(|r| {
            let more = r.outliers.len().saturating_sub(OUTLIER_ROWS);
            let tail = (more > 0).then(|| {
                let mut row = vec![String::new(); 8];
                row[0] = r.workload.clone();
                row[1] = fmt_bytes(r.heap_bytes);
                row[2] = r.mode.clone();
                row[3] = format!("{more} more");
                row[7] = "in the JSON (outliers)".to_string();
                row
            });
            r.outliers
                .iter()
                .take(OUTLIER_ROWS)
                .map(move |o| {
                    vec![
                        r.workload.clone(),
                        fmt_bytes(r.heap_bytes),
                        r.mode.clone(),
                        o.what.clone(),
                        format!("{:.3}", o.at_ns as f64 / 1e9),
                        us(o.ns),
                        o.cause.clone(),
                        o.evidence.clone(),
                    ]
                })
                .chain(tail)
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    render(
        &[
            "workload", "heap", "mode", "what", "at (s)", "us", "cause", "evidence",
        ],
        &rows,
    )
}

/// The pauses-by-kind table.
pub fn kinds_table(runs: &[RunRecord]) -> String {
    let rows: Vec<Vec<String>> = runs.iter().flat_map(kind_cells).collect();
    render(&KIND_HEADER, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align() {
        let rows = vec![
            vec!["gcbench".to_string(), "12".to_string()],
            vec!["churn".to_string(), "3".to_string()],
        ];
        let t = render(&["workload", "GCs"], &rows);
        assert_eq!(t, "workload  GCs\ngcbench    12\nchurn       3\n");
    }
}
