//! churn through this VM's layout: random graph mutation by several mutators, each
//! checked against a host-side model of its graph, with classes loaded while the
//! mutators run. The model check of the VM binding, after `flipgc_stress::churn`
//! (whose [`Model`] and checksum it reuses).
//!
//! Every thread owns `roots` root-stack slots and a random graph hanging from
//! them: instances of `churn.Node` (`ref a, ref b, long id`) and of classes the
//! thread loads itself as it runs (each a random mix of 0 to 6 reference fields,
//! an `id` and 0 to 4 more primitive fields, declared in random order, so the
//! layout puts them in another), reference arrays, primitive arrays (element 0 the
//! id, then a pattern), and now and then arrays over the large-object threshold.
//! Operations, drawn from a seeded [`Rng`]: allocate into a slot, load a class and
//! allocate one, link one slot's object to another's, load a child into a slot,
//! clear a slot, build a chain, allocate unrooted garbage, spot-check a slot.
//!
//! A *cycle* is `ops` operations followed by a full check: the canonical checksum
//! of the heap graph reachable from the slots (shape; each object's kind, id and
//! size in words or elements; every primitive word against its pattern) must equal
//! the model's. Run it with the verifier after every collection. Identity hashes,
//! weak handles and finalizers are not part of it: the binding does not offer
//! them on VM objects in this version.

use crate::class::{Class, LoadError, Shape};
use crate::object::{array_len, push_array, push_new, Jvm};
use flipgc_core::{Gc, GcError, Heap, Mutator, Value};
use flipgc_stress::churn::model::{self, Model, FNV_START, NULL_MARK, SEEN_MARK};
use flipgc_stress::churn::GraphParams;
use flipgc_stress::rng::Rng;
use flipgc_stress::StressError;
use serde::Serialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The class description churn loads at the start.
pub const CLASSES: &str = include_str!("../classes/churn.txt");

/// Kind of an instance in the model (its `len` is its size in words).
pub const INSTANCE: u8 = model::NODE;
/// Kind of a reference array (`len`: elements).
pub const VEC: u8 = model::VEC;
/// Kind of a primitive array (`len`: elements; element 0 is the id).
pub const BLOB: u8 = model::BLOB;

/// Most classes one thread loads while it runs.
pub const MAX_THREAD_CLASSES: usize = 64;

/// churn's fixed classes.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// `churn.Node`.
    pub node: &'static Class,
    /// `churn.Vec`, an array of references.
    pub vec: &'static Class,
    /// `churn.Blob`, an array of longs.
    pub blob: &'static Class,
}

/// Loads churn's fixed classes into `jvm`.
pub fn load(jvm: &Jvm) -> Result<Types, String> {
    jvm.load(CLASSES).map_err(|e| format!("churn.txt: {e}"))?;
    Ok(Types {
        node: jvm.class("churn.Node")?,
        vec: jvm.class("churn.Vec")?,
        blob: jvm.class("churn.Blob")?,
    })
}

/// churn's parameters: the graph parameters of `flipgc_stress::churn`, which this
/// churn shares (it has no runtime-feature operations).
pub type Params = GraphParams;

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
    /// Classes loaded while the threads ran.
    pub classes_loaded: u64,
    /// Objects reachable in the final graphs, all threads.
    pub live_objects: u64,
    /// The final checksums, one per thread.
    pub checksums: Vec<u64>,
    /// Wall time.
    pub elapsed_ns: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "jvmlike-churn: {} thread(s), {} cycles, {} operations, {} objects allocated, {} classes loaded while running",
            self.params.threads, self.cycles, self.ops, self.objects, self.classes_loaded
        )?;
        writeln!(
            f,
            "model checks passed; {} objects reachable at the end",
            self.live_objects
        )?;
        let sums: Vec<String> = self.checksums.iter().map(|c| format!("{c:016x}")).collect();
        writeln!(f, "final checksums: {}", sums.join(" "))?;
        write!(f, "Completed in {} msec", self.elapsed_ns / 1_000_000)
    }
}

/// Runs churn on `heap` (built for `jvm`, into which `types` were loaded).
pub fn run(heap: &Heap, jvm: &Jvm, types: &Types, params: &Params) -> Result<Summary, StressError> {
    params.validate()?;
    let start = Instant::now();
    let deadline = params.seconds.map(|s| start + Duration::from_secs_f64(s));
    let results: Vec<Result<ThreadResult, StressError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..params.threads)
            .map(|tid| {
                std::thread::Builder::new()
                    .name(format!("jvmlike-churn-{tid}"))
                    .spawn_scoped(s, move || {
                        churn_thread(heap, *jvm, *types, params, tid, deadline)
                    })
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
        classes_loaded: 0,
        live_objects: 0,
        checksums: Vec::new(),
        elapsed_ns: 0,
    };
    for r in results {
        let r = r?;
        summary.cycles += r.cycles;
        summary.ops += r.ops;
        summary.objects += r.objects;
        summary.classes_loaded += r.classes_loaded;
        summary.live_objects += r.live;
        summary.checksums.push(r.checksum);
    }
    summary.elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(summary)
}

struct ThreadResult {
    cycles: u64,
    ops: u64,
    objects: u64,
    classes_loaded: u64,
    live: u64,
    checksum: u64,
}

/// What churn needs of an instance class: its reference count, the slot of its
/// `id`, and the slots of its other primitive fields with their pattern index.
#[derive(Clone, Debug)]
struct Info {
    class: &'static Class,
    refs: usize,
    words: usize,
    id_slot: usize,
    prims: Vec<(usize, u64)>,
}

impl Info {
    fn of(class: &'static Class) -> Info {
        let Shape::Instance { refs, words } = class.shape() else {
            unreachable!("churn's instance classes are instance classes")
        };
        let id_slot = class.field("id").expect("every churn class has an id").slot;
        let prims = class
            .fields()
            .iter()
            .filter_map(|f| {
                let j = f.name.strip_prefix('p')?.parse::<u64>().ok()?;
                Some((f.slot, j + 1))
            })
            .collect();
        Info {
            class,
            refs,
            words,
            id_slot,
            prims,
        }
    }
}

/// Word `k` (`k >= 1`) of the pattern of the object with `id`.
pub fn pattern(id: u64, k: u64) -> u64 {
    id.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(k.wrapping_mul(31))
        .rotate_left((k % 64) as u32)
}

struct Churn {
    jvm: Jvm,
    t: Types,
    /// This thread's instance classes (churn.Node first), by header word too.
    classes: Vec<Info>,
    by_header: HashMap<u64, usize>,
    rng: Rng,
    model: Model,
    base: usize,
    tid: u64,
    next_id: u64,
    objects: u64,
    large_len: usize,
    garbage: usize,
}

fn churn_thread(
    heap: &Heap,
    jvm: Jvm,
    t: Types,
    p: &Params,
    tid: usize,
    deadline: Option<Instant>,
) -> Result<ThreadResult, StressError> {
    let mut m = heap.bind_mutator()?;
    let base = m.stack_len();
    for _ in 0..p.roots {
        m.push(None);
    }
    let mut c = Churn {
        jvm,
        t,
        classes: Vec::new(),
        by_header: HashMap::new(),
        rng: Rng::new(p.seed.wrapping_add(tid as u64)),
        model: Model::new(p.roots),
        base,
        tid: tid as u64 + 1,
        next_id: 1,
        objects: 0,
        large_len: heap.config().large_object_threshold / 8 + 1,
        garbage: p.garbage,
    };
    c.add_class(t.node);
    let (mut cycles, mut ops, mut checksum) = (0, 0, 0);
    while cycles < p.cycle_limit() && deadline.is_none_or(|d| Instant::now() < d) {
        for _ in 0..p.ops {
            c.step(&mut m)?;
        }
        ops += p.ops;
        cycles += 1;
        checksum = c
            .check(&m)
            .map_err(|e| StressError::Check(format!("thread {tid}, cycle {cycles}: {e}")))?;
        c.model.compact();
    }
    m.stack_truncate(base);
    Ok(ThreadResult {
        cycles,
        ops,
        objects: c.objects,
        classes_loaded: c.classes.len() as u64 - 1,
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

    fn add_class(&mut self, class: &'static Class) {
        self.by_header.insert(class.header(), self.classes.len());
        self.classes.push(Info::of(class));
    }

    /// Moves the object on top of the root stack into slot `s`.
    fn settle(&self, m: &Mutator, s: usize) {
        let obj = m.pop();
        m.stack_set(self.base + s, obj);
    }

    /// Loads a new class with a random layout (a thread's own name), or `None`
    /// once the thread has loaded [`MAX_THREAD_CLASSES`] or the table is full.
    fn load_class(&mut self) -> Result<Option<usize>, StressError> {
        if self.classes.len() > MAX_THREAD_CLASSES {
            return Ok(None);
        }
        let (refs, prims) = (self.rng.below(7), self.rng.below(5));
        let mut fields: Vec<String> = (0..refs).map(|i| format!("ref r{i}")).collect();
        // Primitives are shuffled in among the references: the layout moves them
        // after the references whatever the declared order.
        for j in 0..=prims {
            let at = self.rng.below(fields.len() + 1);
            let f = if j == prims {
                "long id".to_string()
            } else {
                format!("long p{j}")
            };
            fields.insert(at, f);
        }
        let name = format!("churn.t{}.c{}", self.tid - 1, self.classes.len());
        let text = format!("class {name}\n    {}\nend\n", fields.join("\n    "));
        let class = match self.jvm.load(&text) {
            Ok(classes) => classes[0],
            // Other threads filled the table: go on with the classes there are.
            Err(LoadError::Full { .. }) => return Ok(None),
            Err(e) => return Err(StressError::Check(format!("loading {name}: {e}"))),
        };
        self.add_class(class);
        Ok(Some(self.classes.len() - 1))
    }

    /// Allocates an instance of this thread's class `k` with a fresh id and its
    /// pattern on top of the stack; returns its model index.
    fn instance(&mut self, m: &mut Mutator, k: usize) -> Result<usize, GcError> {
        let info = &self.classes[k];
        let (class, refs, words, id_slot) = (info.class, info.refs, info.words, info.id_slot);
        push_new(m, class)?;
        let id = self.new_id();
        let obj = m.stack_get(m.stack_len() - 1).expect("allocated");
        m.write_slot_word(obj, id_slot, id);
        for &(slot, j) in &self.classes[k].prims {
            m.write_slot_word(obj, slot, pattern(id, j));
        }
        self.objects += 1;
        Ok(self.model.add(INSTANCE, id, words, refs))
    }

    fn vec(&mut self, m: &mut Mutator, len: usize) -> Result<usize, GcError> {
        push_array(m, self.t.vec, len)?;
        self.objects += 1;
        Ok(self.model.add(VEC, 0, len, len))
    }

    fn blob(&mut self, m: &mut Mutator, len: usize) -> Result<usize, GcError> {
        push_array(m, self.t.blob, len)?;
        let id = self.new_id();
        let obj = m.stack_get(m.stack_len() - 1).expect("allocated");
        m.write_slot_word(obj, 2, id);
        for k in 1..len {
            m.write_slot_word(obj, 2 + k, pattern(id, k as u64));
        }
        self.objects += 1;
        Ok(self.model.add(BLOB, id, len, 0))
    }

    fn step(&mut self, m: &mut Mutator) -> Result<(), StressError> {
        let r = self.rng.below(1000);
        let s = self.slot();
        let made = match r {
            0..180 => {
                let k = self.rng.below(self.classes.len());
                Some(self.instance(m, k)?)
            }
            180..240 => {
                let len = self.rng.below(8);
                Some(self.vec(m, len)?)
            }
            240..300 => {
                let len = 1 + self.rng.below(40);
                Some(self.blob(m, len)?)
            }
            300..302 => Some(if self.rng.chance(50) {
                self.blob(m, self.large_len)?
            } else {
                self.vec(m, self.large_len)?
            }),
            302..303 => match self.load_class()? {
                Some(k) => Some(self.instance(m, k)?),
                None => None,
            },
            303..580 => {
                self.link(m, s);
                None
            }
            580..680 => {
                self.child(m, s);
                None
            }
            680..730 => {
                m.stack_set(self.base + s, None);
                self.model.roots[s] = None;
                None
            }
            730..830 => {
                let n = 1 + self.rng.below(self.garbage);
                for _ in 0..n {
                    push_new(m, self.t.node)?;
                    m.stack_truncate(m.stack_len() - 1);
                }
                self.objects += n as u64;
                None
            }
            830..860 => {
                self.chain(m, s)?;
                None
            }
            _ => {
                self.spot_check(m, s)?;
                None
            }
        };
        if let Some(i) = made {
            self.settle(m, s);
            self.model.roots[s] = Some(i);
        }
        Ok(())
    }

    /// The word index of reference `f` of an object of model kind `kind`.
    fn ref_slot(kind: u8, f: usize) -> usize {
        if kind == VEC {
            2 + f
        } else {
            1 + f
        }
    }

    fn pick_field(&mut self, a: usize) -> Option<(usize, usize)> {
        let ai = self.model.roots[a]?;
        let nrefs = self.model.objs[ai].refs.len();
        (nrefs > 0).then(|| (ai, self.rng.below(nrefs)))
    }

    /// Links slot `a`'s object (a reference chosen at random) to another slot's,
    /// or clears it.
    fn link(&mut self, m: &Mutator, a: usize) {
        let Some((ai, f)) = self.pick_field(a) else {
            return;
        };
        let b = (!self.rng.chance(15)).then(|| self.slot());
        let value = b.and_then(|b| m.stack_get(self.base + b));
        let obj = m.stack_get(self.base + a).expect("model says non-null");
        let slot = Self::ref_slot(self.model.objs[ai].kind, f);
        m.write_slot(obj, slot, Value::from(value));
        self.model.objs[ai].refs[f] = b.and_then(|b| self.model.roots[b]);
    }

    /// Loads a child of slot `a`'s object into a random slot.
    fn child(&mut self, m: &Mutator, a: usize) {
        let Some((ai, f)) = self.pick_field(a) else {
            return;
        };
        let dst = self.slot();
        let obj = m.stack_get(self.base + a).expect("model says non-null");
        let slot = Self::ref_slot(self.model.objs[ai].kind, f);
        m.stack_set(self.base + dst, m.read_slot(obj, slot).as_ref());
        self.model.roots[dst] = self.model.objs[ai].refs[f];
    }

    /// A chain of nodes and small reference arrays, each linked to the previous
    /// one and some to the one three back, rooted at its last object in slot `s`.
    fn chain(&mut self, m: &mut Mutator, s: usize) -> Result<(), GcError> {
        let n = 1 + self.rng.below(200);
        let at = m.stack_len();
        let mut recent: Vec<usize> = Vec::new();
        for k in 0..n {
            let me = if self.rng.chance(30) {
                let len = 1 + self.rng.below(5);
                self.vec(m, len)?
            } else {
                self.instance(m, 0)?
            };
            let top = at + k;
            let obj = m.stack_get(top).expect("allocated");
            let kind = self.model.objs[me].kind;
            if k >= 1 {
                m.write_slot(obj, Self::ref_slot(kind, 0), m.stack_get(top - 1).into());
                self.model.objs[me].refs[0] = Some(recent[k - 1]);
            }
            let nrefs = self.model.objs[me].refs.len();
            if k >= 3 && nrefs > 1 {
                let slot = Self::ref_slot(kind, nrefs - 1);
                m.write_slot(obj, slot, m.stack_get(top - 3).into());
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

    /// An object's (kind, id, length) as the model records it, and its number of
    /// references; its primitive words are checked against their pattern.
    fn describe(&self, m: &Mutator, o: Gc<'_>) -> Result<(u8, u64, usize, usize), String> {
        let class = self.jvm.class_of(m, o);
        if std::ptr::eq(class, self.t.vec) {
            let len = array_len(m, o);
            return Ok((VEC, 0, len, len));
        }
        if std::ptr::eq(class, self.t.blob) {
            let len = array_len(m, o);
            let id = m.read_slot_word(o, 2);
            if let Some(k) = (1..len).find(|&k| m.read_slot_word(o, 2 + k) != pattern(id, k as u64))
            {
                return Err(format!("array {id:x}: element {k} changed"));
            }
            return Ok((BLOB, id, len, 0));
        }
        let Some(&k) = self.by_header.get(&class.header()) else {
            return Err(format!(
                "{o:?} is of class {}, not this thread's",
                class.name()
            ));
        };
        let info = &self.classes[k];
        let id = m.read_slot_word(o, info.id_slot);
        for &(slot, j) in &info.prims {
            if m.read_slot_word(o, slot) != pattern(id, j) {
                return Err(format!(
                    "{} {id:x}: primitive word {slot} changed",
                    class.name()
                ));
            }
        }
        Ok((INSTANCE, id, info.words, info.refs))
    }

    fn spot_check(&mut self, m: &Mutator, s: usize) -> Result<(), StressError> {
        let heap = m.stack_get(self.base + s);
        let model = self.model.roots[s].map(|i| &self.model.objs[i]);
        let ok = match (heap, model) {
            (None, None) => true,
            (Some(o), Some(mo)) => {
                let (kind, id, len, _) = self.describe(m, o).map_err(StressError::Check)?;
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

    /// The full check: the heap's checksum against the model's (the same
    /// traversal as `Model::checksum`).
    fn check(&self, m: &Mutator) -> Result<u64, String> {
        let mut seen: HashMap<usize, u64> = HashMap::new();
        let mut h = FNV_START;
        let mut todo: Vec<Option<Gc<'_>>> = (0..self.model.roots.len())
            .rev()
            .map(|s| m.stack_get(self.base + s))
            .collect();
        while let Some(next) = todo.pop() {
            let Some(o) = next else {
                model::mix(&mut h, NULL_MARK);
                continue;
            };
            if let Some(n) = seen.get(&o.addr()) {
                model::mix(&mut h, SEEN_MARK + n);
                continue;
            }
            seen.insert(o.addr(), seen.len() as u64);
            let (kind, id, len, nrefs) = self.describe(m, o)?;
            model::mix_object(&mut h, kind, id, len);
            for f in (0..nrefs).rev() {
                todo.push(m.read_slot(o, Self::ref_slot(kind, f)).as_ref());
            }
        }
        let want = self.model.checksum();
        if h == want {
            Ok(h)
        } else {
            Err(format!(
                "heap checksum {h:016x} differs from the model's {want:016x}"
            ))
        }
    }
}
