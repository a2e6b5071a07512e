//! Which local variables name the procedure that refers to them: a variable
//! bound by a `letrec` (a named `let` loop, an internal `define`) to a
//! `lambda`, and never assigned by `set!`, holds that procedure's closure from
//! before the closure can first run to the end of the program. Inside that
//! procedure, a reference to it is the running closure itself (the frame's
//! slot 0: [`crate::bytecode::Op::SelfRef`]), read without its cell.
//!
//! Every init of the `letrec` must be a `lambda`: evaluating one cannot
//! capture a continuation, so no re-entry stores a second closure into the
//! variable's cell after the first has run.

use super::analyze::{Expr, FnId, Program};

/// For each variable of `p` (by `VarId`), the function whose closures it
/// always holds, as described above.
pub fn self_bound(p: &Program) -> Vec<Option<FnId>> {
    let mut bound = vec![None; p.vars.len()];
    let mut assigned = vec![false; p.vars.len()];
    for f in &p.funcs {
        walk(&f.body, &mut bound, &mut assigned);
    }
    for (b, a) in bound.iter_mut().zip(assigned) {
        if a {
            *b = None;
        }
    }
    bound
}

fn walk(e: &Expr, bound: &mut [Option<FnId>], assigned: &mut [bool]) {
    let all = |es: &[Expr], bound: &mut [Option<FnId>], assigned: &mut [bool]| {
        for e in es {
            walk(e, bound, assigned);
        }
    };
    match e {
        Expr::Const(_)
        | Expr::Int(_)
        | Expr::Bool(_)
        | Expr::Nil
        | Expr::Unspec
        | Expr::Ref(_)
        | Expr::GlobalRef(_)
        | Expr::Lambda(_) => {}
        Expr::Set(v, value) => {
            assigned[*v] = true;
            walk(value, bound, assigned);
        }
        Expr::GlobalSet(_, value) | Expr::GlobalDef(_, value) => walk(value, bound, assigned),
        Expr::If(c, t, f) => {
            walk(c, bound, assigned);
            walk(t, bound, assigned);
            walk(f, bound, assigned);
        }
        Expr::And(es) | Expr::Or(es) | Expr::Seq(es) | Expr::Prim(_, es) => {
            all(es, bound, assigned)
        }
        Expr::Call(f, args) => {
            walk(f, bound, assigned);
            all(args, bound, assigned);
        }
        Expr::Let(bindings, body) | Expr::Letrec(bindings, body) => {
            let lambdas = matches!(e, Expr::Letrec(..))
                && bindings.iter().all(|(_, i)| matches!(i, Expr::Lambda(_)));
            for (v, init) in bindings {
                if let (true, Expr::Lambda(f)) = (lambdas, init) {
                    bound[*v] = Some(*f);
                }
                walk(init, bound, assigned);
            }
            walk(body, bound, assigned);
        }
    }
}
