//! Printing values (`display` and `write` forms) and comparing them (`eqv?`,
//! `equal?`). Both walk iteratively with explicit work lists, so deep or long
//! structures cannot overflow the host stack; neither allocates in the heap.

use super::Vm;
use crate::error::VmError;
use flipgc_core::Gc;

/// Most characters one `print` produces (circular structures would never end).
pub const MAX_PRINT: usize = 1 << 26;

enum Item<'g> {
    Val(Option<Gc<'g>>),
    Text(&'static str),
    /// The rest of a list after an element: print " x" or " . x" or ")".
    Tail(Option<Gc<'g>>),
}

/// Formats a float the Scheme way (`1.0`, `0.5`, `+inf.0`, `+nan.0`).
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        "+nan.0".into()
    } else if f.is_infinite() {
        if f > 0.0 { "+inf.0" } else { "-inf.0" }.into()
    } else if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
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
    /// Appends the printed form of `v` to `out` (`write` form if `write`).
    /// Errors past [`MAX_PRINT`] characters.
    pub fn print(&self, v: Option<Gc<'_>>, write: bool, out: &mut String) -> Result<(), VmError> {
        let t = &self.t;
        let mut work = vec![Item::Val(v)];
        while let Some(item) = work.pop() {
            if out.len() > MAX_PRINT {
                return Err(VmError::runtime(
                    "printed form too large (circular structure?)",
                ));
            }
            let g = match item {
                Item::Text(s) => {
                    out.push_str(s);
                    continue;
                }
                Item::Tail(None) => {
                    out.push(')');
                    continue;
                }
                Item::Tail(Some(g)) => {
                    if self.m.type_of(g) == t.pair {
                        out.push(' ');
                        work.push(Item::Tail(self.m.read_ref(g, 1)));
                        work.push(Item::Val(self.m.read_ref(g, 0)));
                    } else {
                        out.push_str(" . ");
                        work.push(Item::Text(")"));
                        work.push(Item::Val(Some(g)));
                    }
                    continue;
                }
                Item::Val(None) => {
                    out.push_str("()");
                    continue;
                }
                Item::Val(Some(g)) => g,
            };
            let ty = self.m.type_of(g);
            if ty == t.pair {
                out.push('(');
                work.push(Item::Tail(self.m.read_ref(g, 1)));
                work.push(Item::Val(self.m.read_ref(g, 0)));
            } else if ty == t.int {
                out.push_str(&(self.m.read_word(g, 0) as i64).to_string());
            } else if ty == t.float {
                out.push_str(&format_float(f64::from_bits(self.m.read_word(g, 0))));
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
            } else if ty == t.char {
                let c = char::from_u32(self.m.read_word(g, 0) as u32).unwrap_or('?');
                if write {
                    out.push_str("#\\");
                    match char_name(c) {
                        Some(n) => out.push_str(n),
                        None => out.push(c),
                    }
                } else {
                    out.push(c);
                }
            } else if ty == t.symbol {
                out.push_str(&self.shared.symbol_name(self.m.read_word(g, 0)));
            } else if ty == t.true_ {
                out.push_str("#t");
            } else if ty == t.false_ {
                out.push_str("#f");
            } else if ty == t.vector {
                let n = self.m.len(g);
                out.push_str("#(");
                work.push(Item::Text(")"));
                for i in (0..n).rev() {
                    work.push(Item::Val(self.m.read_ref(g, i)));
                    if i > 0 {
                        work.push(Item::Text(" "));
                    }
                }
            } else if ty == t.closure {
                let code = self.m.read_ref(g, 0).expect("closure code");
                let pid = self.m.read_word(code, 0) as usize;
                let name = self.proto_name(pid);
                out.push_str(&format!("#<procedure {name}>"));
            } else if ty == t.prim {
                let id = self.m.read_word(g, 0) as usize;
                out.push_str(&format!(
                    "#<procedure {}>",
                    crate::builtins::BUILTINS[id].name
                ));
            } else if ty == t.unspec {
                out.push_str("#<unspecified>");
            } else if ty == t.thread {
                out.push_str(&format!("#<thread {}>", self.m.read_word(g, 0)));
            } else {
                out.push_str("#<object>");
            }
        }
        Ok(())
    }

    /// `eqv?` on two values: identity, or equal numbers of the same exactness,
    /// characters, symbols, booleans.
    pub fn eqv(&self, a: Option<Gc<'_>>, b: Option<Gc<'_>>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                if a == b {
                    return true;
                }
                let ty = self.m.type_of(a);
                if ty != self.m.type_of(b) {
                    return false;
                }
                let t = &self.t;
                if ty == t.int || ty == t.char || ty == t.symbol || ty == t.float {
                    self.m.read_word(a, 0) == self.m.read_word(b, 0)
                } else {
                    ty == t.true_ || ty == t.false_ || ty == t.unspec
                }
            }
            _ => false,
        }
    }

    /// `equal?`: structural equality of pairs, vectors and strings, else `eqv?`.
    /// Circular structures may not terminate (as in many Schemes), but cannot
    /// overflow the host stack.
    pub fn equal(&self, a: Option<Gc<'_>>, b: Option<Gc<'_>>) -> bool {
        let t = &self.t;
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            if self.eqv(a, b) {
                continue;
            }
            let (Some(x), Some(y)) = (a, b) else {
                return false;
            };
            let ty = self.m.type_of(x);
            if ty != self.m.type_of(y) {
                return false;
            }
            if ty == t.pair {
                work.push((self.m.read_ref(x, 1), self.m.read_ref(y, 1)));
                work.push((self.m.read_ref(x, 0), self.m.read_ref(y, 0)));
            } else if ty == t.vector {
                let n = self.m.len(x);
                if n != self.m.len(y) {
                    return false;
                }
                for i in (0..n).rev() {
                    work.push((self.m.read_ref(x, i), self.m.read_ref(y, i)));
                }
            } else if ty == t.string {
                if self.read_string(x) != self.read_string(y) {
                    return false;
                }
            } else {
                return false;
            }
        }
        true
    }
}
