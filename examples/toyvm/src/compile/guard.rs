//! The `guard` form (R7RS 4.2.7), rewritten datum to datum before analysis:
//!
//! ```text
//! (guard (var clause...) body...)
//! => (%guard (lambda () body...)
//!            (lambda (var %guard-reraise) (cond clause... (else (%guard-reraise)))))
//! ```
//!
//! `%guard` (in `prelude-r7rs.scm`) is built on `call/cc`, `dynamic-wind` and
//! the handler stack: it runs the body with a handler that escapes to the
//! guard's continuation, where the clauses (a `cond`, so `=>` clauses work)
//! are evaluated; `%guard-reraise` raises the condition again when none
//! matches. A last `else` clause is kept as it is.

use crate::error::VmError;
use crate::reader::{Datum, DatumKind};

fn at(kind: DatumKind, d: &Datum) -> Datum {
    Datum {
        kind,
        line: d.line,
        col: d.col,
    }
}

fn sym(name: &str, d: &Datum) -> Datum {
    at(DatumKind::Sym(name.into()), d)
}

fn list(items: Vec<Datum>, d: &Datum) -> Datum {
    at(DatumKind::List(items, None), d)
}

/// The rewrite of `(guard spec body...)` (`args` is `spec body...`).
pub fn guard(d: &Datum, args: &[Datum]) -> Result<Datum, VmError> {
    let [spec, body @ ..] = args else {
        return Err(d.error("guard: expects (var clause...) and a body"));
    };
    if body.is_empty() {
        return Err(d.error("guard: empty body"));
    }
    let Some([var, clauses @ ..]) = spec.list() else {
        return Err(spec.error("guard: expected (var clause...)"));
    };
    if var.sym().is_none() {
        return Err(var.error("guard: the condition variable must be a symbol"));
    }
    let has_else = clauses
        .last()
        .and_then(Datum::list)
        .and_then(<[Datum]>::first)
        .and_then(Datum::sym)
        == Some("else");
    let mut cond = vec![sym("cond", d)];
    cond.extend(clauses.iter().cloned());
    if !has_else {
        cond.push(list(
            vec![sym("else", d), list(vec![sym("%guard-reraise", d)], d)],
            d,
        ));
    }
    let thunk = list(
        [vec![sym("lambda", d), list(vec![], d)], body.to_vec()].concat(),
        d,
    );
    let handler = list(
        vec![
            sym("lambda", d),
            list(vec![var.clone(), sym("%guard-reraise", d)], d),
            list(cond, d),
        ],
        d,
    );
    Ok(list(vec![sym("%guard", d), thunk, handler], d))
}
