//! churn's host-side model: the same graph as plain Rust data ([`Model`]), its
//! canonical checksum, and the mixing both sides use.
//!
//! The checksum is a preorder depth-first walk from the slots in order, children in
//! field order: a new object mixes its kind, id and length; an object seen before
//! mixes its visit number; a null mixes a marker. Equal checksums mean equal
//! graphs up to object addresses (with overwhelming probability).

/// Kind of a node.
pub const NODE: u8 = 0;
/// Kind of a reference array.
pub const VEC: u8 = 1;
/// Kind of a byte array.
pub const BLOB: u8 = 2;

/// FNV-1a's offset basis, the checksum's start.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;
/// Mixed for a null reference.
pub const NULL_MARK: u64 = 7;
/// Added to a visit number for an object seen before.
pub const SEEN_MARK: u64 = 1 << 48;

/// Mixes `v` into `h` (FNV-style).
#[inline]
pub fn mix(h: &mut u64, v: u64) {
    *h = (*h ^ v).wrapping_mul(0x100_0000_01b3);
}

/// Mixes a newly visited object.
pub fn mix_object(h: &mut u64, kind: u8, id: u64, len: usize) {
    mix(h, u64::from(kind));
    mix(h, id);
    mix(h, len as u64);
}

/// Byte `i` of the blob with `id` (bytes 0..8 hold the id itself).
pub fn blob_byte(id: u64, i: usize) -> u8 {
    (id as usize).wrapping_mul(31).wrapping_add(i * 7) as u8
}

/// A model object.
#[derive(Clone, Debug)]
pub struct MObj {
    /// [`NODE`], [`VEC`] or [`BLOB`].
    pub kind: u8,
    /// Id (nodes and blobs; 0 for arrays).
    pub id: u64,
    /// Length as the heap reports it: 0 for nodes, elements or bytes for arrays.
    pub len: usize,
    /// Reference fields (model indices).
    pub refs: Vec<Option<usize>>,
    /// The identity hash the heap gave this object, once asked for.
    pub hash: Option<u64>,
}

/// One thread's graph: objects and root slots (indices into `objs`), and the
/// objects registered for finalization, with cleaners, or with weak handles.
#[derive(Clone, Debug)]
pub struct Model {
    /// All objects created since the last [`Model::compact`].
    pub objs: Vec<MObj>,
    /// The root slots.
    pub roots: Vec<Option<usize>>,
    /// Objects registered for finalization, not yet returned: kept by the model's
    /// compaction (with everything they reference), as the collector resurrects
    /// them.
    pub finalizable: Vec<usize>,
    /// Weak handles' referents (parallel to the thread's handles): `None` once the
    /// model dropped the object (it was unreachable at a model compaction).
    pub weak: Vec<Option<usize>>,
    /// Objects with a cleaner and their tokens: `None` once dropped (as `weak`).
    pub cleaners: Vec<(Option<usize>, u64)>,
}

impl Model {
    /// An empty graph with `slots` empty root slots.
    pub fn new(slots: usize) -> Model {
        Model {
            objs: Vec::new(),
            roots: vec![None; slots],
            finalizable: Vec::new(),
            weak: Vec::new(),
            cleaners: Vec::new(),
        }
    }

    /// Adds an object with `nrefs` null reference fields; returns its index.
    pub fn add(&mut self, kind: u8, id: u64, len: usize, nrefs: usize) -> usize {
        self.objs.push(MObj {
            kind,
            id,
            len,
            refs: vec![None; nrefs],
            hash: None,
        });
        self.objs.len() - 1
    }

    /// Objects held (all reachable right after [`Model::compact`]).
    pub fn len(&self) -> usize {
        self.objs.len()
    }

    /// Whether the model holds no objects.
    pub fn is_empty(&self) -> bool {
        self.objs.is_empty()
    }

    /// The canonical checksum of the graph reachable from the slots.
    pub fn checksum(&self) -> u64 {
        let mut seen: Vec<Option<u64>> = vec![None; self.objs.len()];
        let mut visits = 0;
        let mut h = FNV_START;
        let mut todo: Vec<Option<usize>> = self.roots.iter().rev().copied().collect();
        while let Some(next) = todo.pop() {
            let Some(i) = next else {
                mix(&mut h, NULL_MARK);
                continue;
            };
            if let Some(n) = seen[i] {
                mix(&mut h, SEEN_MARK + n);
                continue;
            }
            seen[i] = Some(visits);
            visits += 1;
            let o = &self.objs[i];
            mix_object(&mut h, o.kind, o.id, o.len);
            todo.extend(o.refs.iter().rev().copied());
        }
        h
    }

    /// Which objects are reachable from `starts` (model indices).
    pub fn reachable_from(&self, starts: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut seen = vec![false; self.objs.len()];
        let mut todo: Vec<usize> = starts.into_iter().collect();
        while let Some(i) = todo.pop() {
            if !std::mem::replace(&mut seen[i], true) {
                todo.extend(self.objs[i].refs.iter().flatten().copied());
            }
        }
        seen
    }

    /// Drops objects reachable neither from the slots nor from a registered
    /// finalizable object (the model's own garbage collection), renumbering the rest.
    pub fn compact(&mut self) {
        let mut new_index: Vec<Option<usize>> = vec![None; self.objs.len()];
        let mut order = Vec::new();
        let mut todo: Vec<usize> = self.roots.iter().flatten().copied().collect();
        todo.extend(self.finalizable.iter().copied());
        while let Some(i) = todo.pop() {
            if new_index[i].is_some() {
                continue;
            }
            new_index[i] = Some(order.len());
            order.push(i);
            todo.extend(self.objs[i].refs.iter().flatten().copied());
        }
        let mut objs: Vec<MObj> = order
            .iter()
            .map(|&i| std::mem::replace(&mut self.objs[i], placeholder()))
            .collect();
        for o in &mut objs {
            for r in o.refs.iter_mut().flatten() {
                *r = new_index[*r].expect("reachable from a reachable object");
            }
        }
        for r in self.roots.iter_mut().flatten() {
            *r = new_index[*r].expect("a root is reachable");
        }
        for r in self.finalizable.iter_mut() {
            *r = new_index[*r].expect("kept for finalization");
        }
        for w in self
            .weak
            .iter_mut()
            .chain(self.cleaners.iter_mut().map(|c| &mut c.0))
        {
            *w = w.and_then(|i| new_index[i]);
        }
        self.objs = objs;
    }
}

fn placeholder() -> MObj {
    MObj {
        kind: NODE,
        id: 0,
        len: 0,
        refs: Vec::new(),
        hash: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_keeps_the_checksum_and_drops_garbage() {
        let mut m = Model::new(3);
        let a = m.add(NODE, 1, 0, 2);
        let b = m.add(VEC, 0, 1, 1);
        let _garbage = m.add(BLOB, 3, 20, 0);
        m.objs[a].refs[0] = Some(b);
        m.objs[b].refs[0] = Some(a); // a cycle
        m.roots[0] = Some(b);
        m.roots[2] = Some(a);
        let before = m.checksum();
        m.compact();
        assert_eq!(m.len(), 2);
        assert_eq!(m.checksum(), before);
        m.roots[2] = None;
        assert_ne!(m.checksum(), before);
    }
}
