//! Moves of claimed to-space pages that the kernel miscounts, and the report of a
//! to-space page installed twice.
//!
//! The dense prefix's and the black region's pages, and compacted pages produced
//! into frames (`frames.rs`), are produced in from-space and
//! moved into to-space with `UFFDIO_MOVE` by the compaction's own thread
//! ([`Compaction::install_moved`]); what a move leaves is copied. Linux's
//! `UFFDIO_MOVE` can report fewer pages moved than it moved: its loop keeps a
//! transient `EAGAIN` across iterations, so the next batch it moves is not
//! counted, and it stops with `EEXIST` on the batch's first page
//! (`Userfault::moved_unreported`). Copying "the rest" then found that page
//! present and ended the process with "to-space page ... installed twice"
//! (docs/findings.md, "Fixed defects": seen under heavy load). So after a
//! failed move the pages that the kernel moved without counting are found by
//! their state (destination resident, source not) and counted as moved, and the
//! move resumes after them.
//!
//! Why that is sound: the pages `[first, end)` are claimed by this thread
//! (`page_state.rs`), so nobody else installs them (invariant 1 of
//! `compaction.rs`); their sources were all present in from-space (produced
//! there, in place) and nobody else moves or unmaps from-space pages
//! (recycling runs on this thread too). A destination page that is resident
//! with its source gone was therefore moved by this thread's own move, with
//! the contents it produced. The lookups (`mincore`) read page tables that only
//! this thread's moves changed for these pages, after those moves returned: no
//! other thread's ordering is involved.
//!
//! A page still found present by the copy is a real second install: the process
//! ends with what is known about the page ([`Compaction::installed_twice`]).

use super::{Compaction, ENOENT};
use crate::collect::fill::FillCtx;
use crate::inject::InjectPoint;
use flipgc_heap::CopyError;

/// `ENOTSUP` (no `UFFDIO_MOVE` on this kernel: nothing was tried).
const ENOTSUP: i32 = flipgc_heap::sys::Errno::ENOTSUP as i32;

/// How a move of claimed pages went, for the report of a page installed twice.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MoveOutcome {
    /// Bytes moved (counted by the kernel, or found moved).
    pub moved: usize,
    /// The last move's errno, if one failed.
    pub errno: Option<i32>,
    /// Pages the kernel moved but did not count, found by their state.
    pub unreported: usize,
    /// After a failed move: whether the first page left (to be copied) was
    /// resident at its destination, and at its source, before the copy (the
    /// copy reads the source, which maps a zero page where it was moved away).
    pub left: Option<(bool, bool)>,
}

impl Compaction {
    /// Moves claimed pages `[src, src + len)`, produced in place in from-space,
    /// to `dst` with `UFFDIO_MOVE`, counting as moved the pages a failed move
    /// moved without reporting them (the module's comment), and moving on after
    /// them. Stops at the first page it cannot move; the caller copies the rest.
    pub(super) fn move_claimed(&self, dst: usize, src: usize, len: usize) -> MoveOutcome {
        let page = self.page_bytes();
        let mut out = MoveOutcome::default();
        while out.moved < len {
            let (at, rest) = (out.moved, len - out.moved);
            // The pages [dst, dst + len) are this thread's claim, produced in
            // from-space at [src, src + len); nobody else touches the sources'
            // words but for headers, which they read before the move or not at
            // all (the callers).
            // SAFETY: this thread's claimed pages, as above; `dst` is page-aligned.
            let r = unsafe { self.uffd.move_present_pages(dst + at, src + at, rest) };
            // Injected: all moved, half reported, as the kernel's miscount does.
            let r = match r {
                Ok(())
                    if rest >= 2 * page && self.inner.inject.cycle(InjectPoint::UffdMoveCount) =>
                {
                    Err((rest / 2 / page * page, super::EEXIST))
                }
                r => r,
            };
            match r {
                Ok(()) => out.moved = len,
                Err((done, errno)) => {
                    out.moved += done;
                    out.errno = Some(errno);
                    let at = out.moved;
                    let found = if errno == ENOTSUP {
                        0
                    } else {
                        self.uffd.moved_unreported(dst + at, src + at, len - at)
                    };
                    if found == 0 {
                        tracing::debug!(at, len, errno, "pages copied, not moved");
                        if errno != ENOTSUP {
                            let one = |a| flipgc_heap::sys::resident(a, page).is_ok_and(|v| v[0]);
                            out.left = Some((one(dst + at), one(src + at)));
                        }
                        return out;
                    }
                    tracing::debug!(at, found, errno, "pages moved but not reported moved");
                    out.unreported += found;
                    out.moved += found * page;
                }
            }
        }
        out
    }

    /// Ends the process over to-space page `p` found present by the install of
    /// claimed pages `run` (`copy`'s failure), with what is known about it: its
    /// state, where it lies in the plan (dense prefix, a stable old page with
    /// clean cards, compacted or black), the cycle's kind, and, for pages that
    /// were moved first, the move's outcome and whether the page and its source
    /// are resident now. The page's first installer is not recorded anywhere.
    /// Not for a signal handler (it allocates): the handler's installs report
    /// through [`Compaction::install_produced`]'s shorter message.
    #[cold]
    pub(super) fn installed_twice(
        &self,
        p: usize,
        run: (usize, usize),
        moved: Option<(MoveOutcome, usize)>,
        copy: CopyError,
    ) -> ! {
        let ctx = self.tables.ctx(&self.inner, &self.layout);
        let page = self.page_bytes();
        let dst = self.layout.base + p * page;
        let state = self.states()[p].load(std::sync::atomic::Ordering::Acquire);
        let resident = |at: usize| match flipgc_heap::sys::resident(at, page) {
            Ok(v) if v[0] => "resident",
            Ok(_) => "not resident",
            Err(_) => "not mapped",
        };
        let moves = match moved {
            Some((m, src_run)) => format!(
                "; the run was moved first: {} of its pages moved ({} of them found moved \
                 though not reported), last errno {:?}; before the copy the page was \
                 resident (destination, source): {:?}; its source in from-space at {:#x} \
                 is {} now",
                m.moved / page,
                m.unreported,
                m.errno,
                m.left,
                src_run + (p - run.0) * page,
                resident(src_run + (p - run.0) * page),
            ),
            None => String::new(),
        };
        let copy = match copy {
            CopyError::Exists => "EEXIST".to_string(),
            CopyError::Os(ENOENT) => "ENOENT (the span is no longer registered)".to_string(),
            CopyError::Os(e) => format!("errno {e}"),
        };
        panic!(
            "to-space page at {dst:#x} installed twice (UFFDIO_COPY: {copy}): page {p} of \
             {pages}, in the claimed run {a}..{b}, state {state} (0 unfilled, 1 filling, \
             2 filled), {region}; {kind} cycle, compaction {id}; the page is {now}{moves}",
            pages = self.pages,
            a = run.0,
            b = run.1,
            region = region(&ctx, p),
            kind = if self.young { "a young" } else { "a full" },
            id = self.id,
            now = resident(dst),
        )
    }
}

/// Where to-space page `p` lies in the plan, for a report.
pub(super) fn region(ctx: &FillCtx<'_>, p: usize) -> &'static str {
    let clean = ctx
        .clean
        .get(p / 64)
        .is_some_and(|w| w & (1 << (p % 64)) != 0);
    if p < ctx.dense_pages && clean {
        "in the dense prefix, a stable old page with clean cards (installed unforwarded)"
    } else if p < ctx.dense_pages {
        "in the dense prefix"
    } else if p < ctx.page_first.len() {
        "a compacted page"
    } else if p < ctx.pages() {
        "a black page"
    } else {
        "past the plan's pages"
    }
}
