//! Printing values (`display`, `write`, `write-shared`, `write-simple`) and
//! comparing them (`eqv?`, `equal?`). Both walk iteratively with explicit work
//! lists, so deep or long structures cannot overflow the host stack; neither
//! allocates in the heap. Circular structures print with R7RS datum labels
//! (`#0=(1 . #0#)`), and `equal?` terminates on them (and on shared structure,
//! in time linear in the number of pairs and vectors).

use super::value::{kind, Kind};
use super::Vm;
use crate::error::VmError;
use flipgc_core::{Gc, Value};
use std::collections::HashMap;

/// Most characters one `print` produces (exponentially shared structure, or a
/// cycle printed without labels, would otherwise take for ever).
pub const MAX_PRINT: usize = 1 << 26;

/// Pair and vector comparisons `equal?` makes before it switches to the
/// union-find walk (which also terminates on cycles and shared structure).
const EQUAL_FAST_STEPS: usize = 100_000;

/// Which pairs and vectors get datum labels (`#n=` where first printed, `#n#`
/// afterwards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labels {
    /// Those that are part of a cycle (`write`, `display`): R7RS uses no labels
    /// when there is no cycle.
    Cycles,
    /// Every one that appears more than once (`write-shared`).
    Shared,
    /// None (`write-simple`): a cycle prints until [`MAX_PRINT`], an error.
    None,
}

/// The printing stopped at the character limit.
#[derive(Debug)]
pub struct Truncated;

enum Item<'g> {
    Val(Value<'g>),
    Text(&'static str),
    /// The rest of a list after an element: print " x" or " . x" or ")".
    Tail(Value<'g>),
}

/// Formats a float the Scheme way, as Chez Scheme does: the shortest digits
/// that read back as the same float; positional (`123.0`, `0.001`) when
/// `1e-3 <= |f| < 1e10` or `f` is zero, with an exponent otherwise (`1e10`,
/// `1.5e-4`, `1e21`); `+inf.0`, `-inf.0`, `+nan.0`. A positional form always
/// has a `.`, so that it does not read back as an exact integer.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        "+nan.0".into()
    } else if f.is_infinite() {
        if f > 0.0 { "+inf.0" } else { "-inf.0" }.into()
    } else if f == 0.0 || (1e-3..1e10).contains(&f.abs()) {
        // Display is positional and shortest round-trip, without a `.` for
        // integral values.
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            s + ".0"
        }
    } else {
        // LowerExp: shortest round-trip digits, `1e21`, `1.5e-4`.
        format!("{f:e}")
    }
}

fn char_name(c: char) -> Option<&'static str> {
    Some(match c {
        ' ' => "space",
        '\n' => "newline",
        '\t' => "tab",
        '\r' => "return",
        '\0' => "null",
        '\u{7}' => "alarm",
        '\u{8}' => "backspace",
        '\u{7f}' => "delete",
        '\u{1b}' => "escape",
        _ => return None,
    })
}

impl Vm {
    /// Appends the printed form of `v` to `out` (`write` form if `write`), with
    /// datum labels for cycles. Errors past [`MAX_PRINT`] characters (leaving
    /// `out` as it was).
    pub fn print(&self, v: Value<'_>, write: bool, out: &mut String) -> Result<(), VmError> {
        let mark = out.len();
        self.print_with(v, write, Labels::Cycles, out, mark + MAX_PRINT)
            .map_err(|Truncated| {
                out.truncate(mark);
                VmError::runtime("printed form too large (more than 64 MiB)")
            })
    }

    /// Whether `g` is a pair (weak or not) or a vector (the objects datum labels
    /// can name).
    fn is_node(&self, g: Gc<'_>) -> bool {
        let ty = self.m.type_of(g);
        ty == self.t.vector || self.is_pair_like(g)
    }

    /// The pairs and vectors of `root` that need labels under `labels`: a
    /// depth-first walk in printing order (car before cdr); a pair or vector met
    /// again while it is still on the walk's stack closes a cycle (every cycle
    /// has one such node, so labelling them ends every cycle when printing).
    fn find_labels<'g>(&'g self, root: Value<'g>, labels: Labels) -> HashMap<Gc<'g>, usize> {
        let mut need = HashMap::new();
        let Some(root) = root
            .as_ref()
            .filter(|&g| labels != Labels::None && self.is_node(g))
        else {
            return need;
        };
        // false: on the stack; true: finished.
        let mut state: HashMap<Gc<'g>, bool> = HashMap::new();
        let mut stack = vec![(root, 0usize)];
        state.insert(root, false);
        while let Some(top) = stack.last_mut() {
            let (g, i) = *top;
            let pair = self.pair_parts(g);
            let n = if pair.is_some() { 2 } else { self.m.len(g) };
            if i == n {
                state.insert(g, true);
                stack.pop();
                continue;
            }
            top.1 += 1;
            let child = match (pair, i) {
                (Some((car, _)), 0) => car,
                (Some((_, cdr)), _) => cdr,
                (None, _) => self.m.read_value(g, i),
            };
            let Some(c) = child.as_ref().filter(|&c| self.is_node(c)) else {
                continue;
            };
            match state.get(&c) {
                None => {
                    state.insert(c, false);
                    stack.push((c, 0));
                }
                Some(false) => {
                    need.insert(c, usize::MAX);
                }
                Some(true) => {
                    if labels == Labels::Shared {
                        need.insert(c, usize::MAX);
                    }
                }
            }
        }
        need
    }

    /// Appends the printed form of `v` to `out` with the given labels, stopping
    /// once `out` is longer than `limit` bytes.
    pub fn print_with(
        &self,
        v: Value<'_>,
        write: bool,
        labels: Labels,
        out: &mut String,
        limit: usize,
    ) -> Result<(), Truncated> {
        let t = &self.t;
        // Label numbers, in printing order; usize::MAX until first printed.
        let mut label = self.find_labels(v, labels);
        let mut next_label = 0;
        let mut work = vec![Item::Val(v)];
        while let Some(item) = work.pop() {
            if out.len() > limit {
                return Err(Truncated);
            }
            let g = match item {
                Item::Text(s) => {
                    out.push_str(s);
                    continue;
                }
                Item::Tail(v) if v.is_null() => {
                    out.push(')');
                    continue;
                }
                Item::Tail(v) => {
                    let parts = v
                        .as_ref()
                        .filter(|g| !label.contains_key(g))
                        .and_then(|g| self.pair_parts(g));
                    if let Some((car, cdr)) = parts {
                        out.push(' ');
                        work.push(Item::Tail(cdr));
                        work.push(Item::Val(car));
                    } else {
                        out.push_str(" . ");
                        work.push(Item::Text(")"));
                        work.push(Item::Val(v));
                    }
                    continue;
                }
                Item::Val(v) => match kind(v) {
                    Kind::Obj(g) => g,
                    Kind::Nil => {
                        out.push_str("()");
                        continue;
                    }
                    Kind::Fixnum(i) => {
                        out.push_str(&i.to_string());
                        continue;
                    }
                    Kind::Char(c) => {
                        if write {
                            out.push_str("#\\");
                            match char_name(c) {
                                Some(n) => out.push_str(n),
                                None => out.push(c),
                            }
                        } else {
                            out.push(c);
                        }
                        continue;
                    }
                    Kind::Bool(b) => {
                        out.push_str(if b { "#t" } else { "#f" });
                        continue;
                    }
                    Kind::Unspec => {
                        out.push_str("#<unspecified>");
                        continue;
                    }
                    Kind::Symbol(id) => {
                        out.push_str(&self.shared.symbol_name(id));
                        continue;
                    }
                },
            };
            if let Some(n) = label.get_mut(&g) {
                if *n != usize::MAX {
                    out.push_str(&format!("#{n}#"));
                    continue;
                }
                *n = next_label;
                out.push_str(&format!("#{next_label}="));
                next_label += 1;
            }
            let ty = self.m.type_of(g);
            if let Some((car, cdr)) = self.pair_parts(g) {
                out.push('(');
                work.push(Item::Tail(cdr));
                work.push(Item::Val(car));
            } else if ty == t.int {
                out.push_str(&(self.m.get_word(g, t.int_value) as i64).to_string());
            } else if ty == t.float {
                out.push_str(&format_float(f64::from_bits(
                    self.m.get_word(g, t.float_bits),
                )));
            } else if ty == t.string {
                let s = self.read_string(g);
                if write {
                    out.push('"');
                    for c in s.chars() {
                        match c {
                            '"' => out.push_str("\\\""),
                            '\\' => out.push_str("\\\\"),
                            '\n' => out.push_str("\\n"),
                            '\t' => out.push_str("\\t"),
                            '\r' => out.push_str("\\r"),
                            c => out.push(c),
                        }
                    }
                    out.push('"');
                } else {
                    out.push_str(&s);
                }
            } else if ty == t.vector {
                let n = self.m.len(g);
                out.push_str("#(");
                work.push(Item::Text(")"));
                for i in (0..n).rev() {
                    work.push(Item::Val(self.m.read_value(g, i)));
                    if i > 0 {
                        work.push(Item::Text(" "));
                    }
                }
            } else if ty == t.record {
                let name = match self.m.read_value(g, 0).as_ref() {
                    Some(rtd) if self.m.type_of(rtd) == t.pair => {
                        self.repr(self.m.read_value(rtd, 0), false)
                    }
                    _ => "?".to_string(),
                };
                out.push_str(&format!("#<record {name}>"));
            } else if ty == t.closure {
                let pid = self.m.get_word(g, t.closure_proto) as usize;
                let name = self.proto_name(pid);
                out.push_str(&format!("#<procedure {name}>"));
            } else if ty == t.prim {
                let id = self.m.get_word(g, t.prim_index) as usize;
                out.push_str(&format!(
                    "#<procedure {}>",
                    crate::builtins::BUILTINS[id].name
                ));
            } else if ty == t.thread {
                out.push_str(&format!("#<thread {}>", self.m.get_word(g, t.thread_index)));
            } else if ty == t.rt.bwp {
                out.push_str("#!bwp");
            } else if ty == t.rt.hashtable {
                let kind = super::hashtable::KIND_NAMES[self.table_kind(g) as usize & 7];
                out.push_str(&format!("#<{kind} hashtable>"));
            } else if ty == t.rt.guardian {
                out.push_str("#<procedure guardian>");
            } else if let Some(text) = self.print_io(g, write) {
                out.push_str(&text);
            } else {
                out.push_str("#<object>");
            }
        }
        Ok(())
    }

    /// `eqv?` on two values: identity, or equal numbers of the same exactness,
    /// characters, symbols, booleans. Two immediates (fixnums, characters,
    /// booleans, the unspecified value), or `()`, are `eqv?` iff their bits are
    /// equal; an immediate is never `eqv?` to a heap object (an integer in the
    /// fixnum range is never boxed).
    #[inline]
    pub fn eqv(&self, a: Value<'_>, b: Value<'_>) -> bool {
        if a == b {
            return true;
        }
        match (a.as_ref(), b.as_ref()) {
            (Some(a), Some(b)) => {
                let ty = self.m.type_of(a);
                if ty != self.m.type_of(b) {
                    return false;
                }
                let t = &self.t;
                let payload = if ty == t.int {
                    t.int_value
                } else if ty == t.float {
                    t.float_bits
                } else {
                    return ty == t.rt.bwp;
                };
                self.m.get_word(a, payload) == self.m.get_word(b, payload)
            }
            _ => false,
        }
    }

    /// `equal?`: structural equality of pairs, vectors and strings, else `eqv?`.
    /// Terminates on circular and shared structure (R7RS): a plain walk first,
    /// then, past 100,000 pairs and vectors, a walk that treats two
    /// pairs (or vectors) it has already begun to compare, directly or through
    /// others, as equal (union-find over the pairs compared, as in Adams and
    /// Dybvig's algorithm). Neither can overflow the host stack.
    pub fn equal(&self, a: Value<'_>, b: Value<'_>) -> bool {
        match self.equal_walk(a, b, None) {
            Some(eq) => eq,
            None => self
                .equal_walk(a, b, Some(&mut Classes::default()))
                .expect("the union-find walk has no step limit"),
        }
    }

    /// The `equal?` walk: without `classes`, `None` past [`EQUAL_FAST_STEPS`].
    fn equal_walk<'g>(
        &'g self,
        a: Value<'g>,
        b: Value<'g>,
        mut classes: Option<&mut Classes<'g>>,
    ) -> Option<bool> {
        let t = &self.t;
        let mut work = vec![(a, b)];
        let mut steps = 0;
        while let Some((a, b)) = work.pop() {
            if self.eqv(a, b) {
                continue;
            }
            let (Some(x), Some(y)) = (a.as_ref(), b.as_ref()) else {
                return Some(false);
            };
            // Weak pairs compare as pairs.
            let kind = |g| match self.m.type_of(g) {
                ty if ty == t.rt.weak_pair || ty == t.rt.eph_pair => t.pair,
                ty => ty,
            };
            let ty = kind(x);
            if ty != kind(y) {
                return Some(false);
            }
            if ty == t.pair || ty == t.vector {
                match classes.as_deref_mut() {
                    Some(c) => {
                        if !c.union(x, y) {
                            continue;
                        }
                    }
                    None => {
                        steps += 1;
                        if steps > EQUAL_FAST_STEPS {
                            return None;
                        }
                    }
                }
            }
            if let (Some((xa, xd)), Some((ya, yd))) = (self.pair_parts(x), self.pair_parts(y)) {
                work.push((xd, yd));
                work.push((xa, ya));
            } else if ty == t.vector {
                let n = self.m.len(x);
                if n != self.m.len(y) {
                    return Some(false);
                }
                for i in (0..n).rev() {
                    work.push((self.m.read_value(x, i), self.m.read_value(y, i)));
                }
            } else if ty == t.string || ty == t.io.bytevector {
                if !self.same_bytes(x, y) {
                    return Some(false);
                }
            } else {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// Disjoint sets of objects (union-find with path halving), for `equal?`.
#[derive(Default)]
struct Classes<'g> {
    index: HashMap<Gc<'g>, usize>,
    parent: Vec<usize>,
}

impl<'g> Classes<'g> {
    fn id(&mut self, g: Gc<'g>) -> usize {
        let next = self.parent.len();
        let i = *self.index.entry(g).or_insert(next);
        if i == next {
            self.parent.push(next);
        }
        i
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Merges the classes of `x` and `y`; false if they were already one.
    fn union(&mut self, x: Gc<'g>, y: Gc<'g>) -> bool {
        let (i, j) = (self.id(x), self.id(y));
        let (ri, rj) = (self.find(i), self.find(j));
        if ri == rj {
            return false;
        }
        self.parent[ri] = rj;
        true
    }
}
