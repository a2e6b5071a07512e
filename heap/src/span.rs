//! [`Span`]: one committed, read-write mapping inside a [`crate::Reservation`],
//! the unit the flip engine moves. Also the advice on it (THP, populate, release)
//! and the kernel page move (`mremap`).
//!
//! A span upholds invariant 3 of `reservation.rs`: it is always exactly one
//! read-write mapping of its whole range. Flag-changing advice (THP) applies to
//! the whole span only, so a span can always be moved by a single `mremap`
//! (which cannot span two mappings).

use crate::error::HeapError;
use crate::reservation::{map_rw, Inner};
use crate::sys;
use std::sync::Arc;

/// Transparent-huge-page advice for a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Thp {
    /// No advice given: the system-wide THP mode applies.
    Default,
    /// `MADV_HUGEPAGE`: back the span with 2 MiB (PMD) pages where possible.
    Huge,
    /// `MADV_NOHUGEPAGE`: base pages only.
    NoHuge,
}

/// How [`Span::populate`] populated the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PopulateMethod {
    /// One `MADV_POPULATE_WRITE` call (Linux 5.14+).
    Madvise,
    /// A loop touching one byte per page (older kernels, other hosts).
    TouchLoop,
}

/// What a successful [`Span::move_to`] left at the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceAfterMove {
    /// `MREMAP_DONTUNMAP`: the source mapping stayed, empty (reads as zeros).
    KeptEmpty,
    /// The source was unmapped by the move and mapped again, fresh (reads as zeros).
    Remapped,
}

/// One committed read-write mapping. Dropping it returns the range to `PROT_NONE`
/// and frees its memory. The reservation stays mapped while any of its spans lives.
pub struct Span {
    pub(crate) res: Arc<Inner>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) thp: Thp,
}

impl Span {
    /// First address of the span.
    pub fn addr(&self) -> usize {
        self.res.base + self.offset
    }

    /// Length in bytes (a non-zero multiple of the page size).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: spans are never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// One past the last address.
    pub fn end(&self) -> usize {
        self.addr() + self.len
    }

    /// Offset of the span inside its reservation.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The span's first byte, for code that manages concurrent access itself.
    pub fn as_ptr(&self) -> *mut u8 {
        self.addr() as *mut u8
    }

    /// The span's bytes. Untouched pages read as zeros.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the range is one live read-write mapping owned by this span
        // (invariant 3); operations that change its contents behind a reference
        // (moves, release, recommit) take `&mut self`, so the slice cannot change.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }

    /// The span's bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.as_ptr(), self.len) }
    }

    /// The THP advice last applied to this span.
    pub fn thp(&self) -> Thp {
        self.thp
    }

    /// Applies THP advice to the whole span (never part of it: that would split the mapping).
    pub fn set_thp(&mut self, thp: Thp) -> Result<(), HeapError> {
        apply_thp(self.addr(), self.len, thp)?;
        self.thp = thp;
        Ok(())
    }

    /// Makes every page of `[offset, offset+len)` present and writable without
    /// changing its contents: `MADV_POPULATE_WRITE` where the kernel has it, else a
    /// touch loop.
    pub fn populate(&mut self, offset: usize, len: usize) -> Result<PopulateMethod, HeapError> {
        let addr = self.sub_range("populate", offset, len)?;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: the range is inside this span (checked); POPULATE_WRITE does not
            // change contents.
            match unsafe { sys::madvise(addr, len, libc::MADV_POPULATE_WRITE) } {
                Ok(()) => return Ok(PopulateMethod::Madvise),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(HeapError::os("madvise(POPULATE_WRITE)", addr, len, e)),
            }
        }
        let page = self.res.page;
        let bytes = &mut self.as_mut_slice()[offset..offset + len];
        for i in (0..len).step_by(page) {
            let p: *mut u8 = &mut bytes[i];
            // SAFETY: `p` points into the exclusively borrowed slice; a volatile
            // read-then-write of the same value faults the page in writable.
            unsafe { p.write_volatile(p.read_volatile()) };
        }
        Ok(PopulateMethod::TouchLoop)
    }

    /// Frees the memory behind `[offset, offset+len)` (`MADV_DONTNEED`); it reads as
    /// zeros afterwards. The mapping itself stays.
    pub fn release(&mut self, offset: usize, len: usize) -> Result<(), HeapError> {
        let addr = self.sub_range("release", offset, len)?;
        // SAFETY: the range is inside this span, borrowed mutably: nothing else reads it.
        unsafe { sys::madvise(addr, len, libc::MADV_DONTNEED) }
            .map_err(|e| HeapError::os("madvise(DONTNEED)", addr, len, e))
    }

    /// Replaces the whole span with a fresh zero-filled mapping and re-applies its THP advice.
    pub fn recommit(&mut self) -> Result<(), HeapError> {
        // SAFETY: the span owns its range (invariant 3), borrowed mutably.
        unsafe { map_rw(self.addr(), self.len) }?;
        if self.thp != Thp::Default {
            apply_thp(self.addr(), self.len, self.thp)?;
        }
        Ok(())
    }

    /// Moves this span's pages to `dst` with one `mremap(MAYMOVE | FIXED)` (plus
    /// `MREMAP_DONTUNMAP` when `dontunmap`): afterwards `dst` holds the bytes this
    /// span held, and this span reads as zeros (see [`SourceAfterMove`]). No byte is
    /// copied: the kernel moves page-table entries, at the highest level the two
    /// addresses' alignment allows.
    ///
    /// On error both spans stay usable: this span's bytes are unchanged (the kernel
    /// undoes a partial move) and `dst` is re-mapped fresh (a failed `mremap` may
    /// already have unmapped it).
    #[cfg(target_os = "linux")]
    pub fn move_to(
        &mut self,
        dst: &mut Span,
        dontunmap: bool,
    ) -> Result<SourceAfterMove, HeapError> {
        if dst.len != self.len {
            return Err(HeapError::Invalid {
                what: "move",
                detail: format!("source is {} bytes, destination {}", self.len, dst.len),
            });
        }
        let (src_addr, dst_addr, len) = (self.addr(), dst.addr(), self.len);
        // SAFETY: both ranges are live spans (invariant 3), borrowed mutably, so nothing
        // references them; spans never overlap (invariant 2, or distinct reservations);
        // the source is exactly one mapping.
        let moved = unsafe { sys::mremap_fixed(src_addr, dst_addr, len, dontunmap) };
        if let Err(e) = moved {
            if let Err(again) = dst.recommit() {
                panic!("cannot restore destination span after failed mremap ({e}): {again}");
            }
            let op = if dontunmap {
                "mremap(DONTUNMAP)"
            } else {
                "mremap"
            };
            return Err(HeapError::os(op, src_addr, len, e));
        }
        // The mapping now at dst is the source's, with the source's advice.
        dst.thp = self.thp;
        if dontunmap {
            Ok(SourceAfterMove::KeptEmpty)
        } else {
            // The source range is a hole in our reservation now: map it again at once.
            if let Err(e) = self.recommit() {
                panic!("cannot re-map the source span after mremap: {e}");
            }
            Ok(SourceAfterMove::Remapped)
        }
    }

    fn sub_range(&self, what: &'static str, offset: usize, len: usize) -> Result<usize, HeapError> {
        let page = self.res.page;
        let ok = offset % page == 0
            && len % page == 0
            && len > 0
            && offset.checked_add(len).is_some_and(|e| e <= self.len);
        if ok {
            Ok(self.addr() + offset)
        } else {
            Err(HeapError::Invalid {
                what,
                detail: format!(
                    "range {offset:#x}+{len:#x} is not a non-empty, page-aligned part of a {:#x}-byte span",
                    self.len
                ),
            })
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        self.res.decommit(self.offset, self.len);
    }
}

impl std::fmt::Debug for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Span({:#x}+{:#x}, thp {:?})",
            self.addr(),
            self.len,
            self.thp
        )
    }
}

fn apply_thp(addr: usize, len: usize, thp: Thp) -> Result<(), HeapError> {
    #[cfg(target_os = "linux")]
    let advice = match thp {
        Thp::Default => return Ok(()),
        Thp::Huge => libc::MADV_HUGEPAGE,
        Thp::NoHuge => libc::MADV_NOHUGEPAGE,
    };
    #[cfg(not(target_os = "linux"))]
    let advice = match thp {
        Thp::Default => return Ok(()),
        _ => return Err(HeapError::Unsupported("transparent huge pages")),
    };
    // SAFETY: THP advice changes no contents; the range is a whole span.
    unsafe { sys::madvise(addr, len, advice) }
        .map_err(|e| HeapError::os("madvise(THP)", addr, len, e))
}
