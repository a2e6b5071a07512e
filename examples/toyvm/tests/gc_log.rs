//! The GC log through the `toyvm` binary: with `FLIPGC_LOG=gc` a program prints a
//! line per pause, and the counts and p50/p99/max per pause kind computed from
//! those lines are what `--gc-stats` (the summary `(gc-stats)` prints) reports;
//! `(gc-stats)` itself prints that summary; `RUST_LOG` shows the collector's spans.

use std::collections::BTreeMap;
use std::process::Command;

fn toyvm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toyvm"));
    c.env_remove("FLIPGC_LOG").env_remove("RUST_LOG");
    c
}

fn gcbench() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/programs/gcbench.scm").to_string()
}

/// The `key=value` fields of a GC log line with tags `tags`, if it is one.
fn fields<'a>(line: &'a str, tags: &str) -> Option<BTreeMap<&'a str, &'a str>> {
    let rest = line.split_once(&format!("][{tags}] "))?.1;
    Some(
        rest.split_whitespace()
            .filter_map(|w| w.split_once('='))
            .collect(),
    )
}

fn ms(v: &str) -> f64 {
    v.strip_suffix("ms").unwrap().parse().unwrap()
}

/// Nearest rank, as the pause log computes quantiles.
fn rank(sorted: &[f64], q: f64) -> f64 {
    let r = (q * sorted.len() as f64).ceil() as usize;
    sorted[r.clamp(1, sorted.len()) - 1]
}

#[test]
fn log_lines_agree_with_gc_stats() {
    let o = toyvm()
        .args(["--heap", "8M", "--gc-stats", &gcbench()])
        .env("FLIPGC_LOG", "gc")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let mut by_kind: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for f in err.lines().filter_map(|l| fields(l, "gc,pause")) {
        by_kind
            .entry(f["kind"].to_string())
            .or_default()
            .push(ms(f["total"]));
    }
    let pauses: usize = by_kind.values().map(Vec::len).sum();
    assert!(pauses >= 3, "too few pauses to compare:\n{err}");
    // The summary lines (printed by --gc-stats, and again when the heap is dropped).
    let summary: Vec<BTreeMap<&str, &str>> = err
        .lines()
        .filter_map(|l| fields(l, "gc,summary"))
        .filter(|f| f.contains_key("kind") && f.contains_key("p50"))
        .collect();
    let all = summary.iter().find(|f| f["kind"] == "all").unwrap();
    assert_eq!(all["count"], pauses.to_string(), "{err}");
    for (kind, totals) in &mut by_kind {
        totals.sort_by(f64::total_cmp);
        let s = summary.iter().find(|f| f["kind"] == kind).unwrap();
        assert_eq!(s["count"], totals.len().to_string(), "{kind}");
        for (q, key) in [(0.5, "p50"), (0.99, "p99"), (1.0, "max")] {
            // Both are the same nanoseconds, each rounded to the microsecond.
            let (line, stat) = (rank(totals, q), ms(s[key]));
            assert!(
                (line - stat).abs() < 0.0015,
                "{kind} {key}: {line} vs {stat}"
            );
        }
        let sum: f64 = totals.iter().sum();
        assert!((sum - ms(s["total"])).abs() < 0.001 * totals.len() as f64);
    }
    // One line per finished cycle, each naming its pauses.
    let cycles: Vec<_> = err.lines().filter_map(|l| fields(l, "gc,cycle")).collect();
    let counted: usize = cycles
        .iter()
        .map(|c| c["pauses"].parse::<usize>().unwrap())
        .sum();
    assert_eq!(counted, pauses, "{err}");
}

#[test]
fn gc_stats_prints_the_summary() {
    let dir = std::env::temp_dir().join(format!("toyvm-gclog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("stats.scm");
    std::fs::write(&p, "(define (f n) (if (> n 0) (begin (make-vector 100 n) (f (- n 1)))))\n(f 20000) (gc) (gc-stats)").unwrap();
    let o = toyvm().args(["--heap", "1M"]).arg(&p).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    for want in [
        "[gc,summary] pauses kind=all count=",
        "[gc,summary] pauses kind=flip count=",
        "[gc,summary] cycles count=",
        "[gc,summary] stalls kind=fault count=",
    ] {
        assert!(out.contains(want), "no {want:?} in:\n{out}");
    }
    // Without the log, stderr stays quiet.
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

#[test]
fn rust_log_shows_the_spans() {
    let o = toyvm()
        .args(["--heap", "8M", &gcbench()])
        .env("RUST_LOG", "flipgc_core=debug")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("pause{kind=\"flip\"}: flipgc_core::collect::pause: close time.busy="));
    assert!(
        err.contains("pause{kind=\"mark-start\"}:phase{name=\"boundary\"}"),
        "{err}"
    );
}
