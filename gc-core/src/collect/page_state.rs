//! The per-page state machine of concurrent compaction, and nothing else: the one
//! way a to-space page gets installed. `compaction.rs` drives it (workers, the
//! fault server, the `SIGBUS` handler); `tests/models.rs` compiles this same file
//! against a model checker and explores every interleaving of those parties.
//!
//! `UNFILLED --claim (CAS, one winner)--> FILLING --install, then store--> FILLED`,
//! and `FILLING --a thread starts waiting--> WAITED --install, then store--> FILLED`:
//! `WAITED` is `FILLING` with a hint for the claimant, which then installs what it
//! has produced of its run at once instead of at the run's end ([`waited`]), so a
//! thread waits for about one page's production, not for a whole run's.
//!
//! Memory ordering, hand-off by hand-off:
//! - the claim is a compare-exchange: exactly one party wins a page (invariant 1 of
//!   `compaction.rs`). Acquire on success; it publishes nothing itself.
//! - `WAITED` is a hint only, set and read relaxed: a claimant that misses it
//!   installs the page at the end of its run, as without it; one that sees it
//!   early installs sooner. Nothing is published through it.
//! - `FILLED` is stored with release after the installing `UFFDIO_COPY` returned;
//!   a waiter's acquire load that sees it therefore also sees the page installed
//!   (the `SIGBUS` handler returns and the access retries).
//! - the count of filled pages is raised with acquire-release after the states; the
//!   end of the compaction loads it with acquire ([`all_filled`]), so every
//!   installer's reads of from-space and the side tables happen before the end
//!   recycles from-space and hands the tables back (invariant 4).
//! - [`reset`] runs after every party is gone (the end holds the only reference),
//!   so relaxed stores suffice; the next compaction receives the states through the
//!   scratch slot's lock.

use crate::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// Not produced yet (also the state between compactions).
pub const UNFILLED: u8 = 0;
/// Claimed: its claimant is producing and installing it.
pub const FILLING: u8 = 1;
/// Installed.
pub const FILLED: u8 = 2;
/// Claimed, and another thread waits for it: its claimant should install it soon.
pub const WAITED: u8 = 3;

/// Claims page `p` for the caller, who must then [`install`] it. `false` if
/// another party claimed it first.
#[inline]
pub fn claim(states: &[AtomicU8], p: usize) -> bool {
    states[p]
        .compare_exchange(UNFILLED, FILLING, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
}

/// Installs claimed pages `[first, end)`: `copy` installs them (produced before
/// or inside it; it returns only once they are mapped, or ends the process), then
/// they become `FILLED` and count towards [`all_filled`].
#[inline]
pub fn install(
    states: &[AtomicU8],
    filled: &AtomicUsize,
    first: usize,
    end: usize,
    copy: impl FnOnce(),
) {
    copy();
    for s in &states[first..end] {
        // A swap, not a store: a waiter may have turned the page `WAITED` since it
        // was claimed. With a plain store (correct by the C11 rules, as far as I
        // can tell) the model checker still let a waiter that had synchronised
        // with this install read its own `WAITED` afterwards and wait for ever; as
        // a read-modify-write the swap is ordered after that `WAITED` in the
        // page's modification order, which rules it out. One locked instruction
        // per page.
        s.swap(FILLED, Ordering::Release);
    }
    filled.fetch_add(end - first, Ordering::AcqRel);
}

/// What the fault server does with a fault event on page `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFault {
    /// Claimed here: produce and install it (the install wakes the toucher).
    Install,
    /// Another party is installing it; its install wakes the toucher.
    Installing,
    /// Installed before the event was read: wake the toucher, in case it sleeps.
    Wake,
}

/// Server mode: the decision for a fault event on page `p` (claiming it if free).
#[inline]
pub fn on_fault_event(states: &[AtomicU8], p: usize) -> OnFault {
    if claim(states, p) {
        return OnFault::Install;
    }
    match states[p].load(Ordering::Acquire) {
        FILLING | WAITED => {
            note_waiter(states, p);
            OnFault::Installing
        }
        _ => OnFault::Wake,
    }
}

/// Tells the claimant of page `p` that a thread waits for it (if it is still being
/// produced). A hint, see the module docs.
#[inline]
pub fn note_waiter(states: &[AtomicU8], p: usize) {
    let _ = states[p].compare_exchange(FILLING, WAITED, Ordering::Relaxed, Ordering::Relaxed);
}

/// Whether a thread waits for one of the claimed pages `[first, end)`: their
/// claimant should install them now.
#[inline]
pub fn waited(states: &[AtomicU8], first: usize, end: usize) -> bool {
    states[first..end]
        .iter()
        .any(|s| s.load(Ordering::Relaxed) == WAITED)
}

/// Whether page `p` is installed.
#[inline]
pub fn is_filled(states: &[AtomicU8], p: usize) -> bool {
    states[p].load(Ordering::Acquire) == FILLED
}

/// `SIGBUS` mode: waits until another party's install of page `p` is done, calling
/// `back_off` with the attempt number between looks.
#[inline]
pub fn wait_filled(states: &[AtomicU8], p: usize, mut back_off: impl FnMut(u32)) {
    note_waiter(states, p);
    let mut attempt = 0u32;
    while !is_filled(states, p) {
        back_off(attempt);
        attempt = attempt.saturating_add(1);
    }
}

/// Whether all `pages` pages are installed.
#[inline]
pub fn all_filled(filled: &AtomicUsize, pages: usize) -> bool {
    filled.load(Ordering::Acquire) == pages
}

/// Makes every state `UNFILLED` again, for the next compaction (see the module
/// docs for why relaxed stores suffice).
pub fn reset(states: &[AtomicU8]) {
    for s in states {
        s.store(UNFILLED, Ordering::Relaxed);
    }
}
