//! The per-page state machine of concurrent compaction, and nothing else: the one
//! way a to-space page gets installed. `compaction.rs` drives it (workers, the
//! fault server, the `SIGBUS` handler); `tests/models.rs` compiles this same file
//! against a model checker and explores every interleaving of those parties.
//!
//! `UNFILLED --claim (CAS, one winner)--> FILLING --install, then store--> FILLED`
//!
//! Memory ordering, hand-off by hand-off:
//! - the claim is a compare-exchange: exactly one party wins a page (invariant 1 of
//!   `compaction.rs`). Acquire on success; it publishes nothing itself.
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

/// Claims page `p` for the caller, who must then [`install`] it. `false` if
/// another party claimed it first.
#[inline]
pub fn claim(states: &[AtomicU8], p: usize) -> bool {
    states[p]
        .compare_exchange(UNFILLED, FILLING, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
}

/// Installs claimed pages `[first, end)`: `copy` installs them (producing them
/// first, unless its caller has; it returns only once they are mapped, or ends
/// the process), then they become `FILLED` and count towards [`all_filled`].
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
        s.store(FILLED, Ordering::Release);
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
        OnFault::Install
    } else if states[p].load(Ordering::Acquire) == FILLING {
        OnFault::Installing
    } else {
        OnFault::Wake
    }
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
