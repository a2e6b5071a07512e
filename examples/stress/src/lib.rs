//! # flipgc-stress: GC stress programs on flipgc
//!
//! Three workloads, each a library module with the same shape so that the binaries
//! in `src/bin/` and the `pausebench` benchmark (in `flipgc-bench`) run the very same
//! code:
//!
//! - `register(&mut TypeRegistry) -> Result<Types, GcError>` adds the workload's
//!   object types to a registry (the caller builds the heap, so it owns the
//!   [`flipgc_core::HeapConfig`]);
//! - `run(&Heap, &Types, &Params) -> Result<Summary, StressError>` runs it on that
//!   heap, binding its own mutators, and checks its own results: a wrong result is a
//!   [`StressError::Check`].
//!
//! Modules:
//! - [`gcbench`]: the Boehm–Ellis–Kovac GCBench (long-lived tree and array, short-lived
//!   trees built top-down and bottom-up).
//! - [`binarytrees`]: the benchmarks-game binary-trees program, optionally threaded.
//! - [`churn`]: random graph mutation checked against a host-side model (the soak).
//! - [`bursts`]: an allocation rate that jumps between bursts and quiet phases
//!   (for the pacer).
//! - [`cli`]: options the three binaries share (`--heap`, `--flip`, `--json`) and
//!   the heap-size parser.
//! - [`params`]: `key=value` parameter overrides, as used by `pausebench --params`.
//! - [`rng`]: a tiny deterministic xorshift generator.
//! - [`tree`]: binary trees on the root stack (shared by GCBench and binary-trees).
//! - [`error`]: the error type, [`StressError`].

pub mod binarytrees;
pub mod bursts;
pub mod churn;
pub mod cli;
pub mod error;
pub mod gcbench;
pub mod params;
pub mod rng;
pub mod tree;

pub use error::StressError;
