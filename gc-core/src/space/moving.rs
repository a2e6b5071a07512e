//! The moving space: the heap span mutators allocate in, the from-space span the
//! flip moves it to, and the bump pointer that hands out allocation buffers.
//!
//! Placement implements the flip modes: both spaces at `best_alignment` of their
//! length for `Auto` and `Copy`; for a forced level, from-space is placed so that
//! the two are mutually aligned at exactly that level (PMD: offset by one PMD modulo
//! a PUD; PTE: offset by one page modulo a PMD). In `Auto` mode the spans are the
//! capacity rounded up to whole PUD entries where those cover at most 1 GiB
//! ([`HeapConfig::span_len`]), so that every flip moves PUD entries; allocation
//! stops at the capacity ([`MovingSpace::end`]).
//!
//! Invariant Z: every byte of the heap span at or above `max(top, dirty_end)` reads
//! as zero, and every carve zeroes whatever it hands out below `dirty_end` first. So
//! allocated memory is always zeroed, and free memory stays populated after a
//! collection (page faults are expensive here: zeroing present pages costs a
//! fraction of faulting them in again).
//!
//! Recycling: between collections from-space still holds the previous heap image
//! (`from_populated` bytes of present pages). At the next collection those pages are
//! parked in `scratch` before the flip and moved into the emptied heap after it (two
//! more `MREMAP_DONTUNMAP` moves, at the same level as the flip: `scratch` is placed
//! at from-space's offset modulo a PUD), so compaction overwrites present pages.
//!
//! [`Parked`], the heap extents parked in the scratch span before a flip pause, is
//! defined here (`collect/park.rs` fills it). Layer: spaces (docs/architecture.md,
//! "Layers").

use crate::config::{FlipMode, HeapConfig};
use crate::error::GcError;
use crate::mem::WORD;
use flipgc_heap::{Geometry, Level, Reservation, Span, Thp};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The moving space's top and allocation count as of the last change, readable
/// without the space lock: for the pacer's look at every allocation buffer refill
/// and for statistics. Taking the lock there made allocating threads queue behind
/// any other holder (the hiccup meter's `used_bytes`, recycling), asleep and so
/// late for safepoints. Relaxed: these are estimates; every decision that must be
/// exact (a carve) is made under the lock.
#[derive(Debug)]
pub struct Published {
    base: usize,
    /// End of the capacity: where allocation stops ([`MovingSpace::end`]).
    end: usize,
    top: AtomicUsize,
    allocated_total: AtomicU64,
}

impl Published {
    /// Bytes below the top.
    pub fn used(&self) -> usize {
        self.top.load(Ordering::Relaxed) - self.base
    }

    /// Bytes above the top.
    pub fn free(&self) -> usize {
        self.end - self.top.load(Ordering::Relaxed)
    }

    /// Bytes handed out since the heap began.
    pub fn allocated_total(&self) -> u64 {
        self.allocated_total.load(Ordering::Relaxed)
    }
}

/// The heap span and the allocation top: what mutators allocate from, under the
/// heap's space lock.
pub struct MovingSpace {
    _heap_res: Reservation,
    /// Where objects live between collections ([`HeapConfig::span_len`] bytes;
    /// allocation stops at [`MovingSpace::end`]).
    pub heap: Span,
    /// First free address (everything below is objects or fillers). Written only
    /// through [`MovingSpace::set_top`] and carves, which keep [`Published`] current.
    pub top: usize,
    /// The top and allocation count for readers without the lock.
    pub published: Arc<Published>,
    /// Bytes handed out since the last collection.
    pub allocated_since_gc: usize,
    /// Bytes below the top right after the last collection (what it kept: the live
    /// data it moved, and what was allocated while it marked).
    pub kept_by_last_gc: usize,
    /// Bytes the last collection found live (marked; allocation during its marking
    /// not included): what out-of-memory decisions go by.
    pub live_by_last_gc: usize,
    /// Memory in `[top, dirty_end)` may hold garbage (recycled pages); see invariant Z.
    pub dirty_end: usize,
    /// Bytes handed out since the heap began (the pacer's allocation-rate samples).
    pub allocated_total: u64,
    /// The least free bytes seen at a carve since the current cycle started.
    pub min_free: usize,
    /// While a concurrent cycle allocates black (from its mark-start pause to its
    /// flip pause): the start of every carve, in address order (compaction finds
    /// black objects from them).
    pub black_carves: Option<Vec<usize>>,
}

/// From-space (where the heap's pages go at the flip) and the scratch span (where
/// from-space's pages wait during a recycling flip). Only the collector touches it,
/// under its own lock, so that slow work on it (a fresh mapping of a gigabyte
/// takes milliseconds) never holds up a mutator's allocation.
pub struct FromSpace {
    _from_res: Reservation,
    _scratch_res: Reservation,
    /// From-space.
    pub span: Span,
    /// The scratch span.
    pub scratch: Span,
    /// Bytes at the start of from-space whose pages are present (recycling).
    pub populated: usize,
    /// Heap extents moved into `scratch` before a flip pause (`collect/park.rs`).
    pub parked: Parked,
}

/// Heap offsets whose pages are parked in the scratch span (at the same offsets),
/// and where that span is: moving-space bookkeeping, filled and emptied by the
/// collector's parking (`collect/park.rs`). Empty when nothing is parked.
#[derive(Clone, Debug, Default)]
pub struct Parked {
    /// The scratch span's address (set when the compaction takes the ranges).
    pub(crate) scratch: usize,
    /// Parked byte ranges of the heap, `[lo, hi)` offsets from its base: sorted,
    /// disjoint, each a run of whole extents.
    pub(crate) ranges: Vec<(usize, usize)>,
}

impl Parked {
    /// Whether nothing is parked.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes parked.
    pub fn bytes(&self) -> usize {
        self.ranges.iter().map(|(lo, hi)| hi - lo).sum()
    }

    /// Where the old image's page at heap offset `at` is, and how far (below `hi`)
    /// the same holds: the scratch span inside a parked range, else from-space
    /// (at `from`), up to the next parked range.
    pub fn source(&self, from: usize, at: usize, hi: usize) -> (usize, usize) {
        for &(lo, end) in &self.ranges {
            if at < lo {
                return (from, hi.min(lo));
            }
            if at < end {
                return (self.scratch, hi.min(end));
            }
        }
        (from, hi)
    }
}

impl MovingSpace {
    /// Reserves and commits the heap, from-space and scratch for `config` (already
    /// validated).
    pub fn new(config: &HeapConfig, g: &Geometry) -> Result<(MovingSpace, FromSpace), GcError> {
        let cap = config.capacity;
        let len = config.span_len(g);
        let pmd = g.pmd.unwrap_or(g.page);
        let pud = g.pud.unwrap_or(pmd);
        let heap_align = match config.flip {
            FlipMode::Level(Level::Pud) => pud,
            _ => g.best_alignment(len),
        };
        let heap_res = Reservation::new(len, heap_align)?;
        let mut heap = heap_res.commit(0, len)?;
        let hb = heap.addr();
        let (from_res, from_off) = match config.flip {
            FlipMode::Auto | FlipMode::Copy | FlipMode::Level(Level::Pud) => {
                (Reservation::new(len, heap_align)?, 0)
            }
            // Same offset as the heap modulo a PMD, one PMD further modulo a PUD.
            FlipMode::Level(Level::Pmd) => (Reservation::new(len + pud, pud)?, (hb + pmd) % pud),
            // One page further modulo a PMD.
            FlipMode::Level(Level::Pte) => (Reservation::new(len + pmd, pmd)?, (hb + g.page) % pmd),
        };
        let mut from = from_res.commit(from_off, len)?;
        // Scratch: same offset as from-space modulo a PUD, so moves between the three
        // spaces happen at the flip's level.
        let scratch_res = Reservation::new(len + pud, pud)?;
        let mut scratch = scratch_res.commit(from.addr() % pud, len)?;
        if config.thp {
            from.set_thp(Thp::Huge)?;
            scratch.set_thp(Thp::Huge)?;
        }
        // The heap span takes huge pages only for the pre-touch. Without it, the first
        // write into each empty 2 MiB range would be one page fault that zeroes 2 MiB
        // in a mutator, and a mutator inside a page fault cannot reach a GC point: on
        // this project's VM such a fault took 1.4-3 ms, the time to safepoint of a
        // toy VM program's first cycle (docs/findings.md, "A huge page's first
        // touch"). Base pages fault 4 KiB at a time, with GC points in between.
        // `MADV_NOHUGEPAGE`, not no advice: a system in THP mode `always` would
        // give huge pages to a span without advice.
        heap.set_thp(if config.thp && config.pretouch {
            Thp::Huge
        } else {
            Thp::NoHuge
        })?;
        // A copying flip writes the used heap into from-space inside the pause: fault
        // its pages in now, at construction, not page by page in the first pauses
        // (1.3 s at 1 GiB and 2.9 s at 4 GiB were measured that way).
        // With heap sizing, only the initial size (the memory it expects to use).
        let touch = config.initial_limit().next_multiple_of(g.page).min(cap);
        if config.pretouch {
            // Fresh pages read as zero: invariant Z holds as it is.
            heap.populate(0, touch)?;
        }
        // From-space too where it stays populated from the first collection on: a
        // copying flip writes into it; the one-pause cycle recycles it (`flip.rs`),
        // and with pre-touching its first collection no longer faults a heap's worth
        // in (1-3 s of a GCBench run at 1 GiB here). The concurrent cycle replaces
        // from-space's mapping at every flip: touched here, it would be thrown away.
        let recycled_from =
            config.pretouch && config.recycle_from_space && !config.concurrent_marking;
        let from_populated = if config.flip == FlipMode::Copy || recycled_from {
            from.populate(0, touch)?;
            touch
        } else {
            0
        };
        let published = Arc::new(Published {
            base: heap.addr(),
            end: hb + cap,
            top: AtomicUsize::new(heap.addr()),
            allocated_total: AtomicU64::new(0),
        });
        let moving = MovingSpace {
            top: heap.addr(),
            published,
            dirty_end: heap.addr(),
            heap,
            _heap_res: heap_res,
            allocated_since_gc: 0,
            kept_by_last_gc: 0,
            live_by_last_gc: 0,
            allocated_total: 0,
            min_free: cap,
            black_carves: None,
        };
        let from = FromSpace {
            span: from,
            scratch,
            populated: from_populated,
            parked: Default::default(),
            _from_res: from_res,
            _scratch_res: scratch_res,
        };
        Ok((moving, from))
    }

    /// First address of the heap span.
    pub fn base(&self) -> usize {
        self.heap.addr()
    }

    /// End of the capacity: allocation stops here (the span may go on, see
    /// [`HeapConfig::span_len`]).
    pub fn end(&self) -> usize {
        self.published.end
    }

    /// Bytes below the top.
    pub fn used(&self) -> usize {
        self.top - self.base()
    }

    /// Moves the top (a flip's new top, the mark boundary).
    pub fn set_top(&mut self, top: usize) {
        self.top = top;
        self.publish();
    }

    fn publish(&self) {
        self.published.top.store(self.top, Ordering::Relaxed);
        self.published
            .allocated_total
            .store(self.allocated_total, Ordering::Relaxed);
    }

    /// Takes `words` words at the top, if they fit, zeroed (invariant Z).
    pub fn carve(&mut self, words: usize) -> Option<usize> {
        let (at, dirty) = self.carve_unzeroed(words)?;
        if dirty {
            let upto = self.top.min(self.dirty_end);
            // SAFETY: [at, upto) was free heap memory (above the old top), now owned
            // by the caller, who holds the space lock; nothing else references it.
            unsafe { crate::mem::zero_words(at, (upto - at) / WORD) };
        }
        Some(at)
    }

    /// Takes `words` words at the top, if they fit, without zeroing them; and
    /// whether any of them may hold old data (they lie below `dirty_end`: recycled
    /// memory), so that their new owner must zero what it hands out. For allocation
    /// buffers ([`crate::space::tlab::Tlab`]), which zero each object as they
    /// allocate it, right before it is written anyway.
    pub fn carve_unzeroed(&mut self, words: usize) -> Option<(usize, bool)> {
        let bytes = words * WORD;
        if self.end() - self.top < bytes {
            return None;
        }
        let at = self.top;
        if let Some(log) = &mut self.black_carves {
            log.push(at);
        }
        self.top += bytes;
        self.allocated_since_gc += bytes;
        self.allocated_total += bytes as u64;
        self.publish();
        self.min_free = self.min_free.min(self.end() - self.top);
        Some((at, at < self.dirty_end))
    }
}
