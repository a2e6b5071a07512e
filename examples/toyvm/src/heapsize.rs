//! The heap `toyvm` runs on when not told otherwise ([`default_heap_config`]: a
//! growable heap up to a quarter of physical memory, as the JVM's default maximum),
//! and the one-line heap report of `(gc-stats)` ([`heap_summary`]).

use flipgc_core::{Heap, HeapConfig, MAX_CAPACITY, MIN_CAPACITY};

/// The default maximum heap when physical memory is unknown: 1 GiB.
pub const FALLBACK_MAX_HEAP: usize = 1 << 30;

/// Physical memory in bytes, from `/proc/meminfo` (`None` if unknown).
pub fn physical_memory() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let n: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        _ => None,
    }
}

/// The default maximum heap: a quarter of physical memory, or
/// [`FALLBACK_MAX_HEAP`] if that is unknown (within the collector's limits).
pub fn default_max_heap() -> usize {
    physical_memory()
        .map_or(FALLBACK_MAX_HEAP, |m| m / 4)
        .clamp(MIN_CAPACITY, MAX_CAPACITY)
}

/// The configuration `toyvm` uses without `--heap`: [`HeapConfig::growable`] up
/// to `max` (or [`default_max_heap`]): the heap starts small, grows with its live
/// data, and gives memory back after bursts.
pub fn default_heap_config(max: Option<usize>) -> HeapConfig {
    HeapConfig::growable(max.unwrap_or_else(default_max_heap))
}

/// This process's resident memory in bytes, from `/proc/self/status` (`None`
/// if unknown).
pub fn resident_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Bytes in MiB or GiB, one decimal.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// One line about allocation: the bytes the heap has handed out since it began
/// ([`Heap::allocated_bytes`]: in steps of an allocation buffer, large objects
/// not counted).
pub fn alloc_summary(heap: &Heap) -> String {
    format!(
        "alloc: {} bytes allocated since the heap began",
        heap.allocated_bytes()
    )
}

/// One line about the heap: live data after the last cycle and at most, memory in
/// use now and at most, the soft limit (the size cycles are paced against), the
/// maximum, and the process's resident memory.
pub fn heap_summary(heap: &Heap) -> String {
    let log = heap.pause_log();
    // Whole-run figures from the log's statistics; the newest cycle from its ring.
    let cycles = log.cycle_stats();
    let cap = heap.config().capacity as u64;
    let last_live = log.cycles().last().map_or(0, |c| c.live_bytes);
    let peak_live = cycles.max_live_bytes;
    let peak_use = cycles
        .least_min_free
        .map_or(0, |free| cap.saturating_sub(free));
    let in_use = (heap.used_bytes() + heap.large_object_bytes()) as u64;
    let kind = if heap.config().sizing.is_some() {
        "growable"
    } else {
        "fixed"
    };
    let rss = resident_memory().map_or_else(|| "unknown".into(), size);
    format!(
        "heap: {} cycles, live {} (peak {}), in use {} (peak {}), soft limit {}, maximum {} ({kind}), rss {rss}",
        cycles.count,
        size(last_live),
        size(peak_live),
        size(in_use),
        size(peak_use.max(in_use)),
        size(heap.soft_limit() as u64),
        size(cap),
    )
}
