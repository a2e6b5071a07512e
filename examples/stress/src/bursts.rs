//! bursts: an allocation rate that jumps, for the pacer. A long-lived set of trees
//! (`live_mib`) stays alive; then `phases` times over, a *burst* allocates
//! short-lived binary trees as fast as it can for `burst_ms`, and a *quiet* phase
//! allocates one small tree per millisecond for `quiet_ms`. A pacer that learns only
//! a long-run average would start cycles too late in bursts and too often in the
//! quiet phases; this shows whether it adapts. Every tree is counted as it dies, and
//! the long-lived trees are checked at the end of every phase.

use crate::params::{parse_value, unknown_key, SetParam};
use crate::tree::{count_nodes, make_tree, tree_size, Node};
use crate::StressError;
use flipgc_core::{GcError, Heap, TypeRegistry};
use serde::Serialize;
use std::time::{Duration, Instant};

/// Bytes of one node: header + left, right.
pub const NODE_BYTES: usize = 24;
/// Depth of the short-lived trees of a burst (8 191 nodes, 192 KiB).
const BURST_DEPTH: u32 = 12;
/// Depth of the long-lived trees (65 535 nodes, 1.5 MiB each).
const LIVE_DEPTH: u32 = 15;

/// bursts' object types.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// Tree node: references in fields 0 and 1.
    pub node: Node,
}

/// Registers bursts' types.
pub fn register(r: &mut TypeRegistry) -> Result<Types, GcError> {
    let node = r.fixed("bursts.node", 2, &[0, 1])?;
    Ok(Types {
        node: Node::of(r, node, false)?,
    })
}

/// bursts' parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Params {
    /// Burst-then-quiet phases.
    pub phases: u32,
    /// Length of a burst.
    pub burst_ms: u64,
    /// Length of a quiet phase.
    pub quiet_ms: u64,
    /// Long-lived data, MiB (whole trees of 1.5 MiB).
    pub live_mib: usize,
}

impl Default for Params {
    /// 10 phases of 300 ms burst and 300 ms quiet, 96 MiB live.
    fn default() -> Self {
        Params {
            phases: 10,
            burst_ms: 300,
            quiet_ms: 300,
            live_mib: 96,
        }
    }
}

impl SetParam for Params {
    const KEYS: &'static [&'static str] = &["phases", "burst-ms", "quiet-ms", "live-mib"];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "phases" => self.phases = parse_value(key, value)?,
            "burst-ms" => self.burst_ms = parse_value(key, value)?,
            "quiet-ms" => self.quiet_ms = parse_value(key, value)?,
            "live-mib" => self.live_mib = parse_value(key, value)?,
            _ => return Err(unknown_key::<Params>("bursts", key)),
        }
        Ok(())
    }
}

impl Params {
    /// Refuses parameters that cannot run.
    pub fn validate(&self) -> Result<(), StressError> {
        if self.phases == 0 || self.burst_ms == 0 || self.live_mib > 1 << 20 {
            return Err(StressError::Params(
                "phases and burst-ms must be at least 1, live-mib at most 2^20".into(),
            ));
        }
        Ok(())
    }

    /// Long-lived trees kept.
    pub fn live_trees(&self) -> usize {
        (self.live_mib << 20).div_ceil(tree_size(LIVE_DEPTH) as usize * NODE_BYTES)
    }
}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The parameters run.
    pub params: Params,
    /// Short-lived trees allocated in bursts, per phase.
    pub burst_trees: Vec<u64>,
    /// Small trees allocated in quiet phases, per phase.
    pub quiet_trees: Vec<u64>,
    /// Wall time.
    pub elapsed_ns: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mb = |trees: u64, depth| (trees * tree_size(depth) * NODE_BYTES as u64) >> 20;
        for (i, (b, q)) in self.burst_trees.iter().zip(&self.quiet_trees).enumerate() {
            writeln!(
                f,
                "phase {i}: burst {b} trees ({} MiB), quiet {q} trees ({} MiB)",
                mb(*b, BURST_DEPTH),
                mb(*q, 4)
            )?;
        }
        write!(f, "Completed in {} ms", self.elapsed_ns / 1_000_000)
    }
}

/// Runs bursts on `heap` (whose registry holds `types`).
pub fn run(heap: &Heap, types: &Types, p: &Params) -> Result<Summary, StressError> {
    p.validate()?;
    let start = Instant::now();
    let mut m = heap.bind_mutator()?;
    let node = &types.node;
    let live = p.live_trees();
    for _ in 0..live {
        make_tree(&mut m, node, LIVE_DEPTH)?;
    }
    let check_live = |m: &mut flipgc_core::Mutator, phase: u32| -> Result<(), StressError> {
        for i in 0..live {
            let n = count_nodes(m, node, i);
            if n != tree_size(LIVE_DEPTH) {
                return Err(StressError::Check(format!(
                    "phase {phase}: long-lived tree {i} has {n} nodes"
                )));
            }
        }
        Ok(())
    };
    let mut summary = Summary {
        params: p.clone(),
        burst_trees: Vec::new(),
        quiet_trees: Vec::new(),
        elapsed_ns: 0,
    };
    for phase in 0..p.phases {
        let until = Instant::now() + Duration::from_millis(p.burst_ms);
        let mut trees = 0;
        while Instant::now() < until {
            make_tree(&mut m, node, BURST_DEPTH)?;
            let n = count_nodes(&mut m, node, live);
            if n != tree_size(BURST_DEPTH) {
                return Err(StressError::Check(format!("a burst tree has {n} nodes")));
            }
            m.stack_truncate(live);
            trees += 1;
        }
        summary.burst_trees.push(trees);
        check_live(&mut m, phase)?;
        let until = Instant::now() + Duration::from_millis(p.quiet_ms);
        let mut trees = 0;
        while Instant::now() < until {
            make_tree(&mut m, node, 4)?;
            m.stack_truncate(live);
            trees += 1;
            m.blocking(|| std::thread::sleep(Duration::from_millis(1)));
        }
        summary.quiet_trees.push(trees);
        check_live(&mut m, phase)?;
    }
    summary.elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(summary)
}
