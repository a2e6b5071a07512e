//! Readings from `/proc` that the benchmarks print next to their figures: memory
//! available before a run (to refuse runs that cannot fit), anonymous huge pages in
//! use (to show what a `thp` run really got), and the CPU time the hypervisor took
//! from this machine (steal).

/// The value of a `Name:   123 kB` line of a `/proc` file, in bytes.
pub fn kb_field(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?.strip_prefix(':')?;
        let kb: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
        kb.checked_mul(1024)
    })
}

/// `MemAvailable` from `/proc/meminfo`, in bytes, if readable.
pub fn mem_available() -> Option<u64> {
    kb_field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable",
    )
}

/// This process's `AnonHugePages` from `/proc/self/smaps_rollup`, in bytes, if readable.
pub fn anon_huge_pages() -> Option<u64> {
    kb_field(
        &std::fs::read_to_string("/proc/self/smaps_rollup").ok()?,
        "AnonHugePages",
    )
}

/// CPU time stolen from this machine so far, every CPU added up (the `steal` column
/// of `/proc/stat`'s `cpu` line: time a virtual CPU was ready but the hypervisor ran
/// something else), in ns, if readable. Zero on bare metal.
pub fn steal_ns() -> Option<u64> {
    steal_in(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The steal time in a `/proc/stat` text (ns; the file counts in `USER_HZ` ticks,
/// 100 per second on Linux).
fn steal_in(stat: &str) -> Option<u64> {
    // cpu user nice system idle iowait irq softirq steal ...
    cpu_ticks(stat, &[8])
}

/// CPU time the machine spent running anything so far, every CPU added up (user,
/// nice, system, irq and softirq time of `/proc/stat`'s `cpu` line), in ns, if
/// readable. Counted by the kernel a tick (10 ms) at a time, so only sums over
/// seconds mean much.
pub fn busy_ns() -> Option<u64> {
    busy_in(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The busy time in a `/proc/stat` text (ns).
fn busy_in(stat: &str) -> Option<u64> {
    cpu_ticks(stat, &[1, 2, 3, 6, 7])
}

/// The sum of the `cpu` line's columns `cols` (1 is `user`), in ns.
fn cpu_ticks(stat: &str, cols: &[usize]) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mut ticks = 0u64;
    for &c in cols {
        ticks = ticks.checked_add(fields.get(c)?.parse().ok()?)?;
    }
    ticks.checked_mul(10_000_000)
}

/// CPU time this process has used so far (user and system, every thread), in ns.
pub fn own_cpu_ns() -> Option<u64> {
    // SAFETY: `usage` is written by the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Some((us(usage.ru_utime) + us(usage.ru_stime)) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse() {
        let text =
            "MemTotal:       24576000 kB\nMemAvailable:    2048 kB\nAnonHugePages:         0 kB\n";
        assert_eq!(kb_field(text, "MemAvailable"), Some(2048 * 1024));
        assert_eq!(kb_field(text, "AnonHugePages"), Some(0));
        assert_eq!(kb_field(text, "MemFree"), None);
        let stat =
            "cpu  2312123 0 575320 1202468 8065 0 2820 33575 0 0\ncpu0 1 0 0 0 0 0 0 7 0 0\n";
        assert_eq!(steal_in(stat), Some(33575 * 10_000_000));
        assert_eq!(steal_in("cpu0 1 2 3\n"), None);
        // user 1 + nice 2 + system 3 + irq 6 + softirq 7 ticks; idle, iowait and
        // steal do not count.
        assert_eq!(busy_in("cpu  1 2 3 4 5 6 7 8 0 0\n"), Some(19 * 10_000_000));
        assert!(own_cpu_ns().is_some());
        assert_eq!(kb_field("Mem: x kB", "Mem"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_is_readable() {
        assert!(mem_available().is_some_and(|b| b > 0));
        assert!(anon_huge_pages().is_some());
    }
}
