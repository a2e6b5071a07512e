//! The language: numbers, equivalence, lists, vectors, strings, every special
//! form, proper tail calls, closures, and values surviving collections.

mod common;

use common::{output_of, run_with};

fn check(src: &str, expected: &str) {
    assert_eq!(output_of(src), expected, "{src}");
}

fn value(expr: &str, expected: &str) {
    check(&format!("(write {expr})"), expected);
}

#[test]
fn numbers() {
    value("(+ 1 2 3)", "6");
    value("(- 5)", "-5");
    value("(- 10 1 2)", "7");
    value("(* 2 3.5)", "7.0");
    value("(/ 10 2)", "5");
    value("(/ 1 4)", "0.25");
    value("(/ 2.0)", "0.5");
    value("(quotient -7 2)", "-3");
    value("(remainder -7 2)", "-1");
    value("(remainder -9223372036854775808 -1)", "0");
    value("(modulo -9223372036854775808 -1)", "0");
    value("(modulo -9223372036854775808 7)", "6");
    value("(modulo -7 2)", "1");
    value("(modulo 7 -2)", "-1");
    value("(abs -4)", "4");
    value("(min 3 1 2)", "1");
    value("(max 1 2.0)", "2.0");
    value(
        "(list (= 1 1.0) (< 1 2 3) (< 1 3 2) (>= 3 3 2) (<= 1 1 0))",
        "(#t #t #f #t #f)",
    );
    value(
        "(list (zero? 0) (positive? -1) (negative? -1) (even? 4) (odd? 4))",
        "(#t #f #t #t #f)",
    );
    value("(exact->inexact 3)", "3.0");
    value("(sqrt 16)", "4");
    value("(sqrt 2)", "1.4142135623730951");
    value("(number->string 255)", "\"255\"");
    value("(string->number \"1e2\")", "100.0");
    value("(string->number \"x1\")", "#f");
    value(
        "(list (integer? 2) (integer? 2.5) (number? 'a))",
        "(#t #f #f)",
    );
    value("9223372036854775807", "9223372036854775807");
    value("(- 0 9223372036854775807 1)", "-9223372036854775808");
    value("(* 1.0 1e300 1e300)", "+inf.0");
}

#[test]
fn equivalence() {
    value(
        "(list (eq? 'a 'a) (eq? '() '()) (eqv? 1.5 1.5) (eqv? 2 2.0) (eq? (list 1) (list 1)))",
        "(#t #t #t #f #f)",
    );
    value(
        "(equal? '(1 (2 #(3 \"x\"))) (list 1 (list 2 (vector 3 \"x\"))))",
        "#t",
    );
    value("(equal? '(1 2) '(1 2 3))", "#f");
    value("(equal? \"abc\" \"abd\")", "#f");
    value("(let ((x (list 1))) (eq? x x))", "#t");
    value("(list (not #f) (not 0) (not '()))", "(#t #f #f)");
    value("(let ((l (let loop ((i 0) (l '())) (if (= i 100000) l (loop (+ i 1) (cons i l)))))) (equal? l (reverse (reverse l))))", "#t");
}

#[test]
fn lists_and_vectors() {
    value("(cons 1 2)", "(1 . 2)");
    value("'(1 2 . 3)", "(1 2 . 3)");
    value("(list 1 (list 2) '())", "(1 (2) ())");
    value("(length '(1 2 3))", "3");
    value("(append '(1) '(2 3) '() '(4 . 5))", "(1 2 3 4 . 5)");
    value("(reverse '(1 2 3))", "(3 2 1)");
    value("(list-tail '(1 2 3) 2)", "(3)");
    value("(list-ref '(a b c) 1)", "b");
    value("(map (lambda (x) (* x x)) '(1 2 3))", "(1 4 9)");
    value(
        "(let ((s 0)) (for-each (lambda (a b) (set! s (+ s (* a b)))) '(1 2) '(3 4)) s)",
        "11",
    );
    value("(assq 'b '((a 1) (b 2)))", "(b 2)");
    value("(assv 2 '((1 . a) (2 . b)))", "(2 . b)");
    value("(assoc \"b\" '((\"a\" . 1) (\"b\" . 2)))", "(\"b\" . 2)");
    value("(memq 'c '(a b c d))", "(c d)");
    value("(member '(1) '(2 (1) 3))", "((1) 3)");
    value("(memq 'z '(a b))", "#f");
    value(
        "(let ((p (cons 1 2))) (set-car! p 3) (set-cdr! p '(4)) p)",
        "(3 4)",
    );
    value(
        "(let ((v (make-vector 3 'x))) (vector-set! v 0 1) v)",
        "#(1 x x)",
    );
    value("(vector-length (vector 1 2 3))", "3");
    value("(vector->list #(1 2))", "(1 2)");
    value("(list->vector '(1 \"a\"))", "#(1 \"a\")");
    value("(let ((v (vector 1 2))) (vector-fill! v 0) v)", "#(0 0)");
    value("(apply + 1 2 '(3 4))", "10");
    value("(apply max '(3 9 2))", "9");
    value("(list (null? '()) (pair? '()) (list? '(1 . 2)) (vector? #(1)) (procedure? car) (procedure? (lambda () 1)) (boolean? #f) (symbol? 'a) (string? \"\"))", "(#t #f #f #t #t #t #t #t #t)");
}

#[test]
fn strings_chars_symbols() {
    value("(string-length \"héllo\")", "5");
    value("(string-ref \"héllo\" 1)", "#\\é");
    value("(string-append \"a\" \"bc\" \"\")", "\"abc\"");
    value("(substring \"hello\" 1 3)", "\"el\"");
    value(
        "(list (string=? \"a\" \"a\") (string=? \"a\" \"b\"))",
        "(#t #f)",
    );
    value("(string->symbol \"foo\")", "foo");
    value("(symbol->string 'bar)", "\"bar\"");
    value("(eq? (string->symbol \"q\") 'q)", "#t");
    value(
        "(list #\\a #\\space #\\newline #\\x41)",
        "(#\\a #\\space #\\newline #\\A)",
    );
    check("(display (list \"a\\tb\" #\\c 1.5))", "(a\tb c 1.5)");
    value("\"\\x3bb;\"", "\"λ\"");
}

#[test]
fn special_forms() {
    value("(if #f 1)", "#<unspecified>");
    value("(cond ((> 1 2) 'a) ((< 1 2) 'b) (else 'c))", "b");
    value("(cond (#f 1) (else 2 3))", "3");
    value("(cond ((assv 2 '((2 . x))) => cdr) (else 'no))", "x");
    value("(cond (5))", "5");
    value(
        "(case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite))",
        "composite",
    );
    value("(case 'z ((a) 1) (else 'other))", "other");
    value(
        "(let ((x 1) (y 2)) (let ((x y) (y x)) (list x y)))",
        "(2 1)",
    );
    value("(let* ((x 1) (y (+ x 1))) (* x y))", "2");
    value("(letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1))))) (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))) (ev? 100))", "#t");
    value(
        "(let loop ((i 0) (acc '())) (if (= i 3) acc (loop (+ i 1) (cons i acc))))",
        "(2 1 0)",
    );
    value(
        "(do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i))",
        "#(0 1 2 3 4)",
    );
    value("(begin 1 2 3)", "3");
    value("(let ((x 1)) (set! x 5) x)", "5");
    value(
        "(list (and) (and 1 2) (and #f (car '())) (or) (or #f 3) (or 4 (car '())))",
        "(#t 2 #f #f 3 4)",
    );
    value("(let ((r '())) (when (> 2 1) (set! r (cons 'w r))) (unless (> 2 1) (set! r (cons 'u r))) r)", "(w)");
    check("(define (f . args) args) (write (f 1 2))", "(1 2)");
    check(
        "(define (g a . rest) (list a rest)) (write (g 1))",
        "(1 ())",
    );
    check(
        "(define h (lambda args (length args))) (write (h 1 2 3))",
        "3",
    );
    check(
        "(define (f) (define a 1) (define (g) (+ a 1)) (g)) (write (f))",
        "2",
    );
    check(
        "(define x 1) (define (get) x) (set! x 2) (write (get))",
        "2",
    );
    value("'sym", "sym");
    value("(quote (1 . 2))", "(1 . 2)");
    check("#| block\n comment |# ; line comment\n(write 'ok)", "ok");
}

#[test]
fn builtins_can_be_redefined() {
    check("(define (car x) 'mine) (write (car '(1)))", "mine");
    check(
        "(define (f) (list 1 2)) (define (list . a) 'no) (write (f))",
        "no",
    );
    check("(let ((+ -)) (write (+ 5 3)))", "2");
}

#[test]
fn tail_calls_run_in_constant_stack() {
    // A million iterations: more than the frame limit, so every call must be a
    // tail call (through if, cond, let, begin, and, or, when, apply).
    check(
        "(define (loop i) (if (= i 0) 'done (loop (- i 1)))) (write (loop 1000000))",
        "done",
    );
    check(
        "(define (ev? n) (if (= n 0) #t (od? (- n 1)))) (define (od? n) (if (= n 0) #f (ev? (- n 1)))) (write (ev? 1000001))",
        "#f",
    );
    check("(define (c i) (cond ((= i 0) 'ok) (else (let ((j (- i 1))) (begin (and #t (or #f (c j)))))))) (write (c 1000000))", "ok");
    check(
        "(define (w i) (when (> i 0) (w (- i 1)))) (w 1000000) (write 'ok)",
        "ok",
    );
    check(
        "(define (a i) (if (= i 0) 'ok (apply a (list (- i 1))))) (write (a 1000000))",
        "ok",
    );
    check("(write (do ((i 0 (+ i 1))) ((= i 1000000) i)))", "1000000");
}

#[test]
fn closures_capture_and_share_state() {
    check(
        "(define (make) (let ((n 0)) (cons (lambda () (set! n (+ n 1)) n) (lambda () n))))
         (define p (make)) ((car p)) ((car p)) (write ((cdr p)))",
        "2",
    );
    check(
        "(define fs (map (lambda (i) (lambda () i)) '(1 2 3))) (write (map (lambda (f) (f)) fs))",
        "(1 2 3)",
    );
    check(
        "(define (adder n) (lambda (x) (lambda (y) (+ n x y)))) (write (((adder 1) 2) 3))",
        "6",
    );
}

#[test]
fn values_survive_forced_collections() {
    let src = "(define keep (let loop ((i 0) (l '())) (if (= i 1000) l (loop (+ i 1) (cons (vector i (number->string i) (* i 1.5)) l)))))
               (define (f) (let ((x (list 1 2 3)) (s \"str\")) (gc) (list x s)))
               (gc) (write (f)) (gc)
               (write (vector-ref (car keep) 1)) (write (length keep))";
    let o = run_with(src, 8 << 20, "copy", true);
    o.result.unwrap();
    assert_eq!(o.output, "((1 2 3) \"str\")\"999\"1000");
    assert!(o.pauses >= 3, "{} pauses", o.pauses);
}

#[test]
fn threads_spawn_and_join() {
    check(
        "(define t (spawn (lambda () (let loop ((i 0) (l '())) (if (= i 10000) (length l) (loop (+ i 1) (cons i l)))))))
         (write (join t)) (write (join t))",
        "1000010000",
    );
    check(
        "(write (join (spawn (lambda () (gc) (list 'a \"b\")))))",
        "(a \"b\")",
    );
}

#[test]
fn a_session_survives_errors() {
    use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    let mut reg = TypeRegistry::new();
    let types = flipgc_toyvm::register_types(&mut reg).unwrap();
    let heap = Heap::new(HeapConfig::new(8 << 20), reg).unwrap();
    let cap = common::Capture::default();
    let mut s = flipgc_toyvm::Session::new(&heap, &types, Box::new(cap.clone())).unwrap();
    assert_eq!(s.eval("<repl>", "(define x 41)").unwrap(), None);
    assert!(s.eval("<repl>", "(car x)").is_err());
    assert!(s.eval("<repl>", "(+ x").unwrap_err().is_incomplete());
    assert_eq!(s.eval("<repl>", "(+ x 1)").unwrap(), Some("42".into()));
    assert_eq!(
        s.eval("<repl>", "(display \"hi\") 'sym").unwrap(),
        Some("sym".into())
    );
    assert_eq!(cap.text(), "hi");
}

#[test]
fn r7rs_make_string_list_p_and_labels() {
    value("(make-string 3 #\\x)", "\"xxx\"");
    value("(make-string 2)", "\"  \"");
    value("(string-length (make-string 5 #\\λ))", "5");
    value("(string-ref (make-string 5 #\\λ) 4)", "#\\λ");
    let cyc = "(define c (list 1 2 3)) (set-cdr! (cddr c) c) ";
    check(
        &format!("{cyc}(write (list (list? c) (list? '()) (list? '(1 . 2)) (list? '(1))))"),
        "(#f #t #f #t)",
    );
    check(&format!("{cyc}(write c)"), "#0=(1 2 3 . #0#)");
    check(
        &format!("{cyc}(display (cons \"s\" c))"),
        "(s . #0=(1 2 3 . #0#))",
    );
    check(
        "(define p (list 1 2)) (set-car! (cdr p) p) (write p)",
        "#0=(1 #0#)",
    );
    check(
        "(define v (make-vector 2 0)) (vector-set! v 0 v) (vector-set! v 1 (list v)) (write v)",
        "#0=#(#0# (#0#))",
    );
    // Labels only for cycles in write; for all shared structure in write-shared.
    check("(define s (list 1)) (write (list s s))", "((1) (1))");
    check(
        "(define s (list 1)) (write-shared (list s s))",
        "(#0=(1) #0#)",
    );
    check("(define s (list 1)) (write-simple (list s s))", "((1) (1))");
    // Two cycles get two labels, numbered in printing order.
    check(
        "(define a (list 'a)) (set-cdr! a a) (define b (vector a 'b)) (vector-set! b 1 b) (write (list b a))",
        "(#0=#(#1=(a . #1#) #0#) #1#)",
    );
    check(
        &format!("{cyc}(write (list-tail c 3000000001))"),
        "#0=(2 3 1 . #0#)",
    );
}

#[test]
fn equal_terminates_on_cycles_and_shared_structure() {
    let mk = "(define (circular . items) (let ((l (apply list items))) (set-cdr! (list-tail l (- (length l) 1)) l) l)) ";
    check(
        &format!(
            "{mk}(write (list (equal? (circular 1 2) (circular 1 2)) (equal? (circular 1 2) (circular 1 2 1 2)) (equal? (circular 1 2) (circular 1 3)) (equal? (circular 1) '(1 1 1))))"
        ),
        "(#t #t #f #f)",
    );
    check(
        "(define a (vector 1 0)) (vector-set! a 1 a) (define b (vector 1 (vector 1 0))) (vector-set! (vector-ref b 1) 1 b) (write (equal? a b))",
        "#t",
    );
    // 2^80 paths through 80 pairs: linear, not exponential.
    check(
        "(define (dag n) (if (= n 0) '(x) (let ((d (dag (- n 1)))) (cons d d)))) (write (list (equal? (dag 80) (dag 80)) (equal? (dag 80) (dag 79))))",
        "(#t #f)",
    );
    // member and assoc use equal?.
    check(
        &format!("{mk}(write (member (circular 1) (list 1 (circular 1 1) 2)))"),
        "(#0=(1 1 . #0#) 2)",
    );
}

#[test]
fn the_repl_shows_circular_values_with_labels() {
    use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    let mut reg = TypeRegistry::new();
    let types = flipgc_toyvm::register_types(&mut reg).unwrap();
    let heap = Heap::new(HeapConfig::new(8 << 20), reg).unwrap();
    let cap = common::Capture::default();
    let mut s = flipgc_toyvm::Session::new(&heap, &types, Box::new(cap.clone())).unwrap();
    assert_eq!(
        s.eval("<repl>", "(define c (list 1)) (set-cdr! c c) c")
            .unwrap(),
        Some("#0=(1 . #0#)".into())
    );
}
