//! [`HeapInner`]: the state one heap's handles, mutators and collector share
//! (collector layer; docs/architecture.md, "Layers"). The collector's phases all
//! work on it, so it lives here, below the mutator API; `Heap` (`heap.rs`) builds
//! it and holds it in an `Arc`, as every `Mutator` and `Global` does.

use super::concurrent_mark::Intake;
use super::dispatch::Dispatch;
use super::driver::Driver;
use super::root_table::GlobalTable;
use super::{CollectorState, CyclePhase};
use crate::config::{FaultMode, HeapConfig};
use crate::decode::Decoder;
use crate::inject::{FaultInjector, InjectPoint};
use crate::model::ObjectModel;
use crate::object::TypeRegistry;
use crate::pacer::Pacer;
use crate::pauselog::PauseLog;
use crate::safepoint::Safepoints;
use crate::space::los::{Los, LosMarks};
use crate::space::moving::{FromSpace, MovingSpace};
use flipgc_flip::Flipper;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// State shared by the heap's handles, mutators and collector.
pub(crate) struct HeapInner {
    pub id: u64,
    pub config: HeapConfig,
    pub types: TypeRegistry,
    /// The VM's object model (`model.rs`), or `None` for the built-in descriptor
    /// model. Set before the heap is shared and never changed: read without
    /// ordering.
    pub model: Option<Box<dyn ObjectModel>>,
    /// The `TypeId` of the model's concrete type, with the model.
    pub model_type: Option<std::any::TypeId>,
    /// The collector's entry points, instantiated for this heap's model
    /// (`collect/dispatch.rs`): the built-in decoder's, or the model's. Set
    /// with the model, never changed.
    pub dispatch: Dispatch,
    /// Moving space bounds (fixed for the heap's life).
    pub base: usize,
    pub end: usize,
    pub from_base: usize,
    /// Large-object space bounds.
    pub los_base: usize,
    pub los_end: usize,
    /// The moving space's card table (`cards.rs`).
    pub cards: crate::cards::CardTable,
    pub space: Mutex<MovingSpace>,
    /// The moving space's top and allocation count, readable without its lock.
    pub space_published: std::sync::Arc<crate::space::moving::Published>,
    /// From-space and scratch (the collector only; taken after `space` when both are).
    pub from_space: Mutex<FromSpace>,
    pub los: Mutex<Los>,
    pub safepoints: Safepoints,
    /// A concurrent cycle's mark-end and flip pauses, offered to the mutators
    /// (`collect/pause_offer.rs`).
    pub pause_offer: crate::collect::pause_offer::PauseOffer,
    pub globals: Mutex<GlobalTable>,
    pub log: Mutex<PauseLog>,
    /// The GC log (`gclog.rs`).
    pub gclog: crate::gclog::Logger,
    pub collector: Mutex<CollectorState>,
    pub flipper: Flipper,
    /// With `InjectPoint::FlipMremap`: a flipper whose `mremap` always fails.
    pub failing_flipper: Option<Flipper>,
    /// Run-time fault injection (`HeapConfig::inject`).
    pub inject: FaultInjector,
    pub started: Instant,
    /// Where the heap is in a collection cycle.
    pub cycle: Mutex<CyclePhase>,
    /// The GC driver: requests, cycle counters, the driver thread.
    pub driver: Arc<Driver>,
    /// Concurrent marking's work intake and the barrier flag.
    pub intake: Arc<Intake>,
    /// The large-object space's mark side table (used without the space's lock).
    pub los_marks: Arc<LosMarks>,
    /// From a concurrent flip pause until its compaction has forwarded every large
    /// object left pending: what forwards their fields (`collect/large.rs`).
    pub large_forwarder: Mutex<Option<Arc<dyn crate::collect::large::ForwardFields>>>,
    /// When cycles start, and the pressure on allocating threads.
    pub pacer: Pacer,
    /// Identity hashes handed out (`hash.rs`).
    pub hashes: Mutex<crate::hash::IdentityHashes>,
    /// Every finalizer queue made for this heap (dead ones are dropped as found).
    pub queues: Mutex<Vec<std::sync::Weak<crate::collect::refs::QueueShared>>>,
    /// Concurrent compaction's reused buffers, made before the first flip pause.
    #[cfg(target_os = "linux")]
    pub compaction_scratch: Mutex<Option<crate::collect::compaction::Scratch>>,
    /// Whether cycles compact concurrently (config, flip mode and kernel allow it).
    pub concurrent: bool,
    /// Who fills the pages mutators touch during concurrent compaction: `Sigbus` or
    /// `Server` (`HeapConfig::fault_mode` resolved at construction).
    pub fault_mode: FaultMode,
    /// The mode the host allows, and what it lacks (`host.rs`).
    pub host_mode: crate::host::HostMode,
    /// SIGBUS mode: this heap's slot in `sigbus.rs`'s table, for its whole life.
    #[cfg(target_os = "linux")]
    pub sigbus_slot: Option<usize>,
}

impl Drop for HeapInner {
    fn drop(&mut self) {
        // The driver thread holds only a weak reference while idle: let it end.
        self.driver.shut_down();
        self.gclog.heap_dropped(&self.log.lock());
        // No compaction is running (each holds a reference to this heap).
        #[cfg(target_os = "linux")]
        if let Some(slot) = self.sigbus_slot {
            crate::sigbus::release_slot(slot);
        }
    }
}

/// The pause offer's view of the heap (`collect/pause_offer.rs`): called by the
/// driver thread while it offers a pause.
impl crate::collect::pause_offer::GcPoints for HeapInner {
    fn offers_on(&self) -> bool {
        self.config.pauses_by_mutator
    }

    fn any_running(&self) -> bool {
        self.safepoints.any_running()
    }

    fn call_to_gc_points(&self) {
        // Release: a mutator whose poll sees the request (acquire) then sees the
        // offer's hint flag; it takes the offer's lock before acting on either.
        self.safepoints.requested.store(true, Ordering::Release);
        self.driver.nudge();
    }
}

impl HeapInner {
    /// The decoder of this heap's objects, its model erased (`decode.rs`).
    #[inline(always)]
    pub fn decoder(&self) -> Decoder<'_> {
        Decoder {
            types: &self.types,
            model: self.model.as_deref().zip(self.model_type),
        }
    }

    /// The flip engine for this collection's flip: the heap's own, or, with
    /// `InjectPoint::FlipMremap` on a cycle where it fires, one whose `mremap` fails
    /// (so the engine copies instead).
    pub fn flipper_for_this_flip(&self) -> &Flipper {
        match &self.failing_flipper {
            Some(f) if self.inject.cycle(InjectPoint::FlipMremap) => f,
            _ => &self.flipper,
        }
    }
}
