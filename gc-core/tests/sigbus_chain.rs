//! SIGBUS mode plays well with an embedder's own `SIGBUS` handling. Its own test
//! binary, with one test: the handler dispositions are process-wide, and the
//! embedder's handler must be installed before the first heap.
//! 1. An embedder's `SA_SIGINFO` handler installed before any heap keeps getting the
//!    `SIGBUS`es that are not about a heap: a touch of a shared file mapping past the
//!    end of its file (the kernel's `BUS_ADRERR`, like a heap fault), and a `SIGBUS`
//!    the process sends itself. Meanwhile the heap's faults are served in SIGBUS
//!    mode, before and after.
//! 2. An embedder that replaces the handler after the heap was made: the next
//!    compaction notices and uses the fault server; the embedder's handler sees none
//!    of the heap's faults.
//!
//! Skipped where the host has no userfaultfd SIGBUS feature.

use flipgc_core::{FaultMode, Heap, HeapConfig, Mutator, TypeId, TypeRegistry};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// `SIGBUS`es the embedder's handler saw, and the address of the last fault.
static SEEN: AtomicUsize = AtomicUsize::new(0);
static LAST_ADDR: AtomicUsize = AtomicUsize::new(0);

/// The embedder's handler: counts, and for a fault maps a zeroed page over the
/// faulting one so that the access succeeds when it retries.
extern "C" fn embedder(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    SEEN.fetch_add(1, Ordering::SeqCst);
    // SAFETY: the kernel's siginfo.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    if code == libc::BUS_ADRERR {
        LAST_ADDR.store(addr, Ordering::SeqCst);
        let page = 4096;
        // SAFETY: replaces the faulting page of the test's own file mapping.
        unsafe {
            libc::mmap(
                (addr & !(page - 1)) as *mut libc::c_void,
                page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
        }
    }
}

fn install_embedder() {
    // SAFETY: a zeroed sigaction with an SA_SIGINFO handler of that signature.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = embedder as *const () as libc::sighandler_t;
        act.sa_flags = libc::SA_SIGINFO;
        assert_eq!(libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()), 0);
    }
}

fn build_list(m: &mut Mutator, node: TypeId, n: u64) {
    m.push(None);
    for id in 0..n {
        m.alloc_push(node, 0).unwrap(); // garbage
        m.pop();
        m.alloc_push(node, 0).unwrap();
        let new = m.pop().unwrap();
        m.write_word(new, 2, id);
        m.write_ref(new, 0, m.stack_get(0));
        m.stack_set(0, Some(new));
    }
}

fn sum(m: &Mutator) -> u64 {
    let mut cur = m.stack_get(0);
    let mut s = 0;
    while let Some(c) = cur {
        s += m.read_word(c, 2);
        cur = m.read_ref(c, 0);
    }
    s
}

/// Touches the first byte of a shared mapping of a file truncated to nothing (on a
/// thread of its own, so that a handler that never lets the access through fails
/// the test instead of hanging it); the byte read.
fn touch_past_the_end_of_a_file() -> (usize, u8) {
    let path = std::env::temp_dir().join(format!("flipgc-sigbus-{}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.set_len(8192).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: a fresh shared mapping of the file, unmapped below.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            8192,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(map, libc::MAP_FAILED);
    file.set_len(0).unwrap();
    let at = map as usize;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // SAFETY: mapped; past the file's end, so the read raises SIGBUS, and the
        // embedder's handler maps a page there.
        let b = unsafe { std::ptr::read_volatile(at as *const u8) };
        let _ = tx.send(b);
    });
    let b = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the touch never got through: the embedder's handler did not run");
    // SAFETY: the mapping made above (partly replaced by the handler's page).
    unsafe { libc::munmap(map, 8192) };
    let _ = std::fs::remove_file(&path);
    (at, b)
}

#[test]
fn an_embedders_sigbus_handler_keeps_its_own_faults() {
    if !flipgc_heap::Capabilities::probe().userfaultfd.has("SIGBUS") {
        eprintln!("skipped: no UFFD_FEATURE_SIGBUS here");
        return;
    }
    install_embedder();
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.concurrent_workers = 1;
    let heap = Heap::new(cfg, r).unwrap();
    assert_eq!(heap.fault_mode(), FaultMode::Sigbus);
    let mut m = heap.bind_mutator().unwrap();
    build_list(&mut m, node, 200_000);
    let want = sum(&m);
    m.collect();
    assert_eq!(sum(&m), want, "read while compacting in SIGBUS mode");

    // The embedder's faults still reach it, through the heap's handler.
    let (at, byte) = touch_past_the_end_of_a_file();
    assert_eq!(byte, 0);
    assert_eq!(SEEN.load(Ordering::SeqCst), 1, "the embedder saw its fault");
    assert_eq!(LAST_ADDR.load(Ordering::SeqCst), at);
    // SAFETY: raise only queues the signal for this thread.
    assert_eq!(unsafe { libc::raise(libc::SIGBUS) }, 0);
    assert_eq!(
        SEEN.load(Ordering::SeqCst),
        2,
        "the embedder saw the raised SIGBUS"
    );

    m.collect();
    assert_eq!(sum(&m), want);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    assert_eq!(log.compaction_fault_modes(), [FaultMode::Sigbus; 2]);
    assert!(!log.fault_stalls().is_empty());
    assert_eq!(
        SEEN.load(Ordering::SeqCst),
        2,
        "no heap fault reached the embedder"
    );

    // The embedder takes SIGBUS over: the next compaction uses the fault server.
    install_embedder();
    m.collect();
    assert_eq!(sum(&m), want);
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    assert_eq!(
        log.compaction_fault_modes(),
        [FaultMode::Sigbus, FaultMode::Sigbus, FaultMode::Server]
    );
    assert_eq!(
        SEEN.load(Ordering::SeqCst),
        2,
        "no heap fault reached the embedder"
    );
    m.verify().unwrap();
}
