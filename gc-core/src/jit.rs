//! Entry points for generated code: what a JIT compiler embedding flipgc emits
//! calls to or inlines. It owns the safepoint poll's word and slow path, the write
//! barrier's flag and slow paths (strong and weak fields), the readiness call for
//! large objects, and the atomic reference operations (`compare_exchange_ref`,
//! `swap_ref`, by descriptor and by index) and `copy_refs` between reference arrays.
//!
//! The protocol generated code follows is in docs/architecture.md, "Generated
//! code"; each item below states its part. In short, between two GC points
//! generated code may load and store reference fields itself, as `Mutator::read_ref`
//! and `Mutator::write_ref` do: acquire loads, the barrier's flag test and slow
//! path before each reference store, release stores, the card mark after each
//! (`cards.rs`). It must call
//! [`flipgc_safepoint_slow`] when the poll word is set, and hold no unrooted
//! reference across that call (or any other GC point).
//!
//! Every function here that takes a mutator pointer must be called on the
//! mutator's own thread: a `Mutator` is neither `Send` nor `Sync`, and these are
//! its methods in another form. A panic inside an `extern "C"` function aborts the
//! process (it cannot unwind into generated code); the checks that panic here name
//! a misuse that would otherwise corrupt the heap.

use crate::mem::WORD;
use crate::mutator::{Gc, Mutator};
use crate::object::{is_ref, RefField, ShapeKind};
use crate::value::Value;
use std::sync::atomic::{AtomicU64, Ordering};

impl Mutator {
    /// The byte offset of the write barrier's flag inside a `Mutator` (what
    /// [`Mutator::barrier_flag_addr`] returns, relative to the mutator's address):
    /// for generated code that holds the mutator's address in a register and tests
    /// `byte [mutator + BARRIER_FLAG_OFFSET]`. Fixed for a build of this crate, not
    /// across versions: take it at run time, never hard-code it.
    pub const BARRIER_FLAG_OFFSET: usize = std::mem::offset_of!(Mutator, marking);

    /// The address of the heap's safepoint-poll word, for generated code to poll.
    ///
    /// Who and when: generated code running on this mutator's thread, at its poll
    /// points (loop back-edges, function entries: wherever it would call
    /// [`Mutator::safepoint`]). The address is the heap's, shared by all its
    /// mutators, and stays valid for as long as this mutator (or any handle to the
    /// heap) lives, wherever the mutator is moved.
    ///
    /// The protocol: load the **byte** at this address (a `u8`, 0 or 1; never
    /// write it). If it is not zero, call [`flipgc_safepoint_slow`] with the
    /// mutator's address. A relaxed load is enough (a plain byte load on x86_64
    /// and arm64: `movzx`, `ldrb`), but it must be a real load at each poll, which
    /// the generated code's own optimiser must not hoist out of a loop or merge
    /// with another (treat it as an atomic load). Why relaxed is enough:
    /// - the word is a hint: it is set (with release) when a collection wants the
    ///   mutators at a GC point, or when the GC driver offers a pause to run; a
    ///   stale zero only delays the stop until a later poll sees the store (cache
    ///   coherence makes it visible in bounded time; the stop waits meanwhile);
    /// - a stale one costs one call that finds nothing to do;
    /// - nothing is read on the strength of this load: the slow path reloads the
    ///   word with acquire and decides everything under the safepoint lock (its
    ///   invariant 4), which orders the mutator's heap writes before the
    ///   collector's reads and the collector's writes before the mutator's
    ///   reads after it resumes.
    pub fn safepoint_poll_addr(&self) -> *const u8 {
        // `AtomicBool` has the size and alignment of `u8` (and `bool`): one byte,
        // 0 or 1.
        self.heap
            .inner
            .safepoints
            .requested
            .as_ptr()
            .cast_const()
            .cast()
    }

    /// The address of this mutator's write-barrier flag, a byte (0 or 1) that
    /// generated code tests before each reference store: what
    /// [`Mutator::barrier_active`] returns.
    ///
    /// Who and when: generated code on this mutator's thread, before each store
    /// into a reference field. The flag lives inside the `Mutator`: the address is
    /// valid while the mutator stays where it is and is not dropped. A VM that
    /// runs generated code keeps its mutator at a fixed address (in a `Box`, say)
    /// anyway, since the slow paths take that address too; or it uses
    /// [`Mutator::BARRIER_FLAG_OFFSET`] from the mutator's address.
    ///
    /// Only this mutator's thread writes the flag, and only inside a GC point
    /// (it is re-read when the mutator leaves a stop), so a plain load needs no
    /// ordering. The flag may change across any GC point ([`flipgc_safepoint_slow`],
    /// an allocation, any `&mut self` method): generated code may keep it in a
    /// register between GC points, not across one. What to do when it is set:
    /// [`flipgc_write_barrier_slow`] (strong fields) and
    /// [`flipgc_weak_write_barrier_slow`] (weak fields).
    pub fn barrier_flag_addr(&self) -> *const u8 {
        // `bool` is one byte, 0 or 1.
        std::ptr::addr_of!(self.marking).cast()
    }

    /// The address of the byte of the moving space's first card (`cards.rs`),
    /// for generated code's card mark: after every reference store into a field at `slot` of
    /// an object in [`Mutator::moving_space`], generated code stores the byte 1
    /// at `card_table_addr() + ((slot - moving_space().start) >> CARD_SHIFT)`
    /// ([`crate::cards::CARD_SHIFT`]), before its next GC point. A plain
    /// (relaxed) byte store is enough: the collector reads cards only after a
    /// stop that every mutator has passed since (the safepoint hand-off orders
    /// the field store and the card store before its reads, in either order).
    /// Stores into large objects take no mark. A store of null or an
    /// immediate (a word whose low three bits are not all zero) may skip it
    /// (the collector never takes such a word for a reference; `cards.rs`,
    /// the value filter); a store of any reference may not, whatever it refers
    /// to. A missed card mark loses young objects held only by that field: the
    /// card mark is part of the store, as the barrier's flag test is.
    /// [`flipgc_card_mark`] does the same in a call. Fixed for the heap's life.
    pub fn card_table_addr(&self) -> *const u8 {
        self.heap.inner.cards.bytes().cast()
    }

    /// The moving space's address range (fixed for the heap's life): the range
    /// whose reference stores take a card mark ([`Mutator::card_table_addr`]).
    pub fn moving_space(&self) -> std::ops::Range<usize> {
        self.base..self.base + self.cap
    }

    /// The large-object space's address range: an object whose address lies in it
    /// must be made ready with [`flipgc_prepare_object`] before generated code
    /// touches its fields for the first time after a GC point. Fixed for the
    /// heap's life. Objects outside it and outside the moving space are not this
    /// heap's.
    pub fn large_object_space(&self) -> std::ops::Range<usize> {
        self.los_base..self.los_base + self.los_cap
    }

    // ---- atomic reference operations ----

    /// Stores `new` into reference field `f` of `obj` if it holds `current`
    /// (compared by address; `None` is null), as one atomic step. `Ok` with the
    /// value it held (which is `current`) when it stored, `Err` with the value it
    /// holds when it did not (a panic if that is an immediate, as `get_ref`
    /// does: an `Option<Gc>` cannot hold one).
    ///
    /// Who and when: any mutator, between GC points, like [`Mutator::set_ref`];
    /// other threads may load, store, swap or compare-exchange the same field at
    /// the same time (that is what it is for). Checks as `set_ref` does, and
    /// panics on a misuse before touching the field: `obj` is of `f`'s type and of
    /// this heap (made ready if it is a large object awaiting forwarding, as every
    /// access does), `current` and `new` are of this heap. A weak field panics:
    /// compare-exchange on weak fields is not supported.
    ///
    /// The write barrier: while concurrent marking runs, the value a successful
    /// exchange overwrites is logged. It is `current` (the exchange stores only
    /// over an equal value), so `current` is logged before the attempt: exactly
    /// the overwritten value on success, and on failure a live object the caller
    /// holds anyway (kept by this cycle at worst, floating garbage). That is
    /// all the snapshot barrier needs even with other threads racing on the field:
    /// the field's value at the snapshot is logged by whichever store first
    /// overwrites it, since that store's own compare saw it.
    ///
    /// Orderings: `AcqRel` on success, `Acquire` on failure. Release publishes
    /// `new`'s header and fields (and what this thread wrote before) to a thread
    /// that loads the field with acquire, as `set_ref`'s release store does;
    /// acquire makes the header and fields of the returned value (stored by
    /// another thread with release) visible to this one, as `get_ref`'s acquire
    /// load does, on both outcomes, since both return a reference the caller may
    /// use.
    #[inline]
    pub fn compare_exchange_ref<'m>(
        &'m self,
        obj: Gc<'m>,
        f: RefField,
        current: Option<Gc<'_>>,
        new: Option<Gc<'_>>,
    ) -> Result<Option<Gc<'m>>, Option<Gc<'m>>> {
        let slot = self.strong_descriptor_slot(obj, f, "compare_exchange_ref");
        let (current, new) = (self.encode(current), self.encode(new));
        // SAFETY: `slot` is a strong reference field of a live object of this heap,
        // ready for access (`strong_descriptor_slot`); the values were checked.
        unsafe { self.cas_slot(slot, current, new) }
    }

    /// [`Mutator::compare_exchange_ref`] on reference field `index` of `obj` (an
    /// element of a reference array, a strong reference field of a fixed-size
    /// object, or a reference field of a tailed object: of its fixed part, or
    /// element `index - fields` of its reference tail). Panics if `obj` is not of this heap, `index` is out of range or
    /// not a reference field, the field is weak, or a value is not of this heap.
    /// On a heap with a VM object model, `index` is a word index (word 0 the
    /// header), checked against the model as [`Mutator::write_slot`] does.
    #[inline]
    pub fn compare_exchange_ref_at<'m>(
        &'m self,
        obj: Gc<'m>,
        index: usize,
        current: Option<Gc<'_>>,
        new: Option<Gc<'_>>,
    ) -> Result<Option<Gc<'m>>, Option<Gc<'m>>> {
        let slot = self.strong_index_slot(obj, index, "compare_exchange_ref_at");
        let (current, new) = (self.encode(current), self.encode(new));
        // SAFETY: as in `compare_exchange_ref` (`strong_index_slot`).
        unsafe { self.cas_slot(slot, current, new) }
    }

    /// Stores `new` into reference field `f` of `obj` and returns the value it
    /// held, as one atomic step. Who, when, checks and panics: as
    /// [`Mutator::compare_exchange_ref`]; and if the field held an immediate, it
    /// panics after the swap (an `Option<Gc>` cannot hold one: read such fields
    /// as a [`Value`](crate::Value)).
    ///
    /// The write barrier: while marking, the returned (overwritten) value is
    /// logged, right after the swap. Logging after the store instead of before is
    /// the same to the collector: the log is this mutator's own buffer, which
    /// reaches the markers only when it is handed in (full, or before this mutator
    /// stops), and no GC point lies between the swap and the log, so the marking
    /// cannot end (its last pause needs this mutator stopped) nor the flag change
    /// in between. Ordering: `AcqRel`, for the two reasons given at
    /// `compare_exchange_ref`.
    #[inline]
    pub fn swap_ref<'m>(&'m self, obj: Gc<'m>, f: RefField, new: Option<Gc<'_>>) -> Option<Gc<'m>> {
        let slot = self.strong_descriptor_slot(obj, f, "swap_ref");
        let new = self.encode(new);
        // SAFETY: as in `compare_exchange_ref`.
        unsafe { self.swap_slot(slot, new) }
    }

    /// [`Mutator::swap_ref`] on reference field `index` of `obj`; panics as
    /// [`Mutator::compare_exchange_ref_at`] (a word index on a VM model's heap).
    #[inline]
    pub fn swap_ref_at<'m>(
        &'m self,
        obj: Gc<'m>,
        index: usize,
        new: Option<Gc<'_>>,
    ) -> Option<Gc<'m>> {
        let slot = self.strong_index_slot(obj, index, "swap_ref_at");
        let new = self.encode(new);
        // SAFETY: as in `compare_exchange_ref_at`.
        unsafe { self.swap_slot(slot, new) }
    }

    /// [`Mutator::compare_exchange_ref_at`] over [`Value`]s: `current` and `new`
    /// may be null, objects of this heap or immediates (compared by their bits),
    /// and so may what the field holds. `Ok` with the value it held (`current`)
    /// when it stored, `Err` with the value it holds when it did not. Panics as
    /// [`Mutator::compare_exchange_ref_at`] (a word index on a VM model's heap).
    ///
    /// The write barrier and the orderings are `compare_exchange_ref`'s: while
    /// marking, `current` is logged before the attempt if it is a reference (an
    /// immediate is never traced, so it needs no log); the card mark follows a
    /// successful store of a reference (`cards.rs`, the value filter).
    #[inline]
    pub fn compare_exchange_value_at<'m>(
        &'m self,
        obj: Gc<'m>,
        index: usize,
        current: Value<'_>,
        new: Value<'_>,
    ) -> Result<Value<'m>, Value<'m>> {
        let slot = self.strong_index_slot(obj, index, "compare_exchange_value_at");
        let (current, new) = (
            self.checked_word(current) as u64,
            self.checked_word(new) as u64,
        );
        // SAFETY: as in `compare_exchange_ref_at`: `slot` is a strong reference
        // slot of a live object of this heap, ready for access; the values were
        // checked (null, an immediate, or an object of this heap).
        unsafe { self.cas_word(slot, current, new) }
            .map(Value::from_bits)
            .map_err(Value::from_bits)
    }

    /// [`Mutator::swap_ref_at`] over [`Value`]s: stores `new` (null, an object of
    /// this heap or an immediate) and returns what the field held, whatever it
    /// was. Barrier and ordering as [`Mutator::swap_ref`].
    #[inline]
    pub fn swap_value_at<'m>(&'m self, obj: Gc<'m>, index: usize, new: Value<'_>) -> Value<'m> {
        let slot = self.strong_index_slot(obj, index, "swap_value_at");
        let new = self.checked_word(new) as u64;
        // SAFETY: as in `compare_exchange_value_at`.
        Value::from_bits(unsafe { self.swap_word(slot, new) })
    }

    /// Copies elements `src_index .. src_index + n` of reference array `src` into
    /// elements `dst_index .. dst_index + n` of reference array `dst`; `src` and
    /// `dst` may be the same array, the ranges overlapping (as `memmove`: the
    /// result is as if the source were copied out first). Either may instead be a
    /// tailed object with a reference tail: its indices are then field indices
    /// (element `j` of the tail is field `fields + j`, as for
    /// [`Mutator::compare_exchange_ref_at`]), and the range must lie in the tail.
    ///
    /// Who and when: any mutator, between GC points. Panics, before copying
    /// anything, if `src` or `dst` is not a reference array of this heap or a
    /// range does not fit its array (its tail). Each element is copied as
    /// [`Mutator::read_ref`] and [`Mutator::write_ref`] would: an acquire load
    /// from `src`, the write barrier on the destination slot (while marking, the
    /// reference it held is logged before it is overwritten), a release store.
    /// Acquire then release carries what the element's writer published with it
    /// on to readers of `dst` (happens-before is transitive; a relaxed load would
    /// break the chain on arm64). The copied values need no check: they come
    /// from an array of this heap (immediates are copied as they are). Elements are copied one at a time: a thread
    /// racing on the same elements sees each element old or new, not the range
    /// as one step.
    ///
    /// Refused (a panic) on a heap with a VM object model: it knows no arrays.
    pub fn copy_refs(
        &self,
        src: Gc<'_>,
        src_index: usize,
        dst: Gc<'_>,
        dst_index: usize,
        n: usize,
    ) {
        let src_run = self.ref_run(src, "source");
        let dst_run = self.ref_run(dst, "destination");
        check_range("source", src_index, n, src_run);
        check_range("destination", dst_index, n, dst_run);
        let from = src.addr + WORD * (1 + src_index);
        let to = dst.addr + WORD * (1 + dst_index);
        // Overlapping with the destination above the source: copy from the end, so
        // that no source element is overwritten before it is read.
        let backwards = to > from && to < from + n * WORD;
        for k in 0..n {
            let i = if backwards { n - 1 - k } else { k };
            let (s, d) = (from + WORD * i, to + WORD * i);
            // SAFETY: `s` and `d` are elements of live reference arrays (or reference
            // tails) of this heap, ready for access (`ref_run`), in range
            // (`check_range`).
            let v = unsafe {
                let v = load_slot(s);
                self.pre_write(d);
                store_slot(d, v);
                v
            };
            self.card_mark(d, v as usize);
        }
    }

    // ---- helpers ----

    /// The address of strong reference field `f` of `obj`, after the checks of
    /// `set_ref` (which also make a large object ready); panics for a weak field.
    #[inline(always)]
    fn strong_descriptor_slot(&self, obj: Gc<'_>, f: RefField, what: &str) -> usize {
        // A weak field passes this check (its type's header is `obj`'s).
        self.check_descriptor(obj, f.type_header(), f.registry);
        if f.is_weak() {
            weak_refused(what);
        }
        obj.addr + f.offset as usize
    }

    /// The address of reference field `index` of `obj`, after the checks of
    /// `write_ref` (which also make a large object ready); panics for a weak field.
    #[inline(always)]
    fn strong_index_slot(&self, obj: Gc<'_>, index: usize, what: &str) -> usize {
        if self.vm {
            // A VM object: `index` is a word index, checked by the model.
            let slot = self.vm_slot(obj, index, true, what);
            if self.vm_slot_is_weak(obj, index) {
                weak_refused(what);
            }
            return slot;
        }
        let (slot, weak) = self.ref_slot(obj, index);
        if weak {
            weak_refused(what);
        }
        slot
    }

    /// The field indices `first..first + len` of `obj`'s run of strong
    /// reference elements: a reference array's elements (`0..len`), or a tailed
    /// object's reference tail (`fields..fields + len`), after checking that `obj`
    /// is one of those, of this heap (which also makes a large one ready). Panics
    /// otherwise, naming `which`.
    fn ref_run(&self, obj: Gc<'_>, which: &str) -> (usize, usize) {
        if self.vm {
            panic!("copy_refs is not supported on a heap with a VM object model ({which} {obj:?})");
        }
        let h = self.header_of(obj);
        let shape = self.heap.inner.types.shape(h);
        match shape.kind {
            ShapeKind::RefArray => (0, h.len() as usize),
            ShapeKind::Tailed if shape.tail_refs => (shape.fields as usize, h.len() as usize),
            _ => not_a_ref_array(which, obj),
        }
    }

    /// The word a value is stored as (0 for `None`), after checking it belongs to
    /// this heap. (Where immediates would be encoded.)
    #[inline(always)]
    fn encode(&self, value: Option<Gc<'_>>) -> u64 {
        self.checked_value(value) as u64
    }

    /// The barrier for a value about to be (or just) overwritten, given the value
    /// itself: logged while marking, unless null or an immediate (never traced).
    #[inline(always)]
    fn log_old(&self, old: u64) {
        if self.marking && is_ref(old as usize) {
            self.log_value(old as usize);
        }
    }

    /// The exchange of `compare_exchange_ref`.
    ///
    /// # Safety
    /// `slot` is a strong reference field of a live object of this heap, ready for
    /// access; `current` and `new` are 0 or objects of this heap.
    #[inline(always)]
    unsafe fn cas_slot<'m>(
        &'m self,
        slot: usize,
        current: u64,
        new: u64,
    ) -> Result<Option<Gc<'m>>, Option<Gc<'m>>> {
        // SAFETY: the caller's contract, which is `cas_word`'s.
        unsafe { self.cas_word(slot, current, new) }
            .map(decode)
            .map_err(decode)
    }

    /// The exchange of `compare_exchange_ref` and `compare_exchange_value_at`,
    /// on raw words: the barrier, the compare-exchange, the card mark.
    ///
    /// # Safety
    /// As for [`Mutator::cas_slot`].
    #[inline(always)]
    unsafe fn cas_word(&self, slot: usize, current: u64, new: u64) -> Result<u64, u64> {
        // The barrier first: a success overwrites exactly `current`.
        self.log_old(current);
        // SAFETY: `slot` is an aligned, mapped heap word (the caller's contract);
        // `AtomicU64` has `u64`'s layout. Orderings: see `compare_exchange_ref`.
        let cell = unsafe { AtomicU64::from_ptr(slot as *mut u64) };
        let r = cell.compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire);
        if r.is_ok() {
            // The card mark after the store (`cards.rs`); a failed exchange
            // stored nothing.
            self.card_mark(slot, new as usize);
        }
        r
    }

    /// The exchange of `swap_ref`.
    ///
    /// # Safety
    /// As for [`Mutator::cas_slot`].
    #[inline(always)]
    unsafe fn swap_slot<'m>(&'m self, slot: usize, new: u64) -> Option<Gc<'m>> {
        // SAFETY: the caller's contract, which is `swap_word`'s.
        decode(unsafe { self.swap_word(slot, new) })
    }

    /// The exchange of `swap_ref` and `swap_value_at`, on raw words.
    ///
    /// # Safety
    /// As for [`Mutator::cas_slot`].
    #[inline(always)]
    unsafe fn swap_word(&self, slot: usize, new: u64) -> u64 {
        // SAFETY: as in `cas_word`.
        let cell = unsafe { AtomicU64::from_ptr(slot as *mut u64) };
        let old = cell.swap(new, Ordering::AcqRel);
        self.card_mark(slot, new as usize);
        // No GC point since the swap: the barrier after it (see `swap_ref`).
        self.log_old(old);
        old
    }
}

/// The reference a stored word holds (`None` for null); panics on an immediate,
/// as every `Option<Gc>` reader does (`Gc::from_slot`).
#[inline(always)]
fn decode<'m>(v: u64) -> Option<Gc<'m>> {
    Gc::from_slot(v as usize)
}

/// An element load of `copy_refs`: acquire, as `read_ref`'s.
///
/// # Safety
/// `slot` is a reference field of a live object of this heap, ready for access.
#[inline(always)]
unsafe fn load_slot(slot: usize) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { crate::mem::load_acquire(slot) }
}

/// An element store of `copy_refs`: release, as `write_ref`'s (after the barrier).
///
/// # Safety
/// As for [`load_slot`], and `v` is 0 or an object of this heap.
#[inline(always)]
unsafe fn store_slot(slot: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { crate::mem::store_release(slot, v) }
}

#[cold]
#[inline(never)]
fn weak_refused(what: &str) -> ! {
    panic!("Mutator::{what} on a weak reference field: not supported")
}

#[cold]
#[inline(never)]
fn not_a_ref_array(which: &str, obj: Gc<'_>) -> ! {
    panic!(
        "Mutator::copy_refs: the {which} {obj:?} is not a reference array nor has a reference tail"
    )
}

#[inline(always)]
fn check_range(which: &str, index: usize, n: usize, (first, len): (usize, usize)) {
    if index < first || index.checked_add(n).is_none_or(|end| end > first + len) {
        range_out_of_bounds(which, index, n, (first, len));
    }
}

#[cold]
#[inline(never)]
fn range_out_of_bounds(which: &str, index: usize, n: usize, (first, len): (usize, usize)) -> ! {
    if first == 0 {
        panic!(
            "Mutator::copy_refs: {which} range {index}..{index}+{n} out of bounds of a \
             reference array of length {len}"
        )
    }
    panic!(
        "Mutator::copy_refs: {which} range {index}..{index}+{n} out of bounds of a \
         reference tail at fields {first}..{}",
        first + len
    )
}

// ---- the slow paths generated code calls ----

/// The safepoint poll's slow path: parks the calling thread at a safepoint if a
/// collection wants it stopped (or runs a pause the GC driver offers), as
/// [`Mutator::safepoint`] does, and returns once the thread may run on.
///
/// Who and when: generated code on `m`'s own thread, when the byte at
/// [`Mutator::safepoint_poll_addr`] is not zero. It is a GC point. What must
/// not happen:
/// - a reference held anywhere but in `m`'s roots (handles, its root stack,
///   globals) across the call: objects move, and such a reference then points at
///   freed memory. Generated code spills its live references to the root stack
///   (or keeps them in handles) before the call and reloads them after it;
/// - a barrier flag, or a large object's readiness, cached across the call: both
///   can change ([`Mutator::barrier_flag_addr`], [`flipgc_prepare_object`]);
/// - a Rust reference (`&` or `&mut`) to `*m` alive across the call elsewhere on
///   this thread (the call uses `*m` mutably), or a call from another thread.
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread, with no other
/// reference to it in use during the call.
pub unsafe extern "C" fn flipgc_safepoint_slow(m: *mut Mutator) {
    // SAFETY: the caller's contract: `m` is live, on its own thread, unaliased.
    let m = unsafe { &mut *m };
    m.safepoint();
}

/// The write barrier's slow path, for a store into a *strong* reference field:
/// logs the reference the field at `slot` holds now (if any), while concurrent
/// marking runs; does nothing otherwise.
///
/// Who and when: generated code on `m`'s own thread, about to store into the
/// reference field at `slot`, when the byte at [`Mutator::barrier_flag_addr`]
/// is not zero. It is not a GC point: references held in registers stay valid.
/// The store sequence is exactly:
/// 1. test the flag byte; if it is not zero, call this with the field's address
///    (`object + 8 * (1 + field)`: the header word, then the fields in order);
/// 2. then store the new reference with a release store (`stlr` on arm64, a plain
///    `mov` on x86_64), publishing the new referent's header and fields;
/// 3. then the card mark, whether or not the flag was set
///    ([`Mutator::card_table_addr`], or [`flipgc_card_mark`]), before the next
///    GC point (it may be left out when the word stored is null or an
///    immediate, never for a reference).
///
/// What must not happen: the store before the call (the value this call must log
/// would be gone: an object reachable at the marking's start could then be freed
/// while reachable); a GC point between the call and the store; a `slot` that is
/// not a reference field of a live object of this heap; a call for a weak field
/// (use [`flipgc_weak_write_barrier_slow`]).
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread; `slot` is the
/// address of a strong reference field of a live object of `m`'s heap, made ready
/// for access ([`flipgc_prepare_object`]). A `slot` outside the heap aborts the
/// process.
pub unsafe extern "C" fn flipgc_write_barrier_slow(m: *const Mutator, slot: usize) {
    // SAFETY: the caller's contract: `m` is live and on its own thread.
    let m = unsafe { &*m };
    if !m.owns(slot) || slot % WORD != 0 {
        bad_slot(slot);
    }
    // The flag may have been read stale (cached across a GC point, against the
    // rules): logging outside marking would hand in an address that the next
    // collection makes stale. So it is tested again.
    if m.marking {
        m.log_overwritten(slot);
    }
}

/// The write barrier's slow path, for a store into a *weak* reference field of
/// `holder`: while marking, notes the holder (weak fields are not traced, so the
/// old value is not logged; the end of marking clears the holder's weak fields
/// whose referents died), as [`Mutator::set_ref`] does for a weak field.
///
/// Who and when: as [`flipgc_write_barrier_slow`] (flag set, before the release
/// store, no GC point in between), with the holder object's address instead of
/// the field's. Not a GC point.
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread; `holder` is a live
/// object of `m`'s heap, ready for access, with a weak field about to be stored.
/// A `holder` outside the heap aborts the process.
pub unsafe extern "C" fn flipgc_weak_write_barrier_slow(m: *const Mutator, holder: usize) {
    // SAFETY: the caller's contract: `m` is live and on its own thread.
    let m = unsafe { &*m };
    if !m.owns(holder) {
        bad_slot(holder);
    }
    m.pre_write_weak(holder);
}

/// The card mark, as a call: after a reference store into the field at `slot`
/// (strong or weak), dirties the slot's card if `slot` lies in this heap (a
/// large object's slot marks a byte the collector never reads; an address
/// outside the heap marks nothing). Generated code may instead inline the mark
/// for slots in the moving space: [`Mutator::card_table_addr`]. It
/// marks whatever was stored; generated code may leave the call out after a
/// store of null or an immediate (never after a reference).
///
/// Who and when: generated code on `m`'s own thread, after the release store
/// of a reference and before its next GC point. Not a GC point.
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread.
pub unsafe extern "C" fn flipgc_card_mark(m: *const Mutator, slot: usize) {
    // SAFETY: the caller's contract: `m` is live and on its own thread.
    let m = unsafe { &*m };
    m.card_mark_slot(slot);
}

/// The weak-reference barrier's slow path: after generated code loads a reference
/// `value` from a *weak* field while the barrier flag is set, it calls this
/// before using the value, so that marking keeps the referent (a reference read
/// from a weak field may be stored into an object the markers have already
/// scanned); as [`Mutator::read_ref`] does for a weak field. Null and immediates
/// are ignored.
///
/// Who and when: generated code on `m`'s own thread, right after an acquire load
/// of a weak field, no GC point in between. Not a GC point.
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread; `value` is 0 or the
/// reference just loaded from a weak field of a live object of `m`'s heap.
pub unsafe extern "C" fn flipgc_weak_read_barrier_slow(m: *const Mutator, value: usize) {
    // SAFETY: the caller's contract: `m` is live and on its own thread.
    let m = unsafe { &*m };
    if is_ref(value) && !m.owns(value) {
        bad_slot(value);
    }
    m.weak_read(value);
}

/// Makes the object at `obj` ready for generated code to touch its fields: a large
/// object whose fields still await forwarding since a flip pause (they hold the
/// old addresses; `collect/large.rs`) is forwarded first, as every access through
/// a [`Mutator`] does. Returns whether `obj` lies in `m`'s heap at all.
///
/// Who and when: generated code on `m`'s own thread, before its first load or
/// store of a field of an object in [`Mutator::large_object_space`] after each GC
/// point (objects in the moving space need no call). What must not happen: a
/// field load of such an object before the call (it would read an address that is
/// stale), or a reference store before it (the later forwarding would take the new
/// address for an old one and forge a reference). Not a GC point; it may wait
/// for another thread forwarding the same object.
///
/// # Safety
/// `m` points to a live `Mutator` bound to the calling thread; `obj` is the
/// address of an object the calling code holds legitimately (read from a root or
/// a field since the last GC point).
pub unsafe extern "C" fn flipgc_prepare_object(m: *const Mutator, obj: usize) -> bool {
    // SAFETY: the caller's contract: `m` is live and on its own thread.
    let m = unsafe { &*m };
    m.accessible(obj)
}

#[cold]
#[inline(never)]
fn bad_slot(addr: usize) -> ! {
    panic!("a barrier slow path was called with {addr:#x}, which is not a field or object of this heap")
}
