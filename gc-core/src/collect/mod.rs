//! The collector. Every cycle runs on the heap's GC driver thread ([`driver`]) (a
//! pacer-started cycle's mark-start pause excepted: the mutator that triggered it
//! runs that, and hands the cycle over), as one of two orchestrations, each a file
//! that only calls the phases in order:
//! - [`concurrent`]: mark-start pause -> concurrent marking -> mark-end pause ->
//!   concurrent plan -> flip pause -> concurrent compaction (or compaction inside
//!   the flip pause where the kernel cannot fill pages on demand);
//! - [`full`]: one stop-the-world pause (the reference path).
//!
//! The phases, one file each: [`pause`] (stopping the world, timing, recording),
//! [`roots`] (gathering and forwarding roots), [`mark`] (tracing),
//! [`concurrent_mark`] (the marking pauses and rounds), [`sanity`] (the re-trace that
//! checks concurrent marking), [`sticky`] (young cycles: which cycles leave the
//! last cycle's survivors alone), [`plan`] (new addresses and the per-page plan, with
//! [`forward`]'s prefix sums), [`park`] (garbage-only extents moved out of the
//! heap before the flip pause), [`flip`] (moving the heap to from-space),
//! [`pause_offer`] (pauses left to a mutator), [`fill`]
//! (producing to-space pages), [`compaction`] (filling them concurrently through
//! userfaultfd), [`release`] (what a cycle gives back), [`sizing`] (the soft limit,
//! memory handed back to the OS), and [`verify`].
//!
//! Layer: collector (docs/architecture.md, "Layers").

pub mod bitmap;
#[cfg(target_os = "linux")]
pub mod compaction;
pub mod concurrent;
pub mod concurrent_mark;
pub mod dispatch;
pub mod driver;
pub mod ephemeron;
pub mod fill;
pub mod flip;
pub mod forward;
pub mod full;
pub mod heap_inner;
pub mod large;
pub mod mark;
pub mod old_cards;
pub mod page_state;
pub mod park;
pub mod pause;
pub mod pause_offer;
pub mod plan;
pub mod refs;
pub mod release;
pub mod root_table;
pub mod roots;
pub mod sanity;
pub mod sizing;
pub mod sticky;
pub mod verify;

use crate::pacer::Reason;
use crate::pauselog::CycleRecord;
use heap_inner::HeapInner;
use std::sync::Arc;
use std::time::Instant;

/// Where the heap is in a collection cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CyclePhase {
    /// No cycle: a collection may start.
    Idle,
    /// From the mark-start pause to the end of marking (the barrier is on).
    Marking,
    /// Between the end of marking and the flip pause.
    Planning,
    /// After the flip pause, until every to-space page is installed.
    Compacting,
}

use bitmap::Bitmap;

/// The collector's side tables, sized for the whole moving space.
pub struct CollectorState {
    /// A bit at each live object's header word.
    pub mark: Bitmap,
    /// A bit at every word of every live object.
    pub live: Bitmap,
    /// Per to-space page: the from-space word index of the object covering the
    /// page's first word, and that word's offset inside it.
    pub page_first: Vec<(usize, usize)>,
    /// The plan's prefix sums' memory, reused from cycle to cycle
    /// ([`forward::Forwarding::into_buffer`]).
    pub live_before: Vec<u64>,
    /// The last cycle's survivors, for young cycles.
    pub sticky: sticky::Sticky,
    /// Young cycles' card bookkeeping (`old_cards.rs`).
    pub old_cards: old_cards::OldCards,
}

impl CollectorState {
    /// Tables for a space of `words` words; with `pretouch`, their memory is
    /// written once now ([`Bitmap::pretouch`]).
    pub fn new(words: usize, pretouch: bool) -> CollectorState {
        let (mut mark, mut live) = (Bitmap::new(words), Bitmap::new(words));
        if pretouch {
            mark.pretouch();
            live.pretouch();
        }
        let mut live_before = Vec::new();
        if pretouch {
            // Written now (`resize` stores every entry), as the bitmaps are.
            live_before.reserve_exact(words.div_ceil(64) + 1);
            live_before.resize(words.div_ceil(64) + 1, 0);
        }
        CollectorState {
            mark,
            live,
            page_first: Vec::new(),
            live_before,
            sticky: sticky::Sticky::default(),
            old_cards: old_cards::OldCards::new(words.div_ceil(crate::cards::CARD_WORDS)),
        }
    }

    /// Clears the bits kept for the stable part of the old region
    /// (`sticky.rs`, invariant 6), before a full marking, which starts from
    /// clear bitmaps.
    pub fn forget_kept_bits(&mut self) {
        let kept = self.sticky.kept_words();
        if kept > 0 {
            self.mark.clear_from(0, kept);
            self.live.clear_from(0, kept);
        }
        self.sticky.stable_words = 0;
    }
}

/// A cycle the driver is about to run.
pub struct CycleStart {
    /// Its number (from 1).
    pub n: u64,
    /// Why it was asked for (the first request's reason).
    pub reason: Reason,
    /// When it was first asked for.
    pub requested_at: Instant,
    /// Its mark-start pause, if the mutator whose allocation triggered the cycle ran
    /// it already.
    pub mark_started: Option<MarkStarted>,
}

/// A mark-start pause that a mutator ran ([`Mutator`](crate::Mutator)'s allocation
/// slow path, when the pacer starts a cycle): what the driver goes on from.
pub struct MarkStarted {
    /// What the cycle noted before that pause.
    pub opening: Opening,
    /// The mark boundary it set.
    pub boundary: usize,
    /// The mutators it stopped (their root scans may still be pending).
    pub stopped: Vec<Arc<crate::collect::root_table::MutatorShared>>,
}

/// What a cycle notes as it begins, before its first pause, for its record. Taken
/// by whichever thread runs that pause (the driver, or the mutator that started
/// the cycle).
pub struct Opening {
    started: Instant,
    /// Sequence numbers in the pause log of the cycle's first pause and first
    /// compaction (the records ever made before them: not indices into the log's
    /// rings, which let old records go), and the pause time recorded before it.
    first_pause: u64,
    first_compaction: u64,
    pause_ns_before: u64,
    free_at_start: usize,
    allocated_at_start: u64,
    rate: f64,
    trigger: usize,
    throttled_before: u64,
}

impl Opening {
    /// Notes cycle `n`'s beginning (and makes it the GC log's current cycle).
    pub fn take(inner: &HeapInner, n: u64) -> Opening {
        let started = Instant::now();
        inner.gclog.set_cycle(n);
        let (first_pause, first_compaction, pause_ns_before) = {
            let log = inner.log.lock();
            (
                log.records().total(),
                log.compactions().total(),
                log.pause_stats().total_ns(),
            )
        };
        let (free_at_start, allocated_at_start) = {
            let mut space = inner.space.lock();
            space.min_free = space.end() - space.top;
            (space.min_free, space.allocated_total)
        };
        Opening {
            started,
            first_pause,
            first_compaction,
            pause_ns_before,
            free_at_start,
            allocated_at_start,
            rate: inner.pacer.estimates().rate,
            trigger: inner.pacer.trigger(),
            throttled_before: inner.pacer.throttled_ns(),
        }
    }
}

/// Runs a cycle (on the driver thread): the concurrent cycle, or the one-pause
/// cycle where concurrent marking is off; then records it, tells the pacer, and
/// writes its GC log line.
pub fn run_cycle(inner: &Arc<HeapInner>, c: CycleStart) {
    let (o, premarked) = match c.mark_started {
        Some(m) => (m.opening, Some((m.boundary, m.stopped))),
        None => (Opening::take(inner, c.n), None),
    };
    let Opening {
        started,
        first_pause,
        first_compaction,
        pause_ns_before,
        free_at_start,
        allocated_at_start,
        rate,
        trigger,
        throttled_before,
    } = o;
    let out = if inner.config.concurrent_marking {
        concurrent::run(inner, c.n, c.reason, premarked)
    } else {
        full::run(inner, c.n)
    };
    let to_flip = out.flipped_at - c.requested_at;
    let allocated = out
        .allocated_total_at_flip
        .saturating_sub(allocated_at_start);
    inner
        .pacer
        .cycle(to_flip.as_nanos() as u64, out.live_bytes, allocated);
    let since = |t: Instant| (t - inner.started).as_nanos() as u64;
    let mut log = inner.log.lock();
    // The cycle's pauses, from the log's whole-run counters (the pause records
    // themselves may have left the ring already, with a small capacity).
    let pause_count = (log.records().total() - first_pause) as u32;
    let pause_ns = log.pause_stats().total_ns() - pause_ns_before;
    // The pause that moved the heap: the flip pause, or the one pause.
    let moving = log.moving_pause_since(first_pause);
    // The newest compaction record: the ring always holds it (capacity >= 1).
    let concurrent = log.compactions().by_seq(first_compaction).copied();
    let in_pause = moving.map_or(0, |p| p.compact_ns);
    let (moved_bytes, large_object_bytes, flip_strategy, flip_level) = moving
        .map_or((0, 0, "none", "none"), |p| {
            (p.live_bytes, p.large_object_bytes, p.strategy, p.level)
        });
    let (fault, alloc) = log.take_stall_window();
    let record = CycleRecord {
        n: c.n,
        reason: c.reason.name(),
        requested_at_ns: since(c.requested_at),
        started_at_ns: since(started),
        marked_at_ns: since(out.marked_at),
        flipped_at_ns: since(out.flipped_at),
        done_at_ns: since(Instant::now()),
        free_at_start: free_at_start as u64,
        min_free: out.min_free as u64,
        trigger_bytes: trigger as u64,
        rate_bytes_per_s: (rate * 1e9) as u64,
        live_bytes: out.live_bytes as u64,
        mark_rounds: out.mark_rounds,
        young: out.young,
        throttled_ns: inner.pacer.throttled_ns() - throttled_before,
        moved_bytes,
        large_object_bytes,
        flip_strategy,
        flip_level,
        pauses: pause_count,
        pause_ns,
        compaction: if concurrent.is_some() {
            "concurrent"
        } else {
            "in-pause"
        },
        compaction_ns: concurrent.map_or(in_pause, |(ns, _, _)| ns),
        compaction_pages: concurrent.map_or(0, |(_, pages, _)| pages as u64),
        compaction_moved_pages: concurrent.map_or(0, |(_, _, moved)| moved as u64),
        fault_stalls: fault.count,
        fault_stall_max_ns: fault.max_ns,
        alloc_stalls: alloc.count,
        alloc_stall_max_ns: alloc.max_ns,
    };
    let logged = inner.gclog.spec.gc.then(|| record.clone());
    log.record_cycle(record);
    drop(log);
    if let Some(r) = logged {
        inner.gclog.cycle_done(&r);
    }
    sizing::after_cycle(inner);
}

/// What a cycle reports to `run_cycle`.
pub struct CycleOutcome {
    /// When marking ended.
    pub marked_at: Instant,
    /// When its memory became available (the flip, or the one pause, ended).
    pub flipped_at: Instant,
    /// Live bytes found by marking.
    pub live_bytes: usize,
    /// The least free memory in the moving space from the cycle's start to its flip.
    pub min_free: usize,
    /// The moving space's bytes allocated since the heap began, at the flip.
    pub allocated_total_at_flip: u64,
    /// Concurrent marking rounds (0 for a one-pause cycle).
    pub mark_rounds: u32,
    /// Whether it was a young cycle (`sticky.rs`).
    pub young: bool,
}
