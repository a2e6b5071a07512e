//! Guile 3.0 as the reference Scheme: runs a program under `guile` and returns
//! its output, for the tests that check their expected outputs against it
//! (skipped, with a note, where Guile is not installed).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Whether `guile` is on `PATH` (a note on standard error if not).
pub fn available() -> bool {
    let ok = Command::new("guile")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED the Guile comparison: no guile on PATH (apt-get install guile-3.0)");
    }
    ok
}

/// A fresh scratch directory for test `name` (files the programs write go there).
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toyvm-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Guile's standard output for `src` (standard input empty). Guile writes
/// bytevectors it made as `#vu8(...)`: they are shown as `#u8(...)`, as R7RS
/// and the toy VM write them.
pub fn output(src: &str) -> String {
    output_with_input(src, "")
}

/// As [`output`], with `stdin` as Guile's standard input.
pub fn output_with_input(src: &str, stdin: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = scratch("guile").join(format!("t{}.scm", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, src).unwrap();
    let mut child = Command::new("guile")
        .args(["--no-auto-compile", "-q"])
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = std::io::stdout().flush();
    String::from_utf8(out.stdout)
        .unwrap()
        .replace("#vu8(", "#u8(")
}
