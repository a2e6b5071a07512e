//! Concurrent compaction: after the flip pause, to-space is an empty range registered
//! with userfaultfd (MISSING mode) and mutators run. Background workers produce its
//! pages in address order (the black region's first, on the compaction's own
//! thread, so that its old pages can be recycled early) and install runs of them
//! with one `UFFDIO_COPY` each. A page a mutator touches first is produced on
//! demand, in one of two fault modes ([`crate::FaultMode`]):
//! - **SIGBUS mode** (the default where the kernel has `UFFD_FEATURE_SIGBUS`): the
//!   touching thread gets `SIGBUS`, and its handler (`sigbus.rs`) produces and
//!   installs the page itself ([`Compaction::serve_in_handler`]), or waits for the
//!   party already producing it, and returns; the access retries.
//! - **server mode**: the touching thread sleeps in the kernel while a fault-serving
//!   thread ([`Compaction::serve`]) reads the fault event and installs the page.
//!
//! The page-producing code is the in-pause path's ([`FillCtx::fill_pages_to`]),
//! writing into a buffer instead of into place; but two kinds of pages are
//! produced in from-space, in place, and moved into to-space with `UFFDIO_MOVE`
//! by the compaction's own thread: the dense prefix (the leading pages where
//! every word is live, so nothing on them moves: `Compaction::work_dense`) and the
//! black region (whose pages slide by whole pages: `Compaction::work_black`). A
//! fault on such a page, or another worker's claim of one, copies it. The same
//! thread produces the other compacted pages into *frames*, from-space pages that
//! no producer reads any more, and moves those (`compaction/frames.rs`), so that
//! to-space takes no fresh page where from-space can give one up.
//!
//! Per-page state machine (`page_state.rs`, which gives each hand-off's memory
//! ordering; modelled in `tests/models.rs`), the only way a page gets installed:
//! `UNFILLED --claim (CAS, one winner)--> FILLING --UFFDIO_COPY, then store--> FILLED`.
//! Invariants:
//! 1. A page is produced and installed once: only the claimant fills it, and the
//!    kernel refuses a second install (`EEXIST`), which would be reported as a bug.
//! 2. No page is seen torn: the kernel maps the page only once the copy of the whole
//!    buffer is done, and the buffer is complete before the copy starts.
//! 3. Every mutator faulting on a page resumes after its one install. Server mode:
//!    the install wakes the waiters (`UFFDIO_COPY` without `DONTWAKE`), whoever made
//!    it (the server does not wait for a worker's install in progress); a fault read
//!    after the page was installed is answered with `UFFDIO_WAKE`; the kernel
//!    rechecks the page table before sleeping, so a fault racing with the install does
//!    not sleep. SIGBUS mode: nobody sleeps in the kernel; a handler that did not
//!    claim the page backs off until its state is `FILLED`, which is stored only
//!    after the installing `UFFDIO_COPY` returned (release; the handler's load is an
//!    acquire), so the retried access finds the page table entry (or, on a stale TLB
//!    or page-walk cache, takes a fault the kernel resolves itself: it sees the entry
//!    under its page-table lock and raises nothing).
//! 4. From-space and the side tables (bitmaps, prefix sums, page plans) are read-only
//!    until every page is `FILLED`; only then are from-space's pages recycled or
//!    released and the tables handed back. Four exceptions: a page of the dense
//!    prefix (`plan::Dense`) is produced in place in from-space by its claimant,
//!    and then moved or copied from there; nobody else reads that from-space page
//!    (`FillCtx::fill_dense`). A black page the compaction's own thread claims is
//!    produced in place too; others read it only for headers, which that leaves
//!    as they are, and it moves only once no producer can read it any more
//!    (`Compaction::work_black`). Pages nothing reads (no live word, outside the
//!    black region) are recycled as the compaction starts (`recycle_ahead`). And
//!    the black region's old offsets are recycled as the black pages, filled
//!    first, become `FILLED`, from spare chunks of from-space that nothing reads
//!    (`recycle_black_below`). And compacted pages are produced into from-space
//!    pages below the low-water mark of the pages still to be produced, which no
//!    producer reads any more, and moved (`compaction/frames.rs`).
//!
//! The whole heap span is registered (registering part of it would split its
//! mapping for good, and the next flip could no longer move it at PUD level), so
//! mutators allocating past the compacted end fault too: the server (or the faulting
//! thread's handler) installs a zeroed page per fault ([`zero_run`]). It runs
//! until the span is unregistered. Few such faults happen: as the compaction starts,
//! from-space's pages that hold nothing it reads move into the heap above the
//! allocation top with `UFFDIO_MOVE`, and at the end whatever is left above the top
//! (recycling, `compaction/recycle.rs`: allocations write into present pages rather
//! than fault fresh, zeroed ones in); the rest of from-space is then mapped afresh.
//!
//! 5. Mutators' roots are forwarded lazily (`roots.rs`); the compaction's end applies
//!    whatever forwarding is still pending, so no stale root outlives it.
//!
//! 6. SIGBUS mode: the handler runs only while the compaction is published in its
//!    heap's slot; the end unregisters, withdraws it and waits for handlers in flight
//!    (`sigbus::retire`) before anything the handler reads is freed or reused.
//!
//! Fault stalls. SIGBUS mode: end to end, measured by the faulting thread itself,
//! from its handler's entry to its return (`CLOCK_MONOTONIC`), kept in the thread's
//! fault record and collected into the pause log here at the end. Server mode: by the
//! serving thread, from reading the fault event to the page being installed (or seen
//! installed): a lower bound of the mutator's wait (it excludes the kernel's queueing
//! of the event, the server's wake-up, and the mutator's wake-up). Each sample also
//! carries when it began, so that the pause log keeps the long ones with their times
//! (`PauseLog::long_fault_stalls`).

use super::fill::{FillCtx, FillTables, Layout};
use super::heap_inner::HeapInner;
use super::page_state::{self, OnFault};
use super::roots::forward_table;
use super::CyclePhase;
use crate::collect::root_table::{MutatorShared, RootTable, RootTask};
use crate::fatal::AbortOnUnwind;
use crate::inject::InjectPoint;
use crate::mem::WORD;
use crate::sigbus::now_ns;
use crate::space::moving::Parked;
use flipgc_heap::{CopyError, Userfault};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod frames;
mod recycle;
mod twice;

use frames::Frames;

/// Where recycling starts moving from-space's pages back: the allocation top
/// rounded up to this, a PMD's worth (so huge pages move whole, and above every
/// zero fill, which lies below the top rounded up to a page), capped at 32 MiB
/// (arm64 with 64 KiB pages has 512 MiB PMDs).
pub fn recycle_align(g: &flipgc_heap::Geometry) -> usize {
    g.pmd.unwrap_or(g.page).min(32 << 20).max(g.page)
}

/// Pages per `UFFDIO_COPY` for the background workers: 64 KiB worth, at least one
/// page (one 4 KiB page per ioctl costs 4-9 us here, 64 KiB or more about 0.9 us
/// per 4 KiB page).
pub fn run_pages(page: usize) -> usize {
    ((64 << 10) / page).max(1)
}

/// Pages per run of the dense prefix on the compaction's own thread (claimed,
/// produced and moved a stretch at a time), and the least the black pass gathers
/// for one move ([`Compaction::work_black`]): 2 MiB worth (a PMD's worth of 4 KiB
/// pages), at least one page. A move costs one
/// flush of the other CPU's TLB (an interrupt) plus about 0.15 us a page here:
/// 16 us a page one at a time, 1.0 us in runs of 16 pages, 0.4 us in runs of 64
/// and 0.2 us in runs of 256, against 1.6-1.8 us for a copy (a buffer filled,
/// then `UFFDIO_COPY` in runs of 16; a C probe with a second thread of the
/// process running on the other CPU). A move of more than 33 pages flushes the
/// other CPU's whole TLB (the kernel's `tlb_single_page_flush_ceiling`), so
/// the mutator running there pays too: the interrupt, then a refill of its TLB
/// (walks of the VM's nested page tables). Fewer, longer moves cost it less.
/// A mutator that touches a page of a run in progress waits for the whole run.
///
/// Measured 2026-12-04 (binary-trees at 1 GiB, pausebench `auto`, one build with
/// a temporary switch, three alternating runs each): with runs of 256 KiB, and
/// black pages moved as soon as they could be, 43-51 K TLB shootdowns a run
/// (`/proc/interrupts`), compaction 77-83 ms a cycle (median), wall 3.22-3.42 s;
/// with runs of 2 MiB and black moves gathered to 2 MiB, 22-28 K, 62-67 ms and
/// 2.94-3.07 s. Fault-stall p99 stayed 11-13 us and their max 0.2-0.33 ms in
/// those runs, but longer runs of GCBench showed stalls of several milliseconds
/// behind a gather, until a waiting mutator cut it short (`Compaction::waited`).
/// Runs of 4 MiB did no better.
pub fn dense_run_pages(page: usize) -> usize {
    ((2 << 20) / page).max(1)
}

/// Maps a [`now_ns`] reading (`CLOCK_MONOTONIC`, what the stall samples carry) onto
/// `inner`'s clock (ns since the heap was made: the pause log's `at_ns`).
fn heap_clock(inner: &HeapInner) -> impl Fn(u64) -> u64 {
    let mono = now_ns();
    let up = inner.started.elapsed().as_nanos() as u64;
    move |at| on_heap_clock(at, mono, up)
}

/// `at` on the `CLOCK_MONOTONIC` clock, mapped to a clock that read `up` when the
/// monotonic one read `mono`.
fn on_heap_clock(at: u64, mono: u64, up: u64) -> u64 {
    (at + up).saturating_sub(mono)
}

/// One concurrent compaction in progress.
pub struct Compaction {
    inner: Arc<HeapInner>,
    tables: FillTables,
    layout: Layout,
    /// End of the heap's capacity: allocation stops there.
    end: usize,
    /// End of the heap span (the registered range; beyond `end` where the span
    /// is rounded up to whole PUD entries, `HeapConfig::span_len`).
    span_end: usize,
    /// From-space bytes holding the old image (recycled or released at the end).
    from_bytes: usize,
    uffd: Userfault,
    /// Mutators whose roots may still await forwarding (see `roots.rs`).
    mutators: Vec<Arc<MutatorShared>>,
    /// Per to-space page: `UNFILLED`, `FILLING` or `FILLED` (`pages` of the
    /// scratch's states).
    pages: usize,
    /// The reused buffers (page states, the zero source).
    scratch: Option<Scratch>,
    /// Heap extents whose old pages wait in the scratch span, not from-space
    /// (`park.rs`): recycling takes them from there.
    parked: Parked,
    /// Pages `FILLED`.
    filled: AtomicUsize,
    /// Next page a background worker looks at.
    next: AtomicUsize,
    /// The next dense page for the background workers to claim ([`FillCtx::fill_dense`]).
    next_dense: AtomicUsize,
    /// Pages moved into to-space (the dense prefix's, the black region's, and
    /// compacted pages produced into frames: `compaction/frames.rs`); the rest
    /// were copied.
    moved: AtomicUsize,
    /// The end of the from-space pages taken as frames so far (a page index from
    /// the base; 0 before the first), for [`Compaction::check_sources`] only.
    frames_end: AtomicUsize,
    /// Raised by a mutator that waits for a page another party produces: the
    /// compaction's own thread then installs what it holds now instead of
    /// gathering a whole run first ([`Compaction::work_black`],
    /// [`Compaction::claim_run`]). A hint only: it carries no data (the page
    /// states do, with their own release and acquire), so relaxed loads and
    /// stores suffice; a raise seen late only delays an install that happens
    /// anyway, at most a run later.
    waited: AtomicBool,
    /// Tells the fault server to stop (the heap is unregistered).
    stop: AtomicBool,
    started: Instant,
    /// Alignment of the start of recycling ([`recycle_align`]).
    recycle_align: usize,
    /// Recycling fails this time (an injected `UFFDIO_MOVE` failure): both passes
    /// stop early (`recycle.rs`).
    move_fails: bool,
    /// Pages per background install ([`run_pages`]).
    run: usize,
    /// This compaction's number (process-wide, from 1): the tag of its stall samples.
    id: u64,
    /// Whether the cycle is young (`sticky.rs`), for the report of a page
    /// installed twice ([`Compaction::in_young_cycle`]).
    young: bool,
    /// SIGBUS mode: the heap's slot in `sigbus.rs`'s table (the uffd was opened with
    /// `UFFD_FEATURE_SIGBUS`); `None` in server mode.
    slot: Option<usize>,
    /// SIGBUS mode: stall samples lost because a thread's fault record was full.
    stalls_lost: AtomicUsize,
    /// SIGBUS mode: stall samples collected while the compaction runs
    /// ([`Compaction::collect_stalls`]), so that a thread's record (16,384 samples)
    /// does not fill up during a long compaction.
    early_stalls: parking_lot::Mutex<Vec<(u64, u64)>>,
}

/// Numbers compactions (the tags of their stall samples).
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// What a compaction needs that is allocated once per heap, before the first flip
/// pause (never inside one), and reused by every compaction after.
pub struct Scratch {
    /// Page states for the largest possible to-space (the whole heap), all
    /// `UNFILLED` between compactions.
    states: Box<[AtomicU8]>,
    /// A private, never-written mapping of a zero run: the source of zero fills
    /// (its reads hit the kernel's shared zero page, cache-hot).
    zeros: flipgc_heap::Span,
    _zeros_res: flipgc_heap::Reservation,
}

impl Scratch {
    /// Makes sure `slot` holds the scratch for a heap of `capacity` bytes (the GC
    /// driver, before a flip pause).
    pub fn prepare(slot: &parking_lot::Mutex<Option<Scratch>>, capacity: usize) {
        let mut slot = slot.lock();
        if slot.is_none() {
            let g = flipgc_heap::Capabilities::probe().geometry;
            let len = zero_run(&g);
            let res = flipgc_heap::Reservation::new(len, g.page).expect("reserving a zero source");
            let zeros = res.commit(0, len).expect("mapping a zero source");
            *slot = Some(Scratch {
                states: unfilled_states(capacity.div_ceil(g.page)),
                zeros,
                _zeros_res: res,
            });
        }
    }
}

/// Bytes of zeroed memory installed per fault past the compacted end: one page
/// (4 KiB here), not a run of several. The faulting thread waits for the
/// whole copy, and with recycling ahead (`compaction/recycle.rs`) the faults that
/// remain are mostly allocations over from-space pages that hold live data.
/// Measured 2026-12-02 in an A/B on one build (a temporary switch, pausebench
/// `auto`, SIGBUS mode): GCBench at 1 GiB, three runs each, fault-stall p99
/// 30-74 us with 16 KiB against 13-22 us with 4 KiB (max 148-1397 against
/// 149-381 us), with 2-8 times the faults, and wall 9.1-9.5 against 8.5-9.8 s;
/// binary-trees at 1 GiB, two runs each: p99 50-60 against 18-22 us, max
/// 6.6-11.4 ms against 0.47-1.3 ms, wall 12.4-12.7 against 12.6-13.3 s; GCBench at
/// 4 GiB, one run: p99 26 against 13 us, wall 7.2 against 7.9 s. A 16 KiB install
/// took 20-100 us, most of it the kernel finding four fresh pages (fresh memory is
/// slow in this VM, see `compaction/recycle.rs`); one page rarely takes over
/// 20 us.
///
/// Earlier measurements, before recycling ahead: the p99 of fault
/// stalls was 160-220 us with 256 KiB, 115-205 us with 64 KiB, 19-99 us with 32 KiB
/// and 10-36 us with 16 KiB, with no change in wall time beyond the noise (four
/// times the faults of 64 KiB, each much shorter). Measured again after the flip
/// turned huge pages off on the heap (2026-12-02, GCBench and binary-trees at 1 and
/// 4 GiB, one run each on one build): wall 14.5/13.3/21.9/16.8 s and fault-stall
/// p99 27-32 us with 16 KiB; 16.4/14.0/21.5/17.0 s and 40-50 us with 32 KiB;
/// 15.6/13.0/21.9/16.5 s and 66-130 us with 64 KiB. A first single run had shown
/// 64 KiB 9-17 % faster at 1 GiB; the repeats did not.
///
/// Tried and dropped: zeroing ahead of the allocation top on the background
/// workers (on 2 cores it doubled compaction times, and the heap ran full); and
/// moving populated from-space pages to the allocation frontier with
/// `UFFDIO_MOVE` instead of zero-filling (from-space below the mark boundary is
/// read by nobody once the compacted pages are installed), with the carves zeroing
/// the garbage in user space: a fresh 2 MiB chunk of 4 KiB pages took 40-80 us to
/// move (each move flushes the other CPU's TLB), a 256 KiB one 23-36 us, and
/// neither improved the stall percentiles or the wall time here (moving them in
/// bulk as the compaction starts, ahead of the allocation, did pay off:
/// `compaction/recycle.rs`). Also dropped
/// (2026-12-02): registering only the to-space pages, so that allocations past them
/// take ordinary page faults. The span was given its `anon_vma` before the split,
/// so the two parts merged again at the end and every flip stayed at PUD level.
/// Fault stalls in GCBench/binary-trees at 1 GiB fell from 205 K/294 K to
/// 11-14 K/32-36 K and their max from 29-35 ms to 0.2-0.9 ms, but the wall time did
/// not change beyond the noise (17.9-18.0 and 22.5-23.4 s, two runs): the
/// mutator's time went from the zero runs' ioctls (17 % of all samples) to ordinary
/// faults (13 %), both mostly the kernel allocating and zeroing pages. The flip
/// pause's register phase grew from about 10 us to 43-205 us (the split, and the
/// fault that gives the span its `anon_vma`).
///
/// Also dropped (2026-12-02): carves during a compaction installing the absent
/// pages they hand out themselves, zeroed, a run of up to 16 pages per
/// `UFFDIO_COPY` (guessing absence from the live words, as the ahead pass
/// does), instead of faulting page by page. Fault stalls fell by half in
/// binary-trees at 1 GiB (66-144 K to 39-74 K) and by 2-5 times in GCBench, and
/// to 1 from 8,195 in a test that allocates 32 MiB with recycling off; but in
/// nine A/B pairs (pausebench `auto`, both workloads at 1 GiB, one build with a
/// temporary switch) the wall time did not improve beyond the noise (the last
/// three, off first: GCBench 7.80/7.64/9.19 s off against 7.60/8.52/9.38 s on,
/// binary-trees 10.32/10.92/12.77 against 10.70/12.09/12.49 s), and a first
/// version that tried every page ran GCBench 10-15 % slower (a copy onto a page
/// that exists is an ioctl that installs nothing).
///
/// For geometry `g`: its page (which divides the recycling alignment).
pub fn zero_run(g: &flipgc_heap::Geometry) -> usize {
    g.page
}

/// `ENOENT` (the span is no longer registered).
const ENOENT: i32 = flipgc_heap::sys::Errno::ENOENT as i32;
/// `EEXIST` (a page is already there).
const EEXIST: i32 = flipgc_heap::sys::Errno::EEXIST as i32;
/// `EBUSY` (a page the kernel cannot move now).
const EBUSY: i32 = flipgc_heap::sys::Errno::EBUSY as i32;

/// `n` page states, all `UNFILLED`, from zeroed memory.
fn unfilled_states(n: usize) -> Box<[AtomicU8]> {
    const _: () = assert!(page_state::UNFILLED == 0);
    let zeroed: Box<[u8]> = vec![0u8; n].into_boxed_slice();
    // SAFETY: `AtomicU8` has the same size, alignment and bit validity as `u8`, so a
    // boxed slice of one is a boxed slice of the other (same allocation layout).
    unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [AtomicU8]) }
}

impl RootTask for Compaction {
    fn apply(&self, roots: &mut RootTable) {
        forward_table(roots, &self.tables.ctx(&self.inner, &self.layout));
    }
}

impl super::large::ForwardFields for Compaction {
    fn forward_fields(&self, addr: usize) {
        let fill = self.tables.ctx(&self.inner, &self.layout);
        super::roots::forward_large_object(&fill, addr);
    }
}

impl Compaction {
    /// Where the object at old address `v` lives now, or `None` if it died
    /// ([`super::fill::FillCtx::survivor`]).
    pub fn survivor(&self, v: usize) -> Option<usize> {
        self.tables
            .ctx(&self.inner, &self.layout)
            .survivor(v, &self.inner.los_marks)
    }

    /// A compaction of the heap whose capacity ends at `end` and whose span, already
    /// registered on `uffd`, at `span_end`;
    /// from-space holds the old image in its first `from_bytes`. `scratch` comes
    /// from [`Scratch::prepare`] (so nothing is allocated here, inside the flip
    /// pause) and goes back to `inner.compaction_scratch` at the end.
    pub fn new(
        inner: Arc<HeapInner>,
        tables: FillTables,
        layout: Layout,
        (end, span_end, from_bytes): (usize, usize, usize),
        uffd: Userfault,
        mutators: Vec<Arc<MutatorShared>>,
        (scratch, parked): (Scratch, Parked),
    ) -> Compaction {
        let (pages, dense_pages) = {
            let ctx = tables.ctx(&inner, &layout);
            (ctx.pages(), ctx.dense_pages)
        };
        assert!(
            pages <= scratch.states.len(),
            "more to-space pages than the heap has"
        );
        let geometry = flipgc_heap::Capabilities::probe().geometry;
        let slot = if uffd.sigbus() {
            inner.sigbus_slot
        } else {
            None
        };
        // Reached once per compaction that recycles (the injection alternates).
        let move_fails =
            inner.config.recycle_from_space && inner.inject.cycle(InjectPoint::UffdMove);
        Compaction {
            recycle_align: recycle_align(&geometry),
            move_fails,
            run: run_pages(geometry.page),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            young: false,
            slot,
            stalls_lost: AtomicUsize::new(0),
            early_stalls: parking_lot::Mutex::new(Vec::new()),
            inner,
            tables,
            layout,
            end,
            span_end,
            from_bytes,
            uffd,
            mutators,
            pages,
            scratch: Some(scratch),
            parked,
            filled: AtomicUsize::new(0),
            next: AtomicUsize::new(dense_pages),
            next_dense: AtomicUsize::new(0),
            moved: AtomicUsize::new(0),
            frames_end: AtomicUsize::new(0),
            waited: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            started: Instant::now(),
        }
    }

    /// The reused buffers (there until `finish`, which runs after every handler and
    /// thread using this compaction is done).
    #[inline]
    fn scratch(&self) -> &Scratch {
        match &self.scratch {
            Some(s) => s,
            // Not a panic: this may run in a signal handler.
            None => crate::fatal::die(format_args!(
                "concurrent compaction: its buffers were used after its end"
            )),
        }
    }

    /// The page states of this compaction's to-space.
    #[inline]
    fn states(&self) -> &[AtomicU8] {
        &self.scratch().states[..self.pages]
    }

    /// SIGBUS mode: publishes this compaction in its heap's slot, so that faulting
    /// threads' handlers find it. Called in the flip pause, right after it was made
    /// (before any mutator can run and fault).
    pub fn publish(self: &Arc<Self>) {
        if let Some(slot) = self.slot {
            crate::sigbus::publish(slot, Arc::as_ptr(self));
        }
    }

    /// Whether the handlers fill this compaction's pages (SIGBUS mode).
    pub fn sigbus_mode(&self) -> bool {
        self.slot.is_some()
    }

    /// Whether `addr` is in this compaction's registered range (the heap span).
    pub(crate) fn covers(&self, addr: usize) -> bool {
        (self.layout.base..self.end).contains(&addr)
    }

    /// The tag of this compaction's stall samples.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Counts a stall sample a handler could not keep (its record was full).
    pub(crate) fn stall_lost(&self) {
        self.stalls_lost.fetch_add(1, Ordering::Relaxed);
    }

    fn page_bytes(&self) -> usize {
        self.layout.page_words * WORD
    }

    fn claim(&self, p: usize) -> bool {
        page_state::claim(self.states(), p)
    }

    /// Produces claimed pages `[first, end)` into the buffer at `out` and installs
    /// them with one copy, then marks them `FILLED`. Async-signal-safe when
    /// `in_handler` (no lock, no allocation; failures end the process through
    /// [`crate::fatal::die`]).
    fn install(
        &self,
        ctx: &FillCtx<'_>,
        first: usize,
        end: usize,
        out: usize,
        in_handler: bool,
        cover: &mut Option<(usize, usize)>,
    ) {
        let dense_end = end.min(ctx.dense_pages);
        if first < dense_end {
            // Dense pages are produced in place and copied from there: one page
            // moved costs a flush of the other CPU's TLB, more than its copy.
            for p in first..dense_end {
                ctx.fill_dense(p);
            }
            let from = self.layout.from + first * self.page_bytes();
            self.install_produced(first, dense_end, from, in_handler);
        }
        let first = first.max(dense_end);
        if first < end {
            ctx.fill_pages_to(first, end, out, cover);
            for p in first..end {
                self.check_sources(ctx, p);
            }
            self.install_produced(first, end, out, in_handler);
        }
    }

    /// Installs claimed pages `[first, end)`, produced in place in from-space
    /// from `src` on (dense pages at their own offsets, [`FillCtx::fill_dense`];
    /// black pages at their old ones, [`FillCtx::fill_black_in_place`];
    /// compacted pages in frames, `compaction/frames.rs`), by moving
    /// them (no copy, no new page; one TLB flush of the other CPUs per move), then
    /// marks them `FILLED`. Whatever the kernel does not move (a page it cannot
    /// move now, a hole, no `UFFDIO_MOVE`, or an injected failure) is copied from
    /// from-space instead; pages it moved without counting them are not
    /// (`compaction/twice.rs`). Not for a signal handler (it is not worth a flush
    /// for one page there).
    fn install_moved(&self, first: usize, end: usize, src: usize) {
        let page = self.page_bytes();
        page_state::install(self.states(), &self.filled, first, end, || {
            let dst = self.layout.base + first * page;
            let len = (end - first) * page;
            let outcome = if self.move_fails {
                twice::MoveOutcome::default()
            } else {
                self.move_claimed(dst, src, len)
            };
            let moved = outcome.moved;
            self.moved.fetch_add(moved / page, Ordering::Relaxed);
            if moved < len {
                // SAFETY: pages [first, end) are this thread's claim (invariant 1);
                // the rest of the run is still in from-space, produced; `dst` is
                // page-aligned in the registered range.
                if let Err(e) = unsafe { self.copy_in(dst + moved, src + moved, len - moved) } {
                    self.installed_twice(
                        first + moved / page,
                        (first, end),
                        Some((outcome, src)),
                        e,
                    );
                }
            }
        });
    }

    /// Marks the cycle young (`sticky.rs`), for the report of a page installed
    /// twice; called in the flip pause, before the compaction is shared.
    pub fn in_young_cycle(mut self, young: bool) -> Compaction {
        self.young = young;
        self
    }

    /// The dense prefix, on the compaction's own thread: claims runs of its pages
    /// in address order, produces them in place and moves them into to-space.
    ///
    /// One thread moves, not every worker: with two workers moving runs of the
    /// prefix at once, a move found the first page of its destination already
    /// present (`EEXIST`), though that run was claimed by its thread alone and no
    /// other install had touched it (`tests/rss.rs` with two workers, three copies
    /// at once on 2 CPUs: within 2-10 rounds; `/proc/self/pagemap` showed pages of
    /// to-space appearing and disappearing outside the runs being moved). The
    /// cause was not found then (most likely the kernel's miscounted moves that
    /// `compaction/twice.rs` now handles, more frequent with more contention);
    /// with one thread moving, 75 such runs passed. Mutators' faults on dense
    /// pages copy (`Compaction::install`), as do the other workers (the rest of
    /// the pages).
    fn work_dense(&self, ctx: &FillCtx<'_>) {
        let run = dense_run_pages(self.page_bytes());
        loop {
            let start = self.next_dense.fetch_add(run, Ordering::Relaxed);
            if start >= ctx.dense_pages {
                return;
            }
            let end = (start + run).min(ctx.dense_pages);
            self.claim_run(
                (start, end),
                true,
                |p, _| ctx.fill_dense(p),
                |first, p| {
                    self.install_moved(first, p, self.layout.from + first * self.page_bytes())
                },
            );
            // Whoever waited got what was produced when the stretch was cut.
            self.waited.store(false, Ordering::Relaxed);
        }
    }

    /// Produces and installs the pages of run `[start, end)` that nobody else has
    /// claimed: claims them one at a time, each produced (`produce(page, first
    /// page of its stretch)`) before the next is claimed, and installs each
    /// stretch of consecutive claims at once (`install(first, end)`); with `cut`,
    /// a stretch also ends once a mutator waits for a page (`waited`). A mutator
    /// touching a page of the run that is not claimed yet claims and fills it
    /// itself, and the stretch stops before it; claiming the whole run up front
    /// made such a mutator wait for all of it (100-300 us when it read right
    /// behind the fill, in binary-trees at 4 GiB). Calls the test's fill hook, if
    /// any, before the run and before each page.
    fn claim_run(
        &self,
        (start, end): (usize, usize),
        cut: bool,
        mut produce: impl FnMut(usize, usize),
        mut install: impl FnMut(usize, usize),
    ) {
        #[cfg(feature = "test-seams")]
        let at = |p: usize| self.layout.base + p * self.page_bytes();
        #[cfg(feature = "test-seams")]
        if let Some(hook) = &self.inner.config.fill_hook {
            (hook.0)(at(start), at(end), false);
        }
        let mut p = start;
        while p < end {
            if !self.claim(p) {
                p += 1; // being (or been) filled on demand
                continue;
            }
            let first = p;
            loop {
                #[cfg(feature = "test-seams")]
                if let Some(hook) = &self.inner.config.fill_hook {
                    (hook.0)(at(p), at(p + 1), true);
                }
                produce(p, first);
                p += 1;
                // A mutator waiting (maybe for a page of this stretch): install
                // what is produced now.
                if p == end || (cut && self.waited.load(Ordering::Relaxed)) || !self.claim(p) {
                    break;
                }
            }
            install(first, p);
        }
    }

    /// Installs claimed pages `[first, end)`, already produced into the buffer at
    /// `out`, with one copy, then marks them `FILLED`. Async-signal-safe when
    /// `in_handler`, as [`Compaction::install`]. A failure ends the process: off a
    /// signal handler with [`Compaction::installed_twice`]'s report, in one with
    /// a shorter one that allocates nothing (the run, the first page's state and
    /// where it lies in the plan).
    fn install_produced(&self, first: usize, end: usize, out: usize, in_handler: bool) {
        let page = self.page_bytes();
        page_state::install(self.states(), &self.filled, first, end, || {
            let dst = self.layout.base + first * page;
            let len = (end - first) * page;
            // SAFETY: the buffer holds (end - first) produced pages; `dst` is
            // page-aligned in the registered range; pages [first, end) are claimed by
            // this thread, so nobody else installs them (invariant 1).
            let Err(e) = (unsafe { self.copy_in(dst, out, len) }) else {
                return;
            };
            if !in_handler {
                self.installed_twice(first, (first, end), None, e);
            }
            let ctx = self.tables.ctx(&self.inner, &self.layout);
            let state = self.states()[first].load(Ordering::Acquire);
            let region = twice::region(&ctx, first);
            let young = if self.young { "young" } else { "full" };
            match e {
                CopyError::Exists => fail(
                    true,
                    format_args!(
                        "to-space pages {first}..{end} at {dst:#x} (a page of them) installed \
                         twice: page {first}'s state {state}, {region}, a {young} cycle"
                    ),
                ),
                CopyError::Os(e) => fail(
                    true,
                    format_args!(
                        "UFFDIO_COPY of to-space pages {first}..{end} at {dst:#x}: errno {e} \
                         (page {first}'s state {state}, {region}, a {young} cycle)"
                    ),
                ),
            }
        });
    }

    /// `UFFDIO_COPY` of `len` bytes from `src` to `dst`, retrying transient failures
    /// (`ENOMEM` under memory pressure, `EAGAIN` while the address space changes)
    /// with a growing back-off for about 10 s; other errors, and a failure that lasts,
    /// are returned. A failed copy installed nothing: the heap's copy wrapper resumes
    /// partial copies itself. Async-signal-safe (`nanosleep`, atomics, `ioctl`).
    ///
    /// # Safety
    /// As [`Userfault::copy`]'s.
    unsafe fn copy_in(&self, dst: usize, src: usize, len: usize) -> Result<(), CopyError> {
        let mut backoff_us = 10u64;
        let mut waited_us = 0u64;
        loop {
            let result = match self.inner.inject.call_errno(InjectPoint::UffdCopy) {
                Some(errno) => Err(CopyError::Os(errno)),
                // SAFETY: forwarded from the caller. In SIGBUS mode nobody waits in
                // the kernel, so the wake-up finds no waiter (cheap) either way.
                None => unsafe { self.uffd.copy(dst, src, len, true) },
            };
            match result {
                Err(CopyError::Os(e))
                    if (e == flipgc_heap::sys::Errno::ENOMEM as i32
                        || e == flipgc_heap::sys::Errno::EAGAIN as i32)
                        && waited_us < 10_000_000 =>
                {
                    crate::sigbus::sleep_us(backoff_us);
                    waited_us += backoff_us;
                    backoff_us = (backoff_us * 2).min(10_000);
                }
                other => return other,
            }
        }
    }

    fn done(&self) -> bool {
        page_state::all_filled(&self.filled, self.pages)
    }

    /// A background worker: the dense prefix first if `own` (the compaction's
    /// own thread only: see [`Compaction::work_dense`]), then runs of the other
    /// pages in address order; the compaction's own thread produces compacted
    /// pages into frames where it can (`compaction/frames.rs`).
    fn work(&self, own: bool) {
        let _fatal = AbortOnUnwind::new("concurrent compaction (a page-filling worker)");
        let ctx = self.tables.ctx(&self.inner, &self.layout);
        let frames = if own {
            self.work_dense(&ctx);
            Frames::new(self, &ctx)
        } else {
            None
        };
        let mut buf = vec![0u64; self.run * self.layout.page_words];
        let out = buf.as_mut_ptr() as usize;
        let pages = self.pages;
        let mut runs = 0u32;
        // The black object covering the next page, from the run before.
        let mut cover = None;
        loop {
            runs = runs.wrapping_add(1);
            if runs % 4 == 0 {
                self.collect_stalls();
            }
            let start = self.next.fetch_add(self.run, Ordering::Relaxed);
            if start >= pages {
                return;
            }
            let end = (start + self.run).min(pages);
            self.fill_run(&ctx, (start, end), out, &mut cover, frames.as_ref());
        }
    }

    /// Produces and installs the unclaimed pages of run `[start, end)` (at most
    /// [`Compaction::run`] pages): given `frames`, each compacted page into a frame
    /// while there are any (`compaction/frames.rs`), stretches of consecutive
    /// frames moved into to-space with one move each; the other pages into the
    /// buffer at `out`, each stretch of them installed with one copy. `cover` as
    /// [`FillCtx::fill_pages_to`]'s.
    fn fill_run(
        &self,
        ctx: &FillCtx<'_>,
        (start, end): (usize, usize),
        out: usize,
        cover: &mut Option<(usize, usize)>,
        frames: Option<&Frames>,
    ) {
        let page = self.page_bytes();
        // The frame of each page of the stretch being produced (0: the buffer).
        let framed: [std::cell::Cell<usize>; 64] = std::array::from_fn(|_| std::cell::Cell::new(0));
        let framed = &framed[..(end - start).min(64)];
        let compacted = ctx.page_first.len();
        self.claim_run(
            (start, end),
            false,
            |p, first| {
                let i = p - first;
                let frame = match frames {
                    Some(f) if p < compacted && i < framed.len() => f.take(self, ctx).unwrap_or(0),
                    _ => 0,
                };
                if i < framed.len() {
                    framed[i].set(frame);
                }
                let dst = if frame != 0 { frame } else { out + i * page };
                ctx.fill_pages_to(p, p + 1, dst, cover);
                self.check_sources(ctx, p);
            },
            |first, p| {
                self.install_framed((first, p), framed, out);
                self.inner.inject.panic_once(InjectPoint::WorkerPanic);
            },
        );
    }

    /// The black region's pages, before the others, on the compaction's own
    /// thread: claims the unclaimed ones in address order, a run at a time,
    /// produces each in place in from-space ([`FillCtx::fill_black_in_place`]:
    /// black pages only slide, by whole pages) and moves them into to-space
    /// ([`Compaction::install_moved`]) instead of copying them. After each run,
    /// once every black page below it that others claimed (mutators' handlers,
    /// other workers) is `FILLED`, it moves its own pages below the first page a
    /// later producer may read ([`FillCtx::first_black_read`]: producing a page
    /// reads old pages back to its carve's start), and recycles the old pages
    /// there that are still present ([`Compaction::recycle_black_below`]).
    /// Returns the runs recycling moved.
    ///
    /// Why no producer reads a moved old page: a page this thread has not
    /// claimed yet, or one another party claimed, lies at or above the run just
    /// done or was waited for, so what its production reads starts at or above
    /// `first_black_read` of that run's end, and only pages below it move (the
    /// others' productions below it are `FILLED`: each state is stored with
    /// release after its producer's last read, and loaded here with acquire).
    /// Pages this thread produced but may not move yet stay `FILLING`: a mutator
    /// touching one waits for the move. Claims go in runs of 256 KiB, and moves
    /// wait until 2 MiB can move at once ([`dense_run_pages`]: each move flushes
    /// the other CPU's TLB), unless a mutator waits for a page (`waited`): then
    /// what can move moves after the current run, so a wait lasts about a claim
    /// run's production. Without that, GCBench at 1 GiB had fault stalls of
    /// 3.6-11.7 ms in 4 of 14 runs (pages held back for a whole gather); with it,
    /// one of 4.0 ms in 5 runs (the build before gathering: none over 1 ms in 11;
    /// 2026-12-04). Not fully understood. The old pages below the first page not
    /// moved yet are the only ones recycled (those above may still be sources).
    ///
    /// Moving, not copying (binary-trees at 1 GiB): a black page copied cost
    /// about 1.7 us (production into a buffer, then `UFFDIO_COPY` of a fresh
    /// page), moved in runs of [`dense_run_pages`] about 0.2-0.4 us plus its
    /// forwarding.
    fn work_black(&self) -> Vec<(usize, usize)> {
        let ctx = self.tables.ctx(&self.inner, &self.layout);
        let first = ctx.page_first.len();
        let mut recycling = self.black_recycling();
        let (run, gather) = (
            run_pages(self.page_bytes()) * 4,
            dense_run_pages(self.page_bytes()),
        );
        let mut cover = None;
        // Runs of pages this thread produced and has not moved yet (ascending).
        let mut produced: Vec<(usize, usize)> = Vec::new();
        for start in (first..self.pages).step_by(run) {
            let end = (start + run).min(self.pages);
            let mut mine = Vec::new();
            self.claim_run(
                (start, end),
                false,
                |p, _| ctx.fill_black_in_place(p, &mut cover),
                |a, b| mine.push((a, b)),
            );
            // Others' claims in this run are installed before anything moves.
            let others = recycle::gaps_below(start, end, &mine, &mut mine.len());
            self.wait_until(|| {
                others
                    .iter()
                    .all(|&(a, b)| (a..b).all(|p| page_state::is_filled(self.states(), p)))
            });
            // Adjacent stretches join, so that one move (one flush of the other
            // CPU's TLB) takes them all.
            for (a, b) in mine {
                match produced.last_mut() {
                    Some(last) if last.1 == a => last.1 = b,
                    _ => produced.push((a, b)),
                }
            }
            let safe = ctx.first_black_read(end);
            // Less than a gather's worth waits for the next run, unless this is the
            // last run or a mutator waits (maybe for one of these pages).
            let hold = end < self.pages && !self.waited.swap(false, Ordering::Relaxed);
            produced.retain_mut(|(a, b)| {
                let upto = (*b).min(safe);
                if *a >= safe || (hold && upto - *a < gather) {
                    return true;
                }
                self.install_moved(*a, upto, ctx.black_old_page(*a));
                *a = upto;
                *a < *b
            });
            // Old pages are recycled only below the first page not moved yet.
            let moved_to = produced.first().map_or(safe, |r| r.0.min(safe));
            self.recycle_black_below(&ctx, &mut recycling, moved_to);
        }
        debug_assert!(
            produced.is_empty(),
            "black pages left unmoved: {produced:?}"
        );
        recycling.runs
    }

    /// Waits, yielding the CPU (sleeping, on a real-time thread: the installers
    /// may be mutators of normal priority; `priority.rs`), until `ready` (pages
    /// that mutators' handlers, or the fault server, are still installing),
    /// collecting the stall samples meanwhile.
    fn wait_until(&self, mut ready: impl FnMut() -> bool) {
        let mut looks = 0u32;
        let realtime = crate::priority::realtime();
        while !ready() {
            looks = looks.saturating_add(1);
            if looks % 64 == 0 {
                self.collect_stalls();
            }
            crate::priority::relax(realtime, looks);
        }
    }

    /// SIGBUS mode: moves the stall samples the faulting threads have recorded so far
    /// into `early_stalls`, freeing their records' slots (a background worker every
    /// 4 runs, the wait for the last on-demand installs, and recycling every chunk).
    /// The end collects the rest.
    fn collect_stalls(&self) {
        if self.slot.is_some() {
            let mut early = self.early_stalls.lock();
            crate::sigbus::drain_stalls(self.id, |at, ns| early.push((at, ns)));
        }
    }

    /// Server mode's fault server: produces first every page a mutator touches, and
    /// maps zero pages where mutators allocate past the compacted end.
    fn serve(&self) {
        let _fatal = AbortOnUnwind::new("concurrent compaction (the fault server)");
        let ctx = self.tables.ctx(&self.inner, &self.layout);
        let mut buf = vec![0u64; self.layout.page_words];
        let out = buf.as_mut_ptr() as usize;
        let page = self.page_bytes();
        let mut faults = Vec::new();
        let mut stalls = Vec::new();
        // Faults on pages a worker is installing: that install wakes the toucher;
        // the server does not wait for it (other faults may be queued behind), but
        // notes when it happened, for the stall.
        let mut installing: Vec<(usize, u64)> = Vec::new();
        // Polls while a worker installs (`priority.rs`: sleeps on a real-time thread).
        let (realtime, mut looks) = (crate::priority::realtime(), 0u32);
        while !self.stop.load(Ordering::Acquire) {
            self.inner.inject.panic_once(InjectPoint::ServerPanic);
            installing.retain(|&(p, seen)| {
                let done = page_state::is_filled(self.states(), p);
                if done {
                    stalls.push((seen, now_ns() - seen));
                }
                !done
            });
            let timeout_ms = if installing.is_empty() { 1 } else { 0 };
            if !self.uffd.poll(timeout_ms) {
                if !installing.is_empty() {
                    looks = looks.saturating_add(1);
                    crate::priority::relax(realtime, looks);
                }
                continue;
            }
            looks = 0;
            faults.clear();
            if let Err(e) = self.uffd.read_faults(&mut faults) {
                panic!("reading userfaultfd events: {e}");
            }
            let seen = now_ns();
            for &addr in &faults {
                let p = (addr - self.layout.base) / page;
                if p >= self.pages {
                    self.zero_fill(addr, false);
                } else {
                    match page_state::on_fault_event(self.states(), p) {
                        OnFault::Install => self.install(&ctx, p, p + 1, out, false, &mut None),
                        OnFault::Installing => {
                            self.waited.store(true, Ordering::Relaxed);
                            installing.push((p, seen));
                            continue;
                        }
                        // Installed before the fault was read: the toucher may
                        // already be awake (the kernel rechecks before sleeping);
                        // make sure.
                        OnFault::Wake => {
                            let at = self.layout.base + p * page;
                            self.uffd
                                .wake(at, page)
                                .expect("UFFDIO_WAKE on a registered page");
                        }
                    }
                }
                stalls.push((seen, now_ns() - seen));
            }
        }
        // Faults still waiting for a worker's install when the server was told to
        // stop: every page is filled by then (stop comes after `done`), so their
        // stalls end no later than now. (They used to be dropped: the longest stalls,
        // behind a worker's run, went unrecorded.)
        for (_, seen) in installing {
            stalls.push((seen, now_ns() - seen));
        }
        let clock = heap_clock(&self.inner);
        let mut log = self.inner.log.lock();
        for (at, ns) in stalls {
            log.record_fault_stall(clock(at), ns);
        }
    }

    /// SIGBUS mode: serves the fault at `addr` (in [`Compaction::covers`]) inside
    /// the faulting thread's `SIGBUS` handler, with `buf` (a page-sized buffer held
    /// by this thread for this fault). On return the page is installed (by this
    /// thread or another party), or the span is no longer registered; either way the
    /// access can retry.
    ///
    /// Async-signal-safe: atomics, the read-only fill tables and from-space, the
    /// buffer, `ioctl`, `sched_yield`, `nanosleep`; no lock, no allocation, no panic
    /// on an expected path (a failure ends the process through
    /// [`crate::fatal::die`]).
    pub(crate) fn serve_in_handler(&self, addr: usize, buf: usize) {
        let page = self.page_bytes();
        let p = (addr - self.layout.base) / page;
        if p >= self.pages {
            self.zero_fill(addr, true);
            return;
        }
        if self.claim(p) {
            let ctx = self.tables.ctx(&self.inner, &self.layout);
            self.install(&ctx, p, p + 1, buf, true, &mut None);
            return;
        }
        // Being produced by a worker or another faulting thread (or done): wait for
        // its install. The installer needs nothing from this thread, but the
        // compaction's own thread is told not to hold pages back for a longer move.
        if !page_state::is_filled(self.states(), p) {
            self.waited.store(true, Ordering::Relaxed);
        }
        page_state::wait_filled(self.states(), p, crate::sigbus::back_off);
    }

    /// A fault past the compacted end (fresh allocation): installs a private zeroed
    /// page there ([`zero_run`]), copied from a source that reads as zeros. Not
    /// `UFFDIO_ZEROPAGE`: the shared zero page costs every first write a
    /// copy-on-write fault and a TLB shootdown to the other CPUs (an
    /// inter-processor interrupt, expensive in a VM). Async-signal-safe when
    /// `in_handler`, as [`Compaction::serve_in_handler`].
    fn zero_fill(&self, addr: usize, in_handler: bool) {
        let page = self.page_bytes();
        let at = addr & !(page - 1);
        let src = self.scratch().zeros.addr();
        // SAFETY: the source reads as zeros for a page (an untouched private
        // mapping); the destination is page-aligned inside the registered span.
        match unsafe { self.copy_in(at, src, page) } {
            Ok(()) => {}
            // The span was unregistered since the fault (the end of the compaction):
            // the toucher was woken (server mode) or retries (SIGBUS mode), and faults
            // normally.
            Err(CopyError::Os(ENOENT)) => {}
            Err(CopyError::Exists) => {
                if !in_handler {
                    // Installed by somebody else: make sure the toucher wakes (an
                    // error means the span is unregistered, which woke it).
                    let _ = self.uffd.wake(at, page);
                }
            }
            Err(CopyError::Os(e)) => fail(
                in_handler,
                format_args!("UFFDIO_COPY of zeros at {at:#x}: errno {e}"),
            ),
        }
    }

    /// Runs the compaction to the end (background workers, and the fault server in
    /// server mode), then finishes it. Called on a thread of its own, right after the
    /// flip pause.
    pub fn run(self: Arc<Self>, workers: usize) {
        let sigbus = self.sigbus_mode();
        std::thread::scope(|s| {
            // The guard lives inside the scope: a panic on this thread must abort
            // before the scope joins the threads it spawned, since the fault server
            // runs until `stop`, which the panic would never store (the process
            // used to hang there, its mutators asleep in the kernel on pages
            // nobody would fill: `tests/reliability.rs`).
            let fatal = AbortOnUnwind::new("concurrent compaction");
            let named = |name: &str| std::thread::Builder::new().name(name.into());
            if !sigbus {
                named("flipgc-fault-server")
                    .spawn_scoped(s, || {
                        crate::priority::collector_thread_start(
                            self.inner.config.gc_thread_priority,
                            "flipgc-fault-server",
                        );
                        self.serve()
                    })
                    .expect("spawning the fault server");
            }
            let helpers: Vec<_> = (1..workers.max(1))
                .map(|_| {
                    named("flipgc-fill")
                        .spawn_scoped(s, || {
                            crate::priority::collector_thread_start(
                                self.inner.config.gc_thread_priority,
                                "flipgc-fill",
                            );
                            self.work(false)
                        })
                        .expect("spawning a fill worker")
                })
                .collect();
            // The large objects' fields that no mutator has needed yet, first: until
            // they are all forwarded, the compaction cannot end (`large.rs`).
            fatal.phase("concurrent compaction (forwarding the large objects' fields)");
            super::large::forward_all_and_withdraw(&self.inner);
            fatal.phase("concurrent compaction");
            let mut recycled_early = self.recycle_ahead();
            self.inner.inject.panic_once(InjectPoint::CompactionPanic);
            recycled_early.extend(self.work_black());
            recycled_early.sort_unstable();
            self.work(true);
            for h in helpers {
                // A worker's panic aborts the process (its guard) before this.
                h.join().expect("compaction worker panicked");
            }
            // Pages claimed on demand may still be being installed.
            self.wait_until(|| self.done());
            // Faults past the compacted end are served (zero pages) until the span is
            // unregistered: a mutator or the verifier may fault there while holding
            // the space lock this needs.
            fatal.phase("the end of a concurrent compaction (recycling, unregistering)");
            self.unregister(&recycled_early);
            self.stop.store(true, Ordering::Release);
        });
        let fatal = AbortOnUnwind::new("the end of a concurrent compaction (releasing from-space)");
        // No fault on the span reaches this compaction any more: the server has
        // stopped, and handlers in flight have returned (`unregister`).
        self.release_from_space();
        fatal.phase("the end of a concurrent compaction (handing the tables back)");
        self.finish();
    }

    /// Every page is filled: recycles from-space's pages above the top into the heap
    /// (but for the runs the early passes moved, `recycled_early`: ahead, and behind
    /// the black pages), unregisters the heap span, and in SIGBUS mode withdraws the compaction from
    /// its slot and waits for the handlers in flight (`sigbus::retire`).
    fn unregister(&self, recycled_early: &[(usize, usize)]) {
        if self.inner.config.recycle_from_space {
            self.recycle(recycled_early);
        }
        self.uffd
            .unregister(self.layout.base, self.span_end - self.layout.base)
            .expect("unregistering the heap");
        if let Some(slot) = self.slot {
            crate::sigbus::retire(slot);
        }
    }

    /// Maps from-space afresh: nothing reads it any more.
    fn release_from_space(&self) {
        // From-space has its own lock, which no mutator takes: the fresh mapping
        // (milliseconds for a gigabyte with pages to free) holds up no allocation.
        let mut from = self.inner.from_space.lock();
        if self.from_bytes > 0 {
            // A fresh mapping, not just MADV_DONTNEED: that would keep the page
            // tables, and the next flip's mremap would spend its pause freeing them
            // when it replaces from-space.
            from.span.recommit().expect("recommit from-space");
        }
        from.populated = 0;
        // What recycling did not take back of the parked extents.
        super::park::release(&mut from);
    }

    /// Hands the side tables back (cleared) and ends the cycle.
    fn finish(self: Arc<Self>) {
        // Roots not yet forwarded (mutators still parked since the flip): now.
        for m in &self.mutators {
            m.fix_pending();
        }
        let pages = self.pages;
        let elapsed = self.started.elapsed();
        let inner = Arc::clone(&self.inner);
        // Every pending forwarding is applied (or being applied under its lock, by a
        // mutator or the coordinator, which then drop their reference): wait for them.
        let mut this = self;
        let (realtime, mut looks) = (crate::priority::realtime(), 0u32);
        let mut this = loop {
            match Arc::try_unwrap(this) {
                Ok(c) => break c,
                Err(again) => {
                    this = again;
                    looks = looks.saturating_add(1);
                    // The holders may be mutators of normal priority (`priority.rs`).
                    crate::priority::relax(realtime, looks);
                }
            }
        };
        let top_word = this.layout.top_word;
        let scratch = this.scratch.take().expect("scratch until the end");
        page_state::reset(&scratch.states[..this.pages]);
        *inner.compaction_scratch.lock() = Some(scratch);
        this.tables
            .into_tables()
            .hand_back(&mut inner.collector.lock(), top_word);
        // SIGBUS mode: the faulting threads' own stall samples (every handler for
        // this compaction has returned: `unregister`).
        let mut stalls = std::mem::take(&mut *this.early_stalls.lock());
        if this.slot.is_some() {
            crate::sigbus::drain_stalls(this.id, |at, ns| stalls.push((at, ns)));
        }
        let clock = heap_clock(&inner);
        let lost = this.stalls_lost.load(Ordering::Relaxed);
        let mode = if this.slot.is_some() {
            crate::FaultMode::Sigbus
        } else {
            crate::FaultMode::Server
        };
        {
            let mut log = inner.log.lock();
            for (at, ns) in stalls {
                log.record_fault_stall(clock(at), ns);
            }
            log.record_fault_stalls_lost(lost as u64);
            log.record_compaction(
                elapsed.as_nanos() as u64,
                pages,
                this.moved.load(Ordering::Relaxed),
            );
            log.record_compaction_mode(mode);
        }
        *inner.cycle.lock() = CyclePhase::Idle;
    }
}

/// Ends the process over a failed install: with a panic on a collector thread (its
/// abort guard names the phase), with [`crate::fatal::die`] in a signal handler.
#[cold]
fn fail(in_handler: bool, args: std::fmt::Arguments<'_>) -> ! {
    if in_handler {
        crate::fatal::die(format_args!(
            "concurrent compaction (a SIGBUS handler): {args}"
        ))
    } else {
        panic!("{args}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_heap::{Arch, Geometry};

    #[test]
    fn stall_starts_map_onto_the_heap_clock() {
        // The heap's clock read 100 when the monotonic one read 1,000: a stall that
        // began 5 ns earlier began at 95 on the heap's clock; one before the heap
        // was made, at 0.
        assert_eq!(on_heap_clock(995, 1_000, 100), 95);
        assert_eq!(on_heap_clock(1_010, 1_000, 100), 110);
        assert_eq!(on_heap_clock(800, 1_000, 100), 0);
    }

    #[test]
    fn alignment_and_run_follow_the_geometry() {
        let g = |arch, page| Geometry::for_arch(arch, page).unwrap();
        // (geometry, recycling alignment, pages per install)
        let cases = [
            (g(Arch::X86_64, 4096), 2 << 20, 16),
            (g(Arch::Aarch64, 4096), 2 << 20, 16),
            (g(Arch::Aarch64, 16 << 10), 32 << 20, 4),
            (g(Arch::Aarch64, 64 << 10), 32 << 20, 1),
            (g(Arch::Generic, 4096), 4096, 16),
        ];
        for (geo, chunk, run) in cases {
            assert_eq!(recycle_align(&geo), chunk, "{geo}");
            assert!(recycle_align(&geo).is_power_of_two() && recycle_align(&geo) % geo.page == 0);
            assert_eq!(recycle_align(&geo) % zero_run(&geo), 0);
            assert_eq!(run_pages(geo.page), run, "{geo}");
        }
    }
}
