//! [`Ring`]: a bounded, append-only record buffer that keeps the last `capacity`
//! records and counts the ones it let go. The pause log (`pauselog.rs`) keeps its
//! exact records (pauses, cycles, compactions, sanity re-traces) in rings, so that
//! a heap that runs for weeks holds a fixed amount of them; its whole-run
//! statistics live beside the rings, and see every record.
//!
//! Records are numbered from 0 in the order they were pushed (their *sequence
//! number*); [`Ring::since`] reads the ones from a sequence number on that are still
//! held, so that a reader can note [`Ring::total`] and later read what came after.
//!
//! Layer: base (docs/architecture.md, "Layers").

use std::collections::VecDeque;

/// Heap bytes a value owns beyond its own `size_of` (a `Vec`'s or `String`'s
/// buffer), for [`Ring::footprint_bytes`]. Counts capacities, not lengths: what the
/// allocator holds.
pub trait OwnedBytes {
    /// Bytes of heap memory owned by `self` (0 for plain values).
    fn owned_bytes(&self) -> usize {
        0
    }
}

impl OwnedBytes for crate::FaultMode {}
impl OwnedBytes for (u64, usize, usize) {}
impl OwnedBytes for crate::pauselog::SanityReport {}

/// The last `capacity` records pushed, oldest first, and how many were pushed in
/// all. Its memory is bounded: at most `capacity` slots, grown on demand (an
/// unused ring allocates nothing), never beyond. A capacity of 0 is allowed (every
/// record is dropped at once), though [`HeapConfig`](crate::HeapConfig) refuses it
/// for the pause log.
#[derive(Clone)]
pub struct Ring<T> {
    buf: VecDeque<T>,
    capacity: usize,
    total: u64,
}

impl<T> Ring<T> {
    /// An empty ring that keeps at most `capacity` records.
    pub fn new(capacity: usize) -> Ring<T> {
        Ring {
            buf: VecDeque::new(),
            capacity,
            total: 0,
        }
    }

    /// Appends `value`, dropping the oldest record if the ring is full.
    pub fn push(&mut self, value: T) {
        self.total += 1;
        if self.capacity == 0 {
            return;
        }
        if self.buf.len() == self.capacity {
            self.buf.pop_front();
        } else if self.buf.len() == self.buf.capacity() {
            // Grow by doubling, as a `VecDeque` would, but never past the capacity
            // (a `VecDeque` left to itself would round 10,000 up to 16,384 slots).
            let want = (2 * self.buf.len()).max(4).min(self.capacity);
            self.buf.reserve_exact(want - self.buf.len());
        }
        self.buf.push_back(value);
    }

    /// The most records kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records held now (at most [`Ring::capacity`]).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Records ever pushed: the sequence number the next one will get.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Records pushed but no longer held (pushed out by newer ones).
    pub fn dropped(&self) -> u64 {
        self.total - self.buf.len() as u64
    }

    /// The held records, oldest first.
    pub fn iter(&self) -> std::collections::vec_deque::Iter<'_, T> {
        self.buf.iter()
    }

    /// The `i`th held record (0: the oldest held), if there is one.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.buf.get(i)
    }

    /// The oldest record held.
    pub fn first(&self) -> Option<&T> {
        self.buf.front()
    }

    /// The newest record.
    pub fn last(&self) -> Option<&T> {
        self.buf.back()
    }

    /// The record with sequence number `seq`, if it is still held.
    pub fn by_seq(&self, seq: u64) -> Option<&T> {
        let i = seq.checked_sub(self.dropped())?;
        self.buf.get(usize::try_from(i).ok()?)
    }

    /// The held records with sequence numbers `seq` and later, oldest first (those
    /// before the oldest held are gone).
    pub fn since(&self, seq: u64) -> std::collections::vec_deque::Iter<'_, T> {
        let skip = seq
            .saturating_sub(self.dropped())
            .min(self.buf.len() as u64);
        self.buf.range(skip as usize..)
    }

    /// The held records, oldest first, in a new vector.
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.buf.iter().cloned().collect()
    }

    /// Bytes of memory the ring holds: its slots (allocated, used or not) and the
    /// heap memory its records own ([`OwnedBytes`]).
    pub fn footprint_bytes(&self) -> usize
    where
        T: OwnedBytes,
    {
        self.buf.capacity() * std::mem::size_of::<T>()
            + self.buf.iter().map(OwnedBytes::owned_bytes).sum::<usize>()
    }
}

impl<T> std::ops::Index<usize> for Ring<T> {
    type Output = T;

    /// The `i`th held record (0: the oldest held); panics past the end.
    fn index(&self, i: usize) -> &T {
        &self.buf[i]
    }
}

impl<'a, T> IntoIterator for &'a Ring<T> {
    type Item = &'a T;
    type IntoIter = std::collections::vec_deque::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.buf.iter()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Ring<T> {
    /// The held records, as a list.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.buf.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Ring<T> {
    /// Same held records (capacity and drop counts aside).
    fn eq(&self, other: &Ring<T>) -> bool {
        self.buf == other.buf
    }
}

impl<T: PartialEq> PartialEq<[T]> for Ring<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.buf.iter().eq(other.iter())
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for Ring<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.buf.iter().eq(other.iter())
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for &Ring<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.buf.iter().eq(other.iter())
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Ring<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.buf.iter().eq(other.iter())
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for &Ring<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.buf.iter().eq(other.iter())
    }
}

impl<T: serde::Serialize> serde::Serialize for Ring<T> {
    /// The held records, as a sequence.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.buf.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(capacity: usize, n: u64) -> Ring<u64> {
        let mut r = Ring::new(capacity);
        for i in 0..n {
            r.push(i);
        }
        r
    }

    #[test]
    fn keeps_the_last_capacity_records_and_counts_the_rest() {
        let r = filled(3, 2);
        assert_eq!((r.len(), r.total(), r.dropped()), (2, 2, 0));
        assert_eq!(r, [0, 1]);
        let r = filled(3, 10);
        assert_eq!((r.len(), r.total(), r.dropped()), (3, 10, 7));
        assert_eq!(r, [7, 8, 9]);
        assert_eq!((r.first(), r.last(), r[1]), (Some(&7), Some(&9), 8));
        assert_eq!(r.to_vec(), vec![7, 8, 9]);
    }

    #[test]
    fn sequence_numbers_survive_drops() {
        let r = filled(4, 10);
        // Held: sequence numbers 6..10.
        assert_eq!(r.by_seq(5), None);
        assert_eq!(r.by_seq(6), Some(&6));
        assert_eq!(r.by_seq(9), Some(&9));
        assert_eq!(r.by_seq(10), None);
        assert_eq!(r.since(8).copied().collect::<Vec<_>>(), [8, 9]);
        assert_eq!(r.since(0).count(), 4, "what is gone is skipped");
        assert_eq!(r.since(r.total()).count(), 0);
        assert_eq!(r.since(u64::MAX).count(), 0);
    }

    #[test]
    fn zero_capacity_keeps_nothing_but_counts() {
        let r = filled(0, 5);
        assert!(r.is_empty());
        assert_eq!((r.total(), r.dropped()), (5, 5));
        assert_eq!(r.footprint_bytes(), 0);
        assert_eq!(r.since(0).count(), 0);
    }

    #[test]
    fn slots_never_exceed_the_capacity() {
        // 10,000 is not a power of two: a plain VecDeque would take 16,384 slots.
        let cap = 10_000;
        let mut r = Ring::new(cap);
        for i in 0..(3 * cap as u64) {
            r.push(i);
            assert!(r.buf.capacity() <= cap, "{} slots at {i}", r.buf.capacity());
        }
        assert_eq!(r.buf.capacity(), cap);
        let full = r.footprint_bytes();
        assert_eq!(full, cap * std::mem::size_of::<u64>());
        for i in 0..(5 * cap as u64) {
            r.push(i);
        }
        assert_eq!(r.footprint_bytes(), full, "flat once full");
    }

    impl OwnedBytes for u64 {}

    #[test]
    fn footprint_counts_owned_buffers() {
        struct Owner(Vec<u8>);
        impl OwnedBytes for Owner {
            fn owned_bytes(&self) -> usize {
                self.0.capacity()
            }
        }
        let mut r = Ring::new(2);
        for _ in 0..5 {
            r.push(Owner(Vec::with_capacity(100)));
        }
        assert_eq!(
            r.footprint_bytes(),
            r.buf.capacity() * std::mem::size_of::<Owner>() + 2 * 100
        );
    }

    #[test]
    fn serializes_the_held_records() {
        let r = filled(2, 3);
        assert_eq!(serde_json::to_value(&r).unwrap(), serde_json::json!([1, 2]));
    }
}
