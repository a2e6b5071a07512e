//! The hiccup meter (after jHiccup): a thread with its own mutator that sleeps
//! 1 ms at a time inside [`Mutator::blocking`](flipgc_core::Mutator::blocking),
//! then passes a safepoint, and records how much later than 1 ms it got going again.
//! A collection in progress holds it at the safepoint, so its histogram is what a
//! mutator thread doing nothing special feels of the collector.

use flipgc_core::Heap;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The meter's sleep.
pub const INTERVAL: Duration = Duration::from_millis(1);

/// A histogram from 1 ns to one hour at 3 significant digits (auto-sizing ones
/// clamp instead of growing).
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

/// A running meter; [`HiccupMeter::stop`] returns its histogram.
pub struct HiccupMeter {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<Histogram<u64>, String>>,
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
                let mut h = histogram();
                while !flag.load(Ordering::Relaxed) {
                    let start = Instant::now();
                    m.blocking(|| std::thread::sleep(INTERVAL));
                    m.safepoint();
                    let late = start.elapsed().saturating_sub(INTERVAL);
                    h.saturating_record(late.as_nanos() as u64);
                }
                Ok(h)
            })
            .expect("spawning the hiccup meter");
        HiccupMeter { stop, thread }
    }

    /// Stops the meter; the late wake-ups it saw, in ns.
    pub fn stop(self) -> Result<Histogram<u64>, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "the hiccup meter panicked".to_string())?
    }
}
