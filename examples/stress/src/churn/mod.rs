//! churn: random graph mutation by several mutators, each checked against a
//! host-side model of its graph — the soak test.
//!
//! Every thread owns `roots` root-stack slots and a random graph hanging from them:
//! nodes (two references and an id), reference arrays, byte arrays with a
//! pattern derived from their id, and now and then large objects (over the heap's
//! large-object threshold). Operations, drawn from a seeded [`Rng`]: allocate into a
//! slot, link one slot's object to another's, load a child into a slot, clear a slot,
//! build a chain of objects, allocate unrooted garbage, and spot-check a slot's id.
//! The model ([`model::Model`]) applies the same operations to plain Rust data.
//!
//! With `refs` > 0, that many operations in a thousand are runtime-feature ones
//! (weak handles, finalizers, cleaners, identity hashes; see `refs.rs`), and every
//! `refs_check`-th cycle ends with a collection and an exact check of them.
//!
//! A *cycle* is `ops` operations followed by a full check: the canonical checksum
//! of the heap graph reachable from the slots (shape, ids, lengths, byte contents)
//! must equal the model's. A run ends after `cycles` cycles per thread, or after
//! `seconds`, whichever comes first (with only `seconds`, cycles are unlimited).
//! Run it with `HeapConfig::verify_after_gc` on, so the verifier checks the whole
//! heap after every collection too. The same seed reproduces the same operations.

pub mod model;
pub mod params;
mod refs;

pub use params::{GraphParams, DEFAULT_CYCLES};

use crate::params::{parse_value, unknown_key, SetParam};
use crate::rng::Rng;
use crate::StressError;
use flipgc_core::{FinalizerQueue, Gc, GcError, Heap, Mutator, TypeId, TypeRegistry, WeakHandle};
use model::{blob_byte, Model, NODE, VEC};
use serde::Serialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// churn's object types.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// References in fields 0 and 1, an id in field 2.
    pub node: TypeId,
    /// An array of references.
    pub vec: TypeId,
    /// A byte array: an 8-byte id, then pattern bytes.
    pub blob: TypeId,
}

/// Registers churn's types.
pub fn register(r: &mut TypeRegistry) -> Result<Types, GcError> {
    Ok(Types {
        node: r.fixed("churn.node", 3, &[0, 1])?,
        vec: r.ref_array("churn.vec")?,
        blob: r.byte_array("churn.blob")?,
    })
}

/// churn's parameters: the shared graph parameters and the runtime-feature ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    /// Threads, cycles, operations, roots, garbage and seed.
    #[serde(flatten)]
    pub graph: GraphParams,
    /// Runtime-feature operations (weak handles, finalizers, cleaners, identity
    /// hashes) per thousand operations; 0 turns them off.
    pub refs: u64,
    /// Every this many cycles, a thread collects and checks weak handles,
    /// finalizers and cleaners exactly.
    pub refs_check: u64,
}

impl Default for Params {
    /// [`GraphParams::default`], 10 runtime-feature operations in a thousand,
    /// checked exactly every 4th cycle.
    fn default() -> Self {
        Params {
            graph: GraphParams::default(),
            refs: 10,
            refs_check: 4,
        }
    }
}

impl SetParam for Params {
    const KEYS: &'static [&'static str] = &[
        "threads",
        "cycles",
        "seconds",
        "ops",
        "roots",
        "garbage",
        "seed",
        "refs",
        "refs_check",
    ];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if let Some(done) = self.graph.set(key, value) {
            return done;
        }
        match key {
            "refs" => self.refs = parse_value(key, value)?,
            "refs_check" => self.refs_check = parse_value(key, value)?,
            _ => return Err(unknown_key::<Params>("churn", key)),
        }
        Ok(())
    }
}

impl Params {
    /// Refuses parameters that cannot run.
    pub fn validate(&self) -> Result<(), StressError> {
        self.graph.validate()?;
        let bad = |m: &str| Err(StressError::Params(m.to_string()));
        if self.refs > 1000 {
            return bad("refs must be at most 1000 (operations per thousand)");
        }
        if self.refs_check == 0 {
            return bad("refs_check must be at least 1");
        }
        Ok(())
    }
}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The parameters run.
    pub params: Params,
    /// Cycles completed, all threads (each ended with a passing check).
    pub cycles: u64,
    /// Operations run, all threads.
    pub ops: u64,
    /// Objects allocated, all threads.
    pub objects: u64,
    /// Objects reachable in the final graphs, all threads.
    pub live_objects: u64,
    /// The final checksums, one per thread.
    pub checksums: Vec<u64>,
    /// Runtime features checked exactly, all threads: objects finalized (returned
    /// by their queue), weak handles found cleared, cleaner tokens received.
    pub finalized: u64,
    /// See `finalized`.
    pub weak_cleared: u64,
    /// See `finalized`.
    pub tokens: u64,
    /// Wall time.
    pub elapsed_ns: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "churn: {} thread(s), {} cycles, {} operations, {} objects allocated",
            self.params.graph.threads, self.cycles, self.ops, self.objects
        )?;
        writeln!(
            f,
            "model checks passed; {} objects reachable at the end",
            self.live_objects
        )?;
        writeln!(
            f,
            "runtime features checked: {} objects finalized, {} weak handles cleared, {} cleaner tokens",
            self.finalized, self.weak_cleared, self.tokens
        )?;
        let sums: Vec<String> = self.checksums.iter().map(|c| format!("{c:016x}")).collect();
        writeln!(f, "final checksums: {}", sums.join(" "))?;
        write!(f, "Completed in {} msec", self.elapsed_ns / 1_000_000)
    }
}

/// Runs churn on `heap` (whose registry holds `types`): `params.graph.threads` mutators.
pub fn run(heap: &Heap, types: &Types, params: &Params) -> Result<Summary, StressError> {
    params.validate()?;
    let start = Instant::now();
    let deadline = params
        .graph
        .seconds
        .map(|s| start + Duration::from_secs_f64(s));
    let results: Vec<Result<ThreadResult, StressError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..params.graph.threads)
            .map(|tid| {
                // Named, so that pause records can say which thread a stop waited for.
                std::thread::Builder::new()
                    .name(format!("churn-{tid}"))
                    .spawn_scoped(s, move || churn_thread(heap, *types, params, tid, deadline))
                    .expect("spawning a churn thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| Err(StressError::from_panic(p))))
            .collect()
    });
    let mut summary = Summary {
        params: params.clone(),
        cycles: 0,
        ops: 0,
        objects: 0,
        live_objects: 0,
        checksums: Vec::new(),
        finalized: 0,
        weak_cleared: 0,
        tokens: 0,
        elapsed_ns: 0,
    };
    for r in results {
        let r = r?;
        summary.cycles += r.cycles;
        summary.ops += r.ops;
        summary.objects += r.objects;
        summary.live_objects += r.live;
        summary.checksums.push(r.checksum);
        summary.finalized += r.counts[0];
        summary.weak_cleared += r.counts[1];
        summary.tokens += r.counts[2];
    }
    summary.elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(summary)
}

struct ThreadResult {
    /// Finalized objects, cleared weak handles, cleaner tokens.
    counts: [u64; 3],
    cycles: u64,
    ops: u64,
    objects: u64,
    live: u64,
    checksum: u64,
}

/// One thread's mutator, graph and model.
struct Churn {
    t: Types,
    /// Runtime-feature operations per thousand.
    refs: u64,
    /// This thread's weak handles (their referents are in `model.weak`) and what
    /// each was made for (kind, id, length).
    weak: Vec<WeakHandle>,
    weak_desc: Vec<(u8, u64, usize)>,
    /// This thread's finalizer and cleaner queue.
    queue: FinalizerQueue,
    next_token: u64,
    /// Finalized objects, cleared weak handles, cleaner tokens checked.
    counts: [u64; 3],
    rng: Rng,
    model: Model,
    /// Root-stack index of slot 0.
    base: usize,
    tid: u64,
    next_id: u64,
    objects: u64,
    large_len: usize,
    garbage: usize,
}

fn churn_thread(
    heap: &Heap,
    t: Types,
    p: &Params,
    tid: usize,
    deadline: Option<Instant>,
) -> Result<ThreadResult, StressError> {
    let mut m = heap.bind_mutator()?;
    let base = m.stack_len();
    for _ in 0..p.graph.roots {
        m.push(None);
    }
    let mut c = Churn {
        t,
        refs: p.refs,
        weak: Vec::new(),
        weak_desc: Vec::new(),
        queue: heap.finalizer_queue(),
        next_token: 0,
        counts: [0; 3],
        rng: Rng::new(p.graph.seed.wrapping_add(tid as u64)),
        model: Model::new(p.graph.roots),
        base,
        tid: tid as u64 + 1,
        next_id: 1,
        objects: 0,
        large_len: heap.config().large_object_threshold + 8,
        garbage: p.graph.garbage,
    };
    let (mut cycles, mut ops, mut checksum) = (0, 0, 0);
    while cycles < p.graph.cycle_limit() && deadline.is_none_or(|d| Instant::now() < d) {
        for _ in 0..p.graph.ops {
            c.step(&mut m)?;
        }
        ops += p.graph.ops;
        cycles += 1;
        checksum = c
            .check(&m)
            .map_err(|e| StressError::Check(format!("thread {tid}, cycle {cycles}: {e}")))?;
        if p.refs > 0 && cycles % p.refs_check == 0 {
            c.refs_check(&mut m)?;
        }
        c.model.compact();
    }
    m.stack_truncate(base);
    Ok(ThreadResult {
        counts: c.counts,
        cycles,
        ops,
        objects: c.objects,
        live: c.model.len() as u64,
        checksum,
    })
}

impl Churn {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        (self.tid << 40) | self.next_id
    }

    fn slot(&mut self) -> usize {
        self.rng.below(self.model.roots.len())
    }

    /// Moves the object on top of the root stack into slot `s`.
    fn settle(&self, m: &Mutator, s: usize) {
        let obj = m.pop();
        m.stack_set(self.base + s, obj);
    }

    /// Allocates a node with a fresh id on top of the stack; returns its model index.
    fn node(&mut self, m: &mut Mutator) -> Result<usize, GcError> {
        m.alloc_push(self.t.node, 0)?;
        let id = self.new_id();
        m.write_word(m.stack_get(m.stack_len() - 1).expect("allocated"), 2, id);
        self.objects += 1;
        Ok(self.model.add(NODE, id, 0, 2))
    }

    /// Allocates a reference array of `len` on top of the stack.
    fn vec(&mut self, m: &mut Mutator, len: usize) -> Result<usize, GcError> {
        m.alloc_push(self.t.vec, len)?;
        self.objects += 1;
        Ok(self.model.add(VEC, 0, len, len))
    }

    /// Allocates a byte array of `len` (at least 8) on top of the stack.
    fn blob(&mut self, m: &mut Mutator, len: usize) -> Result<usize, GcError> {
        m.alloc_push(self.t.blob, len)?;
        let id = self.new_id();
        let mut data: Vec<u8> = (0..len).map(|i| blob_byte(id, i)).collect();
        data[..8].copy_from_slice(&id.to_le_bytes());
        m.write_bytes(m.stack_get(m.stack_len() - 1).expect("allocated"), 0, &data);
        self.objects += 1;
        Ok(self.model.add(model::BLOB, id, len, 0))
    }

    fn step(&mut self, m: &mut Mutator) -> Result<(), StressError> {
        let r = self.rng.below(1000);
        let s = self.slot();
        if self.refs > 0 && self.rng.below(1000) < self.refs as usize {
            return self.refs_op(m, s);
        }
        match r {
            0..200 => {
                let i = self.node(m)?;
                self.settle(m, s);
                self.model.roots[s] = Some(i);
            }
            200..260 => {
                let len = self.rng.below(8);
                let i = self.vec(m, len)?;
                self.settle(m, s);
                self.model.roots[s] = Some(i);
            }
            260..320 => {
                let len = 8 + self.rng.below(300);
                let i = self.blob(m, len)?;
                self.settle(m, s);
                self.model.roots[s] = Some(i);
            }
            320..322 => {
                // A large object: a blob or a reference array over the threshold.
                let i = if self.rng.chance(50) {
                    self.blob(m, self.large_len)?
                } else {
                    self.vec(m, self.large_len / 8)?
                };
                self.settle(m, s);
                self.model.roots[s] = Some(i);
            }
            322..600 => self.link(m, s),
            600..700 => self.child(m, s),
            700..750 => {
                m.stack_set(self.base + s, None);
                self.model.roots[s] = None;
            }
            750..850 => {
                let n = 1 + self.rng.below(self.garbage);
                for _ in 0..n {
                    m.alloc_push(self.t.node, 0)?;
                    m.stack_truncate(m.stack_len() - 1);
                }
                self.objects += n as u64;
            }
            850..880 => self.chain(m, s)?,
            _ => self.spot_check(m, s)?,
        }
        Ok(())
    }

    /// Slot `a`'s object (its model index) and one of its reference fields, chosen
    /// at random; `None` if the slot is empty or the object has no references.
    fn pick_field(&mut self, a: usize) -> Option<(usize, usize)> {
        let ai = self.model.roots[a]?;
        let nrefs = self.model.objs[ai].refs.len();
        (nrefs > 0).then(|| (ai, self.rng.below(nrefs)))
    }

    /// Links slot `a`'s object (field chosen at random) to another slot's, or clears it.
    fn link(&mut self, m: &Mutator, a: usize) {
        let Some((ai, f)) = self.pick_field(a) else {
            return;
        };
        let b = (!self.rng.chance(15)).then(|| self.slot());
        let value = b.and_then(|b| m.stack_get(self.base + b));
        let obj = m.stack_get(self.base + a).expect("model says non-null");
        m.write_ref(obj, f, value);
        self.model.objs[ai].refs[f] = b.and_then(|b| self.model.roots[b]);
    }

    /// Loads a child of slot `a`'s object into a random slot.
    fn child(&mut self, m: &Mutator, a: usize) {
        let Some((ai, f)) = self.pick_field(a) else {
            return;
        };
        let dst = self.slot();
        let obj = m.stack_get(self.base + a).expect("model says non-null");
        m.stack_set(self.base + dst, m.read_ref(obj, f));
        self.model.roots[dst] = self.model.objs[ai].refs[f];
    }

    /// A chain of mixed objects, each linked to the previous one and some to the
    /// one three back, rooted at its last object in slot `s`.
    fn chain(&mut self, m: &mut Mutator, s: usize) -> Result<(), GcError> {
        let n = 1 + self.rng.below(200);
        let at = m.stack_len();
        let mut recent: Vec<usize> = Vec::new(); // model indices, parallel to the stack
        for k in 0..n {
            let me = if self.rng.chance(30) {
                let len = 1 + self.rng.below(5);
                self.vec(m, len)?
            } else {
                self.node(m)?
            };
            let top = at + k;
            let obj = m.stack_get(top).expect("allocated");
            if k >= 1 {
                m.write_ref(obj, 0, m.stack_get(top - 1));
                self.model.objs[me].refs[0] = Some(recent[k - 1]);
            }
            let nrefs = self.model.objs[me].refs.len();
            if k >= 3 && nrefs > 1 {
                m.write_ref(obj, nrefs - 1, m.stack_get(top - 3));
                self.model.objs[me].refs[nrefs - 1] = Some(recent[k - 3]);
            }
            recent.push(me);
        }
        let last = m.stack_get(at + n - 1);
        m.stack_set(self.base + s, last);
        m.stack_truncate(at);
        self.model.roots[s] = recent.last().copied();
        Ok(())
    }

    /// Compares slot `s`'s object's kind and id with the model (cheap, frequent).
    fn spot_check(&mut self, m: &Mutator, s: usize) -> Result<(), StressError> {
        let heap = m.stack_get(self.base + s);
        let model = self.model.roots[s].map(|i| &self.model.objs[i]);
        let ok = match (heap, model) {
            (None, None) => true,
            (Some(o), Some(mo)) => {
                let (kind, id, len) = describe(m, self.t, o).map_err(StressError::Check)?;
                (kind, id, len) == (mo.kind, mo.id, mo.len)
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(StressError::Check(format!(
                "thread {}: slot {s} differs from the model",
                self.tid - 1
            )))
        }
    }

    /// The full check: heap checksum against the model's.
    fn check(&self, m: &Mutator) -> Result<u64, String> {
        let want = self.model.checksum();
        let got = heap_checksum(m, self.t, self.base, self.model.roots.len())?;
        if got == want {
            Ok(got)
        } else {
            Err(format!(
                "heap checksum {got:016x} differs from the model's {want:016x}"
            ))
        }
    }
}

/// An object's (kind, id, length) as the model records it; blob bytes are checked
/// against their pattern.
pub(super) fn describe(m: &Mutator, t: Types, o: Gc<'_>) -> Result<(u8, u64, usize), String> {
    let ty = m.type_of(o);
    if ty == t.node {
        Ok((NODE, m.read_word(o, 2), 0))
    } else if ty == t.vec {
        Ok((VEC, 0, m.len(o)))
    } else if ty == t.blob {
        let len = m.len(o);
        let mut buf = vec![0u8; len];
        m.read_bytes(o, 0, &mut buf);
        let id = u64::from_le_bytes(buf[..8].try_into().expect("8 bytes"));
        if let Some(i) = (8..len).find(|&i| buf[i] != blob_byte(id, i)) {
            return Err(format!("blob {id:x}: byte {i} changed"));
        }
        Ok((model::BLOB, id, len))
    } else {
        Err(format!("object {o:?} has a foreign type {ty:?}"))
    }
}

/// The canonical checksum of the graph reachable from `count` slots at `base`
/// (same traversal as [`Model::checksum`]).
fn heap_checksum(m: &Mutator, t: Types, base: usize, count: usize) -> Result<u64, String> {
    let mut seen: HashMap<usize, u64> = HashMap::new();
    let mut h = model::FNV_START;
    let mut todo: Vec<Option<Gc<'_>>> = Vec::new();
    for s in (0..count).rev() {
        todo.push(m.stack_get(base + s));
    }
    while let Some(next) = todo.pop() {
        let Some(o) = next else {
            model::mix(&mut h, model::NULL_MARK);
            continue;
        };
        if let Some(n) = seen.get(&o.addr()) {
            model::mix(&mut h, model::SEEN_MARK + n);
            continue;
        }
        seen.insert(o.addr(), seen.len() as u64);
        let (kind, id, len) = describe(m, t, o)?;
        model::mix_object(&mut h, kind, id, len);
        let nrefs = match kind {
            NODE => 2,
            VEC => len,
            _ => 0,
        };
        for f in (0..nrefs).rev() {
            todo.push(m.read_ref(o, f));
        }
    }
    Ok(h)
}
