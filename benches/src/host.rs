//! Readings from `/proc` that the benchmarks print next to their figures: memory
//! available before a run (to refuse runs that cannot fit), anonymous huge pages in
//! use (to show what a `thp` run really got), and the CPU time the hypervisor took
//! from this machine (steal); and a wait for the guest to finish reporting freed
//! memory to the host, so that one run does not pay for the one before it.

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

/// The machine's CPU time so far, every CPU added up, from `/proc/stat`'s `cpu`
/// line (counted by the kernel a `USER_HZ` tick, 10 ms, at a time: only sums over
/// seconds mean much).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MachineCpu {
    /// Time a virtual CPU was ready but the hypervisor ran something else (the
    /// `steal` column), ns. Zero on bare metal.
    pub steal_ns: u64,
    /// Time spent running anything (user, nice, system, irq and softirq), ns.
    pub busy_ns: u64,
}

impl MachineCpu {
    /// The counters now, if readable.
    pub fn read() -> Option<MachineCpu> {
        MachineCpu::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// The counters in a `/proc/stat` text.
    fn parse(stat: &str) -> Option<MachineCpu> {
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        // cpu user nice system idle iowait irq softirq steal ...
        let fields: Vec<&str> = line.split_whitespace().collect();
        let ns = |cols: &[usize]| -> Option<u64> {
            let mut ticks = 0u64;
            for &c in cols {
                ticks = ticks.checked_add(fields.get(c)?.parse().ok()?)?;
            }
            ticks.checked_mul(10_000_000)
        };
        Some(MachineCpu {
            steal_ns: ns(&[8])?,
            busy_ns: ns(&[1, 2, 3, 6, 7])?,
        })
    }
}

/// Where the guest counts the memory it has reported free to the host (virtio
/// free page reporting), in KiB.
const REPORTED_KIB: &str = "/sys/module/page_reporting/parameters/reported_kib";

/// How long [`settle_page_reporting`] wants the count unchanged: longer than the
/// kernel's 2 s delay between a free and its report, so a report still due shows.
const SETTLED_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// Waits, at most `cap`, until the guest has stopped reporting freed memory to the
/// host: until `/sys/module/page_reporting/parameters/reported_kib` has stayed the
/// same for 3 s. A heap just dropped is reported a couple of seconds later, and
/// the host's work on it, and on faulting it back in, shows up as steal in
/// whatever runs then (docs/pausebench.md). Returns the time waited; zero where the count is unreadable
/// (no free page reporting: nothing to wait for).
pub fn settle_page_reporting(cap: std::time::Duration) -> std::time::Duration {
    use std::time::{Duration, Instant};
    let read = || std::fs::read_to_string(REPORTED_KIB).ok();
    let started = Instant::now();
    let Some(mut last) = read() else {
        return Duration::ZERO;
    };
    let mut unchanged_since = started;
    while started.elapsed() < cap && unchanged_since.elapsed() < SETTLED_AFTER {
        std::thread::sleep(Duration::from_millis(250));
        let now = read();
        if now.as_ref() != Some(&last) {
            last = now.unwrap_or_default();
            unchanged_since = Instant::now();
        }
    }
    started.elapsed()
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
        assert_eq!(
            MachineCpu::parse(stat).map(|c| c.steal_ns),
            Some(33575 * 10_000_000)
        );
        assert_eq!(MachineCpu::parse("cpu0 1 2 3\n"), None);
        // user 1 + nice 2 + system 3 + irq 6 + softirq 7 ticks; idle, iowait and
        // steal do not count.
        assert_eq!(
            MachineCpu::parse("cpu  1 2 3 4 5 6 7 8 0 0\n").map(|c| c.busy_ns),
            Some(19 * 10_000_000)
        );
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
