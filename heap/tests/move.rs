//! Integration tests for `Span::move_to` (Linux `mremap`): contents move exactly,
//! the source is left empty but mapped, THP advice travels with the pages.
#![cfg(target_os = "linux")]

mod common;

use common::*;
use flipgc_heap::{HeapError, Reservation, Span, Thp};

const LEN: usize = 8 * M;

struct Case {
    seed: u64,
    same_reservation: bool,
    src_thp: Thp,
    dst_thp: Thp,
    /// Pages added to the destination's offset, to force a page-level (PTE) move
    /// when non-zero; zero keeps both sides 2 MiB-aligned (PMD-level move).
    dst_skew_pages: usize,
}

/// Checks `span`'s mapping: one `rw-p` entry covering it, with VmFlags matching `thp`.
fn assert_span_mapping(span: &Span, thp: Thp, what: &str) {
    let m = assert_one_mapping(span.addr(), span.end(), "rw-p");
    assert_thp_flags(&m, thp);
    assert_eq!(span.thp(), thp, "{what}: thp() does not match the advice");
}

fn spans(case: &Case) -> (Vec<Reservation>, Span, Span) {
    let skew = case.dst_skew_pages * page();
    if case.same_reservation {
        let r = Reservation::new(4 * LEN, 2 * M).unwrap();
        let src = r.commit(0, LEN).unwrap();
        let dst = r.commit(LEN + skew, LEN).unwrap();
        (vec![r], src, dst)
    } else {
        let a = Reservation::new(2 * LEN, 2 * M).unwrap();
        let b = Reservation::new(2 * LEN, 2 * M).unwrap();
        let src = a.commit(0, LEN).unwrap();
        let dst = b.commit(skew, LEN).unwrap();
        (vec![a, b], src, dst)
    }
}

fn check_move(case: Case) {
    let (_res, mut src, mut dst) = spans(&case);
    src.set_thp(case.src_thp).unwrap();
    dst.set_thp(case.dst_thp).unwrap();
    fill_words(src.as_mut_slice(), case.seed);
    // Junk in the destination, which the move must replace entirely.
    fill_words(dst.as_mut_slice(), !case.seed);
    let (src_addr, dst_addr) = (src.addr(), dst.addr());

    src.move_to(&mut dst).unwrap();

    // Addresses do not change: spans are fixed places, pages move between them.
    assert_eq!((src.addr(), dst.addr()), (src_addr, dst_addr));
    check_words(dst.as_slice(), case.seed, "destination after move");
    assert_zeros(src.as_slice(), "source after move");
    assert_eq!(
        dst.thp(),
        case.src_thp,
        "destination takes the source's advice"
    );
    assert_span_mapping(&src, case.src_thp, "source after move");
    assert_span_mapping(&dst, case.src_thp, "destination after move");

    // Both stay usable: write the source, then move the pages back.
    fill_words(src.as_mut_slice(), case.seed ^ 0xFFFF);
    dst.move_to(&mut src).unwrap();
    check_words(src.as_slice(), case.seed, "source after the move back");
    assert_zeros(dst.as_slice(), "destination after the move back");
    assert_span_mapping(&src, case.src_thp, "source after the move back");
    assert_span_mapping(&dst, case.src_thp, "destination after the move back");
}

#[test]
fn move_between_reservations_dontunmap() {
    check_move(Case {
        seed: 0x0001,
        same_reservation: false,
        src_thp: Thp::Huge,
        dst_thp: Thp::Default,
        dst_skew_pages: 0,
    });
}

#[test]
fn move_between_reservations_other_advice() {
    check_move(Case {
        seed: 0x0002,
        same_reservation: false,
        src_thp: Thp::NoHuge,
        dst_thp: Thp::Huge,
        dst_skew_pages: 0,
    });
}

#[test]
fn move_between_reservations_unaligned_dontunmap() {
    check_move(Case {
        seed: 0x0003,
        same_reservation: false,
        src_thp: Thp::Huge,
        dst_thp: Thp::NoHuge,
        dst_skew_pages: 3,
    });
}

#[test]
fn move_within_reservation_dontunmap() {
    check_move(Case {
        seed: 0x0004,
        same_reservation: true,
        src_thp: Thp::Default,
        dst_thp: Thp::Huge,
        dst_skew_pages: 0,
    });
}

#[test]
fn move_within_reservation_other_advice() {
    check_move(Case {
        seed: 0x0005,
        same_reservation: true,
        src_thp: Thp::Huge,
        dst_thp: Thp::Default,
        dst_skew_pages: 0,
    });
}

#[test]
fn move_within_reservation_unaligned() {
    check_move(Case {
        seed: 0x0006,
        same_reservation: true,
        src_thp: Thp::Default,
        dst_thp: Thp::NoHuge,
        dst_skew_pages: 1,
    });
}

#[test]
fn move_refuses_length_mismatch() {
    let r = Reservation::new(4 * M, 2 * M).unwrap();
    let mut src = r.commit(0, 2 * M).unwrap();
    let mut dst = r.commit(2 * M, M).unwrap();
    fill_words(src.as_mut_slice(), 11);
    fill_words(dst.as_mut_slice(), 12);
    {
        match src.move_to(&mut dst) {
            Err(HeapError::Invalid { what, detail }) => {
                assert_eq!(what, "move");
                assert!(
                    detail.contains(&(2 * M).to_string()) && detail.contains(&M.to_string()),
                    "{detail}"
                );
            }
            other => panic!("length mismatch: {other:?}"),
        }
        match dst.move_to(&mut src) {
            Err(HeapError::Invalid { what, .. }) => assert_eq!(what, "move"),
            other => panic!("length mismatch (reversed): {other:?}"),
        }
    }
    check_words(src.as_slice(), 11, "source after refused move");
    check_words(dst.as_slice(), 12, "destination after refused move");
}

/// A range move takes exactly its range, leaves the source one mapping (so a
/// whole-span move can still take it later), and marks the destination split until
/// it is recommitted; bad ranges are refused and change nothing.
#[test]
fn move_range_moves_just_the_range() {
    let a = Reservation::new(16 * M, 2 * M).unwrap();
    let b = Reservation::new(16 * M, 2 * M).unwrap();
    let mut src = a.commit(0, LEN).unwrap();
    let mut dst = b.commit(0, LEN).unwrap();
    let mut other = a.commit(LEN, LEN).unwrap();
    fill_words(src.as_mut_slice(), 21);
    fill_words(dst.as_mut_slice(), 22);
    let (lo, hi) = (2 * M, 6 * M);

    for (off, len) in [
        (page() / 2, 2 * M),
        (2 * M, 0),
        (6 * M, 4 * M),
        (LEN, page()),
    ] {
        match src.move_range_to(off, len, &mut dst) {
            Err(HeapError::Invalid { what, .. }) => assert_eq!(what, "range move"),
            other => panic!("range {off:#x}+{len:#x}: {other:?}"),
        }
    }
    assert!(!dst.is_split(), "a refused range move splits nothing");

    src.move_range_to(lo, hi - lo, &mut dst).unwrap();
    let (s, d) = (src.as_slice(), dst.as_slice());
    assert_zeros(&s[lo..hi], "source range after the move");
    // The source's words outside the range, and the moved words in the destination,
    // are the source's pattern at their offsets.
    let mut want = vec![0u8; LEN];
    fill_words(&mut want, 21);
    assert!(
        s[..lo] == want[..lo] && s[hi..] == want[hi..],
        "source outside the range changed"
    );
    assert!(
        d[lo..hi] == want[lo..hi],
        "destination range is not the source's bytes"
    );
    fill_words(&mut want, 22);
    assert!(
        d[..lo] == want[..lo] && d[hi..] == want[hi..],
        "destination outside the range changed"
    );
    assert_one_mapping(src.addr(), src.end(), "rw-p");

    assert!(dst.is_split());
    match dst.move_to(&mut other) {
        Err(HeapError::Invalid { what, detail }) => {
            assert_eq!(what, "move");
            assert!(detail.contains("recommit"), "{detail}");
        }
        other => panic!("whole-span move of a split span: {other:?}"),
    }
    // The source, one mapping, still moves whole.
    src.move_to(&mut other).unwrap();
    assert_zeros(&other.as_slice()[lo..hi], "moved source's emptied range");
    dst.recommit().unwrap();
    assert!(!dst.is_split());
    assert_one_mapping(dst.addr(), dst.end(), "rw-p");
    assert_zeros(dst.as_slice(), "recommitted destination");
}

/// Moves pages back and forth between two spans of one reservation for up to
/// `budget_ms` while another thread keeps calling `mmap(NULL, ..)`. Returns the
/// number of moves and the address of the first foreign mapping the kernel placed
/// inside the reservation (0 if none). Invariant 1 of `reservation.rs` says no one
/// else is ever given part of a reservation.
fn foreign_mmap_inside_moving_reservation(budget_ms: u128) -> (u64, usize) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    let len = 16 * page();
    let res = Reservation::new(2 * len, page()).unwrap();
    let (lo, hi) = (res.base(), res.base() + res.len());
    let mut a = res.commit(0, len).unwrap();
    let mut b = res.commit(len, len).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let landed = Arc::new(AtomicUsize::new(0));
    let other = {
        let (stop, landed) = (Arc::clone(&stop), Arc::clone(&landed));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                // A fresh anonymous mapping at a kernel-chosen address.
                let m = memmap2::MmapMut::map_anon(len).expect("mmap");
                let addr = m.as_ptr() as usize;
                if addr < hi && lo < addr + len {
                    // Inside the reservation: it is (or is about to be) a span's
                    // memory, so do not unmap it; report and stop.
                    std::mem::forget(m);
                    landed.store(addr, Ordering::Relaxed);
                    stop.store(true, Ordering::Relaxed);
                }
                // Otherwise dropping `m` unmaps this thread's own, unused mapping.
            }
        })
    };
    let t0 = std::time::Instant::now();
    let mut moves = 0u64;
    while !stop.load(Ordering::Relaxed) && t0.elapsed().as_millis() < budget_ms {
        a.move_to(&mut b).unwrap();
        b.move_to(&mut a).unwrap();
        moves += 2;
    }
    stop.store(true, Ordering::Relaxed);
    other.join().unwrap();
    (moves, landed.load(Ordering::Relaxed))
}

/// `move_to` (MREMAP_DONTUNMAP) never leaves the source range unmapped, so no other
/// thread's `mmap` can be placed inside the reservation while pages move. (The plain
/// move, `move_to_unmapping`, does leave a hole; that is why it is `unsafe` and
/// requires that no other thread maps memory meanwhile. Before this was found, the
/// safe API offered the plain move and this stress loop broke it within ~100 moves.)
#[test]
fn move_never_lends_the_source_range_to_other_threads() {
    let (moves, at) = foreign_mmap_inside_moving_reservation(300);
    assert!(moves > 0);
    assert_eq!(
        at, 0,
        "after {moves} moves, a foreign mmap was placed at {at:#x}"
    );
}
