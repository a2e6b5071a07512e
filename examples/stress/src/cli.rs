//! What the three stress binaries share: the heap options ([`HeapArgs`]: `--heap`,
//! `--flip`, `--fault-mode`, `--json`), the heap-size parser, and [`finish`], which prints the pause
//! summary and writes the pause log JSON. Bad option values are clap errors (exit
//! code 2); a failed or wrong run exits with code 1.

use crate::StressError;
use flipgc_core::{FaultMode, FlipMode, Heap, HeapConfig};
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

    /// Who fills a page a mutator touches during concurrent compaction: auto (sigbus
    /// where the kernel has userfaultfd's SIGBUS feature), sigbus (the faulting
    /// thread, in its SIGBUS handler) or server (a fault-serving thread).
    #[arg(long, value_name = "MODE", value_parser = parse_fault_mode, default_value = "auto")]
    pub fault_mode: FaultMode,

    /// Write the heap's pause log (and the run's summary) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

impl HeapArgs {
    /// The heap configuration these options describe, with `default_heap` bytes if
    /// `--heap` was not given (other fields at their defaults).
    pub fn config(&self, default_heap: usize) -> HeapConfig {
        let mut c = HeapConfig::new(self.heap.unwrap_or(default_heap));
        c.flip = self.flip;
        c.fault_mode = self.fault_mode;
        c
    }
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

/// Finishes a stress binary: on success prints `summary` and the pause summary and
/// writes the JSON (`{"workload", "result", "pauses", "summary"}`, the last two as
/// [`flipgc_core::PauseLog::to_json`]) if asked; on failure prints the error.
/// Returns the exit code (1 for any failure).
pub fn finish<S: std::fmt::Display + serde::Serialize>(
    workload: &str,
    heap: &Heap,
    args: &HeapArgs,
    result: Result<S, StressError>,
) -> ExitCode {
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
        "GC: {} collections, {} pauses (flip {}, {} compaction), pause p50 {} us, p99 {} us, max {} us",
        log.collections(),
        log.records().len(),
        heap.config().flip.name(),
        if heap.concurrent_compaction() {
            "concurrent"
        } else {
            "in-pause"
        },
        log.quantile_ns(0.5) / 1000,
        log.quantile_ns(0.99) / 1000,
        log.quantile_ns(1.0) / 1000,
    );
    if heap.concurrent_compaction() {
        let stalls = log.fault_stalls();
        let modes = log.compaction_fault_modes();
        let n = |m| modes.iter().filter(|x| **x == m).count();
        println!(
            "fault stalls: {} (compactions: {} sigbus, {} server), p50 {} us, p99 {} us, max {} us{}",
            stalls.len(),
            n(FaultMode::Sigbus),
            n(FaultMode::Server),
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
