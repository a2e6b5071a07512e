//! Page filling: producing to-space pages from from-space.
//!
//! After the flip, the old heap image is in from-space (read-only from here on) and
//! the heap range is to-space. Live objects keep their order and slide down, so
//! to-space is one contiguous run of live objects; page `p` starts inside (or at)
//! the object recorded in `page_first[p]`. Filling a page copies the words that land
//! in it and rewrites every reference field to its referent's new address
//! ([`Forwarding`]). Pages are independent: any order, any thread, into place or
//! into a buffer that userfaultfd installs (`concurrent.rs`).
//!
//! Black allocation (concurrent cycles only): objects allocated between the
//! mark-start pause and the flip pause lie in `[boundary, flip_top)` (the boundary
//! is page-aligned). They are live by definition and move by one constant,
//! page-aligned `slide`, so to-space page `p >= compacted_pages` is from-space page
//! `p + slide / page`, with its references forwarded. To find the object covering a
//! black page's first word, filling starts from the nearest allocation before it:
//! every carve of that region (a whole allocation buffer, or one large object) was
//! logged (`black_starts`, in address order), and objects are contiguous inside a
//! carve, so the walk is at most one allocation buffer long; pages filled in a run
//! in address order skip it, each starting from the object the previous one ended
//! in. Nothing is built in the flip pause, and nothing is allocated while filling.
//! A black page, being one old page with its references forwarded, can also be
//! produced in place, in from-space, and then moved
//! ([`FillCtx::fill_black_in_place`], `compaction.rs`).
//!
//! The per-page plan (`page_first`) comes from `plan.rs`.
//!
//! **Async-signal-safe.** [`FillCtx::fill_pages_to`] runs inside the faulting
//! thread's `SIGBUS` handler in SIGBUS mode (`sigbus.rs`), so it and everything it
//! calls only read the read-only tables and from-space, write the caller's buffer,
//! take no lock and allocate nothing; a broken invariant (a header no type
//! describes, live data that ends early) ends the process through
//! [`crate::fatal::die`] (a raw `write(2)` and `abort(3)`), not through a panic.

use super::bitmap::Bitmap;
use super::dispatch::FillFns;
use super::forward::Forwarding;
use super::heap_inner::HeapInner;
use super::plan::Dense;
use super::release::Tables;
use crate::decode::{Decode, Decoder, Kind};
use crate::mem::{self, WORD};
use crate::object::{is_ref, Header};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where compaction reads and writes (addresses are absolute).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Heap (to-space) base.
    pub base: usize,
    /// From-space base (holds the old heap image at the same offsets).
    pub from: usize,
    /// Word index of the end of the marked region (marked objects lie below).
    pub top_word: usize,
    /// Live words (the compacted size).
    pub live_words: usize,
    /// Words per page.
    pub page_words: usize,
    /// End of the marked (old) region: references below move by the prefix sums.
    pub boundary: usize,
    /// End of the black region: references in `[boundary, flip_top)` move by `slide`.
    pub flip_top: usize,
    /// How far black objects move down (a multiple of the page size).
    pub slide: usize,
}

/// What page filling reads, owned for the time of a compaction: the side tables,
/// the prefix sums, the starts of the black region's carves, and the dense prefix.
pub struct FillTables {
    tables: Tables,
    fwd: Forwarding,
    black_starts: Vec<usize>,
    dense: Dense,
}

impl FillTables {
    /// The tables of a plan; `black_starts` are the black region's carve starts, in
    /// address order (empty without black allocation); `dense` is the plan's dense
    /// prefix.
    pub fn new(
        tables: Tables,
        fwd: Forwarding,
        black_starts: Vec<usize>,
        dense: Dense,
    ) -> FillTables {
        FillTables {
            tables,
            fwd,
            black_starts,
            dense,
        }
    }

    /// The filling context over these tables and `layout`.
    pub fn ctx<'a>(&'a self, inner: &'a HeapInner, layout: &Layout) -> FillCtx<'a> {
        FillCtx {
            dec: inner.decoder(),
            fns: inner.dispatch.fill,
            mark: &self.tables.mark,
            live: &self.tables.live,
            fwd: &self.fwd,
            page_first: &self.tables.page_first,
            at: *layout,
            black_starts: &self.black_starts,
            dense_pages: self.dense.pages,
            heads: &self.dense.heads,
            clean: &self.dense.clean,
            cards: &inner.cards,
            priority: inner.config.gc_thread_priority,
        }
    }

    /// The side tables, to hand back.
    pub fn into_tables(self) -> Tables {
        let mut tables = self.tables;
        tables.live_before = self.fwd.into_buffer();
        tables
    }
}

/// The side tables and layout compaction fills pages from.
pub struct FillCtx<'a> {
    /// Object shapes: the built-in registry or the heap's VM model. A VM object
    /// is decoded from its from-space copy: its header words (the only words a
    /// model reads) are live words, so from-space holds them, unchanged, while
    /// anyone may produce a page from them (the dense prefix, whose old pages
    /// move early, is not used on a model heap: `concurrent.rs`).
    pub dec: Decoder<'a>,
    /// The page-filling loops instantiated for the heap's model
    /// (`dispatch.rs`), which narrow `dec` once per call.
    pub fns: FillFns,
    /// Header bits (over from-space word indices).
    pub mark: &'a Bitmap,
    /// Live-word bits.
    pub live: &'a Bitmap,
    /// New addresses.
    pub fwd: &'a Forwarding,
    /// The per-page plan.
    pub page_first: &'a [(usize, usize)],
    /// Where everything is.
    pub at: Layout,
    /// The black region's carve starts (old addresses), in address order.
    pub black_starts: &'a [usize],
    /// Pages of the dense prefix ([`Dense`]).
    pub dense_pages: usize,
    /// The headers of the objects covering the first word of the dense prefix's
    /// pages and the next page ([`Dense::heads`]).
    pub heads: &'a [u64],
    /// The dense pages whose cards the last sweep found clean ([`Dense::clean`]).
    pub clean: &'a [u64],
    /// The mutators' card table.
    pub cards: &'a crate::cards::CardTable,
    /// The scheduling of the in-pause filling threads
    /// ([`HeapConfig::gc_thread_priority`](crate::HeapConfig::gc_thread_priority)).
    pub priority: crate::priority::GcThreadPriority,
}

impl FillCtx<'_> {
    /// The new address of the object (or large object) at old address `v`.
    #[inline]
    pub fn forward(&self, v: usize) -> usize {
        if (self.at.base..self.at.boundary).contains(&v) {
            self.at.base + WORD * self.fwd.new_index(self.live, (v - self.at.base) / WORD)
        } else if (self.at.boundary..self.at.flip_top).contains(&v) {
            v - self.at.slide
        } else {
            v
        }
    }

    /// Where the object at old address `v` lives after this collection, or `None`
    /// if it died: objects of the marked region survive iff marked, black objects
    /// always, large objects iff they are still allocated (`los`, after the sweep).
    pub fn survivor(&self, v: usize, los: &crate::space::los::LosMarks) -> Option<usize> {
        if (self.at.base..self.at.boundary).contains(&v) {
            self.mark
                .get((v - self.at.base) / WORD)
                .then(|| self.forward(v))
        } else if (self.at.boundary..self.at.flip_top).contains(&v) {
            Some(v - self.at.slide)
        } else {
            los.exists(v).then_some(v)
        }
    }

    /// The from-space address of the object at old address `at`.
    #[inline(always)]
    fn old_copy(&self, at: usize) -> usize {
        self.at.from + (at - self.at.base)
    }

    /// Whether objects were allocated between the mark and the flip.
    fn has_black(&self) -> bool {
        self.at.flip_top > self.at.boundary
    }

    /// All to-space pages: compacted, then black.
    pub fn pages(&self) -> usize {
        let page = self.at.page_words * WORD;
        let black = if self.has_black() {
            (self.at.flip_top - self.at.boundary).div_ceil(page)
        } else {
            0
        };
        self.page_first.len() + black
    }

    /// The allocation top once every page is filled.
    pub fn new_top(&self) -> usize {
        if !self.has_black() {
            self.at.base + self.at.live_words * WORD
        } else {
            self.at.flip_top - self.at.slide
        }
    }

    /// Produces to-space pages `[first, end)` into consecutive page-sized buffers
    /// from `out` (compacted pages, then black ones), except that a black page whose
    /// covering object is known starts from it, instead of walking again from its
    /// carve's start (up to an allocation buffer of objects: most of the filling
    /// time of black pages before this). `cover` carries that knowledge from call
    /// to call (a page index and the old address of the object covering its first
    /// word): a caller that fills runs of pages in address order passes the same
    /// one each time.
    ///
    /// One indirect call into the heap's model's instantiation (`dispatch.rs`).
    pub fn fill_pages_to(
        &self,
        first: usize,
        end: usize,
        out: usize,
        cover: &mut Option<(usize, usize)>,
    ) {
        (self.fns.pages_to)(self, first, end, out, cover)
    }

    /// The start (old address) of the black region's carve covering old address
    /// `at`: the last carve start at or before it.
    pub fn carve_start(&self, at: usize) -> usize {
        let i = self.black_starts.partition_point(|&c| c <= at);
        if i == 0 {
            self.at.boundary
        } else {
            self.black_starts[i - 1]
        }
    }

    /// The first black page (a to-space page index) that producing black pages
    /// from `p` on may read the old page of: the page holding the start of the
    /// carve covering page `p`'s first word ([`Filler::fill_black`] reads old
    /// pages back to there, and no further). [`FillCtx::pages`] for `p` past the
    /// last page.
    pub fn first_black_read(&self, p: usize) -> usize {
        let first = self.page_first.len();
        if p >= self.pages() {
            return self.pages();
        }
        let page = self.at.page_words * WORD;
        let old = self.at.boundary + (p.max(first) - first) * page;
        first + (self.carve_start(old) - self.at.boundary) / page
    }

    /// The address, in from-space, of black page `p`'s old page (`p` a to-space
    /// page index, past the compacted pages).
    pub fn black_old_page(&self, p: usize) -> usize {
        let first = self.page_first.len();
        debug_assert!((first..self.pages()).contains(&p));
        self.at.from + (self.at.boundary - self.at.base) + (p - first) * self.at.page_words * WORD
    }

    /// Black page `p` (a to-space page index, past the compacted pages) produced
    /// in place, in its old page ([`FillCtx::black_old_page`]): its references
    /// forwarded there and its words past the flip top zeroed, so that the old
    /// page is to-space page `p` as it must be, ready to be moved there. `cover`
    /// as in [`FillCtx::fill_pages_to`] (the same for a run of calls in address
    /// order).
    ///
    /// Only the claimant of page `p` may call this, once: forwarding is not
    /// idempotent. Others read the old page only for object headers (producing a
    /// later page walks headers from its carve's start), which this leaves as they
    /// are; their references they do not read.
    ///
    /// One indirect call into the heap's model's instantiation (`dispatch.rs`).
    pub fn fill_black_in_place(&self, p: usize, cover: &mut Option<(usize, usize)>) {
        (self.fns.black_in_place)(self, p, cover)
    }

    /// Dense page `p` (below [`FillCtx::dense_pages`]) produced in place, in
    /// from-space: its objects keep their addresses, so only its references are
    /// forwarded. The page is then ready to be installed from from-space at the
    /// same offset in to-space (moved or copied).
    ///
    /// Only the claimant of page `p` may call this, once: forwarding is not
    /// idempotent. From-space page `p` is read by nobody else: every object on it
    /// lands on it (`dense_pages`), and a later page's first object that starts
    /// here is read through its head ([`Dense::heads`]).
    ///
    /// [`Filler::fill_compacted`] in place, cut down to what a dense page needs:
    /// every word is live, so the next object starts where this one ends (no
    /// search of the live-words bitmap, no copy), and a reference into the dense
    /// prefix is its own new address (every word below it is live), so only the
    /// others are looked up. In binary-trees, whose long-lived tree (96 MiB) is the
    /// prefix and refers only into itself, that is nearly every reference.
    ///
    /// A stable old page with clean cards ([`Dense::clean`], and none dirty in
    /// the table now) is left as it is: its references all point into the
    /// prefix or at large objects (`sticky.rs`, invariant 5: a reference to
    /// anything that moves was stored after the sweep, or found by the young
    /// cycle's pass on a swept card). The table is read after the flip pause,
    /// which every mutator has passed since its last store into the page (a
    /// store after the flip waits for this page to be produced), so every such
    /// store's mark is visible.
    ///
    /// One indirect call into the heap's model's instantiation (`dispatch.rs`).
    pub fn fill_dense(&self, p: usize) {
        (self.fns.dense)(self, p)
    }

    /// Produces every to-space page, compacted and black, with `workers` threads.
    pub fn fill_all(&self, workers: usize) {
        let pages = self.pages();
        if workers <= 1 || pages < 64 {
            self.fill_pages_to(0, pages, self.at.base, &mut None);
            return;
        }
        const BATCH: usize = 16;
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    crate::priority::collector_thread_start(self.priority, "flipgc-pause-fill");
                    let _fatal =
                        crate::fatal::AbortOnUnwind::new("in-pause compaction (a GC worker)");
                    // The black object covering the next page, from this worker's
                    // batch before (used only if that page is the next one here).
                    let mut cover = None;
                    loop {
                        let start = next.fetch_add(BATCH, Ordering::Relaxed);
                        if start >= pages {
                            return;
                        }
                        let end = (start + BATCH).min(pages);
                        let out = self.at.base + start * self.at.page_words * WORD;
                        self.fill_pages_to(start, end, out, &mut cover);
                    }
                });
            }
        });
    }
}

/// A [`FillCtx`] with its decoder narrowed to the heap's model (`decode.rs`):
/// the page-filling loops, generic over it, so that sizing an object and
/// finding its references are static calls. Made once per page or run of pages
/// by the entry points below, which [`FillFns`] holds instantiated per model.
struct Filler<'c, 'a, D> {
    ctx: &'c FillCtx<'a>,
    dec: D,
}

impl<'a, D> std::ops::Deref for Filler<'_, 'a, D> {
    type Target = FillCtx<'a>;
    fn deref(&self) -> &FillCtx<'a> {
        self.ctx
    }
}

/// [`FillCtx::fill_pages_to`] for decoder kind `K`.
pub(crate) fn pages_to<K: Kind>(
    ctx: &FillCtx<'_>,
    first: usize,
    end: usize,
    out: usize,
    cover: &mut Option<(usize, usize)>,
) {
    let dec = K::narrow(ctx.dec);
    Filler { ctx, dec }.fill_pages_to(first, end, out, cover)
}

/// [`FillCtx::fill_black_in_place`] for decoder kind `K`.
pub(crate) fn black_in_place<K: Kind>(
    ctx: &FillCtx<'_>,
    p: usize,
    cover: &mut Option<(usize, usize)>,
) {
    let dec = K::narrow(ctx.dec);
    Filler { ctx, dec }.fill_black_in_place(p, cover)
}

/// [`FillCtx::fill_dense`] for decoder kind `K`.
pub(crate) fn dense<K: Kind>(ctx: &FillCtx<'_>, p: usize) {
    let dec = K::narrow(ctx.dec);
    Filler { ctx, dec }.fill_dense(p)
}

impl<D: Decode> Filler<'_, '_, D> {
    /// Words of the object with word 0 `h` at old address `at`, whose from-space
    /// copy is at `src`; a header no type describes ends the process
    /// ([`crate::fatal::die`]: this may run in a signal handler).
    #[inline]
    fn object_words(&self, h: Header, src: usize, at: usize) -> usize {
        match self.dec.object_words(src, h.0) {
            Some(n) => n,
            None => crate::fatal::die(format_args!(
                "page filling: invalid header {:#x} at {at:#x} (old address)",
                h.0
            )),
        }
    }

    /// What a walk needs of the object with header `h` at old address `at`: its
    /// words ([`Filler::object_words`]) and
    /// [`TypeRegistry::fixed_ref_mask`](crate::TypeRegistry::fixed_ref_mask)(crate::TypeRegistry::fixed_ref_mask).
    #[inline]
    fn shape_of(&self, h: Header, at: usize) -> (usize, Option<u64>) {
        let src = self.old_copy(at);
        (self.object_words(h, src, at), self.dec.fixed_ref_mask(h.0))
    }

    /// Whether a walk may reuse the shape of the last object for one with the same
    /// word 0: always on the built-in model (a header fixes the size); on a model
    /// heap only for fillers (a class pointer may not: arrays).
    #[inline(always)]
    fn shape_cacheable(&self, h: Header) -> bool {
        self.dec.shape_cacheable(h.0)
    }

    /// Calls `f` with each reference field index of the object with header `h` at
    /// old address `at`, from `refs` (its
    /// [`TypeRegistry::fixed_ref_mask`](crate::TypeRegistry::fixed_ref_mask)(crate::TypeRegistry::fixed_ref_mask))
    /// where it has one.
    #[inline(always)]
    fn for_each_ref(&self, (h, at): (Header, usize), refs: Option<u64>, mut f: impl FnMut(usize)) {
        match refs {
            Some(mut mask) => {
                while mask != 0 {
                    f(mask.trailing_zeros() as usize);
                    mask &= mask - 1;
                }
            }
            None => self.dec.for_each_ref_field(self.old_copy(at), h.0, f),
        }
    }

    /// [`FillCtx::fill_pages_to`], decoding with `D`.
    fn fill_pages_to(
        &self,
        first: usize,
        end: usize,
        out: usize,
        cover: &mut Option<(usize, usize)>,
    ) {
        let page = self.at.page_words * WORD;
        for p in first..end {
            let o = out + (p - first) * page;
            if p < self.page_first.len() {
                self.fill_compacted(p, o);
            } else {
                let known = cover.filter(|(at, _)| *at == p).map(|(_, obj)| obj);
                let next = self.fill_black(p - self.page_first.len(), o, known);
                *cover = Some((p + 1, next));
            }
        }
    }

    /// The old address of the black object covering old address `at`: walks from
    /// the last carve start at or before it.
    fn black_cover(&self, at: usize) -> usize {
        let mut obj = self.carve_start(at);
        let mut shapes = LastShape::default();
        loop {
            // SAFETY: `obj` is an object (or filler) header below the flip top: black
            // objects are contiguous inside each carve; from-space is read-only now.
            let h = Header(unsafe { mem::load(self.at.from + (obj - self.at.base)) });
            let fresh = !self.shape_cacheable(h);
            let size = WORD * shapes.get(h, fresh, || self.shape_of(h, obj)).0;
            if obj + size > at {
                return obj;
            }
            obj += size;
        }
    }

    /// Black page `q`: one from-space page, references forwarded, zero past the end,
    /// in the page-sized buffer at `out` (or in place, if `out` is the old page
    /// itself: nothing is copied then). `cover` is the old address of the object covering the page's first word, if
    /// the caller knows it. Returns the one covering the next page's first word.
    ///
    /// The black region is parsable from any object in it to its end: carves are
    /// contiguous (the top only grows until the flip), and each is whole objects, the
    /// tail of an allocation buffer being a filler (every buffer is retired before
    /// the flip pause reads the top).
    fn fill_black(&self, q: usize, out: usize, cover: Option<usize>) -> usize {
        let page = self.at.page_words * WORD;
        let start = self.at.boundary + q * page; // old address of the page
        let n = ((self.at.flip_top - start) / WORD).min(self.at.page_words);
        let src = self.at.from + (start - self.at.base);
        if out != src {
            // SAFETY: [start, +n words) is below the flip top, so in from-space
            // (read-only during compaction but for its claimant's page, which is
            // `out` then); `out` is a page-sized buffer owned by the caller.
            unsafe { mem::copy_words(src, out, n) };
        }
        // SAFETY: the rest of the caller's buffer.
        unsafe { mem::zero_words(out + n * WORD, self.at.page_words - n) };
        let mut obj = cover.unwrap_or_else(|| self.black_cover(start));
        let mut last = obj;
        let mut shapes = LastShape::default();
        let black = self.at.boundary..self.at.flip_top;
        while obj < (start + page).min(self.at.flip_top) {
            last = obj;
            // SAFETY: `obj` is a black object header below the flip top (from-space).
            let h = Header(unsafe { mem::load(self.at.from + (obj - self.at.base)) });
            let fresh = !self.shape_cacheable(h);
            let (size, refs) = shapes.get(h, fresh, || self.shape_of(h, obj));
            self.for_each_ref((h, obj), refs, |field| {
                let at = obj + (field + 1) * WORD;
                if (start..start + n * WORD).contains(&at) {
                    let slot = out + (at - start);
                    // SAFETY: `slot` is in the caller's buffer, just copied.
                    let v = unsafe { mem::load(slot) } as usize;
                    if is_ref(v) {
                        // Black objects refer mostly to black ones: that case first.
                        let new = if black.contains(&v) {
                            v - self.at.slide
                        } else {
                            self.forward(v)
                        };
                        // SAFETY: as above.
                        unsafe { mem::store(slot, new as u64) };
                    }
                }
            });
            obj += size * WORD;
        }
        // `last` starts at or before the next page's first word and `obj` after
        // `last`'s end: the next page begins in `last` unless exactly at `obj`.
        if obj == start + page {
            obj
        } else {
            last
        }
    }

    /// [`FillCtx::fill_black_in_place`], decoding with `D`.
    fn fill_black_in_place(&self, p: usize, cover: &mut Option<(usize, usize)>) {
        let q = p - self.page_first.len();
        let known = cover.filter(|(at, _)| *at == p).map(|(_, obj)| obj);
        let next = self.fill_black(q, self.black_old_page(p), known);
        *cover = Some((p + 1, next));
    }

    /// [`FillCtx::fill_dense`], decoding with `D`: a stable old page with clean
    /// cards is left as it is (there).
    fn fill_dense(&self, p: usize) {
        debug_assert!(p < self.dense_pages);
        let words = self.at.page_words;
        if self
            .clean
            .get(p / 64)
            .is_some_and(|w| w & (1 << (p % 64)) != 0)
        {
            let first = p * words / crate::cards::CARD_WORDS;
            let cards = words.div_ceil(crate::cards::CARD_WORDS);
            if (first..first + cards).all(|c| !self.cards.is_dirty(c)) {
                return;
            }
        }
        let prefix = self.at.base..self.at.base + self.dense_pages * words * WORD;
        // Dense: the next live word is the next object's header.
        self.walk_page(
            p,
            (p + 1) * words,
            |obj, size| obj + size,
            |obj, shape, off, n, _| {
                // SAFETY: words `off..off + n` of `obj` lie on from-space page `p`,
                // which only this caller writes.
                unsafe {
                    self.forward_fields(shape, (off, n), self.at.from + (obj + off) * WORD, |v| {
                        prefix.contains(&v)
                    })
                };
            },
        );
    }

    /// Compacted page `p`: the live words that slide into it, references forwarded;
    /// past the live end, a filler up to the black region or zeros.
    fn fill_compacted(&self, p: usize, out: usize) {
        let first_word = p * self.at.page_words;
        let end_word = (first_word + self.at.page_words).min(self.at.live_words);
        // The next live word is the next marked object's header: live words are
        // exactly the words of marked objects, which do not overlap.
        let next = |obj: usize, size: usize| match self.fwd.next_live(self.live, obj + size) {
            Some(next) if next < self.at.top_word && self.mark.get(next) => next,
            Some(next) if next < self.at.top_word => crate::fatal::die(format_args!(
                "page filling: live word {next} in to-space page {p} is not a marked \
                 object's header"
            )),
            _ => crate::fatal::die(format_args!(
                "page filling: live data ends early in to-space page {p} (after the \
                 object at word {obj}), against the plan"
            )),
        };
        self.walk_page(p, end_word, next, |obj, shape, off, n, at| {
            let src = self.at.from + (obj + off) * WORD;
            let dst = out + (at - first_word) * WORD;
            // SAFETY: [src, +n) lies in this object in from-space; [dst, +n) in the
            // caller's page (to-space or a buffer), written by this call only.
            unsafe { mem::copy_words(src, dst, n) };
            // SAFETY: as just above; the words are this call's.
            unsafe { self.forward_fields(shape, (off, n), dst, |_| false) };
        });
        let rest = first_word + self.at.page_words - end_word;
        if rest > 0 {
            let tail = out + (end_word - first_word) * WORD;
            if !self.has_black() {
                // SAFETY: the page's tail past the live end, in the caller's page.
                unsafe { mem::zero_words(tail, rest) };
            } else {
                // SAFETY: the page's tail past the live end, in the caller's page.
                unsafe { crate::space::tlab::write_filler(tail, rest) };
            }
        }
    }

    /// Walks the objects whose live words land in to-space words
    /// `[p * page_words, end_word)`, from page `p`'s plan: calls `visit(obj, (h,
    /// refs), off, n, at)` for each (its old word index, header and
    /// [`TypeRegistry::fixed_ref_mask`](crate::TypeRegistry::fixed_ref_mask), the first of its words
    /// on the page and how many, and the to-space word index they land at), and
    /// `next(obj, size)` for the old word index of the object after one that does
    /// not reach `end_word`.
    #[inline(always)]
    fn walk_page(
        &self,
        p: usize,
        end_word: usize,
        mut next: impl FnMut(usize, usize) -> usize,
        mut visit: impl FnMut(usize, ((Header, usize), Option<u64>), usize, usize, usize),
    ) {
        let (mut obj, mut off) = self.page_first[p];
        // The first object may start on an earlier page, moved out of from-space
        // already if it is in the dense prefix: its header comes from the plan then.
        let mut head = self.heads.get(p).copied();
        let mut at = p * self.at.page_words;
        let mut shapes = LastShape::default();
        while at < end_word {
            let h = Header(match head.take() {
                Some(h) => h,
                // SAFETY: `obj` is a marked object: its header is in from-space
                // (mapped, read-only during compaction but for dense pages, each
                // written by its claimant alone: `fill_dense`).
                None => unsafe { mem::load(self.at.from + obj * WORD) },
            });
            let old = self.at.base + obj * WORD;
            let fresh = !self.shape_cacheable(h);
            let (size, refs) = shapes.get(h, fresh, || self.shape_of(h, old));
            let n = (size - off).min(end_word - at);
            visit(obj, ((h, old), refs), off, n, at);
            at += n;
            if at < end_word {
                obj = next(obj, size);
                off = 0;
            }
        }
    }

    /// Forwards the references among words `off..off + n` of an object with header
    /// `h` (and `refs`, its [`TypeRegistry::fixed_ref_mask`](crate::TypeRegistry::fixed_ref_mask)), whose word `off` is at address `at` now (copied, or in place); null and
    /// the references `unmoved` picks out are left as they are.
    ///
    /// # Safety
    /// `[at, at + n words)` is mapped, writable, and written by the caller alone.
    #[inline(always)]
    unsafe fn forward_fields(
        &self,
        (h, refs): ((Header, usize), Option<u64>),
        (off, n): (usize, usize),
        at: usize,
        unmoved: impl Fn(usize) -> bool,
    ) {
        self.for_each_ref(h, refs, |field| {
            let k = field + 1; // word index in the object
            if (off..off + n).contains(&k) {
                let slot = at + (k - off) * WORD;
                // SAFETY: `slot` is one of the caller's `n` words.
                let v = unsafe { mem::load(slot) } as usize;
                if is_ref(v) && !unmoved(v) {
                    let new = self.forward(v);
                    if new != v {
                        // SAFETY: as above.
                        unsafe { mem::store(slot, new as u64) };
                    }
                }
            }
        });
    }
}

/// The shape of the last object a walk looked up, by its header word: its words
/// and [`TypeRegistry::fixed_ref_mask`](crate::TypeRegistry::fixed_ref_mask). Objects in a run are mostly of one type:
/// when the next header is the same word, its size is known from a compare that
/// the CPU predicts, so the next object's address does not wait for the header
/// load and the type-table lookup (which made each step of a walk one
/// load-to-use chain long), and its references need no lookup either.
#[derive(Default)]
struct LastShape {
    header: u64,
    words: usize,
    refs: Option<u64>,
}

impl LastShape {
    #[inline(always)]
    fn get(
        &mut self,
        h: Header,
        fresh: bool,
        lookup: impl FnOnce() -> (usize, Option<u64>),
    ) -> (usize, Option<u64>) {
        if fresh || h.0 != self.header || self.words == 0 {
            (self.words, self.refs) = lookup();
            self.header = h.0;
        }
        (self.words, self.refs)
    }
}

#[cfg(test)]
mod tests {
    //! Black pages filled in runs carry their covering object from page to page
    //! (`fill_pages_to`'s `cover`): checked against a model of the black region
    //! (copied, references moved down by the slide) for every way of cutting the
    //! pages into runs.
    use super::*;
    use crate::object::{TypeId, TypeRegistry};

    /// Words per page: small pages, so that objects cross many page boundaries
    /// (filling only counts words; nothing here is mapped at the heap's addresses).
    const PAGE_WORDS: usize = 8;
    /// A made-up heap base: only used in address arithmetic.
    const BASE: usize = 0x4000_0000;

    struct Black {
        types: TypeRegistry,
        /// The old image, from the heap base (words).
        from: Vec<u64>,
        boundary: usize,
        flip_top: usize,
        slide: usize,
        black_starts: Vec<usize>,
    }

    /// A black region of reference arrays and byte arrays of many sizes, some
    /// ending exactly at a page end, with references among them; two carves.
    fn black_region() -> Black {
        let mut types = TypeRegistry::new();
        let arr = types.ref_array("refs").unwrap();
        let bytes = types.byte_array("bytes").unwrap();
        let page = PAGE_WORDS * WORD;
        let (boundary, slide) = (BASE + 2 * page, 2 * page);
        let mut from = vec![0u64; 2 * PAGE_WORDS];
        let mut objs: Vec<(usize, TypeId, usize)> = Vec::new();
        // Payload lengths: arrays of 0-12 references, byte arrays of 0-40 bytes;
        // the first object ends exactly at the first page's end (7 + 1 words).
        let shapes: Vec<(TypeId, usize)> = (0..60)
            .map(|i| match i % 3 {
                0 => (arr, [7, 0, 3, 12, 1, 5][i / 3 % 6]),
                1 => (bytes, [8, 0, 40, 17][i / 3 % 4]),
                _ => (arr, [2, 9, 6][i / 3 % 3]),
            })
            .collect();
        let mut black_starts = vec![boundary];
        for (i, &(ty, len)) in shapes.iter().enumerate() {
            let at = BASE + from.len() * WORD;
            if i == 31 {
                black_starts.push(at);
            }
            let (h, words) = types.layout(ty, len).unwrap();
            from.push(h.0);
            from.extend(std::iter::repeat_n(0, words - 1));
            objs.push((at, ty, len));
        }
        let flip_top = BASE + from.len() * WORD;
        // References: element j of the array at i points at object (i * 7 + j * 3) % n.
        for (i, &(at, ty, len)) in objs.iter().enumerate() {
            if ty == arr {
                for j in 0..len {
                    let target = objs[(i * 7 + j * 3) % objs.len()].0;
                    let v = if (i + j) % 5 == 0 { 0 } else { target };
                    from[(at - BASE) / WORD + 1 + j] = v as u64;
                }
            }
        }
        from.extend(std::iter::repeat_n(0, PAGE_WORDS));
        Black {
            types,
            from,
            boundary,
            flip_top,
            slide,
            black_starts,
        }
    }

    /// The to-space image of the black pages: the region's words moved down by the
    /// slide, each reference moved by it too, zeros past the flip top.
    fn model(b: &Black, pages: usize) -> Vec<u64> {
        let first = (b.boundary - BASE) / WORD;
        let n = (b.flip_top - b.boundary) / WORD;
        let mut out = vec![0u64; pages * PAGE_WORDS];
        out[..n].copy_from_slice(&b.from[first..first + n]);
        let mut obj = b.boundary;
        while obj < b.flip_top {
            let h = Header(b.from[(obj - BASE) / WORD]);
            b.types.for_each_ref_field(h, |f| {
                let k = (obj - b.boundary) / WORD + 1 + f;
                if out[k] != 0 {
                    out[k] -= b.slide as u64;
                }
            });
            obj += WORD * b.types.object_words(h).unwrap();
        }
        out
    }

    #[test]
    fn black_pages_filled_in_runs_match_the_model() {
        let b = black_region();
        let (mark, live) = (Bitmap::new(64), Bitmap::new(64));
        let fwd = Forwarding::build(&live, 0, Vec::new());
        let ctx = FillCtx {
            dec: Decoder {
                types: &b.types,
                model: None,
            },
            fns: FillFns::of::<crate::decode::BuiltinKind>(),
            mark: &mark,
            live: &live,
            fwd: &fwd,
            page_first: &[],
            at: Layout {
                base: BASE,
                from: b.from.as_ptr() as usize,
                top_word: 0,
                live_words: 0,
                page_words: PAGE_WORDS,
                boundary: b.boundary,
                flip_top: b.flip_top,
                slide: b.slide,
            },
            black_starts: &b.black_starts,
            dense_pages: 0,
            heads: &[],
            clean: &[],
            cards: &crate::cards::CardTable::new(0),
            priority: crate::priority::GcThreadPriority::Inherit,
        };
        let pages = ctx.pages();
        assert!(pages > 30, "{pages} pages");
        let want = model(&b, pages);
        // Cut the pages into runs of `len` pages, each filled in address order with
        // one cover carried along, as a background worker does; the runs in address
        // order (the cover fits the next run's first page) and in reverse (it names
        // a later page, and must not be used); and each page alone, as a faulting
        // thread does.
        for len in [1, 2, 3, 5, pages] {
            for reverse in [false, true] {
                let mut got = vec![0u64; pages * PAGE_WORDS];
                let mut cover = None;
                let mut runs: Vec<usize> = (0..pages).step_by(len).collect();
                if reverse {
                    runs.reverse();
                }
                for first in runs {
                    let end = (first + len).min(pages);
                    let out = got[first * PAGE_WORDS..].as_mut_ptr() as usize;
                    ctx.fill_pages_to(first, end, out, &mut cover);
                }
                assert_eq!(got, want, "runs of {len} page(s), reverse {reverse}");
            }
        }
        for p in (0..pages).rev() {
            let mut got = vec![0u64; PAGE_WORDS];
            ctx.fill_pages_to(p, p + 1, got.as_mut_ptr() as usize, &mut None);
            assert_eq!(
                got[..],
                want[p * PAGE_WORDS..][..PAGE_WORDS],
                "page {p} alone"
            );
        }
    }
}
