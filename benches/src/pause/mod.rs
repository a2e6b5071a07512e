//! pausebench's building blocks (the binary is `src/bin/pausebench.rs`; the
//! benchmark is described in `docs/pausebench.md`):
//!
//! - [`cli`]: the options and their validating parsers.
//! - [`mode`]: the mode names and [`mode::heap_config`], the one place a mode
//!   becomes a heap configuration.
//! - [`workload`]: the workloads (`flipgc-stress` programs and toy-VM scripts), their
//!   parameters, and running one in-process on a fresh heap.
//! - [`hiccup`]: the hiccup meter, a mutator thread measuring how late it wakes.
//! - [`rss`]: peak resident memory (`VmHWM`) and its reset.
//! - [`record`]: one run's measurements and the JSON document.
//! - [`outliers`]: the cause of every pause and stall of 1 ms or more.
//! - [`table`]: the printed tables (reusable row formatting).
//! - [`svg`]: the pause-distribution plot.
//! - [`sched`]: `--gc-priority` and `--mutator-priority`.

pub mod cli;
pub mod hiccup;
pub mod mode;
pub mod outliers;
pub mod record;
pub mod rss;
pub mod sched;
pub mod svg;
pub mod table;
pub mod workload;
