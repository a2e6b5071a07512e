//! Runs every program in `programs/` with the heap verifier on, under the flip
//! modes auto, pte and copy, in a small heap (so each run collects several
//! times), and compares the output with `NAME.out` exactly. A program may end
//! with `(exit)` (status 0). Auto and pte run twice: with concurrent compaction's
//! faults served in SIGBUS mode (the default where the kernel has it), and by the
//! fault server.
//! `bigheap` needs more than such a heap holds: it runs alone, on a growable
//! heap (as `toyvm` without `--heap`).

mod common;

const HEAP: usize = 8 << 20;

/// The source and expected output of program `name`.
fn program(name: &str) -> (String, String) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let src = std::fs::read_to_string(dir.join(format!("{name}.scm"))).unwrap();
    let expected = std::fs::read_to_string(dir.join(format!("{name}.out"))).unwrap();
    (src, expected)
}

fn check(name: &str, flip: &str, fault: &str) {
    let (src, expected) = program(name);
    let o = common::run_in(&src, HEAP, flip, fault, true);
    match &o.result {
        // A program may end with (exit): status 0 is success.
        Ok(()) => {}
        Err(e) if e.kind == flipgc_toyvm::ErrorKind::Exit(0) => {}
        Err(e) => panic!(
            "{name} under {flip} ({fault} faults): {e}\noutput so far:\n{}",
            o.output
        ),
    }
    assert_eq!(o.output, expected, "{name} under {flip} ({fault} faults)");
    assert!(
        o.pauses >= 2,
        "{name} under {flip} collected only {} times: too little allocation to test the collector",
        o.pauses
    );
}

macro_rules! program_tests {
    ($($test:ident => $name:literal;)*) => {$(
        #[test]
        fn $test() {
            for (flip, fault) in [
                ("auto", "auto"),
                ("auto", "server"),
                ("pte", "auto"),
                ("pte", "server"),
                ("copy", "auto"),
            ] {
                check($name, flip, fault);
            }
        }
    )*};
}

program_tests! {
    binary_trees => "binary-trees";
    gcbench => "gcbench";
    closures => "closures";
    strings => "strings";
    threads => "threads";
    r7rs => "r7rs";
    guardians => "guardians";
    hashtables => "hashtables";
    weak => "weak";
    ephemerons => "ephemerons";
}

/// `bigheap` keeps a list of 3 million integers live (3 million pairs of 32
/// bytes holding fixnums: about 92 MiB, far above the old fixed 64 MiB default): on a growable heap with a 512 MiB maximum it
/// runs unchanged, the heap growing to hold it.
#[test]
fn bigheap_on_a_growable_heap() {
    let (src, expected) = program("bigheap");
    let o = common::run_config(&src, flipgc_toyvm::default_heap_config(Some(512 << 20)));
    if let Err(e) = &o.result {
        panic!("bigheap: {e}\noutput so far:\n{}", o.output);
    }
    assert_eq!(o.output, expected, "bigheap");
    assert!(o.pauses >= 2, "bigheap collected only {} times", o.pauses);
    assert!(
        o.peak_live > 90 << 20,
        "bigheap's live data peaked at {} bytes: the 3-million-element list was not live",
        o.peak_live
    );
}
