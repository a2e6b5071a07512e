//! Frames: compacted to-space pages produced into from-space pages that page
//! filling has finished reading, then moved into to-space with `UFFDIO_MOVE`,
//! instead of into a buffer installed with `UFFDIO_COPY` (a fresh page). From-space
//! then gives up a page for every page to-space takes, so the compaction's overlap
//! (the old image kept while the new one grows: docs/findings.md, "Where peak RSS
//! goes") stays near the sources not yet read.
//!
//! Only the compaction's own thread takes frames and moves them (the one thread
//! that moves, as for the dense prefix: `Compaction::work_dense`); mutators'
//! faults, the fault server and other workers keep producing into buffers.
//!
//! Why no producer reads a frame after it is taken (the low-water mark). Producing
//! compacted page `q` reads from-space only at and above the header of the object
//! covering its first word, `page_first[q].0` (`fill.rs`: the walk goes up from
//! there, and an object's model reads only its own header words), and
//! `page_first` is non-decreasing in `q` (sliding keeps the order). So with `w`
//! the first compacted page not `FILLED`, every page still to be produced, in any
//! order and by anyone, reads at or above `page_first[w].0`: the from-space pages
//! wholly below it are read by nobody any more. The taker finds `w` by loading
//! page states with acquire; each `FILLED` was stored with release after its
//! producer's last read of from-space (`page_state.rs`), so those reads happen
//! before the taker's writes into the frame. `FILLED` is final, so the mark only
//! rises and a frame, once free, stays free. The dense prefix (below
//! `dense_pages`: produced in place and moved, and its pages read only their own
//! old page) and the black region (at and above the boundary: read by black pages
//! only) are never frames.
//!
//! Why no other pass moves a frame: frames are pages holding a live word, which
//! recycling ahead and behind the black pages (no live word, or the black region)
//! and parking (no live word) never take; the end's pass runs once every page is
//! filled and moves what it finds (a frame whose move failed holds garbage then,
//! which carves zero: invariant Z of `recycle.rs`), and skips holes.
//!
//! A check, not part of the argument: the end of the frames taken so far is kept
//! in an atomic, and every producer of a compacted page compares it with its
//! page's first source after producing it ([`Compaction::check_sources`]), ending
//! the process if a frame could have been one of them. Exact on the taking thread
//! (program order: it produces most pages); on other threads a best effort (a
//! relaxed load, which may see the value late), since nothing depends on it.

use super::Compaction;
use crate::collect::fill::FillCtx;
use crate::collect::page_state;
use crate::mem::WORD;
use std::cell::Cell;
use std::sync::atomic::Ordering;

/// Where the compaction's own thread stands in taking frames (that thread's alone).
pub(super) struct Frames {
    /// The next from-space page (an index from the base) to look at.
    next: Cell<usize>,
    /// No frame at or above this page (the mark boundary's: the black region).
    end: usize,
    /// The compacted pages end here (`page_first.len()`).
    compacted: usize,
    /// Every compacted page from `dense_pages` up to this one is `FILLED`.
    filled_below: Cell<usize>,
}

impl Frames {
    /// Frames for the compaction `c`, or `None` where pages cannot move
    /// (no `UFFDIO_MOVE`).
    pub(super) fn new(c: &Compaction, ctx: &FillCtx<'_>) -> Option<Frames> {
        if !c.uffd.can_move() {
            return None;
        }
        let page = c.page_bytes();
        Some(Frames {
            next: Cell::new(ctx.dense_pages),
            end: (ctx.at.boundary - ctx.at.base) / page,
            compacted: ctx.page_first.len(),
            filled_below: Cell::new(ctx.dense_pages),
        })
    }

    /// The first from-space page that a compacted page not yet `FILLED` may read
    /// (the module's comment), capped at `end`.
    fn limit(&self, c: &Compaction, ctx: &FillCtx<'_>) -> usize {
        let states = c.states();
        let mut w = self.filled_below.get();
        // Acquire loads: the producers' reads of from-space happen before this.
        while w < self.compacted && page_state::is_filled(states, w) {
            w += 1;
        }
        self.filled_below.set(w);
        if w >= self.compacted {
            return self.end;
        }
        (ctx.page_first[w].0 / ctx.at.page_words).min(self.end)
    }

    /// Takes the next frame: the address in from-space of a page holding a live
    /// word that no producer will read any more, or `None` if there is none now.
    pub(super) fn take(&self, c: &Compaction, ctx: &FillCtx<'_>) -> Option<usize> {
        let limit = self.limit(c, ctx);
        let words = ctx.at.page_words;
        let mut f = self.next.get();
        // Pages with no live word are left to recycling (`recycle.rs`).
        while f < limit && ctx.live.next_set(f * words, (f + 1) * words).is_none() {
            f += 1;
        }
        self.next.set(f);
        if f >= limit {
            return None;
        }
        self.next.set(f + 1);
        // Only for the check (the module's comment): no data hangs on it.
        c.frames_end.store(f + 1, Ordering::Relaxed);
        Some(ctx.at.from + f * words * WORD)
    }
}

impl Compaction {
    /// Installs claimed pages `[first, end)`, produced into the frames `framed`
    /// names (one per page from `first` on, 0 for a page produced into the
    /// buffer at `out`, at its place from `first`): each stretch of consecutive
    /// frames moved with one move ([`Compaction::install_moved`]), each stretch
    /// of buffer pages copied with one copy.
    pub(super) fn install_framed(
        &self,
        (first, end): (usize, usize),
        framed: &[Cell<usize>],
        out: usize,
    ) {
        let page = self.page_bytes();
        let at = |q: usize| framed.get(q - first).map_or(0, |c| c.get());
        let mut a = first;
        while a < end {
            let f = at(a);
            let mut b = a + 1;
            while b < end && at(b) == if f == 0 { 0 } else { f + (b - a) * page } {
                b += 1;
            }
            if f != 0 {
                self.install_moved(a, b, f);
            } else {
                self.install_produced(a, b, out + (a - first) * page, false);
            }
            a = b;
        }
    }

    /// After producing compacted page `p` (before installing it): ends the process
    /// if a from-space page it reads may have been taken as a frame (the module's
    /// comment). Async-signal-safe.
    pub(super) fn check_sources(&self, ctx: &FillCtx<'_>, p: usize) {
        if p < ctx.dense_pages || p >= ctx.page_first.len() {
            return;
        }
        let lo = ctx.page_first[p].0 / ctx.at.page_words;
        let taken = self.frames_end.load(Ordering::Relaxed);
        if taken > lo {
            crate::fatal::die(format_args!(
                "concurrent compaction: to-space page {p} reads from-space page {lo}, \
                 but frames were taken up to page {taken}"
            ));
        }
    }
}
