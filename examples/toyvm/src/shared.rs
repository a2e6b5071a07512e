//! [`Shared`]: state every thread of one program shares: the heap, the constant
//! table (a heap vector rooted by a [`Global`]), interned symbol names, compiled
//! prototypes, spawned threads, the output, and the host side of hashtables and
//! guardians ([`TableState`], [`Guardians`], the reaper queue), and the open
//! files of file ports ([`crate::files::FileTable`]).
//!
//! No lock here is ever held across a GC point (a thread blocked on a lock
//! outside a GC point would stall every collection).

use crate::bytecode::Proto;
use crate::error::VmError;
use crate::types::VmTypes;
use flipgc_core::{FinalizerQueue, Global, Heap};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;

/// The constant table's root and fill level.
pub struct ConstTable {
    /// The heap vector (`None` until the first VM creates it).
    pub table: Option<Global>,
    /// Entries in use.
    pub len: usize,
    /// Global variable name to the constant index of its cell.
    pub globals: HashMap<String, u32>,
}

/// Interned symbol names.
#[derive(Default)]
pub struct Interner {
    ids: HashMap<Arc<str>, u64>,
    names: Vec<Arc<str>>,
}

impl Interner {
    /// The id of `name`, interning it if new.
    pub fn intern(&mut self, name: &str) -> u64 {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = self.names.len() as u64;
        let name: Arc<str> = name.into();
        self.names.push(Arc::clone(&name));
        self.ids.insert(name, id);
        id
    }

    /// The name of symbol `id`.
    pub fn name(&self, id: u64) -> Arc<str> {
        Arc::clone(&self.names[id as usize])
    }
}

/// A thread started by `spawn`.
pub enum ThreadSlot {
    /// Still running (or finished but not yet joined).
    Running(JoinHandle<Result<Option<Global>, VmError>>),
    /// Joined: its result (kept so a second `join` returns it again).
    Done(Result<Option<Arc<Global>>, VmError>),
    /// Being joined by some thread right now (other joiners wait for the
    /// result: [`Shared::joined`]).
    Joining,
}

/// The program's step budget: procedure calls left, shared by its threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fuel {
    /// The budget set with [`crate::Session::set_max_steps`] (`None`: unlimited).
    pub limit: Option<u64>,
    /// Calls not yet handed out to a thread.
    pub left: u64,
}

/// The host side of hashtables: every hashtable operation holds this lock while
/// it reads or changes a table (never across a GC point), so tables may be shared
/// between threads. See `vm/weak.rs` for the canary and the registry.
#[derive(Default)]
pub struct TableState {
    /// The weak hashtables: a chain of weak pairs whose cars are the tables, or
    /// `None` while there is none.
    pub registry: Option<Global>,
    /// Whether a canary is registered with the reaper and not yet reported dead.
    pub canary: bool,
    /// Whether weak tables may hold entries whose key a collection cleared since
    /// they were last swept.
    pub stale: bool,
    /// Sweeps of every weak table so far (for tests and `(gc-stats)`).
    pub sweeps: u64,
}

/// The guardians' finalizer queues, by the index a guardian object holds. A slot
/// is freed when the reaper reports its guardian dead.
#[derive(Default)]
pub struct Guardians {
    /// Queues by index (`None`: free).
    pub queues: Vec<Option<FinalizerQueue>>,
    /// Free indices.
    pub free: Vec<usize>,
}

impl Guardians {
    /// Live guardians.
    pub fn live(&self) -> usize {
        self.queues.len() - self.free.len()
    }
}

/// State shared by all threads running one program.
pub struct Shared {
    /// The heap.
    pub heap: Heap,
    /// The VM's types.
    pub types: VmTypes,
    /// The constant table.
    pub consts: Mutex<ConstTable>,
    /// Symbol names.
    pub symbols: RwLock<Interner>,
    /// Compiled prototypes, by index.
    pub protos: RwLock<Vec<Arc<Proto>>>,
    /// Spawned threads, by index.
    pub threads: Mutex<Vec<ThreadSlot>>,
    /// Notified (with `threads`) when a join ends: a slot went from `Joining` to
    /// `Done`.
    pub joined: Condvar,
    /// Which thread each joining spawned thread waits for (by index), to refuse
    /// a join that would close a cycle (a deadlock).
    pub waiting: Mutex<HashMap<usize, usize>>,
    /// Program output.
    pub out: Mutex<Box<dyn Write + Send>>,
    /// The step budget.
    pub fuel: Mutex<Fuel>,
    /// Whether the output written so far ends inside a line (not after a newline).
    pub line_open: AtomicBool,
    /// Hashtables: the lock every table operation holds, and the weak tables.
    pub tables: Mutex<TableState>,
    /// The guardians' queues.
    pub guardians: Mutex<Guardians>,
    /// Cleaner tokens of dead guardians (their index) and of the weak-table
    /// canary (`vm::weak::CANARY`).
    pub reaper: FinalizerQueue,
    /// The open files of file ports.
    pub files: Mutex<crate::files::FileTable>,
}

impl Shared {
    /// Fresh shared state for a program on `heap`.
    pub fn new(heap: &Heap, types: &VmTypes, out: Box<dyn Write + Send>) -> Arc<Shared> {
        Arc::new(Shared {
            heap: heap.clone(),
            types: *types,
            consts: Mutex::new(ConstTable {
                table: None,
                len: 0,
                globals: HashMap::new(),
            }),
            symbols: RwLock::new(Interner::default()),
            protos: RwLock::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
            joined: Condvar::new(),
            waiting: Mutex::new(HashMap::new()),
            out: Mutex::new(out),
            fuel: Mutex::new(Fuel::default()),
            line_open: AtomicBool::new(false),
            tables: Mutex::new(TableState::default()),
            guardians: Mutex::new(Guardians::default()),
            reaper: heap.finalizer_queue(),
            files: Mutex::new(crate::files::FileTable::new(heap)),
        })
    }

    /// The name of symbol `id`.
    pub fn symbol_name(&self, id: u64) -> Arc<str> {
        self.symbols
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .name(id)
    }

    /// Interns `name`.
    pub fn intern(&self, name: &str) -> u64 {
        self.symbols
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .intern(name)
    }
}

/// Locks `m`, ignoring poisoning (a panicking thread cannot leave these tables
/// half-updated in a way that matters to others).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
