//! Attribution of a run's outliers: every pause, fault stall and allocation stall
//! of [`OUTLIER_NS`] or more gets a cause, from what the run measured alongside it:
//! - `host`: the machine meter (a plain thread no collection holds) woke late by
//!   at least half the outlier's length while it lasted, so the machine (the
//!   scheduler running another task, the hypervisor) held every thread up, not
//!   only ours;
//! - `time-to-safepoint`: for a pause, the stop waited at least half of it for a
//!   mutator to reach a GC point (the mutator is named);
//! - `phase:<name>`: for a pause, its longest phase took at least half of it;
//! - `unattributed`: none of these. The outlier was ours or the scheduler's
//!   without the machine meter seeing it (a thread of ours runnable but not run:
//!   see docs/findings.md, "Pause tails under a CPU-bound neighbour").
//!
//! Each outlier names the evidence: the overlapping machine stall, the time to
//! safepoint, or the phase.

use serde::Serialize;

use super::record::Pause;

/// Outliers are at least this long (1 ms).
pub const OUTLIER_NS: u64 = 1_000_000;

/// One pause or stall of at least [`OUTLIER_NS`], with its cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outlier {
    /// `pause:<kind>`, `fault-stall` or `alloc-stall`.
    pub what: String,
    /// When it began, ns on the pause log's clock.
    pub at_ns: u64,
    /// How long it lasted.
    pub ns: u64,
    /// `host`, `time-to-safepoint`, `phase:<name>` or `unattributed`.
    pub cause: String,
    /// The evidence, in words (for example "machine meter 2.9 ms late from +0.1
    /// ms").
    pub evidence: String,
}

/// The longest machine stall overlapping `[start, start + len)`: (due, late).
fn machine_overlap(start: u64, len: u64, machine: &[(u64, u64)]) -> Option<(u64, u64)> {
    machine
        .iter()
        .copied()
        .filter(|&(due, late)| due < start + len && due + late > start)
        .max_by_key(|&(_, late)| late)
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// `host` if a machine stall at least half as long as `len` overlaps it.
fn host(start: u64, len: u64, machine: &[(u64, u64)]) -> Option<(String, String)> {
    let (due, late) = machine_overlap(start, len, machine)?;
    (2 * late >= len).then(|| {
        let from = due as i64 - start as i64;
        (
            "host".to_string(),
            format!(
                "machine meter {:.2} ms late from {:+.2} ms",
                ms(late),
                from as f64 / 1e6
            ),
        )
    })
}

/// Attributes every outlier among `pauses`, `fault_stalls` and `alloc_stalls`
/// (each `(start, length)` ns), given the machine meter's late wake-ups
/// `machine` (`(due, late)` ns). Oldest first.
pub fn attribute(
    pauses: &[Pause],
    fault_stalls: &[(u64, u64)],
    alloc_stalls: &[(u64, u64)],
    machine: &[(u64, u64)],
) -> Vec<Outlier> {
    let mut out = Vec::new();
    for p in pauses.iter().filter(|p| p.total_ns >= OUTLIER_NS) {
        // `at_ns` is when the world had stopped; the pause began ttsp earlier.
        let start = p.at_ns.saturating_sub(p.ttsp_ns);
        let longest = p.phases.iter().max_by_key(|(_, &ns)| ns);
        let (cause, evidence) = if let Some(h) = host(start, p.total_ns, machine) {
            h
        } else if 2 * p.ttsp_ns >= p.total_ns {
            (
                "time-to-safepoint".to_string(),
                format!(
                    "{:.2} ms waiting for {}",
                    ms(p.ttsp_ns),
                    p.waited_for.as_deref().unwrap_or("no mutator")
                ),
            )
        } else if let Some((name, &ns)) = longest.filter(|(_, &ns)| 2 * ns >= p.total_ns) {
            (
                format!("phase:{name}"),
                format!("{name} took {:.2} ms", ms(ns)),
            )
        } else {
            (
                "unattributed".to_string(),
                format!(
                    "ttsp {:.2} ms, longest phase {}",
                    ms(p.ttsp_ns),
                    longest.map_or("none".to_string(), |(n, &ns)| format!(
                        "{n} {:.2} ms",
                        ms(ns)
                    ))
                ),
            )
        };
        out.push(Outlier {
            what: format!("pause:{}", p.kind),
            at_ns: start,
            ns: p.total_ns,
            cause,
            evidence,
        });
    }
    for (what, stalls) in [("fault-stall", fault_stalls), ("alloc-stall", alloc_stalls)] {
        for &(start, len) in stalls.iter().filter(|s| s.1 >= OUTLIER_NS) {
            let (cause, evidence) = host(start, len, machine).unwrap_or_else(|| {
                (
                    "unattributed".to_string(),
                    "no machine stall overlaps it".to_string(),
                )
            });
            out.push(Outlier {
                what: what.to_string(),
                at_ns: start,
                ns: len,
                cause,
                evidence,
            });
        }
    }
    out.sort_by_key(|o| o.at_ns);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pause::record::Flip;
    use std::collections::BTreeMap;

    fn pause(at: u64, total: u64, ttsp: u64, phases: &[(&str, u64)]) -> Pause {
        Pause {
            kind: "flip".into(),
            cycle: 1,
            at_ns: at,
            total_ns: total,
            ttsp_ns: ttsp,
            used_before_bytes: 0,
            used_after_bytes: 0,
            phases: phases
                .iter()
                .map(|&(n, ns)| (n.to_string(), ns))
                .collect::<BTreeMap<_, _>>(),
            live_bytes: 0,
            flip: Flip {
                strategy: "mremap".into(),
                level: "pmd".into(),
                elapsed_ns: 0,
                parked_bytes: 0,
            },
            by_mutator: false,
            waited_for: Some("main".into()),
        }
    }

    #[test]
    fn each_outlier_gets_the_cause_its_evidence_shows() {
        const MS: u64 = 1_000_000;
        let pauses = [
            // Short: not an outlier.
            pause(10 * MS, MS / 10, 0, &[("mremap", MS / 20)]),
            // 2 ms while the machine meter was 1.5 ms late: host.
            pause(100 * MS, 2 * MS, MS / 10, &[("mremap", MS)]),
            // 3 ms of which 2 ms waiting for the mutator: time to safepoint.
            pause(200 * MS + 2 * MS, 3 * MS, 2 * MS, &[("mremap", MS / 2)]),
            // 2 ms, mostly its flip phase.
            pause(300 * MS, 2 * MS, MS / 10, &[("mremap", 3 * MS / 2)]),
            // 2 ms spread over phases: unattributed.
            pause(
                400 * MS,
                2 * MS,
                MS / 10,
                &[("a", MS / 2), ("b", MS / 2), ("c", MS / 2)],
            ),
        ];
        let machine = [(100 * MS, 3 * MS / 2), (500 * MS, 2 * MS)];
        let faults = [(500 * MS + MS / 2, 2 * MS), (600 * MS, 4 * MS)];
        let allocs = [(700 * MS, MS / 2), (800 * MS, 3 * MS)];
        let out = attribute(&pauses, &faults, &allocs, &machine);
        let causes: Vec<(&str, &str)> = out
            .iter()
            .map(|o| (o.what.as_str(), o.cause.as_str()))
            .collect();
        assert_eq!(
            causes,
            [
                ("pause:flip", "host"),
                ("pause:flip", "time-to-safepoint"),
                ("pause:flip", "phase:mremap"),
                ("pause:flip", "unattributed"),
                ("fault-stall", "host"),
                ("fault-stall", "unattributed"),
                ("alloc-stall", "unattributed"),
            ]
        );
        assert_eq!(out[1].at_ns, 200 * MS, "a pause begins ttsp before at_ns");
        assert!(out[1].evidence.contains("main"), "{}", out[1].evidence);
        // A machine stall shorter than half the outlier does not explain it.
        let out = attribute(&[], &[(0, 4 * MS)], &[], &[(MS, MS)]);
        assert_eq!(out[0].cause, "unattributed");
    }
}
