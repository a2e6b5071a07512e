//! The interpreter's own instructions for common builtins (`Op::Add` to
//! `Op::VectorSet`), its fused test-and-jump instructions (`Op::JumpIfLt` and
//! the other jumps on a negated comparison too), `Op::Local2` and the
//! instructions merged from it (`Op::LocalArith`, `Op::JumpUnlessLocals`,
//! `Op::JumpIfLocals`), `Op::SetLocal2`, `Op::VectorSetPop`, `Op::LocalCar`,
//! `Op::LocalCdr`, `Op::LocalEqConst` and its jump, `Op::Sym`, `Op::LocalEqSym`
//! and its jump, `Op::LocalMul`,
//! `Op::MoveLocal`, `Op::LocalNullP` and its jump, `Op::FreeArith` and its
//! jump, `Op::VectorRefInt`, `Op::SelfRef`,
//! `Op::TailSelf`, the global read, and `and`/`or` compiled as tests: each gives what the plain builtin call
//! or instruction sequence gives, in its inline case and when it hands over to the builtin
//! (mixed or boxed numbers, weak pairs, errors), and the compiler uses them
//! only where that holds (a `set!` loop variable, a jump into the middle of a
//! would-be merged pair, a test that is not an inlined builtin call).

mod common;

use common::{error_of, output_of};

fn value(expr: &str, expected: &str) {
    let src = format!("(write {expr})");
    assert_eq!(output_of(&src), expected, "{src}");
}

fn error(src: &str, expected: &str) {
    let e = error_of(src).to_string();
    assert!(
        e.contains(expected),
        "{src}: got {e:?}, expected {expected:?}"
    );
}

#[test]
fn arithmetic_inline_and_through_the_builtin() {
    value(
        "(let ((a 2) (b 3)) (list (+ a b) (- a b) (* a b)))",
        "(5 -1 6)",
    );
    value(
        "(let ((a 1.5) (b 2.0)) (list (+ a b) (- a b) (* a b)))",
        "(3.5 -0.5 3.0)",
    );
    // Mixed operands and results outside the fixnum range: the builtin.
    value(
        "(let ((a 2) (b 0.5)) (list (+ a b) (- b a) (* a b)))",
        "(2.5 -1.5 1.0)",
    );
    value(
        "(let ((a 4611686018427387903)) (list (+ a a) (- (- a) a 2) (* a 2)))",
        "(9223372036854775806 -9223372036854775808 9223372036854775806)",
    );
    error(
        "(let ((a 4611686018427387903)) (* a a))",
        "*: integer overflow",
    );
    error("(let ((a 1) (b \"x\")) (+ a b))", "+: expected a number");
    // More than two arguments, folded left.
    value(
        "(let ((a 1) (b 2) (c 3.5)) (list (+ a b c) (- a b c) (* a b c)))",
        "(6.5 -4.5 7.0)",
    );
    error(
        "(let ((a 4611686018427387903) (b 9223372036854775807)) (+ a a b))",
        "+: integer overflow",
    );
    // An argument with an effect is not folded: every argument is evaluated
    // before the type error.
    let e = common::run_with(
        "(let ((a 1)) (+ a \"x\" (begin (display \"third\") 3)))",
        16 << 20,
        "auto",
        false,
    );
    assert_eq!(e.output, "third");
    assert!(e.result.is_err());
}

#[test]
fn comparisons_as_values_and_as_tests() {
    value(
        "(let ((a 1) (b 2)) (list (= a b) (< a b) (> a b) (<= a b) (>= a b)))",
        "(#f #t #f #t #f)",
    );
    value(
        "(let ((a 2.5) (b 2.5)) (list (= a b) (< a b) (> a b) (<= a b) (>= a b)))",
        "(#t #f #f #t #t)",
    );
    value("(let ((a 1) (b 1.0)) (list (= a b) (< a b)))", "(#t #f)");
    value(
        "(let ((a 1) (b 2.5) (f (lambda (t) (if t 'y 'n)))) \
           (list (if (< a b) 'y 'n) (if (> a b) 'y 'n) (if (<= b a) 'y 'n) \
                 (if (>= b a) 'y 'n) (if (= a 1) 'y 'n) (if (< a 0) 'y 'n)))",
        "(y n n y y n)",
    );
    error("(let ((a 'x)) (if (< a 1) 1 2))", "<: expected a number");
    error(
        "(let ((a 'x) (b 2)) (if (>= a b) 1 2))",
        ">=: expected a number",
    );
    // A test that is not an inlined builtin call keeps its plain jump: the
    // `and`'s own jump lands on it with `#f`.
    value(
        "(let ((h (lambda (x a b) (if (and x (< a b)) 'yes 'no)))) (list (h #f 1 2) (h #t 1 2) (h #t 2 1)))",
        "(no yes no)",
    );
}

#[test]
fn pairs_and_type_tests() {
    value(
        "(let ((p (cons 1 2))) (list (car p) (cdr p) (pair? p) (null? p)))",
        "(1 2 #t #f)",
    );
    value(
        "(let ((w (weak-cons 'a 'b))) (list (car w) (cdr w) (pair? w)))",
        "(a b #t)",
    );
    value(
        "(let ((x '())) (list (null? x) (pair? x) (if (null? x) 'e 'f) (if (pair? x) 'p 'q)))",
        "(#t #f e q)",
    );
    value("(let ((w (weak-cons 1 2))) (if (pair? w) 'p 'q))", "p");
    value("(let ((x #f) (y 0)) (list (not x) (not y)))", "(#t #f)");
    error("(let ((x 5)) (car x))", "car: expected a pair, got 5");
    error("(let ((x \"s\")) (cdr x))", "cdr: expected a pair");
}

#[test]
fn eq_and_eqv() {
    value(
        "(let ((a 'x) (b 'x) (c '()) (d 2.5) (e 4611686018427387904)) \
           (list (eq? a b) (eq? c '()) (eq? a c) (eqv? d 2.5) (eqv? e 4611686018427387904) \
                 (eqv? d 2) (if (eqv? d 2.5) 'same 'other) (if (eq? a 'y) 'same 'other)))",
        "(#t #t #f #t #t #f same other)",
    );
}

#[test]
fn vectors() {
    value(
        "(let ((v (make-vector 3 0)) (k 1)) (vector-set! v k 'x) (list (vector-ref v k) v))",
        "(x #(0 x 0))",
    );
    error(
        "(let ((v (make-vector 3 0)) (k 3)) (vector-ref v k))",
        "out of range",
    );
    error(
        "(let ((v (make-vector 3 0)) (k -1)) (vector-set! v k 1))",
        "vector-set!",
    );
    error(
        "(let ((v '(1 2)) (k 0)) (vector-ref v k))",
        "vector-ref: expected a vector",
    );
    error(
        "(let ((v (make-vector 3 0)) (k 1.0)) (vector-ref v k))",
        "vector-ref",
    );
}

#[test]
fn local_pairs_are_not_merged_across_a_jump_target() {
    // The `if`'s two arms end at the push of `c` below them: merged with the
    // else arm's `Local`, the then arm would skip it.
    value(
        "(let () (define (g a b c) (list (if a b c) c)) (list (g #t 1 2) (g #f 1 2)))",
        "((1 2) (2 2))",
    );
}

#[test]
fn self_reference_only_for_never_assigned_loop_variables() {
    // `loop` is assigned: the reference after the `set!` is the new value.
    value(
        "(let () (define (f) (let loop ((i 0)) \
           (if (= i 0) (begin (set! loop (lambda (j) 'replaced)) (loop 1)) 'orig))) (f))",
        "replaced",
    );
    // Never assigned: the loop refers to itself (and is `eq?` to itself).
    value(
        "(let loop ((i 0) (acc '())) (if (< i 3) (loop (+ i 1) (cons i acc)) acc))",
        "(2 1 0)",
    );
    value("(letrec ((f (lambda () f))) (eq? f (f)))", "#t");
}

#[test]
fn tail_conditionals_return() {
    value(
        "(let () (define (t x) (if (< x 0) 'neg (if (= x 0) 'zero x))) (list (t -1) (t 0) (t 5)))",
        "(neg zero 5)",
    );
}

#[test]
fn negated_tests_jump_on_true() {
    // `(if (not e) ...)` pops `e` and jumps when it is true: every value but
    // `#f` is true, including `()` and `0`.
    value(
        "(map (lambda (x) (if (not x) 'no 'yes)) (list #f #t 0 '() \"\"))",
        "(no yes yes yes yes)",
    );
    // A comparison under the `not`, and an `and` whose jumps land on the
    // fused instruction itself.
    value(
        "(let () (define (f a b) (if (not (< a b)) 'ge 'lt)) (list (f 1 2) (f 2 1) (f 2 2)))",
        "(lt ge ge)",
    );
    value(
        "(let () (define (f a b) (if (not (and a b)) 'n 'y)) (list (f #f 1) (f 1 #f) (f 1 2)))",
        "(n n y)",
    );
    value("(let ((x 1)) (not (not x)))", "#t");
}

#[test]
fn a_global_is_unbound_until_defined() {
    // A global read tests the cell's value field alone (an unbound cell
    // holds a marker): unbound before its definition, bound after it, also
    // to `#f`, `()` and the unspecified value.
    let src = "(define (g) later) \
               (write (guard (e (#t (error-object-message e))) (g))) \
               (define later '()) (write (g)) \
               (set! later #f) (write (g)) \
               (define later (if #f #f)) (write (eq? (g) (if #f #f)))";
    assert_eq!(output_of(src), "\"unbound variable: later\"()#f#t");
    error(
        "(define (h) (set! nowhere 1)) (h)",
        "unbound variable: nowhere",
    );
}

#[test]
fn negated_comparisons_jump_on_the_comparison() {
    // `(if (not (OP a b)) ...)` is one jump on the comparison: every
    // comparison, fixnums, floats, mixed operands (the builtin), and NaN,
    // where `(not (< x y))` is not `(>= x y)`.
    value(
        "(let () (define (f a b) (list (if (not (< a b)) 1 0) (if (not (> a b)) 1 0) \
         (if (not (<= a b)) 1 0) (if (not (>= a b)) 1 0) (if (not (= a b)) 1 0))) \
         (list (f 1 2) (f 2 1) (f 2 2) (f 1.5 2.5) (f 2 1.5) (f +nan.0 1.0) (f 1 +nan.0)))",
        "((0 1 0 1 1) (1 0 1 0 1) (1 1 0 0 0) (0 1 0 1 1) (1 0 1 0 1) (1 1 1 1 1) (1 1 1 1 1))",
    );
    // The comparison's errors are the builtin's.
    error(
        "(let () (define (f a b) (if (not (< a b)) 1 0)) (f 1 'x))",
        "<: expected a number",
    );
    // A jump landing on the `not` (the `or`'s, the `and`'s) keeps the two
    // apart: merged, the `or`'s jump on `#t` would skip the `not`.
    value(
        "(let () (define (f p a b) (if (not (or p (< a b))) 'n 'y)) \
         (list (f #t 2 1) (f #f 1 2) (f #f 2 1)))",
        "(y y n)",
    );
    value(
        "(let () (define (f p a b) (if (not (and p (< a b))) 'n 'y)) \
         (list (f #f 1 2) (f #t 1 2) (f #t 2 1)))",
        "(n y n)",
    );
    // A comparison whose operands end with a conditional (a jump to the
    // comparison itself) still jumps on it.
    value(
        "(let () (define (f p a) (if (not (< a (if p 10 0))) 'ge 'lt)) \
         (list (f #t 5) (f #f 5) (f #t 10)))",
        "(lt ge ge)",
    );
}

#[test]
fn loops_call_themselves_in_place() {
    // A named `let`'s tail call of itself (`TailSelf`): the arguments
    // replace the parameters, the other locals start afresh each iteration,
    // captured and assigned parameters get new cells.
    value(
        "(let loop ((i 0) (acc '())) \
         (if (< i 4) (let ((j (* i i)) (k i)) (loop (+ i 1) (cons (- j k) acc))) acc))",
        "(6 2 0 0)",
    );
    value(
        "(let loop ((i 0) (fs '())) \
         (if (< i 3) (begin (set! i (* i 1)) (loop (+ i 1) (cons (lambda () i) fs))) \
         (map (lambda (f) (f)) fs)))",
        "(2 1 0)",
    );
    value(
        "(let () (define (count-up n acc) (if (= n 0) acc (count-up (- n 1) (+ acc 1)))) \
         (count-up 100000 0))",
        "100000",
    );
    // A wrong argument count is the call's arity error, as before.
    error(
        "(let loop ((i 0) (j 1)) (if (< i 1) (loop (+ i 1)) j))",
        "loop: expected 2 arguments, got 1",
    );
}

#[test]
fn returns_of_locals_are_not_merged_across_a_jump_target() {
    // The tail arm's local is returned directly.
    value(
        "(let () (define (f a b) (if a b a)) (list (f 1 2) (f #f 2)))",
        "(2 #f)",
    );
    // `and` / `or` in tail position jump to the `Return` after their last
    // local: merged with it, the jump would land past the function's end.
    value(
        "(let () (define (g a b) (and a b)) (list (g #f 1) (g 2 3)))",
        "(#f 3)",
    );
    value(
        "(let () (define (g a b) (or a b)) (list (g 1 #f) (g #f 3) (g #f #f)))",
        "(1 3 #f)",
    );
}

#[test]
fn merged_local_operations_keep_the_builtins_results_and_errors() {
    // `(OP a b)` on two locals (`LocalArith`): fixnums inline, floats, mixed
    // operands and overflow through the plain instruction and the builtin.
    value(
        "(let () (define (f a b) (list (+ a b) (- a b) (= a b) (< a b) (> a b) (<= a b) (>= a b))) \
         (list (f 3 5) (f 2.5 0.5) (f 1 1.0) (f 4611686018427387903 1)))",
        "((8 -2 #f #t #f #t #f) (3.0 2.0 #f #f #t #f #t) (2.0 0.0 #t #f #f #t #t) \
         (4611686018427387904 4611686018427387902 #f #f #t #f #t))",
    );
    error(
        "(let () (define (f a b) (- a b)) (f 1 'x))",
        "-: expected a number",
    );
    // As tests (`JumpUnlessLocals`, and `JumpIfLocals` under a `not`), NaN
    // included.
    value(
        "(let () (define (f a b) (list (if (< a b) 1 0) (if (>= a b) 1 0) (if (= a b) 1 0) \
         (if (not (<= a b)) 1 0) (if (not (> a b)) 1 0))) \
         (list (f 1 2) (f 2 2) (f 2.5 1) (f +nan.0 1.0)))",
        "((1 0 0 0 1) (0 1 1 0 1) (0 1 0 1 0) (0 0 0 1 1))",
    );
    error(
        "(let () (define (f a b) (if (> a b) 1 0)) (f \"s\" 1))",
        ">: expected a number",
    );
    error(
        "(let () (define (f a b) (if (not (< a b)) 1 0)) (f 1 #t))",
        "<: expected a number",
    );
    // A jump landing on the operation keeps it apart from the pushes before
    // it: the `if` arm's `Local` is the second operand.
    value(
        "(let () (define (f p a b c) (- a (if p b c))) (list (f #t 10 1 2) (f #f 10 1 2)))",
        "(9 8)",
    );
}

#[test]
fn merged_stores_and_vector_sets() {
    // A two-binding `let` stores both values at once (`SetLocal2`), in order,
    // also when a jump lands on the first store.
    value(
        "(let () (define (f p q) (let ((a (if p 1 2)) (b (if q 3 4))) (list a b))) \
         (list (f #t #t) (f #f #f) (f #t #f)))",
        "((1 3) (2 4) (1 4))",
    );
    // `vector-set!` for its effect (`VectorSetPop`): stores, leaves the stack
    // as it was, and keeps the builtin's errors.
    value(
        "(let ((v (make-vector 3 0))) \
         (do ((i 0 (+ i 1))) ((= i 3)) (vector-set! v i (* i i)) (vector-set! v 0 'z)) v)",
        "#(z 1 4)",
    );
    error(
        "(let ((v (make-vector 3 0)) (k 3)) (vector-set! v k 1) v)",
        "out of range",
    );
    error(
        "(let ((v (list 1 2)) (k 0)) (vector-set! v k 1) v)",
        "vector-set!: expected a vector",
    );
    // A `vector-set!` ending a conditional's else arm, whose end (a jump
    // target) the `Pop` is, is not merged with it.
    value(
        "(let ((v (make-vector 2 0))) \
         (define (f p) (list 'a (begin (if p 'no (vector-set! v 1 2)) 'done))) \
         (list (f #t) (f #f) v))",
        "((a done) (a done) #(0 2))",
    );
}

#[test]
fn eqv_tests_against_constants_and_case() {
    // A local against a datum (`LocalEqConst`, and as an `if`'s test its
    // jump): symbols are compared by name, numbers by value and exactness,
    // the empty list and characters by identity.
    value(
        "(let () (define (f x) (list (eq? x 'a) (eqv? x 2.5) (eqv? x '()) (if (eq? x 'a) 'y 'n) \
         (if (eqv? x #\\c) 'y 'n))) \
         (list (f 'a) (f (string->symbol \"a\")) (f 2.5) (f '()) (f #\\c) (f \"a\")))",
        "((#t #f #f y n) (#t #f #f y n) (#f #t #f n n) (#f #f #t n n) (#f #f #f n y) (#f #f #f n n))",
    );
    // `case`, with one datum and with several (an `or` of the tests), and its
    // `else`.
    value(
        "(let () (define (f x) (case x ((a) 1) ((b c) 2) ((3 4.5) 3) (else 'none))) \
         (map f (list 'a 'b 'c 3 4.5 4 'd)))",
        "(1 2 2 3 3 none none)",
    );
    // A jump landing on the `Const` (the `or`'s, with its first operand)
    // keeps the three apart.
    value(
        "(let () (define (f a b) (eq? (or a b) 'z)) (list (f 'z 1) (f #f 'z) (f 'y 'z)))",
        "(#t #t #f)",
    );
}

#[test]
fn car_and_cdr_of_locals() {
    // `LocalCar` / `LocalCdr`, also after another local's push (a `Local2`
    // split), on weak pairs (the builtin), and their errors.
    value(
        "(let () (define (f p q) (list (car p) (cdr p) (cons (car q) (cdr q)) (cons p (car q)))) \
         (f (cons 1 2) (weak-cons 'a 'b)))",
        "(1 2 (a . b) ((1 . 2) . a))",
    );
    error(
        "(let () (define (f p) (car p)) (f 5))",
        "car: expected a pair, got 5",
    );
    error(
        "(let () (define (f p q) (cons p (cdr q))) (f 1 '()))",
        "cdr: expected a pair",
    );
    // A jump landing on the `car` keeps it apart from the local's push.
    value(
        "(let () (define (f b p q) (car (if b p q))) (list (f #t '(1) '(2)) (f #f '(1) '(2))))",
        "(1 2)",
    );
}

#[test]
fn local_products_copies_and_null_tests() {
    // `(* a b)` on two locals (`LocalMul`): fixnums, overflow into a boxed
    // integer, floats (read from the locals), mixed operands, errors.
    value(
        "(let () (define (f a b) (* a b)) \
         (list (f 6 7) (f -3 4) (f 4611686018427387903 2) (f 1.5 2.0) (f 2 0.25)))",
        "(42 -12 9223372036854775806 3.0 0.5)",
    );
    error(
        "(let () (define (f a b) (* a b)) (f 3 'x))",
        "*: expected a number",
    );
    error(
        "(let () (define (f a b) (* a b)) (f 4611686018427387903 4611686018427387903))",
        "*: integer overflow",
    );
    // Floats and mixed operands through the other merged operations.
    value(
        "(let () (define (f a b) (list (+ a b) (- a b) (< a b) (= a b))) (list (f 1.5 0.5) (f 1 0.5)))",
        "((2.0 1.0 #f #f) (1.5 0.5 #f #f))",
    );
    // A local copied into another (`MoveLocal`), then changed apart.
    value(
        "(let () (define (f a) (let ((b a)) (set! a 5) (list a b))) (f 1))",
        "(5 1)",
    );
    // `null?` of a local (`LocalNullP`, and as a test its jump).
    value(
        "(let () (define (f x) (list (null? x) (if (null? x) 'e 'n))) \
         (list (f '()) (f '(1)) (f #f) (f 0)))",
        "((#t e) (#f n) (#f n) (#f n))",
    );
}

#[test]
fn operations_with_a_captured_operand() {
    // The top value against a captured variable (`FreeArith`, and as a test
    // `JumpUnlessFreeArith`): fixnums, the operand order, floats, mixed,
    // overflow into a boxed integer, NaN, errors.
    value(
        "(let () (define (mk c) (lambda (x) (list (- x c) (+ x c) (< x c) (>= x c) (if (< x c) 'lt 'ge) \
         (if (= x c) 'eq 'ne)))) \
         (list ((mk 3) 10) ((mk 10) 3) ((mk 0.5) 2.0) ((mk 2) 2.0) ((mk 4611686018427387903) 1) \
               ((mk +nan.0) 1.0)))",
        "((7 13 #f #t ge ne) (-7 13 #t #f lt ne) (1.5 2.5 #f #t ge ne) (0.0 4.0 #f #t ge eq) \
         (-4611686018427387902 4611686018427387904 #t #f lt ne) (+nan.0 +nan.0 #f #f ge ne))",
    );
    error(
        "(let () (define (mk c) (lambda (x) (if (< x c) 1 2))) ((mk 'c) 1))",
        "<: expected a number",
    );
    error(
        "(let () (define (mk c) (lambda (x) (+ x c))) ((mk 1) \"x\"))",
        "+: expected a number",
    );
}

#[test]
fn vector_refs_at_constant_indices() {
    // `(vector-ref v k)` with `k` a literal (`VectorRefInt`): in range, and
    // the builtin's errors out of range, below zero and on a non-vector.
    value(
        "(let () (define (f v) (list (vector-ref v 0) (vector-ref v 2))) (f (vector 'a 'b 'c)))",
        "(a c)",
    );
    error(
        "(let () (define (f v) (vector-ref v 3)) (f (vector 1 2 3)))",
        "out of range",
    );
    error(
        "(let () (define (f v) (vector-ref v -1)) (f (vector 1 2 3)))",
        "vector-ref",
    );
    error(
        "(let () (define (f v) (vector-ref v 0)) (f (list 1 2)))",
        "vector-ref: expected a vector",
    );
}

#[test]
fn and_or_as_tests_and_in_tail_position() {
    // `and` and `or` as an `if`'s test: every combination of true, false
    // and non-boolean true values, with comparisons (fused jumps) and
    // plain values, nested and negated.
    value(
        "(let loop ((i 0) (acc '()))
           (if (= i 8)
               (reverse acc)
               (let ((a (odd? i)) (b (< i 4)) (c (if (> i 5) 'x #f)))
                 (loop (+ i 1)
                       (cons (list (if (and a b) 1 0)
                                   (if (or a b) 1 0)
                                   (if (and a (or b c)) 1 0)
                                   (if (or (and a b) c) 1 0)
                                   (if (not (and a b)) 1 0)
                                   (if (and (< i 6) (not (< i 2)) (or c b)) 1 0)
                                   (if (or (< i 1) (> i 6) (eq? c 'x)) 1 0))
                             acc)))))",
        "((0 1 0 0 1 0 1) (1 1 1 1 0 0 0) (0 1 0 0 1 1 0) (1 1 1 1 0 1 0) \
(0 0 0 0 1 0 0) (0 1 0 0 1 0 0) (0 0 0 1 1 0 1) (0 1 1 1 1 0 1))",
    );
    // In tail position: `and` returns `#f` or its last value, `or` after a
    // predicate returns `#t` or what the rest returns.
    value(
        "(let ()
           (define (f a b) (and (< a b) (not (= a 0)) (list a b)))
           (define (g x y) (or (null? x) (< y 0) (and (pair? x) (car x))))
           (list (f 1 2) (f 2 1) (f 0 1)
                 (g '() 1) (g '(5) -1) (g '(5) 1) (g 7 1)))",
        "((1 2) #f #f #t #t 5 #f)",
    );
    // A tail `and` loop and a tail `or` loop (`shorterp`-style).
    value(
        "(let ()
           (define (shorter? x y)
             (and (not (null? y)) (or (null? x) (shorter? (cdr x) (cdr y)))))
           (define (all-odd? l) (or (null? l) (and (odd? (car l)) (all-odd? (cdr l)))))
           (list (shorter? '(1 2) '(1 2 3)) (shorter? '(1 2 3) '(1 2))
                 (shorter? '(1) '(1)) (all-odd? '(1 3 5)) (all-odd? '(1 2 3))))",
        "(#t #f #f #t #f)",
    );
}

#[test]
fn quoted_symbols_and_their_tests() {
    // `Sym`: a quoted symbol pushed by the instruction, the same value as
    // the symbol made at run time.
    value(
        "(let ((s (string->symbol \"abc\"))) (list 'abc (eq? s 'abc) (eqv? 'abc s) (equal? (list 'abc) (list s))))",
        "(abc #t #t #t)",
    );
    // `LocalEqSym` as a value and its jump, against symbols, other
    // immediates and heap objects; and `case` on symbols mixed with other
    // datums.
    value(
        "(let loop ((l (list 'a 'b \"a\" 1 #\\a '() (list 'a) 2.5 #t 'c)) (acc '()))
           (if (null? l)
               (reverse acc)
               (let ((x (car l)))
                 (loop (cdr l)
                       (cons (list (eq? x 'a)
                                   (if (eq? x 'b) 'yes 'no)
                                   (case x ((a c) 'ac) ((b) 'b) ((1 #\\a) 'imm) (else 'other)))
                             acc)))))",
        "((#t no ac) (#f yes b) (#f no other) (#f no imm) (#f no imm) (#f no other) \
(#f no other) (#f no other) (#f no other) (#f no ac))",
    );
}

#[test]
fn calls_ending_in_local_reads() {
    // `CallLocal` and `CallLocal2`: the last one or two pushes of a call's
    // arguments (or its callee and argument) are locals, read by the call.
    value(
        "(let ()
           (define (sub a b) (- a b))
           (define (three a b c) (list a b c))
           (define (count-down n acc) (if (= n 0) acc (count-down (- n 1) (cons n acc))))
           (let ((x 10) (y 3) (f sub) (g car) (l '(7 8)) (t (lambda () 'thunk)))
             (list (sub x y) (sub y x) (three 1 x y) (three x 2 y) (f x y) (g l) (t)
                   (f (if (> x y) x y) y)
                   (call-with-current-continuation (lambda (k) (+ 1 (k x))))
                   (length (count-down x '())))))",
        "(7 -7 (1 10 3) (10 2 3) 7 7 thunk 7 10 10)",
    );
    error("(let ((g 5) (x 1)) (list (g x)))", "attempt to call 5");
    error(
        "(let ((f (lambda (a) a)) (x 1) (y 2)) (list (f x y)))",
        "expected 1 argument, got 2",
    );
}
