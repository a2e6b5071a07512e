//! The collector. Every cycle runs on the heap's GC driver thread ([`driver`]), as
//! one of two orchestrations, each a file that only calls the phases in order:
//! - [`concurrent`]: mark-start pause -> concurrent marking -> mark-end pause ->
//!   concurrent plan -> flip pause -> concurrent compaction (or compaction inside
//!   the flip pause where the kernel cannot fill pages on demand);
//! - [`full`]: one stop-the-world pause (the reference path).
//!
//! The phases, one file each: [`pause`] (stopping the world, timing, recording),
//! [`roots`] (gathering and forwarding roots), [`mark`] (tracing),
//! [`concurrent_mark`] (the marking pauses and rounds), [`sanity`] (the re-trace that
//! checks concurrent marking), [`plan`] (new addresses and the per-page plan, with
//! [`forward`]'s prefix sums), [`flip`] (moving the heap to from-space), [`fill`]
//! (producing to-space pages), [`compaction`] (filling them concurrently through
//! userfaultfd), [`release`] (what a cycle gives back), and [`verify`].

pub mod bitmap;
#[cfg(target_os = "linux")]
pub mod compaction;
pub mod concurrent;
pub mod concurrent_mark;
pub mod driver;
pub mod fill;
pub mod flip;
pub mod forward;
pub mod full;
pub mod mark;
pub mod pause;
pub mod plan;
pub mod release;
pub mod roots;
pub mod sanity;
pub mod verify;

use crate::heap::HeapInner;
use std::sync::Arc;

/// Where the heap is in a collection cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CyclePhase {
    /// No cycle: a collection may start.
    Idle,
    /// From the mark-start pause to the end of marking (the barrier is on).
    Marking,
    /// Between the end of marking and the flip pause.
    Planning,
    /// After the flip pause, until every to-space page is installed.
    Compacting,
}

use bitmap::Bitmap;

/// The collector's side tables, sized for the whole moving space.
pub struct CollectorState {
    /// A bit at each live object's header word.
    pub mark: Bitmap,
    /// A bit at every word of every live object.
    pub live: Bitmap,
    /// Per to-space page: the from-space word index of the object covering the
    /// page's first word, and that word's offset inside it.
    pub page_first: Vec<(usize, usize)>,
}

impl CollectorState {
    /// Tables for a space of `words` words.
    pub fn new(words: usize) -> CollectorState {
        CollectorState {
            mark: Bitmap::new(words),
            live: Bitmap::new(words),
            page_first: Vec::new(),
        }
    }
}

/// Runs cycle `n` (on the driver thread): the concurrent cycle, or the one-pause
/// cycle where concurrent marking is off.
pub fn run_cycle(inner: &Arc<HeapInner>, n: u64) {
    if inner.config.concurrent_marking {
        concurrent::run(inner, n);
    } else {
        full::run(inner, n);
    }
}
