//! The parameters every churn shares: how many mutators, how long, how many
//! operations a cycle, how many root slots, how much garbage, and the seed.
//! churn's own [`super::Params`] adds its runtime-feature knobs to these; the
//! class-based VM's churn (`examples/jvmlike`) uses them as they are.

use crate::params::parse_value;
use crate::StressError;
use serde::Serialize;

/// Cycles run when neither `cycles` nor `seconds` is given.
pub const DEFAULT_CYCLES: u64 = 100;

/// The keys [`GraphParams::set`] accepts.
pub const GRAPH_KEYS: [&str; 7] = [
    "threads", "cycles", "seconds", "ops", "roots", "garbage", "seed",
];

/// The graph-mutation parameters of a churn run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphParams {
    /// Mutator threads, each with its own graph.
    pub threads: usize,
    /// Cycles per thread; `None` with `seconds` set means unlimited.
    pub cycles: Option<u64>,
    /// Stop after this many seconds (at the next cycle boundary).
    pub seconds: Option<f64>,
    /// Operations per cycle.
    pub ops: u64,
    /// Root slots per thread.
    pub roots: usize,
    /// Most unrooted objects one garbage operation allocates.
    pub garbage: usize,
    /// Seed; thread `i` uses `seed + i`.
    pub seed: u64,
}

impl Default for GraphParams {
    /// One thread, [`DEFAULT_CYCLES`] cycles of 10 000 operations, 64 slots,
    /// garbage up to 2000 objects per operation, seed 1.
    fn default() -> Self {
        GraphParams {
            threads: 1,
            cycles: None,
            seconds: None,
            ops: 10_000,
            roots: 64,
            garbage: 2000,
            seed: 1,
        }
    }
}

impl GraphParams {
    /// Sets `key` from `value` if it is one of [`GRAPH_KEYS`]: `None` if it is not,
    /// else whether `value` parsed.
    pub fn set(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        let parsed = match key {
            "threads" => parse_value(key, value).map(|v| self.threads = v),
            "cycles" => parse_value(key, value).map(|v| self.cycles = Some(v)),
            "seconds" => parse_value(key, value).map(|v| self.seconds = Some(v)),
            "ops" => parse_value(key, value).map(|v| self.ops = v),
            "roots" => parse_value(key, value).map(|v| self.roots = v),
            "garbage" => parse_value(key, value).map(|v| self.garbage = v),
            "seed" => parse_value(key, value).map(|v| self.seed = v),
            _ => return None,
        };
        Some(parsed)
    }

    /// Cycles per thread: `cycles`, else unlimited if `seconds` is set, else
    /// [`DEFAULT_CYCLES`].
    pub fn cycle_limit(&self) -> u64 {
        match (self.cycles, self.seconds) {
            (Some(c), _) => c,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_CYCLES,
        }
    }

    /// Refuses parameters that cannot run.
    pub fn validate(&self) -> Result<(), StressError> {
        let bad = |m: &str| Err(StressError::Params(m.to_string()));
        if self.threads == 0 || self.threads > 256 {
            return bad("threads must be between 1 and 256");
        }
        if self.roots == 0 || self.roots > 1 << 20 {
            return bad("roots must be between 1 and 2^20");
        }
        if self.garbage == 0 || self.garbage > 1 << 20 {
            return bad("garbage must be between 1 and 2^20");
        }
        if self.seconds.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
            return bad("seconds must be positive");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_takes_only_graph_keys() {
        let mut p = GraphParams::default();
        assert_eq!(p.set("ops", "7"), Some(Ok(())));
        assert_eq!(p.ops, 7);
        assert_eq!(p.set("cycles", "3"), Some(Ok(())));
        assert_eq!(p.cycle_limit(), 3);
        assert!(matches!(p.set("roots", "x"), Some(Err(_))));
        assert_eq!(p.set("refs", "1"), None);
    }

    #[test]
    fn limits_and_validation() {
        let mut p = GraphParams::default();
        assert_eq!(p.cycle_limit(), DEFAULT_CYCLES);
        p.seconds = Some(1.0);
        assert_eq!(p.cycle_limit(), u64::MAX);
        assert!(p.validate().is_ok());
        p.seconds = Some(-1.0);
        assert!(p.validate().is_err());
        p.seconds = None;
        p.threads = 0;
        assert!(p.validate().is_err());
    }
}
