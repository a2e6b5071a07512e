//! A deadlock guard shared by integration tests: runs a test body on its own
//! thread and fails the test, instead of hanging it, if the body never returns.

use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on its own thread and fails with "deadlock suspected" if it has not
/// finished after 60 s.
pub fn with_timeout(name: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let runner = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .unwrap();
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => runner.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = runner.join() {
                std::panic::resume_unwind(p);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("deadlock suspected: {name}"),
    }
}
