//! Builds `examples/c/bintrees.c` with the system C compiler against the checked-in
//! header and this crate's static library, and runs it on every flip path and in
//! both fault modes: four threads build and check binary trees (immediates in the
//! leaves) through the C API while collections run, and the heap is verified.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding `libflipgc_capi.a`, built for this test from the
/// current sources. `cargo test` builds only the rlib of the crate under test,
/// so the static library is built here, by a nested cargo in a target directory
/// of its own (the outer cargo holds the lock on the main one while tests run):
/// `target/capi-c/debug`. Fresh after the first run (cargo skips what is built).
fn lib_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            // target/<profile>/deps/<test> -> target
            let target = exe.ancestors().nth(3).unwrap().to_path_buf();
            let dir = target.join("capi-c");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let st = Command::new(cargo)
                .args(["build", "--quiet", "--locked", "-p", "flipgc-capi", "--lib"])
                .arg("--target-dir")
                .arg(&dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("cannot run cargo to build the static library");
            assert!(st.success(), "building flipgc-capi's static library failed");
            dir.join("debug")
        })
        .clone()
}

/// The example, compiled once for all the tests of this binary.
fn build() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(compile).clone()
}

fn compile() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    cc(&root.join("examples/c/bintrees.c"), "bintrees-c")
}

/// Compiles the C program `src` against the header and the static library into
/// `lib_dir()/out`, warnings as errors.
fn cc(src: &Path, out: &str) -> PathBuf {
    let lib = lib_dir().join("libflipgc_capi.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    let out = lib_dir().join(out);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("include"))
        .arg(src)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-o"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
    assert!(status.success(), "compiling {} failed", src.display());
    out
}

/// Runs the C test program `bin` once per collection path (the arguments are
/// `flipgc_config_set` pairs), plus the `extra` argument lists, and checks that
/// each run succeeds and prints a line starting with `prefix`. The SIGBUS fault
/// mode is skipped where the kernel lacks it.
fn run_on_every_path(bin: &Path, extra: &[&[&str]], prefix: &str) {
    let paths: &[&[&str]] = &[
        &["flip=auto"],
        &["flip=pmd"],
        &["flip=pte"],
        &["flip=copy"],
        &["concurrent_compaction=false"],
        &["concurrent_marking=false"],
        &["inject=uffd-register"],
        &["young_cycles=true"],
        &["fault_mode=sigbus"],
        &["fault_mode=server"],
    ];
    for args in paths.iter().chain(extra) {
        let out = Command::new(bin).args(*args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if args == &["fault_mode=sigbus"] && stderr.contains("SIGBUS") && !out.status.success() {
            eprintln!("{args:?}: skipped (no SIGBUS mode here): {stderr}");
            continue;
        }
        assert!(
            out.status.success() && stdout.starts_with(prefix),
            "{args:?}: {}\nstdout: {stdout}\nstderr: {stderr}",
            out.status
        );
    }
}

/// Checks the run of a C program that misuses the API: it failed, its stderr
/// holds every one of `needles` (the abort's message naming the call), and it
/// printed nothing of what follows the misuse ("after").
fn assert_misuse_aborted(out: &std::process::Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the misuse went unnoticed");
    assert!(needles.iter().all(|n| stderr.contains(n)), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("after"),
        "C code ran past the misuse"
    );
}

#[test]
fn the_c_example_builds_and_its_graph_check_passes_on_every_path() {
    let exe = build();
    let paths: &[&[&str]] = &[
        &["flip=auto"],
        &["flip=pmd"],
        &["flip=pte"],
        &["flip=copy"],
        &["concurrent_compaction=false"],
        &["concurrent_marking=false"],
        &["inject=uffd-register"],
        &["inject=flip-mremap"],
        &["fault_mode=sigbus"],
        &["fault_mode=server"],
    ];
    for args in paths {
        let out = Command::new(&exe).args(*args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if args == &["fault_mode=sigbus"] && stderr.contains("SIGBUS") && !out.status.success() {
            eprintln!("{args:?}: skipped (no SIGBUS mode here): {stderr}");
            continue;
        }
        assert!(
            out.status.success() && stdout.starts_with("ok threads=4"),
            "{args:?}: {}\nstdout: {stdout}\nstderr: {stderr}",
            out.status
        );
        // Four long-lived trees of depth 12.
        assert!(stdout.contains("nodes=32764 "), "{args:?}: {stdout}");
        eprintln!("{args:?}: {}", stdout.trim());
    }
}

#[test]
fn a_bad_option_is_an_error_with_its_reason() {
    let exe = build();
    let out = Command::new(&exe).arg("flip=sideways").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("flip mode \"sideways\" is not one of"),
        "{stderr}"
    );
    let out = Command::new(&exe)
        .arg("gc_thread_priority=fifo:0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("must be between 1 and 99"), "{stderr}");
    // A value that needs no privilege runs.
    let out = Command::new(&exe)
        .arg("gc_thread_priority=nice:3")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_misuse_aborts_with_a_message_instead_of_unwinding_into_c() {
    let exe = build();
    let out = Command::new(&exe).arg("gc_workers=0").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad count is an error, not an abort"
    );
    // A slot out of range panics in Rust: the boundary aborts with the call's name.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/misuse.c");
    let bin = cc(&src, "misuse-c");
    let out = Command::new(&bin).output().unwrap();
    assert_misuse_aborted(
        &out,
        &[
            "flipgc: flipgc_read_word: stack slot 7 is out of range",
            "aborting",
        ],
    );
}

/// docs/embedding.md's C example (its one ```c block), compiled and run: the
/// guide's C code is the API as it is.
#[test]
fn the_guides_c_example_compiles_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let guide = std::fs::read_to_string(root.join("docs/embedding.md")).unwrap();
    let start = guide
        .find("```c\n")
        .expect("a C example in docs/embedding.md")
        + 5;
    let code = &guide[start..start + guide[start..].find("```").unwrap()];
    let src = lib_dir().join("guide-example.c");
    std::fs::write(&src, code).unwrap();
    let bin = cc(&src, "guide-example");
    let out = Command::new(&bin).output().unwrap();
    assert!(
        out.status.success(),
        "the guide's C example failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// capi/tests/jit.c: compare-and-swap, swap and `copy_refs` through the C API,
/// and a generated store and poll by their documented protocols.
#[test]
fn the_atomic_operations_and_generated_code_protocol_work_from_c() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jit.c");
    let bin = cc(&src, "jit-c");
    let out = Command::new(&bin).output().unwrap();
    assert!(
        out.status.success() && out.stdout.starts_with(b"ok"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// capi/tests/tailed.c: tailed types registered, allocated and walked through
/// the C API (tail accessors, fields by index, the atomic operations on tail
/// elements) on every flip path and in both fault modes, with a checksum of the
/// graph before and after collections and the heap verified; and a tail index
/// out of range aborting with the call's name.
#[test]
fn tailed_objects_work_from_c_on_every_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tailed.c");
    let bin = cc(&src, "tailed-c");
    run_on_every_path(&bin, &[], "ok closures=");
    let out = Command::new(&bin).arg("misuse").output().unwrap();
    assert_misuse_aborted(
        &out,
        &["flipgc: flipgc_get_tail: tail element 4 out of range"],
    );
}

/// capi/tests/model.c: a heap whose object layout the C program owns (a table
/// of C functions, `flipgc_model`): records, pairs, arrays with a length word
/// and byte buffers, with immediates in reference slots and one array in the
/// large-object space, allocated and walked by word index on every flip path
/// and in both fault modes, with the model's scan function and without it; a
/// checksum of the graph before and after collections, and the heap verified;
/// a raw word written into a reference slot aborting with the call's name.
#[test]
fn a_c_object_model_works_on_every_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model.c");
    let bin = cc(&src, "model-c");
    run_on_every_path(&bin, &[&["flip=auto", "noscan"]], "ok records=120 ");
    let out = Command::new(&bin).arg("misuse").output().unwrap();
    assert_misuse_aborted(
        &out,
        &[
            "flipgc: flipgc_write_slot_word: write_slot_word: word 1 of",
            "is a reference slot",
            "aborting",
        ],
    );
}

/// capi/tests/runtime.c: types registered on a live heap while two other
/// threads allocate and collect (each object of a late type checked after
/// collections), ephemerons whose values refer to their keys (freed with their
/// keys; kept with them) for a type registered before the heap and one
/// registered on it, and a pinned buffer keeping its address and bytes; on
/// every flip path and in both fault modes.
#[test]
fn late_types_ephemerons_and_pinned_objects_work_from_c_on_every_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime.c");
    let bin = cc(&src, "runtime-c");
    run_on_every_path(&bin, &[], "ok types=40 ephemerons=8000");
}
