//! pausebench's command line ([`Args`]). Every list option takes comma-separated
//! values and runs are their cross product (workload × heap × mode × repeat). Bad
//! values are clap errors (exit code 2) that say what is wrong.

use super::mode::{parse_fault_mode, parse_mode};
use super::workload::{Params, Workload};
use clap::Parser;
use std::path::PathBuf;

/// pausebench: run GC workloads in-process and measure every pause, the time to
/// safepoint, what a mutator feels (hiccups), allocation and fault stalls, and
/// peak RSS.
#[derive(Debug, Parser)]
#[command(name = "pausebench", version)]
pub struct Args {
    /// Workloads, comma-separated: gcbench, binarytrees, churn, bursts,
    /// jvmlike-gcbench, jvmlike-binarytrees (the same two programs and parameters
    /// through the class-based VM's own object layout), toyvm:FILE.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Workload::parse, default_value = "gcbench")]
    pub workload: Vec<Workload>,

    /// Heap sizes, comma-separated (e.g. 256m,1g,4g).
    #[arg(long, value_name = "SIZES", value_delimiter = ',', value_parser = flipgc_stress::cli::parse_heap_size, default_value = "1g")]
    pub heap: Vec<usize>,

    /// Mutator threads of the workload (gcbench: copies of the program; binarytrees:
    /// workers; churn: mutators). The hiccup meter is one more thread.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,

    /// Modes, comma-separated: auto, pud, pmd, pte, copy.
    #[arg(long, value_name = "MODES", value_delimiter = ',', value_parser = parse_mode, default_value = "auto,copy")]
    pub modes: Vec<String>,

    /// Who fills a page a mutator touches during concurrent compaction: auto (sigbus
    /// where the kernel has userfaultfd's SIGBUS feature), sigbus (the faulting
    /// thread, in its SIGBUS handler) or server (a fault-serving thread).
    #[arg(long, value_name = "MODE", value_parser = parse_fault_mode, default_value = "auto")]
    pub fault_mode: flipgc_core::FaultMode,

    /// The scheduling of the collector's own threads (HeapConfig::gc_thread_priority):
    /// inherit, nice:N (-20 to 19), slice:US or nice:N,slice:US (a time slice of US
    /// microseconds, 100 to 100000; Linux 6.12+), fifo:N or rr:N (real-time, 1 to 99). Checked
    /// before any run: a priority this process may not take is an error.
    #[arg(long, value_name = "PRIORITY", value_parser = super::sched::parse_priority, default_value = "inherit")]
    pub gc_priority: flipgc_core::GcThreadPriority,

    /// The scheduling of the workload's mutator threads (the main thread for the
    /// job's duration, and the threads it spawns) and of the hiccup meter (a mutator
    /// too), as --gc-priority. The machine meter keeps the normal scheduling. With
    /// --gc-priority inherit, the GC driver (spawned by a mutator) inherits this too.
    #[arg(long, value_name = "PRIORITY", value_parser = super::sched::parse_priority, default_value = "inherit")]
    pub mutator_priority: flipgc_core::GcThreadPriority,

    /// Runs of each combination.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,

    /// Workload parameters, comma-separated workload.key=value: gcbench.{stretch,
    /// long-lived, array-size, min-depth, max-depth, rounds}, binarytrees.depth,
    /// churn.{cycles, seconds, ops, roots, garbage, seed}, bursts.{phases, burst-ms,
    /// quiet-ms, live-mib}. gcbench.* and binarytrees.* apply to jvmlike-gcbench and
    /// jvmlike-binarytrees too.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub params: Vec<String>,

    /// Run the heap verifier after every collection (its time counts in the pauses).
    #[arg(long)]
    pub verify: bool,

    /// Do not fault each heap in at construction. By default every heap is
    /// pre-touched before its workload's clock starts, as the JVM peers run with
    /// `-XX:+AlwaysPreTouch` (benches/peers/run.sh), so both exclude the kernel's
    /// first-touch page faults from the wall time.
    #[arg(long)]
    pub no_pretouch: bool,

    /// Before each run, wait at most this many seconds for the guest to finish
    /// reporting freed memory to the host (a virtual machine's free page
    /// reporting): the heap of the run before is reported a couple of seconds after
    /// it is dropped, and the host's work on it shows up as steal in the next run.
    /// The wait is outside the run's wall time and is in the JSON (`settle_ns`);
    /// 0 turns it off. Without free page reporting there is nothing to wait for.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=600))]
    pub settle: u32,

    /// Print the GC log of every run's heap on stderr: a line per pause and per
    /// cycle (`--gc-log`), with a line per pause phase too (`--gc-log=gc,phases`);
    /// see docs/gc-log.md. The environment variable FLIPGC_LOG does the same.
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "gc", value_parser = flipgc_core::GcLog::parse)]
    pub gc_log: Option<flipgc_core::GcLog>,

    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Also plot the pause distributions to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl Args {
    /// The options every run's heap gets.
    pub fn heap_options(&self) -> super::mode::Options {
        super::mode::Options {
            verify: self.verify,
            pretouch: !self.no_pretouch,
            gc_log: self.gc_log.unwrap_or_default(),
            fault_mode: self.fault_mode,
            gc_priority: self.gc_priority,
        }
    }

    /// The workload parameters: pausebench's defaults, `--threads`, then `--params`
    /// in order; validated for the workloads to run.
    pub fn workload_params(&self) -> Result<Params, String> {
        let mut p = Params::new(self.threads as usize);
        for item in &self.params {
            p.set(item)?;
        }
        p.validate(&self.workload)?;
        Ok(p)
    }

    /// The list `items` without repeats, in order.
    pub fn unique<T: PartialEq + Clone>(items: &[T]) -> Vec<T> {
        let mut out: Vec<T> = Vec::new();
        for x in items {
            if !out.contains(x) {
                out.push(x.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("pausebench").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.workload, vec![Workload::Gcbench]);
        assert_eq!(a.heap, vec![1 << 30]);
        assert_eq!(a.modes, vec!["auto", "copy"]);
        assert_eq!((a.threads, a.repeat, a.verify), (1, 1, false));
        assert_eq!(a.fault_mode, flipgc_core::FaultMode::Auto);
        assert_eq!(a.workload_params().unwrap(), Params::new(1));
    }

    #[test]
    fn lists_and_errors() {
        let a = parse(&[
            "--workload",
            "gcbench,binarytrees",
            "--heap",
            "64m,1g",
            "--modes",
            "pte,copy",
            "--params",
            "gcbench.rounds=1,binarytrees.depth=10",
        ])
        .unwrap();
        assert_eq!(a.workload.len(), 2);
        assert_eq!(a.heap, vec![64 << 20, 1 << 30]);
        let p = a.workload_params().unwrap();
        assert_eq!((p.gcbench.rounds, p.binarytrees.depth), (1, 10));
        for bad in [
            &["--heap", "1x"][..],
            &["--heap", "1k"],
            &["--modes", "auto,fast"],
            &["--workload", "jbb"],
            &["--threads", "0"],
            &["--repeat", "0"],
            &["--fault-mode", "kernel"],
            &["--gc-priority", "fifo:0"],
            &["--mutator-priority", "nice:20"],
            &["--gc-priority", "idle"],
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}");
        }
        let a = parse(&["--fault-mode", "server"]).unwrap();
        assert_eq!(a.heap_options().fault_mode, flipgc_core::FaultMode::Server);
        let a = parse(&["--gc-priority", "rr:7", "--mutator-priority", "nice:3"]).unwrap();
        assert_eq!(a.heap_options().gc_priority.to_string(), "rr:7");
        assert_eq!(a.mutator_priority, flipgc_core::GcThreadPriority::Nice(3));
        let a = parse(&["--params", "gcbench.nope=1"]).unwrap();
        assert!(a.workload_params().unwrap_err().contains("nope"));
    }
}
