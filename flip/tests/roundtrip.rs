//! Byte-exact flip round trips: every strategy (mremap with and without
//! DONTUNMAP, copy), every level (placement), 4 KiB and THP backing, sizes from
//! 8 KiB to 2 GiB. Pages ping-pong between a source and per-level destinations so
//! each size is populated once.

mod common;

use common::*;
use flipgc_flip::{FlipConfig, Flipper, SourceState, Strategy, StrategyChoice};
use flipgc_heap::{Level, Thp};

fn flipper(strategy: StrategyChoice, dontunmap: bool) -> Flipper {
    Flipper::new(FlipConfig {
        strategy,
        dontunmap,
        ..FlipConfig::default()
    })
    .unwrap()
}

/// The level the plan must reach for `len` bytes at a placement for `want`.
fn expected_level(len: usize, want: Level) -> Level {
    match want {
        Level::Pud if len >= PUD => Level::Pud,
        Level::Pud | Level::Pmd if len >= PMD => Level::Pmd,
        _ => Level::Pte,
    }
}

/// For one size and backing: flip the source to a destination at each level,
/// with and without DONTUNMAP, check every byte and the source's state, flip back.
fn mremap_matrix(len: usize, thp: Thp) {
    if !x86_geometry() {
        eprintln!("skipping level assertions: not an x86_64 4K-page host");
        return;
    }
    let seed = len as u64 ^ thp as u64;
    let mut src = source(len, thp, seed);
    for level in [Level::Pud, Level::Pmd, Level::Pte] {
        let mut dst = span_at(len, dst_offset(level));
        for dontunmap in [true, false] {
            let f = flipper(StrategyChoice::Mremap, dontunmap);
            let ctx = format!("{len} bytes, {thp:?}, {level}, dontunmap {dontunmap}");
            let r = f.flip(&mut src, &mut dst).unwrap();
            assert_eq!(r.strategy, Strategy::Mremap { dontunmap }, "{ctx}");
            assert_eq!(r.fallback_reason, None, "{ctx}");
            assert_eq!(r.bytes, len);
            assert_eq!(r.level(), Some(expected_level(len, level)), "{ctx}");
            assert_eq!(r.parts.iter().map(|p| p.bytes).sum::<usize>(), len, "{ctx}");
            let expect_src = if dontunmap {
                SourceState::KeptEmpty
            } else {
                SourceState::Remapped
            };
            assert_eq!(r.source, expect_src, "{ctx}");
            check(&dst, seed).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            check_zero(&src).unwrap_or_else(|e| panic!("{ctx}: source after move: {e}"));
            // The source is still a usable mapping: write to it, then clear it again.
            src.as_mut_slice()[len - 1] = 0xee;
            assert_eq!(src.as_slice()[len - 1], 0xee, "{ctx}");
            src.release(len - PAGE, PAGE).unwrap();
            // And back: the pattern must survive the return trip too.
            let back = f.flip(&mut dst, &mut src).unwrap();
            assert_eq!(back.level(), r.level(), "{ctx}: return trip");
            check(&src, seed).unwrap_or_else(|e| panic!("{ctx}: return trip: {e}"));
        }
    }
}

#[test]
fn mremap_8k() {
    mremap_matrix(8 << 10, Thp::NoHuge);
}

#[test]
fn mremap_odd_sizes_4k() {
    for len in [12 << 10, PMD - PAGE, PMD + PAGE, 6 * PMD + 3 * PAGE] {
        mremap_matrix(len, Thp::NoHuge);
    }
}

#[test]
fn mremap_64m_4k_and_thp() {
    mremap_matrix(64 << 20, Thp::NoHuge);
    mremap_matrix(64 << 20, Thp::Huge);
}

#[test]
fn mremap_1g_4k() {
    mremap_matrix(PUD, Thp::NoHuge);
}

#[test]
fn mremap_1g_thp() {
    mremap_matrix(PUD, Thp::Huge);
}

#[test]
fn mremap_2g_thp_and_4k() {
    if !x86_geometry() {
        return;
    }
    // Two PUDs, both backings, PUD and PMD levels (PTE at 2 GiB is covered at 1 GiB).
    for thp in [Thp::Huge, Thp::NoHuge] {
        let len = 2 * PUD;
        let seed = 0x2222 ^ thp as u64;
        let mut src = source(len, thp, seed);
        for level in [Level::Pud, Level::Pmd] {
            let mut dst = span_at(len, dst_offset(level));
            let f = flipper(StrategyChoice::Mremap, true);
            let r = f.flip(&mut src, &mut dst).unwrap();
            assert_eq!(r.level(), Some(level), "{thp:?}");
            assert_eq!(r.source, SourceState::KeptEmpty);
            check(&dst, seed).unwrap();
            check_zero(&src).unwrap();
            f.flip(&mut dst, &mut src).unwrap();
            check(&src, seed).unwrap();
        }
    }
}

/// Copy leaves the source intact and the destination byte-identical, at every size.
#[test]
fn copy_round_trips() {
    for (len, thp) in [
        (8 << 10, Thp::NoHuge),
        (PMD + PAGE, Thp::NoHuge),
        (64 << 20, Thp::Huge),
        (300 << 20, Thp::NoHuge), // above the parallel threshold: several threads
    ] {
        let seed = 0xc0c0 ^ len as u64;
        let mut src = source(len, thp, seed);
        let mut dst = span_at(len, PAGE);
        let f = Flipper::new(FlipConfig {
            strategy: StrategyChoice::Copy,
            copy_threads: 3,
            ..FlipConfig::default()
        })
        .unwrap();
        let r = f.flip(&mut src, &mut dst).unwrap();
        let Strategy::Copy { threads } = r.strategy else {
            panic!("{r}")
        };
        assert_eq!(
            threads > 1,
            len >= flipgc_flip::PARALLEL_THRESHOLD,
            "{len}: {threads} threads"
        );
        assert_eq!(
            (r.level(), r.level_name(), r.source),
            (None, "copy", SourceState::Intact)
        );
        assert!(r.parts.is_empty() && r.fallback_reason.is_none());
        check(&dst, seed).unwrap();
        check(&src, seed).unwrap();
    }
}

#[test]
fn copy_round_trip_2g() {
    let len = 2 * PUD;
    let mut src = source(len, Thp::Huge, 0x2c);
    let mut dst = span_at(len, 0);
    let r = flipper(StrategyChoice::Copy, true)
        .flip(&mut src, &mut dst)
        .unwrap();
    assert_eq!(r.level_name(), "copy");
    check(&dst, 0x2c).unwrap();
}

#[test]
fn auto_uses_mremap_with_dontunmap_here() {
    let caps = flipgc_heap::Capabilities::probe();
    let len = 4 * PMD;
    let mut src = source(len, Thp::Default, 7);
    let mut dst = span_at(len, 0);
    let r = Flipper::new(FlipConfig::default())
        .unwrap()
        .flip(&mut src, &mut dst)
        .unwrap();
    let expect = if caps.mremap {
        Strategy::Mremap {
            dontunmap: caps.mremap_dontunmap,
        }
    } else {
        Strategy::Copy { threads: 1 }
    };
    assert_eq!(r.strategy, expect, "{caps}");
    check(&dst, 7).unwrap();
}
