//! The three binaries end to end: tiny runs that succeed with their standard
//! output and JSON, and bad options that exit with code 2 and say why.

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("flipgc-stress-{}-{name}.json", std::process::id()))
}

const GCBENCH: &str = env!("CARGO_BIN_EXE_gcbench");
const BINARYTREES: &str = env!("CARGO_BIN_EXE_binarytrees");
const CHURN: &str = env!("CARGO_BIN_EXE_churn");

#[test]
fn gcbench_small_run_and_json() {
    let json = temp("gcbench");
    let o = Command::new(GCBENCH)
        .args([
            "14", "12", "1000", "4", "12", "1", "--heap", "4m", "--flip", "pte", "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("Creating 8 trees of depth 12"), "{out}");
    assert!(out.contains("Long-lived tree (8191 nodes)"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    let n = doc["summary"]["collections"].as_u64().unwrap();
    assert!(n > 0, "{doc}");
    let pauses = doc["pauses"].as_array().unwrap();
    assert!(pauses.len() as u64 >= n, "{doc}");
    assert!(pauses.iter().any(|p| p["flip"]["level"] == "pte"), "{doc}");
    assert_eq!(doc["workload"], "gcbench");
    assert_eq!(doc["result"]["params"]["rounds"], 1);
}

#[test]
fn binarytrees_prints_the_standard_lines() {
    let o = run(
        BINARYTREES,
        &["8", "--heap", "2m", "--threads", "2", "--flip", "copy"],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let want = "stretch tree of depth 9\t check: 1023\n\
                256\t trees of depth 4\t check: 7936\n\
                64\t trees of depth 6\t check: 8128\n\
                16\t trees of depth 8\t check: 8176\n\
                long lived tree of depth 8\t check: 511\n";
    assert!(out.starts_with(want), "{out}");
}

#[test]
fn churn_small_soak() {
    let o = run(CHURN, &["--cycles", "3", "--ops", "2000", "--heap", "2m"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("1 thread(s), 3 cycles, 6000 operations"),
        "{out}"
    );
    assert!(out.contains("model checks passed"), "{out}");
}

#[test]
fn bad_options_exit_2_with_a_reason() {
    for (bin, args, why) in [
        (GCBENCH, &["--heap", "1x"][..], "unknown unit"),
        (GCBENCH, &["--heap", "1k"], "between"),
        (GCBENCH, &["--flip", "fast"], "auto, pud"),
        (GCBENCH, &["18", "sixteen"], "invalid digit"),
        (BINARYTREES, &["--heap", "lots"], "not a number"),
        (BINARYTREES, &["--threads", "x"], "invalid digit"),
        (CHURN, &["--heap", ""], "not a number"),
        (CHURN, &["--cycles", "-3"], "unexpected argument"),
        (CHURN, &["--bogus"], "unexpected argument"),
    ] {
        let o = run(bin, args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{bin} {args:?}: {err}");
        assert!(err.contains(why), "{bin} {args:?}: {err}");
    }
}

#[test]
fn unusable_parameters_exit_1() {
    let o = run(
        GCBENCH,
        &["14", "12", "100", "10", "8", "1", "--heap", "4m"],
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("min-depth 10 is above max-depth 8"), "{err}");
}

/// `--inject server-panic` runs the fault server (SIGBUS mode has none, so the
/// point would never fire): the process must end promptly with the fault
/// server's panic; with `--fault-mode sigbus` it is refused (exit 2).
#[test]
fn churn_server_panic_runs_the_fault_server() {
    let start = std::time::Instant::now();
    let o = run(
        CHURN,
        &[
            "--threads",
            "2",
            "--seconds",
            "30",
            "--inject",
            "server-panic",
        ],
    );
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}\n{err}");
    assert!(err.contains("the fault server"), "{err}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(25),
        "{err}"
    );
    let o = run(
        CHURN,
        &["--inject", "server-panic", "--fault-mode", "sigbus"],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("needs the fault server"), "{err}");
}
