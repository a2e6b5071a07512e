//! Running cases: in process (a fresh heap and session per case, panics caught
//! and counted on every thread), or through the `toyvm` binary (its exit status
//! checked, a timeout enforced).

use super::{Case, Feed, Verdict};
use crate::{register_types, ErrorKind, Session, VmError};
use flipgc_core::{FlipMode, Heap, HeapConfig, TypeRegistry};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// What a case may use.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Heap capacity in bytes.
    pub heap: usize,
    /// Step budget: procedure calls of all the program's threads.
    pub max_steps: u64,
    /// Flip mode of the heap.
    pub flip: FlipMode,
    /// Verify the heap after every collection.
    pub verify: bool,
    /// How long threads the program started may run on after it ended.
    pub thread_grace: Duration,
}

impl Default for Limits {
    /// 4 MiB heap, 20,000 steps, automatic flip, no verification, 10 s grace.
    fn default() -> Limits {
        Limits {
            heap: 4 << 20,
            max_steps: 20_000,
            flip: FlipMode::Auto,
            verify: false,
            thread_grace: Duration::from_secs(10),
        }
    }
}

static PANICS: AtomicUsize = AtomicUsize::new(0);
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    /// Whether this thread is running a case (in [`run_case`]).
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that counts panics on every thread and keeps the
/// last one's message. Panics of cases (on a thread inside [`run_case`], or on a
/// thread the VM spawned) are not printed unless `TOYVM_FUZZ_PANIC_TRACE` is set;
/// others go to the previous hook as before.
pub fn install_panic_counter() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        let trace = std::env::var_os("TOYVM_FUZZ_PANIC_TRACE").is_some();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("?");
            let msg = format!("thread '{name}': {info}");
            *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(msg);
            let of_case = IN_CASE.with(|c| c.get()) || name == "toyvm-thread";
            if trace || !of_case {
                previous(info);
            }
        }));
    });
}

/// Panics counted since [`install_panic_counter`].
pub fn panic_count() -> usize {
    PANICS.load(Ordering::SeqCst)
}

/// The last panic's message (thread, location and payload), clearing it.
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Runs `case` in process: see [`run_source`].
pub fn run_case(case: &Case, limits: &Limits) -> Verdict {
    run_source(&case.bytes, case.feed, limits)
}

/// Runs `bytes` on a fresh heap, as `toyvm` would run it as a program file named
/// `case.scm` or as REPL input (`feed`), with output discarded. Bytes that are
/// not UTF-8 are a syntax error. A panic on this thread or on any thread the
/// program starts, or threads still running after [`Limits::thread_grace`], is a
/// failure.
pub fn run_source(bytes: &[u8], feed: Feed, limits: &Limits) -> Verdict {
    run_source_to(bytes, feed, limits, Box::new(std::io::sink()))
}

/// Runs `bytes` as [`run_source`] does, and returns its verdict and everything
/// it printed (up to the error, if it stopped with one).
pub fn run_source_captured(bytes: &[u8], feed: Feed, limits: &Limits) -> (Verdict, Vec<u8>) {
    let buf = SharedBuf::default();
    let verdict = run_source_to(bytes, feed, limits, Box::new(buf.clone()));
    let out = std::mem::take(&mut *buf.0.lock().unwrap_or_else(|e| e.into_inner()));
    (verdict, out)
}

/// An output sink that keeps what is written (shared with its clones).
#[derive(Clone, Default)]
struct SharedBuf(std::sync::Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedBuf {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run_source_to(
    bytes: &[u8],
    feed: Feed,
    limits: &Limits,
    out: Box<dyn std::io::Write + Send>,
) -> Verdict {
    install_panic_counter();
    let before = panic_count();
    IN_CASE.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_inner(bytes, feed, limits, out)
    }));
    IN_CASE.with(|c| c.set(false));
    let verdict = match r {
        Ok(Ok(result)) => Verdict::Clean(result),
        Ok(Err(stuck)) => Verdict::Stuck(stuck),
        Err(payload) => {
            let msg = take_panic_message().unwrap_or_else(|| {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into())
            });
            Verdict::Panic(msg)
        }
    };
    if verdict.is_clean() && panic_count() != before {
        return Verdict::Panic(take_panic_message().unwrap_or_else(|| "a panic".into()));
    }
    verdict
}

fn run_inner(
    bytes: &[u8],
    feed: Feed,
    limits: &Limits,
    out: Box<dyn std::io::Write + Send>,
) -> Result<Result<(), VmError>, String> {
    let mut registry = TypeRegistry::new();
    let types = register_types(&mut registry).expect("the VM's types register");
    let mut config = HeapConfig::new(limits.heap);
    config.flip = limits.flip;
    config.verify_after_gc = limits.verify;
    config.gc_workers = 1;
    let heap = Heap::new(config, registry).expect("a heap for the case");
    let result = match Session::new(&heap, &types, out) {
        Err(e) => Err(e),
        Ok(mut session) => {
            session.set_max_steps(Some(limits.max_steps));
            let r = match (crate::reader::decode(bytes), feed) {
                (Ok(src), Feed::File) => session.eval("case.scm", src).map(|_| ()),
                (Ok(src), Feed::Lines) => repl_lines(&mut session, src),
                (Err(mut e), _) => {
                    e.source = "case.scm".into();
                    Err(e)
                }
            };
            session.flush();
            r
        }
    };
    // Threads the program started (and did not join) still hold mutators.
    let deadline = Instant::now() + limits.thread_grace;
    while heap.mutator_count() > 0 {
        if Instant::now() > deadline {
            return Err(format!(
                "{} threads of the program still running {:?} after it ended",
                heap.mutator_count(),
                limits.thread_grace
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(result)
}

/// Feeds `src` to `session` as the REPL does (see `crate::repl::run`): line by
/// line, an incomplete form continued on the next line, errors kept going past,
/// `exit` ending it. Returns the last evaluation's result.
fn repl_lines(session: &mut Session, src: &str) -> Result<(), VmError> {
    let mut pending = String::new();
    let mut last = Ok(());
    for line in src.lines() {
        pending.push_str(line);
        pending.push('\n');
        let r = session.eval("<repl>", &pending);
        if let Err(e) = &r {
            if e.is_incomplete() {
                continue;
            }
        }
        pending.clear();
        session.end_line();
        let exit = matches!(&r, Err(e) if matches!(e.kind, ErrorKind::Exit(_)));
        last = r.map(|_| ());
        if exit {
            break;
        }
    }
    last
}

/// How a run of the `toyvm` binary ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinaryVerdict {
    /// It exited with this status.
    Exited(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past the timeout (and was killed).
    Timeout,
}

impl BinaryVerdict {
    /// Whether this is a clean end for a program: exit status 0, 1 or 2, or any
    /// status if the program may call `exit` (`may_exit`); and no panic message
    /// in `stderr`.
    pub fn is_clean(&self, may_exit: bool, stderr: &str) -> bool {
        let status_ok = match self {
            BinaryVerdict::Exited(0..=2) => true,
            BinaryVerdict::Exited(_) => may_exit,
            BinaryVerdict::Signal(_) | BinaryVerdict::Timeout => false,
        };
        status_ok && !stderr.contains("panicked at")
    }
}

/// Runs `toyvm FILE --heap H --max-steps S --flip F` (plus `--verify`), or for
/// [`Feed::Lines`] the REPL (`toyvm` without a file) with `file` as its standard
/// input and `HOME` set to `file`'s directory (for the history file), with
/// stdout discarded; returns how it ended and the first 64 KiB of its stderr.
pub fn run_binary(
    toyvm: &Path,
    file: &Path,
    feed: Feed,
    limits: &Limits,
    timeout: Duration,
) -> std::io::Result<(BinaryVerdict, String)> {
    let mut cmd = Command::new(toyvm);
    match feed {
        Feed::File => {
            cmd.arg(file).stdin(Stdio::null());
        }
        Feed::Lines => {
            let dir = file.parent().unwrap_or(Path::new("."));
            cmd.env("HOME", dir)
                .stdin(Stdio::from(std::fs::File::open(file)?));
        }
    }
    cmd.arg("--heap")
        .arg(limits.heap.to_string())
        .arg("--max-steps")
        .arg(limits.max_steps.to_string())
        .arg("--flip")
        .arg(limits.flip.name())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if limits.verify {
        cmd.arg("--verify");
    }
    let mut child = cmd.spawn()?;
    let mut err = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut err).take(64 << 10).read_to_end(&mut buf);
        // Drain the rest so the child never blocks on a full pipe.
        let _ = std::io::copy(&mut err, &mut std::io::sink());
        String::from_utf8_lossy(&buf).into_owned()
    });
    let deadline = Instant::now() + timeout;
    let verdict = loop {
        if let Some(status) = child.try_wait()? {
            use std::os::unix::process::ExitStatusExt;
            break match (status.code(), status.signal()) {
                (Some(code), _) => BinaryVerdict::Exited(code),
                (None, Some(sig)) => BinaryVerdict::Signal(sig),
                (None, None) => BinaryVerdict::Signal(0),
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break BinaryVerdict::Timeout;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let stderr = reader.join().unwrap_or_default();
    Ok((verdict, stderr))
}

/// Whether a program (judging by its text) may call `exit` with any status.
pub fn may_exit(bytes: &[u8]) -> bool {
    bytes.windows(4).any(|w| w == b"exit")
}

impl Verdict {
    /// The error kind of a clean run that failed, if any.
    pub fn error_kind(&self) -> Option<&ErrorKind> {
        match self {
            Verdict::Clean(Err(e)) => Some(&e.kind),
            _ => None,
        }
    }
}
