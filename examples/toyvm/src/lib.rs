//! # flipgc-toyvm: a small Scheme on the flipgc heap
//!
//! A reader, a bytecode compiler and an interpreter for a subset of R7RS-small
//! Scheme, with every runtime value a [`flipgc_core::Value`]: a tagged immediate
//! (fixnum, character, boolean, the unspecified value), `()` (null), or an object
//! in a [`flipgc_core::Heap`]; roots are precise: the interpreter's value stack is
//! the mutator's root stack. Used as a GC
//! workload (see `programs/`) and as an example of embedding the collector.
//!
//! Entry points: [`register_types`], then [`run_source`] for a whole program or
//! [`Session`] for a REPL. `toyvm`'s default heap is [`default_heap_config`]: it
//! grows up to a quarter of physical memory.

pub mod builtins;
pub mod bytecode;
pub mod compile;
mod error;
mod files;
pub mod fuzz;
pub mod heapsize;
pub mod reader;
pub mod repl;
mod session;
mod shared;
mod types;
pub mod vm;

pub use error::{ErrorKind, VmError};
pub use heapsize::{alloc_summary, default_heap_config, default_max_heap, heap_summary};
pub use session::Session;
pub use types::{register_types, FixedTypes, VmTypes};

use flipgc_core::{Heap, PauseLog};

/// Runs a whole program on the calling thread (binding a mutator on `heap`; the
/// heap must have been built with a registry from [`register_types`]), writing
/// its output to `out`. Spawned threads bind their own mutators.
pub fn run_source(
    heap: &Heap,
    types: &VmTypes,
    name: &str,
    src: &str,
    out: Box<dyn std::io::Write + Send>,
) -> Result<(), VmError> {
    let mut session = Session::new(heap, types, out)?;
    let r = session.eval(name, src).map(|_| ());
    session.flush();
    r
}

/// Installs a `tracing` subscriber for the VM's binaries (the library itself never
/// does): events and span closes, with each span's duration, on stderr, filtered by
/// `RUST_LOG` (`warn` when unset); `RUST_LOG=flipgc_core=debug` shows the
/// collector's `pause{kind}` and `phase{name}` spans (docs/gc-log.md). Does nothing
/// if a subscriber is already set.
pub fn init_tracing() {
    use std::io::IsTerminal;
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

/// A one-line summary of a heap's pauses: count, total, median, p99 and max, of
/// the whole run (the log's whole-run statistics, not the records its ring holds).
/// (`(gc-stats)` and `toyvm --gc-stats` print the GC log's fuller summary,
/// [`flipgc_core::Heap::gc_summary`].)
pub fn pause_summary(log: &PauseLog) -> String {
    let ms = |ns: u64| ns as f64 / 1e6;
    let n = log.pause_stats().count();
    let total = log.pause_stats().total_ns();
    format!(
        "gc: {n} pauses, total {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(total),
        ms(log.quantile_ns(0.5)),
        ms(log.quantile_ns(0.99)),
        ms(log.quantile_ns(1.0)),
    )
}
