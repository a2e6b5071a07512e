//! The GC log's records and lines on a real heap, in each kind of cycle: every
//! pause knows its cycle and the heap used before and after it; every cycle record
//! adds up its own pauses, names the flip and the compaction; and each pause's log
//! line, read back with the format of docs/gc-log.md, gives the record's values
//! (durations within the microsecond rounding).

use flipgc_core::gclog::{cycle_body, pause_body, summary_bodies};
use flipgc_core::{FlipMode, Heap, HeapConfig, PauseRecord, TypeRegistry};
use std::collections::HashMap;

/// A line's body read back: the cycle (from `GC(n)`, if there), the event word and
/// the `key=value` fields.
fn parse(body: &str) -> (Option<u64>, String, HashMap<String, String>) {
    let mut words = body.split_whitespace().peekable();
    let cycle = words
        .next_if(|w| w.starts_with("GC("))
        .map(|w| w["GC(".len()..w.len() - 1].parse().unwrap());
    let event = words.next().unwrap().to_string();
    let fields = words
        .map(|w| {
            let (k, v) = w
                .split_once('=')
                .unwrap_or_else(|| panic!("{w:?} in {body}"));
            (k.to_string(), v.to_string())
        })
        .collect();
    (cycle, event, fields)
}

fn ms(v: &str) -> f64 {
    v.strip_suffix("ms").unwrap().parse().unwrap()
}

fn bytes(v: &str) -> f64 {
    let (num, unit) = v.split_at(v.len() - 1);
    let n: f64 = num.parse().unwrap();
    n * match unit {
        "B" => 1.0,
        "K" => 1024.0,
        "M" => 1048576.0,
        _ => panic!("unit of {v}"),
    }
}

/// `v` (ms, three decimals) is `ns` rounded.
fn close_ms(v: &str, ns: u64) -> bool {
    (ms(v) * 1e6 - ns as f64).abs() <= 500.0 + 1e-6 * ns as f64
}

/// `v` (one decimal of its unit) is `b` rounded.
fn close_bytes(v: &str, b: u64) -> bool {
    (bytes(v) - b as f64).abs() <= 0.05 * 1048576.0
}

fn check_pause_line(r: &PauseRecord, round: Option<usize>, capacity: u64) {
    let body = pause_body(r, round, capacity);
    let (cycle, event, f) = parse(&body);
    assert_eq!((cycle, event.as_str()), (Some(r.cycle), "pause"), "{body}");
    assert_eq!(f["kind"], r.kind, "{body}");
    assert!(close_ms(&f["total"], r.total_ns), "{body} vs {r:?}");
    assert!(close_ms(&f["ttsp"], r.ttsp_ns), "{body} vs {r:?}");
    let (before, after) = f["used"].split_once("->").unwrap();
    assert!(close_bytes(before, r.used_before_bytes), "{body}");
    assert!(close_bytes(after, r.used_after_bytes), "{body}");
    assert!(close_bytes(&f["capacity"], capacity), "{body}");
    if r.kind == "flip" || r.kind == "full" {
        assert_eq!(f["strategy"], r.flip.strategy);
        assert_eq!(f["level"], r.flip.level);
        assert!(close_ms(&f["flip_time"], r.flip.elapsed_ns), "{body}");
        assert!(close_bytes(&f["live"], r.live_bytes), "{body}");
    } else {
        assert!(!f.contains_key("strategy"), "{body}");
    }
    assert_eq!(f.contains_key("round"), r.kind == "mark-end", "{body}");
}

fn run(mode: &str) {
    let mut r = TypeRegistry::new();
    let node = r.fixed("node", 2, &[0]).unwrap();
    let t = r.fixed_type(node).unwrap();
    let next = r.ref_field(node, 0).unwrap();
    let mut cfg = HeapConfig::new(8 << 20);
    match mode {
        "stw" => cfg.concurrent_marking = false,
        "copy" => cfg.flip = FlipMode::Copy,
        _ => {}
    }
    let heap = Heap::new(cfg, r).unwrap();
    let capacity = heap.config().capacity as u64;
    let mut m = heap.bind_mutator().unwrap();
    // A live list of 20 000 nodes, then garbage: several cycles (full heap, pacer).
    m.push(None);
    for _ in 0..20_000 {
        m.push_fixed(t).unwrap();
        let o = m.pop().unwrap();
        m.set_ref(o, next, m.stack_get(0));
        m.stack_set(0, Some(o));
    }
    for _ in 0..400_000 {
        m.push_fixed(t).unwrap();
        m.pop();
    }
    m.collect();
    m.collect();
    m.blocking(|| heap.wait_idle());
    let log = heap.pause_log();
    let cycles = log.cycles();
    assert!(cycles.len() >= 2, "{mode}: {} cycles", cycles.len());
    let mut freed = false;

    for (i, c) in cycles.iter().enumerate() {
        assert_eq!(c.n, i as u64 + 1);
        let mine: Vec<&PauseRecord> = log.records().iter().filter(|p| p.cycle == c.n).collect();
        assert_eq!(mine.len() as u32, c.pauses, "{mode} cycle {}", c.n);
        assert_eq!(mine.iter().map(|p| p.total_ns).sum::<u64>(), c.pause_ns);
        let moving = mine.last().unwrap();
        assert!(matches!(moving.kind, "flip" | "full"), "{mode}: {moving:?}");
        assert_eq!(c.moved_bytes, moving.live_bytes);
        assert_eq!(c.flip_strategy, moving.flip.strategy);
        assert_eq!(c.flip_level, moving.flip.level);
        // Never larger after the pause that moved the heap (smaller if garbage was
        // freed: checked below).
        assert!(
            moving.used_after_bytes <= moving.used_before_bytes,
            "{moving:?}"
        );
        freed |= moving.used_after_bytes < moving.used_before_bytes;
        assert_eq!(moving.used_after_bytes, moving.live_bytes);
        let rounds = mine.iter().filter(|p| p.kind == "mark-end").count() as u32;
        assert_eq!(rounds, c.mark_rounds, "{mode}");
        let want = match mode {
            "auto" if heap.concurrent_compaction() => "concurrent",
            _ => "in-pause",
        };
        assert_eq!(c.compaction, want, "{mode}");
        assert_eq!(c.compaction_pages > 0, want == "concurrent");
        assert!(c.compaction_ns > 0, "{mode}: {c:?}");

        let mut round = 0;
        for p in &mine {
            round += usize::from(p.kind == "mark-end");
            check_pause_line(p, (p.kind == "mark-end").then_some(round), capacity);
        }
        let (cycle, event, f) = parse(&cycle_body(c));
        assert_eq!((cycle, event.as_str()), (Some(c.n), "cycle"));
        assert_eq!(f["reason"], c.reason);
        assert_eq!(f["pauses"], c.pauses.to_string());
        assert!(close_ms(&f["pause_time"], c.pause_ns));
        assert!(close_ms(&f["time"], c.done_at_ns - c.started_at_ns));
        assert!(close_bytes(&f["moved"], c.moved_bytes));
        assert_eq!(f["rounds"], c.mark_rounds.to_string());
        assert_eq!(f["young"], if c.young { "yes" } else { "no" });
        assert_eq!(f["compaction"], c.compaction);
    }
    assert!(freed, "{mode}: no cycle freed anything");
    let n = log.records().len();
    let summary = summary_bodies(&log);
    let (_, event, f) = parse(&summary[0]);
    assert_eq!((event.as_str(), f["kind"].as_str()), ("pauses", "all"));
    assert_eq!(f["count"], n.to_string());
    assert!(close_ms(&f["max"], log.quantile_ns(1.0)));
    let text = heap.gc_summary();
    assert!(text.contains("[gc,summary] pauses kind=all"), "{text}");
    assert!(
        text.contains(&format!("cycles count={}", cycles.len())),
        "{text}"
    );
}

#[test]
fn concurrent_cycles_log_what_they_recorded() {
    run("auto");
}

#[test]
fn one_pause_cycles_log_what_they_recorded() {
    run("stw");
}

#[test]
fn copying_cycles_log_what_they_recorded() {
    run("copy");
}
