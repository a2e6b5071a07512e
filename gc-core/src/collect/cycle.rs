//! The full collection pause, phase by phase:
//!
//! stop (retire TLABs) -> mark -> plan (prefix sums, per-page table) -> roots
//! (rewrite to new addresses) -> flip (heap pages to from-space, one mremap or a
//! copy) -> compact (produce every to-space page from from-space, in parallel) ->
//! release (free dead large objects, give from-space's memory back, reset the top).
//!
//! Runs on the coordinating mutator's thread with the world stopped.

use super::compact::{plan_pages, BlackPages, FillCtx, Layout};
use super::forward::Forwarding;
use super::mark::{mark, MarkCtx};
use super::CollectorState;
use crate::heap::{Heap, HeapInner};
use crate::mem::{self, WORD};
use crate::pauselog::{FlipSummary, PauseRecord};
use crate::roots::GlobalTable;
use crate::safepoint::Stopped;
use crate::space::los::Los;
use flipgc_flip::SourceState;
use std::time::Instant;

/// Times the phases in order; each phase runs inside a `tracing` span of its name.
struct Phases {
    last: Instant,
    list: Vec<(&'static str, u64)>,
    span: Option<tracing::span::EnteredSpan>,
}

impl Phases {
    /// Starts phase `name` (the previous one must have been ended with `lap`).
    fn begin(&mut self, name: &'static str) {
        self.span = Some(tracing::info_span!("phase", name).entered());
    }

    /// Ends the current phase, recording its duration under `name`.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.list.push((name, (now - self.last).as_nanos() as u64));
        self.last = now;
        self.span = None;
    }
}

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

/// Marks everything reachable from the roots (every mutator's, the globals) into
/// `st`'s bitmaps and the large objects' marks. The world must be stopped.
pub(super) fn mark_from_roots(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
    st: &CollectorState,
    los: &Los,
    globals: &GlobalTable,
    top: usize,
) {
    stopped.fix_pending_roots();
    let mut roots = Vec::new();
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        unsafe { m.roots() }.for_each_mut(|r| roots.push(*r as usize));
    }
    roots.extend(globals.slots.iter().map(|r| *r as usize));
    roots.retain(|r| *r != 0);
    let ctx = MarkCtx {
        types: &inner.types,
        base: inner.base,
        top,
        mark: &st.mark,
        live: &st.live,
        los,
    };
    mark(&ctx, &roots, inner.config.gc_workers);
}

/// Rewrites every root (mutators', globals) and every reference field of a live
/// large object to the new addresses. The world must be stopped.
pub(super) fn forward_roots(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
    globals: &mut GlobalTable,
    los: &Los,
    fill: &FillCtx<'_>,
) {
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        forward_table(unsafe { m.roots() }, fill);
    }
    forward_shared_roots(inner, globals, los, fill);
}

/// Rewrites one mutator's roots.
pub(super) fn forward_table(roots: &mut crate::roots::RootTable, fill: &FillCtx<'_>) {
    roots.for_each_mut(|r| {
        if *r != 0 {
            *r = fill.forward(*r as usize) as u64;
        }
    });
}

/// Rewrites the globals and every reference field of a live large object. The world
/// must be stopped.
pub(super) fn forward_shared_roots(
    inner: &HeapInner,
    globals: &mut GlobalTable,
    los: &Los,
    fill: &FillCtx<'_>,
) {
    let forward = |r: &mut u64| {
        if *r != 0 {
            *r = fill.forward(*r as usize) as u64;
        }
    };
    globals.slots.iter_mut().for_each(forward);
    // Large objects do not move, but their references into the moving space must.
    for (addr, obj) in los.iter().filter(|(_, o)| o.is_marked()) {
        // SAFETY: a live large object's header is mapped; the world is stopped.
        let h = crate::object::Header(unsafe { mem::load(addr) });
        inner.types.for_each_ref_field(h, |f| {
            let slot = addr + WORD * (1 + f);
            // SAFETY: `slot` is a field of the large object (registry shape, `obj.words`).
            unsafe { mem::store(slot, fill.forward(mem::load(slot) as usize) as u64) };
        });
        debug_assert!(obj.words >= 1);
    }
}

/// Runs one full collection. Panics if the heap is found broken (a verifier
/// failure with `verify_after_gc`, or a reference to no object).
pub fn collect(heap: &Heap, stopped: &Stopped<'_>) {
    let inner = &heap.inner;
    let start = Instant::now();
    let fatal = crate::fatal::AbortOnUnwind::new("a full collection pause");
    let span = tracing::info_span!("gc", kind = "full");
    let _enter = span.enter();
    let mut ph = Phases {
        last: start,
        list: Vec::with_capacity(8),
        span: None,
    };
    ph.begin("stop");

    // stop: the world is stopped; make the heap walkable.
    let mut space = inner.space.lock();
    let mut los = inner.los.lock();
    let mut st = inner.collector.lock();
    let mut globals = inner.globals.lock();
    ph.lap("stop");
    ph.begin("mark");

    // mark
    let (base, top) = (space.base(), space.top);
    let top_word = (top - base) / WORD;
    mark_from_roots(inner, stopped, &st, &los, &globals, top);
    ph.lap("mark");
    ph.begin("plan");

    // plan
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let page_words = page / WORD;
    let fwd = Forwarding::build(&st.live, top_word.div_ceil(64));
    let live_words = fwd.total_live_words();
    let mut page_first = std::mem::take(&mut st.page_first);
    let live_objects = plan_pages(
        &st.mark,
        &inner.types,
        base,
        top_word,
        page_words,
        live_words,
        &mut page_first,
    );
    st.page_first = page_first;
    ph.lap("plan");
    ph.begin("roots");

    // roots
    let fill = FillCtx {
        types: &inner.types,
        mark: &st.mark,
        live: &st.live,
        fwd: &fwd,
        page_first: &st.page_first,
        at: Layout {
            base,
            from: inner.from_base,
            top_word,
            live_words,
            page_words,
            boundary: inner.end,
            flip_top: inner.end,
            slide: 0,
        },
        black: &BlackPages::default(),
    };
    forward_roots(inner, stopped, &mut globals, &los, &fill);
    ph.lap("roots");
    ph.begin("flip");

    // flip: heap pages to from-space. With recycling, from-space's present pages
    // (the previous heap image) are parked in scratch first and moved into the
    // emptied heap after, so compaction writes into present pages.
    let moving = &mut *space;
    let used = top - base;
    let used_pages = used.next_multiple_of(page);
    // How far the heap may hold present, non-zero pages (objects, or recycled garbage
    // not yet carved again), and the same for from-space.
    let heap_extent = (top.max(moving.dirty_end) - base).next_multiple_of(page);
    let prev_from = moving.from_populated;
    // A copying flip writes into from-space's present pages as they are: parking
    // them would leave it to fault fresh pages in for the whole copy.
    let parked = inner.config.recycle_from_space
        && inner.config.flip != crate::config::FlipMode::Copy
        && prev_from > 0
        && park(&mut moving.from, &mut moving.scratch);
    let report = inner
        .flipper_for_this_flip()
        .flip_used(&mut moving.heap, &mut moving.from, used)
        .expect("flipping two equal, disjoint spans");
    let moved = report.source != SourceState::Intact;
    let recycled = parked && moved && park(&mut moving.scratch, &mut moving.heap);
    if parked && !recycled {
        moving
            .scratch
            .release(0, prev_from)
            .expect("release scratch");
    }
    // Extents after the flip. A move takes the heap's pages to from-space (and brings
    // the parked ones into the heap); a copy leaves the heap as it was and writes the
    // used prefix into from-space (emptied by the park, or as it was).
    let (heap_dirty, from_now) = match (moved, recycled, parked) {
        (true, true, _) => (prev_from, heap_extent),
        (true, false, _) => (0, heap_extent),
        (false, _, true) => (heap_extent, used_pages),
        (false, _, false) => (heap_extent, prev_from.max(used_pages)),
    };
    ph.lap("flip");
    ph.begin("compact");

    // compact
    fill.fill_all(inner.config.gc_workers);
    ph.lap("compact");
    ph.begin("release");

    // release: the heap above the new top may hold recycled or copied garbage; it
    // stays populated and is zeroed as it is carved again (invariant Z).
    let new_top = base + live_words * WORD;
    moving.dirty_end = (base + heap_dirty).max(new_top).min(moving.heap.end());
    if inner.config.recycle_from_space {
        moving.from_populated = from_now;
    } else if from_now > 0 {
        moving
            .from
            .release(0, from_now)
            .expect("release from-space");
    }
    let (_, los_freed) = los.sweep();
    st.mark.clear_prefix(top_word);
    st.live.clear_prefix(top_word);
    moving.top = new_top;
    moving.allocated_since_gc = 0;
    moving.kept_by_last_gc = new_top - base;
    ph.lap("release");

    let record = PauseRecord {
        kind: "full",
        at_ns: (start - inner.started).as_nanos() as u64,
        total_ns: (stopped.time_to_safepoint + start.elapsed()).as_nanos() as u64,
        ttsp_ns: stopped.time_to_safepoint.as_nanos() as u64,
        phases: ph.list,
        live_bytes: (live_words * WORD) as u64,
        live_objects: live_objects as u64,
        large_object_bytes: los.used() as u64,
        large_object_freed_bytes: los_freed as u64,
        flip: FlipSummary::of(&report),
    };
    tracing::debug!(
        total_ns = record.total_ns,
        live = record.live_bytes,
        "collection done"
    );
    drop((space, los, st, globals));
    inner.log.lock().record(record);

    if inner.config.verify_after_gc {
        fatal.phase("heap verification after a collection");
        if let Err(e) = super::verify::verify_stopped(heap, stopped) {
            panic!("heap verification failed after a collection: {e}");
        }
    }
}
