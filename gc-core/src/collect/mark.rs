//! Tracing: marking an object and scanning its references, and the parallel,
//! work-stealing transitive closure (crossbeam-deque) that the one-pause cycle and
//! the sanity re-trace run with the world stopped. Concurrent marking
//! (`concurrent_mark.rs`) drives the same [`MarkCtx`] with its own loop.
//!
//! Marking an object in the moving space sets its mark bit and, the first time, all
//! its words in the live-words bitmap; large objects have a lock-free side table.
//! Objects at or above the mark boundary were allocated after the snapshot (black):
//! live by definition, never marked nor scanned.
//!
//! Termination: a worker that finds no work anywhere counts itself idle; it leaves
//! the count when work appears. Workers only go idle with an empty local deque, and
//! only non-idle workers push, so "all idle" means all deques are empty for good.

use super::bitmap::Bitmap;
use crate::mem::{self, WORD};
use crate::object::{Header, TypeRegistry};
use crate::space::los::LosMarks;
use crossbeam_deque::{Injector, Stealer, Worker};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What marking reads and writes.
pub struct MarkCtx<'a> {
    /// Object shapes.
    pub types: &'a TypeRegistry,
    /// Moving space base.
    pub base: usize,
    /// The mark boundary: objects below are marked; objects from here to `end` are
    /// black (allocated after the snapshot).
    pub boundary: usize,
    /// End of the moving space.
    pub end: usize,
    /// Header bits.
    pub mark: &'a Bitmap,
    /// Live-word bits.
    pub live: &'a Bitmap,
    /// Large objects' marks.
    pub los: &'a LosMarks,
}

impl MarkCtx<'_> {
    /// Marks the object at `addr`; true if this call marked it (it must be scanned).
    /// Panics on an address that is no object of this heap (a broken heap).
    #[inline]
    pub fn mark(&self, addr: usize) -> bool {
        if (self.base..self.boundary).contains(&addr) {
            let w = (addr - self.base) / WORD;
            if !self.mark.set(w) {
                return false;
            }
            // SAFETY: `addr` is a reachable object below the boundary: its header is
            // mapped, and immutable since it was published.
            let h = Header(unsafe { mem::load(addr) });
            let words = self
                .types
                .object_words(h)
                .unwrap_or_else(|| panic!("bad header {h:?} at {addr:#x}"));
            self.live.set_range(w, words);
            true
        } else if (self.boundary..self.end).contains(&addr) {
            false
        } else {
            self.los
                .mark(addr)
                .unwrap_or_else(|| panic!("reference {addr:#x} is no object of this heap"))
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
        let h = Header(unsafe { mem::load(addr) });
        if self.types.weak_mask(h) != 0 {
            weak.push(addr);
        }
        self.types.for_each_strong_ref_field(h, |field| {
            // SAFETY: `field` is within the object (registry shape).
            let v = unsafe { mem::load_acquire(addr + WORD * (1 + field)) } as usize;
            if v != 0 {
                f(v);
            }
        });
    }

    /// Whether the object at `addr` is live, once marking is complete: marked below
    /// the boundary, black above it, or a marked large object.
    pub fn is_live(&self, addr: usize) -> bool {
        if (self.base..self.boundary).contains(&addr) {
            self.mark.get((addr - self.base) / WORD)
        } else if (self.boundary..self.end).contains(&addr) {
            true
        } else {
            self.los.is_marked(addr)
        }
    }
}

/// Marks everything reachable from `roots` (non-null addresses) with `workers` threads,
/// adding the objects with weak fields it scans to `weak`. Returns the number of
/// objects marked.
pub fn mark(ctx: &MarkCtx<'_>, roots: &[usize], workers: usize, weak: &mut Vec<usize>) -> usize {
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
            s.spawn(move || {
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
