//! Runs the flipbench binary end to end: a small run whose JSON must have the
//! agreed shape and levels, and bad arguments that must exit with code 2 and say why.

use std::path::PathBuf;
use std::process::Command;

fn flipbench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flipbench"))
}

fn temp_json(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("flipbench-{}-{name}.json", std::process::id()))
}

#[test]
fn small_run_writes_the_agreed_json() {
    let path = temp_json("small");
    let out = flipbench()
        .args([
            "--sizes",
            "64m",
            "--modes",
            "pmd,pte,copy",
            "--iterations",
            "2",
        ])
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("ratio to PUD"), "{stdout}");

    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(doc["caps"]["geometry"]["page"].is_u64(), "{doc}");
    assert!(doc["caps"]["kernel"].is_string(), "{doc}");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{doc}");
    for (run, mode) in runs.iter().zip(["pmd", "pte", "copy"]) {
        for key in flipgc_bench::output::RUN_KEYS {
            assert!(run.get(key).is_some(), "missing {key}: {run}");
        }
        assert_eq!(run["size_bytes"], 64u64 << 20);
        assert_eq!(run["backing"], "4k");
        assert_eq!(run["mode"], mode);
        assert_eq!(run["level_used"], mode, "{run}");
        let samples = run["samples_ns"].as_array().unwrap();
        assert_eq!(samples.len(), 2);
        assert!(samples.iter().all(|s| s.as_u64().is_some_and(|n| n > 0)));
        let (a, b) = (samples[0].as_u64().unwrap(), samples[1].as_u64().unwrap());
        assert_eq!(run["median_ns"].as_u64().unwrap(), (a + b).div_ceil(2));
        // No pud run was asked for, so there is nothing to compare with.
        assert!(run["ratio_to_pud"].is_null(), "{run}");
    }
}

#[test]
fn bad_values_exit_2_with_a_reason() {
    for (args, reason) in [
        (&["--sizes", "3m"][..], "multiple of 2 MiB"),
        (&["--sizes", "0"], "positive"),
        (
            &["--modes", "pte,pgd"],
            "possible values: pte, pmd, pud, copy",
        ),
        (&["--iterations", "0"], "at least 1"),
        (&["--backing", "huge"], "possible values: 4k, thp, both"),
    ] {
        let out = flipbench().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    }
}
