//! The GC log: one line per pause and one per finished cycle on stderr, in the
//! shape of the JVM's unified logging (`-Xlog:gc`): decorations (uptime, heap,
//! tags), then the event and its fields as `key=value`.
//!
//! ```text
//! [1.330s][heap1][gc,pause] GC(3) pause kind=flip total=0.130ms ttsp=0.009ms used=610.0M->121.0M capacity=1024.0M live=121.0M strategy=mremap+dontunmap level=pud flip_time=0.060ms
//! [1.402s][heap1][gc,cycle] GC(3) cycle reason=pacer time=198.123ms ...
//! ```
//!
//! Turned on by [`HeapConfig::gc_log`](crate::HeapConfig::gc_log) or by the
//! environment variable [`ENV`] (`FLIPGC_LOG=gc`, `FLIPGC_LOG=gc,phases`), read when
//! a heap is created. The format, every field and its unit, is in docs/gc-log.md.
//! Lines are written after the world has resumed, so writing them never lengthens a
//! pause.

use crate::pauselog::{CycleRecord, PauseLog, PauseRecord, PauseStats, PAUSE_KINDS};
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The environment variable that turns the GC log on for every heap of the
/// process: the same selectors as [`GcLog::parse`].
pub const ENV: &str = "FLIPGC_LOG";

/// What the GC log prints (both off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcLog {
    /// `gc`: the heap's line at creation, a line per pause and per finished cycle,
    /// and the summary lines when the heap is dropped.
    pub gc: bool,
    /// `phases`: a line per phase of each pause.
    pub phases: bool,
}

impl GcLog {
    /// Nothing logged.
    pub const OFF: GcLog = GcLog {
        gc: false,
        phases: false,
    };
    /// Pauses, cycles, the heap line and the summary (`gc`).
    pub const GC: GcLog = GcLog {
        gc: true,
        phases: false,
    };
    /// Everything (`gc,phases`).
    pub const ALL: GcLog = GcLog {
        gc: true,
        phases: true,
    };

    /// Parses comma-separated selectors: `gc`, `phases` (also `gc+phases`), `all`
    /// (both), `off` or `none` (nothing; only alone). Blank items are ignored, so
    /// `""` is off.
    pub fn parse(text: &str) -> Result<GcLog, String> {
        let mut out = GcLog::OFF;
        let items: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        for item in &items {
            match *item {
                "gc" => out.gc = true,
                "phases" | "gc+phases" => out.phases = true,
                "all" => out = GcLog::ALL,
                "off" | "none" if items.len() == 1 => {}
                _ => {
                    return Err(format!(
                        "GC log selector {item:?} is not one of gc, phases, all, off"
                    ))
                }
            }
        }
        Ok(out)
    }

    /// The selectors of [`ENV`], or off if it is unset. A bad value is reported on
    /// stderr (once per process) and ignored.
    pub fn from_env() -> GcLog {
        let Some(text) = std::env::var_os(ENV) else {
            return GcLog::OFF;
        };
        match GcLog::parse(&text.to_string_lossy()) {
            Ok(spec) => spec,
            Err(e) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| eprintln!("flipgc: {ENV} ignored: {e}"));
                GcLog::OFF
            }
        }
    }

    /// Whether anything is logged.
    pub fn any(self) -> bool {
        self.gc || self.phases
    }

    /// Everything either asks for.
    pub fn union(self, other: GcLog) -> GcLog {
        GcLog {
            gc: self.gc || other.gc,
            phases: self.phases || other.phases,
        }
    }

    /// The selectors, as [`GcLog::parse`] reads them (`off` when nothing).
    pub fn name(self) -> &'static str {
        match (self.gc, self.phases) {
            (false, false) => "off",
            (true, false) => "gc",
            (false, true) => "phases",
            (true, true) => "gc,phases",
        }
    }
}

/// A duration in milliseconds with three decimals (microsecond resolution, rounded
/// to nearest): `0.130ms`.
pub fn fmt_ms(ns: u64) -> String {
    format!("{:.3}ms", ns as f64 / 1e6)
}

/// A size: `B` below 1 KiB (whole bytes), `K` below 1 MiB, else `M`, with one
/// decimal (binary units): `512B`, `31.5K`, `1024.0M`.
pub fn fmt_size(bytes: u64) -> String {
    if bytes < 1 << 10 {
        format!("{bytes}B")
    } else if bytes < 1 << 20 {
        format!("{:.1}K", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}M", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// The decorations and body of one line (without the newline):
/// `[<uptime>s][heap<id>][<tags>] <body>`, the uptime in seconds with three
/// decimals.
pub fn line(uptime_ns: u64, heap: u64, tags: &str, body: &str) -> String {
    format!(
        "[{:.3}s][heap{heap}][{tags}] {body}",
        uptime_ns as f64 / 1e9
    )
}

/// The body of a pause's line: `GC(<cycle>) pause kind=... total=... ttsp=...
/// used=<before>-><after> capacity=...`; a mark-end pause adds `round=`; a pause
/// that moved the heap (`flip`, `full`) adds `live=`, `strategy=`, `level=`,
/// `flip_time=`.
pub fn pause_body(r: &PauseRecord, round: Option<usize>, capacity: u64) -> String {
    let mut s = format!("GC({}) pause kind={}", r.cycle, r.kind);
    if let Some(round) = round {
        let _ = write!(s, " round={round}");
    }
    let _ = write!(
        s,
        " total={} ttsp={} used={}->{} capacity={}",
        fmt_ms(r.total_ns),
        fmt_ms(r.ttsp_ns),
        fmt_size(r.used_before_bytes),
        fmt_size(r.used_after_bytes),
        fmt_size(capacity),
    );
    if r.by_mutator {
        s.push_str(" by=mutator");
    }
    if let Some(w) = &r.waited_for {
        let _ = write!(s, " waited_for={w}");
    }
    if r.flip.strategy != "none" {
        let _ = write!(
            s,
            " live={} strategy={} level={} flip_time={}",
            fmt_size(r.live_bytes),
            r.flip.strategy,
            r.flip.level,
            fmt_ms(r.flip.elapsed_ns),
        );
        if r.flip.parked_bytes > 0 {
            let _ = write!(s, " parked={}", fmt_size(r.flip.parked_bytes));
        }
    }
    s
}

/// The body of a phase's line: `GC(<cycle>) phase pause=<kind> name=<phase>
/// time=<ms>`.
pub fn phase_body(cycle: u64, kind: &str, name: &str, ns: u64) -> String {
    format!(
        "GC({cycle}) phase pause={kind} name={name} time={}",
        fmt_ms(ns)
    )
}

/// The body of a finished cycle's line (every field in docs/gc-log.md).
pub fn cycle_body(c: &CycleRecord) -> String {
    let rate = c.rate_bytes_per_s;
    format!(
        "GC({}) cycle reason={} time={} to_flip={} live={} moved={} los={} strategy={} \
         level={} rounds={} young={} pauses={} pause_time={} compaction={} compact_time={} pages={} \
         fault_stalls={} fault_stall_max={} alloc_stalls={} alloc_stall_max={} throttled={} \
         free_at_start={} min_free={} trigger={} rate={}/s",
        c.n,
        c.reason,
        fmt_ms(c.done_at_ns.saturating_sub(c.started_at_ns)),
        fmt_ms(c.flipped_at_ns.saturating_sub(c.requested_at_ns)),
        fmt_size(c.live_bytes),
        fmt_size(c.moved_bytes),
        fmt_size(c.large_object_bytes),
        c.flip_strategy,
        c.flip_level,
        c.mark_rounds,
        if c.young { "yes" } else { "no" },
        c.pauses,
        fmt_ms(c.pause_ns),
        c.compaction,
        fmt_ms(c.compaction_ns),
        c.compaction_pages,
        c.fault_stalls,
        fmt_ms(c.fault_stall_max_ns),
        c.alloc_stalls,
        fmt_ms(c.alloc_stall_max_ns),
        fmt_ms(c.throttled_ns),
        fmt_size(c.free_at_start),
        fmt_size(c.min_free),
        fmt_size(c.trigger_bytes),
        fmt_size(rate),
    )
}

/// The summary of a whole run, one body per line: `pauses kind=all ...`, then
/// `pauses kind=<kind> ...` for each kind that occurred, `cycles ...`,
/// `stalls kind=alloc ...`, `stalls kind=fault ...`, `throttles ...` and
/// `compactions ...`. Every figure is of the whole run, from the log's whole-run
/// statistics, not from the records its ring still holds: the percentiles are exact
/// while the ring holds every pause ([`PauseLog::quantile_ns`]), within 0.1% after.
pub fn summary_bodies(log: &PauseLog) -> Vec<String> {
    let stats = |label: &str, s: &PauseStats| {
        format!(
            "pauses kind={label} count={} total={} p50={} p99={} max={}",
            s.count(),
            fmt_ms(s.total_ns()),
            fmt_ms(log.kind_quantile_or_all(label, 0.5)),
            fmt_ms(log.kind_quantile_or_all(label, 0.99)),
            fmt_ms(s.max_ns()),
        )
    };
    let all = log.pause_stats();
    let mut out = vec![format!(
        "{} ttsp_max={}",
        stats("all", all),
        fmt_ms(all.max_ttsp_ns())
    )];
    for kind in PAUSE_KINDS {
        if let Some(s) = log.kind_stats(kind).filter(|s| s.count() > 0) {
            out.push(stats(kind, s));
        }
    }
    let cycles = log.cycle_stats();
    let mut c = format!("cycles count={}", cycles.count);
    for reason in ["pacer", "heap-full", "explicit", "after-bytes"] {
        let _ = write!(c, " {reason}={}", cycles.reason_count(reason));
    }
    out.push(c);
    for (kind, h) in [("alloc", log.alloc_stalls()), ("fault", log.fault_stalls())] {
        let q = |q: f64| {
            if h.is_empty() {
                0
            } else {
                h.value_at_quantile(q)
            }
        };
        out.push(format!(
            "stalls kind={kind} count={} p50={} p99={} max={}",
            h.len(),
            fmt_ms(q(0.5)),
            fmt_ms(q(0.99)),
            fmt_ms(if h.is_empty() { 0 } else { h.max() }),
        ));
    }
    let t = log.throttles();
    out.push(format!(
        "throttles count={} total={} max={}",
        t.len(),
        fmt_ms(cycles.throttled_ns),
        fmt_ms(if t.is_empty() { 0 } else { t.max() }),
    ));
    let comp = log.compaction_stats();
    out.push(format!(
        "compactions count={} total={} max={} pages={}",
        comp.count,
        fmt_ms(comp.total_ns),
        fmt_ms(comp.max_ns),
        comp.pages,
    ));
    out
}

/// A heap's GC log: what it prints, and where in the cycles the heap is.
pub(crate) struct Logger {
    /// What is printed.
    pub spec: GcLog,
    heap: u64,
    started: Instant,
    /// The cycle the driver is running (or ran last); 0 before the first.
    cycle: AtomicU64,
}

impl Logger {
    /// The log of heap `heap`, created at `started`.
    pub fn new(spec: GcLog, heap: u64, started: Instant) -> Logger {
        Logger {
            spec,
            heap,
            started,
            cycle: AtomicU64::new(0),
        }
    }

    /// The driver starts cycle `n` (its pauses are numbered with it).
    pub fn set_cycle(&self, n: u64) {
        self.cycle.store(n, Ordering::Relaxed);
    }

    /// The cycle being run (0 before the first).
    pub fn cycle(&self) -> u64 {
        self.cycle.load(Ordering::Relaxed)
    }

    /// Nanoseconds since the heap was created.
    pub fn uptime_ns(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    /// The heap's summary lines, decorated (tags `gc,summary`), at the current uptime.
    pub fn summary(&self, log: &PauseLog) -> Vec<String> {
        let now = self.uptime_ns();
        summary_bodies(log)
            .iter()
            .map(|b| line(now, self.heap, "gc,summary", b))
            .collect()
    }

    fn write(&self, lines: &[String]) {
        let mut text = String::new();
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        // One write: lines of concurrent writers do not interleave mid-line. An
        // error (a closed stderr) is not worth failing a collection for.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// The heap line, at creation: `heap capacity=... los_capacity=... flip=...
    /// marking=... compaction=... gc_workers=... concurrent_workers=... tlab=...
    /// log=...`.
    pub fn heap_created(&self, config: &crate::HeapConfig, concurrent_compaction: bool) {
        if !self.spec.gc {
            return;
        }
        let body = format!(
            "heap capacity={} los_capacity={} flip={} marking={} compaction={} gc_workers={} \
             concurrent_workers={} tlab={} log={}",
            fmt_size(config.capacity as u64),
            fmt_size(config.large_object_capacity as u64),
            config.flip.name(),
            if config.concurrent_marking {
                "concurrent"
            } else {
                "in-pause"
            },
            if concurrent_compaction {
                "concurrent"
            } else {
                "in-pause"
            },
            config.gc_workers,
            config.concurrent_workers,
            fmt_size(config.tlab_size as u64),
            self.spec.name(),
        );
        self.write(&[line(self.uptime_ns(), self.heap, "gc,init", &body)]);
    }

    /// The heap's mode on this host, then a line per missing host feature (tags
    /// `gc,init`; with `gc`).
    pub fn host_mode(&self, mode: &crate::host::HostMode) {
        if !self.spec.gc {
            return;
        }
        let now = self.uptime_ns();
        let mut lines = vec![line(now, self.heap, "gc,init", &mode.to_string())];
        for m in &mode.missing {
            lines.push(line(now, self.heap, "gc,init", &format!("missing {m}")));
        }
        self.write(&lines);
    }

    /// A pause's lines (its phases first, with `phases`; then the pause, with
    /// `gc`), stamped with the pause's end.
    pub fn pause(&self, r: &PauseRecord, round: Option<usize>, capacity: u64) {
        let end = (r.at_ns + r.total_ns).saturating_sub(r.ttsp_ns);
        let mut lines = Vec::new();
        if self.spec.phases {
            for (name, ns) in &r.phases {
                let body = phase_body(r.cycle, r.kind, name, *ns);
                lines.push(line(end, self.heap, "gc,phases", &body));
            }
        }
        if self.spec.gc {
            lines.push(line(
                end,
                self.heap,
                "gc,pause",
                &pause_body(r, round, capacity),
            ));
        }
        self.write(&lines);
    }

    /// A finished cycle's line, stamped with its end.
    pub fn cycle_done(&self, c: &CycleRecord) {
        if self.spec.gc {
            self.write(&[line(c.done_at_ns, self.heap, "gc,cycle", &cycle_body(c))]);
        }
    }

    /// The summary lines, when the heap is dropped.
    pub fn heap_dropped(&self, log: &PauseLog) {
        if self.spec.gc {
            self.write(&self.summary(log));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pauselog::FlipSummary;

    #[test]
    fn selectors_parse() {
        assert_eq!(GcLog::parse("gc"), Ok(GcLog::GC));
        assert_eq!(GcLog::parse(" gc , phases "), Ok(GcLog::ALL));
        assert_eq!(GcLog::parse("all"), Ok(GcLog::ALL));
        assert_eq!(
            GcLog::parse("phases"),
            Ok(GcLog {
                gc: false,
                phases: true
            })
        );
        assert_eq!(GcLog::parse(""), Ok(GcLog::OFF));
        assert_eq!(GcLog::parse("off"), Ok(GcLog::OFF));
        assert!(GcLog::parse("gc,off").is_err());
        assert!(GcLog::parse("gc,heap").unwrap_err().contains("\"heap\""));
        for s in [GcLog::OFF, GcLog::GC, GcLog::ALL] {
            assert_eq!(GcLog::parse(s.name()), Ok(s));
        }
        assert_eq!(GcLog::GC.union(GcLog::parse("phases").unwrap()), GcLog::ALL);
    }

    #[test]
    fn units() {
        assert_eq!(fmt_ms(130_400), "0.130ms");
        assert_eq!(fmt_ms(130_600), "0.131ms");
        assert_eq!(fmt_ms(12_345_678_901), "12345.679ms");
        assert_eq!(fmt_size(512), "512B");
        assert_eq!(fmt_size(32 << 10), "32.0K");
        assert_eq!(fmt_size(1 << 30), "1024.0M");
        assert_eq!(
            line(1_330_000_000, 2, "gc,pause", "x"),
            "[1.330s][heap2][gc,pause] x"
        );
    }

    #[test]
    fn pause_lines_name_their_fields() {
        let r = PauseRecord {
            kind: "flip",
            cycle: 3,
            at_ns: 1_000_000,
            total_ns: 130_000,
            ttsp_ns: 9_000,
            used_before_bytes: 610 << 20,
            used_after_bytes: 121 << 20,
            phases: vec![("roots", 10_000), ("flip", 60_000)],
            live_bytes: 121 << 20,
            live_objects: 5,
            large_object_bytes: 0,
            large_object_freed_bytes: 0,
            flip: FlipSummary {
                strategy: "mremap+dontunmap",
                level: "pud",
                elapsed_ns: 60_000,
                fallback_reason: None,
                parked_bytes: 2 << 30,
            },
            by_mutator: true,
            waited_for: Some("worker-2".into()),
        };
        assert_eq!(
            pause_body(&r, None, 1 << 30),
            "GC(3) pause kind=flip total=0.130ms ttsp=0.009ms used=610.0M->121.0M \
             capacity=1024.0M by=mutator waited_for=worker-2 live=121.0M strategy=mremap+dontunmap \
             level=pud flip_time=0.060ms \
             parked=2048.0M"
        );
        let mark = PauseRecord {
            kind: "mark-end",
            flip: FlipSummary::none(),
            by_mutator: false,
            waited_for: None,
            ..r
        };
        assert_eq!(
            pause_body(&mark, Some(2), 1 << 30),
            "GC(3) pause kind=mark-end round=2 total=0.130ms ttsp=0.009ms \
             used=610.0M->121.0M capacity=1024.0M"
        );
        assert_eq!(
            phase_body(3, "flip", "roots", 10_000),
            "GC(3) phase pause=flip name=roots time=0.010ms"
        );
    }

    #[test]
    fn an_empty_log_summarises() {
        let s = summary_bodies(&PauseLog::new());
        assert_eq!(
            s[0],
            "pauses kind=all count=0 total=0.000ms p50=0.000ms p99=0.000ms max=0.000ms \
             ttsp_max=0.000ms"
        );
        assert!(s
            .iter()
            .any(|l| l == "cycles count=0 pacer=0 heap-full=0 explicit=0 after-bytes=0"));
        assert!(s.iter().any(|l| l.starts_with("stalls kind=fault count=0")));
    }
}
