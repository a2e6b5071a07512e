//! Concurrent marking: the mark-start pause, concurrent rounds on the GC workers,
//! and the time-bounded mark-end pause.
//!
//! Snapshot at the beginning (Yuasa): the mark-start pause takes a logical snapshot
//! of the object graph. Everything reachable in the snapshot gets marked; everything
//! allocated after it is black (above the mark boundary, or born marked in the
//! large-object space). Why no object can be missed, the invariants:
//! 1. **Roots.** Each mutator's roots are scanned before it runs again after the
//!    mark-start pause (a pending [`RootScan`], run by the mutator as it resumes or
//!    by the driver for one still stopped), so the scan sees its roots as they were
//!    in the snapshot. The globals are scanned by the driver after the pause, and
//!    every value a global loses meanwhile is logged (`GlobalTable::logging`).
//! 2. **Deletions.** While marking, every store that overwrites a reference (heap
//!    fields, large objects' fields) first logs the old value in the mutator's
//!    buffer (`barrier.rs`). So every object reachable in the snapshot either stays
//!    reachable through snapshot edges the markers will follow, or was logged when
//!    its last such edge was cut.
//! 3. **Hand-off.** A mutator hands its buffer to the [`Intake`] when it fills and
//!    before it stops (every GC point, `blocking`), so at the mark-end pause, with
//!    every mutator stopped, every logged value is in the intake. Mutex release and
//!    acquire order the buffer's contents (and the headers its writers loaded with
//!    acquire) before the marker reads them.
//! 4. **Termination.** The mark-end pause applies any root scan still pending,
//!    drains the globals' log, and drains the intake and the grey objects. Marking
//!    is complete when both are empty with every mutator stopped: nothing can add
//!    to them until the barrier is off. If the drain does not finish within its
//!    budget, the rest goes back to the intake and another concurrent round runs
//!    (as ZGC's time-bounded marking termination): the grey objects as grey, to be
//!    scanned without marking (they are marked already, so marking them again would
//!    skip them and never follow their references); after [`MAX_ROUNDS`] rounds the
//!    pause drains to the end, whatever it takes.
//! 5. **New objects** need no barrier for their initial stores (the old value is
//!    null), and are never scanned: whatever they come to reference was reachable in
//!    the snapshot (so marked by 1-2) or allocated later (black).

use super::ephemeron;
use super::heap_inner::HeapInner;
use super::mark::{Deferred, MarkCtx};
use super::pause::{Details, Pause};
use super::roots::RootScan;
use super::CyclePhase;
use crate::collect::root_table::MutatorShared;
use crate::decode::Decode;
use crate::fatal::AbortOnUnwind;
use crate::inject::{FaultInjector, InjectPoint};
use crate::mem::WORD;
use crate::object::is_ref;
use crate::safepoint::DRIVER;
use crossbeam_deque::{Injector, Stealer, Worker};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the mark-end pause may drain before it gives up and lets another
/// concurrent round run.
pub const DRAIN_BUDGET: Duration = Duration::from_micros(100);

/// Concurrent rounds after which the mark-end pause drains to the end regardless.
pub const MAX_ROUNDS: u32 = 16;

/// Where marking work arrives from mutators and root scans: batches of addresses
/// (objects to mark), batches of grey objects (marked, not yet scanned: what a
/// mark-end drain that ran out of time hands back), and whether the barrier is on.
#[derive(Default)]
pub struct Intake {
    /// Set in the mark-start pause, cleared in the final mark-end pause: mutators
    /// read it when they resume from a pause (their barrier flag).
    active: AtomicBool,
    batches: Mutex<Vec<Batch>>,
    /// Number of batches (read without the lock by idle markers).
    len: AtomicUsize,
    /// Objects with weak fields that marking scanned, or that had a weak field
    /// stored into while marking: the end of marking clears their weak fields whose
    /// referents died (`weak.rs`).
    weak_holders: Mutex<Vec<usize>>,
}

/// A batch of marking work.
struct Batch {
    addrs: Vec<usize>,
    /// The objects are marked already and only need scanning. Marking them again
    /// would find their bits set and skip them: their references would never be
    /// followed (invariant 4).
    grey: bool,
}

impl Batch {
    /// Feeds the batch to a marker's stack: every object that must be scanned.
    fn feed<D: Decode>(self, ctx: &MarkCtx<'_, D>, mut push: impl FnMut(usize)) {
        for a in self.addrs {
            if self.grey || ctx.mark(a) {
                push(a);
            }
        }
    }
}

impl Intake {
    /// Whether concurrent marking is on (the write barrier must log).
    pub fn active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// Hands in a batch of addresses to mark (any thread).
    pub fn push(&self, batch: Vec<usize>) {
        self.push_batch(Batch {
            addrs: batch,
            grey: false,
        });
    }

    /// Hands back grey objects: marked, not yet scanned.
    fn push_grey(&self, grey: Vec<usize>) {
        self.push_batch(Batch {
            addrs: grey,
            grey: true,
        });
    }

    fn push_batch(&self, batch: Batch) {
        if batch.addrs.is_empty() {
            return;
        }
        let mut b = self.batches.lock();
        b.push(batch);
        self.len.store(b.len(), Ordering::Release);
    }

    fn pop(&self) -> Option<Batch> {
        if self.len.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut b = self.batches.lock();
        let batch = b.pop();
        self.len.store(b.len(), Ordering::Release);
        batch
    }

    fn is_empty(&self) -> bool {
        self.len.load(Ordering::Acquire) == 0
    }

    /// Notes objects with weak fields (a marker's scanned ones, in a batch).
    pub fn note_weak_holders(&self, holders: &mut Vec<usize>) {
        if !holders.is_empty() {
            self.weak_holders.lock().append(holders);
        }
    }

    /// Notes one object with weak fields (a weak store while marking).
    pub fn note_weak_holder(&self, holder: usize) {
        self.weak_holders.lock().push(holder);
    }

    /// Takes the noted weak holders.
    pub fn take_weak_holders(&self) -> Vec<usize> {
        std::mem::take(&mut self.weak_holders.lock())
    }

    /// The values of the noted ephemerons that must be traced next
    /// ([`ephemeron::ready_values`]). The list is taken out of the mutex for the
    /// look and put back after, so that mutators noting a weak store meanwhile
    /// wait only for the two swaps. Ordering: the markers' and mutators' hand-ins
    /// were made under the mutex, whose release happens-before this acquire; what
    /// the look reads in the holders is argued in `ephemeron.rs`.
    pub fn ephemeron_values<D: Decode>(&self, ctx: &MarkCtx<'_, D>) -> Vec<usize> {
        let holders = self.take_weak_holders();
        let values = ephemeron::ready_values(ctx, &holders);
        self.weak_holders.lock().extend(holders);
        values
    }
}

/// The mark-start pause of cycle `n`, run by the driver ([`start_pause`]), then
/// the roots it left to scan ([`scan_after_start`]). Returns the boundary.
pub fn start(inner: &Arc<HeapInner>, n: u64) -> usize {
    let (boundary, stopped) = start_pause(inner, n, DRIVER);
    scan_after_start(inner, &stopped);
    boundary
}

/// The mark-start pause of cycle `n`, coordinated by `me` (the driver, or the
/// mutator whose allocation made the pacer start the cycle; its own pending root
/// scan is then its to run before it touches its roots): sets the mark boundary
/// (the top, padded to a page: everything above is black), turns the barrier on,
/// leaves every mutator a root scan. Returns the boundary and the mutators it
/// stopped.
pub fn start_pause(inner: &HeapInner, n: u64, me: u64) -> (usize, Vec<Arc<MutatorShared>>) {
    let mut p = Pause::stop_as(inner, "mark-start", me);
    p.phase("boundary");
    let page = flipgc_heap::Capabilities::probe().geometry.page;
    let boundary = {
        let mut space = inner.space.lock();
        let (top, end) = (space.top, space.end());
        let boundary = top.next_multiple_of(page).min(end);
        if boundary > top {
            // SAFETY: `[top, boundary)` is free moving space (the space lock is held,
            // the world is stopped): nobody else can carve or touch it.
            unsafe { crate::space::tlab::write_filler(top, (boundary - top) / WORD) };
            space.set_top(boundary);
        }
        space.black_carves = Some(Vec::new());
        boundary
    };
    inner.los.lock().black = true;
    p.phase("barrier");
    inner.globals.lock().logging = true;
    inner.intake.active.store(true, Ordering::Release);
    let scan = Arc::new(RootScan(Arc::clone(&inner.intake)));
    for m in &p.stopped.mutators {
        m.set_pending_scan(Arc::clone(&scan) as Arc<dyn crate::collect::root_table::RootTask>);
    }
    let mutators = p.stopped.mutators.clone();
    *inner.cycle.lock() = CyclePhase::Marking;
    inner.driver.started(n);
    p.end(Details::default());
    (boundary, mutators)
}

/// After a mark-start pause, with the world running again (the driver): scans the
/// roots of mutators that have not resumed since (those resuming scan their own
/// first), then the globals.
pub fn scan_after_start(inner: &HeapInner, stopped: &[Arc<MutatorShared>]) {
    for m in stopped {
        m.fix_pending();
    }
    let mut globals: Vec<usize> = inner
        .globals
        .lock()
        .slots
        .iter()
        .filter(|v| is_ref(**v as usize))
        .map(|v| *v as usize)
        .collect();
    // Finalized objects waiting in queues are roots too (taking one out logs it).
    globals.extend(super::refs::ready_roots(inner));
    inner.intake.push(globals);
}

/// One concurrent round: `workers` markers mark from the intake until it and every
/// deque are empty at once (mutators may add more later: the mark-end pause
/// collects it). Marker 0 is the calling thread (the driver), the others are
/// spawned for the round. With `old_region` (a young cycle's first round), marker 0
/// first passes over the old region ([`MarkCtx::scan_old_region`]).
///
/// Why the driver marks, rather than waiting for spawned markers: the mark-end
/// pause follows at once, and a spawned marker is still exiting when it has
/// signalled the end of the round (its thread-local destructors and the kernel's
/// exit, 80-130 us here). It shared the driver's CPU, and the driver, yielding as it
/// waited for the mutators to stop, gave the CPU to the exiting marker: the mark-end
/// pause's time to safepoint was 125-190 us (a `sched_switch` trace), most of it
/// that exit. With one marker (the default on 2 CPUs) no thread exits at all.
///
/// When the markers are done, the driver looks at the noted ephemerons
/// ([`Intake::ephemeron_values`]); values whose keys are now marked go to the
/// intake and the markers run again, until a look finds none (`ephemeron.rs`).
pub fn round<D: Decode>(
    ctx: &MarkCtx<'_, D>,
    intake: &Intake,
    inject: &FaultInjector,
    workers: usize,
    old_region: bool,
) {
    let mut old_region = old_region;
    loop {
        markers(ctx, intake, inject, workers, old_region);
        old_region = false;
        let values = intake.ephemeron_values(ctx);
        if values.is_empty() {
            return;
        }
        intake.push(values);
    }
}

/// One pass of [`round`]'s markers, until the intake and every deque are empty.
fn markers<D: Decode>(
    ctx: &MarkCtx<'_, D>,
    intake: &Intake,
    inject: &FaultInjector,
    workers: usize,
    old_region: bool,
) {
    let injector: Injector<usize> = Injector::new();
    let mut locals: Vec<Worker<usize>> = (0..workers).map(|_| Worker::new_lifo()).collect();
    let stealers: Vec<Stealer<usize>> = locals.iter().map(|w| w.stealer()).collect();
    let idle = AtomicUsize::new(0);
    let (injector, stealers, idle) = (&injector, &stealers, &idle);
    let priority = ctx.priority;
    let marker = move |i: usize, local: Worker<usize>| {
        let _fatal = AbortOnUnwind::new("concurrent marking (a GC worker)");
        inject.panic_once(InjectPoint::MarkPanic);
        let old_region = old_region && i == 0;
        mark_worker(
            ctx,
            intake,
            i,
            &local,
            (injector, stealers, idle),
            workers,
            old_region,
        );
    };
    let mine = locals.remove(0);
    std::thread::scope(|s| {
        for (i, local) in locals.into_iter().enumerate() {
            std::thread::Builder::new()
                .name("flipgc-mark".into())
                .spawn_scoped(s, move || {
                    crate::priority::collector_thread_start(priority, "flipgc-mark");
                    marker(i + 1, local)
                })
                .expect("spawning a marking worker");
        }
        marker(0, mine);
    });
}

/// Depth of a marker's private stack past which it shares the oldest half on its
/// stealable deque (when that is empty and there are other markers).
const SHARE_ABOVE: usize = 256;

fn mark_worker<D: Decode>(
    ctx: &MarkCtx<'_, D>,
    intake: &Intake,
    me: usize,
    local: &Worker<usize>,
    (injector, stealers, idle): (&Injector<usize>, &[Stealer<usize>], &AtomicUsize),
    workers: usize,
    old_region: bool,
) {
    let mut holders = Vec::new();
    let find = || {
        local.pop().or_else(|| {
            std::iter::repeat_with(|| {
                injector.steal_batch_and_pop(local).or_else(|| {
                    stealers
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != me)
                        .map(|(_, s)| s.steal())
                        .collect()
                })
            })
            .find(|s| !s.is_retry())
            .and_then(|s| s.success())
        })
    };
    let mut deferred = Deferred::default();
    // Grey objects go on a private stack first, and to the stealable deque only
    // when it runs dry while this stack is deep: popping the deque takes a SeqCst
    // fence (its owner side races thieves), which drains the store buffer after
    // every object's mark-bit stores: `perf` put half this loop's samples on it,
    // and binary-trees' marking at 1 GiB took 85-118 ms a cycle with it, 76-85
    // without (three alternating pairs).
    // Nobody else sees this stack, so this marker goes idle only once it is
    // empty (it is drained before the deque is looked at).
    let mut stack: Vec<usize> = Vec::with_capacity(SHARE_ABOVE * 2);
    if old_region {
        ctx.scan_old_region(&mut holders, |child| {
            deferred.push(ctx, child, &mut |a| stack.push(a))
        });
    }
    loop {
        if let Some(obj) = stack.pop().or_else(find) {
            ctx.scan(obj, &mut holders, |child| {
                deferred.push(ctx, child, &mut |a| stack.push(a))
            });
            if workers > 1 && stack.len() > SHARE_ABOVE && local.is_empty() {
                // The oldest half: the biggest subgraphs, for thieves.
                for a in stack.drain(..SHARE_ABOVE / 2) {
                    local.push(a);
                }
            }
            continue;
        }
        // Nothing is left in flight before this marker takes other work or goes
        // idle (what is in flight is marked by no one and on no list).
        if deferred.flush(ctx, &mut |a| stack.push(a)) {
            continue;
        }
        if let Some(batch) = intake.pop() {
            batch.feed(ctx, |a| stack.push(a));
            continue;
        }
        idle.fetch_add(1, Ordering::SeqCst);
        let mut spins = 0u32;
        loop {
            let work = !intake.is_empty()
                || !injector.is_empty()
                || stealers.iter().any(|s| !s.is_empty());
            if work {
                idle.fetch_sub(1, Ordering::SeqCst);
                break;
            }
            if idle.load(Ordering::SeqCst) == workers {
                intake.note_weak_holders(&mut holders);
                return;
            }
            // Idle markers must not take the CPU from mutators (2 cores here).
            spins += 1;
            if spins < 16 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }
}

/// How long a mark-end drain may go on.
#[derive(Clone, Copy)]
enum Budget {
    /// To the end (the last round).
    Unbounded,
    /// Until this time (checked every 256 steps).
    Until(Instant),
    /// This many steps (an object scanned, or a batch taken): the injected
    /// `MarkRounds`, which makes the hand-back of unscanned work happen every cycle.
    Steps(u32),
}

impl Budget {
    fn spent(self, steps: u32) -> bool {
        match self {
            Budget::Unbounded => false,
            Budget::Until(d) => steps % 256 == 0 && Instant::now() >= d,
            Budget::Steps(n) => steps > n,
        }
    }
}

/// Drains the intake and the grey objects on this thread, within `budget`; when it
/// is spent, hands what is left back to the intake (the grey objects as grey: they
/// are marked, and still to be scanned). Whether it drained everything.
fn drain<D: Decode>(ctx: &MarkCtx<'_, D>, intake: &Intake, budget: Budget) -> bool {
    let mut grey: Vec<usize> = Vec::new();
    let mut holders = Vec::new();
    let mut steps = 0u32;
    loop {
        steps += 1;
        if budget.spent(steps) {
            intake.push_grey(grey);
            intake.note_weak_holders(&mut holders);
            return false;
        }
        if let Some(obj) = grey.pop() {
            ctx.scan(obj, &mut holders, |child| {
                if ctx.mark(child) {
                    grey.push(child);
                }
            });
        } else if let Some(batch) = intake.pop() {
            batch.feed(ctx, |a| grey.push(a));
        } else {
            intake.note_weak_holders(&mut holders);
            return true;
        }
    }
}

/// The mark-end pause after concurrent round `round`: applies pending root scans,
/// takes the globals' log, and drains what is left, within [`DRAIN_BUDGET`] unless
/// this is round [`MAX_ROUNDS`]. If it finished: runs `finished` (the sanity
/// re-trace, with the world still stopped), turns the barrier off and returns true;
/// else returns false (another concurrent round follows).
pub fn end<D: Decode>(
    inner: &HeapInner,
    ctx: &MarkCtx<'_, D>,
    round: u32,
    me: u64,
    finished: impl FnOnce(&Pause<'_>),
) -> bool {
    let mut p = Pause::stop_as(inner, "mark-end", me);
    p.phase("roots");
    // Mutators that stayed stopped since the mark-start pause have scans pending.
    p.stopped.fix_pending_roots();
    let logged = std::mem::take(&mut inner.globals.lock().logged);
    inner
        .intake
        .push(logged.into_iter().map(|v| v as usize).collect());
    p.phase("drain");
    // Injected: on the first three attempts the budget runs out after a few steps,
    // and the pause gives up even if the drain finished.
    let give_up = round <= 3 && inner.inject.armed(InjectPoint::MarkRounds);
    let budget = if give_up {
        Budget::Steps(64)
    } else if round < MAX_ROUNDS {
        Budget::Until(Instant::now() + DRAIN_BUDGET)
    } else {
        Budget::Unbounded
    };
    let drained = drain(ctx, &inner.intake, budget);
    if give_up || !drained {
        p.end(Details::default());
        return false;
    }
    // What is left is decided with the globals' lock held at the last step, so that
    // no global deletion (globals can be dropped by threads that are not mutators,
    // even now) slips in between: drain what the globals logged meanwhile; then keep
    // alive the objects registered for finalization that marking did not reach
    // (marking continues from them, in another concurrent round, or here in the
    // last one); and when both find nothing, turn the globals' logging off.
    p.phase("finalize");
    loop {
        let mut g = inner.globals.lock();
        let logged = std::mem::take(&mut g.logged);
        if !logged.is_empty() {
            drop(g);
            inner
                .intake
                .push(logged.into_iter().map(|v| v as usize).collect());
            drain(ctx, &inner.intake, Budget::Unbounded);
            continue;
        }
        // Ephemerons whose keys marking reached since their last look: their
        // values are traced before anything is resurrected (`ephemeron.rs`).
        let values = inner.intake.ephemeron_values(ctx);
        if !values.is_empty() {
            drop(g);
            inner.intake.push(values);
            drain(ctx, &inner.intake, Budget::Unbounded);
            continue;
        }
        let back = super::refs::resurrect(inner, ctx);
        if back.is_empty() {
            g.logging = false;
            break;
        }
        drop(g);
        inner.intake.push(back);
        if !matches!(budget, Budget::Unbounded) {
            p.end(Details::default());
            return false;
        }
        drain(ctx, &inner.intake, Budget::Unbounded);
    }
    p.phase("check");
    finished(&p);
    p.phase("weak");
    super::refs::clear(inner, &p.stopped, ctx, inner.intake.take_weak_holders());
    p.phase("barrier-off");
    inner.intake.active.store(false, Ordering::Release);
    *inner.cycle.lock() = CyclePhase::Planning;
    p.end(Details::default());
    true
}
