//! GCBench (Boehm, Ellis and Kovac's collector benchmark) on flipgc.
//!
//! The program: stretch the heap with one tree of depth `stretch`; build a
//! long-lived tree of depth `long_lived` (top-down) and a long-lived array of
//! `array_size` doubles (the first half `1.0 / i`) and keep both alive; then, for
//! each depth from `min_depth` to `max_depth` in steps of 2, build
//! `2 * treeSize(stretch) / treeSize(depth)` short-lived trees top-down and as many
//! bottom-up, dropping each at once.
//!
//! `rounds` repeats that depth sweep (the stretch tree and the long-lived data are
//! built once); after every round the long-lived tree and array are checked against
//! their known contents, as is the last short-lived tree of each depth and kind.
//! With `threads > 1`, every thread (its own mutator) runs the whole program with its
//! own long-lived data, all in the one heap.
//!
//! A node is two references and two integers: a header word and four payload words,
//! [`NODE_BYTES`] = 40 bytes. The doubles live in a byte array (8 bytes each).

use crate::params::{parse_value, unknown_key, SetParam};
use crate::tree::{count_nodes, make_tree, populate, tree_size, walk, Node};
use crate::StressError;
use flipgc_core::{GcError, Heap, Mutator, TypeId, TypeRegistry};
use serde::Serialize;
use std::time::{Duration, Instant};

/// Bytes of one tree node: header + left, right, i, j.
pub const NODE_BYTES: usize = 40;

/// The deepest tree accepted (2^31 nodes of 40 bytes is already 80 GiB).
pub const MAX_DEPTH: u32 = 30;

/// GCBench's object types.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// Tree node: references in fields 0 and 1, integers in fields 2 and 3.
    pub node: Node,
    /// The array of doubles (a byte array).
    pub doubles: TypeId,
}

/// Registers GCBench's types.
pub fn register(r: &mut TypeRegistry) -> Result<Types, GcError> {
    let node = r.fixed("gcbench.node", 4, &[0, 1])?;
    Ok(Types {
        node: Node::of(r, node, true)?,
        doubles: r.byte_array("gcbench.doubles")?,
    })
}

/// GCBench's parameters, in the order of the `gcbench` binary's arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Params {
    /// Depth of the stretch tree; also sets the work per depth.
    pub stretch: u32,
    /// Depth of the long-lived tree.
    pub long_lived: u32,
    /// Doubles in the long-lived array.
    pub array_size: usize,
    /// Shallowest short-lived trees.
    pub min_depth: u32,
    /// Deepest short-lived trees (depths step by 2 from `min_depth`).
    pub max_depth: u32,
    /// Depth sweeps to run (see the module documentation).
    pub rounds: u32,
    /// Threads, each running the whole program with its own mutator.
    pub threads: usize,
}

impl Default for Params {
    /// `22 18 500000 4 20 8`, one thread.
    fn default() -> Self {
        Params {
            stretch: 22,
            long_lived: 18,
            array_size: 500_000,
            min_depth: 4,
            max_depth: 20,
            rounds: 8,
            threads: 1,
        }
    }
}

impl SetParam for Params {
    const KEYS: &'static [&'static str] = &[
        "stretch",
        "long-lived",
        "array-size",
        "min-depth",
        "max-depth",
        "rounds",
        "threads",
    ];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "stretch" => self.stretch = parse_value(key, value)?,
            "long-lived" => self.long_lived = parse_value(key, value)?,
            "array-size" => self.array_size = parse_value(key, value)?,
            "min-depth" => self.min_depth = parse_value(key, value)?,
            "max-depth" => self.max_depth = parse_value(key, value)?,
            "rounds" => self.rounds = parse_value(key, value)?,
            "threads" => self.threads = parse_value(key, value)?,
            _ => return Err(unknown_key::<Params>("gcbench", key)),
        }
        Ok(())
    }
}

impl Params {
    /// Refuses parameters that cannot run.
    pub fn validate(&self) -> Result<(), StressError> {
        let bad = |m: String| Err(StressError::Params(m));
        for (name, d) in [
            ("stretch", self.stretch),
            ("long-lived", self.long_lived),
            ("max-depth", self.max_depth),
        ] {
            if d > MAX_DEPTH {
                return bad(format!("{name} depth {d} exceeds {MAX_DEPTH}"));
            }
        }
        if self.min_depth > self.max_depth {
            return bad(format!(
                "min-depth {} is above max-depth {}",
                self.min_depth, self.max_depth
            ));
        }
        if self.rounds == 0 || self.threads == 0 || self.threads > 256 {
            return bad("rounds must be at least 1, threads between 1 and 256".into());
        }
        if self.array_size > 1 << 32 {
            return bad(format!("array-size {} exceeds 2^32", self.array_size));
        }
        Ok(())
    }

    /// The short-lived tree depths: `min_depth`, `min_depth + 2`, ... up to `max_depth`.
    pub fn depths(&self) -> impl Iterator<Item = u32> {
        (self.min_depth..=self.max_depth).step_by(2)
    }

    /// Trees built per depth, top-down and again bottom-up.
    pub fn iterations(&self, depth: u32) -> u64 {
        2 * tree_size(self.stretch) / tree_size(depth)
    }

    /// Nodes one thread allocates in one round.
    pub fn nodes_per_round(&self) -> u64 {
        self.depths()
            .map(|d| 2 * self.iterations(d) * tree_size(d))
            .sum()
    }

    /// Nodes allocated by the whole run (all threads, stretch and long-lived included).
    pub fn total_nodes(&self) -> u64 {
        let once = tree_size(self.stretch) + tree_size(self.long_lived);
        (once + u64::from(self.rounds) * self.nodes_per_round()) * self.threads as u64
    }
}

/// Time spent on one depth, summed over rounds and threads.
#[derive(Clone, Debug, Serialize)]
pub struct DepthTime {
    /// Tree depth.
    pub depth: u32,
    /// Trees per kind per round per thread.
    pub iterations: u64,
    /// Top-down construction.
    pub top_down_ns: u64,
    /// Bottom-up construction.
    pub bottom_up_ns: u64,
}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The parameters run.
    pub params: Params,
    /// Tree nodes allocated (all threads).
    pub nodes_allocated: u64,
    /// Nodes of each long-lived tree, checked after every round.
    pub long_lived_nodes: u64,
    /// Sum of the long-lived array's elements (each thread's array; all equal).
    pub array_sum: f64,
    /// Per-depth construction times.
    pub depths: Vec<DepthTime>,
    /// Wall time of the whole run.
    pub elapsed_ns: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.params;
        writeln!(f, "Garbage Collector Test ({} thread(s))", p.threads)?;
        writeln!(
            f,
            " Stretching memory with a binary tree of depth {}",
            p.stretch
        )?;
        writeln!(
            f,
            " Creating a long-lived binary tree of depth {}",
            p.long_lived
        )?;
        writeln!(
            f,
            " Creating a long-lived array of {} doubles",
            p.array_size
        )?;
        writeln!(f, " Depth sweeps: {}", p.rounds)?;
        for d in &self.depths {
            writeln!(f, "Creating {} trees of depth {}", d.iterations, d.depth)?;
            writeln!(
                f,
                "\tTop down construction took {} msec",
                d.top_down_ns / 1_000_000
            )?;
            writeln!(
                f,
                "\tBottom up construction took {} msec",
                d.bottom_up_ns / 1_000_000
            )?;
        }
        writeln!(
            f,
            "Long-lived tree ({} nodes) and array (sum {}) intact",
            self.long_lived_nodes, self.array_sum
        )?;
        writeln!(f, "Nodes allocated: {}", self.nodes_allocated)?;
        write!(f, "Completed in {} msec", self.elapsed_ns / 1_000_000)
    }
}

/// Runs GCBench on `heap` (whose registry holds `types`), `params.threads` mutators.
pub fn run(heap: &Heap, types: &Types, params: &Params) -> Result<Summary, StressError> {
    run_threads(params, || run_thread(heap, *types, params))
}

/// Runs `thread` (one mutator's whole program) on `params.threads` threads (on the
/// calling thread when there is one) and sums their results into a [`Summary`]:
/// the part of GCBench that does not depend on the object layout, shared with
/// other embeddings of the same program (the class-based VM's).
pub fn run_threads(
    params: &Params,
    thread: impl Fn() -> Result<ThreadResult, StressError> + Sync,
) -> Result<Summary, StressError> {
    params.validate()?;
    let start = Instant::now();
    let per_thread: Vec<Result<ThreadResult, StressError>> = if params.threads == 1 {
        vec![thread()]
    } else {
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..params.threads).map(|_| s.spawn(&thread)).collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| Err(StressError::from_panic(p))))
                .collect()
        })
    };
    let mut depths: Vec<DepthTime> = params
        .depths()
        .map(|depth| DepthTime {
            depth,
            iterations: params.iterations(depth),
            top_down_ns: 0,
            bottom_up_ns: 0,
        })
        .collect();
    let mut array_sum = 0.0;
    for r in per_thread {
        let r = r?;
        array_sum = r.array_sum;
        for (d, (td, bu)) in depths.iter_mut().zip(r.times) {
            d.top_down_ns += td.as_nanos() as u64;
            d.bottom_up_ns += bu.as_nanos() as u64;
        }
    }
    Ok(Summary {
        params: params.clone(),
        nodes_allocated: params.total_nodes(),
        long_lived_nodes: tree_size(params.long_lived),
        array_sum,
        depths,
        elapsed_ns: start.elapsed().as_nanos() as u64,
    })
}

/// What one mutator's run of GCBench reports to [`run_threads`].
pub struct ThreadResult {
    /// The sum of the long-lived array, read back at the end.
    pub array_sum: f64,
    /// (top-down, bottom-up) per depth, summed over rounds.
    pub times: Vec<(Duration, Duration)>,
}

/// Element `i` of the long-lived array of `n` doubles, as GCBench fills it.
pub fn array_element(i: usize, n: usize) -> f64 {
    if i < n / 2 {
        1.0 / i as f64
    } else {
        0.0
    }
}

/// Root-stack slots of one thread's long-lived data.
const TREE: usize = 0;
const ARRAY: usize = 1;
/// Bytes of the long-lived array written or read between two safepoints (64 KiB).
const ARRAY_CHUNK: usize = 64 << 10;

/// The element ranges of an array of `n` doubles, [`ARRAY_CHUNK`] bytes each.
fn array_chunks(n: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..n)
        .step_by(ARRAY_CHUNK / 8)
        .map(move |first| first..(first + ARRAY_CHUNK / 8).min(n))
}

/// Makes the long-lived tree (labelled for the checks) and array, in root-stack
/// slots [`TREE`] and [`ARRAY`] (the stack must be empty).
fn build_long_lived(m: &mut Mutator, t: &Types, p: &Params) -> Result<(), StressError> {
    m.push_fixed(t.node.ty)?;
    let root = m.stack_get(TREE).expect("just allocated");
    let (_, remaining) = t.node.labels.expect("gcbench nodes are labelled");
    m.set_word(root, remaining, u64::from(p.long_lived));
    populate(m, &t.node, p.long_lived, TREE, &mut Some(1))?;
    m.alloc_push(t.doubles, p.array_size * 8)?;
    // A chunk at a time, through one small buffer, with a safepoint between: a
    // buffer for the whole array (4 MB, faulted in page by page) and one 4 MB copy
    // held stops off for tens of milliseconds.
    let mut buf = Vec::with_capacity(ARRAY_CHUNK);
    for range in array_chunks(p.array_size) {
        let at = range.start * 8;
        buf.clear();
        buf.extend(range.flat_map(|i| array_element(i, p.array_size).to_le_bytes()));
        m.safepoint();
        let array = m.stack_get(ARRAY).expect("just allocated");
        m.write_bytes(array, at, &buf);
    }
    Ok(())
}

fn run_thread(heap: &Heap, t: Types, p: &Params) -> Result<ThreadResult, StressError> {
    let mut m = heap.bind_mutator()?;
    // Stretch the heap.
    make_tree(&mut m, &t.node, p.stretch)?;
    let at = m.stack_len() - 1;
    check_tree(&mut m, &t.node, at, p.stretch, "stretch tree")?;
    m.stack_truncate(0);

    build_long_lived(&mut m, &t, p)?;

    let mut times = vec![(Duration::ZERO, Duration::ZERO); p.depths().count()];
    let mut array_sum = 0.0;
    for round in 0..p.rounds {
        for (slot, depth) in times.iter_mut().zip(p.depths()) {
            let n = p.iterations(depth);
            let started = Instant::now();
            for i in 0..n {
                m.push_fixed(t.node.ty)?;
                let at = m.stack_len() - 1;
                populate(&mut m, &t.node, depth, at, &mut None)?;
                if i + 1 == n {
                    check_tree(&mut m, &t.node, at, depth, "top-down tree")?;
                }
                m.stack_truncate(at);
            }
            let top_down = started.elapsed();
            let started = Instant::now();
            for i in 0..n {
                make_tree(&mut m, &t.node, depth)?;
                let at = m.stack_len() - 1;
                if i + 1 == n {
                    check_tree(&mut m, &t.node, at, depth, "bottom-up tree")?;
                }
                m.stack_truncate(at);
            }
            slot.0 += top_down;
            slot.1 += started.elapsed();
        }
        check_long_lived(&mut m, &t.node, p)
            .map_err(|e| StressError::Check(format!("after round {}: {e}", round + 1)))?;
        array_sum = check_array(&mut m, p)?;
    }
    Ok(ThreadResult { array_sum, times })
}

fn check_tree(
    m: &mut Mutator,
    node: &Node,
    at: usize,
    depth: u32,
    what: &str,
) -> Result<(), StressError> {
    let n = count_nodes(m, node, at);
    if n == tree_size(depth) {
        Ok(())
    } else {
        Err(StressError::Check(format!(
            "{what} of depth {depth} has {n} nodes, expected {}",
            tree_size(depth)
        )))
    }
}

/// The long-lived tree: complete to its depth, every node's depth label one less
/// than its parent's, and the serial labels exactly `0..n`. Returns how many
/// times it stopped for a collection.
///
/// The walk is a [`walk`], which reaches safepoints: without them, a walk of the
/// 2^19 nodes of the default tree held every stop off for 27-37 ms (seen as the
/// time to safepoint of mark-end pauses).
fn check_long_lived(m: &mut Mutator, node: &Node, p: &Params) -> Result<u32, String> {
    let (serial, remaining) = node.labels.expect("gcbench nodes are labelled");
    let n = tree_size(p.long_lived);
    let mut seen = vec![false; n as usize];
    let walked = walk(m, node, TREE, p.long_lived, |m, o, depth, children| {
        let (id, label) = (m.get_word(o, serial), m.get_word(o, remaining));
        if label != u64::from(depth) {
            return Err(format!(
                "long-lived node {id} labelled depth {label}, found at {depth}"
            ));
        }
        match seen.get_mut(id as usize) {
            Some(s) if !*s => *s = true,
            _ => return Err(format!("long-lived node id {id} repeated or out of range")),
        }
        match (children, depth) {
            ([false, false], 0) => Ok(0),
            ([true, true], d) if d > 0 => Ok(d - 1),
            _ => Err(format!(
                "long-lived node {id} at depth {depth} has wrong children"
            )),
        }
    })?;
    if walked.nodes == n {
        Ok(walked.stops)
    } else {
        Err(format!(
            "long-lived tree has {} nodes, expected {n}",
            walked.nodes
        ))
    }
}

/// Checks every element of the long-lived array; returns their sum.
fn check_array(m: &mut Mutator, p: &Params) -> Result<f64, StressError> {
    // A chunk at a time, as it was written.
    let mut buf = vec![0u8; ARRAY_CHUNK];
    let mut sum = 0.0;
    for range in array_chunks(p.array_size) {
        let chunk = &mut buf[..range.len() * 8];
        m.safepoint();
        let array = m.stack_get(ARRAY).expect("the array is rooted");
        m.read_bytes(array, range.start * 8, chunk);
        for (i, bytes) in range.zip(chunk.chunks_exact(8)) {
            let v = f64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            let want = array_element(i, p.array_size);
            if v.to_bits() != want.to_bits() {
                return Err(StressError::Check(format!(
                    "array[{i}] is {v}, expected {want}"
                )));
            }
            if v.is_finite() {
                sum += v;
            }
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_core::HeapConfig;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// The long-lived checks stop for collections that another thread requests
    /// while they walk, and find the data intact after each (the objects moved).
    #[test]
    fn the_long_lived_checks_reach_safepoints() {
        let mut r = TypeRegistry::new();
        let t = register(&mut r).unwrap();
        let mut c = HeapConfig::new(64 << 20);
        c.verify_after_gc = true;
        let heap = Heap::new(c, r).unwrap();
        let p = Params {
            long_lived: 14,
            array_size: 50_000,
            ..Params::default()
        };
        let mut m = heap.bind_mutator().unwrap();
        build_long_lived(&mut m, &t, &p).unwrap();
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let requester = s.spawn(|| {
                let mut other = heap.bind_mutator().unwrap();
                while !done.load(Ordering::Relaxed) {
                    other.collect();
                }
            });
            // At least 20 checks, and on until one has stopped for a collection
            // (at most 30 s): 20 checks of this small tree can end before the
            // requester's first collection starts (seen on a loaded 2-CPU host).
            let mut checks = || -> Result<u64, String> {
                let (start, mut stops, mut rounds) = (std::time::Instant::now(), 0, 0);
                while rounds < 20 || (stops == 0 && start.elapsed().as_secs() < 30) {
                    stops += u64::from(check_long_lived(&mut m, &t.node, &p)?);
                    check_array(&mut m, &p).map_err(|e| e.to_string())?;
                    rounds += 1;
                }
                Ok(stops)
            };
            let outcome = checks();
            done.store(true, Ordering::Relaxed);
            // Blocking (counted as stopped), so the requester's last collection
            // need not wait for this thread, whatever the checks found.
            m.blocking(|| requester.join().unwrap());
            let stops = outcome.unwrap();
            assert!(stops > 0, "the walks never stopped for a collection");
        });
    }
}
