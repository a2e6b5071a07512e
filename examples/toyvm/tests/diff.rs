//! The differential fuzzer's short run for CI (docs/testing.md has the long
//! runs and how to install the reference): programs of the generator's
//! differential mode, from a fixed seed, run on the toy VM and on Guile 3.0;
//! every one must agree. Skipped, with a message saying so, when no Guile 3 is
//! installed. Also checks the comparison itself on fixed programs, so that a
//! run that compares nothing cannot pass.

use flipgc_toyvm::fuzz::diff::{self, Compared, DiffOptions, Outcome, Reference, Status};
use flipgc_toyvm::fuzz::Limits;

/// The fixed seed of the CI run.
const SEED: u64 = 0x64_69_66_66;
/// Programs run.
const CASES: u64 = 2000;

fn guile_or_skip(test: &str) -> Option<std::path::PathBuf> {
    let g = diff::find_guile();
    if g.is_none() {
        eprintln!(
            "{test}: SKIPPED: no Guile 3 found (apt-get install guile-3.0, or set TOYVM_DIFF_GUILE)"
        );
    }
    g
}

#[test]
fn generated_programs_agree_with_guile() {
    let Some(guile) = guile_or_skip("generated_programs_agree_with_guile") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("toyvm-diff-{}", std::process::id()));
    let opts = DiffOptions {
        seed: SEED,
        start: 0,
        cases: CASES,
        jobs: 2,
        limits: Limits::default(),
        guile,
        mismatch_dir: Some(dir.clone()),
        progress: 0,
    };
    let report = diff::run(&opts).expect("the differential run");
    println!("{}", report.summary());
    let lines: Vec<String> = report.mismatches.iter().map(|m| m.summary()).collect();
    assert!(
        report.mismatches.is_empty(),
        "{} of {CASES} programs disagree with Guile (replay one with `toyvm-fuzz --diff guile --replay FILE`):\n{}",
        report.mismatches.len(),
        lines.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.cases, CASES);
    // Most programs got a verdict, and both endings were compared.
    assert!(
        report.agree >= CASES * 9 / 10,
        "only {} of {CASES} programs compared: {}",
        report.agree,
        report.summary()
    );
    assert!(report.both_error >= 100, "{}", report.summary());
    assert!(
        report.agree - report.both_error >= 1000,
        "{}",
        report.summary()
    );
}

fn outcomes(reference: &mut Reference, src: &str) -> (Outcome, Outcome) {
    let toy = diff::run_toy(src.as_bytes(), &Limits::default());
    let r = reference.run(src.as_bytes()).expect("the reference runs");
    (toy, r)
}

#[test]
fn the_comparison_sees_agreement_and_difference() {
    let Some(guile) = guile_or_skip("the_comparison_sees_agreement_and_difference") else {
        return;
    };
    let mut reference = Reference::start(&guile).expect("Guile starts");
    // Agreement, with the normalisations: procedures, floats, errors.
    for src in [
        "(write (list 1 2.5 \"s\" #\\a 'sym car (lambda (x) x) 1e20 1e-7 (vector)))",
        "(display \"before\") (car '())",
        "(write (string->list \"héλ\")) (newline) (write (/ 1.0 3))",
    ] {
        let (toy, r) = outcomes(&mut reference, src);
        assert_eq!(
            diff::compare(&toy, &r),
            Compared::Agree,
            "{src}\n{toy:?}\n{r:?}"
        );
    }
    // Overflow past 64 bits is an error on both sides (the driver's prelude).
    let (toy, r) = outcomes(&mut reference, "(display 1) (* 9223372036854775807 2)");
    assert_eq!((toy.status, r.status), (Status::Error, Status::Error));
    assert_eq!(diff::compare(&toy, &r), Compared::Agree);
    // A different output, or an error on one side only, is a mismatch.
    let (toy, _) = outcomes(&mut reference, "(display 1)");
    let (_, r) = outcomes(&mut reference, "(display 2)");
    assert_eq!(diff::compare(&toy, &r), Compared::Mismatch);
    let (toy, r) = outcomes(&mut reference, "(display 1) (car 5)");
    let ok = Outcome {
        status: Status::Ok,
        ..r.clone()
    };
    assert_eq!(diff::compare(&toy, &ok), Compared::Mismatch);
    // A limit on either side is no verdict.
    let (toy, r) = outcomes(&mut reference, "(let loop ((i 0)) (loop (+ i 1)))");
    assert_eq!(toy.status, Status::Limit);
    assert_eq!(diff::compare(&toy, &r), Compared::Inconclusive);
}

#[test]
fn normalisation_strips_procedure_names_only() {
    assert_eq!(
        diff::normalise("(#<procedure string->list> #<procedure >=> #<procedure ->)"),
        "(#<procedure> #<procedure> #<procedure>)"
    );
    assert_eq!(
        diff::normalise("#<procedure f1>done 1e20"),
        "#<procedure>done 1e20"
    );
    assert_eq!(diff::normalise("1.0e20"), "1.0e20");
}
