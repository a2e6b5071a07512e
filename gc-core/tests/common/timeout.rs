//! A deadlock guard shared by integration tests: runs a test body on its own
//! thread and fails the test, instead of hanging it, if the body never returns.

use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on its own thread; fails with "deadlock suspected" if it has not
/// finished after 60 s, and with `f`'s own panic if it panicked.
#[allow(dead_code)] // not every test file that includes this module calls both
pub fn with_timeout(name: &str, f: impl FnOnce() + Send + 'static) {
    with_timeout_report(name, f, String::new);
}

/// [`with_timeout`], adding `report()` (the body's progress, say) to the failure
/// message of a suspected deadlock.
pub fn with_timeout_report(
    name: &str,
    f: impl FnOnce() + Send + 'static,
    report: impl Fn() -> String,
) {
    let (tx, rx) = mpsc::channel();
    let runner = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .expect("spawning the body");
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => runner.join().expect("body finished"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: report its panic.
            if let Err(p) = runner.join() {
                std::panic::resume_unwind(p);
            }
            unreachable!("the body dropped its sender without finishing");
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!(
                "deadlock suspected: {name} not done after 60 s; {}",
                report()
            )
        }
    }
}
