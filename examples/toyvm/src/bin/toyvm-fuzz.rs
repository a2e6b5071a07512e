//! `toyvm-fuzz`: runs generated cases against the toy VM and reports every case
//! that does not end cleanly (a panic, threads left running, a hang; through the
//! binary also a signal or an unexpected exit status).
//!
//! In process (the default), each case gets a fresh heap and session; before it
//! runs, its source is written to `OUT/current.scm` (and its index and seed to
//! `OUT/current.txt`), so that a crash that kills the process (a signal, an
//! abort) leaves the culprit on disk. Failures are saved as `OUT/fail-SEED.scm`.
//! With `--binary`, cases run through the `toyvm` binary instead.
//!
//! With `--diff guile`, programs of the differential mode run on the toy VM and
//! on Guile, and every disagreement is saved as `MISMATCHES/mismatch-SEED.scm`
//! (see `flipgc_toyvm::fuzz::diff`).
//! See docs/testing.md for the command lines.

use clap::Parser;
use flipgc_core::FlipMode;
use flipgc_toyvm::fuzz::{self, diff, BinaryVerdict, Case, Feed, Kind, Limits, Verdict};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Command-line options.
#[derive(Parser, Debug)]
#[command(name = "toyvm-fuzz", about = "Fuzz the toy VM with generated programs")]
struct Args {
    /// Run seed: case i's seed is derived from it and i.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of cases.
    #[arg(long, default_value_t = 10_000)]
    cases: u64,
    /// Index of the first case (to resume a run, or split one between processes).
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Heap capacity per case (bytes, or with a K, M or G suffix).
    #[arg(long, default_value = "4M", value_parser = flipgc_core::parse_capacity)]
    heap: usize,
    /// Step budget per case (procedure calls).
    #[arg(long, default_value_t = 20_000)]
    max_steps: u64,
    /// Flip mode of the heaps.
    #[arg(long, default_value = "auto", value_parser = parse_flip)]
    flip: FlipMode,
    /// Verify the heap after every collection.
    #[arg(long)]
    verify: bool,
    /// Directory for the current case and failures.
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// A case running longer than this many seconds is a hang.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Run the cases through the toyvm binary (as subprocesses) instead of in
    /// process.
    #[arg(long)]
    binary: bool,
    /// The toyvm binary (default: next to this one).
    #[arg(long)]
    toyvm: Option<PathBuf>,
    /// Subprocesses at a time with --binary.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Print the source of the case with this seed (decimal or 0x hex) and exit.
    #[arg(long, value_parser = parse_seed)]
    print: Option<u64>,
    /// Run this file once in process and report how it ended.
    #[arg(long)]
    replay: Option<PathBuf>,
    /// With --replay: feed the file as REPL input, line by line.
    #[arg(long)]
    lines: bool,
    /// Print a progress line every this many cases (0: never).
    #[arg(long, default_value_t = 100_000)]
    progress: u64,
    /// Also print each in-process case whose outcome has this label (for
    /// example "host error"), with its message.
    #[arg(long, value_name = "LABEL")]
    show: Option<String>,
    /// Differential testing against a reference Scheme: `guile` (found as
    /// `$TOYVM_DIFF_GUILE`, or `guile` or `guile-3.0` on the PATH) or the path
    /// of a Guile 3.0 executable. With --print or --replay, prints or replays
    /// one differential program. --jobs workers (at most 2 advised).
    #[arg(long, value_name = "REFERENCE")]
    diff: Option<String>,
    /// With --diff: directory for mismatch reproducers.
    #[arg(long, default_value = "target/diff-mismatches")]
    mismatches: PathBuf,
}

fn parse_flip(s: &str) -> Result<FlipMode, String> {
    FlipMode::parse(s).map_err(|e| e.to_string())
}

fn parse_seed(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|e| format!("{s:?}: {e}"))
}

fn main() -> ExitCode {
    flipgc_toyvm::init_tracing();
    let args = Args::parse();
    let limits = Limits {
        heap: args.heap,
        max_steps: args.max_steps,
        flip: args.flip,
        verify: args.verify,
        ..Limits::default()
    };
    if let Some(reference) = &args.diff {
        return diff_main(&args, reference, &limits);
    }
    if let Some(seed) = args.print {
        let case = fuzz::generate(seed);
        let _ = std::io::stdout().write_all(&case.bytes);
        return ExitCode::SUCCESS;
    }
    if let Some(path) = &args.replay {
        let feed = if args.lines { Feed::Lines } else { Feed::File };
        return replay(path, feed, &limits);
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("toyvm-fuzz: cannot create {}: {e}", args.out.display());
        return ExitCode::from(2);
    }
    if args.binary {
        binary_run(&args, &limits)
    } else {
        in_process_run(&args, &limits)
    }
}

fn diff_main(args: &Args, reference: &str, limits: &Limits) -> ExitCode {
    if let Some(seed) = args.print {
        let case = fuzz::generate_diff(seed);
        let _ = std::io::stdout().write_all(&case.bytes);
        return ExitCode::SUCCESS;
    }
    let guile = if reference == "guile" {
        match diff::find_guile() {
            Some(g) => g,
            None => {
                eprintln!("toyvm-fuzz: no Guile 3 found (apt-get install guile-3.0, or set TOYVM_DIFF_GUILE)");
                return ExitCode::from(2);
            }
        }
    } else {
        PathBuf::from(reference)
    };
    if let Some(path) = &args.replay {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("toyvm-fuzz: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let toy = diff::run_toy(&bytes, limits);
        let reference = match diff::Reference::start(&guile).and_then(|mut r| r.run(&bytes)) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("toyvm-fuzz: cannot run {}: {e}", guile.display());
                return ExitCode::from(2);
            }
        };
        let compared = diff::compare(&toy, &reference);
        println!("toy VM:    {} {}", toy.status.name(), toy.detail);
        println!("{}", toy.output);
        println!(
            "reference: {} {}",
            reference.status.name(),
            reference.detail
        );
        println!("{}", reference.output);
        println!("normalised toy VM:    {}", diff::normalise(&toy.output));
        println!(
            "normalised reference: {}",
            diff::normalise(&reference.output)
        );
        println!("{compared:?}");
        return if compared == diff::Compared::Mismatch {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    let opts = diff::DiffOptions {
        seed: args.seed,
        start: args.start,
        cases: args.cases,
        jobs: args.jobs,
        limits: limits.clone(),
        guile,
        mismatch_dir: Some(args.mismatches.clone()),
        progress: args.progress,
    };
    match diff::run(&opts) {
        Ok(report) => {
            println!("{}", report.summary());
            if report.mismatches.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("toyvm-fuzz: differential run failed: {e}");
            ExitCode::from(2)
        }
    }
}

fn replay(path: &Path, feed: Feed, limits: &Limits) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("toyvm-fuzz: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let verdict = fuzz::run_source(&bytes, feed, limits);
    let detail = match &verdict {
        Verdict::Clean(Ok(())) => String::new(),
        Verdict::Clean(Err(e)) => e.to_string(),
        Verdict::Panic(m) | Verdict::Stuck(m) => m.clone(),
    };
    println!(
        "{}: {} in {:?} {detail}",
        path.display(),
        verdict.label(),
        start.elapsed()
    );
    if verdict.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// ", as REPL input" for cases fed line by line (replay them with --lines).
fn lines_note(case: &Case) -> &'static str {
    match case.feed {
        Feed::File => "",
        Feed::Lines => ", as REPL input",
    }
}

/// Counts for the summary.
#[derive(Default)]
struct Tally {
    by_kind: BTreeMap<Kind, u64>,
    by_label: BTreeMap<String, u64>,
    failures: Vec<String>,
    slowest: (Duration, u64, u64),
}

impl Tally {
    fn add(&mut self, index: u64, case: &Case, label: String, took: Duration) {
        *self.by_kind.entry(case.kind).or_default() += 1;
        *self.by_label.entry(label).or_default() += 1;
        if took > self.slowest.0 {
            self.slowest = (took, index, case.seed);
        }
    }

    fn print(&self, cases: u64, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        println!(
            "{cases} cases in {secs:.1} s ({:.0} cases/s); slowest: case {} (seed {:#x}) {:?}",
            cases as f64 / secs.max(1e-9),
            self.slowest.1,
            self.slowest.2,
            self.slowest.0
        );
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        println!("  kinds:    {}", kinds.join(", "));
        let labels: Vec<String> = self
            .by_label
            .iter()
            .map(|(l, n)| format!("{l} {n}"))
            .collect();
        println!("  outcomes: {}", labels.join(", "));
        println!("  failures: {}", self.failures.len());
        for f in &self.failures {
            println!("    {f}");
        }
    }
}

/// Milliseconds since `epoch` when the current case started (0: none running).
struct Watch {
    epoch: Instant,
    started_ms: AtomicU64,
    index: AtomicU64,
    seed: AtomicU64,
}

fn in_process_run(args: &Args, limits: &Limits) -> ExitCode {
    fuzz::install_panic_counter();
    let current = args.out.join("current.scm");
    let current_info = args.out.join("current.txt");
    let watch = Arc::new(Watch {
        epoch: Instant::now(),
        started_ms: AtomicU64::new(0),
        index: AtomicU64::new(0),
        seed: AtomicU64::new(0),
    });
    let tally = Arc::new(Mutex::new(Tally::default()));
    {
        // The watchdog: a case running past the timeout is a hang. The stuck
        // thread cannot be stopped, so report and exit.
        let watch = Arc::clone(&watch);
        let tally = Arc::clone(&tally);
        let out = args.out.clone();
        let timeout = Duration::from_secs(args.timeout);
        let first = args.start;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let started = watch.started_ms.load(Ordering::SeqCst);
            let now = watch.epoch.elapsed().as_millis() as u64;
            if started != 0 && now.saturating_sub(started) > timeout.as_millis() as u64 {
                let index = watch.index.load(Ordering::SeqCst);
                let seed = watch.seed.load(Ordering::SeqCst);
                let saved = out.join(format!("hang-{seed:#x}.scm"));
                let _ = std::fs::copy(out.join("current.scm"), &saved);
                println!(
                    "HANG case {index} (seed {seed:#x}) ran over {timeout:?}: saved as {}",
                    saved.display()
                );
                let t = tally.lock().unwrap_or_else(|e| e.into_inner());
                t.print(index - first, watch.epoch.elapsed());
                let _ = std::io::stdout().flush();
                std::process::exit(3);
            }
        });
    }
    for index in args.start..args.start + args.cases {
        let seed = fuzz::case_seed(args.seed, index);
        let case = fuzz::generate(seed);
        if let Err(e) = std::fs::write(&current, &case.bytes).and_then(|()| {
            std::fs::write(
                &current_info,
                format!(
                    "run seed {} case {index} seed {seed:#x} kind {}{}\n",
                    args.seed,
                    case.kind.name(),
                    lines_note(&case)
                ),
            )
        }) {
            eprintln!("toyvm-fuzz: cannot write {}: {e}", current.display());
            return ExitCode::from(2);
        }
        watch.index.store(index, Ordering::SeqCst);
        watch.seed.store(seed, Ordering::SeqCst);
        let t0 = Instant::now();
        watch.started_ms.store(
            (watch.epoch.elapsed().as_millis() as u64).max(1),
            Ordering::SeqCst,
        );
        let verdict = fuzz::run_case(&case, limits);
        watch.started_ms.store(0, Ordering::SeqCst);
        let took = t0.elapsed();
        let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
        if args.show.as_deref() == Some(verdict.label().as_str()) {
            let msg = match &verdict {
                Verdict::Clean(Err(e)) => e.to_string(),
                Verdict::Panic(m) | Verdict::Stuck(m) => m.clone(),
                Verdict::Clean(Ok(())) => String::new(),
            };
            let msg: String = msg.chars().take(300).collect();
            println!("case {index} seed {seed:#x}: {msg}");
        }
        t.add(index, &case, verdict.label(), took);
        // A generated program (not a cut one) must agree with the generator's
        // model of its hashtables, weak pairs and guardians.
        let mismatch =
            matches!(case.kind, Kind::Program | Kind::Broken) && verdict.is_model_mismatch();
        if !verdict.is_clean() || mismatch {
            let saved = args.out.join(format!("fail-{seed:#x}.scm"));
            let _ = std::fs::write(&saved, &case.bytes);
            let msg = match &verdict {
                Verdict::Panic(m) | Verdict::Stuck(m) => m.replace('\n', " "),
                Verdict::Clean(_) => "disagrees with the model".into(),
            };
            let line = format!(
                "case {index} seed {seed:#x} ({}{}): {}: {msg} [{}]",
                case.kind.name(),
                lines_note(&case),
                verdict.label(),
                saved.display()
            );
            println!("FAIL {line}");
            t.failures.push(line);
            if matches!(verdict, Verdict::Stuck(_)) {
                // Its threads are still running: stop here.
                t.print(index + 1 - args.start, watch.epoch.elapsed());
                return ExitCode::from(1);
            }
        }
        let done = index + 1 - args.start;
        if args.progress > 0 && done % args.progress == 0 {
            println!(
                "... {done} cases, {:.1} s, {} failures",
                watch.epoch.elapsed().as_secs_f64(),
                t.failures.len()
            );
            let _ = std::io::stdout().flush();
        }
    }
    let t = tally.lock().unwrap_or_else(|e| e.into_inner());
    t.print(args.cases, watch.epoch.elapsed());
    if t.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn binary_run(args: &Args, limits: &Limits) -> ExitCode {
    let toyvm = args.toyvm.clone().unwrap_or_else(|| {
        let me = std::env::current_exe().unwrap_or_default();
        me.with_file_name("toyvm")
    });
    if !toyvm.exists() {
        eprintln!(
            "toyvm-fuzz: no toyvm binary at {} (build it, or pass --toyvm)",
            toyvm.display()
        );
        return ExitCode::from(2);
    }
    let epoch = Instant::now();
    let next = AtomicU64::new(args.start);
    let end = args.start + args.cases;
    let tally = Mutex::new(Tally::default());
    let timeout = Duration::from_secs(args.timeout);
    std::thread::scope(|s| {
        for job in 0..args.jobs.max(1) {
            let (next, tally, toyvm) = (&next, &tally, &toyvm);
            s.spawn(move || {
                let file = args.out.join(format!("binary-{job}.scm"));
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= end {
                        break;
                    }
                    let seed = fuzz::case_seed(args.seed, index);
                    let case = fuzz::generate(seed);
                    if let Err(e) = std::fs::write(&file, &case.bytes) {
                        eprintln!("toyvm-fuzz: cannot write {}: {e}", file.display());
                        std::process::exit(2);
                    }
                    let t0 = Instant::now();
                    let (verdict, stderr) =
                        match fuzz::run_binary(toyvm, &file, case.feed, limits, timeout) {
                            Ok(r) => r,
                            Err(e) => {
                                eprintln!("toyvm-fuzz: cannot run {}: {e}", toyvm.display());
                                std::process::exit(2);
                            }
                        };
                    let label = match verdict {
                        BinaryVerdict::Exited(c) => format!("exit {c}"),
                        BinaryVerdict::Signal(s) => format!("SIGNAL {s}"),
                        BinaryVerdict::Timeout => "TIMEOUT".into(),
                    };
                    let clean = verdict.is_clean(fuzz::may_exit(&case.bytes), &stderr);
                    let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
                    t.add(index, &case, label.clone(), t0.elapsed());
                    if !clean {
                        let saved = args.out.join(format!("fail-{seed:#x}.scm"));
                        let _ = std::fs::write(&saved, &case.bytes);
                        let err: String = stderr.chars().take(300).collect();
                        let line = format!(
                            "case {index} seed {seed:#x} ({}{}): {label}: {} [{}]",
                            case.kind.name(),
                            lines_note(&case),
                            err.replace('\n', " "),
                            saved.display()
                        );
                        println!("FAIL {line}");
                        t.failures.push(line);
                    }
                    let done = t.by_kind.values().sum::<u64>();
                    if args.progress > 0 && done % args.progress == 0 {
                        println!(
                            "... {done} cases, {:.1} s, {} failures",
                            epoch.elapsed().as_secs_f64(),
                            t.failures.len()
                        );
                    }
                }
            });
        }
    });
    let t = tally.lock().unwrap_or_else(|e| e.into_inner());
    t.print(args.cases, epoch.elapsed());
    if t.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
