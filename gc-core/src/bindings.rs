//! Which threads hold mutators of which heaps, process-wide, and the rule that
//! keeps stops of different heaps from waiting for each other.
//!
//! A thread stopped in one heap's pause is not stopped in the others it holds
//! mutators of: it is `Running` there, and their stops wait for it. Two threads
//! that both hold mutators of heaps A and B can therefore deadlock: T1 parks in
//! A's pause while T2 parks in B's, A's stop waits for T2 and B's for T1, for ever.
//! The same holds for any cycle of threads and heaps (T1 on A and B, T2 on B and
//! C, T3 on C and A). So [`bind`] refuses a binding that would close a cycle in
//! the graph whose edges join each thread to each heap it holds a mutator of; the
//! graph stays a forest, and every chain of stops waiting for each other ends at a
//! stop that waits for no other heap's thread. One thread on several heaps, and
//! any number of threads on one heap, remain allowed.

use crate::error::GcError;
use std::sync::Mutex;
use std::thread::ThreadId;

/// Every (thread, heap id) with a mutator bound.
static BINDINGS: Mutex<Vec<(ThreadId, u64)>> = Mutex::new(Vec::new());

/// Records that `thread` binds a mutator of heap `heap`, or refuses: a second
/// mutator of the same heap on one thread, or a binding that would close a
/// cycle of threads and heaps (see the module's text).
pub(crate) fn bind(thread: ThreadId, heap: u64) -> Result<(), GcError> {
    let mut all = BINDINGS.lock().unwrap_or_else(|e| e.into_inner());
    if all.contains(&(thread, heap)) {
        return Err(GcError::config(
            "this thread already has a mutator for this heap".into(),
        ));
    }
    if let Some(path) = path_between(&all, thread, heap) {
        return Err(GcError::config(format!(
            "binding a mutator of heap {heap} on this thread would let two heaps' \
             stop-the-world pauses wait for each other for ever: this thread already \
             reaches heap {heap} through heaps {path:?} and other threads holding \
             mutators of them. A thread stopped in one heap's pause still counts as \
             running in the others it holds mutators of, so no two threads may both \
             hold mutators of the same two heaps (nor any longer cycle of threads and \
             heaps). Drop this thread's other mutators first, or bind each thread to \
             one heap"
        )));
    }
    all.push((thread, heap));
    Ok(())
}

/// Forgets `thread`'s mutator of heap `heap` (when the mutator drops).
pub(crate) fn unbind(thread: ThreadId, heap: u64) {
    let mut all = BINDINGS.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|&b| b != (thread, heap));
}

/// If `thread` and `heap` are already joined by a path of bindings, the heaps
/// along it (from `thread`'s side); `None` if they are not.
fn path_between(all: &[(ThreadId, u64)], thread: ThreadId, heap: u64) -> Option<Vec<u64>> {
    // Breadth-first over heaps, starting from the heaps `thread` holds; each heap
    // remembers the heap it was reached from.
    let mut reached: Vec<(u64, Option<u64>)> = all
        .iter()
        .filter(|b| b.0 == thread)
        .map(|b| (b.1, None))
        .collect();
    let mut threads_seen = vec![thread];
    let mut next = 0;
    while next < reached.len() {
        let (h, _) = reached[next];
        next += 1;
        if h == heap {
            let mut path = vec![h];
            let mut at = h;
            while let Some(&(_, Some(from))) = reached.iter().find(|r| r.0 == at) {
                path.push(from);
                at = from;
            }
            path.reverse();
            return Some(path);
        }
        for &(t, _) in all.iter().filter(|b| b.1 == h) {
            if threads_seen.contains(&t) {
                continue;
            }
            threads_seen.push(t);
            for &(_, h2) in all.iter().filter(|b| b.0 == t) {
                if !reached.iter().any(|r| r.0 == h2) {
                    reached.push((h2, Some(h)));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threads(n: usize) -> Vec<ThreadId> {
        (0..n)
            .map(|_| {
                std::thread::spawn(|| std::thread::current().id())
                    .join()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn cycles_of_threads_and_heaps_are_found() {
        let t = threads(3);
        // T0 on heaps 1 and 2, T1 on heap 1: a tree.
        let all = vec![(t[0], 1), (t[0], 2), (t[1], 1)];
        assert_eq!(path_between(&all, t[1], 2), Some(vec![1, 2]));
        assert_eq!(path_between(&all, t[1], 3), None);
        assert_eq!(path_between(&all, t[2], 1), None);
        // T0 on 1 and 2, T1 on 2 and 3: T2 on 3 and then 1 closes a cycle.
        let all = vec![(t[0], 1), (t[0], 2), (t[1], 2), (t[1], 3), (t[2], 3)];
        assert_eq!(path_between(&all, t[2], 1), Some(vec![3, 2, 1]));
        assert_eq!(path_between(&all, t[2], 4), None);
    }
}
