//! The heap verifier: walks every object and checks every reference.
//!
//! Checks: each moving-space object below the top has a registered type and fits
//! below the top; every reference (in objects, large objects and roots) is null or
//! the header address of a moving-space object (not a filler) or of a large object;
//! nothing points into from-space, past the top, or elsewhere; the first word known
//! to be clean (at the top or the dirty end, whichever is higher) reads as zero
//! (invariant Z).

use super::bitmap::Bitmap;
use super::heap_inner::HeapInner;
use crate::decode::{Decode, Decoder, Kind};
use crate::mem::{self, WORD};
use crate::model::ObjectRef;
use crate::object::{is_ref, Header};
use crate::safepoint::Stopped;

/// What a verification walked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Moving-space objects (fillers excluded).
    pub objects: usize,
    /// Large objects.
    pub large_objects: usize,
    /// Non-null references checked (fields and roots).
    pub references: usize,
    /// Bytes below the top.
    pub used_bytes: usize,
}

/// Stops the world (as the GC driver) and verifies the heap; panics if it is broken.
pub fn verify_now(inner: &HeapInner) {
    let stopped = loop {
        if let Some(s) = inner.safepoints.stop_the_world(crate::safepoint::DRIVER) {
            break s;
        }
    };
    if let Err(e) = verify_stopped(inner, &stopped) {
        panic!("heap verification failed after a collection: {e}");
    }
}

/// Verifies the heap; the world must be stopped (`stopped` proves it). An error
/// if extents are parked (the walk cannot cross them; see
/// [`verify_unless_parked`]).
pub fn verify_stopped(inner: &HeapInner, stopped: &Stopped<'_>) -> Result<VerifyReport, String> {
    verify_unless_parked(inner, stopped)
        .unwrap_or_else(|| Err("dead extents are parked: the walk cannot cross them".into()))
}

/// Verifies the heap, unless dead extents are parked between a cycle's plan and
/// its flip pause (`park.rs`): then `None`, and the caller tries again after the
/// flip. The world must be stopped (`stopped` proves it), but the GC driver is not
/// (the parking runs concurrently with a stopped world too).
///
/// The check and the walk are one step under the space lock: every parking move
/// runs under it (`park::park_dead`), so nothing is parked between the check and
/// the end of the walk. Lock order as the parking's: the space, then from-space.
/// (The check used to be made before this, with the from-space lock alone: a
/// parking in between made the walk read zeros, "invalid header 0x0", on a
/// healthy heap.)
pub fn verify_unless_parked(
    inner: &HeapInner,
    stopped: &Stopped<'_>,
) -> Option<Result<VerifyReport, String>> {
    stopped.fix_pending_roots();
    // During a concurrent compaction: the large objects' fields no thread has
    // needed yet (the compaction may be forwarding some of them meanwhile).
    super::large::forward_pending(inner);
    let space = inner.space.lock();
    if !inner.from_space.lock().parked.is_empty() {
        return None;
    }
    #[cfg(feature = "test-seams")]
    crate::seams::after_parked_check();
    // The walk, instantiated for the heap's model (`dispatch.rs`).
    Some((inner.dispatch.verify_walk)(inner, &space, stopped))
}

/// The walk of [`verify_unless_parked`], holding the space lock, decoding
/// objects with `K`'s decoder (the model's answers themselves are checked
/// through the erased model: [`check_model`]).
pub(crate) fn walk<K: Kind>(
    inner: &HeapInner,
    space: &crate::space::moving::MovingSpace,
    stopped: &Stopped<'_>,
) -> Result<VerifyReport, String> {
    let los = inner.los.lock();
    let globals = inner.globals.lock();
    let erased = inner.decoder();
    let dec = K::narrow(erased);
    let (base, top) = (space.base(), space.top);
    let words = (top - base) / WORD;
    let starts = Bitmap::new(words.max(1));
    let mut report = VerifyReport {
        used_bytes: top - base,
        ..VerifyReport::default()
    };
    let mut fields: Vec<(usize, usize)> = Vec::new(); // (holder, value)

    let mut at = base;
    while at < top {
        // SAFETY: `at` is below the top, in the mapped heap span, world stopped.
        let h = Header(unsafe { mem::load(at) });
        let size = dec
            .object_words(at, h.0)
            .ok_or_else(|| format!("invalid header {:#x} at {at:#x}", h.0))?;
        check_model(&erased, at, h.0, size)?;
        if at + size * WORD > top {
            return Err(format!(
                "object at {at:#x} ({size} words) runs past the top {top:#x}"
            ));
        }
        if !dec.is_filler(h.0) {
            starts.set((at - base) / WORD);
            report.objects += 1;
            dec.for_each_ref_field(at, h.0, |f| {
                // SAFETY: field inside the object, below the top.
                fields.push((at, unsafe { mem::load(at + WORD * (1 + f)) } as usize));
            });
        }
        at += size * WORD;
    }
    for (addr, obj) in los.iter() {
        // SAFETY: a live large object's header is mapped.
        let h = Header(unsafe { mem::load(addr) });
        match dec.object_words(addr, h.0) {
            Some(w) if w == obj.words && !dec.is_filler(h.0) => {}
            _ => return Err(format!("large object at {addr:#x} has header {:#x}", h.0)),
        }
        check_model(&erased, addr, h.0, obj.words)?;
        report.large_objects += 1;
        dec.for_each_ref_field(addr, h.0, |f| {
            // SAFETY: field inside the large object.
            fields.push((addr, unsafe { mem::load(addr + WORD * (1 + f)) } as usize));
        });
    }
    for m in &stopped.mutators {
        // SAFETY: the world is stopped: the collector owns every mutator's roots.
        let roots = unsafe { m.roots() };
        roots.for_each_mut(|r| fields.push((0, *r as usize)));
        roots.for_each_weak_mut(|r| fields.push((0, *r as usize)));
    }
    fields.extend(globals.slots.iter().map(|r| (0, *r as usize)));
    super::refs::for_each_queue(inner, |q| {
        let held = q
            .ready
            .iter()
            .chain(&q.watched)
            .chain(q.cleaners.iter().map(|(v, _)| v));
        fields.extend(held.map(|v| (0, *v as usize)));
    });

    let from = inner.from_base..inner.from_base + inner.config.capacity;
    for (holder, v) in fields {
        if !is_ref(v) {
            continue;
        }
        report.references += 1;
        let what = if holder == 0 {
            "a root".to_string()
        } else {
            format!("the object at {holder:#x}")
        };
        if from.contains(&v) {
            return Err(format!("{what} points into from-space: {v:#x}"));
        }
        let ok = if (base..top).contains(&v) {
            v % WORD == 0 && starts.get((v - base) / WORD)
        } else {
            los.get(v).is_some()
        };
        if !ok {
            return Err(format!(
                "{what} holds {v:#x}, which is not an object header"
            ));
        }
    }
    let clean = top.max(space.dirty_end);
    if clean < space.end() {
        // SAFETY: the word is in the mapped heap span.
        let w = unsafe { mem::load(clean) };
        if w != 0 {
            return Err(format!(
                "the word at {clean:#x} (top or dirty end) is {w:#x}, not zero"
            ));
        }
    }
    Ok(report)
}

/// On a model heap, checks what the VM model says of the object at `at` (word 0
/// `w0`, `size` words) against the trait's promises: `1 <= header_words <=
/// size`, and `scan` visits, in increasing order, exactly the words `i` with
/// `header_words <= i < size` that `is_ref_slot` names (probed over the whole
/// object); and, where the model gives a
/// [`fixed_layout`](crate::ObjectModel::fixed_layout) for `w0`, that it agrees
/// with all three; that every weak slot is a reference slot, and an
/// ephemeron's key and value two distinct weak slots. Nothing to check for
/// built-in objects and fillers.
fn check_model(dec: &Decoder<'_>, at: usize, w0: u64, size: usize) -> Result<(), String> {
    let Some(m) = dec.vm_model(w0) else {
        return Ok(());
    };
    let r = ObjectRef::new(at);
    let header = m.header_words(r);
    if size == 0 || header == 0 || header > size {
        return Err(format!(
            "VM object at {at:#x}: the model says {size} words, {header} header words"
        ));
    }
    let mut scanned = Vec::new();
    m.scan(r, &mut |i| scanned.push(i));
    let probed: Vec<usize> = (0..size).filter(|&i| m.is_ref_slot(r, i)).collect();
    if scanned != probed || scanned.first().is_some_and(|&i| i < header) {
        return Err(format!(
            "VM object at {at:#x} ({size} words, {header} header words): scan visits \
             {scanned:?}, is_ref_slot names {probed:?}"
        ));
    }
    let mask: u64 = probed.iter().filter(|&&i| i < 64).map(|&i| 1 << i).sum();
    let weak = m.weak_slots(w0);
    if weak & !mask != 0 {
        return Err(format!(
            "VM object at {at:#x} (header {w0:#x}): weak_slots says {weak:#b}, but its \
             reference slots are {probed:?}"
        ));
    }
    if let Some((k, v)) = m.ephemeron_slots(w0) {
        let is_weak = |i: usize| i < 64 && weak >> i & 1 != 0;
        if k == v || !is_weak(k) || !is_weak(v) {
            return Err(format!(
                "VM object at {at:#x} (header {w0:#x}): ephemeron_slots says key {k}, \
                 value {v}, which are not two weak slots ({weak:#b})"
            ));
        }
    }
    if let Some(l) = m.fixed_layout(w0) {
        let wide = probed.iter().any(|&i| i >= 64);
        if l.words != size || l.header_words != header || l.ref_mask != mask || wide {
            return Err(format!(
                "VM object at {at:#x} (header {w0:#x}): fixed_layout says {l:?}, but the \
                 object has {size} words, {header} header words and reference slots \
                 {probed:?}"
            ));
        }
    }
    Ok(())
}
