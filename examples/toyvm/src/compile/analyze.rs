//! Analysis: resolves names to variables (locals, free variables, globals),
//! records which locals are captured, or assigned by `set!` (those live in heap
//! cells), and desugars derived forms (`let*`, named `let`, `do`, `case`,
//! `when`...); macro uses and the defining forms go through `expand.rs`.

use super::derived::keyword;
use super::expand::Resolved;
use super::syntax_rules::{MacroId, Syntax};
use crate::error::VmError;
use crate::reader::{Datum, DatumKind};
use std::collections::HashSet;

/// Deepest expression nesting the compiler accepts (it recurses on the host stack).
pub const MAX_DEPTH: usize = 800;

/// Index into [`Program::vars`].
pub type VarId = usize;
/// Index into [`Program::funcs`].
pub type FnId = usize;

/// A local variable.
#[derive(Debug)]
pub struct Var {
    /// Its name (for messages).
    pub name: String,
    /// The function whose frame holds it.
    pub func: FnId,
    /// Its frame slot.
    pub slot: u32,
    /// Referenced from an inner function.
    pub captured: bool,
    /// Assigned after binding (`set!`, `letrec`, internal `define`).
    pub mutated: bool,
    /// Assigned by `set!`.
    pub set: bool,
}

impl Var {
    /// Whether the slot holds a cell: captured and assigned, or assigned by
    /// `set!` at all. A continuation copies the stack and restores it when
    /// called again; a `set!` variable must be one location for all the
    /// copies, so it lives in a cell. (A `letrec` or internal `define` is
    /// assigned once, by its init, whose continuation R7RS lets run once.)
    pub fn boxed(&self) -> bool {
        (self.captured && self.mutated) || self.set
    }
}

/// A function being compiled.
#[derive(Debug)]
pub struct Func {
    /// Name for messages.
    pub name: String,
    /// Parameters (the last is the rest list if `rest`).
    pub params: Vec<VarId>,
    /// Whether the last parameter collects extra arguments.
    pub rest: bool,
    /// Frame slots used.
    pub nslots: u32,
    /// Captured variables of enclosing functions, in closure order.
    pub free: Vec<VarId>,
    /// The body.
    pub body: Expr,
}

/// A resolved expression.
#[derive(Debug)]
pub enum Expr {
    /// A literal (allocated in the constant table).
    Const(Datum),
    /// An integer literal.
    Int(i64),
    /// A boolean literal.
    Bool(bool),
    /// The empty list.
    Nil,
    /// The unspecified value.
    Unspec,
    /// A local variable.
    Ref(VarId),
    /// Assign a local.
    Set(VarId, Box<Expr>),
    /// A global variable.
    GlobalRef(String),
    /// Assign a global.
    GlobalSet(String, Box<Expr>),
    /// Define a global.
    GlobalDef(String, Box<Expr>),
    /// Conditional.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `and` (non-empty).
    And(Vec<Expr>),
    /// `or` (non-empty).
    Or(Vec<Expr>),
    /// `begin` (non-empty).
    Seq(Vec<Expr>),
    /// A closure of function `FnId`.
    Lambda(FnId),
    /// A procedure call.
    Call(Box<Expr>, Vec<Expr>),
    /// An inlined builtin call.
    Prim(u16, Vec<Expr>),
    /// Evaluate every init, then bind them.
    Let(Vec<(VarId, Expr)>, Box<Expr>),
    /// Bind the variables first, then evaluate and assign each init in order.
    Letrec(Vec<(VarId, Expr)>, Box<Expr>),
}

/// The result of analysing one top-level form: function 0 is the form itself.
#[derive(Debug)]
pub struct Program {
    /// Every local variable.
    pub vars: Vec<Var>,
    /// Every function; 0 is the top-level thunk.
    pub funcs: Vec<Func>,
}

/// Analyses one top-level form.
pub fn analyze_toplevel(
    form: &Datum,
    redefined: &HashSet<String>,
    syn: &mut Syntax,
) -> Result<Program, VmError> {
    syn.expansions = 0;
    let mut a = Analyzer {
        syn,
        vars: Vec::new(),
        funcs: Vec::new(),
        fn_stack: Vec::new(),
        scope: Vec::new(),
        redefined,
        depth: 0,
    };
    a.funcs.push(Func {
        name: "toplevel".into(),
        params: Vec::new(),
        rest: false,
        nslots: 0,
        free: Vec::new(),
        body: Expr::Unspec,
    });
    a.fn_stack.push(0);
    let body = a.toplevel(form)?;
    a.funcs[0].body = body;
    Ok(Program {
        vars: a.vars,
        funcs: a.funcs,
    })
}

/// What a name in the analyser's scope stack is bound to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Binding {
    /// A local variable.
    Var(VarId),
    /// A local keyword (`let-syntax`, internal `define-syntax`).
    Macro(MacroId),
}

pub(super) struct Analyzer<'a> {
    pub(super) syn: &'a mut Syntax,
    pub(super) vars: Vec<Var>,
    pub(super) funcs: Vec<Func>,
    pub(super) fn_stack: Vec<FnId>,
    /// Names in scope, innermost last (aliases bind under their own names).
    pub(super) scope: Vec<(String, Binding)>,
    pub(super) redefined: &'a HashSet<String>,
    pub(super) depth: usize,
}

pub(super) fn sym(name: &str, at: &Datum) -> Datum {
    Datum {
        kind: DatumKind::Sym(name.into()),
        line: at.line,
        col: at.col,
    }
}

pub(super) fn list(items: Vec<Datum>, at: &Datum) -> Datum {
    Datum {
        kind: DatumKind::List(items, None),
        line: at.line,
        col: at.col,
    }
}

impl Analyzer<'_> {
    pub(super) fn cur(&self) -> FnId {
        *self.fn_stack.last().expect("a function")
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        match self.resolve(name) {
            Resolved::Var(v) => Some(v),
            _ => None,
        }
    }

    /// Binds local variable `v` under `name`.
    pub(super) fn bind(&mut self, name: &str, v: VarId) {
        self.scope.push((name.to_string(), Binding::Var(v)));
    }

    /// Whether `d` is an identifier that means core form or free name `name`.
    pub(super) fn is_special(&self, d: &Datum, name: &str) -> bool {
        d.sym().is_some_and(|s| self.is_free_as(s, name))
    }

    pub(super) fn new_var(&mut self, name: &str) -> VarId {
        let f = self.cur();
        let slot = self.funcs[f].nslots;
        self.funcs[f].nslots += 1;
        self.vars.push(Var {
            name: name.to_string(),
            func: f,
            slot,
            captured: false,
            mutated: false,
            set: false,
        });
        self.vars.len() - 1
    }

    /// Resolves a local reference, recording captures along the function stack.
    pub(super) fn use_var(&mut self, v: VarId) {
        let owner = self.vars[v].func;
        for &f in self.fn_stack.iter().rev() {
            if f == owner {
                break;
            }
            self.vars[v].captured = true;
            if !self.funcs[f].free.contains(&v) {
                self.funcs[f].free.push(v);
            }
        }
    }

    /// `(define name expr)`, `(define name)` or `(define (name . params) body...)`:
    /// the name and the analysed value.
    pub(super) fn define_parts(
        &mut self,
        form: &Datum,
        rest: &[Datum],
    ) -> Result<(String, Expr), VmError> {
        let Some(target) = rest.first() else {
            return Err(form.error("define: missing name"));
        };
        match &target.kind {
            DatumKind::Sym(name) => {
                let value = match &rest[1..] {
                    [] => Expr::Unspec,
                    [e] => self.named_expr(e, name)?,
                    _ => return Err(form.error("define: too many expressions")),
                };
                Ok((name.clone(), value))
            }
            DatumKind::List(items, tail) if !items.is_empty() => {
                let Some(name) = items[0].sym() else {
                    return Err(items[0].error("define: the procedure name must be a symbol"));
                };
                let params = Datum {
                    kind: DatumKind::List(items[1..].to_vec(), tail.clone()),
                    line: target.line,
                    col: target.col,
                };
                let f = self.lambda(&params, &rest[1..], name, form)?;
                Ok((name.to_string(), Expr::Lambda(f)))
            }
            _ => Err(target.error("define: bad target")),
        }
    }

    /// Analyses `e`, naming it `name` if it is a lambda.
    pub(super) fn named_expr(&mut self, e: &Datum, name: &str) -> Result<Expr, VmError> {
        if let Some([head, params, body @ ..]) = e.list() {
            if self.is_special(head, "lambda") {
                return Ok(Expr::Lambda(self.lambda(params, body, name, e)?));
            }
        }
        self.expr(e)
    }

    pub(super) fn expr(&mut self, d: &Datum) -> Result<Expr, VmError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(d.error(format!("expression nested deeper than {MAX_DEPTH} levels")));
        }
        let r = self.expr_inner(d);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, d: &Datum) -> Result<Expr, VmError> {
        match &d.kind {
            DatumKind::Int(i) => Ok(Expr::Int(*i)),
            DatumKind::Bool(b) => Ok(Expr::Bool(*b)),
            DatumKind::Float(_)
            | DatumKind::Char(_)
            | DatumKind::Str(_)
            | DatumKind::Vector(_)
            | DatumKind::Bytevector(_) => Ok(Expr::Const(self.syn.strip(d))),
            DatumKind::Sym(name) => Ok(match self.resolve(name) {
                Resolved::Var(v) => {
                    self.use_var(v);
                    Expr::Ref(v)
                }
                Resolved::Free(g) => Expr::GlobalRef(g),
                Resolved::Macro(_) => {
                    return Err(d.error(format!(
                        "syntax keyword {} used as a variable",
                        self.syn.base_name(name)
                    )))
                }
            }),
            DatumKind::List(items, Some(_)) => {
                let head = items.first().and_then(|h| h.sym()).map(|h| self.resolve(h));
                if let Some(Resolved::Macro(m)) = head {
                    let expanded = self.expand_use(m, d)?;
                    return self.expr(&expanded);
                }
                Err(d.error("dotted list in code"))
            }
            DatumKind::List(items, None) => {
                let Some((head, args)) = items.split_first() else {
                    return Err(d.error("empty combination ()"));
                };
                if let Some(name) = head.sym() {
                    let name = match self.resolve(name) {
                        Resolved::Macro(m) => {
                            let expanded = self.expand_use(m, d)?;
                            return self.expr(&expanded);
                        }
                        Resolved::Free(g) => Some(g),
                        Resolved::Var(_) => None,
                    };
                    if let Some(name) = name.as_deref() {
                        if let Some(e) = self.special(name, d, args)? {
                            return Ok(e);
                        }
                        if !self.redefined.contains(name) {
                            if let Some(b) = crate::builtins::lookup(name) {
                                let n = args.len();
                                if b.inline
                                    && n <= usize::from(u16::MAX)
                                    && n >= b.min
                                    && b.max.is_none_or(|m| n <= m)
                                {
                                    let args = self.exprs(args)?;
                                    return Ok(Expr::Prim(b.id, args));
                                }
                            }
                        }
                    }
                }
                let f = self.expr(head)?;
                let args = self.exprs(args)?;
                Ok(Expr::Call(Box::new(f), args))
            }
        }
    }

    fn exprs(&mut self, ds: &[Datum]) -> Result<Vec<Expr>, VmError> {
        ds.iter().map(|d| self.expr(d)).collect()
    }

    pub(super) fn seq(&mut self, ds: &[Datum]) -> Result<Expr, VmError> {
        Ok(match ds {
            [] => Expr::Unspec,
            [one] => self.expr(one)?,
            _ => Expr::Seq(self.exprs(ds)?),
        })
    }

    /// A special form, or `None` if `name` is not one.
    fn special(&mut self, name: &str, d: &Datum, args: &[Datum]) -> Result<Option<Expr>, VmError> {
        let bad = |what: &str| Err(d.error(format!("{name}: {what}")));
        Ok(Some(match name {
            "quote" => match args {
                [q] => match &q.kind {
                    DatumKind::Int(i) => Expr::Int(*i),
                    DatumKind::Bool(b) => Expr::Bool(*b),
                    DatumKind::List(v, None) if v.is_empty() => Expr::Nil,
                    _ => Expr::Const(self.syn.strip(q)),
                },
                _ => return bad("expects one datum"),
            },
            "if" => match args {
                [c, t] => Expr::If(
                    Box::new(self.expr(c)?),
                    Box::new(self.expr(t)?),
                    Box::new(Expr::Unspec),
                ),
                [c, t, e] => Expr::If(
                    Box::new(self.expr(c)?),
                    Box::new(self.expr(t)?),
                    Box::new(self.expr(e)?),
                ),
                _ => return bad("expects (if test then [else])"),
            },
            "define" => return bad("only allowed at top level or at the start of a body"),
            "set!" => match args {
                [target, value] => {
                    let Some(var) = target.sym() else {
                        return Err(target.error("set!: expects a variable name"));
                    };
                    let value = Box::new(self.expr(value)?);
                    match self.lookup(var) {
                        Some(v) => {
                            self.use_var(v);
                            self.vars[v].mutated = true;
                            self.vars[v].set = true;
                            Expr::Set(v, value)
                        }
                        None => Expr::GlobalSet(self.global_name(var), value),
                    }
                }
                _ => return bad("expects (set! name expr)"),
            },
            "lambda" => match args {
                [params, body @ ..] if !body.is_empty() => {
                    Expr::Lambda(self.lambda(params, body, "lambda", d)?)
                }
                _ => return bad("expects parameters and a body"),
            },
            "begin" => self.seq(args)?,
            "let" => self.let_form(d, args)?,
            "let*" => self.let_star(d, args)?,
            "letrec" | "letrec*" => match args {
                [bindings, body @ ..] => {
                    let pairs = self.bindings(bindings)?;
                    self.letrec(&pairs, body, d)?
                }
                _ => return bad("expects bindings and a body"),
            },
            "and" => match args {
                [] => Expr::Bool(true),
                [one] => self.expr(one)?,
                _ => Expr::And(self.exprs(args)?),
            },
            "or" => match args {
                [] => Expr::Bool(false),
                [one] => self.expr(one)?,
                _ => Expr::Or(self.exprs(args)?),
            },
            "when" | "unless" => match args {
                [test, body @ ..] if !body.is_empty() => {
                    let test = Box::new(self.expr(test)?);
                    let body = Box::new(self.seq(body)?);
                    if name == "when" {
                        Expr::If(test, body, Box::new(Expr::Unspec))
                    } else {
                        Expr::If(test, Box::new(Expr::Unspec), body)
                    }
                }
                _ => return bad("expects a test and a body"),
            },
            "cond" => self.cond(d, args)?,
            "case" => self.case(d, args)?,
            "do" => self.do_loop(d, args)?,
            "define-record-type" => {
                return bad("only allowed at top level or at the start of a body")
            }
            "import" => return bad("only allowed at top level"),
            "define-syntax" | "define-values" => {
                return bad("only allowed at top level or at the start of a body")
            }
            "syntax-rules" => return bad("only allowed as a macro's transformer"),
            "syntax-error" => return Err(self.syntax_error(d, args)),
            "let-syntax" => self.let_syntax(d, args, false)?,
            "letrec-syntax" => self.let_syntax(d, args, true)?,
            "quasiquote" => match args {
                [t] => {
                    let rewritten = super::derived::quasi(t, 1, &|x, kw| self.is_special(x, kw))?;
                    self.expr(&rewritten)?
                }
                _ => return bad("expects one template"),
            },
            "cond-expand" => {
                let chosen = self.cond_expand(d, args)?;
                self.seq(&chosen)?
            }
            "include" | "include-ci" => {
                let forms = self.include(d, args, name == "include-ci")?;
                self.seq(&forms)?
            }
            _ => match super::derived::expand(name, d, args)? {
                Some(rewritten) => self.expr(&rewritten)?,
                None => return Ok(None),
            },
        }))
    }

    /// `((name init) ...)` as pairs.
    fn bindings<'d>(&self, b: &'d Datum) -> Result<Vec<(&'d str, &'d Datum)>, VmError> {
        let Some(items) = b.list() else {
            return Err(b.error("expected a list of bindings"));
        };
        items
            .iter()
            .map(|it| match it.list() {
                Some([n, init]) => n
                    .sym()
                    .map(|s| (s, init))
                    .ok_or_else(|| n.error("binding name must be a symbol")),
                _ => Err(it.error("expected (name init)")),
            })
            .collect()
    }

    pub(super) fn lambda(
        &mut self,
        params: &Datum,
        body: &[Datum],
        name: &str,
        at: &Datum,
    ) -> Result<FnId, VmError> {
        let (names, rest): (Vec<&Datum>, Option<&Datum>) = match &params.kind {
            DatumKind::Sym(_) => (Vec::new(), Some(params)),
            DatumKind::List(items, tail) => (items.iter().collect(), tail.as_deref()),
            _ => return Err(params.error("lambda: bad parameter list")),
        };
        if body.is_empty() {
            return Err(at.error("lambda: empty body"));
        }
        let id = self.funcs.len();
        let name = self.syn.base_name(name).to_string();
        self.funcs.push(Func {
            name,
            params: Vec::new(),
            rest: rest.is_some(),
            nslots: 0,
            free: Vec::new(),
            body: Expr::Unspec,
        });
        self.fn_stack.push(id);
        let mark = self.scope.len();
        for p in names.into_iter().chain(rest) {
            let Some(n) = p.sym() else {
                return Err(p.error("lambda: parameter must be a symbol"));
            };
            if self.scope[mark..].iter().any(|(s, _)| s == n) {
                return Err(p.error(format!("lambda: duplicate parameter {n}")));
            }
            let v = self.new_var(n);
            self.funcs[id].params.push(v);
            self.bind(n, v);
        }
        let body = self.body(body, at);
        self.scope.truncate(mark);
        self.fn_stack.pop();
        self.funcs[id].body = body?;
        Ok(id)
    }

    fn letrec(
        &mut self,
        pairs: &[(&str, &Datum)],
        body: &[Datum],
        at: &Datum,
    ) -> Result<Expr, VmError> {
        let mark = self.scope.len();
        let vars: Vec<VarId> = pairs
            .iter()
            .map(|(n, _)| {
                let v = self.new_var(n);
                self.vars[v].mutated = true;
                self.bind(n, v);
                v
            })
            .collect();
        let mut out = Vec::new();
        for ((n, init), v) in pairs.iter().zip(vars) {
            out.push((v, self.named_expr(init, n)?));
        }
        let body = self.body(body, at);
        self.scope.truncate(mark);
        Ok(Expr::Letrec(out, Box::new(body?)))
    }

    fn let_form(&mut self, d: &Datum, args: &[Datum]) -> Result<Expr, VmError> {
        match args {
            [name, bindings, body @ ..] if name.sym().is_some() && !body.is_empty() => {
                // Named let: (letrec ((name (lambda (vars) body))) (name inits...)).
                let name = name.sym().expect("checked");
                let pairs = self.bindings(bindings)?;
                let inits = pairs
                    .iter()
                    .map(|(_, i)| self.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let mark = self.scope.len();
                let loop_var = self.new_var(name);
                self.vars[loop_var].mutated = true;
                self.bind(name, loop_var);
                let params = list(pairs.iter().map(|(n, _)| sym(n, d)).collect(), d);
                let f = self.lambda(&params, body, name, d);
                self.scope.truncate(mark);
                let call = Expr::Call(Box::new(Expr::Ref(loop_var)), inits);
                Ok(Expr::Letrec(
                    vec![(loop_var, Expr::Lambda(f?))],
                    Box::new(call),
                ))
            }
            [bindings, body @ ..] if !body.is_empty() => {
                let pairs = self.bindings(bindings)?;
                let inits = pairs
                    .iter()
                    .map(|(_, i)| self.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let mark = self.scope.len();
                let mut out = Vec::new();
                for ((n, _), init) in pairs.iter().zip(inits) {
                    let v = self.new_var(n);
                    self.bind(n, v);
                    out.push((v, init));
                }
                let body = self.body(body, d);
                self.scope.truncate(mark);
                Ok(Expr::Let(out, Box::new(body?)))
            }
            _ => Err(d.error("let: expects bindings and a body")),
        }
    }

    fn let_star(&mut self, d: &Datum, args: &[Datum]) -> Result<Expr, VmError> {
        let [bindings, body @ ..] = args else {
            return Err(d.error("let*: expects bindings and a body"));
        };
        if body.is_empty() {
            return Err(d.error("let*: expects bindings and a body"));
        }
        let pairs = self.bindings(bindings)?;
        // Each binding nests one `let` inside the previous one.
        self.enter_nested(d, pairs.len())?;
        let r = self.let_star_layers(d, &pairs, body);
        self.depth -= pairs.len();
        r
    }

    /// Counts `n` levels of nesting that a derived form adds (the code
    /// generator recurses once per level), refusing past [`MAX_DEPTH`].
    fn enter_nested(&mut self, d: &Datum, n: usize) -> Result<(), VmError> {
        if self.depth.saturating_add(n) > MAX_DEPTH {
            return Err(d.error(format!("expression nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += n;
        Ok(())
    }

    fn let_star_layers(
        &mut self,
        d: &Datum,
        pairs: &[(&str, &Datum)],
        body: &[Datum],
    ) -> Result<Expr, VmError> {
        let mark = self.scope.len();
        let mut layers = Vec::new();
        let mut result = Ok(());
        for (n, init) in pairs {
            match self.expr(init) {
                Ok(e) => {
                    let v = self.new_var(n);
                    self.bind(n, v);
                    layers.push((v, e));
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let body = result.and_then(|_| self.body(body, d));
        self.scope.truncate(mark);
        let mut e = body?;
        while let Some(layer) = layers.pop() {
            e = Expr::Let(vec![layer], Box::new(e));
        }
        Ok(e)
    }

    fn cond(&mut self, d: &Datum, clauses: &[Datum]) -> Result<Expr, VmError> {
        let Some((first, rest)) = clauses.split_first() else {
            return Ok(Expr::Unspec);
        };
        let Some([test, body @ ..]) = first.list() else {
            return Err(first.error("cond: clause must be (test expr...)"));
        };
        if self.is_special(test, "else") {
            if !rest.is_empty() {
                return Err(first.error("cond: else must be the last clause"));
            }
            return self.seq(body);
        }
        if self.depth + 1 > MAX_DEPTH {
            return Err(first.error(format!("expression nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let r = self.cond_clause(d, first, test, body, rest);
        self.depth -= 1;
        r
    }

    fn cond_clause(
        &mut self,
        d: &Datum,
        first: &Datum,
        test: &Datum,
        body: &[Datum],
        rest: &[Datum],
    ) -> Result<Expr, VmError> {
        if body.first().is_some_and(|b| self.is_special(b, "=>")) {
            // (test => f): (let ((t test)) (if t (f t) rest...)).
            let [_, f] = body else {
                return Err(first.error("cond: expected (test => receiver)"));
            };
            let test = self.expr(test)?;
            let t = self.new_var(" cond-test");
            let f = self.expr(f)?;
            let otherwise = self.cond(d, rest)?;
            let call = Expr::Call(Box::new(f), vec![Expr::Ref(t)]);
            let iff = Expr::If(Box::new(Expr::Ref(t)), Box::new(call), Box::new(otherwise));
            return Ok(Expr::Let(vec![(t, test)], Box::new(iff)));
        }
        let test = self.expr(test);
        let then = test.and_then(|t| {
            Ok((
                t,
                if body.is_empty() {
                    None
                } else {
                    Some(self.seq(body)?)
                },
            ))
        });
        let ((test, then), otherwise) = then.and_then(|t| Ok((t, self.cond(d, rest)?)))?;
        Ok(match then {
            Some(then) => Expr::If(Box::new(test), Box::new(then), Box::new(otherwise)),
            None => Expr::Or(vec![test, otherwise]),
        })
    }

    fn case(&mut self, d: &Datum, args: &[Datum]) -> Result<Expr, VmError> {
        let Some((key, clauses)) = args.split_first() else {
            return Err(d.error("case: expects a key and clauses"));
        };
        // The clauses become a chain of nested `if`s.
        self.enter_nested(d, clauses.len())?;
        let r = self.case_clauses(key, clauses);
        self.depth -= clauses.len();
        r
    }

    fn case_clauses(&mut self, key: &Datum, clauses: &[Datum]) -> Result<Expr, VmError> {
        let key = self.expr(key)?;
        let k = self.new_var(" case-key");
        let eqv = crate::builtins::lookup("eqv?")
            .expect("eqv? is a builtin")
            .id;
        let mut arms = Vec::new();
        let mut otherwise = Expr::Unspec;
        for (i, c) in clauses.iter().enumerate() {
            let Some([data, body @ ..]) = c.list() else {
                return Err(c.error("case: clause must be ((datum...) expr...)"));
            };
            if self.is_special(data, "else") {
                if i + 1 != clauses.len() {
                    return Err(c.error("case: else must be the last clause"));
                }
                otherwise = self.case_body(body, k)?;
                break;
            }
            let Some(data) = data.list() else {
                return Err(data.error("case: expected a list of data"));
            };
            let tests = data
                .iter()
                .map(|datum| {
                    let lit = match &datum.kind {
                        DatumKind::Int(i) => Expr::Int(*i),
                        DatumKind::Bool(b) => Expr::Bool(*b),
                        _ => Expr::Const(self.syn.strip(datum)),
                    };
                    Expr::Prim(eqv, vec![Expr::Ref(k), lit])
                })
                .collect();
            arms.push((Expr::Or(tests), self.case_body(body, k)?));
        }
        let mut e = otherwise;
        while let Some((test, body)) = arms.pop() {
            let test = match test {
                Expr::Or(mut v) if v.len() == 1 => v.pop().expect("one"),
                Expr::Or(v) if v.is_empty() => Expr::Bool(false),
                t => t,
            };
            e = Expr::If(Box::new(test), Box::new(body), Box::new(e));
        }
        Ok(Expr::Let(vec![(k, key)], Box::new(e)))
    }

    /// A `case` clause's body: expressions, or `=> receiver` (called with the key).
    fn case_body(&mut self, body: &[Datum], k: VarId) -> Result<Expr, VmError> {
        match body {
            [arrow, f] if self.is_special(arrow, "=>") => {
                let f = self.expr(f)?;
                Ok(Expr::Call(Box::new(f), vec![Expr::Ref(k)]))
            }
            [arrow, ..] if self.is_special(arrow, "=>") => {
                Err(arrow.error("case: expected (data => receiver)"))
            }
            _ => self.seq(body),
        }
    }

    fn do_loop(&mut self, d: &Datum, args: &[Datum]) -> Result<Expr, VmError> {
        // (do ((var init step)...) (test res...) body...) =>
        // (let <loop> ((var init)...) (if test (begin res...) (begin body... (<loop> step...))))
        let [specs, end, body @ ..] = args else {
            return Err(d.error("do: expects variable specs, an end clause and a body"));
        };
        let Some(specs) = specs.list() else {
            return Err(specs.error("do: expected a list of (var init [step])"));
        };
        let Some([test, res @ ..]) = end.list() else {
            return Err(end.error("do: expected (test expr...)"));
        };
        let lp = " do-loop";
        let mut bindings = Vec::new();
        let mut steps = vec![sym(lp, d)];
        for s in specs {
            match s.list() {
                Some([v, init]) => {
                    bindings.push(list(vec![v.clone(), init.clone()], s));
                    steps.push(v.clone());
                }
                Some([v, init, step]) => {
                    bindings.push(list(vec![v.clone(), init.clone()], s));
                    steps.push(step.clone());
                }
                _ => return Err(s.error("do: expected (var init [step])")),
            }
        }
        let mut res_begin = vec![keyword("begin", d)];
        res_begin.extend(res.iter().cloned());
        let mut loop_body = vec![keyword("begin", d)];
        loop_body.extend(body.iter().cloned());
        loop_body.push(list(steps, d));
        let iff = list(
            vec![
                keyword("if", d),
                test.clone(),
                list(res_begin, end),
                list(loop_body, d),
            ],
            d,
        );
        let named = list(
            vec![keyword("let", d), sym(lp, d), list(bindings, d), iff],
            d,
        );
        self.expr(&named)
    }
}
