//! flipbench's results: [`RunRecord`] (one row, also one JSON run), the JSON
//! [`Document`] (`{"caps": ..., "runs": [...]}`; other tools read these key names),
//! [`fill_ratios`] (each row against the PUD row of its size and backing) and the
//! printed [`table`].

use crate::stats::{ratio, Summary};
use serde::Serialize;

/// The keys every JSON run carries, which other tools rely on (the serialized names
/// of [`RunRecord`]'s fields; extra keys may follow).
pub const RUN_KEYS: [&str; 6] = [
    "size_bytes",
    "backing",
    "mode",
    "level_used",
    "samples_ns",
    "median_ns",
];

/// One run: a (size, backing, mode) with its samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRecord {
    /// Bytes flipped.
    pub size_bytes: usize,
    /// `"4k"` or `"thp"`.
    pub backing: &'static str,
    /// `"pte"`, `"pmd"`, `"pud"` or `"copy"`.
    pub mode: &'static str,
    /// What the engine reported for the timed flips (`FlipReport::level_name`;
    /// the lowest one if they differed): `"pte"`, `"pmd"`, `"pud"` or `"copy"`.
    pub level_used: &'static str,
    /// The plan's body level for the placement (`Flipper::plan`), even for `copy`.
    pub plan_level: &'static str,
    /// Elapsed time of each timed flip, in nanoseconds, in run order.
    pub samples_ns: Vec<u64>,
    /// Median of the samples (see [`crate::stats::median`]).
    pub median_ns: u64,
    /// Fastest sample.
    pub min_ns: u64,
    /// Slowest sample.
    pub max_ns: u64,
    /// `median_ns` over the median of the `pud` run of the same size and backing.
    pub ratio_to_pud: Option<f64>,
    /// Flips (timed or not) that fell back to copying.
    pub fallbacks: usize,
    /// The process's `AnonHugePages` after populating, in bytes, if readable.
    pub anon_huge_bytes: Option<u64>,
}

impl RunRecord {
    /// A record for `samples` (non-empty); `ratio_to_pud` is filled in later by
    /// [`fill_ratios`].
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        size_bytes: usize,
        backing: &'static str,
        mode: &'static str,
        level_used: &'static str,
        plan_level: &'static str,
        samples_ns: Vec<u64>,
        fallbacks: usize,
        anon_huge_bytes: Option<u64>,
    ) -> Option<RunRecord> {
        let s = Summary::of(&samples_ns)?;
        Some(RunRecord {
            size_bytes,
            backing,
            mode,
            level_used,
            plan_level,
            samples_ns,
            median_ns: s.median,
            min_ns: s.min,
            max_ns: s.max,
            ratio_to_pud: None,
            fallbacks,
            anon_huge_bytes,
        })
    }
}

/// The JSON document `--json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct Document {
    /// `serde_json::to_value(Capabilities::probe())`.
    pub caps: serde_json::Value,
    /// The runs, in run order.
    pub runs: Vec<RunRecord>,
}

/// Sets each run's `ratio_to_pud` from the `pud` run of the same size and backing
/// (`None` when there is none).
pub fn fill_ratios(runs: &mut [RunRecord]) {
    let pud_medians: Vec<_> = runs
        .iter()
        .filter(|r| r.mode == "pud")
        .map(|r| (r.size_bytes, r.backing, r.median_ns))
        .collect();
    for r in runs.iter_mut() {
        r.ratio_to_pud = pud_medians
            .iter()
            .find(|(size, backing, _)| *size == r.size_bytes && *backing == r.backing)
            .and_then(|&(_, _, pud)| ratio(r.median_ns, pud));
    }
}

/// A duration in nanoseconds as the table prints it: microseconds with one
/// decimal below 10 ms, milliseconds with one decimal from 10 ms on.
pub fn fmt_ns(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else {
        format!("{:.1} µs", ns as f64 / 1e3)
    }
}

/// A ratio with about three significant digits, or `-` when absent.
pub fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        None => "-".into(),
        Some(r) if r >= 100.0 => format!("{r:.0}"),
        Some(r) if r >= 10.0 => format!("{r:.1}"),
        Some(r) => format!("{r:.2}"),
    }
}

/// The results table: size, backing, mode, level used, median, min, max, ratio to PUD.
pub fn table(runs: &[RunRecord]) -> String {
    let header = [
        "size",
        "backing",
        "mode",
        "level used",
        "median",
        "min",
        "max",
        "ratio to PUD",
    ];
    let rows: Vec<[String; 8]> = runs
        .iter()
        .map(|r| {
            [
                flipgc_heap::fmt_bytes(r.size_bytes),
                r.backing.into(),
                r.mode.into(),
                r.level_used.into(),
                fmt_ns(r.median_ns),
                fmt_ns(r.min_ns),
                fmt_ns(r.max_ns),
                fmt_ratio(r.ratio_to_pud),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|row| row[i].chars().count())
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    // Text columns left-aligned, figures right-aligned.
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i > 0 {
                s.push_str("  ");
            }
            if i < 4 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out += &line(&rule.iter().map(String::as_str).collect::<Vec<_>>());
    for row in &rows {
        out += &line(&row.iter().map(String::as_str).collect::<Vec<_>>());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(mode: &'static str, size: usize, backing: &'static str, ns: &[u64]) -> RunRecord {
        RunRecord::new(size, backing, mode, mode, "pud", ns.to_vec(), 0, None).unwrap()
    }

    #[test]
    fn json_has_the_agreed_key_names() {
        let mut runs = vec![rec("pte", 1 << 30, "4k", &[300, 100, 200])];
        runs.push(rec("pud", 1 << 30, "4k", &[10, 10]));
        fill_ratios(&mut runs);
        let doc = Document {
            caps: serde_json::to_value(flipgc_heap::Capabilities::probe()).unwrap(),
            runs,
        };
        let v = serde_json::to_value(&doc).unwrap();
        let top: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(top, ["caps", "runs"]);
        assert!(v["caps"]["geometry"]["page"].is_u64());
        let run = &v["runs"][0];
        for key in RUN_KEYS {
            assert!(run.get(key).is_some(), "missing {key} in {run}");
        }
        assert_eq!(run["size_bytes"], 1u64 << 30);
        assert_eq!(run["backing"], "4k");
        assert_eq!(run["mode"], "pte");
        assert_eq!(run["level_used"], "pte");
        assert_eq!(run["samples_ns"], serde_json::json!([300, 100, 200]));
        assert_eq!(run["median_ns"], 200);
        assert_eq!(run["ratio_to_pud"], 20.0);
        assert_eq!(v["runs"][1]["ratio_to_pud"], 1.0);
    }

    #[test]
    fn ratios_match_size_and_backing() {
        let mut runs = vec![
            rec("pte", 1 << 30, "4k", &[50]),
            rec("pud", 1 << 30, "thp", &[5]),
            rec("copy", 1 << 30, "thp", &[500]),
            rec("pud", 2 << 30, "4k", &[1]),
        ];
        fill_ratios(&mut runs);
        let r: Vec<_> = runs.iter().map(|r| r.ratio_to_pud).collect();
        assert_eq!(r, [None, Some(1.0), Some(100.0), Some(1.0)]);
        runs[3].median_ns = 0;
        runs[3].ratio_to_pud = None;
        fill_ratios(&mut runs[3..]);
        assert_eq!(runs[3].ratio_to_pud, None);
    }

    #[test]
    fn times_and_table() {
        assert_eq!(fmt_ns(1_234), "1.2 µs");
        assert_eq!(fmt_ns(9_999_949), "9999.9 µs");
        assert_eq!(fmt_ns(10_000_000), "10.0 ms");
        assert_eq!(fmt_ns(1_234_567_890), "1234.6 ms");
        assert_eq!(fmt_ratio(None), "-");
        assert_eq!(fmt_ratio(Some(1.0)), "1.00");
        assert_eq!(fmt_ratio(Some(42.24)), "42.2");
        assert_eq!(fmt_ratio(Some(1234.4)), "1234");
        let t = table(&[rec("pmd", 1 << 30, "4k", &[2_000, 1_000, 3_000])]);
        let lines: Vec<_> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("size") && lines[0].ends_with("ratio to PUD"));
        assert!(lines[2].contains("1 GiB") && lines[2].contains("2.0 µs"));
        assert!(lines[2].ends_with('-'), "{}", lines[2]);
    }
}
