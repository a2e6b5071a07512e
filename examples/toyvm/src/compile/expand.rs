//! The analyser's syntactic environment: resolving identifiers (locals,
//! keywords, aliases a macro template introduced, globals), expanding macro
//! uses, and the forms that define or splice: top-level forms, bodies (internal
//! `define`, `define-syntax`, `define-values`, `define-record-type`, spliced
//! `begin`), `let-syntax` / `letrec-syntax`, `syntax-error`, `cond-expand`
//! and `include`.

use super::analyze::{list, sym, Analyzer, Binding, Expr, VarId};
use super::syntax_rules::{EnvId, MacroId};
use crate::error::VmError;
use crate::reader::{Datum, DatumKind};
use std::collections::VecDeque;

/// The features `cond-expand` knows this VM to have.
pub const FEATURES: &[&str] = &["r7rs", "exact-closed", "full-unicode", "toyvm", "flipgc"];

/// Most `include`s one top-level form may perform (a file that includes
/// itself stops here with an error).
pub const MAX_INCLUDES: usize = 1_000;

/// What an identifier means where it appears.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// A local variable.
    Var(VarId),
    /// A keyword bound to a `syntax-rules` macro.
    Macro(MacroId),
    /// Not bound locally: a core form, a derived form or a global variable,
    /// by its global name.
    Free(String),
}

/// [`Resolved`] without allocating.
enum Found<'s> {
    Bound(Binding),
    Keyword(MacroId),
    Free(&'s str),
}

impl Analyzer<'_> {
    /// What `name` means here.
    pub(super) fn resolve(&self, name: &str) -> Resolved {
        self.resolve_in(name, self.scope.len())
    }

    /// What `name` means to code that sees only the first `limit` scope
    /// entries. An alias not bound under its own name means what its base name
    /// means in the environment of the macro that introduced it.
    pub(super) fn resolve_in(&self, name: &str, limit: usize) -> Resolved {
        match self.lookup_in(name, limit) {
            Found::Bound(Binding::Var(v)) => Resolved::Var(v),
            Found::Bound(Binding::Macro(m)) | Found::Keyword(m) => Resolved::Macro(m),
            Found::Free(g) => Resolved::Free(g.to_string()),
        }
    }

    /// Whether `name` is free here and names global, core form or derived
    /// form `global` (no allocation: the analyser asks this for every form).
    pub(super) fn is_free_as(&self, name: &str, global: &str) -> bool {
        matches!(self.lookup_in(name, self.scope.len()), Found::Free(g) if g == global)
    }

    fn lookup_in<'s>(&'s self, name: &'s str, mut limit: usize) -> Found<'s> {
        let mut name = name;
        loop {
            let found = self.scope[..limit.min(self.scope.len())]
                .iter()
                .rev()
                .find(|(n, _)| n == name);
            if let Some((_, b)) = found {
                return Found::Bound(*b);
            }
            if self.syn.global_aliases.contains(name) {
                break;
            }
            match self.syn.aliases.get(name) {
                Some(a) => {
                    limit = limit.min(self.syn.envs[a.env]);
                    name = &a.base;
                }
                None => break,
            }
        }
        match self.syn.globals.get(name) {
            Some(&m) => Found::Keyword(m),
            None => Found::Free(name),
        }
    }

    /// The global variable `name` refers to when it is not bound locally.
    pub(super) fn global_name(&self, name: &str) -> String {
        match self.resolve(name) {
            Resolved::Free(g) => g,
            _ => self.syn.base_name(name).to_string(),
        }
    }

    /// A new environment id for a macro defined here (extent patched later
    /// for bodies and `letrec-syntax`).
    fn new_env(&mut self) -> EnvId {
        self.syn.envs.push(self.scope.len());
        self.syn.envs.len() - 1
    }

    /// Expands `form`, a use of macro `m`, once.
    pub(super) fn expand_use(&mut self, m: MacroId, form: &Datum) -> Result<Datum, VmError> {
        let limit = self.syn.envs[self.syn.macros[m].env];
        let matched = {
            // A literal matches an input identifier when both mean the same
            // thing: the input where it is used, the literal where the macro
            // was defined.
            let same =
                |input: &str, literal: &str| self.resolve(input) == self.resolve_in(literal, limit);
            self.syn.match_use(m, form, &same)?
        };
        self.syn.instantiate(m, matched, form)
    }

    /// `form`, with macro uses at its head expanded until it is not one.
    pub(super) fn expand_head(&mut self, form: &Datum) -> Result<Datum, VmError> {
        let mut f = form.clone();
        loop {
            let head = match &f.kind {
                DatumKind::List(items, _) => items.first().and_then(|h| h.sym()),
                _ => None,
            };
            let m = match head {
                Some(h) => match self.resolve(h) {
                    Resolved::Macro(m) => m,
                    _ => return Ok(f),
                },
                None => return Ok(f),
            };
            f = self.expand_use(m, &f)?;
        }
    }

    /// Parses a transformer spec `(syntax-rules ...)` for keyword `name`.
    fn transformer(&mut self, name: &str, spec: &Datum, env: EnvId) -> Result<MacroId, VmError> {
        match spec.list() {
            Some([h, args @ ..]) if self.is_special(h, "syntax-rules") => {
                self.syn.parse(name, spec, args, env)
            }
            _ => Err(spec.error(format!(
                "{}: expected a (syntax-rules ...) transformer",
                self.syn.base_name(name)
            ))),
        }
    }

    /// `(define-syntax name spec)`'s name and spec.
    fn syntax_def<'d>(&self, form: &'d Datum) -> Result<(&'d str, &'d Datum), VmError> {
        match form.list() {
            Some([_, name, spec]) if name.sym().is_some() => {
                Ok((name.sym().unwrap_or_default(), spec))
            }
            _ => Err(form.error("define-syntax: expects (define-syntax name transformer)")),
        }
    }

    /// One top-level form.
    pub(super) fn toplevel(&mut self, form: &Datum) -> Result<Expr, VmError> {
        let form = self.expand_head(form)?;
        let Some([head, rest @ ..]) = form.list() else {
            return self.expr(&form);
        };
        if self.is_special(head, "define") {
            let target = match rest.first().map(|t| (&t.kind, t)) {
                Some((DatumKind::List(items, _), _)) => items.first(),
                Some((_, t)) => Some(t),
                None => None,
            };
            if let Some(n) = target.and_then(|t| t.sym()) {
                if self.syn.aliases.contains_key(n) {
                    // A top-level definition a template introduced defines a
                    // global of its own, which the user's names cannot reach.
                    self.syn.global_aliases.insert(n.to_string());
                }
                self.syn.globals.remove(n);
            }
            let (name, value) = self.define_parts(&form, rest)?;
            return Ok(Expr::GlobalDef(self.global_name(&name), Box::new(value)));
        }
        if self.is_special(head, "define-syntax") {
            let (name, spec) = self.syntax_def(&form)?;
            if self.syn.aliases.contains_key(name) {
                self.syn.global_aliases.insert(name.to_string());
            }
            let id = self.transformer(name, spec, 0)?;
            self.syn.globals.insert(name.to_string(), id);
            return Ok(Expr::Unspec);
        }
        if self.is_special(head, "import") {
            super::derived::check_import(&form, rest)?;
            return Ok(Expr::Unspec);
        }
        let spliced = if self.is_special(head, "define-record-type") {
            vec![super::derived::define_record_type(&form, rest)?]
        } else if self.is_special(head, "define-values") {
            self.define_values(&form, rest)?
        } else if self.is_special(head, "begin") && !rest.is_empty() {
            rest.to_vec()
        } else if self.is_special(head, "cond-expand") {
            self.cond_expand(&form, rest)?
        } else if self.is_special(head, "include") || self.is_special(head, "include-ci") {
            self.include(&form, rest, self.is_special(head, "include-ci"))?
        } else {
            return self.expr(&form);
        };
        let body = spliced
            .iter()
            .map(|f| self.toplevel(f))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match body.len() {
            0 => Expr::Unspec,
            _ => Expr::Seq(body),
        })
    }

    /// A body: its leading definitions (after expanding macro uses and
    /// splicing `begin`, `cond-expand` and `include`) become a `letrec*` around the expressions. Keywords
    /// an internal `define-syntax` binds see every definition of the body.
    pub(super) fn body(&mut self, forms: &[Datum], at: &Datum) -> Result<Expr, VmError> {
        let mark = self.scope.len();
        let r = self.body_in_scope(forms, at);
        self.scope.truncate(mark);
        r
    }

    fn body_in_scope(&mut self, forms: &[Datum], _at: &Datum) -> Result<Expr, VmError> {
        let mut queue: VecDeque<Datum> = forms.iter().cloned().collect();
        let mut defs = Vec::new();
        let mut envs = Vec::new();
        let mut exprs = Vec::new();
        while let Some(f) = queue.pop_front() {
            let f = self.expand_head(&f)?;
            let Some([h, args @ ..]) = f.list() else {
                exprs.push(f);
                break;
            };
            let more = if self.is_special(h, "define") {
                defs.push(f.clone());
                continue;
            } else if self.is_special(h, "define-syntax") {
                let (name, spec) = self.syntax_def(&f)?;
                let env = self.new_env();
                let id = self.transformer(name, spec, env)?;
                self.scope.push((name.to_string(), Binding::Macro(id)));
                envs.push(env);
                continue;
            } else if self.is_special(h, "begin") {
                args.to_vec()
            } else if self.is_special(h, "define-record-type") {
                vec![super::derived::define_record_type(&f, args)?]
            } else if self.is_special(h, "define-values") {
                self.define_values(&f, args)?
            } else if self.is_special(h, "cond-expand") {
                self.cond_expand(&f, args)?
            } else if self.is_special(h, "include") || self.is_special(h, "include-ci") {
                self.include(&f, args, self.is_special(h, "include-ci"))?
            } else {
                exprs.push(f);
                break;
            };
            for g in more.into_iter().rev() {
                queue.push_front(g);
            }
        }
        exprs.extend(queue);
        let mut vars = Vec::new();
        for f in &defs {
            let items = f.list().expect("a define form");
            let name = match items.get(1).map(|t| &t.kind) {
                Some(DatumKind::Sym(s)) => s.as_str(),
                Some(DatumKind::List(v, _)) if !v.is_empty() => v[0]
                    .sym()
                    .ok_or_else(|| v[0].error("define: name must be a symbol"))?,
                _ => return Err(f.error("define: bad target")),
            };
            let v = self.new_var(name);
            self.vars[v].mutated = true;
            self.bind(name, v);
            vars.push(v);
        }
        for e in envs {
            self.syn.envs[e] = self.scope.len();
        }
        let mut pairs = Vec::new();
        for (f, v) in defs.iter().zip(vars) {
            let items = f.list().expect("a define form");
            let (_, value) = self.define_parts(f, &items[1..])?;
            pairs.push((v, value));
        }
        let rest = self.seq(&exprs)?;
        Ok(if pairs.is_empty() {
            rest
        } else {
            Expr::Letrec(pairs, Box::new(rest))
        })
    }

    /// `(let-syntax ((keyword spec) ...) body...)`, or `letrec-syntax` when
    /// `rec` (whose transformers see their own keywords).
    pub(super) fn let_syntax(
        &mut self,
        d: &Datum,
        args: &[Datum],
        rec: bool,
    ) -> Result<Expr, VmError> {
        let what = if rec { "letrec-syntax" } else { "let-syntax" };
        let [bindings, body @ ..] = args else {
            return Err(d.error(format!("{what}: expects bindings and a body")));
        };
        let Some(bs) = bindings.list() else {
            return Err(bindings.error(format!("{what}: expected ((keyword transformer) ...)")));
        };
        let mark = self.scope.len();
        let env = self.new_env();
        let mut ids = Vec::new();
        for b in bs {
            match b.list() {
                Some([n, spec]) if n.sym().is_some() => {
                    let name = n.sym().unwrap_or_default();
                    ids.push((name.to_string(), self.transformer(name, spec, env)?));
                }
                _ => return Err(b.error(format!("{what}: expected (keyword transformer)"))),
            }
        }
        for (n, id) in ids {
            self.scope.push((n, Binding::Macro(id)));
        }
        if rec {
            self.syn.envs[env] = self.scope.len();
        }
        let r = self.body(body, d);
        self.scope.truncate(mark);
        r
    }

    /// `(syntax-error "message" form...)`: the error it reports.
    pub(super) fn syntax_error(&self, d: &Datum, args: &[Datum]) -> VmError {
        let msg = match args.first().map(|m| &m.kind) {
            Some(DatumKind::Str(s)) => s.clone(),
            _ => "syntax-error".to_string(),
        };
        let irritants: Vec<String> = args
            .iter()
            .skip(1)
            .map(|x| super::derived::show(&self.syn.strip(x)))
            .collect();
        if irritants.is_empty() {
            d.error(msg)
        } else {
            d.error(format!("{msg} {}", irritants.join(" ")))
        }
    }

    /// `(cond-expand (requirement body...) ...)`: the body of the first
    /// clause whose requirement holds (none if no clause does).
    pub(super) fn cond_expand(&self, d: &Datum, clauses: &[Datum]) -> Result<Vec<Datum>, VmError> {
        for c in clauses {
            let Some([req, body @ ..]) = c.list() else {
                return Err(c.error("cond-expand: clause must be (requirement body...)"));
            };
            if self.is_special(req, "else") || self.feature(&self.syn.strip(req))? {
                return Ok(body.to_vec());
            }
        }
        let _ = d;
        Ok(Vec::new())
    }

    fn feature(&self, req: &Datum) -> Result<bool, VmError> {
        if let Some(s) = req.sym() {
            return Ok(FEATURES.contains(&s));
        }
        match req.list() {
            Some([h, rest @ ..]) if h.sym() == Some("and") => {
                for r in rest {
                    if !self.feature(r)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Some([h, rest @ ..]) if h.sym() == Some("or") => {
                for r in rest {
                    if self.feature(r)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Some([h, r]) if h.sym() == Some("not") => Ok(!self.feature(r)?),
            Some([h, lib]) if h.sym() == Some("library") => Ok(match lib.list() {
                Some([s, n]) => {
                    s.sym() == Some("scheme")
                        && n.sym()
                            .is_some_and(|n| super::derived::LIBRARIES.contains(&n))
                }
                _ => false,
            }),
            _ => Err(req.error("cond-expand: bad feature requirement")),
        }
    }

    /// `(include "file" ...)`: the forms of the files, in order. A relative
    /// name is looked up beside the source being compiled when that is a file,
    /// else in the current directory. `include-ci` folds symbols to lower case.
    pub(super) fn include(
        &mut self,
        d: &Datum,
        files: &[Datum],
        fold: bool,
    ) -> Result<Vec<Datum>, VmError> {
        let what = if fold { "include-ci" } else { "include" };
        if files.is_empty() {
            return Err(d.error(format!("{what}: expects file names")));
        }
        let mut out = Vec::new();
        for f in files {
            let DatumKind::Str(name) = &f.kind else {
                return Err(f.error(format!("{what}: a file name must be a string")));
            };
            self.syn.includes += 1;
            if self.syn.includes > MAX_INCLUDES {
                return Err(f.error(format!(
                    "{what}: more than {MAX_INCLUDES} includes in one form (a file that includes itself?)"
                )));
            }
            let mut path = std::path::PathBuf::from(name);
            let source = std::path::Path::new(&self.syn.source);
            if path.is_relative() && source.is_file() {
                if let Some(dir) = source.parent() {
                    path = dir.join(name);
                }
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| f.error(format!("{what}: cannot read {}: {e}", path.display())))?;
            let text = crate::reader::decode(&bytes)
                .map_err(|e| f.error(format!("{what}: {}: {}", path.display(), e.message)))?;
            let forms = crate::reader::read_all(text)
                .map_err(|e| f.error(format!("{what}: {}: {}", path.display(), e.message)))?;
            out.extend(
                forms
                    .iter()
                    .map(|x| if fold { fold_case(x) } else { x.clone() }),
            );
        }
        Ok(out)
    }

    /// `(define-values formals expr)` as definitions: a hidden variable holds
    /// the list of values (a consumer with the same formals checks their
    /// number), then each variable takes its element.
    pub(super) fn define_values(
        &mut self,
        d: &Datum,
        args: &[Datum],
    ) -> Result<Vec<Datum>, VmError> {
        let [formals, e] = args else {
            return Err(d.error("define-values: expects formals and an expression"));
        };
        let (fixed, rest): (Vec<&Datum>, Option<&Datum>) = match &formals.kind {
            DatumKind::Sym(_) => (Vec::new(), Some(formals)),
            DatumKind::List(items, tail) => (items.iter().collect(), tail.as_deref()),
            _ => return Err(formals.error("define-values: bad formals")),
        };
        let mut names = Vec::new();
        for v in fixed.iter().copied().chain(rest) {
            match v.sym() {
                Some(s) => names.push(s.to_string()),
                None => return Err(v.error("define-values: a variable must be a symbol")),
            }
        }
        // Core names by aliases of the top level, so local bindings of
        // `lambda` or `list` do not change the expansion.
        let mut core = |n: &str| sym(&self.syn.fresh(n, 0), d);
        let (lambda, listp, list_ref) = (core("lambda"), core("list"), core("list-ref"));
        let cwv = core("%call-with-values");
        let tmp = core("define-values");
        let params: Vec<Datum> = names.iter().map(|n| core(n)).collect();
        let nfixed = fixed.len();
        let consumer_formals = match rest {
            None => list(params.clone(), d),
            Some(_) if nfixed == 0 => params[0].clone(),
            Some(_) => Datum {
                kind: DatumKind::List(
                    params[..nfixed].to_vec(),
                    Some(Box::new(params[nfixed].clone())),
                ),
                line: d.line,
                col: d.col,
            },
        };
        let mut collect = vec![listp];
        collect.extend(params.iter().cloned());
        let consumer = list(vec![lambda.clone(), consumer_formals, list(collect, d)], d);
        let producer = list(vec![lambda, list(vec![], d), e.clone()], d);
        let define = sym("define", d);
        let mut out = vec![list(
            vec![
                define.clone(),
                tmp.clone(),
                list(vec![cwv, producer, consumer], d),
            ],
            d,
        )];
        for (i, n) in names.iter().enumerate() {
            let k = Datum {
                kind: DatumKind::Int(i as i64),
                line: d.line,
                col: d.col,
            };
            out.push(list(
                vec![
                    define.clone(),
                    sym(n, d),
                    list(vec![list_ref.clone(), tmp.clone(), k], d),
                ],
                d,
            ));
        }
        Ok(out)
    }
}

/// `d` with every symbol folded to lower case (`include-ci`).
fn fold_case(d: &Datum) -> Datum {
    let kind = match &d.kind {
        DatumKind::Sym(s) => DatumKind::Sym(s.to_lowercase()),
        DatumKind::List(items, tail) => DatumKind::List(
            items.iter().map(fold_case).collect(),
            tail.as_ref().map(|t| Box::new(fold_case(t))),
        ),
        DatumKind::Vector(items) => DatumKind::Vector(items.iter().map(fold_case).collect()),
        k => k.clone(),
    };
    Datum {
        kind,
        line: d.line,
        col: d.col,
    }
}
