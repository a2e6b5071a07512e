//! Differential testing: programs of the generator's differential mode
//! ([`super::generate_diff`]) run on the toy VM (in process) and on a reference
//! Scheme (Guile 3.0, one long-lived process per worker running
//! `guile-driver.scm`, which evaluates each program in a fresh module with its
//! output captured), and the two must agree: the same status (both ran to the
//! end, or both stopped with an error; messages are not compared) and the same
//! output up to the end or the error, after [`normalise`].
//!
//! A run where either side ran out of a resource limit (the toy VM's step
//! budget, heap or frame limit; the reference's time or allocation limit) has
//! no verdict. A mismatch, or a panic of the toy VM, is saved as a reproducer:
//! the program with both outputs and the seed in comments at its head.
//! docs/testing.md has the command lines, the normalisations and the known
//! differences.

use super::{case_seed, generate_diff, run_source_captured, Limits, Verdict};
use crate::ErrorKind;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The reference side's driver script (run with `guile -c`).
pub const GUILE_DRIVER: &str = include_str!("guile-driver.scm");

/// How a program ended, on either side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It ran to the end.
    Ok,
    /// It stopped with an error (reading, compiling or running).
    Error,
    /// It ran out of a resource limit: no verdict.
    Limit,
    /// The toy VM panicked or left threads running: always a failure.
    Crash,
}

impl Status {
    /// Its name, as in reproducers.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Limit => "limit",
            Status::Crash => "crash",
        }
    }
}

/// A program's status and output on one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// What it printed (lossily decoded as UTF-8).
    pub output: String,
    /// The error message or panic, if any (not compared).
    pub detail: String,
}

/// Runs `src` on the toy VM in process, capturing its output.
pub fn run_toy(src: &[u8], limits: &Limits) -> Outcome {
    let (verdict, out) = run_source_captured(src, super::Feed::File, limits);
    let (status, detail) = match &verdict {
        Verdict::Clean(Ok(())) => (Status::Ok, String::new()),
        Verdict::Clean(Err(e)) => (
            match e.kind {
                ErrorKind::StepLimit | ErrorKind::OutOfMemory | ErrorKind::StackOverflow => {
                    Status::Limit
                }
                // Generated programs never call exit: an exit is a failure too.
                ErrorKind::Exit(_) => Status::Crash,
                _ => Status::Error,
            },
            e.to_string(),
        ),
        Verdict::Panic(m) | Verdict::Stuck(m) => (Status::Crash, m.clone()),
    };
    Outcome {
        status,
        output: String::from_utf8_lossy(&out).into_owned(),
        detail,
    }
}

/// A reference Scheme process running [`GUILE_DRIVER`].
pub struct Reference {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Reference {
    /// Starts `guile` (a Guile 3.0 executable) on the driver.
    pub fn start(guile: &Path) -> std::io::Result<Reference> {
        let mut child = Command::new(guile)
            .arg("--no-auto-compile")
            .arg("-c")
            .arg(GUILE_DRIVER)
            .env("GUILE_AUTO_COMPILE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Reference {
            child,
            stdin,
            stdout,
        })
    }

    /// Runs one program.
    pub fn run(&mut self, src: &[u8]) -> std::io::Result<Outcome> {
        writeln!(self.stdin, "{}", src.len())?;
        self.stdin.write_all(src)?;
        self.stdin.flush()?;
        let mut header = String::new();
        self.stdout.read_line(&mut header)?;
        let bad = || std::io::Error::other(format!("bad reply from the reference: {header:?}"));
        let mut parts = header.split_whitespace();
        let status = match parts.next() {
            Some("ok") => Status::Ok,
            Some("error") => Status::Error,
            Some("limit") => Status::Limit,
            _ => return Err(bad()),
        };
        let mut len = || -> std::io::Result<usize> {
            parts.next().and_then(|n| n.parse().ok()).ok_or_else(bad)
        };
        let (n, m) = (len()?, len()?);
        let mut out = vec![0; n];
        self.stdout.read_exact(&mut out)?;
        let mut detail = vec![0; m];
        self.stdout.read_exact(&mut detail)?;
        Ok(Outcome {
            status,
            output: String::from_utf8_lossy(&out).into_owned(),
            detail: String::from_utf8_lossy(&detail).into_owned(),
        })
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Guile 3 executable to compare with: `$TOYVM_DIFF_GUILE` if set, else
/// `guile` or `guile-3.0` on the `PATH`, if it runs and reports version 3.
pub fn find_guile() -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("TOYVM_DIFF_GUILE") {
        Some(p) => vec![PathBuf::from(p)],
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path)
                .flat_map(|d| [d.join("guile"), d.join("guile-3.0")])
                .filter(|p| p.is_file())
                .collect()
        }
    };
    candidates.into_iter().find(|p| {
        Command::new(p)
            .arg("-c")
            .arg("(display (major-version))")
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout == b"3")
    })
}

/// Rewrites what both sides print correctly but differently, so that outputs
/// compare equal: a procedure, `#<procedure NAME>` on the toy VM, becomes
/// `#<procedure>` (the driver already prints Guile's procedures so: their
/// names and arity lists have no counterpart). Floats need nothing here: the
/// driver prints Guile's in the toy VM's form (Guile writes `1.0e10`, the toy
/// VM `10000000000.0`), from Guile's own shortest digits.
pub fn normalise(s: &str) -> String {
    strip_procedure_names(s)
}

/// `#<procedure NAME>` → `#<procedure>`. NAME ends at its first `>` that is
/// not its first character and does not follow a `-` other than the name `-`
/// (names such as `string->list`, `>=` or `>` contain `>`).
fn strip_procedure_names(s: &str) -> String {
    const OPEN: &str = "#<procedure ";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let bytes = after.as_bytes();
        let end = (1..bytes.len()).find(|&i| bytes[i] == b'>' && (i == 1 || bytes[i - 1] != b'-'));
        match end {
            Some(i) => {
                out.push_str("#<procedure>");
                rest = &after[i + 1..];
            }
            None => {
                out.push_str(OPEN);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// How the two sides compared on one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    /// Same status and (normalised) output.
    Agree,
    /// One side ran out of a limit: no verdict.
    Inconclusive,
    /// They differ, or the toy VM crashed.
    Mismatch,
}

/// Compares the toy VM's outcome with the reference's.
pub fn compare(toy: &Outcome, reference: &Outcome) -> Compared {
    if toy.status == Status::Crash {
        return Compared::Mismatch;
    }
    if toy.status == Status::Limit || reference.status == Status::Limit {
        return Compared::Inconclusive;
    }
    if toy.status == reference.status && normalise(&toy.output) == normalise(&reference.output) {
        Compared::Agree
    } else {
        Compared::Mismatch
    }
}

/// What a differential run does.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// Run seed: program i's seed is [`case_seed`]`(seed, i)`.
    pub seed: u64,
    /// Index of the first program.
    pub start: u64,
    /// Number of programs.
    pub cases: u64,
    /// Workers (each with its own reference process).
    pub jobs: usize,
    /// The toy VM's limits.
    pub limits: Limits,
    /// The Guile executable.
    pub guile: PathBuf,
    /// Where reproducers go (`None`: not saved).
    pub mismatch_dir: Option<PathBuf>,
    /// Print a progress line every this many programs (0: never).
    pub progress: u64,
}

/// One disagreement.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The program's index in the run.
    pub index: u64,
    /// Its seed (`toyvm-fuzz --diff guile --print SEED` prints it).
    pub seed: u64,
    /// The source.
    pub source: String,
    /// The toy VM's outcome.
    pub toy: Outcome,
    /// The reference's outcome.
    pub reference: Outcome,
    /// Where its reproducer was saved.
    pub saved: Option<PathBuf>,
}

impl Mismatch {
    /// A one-line summary (statuses and the start of both outputs).
    pub fn summary(&self) -> String {
        let cut =
            |s: &str| -> String { s.chars().take(120).collect::<String>().replace('\n', "\\n") };
        format!(
            "case {} seed {:#x}: toy VM {} {:?} {}; reference {} {:?} {}{}",
            self.index,
            self.seed,
            self.toy.status.name(),
            cut(&self.toy.output),
            cut(&self.toy.detail),
            self.reference.status.name(),
            cut(&self.reference.output),
            cut(&self.reference.detail),
            self.saved
                .as_ref()
                .map(|p| format!(" [{}]", p.display()))
                .unwrap_or_default()
        )
    }

    /// The reproducer: both outcomes and the replay command in comments, then
    /// the program.
    pub fn reproducer(&self, run_seed: u64) -> String {
        let comment =
            |s: &str| -> String { s.lines().map(|l| format!(";;   {l}\n")).collect::<String>() };
        format!(
            ";; Differential mismatch: run seed {run_seed}, case {}, program seed {:#x}.\n\
             ;; Print it again: toyvm-fuzz --diff guile --print {:#x}\n\
             ;; Replay it:      toyvm-fuzz --diff guile --replay THIS-FILE\n\
             ;; toy VM: {} {}\n{};; reference: {} {}\n{}\n{}",
            self.index,
            self.seed,
            self.seed,
            self.toy.status.name(),
            self.toy.detail.replace('\n', " "),
            comment(&self.toy.output),
            self.reference.status.name(),
            self.reference.detail.replace('\n', " "),
            comment(&self.reference.output),
            self.source
        )
    }
}

/// The totals of a run.
#[derive(Clone, Debug, Default)]
pub struct DiffReport {
    /// Programs run.
    pub cases: u64,
    /// Programs where both sides agreed.
    pub agree: u64,
    /// Of those, programs where both stopped with an error.
    pub both_error: u64,
    /// Programs where the toy VM ran out of a limit.
    pub toy_limit: u64,
    /// Programs where the reference ran out of a limit (the toy VM did not).
    pub reference_limit: u64,
    /// Times the reference process died and was restarted (its program has no
    /// verdict).
    pub restarts: u64,
    /// The disagreements.
    pub mismatches: Vec<Mismatch>,
    /// Wall time.
    pub elapsed: Duration,
}

impl DiffReport {
    /// A summary line.
    pub fn summary(&self) -> String {
        let secs = self.elapsed.as_secs_f64();
        format!(
            "{} programs in {secs:.1} s ({:.0}/s): {} agree ({} both with an error), {} toy VM limit, {} reference limit, {} reference restarts, {} mismatches",
            self.cases,
            self.cases as f64 / secs.max(1e-9),
            self.agree,
            self.both_error,
            self.toy_limit,
            self.reference_limit,
            self.restarts,
            self.mismatches.len()
        )
    }
}

/// Runs programs `start..start + cases` of `opts.seed` on both sides, with
/// `opts.jobs` workers.
pub fn run(opts: &DiffOptions) -> std::io::Result<DiffReport> {
    if let Some(dir) = &opts.mismatch_dir {
        std::fs::create_dir_all(dir)?;
    }
    let epoch = Instant::now();
    let next = AtomicU64::new(opts.start);
    let end = opts.start + opts.cases;
    let report = Mutex::new(DiffReport::default());
    let failed: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            let (next, report, failed) = (&next, &report, &failed);
            // The toyvm binary runs programs on the main thread (8 MiB of stack).
            let worker = std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(s, move || {
                    if let Err(e) = worker(opts, next, end, report, epoch) {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        next.store(end, Ordering::SeqCst);
                    }
                });
            if let Err(e) = worker {
                *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
            }
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.elapsed = epoch.elapsed();
    report.mismatches.sort_by_key(|m| m.index);
    Ok(report)
}

fn worker(
    opts: &DiffOptions,
    next: &AtomicU64,
    end: u64,
    report: &Mutex<DiffReport>,
    epoch: Instant,
) -> std::io::Result<()> {
    let mut reference = Reference::start(&opts.guile)?;
    loop {
        let index = next.fetch_add(1, Ordering::SeqCst);
        if index >= end {
            return Ok(());
        }
        let seed = case_seed(opts.seed, index);
        let case = generate_diff(seed);
        let toy = run_toy(&case.bytes, &opts.limits);
        // A program the toy VM could not finish has no verdict: spare the
        // reference the time.
        let (reference_outcome, restarted) = if toy.status == Status::Limit {
            (None, false)
        } else {
            match reference.run(&case.bytes) {
                Ok(o) => (Some(o), false),
                Err(_) => {
                    reference = Reference::start(&opts.guile)?;
                    (None, true)
                }
            }
        };
        let compared = match &reference_outcome {
            Some(r) => compare(&toy, r),
            None if toy.status == Status::Crash => Compared::Mismatch,
            None => Compared::Inconclusive,
        };
        let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
        r.cases += 1;
        r.restarts += u64::from(restarted);
        match compared {
            Compared::Agree => {
                r.agree += 1;
                r.both_error += u64::from(toy.status == Status::Error);
            }
            Compared::Inconclusive if toy.status == Status::Limit => r.toy_limit += 1,
            Compared::Inconclusive => r.reference_limit += 1,
            Compared::Mismatch => {
                let mut m = Mismatch {
                    index,
                    seed,
                    source: String::from_utf8_lossy(&case.bytes).into_owned(),
                    toy,
                    reference: reference_outcome.unwrap_or(Outcome {
                        status: Status::Limit,
                        output: String::new(),
                        detail: "not run".into(),
                    }),
                    saved: None,
                };
                if let Some(dir) = &opts.mismatch_dir {
                    let path = dir.join(format!("mismatch-{seed:#x}.scm"));
                    std::fs::write(&path, m.reproducer(opts.seed))?;
                    m.saved = Some(path);
                }
                println!("MISMATCH {}", m.summary());
                r.mismatches.push(m);
            }
        }
        if opts.progress > 0 && r.cases % opts.progress == 0 {
            println!(
                "... {} programs, {:.1} s, {} mismatches",
                r.cases,
                epoch.elapsed().as_secs_f64(),
                r.mismatches.len()
            );
            let _ = std::io::stdout().flush();
        }
    }
}
