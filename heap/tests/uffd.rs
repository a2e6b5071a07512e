//! userfaultfd end to end: a thread touching a registered, empty page sleeps until
//! another thread installs it with `UFFDIO_COPY`; a second copy onto the same page is
//! refused with `EEXIST`; batched copies install many pages in one call.

#![cfg(target_os = "linux")]

use flipgc_heap::sys::Errno;
use flipgc_heap::{Capabilities, CopyError, Reservation, Userfault};
use std::sync::atomic::{AtomicU64, Ordering};

fn uffd() -> Option<Userfault> {
    if Capabilities::probe().userfaultfd.opened_via.is_none() {
        eprintln!("skipped: no userfaultfd on this host");
        return None;
    }
    Some(Userfault::open().expect("probe said userfaultfd opens"))
}

#[test]
fn a_fault_sleeps_until_the_page_is_copied_in_and_copies_never_replace() {
    let Some(u) = uffd() else { return };
    let page = Capabilities::probe().geometry.page;
    let r = Reservation::new(16 * page, page).unwrap();
    let span = r.commit(0, 16 * page).unwrap();
    let base = span.addr();
    u.register_missing(base, 16 * page).unwrap();

    let reader = std::thread::spawn(move || {
        // SAFETY: the page is mapped read-write; the read blocks until installed.
        unsafe { AtomicU64::from_ptr((base + 3 * page + 8) as *mut u64) }.load(Ordering::Relaxed)
    });
    let mut faults = Vec::new();
    while faults.is_empty() {
        u.poll(1000);
        u.read_faults(&mut faults).unwrap();
    }
    assert_eq!(faults[0] & !(page - 1), base + 3 * page, "{faults:x?}");
    let mut src = vec![0u64; page / 8];
    src[1] = 0xfeed;
    // SAFETY: `src` is one readable page; the destination page is registered.
    unsafe { u.copy(base + 3 * page, src.as_ptr() as usize, page, true) }.unwrap();
    assert_eq!(reader.join().unwrap(), 0xfeed);

    src[1] = 1;
    // SAFETY: as above.
    let again = unsafe { u.copy(base + 3 * page, src.as_ptr() as usize, page, true) };
    assert_eq!(again, Err(CopyError::Exists));
    assert_eq!(span.as_slice()[3 * page + 8], 0xed, "the first copy stays");

    // One batched copy of 8 pages, then a zero page.
    let batch: Vec<u8> = (0..8 * page).map(|i| (i / page) as u8 + 1).collect();
    // SAFETY: `batch` is 8 readable pages; the destinations are registered and empty.
    unsafe { u.copy(base + 4 * page, batch.as_ptr() as usize, 8 * page, true) }.unwrap();
    u.zeropage(base + 12 * page, page).unwrap();
    for p in 4..12 {
        assert_eq!(span.as_slice()[p * page + 17], (p - 3) as u8);
    }
    assert_eq!(span.as_slice()[12 * page + 5], 0);
    // Moving pages in (no copy): from a private buffer into registered, empty pages.
    if u.can_move() {
        let mut scratch = memmap2::MmapMut::map_anon(2 * page).unwrap();
        scratch.fill(0x5a);
        let from = scratch.as_ptr() as usize;
        // SAFETY: nothing else touches `scratch` until it is dropped.
        unsafe { u.move_pages(base + 13 * page, from, 2 * page) }.unwrap();
        assert_eq!(span.as_slice()[13 * page + 9], 0x5a);
        assert_eq!(span.as_slice()[15 * page - 1], 0x5a, "both pages moved");
        // SAFETY: still mapped; volatile since the kernel emptied it behind `scratch`.
        let left = unsafe { scratch.as_ptr().add(7).read_volatile() };
        assert_eq!(left, 0, "the source is left empty");
        // Onto a page that exists: refused with EEXIST, nothing moved.
        scratch[0] = 1;
        // SAFETY: as above.
        let e = unsafe { u.move_pages(base + 13 * page, from, page) };
        assert_eq!(e, Err((0, Errno::EEXIST as i32)));
    }
    u.unregister(base, 16 * page).unwrap();
    // Unregistered: an untouched page faults in normally, as zeros.
    assert_eq!(span.as_slice()[15 * page], 0);
}

/// `Userfault::moved_unreported` counts, from the first page a failed move
/// reported unmoved, the pages whose destination is resident and whose source
/// is not (what a move leaves behind), and stops at the first other page: one
/// installed by a second producer (source still resident) or not installed.
#[test]
fn pages_a_move_left_out_of_its_count_are_found_by_their_state() {
    let Some(u) = uffd() else { return };
    if !u.can_move() {
        eprintln!("skipped: no UFFDIO_MOVE on this host");
        return;
    }
    let page = Capabilities::probe().geometry.page;
    let r = Reservation::new(16 * page, page).unwrap();
    let span = r.commit(0, 16 * page).unwrap();
    let base = span.addr();
    u.register_missing(base, 16 * page).unwrap();
    let mut scratch = memmap2::MmapMut::map_anon(8 * page).unwrap();
    scratch.fill(0x33);
    let from = scratch.as_ptr() as usize;
    // Four pages moved; as if the kernel had counted only the first one.
    // SAFETY: nothing else touches `scratch` until it is dropped.
    unsafe { u.move_present_pages(base, from, 4 * page) }.unwrap();
    assert_eq!(u.moved_unreported(base + page, from + page, 6 * page), 3);
    assert_eq!(u.moved_unreported(base, from, 8 * page), 4);
    // Not moved at all: the destination is empty.
    assert_eq!(
        u.moved_unreported(base + 4 * page, from + 4 * page, 2 * page),
        0
    );
    // A destination page installed by someone else, its source still there.
    let other = vec![7u8; page];
    // SAFETY: `other` is one readable page; the destination is registered and empty.
    unsafe { u.copy(base + 4 * page, other.as_ptr() as usize, page, true) }.unwrap();
    assert_eq!(
        u.moved_unreported(base + 4 * page, from + 4 * page, 2 * page),
        0
    );
    assert_eq!(span.as_slice()[3 * page + 1], 0x33);
    u.unregister(base, 16 * page).unwrap();
}
