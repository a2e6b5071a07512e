//! Helpers shared by the integration tests: run a program on a fresh heap and
//! capture its output.

#![allow(dead_code)]

pub mod guile;

use flipgc_core::{FaultMode, FlipMode, Heap, HeapConfig, TypeRegistry};
use flipgc_toyvm::{register_types, run_source, VmError};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A writer into a shared buffer.
#[derive(Clone, Default)]
pub struct Capture(pub Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// What a run produced.
pub struct Outcome {
    pub result: Result<(), VmError>,
    pub output: String,
    pub pauses: usize,
    /// The most live data any cycle found, in bytes.
    pub peak_live: u64,
    /// The fault mode of each concurrent compaction.
    pub fault_modes: Vec<FaultMode>,
}

/// The flip modes the tests run collections under.
pub const FLIP_MODES: [&str; 3] = ["auto", "pte", "copy"];

/// Runs `src` on a fresh heap of `capacity` bytes with flip mode `flip`.
pub fn run_with(src: &str, capacity: usize, flip: &str, verify: bool) -> Outcome {
    run_in(src, capacity, flip, "auto", verify)
}

/// Runs `src` on a fresh heap of `capacity` bytes with flip mode `flip` and fault
/// mode `fault` (`auto`, `sigbus`, `server`).
pub fn run_in(src: &str, capacity: usize, flip: &str, fault: &str, verify: bool) -> Outcome {
    let mut cfg = HeapConfig::new(capacity);
    cfg.flip = FlipMode::parse(flip).unwrap();
    cfg.fault_mode = FaultMode::parse(fault).unwrap();
    cfg.verify_after_gc = verify;
    let o = run_config(src, cfg);
    if fault != "auto" {
        let want = FaultMode::parse(fault).unwrap();
        let modes = &o.fault_modes;
        assert!(modes.iter().all(|m| *m == want), "{modes:?}, not {fault}");
    }
    o
}

/// Runs `src` on a fresh heap configured by `cfg` (with two GC workers).
pub fn run_config(src: &str, mut cfg: HeapConfig) -> Outcome {
    let mut reg = TypeRegistry::new();
    let types = register_types(&mut reg).unwrap();
    cfg.gc_workers = 2;
    let heap = Heap::new(cfg, reg).unwrap();
    let cap = Capture::default();
    let result = run_source(&heap, &types, "test.scm", src, Box::new(cap.clone()));
    let log = heap.pause_log();
    Outcome {
        result,
        output: cap.text(),
        pauses: log.pause_stats().count() as usize,
        peak_live: log.cycle_stats().max_live_bytes,
        fault_modes: log.compaction_fault_modes().to_vec(),
    }
}

/// Runs `src` on a 16 MiB heap; panics on error; returns the output.
pub fn output_of(src: &str) -> String {
    let o = run_with(src, 16 << 20, "auto", false);
    if let Err(e) = o.result {
        panic!("{src}\nfailed: {e}\noutput: {}", o.output);
    }
    o.output
}

/// Runs `src` on a 16 MiB heap; returns the error (panics if it succeeded).
pub fn error_of(src: &str) -> VmError {
    match run_with(src, 16 << 20, "auto", false).result {
        Ok(()) => panic!("{src}\nunexpectedly succeeded"),
        Err(e) => e,
    }
}
