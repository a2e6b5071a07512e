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

use crate::error::HeapError;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const UFFD_API: u64 = 0xAA;
const UFFDIO_API: libc::c_ulong = 0xC018_AA3F; // _IOWR(0xAA, 0x3F, struct uffdio_api)
const UFFDIO_REGISTER: libc::c_ulong = 0xC020_AA00; // _IOWR(0xAA, 0x00, struct uffdio_register)
const UFFDIO_UNREGISTER: libc::c_ulong = 0x8010_AA01; // _IOR(0xAA, 0x01, struct uffdio_range)
const UFFDIO_WAKE: libc::c_ulong = 0x8010_AA02; // _IOR(0xAA, 0x02, struct uffdio_range)
const UFFDIO_COPY: libc::c_ulong = 0xC028_AA03; // _IOWR(0xAA, 0x03, struct uffdio_copy)
const UFFDIO_ZEROPAGE: libc::c_ulong = 0xC020_AA04; // _IOWR(0xAA, 0x04, struct uffdio_zeropage)
const UFFDIO_MOVE: libc::c_ulong = 0xC028_AA05; // _IOWR(0xAA, 0x05, struct uffdio_move)
const UFFD_FEATURE_MOVE: u64 = 1 << 16;
const UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES: u64 = 1 << 1;
const UFFDIO_REGISTER_MODE_MISSING: u64 = 1;
const UFFDIO_COPY_MODE_DONTWAKE: u64 = 1;
const UFFD_EVENT_PAGEFAULT: u8 = 0x12;
const USERFAULTFD_IOC_NEW: libc::c_ulong = 0xAA00; // _IO(0xAA, 0x00)

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

/// `struct uffd_msg`: 32 bytes; for page faults, the address is at offset 16.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct UffdMsg {
    event: u8,
    _reserved: [u8; 7],
    flags: u64,
    address: u64,
    _rest: u64,
}

/// Opens a userfaultfd descriptor with `flags`: the syscall first, then
/// `/dev/userfaultfd`. On failure, every attempt's error.
pub(crate) fn open_fd(flags: i32) -> Result<(OwnedFd, &'static str), Vec<String>> {
    let mut errors = Vec::new();
    // SAFETY: the userfaultfd syscall takes flags only and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_userfaultfd, flags) };
    if fd >= 0 {
        // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
        return Ok((unsafe { OwnedFd::from_raw_fd(fd as RawFd) }, "syscall"));
    }
    errors.push(format!("syscall: {}", io::Error::last_os_error()));
    // SAFETY: the path is a NUL-terminated literal.
    let dev = unsafe { libc::open(c"/dev/userfaultfd".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if dev < 0 {
        errors.push(format!("/dev/userfaultfd: {}", io::Error::last_os_error()));
        return Err(errors);
    }
    // SAFETY: `dev` was just returned by the kernel and is owned by nobody else.
    let dev = unsafe { OwnedFd::from_raw_fd(dev) };
    // SAFETY: `dev` is an open /dev/userfaultfd; the ioctl takes the flags by value.
    let fd = unsafe { libc::ioctl(dev.as_raw_fd(), USERFAULTFD_IOC_NEW, flags) };
    if fd < 0 {
        errors.push(format!(
            "/dev/userfaultfd ioctl: {}",
            io::Error::last_os_error()
        ));
        return Err(errors);
    }
    // SAFETY: as for the syscall's descriptor.
    Ok((unsafe { OwnedFd::from_raw_fd(fd) }, "/dev/userfaultfd"))
}

/// The `UFFDIO_API` handshake on a fresh descriptor, requesting `features`; returns
/// the features the kernel reports.
pub(crate) fn handshake(fd: &OwnedFd, features: u64) -> io::Result<u64> {
    let mut api = UffdioApi {
        api: UFFD_API,
        features,
        ioctls: 0,
    };
    // SAFETY: `api` is a valid uffdio_api the kernel reads and writes.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), UFFDIO_API, &mut api as *mut UffdioApi) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(api.features)
}

/// A userfaultfd descriptor (non-blocking, close-on-exec), after the API handshake.
#[derive(Debug)]
pub struct Userfault {
    fd: OwnedFd,
    can_move: bool,
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
    pub fn open() -> Result<Userfault, HeapError> {
        let open = || {
            open_fd(libc::O_CLOEXEC | libc::O_NONBLOCK)
                .map(|(fd, _)| fd)
                .map_err(|_| HeapError::Unsupported("userfaultfd"))
        };
        // The handshake can be done once per descriptor: try with MOVE, then without.
        let fd = open()?;
        if handshake(&fd, UFFD_FEATURE_MOVE).is_ok() {
            return Ok(Userfault { fd, can_move: true });
        }
        let fd = open()?;
        handshake(&fd, 0).map_err(|e| HeapError::os("UFFDIO_API", 0, 0, e))?;
        Ok(Userfault {
            fd,
            can_move: false,
        })
    }

    /// Whether [`Userfault::move_pages`] is available.
    pub fn can_move(&self) -> bool {
        self.can_move
    }

    fn ioctl<T>(&self, req: libc::c_ulong, arg: &mut T) -> io::Result<()> {
        // SAFETY: every caller passes the request's matching `#[repr(C)]` argument
        // struct, which the kernel reads (and may write) within its size.
        let rc = unsafe { libc::ioctl(self.fd.as_raw_fd(), req, arg as *mut T) };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
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
        self.ioctl(UFFDIO_REGISTER, &mut reg)
            .map_err(|e| HeapError::os("UFFDIO_REGISTER", addr, len, e))
    }

    /// Unregisters a range (waking any thread still waiting in it).
    pub fn unregister(&self, addr: usize, len: usize) -> Result<(), HeapError> {
        let mut r = UffdioRange {
            start: addr as u64,
            len: len as u64,
        };
        self.ioctl(UFFDIO_UNREGISTER, &mut r)
            .map_err(|e| HeapError::os("UFFDIO_UNREGISTER", addr, len, e))
    }

    /// Wakes threads waiting on `[addr, addr + len)` (after its pages were installed
    /// by a copy that did not wake, or by somebody else).
    pub fn wake(&self, addr: usize, len: usize) -> Result<(), HeapError> {
        let mut r = UffdioRange {
            start: addr as u64,
            len: len as u64,
        };
        self.ioctl(UFFDIO_WAKE, &mut r)
            .map_err(|e| HeapError::os("UFFDIO_WAKE", addr, len, e))
    }

    /// Installs `len` bytes at registered address `dst` from `src` (one ioctl; the
    /// kernel allocates the pages and copies), then wakes waiters if `wake`.
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
            match self.ioctl(UFFDIO_COPY, &mut c) {
                Ok(()) => return Ok(()),
                Err(e) => match e.raw_os_error() {
                    // A partial copy (interrupted): continue after what was copied.
                    Some(libc::EAGAIN) if c.copy > 0 => done += c.copy as usize,
                    Some(libc::EAGAIN) => {}
                    Some(libc::EEXIST) => return Err(CopyError::Exists),
                    other => return Err(CopyError::Os(other.unwrap_or(0))),
                },
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
        if !self.can_move {
            return Err((0, libc::ENOTSUP));
        }
        let mut done = 0usize;
        while done < len {
            let mut m = UffdioMove {
                dst: (dst + done) as u64,
                src: (src + done) as u64,
                len: (len - done) as u64,
                mode: UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES,
                moved: 0,
            };
            match self.ioctl(UFFDIO_MOVE, &mut m) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    if m.moved > 0 {
                        done += m.moved as usize;
                    }
                    match e.raw_os_error() {
                        Some(libc::EAGAIN) => {}
                        other => return Err((done, other.unwrap_or(0))),
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
        match self.ioctl(UFFDIO_ZEROPAGE, &mut z) {
            Ok(()) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => Err(CopyError::Exists),
            Err(e) => Err(CopyError::Os(e.raw_os_error().unwrap_or(0))),
        }
    }

    /// Waits up to `timeout_ms` for events; whether any are ready.
    pub fn poll(&self, timeout_ms: i32) -> bool {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let rc = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        rc > 0 && p.revents & libc::POLLIN != 0
    }

    /// Reads the queued page-fault events without blocking, appending each faulting
    /// address to `out`. Returns how many were read.
    pub fn read_faults(&self, out: &mut Vec<usize>) -> Result<usize, HeapError> {
        let mut msgs = [UffdMsg::default(); 64];
        let size = std::mem::size_of_val(&msgs);
        // SAFETY: `msgs` is writable for `size` bytes; the kernel writes whole messages.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), msgs.as_mut_ptr().cast(), size) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) => Ok(0),
                _ => Err(HeapError::os("read userfaultfd", 0, size, e)),
            };
        }
        let count = n as usize / std::mem::size_of::<UffdMsg>();
        let mut faults = 0;
        for m in &msgs[..count] {
            if m.event == UFFD_EVENT_PAGEFAULT {
                out.push(m.address as usize);
                faults += 1;
            }
        }
        Ok(faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_and_argument_layouts_match_the_kernel() {
        assert_eq!(std::mem::size_of::<UffdMsg>(), 32);
        assert_eq!(std::mem::size_of::<UffdioApi>(), 24);
        assert_eq!(std::mem::size_of::<UffdioRegister>(), 32);
        assert_eq!(std::mem::size_of::<UffdioCopy>(), 40);
        assert_eq!(std::mem::size_of::<UffdioZeropage>(), 32);
        assert_eq!(std::mem::size_of::<UffdioMove>(), 40);
        assert_eq!(std::mem::size_of::<UffdioRange>(), 16);
    }
}
