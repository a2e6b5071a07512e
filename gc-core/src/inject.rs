//! Fault injection at run time, for tests and debugging: [`HeapConfig::inject`]
//! names one [`InjectPoint`], which then fires *during* concurrent cycles (never at
//! construction), so every fallback of a running heap can be exercised on demand.
//!
//! Cycle-level points fire on every other cycle that reaches them (the first, the
//! third, ...), so one run sees both the fallback and the normal path, and every
//! transition between them. Per-call points fire on one call in four, so a retry
//! always succeeds eventually. The panic points fire once.
//!
//! [`HeapConfig::inject`]: crate::HeapConfig::inject

use crate::error::GcError;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a failure is injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InjectPoint {
    /// The flip's `mremap` fails (every other cycle): the flip engine copies, and the
    /// flip pause compacts in place. Same graph.
    FlipMremap,
    /// `UFFDIO_REGISTER` of the emptied heap fails (every other cycle): the flip
    /// pause compacts in place. Same graph.
    UffdRegister,
    /// One `UFFDIO_COPY` install in four returns `ENOMEM` or `EAGAIN` (alternately)
    /// without installing anything: the installer retries. Same graph.
    UffdCopy,
    /// The `UFFDIO_MOVE`s that recycle from-space fail with `EBUSY` (every other
    /// cycle): recycling ahead moves nothing, and the end's recycling stops half
    /// way. Same graph.
    UffdMove,
    /// Opening userfaultfd fails (every other cycle): that cycle compacts inside the
    /// flip pause. Same graph.
    UffdOpen,
    /// Every other `UFFDIO_MOVE` of to-space pages (the dense prefix's and the
    /// black region's, two pages or more) moves them all but reports only the
    /// first half moved, with `EEXIST`, as Linux's batched move does after a
    /// transient `EAGAIN` (`Userfault::moved_unreported`): the compaction finds
    /// the pages moved by their state and installs none of them again. Same
    /// graph.
    UffdMoveCount,
    /// A page-filling worker panics mid-compaction (once): the process must end at
    /// once, non-zero, with a message naming the phase.
    WorkerPanic,
    /// The fault-serving thread panics (once): as for `WorkerPanic`.
    ServerPanic,
    /// The mark-end pause's drain runs out of budget after 64 steps, and the pause
    /// gives up, on the first three attempts of every cycle: the unscanned rest goes
    /// back to the intake and more concurrent marking rounds run. Same graph.
    MarkRounds,
    /// A concurrent marking worker panics (once): as for `WorkerPanic`.
    MarkPanic,
    /// The compaction's own thread panics (once) after its first pass (recycling
    /// ahead), while the other compaction threads run (the fault server, in server
    /// mode): as for `WorkerPanic`.
    CompactionPanic,
}

impl InjectPoint {
    /// Every point, in the order of [`InjectPoint::name`]'s table.
    pub const ALL: [InjectPoint; 11] = [
        InjectPoint::FlipMremap,
        InjectPoint::UffdRegister,
        InjectPoint::UffdCopy,
        InjectPoint::UffdMove,
        InjectPoint::UffdOpen,
        InjectPoint::UffdMoveCount,
        InjectPoint::WorkerPanic,
        InjectPoint::ServerPanic,
        InjectPoint::MarkRounds,
        InjectPoint::MarkPanic,
        InjectPoint::CompactionPanic,
    ];

    /// The point's name on command lines: `flip-mremap`, `uffd-register`,
    /// `uffd-copy`, `uffd-move`, `uffd-open`, `uffd-move-count`, `worker-panic`,
    /// `server-panic`, `mark-rounds`, `mark-panic`, `compaction-panic`.
    pub fn name(self) -> &'static str {
        match self {
            InjectPoint::FlipMremap => "flip-mremap",
            InjectPoint::UffdRegister => "uffd-register",
            InjectPoint::UffdCopy => "uffd-copy",
            InjectPoint::UffdMove => "uffd-move",
            InjectPoint::UffdOpen => "uffd-open",
            InjectPoint::UffdMoveCount => "uffd-move-count",
            InjectPoint::WorkerPanic => "worker-panic",
            InjectPoint::ServerPanic => "server-panic",
            InjectPoint::MarkRounds => "mark-rounds",
            InjectPoint::MarkPanic => "mark-panic",
            InjectPoint::CompactionPanic => "compaction-panic",
        }
    }

    /// Parses a [`InjectPoint::name`].
    pub fn parse(s: &str) -> Result<InjectPoint, GcError> {
        InjectPoint::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = InjectPoint::ALL.iter().map(|p| p.name()).collect();
                GcError::config(format!(
                    "injection point {s:?} is not one of {}",
                    names.join(", ")
                ))
            })
    }

    /// Whether the point ends the process instead of being survived.
    pub fn is_fatal(self) -> bool {
        matches!(
            self,
            InjectPoint::WorkerPanic
                | InjectPoint::ServerPanic
                | InjectPoint::MarkPanic
                | InjectPoint::CompactionPanic
        )
    }
}

impl std::fmt::Display for InjectPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A heap's injection state: which point, and how often it was reached.
#[derive(Debug, Default)]
pub(crate) struct FaultInjector {
    point: Option<InjectPoint>,
    reached: AtomicU64,
    fired: AtomicU64,
}

impl FaultInjector {
    pub fn new(point: Option<InjectPoint>) -> FaultInjector {
        FaultInjector {
            point,
            ..FaultInjector::default()
        }
    }

    fn reach(&self, p: InjectPoint) -> Option<u64> {
        (self.point == Some(p)).then(|| self.reached.fetch_add(1, Ordering::Relaxed))
    }

    fn fire(&self) -> bool {
        self.fired.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// A cycle-level point: whether it fails this time (on the 1st, 3rd, ... time).
    pub fn cycle(&self, p: InjectPoint) -> bool {
        self.reach(p).is_some_and(|n| n % 2 == 0 && self.fire())
    }

    /// A per-call point: the errno this call fails with, on one call in four
    /// (`ENOMEM` and `EAGAIN` alternately).
    pub fn call_errno(&self, p: InjectPoint) -> Option<i32> {
        let n = self.reach(p)?;
        (n % 4 == 0 && self.fire()).then_some(if n % 8 == 0 {
            flipgc_heap::sys::Errno::ENOMEM as i32
        } else {
            flipgc_heap::sys::Errno::EAGAIN as i32
        })
    }

    /// Whether `p` is the configured point (for points whose firing depends on
    /// their caller's state, such as `MarkRounds`); counts a firing if so.
    pub fn armed(&self, p: InjectPoint) -> bool {
        self.point == Some(p) && self.fire()
    }

    /// A panic point: panics the first time it is reached.
    pub fn panic_once(&self, p: InjectPoint) {
        if self.reach(p) == Some(0) && self.fire() {
            panic!("injected failure: {p}");
        }
    }

    /// How many times the point fired.
    pub fn fired(&self) -> u64 {
        self.fired.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_list_the_good_ones() {
        for p in InjectPoint::ALL {
            assert_eq!(InjectPoint::parse(p.name()).unwrap(), p);
        }
        let e = InjectPoint::parse("disk").unwrap_err().to_string();
        assert!(e.contains("uffd-copy") && e.contains("\"disk\""), "{e}");
    }

    #[test]
    fn firing_patterns() {
        let none = FaultInjector::new(None);
        assert!(!none.cycle(InjectPoint::UffdOpen));
        assert_eq!(none.call_errno(InjectPoint::UffdCopy), None);

        let c = FaultInjector::new(Some(InjectPoint::UffdRegister));
        let fired: Vec<bool> = (0..4).map(|_| c.cycle(InjectPoint::UffdRegister)).collect();
        assert_eq!(fired, [true, false, true, false]);
        assert!(!c.cycle(InjectPoint::UffdOpen), "another point never fires");
        assert_eq!(c.fired(), 2);

        let k = FaultInjector::new(Some(InjectPoint::UffdCopy));
        let errs: Vec<Option<i32>> = (0..8)
            .map(|_| k.call_errno(InjectPoint::UffdCopy))
            .collect();
        assert_eq!(errs[0], Some(flipgc_heap::sys::Errno::ENOMEM as i32));
        assert_eq!(errs[4], Some(flipgc_heap::sys::Errno::EAGAIN as i32));
        assert_eq!(errs.iter().filter(|e| e.is_some()).count(), 2);

        let w = FaultInjector::new(Some(InjectPoint::WorkerPanic));
        let first = std::panic::catch_unwind(|| w.panic_once(InjectPoint::WorkerPanic));
        assert!(first.is_err());
        w.panic_once(InjectPoint::WorkerPanic); // only once
        assert_eq!(w.fired(), 1);
    }
}
