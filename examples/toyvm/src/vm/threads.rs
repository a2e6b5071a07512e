//! `(spawn thunk)` and `(join t)`: each spawned thread binds its own mutator and
//! runs its own [`Vm`]; the thunk and the result cross threads as
//! [`flipgc_core::Global`]s. Joining waits inside `Mutator::blocking` so other
//! threads' collections never wait for a joiner.

use super::Vm;
use crate::error::{ErrorKind, VmError};
use crate::shared::{lock, Shared, ThreadSlot};
use flipgc_core::Global;
use std::sync::Arc;

/// Host stack size of spawned threads.
const THREAD_STACK: usize = 16 << 20;

/// Runs `thunk` on a fresh VM on the calling (new) thread, spawned thread `id`.
fn thread_main(shared: Arc<Shared>, thunk: Global, id: usize) -> Result<Option<Global>, VmError> {
    let mut vm = Vm::new(shared)?;
    vm.thread = Some(id);
    let g = vm.m.get_global(&thunk);
    vm.m.push(Some(g));
    drop(thunk);
    let r = vm.call(0);
    vm.flush();
    r?;
    // A Global holds any value: null (the empty list), an immediate or an object.
    Ok(Some(vm.m.global_value(vm.val(vm.top()))))
}

/// `spawn`.
pub fn spawn(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    if !vm.is_procedure(base) {
        return Err(vm.type_error("spawn", "a procedure", base));
    }
    let thunk = vm.m.global(vm.obj(base).expect("checked"));
    let shared = Arc::clone(&vm.shared);
    let child_shared = Arc::clone(&shared);
    let id = {
        // Held while the thread starts, so that its index is its slot's (the
        // new thread waits for this lock if it joins at once; not a GC point).
        let mut threads = lock(&shared.threads);
        let id = threads.len();
        let handle = std::thread::Builder::new()
            .name("toyvm-thread".into())
            .stack_size(THREAD_STACK)
            .spawn(move || thread_main(child_shared, thunk, id))
            .map_err(|e| VmError::new(ErrorKind::Host, format!("spawn: {e}")))?;
        threads.push(ThreadSlot::Running(handle));
        id
    };
    vm.push_word(vm.t.alloc.thread, vm.t.thread_index, id as u64)
}

/// `join`: waits for the thread and returns its value (again on later joins).
/// A join that would wait for ever (a thread joining itself, or closing a
/// cycle of threads joining each other) is an error instead.
pub fn join(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let t = vm.expect(base, vm.t.thread, "a thread", "join")?;
    let id = vm.m.get_word(t, vm.t.thread_index) as usize;
    let Some(me) = vm.thread else {
        // Nothing can wait for the main thread: no cycle is possible.
        return join_thread(vm, id);
    };
    {
        let mut waiting = lock(&vm.shared.waiting);
        let mut t = id;
        loop {
            if t == me {
                return Err(VmError::runtime(if id == me {
                    "join: a thread cannot join itself".to_string()
                } else {
                    format!(
                        "join: deadlock (thread {id} is waiting, directly or not, for this thread)"
                    )
                }));
            }
            match waiting.get(&t) {
                Some(&next) => t = next,
                None => break,
            }
        }
        waiting.insert(me, id);
    }
    let r = join_thread(vm, id);
    lock(&vm.shared.waiting).remove(&me);
    r
}

/// Waits for spawned thread `id` and pushes its value. The first joiner joins
/// the host thread; joiners that come while it waits wait for its result.
fn join_thread(vm: &mut Vm, id: usize) -> Result<(), VmError> {
    let shared = Arc::clone(&vm.shared);
    let taken = {
        let mut threads = lock(&shared.threads);
        match &mut threads[id] {
            slot @ ThreadSlot::Running(_) => Some(std::mem::replace(slot, ThreadSlot::Joining)),
            _ => None,
        }
    };
    let result = match taken {
        Some(ThreadSlot::Running(h)) => {
            let joined = vm.m.blocking(move || h.join());
            let r = match joined {
                Ok(r) => r.map(|g| g.map(Arc::new)),
                Err(_) => Err(VmError::runtime("join: the thread panicked")),
            };
            lock(&shared.threads)[id] = ThreadSlot::Done(r.clone());
            shared.joined.notify_all();
            r
        }
        _ => {
            // Joined already, or being joined by another thread: its result, once
            // that join ends (waiting counted as stopped, so collections go on).
            let s = Arc::clone(&shared);
            vm.m.blocking(move || {
                let mut threads = lock(&s.threads);
                loop {
                    if let ThreadSlot::Done(r) = &threads[id] {
                        return r.clone();
                    }
                    threads = s.joined.wait(threads).unwrap_or_else(|e| e.into_inner());
                }
            })
        }
    };
    match result {
        Ok(Some(g)) => {
            let v = vm.m.get_global_value(&g);
            vm.m.push_value(v);
            Ok(())
        }
        Ok(None) => {
            vm.m.push(None);
            Ok(())
        }
        Err(e) => Err(VmError::new(
            e.kind,
            format!("in spawned thread: {}", e.message),
        )),
    }
}
