//! Lazy forwarding of the live large objects' reference fields after a concurrent
//! cycle's flip pause.
//!
//! Large objects do not move, but their reference fields point into the moving
//! space and must be rewritten to the new addresses. Rewriting every one inside the
//! flip pause made that pause grow with them (in the 8-thread churn, 0.67 ms at the
//! median and 3 ms at most of its flips). Instead the pause only marks each live
//! large object that has reference fields *pending* (one byte each in the
//! large-object space's side table, `space/los.rs`), publishes the compaction as
//! this heap's forwarder ([`HeapInner::large_forwarder`]), and the first thread to
//! touch a pending object after the pause forwards it:
//! - a mutator, before any access to it through its `Mutator`
//!   (`Mutator::accessible` calls [`ensure_forwarded`]);
//! - the compaction, which forwards every one still pending as it starts, then
//!   withdraws the forwarder ([`forward_all_and_withdraw`]);
//! - the verifier, with the world stopped ([`forward_pending`]).
//!
//! Invariants:
//! 1. An object that is not pending (nor being forwarded) holds current addresses.
//! 2. Only the thread that claimed an object (`PENDING` -> `FORWARDING`, a CAS)
//!    touches its fields until it ends the claim with a release store; every other
//!    thread that needs the object waits for that store (acquire) before touching
//!    them, so no access sees a half-forwarded object, and no store of a new
//!    address is then "forwarded" a second time.
//! 3. Nothing becomes pending after the flip pause, and the forwarder is withdrawn
//!    only once nothing is pending any more (claims in progress hold the forwarder,
//!    and the compaction cannot end before they drop it): so a thread that finds no
//!    forwarder only ever waits for a claim in progress.
//! 4. Forwarding computes new addresses from the side tables alone: it reads no
//!    heap page, so it cannot fault on the heap being filled.
//!
//! Marking never runs during a compaction, so it never sees a pending object.

use super::heap_inner::HeapInner;
use crate::space::los::{Claim, LosMarks};
use std::sync::Arc;

/// Rewrites a claimed large object's reference fields to the new addresses.
/// Implemented by the concurrent compaction, which holds the forwarding tables.
pub trait ForwardFields: Send + Sync {
    /// Rewrites the reference fields of the large object at `addr`. The caller holds
    /// its claim ([`Claim::Mine`]).
    fn forward_fields(&self, addr: usize);
}

/// Makes the fields of the large object at `addr` current: forwards them if they are
/// pending, waits for the thread forwarding them if one is, else returns at once.
/// Called by a mutator (on its own thread, outside any GC point) when it finds the
/// object pending; it contains no GC point, and waits only for another thread's
/// forwarding of the same object, which contains none either.
pub fn ensure_forwarded(inner: &HeapInner, addr: usize) {
    let forwarder = inner.large_forwarder.lock().clone();
    match forwarder {
        Some(f) => forward_one(&inner.los_marks, &*f, addr),
        // Invariant 3: only a claim in progress can be left.
        None => wait_forwarded(&inner.los_marks, addr),
    }
}

/// Forwards every large object still pending. With the world stopped (the
/// verifier), or on the compaction's thread.
pub fn forward_pending(inner: &HeapInner) {
    let forwarder = inner.large_forwarder.lock().clone();
    if let Some(f) = forwarder {
        let marks = &inner.los_marks;
        for addr in marks.pending() {
            forward_one(marks, &*f, addr);
        }
    }
}

/// The compaction, as it starts: forwards every large object still pending, then
/// withdraws the forwarder (its reference to the compaction).
pub fn forward_all_and_withdraw(inner: &HeapInner) {
    forward_pending(inner);
    // Everything is forwarded or claimed by a thread that holds the forwarder
    // (invariant 3).
    *inner.large_forwarder.lock() = None;
}

/// Publishes `f` as the heap's forwarder. In the flip pause, with the world stopped,
/// after its sweep left the live large objects with reference fields pending.
pub fn publish(inner: &HeapInner, f: Arc<dyn ForwardFields>) {
    let old = inner.large_forwarder.lock().replace(f);
    assert!(
        old.is_none(),
        "a forwarder of an earlier compaction was left"
    );
}

/// Forwards the object at `addr` if it is pending, or waits for the claim in
/// progress.
fn forward_one(marks: &LosMarks, f: &dyn ForwardFields, addr: usize) {
    match marks.claim_forwarding(addr) {
        Claim::Mine => {
            f.forward_fields(addr);
            marks.forwarded(addr);
        }
        Claim::Busy => wait_forwarded(marks, addr),
        Claim::Done => {}
    }
}

/// Waits until the claim in progress on the object at `addr` has ended.
fn wait_forwarded(marks: &LosMarks, addr: usize) {
    let mut spins = 0u32;
    // The forwarder may be a mutator of normal priority on this CPU.
    let realtime = crate::priority::realtime();
    while marks.awaits_forwarding(addr) {
        assert!(
            !marks.is_pending(addr),
            "large object {addr:#x} pending with no forwarder (invariant 3)"
        );
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            crate::priority::relax(realtime, spins - 64);
        }
    }
}
