//! Heap sizing after a cycle ([`HeapConfig::sizing`](crate::HeapConfig::sizing)):
//! the new soft limit, and memory above it handed back to the OS.
//!
//! Run by the GC driver at the end of every cycle (after its compaction), with the
//! mutators running:
//! 1. **Soft limit** = `clamp(live · (1 + growth), initial, capacity)`, where `live`
//!    is what the cycle's marking found live in the moving space, plus the large
//!    objects it kept (as Go's heap goal: objects allocated during the cycle count
//!    towards the next one, so fast allocation does not raise the limit). The pacer
//!    paces the next cycle against it.
//! 2. **Trim**: the heap's present pages above `max(top, soft limit)` (recycled
//!    from-space pages, or garbage of a bigger past) are released, from the top
//!    down, one recycling chunk at a time under the space lock (each check of the
//!    top and release is atomic with respect to carving, so no allocation can land
//!    in a range being released); then from-space's pages above the soft limit.
//!
//! Without sizing the soft limit is the capacity and nothing is trimmed: memory once
//! used stays resident, for reuse (page faults are expensive here).

use super::heap_inner::HeapInner;

/// Sets the soft limit after a cycle and releases memory above it.
pub fn after_cycle(inner: &HeapInner) {
    let Some(sizing) = inner.config.sizing else {
        return;
    };
    let cap = inner.config.capacity;
    let live = inner.space.lock().live_by_last_gc + inner.los.lock().kept_by_last_gc();
    let wanted = live as f64 * (1.0 + sizing.growth);
    let limit = (wanted.min(cap as f64) as usize).clamp(sizing.initial.min(cap), cap);
    inner.pacer.set_limit(limit);
    trim(inner, limit);
}

/// Releases the heap's and from-space's present pages above `keep` bytes (and above
/// the allocation top).
fn trim(inner: &HeapInner, keep: usize) {
    let g = flipgc_heap::Capabilities::probe().geometry;
    #[cfg(target_os = "linux")]
    let chunk = super::compaction::recycle_align(&g);
    #[cfg(not(target_os = "linux"))]
    let chunk = g.page;
    let base = inner.base;
    loop {
        // Offsets from the heap's base.
        let mut space = inner.space.lock();
        let floor = (space.top - base).max(keep).next_multiple_of(chunk);
        let dirty = (space.dirty_end - base)
            .next_multiple_of(g.page)
            .min(space.heap.len());
        if dirty <= floor {
            break;
        }
        let lo = ((dirty - 1) / chunk * chunk).max(floor);
        space
            .heap
            .release(lo, dirty - lo)
            .expect("releasing heap pages above the soft limit");
        // [lo, dirty) reads as zero now, and lo is at or above the top: invariant Z.
        space.dirty_end = base + lo;
    }
    let mut from = inner.from_space.lock();
    let keep_from = keep.next_multiple_of(chunk);
    if from.populated > keep_from {
        let n = from.populated - keep_from;
        from.span
            .release(keep_from, n)
            .expect("releasing from-space pages above the soft limit");
        from.populated = keep_from;
    }
}
