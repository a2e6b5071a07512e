//! Finalization (mutator API layer): [`FinalizerQueue`], where the collector hands back objects that
//! became unreachable, for the embedder to finalize (the collector runs no code of
//! the embedder's).
//!
//! Two flavours, both registered per object:
//! - **finalizers with resurrection** ([`Mutator::register_finalizer`], Java's final
//!   references, Scheme's guardians): when the object is found unreachable it is
//!   kept alive, with everything it references, and queued; the embedder takes it
//!   back with [`Mutator::poll_finalized`] (a strong handle) and may keep it. Once
//!   taken, it is an ordinary object: registering it again is how it gets
//!   finalized again.
//! - **cleaners** ([`Mutator::register_cleaner`], Java's phantom references and
//!   `Cleaner`): when the object is found unreachable it is freed, and the token
//!   registered with it is queued ([`FinalizerQueue::poll_token`]).
//!
//! An object is found unreachable only at the end of marking (`collect/refs.rs`):
//! resurrection happens first, and weak references to an object that a finalizer
//! resurrects are not cleared (as with Chez Scheme's guardians and weak pairs).
//! The queues' shared state, which the collector fills, is the collector layer's
//! (`QueueShared` in `collect/refs.rs`).

use crate::collect::refs::{QueueShared, QueueState};
use crate::heap::Heap;
use crate::mutator::{Gc, Mutator};
use crate::roots::Handle;
use parking_lot::Mutex;
use std::sync::Arc;

/// A queue of finalized objects and cleaner tokens (`Send + Sync`, cheap to clone).
/// Make one with [`Heap::finalizer_queue`].
#[derive(Clone)]
pub struct FinalizerQueue {
    pub(crate) shared: Arc<QueueShared>,
}

impl Heap {
    /// A new finalizer queue for this heap.
    pub fn finalizer_queue(&self) -> FinalizerQueue {
        let shared = Arc::new(QueueShared {
            heap_id: self.inner.id,
            state: Mutex::new(QueueState::default()),
        });
        self.inner.queues.lock().push(Arc::downgrade(&shared));
        FinalizerQueue { shared }
    }
}

impl FinalizerQueue {
    /// The next token of an object with a cleaner that was found unreachable.
    pub fn poll_token(&self) -> Option<u64> {
        self.shared.state.lock().tokens.pop_front()
    }

    /// Objects waiting to be polled, and tokens waiting.
    pub fn pending(&self) -> (usize, usize) {
        let st = self.shared.state.lock();
        (st.ready.len(), st.tokens.len())
    }
}

impl std::fmt::Debug for FinalizerQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (ready, tokens) = self.pending();
        write!(f, "FinalizerQueue(ready {ready}, tokens {tokens})")
    }
}

impl Mutator {
    fn own_queue(&self, q: &FinalizerQueue) {
        assert_eq!(
            q.shared.heap_id, self.heap.inner.id,
            "finalizer queue belongs to another heap"
        );
    }

    /// Registers `obj` for finalization in `q`: when a collection finds it
    /// unreachable, it is kept alive and queued (see the module docs). Works on a
    /// heap with a VM object model too: registration and reference processing
    /// look at addresses and mark bits only, never at a header.
    pub fn register_finalizer(&self, obj: Gc<'_>, q: &FinalizerQueue) {
        self.own_queue(q);
        assert!(self.owns(obj.addr), "{obj:?} does not belong to this heap");
        q.shared.state.lock().watched.push(obj.addr as u64);
    }

    /// Registers a cleaner for `obj` in `q`: when a collection finds it unreachable,
    /// it is freed and `token` is queued (on a heap with a VM object model too).
    pub fn register_cleaner(&self, obj: Gc<'_>, token: u64, q: &FinalizerQueue) {
        self.own_queue(q);
        assert!(self.owns(obj.addr), "{obj:?} does not belong to this heap");
        q.shared
            .state
            .lock()
            .cleaners
            .push((obj.addr as u64, token));
    }

    /// The next object `q` finalized, as a handle (it is an ordinary, strongly held
    /// object again), or `None`.
    pub fn poll_finalized(&self, q: &FinalizerQueue) -> Option<Handle> {
        self.own_queue(q);
        let v = q.shared.state.lock().ready.pop_front()?;
        // The queue was a root scanned at the snapshot; the handle table this goes
        // to may have been scanned before it: log it, as the barrier does for a
        // deleted reference, or marking could miss it.
        self.weak_read(v as usize);
        Some(Handle::new(&self.shared, v))
    }
}
