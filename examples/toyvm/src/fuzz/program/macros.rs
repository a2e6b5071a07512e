//! The generator's macro and quasiquote forms: `define-syntax` with
//! `syntax-rules` (recursive macros whose template binders share names with the
//! program's variables, ellipses at the end, in the middle and nested, vector
//! and literal patterns, the `(... ...)` escape, macros that define, templates
//! used where the program shadows `if` and `list`), `let-syntax` /
//! `letrec-syntax`, and quasiquote with `unquote` and `unquote-splicing`
//! (vectors, dotted tails, nested levels). All of it is standard R7RS, so the
//! differential mode uses it too; in sloppy mode some transformers are
//! malformed on purpose.

use super::{Gen, Local, Ty};

/// Malformed transformers (sloppy mode): each must be a clean syntax error.
const BROKEN: &[&str] = &[
    "(syntax-rules)",
    "(syntax-rules () (_ 1))",
    "(syntax-rules () ((_ ... a) a))",
    "(syntax-rules () ((_ a ... b ...) a))",
    "(syntax-rules () ((_ a) (a ...)))",
    "(syntax-rules () ((_ a ...) a))",
    "(syntax-rules () ((_ a a) a))",
    "(syntax-rules (1) ((_) 1))",
    "42",
    "(syntax-rules () ((_ x) (M (x x))))",
    "(syntax-rules () ((_ x) (M x)))",
];

impl Gen<'_> {
    /// A name the program already uses for a variable (to test that template
    /// binders do not capture it), or a fresh one.
    fn binder_name(&mut self) -> String {
        let known: Vec<String> = self
            .locals
            .iter()
            .chain(self.globals.iter())
            .map(|l| l.name.clone())
            .collect();
        if !known.is_empty() && self.rng.chance(60) {
            return known[self.rng.below(known.len())].clone();
        }
        self.rng.pick(&["t", "tmp", "x", "loop"]).to_string()
    }

    fn exprs(&mut self, n: usize, depth: usize) -> Vec<String> {
        (0..n).map(|_| self.expr(depth)).collect()
    }

    /// Fewer than `below` expressions.
    fn some_exprs(&mut self, below: usize, depth: usize) -> Vec<String> {
        let n = self.rng.below(below);
        self.exprs(n, depth)
    }

    /// A top-level `define-syntax` and uses of it (written out).
    pub(super) fn macro_form(&mut self) -> String {
        let m = self.name("m");
        if self.oops() && self.rng.chance(50) {
            // Random patterns and templates (data with `...` and `_` among
            // their symbols), used on random data.
            let rules: Vec<String> = (0..self.rng.range(1, 3))
                .map(|_| {
                    let (p, t) = (self.datum(3), self.datum(3));
                    let p = if self.rng.chance(50) {
                        format!("(_ {p} ...)")
                    } else {
                        format!("(_ . {p})")
                    };
                    format!("({p} {t})")
                })
                .collect();
            let uses: String = (0..self.rng.range(1, 3))
                .map(|_| {
                    let args: Vec<String> = (0..self.rng.below(4)).map(|_| self.datum(3)).collect();
                    format!(" (write ({m} {}))", args.join(" "))
                })
                .collect();
            return format!(
                "(define-syntax {m} (syntax-rules () {})){uses}",
                rules.join(" ")
            );
        }
        if self.oops() {
            let spec = self.rng.pick(BROKEN).replace('M', &m);
            let args = self.some_exprs(3, 2).join(" ");
            return format!("(define-syntax {m} {spec}) (write ({m} {args}))");
        }
        match self.rng.below(10) {
            // Recursive `or` whose binder may share a user variable's name.
            0 => {
                let t = self.binder_name();
                let n = self.rng.below(4);
                let mut args = self.exprs(n, 3);
                if self.rng.chance(50) && t != "loop" {
                    if let Some(v) = self.var_of(Ty::Any) {
                        args.push(v);
                    }
                }
                format!(
                    "(define-syntax {m} (syntax-rules () ((_) #f) ((_ e) e) \
                     ((_ e r ...) (let (({t} e)) (if {t} {t} ({m} r ...))))))\n\
                     (write ({m} {}))",
                    args.join(" ")
                )
            }
            // A named-let loop whose loop name and counter are introduced.
            1 => {
                let l = self.binder_name();
                let body = self.expr(2);
                let k = self.rng.below(4);
                format!(
                    "(define-syntax {m} (syntax-rules () ((_ n e) \
                     (let {l} ((i 0) (acc '())) (if (< i n) ({l} (+ i 1) (cons e acc)) acc)))))\n\
                     (write ({m} {k} {body}))"
                )
            }
            // Nested ellipses.
            2 => {
                let groups: Vec<String> = (0..self.rng.below(4))
                    .map(|_| {
                        let n = self.rng.range(1, 4);
                        format!("({})", self.exprs(n, 2).join(" "))
                    })
                    .collect();
                let tmpl = self.rng.pick(&[
                    "(list (list a (list b ...)) ...)",
                    "(list b ... ... a ...)",
                    "'((b ... a) ...)",
                ]);
                format!(
                    "(define-syntax {m} (syntax-rules () ((_ (a b ...) ...) {tmpl})))\n\
                     (write ({m} {}))",
                    groups.join(" ")
                )
            }
            // An ellipsis in the middle, and a dotted tail.
            3 => {
                let n = self.rng.range(2, 6);
                let args = self.exprs(n, 2).join(" ");
                if self.rng.chance(50) {
                    format!(
                        "(define-syntax {m} (syntax-rules () ((_ a ... y z) (list y z (list a ...)))))\n\
                         (write ({m} {args}))"
                    )
                } else {
                    format!(
                        "(define-syntax {m} (syntax-rules () ((_ a b . r) (list b a 'r))))\n\
                         (write ({m} {args}))"
                    )
                }
            }
            // Vector patterns and literals.
            4 => {
                let args = self.some_exprs(4, 2).join(" ");
                let (x, y) = (self.expr(2), self.expr(2));
                format!(
                    "(define-syntax {m} (syntax-rules (=>) \
                     ((_ #(a ...)) (list 'vec a ...)) ((_ a => b) (list 'arrow a b)) ((_ a b) (list 'plain a b))))\n\
                     (write ({m} #({args}))) (write ({m} {x} => {y})) (write ({m} {x} {y}))"
                )
            }
            // A macro that defines, at top level and in a body.
            5 => {
                let g = self.name("g");
                let e = self.expr(3);
                let h = self.name("g");
                let e2 = self.expr(2);
                self.globals.push(Local {
                    name: g.clone(),
                    ty: Ty::Any,
                });
                format!(
                    "(define-syntax {m} (syntax-rules () ((_ n v) (begin (define hidden v) (define n hidden)))))\n\
                     ({m} {g} {e}) (write {g}) \
                     (write (let () ({m} {h} {e2}) (list {h})))"
                )
            }
            // Free template identifiers where the use site shadows them.
            6 => {
                let (a, b) = (self.expr(2), self.expr(2));
                format!(
                    "(define-syntax {m} (syntax-rules () ((_ c x y) (if c (list x) (list y)))))\n\
                     (write (let ((if vector) (list cons)) ({m} #f {a} {b})))"
                )
            }
            // The ellipsis escape, and a custom ellipsis.
            7 => {
                let args = self.some_exprs(4, 2).join(" ");
                format!(
                    "(define-syntax {m} (syntax-rules ::: () ((_ a :::) (list 'a ::: '(... ...) a :::))))\n\
                     (write ({m} {args}))"
                )
            }
            // let-syntax and letrec-syntax.
            8 => {
                let args = self.some_exprs(5, 2).join(" ");
                if self.rng.chance(50) {
                    format!(
                        "(write (letrec-syntax ((ev? (syntax-rules () ((_) #t) ((_ x . r) (od? . r)))) \
                         (od? (syntax-rules () ((_) #f) ((_ x . r) (ev? . r))))) (ev? {args})))"
                    )
                } else {
                    let y = self.binder_name();
                    format!(
                        "(write (let ((y 1)) (let-syntax (({m} (syntax-rules () ((_ e) (let (({y} 2)) (list y e)))))) \
                         (let ((y 3)) ({m} y)))))"
                    )
                }
            }
            // A macro that defines a macro.
            _ => {
                let args = self.some_exprs(4, 2).join(" ");
                let inner = self.name("m");
                format!(
                    "(define-syntax {m} (syntax-rules () ((_ name) (define-syntax name \
                     (syntax-rules () ((name x (... ...)) (list x (... ...))))))))\n\
                     ({m} {inner}) (write ({inner} {args}))"
                )
            }
        }
    }

    /// An expression whose value is a list.
    fn spliced(&mut self, depth: usize) -> String {
        match self.rng.below(3) {
            0 => format!("(list {})", self.some_exprs(4, depth).join(" ")),
            1 => format!("'({})", self.datum(2)),
            _ => format!("(reverse (list {}))", self.some_exprs(3, depth).join(" ")),
        }
    }

    /// A quasiquote expression (a list or vector, with unquotes).
    pub(super) fn quasiquote(&mut self, depth: usize) -> String {
        let d = depth.saturating_sub(1);
        // Spliced values are lists for sure: R7RS leaves splicing anything
        // else unspecified (Guile accepts a non-list in the last position).
        let mut items = vec![format!(",@{}", self.spliced(d))];
        for _ in 0..self.rng.size(0, 5) {
            items.push(match self.rng.below(5) {
                0 => format!(",{}", self.expr(d)),
                1 => format!(",@{}", self.spliced(d)),
                2 => format!("(,@{} x)", self.spliced(d)),
                3 => format!("`(a ,(b ,{}))", self.expr(d)),
                _ => self.datum(2),
            });
        }
        match self.rng.below(4) {
            0 => format!("`#({})", items.join(" ")),
            1 => format!("`({} . ,{})", items.join(" "), self.expr(d)),
            _ => format!("`({})", items.join(" ")),
        }
    }
}
