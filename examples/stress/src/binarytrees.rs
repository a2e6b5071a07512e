//! binary-trees, the benchmarks-game program, on flipgc.
//!
//! With `max = max(min_depth + 2, depth)` (`min_depth` is 4): build and check one
//! stretch tree of depth `max + 1`; build a long-lived tree of depth `max` and keep
//! it; for each depth `d` from 4 to `max` in steps of 2, build, check and drop
//! `2^(max - d + 4)` trees of depth `d`; finally check the long-lived tree. A tree's
//! check is its node count, so every printed check has a known value (see
//! [`expected_check`]), which [`run`] asserts.
//!
//! With `threads > 1` each depth's trees are shared out among that many worker
//! threads, each with its own mutator; the main thread keeps the long-lived tree.
//! A node is a header and two references: [`NODE_BYTES`] = 24 bytes.

use crate::params::{parse_value, unknown_key, SetParam};
use crate::tree::{count_nodes, make_tree, tree_size, Node};
use crate::StressError;
use flipgc_core::{GcError, Heap, Mutator, TypeRegistry};
use serde::Serialize;
use std::time::Instant;

/// Bytes of one tree node: header + left, right.
pub const NODE_BYTES: usize = 24;

/// The shallowest trees built.
pub const MIN_DEPTH: u32 = 4;

/// The deepest `depth` accepted.
pub const MAX_DEPTH: u32 = 28;

/// binary-trees' object types.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// Tree node: references in fields 0 and 1.
    pub node: Node,
}

/// Registers binary-trees' types.
pub fn register(r: &mut TypeRegistry) -> Result<Types, GcError> {
    let node = r.fixed("binarytrees.node", 2, &[0, 1])?;
    Ok(Types {
        node: Node::of(r, node, false)?,
    })
}

/// binary-trees' parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Params {
    /// The benchmark's argument `n` (the long-lived tree's depth, at least 6).
    pub depth: u32,
    /// Worker threads sharing each depth's trees.
    pub threads: usize,
}

impl Default for Params {
    /// Depth 21, one thread.
    fn default() -> Self {
        Params {
            depth: 21,
            threads: 1,
        }
    }
}

impl SetParam for Params {
    const KEYS: &'static [&'static str] = &["depth", "threads"];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "depth" => self.depth = parse_value(key, value)?,
            "threads" => self.threads = parse_value(key, value)?,
            _ => return Err(unknown_key::<Params>("binarytrees", key)),
        }
        Ok(())
    }
}

impl Params {
    /// The long-lived tree's depth: `max(MIN_DEPTH + 2, depth)`.
    pub fn max_depth(&self) -> u32 {
        self.depth.max(MIN_DEPTH + 2)
    }

    /// Trees built at depth `d`.
    pub fn iterations(&self, d: u32) -> u64 {
        1 << (self.max_depth() - d + MIN_DEPTH)
    }

    /// Refuses parameters that cannot run.
    pub fn validate(&self) -> Result<(), StressError> {
        if self.depth > MAX_DEPTH {
            return Err(StressError::Params(format!(
                "depth {} exceeds {MAX_DEPTH}",
                self.depth
            )));
        }
        if self.threads == 0 || self.threads > 256 {
            return Err(StressError::Params(format!(
                "threads {} must be between 1 and 256",
                self.threads
            )));
        }
        Ok(())
    }
}

/// The check value the benchmark must print for `iterations` trees of `depth`.
pub fn expected_check(iterations: u64, depth: u32) -> u64 {
    iterations * tree_size(depth)
}

/// One "`iterations` trees of depth `depth`" line.
#[derive(Clone, Debug, Serialize)]
pub struct DepthLine {
    /// Trees built.
    pub iterations: u64,
    /// Their depth.
    pub depth: u32,
    /// Sum of their checks.
    pub check: u64,
}

/// What a run printed, and how long it took.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The parameters run.
    pub params: Params,
    /// The stretch tree's depth and check.
    pub stretch: (u32, u64),
    /// One line per depth.
    pub lines: Vec<DepthLine>,
    /// The long-lived tree's depth and check.
    pub long_lived: (u32, u64),
    /// Wall time.
    pub elapsed_ns: u64,
}

impl std::fmt::Display for Summary {
    /// The benchmark's standard output.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "stretch tree of depth {}\t check: {}",
            self.stretch.0, self.stretch.1
        )?;
        for l in &self.lines {
            writeln!(
                f,
                "{}\t trees of depth {}\t check: {}",
                l.iterations, l.depth, l.check
            )?;
        }
        write!(
            f,
            "long lived tree of depth {}\t check: {}",
            self.long_lived.0, self.long_lived.1
        )
    }
}

/// Runs binary-trees on `heap` (whose registry holds `types`), asserting every
/// check against [`expected_check`].
pub fn run(heap: &Heap, types: &Types, params: &Params) -> Result<Summary, StressError> {
    params.validate()?;
    let start = Instant::now();
    let max = params.max_depth();
    let mut m = heap.bind_mutator()?;
    let base = m.stack_len();

    make_tree(&mut m, &types.node, max + 1)?;
    let stretch = (max + 1, count_nodes(&mut m, &types.node, base));
    m.stack_truncate(base);
    expect("stretch tree", stretch.1, expected_check(1, max + 1))?;

    make_tree(&mut m, &types.node, max)?; // long-lived, at `base`
    let depths: Vec<u32> = (MIN_DEPTH..=max).step_by(2).collect();
    let checks: Vec<u64> = if params.threads == 1 {
        let mut checks = vec![0; depths.len()];
        share(&mut m, *types, params, &depths, 0, &mut checks)?;
        checks
    } else {
        // The main thread only waits: count it as stopped so collections need not.
        m.blocking(|| workers(heap, *types, params, &depths))?
    };
    let mut lines = Vec::new();
    for (&depth, check) in depths.iter().zip(checks) {
        let iterations = params.iterations(depth);
        expect(
            &format!("{iterations} trees of depth {depth}"),
            check,
            expected_check(iterations, depth),
        )?;
        lines.push(DepthLine {
            iterations,
            depth,
            check,
        });
    }
    let long_lived = (max, count_nodes(&mut m, &types.node, base));
    expect("long lived tree", long_lived.1, expected_check(1, max))?;
    m.stack_truncate(base);
    Ok(Summary {
        params: params.clone(),
        stretch,
        lines,
        long_lived,
        elapsed_ns: start.elapsed().as_nanos() as u64,
    })
}

fn expect(what: &str, got: u64, want: u64) -> Result<(), StressError> {
    if got == want {
        Ok(())
    } else {
        Err(StressError::Check(format!(
            "{what}: check {got}, expected {want}"
        )))
    }
}

/// Runs `params.threads` workers and sums their checks per depth.
fn workers(
    heap: &Heap,
    t: Types,
    params: &Params,
    depths: &[u32],
) -> Result<Vec<u64>, StressError> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..params.threads)
            .map(|worker| {
                s.spawn(move || {
                    let mut m = heap.bind_mutator()?;
                    let mut checks = vec![0; depths.len()];
                    share(&mut m, t, params, depths, worker, &mut checks)?;
                    Ok::<_, StressError>(checks)
                })
            })
            .collect();
        let mut total = vec![0; depths.len()];
        for h in handles {
            let checks = h.join().map_err(StressError::from_panic)??;
            for (t, c) in total.iter_mut().zip(checks) {
                *t += c;
            }
        }
        Ok(total)
    })
}

/// Worker `worker`'s share of every depth: iterations `worker`, `worker + threads`, ...
fn share(
    m: &mut Mutator,
    t: Types,
    params: &Params,
    depths: &[u32],
    worker: usize,
    checks: &mut [u64],
) -> Result<(), StressError> {
    let at = m.stack_len();
    for (&depth, check) in depths.iter().zip(checks.iter_mut()) {
        let mine = (params.iterations(depth) as usize)
            .saturating_sub(worker)
            .div_ceil(params.threads);
        for _ in 0..mine {
            make_tree(m, &t.node, depth)?;
            *check += count_nodes(m, &t.node, at);
            m.stack_truncate(at);
        }
    }
    Ok(())
}
