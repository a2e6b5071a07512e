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
pub(crate) struct AbortOnUnwind {
    phase: Cell<&'static str>,
}

impl AbortOnUnwind {
    /// A guard for collector work in `phase` (shown in the message).
    pub fn new(phase: &'static str) -> AbortOnUnwind {
        AbortOnUnwind {
            phase: Cell::new(phase),
        }
    }

    /// Names the phase the guarded work has moved on to.
    pub fn phase(&self, phase: &'static str) {
        self.phase.set(phase);
    }
}

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The panic hook has printed the panic itself just before this.
            eprintln!(
                "flipgc: fatal: collector work panicked during {} (thread {:?}); aborting, \
                 since a half-done collection cannot be resumed",
                self.phase.get(),
                std::thread::current().name().unwrap_or("unnamed"),
            );
            std::process::abort();
        }
    }
}
