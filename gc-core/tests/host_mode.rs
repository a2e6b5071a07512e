//! The heap's mode on this host, said at construction (`Heap::host_mode`, the GC
//! log's `gc,init` lines), and `HeapConfig::require`, which turns a fallback into
//! an `Err`. The unprivileged case runs this test binary again as user `nobody`
//! (with `setpriv`, when the tests run as root on a host whose
//! `vm.unprivileged_userfaultfd` is 0), where userfaultfd is refused.

use flipgc_core::{FlipMode, GcErrorKind, Heap, HeapConfig, Level, Requirement, TypeRegistry};
use std::process::Command;

const CHILD: &str = "FLIPGC_HOST_MODE_CHILD";

/// The mode agrees with what the heap does, and a requirement the host cannot meet
/// (PUD-level flips of a 64 MiB heap whose spans are not rounded up to a PUD
/// entry, as they are in `Auto` mode) is an `Err` that says why, where the same
/// configuration without it builds a heap.
#[test]
fn the_mode_is_what_the_heap_does_and_unmet_requirements_are_errors() {
    let pmd = || {
        let mut cfg = HeapConfig::new(64 << 20);
        cfg.flip = FlipMode::Level(Level::Pmd);
        cfg
    };
    let heap = Heap::new(pmd(), TypeRegistry::new()).unwrap();
    let mode = heap.host_mode();
    assert_eq!(mode.concurrent_compaction, heap.concurrent_compaction());
    assert_eq!(mode.fault_mode, heap.fault_mode());
    assert_eq!(mode.flip_level, Some(Level::Pmd), "{mode}");
    let mut cfg = pmd();
    cfg.require(Requirement::MinFlipLevel(Level::Pud));
    match Heap::new(cfg, TypeRegistry::new()).map_err(|e| e.into_kind()) {
        Err(GcErrorKind::Unsupported(why)) => {
            assert!(why.contains("PUD level or higher"), "{why}")
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.require(Requirement::ConcurrentCompaction);
    match Heap::new(cfg, TypeRegistry::new()) {
        Ok(h) => assert!(h.concurrent_compaction()),
        Err(e) => {
            assert!(
                !heap.concurrent_compaction(),
                "refused on a capable host: {e}"
            );
            assert!(matches!(e.kind(), GcErrorKind::Unsupported(_)), "{e}");
        }
    }
}

/// What a process without userfaultfd sees: the `gc,init` line naming the mode
/// (compaction inside the pause), a line saying userfaultfd is missing with the
/// kernel's error and the remedy, and an `Err` when concurrent compaction is
/// required. Runs as `nobody` when this process is root; directly when this
/// process already lacks userfaultfd; skipped (with a message) otherwise.
#[test]
fn without_userfaultfd_the_heap_says_why_and_require_fails() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let uffd_here = flipgc_heap::Capabilities::probe().userfaultfd.available();
    if !uffd_here {
        child_checks(&run_self(None));
        return;
    }
    let root = nix_is_root();
    let sysctl = std::fs::read_to_string("/proc/sys/vm/unprivileged_userfaultfd")
        .map(|s| s.trim() == "0")
        .unwrap_or(false);
    let setpriv = Command::new("setpriv").arg("--version").output().is_ok();
    if !(root && sysctl && setpriv) {
        eprintln!(
            "skipped: needs root, setpriv and vm.unprivileged_userfaultfd = 0 to run as an \
             unprivileged user (root {root}, sysctl 0 {sysctl}, setpriv {setpriv})"
        );
        return;
    }
    child_checks(&run_self(Some([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ])));
}

/// Runs this test in a child process (as `nobody` through `setpriv` with `user`)
/// with the GC log on; its stderr, after checking it succeeded.
fn run_self(user: Option<[&str; 3]>) -> String {
    let exe = std::env::current_exe().unwrap();
    let test = "without_userfaultfd_the_heap_says_why_and_require_fails";
    let mut cmd = match user {
        Some(args) => {
            let mut c = Command::new("setpriv");
            c.args(args).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    let out = cmd
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("FLIPGC_LOG", "gc")
        .output()
        .expect("the child runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the child failed: {stderr}");
    eprintln!("child's stderr:\n{stderr}");
    stderr
}

fn child_checks(stderr: &str) {
    let line = |what: &str| {
        stderr
            .lines()
            .find(|l| l.contains("gc,init") && l.contains(what))
            .unwrap_or_else(|| panic!("no gc,init line with {what:?} in:\n{stderr}"))
            .to_string()
    };
    assert!(line("mode ").contains("compaction=in-pause"));
    let missing = line("missing userfaultfd");
    for part in [
        "Operation not permitted",
        "inside the flip pause",
        "vm.unprivileged_userfaultfd=1",
        "/dev/userfaultfd",
    ] {
        assert!(missing.contains(part), "{part:?} not in {missing}");
    }
    assert!(
        stderr.contains("required: Err(\"unsupported on this host: concurrent compaction"),
        "{stderr}"
    );
}

/// The child's side: a heap (logged), then the same configuration requiring
/// concurrent compaction, which must fail.
fn child() {
    let heap = Heap::new(HeapConfig::new(64 << 20), TypeRegistry::new()).unwrap();
    assert!(!heap.concurrent_compaction(), "userfaultfd worked here");
    assert_eq!(heap.host_mode().missing[0].feature, "userfaultfd");
    let mut cfg = HeapConfig::new(64 << 20);
    cfg.require(Requirement::ConcurrentCompaction);
    let r = Heap::new(cfg, TypeRegistry::new())
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert!(r.is_err());
    eprintln!("required: {r:?}");
}

fn nix_is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
