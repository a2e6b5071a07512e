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
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    // cpu user nice system idle iowait irq softirq steal ...
    let ticks: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
    ticks.checked_mul(10_000_000)
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
        assert_eq!(kb_field("Mem: x kB", "Mem"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_is_readable() {
        assert!(mem_available().is_some_and(|b| b > 0));
        assert!(anon_huge_pages().is_some());
    }
}
