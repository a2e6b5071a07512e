//! The fuzzer's short run for CI (docs/testing.md has the long runs): cases
//! generated from a fixed seed, in process and through the `toyvm` binary; every
//! one must end cleanly (output or an error; no panic, signal, hang or stuck
//! thread); and generated programs (not cut ones) must agree with the model the
//! generator keeps of their hashtables, weak pairs and guardians. Cases that use
//! those run with the heap verifier on.

use flipgc_toyvm::fuzz::{self, Case, Feed, Kind, Limits, Verdict};
use std::collections::BTreeMap;
use std::time::Duration;

/// The fixed seed of the CI run.
const SEED: u64 = 0x70_79_76_6d;
/// Cases run in process.
const CASES: u64 = 2000;
/// Whether `case` uses hashtables, weak or ephemeron pairs, or guardians.
fn uses_weak_features(case: &Case) -> bool {
    let text = String::from_utf8_lossy(&case.bytes);
    ["hashtable", "weak-", "ephemeron", "guardian"]
        .iter()
        .any(|w| text.contains(w))
}

/// Cases run through the binary.
const BINARY_CASES: u64 = 40;

fn describe(index: u64, case: &Case, what: &str) -> String {
    let lines = match case.feed {
        Feed::File => "",
        Feed::Lines => " --lines",
    };
    format!(
        "case {index} (seed {:#x}, {}, fed as {:?}): {what}\n  replay: cargo run -p flipgc-toyvm --bin toyvm-fuzz -- --print {:#x} > case.scm; cargo run -p flipgc-toyvm --bin toyvm-fuzz -- --replay case.scm{lines}",
        case.seed,
        case.kind.name(),
        case.feed,
        case.seed,
    )
}

#[test]
fn generated_cases_end_cleanly_in_process() {
    // The toyvm binary runs programs on the main thread (8 MiB of stack).
    let run = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let limits = Limits::default();
            let verified = Limits {
                verify: true,
                ..Limits::default()
            };
            let mut failures = Vec::new();
            let mut outcomes: BTreeMap<String, u64> = BTreeMap::new();
            let mut modelled = 0;
            for index in 0..CASES {
                let seed = fuzz::case_seed(SEED, index);
                let case = fuzz::generate(seed);
                let uses = uses_weak_features(&case);
                let verdict = fuzz::run_case(&case, if uses { &verified } else { &limits });
                *outcomes.entry(verdict.label()).or_default() += 1;
                if let Verdict::Panic(m) | Verdict::Stuck(m) = &verdict {
                    failures.push(describe(index, &case, m));
                }
                if matches!(case.kind, Kind::Program | Kind::Broken) {
                    if verdict.is_model_mismatch() {
                        failures.push(describe(index, &case, "disagrees with the model"));
                    }
                    if String::from_utf8_lossy(&case.bytes).contains("model mismatch") {
                        modelled += 1;
                    }
                }
            }
            (failures, outcomes, modelled)
        })
        .unwrap();
    let (failures, outcomes, modelled) = run.join().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {CASES} cases did not end cleanly:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        modelled >= 50,
        "only {modelled} cases checked hashtables, weak pairs or guardians against the model"
    );
    // The run reached every way a program ends.
    for label in [
        "ok",
        "syntax error",
        "runtime error",
        "step limit",
        "out of memory",
        "exit",
    ] {
        assert!(
            outcomes.contains_key(label),
            "no case ended with {label}: {outcomes:?}"
        );
    }
}

#[test]
fn generated_cases_end_cleanly_through_the_binary() {
    let toyvm = std::path::Path::new(env!("CARGO_BIN_EXE_toyvm"));
    let dir = std::env::temp_dir().join(format!("toyvm-fuzz-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("case.scm");
    let limits = Limits::default();
    let mut failures = Vec::new();
    for index in 0..BINARY_CASES {
        let seed = fuzz::case_seed(SEED ^ 1, index);
        let case = fuzz::generate(seed);
        std::fs::write(&file, &case.bytes).unwrap();
        let (verdict, stderr) =
            fuzz::run_binary(toyvm, &file, case.feed, &limits, Duration::from_secs(60)).unwrap();
        if !verdict.is_clean(fuzz::may_exit(&case.bytes), &stderr) {
            failures.push(describe(index, &case, &format!("{verdict:?} {stderr}")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
