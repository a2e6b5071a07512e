//! Tracing: marking an object and scanning its references, and the parallel,
//! work-stealing transitive closure (crossbeam-deque) that the one-pause cycle and
//! the sanity re-trace run with the world stopped. Concurrent marking
//! (`concurrent_mark.rs`) drives the same [`MarkCtx`] with its own loop.
//!
//! Marking an object in the moving space sets its mark bit and, the first time, all
//! its words in the live-words bitmap; large objects have a lock-free side table.
//! Objects at or above the mark boundary were allocated after the snapshot (black):
//! live by definition, never marked nor scanned. In a young cycle (`sticky.rs`)
//! the objects below the old end, the survivors of the last cycle, are live by
//! definition too: [`MarkCtx::scan_old_region`] reads those on written cards
//! and those the last compaction placed, and marks what they reference outside
//! the region; tracing never enters them.
//!
//! Termination: a worker that finds no work anywhere counts itself idle; it leaves
//! the count when work appears. Workers only go idle with an empty local deque, and
//! only non-idle workers push, so "all idle" means all deques are empty for good.

use super::bitmap::Bitmap;
use super::old_cards::OldCards;
use crate::cards::{CardTable, CARD_BYTES, CARD_WORDS};
use crate::decode::Decode;
use crate::mem::{self, WORD};
use crate::object::{is_ref, FixedScan, Header};
use crate::priority::GcThreadPriority;
use crate::space::los::LosMarks;
use crossbeam_deque::{Injector, Stealer, Worker};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What marking reads and writes.
pub struct MarkCtx<'a, D> {
    /// Object shapes: the built-in registry or the heap's VM model, decoded
    /// statically (`decode.rs`).
    pub layout: D,
    /// Moving space base.
    pub base: usize,
    /// The mark boundary: objects below are marked; objects from here to `end` are
    /// black (allocated after the snapshot).
    pub boundary: usize,
    /// The old end: in a young cycle, the objects in `[base, old_end)` (the last
    /// cycle's survivors, contiguous) are live by definition and never traced;
    /// `base` in a full cycle.
    pub old_end: usize,
    /// End of the moving space.
    pub end: usize,
    /// Header bits.
    pub mark: &'a Bitmap,
    /// Live-word bits.
    pub live: &'a Bitmap,
    /// Large objects' marks.
    pub los: &'a LosMarks,
    /// Whether one thread at a time marks through this context: see
    /// [`MarkCtx::single_marker`].
    single: bool,
    /// In a young cycle with cards: which old objects the old-region pass reads.
    cards: Option<OldRegionCards<'a>>,
    /// The scheduling the marking threads spawned for this context take
    /// ([`HeapConfig::gc_thread_priority`](crate::HeapConfig::gc_thread_priority)).
    pub priority: GcThreadPriority,
}

/// What a young cycle's old-region pass needs to read only the written part of
/// the region's stable part (`old_cards.rs`).
#[derive(Clone, Copy)]
pub struct OldRegionCards<'a> {
    /// The mutators' card table.
    pub table: &'a CardTable,
    /// The last sweep's cards and the object starts per card.
    pub old: &'a OldCards,
    /// The end of the stable part: the objects below did not move in the last
    /// cycle, their bits are kept, and their starts per card are known.
    pub stable_end: usize,
}

/// [`MarkCtx::visit_old`]'s cache of the last type seen.
#[derive(Default)]
struct OldShape {
    /// The cache key (`None`: nothing yet).
    ty: Option<u64>,
    /// Its size and strong-reference mask, for a fixed type without wide
    /// reference fields.
    fixed: Option<FixedScan>,
    /// Its weak fields.
    weak: u64,
}

impl<'a, D: Decode> MarkCtx<'a, D> {
    /// A context for marking the region `[base, boundary)` of a moving space ending
    /// at `end`, into `mark` and `live`, with large objects' marks in `los`; the
    /// marking threads it spawns take `priority`.
    pub fn new(
        layout: D,
        base: usize,
        boundary: usize,
        end: usize,
        (mark, live): (&'a Bitmap, &'a Bitmap),
        los: &'a LosMarks,
        priority: GcThreadPriority,
    ) -> MarkCtx<'a, D> {
        MarkCtx {
            layout,
            base,
            boundary,
            old_end: base,
            end,
            mark,
            live,
            los,
            single: false,
            cards: None,
            priority,
        }
    }

    /// Makes this a young cycle's context: the objects in `[base, old_end)` are
    /// live by definition, and [`MarkCtx::scan_old_region`] must run before
    /// marking is complete. `old_end` must be the end of the contiguous objects
    /// at the bottom of the space (the last compaction's survivors,
    /// `sticky.rs`), at most the boundary. With `cards`, the pass reads only
    /// the stable part's written cards (`cards.stable_end` at most `old_end`).
    pub fn with_old_region(
        mut self,
        old_end: usize,
        cards: Option<OldRegionCards<'a>>,
    ) -> MarkCtx<'a, D> {
        if let Some(c) = cards {
            assert!(
                (self.base..=old_end).contains(&c.stable_end),
                "stable end {:#x} outside the old region",
                c.stable_end
            );
        }
        self.cards = cards;
        assert!(
            (self.base..=self.boundary).contains(&old_end),
            "old end {old_end:#x} outside the marked region {:#x}..{:#x}",
            self.base,
            self.boundary
        );
        self.old_end = old_end;
        self
    }

    /// Makes [`MarkCtx::mark`] set bitmap bits with plain loads and stores instead
    /// of atomic read-modify-writes: on x86_64 those are locked instructions, each a
    /// full barrier, two per object marked. Marking took about 35 % less time
    /// without them (binary-trees at 1 GiB, one marker: median 134 against 85 ms a
    /// cycle), and the mutator throttled half as long.
    ///
    /// # Safety
    /// Every mark through this context (and through any other context on the same
    /// bitmaps, while this one is in use) happens on one thread at a time, each
    /// thread's marks ordered before the next one's (a join, or a lock hand-off):
    /// two threads marking at once could each undo the other's bit in a shared
    /// bitmap word, and an object whose mark bit is lost is freed while reachable.
    pub unsafe fn single_marker(mut self) -> MarkCtx<'a, D> {
        self.single = true;
        self
    }

    /// Marks the object at `addr`; true if this call marked it (it must be scanned).
    /// Panics on an address that is no object of this heap (a broken heap).
    #[inline]
    pub fn mark(&self, addr: usize) -> bool {
        if (self.old_end..self.boundary).contains(&addr) {
            let w = (addr - self.base) / WORD;
            let first = if self.single {
                // SAFETY: one thread marks at a time (`single_marker`'s contract).
                unsafe { self.mark.set_single(w) }
            } else {
                self.mark.set(w)
            };
            if !first {
                return false;
            }
            // SAFETY: `addr` is a reachable object below the boundary: its header is
            // mapped, and immutable since it was published.
            let w0 = unsafe { mem::load(addr) };
            let words = self
                .layout
                .object_words(addr, w0)
                .unwrap_or_else(|| panic!("bad header {:?} at {addr:#x}", Header(w0)));
            if self.single {
                // SAFETY: as above.
                unsafe { self.live.set_range_single(w, words) };
            } else {
                self.live.set_range(w, words);
            }
            true
        } else if (self.base..self.old_end).contains(&addr)
            || (self.boundary..self.end).contains(&addr)
        {
            // Old (marked by `scan_old_region`) or black: live, never scanned.
            false
        } else {
            self.los
                .mark(addr)
                .unwrap_or_else(|| panic!("reference {addr:#x} is no object of this heap"))
        }
    }

    /// Prefetches what [`MarkCtx::mark`] of `addr` will read: the object's header
    /// and its mark and live-words bitmap words (a hint, for an object of the
    /// marked region; nothing otherwise).
    #[inline]
    pub fn prefetch(&self, addr: usize) {
        if (self.old_end..self.boundary).contains(&addr) {
            let w = (addr - self.base) / WORD;
            mem::prefetch(addr);
            self.mark.prefetch(w);
            self.live.prefetch(w);
        }
    }

    /// Calls `f` with every non-null *strong* reference held by the object at `addr`
    /// (weak fields are not followed), and adds `addr` to `weak` if its type has weak
    /// fields. Fields are read with acquire loads: mutators may be storing into them
    /// meanwhile (concurrent marking), and a reference read must bring its
    /// referent's header.
    #[inline]
    pub fn scan(&self, addr: usize, weak: &mut Vec<usize>, mut f: impl FnMut(usize)) {
        // SAFETY: `addr` is a marked (reachable) object: header and fields are mapped.
        let w0 = unsafe { mem::load(addr) };
        if self.layout.weak_mask(w0) != 0 {
            weak.push(addr);
        }
        self.layout.for_each_strong_ref_field(addr, w0, |field| {
            // SAFETY: `field` is within the object (registry shape or VM model).
            let v = unsafe { mem::load_acquire(addr + WORD * (1 + field)) } as usize;
            if is_ref(v) {
                f(v);
            }
        });
    }

    /// A young cycle's pass over the old region `[base, old_end)`, on one marker
    /// while mutators run: makes every old object marked and every old word
    /// live (the stable part's bits are kept from the last cycle, `sticky.rs`
    /// invariant 6; the newly placed part's are set here), notes the old objects
    /// it reads that have weak fields in `weak`, and calls `young` with every
    /// non-null strong reference they hold to an object outside the old region
    /// (a young, black or large object), for the caller to mark.
    ///
    /// What it reads: with cards ([`MarkCtx::with_old_region`]), the objects of
    /// the stable part that overlap a card dirty now or at the last sweep
    /// (`old_cards.rs`), and every object of the newly placed part; without, the
    /// whole region. A card read keeps its mark, or gets one back, if a field on
    /// it refers outside `[base, boundary)` (a black or large object: still
    /// outside the old region after this cycle); references to young objects
    /// below the boundary need none, since every one of those that is marked is
    /// old after the compaction.
    ///
    /// Why every object reachable in the snapshot is still marked (`sticky.rs`,
    /// invariants 2 and 5): a path to it from a root either stays outside the
    /// old region (traced as in a full cycle) or leaves it last through a field
    /// of an old object, which is on a card this pass reads; if a mutator
    /// overwrote the field first, the write barrier logged the old value
    /// (marking is on), and the markers mark it from the intake.
    pub fn scan_old_region(&self, weak: &mut Vec<usize>, mut young: impl FnMut(usize)) {
        let (base, old_end) = (self.base, self.old_end);
        let old_words = (old_end - base) / WORD;
        let stable_end = self.cards.map_or(base, |c| c.stable_end);
        let stable_words = (stable_end - base) / WORD;
        if self.single {
            // SAFETY: one thread marks at a time (`single_marker`'s contract).
            unsafe {
                self.live
                    .set_range_single(stable_words, old_words - stable_words)
            };
        } else {
            self.live.set_range(stable_words, old_words - stable_words);
        }
        let mut last = OldShape::default();
        if let Some(c) = self.cards {
            let stable_cards = stable_words.div_ceil(CARD_WORDS);
            // Objects below `done` were read already (one may span cards).
            let mut done = base;
            for w in 0..stable_cards.div_ceil(8) {
                let (table, swept) = (c.table.word(w), c.old.swept_byte(w));
                if table == 0 && swept == 0 {
                    continue;
                }
                for card in 8 * w..(8 * w + 8).min(stable_cards) {
                    let b = card - 8 * w;
                    if (table >> (8 * b)) & 0xff == 0 && swept & (1 << b) == 0 {
                        continue;
                    }
                    let first = base + WORD * c.old.start(card);
                    assert!(
                        first <= base + card * CARD_BYTES && self.mark.get((first - base) / WORD),
                        "card {card}'s first object {first:#x} is no object start"
                    );
                    let card_end = (base + (card + 1) * CARD_BYTES).min(stable_end);
                    let mut addr = first.max(done);
                    while addr < card_end {
                        addr += WORD * self.visit_old(addr, &mut last, weak, &mut young);
                    }
                    done = addr;
                }
            }
        }
        // The newly placed part, whole: marked, and its objects' starts noted.
        let mut addr = stable_end;
        while addr < old_end {
            let w = (addr - base) / WORD;
            if self.single {
                // SAFETY: as above.
                unsafe { self.mark.set_single(w) };
            } else {
                self.mark.set(w);
            }
            let words = self.visit_old(addr, &mut last, weak, &mut young);
            if let Some(c) = self.cards {
                c.old.note_object(w, words);
            }
            addr += words * WORD;
        }
        assert_eq!(
            addr, old_end,
            "the old region's last object overruns its end"
        );
    }

    /// Reads the old object at `addr` for [`MarkCtx::scan_old_region`] and
    /// returns its size in words. `last` caches the last type's shape: runs of
    /// one type are common (a tree's nodes), and the registry's general path
    /// looks the shape up twice an object.
    #[inline(always)]
    fn visit_old(
        &self,
        addr: usize,
        last: &mut OldShape,
        weak: &mut Vec<usize>,
        young: &mut impl FnMut(usize),
    ) -> usize {
        let (base, old_end, boundary) = (self.base, self.old_end, self.boundary);
        // `addr` is a card's first object, or the end of the object before.
        // SAFETY: `[base, old_end)` holds the last compaction's survivors end to
        // end (`sticky.rs`, invariant 1), and `addr` is one of their headers:
        // mapped, its type and length immutable.
        let w0 = unsafe { mem::load(addr) };
        // The cache key: the whole word 0 on a model heap (a class pointer;
        // VM objects never take the fixed path), the type index otherwise.
        let ty = self.layout.shape_key(w0);
        if last.ty != Some(ty) {
            *last = OldShape {
                ty: Some(ty),
                fixed: self.layout.fixed_scan(w0),
                weak: self.layout.weak_mask(w0),
            };
        }
        // A field whose referent stays outside the old region after this cycle
        // keeps its card marked for the next one.
        let keep_card = |slot: usize, v: usize| {
            if let Some(c) = self.cards {
                if !(base..boundary).contains(&v) {
                    c.table.dirty(CardTable::card_of(base, slot));
                }
            }
        };
        if let Some(FixedScan {
            words,
            mut strong,
            has_weak,
        }) = last.fixed
        {
            while strong != 0 {
                let field = strong.trailing_zeros() as usize;
                strong &= strong - 1;
                let slot = addr + WORD * (1 + field);
                // SAFETY: `field` is a payload field of the object (its shape).
                let v = unsafe { mem::load_acquire(slot) } as usize;
                if is_ref(v) && !(base..old_end).contains(&v) {
                    young(v);
                    keep_card(slot, v);
                }
            }
            if has_weak {
                weak.push(addr);
                let mut wm = last.weak;
                while wm != 0 {
                    let field = wm.trailing_zeros() as usize;
                    wm &= wm - 1;
                    let slot = addr + WORD * (1 + field);
                    // SAFETY: as above (a weak field of its shape).
                    let v = unsafe { mem::load_acquire(slot) } as usize;
                    if is_ref(v) {
                        keep_card(slot, v);
                    }
                }
            }
            return words;
        }
        let words = self.layout.object_words(addr, w0).unwrap_or_else(|| {
            panic!("bad header {:?} at {addr:#x} in the old region", Header(w0))
        });
        let has_weak = last.weak != 0;
        if has_weak {
            weak.push(addr);
        }
        // Strong fields to mark, and with weak ones, every field for the card.
        let visit = |field: usize, mark: bool, young: &mut dyn FnMut(usize)| {
            let slot = addr + WORD * (1 + field);
            // SAFETY: `field` is within the object (registry shape or VM model).
            let v = unsafe { mem::load_acquire(slot) } as usize;
            if is_ref(v) && !(base..old_end).contains(&v) {
                if mark {
                    young(v);
                }
                keep_card(slot, v);
            }
        };
        self.layout
            .for_each_strong_ref_field(addr, w0, |field| visit(field, true, young));
        if has_weak {
            self.layout
                .for_each_ref_field(addr, w0, |field| visit(field, false, young));
        }
        words
    }

    /// Whether the object at `addr` is live, once marking is complete: old (a young
    /// cycle's), marked below the boundary, black above it, or a marked large
    /// object.
    pub fn is_live(&self, addr: usize) -> bool {
        if (self.base..self.old_end).contains(&addr) {
            true
        } else if (self.base..self.boundary).contains(&addr) {
            self.mark.get((addr - self.base) / WORD)
        } else if (self.boundary..self.end).contains(&addr) {
            true
        } else {
            self.los.is_marked(addr)
        }
    }
}

/// References found by scanning, marked a few discoveries later than found: each is
/// prefetched ([`MarkCtx::prefetch`]) as it enters and marked as it leaves, by
/// when its header and bitmap words are likely in the cache (a FIFO of
/// [`Deferred::DEPTH`], as in Cher, Hosking and Vijaykumar's prefetch-on-grey,
/// ASPLOS 2004). Marking right away waited on a cache miss per object: about
/// 60 ns an object in binary-trees. 32 in flight, not 8: a header's miss here
/// (a TLB walk through the VM's nested page tables, then memory) outlasts 8
/// objects' work; binary-trees at 1 GiB marked a cycle in 52-53 ms with 8, 38-40
/// with 32 (also 64), 40-42 with 128 (two runs each, 2026-12-04). The owner must [`Deferred::flush`] it before
/// it looks for other work or counts itself idle: what is in it is neither
/// marked nor on any work list.
pub struct Deferred {
    ring: [usize; Deferred::DEPTH],
    head: usize,
    len: usize,
}

impl Default for Deferred {
    fn default() -> Self {
        Deferred {
            ring: [0; Deferred::DEPTH],
            head: 0,
            len: 0,
        }
    }
}

impl Deferred {
    /// References in flight.
    pub const DEPTH: usize = 32;

    /// Takes `child`, a reference just read; marks the oldest one in flight once
    /// the FIFO is full, and calls `grey` with it if this marked it.
    #[inline]
    pub fn push<D: Decode>(
        &mut self,
        ctx: &MarkCtx<'_, D>,
        child: usize,
        grey: &mut impl FnMut(usize),
    ) {
        ctx.prefetch(child);
        if self.len < Self::DEPTH {
            self.ring[(self.head + self.len) % Self::DEPTH] = child;
            self.len += 1;
            return;
        }
        let oldest = std::mem::replace(&mut self.ring[self.head], child);
        self.head = (self.head + 1) % Self::DEPTH;
        if ctx.mark(oldest) {
            grey(oldest);
        }
    }

    /// Marks every reference in flight, calling `grey` with each this marked;
    /// whether there was any.
    #[inline]
    pub fn flush<D: Decode>(&mut self, ctx: &MarkCtx<'_, D>, grey: &mut impl FnMut(usize)) -> bool {
        let any = self.len > 0;
        while self.len > 0 {
            let r = self.ring[self.head];
            self.head = (self.head + 1) % Self::DEPTH;
            self.len -= 1;
            if ctx.mark(r) {
                grey(r);
            }
        }
        any
    }
}

/// Marks everything reachable from `roots` (non-null addresses) with `workers` threads,
/// adding the objects with weak fields it scans to `weak`. Returns the number of
/// objects marked.
pub fn mark<D: Decode>(
    ctx: &MarkCtx<'_, D>,
    roots: &[usize],
    workers: usize,
    weak: &mut Vec<usize>,
) -> usize {
    let injector = Injector::new();
    let mut marked = 0;
    for &r in roots {
        if ctx.mark(r) {
            injector.push(r);
            marked += 1;
        }
    }
    if workers <= 1 {
        let mut stack: Vec<usize> = std::iter::from_fn(|| injector.steal().success()).collect();
        while let Some(obj) = stack.pop() {
            ctx.scan(obj, weak, |child| {
                if ctx.mark(child) {
                    marked += 1;
                    stack.push(child);
                }
            });
        }
        return marked;
    }
    let locals: Vec<Worker<usize>> = (0..workers).map(|_| Worker::new_lifo()).collect();
    let stealers: Vec<Stealer<usize>> = locals.iter().map(|w| w.stealer()).collect();
    let idle = AtomicUsize::new(0);
    let total = AtomicUsize::new(marked);
    let holders = std::sync::Mutex::new(std::mem::take(weak));
    std::thread::scope(|s| {
        for (i, local) in locals.into_iter().enumerate() {
            let (injector, stealers, idle, total) = (&injector, &stealers, &idle, &total);
            let holders = &holders;
            let priority = ctx.priority;
            s.spawn(move || {
                crate::priority::collector_thread_start(priority, "flipgc-pause-mark");
                let _fatal = crate::fatal::AbortOnUnwind::new("marking (a GC worker)");
                let mut count = 0;
                let mut mine = Vec::new();
                let find = |local: &Worker<usize>| {
                    local.pop().or_else(|| {
                        std::iter::repeat_with(|| {
                            injector.steal_batch_and_pop(local).or_else(|| {
                                stealers
                                    .iter()
                                    .enumerate()
                                    .filter(|(j, _)| *j != i)
                                    .map(|(_, s)| s.steal())
                                    .collect()
                            })
                        })
                        .find(|s| !s.is_retry())
                        .and_then(|s| s.success())
                    })
                };
                loop {
                    if let Some(obj) = find(&local) {
                        ctx.scan(obj, &mut mine, |child| {
                            if ctx.mark(child) {
                                count += 1;
                                local.push(child);
                            }
                        });
                        continue;
                    }
                    idle.fetch_add(1, Ordering::SeqCst);
                    loop {
                        if idle.load(Ordering::SeqCst) == workers {
                            total.fetch_add(count, Ordering::Relaxed);
                            holders.lock().expect("holders").append(&mut mine);
                            return;
                        }
                        if !injector.is_empty() || stealers.iter().any(|s| !s.is_empty()) {
                            idle.fetch_sub(1, Ordering::SeqCst);
                            break;
                        }
                        // Waits only for its peers, spawned together with one
                        // priority: a real-time worker's yield reaches them.
                        std::hint::spin_loop();
                        std::thread::yield_now();
                    }
                }
            });
        }
    });
    *weak = holders.into_inner().expect("holders");
    total.load(Ordering::Relaxed)
}
