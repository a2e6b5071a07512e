//! # flipgc-flip: the flip engine
//!
//! Moves a whole heap space from one [`Span`](flipgc_heap::Span) to another, with one
//! `mremap` at the highest page-table level the alignment allows (PUD > PMD > PTE),
//! or by copying where the kernel cannot. It moves pages; it does not know what an
//! object is.
//!
//! - [`plan`]: which parts move at which level (head / body / tail).
//! - [`Flipper::flip`]: the strategies ([`StrategyChoice`]) with one contract: after
//!   the flip, the bytes that were at the source are at the destination. An `mremap`
//!   failure falls back to copying and is reported, never lost.
//! - [`FlipReport`]: strategy, parts and their levels, bytes, elapsed time, fallback
//!   reason, and what the source holds afterwards. Each flip is a `tracing` span.
//!
//! ```
//! use flipgc_flip::{FlipConfig, Flipper, SourceState};
//! use flipgc_heap::{Capabilities, Reservation};
//!
//! let len = 1 << 30;
//! let geometry = Capabilities::probe().geometry;
//! let heap = Reservation::for_space(len, &geometry)?; // PUD-aligned for 1 GiB
//! let from = Reservation::for_space(len, &geometry)?;
//! let (mut heap_span, mut from_span) = (heap.commit(0, len)?, from.commit(0, len)?);
//! heap_span.as_mut_slice()[0] = 42;
//! let report = Flipper::new(FlipConfig::default())?.flip(&mut heap_span, &mut from_span)?;
//! assert_eq!(from_span.as_slice()[0], 42);
//! if report.source == SourceState::KeptEmpty {
//!     assert_eq!(heap_span.as_slice()[0], 0); // moved, not copied
//! }
//! println!("{report}"); // e.g. "mremap+dontunmap of 1 GiB at pud in 40µs"
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod copy;
mod engine;
mod error;
mod plan;
mod report;

pub use copy::PARALLEL_THRESHOLD;
pub use engine::{FlipConfig, Flipper, StrategyChoice};
pub use error::FlipError;
pub use plan::{plan, FlipPlan, Part};
pub use report::{FlipReport, PartReport, SourceState, Strategy};
