//! flipbench: the kernel's `mremap_test` comparison on flipgc's engine. For each
//! size, backing and mode it populates a span, flips it ping-pong `--iterations`
//! times (timing the forward flips, checking the pattern after every flip) and
//! prints the capabilities and a table of medians; `--json` also writes them.
//!
//! Exit codes: 0 success, 1 a run failed (including a failed pattern check, in
//! which case no figures are printed), 2 bad arguments (clap).

use clap::Parser;
use flipgc_bench::cli::Args;
use flipgc_bench::output::{fill_ratios, table, Document, RunRecord};
use flipgc_bench::pattern::splitmix64;
use flipgc_bench::pingpong::PingPong;
use flipgc_bench::placement::{placement, Backing, Mode};
use flipgc_heap::{fmt_bytes, Capabilities, Geometry};
use std::process::ExitCode;

fn main() -> ExitCode {
    flipgc_stress::cli::init_tracing();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("flipbench: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let caps = Capabilities::probe();
    print!("{caps}");
    println!();
    let sizes = args.unique_sizes();
    let modes = args.unique_modes();
    check_memory(&sizes, &modes)?;

    let mut runs = Vec::new();
    let mut notes = Vec::new();
    for &size in &sizes {
        for backing in args.backing.backings() {
            for &mode in &modes {
                runs.extend(one_run(
                    size,
                    backing,
                    mode,
                    args.iterations,
                    &caps.geometry,
                )?);
                if let Some(note) = plan_note(size, mode, &caps.geometry) {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
        }
    }
    fill_ratios(&mut runs);

    print!("{}", table(&runs));
    for note in &notes {
        println!("note: {note}");
    }
    for r in runs.iter().filter(|r| r.fallbacks > 0) {
        println!(
            "warning: {} {} {}: {} flip(s) fell back to copying (see stderr)",
            fmt_bytes(r.size_bytes),
            r.backing,
            r.mode,
            r.fallbacks
        );
    }
    if let Some(path) = &args.json {
        let doc = Document {
            caps: serde_json::to_value(caps).map_err(|e| e.to_string())?,
            runs,
        };
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("flipbench: wrote {}", path.display());
    }
    Ok(())
}

/// Runs one (size, backing, mode); `Ok(None)` if the geometry cannot place it.
fn one_run(
    size: usize,
    backing: Backing,
    mode: Mode,
    iterations: usize,
    geometry: &Geometry,
) -> Result<Option<RunRecord>, String> {
    let label = format!("{} {backing} {mode}", fmt_bytes(size));
    if let Err(why) = placement(mode, size, geometry) {
        println!("note: skipping {label}: {why}");
        return Ok(None);
    }
    eprintln!("flipbench: {label}: populating");
    let seed = splitmix64(size as u64 ^ ((mode as u64) << 48) ^ ((backing as u64) << 56));
    let mut pp = PingPong::new(mode, backing, size, geometry, seed)
        .map_err(|e| format!("{label}: setting up: {e}"))?;
    let huge = flipgc_bench::host::anon_huge_pages();
    if let Some(h) = huge {
        eprintln!(
            "flipbench: {label}: AnonHugePages after populate: {}",
            fmt_bytes(h as usize)
        );
    }
    let plan_level = pp.plan_level().map_err(|e| format!("{label}: {e}"))?;
    eprintln!("flipbench: {label}: plan {plan_level}, {iterations} flips");
    let run = pp
        .run(iterations, |w| {
            eprintln!("flipbench: warning: {label}: {w}")
        })
        .map_err(|e| format!("{label}: {e}; no figures printed"))?;
    drop(pp); // Free this run's memory before the next.
    let record = RunRecord::new(
        size,
        backing.name(),
        mode.name(),
        run.level_used(),
        plan_level.name(),
        run.samples_ns,
        run.fallbacks,
        huge,
    );
    record
        .map(Some)
        .ok_or_else(|| format!("{label}: no samples"))
}

/// A note when a mode's placement cannot reach its level at this size.
fn plan_note(size: usize, mode: Mode, g: &Geometry) -> Option<String> {
    let want = mode.intended_level()?;
    let entry = g.size(want)?;
    (size < entry).then(|| {
        format!(
            "{} is smaller than one {} entry ({}): the {mode} placement moves at a lower level",
            fmt_bytes(size),
            want.name().to_uppercase(),
            fmt_bytes(entry)
        )
    })
}

/// Refuses to start when the largest run would not fit in available memory.
fn check_memory(sizes: &[usize], modes: &[Mode]) -> Result<(), String> {
    let per_size = if modes.contains(&Mode::Copy) { 2 } else { 1 };
    let need = sizes.iter().max().copied().unwrap_or(0) as u64 * per_size;
    match flipgc_bench::host::mem_available() {
        Some(avail) if need > avail => Err(format!(
            "the largest run needs {} populated but only {} is available",
            fmt_bytes(need as usize),
            fmt_bytes(avail as usize)
        )),
        _ => Ok(()),
    }
}
