//! The few raw memory accessors every heap read and write goes through.
//!
//! Heap words are accessed as relaxed atomics: two mutator threads may race on one
//! object field (a program bug, but not undefined behaviour in Rust), and the
//! collector reads fields only while mutators are stopped (ordering comes from the
//! safepoint handshake). On x86_64 and arm64 relaxed loads and stores compile to
//! plain moves.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes in a heap word.
pub const WORD: usize = 8;

/// Reads the heap word at `addr`.
///
/// # Safety
/// `addr` is 8-byte aligned and lies in mapped, readable memory that stays mapped
/// for the call (a heap space or a large object).
#[inline(always)]
pub unsafe fn load(addr: usize) -> u64 {
    // SAFETY: aligned, mapped (caller); AtomicU64 has the layout of u64.
    unsafe { AtomicU64::from_ptr(addr as *mut u64) }.load(Ordering::Relaxed)
}

/// Writes the heap word at `addr`.
///
/// # Safety
/// As for [`load`], and the memory is writable.
#[inline(always)]
pub unsafe fn store(addr: usize, value: u64) {
    // SAFETY: aligned, mapped, writable (caller).
    unsafe { AtomicU64::from_ptr(addr as *mut u64) }.store(value, Ordering::Relaxed)
}

/// Copies `words` words from `src` to `dst`.
///
/// # Safety
/// Both ranges are aligned, mapped, do not overlap, `dst` is writable, and no other
/// thread accesses either range meanwhile (collector-only, mutators stopped).
#[inline]
pub unsafe fn copy_words(src: usize, dst: usize, words: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::copy_nonoverlapping(src as *const u64, dst as *mut u64, words) }
}

/// Zeroes `words` words at `dst`.
///
/// # Safety
/// As for [`copy_words`], for `dst` alone.
#[inline]
pub unsafe fn zero_words(dst: usize, words: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::write_bytes(dst as *mut u64, 0, words) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_store_copy_zero_round_trip() {
        let mut a = vec![0u64; 8];
        let mut b = vec![7u64; 8];
        let (pa, pb) = (a.as_mut_ptr() as usize, b.as_mut_ptr() as usize);
        // SAFETY: both vectors are live, aligned, and only used here.
        unsafe {
            store(pa + 3 * WORD, 0xdead_beef);
            assert_eq!(load(pa + 3 * WORD), 0xdead_beef);
            copy_words(pa, pb, 4);
            zero_words(pb + 4 * WORD, 2);
        }
        assert_eq!(a[3], 0xdead_beef);
        assert_eq!(b, vec![0, 0, 0, 0xdead_beef, 0, 0, 7, 7]);
    }
}
