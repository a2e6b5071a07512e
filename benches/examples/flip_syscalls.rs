//! The flip pause's system calls alone, timed: the `mremap(MAYMOVE|FIXED|DONTUNMAP)`
//! of a populated, PUD-aligned region of 4 KiB pages (the heap after its first
//! cycle) into an equal region, and the `UFFDIO_REGISTER` (MISSING mode) of the
//! emptied source, as `collect/flip.rs` does them, with the other CPU in several
//! states: never used by this process, running a thread of it, or idle after
//! running one (the thread asleep). Also the move of a registered source, without
//! and with `UFFD_FEATURE_EVENT_REMAP` (what registering before the pause would
//! cost). The TLB shootdowns the other CPU took are read from `/proc/interrupts`.
//!
//! Linux only; needs the right to open a userfaultfd (root, or
//! `vm.unprivileged_userfaultfd=1`) and N GiB of free memory (one image moves back
//! and forth).
//!
//! ```text
//! cargo run --release -p flipgc-bench --example flip_syscalls -- [GIB...] [--reps N]
//! ```

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    const GIB: usize = 1 << 30;
    const PAGE: usize = 4096;
    const UFFDIO_API: libc::c_ulong = 0xC018_AA3F;
    const UFFDIO_REGISTER: libc::c_ulong = 0xC020_AA00;
    const UFFDIO_UNREGISTER: libc::c_ulong = 0x8010_AA01;
    const UFFD_FEATURE_EVENT_REMAP: u64 = 1 << 2;
    const MODE_MISSING: u64 = 1;

    #[repr(C)]
    struct Api {
        api: u64,
        features: u64,
        ioctls: u64,
    }
    #[repr(C)]
    struct Range {
        start: u64,
        len: u64,
    }
    #[repr(C)]
    struct Register {
        range: Range,
        mode: u64,
        ioctls: u64,
    }

    /// A userfaultfd with `features`, blocking reads.
    fn uffd(features: u64) -> i32 {
        // SAFETY: a plain system call with integer flags.
        let fd = unsafe { libc::syscall(libc::SYS_userfaultfd, libc::O_CLOEXEC) } as i32;
        assert!(fd >= 0, "userfaultfd: {}", std::io::Error::last_os_error());
        let mut api = Api {
            api: 0xAA,
            features,
            ioctls: 0,
        };
        // SAFETY: `api` is a live `struct uffdio_api` for the ioctl to read and write.
        let r = unsafe { libc::ioctl(fd, UFFDIO_API, &mut api) };
        assert_eq!(r, 0, "UFFDIO_API: {}", std::io::Error::last_os_error());
        fd
    }

    fn register(fd: i32, addr: usize, len: usize) {
        let mut reg = Register {
            range: Range {
                start: addr as u64,
                len: len as u64,
            },
            mode: MODE_MISSING,
            ioctls: 0,
        };
        // SAFETY: `reg` is a live `struct uffdio_register`; the range is our mapping.
        let r = unsafe { libc::ioctl(fd, UFFDIO_REGISTER, &mut reg) };
        assert_eq!(r, 0, "UFFDIO_REGISTER: {}", std::io::Error::last_os_error());
    }

    fn unregister(fd: i32, addr: usize, len: usize) {
        let mut range = Range {
            start: addr as u64,
            len: len as u64,
        };
        // SAFETY: `range` is a live `struct uffdio_range`.
        let r = unsafe { libc::ioctl(fd, UFFDIO_UNREGISTER, &mut range) };
        assert_eq!(
            r,
            0,
            "UFFDIO_UNREGISTER: {}",
            std::io::Error::last_os_error()
        );
    }

    /// Moves `len` bytes at `from` to `to` (an existing mapping), keeping `from`.
    fn flip(from: usize, to: usize, len: usize) -> f64 {
        let t = Instant::now();
        // SAFETY: both ranges are mappings this program made and nothing else uses.
        let r = unsafe {
            libc::mremap(
                from as *mut libc::c_void,
                len,
                len,
                libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED | libc::MREMAP_DONTUNMAP,
                to as *mut libc::c_void,
            )
        };
        let us = t.elapsed().as_secs_f64() * 1e6;
        assert_eq!(
            r as usize,
            to,
            "mremap: {}",
            std::io::Error::last_os_error()
        );
        us
    }

    fn pin(cpu: usize) {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    /// TLB shootdowns CPU `cpu` has taken (the `TLB:` row of /proc/interrupts).
    fn shootdowns(cpu: usize) -> u64 {
        let s = std::fs::read_to_string("/proc/interrupts").unwrap_or_default();
        s.lines()
            .find(|l| l.trim_start().starts_with("TLB:"))
            .and_then(|l| l.split_whitespace().nth(1 + cpu))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    fn stats(v: &mut [f64]) -> String {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        format!(
            "median {:8.1} us  min {:8.1}  max {:8.1}  (n={})",
            v[v.len() / 2],
            v[0],
            v[v.len() - 1],
            v.len()
        )
    }

    /// Two N GiB read-write mappings at PUD-aligned addresses, 1 GiB of `PROT_NONE`
    /// between and around them (so they never merge), the first populated with
    /// base pages.
    struct Pair {
        a: usize,
        b: usize,
        n: usize,
    }

    impl Pair {
        fn new(n: usize) -> Pair {
            let total = 2 * n + 4 * GIB;
            // SAFETY: a fresh PROT_NONE reservation anywhere.
            let res = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    total,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            assert_ne!(res, libc::MAP_FAILED);
            let a = (res as usize + 2 * GIB - 1) & !(GIB - 1);
            let b = a + n + GIB;
            for at in [a, b] {
                // SAFETY: inside the reservation above, which this program owns.
                unsafe {
                    let p = libc::mmap(
                        at as *mut libc::c_void,
                        n,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    );
                    assert_eq!(p as usize, at);
                    libc::madvise(p, n, libc::MADV_NOHUGEPAGE);
                }
            }
            for off in (0..n).step_by(PAGE) {
                // SAFETY: `a + off` is inside the read-write mapping at `a`.
                unsafe { *((a + off) as *mut u8) = 1 };
            }
            Pair { a, b, n }
        }

        /// A flip there and back; returns the two times.
        fn round(&self) -> [f64; 2] {
            [flip(self.a, self.b, self.n), flip(self.b, self.a, self.n)]
        }
    }

    /// What runs on CPU 1 during a case.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Other {
        /// No thread of this process ever ran there.
        Never,
        /// A thread of this process spins there.
        Spinning,
        /// A thread of this process ran there and now sleeps (a parked worker).
        Asleep,
    }

    struct OtherCpu {
        stop: Arc<AtomicBool>,
        thread: Option<std::thread::JoinHandle<()>>,
    }

    impl OtherCpu {
        fn start(kind: Other) -> OtherCpu {
            let stop = Arc::new(AtomicBool::new(false));
            let thread = (kind != Other::Never).then(|| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    pin(1);
                    // Relaxed: only a flag to poll; nothing is published through it.
                    while !stop.load(Ordering::Relaxed) {
                        if kind == Other::Asleep {
                            std::thread::sleep(std::time::Duration::from_millis(50));
                        } else {
                            std::hint::spin_loop();
                        }
                    }
                })
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            OtherCpu { stop, thread }
        }
    }

    impl Drop for OtherCpu {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            if let Some(t) = self.thread.take() {
                t.join().unwrap();
            }
        }
    }

    pub fn main() {
        let mut sizes = Vec::new();
        let mut reps = 20;
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            if a == "--reps" {
                reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N");
            } else {
                sizes.push(a.parse::<usize>().expect("a size in GiB"));
            }
        }
        if sizes.is_empty() {
            sizes = vec![1, 4];
        }
        pin(0);
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!("load average: {}", load.trim());
        for n in sizes {
            let pair = Pair::new(n * GIB);
            pair.round(); // warm: page tables of both sides exist
            for kind in [Other::Never, Other::Spinning, Other::Asleep] {
                let other = OtherCpu::start(kind);
                let (mut moves, mut regs, mut unregs) = (Vec::new(), Vec::new(), Vec::new());
                let fd = uffd(0);
                let ipis = shootdowns(1);
                for _ in 0..reps {
                    let [x, y] = pair.round();
                    moves.push(x);
                    moves.push(y);
                    // The emptied source (`b` after the move back), as the pause does.
                    let t = Instant::now();
                    register(fd, pair.b, pair.n);
                    regs.push(t.elapsed().as_secs_f64() * 1e6);
                    let t = Instant::now();
                    unregister(fd, pair.b, pair.n);
                    unregs.push(t.elapsed().as_secs_f64() * 1e6);
                }
                let ipis = shootdowns(1) - ipis;
                // SAFETY: our descriptor, closed once.
                unsafe { libc::close(fd) };
                drop(other);
                println!(
                    "{n} GiB, other CPU {kind:?}: CPU 1 took {ipis} TLB shootdowns in {} flips",
                    2 * reps
                );
                println!("  mremap DONTUNMAP  {}", stats(&mut moves));
                println!("  UFFDIO_REGISTER   {}", stats(&mut regs));
                println!("  UFFDIO_UNREGISTER {}", stats(&mut unregs));
            }
            // The source registered before the move: MISSING only (PTE-level moves
            // since Linux 6.13), then with EVENT_REMAP and a reader taking the
            // events on CPU 1.
            for remap in [false, true] {
                let few = if remap { reps } else { reps.min(5) };
                let features = if remap { UFFD_FEATURE_EVENT_REMAP } else { 0 };
                let fd = uffd(features);
                let done = Arc::new(AtomicBool::new(false));
                let reader = remap.then(|| {
                    let done = Arc::clone(&done);
                    std::thread::spawn(move || {
                        pin(1);
                        let mut msg = [0u8; 32];
                        // Relaxed: the flag only ends the loop.
                        while !done.load(Ordering::Relaxed) {
                            // SAFETY: reads one 32-byte uffd_msg into `msg`.
                            unsafe { libc::read(fd, msg.as_mut_ptr().cast(), 32) };
                        }
                    })
                });
                let mut moves = Vec::new();
                for _ in 0..few {
                    register(fd, pair.a, pair.n);
                    moves.push(flip(pair.a, pair.b, pair.n));
                    // Back unregistered (with EVENT_REMAP the destination `b` was
                    // registered by the move: drop both).
                    unregister(fd, pair.a, pair.n);
                    unregister(fd, pair.b, pair.n);
                    flip(pair.b, pair.a, pair.n);
                }
                // The reader is left blocked in its read (the process ends soon).
                let _ = (reader, done);
                let what = if remap {
                    "registered with EVENT_REMAP, reader on CPU 1"
                } else {
                    // SAFETY: our descriptor, closed once (no reader uses it).
                    unsafe { libc::close(fd) };
                    "registered (MISSING only)"
                };
                println!("{n} GiB, source {what}");
                println!("  mremap DONTUNMAP  {}", stats(&mut moves));
            }
        }
    }
}

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    eprintln!("flip_syscalls: Linux only");
}
