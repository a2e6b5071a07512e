//! The hiccup meter (after jHiccup): a thread with its own mutator that sleeps
//! 1 ms at a time inside [`Mutator::blocking`](flipgc_core::Mutator::blocking),
//! then passes a safepoint, and records how much later than 1 ms it got going again.
//! A collection in progress holds it at the safepoint, so its histogram is what a
//! mutator thread doing nothing special feels of the collector. It also keeps every
//! wake-up with its time (for the timeline plot), and samples the heap's used bytes
//! every [`USED_EVERY`] wake-ups.
//!
//! The *machine meter* ([`HiccupMeter::start_machine`], after jHiccup's control
//! process) does the same as a plain thread that is not a mutator: no collection
//! holds it, so its late wake-ups are what the machine (the scheduler, the
//! hypervisor) does to any thread. A pause that a machine stall overlaps was at
//! least partly the machine's ([`machine_overlaps`]).

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
    /// Starts a meter on `heap` (binds a mutator on a new thread, scheduled at
    /// `priority`, as the workload's other mutators: `--mutator-priority`). A stop
    /// waits for it as for any mutator.
    pub fn start(heap: &Heap, priority: flipgc_core::GcThreadPriority) -> HiccupMeter {
        HiccupMeter::spawn(heap, Some(priority))
    }

    /// Starts a machine meter: a plain thread, no mutator, on `heap`'s clock.
    pub fn start_machine(heap: &Heap) -> HiccupMeter {
        HiccupMeter::spawn(heap, None)
    }

    /// A meter thread: a mutator at `priority`, or (`None`) a plain thread.
    fn spawn(heap: &Heap, priority: Option<flipgc_core::GcThreadPriority>) -> HiccupMeter {
        let mutator = priority.is_some();
        let stop = Arc::new(AtomicBool::new(false));
        let heap = heap.clone();
        let flag = Arc::clone(&stop);
        let name = if mutator {
            "hiccup-meter"
        } else {
            "machine-meter"
        };
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                if let Some(p) = priority {
                    p.apply_to_current_thread()
                        .map_err(|e| format!("--mutator-priority {p} (hiccup meter): {e}"))?;
                }
                let mut m = if mutator {
                    Some(heap.bind_mutator().map_err(|e| e.to_string())?)
                } else {
                    None
                };
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
                    match &mut m {
                        Some(m) => {
                            m.blocking(|| std::thread::sleep(INTERVAL));
                            m.safepoint();
                        }
                        None => std::thread::sleep(INTERVAL),
                    }
                    let late = ns(start.elapsed().saturating_sub(INTERVAL));
                    out.histogram.saturating_record(late);
                    out.samples.push((ns(due), late));
                    if mutator && wakes % USED_EVERY == 0 {
                        let used = heap.used_bytes() as u64;
                        out.heap_used.push((ns(heap.uptime()), used));
                    }
                    wakes += 1;
                }
                Ok(out)
            })
            .expect("spawning a hiccup meter");
        HiccupMeter { stop, thread }
    }

    /// Stops the meter; what it measured.
    pub fn stop(self) -> Result<Measures, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "a hiccup meter panicked".to_string())?
    }
}

/// Of the pauses `(start, length)` (ns, the heap's clock) at least `min_ns` long,
/// how many there were, and how many a machine stall overlapped that was at least
/// half as long as the pause: a machine-meter wake-up due at `due` and `late` ns
/// late was off the CPU over `[due, due + late)`.
pub fn machine_overlaps(
    pauses: &[(u64, u64)],
    machine: &[(u64, u64)],
    min_ns: u64,
) -> (usize, usize) {
    let long: Vec<&(u64, u64)> = pauses.iter().filter(|(_, len)| *len >= min_ns).collect();
    let explained = long
        .iter()
        .filter(|(start, len)| {
            machine
                .iter()
                .any(|&(due, late)| 2 * late >= *len && due < start + len && due + late > *start)
        })
        .count();
    (long.len(), explained)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_is_the_machines_when_a_long_enough_stall_overlaps_it() {
        let ms = 1_000_000;
        // Pauses at 10 ms (3 ms long), 20 ms (2 ms), 30 ms (0.5 ms: too short to count).
        let pauses = [(10 * ms, 3 * ms), (20 * ms, 2 * ms), (30 * ms, ms / 2)];
        // A 2 ms machine stall from 11 ms (overlaps the first, and is at least half
        // of it); a 0.5 ms one at 20.5 ms (overlaps the second, but is too short).
        let machine = [(ms, 10), (11 * ms, 2 * ms), (20 * ms + ms / 2, ms / 2)];
        assert_eq!(machine_overlaps(&pauses, &machine, ms), (2, 1));
        // A stall that ends before the pause starts does not count.
        assert_eq!(
            machine_overlaps(&pauses[1..2], &[(17 * ms, 3 * ms)], ms),
            (1, 0)
        );
        assert_eq!(
            machine_overlaps(&pauses[1..2], &[(17 * ms, 3 * ms + 1)], ms),
            (1, 1)
        );
        assert_eq!(machine_overlaps(&[], &machine, ms), (0, 0));
    }
}
