//! The write barrier (mutator API layer): snapshot-at-the-beginning (Yuasa's deletion barrier). While
//! concurrent marking runs, every store that overwrites a reference field first
//! logs the value it overwrites, so that no object reachable in the mark-start
//! snapshot can hide from the markers (`collect/concurrent_mark.rs`, invariant 2).
//!
//! - **Fast path** ([`Mutator::pre_write`]): one load of a mutator-local flag and a
//!   predicted branch. The flag changes only while the world is stopped (mark-start
//!   and the final mark-end pause), and a mutator re-reads it whenever it leaves a
//!   stop ([`Mutator::resumed`]), before it can store again.
//! - **Slow path** ([`Mutator::log_overwritten`]): loads the old value (acquire: the
//!   marker will read its header) and appends it to a buffer owned by the mutator; a
//!   full buffer is handed to the marking intake without stopping.
//! - **Before every stop** ([`Mutator::flush_barrier`]) the partial buffer is handed
//!   in too, so the mark-end pause finds every logged value in the intake.
//!
//! Stores into objects allocated during marking need no logging (the old value is
//! null), and the roots (handles, the root stack) need none: each mutator's roots
//! are scanned as they were at the snapshot, before it runs again.

use crate::cards::{CARD_SHIFT, DIRTY};
use crate::mem;
use crate::mutator::Mutator;
use crate::object::is_ref;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};

/// Overwritten references a mutator logs before handing them in.
const BUFFER: usize = 1024;

/// A mutator's buffer of logged references.
#[derive(Default)]
pub(crate) struct SatbBuffer(UnsafeCell<Vec<usize>>);

impl Mutator {
    /// The barrier before a store into the reference field at `slot`.
    #[inline(always)]
    pub(crate) fn pre_write(&self, slot: usize) {
        if self.marking {
            self.log_overwritten(slot);
        }
    }

    /// Logs the reference in `slot`, if any.
    #[inline(never)]
    pub(crate) fn log_overwritten(&self, slot: usize) {
        // SAFETY: `slot` is a reference field of a live object of this heap (the
        // caller checked it for the store that follows).
        let old = unsafe { mem::load_acquire(slot) } as usize;
        if !is_ref(old) {
            return;
        }
        // SAFETY: a `Mutator` is neither `Send` nor `Sync`, so this runs on its own
        // thread, and nothing here re-enters the barrier: the buffer is borrowed
        // nowhere else.
        let buf = unsafe { &mut *self.satb.0.get() };
        buf.push(old);
        if buf.len() >= BUFFER {
            let full = std::mem::replace(buf, Vec::with_capacity(BUFFER));
            self.heap.inner.intake.push(full);
        }
    }

    /// The weak-reference barrier: a reference read from a weak field or a weak
    /// handle while marking is logged as live (MMTk's rule for snapshot collectors:
    /// a weak load enqueues its referent), so that a mutator that makes it strongly
    /// reachable again (stores it into an object already scanned) cannot lose it.
    #[inline(always)]
    pub(crate) fn weak_read(&self, v: usize) {
        if self.marking && is_ref(v) {
            self.log_value(v);
        }
    }

    /// The barrier before a store into a *weak* field of `holder`: weak fields are not
    /// followed by marking, so nothing is logged for the old value; instead, while
    /// marking, the holder is noted, so that the end of marking clears its weak
    /// fields if their referents died (an object allocated during marking is never
    /// scanned, so marking would not find it otherwise).
    #[inline(always)]
    pub(crate) fn pre_write_weak(&self, holder: usize) {
        if self.marking {
            self.heap.inner.intake.note_weak_holder(holder);
        }
    }

    #[inline(never)]
    pub(crate) fn log_value(&self, v: usize) {
        // SAFETY: as in `log_overwritten`.
        let buf = unsafe { &mut *self.satb.0.get() };
        buf.push(v);
        if buf.len() >= BUFFER {
            let full = std::mem::replace(buf, Vec::with_capacity(BUFFER));
            self.heap.inner.intake.push(full);
        }
    }

    /// Hands the logged references in (before this mutator stops).
    pub(crate) fn flush_barrier(&mut self) {
        let buf = self.satb.0.get_mut();
        if !buf.is_empty() {
            self.heap.inner.intake.push(std::mem::take(buf));
        }
    }

    /// Whether this mutator's write barrier logs right now (a concurrent marking is
    /// in progress, and the mutator has passed a stop since it began). For
    /// benchmarks and tests.
    pub fn barrier_active(&self) -> bool {
        self.marking
    }

    /// Re-reads the barrier flag, after leaving a stop (where it may have changed).
    pub(crate) fn resumed(&mut self) {
        let inner = &self.heap.inner;
        self.marking = inner.intake.active() && inner.config.satb_barrier.is_on();
    }
}

/// The card mark: the write barrier's second part, after the SATB log (the card
/// table and the store protocol are described in `cards.rs`).
impl Mutator {
    /// The card mark after a store of the word `v` into `slot`, a field of an
    /// object of this heap: marks the slot's card if `v` is a reference
    /// ([`is_ref`]: the value filter, for stores that may hold immediates).
    #[inline(always)]
    pub(crate) fn card_mark(&self, slot: usize, v: usize) {
        if is_ref(v) {
            self.card_mark_field(slot);
        }
    }

    /// The card mark of `slot`, a field of an object of this heap (in the
    /// moving space or the large-object space), whatever was stored into it:
    /// no compare (`cards.rs`, "The mark").
    #[inline(always)]
    pub(crate) fn card_mark_field(&self, slot: usize) {
        debug_assert!(self.owns(slot), "card mark of {slot:#x}, outside the heap");
        // `cards` is the table's biased address; the table lives as long as
        // the heap, which this mutator holds.
        // SAFETY: `slot` lies in the moving space or the large-object space
        // (the caller's: a field of an object of this heap), and the table has
        // a byte for every card of both (`CardTable::covering`).
        unsafe {
            (*((self.cards + (slot >> CARD_SHIFT)) as *const AtomicU8))
                .store(DIRTY, Ordering::Relaxed)
        };
    }

    /// The card mark of `slot`, whatever was stored into it, if it lies in this
    /// heap (`flipgc_card_mark`, for generated code, which may or may not have
    /// tested the value; a slot outside the heap takes no mark).
    #[inline(always)]
    pub(crate) fn card_mark_slot(&self, slot: usize) {
        if self.owns(slot) {
            self.card_mark_field(slot);
        }
    }

    /// Whether the card of `addr` (an address in the moving space) is dirty: for
    /// tests of the store paths' card marks. `false` outside the moving space.
    pub fn card_is_dirty(&self, addr: usize) -> bool {
        let off = addr.wrapping_sub(self.base);
        off < self.cap && self.heap.inner.cards.is_dirty(off >> CARD_SHIFT)
    }
}
