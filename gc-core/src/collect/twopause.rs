//! The concurrent cycle: two short pauses with work in between and after.
//!
//! 1. **Mark pause** (`"mark"`): stop -> retire TLABs -> mark from the roots (still
//!    stop-the-world) -> pad the top to a page boundary, which becomes the *mark
//!    boundary* -> large objects are born marked from now on -> resume.
//! 2. **Plan** (the coordinator, counted as stopped, while mutators run): prefix sums
//!    and the per-page plan over the marked region. Mutators allocate above the
//!    boundary meanwhile: those objects are live by definition (black allocation).
//!    Headers of marked objects never change, so reading them now is safe.
//! 3. **Flip pause** (`"flip"`): stop -> retire TLABs -> forward the global roots
//!    and large-object fields (black objects' new addresses are one subtraction:
//!    their per-page table is built later, by the first page fill needing it) -> move
//!    the heap to from-space (one `mremap` with `MREMAP_DONTUNMAP`) -> register the
//!    emptied to-space with userfaultfd -> reset the top -> leave every mutator a
//!    pending root forwarding -> resume. Each mutator forwards its own roots as it
//!    resumes; the coordinator does it right after the pause for those that have not
//!    (`roots.rs`), so the pause does not grow with threads or stack depth.
//! 4. **Compaction** (`concurrent.rs`), concurrent with the mutators.
//!
//! Fallbacks, all giving the same heap: where concurrent compaction is known to be
//! impossible (no userfaultfd, copy flips, injected mremap failures, or turned off),
//! collections use the one-pause cycle (`cycle.rs`, pauses `"full"`). If it turns
//! out impossible only at the flip (mremap failed and the engine copied, the heap has
//! no live data, registration failed), every page is produced inside the flip pause,
//! which then shows a `compact` phase.
//!
//! Cycle phases (`HeapInner::cycle`): `Idle -> Planning` (in the mark pause) ->
//! `Compacting` (in the flip pause) -> `Idle` (when the last page is installed), or
//! `Planning -> Idle` in the flip pause for the in-pause fallback. A collection waits
//! for `Idle` before it starts, so cycles never overlap.

use super::compact::Layout;
use super::compact::{plan_pages, BlackPages};
use super::concurrent::{fill_ctx, Compaction, Tables};
use super::cycle::{forward_shared_roots, forward_table, mark_from_roots};
use super::forward::Forwarding;
use super::{bitmap::Bitmap, CyclePhase};
use crate::heap::{Heap, HeapInner};
use crate::inject::InjectPoint;
use crate::mem::WORD;
use crate::pauselog::{FlipSummary, PauseRecord};
use crate::safepoint::Stopped;
use flipgc_flip::SourceState;
use flipgc_heap::Userfault;
use std::sync::Arc;
use std::time::Instant;

/// Times the phases of one pause.
struct Laps {
    start: Instant,
    last: Instant,
    list: Vec<(&'static str, u64)>,
}

impl Laps {
    fn new() -> Laps {
        let now = Instant::now();
        Laps {
            start: now,
            last: now,
            list: Vec::with_capacity(8),
        }
    }

    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.list.push((name, (now - self.last).as_nanos() as u64));
        self.last = now;
    }
}

fn record(
    inner: &HeapInner,
    kind: &'static str,
    laps: Laps,
    stopped: &Stopped<'_>,
    live: (usize, usize),
    los: (usize, usize),
    flip: FlipSummary,
) {
    let r = PauseRecord {
        kind,
        at_ns: (laps.start - inner.started).as_nanos() as u64,
        total_ns: (stopped.time_to_safepoint + laps.start.elapsed()).as_nanos() as u64,
        ttsp_ns: stopped.time_to_safepoint.as_nanos() as u64,
        phases: laps.list,
        live_bytes: live.0 as u64,
        live_objects: live.1 as u64,
        large_object_bytes: los.0 as u64,
        large_object_freed_bytes: los.1 as u64,
        flip,
    };
    inner.log.lock().record(r);
}

/// Runs `f` with mutator `me` counted as stopped (it touches no heap memory and
/// none of `me`'s roots), so other mutators' collections and pauses need not wait.
fn as_stopped<R>(inner: &HeapInner, me: u64, f: impl FnOnce() -> R) -> R {
    struct Leave<'a>(&'a HeapInner, u64);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            self.0.safepoints.leave_blocking(self.1);
        }
    }
    inner.safepoints.enter_blocking(me);
    let _leave = Leave(inner, me);
    f()
}

/// If a cycle is between its pauses, waits (counted as stopped) until its flip pause
/// is over and returns true: memory may have been freed. False if none was.
pub fn wait_for_flip(heap: &Heap, me: u64) -> bool {
    let inner = &heap.inner;
    if *inner.cycle.lock() != CyclePhase::Planning {
        return false;
    }
    as_stopped(inner, me, || {
        let mut ph = inner.cycle.lock();
        while *ph == CyclePhase::Planning {
            inner.cycle_cv.wait(&mut ph);
        }
    });
    true
}

/// Stops the world once no cycle is in progress (waiting, counted as stopped, for
/// one to end). `None` if another mutator collected meanwhile.
fn stop_when_idle<'a>(inner: &'a HeapInner, me: u64) -> Option<Stopped<'a>> {
    loop {
        let busy = *inner.cycle.lock() != CyclePhase::Idle;
        if busy {
            as_stopped(inner, me, || {
                let mut ph = inner.cycle.lock();
                while *ph != CyclePhase::Idle {
                    inner.cycle_cv.wait(&mut ph);
                }
            });
        }
        let stopped = inner.safepoints.stop_the_world(me)?;
        if *inner.cycle.lock() == CyclePhase::Idle {
            return Some(stopped);
        }
        // Another mutator started a cycle between our wait and our stop.
        drop(stopped);
    }
}

/// One concurrent cycle, coordinated by mutator `me`. Returns when the flip pause is
/// over (compaction goes on); false if another mutator collected instead.
pub fn collect(heap: &Heap, me: u64) -> bool {
    let inner = &heap.inner;
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let Some(stopped) = stop_when_idle(inner, me) else {
        return false;
    };
    let fatal = crate::fatal::AbortOnUnwind::new("the mark pause");

    // ---- mark pause ----
    let mut laps = Laps::new();
    let mut space = inner.space.lock();
    let mut los = inner.los.lock();
    let st = inner.collector.lock();
    let globals = inner.globals.lock();
    laps.lap("stop");
    let base = space.base();
    let top = space.top;
    mark_from_roots(inner, &stopped, &st, &los, &globals, top);
    laps.lap("mark");
    let boundary = top.next_multiple_of(page).min(space.end());
    if boundary > top {
        // SAFETY: `[top, boundary)` is free moving space below the end (the space lock
        // is held and the world is stopped): nobody else can carve or touch it.
        unsafe { crate::space::tlab::write_filler(top, (boundary - top) / WORD) };
        space.top = boundary;
    }
    los.black = true;
    *inner.cycle.lock() = CyclePhase::Planning;
    laps.lap("boundary");
    drop((space, los, st, globals));
    record(
        inner,
        "mark",
        laps,
        &stopped,
        (0, 0),
        (0, 0),
        FlipSummary::none(),
    );
    drop(stopped);

    // ---- plan, concurrent with the mutators ----
    fatal.phase("the concurrent plan");
    let top_word = (boundary - base) / WORD;
    let (fwd, live_words, live_objects, uffd) = as_stopped(inner, me, || {
        if let Some(hook) = &inner.config.cycle_hook {
            (hook.0)(crate::config::CyclePoint::Planning);
        }
        let mut st = inner.collector.lock();
        let fwd = Forwarding::build(&st.live, top_word.div_ceil(64));
        let live_words = fwd.total_live_words();
        let mut page_first = std::mem::take(&mut st.page_first);
        let objects = plan_pages(
            &st.mark,
            &inner.types,
            base,
            top_word,
            page / WORD,
            live_words,
            &mut page_first,
        );
        st.page_first = page_first;
        let uffd = if inner.inject.cycle(InjectPoint::UffdOpen) {
            tracing::warn!("userfaultfd open failed (injected), compacting in the pause");
            None
        } else {
            Userfault::open().ok()
        };
        (fwd, live_words, objects, uffd)
    });

    // ---- flip pause ----
    fatal.phase("the flip pause");
    let stopped = loop {
        if let Some(s) = inner.safepoints.stop_the_world(me) {
            break s;
        }
    };
    let mut laps = Laps::new();
    let mut space = inner.space.lock();
    let mut los = inner.los.lock();
    let mut st = inner.collector.lock();
    let mut globals = inner.globals.lock();
    laps.lap("stop");
    let flip_top = space.top;
    let compacted_end = base + st.page_first.len() * page;
    let black = flip_top > boundary;
    let mut tables = Tables {
        mark: std::mem::replace(&mut st.mark, Bitmap::new(0)),
        live: std::mem::replace(&mut st.live, Bitmap::new(0)),
        page_first: std::mem::take(&mut st.page_first),
        black: BlackPages::default(),
        fwd,
    };
    let layout = Layout {
        base,
        from: inner.from_base,
        top_word,
        live_words,
        page_words: page / WORD,
        boundary,
        flip_top,
        slide: if black { boundary - compacted_end } else { 0 },
    };
    let (pages, new_top) = {
        let fill = fill_ctx(inner, &tables, &layout);
        // Mutators' own roots are forwarded after the pause (below), unless the
        // compaction ends up inside it.
        forward_shared_roots(inner, &mut globals, &los, &fill);
        (fill.pages(), fill.new_top())
    };
    los.black = false;
    let (_, los_freed) = los.sweep();
    laps.lap("roots");

    let moving = &mut *space;
    let used = flip_top - base;
    let heap_extent = (flip_top.max(moving.dirty_end) - base).next_multiple_of(page);
    let report = inner
        .flipper_for_this_flip()
        .flip_used(&mut moving.heap, &mut moving.from, used)
        .expect("flipping two equal, disjoint spans");
    let moved = report.source != SourceState::Intact;
    laps.lap("flip");
    let registered = match uffd {
        Some(u) if moved && pages > 0 && inner.concurrent => {
            // The whole span, not just the pages compaction produces: registering
            // part of it would split its mapping for good (the parts never merge
            // again), and the next flip could then no longer move it at PUD level.
            let registered = if inner.inject.cycle(InjectPoint::UffdRegister) {
                Err("injected failure".to_string())
            } else {
                u.register_missing(base, moving.heap.len())
                    .map_err(|e| e.to_string())
            };
            match registered {
                Ok(()) => Some(u),
                Err(e) => {
                    tracing::warn!("userfaultfd registration failed, compacting in the pause: {e}");
                    None
                }
            }
        }
        _ => None,
    };
    moving.top = new_top;
    // The move emptied the whole span: above the new top it reads as zeros, unless
    // the in-pause fallback below left the old image there (the heap was copied).
    moving.dirty_end = if registered.is_some() {
        new_top
    } else {
        (base + heap_extent).max(new_top).min(moving.heap.end())
    };
    moving.allocated_since_gc = 0;
    moving.kept_by_last_gc = new_top - base;
    let flip = FlipSummary::of(&report);
    let live = ((new_top - base), live_objects);
    let los_bytes = los.used();

    let Some(uffd) = registered else {
        // In-pause fallback: every root and every page now, in place.
        let fill = fill_ctx(inner, &tables, &layout);
        for m in &stopped.mutators {
            // SAFETY: the world is stopped: the collector owns every mutator's roots.
            forward_table(unsafe { m.roots() }, &fill);
        }
        fill.fill_all(inner.config.gc_workers);
        laps.lap("compact");
        let used_pages = used.next_multiple_of(page);
        if inner.config.recycle_from_space {
            moving.from_populated = moving.from_populated.max(used_pages);
        } else if used_pages > 0 {
            moving
                .from
                .release(0, used_pages)
                .expect("release from-space");
            moving.from_populated = 0;
        }
        tables.mark.clear_prefix(top_word);
        tables.live.clear_prefix(top_word);
        st.mark = tables.mark;
        st.live = tables.live;
        st.page_first = tables.page_first;
        *inner.cycle.lock() = CyclePhase::Idle;
        inner.cycle_cv.notify_all();
        laps.lap("release");
        drop((space, los, st, globals));
        record(
            inner,
            "flip",
            laps,
            &stopped,
            live,
            (los_bytes, los_freed),
            flip,
        );
        drop(stopped);
        verify_if_asked(heap, me);
        return true;
    };
    let mutators = stopped.mutators.clone();
    let compaction = Arc::new(Compaction::new(
        Arc::clone(inner),
        tables,
        layout,
        (inner.end, heap_extent),
        uffd,
        mutators.clone(),
    ));
    for m in &mutators {
        m.set_pending(Arc::clone(&compaction) as Arc<dyn crate::roots::RootForward>);
    }
    *inner.cycle.lock() = CyclePhase::Compacting;
    inner.cycle_cv.notify_all();
    laps.lap("register");
    drop((space, los, st, globals));
    let los = (los_bytes, los_freed);
    record(inner, "flip", laps, &stopped, live, los, flip);
    drop(stopped);

    // Roots of mutators that have not resumed yet (parked or blocking, and this
    // one): forwarded here, outside the pause; resuming ones do their own.
    for m in &mutators {
        m.fix_pending();
    }
    drop(mutators);
    fatal.phase("the start of a concurrent compaction");
    let workers = inner.config.gc_workers;
    std::thread::Builder::new()
        .name("flipgc-compact".into())
        .spawn(move || compaction.run(workers))
        .expect("spawning the compaction thread");
    verify_if_asked(heap, me);
    true
}

/// With `verify_after_gc`, stops the world and verifies (during a concurrent
/// compaction, the verifier's reads are served like any mutator's).
fn verify_if_asked(heap: &Heap, me: u64) {
    if !heap.inner.config.verify_after_gc {
        return;
    }
    let _fatal = crate::fatal::AbortOnUnwind::new("heap verification after a collection");
    let stopped = loop {
        if let Some(s) = heap.inner.safepoints.stop_the_world(me) {
            break s;
        }
    };
    if let Err(e) = super::verify::verify_stopped(heap, &stopped) {
        panic!("heap verification failed after a collection: {e}");
    }
}
