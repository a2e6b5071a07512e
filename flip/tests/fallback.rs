//! The fallback path: an `mremap` failure, injected or real, ends in a copy with
//! the same bytes, and the report says so and why. Also the engine's refusals.

mod common;

use common::*;
use flipgc_flip::{FlipConfig, FlipError, Flipper, SourceState, Strategy, StrategyChoice};
use flipgc_heap::sys::Errno;
use flipgc_heap::{Level, Thp};

#[test]
fn injected_mremap_failure_falls_back_to_copy() {
    for (len, level) in [
        (64 << 20, Level::Pmd),
        (PUD, Level::Pud),
        (3 * PAGE, Level::Pte),
    ] {
        let mut src = source(len, Thp::NoHuge, 99);
        let mut dst = span_at(len, dst_offset(level));
        let cfg = FlipConfig {
            inject_mremap_errno: Some(Errno::ENOMEM as i32),
            ..FlipConfig::default()
        };
        let r = Flipper::new(cfg).unwrap().flip(&mut src, &mut dst).unwrap();
        assert!(matches!(r.strategy, Strategy::Copy { .. }), "{r}");
        let why = r
            .fallback_reason
            .as_deref()
            .expect("fallback reason recorded");
        assert!(
            why.contains("injected") && why.contains("os error 12"),
            "{why}"
        );
        assert!(r.to_string().contains("fell back to copy"), "{r}");
        assert_eq!(r.source, SourceState::Intact);
        check(&dst, 99).unwrap();
        check(&src, 99).unwrap();
    }
}

#[test]
fn forced_mremap_is_reported_as_mremap() {
    let mut src = source(4 * PMD, Thp::NoHuge, 3);
    let mut dst = span_at(4 * PMD, 0);
    let cfg = FlipConfig {
        strategy: StrategyChoice::Mremap,
        ..FlipConfig::default()
    };
    let r = Flipper::new(cfg).unwrap().flip(&mut src, &mut dst).unwrap();
    assert_eq!(r.strategy, Strategy::Mremap { dontunmap: true });
    assert_eq!(r.source, SourceState::KeptEmpty);
    check(&dst, 3).unwrap();
}

#[test]
fn bad_requests_are_refused_before_anything_moves() {
    let mut src = source(4 * PAGE, Thp::NoHuge, 11);
    let mut dst = span_at(8 * PAGE, 0);
    let f = Flipper::new(FlipConfig::default()).unwrap();
    let e = f.flip(&mut src, &mut dst).unwrap_err();
    assert!(
        matches!(
            e,
            FlipError::LengthMismatch {
                src_len: 16384,
                dst_len: 32768
            }
        ),
        "{e}"
    );
    check(&src, 11).unwrap();

    let e = Flipper::new(FlipConfig {
        copy_threads: 0,
        ..FlipConfig::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("copy_threads"), "{e}");
    assert!(Flipper::new(FlipConfig {
        copy_threads: 100_000,
        ..FlipConfig::default()
    })
    .is_err());
}

/// `flip_used` copies only the used prefix: bytes past it are not copied (the
/// destination keeps its own there); mremap still moves everything.
#[test]
fn flip_used_copies_only_the_prefix() {
    let len = 16 * PMD;
    let mut src = source(len, Thp::NoHuge, 21);
    let mut dst = span_at(len, 0);
    let copy = Flipper::new(FlipConfig {
        strategy: StrategyChoice::Copy,
        ..FlipConfig::default()
    })
    .unwrap();
    let r = copy.flip_used(&mut src, &mut dst, 3 * PAGE + 5).unwrap();
    assert_eq!(r.level_name(), "copy");
    assert_eq!(dst.as_slice()[..4 * PAGE], src.as_slice()[..4 * PAGE]);
    assert!(
        dst.as_slice()[4 * PAGE..].iter().all(|b| *b == 0),
        "copied past the used prefix"
    );

    let mut dst2 = span_at(len, 0);
    let r = Flipper::new(FlipConfig::default())
        .unwrap()
        .flip_used(&mut src, &mut dst2, PAGE)
        .unwrap();
    assert!(matches!(r.strategy, Strategy::Mremap { .. }), "{r}");
    check(&dst2, 21).unwrap();
}
