//! The pause log stays bounded over a long run (the "pause log grows without bound"
//! defect): 100,000 collections on a small heap, with the log's own memory
//! ([`PauseLog::footprint_bytes`]) measured after 10,000 and after 100,000 of them,
//! which must be equal; and its whole-run statistics (counts, the percentiles of
//! the GC log summary) must still be those of every collection, checked against the
//! exact pause totals of all of them, read out of the ring in windows as the run
//! goes.

use flipgc_core::gclog::summary_bodies;
use flipgc_core::{nearest_rank, FlipMode, Heap, HeapConfig, OwnedBytes, PauseLog, TypeRegistry};
use std::time::Instant;

/// Collections in a run (the figure).
const COLLECTIONS: u64 = 100_000;
/// Where the first footprint is taken.
const EARLY: u64 = 10_000;

/// A `key=value` field of a summary line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// `ns` as the GC log prints it (`fmt_ms`).
fn ms(ns: u64) -> String {
    flipgc_core::gclog::fmt_ms(ns)
}

/// What a run measured.
struct Run {
    log: PauseLog,
    /// Every pause total of the run, read out of the ring as it went.
    totals: Vec<u64>,
    /// The log after `EARLY` collections.
    early: PauseLog,
    summary: String,
}

/// Bytes the log's records own (their phase lists and strings), beyond the rings'
/// slots; and the most one pause record owns.
fn owned(log: &PauseLog) -> (usize, usize) {
    let each = log.records().iter().map(OwnedBytes::owned_bytes);
    (each.clone().sum(), each.max().unwrap_or(0))
}

/// Runs `COLLECTIONS` explicit collections on a minimal heap configured by `cfg`,
/// reading new pause records out of the log every `capacity / 2` collections
/// (fewer collections than the ring holds pauses, so none is missed).
fn run(mut cfg: HeapConfig, pauses_per_cycle: u64) -> Run {
    cfg.gc_workers = 1;
    cfg.concurrent_workers = 1;
    let capacity = cfg.pause_log_capacity as u64;
    let window = (capacity / 2 / pauses_per_cycle).max(1);
    let mut r = TypeRegistry::new();
    r.fixed("node", 2, &[0]).unwrap();
    let heap = Heap::new(cfg, r).unwrap();
    let mut m = heap.bind_mutator().unwrap();
    let mut totals = Vec::new();
    let mut early = None;
    let started = Instant::now();
    for i in 1..=COLLECTIONS {
        m.collect();
        if i % window == 0 || i == EARLY || i == COLLECTIONS {
            m.blocking(|| heap.wait_idle());
            let log = heap.pause_log();
            let seen = totals.len() as u64;
            assert!(
                log.records().dropped() <= seen,
                "pause {seen} left the ring before it was read"
            );
            totals.extend(log.records().since(seen).map(|p| p.total_ns));
            if i == EARLY {
                early = Some(log);
            }
        }
    }
    eprintln!(
        "{COLLECTIONS} collections in {:?} (capacity {capacity})",
        started.elapsed()
    );
    let log = heap.pause_log();
    Run {
        summary: heap.gc_summary(),
        log,
        totals,
        early: early.expect("EARLY is at most COLLECTIONS"),
    }
}

/// What every run must show: a flat footprint, a full ring, and whole-run figures
/// that are those of every pause and cycle.
fn check(run: &Run, pauses_per_cycle: u64) {
    let log = &run.log;
    let capacity = log.capacity();
    let (early, late) = (run.early.footprint_bytes(), log.footprint_bytes());
    let (owned_early, most_early) = owned(&run.early);
    let (owned_late, most_late) = owned(log);
    eprintln!(
        "footprint: {early} bytes after {EARLY} collections ({owned_early} of them owned by \
         records), {late} after {COLLECTIONS} ({owned_late})"
    );
    // The rings' slots: exactly as many bytes after 100,000 collections as after
    // 10,000 (the rings are full from then on).
    assert!(early > owned_early);
    assert_eq!(
        late - owned_late,
        early - owned_early,
        "the pause log's rings grew from {EARLY} to {COLLECTIONS} collections: \
         {early} -> {late} bytes"
    );
    // What the records own varies a little with their contents (a pause that
    // waited for a thread names it), but is bounded by the ring's capacity: no more
    // than `capacity` records of at most the largest size seen.
    let most = most_early.max(most_late);
    assert!(
        owned_late <= capacity * most && owned_early <= capacity * most,
        "records own {owned_early} -> {owned_late} bytes, more than {capacity} x {most}"
    );

    // The rings hold the last `capacity` records; the rest were dropped, counted.
    let pauses = COLLECTIONS * pauses_per_cycle;
    assert_eq!(log.records().len(), capacity);
    assert_eq!(log.cycles().len(), capacity);
    assert_eq!(log.records().total(), pauses);
    let dropped = log.dropped();
    assert_eq!(dropped.pauses, pauses - capacity as u64);
    assert_eq!(dropped.cycles, COLLECTIONS - capacity as u64);
    assert_eq!(log.cycles().last().unwrap().n, COLLECTIONS);

    // Whole-run counts: every collection, not the ring's.
    assert_eq!(log.collections() as u64, COLLECTIONS);
    assert_eq!(log.pause_stats().count(), pauses);
    assert_eq!(log.pause_stats().histogram().len(), pauses);
    assert_eq!(log.cycle_stats().count, COLLECTIONS);
    assert_eq!(log.cycle_stats().reason_count("explicit"), COLLECTIONS);

    // Whole-run percentiles: against the exact totals of every pause of the run.
    let mut totals = run.totals.clone();
    assert_eq!(totals.len() as u64, pauses, "every pause was read");
    assert_eq!(
        totals.iter().sum::<u64>(),
        log.pause_stats().total_ns(),
        "the pauses read are the ones counted"
    );
    totals.sort_unstable();
    for q in [0.5, 0.99, 1.0] {
        let want = nearest_rank(&totals, q);
        let got = log.quantile_ns(q);
        // The histogram's bucket of the exact value: within 0.1% above it.
        assert!(
            got >= want && got <= want + want / 1000,
            "p{q}: {got} ns from the log, {want} ns over all pauses"
        );
    }
    assert_eq!(log.quantile_ns(1.0), *totals.last().unwrap());

    // The GC log summary (`Heap::gc_summary`, and the lines it prints at the
    // heap's drop) reports the same whole-run figures.
    let lines = summary_bodies(log);
    let all = &lines[0];
    assert_eq!(field(all, "count"), pauses.to_string(), "{all}");
    assert_eq!(field(all, "p99"), ms(log.quantile_ns(0.99)), "{all}");
    assert_eq!(field(all, "max"), ms(*totals.last().unwrap()), "{all}");
    assert_eq!(
        field(all, "total"),
        ms(log.pause_stats().total_ns()),
        "{all}"
    );
    let cycles = format!("cycles count={COLLECTIONS} ");
    assert!(lines.iter().any(|l| l.starts_with(&cycles)), "{lines:?}");
    assert!(
        run.summary
            .contains(&format!("pauses kind=all count={pauses} ")),
        "{}",
        run.summary
    );
}

/// One-pause cycles (a `"full"` pause each, the fastest kind), with the default
/// capacity: the rings fill at exactly the 10,000th collection.
#[test]
fn one_pause_cycles_keep_the_log_flat_and_the_statistics_whole() {
    let mut cfg = HeapConfig::new(flipgc_core::MIN_CAPACITY);
    cfg.concurrent_marking = false;
    cfg.flip = FlipMode::Copy;
    assert_eq!(
        cfg.pause_log_capacity,
        flipgc_core::DEFAULT_PAUSE_LOG_CAPACITY
    );
    let run = run(cfg, 1);
    check(&run, 1);
    assert_eq!(
        run.log.kind_stats("full").unwrap().count(),
        COLLECTIONS,
        "one full pause per cycle"
    );
}

/// Concurrent cycles (mark-start, mark-end, flip; a compaction record each where
/// compaction is concurrent), with a configured capacity of 1,000.
#[test]
fn concurrent_cycles_keep_the_log_flat_and_the_statistics_whole() {
    let mut cfg = HeapConfig::new(flipgc_core::MIN_CAPACITY);
    cfg.pause_log_capacity = 1_000;
    let run = run(cfg, 3);
    check(&run, 3);
    let log = &run.log;
    for kind in ["mark-start", "mark-end", "flip"] {
        assert_eq!(log.kind_stats(kind).unwrap().count(), COLLECTIONS, "{kind}");
    }
    let comp = log.compaction_stats();
    if comp.count > 0 {
        assert_eq!(comp.count, COLLECTIONS);
        assert_eq!(comp.sigbus + comp.server, COLLECTIONS);
        assert_eq!(log.compactions().len(), log.capacity());
        assert_eq!(log.dropped().compactions, COLLECTIONS - 1_000);
    }
}

/// A capacity of 0 is refused with a configuration error that names it.
#[test]
fn a_zero_capacity_is_refused() {
    let mut cfg = HeapConfig::new(flipgc_core::MIN_CAPACITY);
    cfg.pause_log_capacity = 0;
    let e = Heap::new(cfg, TypeRegistry::new()).unwrap_err();
    assert!(
        matches!(e.kind(), flipgc_core::GcErrorKind::Config(_)),
        "{e:?}"
    );
    assert!(e.to_string().contains("pause-log capacity 0"), "{e}");
}
