//! Parking dead extents before the flip pause.
//!
//! The flip's `mremap` moves the heap one page-table entry at a time at its top
//! level, and every entry it moves costs a TLB shootdown: an interrupt to every
//! other CPU, waited for, inside the pause (one per populated GiB at PUD level,
//! 15-55 us each here; docs/findings.md). At 4 GiB most flips found
//! live data only in the first GiB (the survivors of the last compaction) and in
//! the last (the newest objects), and only garbage in the two between.
//!
//! So, after the plan and before the flip pause, the GC driver moves every run of
//! extents (page-table entries of the flip's level: PUD, or PMD for a PMD-level
//! heap) that lies wholly below the mark boundary and holds no live word, and
//! every extent wholly above the allocation top (free memory, present where it was
//! pre-touched or recycled), into the scratch span, at the same offsets
//! ([`park_dead`]). The shootdowns of those moves
//! happen here, with the mutators running. The flip then finds those entries empty
//! and skips them. Recycling takes the parked pages back into the heap with
//! from-space's (`compaction/recycle.rs`, which reads [`Parked`]), and whatever is
//! left is freed when the scratch span is mapped afresh ([`release`]).
//!
//! Why no mutator touches a parked extent: it holds only objects that marking found
//! unreachable (no live word, and the live-words bitmap has a bit at every word of
//! every marked object), and no new object (those are carved at or above the
//! boundary, the top at the mark-start pause). Marking is over: the mark-end pause
//! has cleared weak references to unreachable objects and resurrected finalizable
//! ones (marking them), so no root, field, or weak reference leads there. Page
//! filling reads only live words and the region above the boundary (`fill.rs`). A
//! copying flip (the kernel refused the `mremap`) reads the parked range of the
//! heap, which then reads as zeros: garbage either way, though reading the holes
//! costs that already long pause a fault per page. The heap verifier cannot walk
//! across a parked range: `Mutator::verify` waits for the flip instead. An extent above the top holds no object at all: allocation
//! carves at the top, under the space lock this holds, and every allocation buffer
//! lies below it. A carve that reaches a parked free extent before the flip finds
//! it empty: it reads as zeros, which is what invariant Z (`space/moving.rs`) asks
//! of memory above the top, and its pages fault in fresh; the parked pages come
//! back with the rest, where nothing took their place.
//!
//! Memory ordering: nothing is handed to another thread here. The decision reads the
//! plan, built on this thread; the move changes page tables under the kernel's own
//! locks, and no CPU can hold a translation the move's shootdown did not flush. The
//! parked ranges reach the compaction inside it, built in the flip pause on this
//! thread, and its worker threads start after that (their spawn orders it).
//!
//! Layer: collector (docs/architecture.md, "Layers").

use super::heap_inner::HeapInner;
use super::plan::Plan;
use crate::mem::WORD;
use crate::space::moving::{FromSpace, MovingSpace, Parked};

/// The extent parking moves in: the flip's top level, the largest page-table
/// entry (PUD, else PMD) at which the heap, from-space and the scratch span are all
/// aligned. `None` below PMD: a page-level flip gains nothing worth a move per page.
pub fn extent(space: &MovingSpace, from: &FromSpace) -> Option<usize> {
    let g = flipgc_heap::Capabilities::probe().geometry;
    let addrs = [space.heap.addr(), from.span.addr(), from.scratch.addr()];
    [g.pud, g.pmd]
        .into_iter()
        .flatten()
        .find(|&unit| addrs.iter().all(|a| a % unit == 0))
}

/// Parks the dead extents below `boundary` (the mark boundary) that `plan` found
/// no live word in, and the free extents above the allocation top. Called by the
/// GC driver after the plan and before the flip pause of a cycle that compacts
/// concurrently, with the mutators running. Returns the bytes parked; a move the
/// kernel refuses stops parking (what moved stays parked), and costs nothing but
/// the shootdowns it would have saved.
#[cfg(target_os = "linux")]
pub fn park_dead(inner: &HeapInner, plan: &Plan, boundary: usize) -> usize {
    // Lock order as in the flip pause: the space, then from-space. Both are taken
    // for each run, not for all of them: a carve waits for one move at most (tens
    // of microseconds: the move replaces the heap's page tables, which the space
    // lock guards).
    let (unit, base, span) = {
        let space = inner.space.lock();
        let from = inner.from_space.lock();
        debug_assert!(from.parked.is_empty(), "parked pages left from a cycle");
        let Some(unit) = extent(&space, &from) else {
            return 0;
        };
        if from.scratch.is_split() || !from.parked.is_empty() {
            return 0;
        }
        (unit, space.base(), space.heap.len() / unit * unit)
    };
    // Dead runs: nothing carves below the boundary, so they stay dead.
    let below = (boundary - base) / unit * unit;
    let dead = |lo: usize| plan.fwd.live_words_in(lo / WORD, (lo + unit) / WORD) == 0;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for lo in (0..below).step_by(unit).filter(|&lo| dead(lo)) {
        match runs.last_mut() {
            Some((_, hi)) if *hi == lo => *hi = lo + unit,
            _ => runs.push((lo, lo + unit)),
        }
    }
    // Moves `[lo, hi)` (`lo` of `None`: from the top, read under the lock the move
    // runs under); false if the kernel refused.
    let park = |lo: Option<usize>, hi: usize| {
        let mut space = inner.space.lock();
        let mut from = inner.from_space.lock();
        let lo = lo.unwrap_or_else(|| (space.top - base).next_multiple_of(unit));
        if lo >= hi {
            return true;
        }
        let from = &mut *from;
        match space.heap.move_range_to(lo, hi - lo, &mut from.scratch) {
            Ok(()) => {
                from.parked.ranges.push((lo, hi));
                true
            }
            Err(e) => {
                tracing::warn!("parking heap extents stopped: {e}");
                false
            }
        }
    };
    // The free run last, above every dead one (`Parked`'s ranges stay sorted).
    if runs.into_iter().all(|(lo, hi)| park(Some(lo), hi)) {
        park(None, span);
    }
    inner.from_space.lock().parked.bytes()
}

/// Hands the parked ranges to the compaction that recycles them (the flip pause,
/// concurrent compaction): from-space keeps none.
pub fn take(from: &mut FromSpace) -> Parked {
    Parked {
        scratch: from.scratch.addr(),
        ..std::mem::take(&mut from.parked)
    }
}

/// Frees what is left parked: maps the scratch span afresh, one mapping again (a
/// range move split it). Called where from-space is released: at the end of a
/// concurrent compaction, or by a flip pause that compacts in place.
pub fn release(from: &mut FromSpace) {
    from.parked = Parked::default();
    if from.scratch.is_split() {
        from.scratch
            .recommit()
            .expect("mapping the scratch span afresh");
    }
}
