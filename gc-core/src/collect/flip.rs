//! The flip: moving the heap's pages to from-space, with one `mremap` at the best
//! level (or a copy where the kernel cannot), and the concurrent cycle's flip pause
//! around it.
//!
//! **Recycling** (the one-pause cycle): from-space's present pages, the previous heap
//! image, are parked in a scratch span before the flip and moved into the emptied
//! heap after it, so compaction writes into present pages instead of faulting
//! (page faults are expensive here). Both are `MREMAP_DONTUNMAP` moves at the flip's
//! own level. The concurrent cycle recycles at the end of its compaction instead
//! (`compaction.rs`).

use super::fill::Layout;
use super::heap_inner::HeapInner;
use super::pause::{Details, Pause};
use super::plan::Plan;
use super::release::{self, Tables};
use super::{park, roots, CyclePhase};
use crate::inject::InjectPoint;
use crate::mem::WORD;
use crate::pauselog::FlipSummary;
use crate::space::moving::{FromSpace, MovingSpace};
use flipgc_flip::{FlipReport, SourceState};
use std::sync::Arc;

/// Moves `src`'s pages into `dst` (both spans of the moving space); false if the
/// kernel refused (the caller then does without recycling this time).
fn park(src: &mut flipgc_heap::Span, dst: &mut flipgc_heap::Span) -> bool {
    #[cfg(target_os = "linux")]
    {
        src.move_to(dst).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (src, dst);
        false
    }
}

/// What a recycling flip did.
pub struct Moved {
    /// The flip engine's report.
    pub report: FlipReport,
    /// How far the heap may hold present, non-zero pages after the flip (bytes).
    pub heap_dirty: usize,
    /// How far from-space holds present pages after the flip (bytes).
    pub from_populated: usize,
}

/// The one-pause cycle's flip: moves the used heap (`used` bytes) to from-space,
/// recycling from-space's pages into the heap where possible. The world is stopped.
pub fn move_recycling(
    inner: &HeapInner,
    moving: &mut MovingSpace,
    from: &mut FromSpace,
    used: usize,
) -> Moved {
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let base = moving.base();
    let used_pages = used.next_multiple_of(page);
    // How far the heap may hold present, non-zero pages (objects, or recycled garbage
    // not yet carved again), and the same for from-space.
    let heap_extent = ((base + used).max(moving.dirty_end) - base).next_multiple_of(page);
    let prev_from = from.populated;
    // A copying flip writes into from-space's present pages as they are: parking
    // them would leave it to fault fresh pages in for the whole copy.
    let parked = inner.config.recycle_from_space
        && inner.config.flip != crate::config::FlipMode::Copy
        && prev_from > 0
        && park(&mut from.span, &mut from.scratch);
    let report = inner
        .flipper_for_this_flip()
        .flip_used(&mut moving.heap, &mut from.span, used)
        .expect("flipping two equal, disjoint spans");
    let moved = report.source != SourceState::Intact;
    let recycled = parked && moved && park(&mut from.scratch, &mut moving.heap);
    if parked && !recycled {
        from.scratch.release(0, prev_from).expect("release scratch");
    }
    // A move takes the heap's pages to from-space (and brings the parked ones into
    // the heap); a copy leaves the heap as it was and writes the used prefix into
    // from-space (emptied by the park, or as it was).
    let (heap_dirty, from_populated) = match (moved, recycled, parked) {
        (true, true, _) => (prev_from, heap_extent),
        (true, false, _) => (0, heap_extent),
        (false, _, true) => (heap_extent, used_pages),
        (false, _, false) => (heap_extent, prev_from.max(used_pages)),
    };
    Moved {
        report,
        heap_dirty,
        from_populated,
    }
}

/// A concurrent cycle after its flip pause.
pub enum Flipped {
    /// Pages are filled concurrently: run the compaction.
    #[cfg(target_os = "linux")]
    Concurrent(Arc<super::compaction::Compaction>),
    /// Every page was produced inside the pause; the cycle is over.
    InPause,
}

/// What a flip pause leaves, for the driver to finish ([`FlipOutcome::finish`]).
#[must_use = "the driver must finish what the flip pause left"]
pub struct FlipOutcome {
    flipped: Flipped,
    min_free: usize,
    allocated_total: u64,
    /// Mutators whose root forwarding may still be pending.
    pending_roots: Vec<Arc<crate::collect::root_table::MutatorShared>>,
    /// Large objects found dead, unlinked in the pause.
    dead: crate::space::los::Dead,
}

impl FlipOutcome {
    /// After the pause, on the driver (a mutator that ran the pause goes straight
    /// back to its work): forwards the roots of mutators that have not resumed yet
    /// (parked or blocking; resuming ones do their own) and frees the dead large
    /// objects. Returns whether a concurrent compaction follows, the least free
    /// memory the moving space had during the cycle, and the bytes allocated in it
    /// ever, at the flip.
    pub fn finish(self, inner: &HeapInner) -> (Flipped, usize, u64) {
        for m in &self.pending_roots {
            m.fix_pending();
        }
        release::large_objects(inner, self.dead);
        (self.flipped, self.min_free, self.allocated_total)
    }
}

/// Cycle `n`'s flip pause, after the plan of the marked region below `boundary`:
/// forwards the globals, sweeps dead large objects (and leaves the live ones'
/// fields pending, `large.rs`),
/// moves the heap (objects allocated since the mark-start pause, above `boundary`,
/// move down by one constant slide), registers the emptied heap with userfaultfd
/// (`uffd`, opened during the plan), and leaves every mutator its root forwarding.
/// Where the heap cannot be filled on demand (the flip copied, no live data, no
/// userfaultfd, registration failed), it produces every page itself and forwards
/// every root, and the cycle ends here. `me` coordinates the stop: the driver, or
/// the mutator that took the pause (`pause_offer.rs`).
pub fn pause(
    inner: &Arc<HeapInner>,
    n: u64,
    boundary: usize,
    plan: Plan,
    uffd: Option<flipgc_heap::Userfault>,
    me: u64,
) -> FlipOutcome {
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let mut p = Pause::stop_as(inner, "flip", me);
    p.phase("roots");
    let mut space = inner.space.lock();
    let mut from = inner.from_space.lock();
    let mut los = inner.los.lock();
    let mut st = inner.collector.lock();
    let mut globals = inner.globals.lock();
    let base = space.base();
    let flip_top = space.top;
    let min_free = space.min_free.min(space.end() - flip_top);
    let allocated_total = space.allocated_total;
    let compacted_end = base + st.page_first.len() * page;
    let black = flip_top > boundary;
    let tables = Tables::take(&mut st);
    let layout = Layout {
        base,
        from: inner.from_base,
        top_word: plan.top_word,
        live_words: plan.live_words,
        page_words: page / WORD,
        boundary,
        flip_top,
        slide: if black { boundary - compacted_end } else { 0 },
    };
    let black_starts = space.black_carves.take().unwrap_or_default();
    let tables = super::fill::FillTables::new(tables, plan.fwd, black_starts, plan.dense);
    let (pages, new_top) = {
        let fill = tables.ctx(inner, &layout);
        // Mutators' own roots are forwarded after the pause, unless the compaction
        // ends up inside it; so are the live large objects' fields (`large.rs`).
        roots::forward_globals(inner, &mut globals, &fill);
        (fill.pages(), fill.new_top())
    };
    p.phase("large-objects");
    los.black = false;
    // Unlinked only: their memory goes back after the pause. The live ones with
    // reference fields are left pending: forwarded by whichever thread touches
    // each first (`large.rs`), at the latest by the compaction as it starts; or,
    // if the compaction ends up inside this pause, by it.
    let dec = inner.decoder();
    let dead = los.sweep(|addr| {
        // SAFETY: a live large object's header is mapped and immutable.
        dec.has_ref_fields(addr, unsafe { crate::mem::load(addr) })
    });

    p.phase("flip");
    let moving = &mut *space;
    let used = flip_top - base;
    let heap_extent = (flip_top.max(moving.dirty_end) - base).next_multiple_of(page);
    let report = inner
        .flipper_for_this_flip()
        .flip_used(&mut moving.heap, &mut from.span, used)
        .expect("flipping two equal, disjoint spans");
    let moved = report.source != SourceState::Intact;

    p.phase("register");
    let registered = match uffd {
        Some(u) if moved && pages > 0 && inner.concurrent => register(inner, u, base, moving),
        _ => None,
    };
    if registered.is_some() {
        no_huge_faults(moving);
    }

    // The rest of the pause, timed apart from the registration: the space's new
    // top, and on the concurrent path the compaction built, published and left to
    // every mutator (nothing here can wait for the resumed world: the mutators
    // need all of it before their first access to the heap).
    p.phase("handoff");
    // The move emptied the whole span: above the new top it reads as zeros, unless
    // the in-pause fallback below leaves the old image there (the heap was copied).
    let dirty_end = if registered.is_some() {
        new_top
    } else {
        base + heap_extent
    };
    let live_bytes = plan.live_words * WORD;
    release::reset_space(moving, new_top, live_bytes, dirty_end);
    let details = Details {
        live: (new_top - base, plan.live_objects),
        los: (los.used(), dead.bytes()),
        flip: Some(FlipSummary::of(&report).with_parked(from.parked.bytes())),
    };

    // Identity hashes are re-keyed to the new addresses: right after this pause if
    // compaction runs concurrently (the table stays locked until then, so no
    // mutator sees a stale key), or in it.
    let mut hashes = inner.hashes.lock();

    #[cfg(target_os = "linux")]
    if let Some(uffd) = registered {
        let mutators = p.stopped.mutators.clone();
        let scratch = inner
            .compaction_scratch
            .lock()
            .take()
            .expect("prepared before the pause");
        let compaction = Arc::new(
            super::compaction::Compaction::new(
                Arc::clone(inner),
                tables,
                layout,
                (inner.end, moving.heap.end(), heap_extent),
                uffd,
                mutators.clone(),
                (scratch, park::take(&mut from)),
            )
            .in_young_cycle(st.sticky.young_in_a_row > 0),
        );
        // SIGBUS mode: handlers find it from now on (no mutator runs yet).
        compaction.publish();
        // The forwarder of the large objects left pending by the sweep.
        super::large::publish(
            inner,
            Arc::clone(&compaction) as Arc<dyn super::large::ForwardFields>,
        );
        for m in &mutators {
            m.set_pending_forward(
                Arc::clone(&compaction) as Arc<dyn crate::collect::root_table::RootTask>
            );
        }
        *inner.cycle.lock() = CyclePhase::Compacting;
        drop((space, from, los, st, globals));
        inner.driver.flipped(n);
        p.end(details);
        hashes.rekey(|v| compaction.survivor(v));
        drop(hashes);
        return FlipOutcome {
            flipped: Flipped::Concurrent(compaction),
            min_free,
            allocated_total,
            pending_roots: mutators,
            dead,
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = registered;

    // In-pause fallback: every root, the large objects' fields and every page now,
    // in place.
    p.phase("compact");
    {
        let fill = tables.ctx(inner, &layout);
        for m in &p.stopped.mutators {
            // SAFETY: the world is stopped: the collector owns every mutator's roots.
            roots::forward_table(unsafe { m.roots() }, &fill);
        }
        roots::forward_large_objects(&los, &fill);
        fill.fill_all(inner.config.gc_workers);
        hashes.rekey(|v| fill.survivor(v, &inner.los_marks));
    }
    drop(hashes);
    p.phase("release");
    let populated = from.populated.max(used.next_multiple_of(page));
    release::from_space(&mut from, inner.config.recycle_from_space, populated);
    tables.into_tables().hand_back(&mut st, layout.top_word);
    *inner.cycle.lock() = CyclePhase::Idle;
    drop((space, from, los, st, globals));
    inner.driver.flipped(n);
    p.end(details);
    // Parked extents are garbage nobody recycles now: freed, after the pause.
    park::release(&mut inner.from_space.lock());
    FlipOutcome {
        flipped: Flipped::InPause,
        min_free,
        allocated_total,
        pending_roots: Vec::new(),
        dead,
    }
}

/// Turns the heap span's THP advice to `MADV_NOHUGEPAGE` (once: the span keeps it).
///
/// A write fault on an empty 2 MiB range of a span advised `MADV_HUGEPAGE` makes
/// the kernel allocate and zero a whole huge page first, and only then see that
/// the span is registered with userfaultfd, drop the page, and report the fault.
/// After the flip every range of the heap is empty, so the first touch of each one
/// during compaction (a mutator reading an unfilled page, or allocating past the
/// compacted end) cost a wasted 2 MiB zeroing before the fault reached its handler
/// (about 0.7 s of the mutator's CPU in a GCBench run at 1 GiB, unseen by the fault
/// stall, which starts in the handler). The same holds for a span with no advice
/// where the system's THP mode is `always`. Compaction installs base pages anyway,
/// so the huge pages are gone after the first cycle; the pre-touch before it keeps
/// them. From then on, fresh memory faulted in between compactions (rare: recycling
/// keeps the span populated) comes in base pages too, and from-space takes the
/// advice over with the heap's pages at the next flip (nothing faults there).
fn no_huge_faults(moving: &mut MovingSpace) {
    if moving.heap.thp() != flipgc_heap::Thp::NoHuge {
        // One flag change on the span's one mapping: it stays one mapping.
        if let Err(e) = moving.heap.set_thp(flipgc_heap::Thp::NoHuge) {
            tracing::warn!("MADV_NOHUGEPAGE on the heap failed: {e}");
        }
    }
}

/// Registers the emptied heap span with userfaultfd (MISSING mode), unless
/// registration fails (really, or injected): then `None`, and the flip pause
/// compacts in place.
fn register(
    inner: &HeapInner,
    u: flipgc_heap::Userfault,
    base: usize,
    moving: &MovingSpace,
) -> Option<flipgc_heap::Userfault> {
    // The whole span, not just the pages compaction produces: registering part of
    // it would split its mapping for good (the parts never merge again), and the
    // next flip could then no longer move it at PUD level.
    let result = if inner.inject.cycle(InjectPoint::UffdRegister) {
        Err("injected failure".to_string())
    } else {
        u.register_missing(base, moving.heap.len())
            .map_err(|e| e.to_string())
    };
    match result {
        Ok(()) => Some(u),
        Err(e) => {
            tracing::warn!("userfaultfd registration failed, compacting in the pause: {e}");
            None
        }
    }
}
