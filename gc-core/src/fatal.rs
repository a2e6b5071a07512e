//! Failure containment for collector work. A panic inside a collection (a GC worker,
//! the fault server, the coordinator in a pause or a concurrent phase) must end the
//! process at once with a message naming the phase: never leave it hung, with
//! mutators asleep in the kernel on pages nobody will fill, or the world stopped for
//! ever, or a cycle that never returns to idle. Unwinding past collector work cannot
//! leave the heap in a usable state, so nothing catches it: the process aborts.

use std::cell::Cell;

/// Aborts the process if the current thread unwinds while this guard lives. Made at
/// the top of every collector thread and around every collection phase run on a
/// mutator's thread.
///
/// A mutator's thread may already be unwinding when it makes one: a user `Drop`
/// that allocates while a panic unwinds (to be caught further up) can start a
/// cycle or take an offered pause. That is not a panic in collector work, so the
/// guard remembers whether the thread was unwinding when it was made, and aborts
/// only for an unwind that began while it lived. (A panic inside collector work
/// that runs during an unwind is a panic during a panic: the runtime aborts then.)
pub(crate) struct AbortOnUnwind {
    phase: Cell<&'static str>,
    /// `std::thread::panicking()` when the guard was made.
    unwinding_before: bool,
}

impl AbortOnUnwind {
    /// A guard for collector work in `phase` (shown in the message).
    pub fn new(phase: &'static str) -> AbortOnUnwind {
        AbortOnUnwind {
            phase: Cell::new(phase),
            unwinding_before: std::thread::panicking(),
        }
    }

    /// Names the phase the guarded work has moved on to.
    pub fn phase(&self, phase: &'static str) {
        self.phase.set(phase);
    }
}

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() && !self.unwinding_before {
            // The panic hook has printed the panic itself just before this. The
            // message goes out with one raw write(2), not `eprintln!`: a test
            // harness captures a test thread's `eprintln!` and prints it only when
            // the test ends, which an abort never reaches.
            let thread = std::thread::current();
            die(format_args!(
                "collector work panicked during {} (thread {}); a half-done collection \
                 cannot be resumed",
                self.phase.get(),
                thread.name().unwrap_or("unnamed"),
            ));
        }
    }
}

/// A fixed buffer that formats without allocating (for [`die`]).
struct RawMessage {
    buf: [u8; 512],
    len: usize,
}

impl std::fmt::Write for RawMessage {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Ends the process from code that may run inside a signal handler (the `SIGBUS`
/// handler of concurrent compaction, and the page filling it calls): formats
/// `args` into a buffer on the stack, writes `flipgc: fatal: ...` to stderr with one
/// `write(2)`, and calls `abort(3)`. Both are async-signal-safe; nothing is
/// allocated, no lock is taken, and no panic machinery runs (the panic hook and
/// unwinding are not async-signal-safe).
#[cold]
pub(crate) fn die(args: std::fmt::Arguments<'_>) -> ! {
    use std::fmt::Write;
    let mut m = RawMessage {
        buf: [0; 512],
        len: 0,
    };
    let _ = m.write_str("flipgc: fatal: ");
    let _ = m.write_fmt(args);
    let _ = m.write_str("; aborting\n");
    // SAFETY: `m.buf[..m.len]` is initialised memory owned by this frame; write(2)
    // only reads it. A short or failed write changes nothing: we abort next.
    unsafe { libc::write(2, m.buf.as_ptr().cast(), m.len) };
    // SAFETY: abort(3) takes no arguments and does not return.
    unsafe { libc::abort() }
}
