//! # flipgc-bench: benchmarks of the flip engine and the collector
//!
//! The reusable half of `flipbench` (the binary reproducing the kernel's
//! `mremap_test` comparison: PTE vs PMD vs PUD moves vs copying) and of the
//! criterion bench in `benches/flip.rs`:
//!
//! - [`cli`]: flipbench's options and their validating parsers.
//! - [`placement`]: where the two spans go so each [`placement::Mode`] flips at
//!   its intended level, and the live [`placement::Pair`] of spans.
//! - [`pattern`]: the per-page fill pattern and its sampled check.
//! - [`pingpong`]: one run's state and the timed-forward / untimed-back cycle.
//! - [`stats`]: median, min, max.
//! - [`output`]: run records, the JSON document and the printed table.
//! - [`host`]: `/proc` readings (available memory, huge pages in use).
//! - [`pause`]: `pausebench`, the collector's pause benchmark (workloads, hiccup
//!   meter, records, tables, plot).

pub mod cli;
pub mod host;
pub mod output;
pub mod pattern;
pub mod pause;
pub mod pingpong;
pub mod placement;
pub mod stats;
