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
