//! [`FlipReport`]: what one flip did, how, and how long it took.

use flipgc_heap::Level;
use std::fmt;
use std::time::Duration;

/// How the bytes were moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// `mremap(MAYMOVE|FIXED)`: page-table entries were moved, no byte copied.
    Mremap {
        /// Whether `MREMAP_DONTUNMAP` kept the source mapped (and empty).
        dontunmap: bool,
    },
    /// `memcpy` (possibly multi-threaded).
    Copy {
        /// Threads that copied.
        threads: usize,
    },
}

impl Strategy {
    /// `"mremap"`, `"mremap+dontunmap"` or `"copy"`.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Mremap { dontunmap: false } => "mremap",
            Strategy::Mremap { dontunmap: true } => "mremap+dontunmap",
            Strategy::Copy { .. } => "copy",
        }
    }
}

/// What the source range holds after a flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceState {
    /// Still mapped (`MREMAP_DONTUNMAP`) and empty: reads as zeros, ready for userfaultfd.
    KeptEmpty,
    /// Unmapped by the move and mapped again fresh: reads as zeros.
    Remapped,
    /// Untouched: the copy path leaves the old bytes in place.
    Intact,
}

/// One planned part as reported: `bytes` moved at `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartReport {
    /// The level the addresses allowed.
    pub level: Level,
    /// Bytes in this part.
    pub bytes: usize,
}

/// The record of one flip.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct FlipReport {
    /// How the bytes moved (after any fallback).
    pub strategy: Strategy,
    /// For `Mremap`: the planned parts in address order. Empty for `Copy`.
    pub parts: Vec<PartReport>,
    /// Total bytes flipped.
    pub bytes: usize,
    /// Wall time of the whole flip, including any failed `mremap` and the fallback copy.
    pub elapsed: Duration,
    /// Why the engine fell back to copying, if it did (the `mremap` error, errno kept).
    pub fallback_reason: Option<String>,
    /// What the source range holds now.
    pub source: SourceState,
}

impl FlipReport {
    /// The highest level a part moved at, or `None` for a copy.
    pub fn level(&self) -> Option<Level> {
        self.parts.iter().map(|p| p.level).max()
    }

    /// `"pud"`, `"pmd"`, `"pte"` or `"copy"`: the level used, as benchmarks print it.
    pub fn level_name(&self) -> &'static str {
        self.level().map_or("copy", |l| l.name())
    }
}

impl fmt::Display for FlipReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} at {} in {:?}",
            self.strategy.name(),
            flipgc_heap::fmt_bytes(self.bytes),
            self.level_name(),
            self.elapsed
        )?;
        if let Some(why) = &self.fallback_reason {
            write!(f, " (fell back to copy: {why})")?;
        }
        Ok(())
    }
}
