//! Safepoint polls inside builtins. The interpreter polls at calls
//! (`run.rs`) and an allocation polls on its slow path (an allocation-buffer
//! refill), but a builtin whose loop runs over user data without allocating (a
//! list walk, a vector fill or copy) did neither until it returned: `length` of
//! 3 million pairs, or `make-vector` of 2 million elements, kept a stop waiting
//! for it for 17-20 ms. Such loops look at the collector's request every
//! [`POLL_STEPS`] elements (one relaxed load) and park when asked, with every
//! heap reference they go on using kept on the root stack and read back after.
//! The loops themselves are in `mod.rs` (`list_shape`, `push_list_elements`)
//! and `builtins/list.rs` (`fill`, `vector`, `vector->list`).

use super::Vm;

/// Elements a builtin's loop handles between two looks at the collector's
/// request to stop. A look is one relaxed load; 1,024 elements take a few
/// microseconds, so the wait a stop sees from such a loop stays far below the
/// pause itself.
pub const POLL_STEPS: usize = 1024;

impl Vm {
    /// A builtin's safepoint poll: parks here if the collector has asked for a
    /// stop; whether it did. Objects may have moved then, so the caller must
    /// hold every heap reference it goes on using on the root stack, and read
    /// it back from there after the call.
    #[inline]
    pub(crate) fn poll_in_builtin(&mut self) -> bool {
        if !self.m.safepoint_requested() {
            return false;
        }
        self.m.safepoint();
        true
    }
}

#[cfg(test)]
mod tests {
    //! A stop requested while a builtin runs is served inside it: another thread
    //! asks for a collection, whose mark-start pause the GC driver runs; this
    //! thread waits (touching nothing) until the request is up, then calls the
    //! builtin. That pause can only happen once this thread parks, and it is in
    //! the pause log before the thread resumes, so finding it there when the
    //! builtin returns proves the builtin parked. Without the polls the builtin
    //! returns first, with the pause not taken (no timing involved).
    use crate::builtins::BUILTINS;
    use crate::shared::Shared;
    use crate::vm::Vm;
    use crate::{register_types, VmError};
    use flipgc_core::{Heap, HeapConfig, TypeRegistry};

    /// Elements of the list or vector each builtin runs over: many polls' worth.
    const N: usize = 64 * super::POLL_STEPS;

    fn builtin(name: &str) -> fn(&mut Vm, usize, usize) -> Result<(), VmError> {
        BUILTINS
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("no builtin {name}"))
            .f
    }

    /// Sets up a VM, pushes its arguments (`setup`, before the stop is asked
    /// for: it may allocate), asks for a collection from another thread, waits
    /// for the request, calls builtin `name` on the `argc` values on top, and
    /// returns whether the collection's mark-start pause had happened by its
    /// return.
    fn parks_inside(name: &str, argc: usize, setup: impl FnOnce(&mut Vm)) -> bool {
        let mut registry = TypeRegistry::new();
        let types = register_types(&mut registry).expect("types");
        let heap = Heap::new(HeapConfig::new(256 << 20), registry).expect("heap");
        let mut vm = Vm::new(Shared::new(&heap, &types, Box::new(std::io::sink()))).expect("vm");
        setup(&mut vm);
        let base = vm.m.stack_len() - argc;
        let before = heap.pause_log().pause_stats().count();
        let other = heap.clone();
        let asker = std::thread::spawn(move || {
            let mut m = other.bind_mutator().expect("mutator");
            m.collect();
        });
        // No GC point here: the stop waits for this thread.
        while !vm.m.safepoint_requested() {
            std::hint::spin_loop();
        }
        (builtin(name))(&mut vm, base, argc).expect("the builtin");
        let parked = heap.pause_log().pause_stats().count() > before;
        vm.m.blocking(|| asker.join()).expect("the asking thread");
        parked
    }

    /// Pushes a list of `N` fixnums.
    fn push_long_list(vm: &mut Vm) {
        let mark = vm.m.stack_len();
        for i in 0..N {
            vm.push_int(i as i64).unwrap();
        }
        vm.push_list(mark, mark + N).unwrap();
        vm.collapse(N);
    }

    /// Pushes a vector of `N` elements.
    fn push_long_vector(vm: &mut Vm) {
        vm.m.alloc_push(vm.t.vector, N).unwrap();
    }

    #[test]
    fn length_parks_when_asked() {
        assert!(parks_inside("length", 1, push_long_list));
    }

    #[test]
    fn vector_fill_parks_when_asked() {
        assert!(parks_inside("vector-fill!", 2, |vm| {
            push_long_vector(vm);
            vm.push_int(7).unwrap();
        }));
    }

    /// The walk that `append`, `apply` and `list->vector` push a list's
    /// elements with (each of them walks the list with `length`'s walk first,
    /// which would park before it), called by itself.
    #[test]
    fn pushing_a_lists_elements_parks_when_asked() {
        let mut registry = TypeRegistry::new();
        let types = register_types(&mut registry).expect("types");
        let heap = Heap::new(HeapConfig::new(256 << 20), registry).expect("heap");
        let mut vm = Vm::new(Shared::new(&heap, &types, Box::new(std::io::sink()))).expect("vm");
        push_long_list(&mut vm);
        let list = vm.top();
        let before = heap.pause_log().pause_stats().count();
        let other = heap.clone();
        let asker = std::thread::spawn(move || other.bind_mutator().expect("mutator").collect());
        while !vm.m.safepoint_requested() {
            std::hint::spin_loop();
        }
        assert_eq!(vm.push_list_elements(list), N);
        assert!(heap.pause_log().pause_stats().count() > before);
        // The elements came through the stop in order.
        assert_eq!(vm.val(vm.top()).as_fixnum(), Some(N as i64 - 1));
        vm.m.blocking(|| asker.join()).expect("the asking thread");
    }
}
