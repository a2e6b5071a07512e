//! pausebench: flipgc's pause benchmark. Runs each workload × heap size × mode ×
//! repeat in-process on a fresh heap, with a hiccup meter, and prints a table of
//! pauses, time to safepoint, hiccups, stalls and peak RSS per run, then pauses by
//! kind; `--json` and `--svg` also write them. See docs/pausebench.md.
//!
//! Exit codes: 0 success, 1 a run failed (a workload error or wrong result),
//! 2 bad arguments.

use clap::{CommandFactory, Parser};
use flipgc_bench::pause::cli::Args;
use flipgc_bench::pause::mode::heap_config;
use flipgc_bench::pause::record::{Document, RunRecord};
use flipgc_bench::pause::workload::{self, Params, Workload};
use flipgc_bench::pause::{sched, svg, table};
use flipgc_core::HeapConfig;
use flipgc_heap::{fmt_bytes, Capabilities};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

/// One planned run.
struct Plan {
    workload: Workload,
    heap: usize,
    mode: String,
    repeat: usize,
    config: HeapConfig,
}

fn main() -> ExitCode {
    flipgc_stress::cli::init_tracing();
    let args = Args::parse();
    let usage = |msg: String| -> ! {
        Args::command()
            .error(clap::error::ErrorKind::ValueValidation, msg)
            .exit()
    };
    let params = args.workload_params().unwrap_or_else(|e| usage(e));
    for (p, flag) in [
        (args.gc_priority, "--gc-priority"),
        (args.mutator_priority, "--mutator-priority"),
    ] {
        sched::check(p, flag).unwrap_or_else(|e| usage(e));
    }
    let plans = plan(&args).unwrap_or_else(|e| usage(e));
    match run(&args, &params, plans) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("pausebench: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The cross product of the options, each configuration validated up front (a mode
/// the host or heap size cannot do is refused before anything runs).
fn plan(args: &Args) -> Result<Vec<Plan>, String> {
    let geometry = Capabilities::probe().geometry;
    let mut plans = Vec::new();
    for w in Args::unique(&args.workload) {
        for &heap in &Args::unique(&args.heap) {
            for mode in Args::unique(&args.modes) {
                let config = heap_config(&mode, heap, args.heap_options())?
                    .validated(&geometry)
                    .map_err(|e| format!("{} with a {} heap: {e}", mode, fmt_bytes(heap)))?;
                for repeat in 0..args.repeat as usize {
                    plans.push(Plan {
                        workload: w.clone(),
                        heap,
                        mode: mode.clone(),
                        repeat,
                        config: config.clone(),
                    });
                }
            }
        }
    }
    Ok(plans)
}

/// A progress bar on stderr, if it is a terminal and no GC log is written there.
fn progress(total: usize, gc_log: bool) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || gc_log {
        return None;
    }
    let bar = ProgressBar::new(total as u64);
    let style =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

fn run(args: &Args, params: &Params, plans: Vec<Plan>) -> Result<(), String> {
    let logging =
        plans.iter().any(|p| p.config.gc_log.any()) || flipgc_core::GcLog::from_env().any();
    let bar = progress(plans.len(), logging);
    let mut doc = Document::default();
    for p in plans {
        let name = p.workload.name();
        if let Some(b) = &bar {
            b.set_message(format!(
                "{name} {} {} #{}",
                fmt_bytes(p.heap),
                p.mode,
                p.repeat
            ));
        }
        let settle_ns =
            flipgc_bench::host::settle_page_reporting(Duration::from_secs(u64::from(args.settle)))
                .as_nanos() as u64;
        let measured = workload::run(&p.workload, params, p.config, args.mutator_priority)
            .map_err(|e| format!("{name} {} {}: {e}", fmt_bytes(p.heap), p.mode))?;
        let mut record = RunRecord::new(
            name,
            p.heap,
            p.mode,
            p.repeat,
            params.json_for(&p.workload),
            &measured,
        );
        record.settle_ns = settle_ns;
        record.gc_priority = args.gc_priority.to_string();
        record.mutator_priority = args.mutator_priority.to_string();
        doc.runs.push(record);
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    println!("times in us; top phase = the phase with the longest single occurrence, and that occurrence");
    print!("{}", table::runs_table(&doc.runs));
    println!();
    println!("pauses by kind (us)");
    print!("{}", table::kinds_table(&doc.runs));
    println!();
    println!(
        "long pauses and the machine (us; steal and others in ms; the machine meter is a plain thread, not a mutator)"
    );
    print!("{}", table::long_pauses_table(&doc.runs));
    let outliers = table::outliers_table(&doc.runs);
    if !outliers.is_empty() {
        println!();
        println!("pauses and stalls of 1 ms or more, each with its cause (docs/pausebench.md)");
        print!("{outliers}");
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.svg {
        svg::write(path, &doc.runs)?;
    }
    Ok(())
}
