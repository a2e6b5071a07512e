//! Readings from `/proc` that flipbench prints next to its figures: memory
//! available before a run (to refuse runs that cannot fit) and anonymous huge
//! pages in use (to show what a `thp` run really got).

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
        assert_eq!(kb_field("Mem: x kB", "Mem"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_is_readable() {
        assert!(mem_available().is_some_and(|b| b > 0));
        assert!(anon_huge_pages().is_some());
    }
}
