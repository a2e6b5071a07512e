//! Multi-threaded churn: several mutator threads allocate, link and drop objects in
//! one heap at once, each checking its own object graph against a plain Rust model
//! after every round and after every collection it runs or waits out. Collections
//! come from explicit `collect` calls and from allocation (a 16 MiB heap, 4 KiB
//! TLABs, garbage byte arrays and large objects); the verifier runs after each one.
//!
//! Threads and their roles (one mutator each):
//! - 0 `Publisher`: churns, and publishes a shared list through a [`Global`] that
//!   every other thread reads and checks; replaces it with a new version now and then.
//! - 1 `Blocker`: churns, and spends time in `Mutator::blocking` (sleeping, and
//!   waiting there until another thread's collection has happened).
//! - 2 `Plain`: churns.
//! - 3 `Rebinder`: churns; twice parks its whole graph in `Global`s, drops its
//!   mutator, waits for a collection, binds a fresh mutator and takes the graph back.
//! - 4 `Quitter`: churns, then parks its graph in `Global`s and drops its mutator
//!   halfway while the others keep going.
//! - 5 `Poller`: allocates nothing after setup; calls `Mutator::safepoint` in a loop
//!   and checks a small list and the shared list.
//!
//! At the end the test thread binds its own mutator, takes back every parked graph
//! (objects made by threads whose mutators are gone), checks it, collects, checks
//! again, and checks that after one more collection exactly the shared list is left
//! (so no dead mutator's roots are still scanned). Run on flip modes auto, forced
//! PTE and copy (`threads_churn_*`), the first two also with the fault server
//! instead of SIGBUS mode (`*_server`).
//!
//! `collect_storm_*`: four threads call `collect` back to back and rewrite their own
//! lists in between, the shortest path to the race where a thread waiting out one
//! collection resumes inside the next one.
//!
//! Each body runs in a spawned thread with a 60 s limit: a hang fails with
//! "deadlock suspected" and each thread's last phase.

use flipgc_core::{
    FaultMode, FlipMode, Gc, Global, Handle, Heap, HeapConfig, Mutator, TypeId, TypeRegistry,
};
#[path = "common/timeout.rs"]
mod timeout;
use flipgc_heap::Level;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};
use timeout::with_timeout_report;

const HEAP: usize = 16 << 20;
const THREADS: usize = 6;
/// Rounds per churning thread.
const ROUNDS: usize = 120;
/// Random operations per round.
const OPS_PER_ROUND: usize = 40;
/// A churning thread calls `collect` every this many rounds.
const COLLECT_EVERY: usize = 6;
/// Elements of a pin array: a reference array big enough for the large-object space.
const PIN_SLOTS: usize = 8200;
/// Longest list and largest tree a thread keeps before cutting them down.
const MAX_LIST: usize = 800;
const MAX_TREE: usize = 800;
const MAX_STACK: usize = 48;

/// Id tags in a node's word field (bits 40..62 hold the thread, 0..40 a sequence).
const SHARED_TAG: u64 = 1 << 63;
const LEAF_TAG: u64 = 1 << 62;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Publisher,
    Blocker,
    Plain,
    Rebinder,
    Quitter,
    Poller,
}

const ROLES: [Role; THREADS] = [
    Role::Publisher,
    Role::Blocker,
    Role::Plain,
    Role::Rebinder,
    Role::Quitter,
    Role::Poller,
];

#[derive(Clone, Copy)]
struct Types {
    /// Two references (fields 0, 1) and an id word (field 2).
    node: TypeId,
    blob: TypeId,
    vec: TypeId,
}

fn registry() -> (TypeRegistry, Types) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 3, &[0, 1]).unwrap();
    let blob = r.byte_array("blob").unwrap();
    let vec = r.ref_array("vec").unwrap();
    (r, Types { node, blob, vec })
}

/// xorshift64*: deterministic per thread and mode.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// What each thread is doing, for the deadlock report.
#[derive(Clone, Copy)]
#[repr(u8)]
enum Phase {
    Starting = 0,
    Running,
    Blocking,
    Collecting,
    Unbound,
    Done,
}

const PHASE_NAMES: [&str; 6] = [
    "starting",
    "running",
    "blocking",
    "collecting",
    "unbound",
    "done",
];

#[derive(Default)]
struct Progress {
    rounds: [AtomicU64; THREADS],
    phase: [AtomicU8; THREADS],
}

impl Progress {
    fn set(&self, tid: usize, p: Phase) {
        self.phase[tid].store(p as u8, Ordering::Relaxed);
    }

    fn report(&self) -> String {
        (0..THREADS)
            .map(|i| {
                format!(
                    "t{i} {:?}: {} after {} rounds",
                    ROLES[i],
                    PHASE_NAMES[self.phase[i].load(Ordering::Relaxed) as usize],
                    self.rounds[i].load(Ordering::Relaxed)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Shared by every thread of one run.
struct Ctx {
    heap: Heap,
    t: Types,
    /// The shared list, published by thread 0.
    shared: OnceLock<Global>,
    /// The newest shared-list version published (stored before `set_global`).
    published: AtomicU64,
    start: Barrier,
    /// Set when every churning thread has finished: the poller stops.
    done: AtomicBool,
    progress: Progress,
    /// Collections a thread waited for inside `blocking`, or while unbound, and saw.
    seen_while_away: AtomicU64,
}

impl Ctx {
    fn collections(&self) -> usize {
        self.heap.pause_log().collections()
    }
}

fn shared_len(version: u64) -> u64 {
    40 + (version % 7) * 10
}

/// A thread's graph, as plain Rust data.
#[derive(Default, Debug)]
struct Model {
    /// The list from its head: (node id, id of the leaf in field 1).
    list: VecDeque<(u64, Option<u64>)>,
    /// Keys of the binary search tree rooted at root-stack slot 0.
    tree: BTreeSet<u64>,
    /// Root-stack slots 1..: ids of the nodes there.
    stack: Vec<Option<u64>>,
    /// The pin array (a large object): ids per slot; empty when there is none.
    pins: Vec<Option<u64>>,
}

/// A graph held only by globals, while no mutator of its thread exists.
struct Parked {
    tid: u64,
    head: Option<Global>,
    tree: Option<Global>,
    pins: Option<Global>,
    stack: Vec<Option<Global>>,
    model: Model,
    seq: u64,
}

/// One thread's churn state. The tree root is root-stack slot 0 of its mutator.
struct Churn {
    tid: u64,
    rng: Rng,
    t: Types,
    seq: u64,
    model: Model,
    head: Option<Handle>,
    pins: Option<Handle>,
    last_shared: u64,
    checks: u64,
}

impl Churn {
    fn new(tid: u64, seed: u64, t: Types, m: &mut Mutator) -> Churn {
        assert_eq!(m.stack_len(), 0);
        m.push(None); // the tree root
        Churn {
            tid,
            rng: Rng::new(seed),
            t,
            seq: 0,
            model: Model::default(),
            head: None,
            pins: None,
            last_shared: 0,
            checks: 0,
        }
    }

    fn new_id(&mut self) -> u64 {
        self.seq += 1;
        (self.tid << 40) | self.seq
    }

    fn node(&mut self, m: &mut Mutator, id: u64) -> Handle {
        let h = m.alloc(self.t.node, 0).expect("allocating a node");
        m.write_word(m.get(&h), 2, id);
        h
    }

    /// The list node at position `k` (the model says it exists), rooted.
    fn list_at(&self, m: &Mutator, k: usize) -> Handle {
        let mut cur = m.get(self.head.as_ref().expect("non-empty list"));
        for i in 0..k {
            cur = m
                .read_ref(cur, 0)
                .unwrap_or_else(|| panic!("t{}: list ends at {i}, model has {k}+", self.tid));
        }
        m.root(cur)
    }

    fn step(&mut self, m: &mut Mutator) {
        let len = self.model.list.len();
        match self.rng.below(24) {
            0..=3 => self.list_push_front(m),
            4 | 5 if len > 0 => {
                // Insert after position k - 1.
                let k = 1 + self.rng.below(len);
                let prev = self.list_at(m, k - 1);
                let id = self.new_id();
                let n = self.node(m, id);
                let next = m.read_ref(m.get(&prev), 0);
                m.write_ref(m.get(&n), 0, next);
                m.write_ref(m.get(&prev), 0, Some(m.get(&n)));
                self.model.list.insert(k, (id, None));
            }
            6 | 7 if len > 1 => {
                let k = 1 + self.rng.below(len - 1);
                let prev = self.list_at(m, k - 1);
                let p = m.get(&prev);
                let gone = m.read_ref(p, 0).expect("model: node k exists");
                m.write_ref(p, 0, m.read_ref(gone, 0));
                self.model.list.remove(k);
            }
            8 if len > 0 => {
                let h = self.head.take().expect("non-empty");
                let next = m.read_ref(m.get(&h), 0);
                if let Some(n) = next {
                    m.set(&h, n);
                    self.head = Some(h);
                }
                self.model.list.pop_front();
            }
            9 if len > MAX_LIST || self.rng.chance(5) => {
                let k = self.rng.below(len.min(MAX_LIST / 2) + 1);
                if k == 0 {
                    self.head = None;
                } else {
                    let last = self.list_at(m, k - 1);
                    m.write_ref(m.get(&last), 0, None);
                }
                self.model.list.truncate(k);
            }
            10 if len > 0 => {
                // Give node k a new leaf (the old one becomes garbage).
                let k = self.rng.below(len);
                let at = self.list_at(m, k);
                let lid = LEAF_TAG | self.new_id();
                let leaf = self.node(m, lid);
                m.write_ref(m.get(&at), 1, Some(m.get(&leaf)));
                self.model.list[k].1 = Some(lid);
            }
            11..=13 => self.tree_insert(m),
            14 if self.model.tree.len() > MAX_TREE || self.rng.chance(8) => self.tree_cut(m),
            14 => self.tree_insert(m),
            15 if self.model.stack.len() < MAX_STACK => {
                if self.rng.chance(20) {
                    m.push(None);
                    self.model.stack.push(None);
                } else {
                    let id = self.new_id();
                    m.alloc_push(self.t.node, 0).expect("allocating a node");
                    let top = m.stack_get(m.stack_len() - 1).expect("just pushed");
                    m.write_word(top, 2, id);
                    self.model.stack.push(Some(id));
                }
            }
            16 if !self.model.stack.is_empty() => {
                if self.rng.chance(30) {
                    let keep = self.rng.below(self.model.stack.len() + 1);
                    m.stack_truncate(1 + keep);
                    self.model.stack.truncate(keep);
                } else {
                    // Copy another slot, or the list head, into slot i.
                    let i = self.rng.below(self.model.stack.len());
                    let j = self.rng.below(self.model.stack.len());
                    if self.rng.chance(50) {
                        m.stack_set(1 + i, m.stack_get(1 + j));
                        self.model.stack[i] = self.model.stack[j];
                    } else {
                        m.stack_set(1 + i, self.head.as_ref().map(|h| m.get(h)));
                        self.model.stack[i] = self.model.list.front().map(|e| e.0);
                    }
                }
            }
            17 | 18 => self.pin(m),
            19 => {
                for _ in 0..1 + self.rng.below(60) {
                    drop(
                        m.alloc(self.t.blob, 16 + self.rng.below(700))
                            .expect("garbage"),
                    );
                }
            }
            20 => {
                for _ in 0..1 + self.rng.below(100) {
                    drop(m.alloc(self.t.node, 0).expect("garbage"));
                }
            }
            21 if self.rng.chance(10) => {
                // A large-object-space blob, or a blob carved outside the TLAB.
                let n = if self.rng.chance(50) {
                    70_000 + self.rng.below(60_000)
                } else {
                    1100 + self.rng.below(2000)
                };
                drop(m.alloc(self.t.blob, n).expect("large garbage"));
            }
            _ => self.list_push_front(m),
        }
    }

    fn list_push_front(&mut self, m: &mut Mutator) {
        let id = self.new_id();
        let n = self.node(m, id);
        let leaf = if self.rng.chance(40) {
            let lid = LEAF_TAG | self.new_id();
            let l = self.node(m, lid);
            m.write_ref(m.get(&n), 1, Some(m.get(&l)));
            Some(lid)
        } else {
            None
        };
        if let Some(h) = &self.head {
            m.write_ref(m.get(&n), 0, Some(m.get(h)));
        }
        self.head = Some(n);
        self.model.list.push_front((id, leaf));
    }

    fn tree_insert(&mut self, m: &mut Mutator) {
        let key = loop {
            let k = self.rng.next() >> 24;
            if !self.model.tree.contains(&k) {
                break k;
            }
        };
        // The new node waits on the root stack while we look for its place.
        m.alloc_push(self.t.node, 0).expect("allocating a node");
        let top = m.stack_len() - 1;
        let new = m.stack_get(top).expect("just pushed");
        m.write_word(new, 2, key);
        match m.stack_get(0) {
            None => m.stack_set(0, Some(new)),
            Some(mut cur) => loop {
                let f = usize::from(key >= m.read_word(cur, 2));
                match m.read_ref(cur, f) {
                    Some(c) => cur = c,
                    None => {
                        m.write_ref(cur, f, Some(new));
                        break;
                    }
                }
            },
        }
        m.stack_truncate(top);
        self.model.tree.insert(key);
    }

    /// Cuts a random subtree off (the root itself at depth 0).
    fn tree_cut(&mut self, m: &Mutator) {
        let Some(mut cur) = m.stack_get(0) else {
            return;
        };
        let depth = self.rng.below(10);
        let (mut lo, mut hi) = (None, None);
        let mut parent = None;
        for _ in 0..depth {
            let k = m.read_word(cur, 2);
            let f = self.rng.below(2);
            match m.read_ref(cur, f) {
                Some(c) => {
                    if f == 0 {
                        hi = Some(k);
                    } else {
                        lo = Some(k);
                    }
                    parent = Some((cur, f));
                    cur = c;
                }
                None => break,
            }
        }
        match parent {
            None => m.stack_set(0, None),
            Some((p, f)) => m.write_ref(p, f, None),
        }
        // In a search tree, the cut subtree holds exactly the keys in (lo, hi).
        self.model
            .tree
            .retain(|k| !(lo.is_none_or(|l| *k > l) && hi.is_none_or(|h| *k < h)));
    }

    fn pin(&mut self, m: &mut Mutator) {
        if self.pins.is_none() || self.rng.chance(2) {
            // A new pin array (in the large-object space) replacing the old one.
            let new = m
                .alloc(self.t.vec, PIN_SLOTS)
                .expect("allocating a pin array");
            if let Some(old) = &self.pins {
                let (o, n) = (m.get(old), m.get(&new));
                for j in 0..PIN_SLOTS {
                    m.write_ref(n, j, m.read_ref(o, j));
                }
            } else {
                self.model.pins = vec![None; PIN_SLOTS];
            }
            self.pins = Some(new);
            return;
        }
        let j = self.rng.below(PIN_SLOTS);
        let pins = self.pins.as_ref().expect("checked above");
        match self.rng.below(4) {
            0 => {
                m.write_ref(m.get(pins), j, None);
                self.model.pins[j] = None;
            }
            1 => {
                let head = self.head.as_ref().map(|h| m.get(h));
                m.write_ref(m.get(pins), j, head);
                self.model.pins[j] = self.model.list.front().map(|e| e.0);
            }
            _ => {
                let id = self.new_id();
                let n = self.node(m, id);
                let pins = self.pins.as_ref().expect("checked above");
                m.write_ref(m.get(pins), j, Some(m.get(&n)));
                self.model.pins[j] = Some(id);
            }
        }
    }

    /// Compares the heap with the model; `full` also compares every pin slot.
    fn check(&mut self, m: &Mutator, full: bool, when: &str) {
        let tid = self.tid;
        self.checks += 1;
        // The list.
        let mut cur = self.head.as_ref().map(|h| m.get(h));
        for (i, (id, leaf)) in self.model.list.iter().enumerate() {
            let n = cur.unwrap_or_else(|| {
                panic!(
                    "t{tid} {when}: list ends at {i}, model has {}",
                    self.model.list.len()
                )
            });
            assert_eq!(m.type_of(n), self.t.node, "t{tid} {when}: list node {i}");
            assert_eq!(m.read_word(n, 2), *id, "t{tid} {when}: list node {i} id");
            let l = m.read_ref(n, 1);
            assert_eq!(
                l.map(|l| m.read_word(l, 2)),
                *leaf,
                "t{tid} {when}: leaf of list node {i}"
            );
            if let Some(l) = l {
                assert!(m.read_ref(l, 0).is_none() && m.read_ref(l, 1).is_none());
            }
            cur = m.read_ref(n, 0);
        }
        assert!(
            cur.is_none(),
            "t{tid} {when}: list longer than the model's {}",
            self.model.list.len()
        );
        // The tree, in order.
        let mut keys = Vec::with_capacity(self.model.tree.len());
        let mut path: Vec<Gc<'_>> = Vec::new();
        let mut cur = m.stack_get(0);
        loop {
            while let Some(n) = cur {
                path.push(n);
                cur = m.read_ref(n, 0);
                assert!(path.len() <= 4 * MAX_TREE, "t{tid} {when}: tree cycle");
            }
            let Some(n) = path.pop() else { break };
            keys.push(m.read_word(n, 2));
            cur = m.read_ref(n, 1);
        }
        if !keys.iter().eq(self.model.tree.iter()) {
            let first = keys
                .iter()
                .zip(self.model.tree.iter())
                .position(|(a, b)| a != b);
            panic!(
                "t{tid} {when}: tree has {} keys, model {}; first difference at {first:?}",
                keys.len(),
                self.model.tree.len()
            );
        }
        // The root stack.
        assert_eq!(
            m.stack_len(),
            1 + self.model.stack.len(),
            "t{tid} {when}: stack depth"
        );
        for (i, e) in self.model.stack.iter().enumerate() {
            let got = m.stack_get(1 + i).map(|g| m.read_word(g, 2));
            assert_eq!(got, *e, "t{tid} {when}: stack slot {}", 1 + i);
        }
        // The pin array.
        match &self.pins {
            None => assert!(self.model.pins.is_empty()),
            Some(p) => {
                let p = m.get(p);
                assert_eq!(m.len(p), PIN_SLOTS);
                let step = if full { 1 } else { 97 };
                for j in (0..PIN_SLOTS).step_by(step) {
                    let got = m.read_ref(p, j).map(|g| m.read_word(g, 2));
                    assert_eq!(got, self.model.pins[j], "t{tid} {when}: pin slot {j}");
                }
            }
        }
    }

    /// Reads the shared list and checks it is one whole published version, no older
    /// than the last one this thread saw.
    fn check_shared(&mut self, m: &Mutator, ctx: &Ctx) {
        let g = ctx
            .shared
            .get()
            .expect("published before the start barrier");
        let head = m.get_global(g);
        let hid = m.read_word(head, 2);
        assert!(
            hid & SHARED_TAG != 0,
            "t{}: shared head id {hid:#x}",
            self.tid
        );
        let v = hid & !SHARED_TAG;
        assert!(
            v >= self.last_shared,
            "t{}: shared list went back from {} to {v}",
            self.tid,
            self.last_shared
        );
        assert!(v <= ctx.published.load(Ordering::SeqCst));
        let mut cur = m.read_ref(head, 0);
        let mut i = 0;
        while let Some(n) = cur {
            assert_eq!(
                m.read_word(n, 2),
                (v << 32) | i,
                "t{}: shared list v{v} node {i}",
                self.tid
            );
            i += 1;
            cur = m.read_ref(n, 0);
        }
        assert_eq!(i, shared_len(v), "t{}: shared list v{v} length", self.tid);
        self.last_shared = v;
    }

    /// Moves every root into globals and drops the handles and root stack entries.
    fn park(mut self, m: &Mutator) -> Parked {
        let global = |g: Option<Gc<'_>>| g.map(|g| m.global(g));
        let head = global(self.head.take().map(|h| m.get(&h)));
        let pins = global(self.pins.take().map(|h| m.get(&h)));
        let tree = global(m.stack_get(0));
        let stack = (1..m.stack_len()).map(|i| global(m.stack_get(i))).collect();
        m.stack_truncate(0);
        Parked {
            tid: self.tid,
            head,
            tree,
            pins,
            stack,
            model: self.model,
            seq: self.seq,
        }
    }

    /// Takes a parked graph back into `m` (whose root stack must be empty).
    fn unpark(p: Parked, seed: u64, t: Types, m: &mut Mutator) -> Churn {
        let mut c = Churn::new(p.tid, seed, t, m);
        c.seq = p.seq;
        c.model = p.model;
        c.head = p.head.as_ref().map(|g| m.root(m.get_global(g)));
        c.pins = p.pins.as_ref().map(|g| m.root(m.get_global(g)));
        m.stack_set(0, p.tree.as_ref().map(|g| m.get_global(g)));
        for g in &p.stack {
            m.push(g.as_ref().map(|g| m.get_global(g)));
        }
        c
    }
}

/// A churning thread (every role but the poller). Returns its parked graph.
fn churn(ctx: &Ctx, tid: usize, seed: u64) -> Option<Parked> {
    let role = ROLES[tid];
    let progress = &ctx.progress;
    progress.set(tid, Phase::Starting);
    let mut m = ctx.heap.bind_mutator().expect("binding a mutator");
    let mut c = Churn::new(tid as u64, seed, ctx.t, &mut m);
    let mut shared_head = None;
    if role == Role::Publisher {
        let h = build_shared(&mut m, ctx.t, 0);
        ctx.shared.set(m.global(m.get(&h))).expect("published once");
        shared_head = Some(h);
    }
    progress.set(tid, Phase::Blocking);
    m.blocking(|| ctx.start.wait());
    progress.set(tid, Phase::Running);
    c.check_shared(&m, ctx);

    let mut version = 0;
    let mut rebinds = 0;
    for round in 0..ROUNDS {
        for _ in 0..OPS_PER_ROUND {
            c.step(&mut m);
        }
        c.check(&m, false, "after a round");
        if round % COLLECT_EVERY == COLLECT_EVERY - 1 {
            progress.set(tid, Phase::Collecting);
            m.collect();
            progress.set(tid, Phase::Running);
            c.check(&m, true, "after collect");
        }
        c.check_shared(&m, ctx);
        match role {
            Role::Publisher if round % 10 == 9 => {
                // A new version of the shared list; the old one becomes garbage.
                version += 1;
                let h = build_shared(&mut m, ctx.t, version);
                ctx.published.store(version, Ordering::SeqCst);
                m.set_global(ctx.shared.get().expect("published"), m.get(&h));
                shared_head = Some(h);
            }
            Role::Blocker => {
                progress.set(tid, Phase::Blocking);
                if round % 8 == 0 {
                    // Stay blocked until some other thread's collection has run.
                    let before = ctx.collections();
                    let seen = m.blocking(|| wait_for_collection(ctx, before));
                    if seen {
                        ctx.seen_while_away.fetch_add(1, Ordering::Relaxed);
                    }
                } else {
                    m.blocking(|| std::thread::sleep(Duration::from_micros(300)));
                }
                progress.set(tid, Phase::Running);
                c.check(&m, true, "after blocking");
            }
            Role::Rebinder if round == ROUNDS / 3 || round == 2 * ROUNDS / 3 => {
                let parked = c.park(&m);
                drop(m);
                progress.set(tid, Phase::Unbound);
                let before = ctx.collections();
                if wait_for_collection(ctx, before) {
                    ctx.seen_while_away.fetch_add(1, Ordering::Relaxed);
                }
                m = ctx.heap.bind_mutator().expect("binding again");
                progress.set(tid, Phase::Running);
                c = Churn::unpark(parked, seed ^ round as u64, ctx.t, &mut m);
                c.check(&m, true, "after rebinding");
                rebinds += 1;
            }
            Role::Quitter if round == ROUNDS / 2 => {
                let parked = c.park(&m);
                drop(m);
                progress.set(tid, Phase::Done);
                return Some(parked);
            }
            _ => {}
        }
        progress.rounds[tid].fetch_add(1, Ordering::Relaxed);
    }
    m.collect();
    c.check(&m, true, "at the end");
    c.check_shared(&m, ctx);
    if role == Role::Rebinder {
        assert_eq!(rebinds, 2);
    }
    drop(shared_head);
    let parked = c.park(&m);
    progress.set(tid, Phase::Done);
    Some(parked)
}

/// Waits (up to 200 ms) until the heap has logged more than `before` collections.
fn wait_for_collection(ctx: &Ctx, before: usize) -> bool {
    let deadline = Instant::now() + Duration::from_millis(200);
    while Instant::now() < deadline {
        if ctx.collections() > before {
            return true;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    false
}

/// Shared list version `v`: a head node (`SHARED_TAG | v`) then `shared_len(v)`
/// nodes with ids `v << 32 | i`.
fn build_shared(m: &mut Mutator, t: Types, v: u64) -> Handle {
    let mut next: Option<Handle> = None;
    for i in (0..=shared_len(v)).rev() {
        let n = m.alloc(t.node, 0).expect("allocating a shared node");
        let id = if i == 0 {
            SHARED_TAG | v
        } else {
            (v << 32) | (i - 1)
        };
        m.write_word(m.get(&n), 2, id);
        if let Some(x) = &next {
            m.write_ref(m.get(&n), 0, Some(m.get(x)));
        }
        next = Some(n);
    }
    next.expect("at least the head")
}

/// The poller: no allocation after setup, only safepoints and reads.
fn poll(ctx: &Ctx, tid: usize) -> Option<Parked> {
    let mut m = ctx.heap.bind_mutator().expect("binding a mutator");
    let mut c = Churn::new(tid as u64, 0, ctx.t, &mut m);
    for _ in 0..32 {
        c.list_push_front(&mut m);
    }
    ctx.progress.set(tid, Phase::Blocking);
    m.blocking(|| ctx.start.wait());
    ctx.progress.set(tid, Phase::Running);
    let mut last = m.get(c.head.as_ref().expect("32 nodes")).addr();
    let (mut i, mut moves) = (0u64, 0u64);
    while !ctx.done.load(Ordering::Acquire) {
        m.safepoint();
        i += 1;
        let now = m.get(c.head.as_ref().expect("32 nodes")).addr();
        if now != last {
            moves += 1;
            last = now;
            c.check(&m, true, "after a move seen at a safepoint");
        }
        if i % 64 == 0 {
            c.check(&m, true, "at a safepoint");
            c.check_shared(&m, ctx);
            ctx.progress.rounds[tid].store(i, Ordering::Relaxed);
        }
        if i % 16 == 0 {
            std::thread::sleep(Duration::from_micros(50));
        } else {
            std::thread::yield_now();
        }
    }
    c.check(&m, true, "at the end");
    eprintln!("  poller: {i} safepoints, its list moved {moves} times");
    ctx.progress.set(tid, Phase::Done);
    drop(c);
    None
}

/// The test body: every thread, then the final checks on the test's own mutator.
fn body(mode: FlipMode, seed: u64, ctx: &Ctx) {
    let started = Instant::now();
    let parked: Vec<Parked> = std::thread::scope(|s| {
        let churners: Vec<_> = (0..THREADS)
            .filter(|&i| ROLES[i] != Role::Poller)
            .map(|i| {
                std::thread::Builder::new()
                    .name(format!("t{i}-{:?}", ROLES[i]))
                    .spawn_scoped(s, move || churn(ctx, i, (seed << 8) | i as u64))
                    .expect("spawning")
            })
            .collect();
        let poller = (0..THREADS)
            .filter(|&i| ROLES[i] == Role::Poller)
            .map(|i| {
                std::thread::Builder::new()
                    .name(format!("t{i}-poller"))
                    .spawn_scoped(s, move || poll(ctx, i))
                    .expect("spawning")
            })
            .collect::<Vec<_>>();
        let results: Vec<_> = churners.into_iter().map(|h| h.join()).collect();
        ctx.done.store(true, Ordering::Release);
        let polled: Vec<_> = poller.into_iter().map(|h| h.join()).collect();
        results
            .into_iter()
            .chain(polled)
            .filter_map(|r| r.unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let churned = started.elapsed();

    // Every parked graph, taken back by a thread that made none of it.
    let mut m = ctx.heap.bind_mutator().expect("binding the test's mutator");
    let mut c_shared = Churn::new(99, 0, ctx.t, &mut m);
    c_shared.check_shared(&m, ctx);
    m.stack_truncate(0);
    assert_eq!(parked.len(), THREADS - 1);
    for p in parked {
        let tid = p.tid;
        let mut c = Churn::unpark(p, 0, ctx.t, &mut m);
        c.check(&m, true, "taken back by the test thread");
        m.collect();
        c.check(&m, true, "taken back, then collected");
        eprintln!(
            "  t{tid} {:?}: {} ids, {} checks by the test thread; list {}, tree {}, stack {}",
            ROLES[tid as usize],
            c.seq,
            c.checks,
            c.model.list.len(),
            c.model.tree.len(),
            c.model.stack.len()
        );
        drop(c);
        m.stack_truncate(0);
    }
    let report = m.verify().expect("verifier");
    assert!(report.objects > 0, "the shared list is still live");

    // Only the shared list is rooted now: a collection must leave exactly it.
    m.collect();
    let v = ctx.published.load(Ordering::SeqCst);
    assert_eq!(
        ctx.heap.used_bytes() as u64,
        (shared_len(v) + 1) * 4 * 8,
        "after the last collection only the shared list (v{v}) is live"
    );
    assert_eq!(ctx.heap.large_object_count(), 0, "no pin array is rooted");
    let log = ctx.heap.pause_log();
    let records = log.records();
    let want = match mode {
        FlipMode::Copy => "copy",
        FlipMode::Level(l) => l.name(),
        // PUD on x86_64: the spans are rounded up to whole PUD entries.
        FlipMode::Auto => {
            let mut cfg = HeapConfig::new(HEAP);
            cfg.flip = mode;
            cfg.flip_level().expect("a moving flip").name()
        }
        other => panic!("no expected level for flip mode {other:?}"),
    };
    for r in records
        .iter()
        .filter(|r| r.kind == "full" || r.kind == "flip")
    {
        assert_eq!(r.flip.level, want, "flip level of a pause");
    }
    let max_ttsp = records.iter().map(|r| r.ttsp_ns).max().unwrap_or(0);
    eprintln!(
        "{}: {} collections in {:.2?} of churn (p50 pause {:.2?}, max {:.2?}, max ttsp {:.2?}), \
         {} collections waited out while blocked or unbound",
        mode.name(),
        log.collections(),
        churned,
        Duration::from_nanos(log.quantile_ns(0.5)),
        Duration::from_nanos(log.quantile_ns(1.0)),
        Duration::from_nanos(max_ttsp),
        ctx.seen_while_away.load(Ordering::Relaxed),
    );
    assert!(
        records.len() >= 50,
        "only {} collections: the test exercised too little",
        records.len()
    );
    drop(m);
}

fn run(mode: FlipMode, seed: u64) {
    run_in(mode, FaultMode::Auto, seed);
}

fn run_in(mode: FlipMode, fault: FaultMode, seed: u64) {
    let (types, t) = registry();
    let mut cfg = HeapConfig::new(HEAP);
    cfg.flip = mode;
    cfg.fault_mode = fault;
    cfg.verify_after_gc = true;
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.tlab_size = 4096;
    let heap = Heap::new(cfg, types).expect("building the heap");
    let ctx = std::sync::Arc::new(Ctx {
        heap,
        t,
        shared: OnceLock::new(),
        published: AtomicU64::new(0),
        start: Barrier::new(THREADS),
        done: AtomicBool::new(false),
        progress: Progress::default(),
        seen_while_away: AtomicU64::new(0),
    });
    let ctx2 = std::sync::Arc::clone(&ctx);
    with_timeout_report(
        &format!("churn-{}-{}", mode.name(), fault.name()),
        move || body(mode, seed, &ctx2),
        || ctx.progress.report(),
    );
    // Every concurrent compaction served its faults in the mode asked for.
    let log = ctx.heap.pause_log();
    let modes = log.compaction_fault_modes();
    assert_eq!(modes.is_empty(), !ctx.heap.concurrent_compaction());
    if fault != FaultMode::Auto {
        assert!(modes.iter().all(|m| *m == fault), "{modes:?}");
    }
    eprintln!(
        "{} ({} faults): {} compactions, {} fault stalls, max {} us",
        mode.name(),
        ctx.heap.fault_mode().name(),
        modes.len(),
        log.fault_stalls().len(),
        log.fault_stalls().max() / 1000
    );
}

/// Collection storm: every thread calls `collect` back to back, so most calls find
/// another thread's collection running and wait it out; right after each, the
/// thread rewrites and checks its own list. A waiter must stay parked until no
/// collection is running, including one that started before it woke up: if it
/// resumes inside that one, it writes objects while they are being moved (the
/// verifier or the list check fails).
fn collect_storm(mode: FlipMode, recycle_from_space: bool) {
    const STORM_THREADS: usize = 4;
    const ITERATIONS: u64 = 400;
    const LEN: u64 = 200;
    let (types, t) = registry();
    let mut cfg = HeapConfig::new(4 << 20);
    cfg.flip = mode;
    cfg.recycle_from_space = recycle_from_space;
    cfg.verify_after_gc = true;
    cfg.gc_workers = 2;
    cfg.concurrent_workers = 2;
    cfg.tlab_size = 4096;
    let heap = Heap::new(cfg, types).expect("building the heap");
    let done = std::sync::Arc::new(
        (0..STORM_THREADS)
            .map(|_| AtomicU64::new(0))
            .collect::<Vec<_>>(),
    );
    let (heap2, done2) = (heap.clone(), std::sync::Arc::clone(&done));
    with_timeout_report(
        &format!("storm-{}", mode.name()),
        move || {
            std::thread::scope(|s| {
                for tid in 0..STORM_THREADS as u64 {
                    let (heap, done) = (&heap2, &done2);
                    s.spawn(move || {
                        let mut m = heap.bind_mutator().expect("binding a mutator");
                        // A list of LEN nodes; node i holds (tid, i, stamp).
                        let id = |i: u64, stamp: u64| (tid << 40) | (i << 20) | stamp;
                        let mut head: Option<Handle> = None;
                        for i in (0..LEN).rev() {
                            let n = m.alloc(t.node, 0).expect("allocating a node");
                            m.write_word(m.get(&n), 2, id(i, 0));
                            if let Some(h) = &head {
                                m.write_ref(m.get(&n), 0, Some(m.get(h)));
                            }
                            head = Some(n);
                        }
                        let head = head.expect("LEN > 0");
                        for stamp in 1..=ITERATIONS {
                            m.collect();
                            let mut cur = Some(m.get(&head));
                            for i in 0..LEN {
                                let n = cur.unwrap_or_else(|| {
                                    panic!("t{tid} iteration {stamp}: list ends at {i}")
                                });
                                assert_eq!(
                                    m.read_word(n, 2),
                                    id(i, stamp - 1),
                                    "t{tid} iteration {stamp}: node {i}"
                                );
                                m.write_word(n, 2, id(i, stamp));
                                cur = m.read_ref(n, 0);
                            }
                            assert!(cur.is_none(), "t{tid}: list longer than {LEN}");
                            done[tid as usize].store(stamp, Ordering::Relaxed);
                        }
                    });
                }
            });
        },
        move || format!("iterations done per thread: {done:?}"),
    );
    let n = heap.pause_log().collections();
    eprintln!("storm {}: {n} collections", mode.name());
    assert!(n >= ITERATIONS as usize, "{n} collections");
}

#[test]
fn threads_churn_auto() {
    run(FlipMode::Auto, 0x5eed_0001);
}

#[test]
fn threads_churn_forced_pte() {
    run(FlipMode::Level(Level::Pte), 0x5eed_0002);
}

#[test]
fn threads_churn_copy() {
    run(FlipMode::Copy, 0x5eed_0003);
}

#[test]
fn threads_churn_auto_server() {
    run_in(FlipMode::Auto, FaultMode::Server, 0x5eed_0001);
}

#[test]
fn threads_churn_forced_pte_server() {
    run_in(FlipMode::Level(Level::Pte), FaultMode::Server, 0x5eed_0002);
}

#[test]
fn collect_storm_auto() {
    collect_storm(FlipMode::Auto, true);
}

#[test]
fn collect_storm_copy_no_recycling() {
    collect_storm(FlipMode::Copy, false);
}
