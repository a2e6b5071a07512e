//! userfaultfd, the kernel side of concurrent compaction: a descriptor, MISSING-mode
//! registration of a range, and the resolving ioctls (`UFFDIO_COPY`, `UFFDIO_ZEROPAGE`,
//! `UFFDIO_WAKE`), plus reading page-fault events.
//!
//! Protocol (linux/userfaultfd.h, Documentation/admin-guide/mm/userfaultfd.rst): once
//! a range is registered in MISSING mode, a thread touching a page that has no page
//! table entry sleeps in the kernel and a `UFFD_EVENT_PAGEFAULT` message is queued on
//! the descriptor. Installing the page with `UFFDIO_COPY` (or `UFFDIO_ZEROPAGE`) wakes
//! every thread waiting on it, unless the copy asks not to (`DONTWAKE`). A copy onto a
//! page that already exists fails with `EEXIST` and changes nothing, so a page is
//! installed at most once whatever the race.
//!
//! **SIGBUS mode** ([`Userfault::open_sigbus`], `UFFD_FEATURE_SIGBUS`, Linux 4.14+):
//! no thread sleeps and no event is queued; a user-space touch of a missing page gets
//! `SIGBUS` (`BUS_ADRERR`, `si_addr` the address) instead, and the thread's signal
//! handler installs the page itself with `UFFDIO_COPY` and returns, so the access
//! retries. A kernel-mode access (a system call reading or writing the range) fails
//! with `EFAULT` instead. [`Userfault::copy`] is async-signal-safe: one `ioctl` per
//! attempt, no allocation, no lock.

use crate::error::HeapError;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};

const UFFD_API: u64 = 0xAA;
/// The ioctl type of every userfaultfd request (`UFFDIO`).
const UFFDIO: u8 = 0xAA;
const UFFD_FEATURE_MOVE: u64 = 1 << 16;
/// `UFFD_FEATURE_SIGBUS`: faults raise `SIGBUS` in the faulting thread.
const UFFD_FEATURE_SIGBUS: u64 = 1 << 7;
const UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES: u64 = 1 << 1;
const UFFDIO_REGISTER_MODE_MISSING: u64 = 1;
const UFFDIO_COPY_MODE_DONTWAKE: u64 = 1;
const UFFD_EVENT_PAGEFAULT: u8 = 0x12;
/// `sizeof(struct uffd_msg)`.
const UFFD_MSG_SIZE: usize = 32;
/// Where a page-fault message keeps the faulting address (`arg.pagefault.address`).
const UFFD_MSG_ADDRESS: usize = 16;

#[repr(C)]
struct UffdioApi {
    api: u64,
    features: u64,
    ioctls: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct UffdioRange {
    start: u64,
    len: u64,
}

#[repr(C)]
struct UffdioRegister {
    range: UffdioRange,
    mode: u64,
    ioctls: u64,
}

#[repr(C)]
struct UffdioCopy {
    dst: u64,
    src: u64,
    len: u64,
    mode: u64,
    copy: i64,
}

#[repr(C)]
struct UffdioMove {
    dst: u64,
    src: u64,
    len: u64,
    mode: u64,
    moved: i64,
}

#[repr(C)]
struct UffdioZeropage {
    range: UffdioRange,
    mode: u64,
    zeropage: i64,
}

// The request numbers below encode these sizes: a struct that drifts from the
// kernel's layout would give a wrong number, so it fails to compile instead.
const _: () = {
    assert!(size_of::<UffdioApi>() == 24);
    assert!(size_of::<UffdioRange>() == 16);
    assert!(size_of::<UffdioRegister>() == 32);
    assert!(size_of::<UffdioCopy>() == 40);
    assert!(size_of::<UffdioZeropage>() == 32);
    assert!(size_of::<UffdioMove>() == 40);
};

// The requests, as linux/userfaultfd.h defines them (`_IOWR(UFFDIO, _UFFDIO_API,
// struct uffdio_api)` and so on); nix computes each number from the struct's size.
nix::ioctl_readwrite!(
    /// `UFFDIO_API`: the handshake.
    uffdio_api,
    UFFDIO,
    0x3F,
    UffdioApi
);
nix::ioctl_readwrite!(
    /// `UFFDIO_REGISTER`.
    uffdio_register,
    UFFDIO,
    0x00,
    UffdioRegister
);
nix::ioctl_read!(
    /// `UFFDIO_UNREGISTER`.
    uffdio_unregister,
    UFFDIO,
    0x01,
    UffdioRange
);
nix::ioctl_read!(
    /// `UFFDIO_WAKE`.
    uffdio_wake,
    UFFDIO,
    0x02,
    UffdioRange
);
nix::ioctl_readwrite!(
    /// `UFFDIO_COPY`.
    uffdio_copy,
    UFFDIO,
    0x03,
    UffdioCopy
);
nix::ioctl_readwrite!(
    /// `UFFDIO_ZEROPAGE`.
    uffdio_zeropage,
    UFFDIO,
    0x04,
    UffdioZeropage
);
nix::ioctl_readwrite!(
    /// `UFFDIO_MOVE` (Linux 6.8+).
    uffdio_move,
    UFFDIO,
    0x05,
    UffdioMove
);
nix::ioctl_write_int_bad!(
    /// `USERFAULTFD_IOC_NEW` on `/dev/userfaultfd`: `_IO(UFFDIO, 0x00)`, though it
    /// takes the new descriptor's flags as its (integer) argument.
    userfaultfd_ioc_new,
    nix::request_code_none!(UFFDIO, 0x00)
);

/// Opens a userfaultfd descriptor with `flags` (`O_CLOEXEC`, `O_NONBLOCK`): the
/// syscall first, then `/dev/userfaultfd`. On failure, every attempt's error.
pub(crate) fn open_fd(flags: OFlag) -> Result<(OwnedFd, &'static str), Vec<String>> {
    let mut errors = Vec::new();
    match open_by_syscall(flags) {
        Ok(fd) => return Ok((fd, "syscall")),
        Err(e) => errors.push(format!("syscall: {}", io::Error::from(e))),
    }
    match open_by_device(flags) {
        Ok(fd) => Ok((fd, "/dev/userfaultfd")),
        Err(e) => {
            errors.push(e);
            Err(errors)
        }
    }
}

/// The `userfaultfd(flags)` system call.
fn open_by_syscall(flags: OFlag) -> Result<OwnedFd, Errno> {
    // libc: nix has no wrapper for the userfaultfd system call.
    // SAFETY: the userfaultfd syscall takes flags only and returns a new descriptor.
    let fd = Errno::result(unsafe { libc::syscall(libc::SYS_userfaultfd, flags.bits()) })?;
    // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// `USERFAULTFD_IOC_NEW` on `/dev/userfaultfd` (Linux 6.1+). The error names the step.
fn open_by_device(flags: OFlag) -> Result<OwnedFd, String> {
    let dev = nix::fcntl::open(
        c"/dev/userfaultfd",
        OFlag::O_RDWR | OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .map_err(|e| format!("/dev/userfaultfd: {}", io::Error::from(e)))?;
    // SAFETY: `dev` is an open /dev/userfaultfd; the ioctl takes the flags by value.
    let fd = unsafe { userfaultfd_ioc_new(dev.as_raw_fd(), flags.bits()) }
        .map_err(|e| format!("/dev/userfaultfd ioctl: {}", io::Error::from(e)))?;
    // SAFETY: as for the syscall's descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The `UFFDIO_API` handshake on a fresh descriptor, requesting `features`; returns
/// the features the kernel reports.
pub(crate) fn handshake(fd: &OwnedFd, features: u64) -> Result<u64, Errno> {
    let mut api = UffdioApi {
        api: UFFD_API,
        features,
        ioctls: 0,
    };
    // SAFETY: `fd` is open; `api` is a valid uffdio_api the kernel reads and writes.
    unsafe { uffdio_api(fd.as_raw_fd(), &mut api) }?;
    Ok(api.features)
}

/// A userfaultfd descriptor (non-blocking, close-on-exec), after the API handshake.
#[derive(Debug)]
pub struct Userfault {
    fd: OwnedFd,
    can_move: bool,
    sigbus: bool,
}

/// Why a `UFFDIO_COPY` did not install its pages.
#[derive(Debug, PartialEq, Eq)]
pub enum CopyError {
    /// A page in the range already exists (nothing was installed from it on).
    Exists,
    /// Any other failure, with its errno.
    Os(i32),
}

impl Userfault {
    /// Opens a descriptor. `Unsupported` where the kernel (or permissions) refuse.
    /// Asks for `UFFD_FEATURE_MOVE` where the kernel has it ([`Userfault::move_pages`]).
    /// Faults on its ranges sleep in the kernel and queue events ([`Userfault::poll`],
    /// [`Userfault::read_faults`]).
    pub fn open() -> Result<Userfault, HeapError> {
        Self::open_with(false)
    }

    /// Opens a descriptor in SIGBUS mode (`UFFD_FEATURE_SIGBUS`, and `MOVE` where the
    /// kernel has it): a user-space touch of a missing page in its ranges raises
    /// `SIGBUS` in the touching thread instead of sleeping (see the module docs).
    /// `Unsupported` where the kernel lacks the feature.
    pub fn open_sigbus() -> Result<Userfault, HeapError> {
        Self::open_with(true)
    }

    fn open_with(sigbus: bool) -> Result<Userfault, HeapError> {
        let open = || {
            open_fd(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)
                .map(|(fd, _)| fd)
                .map_err(|_| HeapError::Unsupported("userfaultfd"))
        };
        let base = if sigbus { UFFD_FEATURE_SIGBUS } else { 0 };
        // The handshake can be done once per descriptor: try with MOVE, then without.
        let fd = open()?;
        if handshake(&fd, base | UFFD_FEATURE_MOVE).is_ok() {
            return Ok(Userfault {
                fd,
                can_move: true,
                sigbus,
            });
        }
        let fd = open()?;
        match handshake(&fd, base) {
            Ok(_) => Ok(Userfault {
                fd,
                can_move: false,
                sigbus,
            }),
            Err(Errno::EINVAL) if sigbus => Err(HeapError::Unsupported("UFFD_FEATURE_SIGBUS")),
            Err(e) => Err(HeapError::os("UFFDIO_API", 0, 0, e)),
        }
    }

    /// Whether faults on this descriptor's ranges raise `SIGBUS` ([`Userfault::open_sigbus`]).
    pub fn sigbus(&self) -> bool {
        self.sigbus
    }

    /// Whether [`Userfault::move_pages`] is available.
    pub fn can_move(&self) -> bool {
        self.can_move
    }

    /// The descriptor, for the ioctl wrappers.
    fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Registers `[addr, addr + len)` (page-aligned, inside one private anonymous
    /// mapping or several) in MISSING mode: from now on, touching a page with no entry
    /// blocks the toucher until someone installs it.
    pub fn register_missing(&self, addr: usize, len: usize) -> Result<(), HeapError> {
        let mut reg = UffdioRegister {
            range: UffdioRange {
                start: addr as u64,
                len: len as u64,
            },
            mode: UFFDIO_REGISTER_MODE_MISSING,
            ioctls: 0,
        };
        // SAFETY: the descriptor is open; `reg` is a valid uffdio_register. Registering
        // changes how the range faults, not its contents or mappings.
        unsafe { uffdio_register(self.raw(), &mut reg) }
            .map(drop)
            .map_err(|e| HeapError::os("UFFDIO_REGISTER", addr, len, e))
    }

    /// Unregisters a range (waking any thread still waiting in it).
    pub fn unregister(&self, addr: usize, len: usize) -> Result<(), HeapError> {
        let mut r = UffdioRange {
            start: addr as u64,
            len: len as u64,
        };
        // SAFETY: the descriptor is open; `r` is a valid uffdio_range the kernel reads.
        unsafe { uffdio_unregister(self.raw(), &mut r) }
            .map(drop)
            .map_err(|e| HeapError::os("UFFDIO_UNREGISTER", addr, len, e))
    }

    /// Wakes threads waiting on `[addr, addr + len)` (after its pages were installed
    /// by a copy that did not wake, or by somebody else).
    pub fn wake(&self, addr: usize, len: usize) -> Result<(), HeapError> {
        let mut r = UffdioRange {
            start: addr as u64,
            len: len as u64,
        };
        // SAFETY: the descriptor is open; `r` is a valid uffdio_range the kernel reads.
        unsafe { uffdio_wake(self.raw(), &mut r) }
            .map(drop)
            .map_err(|e| HeapError::os("UFFDIO_WAKE", addr, len, e))
    }

    /// Installs `len` bytes at registered address `dst` from `src` (one ioctl; the
    /// kernel allocates the pages and copies), then wakes waiters if `wake`. A copy
    /// interrupted part way resumes after what was installed; `EAGAIN` with nothing
    /// installed (the address space is changing) is returned, for the caller to retry
    /// after a back-off. Async-signal-safe: `ioctl` only, no allocation, no lock.
    ///
    /// # Safety
    /// `src .. src + len` must be readable memory; `dst` and `len` page-aligned and
    /// inside a range registered on this descriptor.
    pub unsafe fn copy(
        &self,
        dst: usize,
        src: usize,
        len: usize,
        wake: bool,
    ) -> Result<(), CopyError> {
        let mut done = 0usize;
        while done < len {
            let mut c = UffdioCopy {
                dst: (dst + done) as u64,
                src: (src + done) as u64,
                len: (len - done) as u64,
                mode: if wake { 0 } else { UFFDIO_COPY_MODE_DONTWAKE },
                copy: 0,
            };
            // SAFETY: `c` is a valid uffdio_copy; the caller guarantees the source is
            // readable and the destination registered (this fn's contract).
            match unsafe { uffdio_copy(self.raw(), &mut c) } {
                Ok(_) => return Ok(()),
                // A partial copy (interrupted): continue after what was copied.
                Err(Errno::EAGAIN) if c.copy > 0 => done += c.copy as usize,
                Err(Errno::EEXIST) => return Err(CopyError::Exists),
                Err(e) => return Err(CopyError::Os(e as i32)),
            }
        }
        Ok(())
    }

    /// Moves the pages of `[src, src + len)` (private anonymous memory of this
    /// process; holes allowed) to `dst` in a range registered on this descriptor,
    /// without copying (`UFFDIO_MOVE`; huge pages move whole where both sides are
    /// aligned). Returns the bytes moved before an error, with the error's errno
    /// (`EEXIST` where a destination page exists, `EBUSY` for a page the kernel
    /// cannot move now); `Ok` if all moved.
    ///
    /// # Safety
    /// Nothing may read or write `[src, src + len)` meanwhile, and the caller must
    /// not rely on its contents afterwards (it reads as zeros).
    pub unsafe fn move_pages(
        &self,
        dst: usize,
        src: usize,
        len: usize,
    ) -> Result<(), (usize, i32)> {
        // SAFETY: forwarded from the caller.
        unsafe { self.move_with(dst, src, len, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES) }
    }

    /// [`Userfault::move_pages`] of pages that must all be present: a hole in the
    /// source stops the move there with `ENOENT` (and the bytes moved before it),
    /// instead of leaving the destination page absent.
    ///
    /// # Safety
    /// As [`Userfault::move_pages`]'s.
    pub unsafe fn move_present_pages(
        &self,
        dst: usize,
        src: usize,
        len: usize,
    ) -> Result<(), (usize, i32)> {
        // SAFETY: forwarded from the caller.
        unsafe { self.move_with(dst, src, len, 0) }
    }

    /// After a [`Userfault::move_present_pages`] of `[src, src + len)` to `dst`
    /// that failed: how many pages from `dst` on (the first one the kernel
    /// reported not moved, and the ones after it, up to the first that is not)
    /// it moved all the same, by their state: the destination page is resident
    /// and the source page is not. Every source page was present before the
    /// move (that function's contract) and nobody else installs these
    /// destination pages (the caller's), so such a page can only have been moved
    /// by that call. 0 if the pages cannot be looked up.
    ///
    /// Why: Linux's `UFFDIO_MOVE` (`move_pages` in `mm/userfaultfd.c`, as its
    /// source reads since the batched moves of 6.18) keeps its loop's error
    /// across iterations; once one step fails with `EAGAIN` (a page-table entry
    /// that changed under it, a folio lock it could not take: transient), the
    /// next step that moves a batch of pages does not clear it, so the loop
    /// retries at the same address without counting the batch, finds the
    /// destination present, and returns `EEXIST` with a count that leaves the
    /// batch out.
    pub fn moved_unreported(&self, dst: usize, src: usize, len: usize) -> usize {
        let (Ok(there), Ok(left)) = (
            crate::sys::resident(dst, len),
            crate::sys::resident(src, len),
        ) else {
            return 0;
        };
        there
            .iter()
            .zip(&left)
            .take_while(|&(&there, &left)| there && !left)
            .count()
    }

    /// `UFFDIO_MOVE` with `mode`, resumed after `EAGAIN`.
    ///
    /// # Safety
    /// As [`Userfault::move_pages`]'s.
    unsafe fn move_with(
        &self,
        dst: usize,
        src: usize,
        len: usize,
        mode: u64,
    ) -> Result<(), (usize, i32)> {
        if !self.can_move {
            return Err((0, Errno::ENOTSUP as i32));
        }
        let mut done = 0usize;
        while done < len {
            let mut m = UffdioMove {
                dst: (dst + done) as u64,
                src: (src + done) as u64,
                len: (len - done) as u64,
                mode,
                moved: 0,
            };
            // SAFETY: `m` is a valid uffdio_move; the caller keeps everyone off the
            // source (this fn's contract), and the kernel checks the destination.
            match unsafe { uffdio_move(self.raw(), &mut m) } {
                Ok(_) => return Ok(()),
                Err(e) => {
                    if m.moved > 0 {
                        done += m.moved as usize;
                    }
                    if e != Errno::EAGAIN {
                        return Err((done, e as i32));
                    }
                }
            }
        }
        Ok(())
    }

    /// Installs zero pages over `[dst, dst + len)` and wakes waiters.
    pub fn zeropage(&self, dst: usize, len: usize) -> Result<(), CopyError> {
        let mut z = UffdioZeropage {
            range: UffdioRange {
                start: dst as u64,
                len: len as u64,
            },
            mode: 0,
            zeropage: 0,
        };
        // SAFETY: `z` is a valid uffdio_zeropage. The kernel installs zero pages only
        // where no page exists, so no byte anyone relies on changes.
        match unsafe { uffdio_zeropage(self.raw(), &mut z) } {
            Ok(_) => Ok(()),
            Err(Errno::EEXIST) => Err(CopyError::Exists),
            Err(e) => Err(CopyError::Os(e as i32)),
        }
    }

    /// Waits up to `timeout_ms` (for ever if negative) for events; whether any are ready.
    pub fn poll(&self, timeout_ms: i32) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout};
        let mut fds = [PollFd::new(self.fd.as_fd(), PollFlags::POLLIN)];
        let timeout = PollTimeout::try_from(timeout_ms).unwrap_or(PollTimeout::NONE);
        matches!(nix::poll::poll(&mut fds, timeout), Ok(n) if n > 0)
            && fds[0]
                .revents()
                .is_some_and(|r| r.contains(PollFlags::POLLIN))
    }

    /// Reads the queued page-fault events without blocking, appending each faulting
    /// address to `out`. Returns how many were read.
    pub fn read_faults(&self, out: &mut Vec<usize>) -> Result<usize, HeapError> {
        let mut msgs = [0u8; 64 * UFFD_MSG_SIZE];
        let n = match nix::unistd::read(&self.fd, &mut msgs) {
            Ok(n) => n,
            Err(Errno::EAGAIN) => return Ok(0),
            Err(e) => return Err(HeapError::os("read userfaultfd", 0, msgs.len(), e)),
        };
        let mut faults = 0;
        // The kernel writes whole messages: `event` is the first byte.
        for m in msgs[..n].chunks_exact(UFFD_MSG_SIZE) {
            if m[0] == UFFD_EVENT_PAGEFAULT {
                let at = &m[UFFD_MSG_ADDRESS..UFFD_MSG_ADDRESS + 8];
                let address = u64::from_ne_bytes(at.try_into().expect("8 bytes"));
                out.push(address as usize);
                faults += 1;
            }
        }
        Ok(faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request numbers nix computes are the ones linux/userfaultfd.h expands to
    /// (the generic `_IOC` encoding of x86_64 and arm64; glibc's `unsigned long`
    /// request type).
    #[cfg(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        target_env = "gnu"
    ))]
    #[test]
    fn request_numbers_match_the_kernel_header() {
        use nix::{request_code_none, request_code_read, request_code_readwrite};
        let rw = |nr, size| request_code_readwrite!(UFFDIO, nr, size);
        assert_eq!(rw(0x3F, size_of::<UffdioApi>()), 0xC018_AA3F);
        assert_eq!(rw(0x00, size_of::<UffdioRegister>()), 0xC020_AA00);
        let r = |nr| request_code_read!(UFFDIO, nr, size_of::<UffdioRange>());
        assert_eq!(r(0x01), 0x8010_AA01);
        assert_eq!(r(0x02), 0x8010_AA02);
        assert_eq!(rw(0x03, size_of::<UffdioCopy>()), 0xC028_AA03);
        assert_eq!(rw(0x04, size_of::<UffdioZeropage>()), 0xC020_AA04);
        assert_eq!(rw(0x05, size_of::<UffdioMove>()), 0xC028_AA05);
        assert_eq!(request_code_none!(UFFDIO, 0x00), 0xAA00);
    }

    /// Both ways of opening a descriptor give one that completes the handshake,
    /// where this host allows them (root, or the matching sysctl / device mode).
    #[test]
    fn syscall_and_device_descriptors_shake_hands() {
        let flags = OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
        let mut opened = 0;
        match open_by_syscall(flags) {
            Ok(fd) => {
                assert!(handshake(&fd, 0).is_ok());
                opened += 1;
            }
            Err(e) => eprintln!("syscall: {e}"),
        }
        match open_by_device(flags) {
            Ok(fd) => {
                assert!(handshake(&fd, 0).is_ok());
                opened += 1;
            }
            Err(e) => eprintln!("{e}"),
        }
        eprintln!("{opened} of 2 ways opened a descriptor");
    }
}
