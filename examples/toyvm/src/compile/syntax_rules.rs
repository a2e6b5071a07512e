//! `syntax-rules` transformers: parsing a transformer spec into a [`Macro`],
//! matching a use against its rules' patterns (literals, `_`, ellipses after
//! any subpattern, nested ellipses, vectors, dotted tails) and instantiating
//! the chosen template (nested ellipses, the `(... ...)` escape).
//!
//! Hygiene lives in [`Syntax`]: every identifier a template introduces is
//! replaced by a fresh *alias*, a symbol that records the name it stands for
//! and the environment of the macro's definition (an [`EnvId`]). A binder
//! that is an alias binds only that alias, so it cannot capture the user's
//! identifiers; a free alias is looked up in the definition environment, so
//! the user's bindings at the use site cannot capture it. The analyser does
//! the lookups (see `analyze.rs`'s `resolve`).

use crate::error::VmError;
use crate::reader::{Datum, DatumKind};
use std::collections::{HashMap, HashSet};

/// Index into [`Syntax::macros`].
pub type MacroId = usize;
/// Index into [`Syntax::envs`]: a lexical environment a macro was defined in.
pub type EnvId = usize;

/// Most expansions one top-level form may make (a macro that expands into
/// itself forever stops here with an error).
pub const MAX_EXPANSIONS: usize = 100_000;
/// Most datum nodes one expansion may produce.
pub const MAX_EXPANSION_NODES: usize = 1_000_000;
/// Deepest nesting an expansion may produce.
pub const MAX_EXPANSION_DEPTH: usize = 1_000;

/// An identifier a template introduced.
#[derive(Debug, Clone)]
pub struct Alias {
    /// The name as written in the template (itself an alias when a macro's
    /// template came from another macro's expansion).
    pub base: String,
    /// Where free occurrences are looked up: the macro's definition environment.
    pub env: EnvId,
}

/// A `syntax-rules` transformer.
#[derive(Debug)]
pub struct Macro {
    /// Its keyword (for messages).
    pub name: String,
    /// The environment of its definition.
    pub env: EnvId,
    literals: Vec<String>,
    ellipses: HashSet<String>,
    underscores: HashSet<String>,
    rules: Vec<Rule>,
}

#[derive(Debug)]
struct Rule {
    /// The pattern without its keyword position: items and dotted tail.
    items: Vec<Datum>,
    tail: Option<Datum>,
    /// Each pattern variable's ellipsis depth.
    depths: HashMap<String, usize>,
    template: Datum,
}

/// The compiler's macro state for a whole session: macros, aliases and the
/// environments they refer to. Top-level macros and the aliases in their
/// templates outlive the form that defined them.
#[derive(Debug)]
pub struct Syntax {
    /// Every macro ever defined (local ones too).
    pub macros: Vec<Macro>,
    /// Top-level keywords.
    pub globals: HashMap<String, MacroId>,
    /// Every alias, by its symbol name.
    pub aliases: HashMap<String, Alias>,
    /// Each environment's extent: how many entries of the analyser's scope
    /// stack it sees (environment 0, the top level, sees none).
    pub envs: Vec<usize>,
    /// Aliases that a top-level `define` bound: global variables of their own.
    pub global_aliases: HashSet<String>,
    /// The name of the source being compiled (`include` resolves relative
    /// file names against its directory when it is a file).
    pub source: String,
    /// Expansions made for the current top-level form.
    pub expansions: usize,
    /// `include`s performed for the current top-level form.
    pub includes: usize,
    next: u64,
}

impl Default for Syntax {
    fn default() -> Self {
        Syntax::new()
    }
}

/// The core keywords the compiler's own rewrites (`do`, `let-values`,
/// `case-lambda`, `parameterize`, `delay`, `define-record-type`, quasiquote)
/// introduce as aliases of the top level.
pub const CORE_KEYWORDS: &[&str] = &["lambda", "let", "if", "begin", "quote", "define"];

/// The alias of core keyword `name` (one of [`CORE_KEYWORDS`]) that every
/// [`Syntax`] knows: `name`, then `\u{1}0` (fresh aliases count from 1).
pub fn core_alias(name: &str) -> Option<String> {
    CORE_KEYWORDS
        .contains(&name)
        .then(|| format!("{name}\u{1}0"))
}

impl Syntax {
    /// Empty state: no macros, only the top-level environment, and the
    /// aliases of the [`CORE_KEYWORDS`].
    pub fn new() -> Syntax {
        let aliases = CORE_KEYWORDS
            .iter()
            .filter_map(|k| {
                let alias = core_alias(k)?;
                Some((
                    alias,
                    Alias {
                        base: k.to_string(),
                        env: 0,
                    },
                ))
            })
            .collect();
        Syntax {
            macros: Vec::new(),
            globals: HashMap::new(),
            aliases,
            envs: vec![0],
            global_aliases: HashSet::new(),
            source: String::new(),
            expansions: 0,
            includes: 0,
            next: 0,
        }
    }

    /// A fresh alias of `base` looked up in `env`.
    pub fn fresh(&mut self, base: &str, env: EnvId) -> String {
        let shown = self.base_name(base).to_string();
        let name = Syntax::next_name(&mut self.next, &shown);
        self.aliases.insert(
            name.clone(),
            Alias {
                base: base.to_string(),
                env,
            },
        );
        name
    }

    /// The name an identifier was written as, through every layer of renaming.
    pub fn base_name<'s>(&'s self, mut name: &'s str) -> &'s str {
        while let Some(a) = self.aliases.get(name) {
            name = &a.base;
        }
        name
    }

    /// `d` with every alias replaced by its base name (`quote` of template
    /// data gives the symbols as written).
    pub fn strip(&self, d: &Datum) -> Datum {
        let kind = match &d.kind {
            DatumKind::Sym(s) if self.aliases.contains_key(s) => {
                DatumKind::Sym(self.base_name(s).to_string())
            }
            DatumKind::List(items, tail) => DatumKind::List(
                items.iter().map(|x| self.strip(x)).collect(),
                tail.as_ref().map(|t| Box::new(self.strip(t))),
            ),
            DatumKind::Vector(items) => {
                DatumKind::Vector(items.iter().map(|x| self.strip(x)).collect())
            }
            k => k.clone(),
        };
        Datum {
            kind,
            line: d.line,
            col: d.col,
        }
    }

    /// Parses `(syntax-rules [ellipsis] (literal...) (pattern template)...)`,
    /// given as `spec`'s items after the keyword, into a macro named `name`
    /// defined in `env`.
    pub fn parse(
        &mut self,
        name: &str,
        spec: &Datum,
        args: &[Datum],
        env: EnvId,
    ) -> Result<MacroId, VmError> {
        let bad = |at: &Datum, what: &str| Err(at.error(format!("syntax-rules: {what}")));
        let (custom, lits, rules) = match args {
            [e, lits, rules @ ..] if e.sym().is_some() => (e.sym(), lits, rules),
            [lits, rules @ ..] => (None, lits, rules),
            [] => return bad(spec, "expects literals and rules"),
        };
        let Some(lits) = lits.list() else {
            return bad(lits, "expected a list of literals");
        };
        let mut literals = Vec::new();
        for l in lits {
            match l.sym() {
                Some(s) => literals.push(s.to_string()),
                None => return bad(l, "a literal must be an identifier"),
            }
        }
        let mut ellipses = HashSet::new();
        let mut underscores = HashSet::new();
        let mut syms = Vec::new();
        for r in rules {
            collect_syms(r, &mut syms);
        }
        for s in syms {
            let base = self.base_name(s);
            let is_lit = literals.iter().any(|l| l == s);
            if !is_lit && custom.is_none() && base == "..." {
                ellipses.insert(s.to_string());
            }
            if !is_lit && base == "_" {
                underscores.insert(s.to_string());
            }
        }
        if let Some(e) = custom {
            if !literals.iter().any(|l| l == e) {
                ellipses.insert(e.to_string());
            }
        }
        let mut m = Macro {
            name: name.to_string(),
            env,
            literals,
            ellipses,
            underscores,
            rules: Vec::new(),
        };
        for r in rules {
            let Some([pattern, template]) = r.list() else {
                return bad(r, "a rule must be (pattern template)");
            };
            let (items, tail) = match &pattern.kind {
                DatumKind::List(items, tail) if !items.is_empty() => {
                    (items[1..].to_vec(), tail.as_deref().cloned())
                }
                _ => {
                    return bad(
                        pattern,
                        "a pattern must be a list starting with the keyword",
                    )
                }
            };
            let mut depths = HashMap::new();
            let whole = Datum {
                kind: DatumKind::List(items.clone(), tail.clone().map(Box::new)),
                line: pattern.line,
                col: pattern.col,
            };
            m.pattern_vars(&whole, 0, &mut depths, pattern)?;
            m.check_ellipses(&items, pattern)?;
            m.rules.push(Rule {
                items,
                tail,
                depths,
                template: template.clone(),
            });
        }
        self.macros.push(m);
        Ok(self.macros.len() - 1)
    }

    /// Chooses the rule of macro `id` that `form` (a use of it) matches;
    /// `same(input, literal)` says whether identifier `input` at the use site
    /// means literal `literal` of the macro. An error if none matches.
    pub fn match_use(
        &self,
        id: MacroId,
        form: &Datum,
        same: &dyn Fn(&str, &str) -> bool,
    ) -> Result<Matched, VmError> {
        let m = &self.macros[id];
        let (fitems, ftail) = match &form.kind {
            DatumKind::List(items, tail) if !items.is_empty() => (&items[1..], tail.as_deref()),
            _ => (&[][..], None),
        };
        for (i, r) in m.rules.iter().enumerate() {
            let mut b = HashMap::new();
            if m.match_seq(&r.items, r.tail.as_ref(), fitems, ftail, form, &mut b, same) {
                let b = b
                    .into_iter()
                    .map(|(k, v)| {
                        let d = r.depths.get(&k).copied().unwrap_or(0);
                        (k, (d, v))
                    })
                    .collect();
                return Ok(Matched { rule: i, b });
            }
        }
        Err(form.error(format!(
            "{}: no syntax-rules pattern matches this use",
            self.base_name(&m.name)
        )))
    }

    /// Instantiates the template of the rule `matched` chose for `form`, a use
    /// of macro `id`, renaming the identifiers the template introduces.
    pub fn instantiate(
        &mut self,
        id: MacroId,
        matched: Matched,
        form: &Datum,
    ) -> Result<Datum, VmError> {
        self.expansions += 1;
        if self.expansions > MAX_EXPANSIONS {
            return Err(form.error(format!(
                "macro expansion: more than {MAX_EXPANSIONS} expansions in one form (a macro that never stops expanding?)"
            )));
        }
        let Syntax {
            macros,
            aliases,
            next,
            ..
        } = self;
        let m = &macros[id];
        let env = m.env;
        let mut inst = Instantiate {
            m,
            next,
            renamed: HashMap::new(),
            budget: MAX_EXPANSION_NODES,
            at: form,
        };
        let out = inst.template(&m.rules[matched.rule].template, &matched.b, false)?;
        for (alias, base) in inst.renamed.into_values() {
            aliases.insert(alias, Alias { base, env });
        }
        if deeper_than(&out, MAX_EXPANSION_DEPTH) {
            return Err(form.error(format!(
                "macro expansion: result nested deeper than {MAX_EXPANSION_DEPTH} levels"
            )));
        }
        Ok(out)
    }

    /// Allocates a fresh alias name for `base` (registered by the caller).
    fn next_name(next: &mut u64, base: &str) -> String {
        *next += 1;
        format!("{base}\u{1}{next}")
    }
}

fn collect_syms<'d>(d: &'d Datum, out: &mut Vec<&'d str>) {
    match &d.kind {
        DatumKind::Sym(s) => out.push(s),
        DatumKind::List(items, tail) => {
            for i in items {
                collect_syms(i, out);
            }
            if let Some(t) = tail {
                collect_syms(t, out);
            }
        }
        DatumKind::Vector(items) => {
            for i in items {
                collect_syms(i, out);
            }
        }
        _ => {}
    }
}

/// How many nodes `d` has.
fn size(d: &Datum) -> usize {
    match &d.kind {
        DatumKind::List(items, tail) => {
            1 + items.iter().map(size).sum::<usize>() + tail.as_ref().map_or(0, |t| size(t))
        }
        DatumKind::Vector(items) => 1 + items.iter().map(size).sum::<usize>(),
        _ => 1,
    }
}

fn deeper_than(d: &Datum, limit: usize) -> bool {
    if limit == 0 {
        return true;
    }
    match &d.kind {
        DatumKind::List(items, tail) => {
            items.iter().any(|i| deeper_than(i, limit - 1))
                || tail.as_ref().is_some_and(|t| deeper_than(t, limit - 1))
        }
        DatumKind::Vector(items) => items.iter().any(|i| deeper_than(i, limit - 1)),
        _ => false,
    }
}

/// What a pattern variable matched: one datum, or a sequence (one per
/// repetition of the ellipsis it sits under).
#[derive(Debug, Clone)]
enum Match {
    One(Datum),
    Seq(Vec<Match>),
}

/// Pattern variables with their remaining ellipsis depth.
type Bindings = HashMap<String, (usize, Match)>;

/// A use matched against a macro: the rule chosen and what its pattern
/// variables matched.
#[derive(Debug)]
pub struct Matched {
    rule: usize,
    b: Bindings,
}

/// A list from `items` and dotted `tail` (the empty list when both are empty).
fn rebuild(items: &[Datum], tail: Option<&Datum>, at: &Datum) -> Datum {
    if items.is_empty() {
        if let Some(t) = tail {
            return t.clone();
        }
    }
    Datum {
        kind: DatumKind::List(items.to_vec(), tail.map(|t| Box::new(t.clone()))),
        line: at.line,
        col: at.col,
    }
}

impl Macro {
    fn is_ellipsis(&self, d: &Datum) -> bool {
        d.sym().is_some_and(|s| self.ellipses.contains(s))
    }

    /// Records `p`'s pattern variables at ellipsis depth `depth`.
    fn pattern_vars(
        &self,
        p: &Datum,
        depth: usize,
        out: &mut HashMap<String, usize>,
        at: &Datum,
    ) -> Result<(), VmError> {
        match &p.kind {
            DatumKind::Sym(s) => {
                if self.ellipses.contains(s)
                    || self.underscores.contains(s)
                    || self.literals.contains(s)
                {
                    return Ok(());
                }
                if out.insert(s.clone(), depth).is_some() {
                    return Err(
                        at.error(format!("syntax-rules: pattern variable {s} appears twice"))
                    );
                }
                Ok(())
            }
            DatumKind::List(items, _) | DatumKind::Vector(items) => {
                for (i, x) in items.iter().enumerate() {
                    let under = items.get(i + 1).is_some_and(|n| self.is_ellipsis(n));
                    self.pattern_vars(x, depth + usize::from(under), out, at)?;
                }
                if let DatumKind::List(_, Some(t)) = &p.kind {
                    self.pattern_vars(t, depth, out, at)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Checks that every pattern level has at most one ellipsis, each after a
    /// subpattern.
    fn check_ellipses(&self, items: &[Datum], at: &Datum) -> Result<(), VmError> {
        let n = items.iter().filter(|x| self.is_ellipsis(x)).count();
        if n > 1 {
            return Err(at.error("syntax-rules: more than one ellipsis in one pattern list"));
        }
        if items.first().is_some_and(|x| self.is_ellipsis(x)) {
            return Err(at.error("syntax-rules: an ellipsis must follow a subpattern"));
        }
        for x in items {
            match &x.kind {
                DatumKind::List(sub, _) => {
                    if sub.first().is_some_and(|x| self.is_ellipsis(x)) {
                        return Err(x.error("syntax-rules: an ellipsis must follow a subpattern"));
                    }
                    self.check_ellipses(sub, x)?;
                }
                DatumKind::Vector(sub) => {
                    if sub.first().is_some_and(|x| self.is_ellipsis(x)) {
                        return Err(x.error("syntax-rules: an ellipsis must follow a subpattern"));
                    }
                    self.check_ellipses(sub, x)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn pmatch(
        &self,
        p: &Datum,
        f: &Datum,
        b: &mut HashMap<String, Match>,
        same: &dyn Fn(&str, &str) -> bool,
    ) -> bool {
        match &p.kind {
            DatumKind::Sym(s) => {
                if self.underscores.contains(s) {
                    return true;
                }
                if self.literals.contains(s) {
                    return f.sym().is_some_and(|x| same(x, s));
                }
                b.insert(s.clone(), Match::One(f.clone()));
                true
            }
            DatumKind::List(items, tail) => match &f.kind {
                DatumKind::List(fi, ft) => {
                    self.match_seq(items, tail.as_deref(), fi, ft.as_deref(), f, b, same)
                }
                _ => false,
            },
            DatumKind::Vector(items) => match &f.kind {
                DatumKind::Vector(fi) => self.match_seq(items, None, fi, None, f, b, same),
                _ => false,
            },
            k => *k == f.kind,
        }
    }

    /// Matches pattern items (with optional dotted tail) against a form's items
    /// (with optional dotted tail).
    #[allow(clippy::too_many_arguments)]
    fn match_seq(
        &self,
        items: &[Datum],
        ptail: Option<&Datum>,
        fitems: &[Datum],
        ftail: Option<&Datum>,
        at: &Datum,
        b: &mut HashMap<String, Match>,
        same: &dyn Fn(&str, &str) -> bool,
    ) -> bool {
        if ptail.is_none() && ftail.is_some() {
            return false;
        }
        let pairwise = |ps: &[Datum], fs: &[Datum], b: &mut HashMap<String, Match>| {
            ps.iter().zip(fs).all(|(p, f)| self.pmatch(p, f, b, same))
        };
        match items.iter().position(|x| self.is_ellipsis(x)) {
            // An ellipsis with nothing before it (only reachable through a
            // pattern's dotted tail, which the parse does not check) matches
            // nothing.
            Some(0) => false,
            Some(e) => {
                let (before, rep, after) = (&items[..e - 1], &items[e - 1], &items[e + 1..]);
                if fitems.len() < before.len() + after.len() {
                    return false;
                }
                let n = fitems.len() - before.len() - after.len();
                if !pairwise(before, &fitems[..before.len()], b) {
                    return false;
                }
                let mut vars = HashMap::new();
                if self.pattern_vars(rep, 0, &mut vars, at).is_err() {
                    return false;
                }
                let mut seqs: HashMap<String, Vec<Match>> =
                    vars.keys().map(|k| (k.clone(), Vec::new())).collect();
                for f in &fitems[before.len()..before.len() + n] {
                    let mut one = HashMap::new();
                    if !self.pmatch(rep, f, &mut one, same) {
                        return false;
                    }
                    for (k, v) in one {
                        seqs.entry(k).or_default().push(v);
                    }
                }
                for (k, v) in seqs {
                    b.insert(k, Match::Seq(v));
                }
                if !pairwise(after, &fitems[before.len() + n..], b) {
                    return false;
                }
                match ptail {
                    Some(pt) => self.pmatch(pt, &rebuild(&[], ftail, at), b, same),
                    None => true,
                }
            }
            None => match ptail {
                None => fitems.len() == items.len() && pairwise(items, fitems, b),
                Some(pt) => {
                    fitems.len() >= items.len()
                        && pairwise(items, &fitems[..items.len()], b)
                        && self.pmatch(pt, &rebuild(&fitems[items.len()..], ftail, at), b, same)
                }
            },
        }
    }
}

/// One template instantiation: the renamings it made (symbol as written to
/// (alias, base)) and its node budget.
struct Instantiate<'m> {
    m: &'m Macro,
    next: &'m mut u64,
    renamed: HashMap<String, (String, String)>,
    budget: usize,
    at: &'m Datum,
}

impl Instantiate<'_> {
    fn err(&self, what: &str) -> VmError {
        self.at.error(format!("{}: {what}", self.m.name))
    }

    fn node(&mut self, d: Datum) -> Result<Datum, VmError> {
        if self.budget == 0 {
            return Err(self.err(&format!(
                "macro expansion: result larger than {MAX_EXPANSION_NODES} nodes"
            )));
        }
        self.budget -= 1;
        Ok(d)
    }

    fn rename(&mut self, s: &str) -> String {
        if let Some((alias, _)) = self.renamed.get(s) {
            return alias.clone();
        }
        let alias = Syntax::next_name(self.next, s.split('\u{1}').next().unwrap_or(s));
        self.renamed
            .insert(s.to_string(), (alias.clone(), s.to_string()));
        alias
    }

    fn template(&mut self, t: &Datum, b: &Bindings, escaped: bool) -> Result<Datum, VmError> {
        let at = |kind| Datum {
            kind,
            line: t.line,
            col: t.col,
        };
        match &t.kind {
            DatumKind::Sym(s) => match b.get(s) {
                Some((0, Match::One(d))) => {
                    // A substituted datum counts for all of its nodes.
                    let n = size(d);
                    if n > self.budget {
                        return Err(self.err(&format!(
                            "macro expansion: result larger than {MAX_EXPANSION_NODES} nodes"
                        )));
                    }
                    self.budget -= n;
                    Ok(d.clone())
                }
                Some(_) => Err(self.err(&format!(
                    "pattern variable {s} needs an ellipsis after it in the template"
                ))),
                None if !escaped && self.m.ellipses.contains(s) => {
                    Err(self.err("an ellipsis in a template must follow a subtemplate"))
                }
                None => {
                    let a = self.rename(s);
                    self.node(at(DatumKind::Sym(a)))
                }
            },
            DatumKind::List(items, tail) => {
                if !escaped && tail.is_none() && items.len() == 2 && self.m.is_ellipsis(&items[0]) {
                    return self.template(&items[1], b, true);
                }
                let mut out = self.items(items, b, escaped)?;
                let mut new_tail = None;
                if let Some(tl) = tail {
                    match self.template(tl, b, escaped)?.kind {
                        DatumKind::List(more, rest) => {
                            out.extend(more);
                            new_tail = rest;
                        }
                        k => new_tail = Some(Box::new(at(k))),
                    }
                }
                self.node(at(DatumKind::List(out, new_tail)))
            }
            DatumKind::Vector(items) => {
                let out = self.items(items, b, escaped)?;
                self.node(at(DatumKind::Vector(out)))
            }
            _ => self.node(t.clone()),
        }
    }

    fn items(
        &mut self,
        items: &[Datum],
        b: &Bindings,
        escaped: bool,
    ) -> Result<Vec<Datum>, VmError> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let sub = &items[i];
            let mut k = 0;
            while !escaped && items.get(i + 1 + k).is_some_and(|x| self.m.is_ellipsis(x)) {
                k += 1;
            }
            if k == 0 {
                out.push(self.template(sub, b, escaped)?);
            } else {
                self.repeat(sub, b, k, &mut out)?;
            }
            i += 1 + k;
        }
        Ok(out)
    }

    /// Instantiates `sub` followed by `k` ellipses, appending to `out`.
    fn repeat(
        &mut self,
        sub: &Datum,
        b: &Bindings,
        k: usize,
        out: &mut Vec<Datum>,
    ) -> Result<(), VmError> {
        let mut occ = HashMap::new();
        self.occurrences(sub, k - 1, &mut occ);
        // Iterate the variables that have depth left once the ellipses inside
        // `sub` (and the k - 1 further ones) are accounted for.
        let vars: Vec<&String> = occ
            .iter()
            .filter(|(v, inner)| b.get(*v).is_some_and(|(d, _)| d > *inner))
            .map(|(v, _)| v)
            .collect();
        if vars.is_empty() {
            return Err(self.err("no pattern variable to repeat before an ellipsis"));
        }
        let mut len = None;
        for v in &vars {
            let Some((_, Match::Seq(s))) = b.get(*v) else {
                return Err(self.err("pattern variable depth mismatch"));
            };
            if len.is_some_and(|l| l != s.len()) {
                return Err(
                    self.err("pattern variables under one ellipsis matched different lengths")
                );
            }
            len = Some(s.len());
        }
        for i in 0..len.unwrap_or(0) {
            let mut b2 = b.clone();
            for v in &vars {
                if let Some((d, Match::Seq(s))) = b.get(*v) {
                    b2.insert((*v).clone(), (d - 1, s[i].clone()));
                }
            }
            if k == 1 {
                out.push(self.template(sub, &b2, false)?);
            } else {
                self.repeat(sub, &b2, k - 1, out)?;
            }
        }
        Ok(())
    }

    /// Each pattern variable in template `t`, with the fewest ellipses that
    /// follow it inside `t` (plus `extra`).
    fn occurrences(&self, t: &Datum, extra: usize, out: &mut HashMap<String, usize>) {
        match &t.kind {
            DatumKind::Sym(s) => {
                let e = out.entry(s.clone()).or_insert(extra);
                *e = (*e).min(extra);
            }
            DatumKind::List(items, tail) => {
                if tail.is_none() && items.len() == 2 && self.m.is_ellipsis(&items[0]) {
                    return self.occurrences(&items[1], extra, out);
                }
                let mut i = 0;
                while i < items.len() {
                    let mut k = 0;
                    while items.get(i + 1 + k).is_some_and(|x| self.m.is_ellipsis(x)) {
                        k += 1;
                    }
                    self.occurrences(&items[i], extra + k, out);
                    i += 1 + k;
                }
                if let Some(tl) = tail {
                    self.occurrences(tl, extra, out);
                }
            }
            DatumKind::Vector(items) => {
                let l = Datum {
                    kind: DatumKind::List(items.clone(), None),
                    line: t.line,
                    col: t.col,
                };
                self.occurrences(&l, extra, out);
            }
            _ => {}
        }
    }
}
