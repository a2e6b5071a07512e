//! Aligned virtual-address reservations and the committed spans inside them.
//!
//! Invariants (relied on by every `unsafe` block in this file and by `span.rs`):
//! 1. A [`Reservation`]'s range `[base, base+len)` is owned by it alone: mapped
//!    `PROT_NONE | MAP_NORESERVE` when created and unmapped when the last handle
//!    (the reservation or any span in it) is dropped.
//! 2. Committed spans inside one reservation never overlap (checked at commit).
//! 3. A live [`Span`] is always exactly one read-write private anonymous mapping of
//!    its whole range: it is created by a single `mmap` and every operation that
//!    changes its flags (THP advice) applies to the whole span, so it never splits.
//!    The one exception, the destination of a range move (`Span::move_range_to`),
//!    is marked split and refuses whole-span moves until it is recommitted.
//! 5. A reservation keeps one `PROT_NONE` guard page on each side of its range
//!    (owned, and unmapped with it), so spans of two reservations are never
//!    adjacent. The kernel merges adjacent anonymous mappings with equal flags into
//!    one VMA: a heap placed right above its from-space became one 2 GiB VMA, and
//!    every flip's `mremap` then split it in two and unmapped half of it inside the
//!    pause (docs/architecture.md, findings). Invariant 4, that a move never
//!    leaves a hole, is kept by `span.rs` (see docs/architecture.md).

use crate::error::HeapError;
use crate::span::{Span, Thp};
use crate::sys::{self, MapFlags, ProtFlags};
use std::sync::Arc;
use std::sync::Mutex;

/// An aligned, `PROT_NONE`, `MAP_NORESERVE` virtual range. Costs no memory until
/// parts of it are [committed](Reservation::commit). Cloning gives another handle
/// to the same range.
#[derive(Clone)]
pub struct Reservation {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) base: usize,
    pub(crate) len: usize,
    align: usize,
    pub(crate) page: usize,
    /// Committed `(offset, len)` pairs, for the overlap check.
    spans: Mutex<Vec<(usize, usize)>>,
}

impl Reservation {
    /// Reserves `len` bytes whose base is a multiple of `align`.
    ///
    /// `len` must be a non-zero multiple of the page size; `align` a power of two
    /// of at least one page. Over-reserves by `align + page` bytes and trims head and
    /// tail down to one guard page on each side (invariant 5).
    pub fn new(len: usize, align: usize) -> Result<Reservation, HeapError> {
        let page = sys::page_size();
        if len == 0 || len % page != 0 {
            return Err(HeapError::Invalid {
                what: "reservation length",
                detail: format!("{len} bytes is not a non-zero multiple of the {page}-byte page"),
            });
        }
        if !align.is_power_of_two() || align < page {
            return Err(HeapError::Invalid {
                what: "reservation alignment",
                detail: format!("{align} is not a power of two of at least one page ({page})"),
            });
        }
        let raw_len = len
            .checked_add(align + page)
            .ok_or_else(|| HeapError::Invalid {
                what: "reservation length",
                detail: format!("{len} bytes aligned to {align} overflows the address space"),
            })?;
        let flags = MapFlags::MAP_NORESERVE;
        // SAFETY: no MAP_FIXED: the kernel picks a free range, nothing is clobbered.
        let raw = unsafe { sys::mmap_anon(0, raw_len, ProtFlags::PROT_NONE, flags) }
            .map_err(|e| HeapError::os("mmap reserve", 0, raw_len, e))?;
        // The guard below `base` is at `base - page`, at or above `raw`; the one above
        // ends at `base + len + page`, at most `raw + raw_len` since `base <= raw + align`.
        let base = (raw + page).next_multiple_of(align);
        let head = base - page - raw;
        let tail = raw_len - head - len - 2 * page;
        let trim = |at: usize, n: usize, op: &'static str| -> Result<(), HeapError> {
            if n == 0 {
                return Ok(());
            }
            // SAFETY: head and tail are parts of the mapping just created, unreferenced.
            unsafe { sys::munmap(at, n) }.map_err(|e| {
                // SAFETY: the whole raw mapping is still ours alone; give it back.
                let _ = unsafe { sys::munmap(raw, raw_len) };
                HeapError::os(op, at, n, e)
            })
        };
        trim(raw, head, "munmap head")?;
        trim(base + len + page, tail, "munmap tail")?;
        let spans = Mutex::new(Vec::new());
        Ok(Reservation {
            inner: Arc::new(Inner {
                base,
                len,
                align,
                page,
                spans,
            }),
        })
    }

    /// Reserves a space of `len` bytes at the best alignment for `geometry`
    /// (PUD if `len` is at least one PUD, else PMD): see [`crate::Geometry::best_alignment`].
    pub fn for_space(len: usize, geometry: &crate::Geometry) -> Result<Reservation, HeapError> {
        Reservation::new(len, geometry.best_alignment(len))
    }

    /// First address of the range.
    pub fn base(&self) -> usize {
        self.inner.base
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// Always false: a reservation is never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The alignment requested at creation.
    pub fn align(&self) -> usize {
        self.inner.align
    }

    /// Commits `[base+offset, base+offset+len)` as one read-write mapping (zero-filled,
    /// `MAP_NORESERVE`: memory is used only when touched).
    ///
    /// Refuses unaligned or out-of-range requests and ranges that overlap a live span.
    pub fn commit(&self, offset: usize, len: usize) -> Result<Span, HeapError> {
        let inner = &self.inner;
        let page = inner.page;
        if len == 0 || len % page != 0 || offset % page != 0 {
            return Err(HeapError::Invalid {
                what: "commit range",
                detail: format!(
                    "offset {offset:#x} and length {len:#x} must be page-aligned ({page}) and the length non-zero"
                ),
            });
        }
        if offset.checked_add(len).is_none_or(|end| end > inner.len) {
            return Err(HeapError::Invalid {
                what: "commit range",
                detail: format!(
                    "offset {offset:#x} + length {len:#x} exceeds the reservation's {:#x} bytes",
                    inner.len
                ),
            });
        }
        let mut spans = inner.spans.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(o, l)) = spans
            .iter()
            .find(|(o, l)| offset < o + l && *o < offset + len)
        {
            return Err(HeapError::Overlap {
                offset,
                len,
                other_offset: o,
                other_len: l,
            });
        }
        let addr = inner.base + offset;
        // SAFETY: the range is inside this reservation (invariant 1) and overlaps no
        // live span (checked above, under the lock), so nothing references it.
        unsafe { map_rw(addr, len) }?;
        spans.push((offset, len));
        drop(spans);
        Ok(Span {
            res: Arc::clone(inner),
            offset,
            len,
            thp: Thp::Default,
            split: false,
        })
    }

    /// Number of live spans.
    pub fn span_count(&self) -> usize {
        self.inner
            .spans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

impl std::fmt::Debug for Reservation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Reservation({:#x}+{:#x}, align {:#x})",
            self.base(),
            self.len(),
            self.align()
        )
    }
}

impl Inner {
    /// Returns a span's range to `PROT_NONE` (freeing its memory) and forgets it.
    pub(crate) fn decommit(&self, offset: usize, len: usize) {
        let addr = self.base + offset;
        let flags = MapFlags::MAP_FIXED | MapFlags::MAP_NORESERVE;
        // SAFETY: called only from Span::drop: the span owned this range exclusively
        // and is going away, so nothing references it.
        let _ = unsafe { sys::mmap_anon(addr, len, ProtFlags::PROT_NONE, flags) };
        let mut spans = self.spans.lock().unwrap_or_else(|e| e.into_inner());
        spans.retain(|&(o, l)| (o, l) != (offset, len));
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: the last handle is gone (no span remains: each holds an Arc), so the
        // whole range and its guard pages are unreferenced (invariants 1 and 5).
        let _ = unsafe { sys::munmap(self.base - self.page, self.len + 2 * self.page) };
    }
}

/// Maps `[addr, addr+len)` read-write, replacing whatever was there.
///
/// # Safety
/// The caller owns the range and nothing references it.
pub(crate) unsafe fn map_rw(addr: usize, len: usize) -> Result<(), HeapError> {
    let prot = ProtFlags::PROT_READ | ProtFlags::PROT_WRITE;
    let flags = MapFlags::MAP_FIXED | MapFlags::MAP_NORESERVE;
    // SAFETY: forwarded from the caller.
    unsafe { sys::mmap_anon(addr, len, prot, flags) }
        .map(|_| ())
        .map_err(|e| HeapError::os("mmap commit", addr, len, e))
}

/// Maps `[addr, addr+len)` read-write only if nothing is mapped there
/// (`MAP_FIXED_NOREPLACE`); `EEXIST` otherwise.
#[cfg(target_os = "linux")]
pub(crate) fn map_rw_noreplace(addr: usize, len: usize) -> Result<(), HeapError> {
    let prot = ProtFlags::PROT_READ | ProtFlags::PROT_WRITE;
    let flags = MapFlags::MAP_FIXED_NOREPLACE | MapFlags::MAP_NORESERVE;
    // SAFETY: NOREPLACE never replaces an existing mapping.
    let got = unsafe { sys::mmap_anon(addr, len, prot, flags) }
        .map_err(|e| HeapError::os("mmap commit (noreplace)", addr, len, e))?;
    if got != addr {
        // A kernel older than 4.17 treats the flag as a hint and maps elsewhere.
        // SAFETY: `got` is the mapping just created, referenced by nobody.
        let _ = unsafe { sys::munmap(got, len) };
        return Err(HeapError::Unsupported("MAP_FIXED_NOREPLACE"));
    }
    Ok(())
}
