//! The few raw memory accessors every heap read and write goes through.
//!
//! The memory model (docs/architecture.md, "Memory model"):
//! - Heap words are accessed as atomics, so two threads racing on one field is a
//!   program bug but never undefined behaviour in Rust.
//! - A reference is *published* with a release store ([`store_release`]: the
//!   reference-field store) and *read* with an acquire load ([`load_acquire`]), so a
//!   thread that sees a reference also sees everything its writer did before the
//!   store: the referent's header, its initial fields, and the zeroing of its memory.
//!   On x86_64 both are plain moves; on arm64 they are `stlr` and `ldar`.
//! - Everything else (headers, word fields, the collector's copies) is relaxed, and
//!   ordered by a publication above, by a lock, or by the safepoint handshake.
//! - The collector reads objects while mutators run too: the concurrent plan reads
//!   the headers of marked objects (immutable since the mark pause, which ordered
//!   them), and concurrent compaction reads from-space, which nobody writes after
//!   the flip pause. Pages it installs through userfaultfd are ordered by the kernel:
//!   a thread that faulted sleeps until the install is complete.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes in a heap word.
pub const WORD: usize = 8;

/// Reads the reference at `addr`, acquiring what its writer published with it.
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub unsafe fn load_acquire(addr: usize) -> u64 {
    // SAFETY: aligned, mapped (caller); AtomicU64 has the layout of u64.
    unsafe { AtomicU64::from_ptr(addr as *mut u64) }.load(Ordering::Acquire)
}

/// Publishes the reference `value` at `addr`: every write this thread made before
/// (the referent's header and fields) is visible to a thread that reads it with
/// [`load_acquire`].
///
/// # Safety
/// As for [`store`].
#[inline(always)]
pub unsafe fn store_release(addr: usize, value: u64) {
    // SAFETY: aligned, mapped, writable (caller).
    unsafe { AtomicU64::from_ptr(addr as *mut u64) }.store(value, Ordering::Release)
}

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

/// Asks the CPU to bring the cache line at `addr` in, for a read soon. A hint: it
/// never faults, whatever `addr` is (x86_64 `prefetcht0`, arm64 `prfm pldl1keep`;
/// nothing elsewhere), so it is safe for any address.
#[inline(always)]
pub fn prefetch(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` only hints; it does not access memory architecturally
    // and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(addr as *const i8)
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: `prfm` only hints and cannot fault; it touches no register but its
    // address operand, and no flags or stack.
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) addr, options(nostack, preserves_flags, readonly))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = addr;
}

/// Asks the CPU to bring the cache line at `addr` in for a write soon (x86_64
/// `prefetchw`, arm64 `prfm pstl1keep`; nothing elsewhere). A hint, as
/// [`prefetch`]: it never faults.
#[inline(always)]
pub fn prefetch_write(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetchw` only hints and cannot fault; it touches no register but
    // its address operand, and no flags or stack.
    unsafe {
        std::arch::asm!("prefetchw [{0}]", in(reg) addr, options(nostack, preserves_flags, readonly))
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: `prfm` only hints and cannot fault; it touches no register but its
    // address operand, and no flags or stack.
    unsafe {
        std::arch::asm!("prfm pstl1keep, [{0}]", in(reg) addr, options(nostack, preserves_flags, readonly))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = addr;
}

/// Copies `words` words from `src` to `dst` (plain, non-atomic copies).
///
/// # Safety
/// Both ranges are aligned, mapped, do not overlap, `dst` is writable, and no other
/// thread writes either range meanwhile, nor reads `dst` (from-space after the flip,
/// a page being produced, memory owned by the caller).
#[inline]
pub unsafe fn copy_words(src: usize, dst: usize, words: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::copy_nonoverlapping(src as *const u64, dst as *mut u64, words) }
}

/// Zeroes `words` words at `dst` (plain writes: the zeroing of carved memory, which
/// reaches other threads only through a later publication, see the module docs).
///
/// # Safety
/// As for [`copy_words`], for `dst` alone.
#[inline]
pub unsafe fn zero_words(dst: usize, words: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::write_bytes(dst as *mut u64, 0, words) }
}

/// Copies `out.len()` bytes starting at heap address `src` into `out`, a word at a
/// time: every access is a relaxed atomic load of a whole aligned heap word (the
/// words at either end included), so byte arrays are always accessed at one size.
/// A writer racing with the copy (a program bug) can leave it torn at word
/// boundaries, but nothing is undefined.
///
/// # Safety
/// `[src, src + out.len())` lies inside one live byte array's payload (mapped, and
/// the aligned words covering it too).
pub unsafe fn read_bytes(src: usize, out: &mut [u8]) {
    let n = out.len();
    let mut i = 0;
    while i < n {
        let at = src + i;
        let word = at & !(WORD - 1);
        let skip = at - word;
        let take = (WORD - skip).min(n - i);
        // SAFETY: `word` is the aligned heap word holding byte `at`, inside the array's
        // payload words (caller).
        let w = unsafe { load(word) }.to_ne_bytes();
        out[i..i + take].copy_from_slice(&w[skip..skip + take]);
        i += take;
    }
}

/// Copies `data` into the heap at `dst`, a word at a time: whole words with a relaxed
/// atomic store, a partly covered word at either end with an atomic read-modify-write
/// that keeps its other bytes. See [`read_bytes`] for the race model.
///
/// # Safety
/// `[dst, dst + data.len())` lies inside one live byte array's payload (mapped and
/// writable, and the aligned words covering it too).
pub unsafe fn write_bytes(dst: usize, data: &[u8]) {
    let n = data.len();
    let mut i = 0;
    while i < n {
        let at = dst + i;
        let word = at & !(WORD - 1);
        let skip = at - word;
        let take = (WORD - skip).min(n - i);
        if take == WORD {
            let w = u64::from_ne_bytes(data[i..i + WORD].try_into().expect("a word"));
            // SAFETY: an aligned word of the payload (caller).
            unsafe { store(word, w) };
        } else {
            // SAFETY: as above; the word is an `AtomicU64` for this access alone.
            let cell = unsafe { AtomicU64::from_ptr(word as *mut u64) };
            let mut old = cell.load(Ordering::Relaxed);
            loop {
                let mut bytes = old.to_ne_bytes();
                bytes[skip..skip + take].copy_from_slice(&data[i..i + take]);
                let new = u64::from_ne_bytes(bytes);
                match cell.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(now) => old = now,
                }
            }
        }
        i += take;
    }
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

    #[test]
    fn bulk_bytes_match_a_byte_model_at_every_offset() {
        for off in 0..20 {
            for len in 0..40 {
                let mut heap = vec![0x5au64; 8];
                let base = heap.as_mut_ptr() as usize;
                let data: Vec<u8> = (0..len).map(|i| i as u8 ^ 0xc3).collect();
                let mut model: Vec<u8> = heap.iter().flat_map(|w| w.to_ne_bytes()).collect();
                model[off..off + len].copy_from_slice(&data);
                let mut back = vec![0u8; len];
                // SAFETY: `heap` is 64 bytes, live and only used here; off + len <= 59.
                unsafe {
                    write_bytes(base + off, &data);
                    read_bytes(base + off, &mut back);
                }
                let now: Vec<u8> = heap.iter().flat_map(|w| w.to_ne_bytes()).collect();
                assert_eq!(now, model, "write at {off}+{len}");
                assert_eq!(back, data, "read at {off}+{len}");
            }
        }
    }
}
