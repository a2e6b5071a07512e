//! Helpers shared by the heap integration tests: a deterministic PRNG, a
//! `/proc/self/maps` / `/proc/self/smaps` reader and a lock that serialises the
//! tests of one binary that look at the address space.
#![allow(dead_code)] // each test binary uses a different subset

use std::sync::{Mutex, MutexGuard};

pub const K: usize = 1024;
pub const M: usize = 1024 * K;
pub const G: usize = 1024 * M;

/// Serialises the tests of one test binary. Tests that assert a range is *absent*
/// from `/proc/self/maps` need it: a concurrent test's `mmap` could otherwise land
/// in the freshly freed range.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The host page size.
pub fn page() -> usize {
    flipgc_heap::sys::page_size()
}

/// splitmix64: a tiny, deterministic PRNG for fill patterns.
#[derive(Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Fills `bytes` (a multiple of 8 long) with native-endian words from splitmix64(`seed`).
pub fn fill_words(bytes: &mut [u8], seed: u64) {
    assert_eq!(bytes.len() % 8, 0);
    let mut rng = SplitMix64(seed);
    for chunk in bytes.chunks_exact_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_ne_bytes());
    }
}

/// Checks every word of `bytes` against splitmix64(`seed`); panics at the first mismatch.
pub fn check_words(bytes: &[u8], seed: u64, what: &str) {
    assert_eq!(bytes.len() % 8, 0);
    let mut rng = SplitMix64(seed);
    for (i, chunk) in bytes.chunks_exact(8).enumerate() {
        let want = rng.next_u64();
        let got = u64::from_ne_bytes(chunk.try_into().unwrap());
        assert_eq!(
            got,
            want,
            "{what}: word {i} (byte offset {:#x}) differs",
            i * 8
        );
    }
}

/// Panics unless every byte of `bytes` is zero, naming the first non-zero offset.
pub fn assert_zeros(bytes: &[u8], what: &str) {
    if let Some(i) = bytes.iter().position(|&b| b != 0) {
        panic!(
            "{what}: byte at offset {i:#x} is {:#x}, expected all zeros",
            bytes[i]
        );
    }
}

/// One line of `/proc/self/maps` (plus its `VmFlags` when read from `smaps`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub start: usize,
    pub end: usize,
    pub perms: String,
    pub vm_flags: Vec<String>,
}

fn parse_header(line: &str) -> Option<Mapping> {
    let mut it = line.split_whitespace();
    let range = it.next()?;
    let perms = it.next()?;
    let (s, e) = range.split_once('-')?;
    let start = usize::from_str_radix(s, 16).ok()?;
    let end = usize::from_str_radix(e, 16).ok()?;
    if perms.len() != 4 {
        return None;
    }
    Some(Mapping {
        start,
        end,
        perms: perms.to_string(),
        vm_flags: Vec::new(),
    })
}

/// Every mapping of this process, from `/proc/self/maps`, in address order.
pub fn read_maps() -> Vec<Mapping> {
    let text = std::fs::read_to_string("/proc/self/maps").expect("read /proc/self/maps");
    text.lines()
        .map(|l| parse_header(l).unwrap_or_else(|| panic!("unparsable maps line {l:?}")))
        .collect()
}

/// Every mapping of this process with its `VmFlags`, from `/proc/self/smaps`.
pub fn read_smaps() -> Vec<Mapping> {
    let text = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
    let mut out: Vec<Mapping> = Vec::new();
    for line in text.lines() {
        if let Some(flags) = line.strip_prefix("VmFlags:") {
            let last = out.last_mut().expect("VmFlags before any mapping");
            last.vm_flags = flags.split_whitespace().map(str::to_string).collect();
        } else if let Some(m) = parse_header(line) {
            out.push(m);
        }
    }
    out
}

/// The `(start, end, perms)` mappings that overlap `[start, end)`, in address order.
pub fn maps_overlapping(start: usize, end: usize) -> Vec<Mapping> {
    read_maps()
        .into_iter()
        .filter(|m| m.start < end && start < m.end)
        .collect()
}

/// Panics unless `[start, end)` is entirely covered, without holes, by mappings that
/// all have permissions `perms`. Returns those mappings.
pub fn assert_covered(start: usize, end: usize, perms: &str) -> Vec<Mapping> {
    let maps = maps_overlapping(start, end);
    let mut at = start;
    for m in &maps {
        assert!(
            m.start <= at,
            "hole at {at:#x} in {start:#x}..{end:#x}: {maps:#x?}"
        );
        assert_eq!(
            m.perms, perms,
            "{start:#x}..{end:#x}: mapping {m:#x?} has the wrong permissions"
        );
        at = m.end;
    }
    assert!(
        at >= end,
        "{start:#x}..{end:#x} covered only up to {at:#x}: {maps:#x?}"
    );
    maps
}

/// Panics unless nothing is mapped in `[start, end)`.
pub fn assert_unmapped(start: usize, end: usize) {
    let maps = maps_overlapping(start, end);
    assert!(
        maps.is_empty(),
        "{start:#x}..{end:#x} should be unmapped, found {maps:#x?}"
    );
}

/// Panics unless a single mapping entry (from `smaps`) contains all of `[start, end)`
/// with permissions `perms`. The entry may extend beyond the range (the kernel merges
/// neighbours with identical flags). Returns it, with its `VmFlags`.
pub fn assert_one_mapping(start: usize, end: usize, perms: &str) -> Mapping {
    let maps: Vec<Mapping> = read_smaps()
        .into_iter()
        .filter(|m| m.start < end && start < m.end)
        .collect();
    assert_eq!(
        maps.len(),
        1,
        "{start:#x}..{end:#x} should be one mapping, found {maps:#x?}"
    );
    let m = maps.into_iter().next().unwrap();
    assert!(
        m.start <= start && end <= m.end,
        "mapping {m:#x?} does not contain {start:#x}..{end:#x}"
    );
    assert_eq!(m.perms, perms, "mapping {m:#x?}");
    m
}

/// The `VmFlags` THP marker a span with advice `thp` must carry: `hg`
/// (`VM_HUGEPAGE`), `nh` (`VM_NOHUGEPAGE`) or neither.
pub fn assert_thp_flags(m: &Mapping, thp: flipgc_heap::Thp) {
    let hg = m.vm_flags.iter().any(|f| f == "hg");
    let nh = m.vm_flags.iter().any(|f| f == "nh");
    let want = match thp {
        flipgc_heap::Thp::Default => (false, false),
        flipgc_heap::Thp::Huge => (true, false),
        flipgc_heap::Thp::NoHuge => (false, true),
    };
    assert_eq!(
        (hg, nh),
        want,
        "VmFlags of {:#x}..{:#x} {:?} do not match {thp:?}",
        m.start,
        m.end,
        m.vm_flags
    );
}
