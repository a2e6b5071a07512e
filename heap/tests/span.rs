//! Integration tests for `Reservation::commit` and the advice on `Span`:
//! argument checks, overlap detection, the one-mapping invariant, populate and release.

mod common;

use common::*;
use flipgc_heap::{HeapError, PopulateMethod, Reservation, Span, Thp};

fn expect_invalid<T: std::fmt::Debug>(r: Result<T, HeapError>, what: &str, values: &[String]) {
    match r {
        Err(HeapError::Invalid { what: w, detail }) => {
            assert_eq!(w, what, "detail: {detail}");
            for v in values {
                assert!(detail.contains(v.as_str()), "{detail:?} does not name {v}");
            }
        }
        other => panic!("expected HeapError::Invalid about {what}, got {other:?}"),
    }
}

#[test]
fn commit_refuses_bad_ranges() {
    let p = page();
    let r = Reservation::new(16 * p, p).unwrap();
    let hex = |v: usize| format!("{v:#x}");
    // Unaligned offset, unaligned length, zero length.
    for (off, len) in [(1, p), (p / 2, p), (0, p + 1), (0, p - 1), (p, 0), (0, 0)] {
        expect_invalid(r.commit(off, len), "commit range", &[hex(off), hex(len)]);
    }
    // Out of range: past the end, straddling the end, and offset+len overflowing.
    for (off, len) in [
        (16 * p, p),
        (15 * p, 2 * p),
        (0, 17 * p),
        (usize::MAX & !(p - 1), 2 * p),
    ] {
        expect_invalid(
            r.commit(off, len),
            "commit range",
            &[hex(off), hex(len), hex(16 * p)],
        );
    }
    assert_eq!(r.span_count(), 0, "a refused commit left a span behind");
    assert_covered(r.base(), r.base() + r.len(), "---p");
}

#[test]
fn commit_refuses_overlap_until_the_span_is_dropped() {
    let p = page();
    let r = Reservation::new(16 * p, p).unwrap();
    let live = r.commit(4 * p, 4 * p).unwrap();
    for (off, len) in [
        (4 * p, 4 * p), // the same range
        (5 * p, p),     // inside
        (2 * p, 3 * p), // straddles the start
        (7 * p, 2 * p), // straddles the end
        (0, 16 * p),    // encloses
    ] {
        match r.commit(off, len) {
            Err(HeapError::Overlap {
                offset,
                len: l,
                other_offset,
                other_len,
            }) => assert_eq!(
                (offset, l, other_offset, other_len),
                (off, len, 4 * p, 4 * p)
            ),
            other => panic!("commit({off:#x}, {len:#x}) over a live span: {other:?}"),
        }
    }
    // Neighbours touching the live span are fine.
    let before = r.commit(3 * p, p).unwrap();
    let after = r.commit(8 * p, p).unwrap();
    assert_eq!(r.span_count(), 3);
    drop((before, after));
    assert_eq!(r.span_count(), 1);

    drop(live);
    assert_eq!(r.span_count(), 0);
    let again = r.commit(4 * p, 4 * p).unwrap();
    assert_eq!((again.offset(), again.len()), (4 * p, 4 * p));
    // A different span overlapping the old one is also possible now.
    drop(again);
    let wider = r.commit(2 * p, 8 * p).unwrap();
    assert_eq!(r.span_count(), 1);
    drop(wider);
}

#[test]
fn committed_span_is_rw_zeroed_and_decommitted_on_drop() {
    let r = Reservation::new(4 * M, 2 * M).unwrap();
    let mut span = r.commit(M, 2 * M).unwrap();
    assert_eq!(span.addr(), r.base() + M);
    assert_eq!(span.end(), r.base() + 3 * M);
    assert_eq!(span.as_ptr() as usize, span.addr());
    assert_eq!(span.thp(), Thp::Default);
    assert_covered(r.base(), span.addr(), "---p");
    assert_one_mapping(span.addr(), span.end(), "rw-p");
    assert_covered(span.end(), r.base() + r.len(), "---p");
    assert_zeros(span.as_slice(), "fresh span");

    fill_words(span.as_mut_slice(), 42);
    let (addr, end) = (span.addr(), span.end());
    drop(span);
    assert_covered(addr, end, "---p");

    // The memory was freed, not just protected: committing again reads zeros.
    let again = r.commit(M, 2 * M).unwrap();
    assert_zeros(again.as_slice(), "span recommitted after drop");
    assert_eq!(again.len(), 2 * M);
}

#[test]
fn one_mapping_after_thp_populate_release() {
    let r = Reservation::new(128 * M, 2 * M).unwrap();
    // Spans on both sides, so the middle one has rw neighbours it could merge with
    // or be split against.
    let left = r.commit(0, 2 * M).unwrap();
    let mut span = r.commit(2 * M, 64 * M).unwrap();
    let right = r.commit(66 * M, 2 * M).unwrap();
    let (start, end) = (span.addr(), span.end());

    span.set_thp(Thp::Huge).unwrap();
    assert_eq!(span.thp(), Thp::Huge);
    let m = assert_one_mapping(start, end, "rw-p");
    assert_thp_flags(&m, Thp::Huge);

    let how = span.populate(0, span.len()).unwrap();
    assert_eq!(
        how,
        PopulateMethod::Madvise,
        "Linux 5.14+ has POPULATE_WRITE"
    );
    assert_one_mapping(start, end, "rw-p");

    // Release parts that cut huge pages: a single page, an odd range, a 2 MiB block.
    span.release(page(), page()).unwrap();
    span.release(3 * M + 5 * page(), M + 7 * page()).unwrap();
    span.release(10 * M, 2 * M).unwrap();
    let m = assert_one_mapping(start, end, "rw-p");
    assert_thp_flags(&m, Thp::Huge);

    span.set_thp(Thp::NoHuge).unwrap();
    let m = assert_one_mapping(start, end, "rw-p");
    assert_thp_flags(&m, Thp::NoHuge);
    span.set_thp(Thp::Default).unwrap();
    assert_eq!(span.thp(), Thp::Default);
    drop((left, right));
}

#[test]
fn populate_keeps_contents() {
    let r = Reservation::new(8 * M, 2 * M).unwrap();
    let mut span = r.commit(0, 8 * M).unwrap();
    span.set_thp(Thp::Huge).unwrap();
    // Write the pattern to the first half only; populate all of it.
    fill_words(&mut span.as_mut_slice()[..4 * M], 7);
    span.populate(0, 8 * M).unwrap();
    check_words(&span.as_slice()[..4 * M], 7, "populated span");
    assert_zeros(&span.as_slice()[4 * M..], "populated untouched half");
    // Populating a sub-range twice changes nothing either.
    span.populate(M, 3 * page()).unwrap();
    check_words(&span.as_slice()[..4 * M], 7, "populated span, again");
}

#[test]
fn release_zeroes_only_the_released_range() {
    let p = page();
    let len = 8 * M;
    let r = Reservation::new(len, 2 * M).unwrap();
    let mut span = r.commit(0, len).unwrap();
    span.set_thp(Thp::Huge).unwrap();
    let seed = 0x5EED_0006;
    fill_words(span.as_mut_slice(), seed);

    let (off, rlen) = (2 * M + 3 * p, M + 5 * p); // cuts two huge pages
    span.release(off, rlen).unwrap();
    let mut want = vec![0u8; len];
    fill_words(&mut want, seed);
    want[off..off + rlen].fill(0);
    let got = span.as_slice();
    if let Some(i) = (0..len)
        .step_by(8)
        .find(|&i| got[i..i + 8] != want[i..i + 8])
    {
        panic!("after release({off:#x}, {rlen:#x}) byte offset {i:#x} differs");
    }
    assert_zeros(&got[off..off + rlen], "released range");
    // The released range is still mapped and writable.
    span.as_mut_slice()[off] = 1;
    assert_eq!(span.as_slice()[off], 1);
    assert_one_mapping(span.addr(), span.end(), "rw-p");
}

#[test]
fn populate_and_release_refuse_bad_ranges() {
    let p = page();
    let r = Reservation::new(16 * p, p).unwrap();
    let mut span: Span = r.commit(2 * p, 8 * p).unwrap();
    fill_words(span.as_mut_slice(), 99);
    let hex = |v: usize| format!("{v:#x}");
    let bad = [
        (1, p),                         // unaligned offset
        (0, p + 1),                     // unaligned length
        (0, 0),                         // empty
        (8 * p, p),                     // starts at the end
        (7 * p, 2 * p),                 // straddles the end
        (0, 9 * p),                     // longer than the span
        (usize::MAX & !(p - 1), 2 * p), // offset+len overflows
    ];
    for (off, len) in bad {
        expect_invalid(
            span.populate(off, len),
            "populate",
            &[hex(off), hex(len), hex(8 * p)],
        );
        expect_invalid(
            span.release(off, len),
            "release",
            &[hex(off), hex(len), hex(8 * p)],
        );
    }
    // Nothing was released by the refused calls.
    check_words(span.as_slice(), 99, "span after refused populate/release");
    // The whole span is fine.
    span.populate(0, 8 * p).unwrap();
    span.release(7 * p, p).unwrap();
    assert_zeros(&span.as_slice()[7 * p..], "released last page");
}

#[test]
fn recommit_zeroes_and_keeps_thp_advice() {
    let r = Reservation::new(4 * M, 2 * M).unwrap();
    let mut span = r.commit(0, 4 * M).unwrap();
    span.set_thp(Thp::NoHuge).unwrap();
    fill_words(span.as_mut_slice(), 3);
    span.recommit().unwrap();
    assert_zeros(span.as_slice(), "recommitted span");
    let m = assert_one_mapping(span.addr(), span.end(), "rw-p");
    assert_thp_flags(&m, Thp::NoHuge);
    assert_eq!(span.thp(), Thp::NoHuge);
}
