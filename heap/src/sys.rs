//! Thin wrappers over the memory-management system calls (`mmap`, `munmap`,
//! `madvise`, `mremap`, `mincore`) and `sysconf`. The only place in the crate that
//! maps memory. The calls go through nix, with its typed flags ([`ProtFlags`],
//! [`MapFlags`], [`MmapAdvise`], `MRemapFlags`) and [`Errno`] results; only
//! `mincore`, which nix does not wrap, is called through libc.
//!
//! Addresses are `usize` here, as everywhere in the crate. nix's wrappers take
//! `NonNull` addresses and `mmap` a `NonZeroUsize` length, so a zero address (no
//! caller passes one: every range here is part of a mapping) and a zero `mmap`
//! length (which the kernel refuses with the same errno) fail with `EINVAL` here.

use std::num::NonZeroUsize;
use std::ptr::NonNull;

pub use nix::errno::Errno;
pub use nix::sys::mman::{MapFlags, MmapAdvise, ProtFlags};

/// The base page size, from `sysconf(_SC_PAGESIZE)`.
pub fn page_size() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|v| usize::try_from(v).ok())
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096)
}

fn ptr(addr: usize) -> nix::Result<NonNull<std::ffi::c_void>> {
    NonNull::new(addr as *mut std::ffi::c_void).ok_or(Errno::EINVAL)
}

/// Maps anonymous private memory (`MAP_PRIVATE | MAP_ANONYMOUS` are added to
/// `flags`). `addr` 0 lets the kernel choose. Returns the address.
///
/// # Safety
/// With `MAP_FIXED` in `flags`, `[addr, addr+len)` must be memory the caller owns
/// and that nothing else references: it is replaced.
pub unsafe fn mmap_anon(
    addr: usize,
    len: usize,
    prot: ProtFlags,
    flags: MapFlags,
) -> nix::Result<usize> {
    let len = NonZeroUsize::new(len).ok_or(Errno::EINVAL)?;
    // SAFETY: anonymous mapping (no file); the caller upholds the MAP_FIXED contract.
    let p = unsafe {
        nix::sys::mman::mmap_anonymous(
            NonZeroUsize::new(addr),
            len,
            prot,
            flags | MapFlags::MAP_PRIVATE,
        )
    }?;
    Ok(p.as_ptr() as usize)
}

/// Unmaps `[addr, addr+len)`.
///
/// # Safety
/// The caller owns the range and nothing references it any more.
pub unsafe fn munmap(addr: usize, len: usize) -> nix::Result<()> {
    // SAFETY: the caller owns the range and guarantees it is unreferenced.
    unsafe { nix::sys::mman::munmap(ptr(addr)?, len) }
}

/// `madvise(addr, len, advice)`.
///
/// # Safety
/// Destructive advice (`MADV_DONTNEED`) discards contents: the caller owns the range
/// and nothing may rely on its bytes.
pub unsafe fn madvise(addr: usize, len: usize, advice: MmapAdvise) -> nix::Result<()> {
    // SAFETY: the caller owns the range; the advice's effects are its contract.
    unsafe { nix::sys::mman::madvise(ptr(addr)?, len, advice) }
}

/// `mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED [| MREMAP_DONTUNMAP], new)`.
///
/// Returns an `io::Error` rather than an [`Errno`]: besides the kernel's errno it
/// can report a move that landed at another address than `new` (which `MREMAP_FIXED`
/// rules out, but which is checked rather than assumed).
///
/// # Safety
/// Both ranges are owned by the caller, do not overlap, and nothing references
/// either while the call runs; `[old, old+len)` lies inside one mapping.
#[cfg(target_os = "linux")]
pub unsafe fn mremap_fixed(
    old: usize,
    new: usize,
    len: usize,
    dontunmap: bool,
) -> std::io::Result<()> {
    use nix::sys::mman::MRemapFlags;
    let mut flags = MRemapFlags::MREMAP_MAYMOVE | MRemapFlags::MREMAP_FIXED;
    if dontunmap {
        flags |= MRemapFlags::MREMAP_DONTUNMAP;
    }
    // SAFETY: the caller owns both ranges exclusively; the kernel moves the pages.
    let p = unsafe { nix::sys::mman::mremap(ptr(old)?, len, len, flags, Some(ptr(new)?)) }?;
    if p.as_ptr() as usize != new {
        return Err(std::io::Error::other(format!(
            "mremap returned {:#x}, not {new:#x}",
            p.as_ptr() as usize
        )));
    }
    Ok(())
}

/// Which pages of `[addr, addr+len)` are resident (`mincore`: a present page-table
/// entry, or a migration entry; for private anonymous memory, a page that was
/// never touched or was moved away is not). Page-aligned `addr` and `len`
/// expected; an error where part of the range is unmapped. Allocates the result.
///
/// libc, not nix: nix has no `mincore` wrapper.
#[cfg(target_os = "linux")]
pub fn resident(addr: usize, len: usize) -> std::io::Result<Vec<bool>> {
    let pages = len.div_ceil(page_size());
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` holds one byte per page of the range, as mincore requires.
    let rc = unsafe { libc::mincore(addr as *mut libc::c_void, len, vec.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(vec.into_iter().map(|b| b & 1 != 0).collect())
}

/// Whether every page of `[addr, addr+len)` is mapped (`mincore` fails with ENOMEM
/// on any unmapped page). Page-aligned `addr` and `len` expected.
///
/// libc, not nix: nix has no `mincore` wrapper.
#[cfg(target_os = "linux")]
pub fn fully_mapped(addr: usize, len: usize) -> bool {
    let pages = len.div_ceil(page_size());
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` holds one byte per page of the range, as mincore requires.
    let rc = unsafe { libc::mincore(addr as *mut libc::c_void, len, vec.as_mut_ptr()) };
    rc == 0
}
