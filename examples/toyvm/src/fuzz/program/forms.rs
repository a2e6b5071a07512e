//! The generator's newer R7RS forms: `define-record-type`, `case-lambda`,
//! multiple values (`values`, `call-with-values`, `let-values`,
//! `let*-values`, `define-values`, `floor/`, `truncate/`,
//! `exact-integer-sqrt`), promises (`delay`, `force`, `make-promise`,
//! `delay-force`, `promise?`), `parameterize` with converters, mutable strings
//! (`string-set!`, `string-fill!`, `string-copy`), `case` with `=>`, `do` loops
//! with bodies, character predicates and case maps, exact/inexact conversions
//! and rounding, floats of large and small magnitude printed, and more
//! `syntax-rules` hygiene (a template binder named like the user's variable,
//! a free template identifier shadowed at the use site). Scenarios at top
//! level (results written) and typed expressions mixed into the rest of the
//! grammar. Every form here is standard R7RS with one meaning on the toy VM
//! and on Guile 3.0, so the differential mode uses all of it; the
//! restrictions that keep it so are commented where they apply (records are
//! never written, multiple values only reach a consumer, string literals are
//! never mutated, side effects are sequenced with `let*`). In sloppy mode
//! some forms are malformed or misused on purpose.

use super::{Gen, Local, Ty};

/// Misused forms (sloppy mode): each must end with a clean error or a value.
const BROKEN: &[&str] = &[
    "(define-record-type)",
    "(define-record-type r (make-r a) r? (b r-b))",
    "(define-record-type r (make-r a) r? (a r-a)) (r-a 5)",
    "(define-record-type r (make-r a) r? (a r-a)) (make-r)",
    "(case-lambda)",
    "((case-lambda ((x) x)) 1 2)",
    "((case-lambda ((x y) x) ((x) y)) 1)",
    "(let-values (((a b) (values 1))) a)",
    "(let-values (((a a) (values 1 2))) a)",
    "(let-values ((a)) a)",
    "(call-with-values 5 list)",
    "(call-with-values (lambda () (values 1 2)) car)",
    "(define-values (a b) (values 1 2 3))",
    "(define-values)",
    "(write (values 1 2))",
    "(write (list (values) (values 1 2)))",
    "(force 5)",
    "(delay)",
    "(delay-force 1 2)",
    "(define p (delay (force p))) (force p)",
    "(make-parameter)",
    "(parameterize ((5 1)) 1)",
    "(parameterize ((car 1)) 1)",
    "(string-set! \"literal\" 0 #\\a)",
    "(string-set! (make-string 2 #\\a) 5 #\\b)",
    "(string-fill! (make-string 2 #\\a) 5)",
    "(case 1 (else =>))",
    "(case 1 ((1) => 5))",
    "(do ((i 0)) (#t) . 5)",
    "(floor/ 5 0)",
    "(exact-integer-sqrt -1)",
    "(exact +inf.0)",
    "(digit-value 5)",
    "(char-upcase \"a\")",
];

/// Float literals of large and small magnitude, and around the edges of the
/// positional and scientific forms, whose shortest round-trip digits both
/// sides print.
const FLOATS: &[&str] = &[
    "1e21",
    "1e22",
    "1e-10",
    "1e-7",
    "+inf.0",
    "-inf.0",
    "-0.0",
    "1e10",
    "9999999999.0",
    "12345678901.5",
    "0.001",
    "0.0001",
    "123.456",
    "5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "4.35e-17",
    "-6.02214076e23",
    "0.1",
    "100.0",
    "1234567.0",
];

impl Gen<'_> {
    /// A fresh name bound, for the generator, to a value of type `ty` while
    /// `f` generates (returns what `f` returns).
    fn with_local<T>(&mut self, ty: Ty, f: impl FnOnce(&mut Self, &str) -> T) -> T {
        let v = self.name("w");
        self.locals.push(Local {
            name: v.clone(),
            ty,
        });
        let out = f(self, &v);
        self.locals.pop();
        out
    }

    /// A string to mutate and a character to store in it. In differential
    /// mode both ASCII: the toy VM's `string-set!` and `string-fill!` keep a
    /// string's UTF-8 length (a documented limitation, docs/toyvm.md), so
    /// replacing `é` by `a` is an error there and not on Guile.
    fn mutable_string_and_char(&mut self, d: usize) -> (String, String) {
        if !self.diff {
            return (self.typed(Ty::Str, d), self.typed(Ty::Char, d));
        }
        let s = self
            .rng
            .pick(&["\"\"", "\"a\"", "\"hello\"", "\"hello world\"", "\"(x y)\""])
            .to_string();
        let s = if self.rng.chance(50) {
            s
        } else {
            let n = self.typed(Ty::Idx, d);
            format!("(make-string {n} #\\x)")
        };
        let c = self
            .rng
            .pick(&["#\\a", "#\\Z", "#\\space", "#\\(", "#\\0"])
            .to_string();
        (s, c)
    }

    /// A float literal of extreme magnitude, or a random one in scientific
    /// notation (digits and exponent both read exactly by either side).
    fn extreme_float(&mut self) -> String {
        if self.rng.chance(50) {
            return self.rng.pick(FLOATS).to_string();
        }
        let digits = self.rng.next_u64() % 10_000_000;
        // Within the finite doubles: Guile refuses to read a literal that
        // overflows (1e400), where the toy VM reads +inf.0.
        let exp = self.rng.below(601) as i64 - 300;
        let sign = if self.rng.chance(30) { "-" } else { "" };
        format!("{sign}{}.{}e{exp}", digits % 10, digits / 10)
    }

    /// An expression of type `ty` built with one of this file's forms (the
    /// grammar's `special` calls it). Mostly well typed; falls back on the
    /// plain grammar where a form cannot give a `ty`.
    pub(super) fn form_expr(&mut self, ty: Ty, d: usize) -> String {
        match self.rng.below(9) {
            // Two or three values to a consumer that uses them.
            0 => {
                let n = self.rng.range(1, 4);
                let vals: Vec<String> = (0..n).map(|_| self.expr(d)).collect();
                let names: Vec<String> = (0..n).map(|_| self.name("w")).collect();
                let saved = self.locals.len();
                for v in &names {
                    self.locals.push(Local {
                        name: v.clone(),
                        ty: Ty::Any,
                    });
                }
                let body = self.typed(ty, d);
                self.locals.truncate(saved);
                let (vals, names) = (vals.join(" "), names.join(" "));
                match self.rng.below(3) {
                    0 => format!(
                        "(call-with-values (lambda () (values {vals})) (lambda ({names}) {body}))"
                    ),
                    1 => format!("(let-values ((({names}) (values {vals}))) {body})"),
                    _ => format!("(let*-values ((({names}) (values {vals}))) {body})"),
                }
            }
            // A promise forced (once or twice: the same value).
            1 => {
                let e = self.typed(ty, d);
                match self.rng.below(4) {
                    0 => format!("(force (delay {e}))"),
                    1 => format!("(force (make-promise {e}))"),
                    2 => format!("(force (delay-force (delay {e})))"),
                    _ => format!("(let ((p (delay {e}))) (force p) (force p))"),
                }
            }
            // case-lambda applied to one to three arguments.
            2 => {
                let n = self.rng.range(1, 4);
                let args: String = (0..n).map(|_| format!(" {}", self.expr(d))).collect();
                let one = self.with_local(Ty::Any, |g, x| {
                    let b = g.typed(ty, d);
                    format!("(({x}) {b})")
                });
                let two = self.with_local(Ty::Any, |g, x| {
                    g.with_local(Ty::Any, |g, y| {
                        let b = g.typed(ty, d);
                        format!("(({x} {y}) {b})")
                    })
                });
                let rest = self.with_local(Ty::List, |g, r| {
                    let b = g.typed(ty, d);
                    format!("({r} {b})")
                });
                format!("((case-lambda {two} {one} {rest}){args})")
            }
            // case with `=>` clauses.
            3 => {
                let key = self.expr(d);
                let mut s = format!("(case {key}");
                for _ in 0..self.rng.range(1, 3) {
                    let data: Vec<String> =
                        (0..self.rng.range(1, 3)).map(|_| self.datum(1)).collect();
                    let clause = if self.rng.chance(50) {
                        let e = self.typed(ty, d);
                        format!(" (({}) {e})", data.join(" "))
                    } else {
                        let f = self.with_local(Ty::Any, |g, x| {
                            let b = g.typed(ty, d);
                            format!("(lambda ({x}) {b})")
                        });
                        format!(" (({}) => {f})", data.join(" "))
                    };
                    s.push_str(&clause);
                }
                let f = self.with_local(Ty::Any, |g, x| {
                    let b = g.typed(ty, d);
                    format!("(lambda ({x}) {b})")
                });
                s.push_str(&format!(" (else => {f}))"));
                s
            }
            // parameterize around the body, converter applied.
            4 => {
                let (a, b) = (self.typed(Ty::Num, d), self.typed(Ty::Num, d));
                let body = self.typed(ty, d);
                format!(
                    "(let ((prm (make-parameter {a} (lambda (x) (if (number? x) (- x) x))))) \
                     (parameterize ((prm {b})) (prm) {body}))"
                )
            }
            // A mutated fresh string.
            5 if matches!(ty, Ty::Str | Ty::Any) => {
                let (s, c) = self.mutable_string_and_char(d);
                let k = self.typed(Ty::Int, d);
                match self.rng.below(3) {
                    0 => format!(
                        "(let ((s (string-copy {s}))) (if (> (string-length s) 0) \
                         (string-set! s (modulo {k} (string-length s)) {c})) s)"
                    ),
                    1 => format!("(let ((s (string-copy {s}))) (string-fill! s {c}) s)"),
                    _ => format!(
                        "(let ((s (string-copy {s}))) (string-fill! s {c} (quotient (string-length s) 2)) s)"
                    ),
                }
            }
            // Character predicates and case maps.
            6 if matches!(ty, Ty::Bool | Ty::Char | Ty::Any) => {
                let c = self.typed(Ty::Char, d);
                let op = match ty {
                    Ty::Char => *self
                        .rng
                        .pick(&["char-upcase", "char-downcase", "char-foldcase"]),
                    _ => *self.rng.pick(&[
                        "char-alphabetic?",
                        "char-numeric?",
                        "char-whitespace?",
                        "char-upper-case?",
                        "char-lower-case?",
                    ]),
                };
                format!("({op} {c})")
            }
            // Exactness, rounding and integer division.
            7 if matches!(ty, Ty::Num | Ty::Int | Ty::Any) => {
                let a = self.typed(Ty::Int, d);
                let b = self.typed(Ty::Int, d);
                let x = self.typed(Ty::Num, d);
                match self.rng.below(6) {
                    0 => format!("(exact (floor (inexact {x})))"),
                    1 => format!("(truncate {x})"),
                    2 => format!("(ceiling {x})"),
                    3 => format!("(floor-quotient {a} {b})"),
                    4 => format!("(truncate-remainder {a} {b})"),
                    _ => format!("(call-with-values (lambda () (exact-integer-sqrt (abs {a}))) +)"),
                }
            }
            // A do loop with a body that mutates.
            8 => {
                let init = self.typed(ty, d);
                let k = self.rng.below(20);
                self.with_local(Ty::Int, |g, i| {
                    g.with_local(ty, |g, acc| {
                        let step = g.typed(ty, d);
                        format!(
                            "(let ((n 0)) (do (({i} 0 (+ {i} 1)) ({acc} {init})) ((>= {i} {k}) {acc}) \
                             (set! n (+ n 1)) (set! {acc} {step})))"
                        )
                    })
                })
            }
            _ => self.typed(ty, d),
        }
    }

    /// A top-level scenario of one of this file's forms, its results written.
    pub(super) fn forms_scenario(&mut self) -> String {
        if self.oops() {
            return self.rng.pick(BROKEN).to_string();
        }
        match self.rng.below(11) {
            0 => self.record_scenario(),
            1 => self.case_lambda_scenario(),
            2 => self.values_scenario(),
            3 => self.promise_scenario(),
            4 => self.parameterize_scenario(),
            5 => self.string_mutation_scenario(),
            6 => self.char_scenario(),
            7 => self.numeric_scenario(),
            8 => {
                let n = self.rng.range(1, 6);
                let floats: Vec<String> = (0..n).map(|_| self.extreme_float()).collect();
                let fl = floats.join(" ");
                match self.rng.below(4) {
                    0 => format!("(write (list {fl}))"),
                    1 => format!("(display (list {fl}))"),
                    2 => format!("(write (map number->string (list {fl})))"),
                    _ => format!("(write (map (lambda (x) (* x 10.0)) (list {fl})))"),
                }
            }
            9 => self.hygiene_scenario(),
            _ => {
                let e = self.form_expr(Ty::Any, 4);
                format!("(write {e})")
            }
        }
    }

    /// A record type; records built from generated values, their fields read
    /// and written. Records themselves are never written: each side prints
    /// them its own way.
    fn record_scenario(&mut self) -> String {
        let r = self.name("rec");
        let (a, b, c) = (self.expr(3), self.expr(3), self.expr(3));
        let other = self.expr(2);
        let ty = if self.rng.chance(50) {
            format!("<{r}>")
        } else {
            r.clone()
        };
        let def = format!(
            "(define-record-type {ty} (make-{r} x y) {r}? (x {r}-x set-{r}-x!) (y {r}-y) (z {r}-z set-{r}-z!))"
        );
        let uses = match self.rng.below(5) {
            0 => format!(
                "(define o (make-{r} {a} {b})) (write (list ({r}? o) ({r}? {other}) ({r}-x o) ({r}-y o)))"
            ),
            1 => format!(
                "(define o (make-{r} {a} {b})) (set-{r}-x! o {c}) (set-{r}-z! o 'zed) \
                 (write (list ({r}-x o) ({r}-y o) ({r}-z o)))"
            ),
            2 => format!(
                "(define os (map (lambda (v) (make-{r} v (list v))) (list {a} {b} {c}))) \
                 (write (map {r}-y os)) (for-each (lambda (o) (set-{r}-x! o ({r}-y o))) os) \
                 (write (map {r}-x os)) (write (map {r}? (list (car os) 1 \"s\" '(a) #(1))))"
            ),
            // The accessor of another record type: an error on both sides.
            3 => format!(
                "(define-record-type other (make-other x) other? (x other-x)) \
                 (write (other? (make-{r} {a} {b}))) (write ({r}-x (make-other {c})))"
            ),
            // A record in a closure, in a vector, compared by eqv?.
            _ => format!(
                "(define o (make-{r} {a} {b})) (define v (vector o o)) \
                 (write (list (eqv? (vector-ref v 0) (vector-ref v 1)) (eqv? o (make-{r} {a} {b})) \
                 (equal? ({r}-y o) ({r}-y (vector-ref v 1))) ((lambda () ({r}-x o)))))"
            ),
        };
        format!("{def} {uses}")
    }

    /// case-lambda with fixed, optional-like and rest clauses, called with
    /// every arity (past the last clause: an error on both sides).
    fn case_lambda_scenario(&mut self) -> String {
        let f = self.name("cl");
        let e = self.expr(2);
        let tail = if self.rng.chance(70) {
            " ((a b c . r) (list 'many a b c r))"
        } else {
            ""
        };
        let calls: String = (0..self.rng.range(1, 5))
            .map(|_| {
                let n = self.rng.below(6);
                let args: String = (0..n).map(|_| format!(" {}", self.expr(2))).collect();
                format!(" (write ({f}{args}))")
            })
            .collect();
        let def = match self.rng.below(3) {
            0 => format!(
                "(define {f} (case-lambda (() (list 'none {e})) ((a) (list 'one a)) \
                 ((a b) (list 'two b a)){tail}))"
            ),
            // A clause that calls the procedure itself with another arity.
            1 => format!(
                "(define {f} (case-lambda (() ({f} {e})) ((a) ({f} a 'dflt)) ((a b) (list a b)){tail}))"
            ),
            // The first matching clause wins, even if a later one fits too.
            _ => format!(
                "(define {f} (case-lambda ((a) (list 'first a)) ((a) (list 'second a)) \
                 (r (list 'rest r))))"
            ),
        };
        format!("{def}{calls}")
    }

    /// Multiple values through every consumer; `define-values` at top level
    /// and in a body; `floor/`, `truncate/` and `exact-integer-sqrt`.
    fn values_scenario(&mut self) -> String {
        let (a, b, c) = (self.expr(2), self.expr(2), self.expr(2));
        let (i, j) = (self.typed(Ty::Int, 2), self.typed(Ty::Int, 2));
        match self.rng.below(8) {
            0 => format!(
                "(write (call-with-values (lambda () (values {a} {b} {c})) list)) \
                 (write (call-with-values (lambda () (values)) list)) \
                 (write (call-with-values (lambda () {a}) list))"
            ),
            1 => format!(
                "(write (let-values (((x y) (values {a} {b})) ((z . r) (values {c} 1 2)) (all (values 3 4))) \
                 (list x y z r all)))"
            ),
            2 => format!(
                "(define x 'outer) (write (let*-values (((x y) (values {a} {b})) ((z) (values (list x y)))) z)) \
                 (write (let-values (((x y) (values 1 2)) ((z) (values x))) z))"
            ),
            3 => {
                let v = self.name("dv");
                let w = self.name("dv");
                self.globals.push(Local {
                    name: v.clone(),
                    ty: Ty::Any,
                });
                format!(
                    "(define-values ({v} {w} . rest) (values {a} {b} {c})) (write (list {v} {w} rest)) \
                     (write ((lambda () (define-values (p q) (values {a} 2)) (list q p))))"
                )
            }
            4 => format!(
                "(write (call-with-values (lambda () (floor/ {i} {j})) list)) \
                 (write (call-with-values (lambda () (truncate/ {i} {j})) list))"
            ),
            5 => format!(
                "(write (call-with-values (lambda () (exact-integer-sqrt (abs {i}))) list)) \
                 (write (let-values (((s r) (exact-integer-sqrt 1000000007))) (list s r)))"
            ),
            // The wrong number of values for the consumer: an error on both.
            6 => format!("(write (let-values (((x y) (values {a} {b} {c}))) (list x y)))"),
            // Values through a continuation and dynamic-wind.
            _ => format!(
                "(write (call-with-values (lambda () (call/cc (lambda (k) (k {a} {b})))) list)) \
                 (write (call-with-values (lambda () (dynamic-wind (lambda () #f) (lambda () (values {c} 1)) (lambda () #f))) list))"
            ),
        }
    }

    /// Promises: forced once (the side effect counted), iterative
    /// `delay-force` streams, `make-promise` and `promise?`.
    fn promise_scenario(&mut self) -> String {
        let e = self.expr(3);
        match self.rng.below(4) {
            0 => format!(
                "(define cnt 0) (define p (delay (begin (set! cnt (+ cnt 1)) {e}))) \
                 (write (let* ((a (force p)) (b (force p))) (list (equal? a b) cnt (promise? p))))"
            ),
            1 => {
                let n = self.rng.pick(&[0, 5, 1000]);
                format!(
                    "(define (from n) (delay (cons n (from (+ n 1))))) \
                     (define (nth s k) (if (= k 0) (car (force s)) (nth (cdr (force s)) (- k 1)))) \
                     (define (loop n) (if (= n 0) (delay {e}) (delay-force (loop (- n 1))))) \
                     (write (nth (from 3) {n})) (write (force (loop {n})))"
                )
            }
            // Not (make-promise (make-promise 2)): R7RS returns the inner
            // promise, Guile 3.0 wraps it again (a known difference).
            2 => format!(
                "(write (list (promise? (make-promise 1)) (promise? 1) (force (make-promise {e})) \
                 (promise? (delay 1))))"
            ),
            // A promise that forces itself: the first value wins (R7RS).
            _ => format!(
                "(define x 5) (define p (delay (begin (set! x (+ x 1)) (if (> x 7) x (force p))))) \
                 (write (force p)) (set! x 10) (write (force p)) (write {e})"
            ),
        }
    }

    /// Parameters with converters, nested `parameterize`, and escapes that
    /// must restore the outer value.
    fn parameterize_scenario(&mut self) -> String {
        let (a, b) = (self.typed(Ty::Int, 2), self.typed(Ty::Int, 2));
        let e = self.expr(2);
        match self.rng.below(4) {
            0 => format!(
                "(define p (make-parameter {a})) \
                 (write (list (p) (parameterize ((p {b})) (list (p) (parameterize ((p {e})) (p)) (p))) (p)))"
            ),
            1 => format!(
                "(define p (make-parameter {a} (lambda (x) (if (number? x) (* x 2) (list x))))) \
                 (write (list (p) (parameterize ((p {b})) (p)) (parameterize ((p {e})) (p)) (p)))"
            ),
            2 => format!(
                "(define p (make-parameter {a})) \
                 (write (call/cc (lambda (k) (parameterize ((p {b})) (k (p)))))) (write (p)) \
                 (write (guard (c (#t (list 'caught (p)))) (parameterize ((p {e})) (raise 'boom))))"
            ),
            // Two parameters bound at once; the body sees both.
            _ => format!(
                "(define p (make-parameter {a})) (define q (make-parameter 'q)) \
                 (define (show) (list (p) (q))) \
                 (write (parameterize ((p {b}) (q {e})) (show))) (write (show))"
            ),
        }
    }

    /// `string-set!`, `string-fill!` and `string-copy` on fresh strings.
    fn string_mutation_scenario(&mut self) -> String {
        let (s, c) = self.mutable_string_and_char(2);
        let k = self.rng.below(6);
        match self.rng.below(4) {
            0 => format!(
                "(define s (make-string 4 #\\a)) (string-set! s 1 {c}) (string-set! s 3 #\\b) (write s) \
                 (string-fill! s #\\z 2) (write s) (string-fill! s {c}) (write (list s (string-length s)))"
            ),
            1 => format!(
                "(define s (string-copy {s})) (write (string=? s {s})) \
                 (if (> (string-length s) {k}) (string-set! s {k} {c})) (write s) (write {s})"
            ),
            2 => format!(
                "(define s (string-copy \"hello world\" {k})) (string-fill! s {c} 0 (min 2 (string-length s))) (write s) \
                 (write (string-copy s 1 3))"
            ),
            // Out of range: an error on both sides.
            _ => format!("(define s (string-copy {s})) (string-set! s (+ (string-length s) {k}) {c})"),
        }
    }

    /// Character predicates, case maps and `digit-value` over the characters
    /// both sides write alike.
    fn char_scenario(&mut self) -> String {
        let cs: Vec<String> = (0..self.rng.range(2, 6)).map(|_| self.char()).collect();
        let two = format!("{} {}", cs[0], cs[1]);
        let cs = cs.join(" ");
        let extra = "#\\A #\\z #\\7 #\\space #\\x3A3 #\\x3C3";
        match self.rng.below(3) {
            0 => format!(
                "(write (map (lambda (c) (list (char-alphabetic? c) (char-numeric? c) (char-whitespace? c) \
                 (char-upper-case? c) (char-lower-case? c))) (list {cs} {extra})))"
            ),
            1 => format!(
                "(write (map (lambda (c) (list (char-upcase c) (char-downcase c) (char-foldcase c) (digit-value c))) \
                 (list {cs} {extra})))"
            ),
            _ => format!(
                "(write (list (char<? {two}) (char-ci=? #\\a #\\A) (string-upcase (string {cs})) \
                 (string-downcase (string {cs})) (string-foldcase \"ΣA\")))"
            ),
        }
    }

    /// Exactness, rounding, integer division and their errors.
    fn numeric_scenario(&mut self) -> String {
        let (i, j) = (self.typed(Ty::Int, 2), self.typed(Ty::Int, 2));
        let x = self.float();
        match self.rng.below(4) {
            0 => format!(
                "(write (list (exact 2.0) (inexact 3) (exact -0.0) (exact-integer? 5) (exact-integer? 5.0) \
                 (exact? {x}) (inexact? {x}) (nan? {x}) (infinite? {x}) (finite? {x})))"
            ),
            1 => format!(
                "(write (list (floor {x}) (ceiling {x}) (truncate {x}) (round {x}) (round 2.5) (round -3.5) \
                 (truncate -2.7) (floor -0.5)))"
            ),
            2 => format!(
                "(write (list (floor-quotient {i} {j}) (floor-remainder {i} {j}) \
                 (truncate-quotient {i} {j}) (truncate-remainder {i} {j})))"
            ),
            _ => format!(
                "(write (list (exact (floor 1e15)) (square {i}) (exact (truncate {x}))))"
            ),
        }
    }

    /// `syntax-rules` hygiene: a macro-introduced binder must not capture the
    /// user's variable of the same name, and a free identifier in a template
    /// must mean what it meant where the macro was defined, even where the
    /// use site shadows it.
    fn hygiene_scenario(&mut self) -> String {
        let (a, b) = (self.expr(2), self.expr(2));
        let m = self.name("m");
        match self.rng.below(4) {
            0 => format!(
                "(define-syntax {m} (syntax-rules () ((_ x y) (let ((tmp x)) (set! x y) (set! y tmp))))) \
                 (define tmp {a}) (define other {b}) ({m} tmp other) (write (list tmp other)) \
                 (write (let ((tmp 1) (y 2)) ({m} tmp y) (list tmp y)))"
            ),
            1 => format!(
                "(define (helper v) (list 'helper v)) \
                 (define-syntax {m} (syntax-rules () ((_ e) (helper e)))) \
                 (write (let ((helper (lambda (v) 'wrong))) ({m} {a})))"
            ),
            2 => format!(
                "(define-syntax {m} (syntax-rules () ((_ e) (let ((x 'inner)) (list x e))))) \
                 (define x {a}) (write ({m} x)) (write (let ((x {b})) ({m} x)))"
            ),
            _ => format!(
                "(define-syntax {m} (syntax-rules () ((_ e ...) (let loop ((xs (list e ...)) (n 0)) \
                 (if (null? xs) n (loop (cdr xs) (+ n 1))))))) \
                 (define (loop . args) 'user-loop) (write ({m} {a} {b})) \
                 (write (let ((list vector) (null? car)) ({m} 1 2 3)))"
            ),
        }
    }
}
