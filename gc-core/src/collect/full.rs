//! The one-pause cycle (`"full"`), phase by phase, with the world stopped throughout
//! (run by the GC driver): the reference path, where `concurrent_marking` is off.
//!
//! stop -> mark (parallel, from every root) -> plan (prefix sums, per-page table)
//! -> roots (rewritten to new addresses, large objects' fields too) -> flip (heap
//! pages to from-space, recycling from-space's) -> compact (every to-space page
//! produced from from-space, in parallel) -> release (dead large objects freed,
//! from-space kept or released, the top reset, the tables handed back) -> verify.

use super::bitmap::Bitmap;
use super::ephemeron::mark_to_fixpoint;
use super::fill::{FillTables, Layout};
use super::heap_inner::HeapInner;
use super::mark::MarkCtx;
use super::pause::{Details, Pause};
use super::release::{self, Tables};
use super::{flip, plan, refs, roots, CycleOutcome};
use crate::decode::Kind;
use crate::fatal::AbortOnUnwind;
use crate::mem::WORD;
use crate::pauselog::FlipSummary;
use crate::safepoint::Stopped;
use std::sync::Arc;

/// Runs cycle `n`.
pub fn run(inner: &Arc<HeapInner>, n: u64) -> CycleOutcome {
    let fatal = AbortOnUnwind::new("a full collection pause");
    let mut p = Pause::stop(inner, "full");
    p.phase("stop");
    inner.driver.started(n);
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let mut space = inner.space.lock();
    let mut from = inner.from_space.lock();
    let mut los = inner.los.lock();
    let mut st = inner.collector.lock();
    let mut globals = inner.globals.lock();
    let (base, top) = (space.base(), space.top);
    let min_free = space.min_free.min(space.end() - top);
    let allocated_total_at_flip = space.allocated_total;

    p.phase("mark");
    // Marking starts from clear bitmaps: a young cycle's kept bits go.
    st.forget_kept_bits();
    let roots = roots::gather(inner, &p.stopped, &globals);
    // Marking, instantiated for the heap's model (`dispatch.rs`).
    (inner.dispatch.full_mark)(inner, &p.stopped, &roots, (&st.mark, &st.live), base, top);

    p.phase("plan");
    let plan = plan::build(&mut st, base, top, page / WORD, false);
    // Always full; no old region for a later cycle (`sticky.rs`).
    st.sticky = super::sticky::Sticky::default();

    p.phase("roots");
    let layout = Layout {
        base,
        from: inner.from_base,
        top_word: plan.top_word,
        live_words: plan.live_words,
        page_words: page / WORD,
        boundary: inner.end,
        flip_top: inner.end,
        slide: 0,
    };
    let (live_words, live_objects) = (plan.live_words, plan.live_objects);
    let tables = FillTables::new(Tables::take(&mut st), plan.fwd, Vec::new(), plan.dense);
    let fill = tables.ctx(inner, &layout);
    // Unlinked only: their memory goes back after the pause. Swept first, so that
    // only the live large objects' fields are forwarded.
    let dead = los.sweep(|_| false);
    roots::forward_all(inner, &p.stopped, &mut globals, &los, &fill);

    p.phase("flip");
    let moved = flip::move_recycling(inner, &mut space, &mut from, top - base);

    p.phase("compact");
    fill.fill_all(inner.config.gc_workers);

    p.phase("release");
    let new_top = base + live_words * WORD;
    release::reset_space(
        &mut space,
        new_top,
        live_words * WORD,
        base + moved.heap_dirty,
    );
    release::from_space(
        &mut from,
        inner.config.recycle_from_space,
        moved.from_populated,
    );
    inner
        .hashes
        .lock()
        .rekey(|v| fill.survivor(v, &inner.los_marks));
    tables.into_tables().hand_back(&mut st, plan.top_word);
    let details = Details {
        live: (live_words * WORD, live_objects),
        los: (los.used(), dead.bytes()),
        flip: Some(FlipSummary::of(&moved.report)),
    };
    drop((space, from, los, st, globals));
    inner.driver.flipped(n);
    p.end(details);
    release::large_objects(inner, dead);
    let flipped_at = std::time::Instant::now();

    if inner.config.verify_after_gc {
        fatal.phase("heap verification after a collection");
        super::verify::verify_now(inner);
    }
    CycleOutcome {
        marked_at: flipped_at,
        flipped_at,
        live_bytes: live_words * WORD,
        min_free,
        allocated_total_at_flip,
        mark_rounds: 0,
        young: false,
    }
}

/// The marking phase, from `roots`, of the moving space's `[base, top)` into
/// `(mark, live)`: the parallel closure with the ephemerons' fixpoint, before and
/// after each resurrection, then the weak fields cleared. The world is stopped
/// and `collector` locked. Instantiated per model ([`Dispatch`]): its loops
/// decode objects with `K`'s decoder, statically.
///
/// [`Dispatch`]: super::dispatch::Dispatch
pub(crate) fn mark_phase<K: Kind>(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
    roots: &[usize],
    (mark, live): (&Bitmap, &Bitmap),
    base: usize,
    top: usize,
) {
    let ctx = MarkCtx::new(
        K::narrow(inner.decoder()),
        base,
        top,
        top,
        (mark, live),
        &inner.los_marks,
        inner.config.gc_thread_priority,
    );
    let ctx = if inner.config.gc_workers <= 1 {
        // SAFETY: every mark of this pause is made through `ctx` by `mark` below,
        // which with one worker marks on this thread only (`collector` is locked:
        // no other collection marks into these bitmaps).
        unsafe { ctx.single_marker() }
    } else {
        ctx
    };
    let mut holders = Vec::new();
    // Marking includes the ephemerons' fixpoint (`ephemeron.rs`), before and
    // after each resurrection.
    mark_to_fixpoint(&ctx, roots, inner.config.gc_workers, &mut holders);
    loop {
        let back = refs::resurrect(inner, &ctx);
        if back.is_empty() {
            break;
        }
        mark_to_fixpoint(&ctx, &back, inner.config.gc_workers, &mut holders);
    }
    refs::clear(inner, stopped, &ctx, holders);
}
