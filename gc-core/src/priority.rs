//! The scheduling of the collector's own threads: [`GcThreadPriority`] (the
//! configuration, [`HeapConfig::gc_thread_priority`](crate::HeapConfig::gc_thread_priority)),
//! its validation, and [`collector_thread_start`], which every thread the
//! collector spawns (the GC driver, the concurrent markers, the fault server, the
//! concurrent fill workers, and the in-pause marking and filling workers) calls
//! first. It also answers, for the collector's wait loops, whether the calling
//! thread runs under a real-time policy ([`realtime`]): such a thread must sleep
//! rather than yield while it waits for a thread of normal priority, since a
//! `sched_yield` under `SCHED_FIFO` hands the CPU only to real-time threads.
//!
//! A fair-policy thread can also ask for a short time slice
//! ([`GcThreadPriority::Fair`], Linux 6.12 and later: `sched_setattr` with
//! `sched_runtime` under `SCHED_OTHER`, no privilege needed). The scheduler
//! (EEVDF) then gives it an earlier deadline: when it wakes it preempts a task
//! with a longer slice (such as a batch neighbour at nice 19), and two of our
//! threads sharing a CPU alternate in slices of that length instead of the default
//! (1.4 ms on the 2-CPU development machine), so a hand-off between them waits at
//! most about one short slice.
//!
//! Why a failure falls back instead of failing the heap: the priority is applied
//! on the thread itself when it starts, long after `Heap::new` returned (the
//! driver starts at the first collection), and an unprivileged process gets
//! `EPERM` for a real-time policy or a negative nice value. The thread then keeps
//! the scheduling it inherited (as [`GcThreadPriority::Inherit`] does) and a
//! warning says so, once per process, on stderr and through `tracing`. Values out
//! of range are refused by `Heap::new` (an `Err`), never at thread start.

use crate::error::GcError;
use std::sync::atomic::{AtomicBool, Ordering};

/// A real-time scheduling policy ([`GcThreadPriority::RealTime`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtPolicy {
    /// `SCHED_FIFO`: runs until it blocks, yields, or a higher priority preempts it.
    Fifo,
    /// `SCHED_RR`: as `SCHED_FIFO`, with a time slice among threads of the same
    /// priority.
    RoundRobin,
}

/// How the collector's own threads are scheduled
/// ([`HeapConfig::gc_thread_priority`](crate::HeapConfig::gc_thread_priority)).
///
/// Applied by each collector thread to itself when it starts (Linux: per-thread
/// `setpriority`, `sched_setscheduler`). A thread that may not take the value
/// (`EPERM`: a real-time policy or a negative nice value without
/// `CAP_SYS_NICE` or a fitting `RLIMIT_RTPRIO`/`RLIMIT_NICE`) keeps what it
/// inherited and a warning is printed once per process.
///
/// ```
/// use flipgc_core::{GcThreadPriority, RtPolicy};
/// assert_eq!(GcThreadPriority::parse("fifo:10").unwrap(),
///            GcThreadPriority::RealTime { policy: RtPolicy::Fifo, priority: 10 });
/// assert_eq!(GcThreadPriority::parse("nice:5").unwrap(), GcThreadPriority::Nice(5));
/// assert!(GcThreadPriority::parse("fifo:0").is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcThreadPriority {
    /// The default: a collector thread keeps the scheduling of the thread that
    /// spawned it (the driver, that of the mutator whose request started it; the
    /// workers, the driver's or that of the mutator running a pause).
    #[default]
    Inherit,
    /// The normal policy (`SCHED_OTHER`) at this nice value, -20 (most favoured)
    /// to 19. Values below the process's own need privilege.
    Nice(i32),
    /// The normal policy (`SCHED_OTHER`) at nice value `nice` (-20 to 19) with a
    /// time slice of `slice_us` microseconds (100 to 100,000), below the kernel's
    /// default slice (`se.slice` in `/proc/PID/sched`; 1.4 ms on a 2-CPU machine).
    /// Needs Linux 6.12 or later (EEVDF's custom slices; older kernels refuse or
    /// ignore `sched_runtime` for this policy, and the thread keeps what it
    /// inherited, with the usual warning). No privilege is needed for a nice value
    /// at or above the process's own. See the module documentation for what it buys.
    Fair {
        /// Nice value, -20 (most favoured) to 19.
        nice: i32,
        /// The time slice in microseconds, 100 to 100,000.
        slice_us: u32,
    },
    /// A real-time policy at this priority, 1 to 99. Needs privilege.
    RealTime {
        /// `SCHED_FIFO` or `SCHED_RR`.
        policy: RtPolicy,
        /// 1 (lowest) to 99 (highest); every normal thread runs below any of them.
        priority: u8,
    },
}

impl GcThreadPriority {
    /// Parses `inherit`, `nice:N` (-20 to 19), `slice:US` (a [`Fair`] slice of US
    /// microseconds at nice 0), `nice:N,slice:US`, `fifo:N` or `rr:N` (1 to 99).
    ///
    /// [`Fair`]: GcThreadPriority::Fair
    pub fn parse(s: &str) -> Result<GcThreadPriority, GcError> {
        let bad = || {
            GcError::config(format!(
                "thread priority {s:?} is not one of inherit, nice:N (N from -20 to 19), \
                 slice:US or nice:N,slice:US (US from 100 to 100000 microseconds), \
                 fifo:N or rr:N (N from 1 to 99)"
            ))
        };
        if let Some((first, second)) = s.split_once(',') {
            let (n, us) = match (first.split_once(':'), second.split_once(':')) {
                (Some(("nice", n)), Some(("slice", us)))
                | (Some(("slice", us)), Some(("nice", n))) => (n, us),
                _ => return Err(bad()),
            };
            let p = GcThreadPriority::Fair {
                nice: n.parse().map_err(|_| bad())?,
                slice_us: us.parse().map_err(|_| bad())?,
            };
            p.validate()?;
            return Ok(p);
        }
        let p = match s.split_once(':') {
            Some(("slice", us)) => GcThreadPriority::Fair {
                nice: 0,
                slice_us: us.parse().map_err(|_| bad())?,
            },
            None if s == "inherit" => GcThreadPriority::Inherit,
            Some(("nice", n)) => GcThreadPriority::Nice(n.parse().map_err(|_| bad())?),
            Some((kind @ ("fifo" | "rr"), n)) => GcThreadPriority::RealTime {
                policy: if kind == "fifo" {
                    RtPolicy::Fifo
                } else {
                    RtPolicy::RoundRobin
                },
                priority: n.parse().map_err(|_| bad())?,
            },
            _ => return Err(bad()),
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks the value is in range: an error naming it otherwise.
    pub fn validate(self) -> Result<(), GcError> {
        match self {
            GcThreadPriority::Inherit => Ok(()),
            GcThreadPriority::Nice(n) if (-20..=19).contains(&n) => Ok(()),
            GcThreadPriority::Nice(n) => Err(GcError::config(format!(
                "GC thread nice value {n} must be between -20 and 19"
            ))),
            GcThreadPriority::Fair { nice, .. } if !(-20..=19).contains(&nice) => {
                Err(GcError::config(format!(
                    "GC thread nice value {nice} must be between -20 and 19"
                )))
            }
            GcThreadPriority::Fair { slice_us, .. } if (100..=100_000).contains(&slice_us) => {
                Ok(())
            }
            GcThreadPriority::Fair { slice_us, .. } => Err(GcError::config(format!(
                "GC thread time slice {slice_us} us must be between 100 and 100000"
            ))),
            GcThreadPriority::RealTime { priority, .. } if (1..=99).contains(&priority) => Ok(()),
            GcThreadPriority::RealTime { policy, priority } => Err(GcError::config(format!(
                "GC thread real-time priority {priority} ({policy:?}) must be between 1 and 99"
            ))),
        }
    }

    /// Gives the calling thread this scheduling (nothing for `Inherit`): for an
    /// embedder's own threads, such as its mutators, which the collector waits for
    /// at every pause. The error is the system call's (`EPERM` without privilege).
    pub fn apply_to_current_thread(self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            let (policy, prio) = match self {
                GcThreadPriority::Inherit => return Ok(()),
                GcThreadPriority::Fair { nice, slice_us } => return set_fair_slice(nice, slice_us),
                GcThreadPriority::Nice(_) => (libc::SCHED_OTHER, 0),
                GcThreadPriority::RealTime { policy, priority } => (
                    match policy {
                        RtPolicy::Fifo => libc::SCHED_FIFO,
                        RtPolicy::RoundRobin => libc::SCHED_RR,
                    },
                    i32::from(priority),
                ),
            };
            let param = libc::sched_param {
                sched_priority: prio,
            };
            // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param
            // that outlives the call.
            if unsafe { libc::sched_setscheduler(0, policy, &param) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let GcThreadPriority::Nice(n) = self {
                // SAFETY: no arguments; returns the calling thread's id.
                let tid = unsafe { libc::gettid() };
                // Linux applies PRIO_PROCESS to the one thread `tid` names.
                // SAFETY: plain integer arguments.
                if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, n) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        match self {
            GcThreadPriority::Inherit => Ok(()),
            _ => Err(std::io::Error::from(std::io::ErrorKind::Unsupported)),
        }
    }
}

impl std::fmt::Display for GcThreadPriority {
    /// The form [`GcThreadPriority::parse`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GcThreadPriority::Inherit => write!(f, "inherit"),
            GcThreadPriority::Nice(n) => write!(f, "nice:{n}"),
            GcThreadPriority::Fair { nice: 0, slice_us } => write!(f, "slice:{slice_us}"),
            GcThreadPriority::Fair { nice, slice_us } => write!(f, "nice:{nice},slice:{slice_us}"),
            GcThreadPriority::RealTime { policy, priority } => match policy {
                RtPolicy::Fifo => write!(f, "fifo:{priority}"),
                RtPolicy::RoundRobin => write!(f, "rr:{priority}"),
            },
        }
    }
}

/// `sched_attr` as Linux's `sched_setattr(2)` takes it (its first version, 48
/// bytes; the kernel accepts any size it knows).
#[cfg(target_os = "linux")]
#[repr(C)]
struct SchedAttr {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

/// Puts the calling thread under `SCHED_OTHER` at `nice` with a custom slice of
/// `slice_us` microseconds (`sched_runtime`, which EEVDF reads as the slice for
/// this policy since Linux 6.12), and checks that the kernel kept it: an older
/// kernel that accepts the call but has no custom slices is reported as
/// `Unsupported`, so the caller's warning names it.
#[cfg(target_os = "linux")]
fn set_fair_slice(nice: i32, slice_us: u32) -> std::io::Result<()> {
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        policy: libc::SCHED_OTHER as u32,
        flags: 0,
        nice,
        priority: 0,
        runtime: u64::from(slice_us) * 1000,
        deadline: 0,
        period: 0,
    };
    // SAFETY: pid 0 is the calling thread; `attr` is a valid `sched_attr` whose
    // `size` field gives its length, and outlives the call.
    if unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut got = SchedAttr {
        size: 0,
        policy: 0,
        flags: 0,
        nice: 0,
        priority: 0,
        runtime: 0,
        deadline: 0,
        period: 0,
    };
    // SAFETY: pid 0 is the calling thread; `got` is writable for the size passed.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            0,
            &mut got as *mut SchedAttr,
            std::mem::size_of::<SchedAttr>() as u32,
            0,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if got.runtime != attr.runtime {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "this kernel has no custom time slices for SCHED_OTHER (Linux 6.12 or later)",
        ));
    }
    Ok(())
}

/// Whether the warning about a priority that could not be applied was printed.
/// Relaxed: it only keeps the message to one (or, racing, very few) per process.
static WARNED: AtomicBool = AtomicBool::new(false);

/// Called first by every thread the collector spawns (`kind` names it, as its
/// thread name does): applies `priority`, or on failure keeps the inherited
/// scheduling and warns once per process. Then runs the test seam, if any.
pub(crate) fn collector_thread_start(priority: GcThreadPriority, kind: &str) {
    if let Err(e) = priority.apply_to_current_thread() {
        if !WARNED.swap(true, Ordering::Relaxed) {
            let msg = format!(
                "flipgc: warning: the GC thread priority {priority} could not be applied \
                 ({kind}: {e}); the collector's threads keep the scheduling they inherit \
                 (a real-time policy or a negative nice value needs CAP_SYS_NICE or \
                 RLIMIT_RTPRIO/RLIMIT_NICE)"
            );
            tracing::warn!("{msg}");
            eprintln!("{msg}");
        }
    }
    #[cfg(feature = "test-seams")]
    crate::seams::collector_thread_started(kind);
}

/// Whether the calling thread runs under a real-time policy (`SCHED_FIFO` or
/// `SCHED_RR`, set here or inherited). A wait loop on such a thread sleeps
/// instead of yielding ([`relax`]).
pub(crate) fn realtime() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pid 0 is the calling thread; no pointers.
        let policy = unsafe { libc::sched_getscheduler(0) };
        policy == libc::SCHED_FIFO || policy == libc::SCHED_RR
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// One step of a wait loop on a collector thread, the `looks`-th: a yield, or on
/// a real-time thread ([`realtime`], read once per wait by the caller) past its
/// first 16 looks, a 50 us sleep. A real-time thread's yield gives the CPU only to
/// other real-time threads, so a thread of normal priority it waits for (a
/// mutator installing a page, or holding a reference it must drop) could not run
/// on its CPU: the sleep lets it, and bounds the spinning.
pub(crate) fn relax(realtime: bool, looks: u32) {
    if realtime && looks >= 16 {
        std::thread::sleep(std::time::Duration::from_micros(50));
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_display_round_trip() {
        for s in [
            "inherit",
            "nice:-20",
            "nice:19",
            "fifo:1",
            "rr:99",
            "slice:100",
            "nice:-3,slice:100000",
        ] {
            assert_eq!(GcThreadPriority::parse(s).unwrap().to_string(), s);
        }
        for s in [
            "",
            "nice",
            "nice:20",
            "nice:-21",
            "fifo:0",
            "rr:100",
            "fifo:x",
            "idle:1",
            "slice:99",
            "slice:100001",
            "nice:20,slice:100",
            "nice:1,fifo:2",
            "slice:x",
        ] {
            let e = GcThreadPriority::parse(s).unwrap_err().to_string();
            assert!(
                e.contains("priority") || e.contains("nice") || e.contains("slice"),
                "{s}: {e}"
            );
        }
        assert_eq!(
            GcThreadPriority::parse("slice:250,nice:2").unwrap(),
            GcThreadPriority::Fair {
                nice: 2,
                slice_us: 250
            }
        );
    }
}
