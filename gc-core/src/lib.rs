//! # flipgc-core: the collector
//!
//! A compacting, precise garbage collector for managed-language runtimes, built on
//! the flip engine (`flipgc-flip`): at each collection the heap's pages are moved to
//! from-space with one `mremap` (or copied where the kernel cannot), and every live
//! object is compacted back into the heap, page by page.
//!
//! ## Using it
//! ```
//! use flipgc_core::{Heap, HeapConfig, TypeRegistry};
//!
//! let mut types = TypeRegistry::new();
//! let pair = types.fixed("pair", 2, &[0, 1])?;      // two reference fields
//! let heap = Heap::new(HeapConfig::new(8 << 20), types)?;
//! let mut m = heap.bind_mutator()?;
//!
//! let a = m.alloc(pair, 0)?;                         // a Handle: survives collections
//! let b = m.alloc(pair, 0)?;
//! m.write_ref(m.get(&a), 0, Some(m.get(&b)));
//! m.collect();                                       // objects move; handles follow
//! let a_now = m.get(&a);
//! assert_eq!(m.read_ref(a_now, 0), Some(m.get(&b)));
//! # Ok::<(), flipgc_core::GcError>(())
//! ```
//!
//! ## Layout of this crate
//! - [`object`]: headers, the type registry (built before the heap, grown while it
//!   runs: `heap_types.rs`, [`Heap::register_fixed`]).
//! - [`Value`]: what a reference slot holds (null, a reference, a tagged
//!   immediate), and the accessors for every slot kind.
//! - `space`: the moving space (heap + from-space spans, TLABs) and the
//!   large-object space.
//! - `safepoint`, [`Mutator`], roots ([`Handle`], [`Global`], the root stack).
//! - `jit`: entry points for generated code (the safepoint poll's word and slow
//!   path, the write barrier's flag and slow paths, atomic reference operations,
//!   `copy_refs`; docs/architecture.md, "Generated code").
//! - `collect`: marking, forwarding, compaction, the cycle driver, the verifier.
//! - [`PauseLog`]: the last pauses (their phases, the flip), cycles and compactions
//!   in bounded [`Ring`]s, and whole-run statistics of all of them.
//! - [`gclog`]: the GC log on stderr ([`GcLog`], `FLIPGC_LOG`; docs/gc-log.md).

mod access;
mod barrier;
mod bindings;
pub mod cards;
mod collect;
mod config;
mod decode;
#[cfg(test)]
mod driver_tests;
mod error;
mod fatal;
mod finalize;
pub mod gclog;
mod hash;
mod heap;
mod heap_types;
mod host;
mod inject;
mod jit;
pub mod mem;
mod model;
mod model_access;
mod model_fast;
mod mutator;
pub mod object;
pub mod pacer;
mod pauselog;
mod pin;
mod priority;
mod ring;
mod roots;
mod safepoint;
#[cfg(target_os = "linux")]
#[cfg(feature = "test-seams")]
pub mod seams;
mod sigbus;
mod space;
mod sync;
mod tail;
mod value;

pub use access::RefReader;
pub use collect::verify::VerifyReport;
#[cfg(feature = "test-seams")]
#[doc(hidden)]
pub use config::FillHook;
pub use config::{
    parse_capacity, CycleHook, CyclePoint, FaultMode, FlipMode, GcTrigger, HeapConfig, SatbBarrier,
    Sizing, MAX_CAPACITY, MAX_ROUNDED_PUD, MIN_CAPACITY,
};
pub use error::{GcError, GcErrorKind};
pub use finalize::FinalizerQueue;
/// Page-table levels, as [`FlipMode::Level`] and [`Requirement::MinFlipLevel`] name them.
pub use flipgc_heap::Level;
pub use gclog::GcLog;
pub use heap::Heap;
pub use host::{HostMode, Missing, Requirement};
pub use inject::InjectPoint;
pub use jit::{
    flipgc_card_mark, flipgc_prepare_object, flipgc_safepoint_slow, flipgc_weak_read_barrier_slow,
    flipgc_weak_write_barrier_slow, flipgc_write_barrier_slow,
};
pub use model::{FixedLayout, ObjectModel, ObjectRef};
pub use model_fast::{ModelType, SlotRef, SlotWord};
pub use mutator::{Gc, Mutator};
pub use object::{
    FixedType, RefField, Tail, TypeId, TypeKind, TypeRegistry, WordField, EPHEMERON_KEY,
    EPHEMERON_VALUE, MAX_TYPES,
};
pub use pacer::Reason;
pub use pauselog::{
    nearest_rank, CompactionStats, CycleRecord, CycleStats, Dropped, FlipSummary, PauseLog,
    PauseRecord, PauseStats, PhaseStats, SanityReport, SanityStats, DEFAULT_PAUSE_LOG_CAPACITY,
    LONG_FAULT_STALLS_KEPT, LONG_FAULT_STALL_NS, PAUSE_KINDS,
};
pub use priority::{GcThreadPriority, RtPolicy};
pub use ring::{OwnedBytes, Ring};
pub use roots::{Global, Handle, WeakHandle};
pub use value::{Value, FIXNUM_MAX, FIXNUM_MIN};

/// docs/embedding.md, compiled: its Rust examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/embedding.md")]
pub struct EmbeddingGuide;

/// README.md, compiled: its Rust example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;
