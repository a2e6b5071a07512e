//! Recycling: from-space's pages go back into the heap at the same offsets
//! (moved with `UFFDIO_MOVE`, not copied), where mutators will allocate, so that
//! they write into present pages instead of faulting fresh, zeroed ones in (page
//! faults are expensive here: a fresh page costs the kernel an allocation and a
//! zeroing, and in this VM often the host's fault too). Three passes:
//! - **ahead** ([`Compaction::recycle_ahead`]), as the compaction starts: every
//!   from-space page above the allocation top that holds nothing compaction reads
//!   (no live word, not in the black region);
//! - **behind the black pages** ([`Compaction::recycle_black_below`]), as the
//!   black region, filled first, becomes `FILLED`: its old offsets that no
//!   remaining black page can read. Most of its old pages have moved to their new
//!   places (`Compaction::work_black`), so a whole chunk there takes a *spare*
//!   chunk of from-space instead (one below to-space's produced pages and the
//!   mark boundary, with no live word: [`Compaction::next_spare`]); a part of a
//!   chunk, or any chunk once the spares run out, takes what is left of its own
//!   old pages;
//! - **at the end** ([`Compaction::recycle`]), once every page is filled: whatever
//!   is left above the allocation top. It skips the runs the other passes moved
//!   (they are holes in from-space now), so that it does not ask the kernel to
//!   move them again only to fail with `EEXIST` one page per ioctl.
//!
//! Every run stays inside one chunk (a PMD: [`unread_run`]), so huge pages move
//! whole.
//!
//! The old image's pages of extents parked before the flip (`park.rs`) are in the
//! scratch span, not from-space: every pass takes them from there
//! ([`Parked::source`](crate::space::moving::Parked::source)).
//!
//! What from-space keeps after them is mapped afresh (`release_from_space`), and
//! so is what is left parked.
//!
//! Why no allocation can see garbage (invariant Z): before any pass moves a
//! page, the dirty end is raised over the old image under the space lock, so every
//! later carve zeroes what it hands out (under that lock, so its pages are present
//! when it returns); a pass moves only pages above the top as it was at (or after)
//! the raise, and a move onto a present page fails with `EEXIST` and changes
//! nothing (it is skipped). Above the old image, from-space reads as zeros.
//!
//! Memory ordering: the raise and every carve's look at the dirty end happen under
//! the space lock (its release/acquire orders them). A move changes only page
//! tables, in the kernel, under the page-table lock: a mutator's access to a page
//! either finds it absent and faults (the kernel resolves the fault against the
//! installed entry, or the zero fill finds the page there, `EEXIST`), or finds the
//! moved page; the entry was empty before, so no CPU holds a stale translation
//! for it, on x86_64 or arm64 (the kernel's install has the barriers each needs).
//! The pages' contents need no ordering: they are garbage until a carve zeroes
//! them, and the carve's own stores are what the allocating thread reads.
//!
//! Why compaction never reads a moved page: the ahead pass moves only pages with no
//! live word (the live-words bitmap has a bit at every word of every marked object)
//! outside `[boundary, flip_top)` (the black region), and page filling reads only
//! those words and that region (`fill.rs`); the pass behind the black pages moves
//! only old pages of that region that no black page still to be filled reads,
//! once the black pages that read them are `FILLED` (acquire loads of states
//! stored with release after each producer's last read; the reasoning is at
//! [`Compaction::recycle_black_below`]), and spare chunks, which hold no live
//! word and lie below the boundary; the end pass runs after every page is
//! filled.

use super::{Compaction, EBUSY, EEXIST};
use crate::collect::fill::FillCtx;
use crate::mem::WORD;

impl Compaction {
    /// Recycling ahead: called once by the compaction's own thread as the
    /// compaction starts, with mutators running (they allocate from the compacted
    /// end up). Moves, bottom-up from the allocation top (rounded up to
    /// [`super::recycle_align`]), every run of from-space pages that compaction does
    /// not read; pages a mutator's allocation faulted in meanwhile are skipped.
    /// Without it, every page allocated during the compaction took a fault and a
    /// fresh zeroed page ([`super::zero_run`]), and the pages here were freed at
    /// the end.
    ///
    /// Returns the runs it moved (offsets from the base, ascending, disjoint), for
    /// the end's pass to skip ([`Compaction::recycle`]).
    pub(super) fn recycle_ahead(&self) -> Vec<(usize, usize)> {
        let inner = &self.inner;
        let mut runs = Vec::new();
        if !inner.config.recycle_from_space {
            return runs;
        }
        if self.move_fails {
            tracing::debug!(errno = EBUSY, "recycling ahead stopped (injected)");
            return runs;
        }
        let at = self.layout;
        let base = at.base;
        let page = self.page_bytes();
        let chunk = self.recycle_align;
        // The pages above this top may take garbage.
        let lo = (self.raise_dirty_end() - base)
            .max(self.pages * page)
            .next_multiple_of(chunk);
        let hi = self.from_bytes.min(self.keep()).min(self.end - base);
        let ctx = self.tables.ctx(inner, &at);
        let (boundary, flip_top) = (at.boundary - base, at.flip_top - base);
        // Whether compaction reads from-space's page at offset `p`.
        let read = |p: usize| {
            let end = p + page;
            (p < flip_top && end > boundary)
                || (p < boundary
                    && ctx
                        .live
                        .next_set(p / WORD, end.min(boundary) / WORD)
                        .is_some())
        };
        let mut p = lo;
        while let Some((a, q)) = unread_run(p, hi, (page, chunk), read) {
            if let Err((moved, errno)) = self.move_run((a, q), None, &mut runs) {
                tracing::debug!(moved, errno, "recycling ahead stopped early");
                return runs;
            }
            p = q;
        }
        runs
    }

    /// Moves the run `[a, q)` back ([`Compaction::move_back`]), or, given `spare`,
    /// the spare chunk of from-space at that offset into it (`[a, q)` a whole
    /// chunk then: [`Compaction::next_spare`]), and, once every page of it is in
    /// the heap (moved, or there already: `EEXIST`), adds it to `runs`
    /// (ascending: merged with the last run where they touch), so that the end's
    /// pass, which skips the runs, has nothing left to move there. On another
    /// error, the bytes moved and the errno, and `runs` as it was.
    fn move_run(
        &self,
        (a, q): (usize, usize),
        spare: Option<usize>,
        runs: &mut Vec<(usize, usize)>,
    ) -> Result<(), (usize, i32)> {
        self.collect_stalls();
        self.move_in(a, spare.unwrap_or(a), q - a)?;
        match runs.last_mut() {
            Some(last) if last.1 == a => last.1 = q,
            _ => runs.push((a, q)),
        }
        Ok(())
    }

    /// Starts recycling the black region early ([`Compaction::recycle_black_below`]):
    /// raises the dirty end over the old image and notes what may move. Called
    /// once by the compaction's own thread, before it fills the black pages.
    pub(super) fn black_recycling(&self) -> BlackRecycling {
        let at = self.layout;
        let mut r = BlackRecycling {
            next: 0,
            hi: 0,
            runs: Vec::new(),
            spare: 0,
            spare_end: 0,
        };
        if !self.inner.config.recycle_from_space || self.move_fails || at.flip_top <= at.boundary {
            return r;
        }
        r.next = (self.raise_dirty_end() - at.base)
            .max(at.boundary - at.base)
            .next_multiple_of(self.recycle_align);
        r.hi = (at.flip_top - at.base)
            .next_multiple_of(self.page_bytes())
            .min(self.keep())
            .min(self.end - at.base);
        // Spare chunks lie below to-space's produced pages (so below where the
        // ahead and end passes start) and below the boundary.
        r.spare_end = (self.pages * self.page_bytes()).min(at.boundary - at.base)
            / self.recycle_align
            * self.recycle_align;
        r
    }

    /// The next spare chunk of from-space at or above `r.spare` (a chunk-aligned
    /// offset): one below to-space's produced pages and the mark boundary that
    /// holds no live word, so compaction never reads it and no pass moves it
    /// back to its own offset (the ahead and end passes start above the produced
    /// pages); its pages are garbage, released at the end unless moved.
    fn next_spare(&self, ctx: &FillCtx<'_>, r: &mut BlackRecycling) -> Option<usize> {
        let chunk = self.recycle_align;
        while r.spare + chunk <= r.spare_end {
            let c = r.spare;
            r.spare += chunk;
            if ctx.live.next_set(c / WORD, (c + chunk) / WORD).is_none() {
                return Some(c);
            }
        }
        None
    }

    /// Recycling the black region early, as its pages fill: called by the
    /// compaction's own thread once every black page below to-space page
    /// `filled_to` is `FILLED` ([`Compaction::work_black`]), while the rest
    /// may still be filling. Fills the black region's old offsets that no
    /// remaining black page's production can read, and that lie above the
    /// allocation top (rounded up to [`super::recycle_align`]), a chunk at a time
    /// ([`unread_run`]): a whole chunk with a spare chunk of from-space
    /// ([`Compaction::next_spare`]), since its own old
    /// pages have mostly moved to their new places ([`Compaction::work_black`]);
    /// a part of one, or any once the spares run out, with what is left of its
    /// old pages at the same offsets. Pages a mutator's allocation faulted in
    /// meanwhile are skipped.
    ///
    /// Without it those offsets stayed holes until the compaction's end: the
    /// ahead pass must leave them (page filling reads them), and in binary-trees
    /// at 1 GiB the allocation reached them in most cycles, a fault per page.
    /// Without the spares (the old pages moved, their offsets left as holes),
    /// binary-trees at 1 GiB took 3.96-4.11 s against 3.41-3.52 s before (two
    /// runs each, 2026-12-04): its allocation faulted fresh pages in there.
    ///
    /// Why nobody reads a moved page: page filling reads the black region's old
    /// pages only to produce black pages. Producing black page `p` reads its own
    /// old page and, for the object covering its first word, old pages back to
    /// the start of that object's carve (objects lie whole inside carves). So the
    /// old pages below the start of the carve covering black page `filled_to`'s
    /// first word are read only by the pages below `filled_to`, and those are
    /// `FILLED`: each state is stored with release after its producer's last read,
    /// and the caller loaded it with acquire. Invariant Z holds as for the ahead
    /// pass: the dirty end was raised over the old image first
    /// ([`Compaction::black_recycling`]), and only pages above the top as
    /// published since then move (carves above it come after the raise, and
    /// zero).
    pub(super) fn recycle_black_below(
        &self,
        ctx: &FillCtx<'_>,
        r: &mut BlackRecycling,
        filled_to: usize,
    ) {
        if r.next >= r.hi {
            return;
        }
        let (base, page, chunk) = (self.layout.base, self.page_bytes(), self.recycle_align);
        let first = ctx.page_first.len();
        let safe = if filled_to >= self.pages {
            r.hi
        } else {
            let carve = ctx.carve_start(self.layout.boundary + (filled_to - first) * page);
            ((carve - base) / chunk * chunk).min(r.hi)
        };
        // The top as published (see `recycle`, which reads it the same way).
        let top = self.inner.space_published.used().next_multiple_of(chunk);
        let mut p = r.next.max(top);
        while let Some((a, q)) = unread_run(p, safe, (page, chunk), |_| false) {
            // A whole chunk takes a spare one: its own old pages moved to their
            // new place in to-space (`work_black`), and most are holes now.
            let spare = if q - a == chunk {
                self.next_spare(ctx, r)
            } else {
                None
            };
            if let Err((moved, errno)) = self.move_run((a, q), spare, &mut r.runs) {
                tracing::debug!(moved, errno, "recycling the black region stopped early");
                r.hi = 0;
                return;
            }
            p = q;
        }
        r.next = r.next.max(safe);
    }

    /// Raises the dirty end over the old image, under the space lock, so that every
    /// carve from here on zeroes what it hands out there; returns the top as it is
    /// at the raise (every carve above it comes after).
    fn raise_dirty_end(&self) -> usize {
        let mut space = self.inner.space.lock();
        space.dirty_end = space.dirty_end.max(self.layout.base + self.from_bytes);
        space.top
    }

    /// How far recycling goes (bytes from the base): with heap sizing, pages above
    /// the soft limit are not kept (`sizing.rs`), so not worth moving.
    fn keep(&self) -> usize {
        let span = self.end - self.layout.base;
        if self.inner.config.sizing.is_some() {
            self.inner
                .pacer
                .limit()
                .next_multiple_of(self.recycle_align)
                .min(span)
        } else {
            span
        }
    }

    /// Moves the old image's pages at offsets `[lo, hi)` into the heap there.
    fn move_back(&self, lo: usize, hi: usize) -> Result<(), (usize, i32)> {
        self.move_in(lo, lo, hi - lo)
    }

    /// Moves the old image's `len` bytes of pages at offset `src` into the heap at
    /// offset `dst` (from from-space, or from the scratch span where they were
    /// parked: `park.rs`), skipping those the heap has already (`EEXIST`: a page
    /// allocated, and zero-filled, meanwhile); on another error, the bytes moved
    /// and the errno.
    fn move_in(&self, dst: usize, src: usize, len: usize) -> Result<(), (usize, i32)> {
        let (base, page) = (self.layout.base, self.page_bytes());
        let mut at = 0;
        while at < len {
            let (from, end) = self.parked.source(self.layout.from, src + at, src + len);
            let (to, from, bytes) = (base + dst + at, from + src + at, end - src - at);
            // The callers move only pages compaction does not read (see the
            // module's comment), and parked pages are garbage nobody reads
            // (`park.rs`).
            // SAFETY: nobody reads the old image's pages in [src, src + len) any more.
            let r = unsafe { self.uffd.move_pages(to, from, bytes) };
            match r {
                Ok(()) => at = end - src,
                Err((moved, EEXIST)) => at += moved + page,
                Err((moved, errno)) => return Err((at + moved, errno)),
            }
        }
        Ok(())
    }

    /// Recycling at the end: called by the compaction's own thread once every page
    /// is filled (nobody reads from-space any more), with mutators running. Moves
    /// from-space's pages above the allocation top, chunk by chunk from the top of
    /// the span (or the soft limit) down while chunks are above the top as last
    /// published (`space::moving::Published`, read without the space lock). That is
    /// what the ahead pass left of the old image, and the populated pages above it
    /// (pre-touched, or faulted in by an earlier allocation): freed, they would be
    /// faulted in again by the next allocation that reaches them. Holes move as
    /// nothing (`UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES`). The runs the early passes
    /// moved (`ahead`: what [`Compaction::recycle_ahead`] and
    /// [`Compaction::work_black`] returned, sorted) are skipped.
    pub(super) fn recycle(&self, ahead: &[(usize, usize)]) {
        let chunk = self.recycle_align;
        self.raise_dirty_end();
        // An injected failure stops recycling half way, with EBUSY, as a page the
        // kernel cannot move would.
        let stop_at = if self.move_fails {
            self.from_bytes / 2
        } else {
            0
        };
        let mut hi = self.keep();
        // `ahead[..n]` are the runs that may still overlap chunks below `hi`.
        let mut n = ahead.len();
        while hi > 0 {
            // Mutators still fault past the compacted end meanwhile (a gigabyte
            // takes tens of milliseconds to move): keep their records from filling.
            self.collect_stalls();
            let lo = (hi - 1) / chunk * chunk;
            // The top as last published, without the space lock: a look under the
            // lock per chunk made the driver and the allocating mutator hand the lock
            // back and forth, each asleep on it in turn (a mutator asleep on a lock
            // is late for safepoints). The value read is at least the top when the
            // dirty end was raised above (every carve publishes before it unlocks,
            // and the raise took the lock after), so every carve into a chunk moved
            // here came after the raise and zeroes, or lies above the old image's
            // extent, where from-space reads as zeros. A top staler than the
            // latest only costs `EEXIST` skips.
            let top = self.inner.space_published.used().next_multiple_of(chunk);
            if lo < top {
                break;
            }
            if lo < stop_at {
                tracing::debug!(
                    errno = EBUSY,
                    "recycling from-space stopped early (injected)"
                );
                break;
            }
            if let Err((moved, errno)) = self.move_back_around(lo, hi, ahead, &mut n) {
                tracing::debug!(moved, errno, "recycling from-space stopped early");
                return;
            }
            hi = lo;
        }
    }

    /// [`Compaction::move_back`] of `[lo, hi)` but for the runs recycling ahead
    /// moved ([`gaps_below`]). Equivalent to moving all of `[lo, hi)`: a run moved
    /// ahead is a hole in its source and present in the heap, so moving it again
    /// would only fail with `EEXIST`, page by page, one ioctl per page (measured
    /// on GCBench at 1 GiB: 40-100 K ioctls a cycle, nearly all of this pass's).
    fn move_back_around(
        &self,
        lo: usize,
        hi: usize,
        ahead: &[(usize, usize)],
        n: &mut usize,
    ) -> Result<(), (usize, i32)> {
        for (a, b) in gaps_below(lo, hi, ahead, n) {
            self.move_back(a, b)?;
        }
        Ok(())
    }
}

/// The parts of `[lo, hi)` outside the runs `ahead[..*n]` (ascending, disjoint),
/// top down. `*n` drops the runs that lie wholly at or above `lo`, so that the
/// next chunk down (`hi` = this `lo`) starts where this one stopped: walking a
/// span chunk by chunk from the top visits each run once, plus once more per
/// chunk boundary it straddles.
pub(super) fn gaps_below(
    lo: usize,
    hi: usize,
    ahead: &[(usize, usize)],
    n: &mut usize,
) -> Vec<(usize, usize)> {
    let mut gaps = Vec::new();
    let mut top = hi;
    while let Some(&(a, b)) = ahead[..*n].last() {
        if b <= lo {
            break;
        }
        if b < top {
            gaps.push((b, top));
        }
        top = top.min(a.max(lo));
        if a < lo {
            break; // the run reaches below this chunk: the next one sees it too
        }
        *n -= 1;
    }
    if lo < top {
        gaps.push((lo, top));
    }
    gaps
}

/// Where recycling the black region early stands
/// ([`Compaction::recycle_black_below`]; offsets from the heap's base).
pub(super) struct BlackRecycling {
    /// Below this, every old page is moved or left (the allocation was there).
    next: usize,
    /// The end of the black region's old pages that may move (0: none may).
    hi: usize,
    /// The runs moved, in order, for the end's pass to skip.
    pub(super) runs: Vec<(usize, usize)>,
    /// The next from-space chunk to look at for a spare one
    /// ([`Compaction::next_spare`]), and where they end.
    spare: usize,
    spare_end: usize,
}

/// The next run of pages at or above offset `p` and below `hi` that compaction
/// does not read (`read` says which it reads), as `(first, end)` offsets; `None`
/// if there is none. `p` and `hi` are multiples of the page size `sizes.0`.
///
/// A run ends at the next multiple of the chunk size `sizes.1` (a PMD), so that
/// after a page that is read the runs start aligned again: a run across a chunk
/// boundary splits the huge pages on both sides (the pre-touched memory of a
/// first cycle), and the kernel's split scans each of their base pages for zeros.
/// Runs of at most a chunk from wherever they started lost the alignment at the
/// first page read and split every huge page above it: in GCBench at 4 GiB the
/// first cycle's compaction took 424-437 ms (40-42 K fault stalls, as the
/// allocation overtook it), 77-84 ms with aligned runs (5.2-5.3 K stalls; two
/// runs each, 2026-12-04).
fn unread_run(
    mut p: usize,
    hi: usize,
    (page, chunk): (usize, usize),
    read: impl Fn(usize) -> bool,
) -> Option<(usize, usize)> {
    while p < hi && read(p) {
        p += page;
    }
    if p >= hi {
        return None;
    }
    let stop = (p + 1).next_multiple_of(chunk);
    let mut q = p + page;
    while q < hi && q < stop && !read(q) {
        q += page;
    }
    Some((p, q))
}

#[cfg(test)]
mod tests {
    use super::{gaps_below, unread_run};

    /// Every unread page in exactly one run, each run within one chunk, and the
    /// runs as long as that allows (a run ends only at a chunk boundary, a page
    /// that is read, or `hi`).
    #[test]
    fn ahead_runs_cover_the_unread_pages_and_stay_inside_chunks() {
        let (page, chunk, hi) = (1, 8, 61);
        // Pages read: a scattered few, a run of them across a boundary, the end.
        let read = |p: usize| [3, 4, 13, 22, 23, 24, 25, 41, 60].contains(&p);
        let mut p = 2;
        let mut runs = Vec::new();
        while let Some((a, q)) = unread_run(p, hi, (page, chunk), read) {
            assert!(a >= p && a < q && q <= hi, "run {a}..{q} from {p}");
            assert_eq!(a / chunk, (q - 1) / chunk, "run {a}..{q} crosses a chunk");
            assert!(
                q == hi || q % chunk == 0 || read(q),
                "run {a}..{q} stops early"
            );
            runs.push((a, q));
            p = q;
        }
        let mut covered = vec![false; hi];
        for &(a, q) in &runs {
            for c in &mut covered[a..q] {
                assert!(!*c, "a page in two runs");
                *c = true;
            }
        }
        for (i, &c) in covered.iter().enumerate().skip(2) {
            assert_eq!(c, !read(i), "page {i}");
        }
        assert!(
            runs.contains(&(16, 22)) && runs.contains(&(26, 32)),
            "{runs:?}"
        );
    }

    /// Walks `[0, span)` in chunks from the top, as `Compaction::recycle` does.
    fn walk(span: usize, chunk: usize, ahead: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut n = ahead.len();
        let mut out = Vec::new();
        let mut hi = span;
        while hi > 0 {
            let lo = (hi - 1) / chunk * chunk;
            out.extend(gaps_below(lo, hi, ahead, &mut n));
            hi = lo;
        }
        out
    }

    #[test]
    fn the_end_pass_moves_exactly_what_the_ahead_pass_left() {
        // Runs inside a chunk, straddling two and three chunks, touching a chunk's
        // edge, and above the span (the soft limit fell between the passes).
        let ahead = [(1, 3), (4, 10), (12, 16), (17, 26), (30, 31), (40, 44)];
        let (span, chunk) = (32, 8);
        let gaps = walk(span, chunk, &ahead);
        let mut covered = vec![0u32; span];
        for &(a, b) in &gaps {
            assert!(a < b, "empty gap {a}..{b}");
            assert_eq!(a / chunk, (b - 1) / chunk, "gap {a}..{b} crosses a chunk");
            for c in &mut covered[a..b] {
                *c += 1;
            }
        }
        for (p, c) in covered.iter().enumerate() {
            let moved_ahead = ahead.iter().any(|&(a, b)| (a..b).contains(&p));
            assert_eq!(*c, u32::from(!moved_ahead), "offset {p} (gaps {gaps:?})");
        }
    }

    #[test]
    fn with_nothing_moved_ahead_every_chunk_moves_whole() {
        assert_eq!(walk(24, 8, &[]), [(16, 24), (8, 16), (0, 8)]);
    }

    #[test]
    fn a_chunk_moved_whole_ahead_needs_no_move() {
        assert_eq!(walk(24, 8, &[(8, 16)]), [(16, 24), (0, 8)]);
    }
}
