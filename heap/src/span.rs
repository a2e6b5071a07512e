//! [`Span`]: one committed, read-write mapping inside a [`crate::Reservation`],
//! the unit the flip engine moves. Also the advice on it (THP, populate, release)
//! and the kernel page move (`mremap`).
//!
//! A span upholds invariant 3 of `reservation.rs`: it is always exactly one
//! read-write mapping of its whole range. Flag-changing advice (THP) applies to
//! the whole span only, so a span can always be moved by a single `mremap`
//! (which cannot span two mappings). The one exception is the destination of a
//! [`Span::move_range_to`], which may be left as several mappings: it is marked
//! split, refuses to be the source of a whole-span move, and is one mapping again
//! after [`Span::recommit`].

use crate::error::HeapError;
use crate::reservation::{map_rw, map_rw_noreplace, Inner};
use crate::sys::{self, MmapAdvise};
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
#[non_exhaustive]
pub enum PopulateMethod {
    /// One `MADV_POPULATE_WRITE` call (Linux 5.14+).
    Madvise,
    /// A loop touching one byte per page (older kernels, other hosts).
    TouchLoop,
}

/// One committed read-write mapping. Dropping it returns the range to `PROT_NONE`
/// and frees its memory. The reservation stays mapped while any of its spans lives.
pub struct Span {
    pub(crate) res: Arc<Inner>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) thp: Thp,
    /// Received a [`Span::move_range_to`] since it was last one mapping.
    pub(crate) split: bool,
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
            match unsafe { sys::madvise(addr, len, MmapAdvise::MADV_POPULATE_WRITE) } {
                Ok(()) => return Ok(PopulateMethod::Madvise),
                Err(sys::Errno::EINVAL) => {}
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
        unsafe { sys::madvise(addr, len, MmapAdvise::MADV_DONTNEED) }
            .map_err(|e| HeapError::os("madvise(DONTNEED)", addr, len, e))
    }

    /// Replaces the whole span with a fresh zero-filled mapping and re-applies its THP
    /// advice. The span is one mapping again (no longer [split](Span::is_split)).
    pub fn recommit(&mut self) -> Result<(), HeapError> {
        // SAFETY: the span owns its range (invariant 1 of `reservation.rs`: whatever
        // mappings cover it are this span's), borrowed mutably.
        unsafe { map_rw(self.addr(), self.len) }?;
        self.split = false;
        if self.thp != Thp::Default {
            apply_thp(self.addr(), self.len, self.thp)?;
        }
        Ok(())
    }

    /// Whether the span received a [`Span::move_range_to`] since it was last one
    /// mapping: it may be several mappings, so it cannot be the source of a
    /// whole-span move until [`Span::recommit`].
    pub fn is_split(&self) -> bool {
        self.split
    }

    /// Moves the pages of `[offset, offset+len)` of this span to the same offsets of
    /// `dst` with one `mremap(MAYMOVE | FIXED | DONTUNMAP)`, at the highest level the
    /// addresses' alignment allows, as [`Span::move_to`] does for a whole span. This
    /// span stays one mapping (a `DONTUNMAP` move does not split its source); the
    /// range reads as zeros afterwards. `dst`'s range is replaced: `dst` may now be
    /// up to three mappings, so it is marked [split](Span::is_split) until
    /// [`Span::recommit`]. Its THP advice is not changed by the pages it received.
    ///
    /// Refuses a range that is not a non-empty, page-aligned part of both spans, and a
    /// split source. On a kernel error this span keeps its bytes; `dst`'s range
    /// keeps its own, or reads as zeros if the failed call had unmapped it.
    #[cfg(target_os = "linux")]
    pub fn move_range_to(
        &mut self,
        offset: usize,
        len: usize,
        dst: &mut Span,
    ) -> Result<(), HeapError> {
        if self.split {
            return Err(split_source());
        }
        let src_addr = self.sub_range("range move", offset, len)?;
        let dst_addr = dst.sub_range("range move", offset, len)?;
        // SAFETY: both ranges are parts of live, mutably borrowed spans (invariant
        // 3), which never overlap (invariant 2); the source is one mapping (not
        // split, checked above); DONTUNMAP leaves no hole at the source.
        let moved = unsafe { sys::mremap_fixed(src_addr, dst_addr, len, true) };
        dst.split = true;
        if let Err(e) = moved {
            dst.restore_after_failed_move(dst_addr, len, &e);
            return Err(HeapError::os(
                "mremap(DONTUNMAP) of a range",
                src_addr,
                len,
                e,
            ));
        }
        Ok(())
    }

    /// Moves this span's pages to `dst` with one
    /// `mremap(MAYMOVE | FIXED | DONTUNMAP)`: afterwards `dst` holds the bytes this
    /// span held, and this span stays mapped, empty (reads as zeros). No byte is
    /// copied: the kernel moves page-table entries, at the highest level the two
    /// addresses' alignment allows. The source range is never unmapped, so no other
    /// thread's mapping can land in it.
    ///
    /// On error both spans stay usable: this span's bytes are unchanged (the kernel
    /// undoes a partial move) and `dst` is mapped again if the failed call had
    /// already unmapped it (its bytes are then zeros).
    #[cfg(target_os = "linux")]
    pub fn move_to(&mut self, dst: &mut Span) -> Result<(), HeapError> {
        // SAFETY: DONTUNMAP leaves no hole at the source, which is the only window
        // `move_pages` needs the caller to keep other mappers out of.
        unsafe { self.move_pages(dst, true) }?;
        Ok(())
    }

    /// Like [`Span::move_to`] but without `MREMAP_DONTUNMAP`, for kernels older
    /// than 5.7: the kernel unmaps the source range, which is then mapped again,
    /// fresh (reads as zeros), with `MAP_FIXED_NOREPLACE`.
    ///
    /// # Safety
    /// No other thread of the process may create a mapping while this runs: one
    /// placed by the kernel in the source range between the move and the re-map would
    /// be lost to this span. That is detected (the re-map fails) and the process is
    /// aborted, since the range can no longer be reclaimed soundly.
    #[cfg(target_os = "linux")]
    pub unsafe fn move_to_unmapping(&mut self, dst: &mut Span) -> Result<(), HeapError> {
        // SAFETY: forwarded from the caller: nobody maps memory meanwhile.
        unsafe { self.move_pages(dst, false) }?;
        let (addr, len) = (self.addr(), self.len);
        if let Err(e) = map_rw_noreplace(addr, len) {
            abort_lost_range("source", addr, len, &e);
        }
        if self.thp != Thp::Default {
            apply_thp(addr, len, self.thp)?;
        }
        Ok(())
    }

    /// The one `mremap`, and the destination's recovery when it fails.
    ///
    /// # Safety
    /// With `dontunmap == false` the source range is left unmapped: the caller must
    /// map it again before anything else can map memory.
    #[cfg(target_os = "linux")]
    unsafe fn move_pages(&mut self, dst: &mut Span, dontunmap: bool) -> Result<(), HeapError> {
        if self.split {
            return Err(split_source());
        }
        if dst.len != self.len {
            return Err(HeapError::Invalid {
                what: "move",
                detail: format!("source is {} bytes, destination {}", self.len, dst.len),
            });
        }
        let (src_addr, dst_addr, len) = (self.addr(), dst.addr(), self.len);
        // SAFETY: both are live, mutably borrowed spans (invariant 3), never overlapping
        // (invariant 2), the source one mapping; a hole left without DONTUNMAP is the
        // caller's to close (this fn's contract).
        let moved = unsafe { sys::mremap_fixed(src_addr, dst_addr, len, dontunmap) };
        if let Err(e) = moved {
            dst.restore_after_failed_move(dst_addr, len, &e);
            let op = if dontunmap {
                "mremap(DONTUNMAP)"
            } else {
                "mremap"
            };
            return Err(HeapError::os(op, src_addr, len, e));
        }
        // The mapping now at dst is the source's, with the source's advice: one
        // mapping (the whole range was replaced).
        dst.thp = self.thp;
        dst.split = false;
        Ok(())
    }

    /// A failed `mremap(FIXED)` may or may not have unmapped the destination range
    /// `[addr, addr+len)` (all or part of this span) before failing. Map it again
    /// without replacing anything: if that finds the range already mapped, it must
    /// be all ours still (a fully mapped range, per `mincore`); a partly mapped range
    /// means another thread's mapping landed in the hole, which cannot be reclaimed
    /// soundly, so the process aborts.
    #[cfg(target_os = "linux")]
    fn restore_after_failed_move(&mut self, addr: usize, len: usize, cause: &std::io::Error) {
        const EEXIST: i32 = sys::Errno::EEXIST as i32;
        match map_rw_noreplace(addr, len) {
            Ok(()) => {
                if self.thp != Thp::Default {
                    let _ = apply_thp(addr, len, self.thp);
                }
            }
            Err(e) if e.errno() == Some(EEXIST) && sys::fully_mapped(addr, len) => {}
            Err(e) => abort_lost_range("destination", addr, len, &format!("{e} (after {cause})")),
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
        Thp::Huge => MmapAdvise::MADV_HUGEPAGE,
        Thp::NoHuge => MmapAdvise::MADV_NOHUGEPAGE,
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

/// The error for a whole-span move out of a span that a range move split.
#[cfg(target_os = "linux")]
fn split_source() -> HeapError {
    HeapError::Invalid {
        what: "move",
        detail:
            "the source span received a range move and may be several mappings; recommit it first"
                .to_string(),
    }
}

/// A span's range was unmapped and another mapping took part of it: the span can no
/// longer own it, and dropping it would unmap someone else's memory. Abort.
#[cfg(target_os = "linux")]
fn abort_lost_range(which: &str, addr: usize, len: usize, why: &dyn std::fmt::Display) -> ! {
    eprintln!(
        "flipgc-heap: fatal: the {which} span {addr:#x}+{len:#x} was unmapped by mremap and \
         could not be mapped again ({why}); another mapping took its place"
    );
    std::process::abort()
}
