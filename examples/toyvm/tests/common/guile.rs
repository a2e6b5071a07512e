//! Guile 3 as the reference Scheme: whether it is installed, and a program's
//! output under it.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `guile` if it is on the `PATH` (the caller skips the comparison otherwise,
/// and this says so on stderr).
pub fn guile() -> Option<&'static str> {
    let ok = Command::new("guile")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED the Guile comparison: no guile on PATH (apt-get install guile-3.0)");
    }
    ok.then_some("guile")
}

/// What `src`, run as a file by Guile (`guile --no-auto-compile -q FILE`),
/// prints on its standard output.
pub fn guile_output(guile: &str, src: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("toyvm-guile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("t{}.scm", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, src).unwrap();
    let out = Command::new(guile)
        .args(["--no-auto-compile", "-q"])
        .arg(&path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    String::from_utf8(out.stdout).unwrap()
}
