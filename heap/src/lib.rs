//! # flipgc-heap: the OS layer of flipgc
//!
//! Everything platform-specific lives here, so the layers above (`flipgc-flip`,
//! `flipgc-core`) speak only of spans, levels and capabilities:
//!
//! - [`Geometry`], [`Level`], [`Arch`]: the arch shim (page/PMD/PUD sizes for
//!   x86_64 and arm64 4K/16K/64K granules, a generic page-only fallback).
//! - [`Reservation`]: an aligned `PROT_NONE` virtual range, released on drop.
//! - [`Span`]: one committed read-write mapping inside a reservation, the unit a
//!   flip moves. It is one mapping by construction, so `mremap` can always move it.
//! - Advice on spans: THP ([`Thp`]), [`Span::populate`], [`Span::release`].
//! - [`Capabilities::probe`]: kernel release, THP mode, `MREMAP_DONTUNMAP`,
//!   userfaultfd and its features, each probed by a real call.
//! - [`Userfault`]: userfaultfd (MISSING-mode registration, batched `UFFDIO_COPY`,
//!   fault events), the kernel side of concurrent compaction.
//! - [`HeapError`]: the one error type, errno kept.
//! - [`sys`]: the memory-management system calls, through nix's typed wrappers.

mod caps;
mod error;
mod geometry;
mod reservation;
mod span;
pub mod sys;
#[cfg(target_os = "linux")]
mod uffd;

pub use caps::{Capabilities, ThpMode, Userfaultfd, UFFD_FEATURES};
pub use error::HeapError;
pub use geometry::{Arch, Geometry, Level};
pub use reservation::Reservation;
pub use span::{PopulateMethod, Span, Thp};
#[cfg(target_os = "linux")]
pub use uffd::{CopyError, Userfault};

/// Formats a byte count with a binary unit (`"4 KiB"`, `"1.5 GiB"`).
pub fn fmt_bytes(n: usize) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Parses a size such as `4096`, `64k`, `256m`, `1g`, `1.5g` or `2GiB` (binary units).
pub fn parse_size(text: &str) -> Result<usize, HeapError> {
    let bad = |why: &str| HeapError::Invalid {
        what: "size",
        detail: format!("{text:?}: {why}"),
    };
    let t = text.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(bad("not a number"));
    }
    let mult: u64 = match unit.trim() {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad("unknown unit (use k, m, g or t)")),
    };
    let whole = |bytes: Option<u64>| {
        bytes
            .filter(|b| *b > 0)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| bad("must be a whole, positive number of bytes that fits in memory"))
    };
    if !num.contains('.') {
        // Integers are exact, however large.
        let v: u64 = num.parse().map_err(|_| bad("not a number"))?;
        return whole(v.checked_mul(mult));
    }
    let v: f64 = num.parse().map_err(|_| bad("not a number"))?;
    let bytes = v * mult as f64;
    // 2^64 is the first float above every u64; fractions of a byte are refused.
    if !bytes.is_finite() || bytes.fract() != 0.0 || bytes >= 18_446_744_073_709_551_616.0 {
        return Err(bad(
            "must be a whole, positive number of bytes that fits in memory",
        ));
    }
    whole(Some(bytes as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64k").unwrap(), 64 << 10);
        assert_eq!(parse_size("256M").unwrap(), 256 << 20);
        assert_eq!(parse_size("1g").unwrap(), 1 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("9007199254740993").unwrap(), 9007199254740993);
        for bad in [
            "",
            "g",
            "0",
            "-1g",
            "1x",
            "0.3",
            "1e400g",
            "16777216t",
            "17179869184g",
            "0.0g",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(fmt_bytes(4096), "4 KiB");
        assert_eq!(fmt_bytes(3 << 29), "1.5 GiB");
        assert_eq!(fmt_bytes(100), "100 B");
    }
}
