//! Thin wrappers over the memory-management system calls (`mmap`, `munmap`,
//! `madvise`, `mremap`). The only place in the crate that calls libc for memory;
//! each wrapper turns `-1`/`MAP_FAILED` into an `io::Error` carrying the errno.

use std::io;

/// The base page size, from `sysconf(_SC_PAGESIZE)`.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(v)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096)
}

/// Maps anonymous private memory. Returns the address.
///
/// # Safety
/// With `MAP_FIXED` in `flags`, `[addr, addr+len)` must be memory the caller owns
/// and that nothing else references: it is replaced.
pub unsafe fn mmap_anon(addr: usize, len: usize, prot: i32, flags: i32) -> io::Result<usize> {
    // SAFETY: anonymous mapping (fd -1); the caller upholds the MAP_FIXED contract.
    let p = unsafe {
        libc::mmap(
            addr as *mut libc::c_void,
            len,
            prot,
            flags | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else {
        Ok(p as usize)
    }
}

/// Unmaps `[addr, addr+len)`.
///
/// # Safety
/// The caller owns the range and nothing references it any more.
pub unsafe fn munmap(addr: usize, len: usize) -> io::Result<()> {
    // SAFETY: the caller owns the range and guarantees it is unreferenced.
    check(unsafe { libc::munmap(addr as *mut libc::c_void, len) })
}

/// `madvise(addr, len, advice)`.
///
/// # Safety
/// Destructive advice (`MADV_DONTNEED`) discards contents: the caller owns the range
/// and nothing may rely on its bytes.
pub unsafe fn madvise(addr: usize, len: usize, advice: i32) -> io::Result<()> {
    // SAFETY: the caller owns the range; the advice's effects are its contract.
    check(unsafe { libc::madvise(addr as *mut libc::c_void, len, advice) })
}

/// `mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED [| MREMAP_DONTUNMAP], new)`.
///
/// # Safety
/// Both ranges are owned by the caller, do not overlap, and nothing references
/// either while the call runs; `[old, old+len)` lies inside one mapping.
#[cfg(target_os = "linux")]
pub unsafe fn mremap_fixed(old: usize, new: usize, len: usize, dontunmap: bool) -> io::Result<()> {
    let mut flags = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
    if dontunmap {
        flags |= libc::MREMAP_DONTUNMAP;
    }
    // SAFETY: the caller owns both ranges exclusively; the kernel moves the pages.
    let p = unsafe {
        libc::mremap(
            old as *mut libc::c_void,
            len,
            len,
            flags,
            new as *mut libc::c_void,
        )
    };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else if p as usize != new {
        Err(io::Error::other(format!(
            "mremap returned {:#x}, not {new:#x}",
            p as usize
        )))
    } else {
        Ok(())
    }
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether every page of `[addr, addr+len)` is mapped (`mincore` fails with ENOMEM
/// on any unmapped page). Page-aligned `addr` and `len` expected.
#[cfg(target_os = "linux")]
pub fn fully_mapped(addr: usize, len: usize) -> bool {
    let pages = len.div_ceil(page_size());
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` holds one byte per page of the range, as mincore requires.
    let rc = unsafe { libc::mincore(addr as *mut libc::c_void, len, vec.as_mut_ptr()) };
    rc == 0
}
