//! Integration tests for `Reservation`: argument checks, alignment, and that the
//! range really is mapped `PROT_NONE` while a handle lives and unmapped after.
//!
//! Every test takes `common::serial()`: some assert a freed range is absent from
//! `/proc/self/maps`, which a concurrent test's `mmap` could otherwise refill.

mod common;

use common::*;
use flipgc_heap::sys::Errno;
use flipgc_heap::{Geometry, HeapError, Reservation};

/// Asserts `r` failed with `HeapError::Invalid` about `what` and that the message
/// contains each of `values`.
fn assert_invalid(r: Result<Reservation, HeapError>, what: &str, values: &[String]) {
    match r {
        Err(HeapError::Invalid { what: w, detail }) => {
            assert_eq!(w, what, "detail: {detail}");
            let msg = HeapError::Invalid { what: w, detail }.to_string();
            for v in values {
                assert!(msg.contains(v.as_str()), "{msg:?} does not name {v}");
            }
        }
        Err(e) => panic!("expected HeapError::Invalid about {what}, got {e:?}"),
        Ok(res) => panic!("expected HeapError::Invalid about {what}, got {res:?}"),
    }
}

#[test]
fn splitmix64_matches_reference_values() {
    // First outputs for seed 0 of Vigna's reference splitmix64.
    let mut r = SplitMix64(0);
    assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
}

#[test]
fn maps_helper_finds_the_stack() {
    let _g = serial();
    let x = 7u64;
    let addr = std::ptr::addr_of!(x) as usize;
    let maps = maps_overlapping(addr, addr + 1);
    assert_eq!(maps.len(), 1, "{maps:#x?}");
    assert!(maps[0].start <= addr && addr < maps[0].end, "{maps:#x?}");
    assert_eq!(maps[0].perms, "rw-p", "{maps:#x?}");
    let m = assert_one_mapping(addr, addr + 1, "rw-p");
    assert!(!m.vm_flags.is_empty(), "smaps VmFlags not parsed: {m:#x?}");
}

#[test]
fn new_refuses_zero_length() {
    let _g = serial();
    assert_invalid(
        Reservation::new(0, page()),
        "reservation length",
        &["0 bytes".into(), page().to_string()],
    );
}

#[test]
fn new_refuses_length_not_a_page_multiple() {
    let _g = serial();
    for len in [1, page() - 1, page() + 1, 3 * page() + 8] {
        assert_invalid(
            Reservation::new(len, page()),
            "reservation length",
            &[format!("{len} bytes"), page().to_string()],
        );
    }
}

#[test]
fn new_refuses_alignment_not_a_power_of_two() {
    let _g = serial();
    for align in [0, 3 * page(), 3 * M, G + page()] {
        assert_invalid(
            Reservation::new(16 * page(), align),
            "reservation alignment",
            &[align.to_string()],
        );
    }
}

#[test]
fn new_refuses_alignment_below_a_page() {
    let _g = serial();
    for align in [1, 8, page() / 2] {
        assert_invalid(
            Reservation::new(16 * page(), align),
            "reservation alignment",
            &[align.to_string(), page().to_string()],
        );
    }
}

#[test]
fn new_refuses_length_plus_alignment_overflow() {
    let _g = serial();
    let len = usize::MAX & !(page() - 1);
    for align in [page(), 2 * page(), 2 * M, G] {
        assert_invalid(
            Reservation::new(len, align),
            "reservation length",
            &[len.to_string(), align.to_string(), "overflows".into()],
        );
    }
    // With page alignment only the two guard pages are added, so this one does not
    // overflow; the kernel must still refuse a range larger than the address space.
    let len = len - 2 * page();
    let e = Reservation::new(len, page()).expect_err("a 2^64-byte reservation succeeded");
    assert_eq!(e.errno(), Some(Errno::ENOMEM as i32), "{e:?}");
}

#[test]
fn base_is_aligned_for_4k_2m_1g() {
    let _g = serial();
    for (len, align) in [
        (page(), page()),
        (5 * page(), page()),
        (2 * M, 2 * M),
        (6 * M + 3 * page(), 2 * M),
        (G, G),
        (G + 2 * M, G),
    ] {
        let r = Reservation::new(len, align).unwrap();
        assert_eq!(
            r.base() % align,
            0,
            "{r:?} for len {len:#x} align {align:#x}"
        );
        assert_ne!(r.base(), 0);
        assert_eq!((r.len(), r.align()), (len, align), "{r:?}");
        assert!(!r.is_empty());
        assert_eq!(r.span_count(), 0);
        assert_covered(r.base(), r.base() + len, "---p");
    }
}

#[test]
fn for_space_uses_best_alignment() {
    let _g = serial();
    let g = Geometry::host();
    for len in [4 * M, G] {
        let r = Reservation::for_space(len, &g).unwrap();
        assert_eq!(r.align(), g.best_alignment(len));
        assert_eq!(r.base() % r.align(), 0, "{r:?}");
    }
}

#[test]
fn drop_unmaps_the_range() {
    let _g = serial();
    let r = Reservation::new(64 * M, 2 * M).unwrap();
    let (start, end) = (r.base(), r.base() + r.len());
    assert_covered(start, end, "---p");
    let clone = r.clone();
    drop(r);
    // Another handle keeps it.
    assert_covered(start, end, "---p");
    drop(clone);
    assert_unmapped(start, end);
}

#[test]
fn guard_pages_keep_spans_of_two_reservations_apart() {
    let _g = serial();
    let p = page();
    // Page alignment: no head or tail to trim, so without the guard pages the kernel
    // places the second reservation right below the first, and the two committed
    // spans merge into one VMA (which a flip's mremap would then split).
    let a = Reservation::new(2 * M, p).unwrap();
    let b = Reservation::new(2 * M, p).unwrap();
    let sa = a.commit(0, 2 * M).unwrap();
    let sb = b.commit(0, 2 * M).unwrap();
    for s in [&sa, &sb] {
        let m = assert_one_mapping(s.addr(), s.end(), "rw-p");
        assert_eq!(
            (m.start, m.end),
            (s.addr(), s.end()),
            "span {:#x}..{:#x} merged with a neighbour: {m:#x?}",
            s.addr(),
            s.end()
        );
        assert_covered(s.addr() - p, s.addr(), "---p");
        assert_covered(s.end(), s.end() + p, "---p");
    }
    let (start, end) = (a.base(), a.base() + a.len());
    drop((a, sa));
    // The guard pages go with the reservation.
    assert_unmapped(start - p, end + p);
}

#[test]
fn one_gib_reservation_is_unmapped_on_drop() {
    let _g = serial();
    let r = Reservation::new(G, G).unwrap();
    let (start, end) = (r.base(), r.base() + r.len());
    assert_covered(start, end, "---p");
    drop(r);
    assert_unmapped(start, end);
}

#[test]
fn span_keeps_reservation_mapped_after_handle_drop() {
    let _g = serial();
    let r = Reservation::new(16 * M, 2 * M).unwrap();
    let (start, end) = (r.base(), r.base() + r.len());
    let mut span = r.commit(4 * M, 2 * M).unwrap();
    assert_eq!(r.span_count(), 1);
    drop(r);

    // The whole reservation is still there: PROT_NONE around the read-write span.
    assert_covered(start, start + 4 * M, "---p");
    assert_covered(span.addr(), span.end(), "rw-p");
    assert_covered(span.end(), end, "---p");
    // And the span is usable.
    fill_words(span.as_mut_slice(), 0xC0FFEE);
    check_words(
        span.as_slice(),
        0xC0FFEE,
        "span after reservation handle drop",
    );

    drop(span);
    assert_unmapped(start, end);
}

#[test]
fn several_spans_keep_reservation_until_the_last_is_dropped() {
    let _g = serial();
    let r = Reservation::new(8 * M, 2 * M).unwrap();
    let (start, end) = (r.base(), r.base() + r.len());
    let a = r.commit(0, 2 * M).unwrap();
    let b = r.commit(6 * M, 2 * M).unwrap();
    drop(r);
    drop(a);
    assert_covered(start, start + 6 * M, "---p");
    assert_covered(b.addr(), b.end(), "rw-p");
    drop(b);
    assert_unmapped(start, end);
}
