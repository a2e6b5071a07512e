//! Reference processing, at the end of marking, with the world stopped (the final
//! mark-end pause, or the one pause of a full cycle), in this order:
//! 1. **Resurrection** ([`resurrect`]): objects registered for finalization that
//!    marking did not reach move to their queue's ready list (a root) and go back to
//!    marking, which must then run again from them (another concurrent round, or
//!    more marking in the full pause).
//! 2. **Cleaners and weak references** ([`clear`]), once marking found nothing more:
//!    a cleaner whose object is dead queues its token; a weak field or weak handle
//!    whose referent is dead is cleared; an ephemeron whose key is dead has key and
//!    value cleared (`ephemeron.rs`). Both are decided and done inside one pause,
//!    so no mutator can read a weak reference between the two.
//!
//! The weak fields to look at are those of the objects marking scanned with weak
//! fields, and of objects a weak field was stored into while marking (the store
//! barrier notes them: an object allocated during marking is never scanned). Pause
//! time here grows with the number of weak references and registrations, not with
//! live data.
//!
//! It also owns the finalizer queues' shared state ([`QueueShared`]), which
//! `FinalizerQueue` (`finalize.rs`) wraps. Layer: collector (docs/architecture.md,
//! "Layers").

use super::heap_inner::HeapInner;
use super::mark::MarkCtx;
use crate::decode::Decode;
use crate::mem::{self, WORD};
use crate::object::is_ref;
use crate::safepoint::Stopped;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::Weak;

/// Moves the registered objects marking did not reach to their queues' ready lists;
/// returns them (marking must continue from them). Marking must be complete.
pub fn resurrect<D: Decode>(inner: &HeapInner, ctx: &MarkCtx<'_, D>) -> Vec<usize> {
    let mut found = Vec::new();
    for_each_queue(inner, |q| {
        q.watched.retain(|&obj| {
            let live = ctx.is_live(obj as usize);
            if !live {
                q.ready.push_back(obj);
                found.push(obj as usize);
            }
            live
        });
    });
    found
}

/// Queues the tokens of dead objects with cleaners, and clears weak fields and weak
/// handles whose referents are dead. Marking must be complete (resurrection too),
/// and the world stopped.
pub fn clear<D: Decode>(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
    ctx: &MarkCtx<'_, D>,
    holders: Vec<usize>,
) {
    for_each_queue(inner, |q| {
        let mut tokens = Vec::new();
        q.cleaners.retain(|&(obj, token)| {
            let live = ctx.is_live(obj as usize);
            if !live {
                tokens.push(token);
            }
            live
        });
        q.tokens.extend(tokens);
    });
    for holder in holders {
        if !ctx.is_live(holder) {
            continue;
        }
        // SAFETY: `holder` is a live object (the world is stopped): mapped.
        let w0 = unsafe { mem::load(holder) };
        super::ephemeron::clear_if_key_dead(ctx, holder, w0);
        let mut mask = ctx.layout.weak_mask(w0);
        while mask != 0 {
            let f = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let slot = holder + WORD * (1 + f);
            // SAFETY: `slot` is a weak field of the live object (its type's layout).
            let v = unsafe { mem::load(slot) } as usize;
            if is_ref(v) && !ctx.is_live(v) {
                // SAFETY: as above; the world is stopped.
                unsafe { mem::store(slot, 0) };
            }
        }
    }
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        unsafe { m.roots() }.for_each_weak_mut(|v| {
            if is_ref(*v as usize) && !ctx.is_live(*v as usize) {
                *v = 0;
            }
        });
    }
}

/// The roots finalization keeps: every queue's ready objects.
pub fn ready_roots(inner: &HeapInner) -> Vec<usize> {
    let mut roots = Vec::new();
    for_each_queue(inner, |q| roots.extend(q.ready.iter().map(|&v| v as usize)));
    roots
}

/// Rewrites every address the queues hold (ready, watched, cleaners) with
/// `forward`. The world must be stopped.
pub fn forward_queues(inner: &HeapInner, forward: impl Fn(usize) -> usize) {
    for_each_queue(inner, |q| {
        for v in q.ready.iter_mut().chain(q.watched.iter_mut()) {
            *v = forward(*v as usize) as u64;
        }
        for (v, _) in q.cleaners.iter_mut() {
            *v = forward(*v as usize) as u64;
        }
    });
}

/// A finalizer queue's state (`FinalizerQueue` in `finalize.rs`), shared with
/// the collector.
pub(crate) struct QueueShared {
    pub heap_id: u64,
    pub state: Mutex<QueueState>,
}

/// What a queue holds. Addresses are object addresses the collector keeps current.
#[derive(Default)]
pub(crate) struct QueueState {
    /// Objects registered for finalization: not roots.
    pub watched: Vec<u64>,
    /// Objects found unreachable and kept alive: roots, until polled.
    pub ready: VecDeque<u64>,
    /// Objects with a cleaner, and their tokens: not roots.
    pub cleaners: Vec<(u64, u64)>,
    /// Tokens of objects found unreachable.
    pub tokens: VecDeque<u64>,
}

/// Runs `f` on every live queue of `inner` (dropping dead ones from the list).
pub(crate) fn for_each_queue(inner: &HeapInner, mut f: impl FnMut(&mut QueueState)) {
    let mut queues = inner.queues.lock();
    queues.retain(|w: &Weak<QueueShared>| match w.upgrade() {
        Some(q) => {
            f(&mut q.state.lock());
            true
        }
        None => false,
    });
}
