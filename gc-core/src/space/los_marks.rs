//! The large-object space's side table ([`LosMarks`]): one state byte per page
//! of the space, `FREE` where no object starts, else the object's mark
//! (`UNMARKED`, `MARKED`) or the state of its lazy forwarding (`PENDING`,
//! `FORWARDING`; `collect/large.rs`), and the operations on it ([`Claim`]). Its
//! own file, naming its atomics through `crate::sync`, so that the forwarding
//! protocol's model (`tests/large_model.rs`) compiles it against a model checker.

use crate::sync::atomic::{AtomicU8, Ordering};

pub(super) const FREE: u8 = 0;
pub(super) const UNMARKED: u8 = 1;
pub(super) const MARKED: u8 = 2;
/// Live, unmarked, and its reference fields still hold the addresses from before
/// the last flip.
pub(super) const PENDING: u8 = 3;
/// Live, unmarked, and a thread is forwarding its reference fields now.
pub(super) const FORWARDING: u8 = 4;

/// What [`LosMarks::claim_forwarding`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The caller must forward the object's fields, then call
    /// [`LosMarks::forwarded`].
    Mine,
    /// Another thread is forwarding them: wait until the object is no longer
    /// [`LosMarks::awaits_forwarding`].
    Busy,
    /// Nothing to do: forwarded already, or nothing to forward.
    Done,
}

/// Per page of the large-object space: whether an object starts there, and its mark.
pub struct LosMarks {
    base: usize,
    page: usize,
    states: Box<[AtomicU8]>,
}

impl LosMarks {
    pub(crate) fn new(base: usize, len: usize, page: usize) -> LosMarks {
        LosMarks {
            base,
            page,
            states: (0..len / page).map(|_| AtomicU8::new(FREE)).collect(),
        }
    }

    /// The state byte of the object that would start at `addr`: `None` unless
    /// `addr` is the start of a page of the space.
    pub(super) fn state(&self, addr: usize) -> Option<&AtomicU8> {
        let off = addr.checked_sub(self.base)?;
        if off % self.page != 0 {
            return None;
        }
        self.states.get(off / self.page)
    }

    /// Marks the large object starting at `addr`: `Some(true)` if this call marked
    /// it (it must be scanned), `Some(false)` if it was marked already, `None` if no
    /// large object starts there. Lock-free; any thread.
    #[inline]
    pub fn mark(&self, addr: usize) -> Option<bool> {
        let s = self.state(addr)?;
        // Acquire: the object's header and fields, written before it was published
        // (the state is stored with release at allocation).
        match s.compare_exchange(UNMARKED, MARKED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => Some(true),
            Err(MARKED) => Some(false),
            Err(PENDING | FORWARDING) => panic!(
                "large object {addr:#x} is marked before its fields were forwarded \
                 (a compaction ended with it pending)"
            ),
            Err(_) => None,
        }
    }

    /// Whether the large object starting at `addr` has reference fields that still
    /// hold pre-flip addresses (or are being forwarded). `false` where no large
    /// object starts. Lock-free; any thread.
    ///
    /// Acquire: once this reads `false` for an object another thread forwarded,
    /// that thread's stores of the new addresses are visible (it left the state
    /// with a release store, [`LosMarks::forwarded`]).
    #[inline]
    pub fn awaits_forwarding(&self, addr: usize) -> bool {
        self.state(addr)
            .is_some_and(|s| s.load(Ordering::Acquire) >= PENDING)
    }

    /// Whether the large object at `addr` is pending and unclaimed.
    pub fn is_pending(&self, addr: usize) -> bool {
        self.state(addr)
            .is_some_and(|s| s.load(Ordering::Acquire) == PENDING)
    }

    /// Takes the forwarding of the large object at `addr`, if it is pending.
    pub fn claim_forwarding(&self, addr: usize) -> Claim {
        let Some(s) = self.state(addr) else {
            return Claim::Done;
        };
        // Acquire on success: the fields as the flip pause left them (and as the
        // mutators wrote them before it) are visible to the forwarding thread.
        match s.compare_exchange(PENDING, FORWARDING, Ordering::Acquire, Ordering::Acquire) {
            Ok(_) => Claim::Mine,
            Err(FORWARDING) => Claim::Busy,
            Err(_) => Claim::Done,
        }
    }

    /// Ends the forwarding the caller claimed ([`Claim::Mine`]) of the object at
    /// `addr`. Release: publishes the forwarded fields to every thread that then
    /// reads the state ([`LosMarks::awaits_forwarding`], acquire).
    pub fn forwarded(&self, addr: usize) {
        let s = self.state(addr).expect("a large object start");
        debug_assert_eq!(s.load(Ordering::Relaxed), FORWARDING);
        s.store(UNMARKED, Ordering::Release);
    }

    /// Addresses of the large objects still [`PENDING`] (a scan of the whole table:
    /// one byte per page of the space).
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.states
            .iter()
            .enumerate()
            .filter(|(_, s)| s.load(Ordering::Relaxed) == PENDING)
            .map(|(i, _)| self.base + i * self.page)
    }

    /// Whether a large object starts at `addr` (marked or not).
    pub fn exists(&self, addr: usize) -> bool {
        self.state(addr)
            .is_some_and(|s| s.load(Ordering::Acquire) != FREE)
    }

    /// Whether a large object starts at `addr` and is marked.
    pub fn is_marked(&self, addr: usize) -> bool {
        self.state(addr)
            .is_some_and(|s| s.load(Ordering::Acquire) == MARKED)
    }
}
