//! Runs the pausebench binary end to end: tiny runs of every workload whose JSON
//! must have the agreed keys and consistent values, the table and the plot (with a
//! timeline panel per run), the GC log and tracing on stderr, and bad arguments
//! that must exit with code 2 and say why.

use flipgc_bench::pause::record::{PAUSE_KEYS, RUN_KEYS, SUMMARY_KEYS};
use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs pausebench with `args`, without the wait for free page reporting unless
/// `args` asks for it.
fn pausebench(args: &[&str]) -> Output {
    let no_settle: &[&str] = if args.contains(&"--settle") {
        &[]
    } else {
        &["--settle", "0"]
    };
    Command::new(env!("CARGO_BIN_EXE_pausebench"))
        .args(no_settle)
        .args(args)
        .env_remove("FLIPGC_LOG")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pausebench-{}-{name}", std::process::id()))
}

/// Parameters small enough for a test: a few hundred ms per run.
const TINY: &str = "gcbench.stretch=14,gcbench.long-lived=12,gcbench.array-size=1000,\
gcbench.max-depth=12,gcbench.rounds=1,binarytrees.depth=12,churn.cycles=4,churn.ops=2000";

#[test]
fn tiny_runs_write_the_agreed_json_table_and_plot() {
    let (json, svg) = (temp("runs.json"), temp("runs.svg"));
    let out = pausebench(&[
        "--workload",
        "gcbench,binarytrees,churn",
        "--heap",
        "4m",
        "--modes",
        "pte,stw,copy",
        "--repeat",
        "2",
        "--verify",
        "--params",
        TINY,
        "--json",
        json.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("hic p99.9"), "{stdout}");
    assert!(stdout.contains("pauses by kind"), "{stdout}");
    assert!(stdout.contains("with a machine stall"), "{stdout}");
    // No progress bar when stderr is not a terminal.
    assert!(stderr.is_empty(), "{stderr}");

    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let plot = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&json).ok();
    std::fs::remove_file(&svg).ok();
    assert!(
        plot.contains("<svg") && plot.contains("churn 4 MiB copy"),
        "{plot}"
    );

    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3 * 3 * 2); // workloads x modes x repeats
                                       // A timeline panel per run, under the legend of its colours.
    assert!(plot.contains("mark-start pause") && plot.contains("heap used (right axis)"));
    for run in runs {
        let title = format!(
            "timeline: {} 4 MiB {} #{}:",
            run["workload"].as_str().unwrap(),
            run["mode"].as_str().unwrap(),
            run["repeat"]
        );
        assert_eq!(plot.matches(&title).count(), 1, "{title}");
    }
    // `stw` flips in `Auto` mode: PUD on x86_64 even at 4 MiB (the spans are rounded
    // up to whole PUD entries), PMD where a PUD entry is too large for that.
    let auto_level = flipgc_core::HeapConfig::new(4 << 20)
        .flip_level()
        .expect("a moving flip")
        .name();
    for run in runs {
        for key in RUN_KEYS {
            assert!(run.get(key).is_some(), "{key} missing: {run}");
        }
        for key in SUMMARY_KEYS {
            assert!(run["summary"][key].is_u64(), "summary.{key}: {run}");
        }
        let s = &run["summary"];
        let n = s["collections"].as_u64().unwrap();
        let pauses = run["pauses"].as_array().unwrap();
        assert!(n > 0, "a 4 MiB heap must collect: {run}");
        assert_eq!(pauses.len() as u64, s["pauses"].as_u64().unwrap());
        // One pause per cycle ("full"), or "mark-start", one or more "mark-end" and
        // a "flip".
        let count = |kind: &str| pauses.iter().filter(|p| p["kind"] == kind).count() as u64;
        let (starts, ends, flips) = (count("mark-start"), count("mark-end"), count("flip"));
        let fulls = count("full");
        assert_eq!(starts + fulls, n, "{run}");
        assert_eq!(flips, starts, "{run}");
        assert!(ends >= starts, "{run}");
        assert_eq!(pauses.len() as u64, fulls + starts + ends + flips, "{run}");
        // The machine meter ran alongside (a run of a few hundred ms wakes it
        // hundreds of times, each at least a little late), and its overlaps are a
        // subset of the long pauses.
        let long = pauses
            .iter()
            .filter(|p| p["total_ns"].as_u64().unwrap() >= 1_000_000)
            .count() as u64;
        assert_eq!(s["pauses_over_1ms"].as_u64().unwrap(), long, "{run}");
        assert!(
            s["pauses_over_1ms_machine"].as_u64().unwrap() <= long,
            "{run}"
        );
        assert!(s["machine_hiccup_max_ns"].as_u64().unwrap() > 0, "{run}");
        // Fault stalls of 1 ms or more are listed with their starts, and their
        // machine overlaps are a subset of them.
        let long_faults = run["long_fault_stalls"].as_array().unwrap();
        assert!(
            long_faults
                .iter()
                .all(|f| f[1].as_u64().unwrap() >= 1_000_000 && f[0].as_u64().is_some()),
            "{run}"
        );
        assert_eq!(
            s["fault_stalls_over_1ms"].as_u64().unwrap(),
            long_faults.len() as u64,
            "{run}"
        );
        assert!(
            s["fault_stalls_over_1ms_machine"].as_u64().unwrap() <= long_faults.len() as u64,
            "{run}"
        );
        // Fault stalls: median <= p99 <= longest <= all of them added up (the
        // histogram's precision aside), and nothing without stalls.
        let f = |k: &str| s[k].as_u64().unwrap() as f64;
        assert!(f("fault_stall_p50_ns") <= f("fault_stall_p99_ns"), "{run}");
        assert!(f("fault_stall_p99_ns") <= f("fault_stall_max_ns"), "{run}");
        assert!(
            f("fault_stall_max_ns") <= f("fault_stall_total_ns") * 1.002,
            "{run}"
        );
        if f("fault_stalls") == 0.0 {
            assert_eq!(f("fault_stall_total_ns"), 0.0, "{run}");
        } else {
            assert!(
                f("fault_stall_total_ns") >= f("fault_stalls") * f("fault_stall_p50_ns") / 2.0,
                "{run}"
            );
        }
        assert!(s["steal_ns"].as_u64().is_some(), "{run}");
        assert!(s["others_cpu_ns"].as_u64().is_some(), "{run}");
        let stalls = run["machine_stalls"].as_array().unwrap();
        assert!(
            stalls.iter().all(|m| m[1].as_u64().unwrap() >= 1_000_000),
            "{run}"
        );
        assert_eq!(run["heap_bytes"], 4 << 20);
        assert!(run["wall_ns"].as_u64().unwrap() > 0);
        let (p50, p99, max) = (
            s["p50_pause_ns"].as_u64().unwrap(),
            s["p99_pause_ns"].as_u64().unwrap(),
            s["max_pause_ns"].as_u64().unwrap(),
        );
        assert!(0 < p50 && p50 <= p99 && p99 <= max, "{s}");
        let longest = pauses.iter().map(|p| p["total_ns"].as_u64().unwrap()).max();
        assert_eq!(longest, Some(max));
        assert!(s["max_ttsp_ns"].as_u64().unwrap() <= max);
        assert!(s["hiccup_p99_ns"].as_u64().unwrap() <= s["hiccup_max_ns"].as_u64().unwrap());
        assert!(s["peak_rss_bytes"].as_u64().unwrap() > 0);
        let mode = run["mode"].as_str().unwrap();
        for p in pauses {
            for key in PAUSE_KEYS {
                assert!(p.get(key).is_some(), "pause.{key}: {p}");
            }
            assert!(
                p["phases"].as_object().is_some_and(|m| !m.is_empty()),
                "{p}"
            );
            // A concurrent cycle's marking pauses move nothing ("none").
            let level = p["flip"]["level"].as_str().unwrap();
            let want = if mode == "stw" { auto_level } else { mode }; // auto at 4 MiB
            assert!(level == want || level == "none", "{mode}: {p}");
            assert!(p["flip"]["strategy"].is_string());
        }
        let want = if mode == "stw" { auto_level } else { mode };
        assert!(pauses.iter().any(|p| p["flip"]["level"] == want), "{run}");
        if mode == "stw" {
            assert_eq!(starts, 0, "stw collects inside one pause: {run}");
        } else {
            assert_eq!(fulls, 0, "{mode} marks concurrently: {run}");
        }
        // Every pause is counted under its kind.
        let by_kind = run["by_kind"].as_object().unwrap();
        let counted: u64 = by_kind.values().map(|k| k["count"].as_u64().unwrap()).sum();
        assert_eq!(counted, pauses.len() as u64);
    }
    assert_eq!(runs[0]["workload"], "gcbench");
    assert_eq!(runs[0]["params"]["rounds"], 1);
    assert_eq!(runs[0]["params"]["threads"], 1);
    assert_eq!(runs[3]["repeat"], 1);
    assert_eq!(runs[6]["workload"], "binarytrees");
    assert_eq!(runs[17]["workload"], "churn");
}

#[test]
fn gc_log_and_tracing_go_to_stderr() {
    let out = Command::new(env!("CARGO_BIN_EXE_pausebench"))
        .args(["--workload", "gcbench", "--heap", "4m", "--modes", "auto"])
        .args(["--params", TINY, "--gc-log=gc,phases", "--settle", "0"])
        .env_remove("FLIPGC_LOG")
        .env("RUST_LOG", "flipgc_core=info")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The table is still on stdout, alone.
    assert!(
        stdout.contains("pauses by kind") && !stdout.contains("[gc,"),
        "{stdout}"
    );
    let pauses = stderr
        .lines()
        .filter(|l| l.contains("][gc,pause] GC("))
        .count();
    let phases = stderr
        .lines()
        .filter(|l| l.contains("][gc,phases] GC("))
        .count();
    assert!(pauses >= 3 && phases > pauses, "{stderr}");
    assert!(
        stderr.contains("][gc,cycle] GC(1) cycle reason="),
        "{stderr}"
    );
    assert!(stderr.contains("][gc,summary] pauses kind=all"), "{stderr}");
    assert!(stderr.contains("pause{kind=\"flip\"}"), "{stderr}");
    assert!(stderr.contains("close time.busy="), "{stderr}");
}

#[test]
fn bad_arguments_exit_2_with_a_reason() {
    for (args, why) in [
        (&["--heap", "1x"][..], "unknown unit"),
        (&["--heap", "64m,12"], "between"),
        (&["--modes", "auto,turbo"], "unknown mode \"turbo\""),
        (&["--workload", "specjbb"], "unknown workload"),
        (&["--workload", "toyvm:/no/such.scm"], "/no/such.scm"),
        (&["--params", "gcbench.laps=3"], "no parameter \"laps\""),
        (&["--params", "gcbench.min-depth=30"], "above max-depth"),
        (&["--params", "jvm.heap=1"], "no workload \"jvm\""),
        (&["--modes", "pud", "--heap", "64m"], "pud"),
        (&["--repeat", "0"], "repeat"),
    ] {
        let out = pausebench(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
}

/// The wait for free page reporting: capped at `--settle` seconds, in the JSON, and
/// nothing at all where the guest does not report (or with `--settle 0`).
#[test]
fn settle_waits_for_free_page_reporting_within_its_cap() {
    let reporting =
        std::path::Path::new("/sys/module/page_reporting/parameters/reported_kib").exists();
    for (cap, expect_wait) in [("0", false), ("1", reporting)] {
        let json = temp(&format!("settle{cap}.json"));
        let out = pausebench(&[
            "--workload",
            "gcbench",
            "--heap",
            "4m",
            "--modes",
            "auto",
            "--params",
            TINY,
            "--settle",
            cap,
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        std::fs::remove_file(&json).ok();
        let settle = doc["runs"][0]["settle_ns"].as_u64().unwrap();
        if expect_wait {
            // The count cannot stay still for 3 s within a 1 s cap: the cap ends it.
            assert!((1_000_000_000..2_000_000_000).contains(&settle), "{settle}");
        } else {
            assert!(settle < 100_000_000, "{settle}");
        }
    }
}

/// The class-based VM's workloads run end to end with the built-in rows' keys and
/// the same parameters, and collect.
#[test]
fn the_class_based_vm_workloads_write_the_same_records() {
    let json = temp("jvmlike.json");
    let out = pausebench(&[
        "--workload",
        "binarytrees,jvmlike-gcbench,jvmlike-binarytrees",
        "--heap",
        "4m",
        "--modes",
        "auto,copy",
        "--verify",
        "--params",
        TINY,
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3 * 2);
    let builtin = runs[0].as_object().unwrap();
    for run in runs {
        let keys: Vec<&String> = run.as_object().unwrap().keys().collect();
        assert_eq!(keys, builtin.keys().collect::<Vec<_>>());
        let name = run["workload"].as_str().unwrap();
        assert!(stdout.contains(name), "{stdout}");
        if name == "jvmlike-binarytrees" {
            assert_eq!(
                run["params"], runs[0]["params"],
                "the built-in row's parameters"
            );
        }
        if name == "jvmlike-gcbench" {
            assert_eq!(run["params"]["stretch"], 14);
        }
        assert!(
            !run["pauses"].as_array().unwrap().is_empty(),
            "{name}: no pauses"
        );
    }
}
