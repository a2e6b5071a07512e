//! Ephemerons at the end of marking: the fixpoint that traces an ephemeron's value
//! once its key is marked, and the clearing of ephemerons whose key stayed
//! unmarked (types in `object/ephemeron.rs`).
//!
//! **Deferral.** Marking never follows an ephemeron's key or value (both are in
//! its type's weak mask, which [`MarkCtx::scan`] skips); like any object with weak
//! fields, a scanned ephemeron goes to the weak holders (per marker, then the
//! intake's list, or the one-pause cycle's vector), and so does one a mutator
//! stored into while marking (`pre_write_weak`, black ones included). These lists
//! are the deferred ephemerons.
//!
//! **Fixpoint.** When the mark stack drains, [`ready_values`] looks at every
//! deferred ephemeron that is live: if its key is marked (or no reference) and its
//! value is a reference not yet marked, the value goes back to marking. Marking
//! drains again, and the look repeats until a round finds no value: then every
//! live ephemeron with a live key has a marked value, and a key that is still
//! unmarked is unreachable except through ephemerons whose keys are unmarked too.
//! A chain (the value of one ephemeron is the key of the next) takes one round a
//! link. The rounds run:
//! - in the one-pause cycle, between the parallel markings ([`mark_to_fixpoint`]);
//! - in a concurrent round, on the driver after the markers have joined
//!   (`concurrent_mark::round`), with mutators running;
//! - in the mark-end pause, with the world stopped, after the drain and before
//!   resurrection for finalization (`concurrent_mark::end`); only this one
//!   decides, the concurrent ones only move work out of the pause.
//! - In a young cycle an old ephemeron is scanned by the old-region pass, and an
//!   old key is live by definition ([`MarkCtx::is_live`]): a young cycle never
//!   clears an ephemeron whose key is old.
//!
//! **Clearing** ([`clear_if_key_dead`], from `refs::clear` in the same pause as
//! the weak fields): a live ephemeron whose key is a reference that is not live
//! gets both fields nulled.
//!
//! **Mutators during concurrent marking.** Reads of either field go through the
//! weak-read barrier (both are weak fields), which logs the value read while
//! marking: a key a mutator read is marked by the end, so its ephemeron keeps its
//! value; a value a mutator read is marked too, so clearing the field (its key
//! died) cannot leave the mutator with a freed object. Stores into either field
//! note the holder and log nothing: a value (or key) that was reachable only
//! through the ephemeron, and that the mutator did not read during marking, is
//! one the mutator cannot hold, except through a path that existed at the
//! snapshot (marked by the SATB argument, `concurrent_mark.rs` invariant 2). A
//! value stored into an ephemeron during marking is one the mutator held: marked
//! by the same argument, or black. The decision and the clearing happen in one
//! pause, so no mutator reads between them.
//!
//! **Memory ordering.** The concurrent rounds' look runs on the driver after the
//! markers' threads have joined (`thread::scope`: every marker's mark-bit stores
//! and its hand-in of weak holders happen-before the join's return), and it takes
//! the holders from the intake under its mutex (the markers' release of that
//! mutex happens-before the acquire). It reads key and value fields with acquire
//! loads, as marking reads fields: a mutator may be storing into them, and a
//! reference read must bring its referent's header (the mutator's release store
//! of the field). The values it finds go back through the intake's mutex, which
//! orders them before a marker pops them. The pause's look runs on the thread
//! that drained, after the drain, with the world stopped.

use super::mark::{mark, MarkCtx};
use crate::decode::Decode;
use crate::mem::{self, WORD};
use crate::object::is_ref;

/// The values that must be traced next: those of the live ephemerons among
/// `holders` whose key is live (or no reference) and whose value is a reference
/// not yet live. Marks nothing. Other holders are skipped.
pub fn ready_values<D: Decode>(ctx: &MarkCtx<'_, D>, holders: &[usize]) -> Vec<usize> {
    let mut found = Vec::new();
    for &holder in holders {
        if !ctx.is_live(holder) {
            continue;
        }
        // SAFETY: `holder` is a live object (noted by a scan or a store barrier):
        // its header is mapped and immutable.
        let w0 = unsafe { mem::load(holder) };
        let Some((k, v)) = ctx.layout.ephemeron(w0) else {
            continue;
        };
        // SAFETY: the key and value slots of an ephemeron (its shape, or its
        // model's answer). Acquire: see the module docs (a mutator's release
        // store of the field).
        let key = unsafe { mem::load_acquire(holder + k * WORD) } as usize;
        if is_ref(key) && !ctx.is_live(key) {
            continue;
        }
        // SAFETY: as above.
        let value = unsafe { mem::load_acquire(holder + v * WORD) } as usize;
        if is_ref(value) && !ctx.is_live(value) {
            found.push(value);
        }
    }
    found
}

/// The one-pause cycle's marking: everything reachable from `roots` with
/// `workers` threads ([`mark`]), then rounds over the ephemerons among the weak
/// holders (which `holders` collects) until one finds no value to trace.
/// Returns the number of objects marked.
pub fn mark_to_fixpoint<D: Decode>(
    ctx: &MarkCtx<'_, D>,
    roots: &[usize],
    workers: usize,
    holders: &mut Vec<usize>,
) -> usize {
    let mut marked = mark(ctx, roots, workers, holders);
    loop {
        let values = ready_values(ctx, holders);
        if values.is_empty() {
            return marked;
        }
        marked += mark(ctx, &values, workers, holders);
    }
}

/// Clears key and value of the ephemeron at `holder` (header `h`) if its key is a
/// reference that marking found dead. The world must be stopped, marking
/// complete (its fixpoint too), `holder` live.
pub fn clear_if_key_dead<D: Decode>(ctx: &MarkCtx<'_, D>, holder: usize, w0: u64) {
    let Some((k, v)) = ctx.layout.ephemeron(w0) else {
        return;
    };
    // SAFETY: the key slot of a live ephemeron; the world is stopped.
    let key = unsafe { mem::load(holder + k * WORD) } as usize;
    if is_ref(key) && !ctx.is_live(key) {
        // SAFETY: the key and value slots of the live ephemeron; the world is
        // stopped.
        unsafe {
            mem::store(holder + k * WORD, 0);
            mem::store(holder + v * WORD, 0);
        }
    }
}
