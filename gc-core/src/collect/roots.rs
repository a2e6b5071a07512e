//! Roots, from the collector's side: gathering them for marking and rewriting them
//! to new addresses after a plan.
//!
//! - **Gathering.** The one-pause cycle and the sanity re-trace gather every root
//!   with the world stopped ([`gather`]). A concurrent cycle does not: its mark-start
//!   pause leaves each mutator a pending [`RootScan`], which the mutator runs on its
//!   own thread as it resumes (or the driver, right after the pause, for mutators
//!   still parked or blocking), pushing its roots into the marking intake; the
//!   globals are scanned concurrently by the driver, with their overwrites logged.
//! - **Forwarding.** The one-pause cycle rewrites every root, and the live large
//!   objects' fields, in its pause ([`forward_all`]); a concurrent cycle rewrites
//!   the globals in its flip pause ([`forward_globals`]), leaves each mutator its
//!   own roots, pending, and leaves the large objects' fields to whichever thread
//!   touches each first (`large.rs`, [`forward_large_object`]).

use super::concurrent_mark::Intake;
use super::fill::FillCtx;
use super::heap_inner::HeapInner;
use crate::collect::root_table::{GlobalTable, RootTable, RootTask};
use crate::mem::{self, WORD};
use crate::object::is_ref;
use crate::safepoint::Stopped;
use crate::space::los::Los;
use std::sync::Arc;

/// Every root (mutators' roots, the globals, finalized objects waiting in their
/// queues), non-null. The world must be stopped (`stopped` proves it); pending root
/// work is applied first.
pub fn gather(inner: &HeapInner, stopped: &Stopped<'_>, globals: &GlobalTable) -> Vec<usize> {
    stopped.fix_pending_roots();
    let mut roots = Vec::new();
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        unsafe { m.roots() }.for_each_mut(|r| roots.push(*r as usize));
    }
    roots.extend(globals.slots.iter().map(|r| *r as usize));
    roots.extend(super::refs::ready_roots(inner));
    roots.retain(|&r| is_ref(r));
    roots
}

/// A concurrent cycle's root scan, left pending for each mutator by the mark-start
/// pause: pushes the mutator's roots into the marking intake.
pub struct RootScan(pub Arc<Intake>);

impl RootTask for RootScan {
    fn apply(&self, roots: &mut RootTable) {
        let mut batch = Vec::new();
        roots.for_each_mut(|r| {
            if is_ref(*r as usize) {
                batch.push(*r as usize);
            }
        });
        self.0.push(batch);
    }
}

/// Rewrites every root (mutators', globals) and every reference field of a live
/// large object to the new addresses. The world must be stopped, and `los` swept.
pub fn forward_all(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
    globals: &mut GlobalTable,
    los: &Los,
    fill: &FillCtx<'_>,
) {
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        forward_table(unsafe { m.roots() }, fill);
    }
    forward_globals(inner, globals, fill);
    forward_large_objects(los, fill);
}

/// Rewrites one mutator's roots, and its weak handles.
pub fn forward_table(roots: &mut RootTable, fill: &FillCtx<'_>) {
    let forward = |r: &mut u64| {
        if is_ref(*r as usize) {
            *r = fill.forward(*r as usize) as u64;
        }
    };
    roots.for_each_mut(forward);
    roots.for_each_weak_mut(forward);
}

/// Rewrites the globals and the finalizer queues. The world must be stopped.
pub fn forward_globals(inner: &HeapInner, globals: &mut GlobalTable, fill: &FillCtx<'_>) {
    let forward = |r: &mut u64| {
        if is_ref(*r as usize) {
            *r = fill.forward(*r as usize) as u64;
        }
    };
    globals.slots.iter_mut().for_each(forward);
    super::refs::forward_queues(inner, |v| fill.forward(v));
}

/// Rewrites every reference field of every large object in `los` (after its sweep:
/// the live ones): large objects do not move, but their references into the moving
/// space must. The world must be stopped; the time grows with the live large
/// objects' reference fields. The one-pause cycle and the in-pause fallback only: a
/// concurrent compaction forwards them lazily (`large.rs`).
pub fn forward_large_objects(los: &Los, fill: &FillCtx<'_>) {
    for (addr, _) in los.iter() {
        forward_large_object(fill, addr);
        // The flip pause's sweep left it pending if the compaction was to be
        // concurrent; this pause forwarded it instead.
        los.forwarded_in_pause(addr);
    }
}

/// Rewrites the reference fields of the live large object at `addr`. The caller
/// has the object to itself: the world is stopped, or it holds the object's
/// forwarding claim (`large.rs`).
pub fn forward_large_object(fill: &FillCtx<'_>, addr: usize) {
    // SAFETY: a live large object's header is mapped, and immutable.
    let w0 = unsafe { mem::load(addr) };
    fill.dec.for_each_ref_field(addr, w0, |f| {
        let slot = addr + WORD * (1 + f);
        // SAFETY: `slot` is a field of the large object (its type's layout), which
        // the caller has to itself.
        let v = unsafe { mem::load(slot) } as usize;
        if is_ref(v) {
            // SAFETY: as above.
            unsafe { mem::store(slot, fill.forward(v) as u64) };
        }
    });
}
