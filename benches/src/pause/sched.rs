//! pausebench's thread scheduling (`--gc-priority`, `--mutator-priority`): the
//! check, before any run, that this process may take a priority, and running the
//! workload's job with its mutators at one ([`with_mutator_priority`]).

use flipgc_core::GcThreadPriority;

/// Parses a priority for the command line (`inherit`, `nice:N`, `slice:US`, `fifo:N`, `rr:N`).
pub fn parse_priority(s: &str) -> Result<GcThreadPriority, String> {
    GcThreadPriority::parse(s).map_err(|e| e.to_string())
}

/// Whether a thread of this process may take `p`: tried on a scratch thread, so
/// that a run asked for with a priority it would not get (no privilege) fails up
/// front, saying why, instead of measuring the inherited scheduling.
pub fn check(p: GcThreadPriority, flag: &str) -> Result<(), String> {
    std::thread::spawn(move || p.apply_to_current_thread())
        .join()
        .map_err(|_| format!("{flag} {p}: the check's thread panicked"))?
        .map_err(|e| {
            format!(
                "{flag} {p}: {e} (a real-time policy or a negative nice value needs \
                 CAP_SYS_NICE or a fitting RLIMIT_RTPRIO/RLIMIT_NICE)"
            )
        })
}

/// The calling thread's scheduling: policy, real-time priority and nice value.
#[cfg(target_os = "linux")]
fn current() -> (i32, libc::sched_param, i32) {
    let mut param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; `param` is a valid, writable sched_param.
    let policy = unsafe {
        libc::sched_getparam(0, &mut param);
        libc::sched_getscheduler(0)
    };
    // SAFETY: no arguments; returns the calling thread's id.
    let tid = unsafe { libc::gettid() };
    // SAFETY: plain integer arguments (Linux: PRIO_PROCESS with a thread id is that thread).
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t) };
    (policy, param, nice)
}

/// Runs `f` with the calling thread at `p` (nothing changes for `inherit`), and
/// puts the thread's own scheduling back after it (policy and nice value; a
/// custom time slice from `slice:US` stays, as the kernel keeps it across
/// `sched_setscheduler`: every run of one pausebench has the same priority, so
/// each run's threads get what was asked). The workload's mutators are
/// this thread and the threads it spawns, which inherit it; so does the GC driver
/// when a mutator's request spawns it, unless `--gc-priority` gives the collector
/// its own. The hiccup meter (a mutator too) sets the same on its own thread; the
/// machine meter (a plain thread) keeps the normal scheduling.
pub fn with_mutator_priority<R>(p: GcThreadPriority, f: impl FnOnce() -> R) -> Result<R, String> {
    if p == GcThreadPriority::Inherit {
        return Ok(f());
    }
    #[cfg(target_os = "linux")]
    {
        let (policy, param, nice) = current();
        p.apply_to_current_thread()
            .map_err(|e| format!("--mutator-priority {p}: {e}"))?;
        let out = f();
        // SAFETY: pid 0 is the calling thread; `param` is the valid sched_param read above.
        let restored = unsafe { libc::sched_setscheduler(0, policy, &param) } == 0 && {
            // SAFETY: no arguments; returns the calling thread's id.
            let tid = unsafe { libc::gettid() };
            // SAFETY: plain integer arguments.
            unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) == 0 }
        };
        if !restored {
            return Err(format!(
                "--mutator-priority {p}: restoring the main thread's scheduling failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(out)
    }
    #[cfg(not(target_os = "linux"))]
    Err(format!("--mutator-priority {p}: only on Linux"))
}
