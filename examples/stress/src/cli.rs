//! What the three stress binaries share: the heap options ([`HeapArgs`]: `--heap`,
//! `--flip`, `--fault-mode`, `--gc-log`, `--json`, `--stw`), the heap-size parser,
//! [`init_tracing`], and [`finish`], which prints the pause summary and writes the
//! pause log JSON. Bad option values are clap errors (exit code 2); a failed or
//! wrong run exits with code 1.

use crate::StressError;
use flipgc_core::{FaultMode, FlipMode, GcLog, Heap, HeapConfig};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Heap options shared by the stress binaries.
#[derive(Clone, Debug, clap::Args)]
pub struct HeapArgs {
    /// Heap capacity, e.g. 512m, 1g, 1.5g (units k, m, g, t; powers of 1024).
    /// Default: 1g (churn: 64m).
    #[arg(long, value_name = "SIZE", value_parser = parse_heap_size)]
    pub heap: Option<usize>,

    /// How collections move the heap: auto, pud, pmd, pte or copy.
    #[arg(long, value_name = "MODE", value_parser = parse_flip, default_value = "auto")]
    pub flip: FlipMode,

    /// Print the GC log on stderr: a line per pause and per cycle (`--gc-log`, or
    /// `--gc-log=gc`), with a line per pause phase too (`--gc-log=gc,phases`). See
    /// docs/gc-log.md; the environment variable FLIPGC_LOG does the same.
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "gc", value_parser = parse_gc_log)]
    pub gc_log: Option<GcLog>,
    /// Who fills a page a mutator touches during concurrent compaction: auto (sigbus
    /// where the kernel has userfaultfd's SIGBUS feature), sigbus (the faulting
    /// thread, in its SIGBUS handler) or server (a fault-serving thread).
    #[arg(long, value_name = "MODE", value_parser = parse_fault_mode, default_value = "auto")]
    pub fault_mode: FaultMode,

    /// Write the heap's pause log (and the run's summary) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Every collection one stop-the-world pause (concurrent marking off): the
    /// reference path.
    #[arg(long)]
    pub stw: bool,
}

impl HeapArgs {
    /// The heap configuration these options describe, with `default_heap` bytes if
    /// `--heap` was not given (other fields at their defaults).
    pub fn config(&self, default_heap: usize) -> HeapConfig {
        let mut c = HeapConfig::new(self.heap.unwrap_or(default_heap));
        c.flip = self.flip;
        c.concurrent_marking = !self.stw;
        c.gc_log = self.gc_log.unwrap_or_default();
        c.fault_mode = self.fault_mode;
        c
    }
}

/// Parses `--gc-log`'s selectors (`gc`, `phases`, `gc,phases`, `all`, `off`).
pub fn parse_gc_log(text: &str) -> Result<GcLog, String> {
    GcLog::parse(text)
}

/// Installs a `tracing` subscriber for a binary (libraries never do): events and
/// span closes, with each span's duration (`time.busy`), on stderr, filtered by
/// `RUST_LOG` (`warn` when unset). `RUST_LOG=flipgc_core=debug` shows every
/// `pause{kind}` and `phase{name}` span of the collector; docs/gc-log.md lists
/// the spans and their targets. Does nothing if a subscriber is already set.
pub fn init_tracing() {
    use tracing_subscriber::filter::{EnvFilter, LevelFilter};
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::WARN.into())
        .from_env_lossy();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// Parses a heap size: a number with an optional unit `k`, `m`, `g` or `t` (powers
/// of 1024, case-insensitive, optionally followed by `b` or `ib`; decimals allowed
/// if the result is a whole number of bytes), between
/// [`flipgc_core::MIN_CAPACITY`] and [`flipgc_core::MAX_CAPACITY`]
/// ([`flipgc_core::parse_capacity`]).
pub fn parse_heap_size(text: &str) -> Result<usize, String> {
    flipgc_core::parse_capacity(text)
}

/// Parses a flip mode (`auto`, `pud`, `pmd`, `pte`, `copy`).
pub fn parse_flip(text: &str) -> Result<FlipMode, String> {
    FlipMode::parse(text.trim()).map_err(|e| e.to_string())
}

/// Parses a fault mode (`auto`, `sigbus`, `server`).
pub fn parse_fault_mode(text: &str) -> Result<FaultMode, String> {
    FaultMode::parse(text.trim()).map_err(|e| e.to_string())
}

/// Finishes a stress binary (whose mutators are all gone): waits for a cycle still
/// under way (so the pause log, and the GC log, are complete), then on success
/// prints `summary` and the pause summary and writes the JSON (`{"workload",
/// "result", "pauses", "summary"}`, the last two as
/// [`flipgc_core::PauseLog::to_json`]) if asked; on failure prints the error.
/// Returns the exit code (1 for any failure).
pub fn finish<S: std::fmt::Display + serde::Serialize>(
    workload: &str,
    heap: &Heap,
    args: &HeapArgs,
    result: Result<S, StressError>,
) -> ExitCode {
    heap.wait_idle();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{workload}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{summary}");
    let log = heap.pause_log();
    println!(
        "GC: {} collections, {} pauses (flip {}, {}), pause p50 {} us, p99 {} us, max {} us",
        log.collections(),
        log.pause_stats().count(),
        heap.config().flip.name(),
        if !heap.config().concurrent_marking {
            "one-pause cycles"
        } else if heap.concurrent_compaction() {
            "concurrent marking and compaction"
        } else {
            "concurrent marking, in-pause compaction"
        },
        log.quantile_ns(0.5) / 1000,
        log.quantile_ns(0.99) / 1000,
        log.quantile_ns(1.0) / 1000,
    );
    if heap.concurrent_compaction() {
        let stalls = log.fault_stalls();
        let modes = log.compaction_stats();
        println!(
            "fault stalls: {} (compactions: {} sigbus, {} server), p50 {} us, p99 {} us, max {} us{}",
            stalls.len(),
            modes.sigbus,
            modes.server,
            stalls.value_at_quantile(0.5) / 1000,
            stalls.value_at_quantile(0.99) / 1000,
            stalls.max() / 1000,
            match log.fault_stalls_lost() {
                0 => String::new(),
                lost => format!(" ({lost} samples lost)"),
            }
        );
    }
    if let Some(point) = heap.config().inject {
        println!("injected {point}: fired {} times", heap.injections_fired());
    }
    if let Some(path) = &args.json {
        let mut doc = log.to_json();
        doc["workload"] = workload.into();
        doc["result"] = serde_json::to_value(&summary).unwrap_or_default();
        let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("{workload}: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Builds the heap for a binary, or prints why not (exit code 1).
pub fn build_heap<T>(
    workload: &str,
    config: HeapConfig,
    register: impl FnOnce(&mut flipgc_core::TypeRegistry) -> Result<T, flipgc_core::GcError>,
) -> Result<(Heap, T), ExitCode> {
    let mut registry = flipgc_core::TypeRegistry::new();
    let built = register(&mut registry).and_then(|t| Ok((Heap::new(config, registry)?, t)));
    built.map_err(|e| {
        eprintln!("{workload}: {e}");
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_sizes() {
        assert_eq!(parse_heap_size("1g"), Ok(1 << 30));
        assert_eq!(parse_heap_size("512M"), Ok(512 << 20));
        assert_eq!(parse_heap_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_heap_size("65536"), Ok(65536));
        assert_eq!(parse_heap_size(" 64kb "), Ok(64 << 10));
        for (bad, why) in [
            ("1x", "unknown unit"),
            ("", "not a number"),
            ("g", "not a number"),
            ("-1g", "not a number"),
            ("1k", "between"),
            ("0", "positive"),
            ("1.0000001k", "whole"),
            ("99999t", "between"),
        ] {
            let e = parse_heap_size(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn gc_log_option() {
        use clap::Parser;
        #[derive(Parser)]
        struct A {
            #[command(flatten)]
            heap: HeapArgs,
            file: Option<String>,
        }
        let parse =
            |args: &[&str]| A::try_parse_from(std::iter::once("x").chain(args.iter().copied()));
        assert_eq!(parse(&[]).unwrap().heap.config(1 << 20).gc_log, GcLog::OFF);
        assert_eq!(parse(&["--gc-log"]).unwrap().heap.gc_log, Some(GcLog::GC));
        assert_eq!(
            parse(&["--gc-log=gc,phases"])
                .unwrap()
                .heap
                .config(1 << 20)
                .gc_log,
            GcLog::ALL
        );
        // The selectors need `=`: a following word is not taken for them.
        let a = parse(&["--gc-log", "prog"]).unwrap();
        assert_eq!(
            (a.heap.gc_log, a.file.as_deref()),
            (Some(GcLog::GC), Some("prog"))
        );
        assert!(parse(&["--gc-log=loud"]).is_err());
    }

    #[test]
    fn fault_modes() {
        assert_eq!(parse_fault_mode("server"), Ok(FaultMode::Server));
        assert!(parse_fault_mode("x").unwrap_err().contains("auto, sigbus"));
    }

    #[test]
    fn flip_modes() {
        assert_eq!(parse_flip("copy"), Ok(FlipMode::Copy));
        assert!(parse_flip("fast").unwrap_err().contains("auto, pud"));
    }
}
