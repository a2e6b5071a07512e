//! The R7RS derived forms, rewritten datum to datum before analysis:
//! `import` (checked against the standard libraries), `define-record-type`,
//! `quasiquote` (nested levels; called by the analyser, which recognises
//! `unquote` through macro renaming), `let-values` / `let*-values`, `case-lambda`,
//! `parameterize`, `delay` / `delay-force` / `make-promise`. The rewrites call procedures of
//! the prelude by `%`-prefixed names (`%make-record-type`, `%make-promise`...),
//! so a program's own bindings of `list` or `cons` do not change them; they are
//! not hygienic beyond that (`syntax-rules` macros are: see `syntax_rules.rs`).

use crate::error::VmError;
use crate::reader::{Datum, DatumKind};

/// The libraries `import` accepts (all of their names are always bound).
pub const LIBRARIES: &[&str] = &[
    "base",
    "char",
    "cxr",
    "inexact",
    "write",
    "read",
    "file",
    "process-context",
    "time",
    "case-lambda",
    "lazy",
];

fn at(kind: DatumKind, d: &Datum) -> Datum {
    Datum {
        kind,
        line: d.line,
        col: d.col,
    }
}

fn sym(name: &str, d: &Datum) -> Datum {
    keyword(name, d)
}

/// A symbol the rewrites introduce; the core keywords among them (`lambda`,
/// `let`, `if`, `begin`, `quote`, `define`) are aliases of the top level
/// ([`super::syntax_rules::core_alias`]), so a program's local binding of
/// `if` or `lambda` does not change the rewrite.
pub(super) fn keyword(name: &str, d: &Datum) -> Datum {
    match super::syntax_rules::core_alias(name) {
        Some(alias) => at(DatumKind::Sym(alias), d),
        None => at(DatumKind::Sym(name.into()), d),
    }
}

fn list(items: Vec<Datum>, d: &Datum) -> Datum {
    at(DatumKind::List(items, None), d)
}

fn quote(x: Datum, d: &Datum) -> Datum {
    list(vec![sym("quote", d), x], d)
}

/// Checks `(import set...)`: every set names one of [`LIBRARIES`] as
/// `(scheme NAME)`. An error names the first library that is not one.
pub fn check_import(form: &Datum, sets: &[Datum]) -> Result<(), VmError> {
    for set in sets {
        let ok = match set.list() {
            Some([scheme, name]) => {
                scheme.sym() == Some("scheme") && name.sym().is_some_and(|n| LIBRARIES.contains(&n))
            }
            _ => false,
        };
        if !ok {
            return Err(set.error(format!(
                "import: unknown library {} (this VM provides (scheme {}))",
                show(set),
                LIBRARIES.join("), (scheme ")
            )));
        }
    }
    let _ = form;
    Ok(())
}

/// A datum as source text (for messages).
pub(super) fn show(d: &Datum) -> String {
    match &d.kind {
        DatumKind::Sym(s) => s.clone(),
        DatumKind::Int(i) => i.to_string(),
        DatumKind::List(items, tail) => {
            let mut s: Vec<String> = items.iter().map(show).collect();
            if let Some(t) = tail {
                s.push(".".into());
                s.push(show(t));
            }
            format!("({})", s.join(" "))
        }
        other => format!("{other:?}"),
    }
}

/// `(define-record-type name (ctor field...) pred (field accessor [modifier])...)`
/// as a `begin` of top-level or internal definitions. A record is an
/// `scm-record` whose element 0 holds its type (a unique pair made by
/// `%make-record-type`; `builtins/record.rs`).
pub fn define_record_type(d: &Datum, args: &[Datum]) -> Result<Datum, VmError> {
    let bad = |what: &str| Err(d.error(format!("define-record-type: {what}")));
    let [name, ctor, pred, specs @ ..] = args else {
        return bad("expects a name, a constructor, a predicate and fields");
    };
    let type_name = match (name.sym(), name.list()) {
        (Some(n), _) => n.to_string(),
        (None, Some([n, ..])) if n.sym().is_some() => n.sym().unwrap_or_default().to_string(),
        _ => return bad("bad type name"),
    };
    let mut fields = Vec::new();
    for spec in specs {
        match spec.list() {
            Some([f, rest @ ..]) if f.sym().is_some() && rest.len() <= 2 => {
                if rest.iter().any(|r| r.sym().is_none()) {
                    return bad("accessor and modifier names must be symbols");
                }
                fields.push((f.sym().unwrap_or_default().to_string(), rest));
            }
            _ => return bad("expected (field accessor [modifier])"),
        }
    }
    let index = |f: &str| {
        fields
            .iter()
            .position(|(n, _)| n == f)
            .map(|i| i as i64 + 1)
    };
    let rtd = sym(&format!("%rtd:{type_name}"), d);
    let mut out = vec![sym("begin", d)];
    out.push(list(
        vec![
            sym("define", d),
            rtd.clone(),
            list(
                vec![sym("%make-record-type", d), quote(sym(&type_name, d), d)],
                d,
            ),
        ],
        d,
    ));
    if let Some(name) = name.sym() {
        out.push(list(vec![sym("define", d), sym(name, d), rtd.clone()], d));
    }
    // The constructor: (define (ctor a b) (%record rtd <field values in field order>)).
    match ctor.list() {
        Some([cname, cargs @ ..]) if cname.sym().is_some() => {
            for a in cargs {
                if a.sym().and_then(index).is_none() {
                    return Err(a.error("define-record-type: constructor argument is not a field"));
                }
            }
            let mut elems = vec![sym("%record", d), rtd.clone()];
            for (f, _) in &fields {
                let given = cargs.iter().any(|a| a.sym() == Some(f.as_str()));
                elems.push(if given {
                    sym(f, d)
                } else {
                    at(DatumKind::Bool(false), d)
                });
            }
            let mut head = vec![cname.clone()];
            head.extend(cargs.iter().cloned());
            out.push(list(
                vec![sym("define", d), list(head, d), list(elems, d)],
                d,
            ));
        }
        _ if ctor.sym().is_some() || matches!(ctor.kind, DatumKind::Bool(false)) => {
            if let Some(c) = ctor.sym() {
                // A bare constructor name takes every field, in order.
                let names: Vec<Datum> = fields.iter().map(|(f, _)| sym(f, d)).collect();
                let mut head = vec![sym(c, d)];
                head.extend(names.iter().cloned());
                let mut elems = vec![sym("%record", d), rtd.clone()];
                elems.extend(names);
                out.push(list(
                    vec![sym("define", d), list(head, d), list(elems, d)],
                    d,
                ));
            }
        }
        _ => return bad("bad constructor"),
    }
    if let Some(p) = pred.sym() {
        out.push(list(
            vec![
                sym("define", d),
                list(vec![sym(p, d), sym("x", d)], d),
                list(vec![sym("%record-of?", d), sym("x", d), rtd.clone()], d),
            ],
            d,
        ));
    }
    for (i, (_, procs)) in fields.iter().enumerate() {
        let k = at(DatumKind::Int(i as i64 + 1), d);
        if let Some(get) = procs.first() {
            out.push(list(
                vec![
                    sym("define", d),
                    list(vec![get.clone(), sym("r", d)], d),
                    list(
                        vec![
                            sym("%record-ref", d),
                            sym("r", d),
                            rtd.clone(),
                            k.clone(),
                            quote(get.clone(), d),
                        ],
                        d,
                    ),
                ],
                d,
            ));
        }
        if let Some(set) = procs.get(1) {
            out.push(list(
                vec![
                    sym("define", d),
                    list(vec![set.clone(), sym("r", d), sym("v", d)], d),
                    list(
                        vec![
                            sym("%record-set!", d),
                            sym("r", d),
                            rtd.clone(),
                            k,
                            sym("v", d),
                            quote(set.clone(), d),
                        ],
                        d,
                    ),
                ],
                d,
            ));
        }
    }
    Ok(list(out, d))
}

/// `formals` with every name `x` replaced by the temporary `%lv:x`, and the
/// binding `(x %lv:x)` added to `renames` for each (`let-values`). Anything
/// else is kept for the analyser to refuse.
fn temporaries(formals: &Datum, renames: &mut Vec<Datum>) -> Datum {
    let rename = |x: &Datum, renames: &mut Vec<Datum>| match &x.kind {
        DatumKind::Sym(n) => {
            let t = at(DatumKind::Sym(format!("%lv:{n}")), x);
            renames.push(list(vec![x.clone(), t.clone()], x));
            t
        }
        _ => x.clone(),
    };
    match &formals.kind {
        DatumKind::List(items, tail) => {
            let items = items.iter().map(|x| rename(x, renames)).collect();
            let tail = tail.as_ref().map(|t| Box::new(rename(t, renames)));
            at(DatumKind::List(items, tail), formals)
        }
        _ => rename(formals, renames),
    }
}

/// A derived expression form: its rewrite, or `None` if `name` is not one.
pub fn expand(name: &str, d: &Datum, args: &[Datum]) -> Result<Option<Datum>, VmError> {
    let bad = |what: &str| Err(d.error(format!("{name}: {what}")));
    Ok(Some(match name {
        "unquote" | "unquote-splicing" => return bad("outside quasiquote"),
        "let-values" | "let*-values" => match args {
            [bindings, body @ ..] if !body.is_empty() => {
                let Some(bs) = bindings.list() else {
                    return bad("expects ((formals expr) ...) and a body");
                };
                // let-values binds in parallel: each formal is first bound to
                // a temporary, so that no init sees a binding of the same
                // form, and a `let` around the body binds the program's
                // names. let*-values nests the bindings directly.
                let parallel = name == "let-values" && bs.len() > 1;
                let mut formals_of = Vec::with_capacity(bs.len());
                let mut renames = Vec::new();
                for b in bs {
                    let Some([formals, e]) = b.list() else {
                        return Err(b.error(format!("{name}: expected (formals expr)")));
                    };
                    let formals = if parallel {
                        temporaries(formals, &mut renames)
                    } else {
                        formals.clone()
                    };
                    formals_of.push((formals, e.clone()));
                }
                let mut inner = list(
                    [vec![sym("let", d), list(renames, d)], body.to_vec()].concat(),
                    d,
                );
                for (formals, e) in formals_of.into_iter().rev() {
                    inner = list(
                        vec![
                            sym("%call-with-values", d),
                            list(vec![sym("lambda", d), list(vec![], d), e], d),
                            list(vec![sym("lambda", d), formals, inner], d),
                        ],
                        d,
                    );
                }
                inner
            }
            _ => return bad("expects bindings and a body"),
        },
        "case-lambda" => {
            // (lambda args (%case-lambda-dispatch args (list (cons arity f) ...)))
            let mut clauses = vec![sym("%list", d)];
            for c in args {
                let Some([formals, body @ ..]) = c.list() else {
                    return Err(c.error("case-lambda: expected (formals body...)"));
                };
                if body.is_empty() {
                    return Err(c.error("case-lambda: empty body"));
                }
                let (n, rest) = match &formals.kind {
                    DatumKind::Sym(_) => (0, true),
                    DatumKind::List(items, tail) => (items.len(), tail.is_some()),
                    _ => return Err(formals.error("case-lambda: bad formals")),
                };
                let f = list(
                    [vec![sym("lambda", d), formals.clone()], body.to_vec()].concat(),
                    d,
                );
                clauses.push(list(
                    vec![
                        sym("%vector", d),
                        at(DatumKind::Int(n as i64), d),
                        at(DatumKind::Bool(rest), d),
                        f,
                    ],
                    d,
                ));
            }
            list(vec![sym("%case-lambda", d), list(clauses, d)], d)
        }
        "parameterize" => match args {
            [bindings, body @ ..] if !body.is_empty() => {
                let Some(bs) = bindings.list() else {
                    return bad("expects ((parameter value) ...) and a body");
                };
                let (mut ps, mut vs) = (vec![sym("%list", d)], vec![sym("%list", d)]);
                for b in bs {
                    let Some([p, v]) = b.list() else {
                        return Err(b.error("parameterize: expected (parameter value)"));
                    };
                    ps.push(p.clone());
                    vs.push(v.clone());
                }
                let thunk = list(
                    [vec![sym("lambda", d), list(vec![], d)], body.to_vec()].concat(),
                    d,
                );
                list(
                    vec![sym("%parameterize", d), list(ps, d), list(vs, d), thunk],
                    d,
                )
            }
            _ => return bad("expects bindings and a body"),
        },
        "guard" => super::guard::guard(d, args)?,
        "delay" | "delay-force" => match args {
            [e] => list(
                vec![
                    sym("%make-lazy-promise", d),
                    list(vec![sym("lambda", d), list(vec![], d), e.clone()], d),
                ],
                d,
            ),
            _ => return bad("expects one expression"),
        },
        _ => return Ok(None),
    }))
}

/// `(name x)`'s `x`, if `d` is such a form; `kw(head, name)` says whether
/// `head` means keyword `name`.
fn is_form(d: &Datum, name: &str, kw: Keyword) -> Option<Datum> {
    match d.list() {
        Some([h, x]) if kw(h, name) => Some(x.clone()),
        _ => None,
    }
}

/// Says whether an identifier means a given keyword where it appears.
pub type Keyword<'k> = &'k dyn Fn(&Datum, &str) -> bool;

/// The expansion of quasiquote template `t` at nesting `depth` (1 outermost);
/// `kw` recognises `unquote`, `unquote-splicing` and `quasiquote` (macro
/// templates introduce them as aliases).
pub fn quasi(t: &Datum, depth: usize, kw: Keyword) -> Result<Datum, VmError> {
    if let Some(x) = is_form(t, "unquote", kw) {
        return Ok(if depth == 1 {
            x
        } else {
            list(
                vec![
                    sym("%list", t),
                    quote(sym("unquote", t), t),
                    quasi(&x, depth - 1, kw)?,
                ],
                t,
            )
        });
    }
    if let Some(x) = is_form(t, "quasiquote", kw) {
        return Ok(list(
            vec![
                sym("%list", t),
                quote(sym("quasiquote", t), t),
                quasi(&x, depth + 1, kw)?,
            ],
            t,
        ));
    }
    match &t.kind {
        DatumKind::List(items, tail) if !items.is_empty() => {
            let mut acc = match tail {
                Some(tl) => quasi(tl, depth, kw)?,
                None => list(vec![sym("quote", t), list(vec![], t)], t),
            };
            for item in items.iter().rev() {
                acc = match is_form(item, "unquote-splicing", kw) {
                    Some(x) if depth == 1 => list(vec![sym("%append2", t), x, acc], t),
                    Some(x) => list(
                        vec![
                            sym("%cons", t),
                            list(
                                vec![
                                    sym("%list", t),
                                    quote(sym("unquote-splicing", t), t),
                                    quasi(&x, depth - 1, kw)?,
                                ],
                                t,
                            ),
                            acc,
                        ],
                        t,
                    ),
                    None => list(vec![sym("%cons", t), quasi(item, depth, kw)?, acc], t),
                };
            }
            Ok(acc)
        }
        DatumKind::Vector(items) => {
            let as_list = at(DatumKind::List(items.clone(), None), t);
            Ok(list(
                vec![sym("%list->vector", t), quasi(&as_list, depth, kw)?],
                t,
            ))
        }
        _ => Ok(quote(t.clone(), t)),
    }
}
