//! Byte-exact flip round trips: every strategy (mremap with DONTUNMAP, copy; the
//! plain mremap is in `unmapping.rs`), every level (placement), 4 KiB and THP backing, sizes from
//! 8 KiB to 2 GiB. Pages ping-pong between a source and per-level destinations so
//! each size is populated once.

mod common;

use common::*;
use flipgc_flip::{FlipConfig, Flipper, SourceState, Strategy, StrategyChoice};
use flipgc_heap::{Level, Thp};

fn flipper(strategy: StrategyChoice) -> Flipper {
    Flipper::new(FlipConfig {
        strategy,
        ..FlipConfig::default()
    })
    .unwrap()
}

fn mremap_matrix(len: usize, thp: Thp) {
    common::mremap_matrix(len, thp, &|f, src, dst| f.flip(src, dst).unwrap());
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
            let f = flipper(StrategyChoice::Mremap);
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
    let r = flipper(StrategyChoice::Copy)
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
