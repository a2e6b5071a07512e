//! [`HeapConfig`]: everything a heap is built with, validated at construction.

use crate::error::GcError;
use crate::host::Requirement;
use crate::inject::InjectPoint;
use crate::priority::GcThreadPriority;
use flipgc_heap::{Geometry, Level};

/// The largest PUD entry [`HeapConfig::span_len`] rounds the spans up to: 1 GiB
/// (x86_64, arm64 with 4 KiB pages), not arm64's 64 GiB and 4 TiB entries.
pub const MAX_ROUNDED_PUD: usize = 1 << 30;

/// How the collection pause moves the heap to from-space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FlipMode {
    /// `mremap` at the best level the reservation's alignment gives; copy if the
    /// kernel cannot.
    #[default]
    Auto,
    /// `mremap`, with from-space placed so the move happens at exactly this level
    /// (PMD or PTE by mutual misalignment; PUD needs a capacity of at least 1 GiB).
    Level(Level),
    /// Always copy (the fallback path, forced).
    Copy,
}

impl FlipMode {
    /// Parses `auto`, `pud`, `pmd`, `pte` or `copy`.
    pub fn parse(s: &str) -> Result<FlipMode, GcError> {
        Ok(match s {
            "auto" => FlipMode::Auto,
            "pud" => FlipMode::Level(Level::Pud),
            "pmd" => FlipMode::Level(Level::Pmd),
            "pte" => FlipMode::Level(Level::Pte),
            "copy" => FlipMode::Copy,
            _ => {
                return Err(GcError::config(format!(
                    "flip mode {s:?} is not one of auto, pud, pmd, pte, copy"
                )))
            }
        })
    }

    /// The name [`FlipMode::parse`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            FlipMode::Auto => "auto",
            FlipMode::Level(l) => l.name(),
            FlipMode::Copy => "copy",
        }
    }
}

/// Who fills a page a mutator touches during concurrent compaction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FaultMode {
    /// `Sigbus` where the kernel has `UFFD_FEATURE_SIGBUS` (and the handler could be
    /// installed), else `Server`.
    #[default]
    Auto,
    /// The faulting thread fills the page itself, in its `SIGBUS` handler
    /// (userfaultfd's SIGBUS mode; see `sigbus.rs`). Refused at construction where
    /// the kernel lacks the feature.
    Sigbus,
    /// The faulting thread sleeps in the kernel while a fault-serving thread fills
    /// the page (the fallback).
    Server,
}

impl FaultMode {
    /// Parses `auto`, `sigbus` or `server`.
    pub fn parse(s: &str) -> Result<FaultMode, GcError> {
        Ok(match s {
            "auto" => FaultMode::Auto,
            "sigbus" => FaultMode::Sigbus,
            "server" => FaultMode::Server,
            _ => {
                return Err(GcError::config(format!(
                    "fault mode {s:?} is not one of auto, sigbus, server"
                )))
            }
        })
    }

    /// The name [`FaultMode::parse`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            FaultMode::Auto => "auto",
            FaultMode::Sigbus => "sigbus",
            FaultMode::Server => "server",
        }
    }
}

/// Test-only: called by a concurrent compaction's background worker with the
/// to-space pages at addresses `[start, end)`: with `false` before it tries to claim
/// that run (waiting there holds back the background fill, claiming nothing), and
/// with `true` for each page of the run right after it has claimed it, before it
/// fills it (`[start, end)` is that one page; waiting there holds it, and the pages
/// of the run claimed before it, in the `FILLING` state). Only with the feature
/// `test-seams` (this crate's own tests).
#[cfg(feature = "test-seams")]
#[doc(hidden)]
#[derive(Clone)]
pub struct FillHook(pub std::sync::Arc<dyn Fn(usize, usize, bool) + Send + Sync>);

#[cfg(feature = "test-seams")]
impl std::fmt::Debug for FillHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FillHook(..)")
    }
}

/// When a collection starts (besides an explicit request).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum GcTrigger {
    /// When an allocation does not fit in the moving space.
    #[default]
    WhenFull,
    /// Also after this many bytes have been allocated since the last collection:
    /// the allocating thread then runs a cycle and waits for its flip, as
    /// `Mutator::collect` does (deterministic; for tests and tuning).
    AfterBytes(usize),
}

/// The points of a concurrent cycle where [`HeapConfig::cycle_hook`] is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CyclePoint {
    /// After the mark-start pause (and the root scans of mutators that had not
    /// resumed), before the markers start: mutators run with the barrier on.
    Marking,
    /// After marking, before the concurrent plan: mutators run, and what they
    /// allocated since the mark-start pause is black (live by definition, moved by a
    /// constant slide).
    Planning,
    /// After the plan and the parking of dead extents (`collect/park.rs`), before the
    /// flip pause: mutators run, and parked ranges of the heap read as zeros.
    Flipping,
    /// After a flip pause that left the compaction concurrent, before the
    /// compaction's own work starts (the forwarding of the large objects' fields no
    /// mutator has needed yet, recycling, the background fill): mutators run, pages
    /// fill on demand, and large objects are forwarded as mutators touch them.
    Compacting,
}

/// A callback run by the collector at fixed [`CyclePoint`]s of each concurrent cycle,
/// on the GC driver thread, with the mutators running.
/// For tests that need a mutation to land in a given phase: the hook can wait until
/// another thread has made it. It must not use a mutator of its own heap.
#[derive(Clone)]
pub struct CycleHook(pub std::sync::Arc<dyn Fn(CyclePoint) + Send + Sync>);

impl std::fmt::Debug for CycleHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CycleHook(..)")
    }
}

/// Heap sizing ([`HeapConfig::sizing`]): the capacity becomes a maximum, and the
/// heap's *soft limit* follows the live data. Cycles are paced against the soft
/// limit, and memory above it is returned to the OS after each cycle.
///
/// After a cycle that found `live` bytes live (marked objects and kept large
/// objects), the soft limit is `clamp(live · (1 + growth), initial, capacity)`: with `growth = 1.0`
/// (Go's `GOGC=100`), the next cycle is due once as much was allocated again as
/// was live. Allocation past the soft limit is never refused: the limit decides
/// when cycles start and what memory is kept, and only the capacity is a wall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    /// The soft limit to start with, and its floor (bytes).
    pub initial: usize,
    /// Allocation allowed between cycles, as a fraction of what the last cycle found
    /// live.
    pub growth: f64,
}

impl Default for Sizing {
    /// 32 MiB to start with, growth 1.0.
    fn default() -> Sizing {
        Sizing {
            initial: 32 << 20,
            growth: 1.0,
        }
    }
}

/// Heap configuration. Build with `HeapConfig::new(capacity)` and adjust fields.
#[derive(Clone, Debug)]
pub struct HeapConfig {
    /// Bytes in the moving space (rounded up to whole pages). From-space is the same.
    pub capacity: usize,
    /// Objects of at least this many bytes go to the non-moving large-object space.
    pub large_object_threshold: usize,
    /// Bytes the large-object space may hold.
    pub large_object_capacity: usize,
    /// Bytes of a thread-local allocation buffer.
    pub tlab_size: usize,
    /// Threads doing collection work inside pauses (marking and page filling in a
    /// one-pause cycle, page filling in a flip pause that compacts in place).
    pub gc_workers: usize,
    /// Threads doing collection work while mutators run (concurrent marking,
    /// concurrent page filling): fewer than `gc_workers`, so that mutators keep CPUs
    /// (a quarter of the CPUs by default, at least one, as the JVM's concurrent
    /// collectors do).
    pub concurrent_workers: usize,
    /// How the heap is moved at the flip.
    pub flip: FlipMode,
    /// Back the moving space with transparent huge pages (`MADV_HUGEPAGE`): for the
    /// pre-touch and the allocation before the first concurrent compaction. The
    /// heap span takes them only with [`HeapConfig::pretouch`]: a mutator's first
    /// write into an empty 2 MiB range would otherwise be one page fault zeroing
    /// 2 MiB, during which it cannot reach a GC point (milliseconds of time to
    /// safepoint on a VM; `space/moving.rs`), so without the pre-touch, or with
    /// this off, the heap span is advised `MADV_NOHUGEPAGE`. The first concurrent
    /// compaction turns the heap span to `MADV_NOHUGEPAGE` for good, whatever this
    /// says (it installs base pages anyway, and on a span registered with
    /// userfaultfd a huge-page fault zeroes 2 MiB for nothing before it reports the
    /// fault; `collect/flip.rs`).
    pub thp: bool,
    /// Run the heap verifier after every collection (panics on a broken heap).
    pub verify_after_gc: bool,
    /// When collections start.
    pub trigger: GcTrigger,
    /// Fault injection at run time (tests and debugging): the point fires during
    /// collections, never at construction. See [`InjectPoint`].
    pub inject: Option<InjectPoint>,
    /// Fault the whole moving space in at construction (as the JVM's
    /// `-XX:+AlwaysPreTouch` does), so that first allocations do not pay the
    /// kernel's page faults: it costs the capacity in resident memory up front.
    /// With the one-pause cycle (`concurrent_marking` off) and `recycle_from_space`,
    /// from-space too, which that cycle keeps populated from its first collection
    /// on (twice the capacity up front, what it holds anyway after one collection).
    /// The collector's mark and live-words bitmaps (a 32nd of the capacity) are
    /// written once too, so that marking takes no first-touch faults on them.
    pub pretouch: bool,
    /// A callback at fixed points of each concurrent cycle (tests; see [`CycleHook`]).
    pub cycle_hook: Option<CycleHook>,
    /// Keep from-space's memory populated between collections and reuse it as the
    /// heap's pages at the next one, so compaction writes into present pages instead
    /// of faulting (page faults are expensive; see docs/architecture.md). Costs
    /// resident memory: up to the used heap size again. Off: from-space is released
    /// (`MADV_DONTNEED`) after each collection.
    pub recycle_from_space: bool,
    /// Let a running mutator run a concurrent cycle's mark-end and flip pauses, at
    /// its next GC point, as the mutator that triggers a cycle runs its mark-start
    /// pause: it waits for no other thread to stop or wake
    /// (`collect/pause_offer.rs`). The driver runs a pause when this is off, when no
    /// mutator is running (or waiting for memory), or when none comes within a
    /// millisecond.
    pub pauses_by_mutator: bool,
    /// Compact concurrently: a mark pause, then a flip pause that only forwards roots,
    /// moves the heap and registers it with userfaultfd, after which pages are filled
    /// in the background and on demand (see `collect/concurrent.rs`). Used where the
    /// kernel allows (userfaultfd opens) and the flip mode moves pages (not `Copy`);
    /// otherwise, or when off, compaction runs inside one pause (`"full"`).
    pub concurrent_compaction: bool,
    /// Mark concurrently: a short mark-start pause, marking on the GC workers while
    /// mutators run (with a snapshot-at-the-beginning write barrier), and a short,
    /// time-bounded mark-end pause; then the flip pause, with compaction concurrent
    /// where `concurrent_compaction` is possible, else inside the flip pause. Off:
    /// every collection is one stop-the-world pause (`"full"`), the reference path.
    pub concurrent_marking: bool,
    /// Young cycles (on by default): a concurrent cycle started by the pacer or by
    /// `GcTrigger::AfterBytes` may take the survivors of the last cycle as live
    /// without tracing them, reading them once for their references to newer
    /// objects; their garbage waits for the next full cycle (see
    /// `collect/sticky.rs` for when one comes: always for `Mutator::collect` and
    /// for an allocation that finds the heap full). Off: every cycle marks from
    /// the roots alone. No effect on the one-pause cycle.
    pub young_cycles: bool,
    /// What the host must give this heap, or `Heap::new` fails with
    /// [`GcErrorKind::Unsupported`](crate::GcErrorKind::Unsupported) instead of
    /// falling back (see [`HeapConfig::require`]). Empty by default: every
    /// fallback is taken, and said ([`Heap::host_mode`](crate::Heap::host_mode)).
    pub requirements: Vec<crate::host::Requirement>,
    /// Whether the write barrier logs overwritten references during concurrent
    /// marking: [`SatbBarrier::ON`] (the default). Off makes marking unsound, so
    /// only the `unsafe` [`SatbBarrier::off`] makes that value.
    pub satb_barrier: SatbBarrier,
    /// Heap sizing: `None` (the default) makes `capacity` the heap's fixed size (every
    /// cycle is paced against it, and memory once used stays resident, for
    /// reuse); `Some` makes it a maximum (see [`Sizing`], [`HeapConfig::growable`]).
    pub sizing: Option<Sizing>,
    /// What the GC log prints on stderr (see docs/gc-log.md); off by default.
    /// [`Heap::new`](crate::Heap::new) adds what the environment variable
    /// `FLIPGC_LOG` asks for ([`GcLog::from_env`](crate::GcLog::from_env)).
    pub gc_log: crate::gclog::GcLog,
    /// Who fills the pages mutators touch during concurrent compaction: the faulting
    /// thread itself in a `SIGBUS` handler, or a fault-serving thread (see
    /// [`FaultMode`]). Background workers fill pages in address order either way.
    pub fault_mode: FaultMode,
    /// Test-only (feature `test-seams`): see `FillHook`.
    #[cfg(feature = "test-seams")]
    #[doc(hidden)]
    pub fill_hook: Option<FillHook>,
    /// How many exact records of each kind the pause log keeps
    /// ([`Heap::pause_log`](crate::Heap::pause_log)): the last this many pauses,
    /// cycles, concurrent compactions and sanity re-traces, in rings, so that the
    /// log's memory stays bounded however long the heap runs. Its whole-run
    /// statistics (counts, totals, maxima, histograms for percentiles) count every
    /// record whatever this says. Default [`DEFAULT_PAUSE_LOG_CAPACITY`](crate::DEFAULT_PAUSE_LOG_CAPACITY)
    /// (10,000); must be at least 1 (0 is refused: the collector reads the newest
    /// cycle record, and a log with no records would hide every pause from its
    /// readers).
    pub pause_log_capacity: usize,
    /// How the collector's own threads are scheduled: [`GcThreadPriority::Inherit`]
    /// (the default) keeps what they inherit; `Nice(n)` or a real-time policy is
    /// applied by each collector thread when it starts (see [`GcThreadPriority`]
    /// for what happens without the privilege). Out-of-range values are an error
    /// from `Heap::new`.
    pub gc_thread_priority: GcThreadPriority,
}

/// Parses a heap capacity such as `64m`, `1g`, `1.5g` or `2GiB` (binary units; see
/// `flipgc_heap::parse_size`) and checks it lies between [`MIN_CAPACITY`] and
/// [`MAX_CAPACITY`]. The error says why, for command lines.
pub fn parse_capacity(text: &str) -> Result<usize, String> {
    let bytes = flipgc_heap::parse_size(text).map_err(|e| e.to_string())?;
    if !(MIN_CAPACITY..=MAX_CAPACITY).contains(&bytes) {
        return Err(format!(
            "{text:?}: a heap capacity must be between {} KiB and {} TiB",
            MIN_CAPACITY >> 10,
            MAX_CAPACITY >> 40
        ));
    }
    Ok(bytes)
}

/// Whether the snapshot-at-the-beginning write barrier logs the references that
/// stores overwrite during concurrent marking ([`HeapConfig::satb_barrier`]).
/// Safe code can only have it on: the value that turns it off is made by the
/// `unsafe` [`SatbBarrier::off`], for tests that show a missing barrier is caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SatbBarrier(bool);

impl SatbBarrier {
    /// The barrier logs (the default).
    pub const ON: SatbBarrier = SatbBarrier(true);

    /// The barrier does not log.
    ///
    /// # Safety
    ///
    /// With the barrier off, concurrent marking can miss an object that a mutator
    /// moves from an unscanned field into a scanned one: the collection then frees
    /// or moves a reachable object, and later accesses to it are undefined
    /// behaviour. Use it only in a test that expects that failure, with nothing
    /// relying on the heap's contents afterwards.
    pub const unsafe fn off() -> SatbBarrier {
        SatbBarrier(false)
    }

    /// Whether the barrier logs.
    pub const fn is_on(self) -> bool {
        self.0
    }
}

/// The smallest capacity accepted.
pub const MIN_CAPACITY: usize = 64 << 10;
/// The largest capacity accepted (the heap and from-space must both fit, aligned,
/// in a 47-bit user address space).
pub const MAX_CAPACITY: usize = 16 << 40;

impl HeapConfig {
    /// Demands `r` of the host: `Heap::new` then returns
    /// [`GcErrorKind::Unsupported`](crate::GcErrorKind::Unsupported), saying what is
    /// missing and how to get it, where it would otherwise fall back (compact
    /// inside the pause without userfaultfd, or flip at a lower level or by
    /// copying).
    ///
    /// ```
    /// use flipgc_core::{HeapConfig, Requirement};
    /// let mut cfg = HeapConfig::new(64 << 20);
    /// cfg.require(Requirement::ConcurrentCompaction);
    /// assert_eq!(cfg.requirements, [Requirement::ConcurrentCompaction]);
    /// ```
    pub fn require(&mut self, r: Requirement) -> &mut HeapConfig {
        if !self.requirements.contains(&r) {
            self.requirements.push(r);
        }
        self
    }

    /// Defaults for a heap of `capacity` bytes: 64 KiB large-object threshold, a
    /// large-object space as big as the heap, 32 KiB TLABs (at most a quarter of the
    /// capacity), one GC worker per CPU (a quarter of them, at least one, while
    /// mutators run),
    /// automatic flip, THP on, no verification, collect when full, from-space recycled,
    /// concurrent compaction where the kernel allows (pages mutators touch filled in
    /// their own `SIGBUS` handlers where the kernel allows), no pre-touching, no GC log,
    /// a pause log of the last 10,000 records of each kind.
    pub fn new(capacity: usize) -> HeapConfig {
        HeapConfig {
            capacity,
            large_object_threshold: 64 << 10,
            large_object_capacity: capacity,
            tlab_size: (32 << 10).min(capacity / 4 / 8 * 8).max(256),
            gc_workers: crate::sync::cpus(),
            concurrent_workers: (crate::sync::cpus() / 4).max(1),
            flip: FlipMode::Auto,
            thp: true,
            verify_after_gc: false,
            trigger: GcTrigger::WhenFull,
            inject: None,
            pretouch: false,
            cycle_hook: None,
            recycle_from_space: true,
            pauses_by_mutator: true,
            concurrent_compaction: true,
            concurrent_marking: true,
            young_cycles: true,
            satb_barrier: SatbBarrier::ON,
            requirements: Vec::new(),
            sizing: None,
            gc_log: crate::gclog::GcLog::OFF,
            fault_mode: FaultMode::Auto,
            #[cfg(feature = "test-seams")]
            fill_hook: None,
            pause_log_capacity: crate::pauselog::DEFAULT_PAUSE_LOG_CAPACITY,
            gc_thread_priority: GcThreadPriority::Inherit,
        }
    }

    /// A heap that grows up to `max` bytes as its live data needs, starting small,
    /// and gives memory back after bursts ([`Sizing::default`]): for runtimes whose
    /// users should never have to size the heap. Reserving `max` costs address space
    /// only.
    pub fn growable(max: usize) -> HeapConfig {
        let mut c = HeapConfig::new(max);
        c.sizing = Some(Sizing::default());
        c
    }

    /// Bytes of each of the heap's spans (the heap, from-space, and the scratch span)
    /// on geometry `g`: the capacity, rounded up to whole PUD entries in `Auto` mode
    /// where a PUD entry covers at most [`MAX_ROUNDED_PUD`] (x86_64, arm64 with 4 KiB
    /// pages). Only the capacity is ever allocated; the rest is address space
    /// (`MAP_NORESERVE`, no page tables until touched).
    ///
    /// Why: a heap smaller than a PUD entry, placed at PMD alignment, was flipped one
    /// PMD entry at a time, each followed by a TLB flush on every CPU the process ran
    /// on: 305 us at the median for a 64 MiB heap in the 8-thread churn, against 35 us
    /// for one PUD entry.
    pub fn span_len(&self, g: &Geometry) -> usize {
        match (self.flip, g.pud) {
            (FlipMode::Auto, Some(pud)) if pud <= MAX_ROUNDED_PUD => {
                self.capacity.next_multiple_of(pud)
            }
            _ => self.capacity,
        }
    }

    /// The page-table level this configuration's flips move the heap at on this
    /// machine when the kernel moves it (`None` for [`FlipMode::Copy`]): a forced
    /// level as it is, and for `Auto` the best level of [`HeapConfig::span_len`].
    pub fn flip_level(&self) -> Option<Level> {
        let g = flipgc_heap::Capabilities::probe().geometry;
        match self.flip {
            FlipMode::Copy => None,
            FlipMode::Level(l) => Some(l),
            FlipMode::Auto => Some(g.best_level(self.span_len(&g))),
        }
    }

    /// The soft limit right after construction: the capacity, or the initial size.
    pub fn initial_limit(&self) -> usize {
        match self.sizing {
            Some(s) => s.initial.min(self.capacity),
            None => self.capacity,
        }
    }

    /// Checks every field, returning the configuration with `capacity` rounded up to
    /// whole pages, or an error naming the bad value.
    pub fn validated(mut self, geometry: &Geometry) -> Result<HeapConfig, GcError> {
        let bad = |m: String| Err(GcError::config(m));
        if self.capacity < MIN_CAPACITY {
            return bad(format!(
                "capacity {} bytes is below the minimum of {MIN_CAPACITY}",
                self.capacity
            ));
        }
        if self.capacity > MAX_CAPACITY {
            return bad(format!(
                "capacity {} bytes exceeds the maximum of {MAX_CAPACITY} (16 TiB): the heap and \
                 from-space must both fit in the address space",
                self.capacity
            ));
        }
        self.capacity = self.capacity.next_multiple_of(geometry.page);
        if self.large_object_threshold < 16 || self.large_object_threshold > self.capacity {
            return bad(format!(
                "large-object threshold {} bytes must be between 16 and the capacity ({})",
                self.large_object_threshold, self.capacity
            ));
        }
        if self.large_object_capacity < self.large_object_threshold {
            return bad(format!(
                "large-object capacity {} bytes is below the large-object threshold ({}): no large object could ever fit",
                self.large_object_capacity, self.large_object_threshold
            ));
        }
        if self.large_object_capacity > MAX_CAPACITY {
            return bad(format!(
                "large-object capacity {} bytes exceeds {MAX_CAPACITY}",
                self.large_object_capacity
            ));
        }
        if self.tlab_size < 256 || self.tlab_size > self.capacity / 4 || self.tlab_size % 8 != 0 {
            return bad(format!(
                "TLAB size {} bytes must be a multiple of 8 between 256 and a quarter of the capacity ({})",
                self.tlab_size,
                self.capacity / 4
            ));
        }
        if self.gc_workers == 0 || self.gc_workers > 256 {
            return bad(format!(
                "GC worker count {} must be between 1 and 256",
                self.gc_workers
            ));
        }
        if self.concurrent_workers == 0 || self.concurrent_workers > 256 {
            return bad(format!(
                "concurrent worker count {} must be between 1 and 256",
                self.concurrent_workers
            ));
        }
        if let Some(s) = self.sizing {
            if s.initial < MIN_CAPACITY {
                return bad(format!(
                    "initial heap size {} bytes is below the minimum of {MIN_CAPACITY}",
                    s.initial
                ));
            }
            if !(s.growth > 0.0 && s.growth <= 100.0) {
                return bad(format!(
                    "heap growth {} must be above 0 and at most 100 (a fraction of the live data)",
                    s.growth
                ));
            }
        }
        if self.pause_log_capacity == 0 {
            return bad(
                "pause-log capacity 0 would keep no pause records: it must be at least 1 \
                 (the whole-run statistics count every record anyway; the default is 10000)"
                    .into(),
            );
        }
        self.gc_thread_priority.validate()?;
        if let GcTrigger::AfterBytes(0) = self.trigger {
            return bad("trigger AfterBytes(0) would collect on every allocation".into());
        }
        if let FlipMode::Level(level) = self.flip {
            match geometry.size(level) {
                None => return bad(format!("flip level {level} does not exist on this host ({geometry})")),
                Some(size) if level > flipgc_heap::Level::Pte && self.capacity < size => {
                    return bad(format!(
                        "flip level {level} needs a capacity of at least one {level} entry ({size} bytes), got {}",
                        self.capacity
                    ))
                }
                _ => {}
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_heap::Arch;

    #[test]
    fn auto_spans_are_whole_pud_entries_of_at_most_1_gib() {
        const M: usize = 1 << 20;
        const G: usize = 1 << 30;
        let x86 = Geometry::for_arch(Arch::X86_64, 4096).unwrap();
        let a16 = Geometry::for_arch(Arch::Aarch64, 16 << 10).unwrap();
        let a4 = Geometry::for_arch(Arch::Aarch64, 4096).unwrap();
        let span = |cap: usize, flip: FlipMode, g: &Geometry| {
            let mut c = HeapConfig::new(cap);
            c.flip = flip;
            c.span_len(g)
        };
        for g in [&x86, &a4] {
            assert_eq!(span(64 * M, FlipMode::Auto, g), G);
            assert_eq!(span(G, FlipMode::Auto, g), G);
            assert_eq!(span(G + 2 * M, FlipMode::Auto, g), 2 * G);
            assert_eq!(g.best_level(span(4 * M, FlipMode::Auto, g)), Level::Pud);
            // Forced levels and copies keep the capacity: their placement is the test.
            for flip in [
                FlipMode::Copy,
                FlipMode::Level(Level::Pmd),
                FlipMode::Level(Level::Pte),
            ] {
                assert_eq!(span(64 * M, flip, g), 64 * M, "{flip:?}");
            }
        }
        // arm64's 64 GiB PUD entries are too large to round up to.
        assert_eq!(span(64 * M, FlipMode::Auto, &a16), 64 * M);
        assert_eq!(
            a16.best_level(span(64 * M, FlipMode::Auto, &a16)),
            Level::Pmd
        );
    }

    #[test]
    fn capacities_parse_with_units_and_are_range_checked() {
        assert_eq!(parse_capacity("1g"), Ok(1 << 30));
        assert_eq!(parse_capacity(" 1.5GiB "), Ok(3 << 29));
        assert_eq!(parse_capacity("65536"), Ok(MIN_CAPACITY));
        for (bad, why) in [
            ("1k", "between 64 KiB and 16 TiB"),
            ("17t", "between"),
            ("lots", "not a number"),
            ("1x", "unknown unit"),
            ("0", "positive"),
        ] {
            let e = parse_capacity(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    fn g() -> Geometry {
        Geometry::for_arch(Arch::X86_64, 4096).unwrap()
    }

    #[test]
    fn defaults_validate_and_round_capacity() {
        let c = HeapConfig::new(1_000_000).validated(&g()).unwrap();
        assert_eq!(c.capacity, 1_003_520);
        // The smallest capacity works with defaults (the TLAB shrinks to fit).
        let c = HeapConfig::new(MIN_CAPACITY).validated(&g()).unwrap();
        assert_eq!(c.tlab_size, MIN_CAPACITY / 4);
    }

    #[test]
    fn every_bad_field_is_named() {
        let cases: Vec<(HeapConfig, &str)> = vec![
            (HeapConfig::new(0), "capacity 0"),
            (HeapConfig::new(MAX_CAPACITY + 1), "exceeds the maximum"),
            (
                HeapConfig {
                    large_object_threshold: 8,
                    ..HeapConfig::new(1 << 20)
                },
                "threshold 8",
            ),
            (
                HeapConfig {
                    large_object_threshold: 2 << 20,
                    ..HeapConfig::new(1 << 20)
                },
                "threshold",
            ),
            (
                HeapConfig {
                    tlab_size: 100,
                    ..HeapConfig::new(1 << 20)
                },
                "TLAB size 100",
            ),
            (
                HeapConfig {
                    tlab_size: 1 << 20,
                    ..HeapConfig::new(1 << 20)
                },
                "TLAB size",
            ),
            (
                HeapConfig {
                    gc_workers: 0,
                    ..HeapConfig::new(1 << 20)
                },
                "worker count 0",
            ),
            (
                HeapConfig {
                    gc_workers: 1000,
                    ..HeapConfig::new(1 << 20)
                },
                "worker count 1000",
            ),
            (
                HeapConfig {
                    concurrent_workers: 0,
                    ..HeapConfig::new(1 << 20)
                },
                "concurrent worker count 0",
            ),
            (
                HeapConfig {
                    pause_log_capacity: 0,
                    ..HeapConfig::new(1 << 20)
                },
                "pause-log capacity 0",
            ),
            (
                HeapConfig {
                    trigger: GcTrigger::AfterBytes(0),
                    ..HeapConfig::new(1 << 20)
                },
                "AfterBytes(0)",
            ),
            (
                HeapConfig {
                    gc_thread_priority: GcThreadPriority::Nice(20),
                    ..HeapConfig::new(1 << 20)
                },
                "nice value 20 must be between -20 and 19",
            ),
            (
                HeapConfig {
                    gc_thread_priority: GcThreadPriority::RealTime {
                        policy: crate::priority::RtPolicy::Fifo,
                        priority: 0,
                    },
                    ..HeapConfig::new(1 << 20)
                },
                "real-time priority 0 (Fifo) must be between 1 and 99",
            ),
            (
                HeapConfig {
                    flip: FlipMode::Level(Level::Pud),
                    ..HeapConfig::new(64 << 20)
                },
                "flip level pud",
            ),
            (
                HeapConfig {
                    flip: FlipMode::Level(Level::Pmd),
                    ..HeapConfig::new(1 << 20)
                },
                "flip level pmd",
            ),
        ];
        for (cfg, needle) in cases {
            let e = cfg.validated(&g()).unwrap_err().to_string();
            assert!(e.contains(needle), "{e:?} lacks {needle:?}");
        }
        let generic = Geometry::for_arch(Arch::Generic, 4096).unwrap();
        let e = HeapConfig {
            flip: FlipMode::Level(Level::Pmd),
            ..HeapConfig::new(8 << 20)
        }
        .validated(&generic);
        assert!(e.unwrap_err().to_string().contains("does not exist"));
    }

    #[test]
    fn fault_modes_parse() {
        for m in ["auto", "sigbus", "server"] {
            assert_eq!(FaultMode::parse(m).unwrap().name(), m);
        }
        assert!(FaultMode::parse("signal")
            .unwrap_err()
            .to_string()
            .contains("auto, sigbus, server"));
    }

    #[test]
    fn flip_modes_parse() {
        for m in ["auto", "pud", "pmd", "pte", "copy"] {
            assert_eq!(FlipMode::parse(m).unwrap().name(), m);
        }
        assert!(FlipMode::parse("fast").is_err());
    }
}
