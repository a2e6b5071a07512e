//! The copy strategy: `memcpy` from source span to destination span, split across
//! threads for large ranges. The fallback wherever the kernel cannot move pages.

use crossbeam_utils::thread;
use flipgc_heap::Span;

/// Ranges below this are copied by the calling thread alone.
pub const PARALLEL_THRESHOLD: usize = 64 << 20;

/// Copies the first `len` bytes of `src` into `dst`, with up to `threads` threads.
/// Returns the number of threads used.
pub(crate) fn copy_span(src: &Span, dst: &mut Span, len: usize, threads: usize) -> usize {
    let from = &src.as_slice()[..len];
    let to = &mut dst.as_mut_slice()[..len];
    let threads = if to.len() < PARALLEL_THRESHOLD {
        1
    } else {
        threads.max(1)
    };
    if threads == 1 {
        to.copy_from_slice(from);
        return 1;
    }
    // Page-multiple chunks, so no two threads touch one page.
    let page = flipgc_heap::sys::page_size();
    let chunk = to.len().div_ceil(threads).next_multiple_of(page);
    let used = to.len().div_ceil(chunk);
    thread::scope(|s| {
        for (d, f) in to.chunks_mut(chunk).zip(from.chunks(chunk)) {
            s.spawn(move |_| d.copy_from_slice(f));
        }
    })
    .expect("a copy thread panicked");
    used
}
