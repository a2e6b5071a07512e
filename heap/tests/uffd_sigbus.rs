//! userfaultfd in SIGBUS mode ([`Userfault::open_sigbus`]): a touch of a registered,
//! empty page raises `SIGBUS` in the touching thread (no event is queued), whose
//! handler installs the page with `UFFDIO_COPY` and returns, so the touch retries and
//! reads the page; a system call reading the range fails with `EFAULT` instead. Its
//! own test binary: it installs a process-wide `SIGBUS` handler.

#![cfg(target_os = "linux")]

use flipgc_heap::{Capabilities, Reservation, Userfault};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

static UFFD: OnceLock<Userfault> = OnceLock::new();
/// The page the handler copies in (its address), and how often it ran.
static SOURCE: AtomicUsize = AtomicUsize::new(0);
static HANDLED: AtomicUsize = AtomicUsize::new(0);

extern "C" fn handler(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    let page = 4096.max(Capabilities::probe().geometry.page);
    // SAFETY: the kernel's siginfo for a fault-generated SIGBUS.
    let addr = unsafe { (*info).si_addr() } as usize & !(page - 1);
    let u = UFFD.get().expect("set before the touch");
    // SAFETY: SOURCE is a readable page; `addr` is a registered page of the span.
    unsafe { u.copy(addr, SOURCE.load(Ordering::Relaxed), page, false) }.unwrap();
    HANDLED.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn a_touch_raises_sigbus_and_the_handler_installs_the_page() {
    let caps = Capabilities::probe();
    if !caps.userfaultfd.has("SIGBUS") {
        eprintln!("skipped: no UFFD_FEATURE_SIGBUS on this host");
        return;
    }
    let page = caps.geometry.page;
    let u = Userfault::open_sigbus().expect("the probe found the feature");
    assert!(u.sigbus());
    let r = Reservation::new(4 * page, page).unwrap();
    let span = r.commit(0, 4 * page).unwrap();
    let base = span.addr();
    u.register_missing(base, 4 * page).unwrap();
    UFFD.set(u).unwrap();
    let src = vec![0x7fu8; page];
    SOURCE.store(src.as_ptr() as usize, Ordering::Relaxed);
    // SAFETY: a zeroed sigaction with an SA_SIGINFO handler of the right signature.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = handler as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_SIGINFO;
        assert_eq!(libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()), 0);
    }

    // A user-space touch: SIGBUS, the handler installs the page, the load retries.
    // SAFETY: the page is mapped read-write (registered, empty).
    let v = unsafe { AtomicU64::from_ptr((base + page + 8) as *mut u64) }.load(Ordering::Relaxed);
    assert_eq!(v, 0x7f7f_7f7f_7f7f_7f7f);
    assert_eq!(HANDLED.load(Ordering::Relaxed), 1);
    let u = UFFD.get().unwrap();
    let mut events = Vec::new();
    assert_eq!(u.read_faults(&mut events).unwrap(), 0, "no event is queued");

    // A kernel-mode access (write(2) from an empty registered page): EFAULT, no
    // signal.
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the source is mapped (registered, empty); the kernel reports the fault.
    let n = unsafe { libc::write(fds[1], (base + 2 * page) as *const libc::c_void, 64) };
    let errno = std::io::Error::last_os_error().raw_os_error();
    assert_eq!((n, errno), (-1, Some(libc::EFAULT)));
    assert_eq!(
        HANDLED.load(Ordering::Relaxed),
        1,
        "no SIGBUS for a system call"
    );
    // SAFETY: both descriptors were just opened here.
    unsafe {
        libc::close(fds[0]);
        libc::close(fds[1]);
    }
    u.unregister(base, 4 * page).unwrap();
    assert_eq!(span.as_slice()[3 * page], 0, "unregistered: a normal fault");
    drop(src);
}
