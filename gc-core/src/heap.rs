//! [`Heap`] (mutator API layer): construction and binding mutators. The state
//! the heap shares with its mutators and collector, `HeapInner`, is the collector
//! layer's (`collect/heap_inner.rs`).

use crate::collect::dispatch::Dispatch;
use crate::collect::heap_inner::HeapInner;
use crate::collect::root_table::GlobalTable;
use crate::collect::{CollectorState, CyclePhase};
use crate::config::{FaultMode, HeapConfig};
use crate::decode::{BuiltinKind, ModelKind};
use crate::error::GcError;
use crate::inject::{FaultInjector, InjectPoint};
use crate::model::ObjectModel;
use crate::mutator::Mutator;
use crate::object::TypeRegistry;
use crate::pacer::Pacer;
use crate::pauselog::PauseLog;
use crate::safepoint::Safepoints;
use crate::space::los::Los;
use crate::space::moving::MovingSpace;
use flipgc_flip::{FlipConfig, Flipper, StrategyChoice};
use flipgc_heap::Capabilities;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

static NEXT_HEAP_ID: AtomicU64 = AtomicU64::new(1);

/// A garbage-collected heap. Cheap to clone; `Send + Sync`. Threads use it through
/// a [`Mutator`] from [`Heap::bind_mutator`].
#[derive(Clone)]
pub struct Heap {
    pub(crate) inner: Arc<HeapInner>,
}

impl Heap {
    /// Builds a heap. Refuses a bad configuration with
    /// [`GcErrorKind::Config`](crate::GcErrorKind::Config); OS failures (reserving
    /// the spaces) are [`GcErrorKind::Heap`](crate::GcErrorKind::Heap).
    pub fn new(config: HeapConfig, types: TypeRegistry) -> Result<Heap, GcError> {
        Heap::build(config, types, None, Dispatch::of::<BuiltinKind>())
    }

    /// Builds a heap whose objects the VM lays out: `model` sizes them and finds
    /// their reference slots (docs/embedding.md, "Your own object model").
    /// Objects are made with [`Mutator::alloc_object`] and accessed with
    /// [`Mutator::read_slot`] and kin; the built-in typed allocation and accessors,
    /// identity hashing, weak fields and finalizers are refused on such a heap.
    /// Errors as [`Heap::new`].
    ///
    /// The collector is instantiated for `M` here: its marking and page-filling
    /// loops call `M`'s methods statically, with no virtual call per object.
    pub fn with_model<M: ObjectModel>(config: HeapConfig, model: M) -> Result<Heap, GcError> {
        let model: Box<dyn ObjectModel> = Box::new(model);
        Heap::build(
            config,
            TypeRegistry::new(),
            Some((model, std::any::TypeId::of::<M>())),
            Dispatch::of::<ModelKind<M>>(),
        )
    }

    /// Whether this heap's objects are laid out by a VM [`ObjectModel`]
    /// ([`Heap::with_model`]).
    pub fn has_model(&self) -> bool {
        self.inner.model.is_some()
    }

    fn build(
        config: HeapConfig,
        types: TypeRegistry,
        model: Option<(Box<dyn ObjectModel>, std::any::TypeId)>,
        dispatch: Dispatch,
    ) -> Result<Heap, GcError> {
        let (model, model_type) = model.unzip();
        let caps = Capabilities::probe();
        let mut config = config.validated(&caps.geometry)?;
        config.gc_log = config.gc_log.union(crate::gclog::GcLog::from_env());
        let (space, from_space) = MovingSpace::new(&config, &caps.geometry)?;
        let los = Los::new(config.large_object_capacity, caps.geometry.page)?;
        let cards = crate::cards::CardTable::covering(
            space.base(),
            space.end() - space.base(),
            los.base()..los.end(),
        )?;
        let los_marks = Arc::clone(los.marks());
        let strategy = match config.flip {
            crate::config::FlipMode::Copy => StrategyChoice::Copy,
            crate::config::FlipMode::Auto => StrategyChoice::Auto,
            crate::config::FlipMode::Level(_) => StrategyChoice::Mremap,
        };
        let flip_config = FlipConfig {
            strategy,
            copy_threads: config.gc_workers,
            inject_mremap_errno: None,
        };
        let failing_flipper = match config.inject {
            Some(InjectPoint::FlipMremap) => Some(Flipper::new(FlipConfig {
                inject_mremap_errno: Some(flipgc_heap::sys::Errno::ENOMEM as i32),
                ..flip_config.clone()
            })?),
            _ => None,
        };
        let flipper = Flipper::new(flip_config)?;
        let words = config.capacity / crate::mem::WORD;
        let id = NEXT_HEAP_ID.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let concurrent = concurrent_allowed(&config);
        let (fault_mode, sigbus_slot) =
            resolve_fault_mode(&config, concurrent, (space.base(), space.end()))?;
        let host_mode = crate::host::decide(
            caps,
            &config,
            (space.base(), from_space.span.addr(), space.heap.len()),
            concurrent,
            fault_mode,
        );
        if let Some(why) = crate::host::unmet(&host_mode, &config.requirements) {
            #[cfg(target_os = "linux")]
            if let Some(slot) = sigbus_slot {
                crate::sigbus::release_slot(slot);
            }
            return Err(crate::GcErrorKind::Unsupported(why).into());
        }
        #[cfg(not(target_os = "linux"))]
        let _ = sigbus_slot;
        let inner = HeapInner {
            id,
            base: space.base(),
            end: space.end(),
            from_base: from_space.span.addr(),
            from_space: Mutex::new(from_space),
            los_base: los.base(),
            los_end: los.end(),
            cards,
            space_published: std::sync::Arc::clone(&space.published),
            space: Mutex::new(space),
            los: Mutex::new(los),
            los_marks,
            large_forwarder: Mutex::new(None),
            safepoints: Safepoints::default(),
            globals: Mutex::new(GlobalTable::default()),
            log: Mutex::new(PauseLog::with_capacity(config.pause_log_capacity)),
            gclog: crate::gclog::Logger::new(config.gc_log, id, started),
            collector: Mutex::new(CollectorState::new(words, config.pretouch)),
            flipper,
            failing_flipper,
            inject: FaultInjector::new(config.inject),
            started,
            cycle: Mutex::new(CyclePhase::Idle),
            driver: Arc::default(),
            pause_offer: Default::default(),
            pacer: Pacer::new(config.initial_limit(), 8 * config.tlab_size),
            queues: Mutex::new(Vec::new()),
            hashes: Mutex::default(),
            #[cfg(target_os = "linux")]
            compaction_scratch: Mutex::new(None),
            intake: Arc::default(),
            concurrent,
            fault_mode,
            host_mode,
            #[cfg(target_os = "linux")]
            sigbus_slot,
            types,
            model,
            model_type,
            dispatch,
            config,
        };
        inner.gclog.heap_created(&inner.config, inner.concurrent);
        inner.gclog.host_mode(&inner.host_mode);
        tracing::info!(heap = inner.id, "{}", inner.host_mode);
        for m in &inner.host_mode.missing {
            tracing::warn!(heap = inner.id, "{m}");
        }
        Ok(Heap {
            inner: Arc::new(inner),
        })
    }

    /// Binds the calling thread as a mutator. Refused with a `Config` error:
    /// - a second mutator of this heap on the same thread (a collection would wait
    ///   for the idle one);
    /// - a binding that would give two threads mutators of the same two heaps, or
    ///   close any longer cycle of threads and heaps (T1 on A and B, T2 on B and C,
    ///   T3 on C and A). A thread stopped in one heap's pause still counts as
    ///   running in its other heaps, so such stops could wait for each other for
    ///   ever. One thread may hold mutators of several heaps, and many threads may
    ///   share one heap.
    pub fn bind_mutator(&self) -> Result<Mutator, GcError> {
        // Refused: a second mutator of this heap on this thread, or a binding that
        // closes a cycle of threads and heaps (which could deadlock two heaps'
        // stops; `bindings.rs`).
        crate::bindings::bind(std::thread::current().id(), self.inner.id)?;
        // SIGBUS mode: a page buffer and stall samples for this thread's faults, and
        // an alternate signal stack for its handler, made here, outside any handler.
        #[cfg(target_os = "linux")]
        if self.inner.sigbus_slot.is_some() {
            crate::sigbus::bind_thread();
        }
        Ok(Mutator::new(self.clone()))
    }

    pub(crate) fn unbind_thread(&self, thread: std::thread::ThreadId) {
        crate::bindings::unbind(thread, self.inner.id);
    }

    /// The validated configuration.
    pub fn config(&self) -> &HeapConfig {
        &self.inner.config
    }

    /// The type registry: the types the heap was built with and those registered
    /// since ([`Heap::register_fixed`] and its siblings), looked up without a lock.
    pub fn types(&self) -> &TypeRegistry {
        &self.inner.types
    }

    /// The pause log (a snapshot). Its cost is bounded by
    /// [`HeapConfig::pause_log_capacity`]: it copies the rings (the last records of
    /// each kind) and the whole-run statistics, however long the heap has run.
    pub fn pause_log(&self) -> PauseLog {
        self.inner.log.lock().clone()
    }

    /// Time since the heap was created: the clock of the pause log's `at_ns` and of
    /// the GC log's uptime.
    pub fn uptime(&self) -> std::time::Duration {
        self.inner.started.elapsed()
    }

    /// The GC log's summary of the heap so far, one line each (tags `gc,summary`;
    /// see docs/gc-log.md): pauses by kind (count, total, p50, p99, max), cycles by
    /// reason, allocation and fault stalls, throttling, compactions. The GC log
    /// prints the same lines when the heap is dropped. Whole-run figures, whatever
    /// the pause log's rings still hold.
    pub fn gc_summary(&self) -> String {
        // Read under the lock, without copying the log: bounded work (at most a
        // sort of the ring's pause totals, while it holds every pause), less than
        // the copy it replaces.
        let lines = self.inner.gclog.summary(&self.inner.log.lock());
        lines.join("\n")
    }

    /// Bytes in use in the moving space (objects and fillers below the top).
    pub fn used_bytes(&self) -> usize {
        self.inner.space_published.used()
    }

    /// Bytes the moving space has handed out since the heap began, to allocation
    /// buffers and to objects allocated outside one (large objects are not
    /// counted). It only grows, in steps of a buffer: a mutator's small
    /// allocations show once its buffer is refilled, so two equal reads mean less
    /// than a buffer was allocated in between. A statistic read with a relaxed
    /// load (it orders nothing).
    pub fn allocated_bytes(&self) -> u64 {
        self.inner.space_published.allocated_total()
    }

    /// Bytes held by large objects.
    pub fn large_object_bytes(&self) -> usize {
        self.inner.los.lock().used()
    }

    /// Number of live large objects.
    pub fn large_object_count(&self) -> usize {
        self.inner.los.lock().count()
    }

    /// Whether collections compact concurrently through userfaultfd, after the flip
    /// pause, rather than inside it (or inside one `"full"` pause, as every cycle
    /// does with concurrent marking off).
    pub fn concurrent_compaction(&self) -> bool {
        self.inner.concurrent && self.inner.config.concurrent_marking
    }

    /// The mode this heap runs in on this host, and each host feature it does
    /// without, with why and how to get it (also logged at construction: the GC
    /// log's `gc,init` lines and `tracing` events). To fail instead of falling
    /// back, see [`HeapConfig::require`](crate::HeapConfig::require).
    pub fn host_mode(&self) -> &crate::host::HostMode {
        &self.inner.host_mode
    }

    /// Who fills the pages mutators touch during concurrent compaction: `Sigbus` (the
    /// faulting thread, in its `SIGBUS` handler) or `Server` (a fault-serving
    /// thread). Meaningful where [`Heap::concurrent_compaction`] is true. A compaction
    /// that finds the handler replaced by an embedder's, or cannot open userfaultfd
    /// in SIGBUS mode, uses the server (`PauseLog::compaction_fault_modes`).
    pub fn fault_mode(&self) -> FaultMode {
        self.inner.fault_mode
    }

    /// Test-only: reads the moving-space word at `addr` with no mutator (`None` if
    /// `addr` is not an aligned address of the moving space). The word may belong to
    /// no object, or to one a collection is moving; during a concurrent compaction the
    /// read may fault on a page not yet filled, which is then filled (by this thread
    /// in SIGBUS mode). For tests of faults on threads that are not mutators, or
    /// inside `Mutator::blocking`. Only with the feature `test-seams`.
    #[cfg(feature = "test-seams")]
    #[doc(hidden)]
    pub fn peek_word(&self, addr: usize) -> Option<u64> {
        let i = &self.inner;
        if addr % crate::mem::WORD != 0 || !(i.base..i.end).contains(&addr) {
            return None;
        }
        // SAFETY: the moving space's span is mapped read-write for the heap's whole
        // life (flips move its pages with MREMAP_DONTUNMAP, which leaves it mapped),
        // and `addr` is an aligned word inside it; the load is atomic.
        Some(unsafe { crate::mem::load(addr) })
    }

    /// Waits until no collection cycle is in progress (a concurrent compaction has
    /// installed every page). For tests and orderly shutdown; does not count as a
    /// safepoint, so call it from a thread without a mutator or via
    /// [`crate::Mutator::blocking`].
    pub fn wait_idle(&self) {
        self.inner.driver.wait_idle();
    }

    /// The heap size the next cycle is paced against: the capacity, or with heap
    /// sizing ([`HeapConfig::sizing`](crate::HeapConfig::sizing)) the soft limit set
    /// after the last cycle.
    pub fn soft_limit(&self) -> usize {
        self.inner.pacer.limit()
    }

    /// Objects that were given an identity hash and are still alive as of the last
    /// collection ([`Mutator::identity_hash`](crate::Mutator::identity_hash)).
    pub fn hashed_objects(&self) -> usize {
        self.inner.hashes.lock().len()
    }

    /// How many times the configured fault-injection point
    /// ([`HeapConfig::inject`](crate::HeapConfig::inject)) has fired so far.
    pub fn injections_fired(&self) -> u64 {
        self.inner.inject.fired()
    }

    /// Registered mutators.
    pub fn mutator_count(&self) -> usize {
        self.inner.safepoints.count()
    }
}

/// The fault mode a heap with `config` uses, and its slot in SIGBUS mode: `Auto` is
/// SIGBUS mode where the kernel has `UFFD_FEATURE_SIGBUS`, the handler is installed
/// and a slot is free; `Sigbus` is refused where it cannot be had. Without
/// concurrent compaction no fault is ever served: `Server`, no slot.
#[cfg(target_os = "linux")]
fn resolve_fault_mode(
    config: &HeapConfig,
    concurrent: bool,
    (lo, hi): (usize, usize),
) -> Result<(FaultMode, Option<usize>), GcError> {
    if !concurrent || config.fault_mode == FaultMode::Server {
        return Ok((FaultMode::Server, None));
    }
    let caps = Capabilities::probe();
    let forced = config.fault_mode == FaultMode::Sigbus;
    let refuse = |why: &str| {
        Err(GcError::config(format!(
            "fault mode sigbus is not available: {why}"
        )))
    };
    if !caps.userfaultfd.has("SIGBUS") {
        return if forced {
            refuse("this kernel's userfaultfd lacks UFFD_FEATURE_SIGBUS")
        } else {
            Ok((FaultMode::Server, None))
        };
    }
    if !crate::sigbus::install(caps.geometry.page) {
        return if forced {
            refuse("the SIGBUS handler could not be installed")
        } else {
            Ok((FaultMode::Server, None))
        };
    }
    match crate::sigbus::claim_slot(lo, hi) {
        Some(slot) => Ok((FaultMode::Sigbus, Some(slot))),
        None if forced => refuse(&format!(
            "{} heaps in SIGBUS mode exist already",
            crate::sigbus::MAX_HEAPS
        )),
        None => Ok((FaultMode::Server, None)),
    }
}

#[cfg(not(target_os = "linux"))]
fn resolve_fault_mode(
    config: &HeapConfig,
    _concurrent: bool,
    _span: (usize, usize),
) -> Result<(FaultMode, Option<usize>), GcError> {
    if config.fault_mode == FaultMode::Sigbus {
        return Err(GcError::config(
            "fault mode sigbus needs Linux's userfaultfd".into(),
        ));
    }
    Ok((FaultMode::Server, None))
}

/// Whether `config` gets concurrent compaction on this host.
fn concurrent_allowed(config: &HeapConfig) -> bool {
    #[cfg(target_os = "linux")]
    {
        config.concurrent_compaction
            && config.flip != crate::config::FlipMode::Copy
            && flipgc_heap::Userfault::open().is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = config;
        false
    }
}

impl std::fmt::Debug for Heap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Heap(id {}, capacity {})",
            self.inner.id, self.inner.config.capacity
        )
    }
}
