//! The GC log and tracing, through the binaries: the log lines a run prints on
//! stderr, read back with the format of docs/gc-log.md, match the pause log the same
//! run writes as JSON, pause by pause and cycle by cycle; `FLIPGC_LOG` turns the log
//! on as `--gc-log` does; `RUST_LOG` shows the collector's spans.

use std::collections::HashMap;
use std::process::Command;

const GCBENCH: &str = env!("CARGO_BIN_EXE_gcbench");
const BINARYTREES: &str = env!("CARGO_BIN_EXE_binarytrees");
const CHURN: &str = env!("CARGO_BIN_EXE_churn");

/// One GC log line, read back: `[<uptime>s][heap<id>][<tags>] [GC(<n>)] <event>
/// <key>=<value>...`.
#[derive(Debug)]
struct Line {
    uptime_s: f64,
    heap: u64,
    tags: String,
    cycle: Option<u64>,
    event: String,
    fields: HashMap<String, String>,
}

fn parse_line(text: &str) -> Option<Line> {
    let mut rest = text;
    let mut decorations = Vec::new();
    for _ in 0..3 {
        let (d, r) = rest.strip_prefix('[')?.split_once(']')?;
        decorations.push(d);
        rest = r;
    }
    let mut words = rest.split_whitespace().peekable();
    let cycle = words
        .next_if(|w| w.starts_with("GC(") && w.ends_with(')'))
        .map(|w| w[3..w.len() - 1].parse().unwrap());
    let event = words.next()?.to_string();
    let fields = words
        .map(|w| {
            let (k, v) = w
                .split_once('=')
                .unwrap_or_else(|| panic!("{w:?} in {text}"));
            (k.to_string(), v.to_string())
        })
        .collect();
    Some(Line {
        uptime_s: decorations[0].strip_suffix('s')?.parse().ok()?,
        heap: decorations[1].strip_prefix("heap")?.parse().ok()?,
        tags: decorations[2].to_string(),
        cycle,
        event,
        fields,
    })
}

fn log_lines(stderr: &str) -> Vec<Line> {
    stderr
        .lines()
        .filter(|l| l.starts_with('['))
        .map(|l| parse_line(l).unwrap_or_else(|| panic!("not a GC log line: {l}")))
        .collect()
}

fn ms(v: &str) -> f64 {
    v.strip_suffix("ms").unwrap().parse().unwrap()
}

fn bytes(v: &str) -> f64 {
    let (num, unit) = v.split_at(v.len() - 1);
    num.parse::<f64>().unwrap()
        * match unit {
            "B" => 1.0,
            "K" => 1024.0,
            "M" => 1048576.0,
            _ => panic!("unit of {v}"),
        }
}

/// A `ms` value against nanoseconds: equal after rounding to the microsecond.
fn same_ms(v: &str, ns: &serde_json::Value) -> bool {
    (ms(v) * 1e6 - ns.as_u64().unwrap() as f64).abs() <= 500.5
}

/// A size against bytes: equal after rounding to a tenth of its unit.
fn same_size(v: &str, b: &serde_json::Value) -> bool {
    let unit = match v.as_bytes()[v.len() - 1] {
        b'B' => 1.0,
        b'K' => 1024.0,
        _ => 1048576.0,
    };
    (bytes(v) - b.as_u64().unwrap() as f64).abs() <= 0.05 * unit + 0.5
}

fn clean(cmd: &mut Command) -> &mut Command {
    cmd.env_remove("FLIPGC_LOG").env_remove("RUST_LOG")
}

#[test]
fn log_lines_parse_back_to_the_pause_log() {
    let json = std::env::temp_dir().join(format!("flipgc-gclog-{}.json", std::process::id()));
    let o = clean(&mut Command::new(GCBENCH))
        .args(["16", "14", "1000", "4", "14", "1", "--heap", "16m"])
        .args(["--gc-log=gc,phases", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    let lines = log_lines(&err);
    let heap = lines[0].heap;
    assert!(lines.iter().all(|l| l.heap == heap));
    assert!(lines
        .windows(2)
        .all(|w| w[0].uptime_s <= w[1].uptime_s + 0.002));
    assert_eq!(lines[0].tags, "gc,init");
    assert_eq!(lines[0].fields["capacity"], "16.0M");
    assert_eq!(lines[0].fields["log"], "gc,phases");

    let pauses = doc["pauses"].as_array().unwrap();
    let logged: Vec<&Line> = lines.iter().filter(|l| l.tags == "gc,pause").collect();
    assert!(!pauses.is_empty());
    assert_eq!(logged.len(), pauses.len(), "one line per pause");
    for (l, p) in logged.iter().zip(pauses) {
        let f = &l.fields;
        assert_eq!(l.event, "pause");
        assert_eq!(l.cycle, p["cycle"].as_u64(), "{l:?} {p}");
        assert_eq!(f["kind"], p["kind"].as_str().unwrap(), "{l:?} {p}");
        assert!(same_ms(&f["total"], &p["total_ns"]), "{l:?} {p}");
        assert!(same_ms(&f["ttsp"], &p["ttsp_ns"]), "{l:?} {p}");
        let (before, after) = f["used"].split_once("->").unwrap();
        assert!(same_size(before, &p["used_before_bytes"]), "{l:?} {p}");
        assert!(same_size(after, &p["used_after_bytes"]), "{l:?} {p}");
        assert_eq!(f["capacity"], "16.0M");
        // Stamped with the pause's end.
        let end = p["at_ns"].as_u64().unwrap() + p["total_ns"].as_u64().unwrap()
            - p["ttsp_ns"].as_u64().unwrap();
        assert!(
            (l.uptime_s * 1e9 - end as f64).abs() <= 0.5e6 + 1.0,
            "{l:?} {p}"
        );
        if p["flip"]["strategy"] != "none" {
            assert_eq!(f["strategy"], p["flip"]["strategy"].as_str().unwrap());
            assert_eq!(f["level"], p["flip"]["level"].as_str().unwrap());
            assert!(same_ms(&f["flip_time"], &p["flip"]["elapsed_ns"]), "{l:?}");
            assert!(same_size(&f["live"], &p["live_bytes"]), "{l:?} {p}");
        }
        // Its phases, in order, on the lines just before it.
        let phases: Vec<&Line> = lines
            .iter()
            .filter(|x| x.tags == "gc,phases" && x.cycle == l.cycle)
            .filter(|x| x.fields["pause"] == f["kind"] && x.uptime_s == l.uptime_s)
            .collect();
        let recorded = p["phases"].as_object().unwrap();
        assert!(phases.len() >= recorded.len(), "{l:?} {p}");
        for x in &phases {
            let ns = &recorded[x.fields["name"].as_str()];
            assert!(same_ms(&x.fields["time"], ns), "{x:?} {p}");
        }
    }

    let cycles = doc["cycles"].as_array().unwrap();
    let logged: Vec<&Line> = lines.iter().filter(|l| l.tags == "gc,cycle").collect();
    assert_eq!(logged.len(), cycles.len(), "one line per cycle");
    for (l, c) in logged.iter().zip(cycles) {
        let f = &l.fields;
        assert_eq!((l.event.as_str(), l.cycle), ("cycle", c["n"].as_u64()));
        assert_eq!(f["reason"], c["reason"].as_str().unwrap());
        assert_eq!(f["pauses"], c["pauses"].to_string());
        assert!(same_ms(&f["pause_time"], &c["pause_ns"]), "{l:?} {c}");
        assert!(same_size(&f["live"], &c["live_bytes"]), "{l:?} {c}");
        assert!(same_size(&f["moved"], &c["moved_bytes"]), "{l:?} {c}");
        assert_eq!(f["compaction"], c["compaction"].as_str().unwrap());
        assert!(
            same_ms(&f["compact_time"], &c["compaction_ns"]),
            "{l:?} {c}"
        );
        assert_eq!(f["fault_stalls"], c["fault_stalls"].to_string());
        assert_eq!(f["rounds"], c["mark_rounds"].to_string());
        let young = if c["young"].as_bool().unwrap() {
            "yes"
        } else {
            "no"
        };
        assert_eq!(f["young"], young);
    }

    // The summary at the end, as the JSON's.
    let all = lines
        .iter()
        .find(|l| l.tags == "gc,summary" && l.event == "pauses" && l.fields["kind"] == "all")
        .expect("a summary");
    let s = &doc["summary"];
    assert_eq!(all.fields["count"], s["pauses"].to_string());
    assert!(same_ms(&all.fields["max"], &s["max_pause_ns"]));
    assert!(same_ms(&all.fields["p99"], &s["p99_pause_ns"]));
    assert!(same_ms(&all.fields["p50"], &s["p50_pause_ns"]));
}

#[test]
fn flipgc_log_turns_the_log_on_and_it_is_off_by_default() {
    let args = ["10", "--heap", "2m"];
    let o = clean(&mut Command::new(BINARYTREES))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(log_lines(&String::from_utf8_lossy(&o.stderr)).is_empty());

    let o = clean(&mut Command::new(BINARYTREES))
        .args(args)
        .env("FLIPGC_LOG", "gc")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let lines = log_lines(&err);
    assert!(lines.iter().any(|l| l.tags == "gc,pause"), "{err}");
    assert!(lines.iter().any(|l| l.tags == "gc,cycle"), "{err}");
    assert!(!lines.iter().any(|l| l.tags == "gc,phases"), "{err}");

    let o = clean(&mut Command::new(BINARYTREES))
        .args(args)
        .env("FLIPGC_LOG", "loud")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("FLIPGC_LOG ignored"), "{err}");
}

#[test]
fn rust_log_shows_the_collectors_spans() {
    let o = clean(&mut Command::new(CHURN))
        .args([
            "--cycles",
            "2",
            "--ops",
            "2000",
            "--heap",
            "2m",
            "--no-verify",
        ])
        .env("RUST_LOG", "flipgc_core=debug")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for want in [
        "pause{kind=\"mark-start\"}",
        "pause{kind=\"flip\"}:phase{name=\"flip\"}",
        "flipgc_core::collect::pause",
        "close time.busy=",
        "pause done",
    ] {
        assert!(err.contains(want), "no {want:?} in:\n{err}");
    }
    // Without RUST_LOG: nothing (the default shows warnings only).
    let o = clean(&mut Command::new(CHURN))
        .args([
            "--cycles",
            "2",
            "--ops",
            "2000",
            "--heap",
            "2m",
            "--no-verify",
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("pause{"));
}
