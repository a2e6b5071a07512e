//! The concurrent cycle, phase by phase (run by the GC driver):
//!
//! 1. **mark-start pause** (`"mark-start"`): the mark boundary, the barrier on, a
//!    root scan left pending for every mutator (`concurrent_mark::start`). When the
//!    pacer starts the cycle, the mutator whose allocation triggered it has run
//!    this pause already, on its own thread (`concurrent_mark::start_pause`), and
//!    the driver goes on from there.
//! 2. **concurrent marking** on the GC workers, mutators running. A young cycle
//!    (`sticky.rs`) first passes over the old region, the last cycle's survivors,
//!    instead of tracing through it.
//! 3. **mark-end pause** (`"mark-end"`): pending roots and logged references,
//!    drained within a time budget; if more is left, back to 2. The sanity re-trace
//!    runs here when the heap verifies after every collection. The barrier goes off.
//! 4. **plan**, concurrent: new addresses and the per-page plan (`plan.rs`); then
//!    the extents that hold only garbage, and the free ones above the top, are
//!    moved out of the heap, so that the flip's `mremap` skips them (`park.rs`).
//! 5. **flip pause** (`"flip"`): globals and large objects forwarded, the heap
//!    moved, the emptied heap registered with userfaultfd (`flip.rs`).
//!
//! The driver offers the mark-end and flip pauses to the mutators: one at a GC point
//! runs each on its own thread (`pause_offer.rs`), else the driver does.
//! 6. **concurrent compaction** (`compaction.rs`), or nothing if the flip pause had
//!    to produce every page itself.
//! 7. **verification**, with `verify_after_gc`.
//!
//! Mutators allocate throughout: above the mark boundary from the mark-start pause
//! on (black allocation: live by definition, moved by one constant slide at the
//! flip), and into to-space once the flip has made room.

use super::bitmap::Bitmap;
use super::concurrent_mark::{self, MAX_ROUNDS};
use super::heap_inner::HeapInner;
use super::mark::{MarkCtx, OldRegionCards};
use super::{flip, plan, sanity, CycleOutcome, CyclePhase};
use crate::collect::root_table::MutatorShared;
use crate::config::CyclePoint;
use crate::decode::Kind;
use crate::fatal::AbortOnUnwind;
use crate::inject::InjectPoint;
use crate::mem::WORD;
use crate::pacer::Reason;
use std::sync::Arc;

/// Runs cycle `n`, requested for `reason`; `premarked` is the mark boundary and
/// the stopped mutators if a mutator ran its mark-start pause.
pub fn run(
    inner: &Arc<HeapInner>,
    n: u64,
    reason: Reason,
    premarked: Option<(usize, Vec<Arc<MutatorShared>>)>,
) -> CycleOutcome {
    let fatal = AbortOnUnwind::new("the mark-start pause");
    let hook = |point| {
        if let Some(h) = &inner.config.cycle_hook {
            (h.0)(point);
        }
    };

    // 1. mark-start pause (unless a mutator ran it), then the roots it left
    let boundary = match premarked {
        Some((boundary, stopped)) => {
            concurrent_mark::scan_after_start(inner, &stopped);
            boundary
        }
        None => concurrent_mark::start(inner, n),
    };

    // 2-3. concurrent marking rounds, each ended by a mark-end pause
    fatal.phase("concurrent marking");
    hook(CyclePoint::Marking);
    let mut st = inner.collector.lock();
    // Young or full (`sticky.rs`): decided now, after the mark-start pause, so that
    // a full collection asked for before that pause gets this cycle.
    let full_wanted =
        !matches!(reason, Reason::Pacer | Reason::AfterBytes) || inner.driver.full_wanted(n);
    // Against the soft limit (the capacity, unless the heap is growable): the
    // limit follows the last cycle's live bytes, old garbage included, and must
    // not ratchet up on it.
    let old_end = st.sticky.young_old_end(
        inner.config.young_cycles,
        full_wanted,
        inner.base,
        inner.pacer.limit(),
    );
    let young = old_end.is_some();
    // A young cycle reads the stable part of the old region by its cards
    // (`old_cards.rs`) where the starts table can name every word.
    let carded = young && super::old_cards::OldCards::usable((inner.end - inner.base) / WORD);
    if !young {
        // A full marking starts from clear bitmaps (`sticky.rs`, invariant 6).
        st.forget_kept_bits();
    }
    let cards = carded.then(|| OldRegionCards {
        table: &inner.cards,
        old: &st.old_cards,
        stable_end: inner.base + WORD * st.sticky.stable_words,
    });
    // Marking, instantiated for the heap's model (`dispatch.rs`).
    let rounds = (inner.dispatch.concurrent_mark)(
        inner,
        &fatal,
        (&st.mark, &st.live),
        boundary,
        old_end,
        cards,
    );

    let marked_at = std::time::Instant::now();

    // 4. plan, concurrent
    fatal.phase("the concurrent plan");
    hook(CyclePoint::Planning);
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let mut plan = plan::build(
        &mut st,
        inner.base,
        boundary,
        page / WORD,
        // No dense prefix on a model heap: its old pages move out of from-space
        // while later pages may still need a VM object's header words from them
        // (the plan keeps only word 0 of each page's first object).
        inner.model.is_none(),
    );
    if carded {
        // The dense prefix's stable pages with no swept card: forwarded only if
        // a card of theirs is dirty when they are produced (`fill.rs`).
        plan.dense.clean =
            st.old_cards
                .clean_pages(plan.dense.pages, page / WORD, st.sticky.stable_words);
    }
    let live_bytes = plan.live_words * WORD;
    // The survivors, compacted, are the next cycle's old region.
    st.sticky.planned(young, inner.base, plan.live_words);
    drop(st);
    let uffd = open_userfault(inner);
    #[cfg(target_os = "linux")]
    if uffd.is_some() {
        super::compaction::Scratch::prepare(&inner.compaction_scratch, inner.config.capacity);
        // 4b. garbage-only and free extents out of the heap, concurrent
        fatal.phase("parking dead extents");
        super::park::park_dead(inner, &plan, boundary);
    }

    // 5. flip pause
    hook(CyclePoint::Flipping);
    fatal.phase("the flip pause");
    let (flipped, min_free, allocated_total_at_flip) = inner
        .pause_offer
        .run(&**inner, |me| {
            flip::pause(inner, n, boundary, plan, uffd, me)
        })
        .finish(inner);
    let flipped_at = std::time::Instant::now();

    // 6. concurrent compaction
    #[cfg(target_os = "linux")]
    if let flip::Flipped::Concurrent(compaction) = flipped {
        hook(CyclePoint::Compacting);
        fatal.phase("concurrent compaction");
        compaction.run(inner.config.concurrent_workers);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = flipped;
    debug_assert_eq!(*inner.cycle.lock(), CyclePhase::Idle);

    // 6b. the card sweep, for the next cycle (`old_cards.rs`): the survivors
    // are in place now.
    {
        let mut st = inner.collector.lock();
        let stable = st.sticky.stable_words.div_ceil(crate::cards::CARD_WORDS);
        let old = (st.sticky.old_end.saturating_sub(inner.base) / WORD)
            .div_ceil(crate::cards::CARD_WORDS);
        st.old_cards.sweep(&inner.cards, stable, old);
    }

    // 7. verification
    if inner.config.verify_after_gc {
        fatal.phase("heap verification after a collection");
        super::verify::verify_now(inner);
    }
    CycleOutcome {
        marked_at,
        flipped_at,
        live_bytes,
        min_free,
        allocated_total_at_flip,
        mark_rounds: rounds,
        young,
    }
}

/// Concurrent marking of `[base, boundary)` into `(mark, live)` (the old region
/// below `old_end` live by definition in a young cycle, its stable part read by
/// `cards` where given: [`MarkCtx::with_old_region`]): rounds of concurrent
/// markers, each ended by a mark-end pause, until one finishes marking; returns
/// the number of rounds. `collector` is locked. Instantiated per model
/// ([`Dispatch`]): its loops decode objects with `K`'s decoder, statically.
///
/// [`Dispatch`]: super::dispatch::Dispatch
pub(crate) fn mark_phase<K: Kind>(
    inner: &Arc<HeapInner>,
    fatal: &AbortOnUnwind,
    (mark, live): (&Bitmap, &Bitmap),
    boundary: usize,
    old_end: Option<usize>,
    cards: Option<OldRegionCards<'_>>,
) -> u32 {
    let young = old_end.is_some();
    let mut rounds = 0;
    let workers = inner.config.concurrent_workers;
    let ctx = MarkCtx::new(
        K::narrow(inner.decoder()),
        inner.base,
        boundary,
        inner.end,
        (mark, live),
        &inner.los_marks,
        inner.config.gc_thread_priority,
    )
    .with_old_region(old_end.unwrap_or(inner.base), cards);
    // With one worker, all marking of this cycle goes through `ctx`, one thread
    // at a time: a round with one worker marks on the calling thread and spawns
    // none; a mark-end pause drains (and resurrects) on this thread or on the
    // mutator that took it from the offer, while this thread waits for it, the
    // offer's lock ordering the marks both ways (`pause_offer.rs`); otherwise
    // mutators never mark (their barrier logs references for the markers), and
    // `collector` stays locked, so no other collection marks into these bitmaps.
    let ctx = if workers == 1 {
        // SAFETY: one thread at a time marks through `ctx`, each hand-off
        // ordered by a lock (above).
        unsafe { ctx.single_marker() }
    } else {
        ctx
    };
    let mut round = 1;
    loop {
        rounds += 1;
        fatal.phase("concurrent marking");
        concurrent_mark::round(
            &ctx,
            &inner.intake,
            &inner.inject,
            workers,
            young && rounds == 1,
        );
        fatal.phase("the mark-end pause");
        // Offered to the mutators; `ctx` marks on whichever thread runs it, the
        // offer's lock ordering those marks after this thread's and before its
        // next ones (`single_marker`'s contract).
        let done = inner.pause_offer.run(&**inner, |me| {
            concurrent_mark::end(inner, &ctx, round, me, |pause| {
                if inner.config.verify_after_gc {
                    sanity::check_marking(inner, &pause.stopped, &ctx);
                }
            })
        });
        if done {
            break;
        }
        round = (round + 1).min(MAX_ROUNDS);
    }
    rounds
}

/// A userfaultfd descriptor for the flip, opened outside the pause; `None` where
/// the heap cannot compact concurrently (or the open fails, really or injected). In
/// SIGBUS mode it is opened with `UFFD_FEATURE_SIGBUS`, unless the process's `SIGBUS`
/// handler is no longer ours (an embedder replaced it) or the open fails: then this
/// compaction uses the fault server.
fn open_userfault(inner: &HeapInner) -> Option<flipgc_heap::Userfault> {
    if !inner.concurrent {
        return None;
    }
    if inner.inject.cycle(InjectPoint::UffdOpen) {
        tracing::warn!("userfaultfd open failed (injected), compacting in the pause");
        return None;
    }
    #[cfg(target_os = "linux")]
    if inner.sigbus_slot.is_some() {
        if !crate::sigbus::still_installed() {
            tracing::warn!(
                "the SIGBUS handler was replaced since the heap was made: this compaction's \
                 faults go to the fault server"
            );
        } else {
            match flipgc_heap::Userfault::open_sigbus() {
                Ok(u) => return Some(u),
                Err(e) => tracing::warn!(
                    "userfaultfd in SIGBUS mode did not open ({e}): this compaction's faults \
                     go to the fault server"
                ),
            }
        }
    }
    flipgc_heap::Userfault::open().ok()
}
