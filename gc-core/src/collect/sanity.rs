//! The sanity re-trace (as MMTk's sanity GC): with the heap verifying after every
//! collection, the final mark-end pause traces the whole object graph again from
//! the roots as they are now, with the world stopped, and checks that concurrent
//! marking marked everything reachable: every object reached below the mark
//! boundary has its mark bit, every large object reached its mark. Objects allocated
//! during marking (black) are traced through, not checked: what they reference must
//! be marked too. Marked objects the re-trace does not reach are floating garbage
//! (unreachable by now, kept this cycle): counted, not an error. An ephemeron's
//! value is reached once its key is (or its key is no reference), in rounds until
//! none adds anything, as marking's fixpoint (`ephemeron.rs`).
//!
//! A missed object is a broken heap: the check panics, and the driver's guard ends
//! the process with the phase named.
//!
//! Layer: collector (docs/architecture.md, "Layers").

use super::bitmap::Bitmap;
use super::heap_inner::HeapInner;
use super::mark::MarkCtx;
use super::roots;
use crate::decode::Decode;
use crate::mem::{self, WORD};
use crate::object::is_ref;
use crate::pauselog::SanityReport;
use crate::safepoint::Stopped;
use std::collections::HashSet;

/// Re-traces from every root and checks the marks in `ctx`; records the report in
/// the pause log. The world must be stopped, marking complete.
pub fn check_marking<D: Decode>(inner: &HeapInner, stopped: &Stopped<'_>, ctx: &MarkCtx<'_, D>) {
    let roots = roots::gather(inner, stopped, &inner.globals.lock());
    let words = (ctx.end - ctx.base) / WORD;
    let seen = Bitmap::new(words);
    let mut seen_large: HashSet<usize> = HashSet::new();
    let mut report = SanityReport::default();
    let mut todo = roots;
    // Ephemerons reached: their values are reached once their keys are, in rounds
    // as marking's fixpoint (`ephemeron.rs`).
    // Reached ephemerons, with their key and value slots' word indices.
    let mut ephemerons: Vec<(usize, (usize, usize))> = Vec::new();
    loop {
        let Some(addr) = todo.pop() else {
            let reached = |v: usize| {
                if (ctx.base..ctx.end).contains(&v) {
                    seen.get((v - ctx.base) / WORD)
                } else {
                    seen_large.contains(&v)
                }
            };
            todo.extend(ephemerons.iter().filter_map(|&(e, (k, v))| {
                // SAFETY: a reached ephemeron (the world is stopped): its key and
                // value slots are mapped.
                let (key, value) = unsafe { (mem::load(e + k * WORD), mem::load(e + v * WORD)) };
                let (key, value) = (key as usize, value as usize);
                ((!is_ref(key) || reached(key)) && is_ref(value) && !reached(value))
                    .then_some(value)
            }));
            if todo.is_empty() {
                break;
            }
            continue;
        };
        if (ctx.base..ctx.end).contains(&addr) {
            let w = (addr - ctx.base) / WORD;
            if !seen.set(w) {
                continue;
            }
            if addr < ctx.boundary {
                report.reached += 1;
                assert!(
                    ctx.mark.get(w),
                    "the sanity re-trace reached the object at {addr:#x}, which concurrent \
                     marking did not mark (it would be freed while reachable)"
                );
            } else {
                report.black += 1;
            }
        } else {
            if !seen_large.insert(addr) {
                continue;
            }
            report.reached += 1;
            assert!(
                ctx.los.is_marked(addr),
                "the sanity re-trace reached the large object at {addr:#x}, which \
                 concurrent marking did not mark"
            );
        }
        // SAFETY: `addr` is a reachable object (the world is stopped): its header and
        // fields are mapped.
        let w0 = unsafe { mem::load(addr) };
        if let Some(slots) = ctx.layout.ephemeron(w0) {
            ephemerons.push((addr, slots));
        }
        ctx.layout.for_each_strong_ref_field(addr, w0, |f| {
            // SAFETY: as above; `f` is a field of the object.
            let v = unsafe { mem::load(addr + WORD * (1 + f)) } as usize;
            if is_ref(v) {
                todo.push(v);
            }
        });
    }
    let boundary_word = (ctx.boundary - ctx.base) / WORD;
    let mut marked = 0u64;
    ctx.mark.for_each_set(0, boundary_word, |_| marked += 1);
    let reached_below = report.reached - seen_large.len() as u64;
    report.floating = marked.saturating_sub(reached_below);
    inner.log.lock().record_sanity(report);
}
