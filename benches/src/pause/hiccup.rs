//! The hiccup meter (after jHiccup): a thread with its own mutator that sleeps
//! 1 ms at a time inside [`Mutator::blocking`](flipgc_core::Mutator::blocking),
//! then passes a safepoint, and records how much later than 1 ms it got going again.
//! A collection in progress holds it at the safepoint, so its histogram is what a
//! mutator thread doing nothing special feels of the collector. It also keeps every
//! wake-up with its time (for the timeline plot), and samples the heap's used bytes
//! every [`USED_EVERY`] wake-ups.

use flipgc_core::Heap;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The meter's sleep.
pub const INTERVAL: Duration = Duration::from_millis(1);

/// Wake-ups between two samples of the heap's used bytes (about 10 ms).
pub const USED_EVERY: u64 = 10;

/// A histogram from 1 ns to one hour at 3 significant digits (auto-sizing ones
/// clamp instead of growing).
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

/// What a meter measured. Times are nanoseconds since the heap was created (the
/// pause log's clock, [`Heap::uptime`]).
#[derive(Clone, Debug)]
pub struct Measures {
    /// The late wake-ups (ns).
    pub histogram: Histogram<u64>,
    /// Every wake-up: (when it was due, how late it came), ns.
    pub samples: Vec<(u64, u64)>,
    /// The moving space's used bytes: (when, bytes).
    pub heap_used: Vec<(u64, u64)>,
}

/// A running meter; [`HiccupMeter::stop`] returns its [`Measures`].
pub struct HiccupMeter {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<Measures, String>>,
}

impl HiccupMeter {
    /// Starts a meter on `heap` (binds a mutator on a new thread).
    pub fn start(heap: &Heap) -> HiccupMeter {
        let stop = Arc::new(AtomicBool::new(false));
        let heap = heap.clone();
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("hiccup-meter".into())
            .spawn(move || {
                let mut m = heap.bind_mutator().map_err(|e| e.to_string())?;
                let mut out = Measures {
                    histogram: histogram(),
                    samples: Vec::new(),
                    heap_used: Vec::new(),
                };
                let ns = |d: Duration| d.as_nanos() as u64;
                let mut wakes = 0u64;
                while !flag.load(Ordering::Relaxed) {
                    let start = Instant::now();
                    let due = heap.uptime() + INTERVAL;
                    m.blocking(|| std::thread::sleep(INTERVAL));
                    m.safepoint();
                    let late = ns(start.elapsed().saturating_sub(INTERVAL));
                    out.histogram.saturating_record(late);
                    out.samples.push((ns(due), late));
                    if wakes % USED_EVERY == 0 {
                        let used = heap.used_bytes() as u64;
                        out.heap_used.push((ns(heap.uptime()), used));
                    }
                    wakes += 1;
                }
                Ok(out)
            })
            .expect("spawning the hiccup meter");
        HiccupMeter { stop, thread }
    }

    /// Stops the meter; what it measured.
    pub fn stop(self) -> Result<Measures, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "the hiccup meter panicked".to_string())?
    }
}
