//! Shared helpers for the flip integration tests: span placement per level, and
//! byte-exact pattern fill and check.
#![allow(dead_code)]

use flipgc_flip::{FlipConfig, FlipReport, Flipper, SourceState, Strategy, StrategyChoice};
use flipgc_heap::{Capabilities, Level, Reservation, Span, Thp};

/// Deterministic 64-bit mixer (splitmix64).
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn words(span: &Span) -> &[u64] {
    let (pre, w, post) = {
        // SAFETY: spans are page-aligned, so the u64 view has no prefix or suffix;
        // every bit pattern is a valid u64.
        unsafe { span.as_slice().align_to::<u64>() }
    };
    assert!(pre.is_empty() && post.is_empty());
    w
}

/// Writes a pattern derived from `seed` into every word of `span`.
pub fn fill(span: &mut Span, seed: u64) {
    // SAFETY: as in `words`, for the mutable view.
    let (pre, w, post) = unsafe { span.as_mut_slice().align_to_mut::<u64>() };
    assert!(pre.is_empty() && post.is_empty());
    for (i, x) in w.iter_mut().enumerate() {
        *x = mix(seed ^ i as u64);
    }
}

/// Checks every word of `span` against the pattern of `seed`.
pub fn check(span: &Span, seed: u64) -> Result<(), String> {
    match words(span)
        .iter()
        .enumerate()
        .find(|(i, x)| **x != mix(seed ^ *i as u64))
    {
        None => Ok(()),
        Some((i, x)) => Err(format!(
            "word {i} of {:?} is {x:#x}, expected {:#x}",
            span,
            mix(seed ^ i as u64)
        )),
    }
}

/// Checks that `span` reads as zeros: every word for small spans, one word in every
/// 16th page for large ones (reading maps the zero page, which costs a fault a page).
pub fn check_zero(span: &Span) -> Result<(), String> {
    let w = words(span);
    let step = if span.len() <= 64 << 20 {
        1
    } else {
        16 * 4096 / 8
    };
    match w.iter().step_by(step).position(|x| *x != 0) {
        None => Ok(()),
        Some(i) => Err(format!("word {} of {span:?} is not zero", i * step)),
    }
}

pub const PUD: usize = 1 << 30;
pub const PMD: usize = 2 << 20;
pub const PAGE: usize = 4096;

/// Destination offset inside a PUD-aligned reservation that makes a flip from a
/// PUD-aligned source plan at `level`.
pub fn dst_offset(level: Level) -> usize {
    match level {
        Level::Pud => 0,
        Level::Pmd => PMD,
        Level::Pte => PAGE,
    }
}

/// A span of `len` bytes at `offset` in its own PUD-aligned reservation.
pub fn span_at(len: usize, offset: usize) -> Span {
    let res = Reservation::new(len + PUD, PUD).expect("reserve");
    res.commit(offset, len).expect("commit")
}

/// A populated, pattern-filled source span with the given backing.
pub fn source(len: usize, thp: Thp, seed: u64) -> Span {
    let mut src = span_at(len, 0);
    src.set_thp(thp).expect("thp advice");
    src.populate(0, len).expect("populate");
    fill(&mut src, seed);
    src
}

/// True on hosts where this suite's assumptions about levels hold (x86_64, 4 KiB pages).
pub fn x86_geometry() -> bool {
    let g = Capabilities::probe().geometry;
    g.page == PAGE && g.pmd == Some(PMD) && g.pud == Some(PUD)
}

/// The level the plan must reach for `len` bytes at a placement for `want`.
pub fn expected_level(len: usize, want: Level) -> Level {
    match want {
        Level::Pud if len >= PUD => Level::Pud,
        Level::Pud | Level::Pmd if len >= PMD => Level::Pmd,
        _ => Level::Pte,
    }
}

/// A flip performed one way or another (`flip`, or `flip_unmapping`).
pub type FlipFn<'a> = &'a dyn Fn(&Flipper, &mut Span, &mut Span) -> FlipReport;

/// For one size and backing: flip the source to a destination at each level, check
/// every byte and the source's state, write to the emptied source, flip back, check.
pub fn mremap_matrix(len: usize, thp: Thp, flip: FlipFn<'_>) {
    if !x86_geometry() {
        eprintln!("skipping level assertions: not an x86_64 4K-page host");
        return;
    }
    let seed = len as u64 ^ thp as u64;
    let mut src = source(len, thp, seed);
    let f = Flipper::new(FlipConfig {
        strategy: StrategyChoice::Mremap,
        ..FlipConfig::default()
    })
    .unwrap();
    for level in [Level::Pud, Level::Pmd, Level::Pte] {
        let mut dst = span_at(len, dst_offset(level));
        let ctx = format!("{len} bytes, {thp:?}, {level}");
        let r = flip(&f, &mut src, &mut dst);
        let Strategy::Mremap { dontunmap } = r.strategy else {
            panic!("{ctx}: {r}")
        };
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
        assert_eq!(
            dst.thp(),
            thp,
            "{ctx}: the destination takes the source's advice"
        );
        check(&dst, seed).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        check_zero(&src).unwrap_or_else(|e| panic!("{ctx}: source after move: {e}"));
        // The source is still a usable mapping: write to it, then clear it again.
        src.as_mut_slice()[len - 1] = 0xee;
        assert_eq!(src.as_slice()[len - 1], 0xee, "{ctx}");
        src.release(len - PAGE, PAGE).unwrap();
        // And back: the pattern must survive the return trip too.
        let back = flip(&f, &mut dst, &mut src);
        assert_eq!(back.level(), r.level(), "{ctx}: return trip");
        check(&src, seed).unwrap_or_else(|e| panic!("{ctx}: return trip: {e}"));
    }
}
