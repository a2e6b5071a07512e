//! Exceptions (R7RS 6.11): `raise`, `raise-continuable`,
//! `with-exception-handler`, `error` and error objects, `guard` (with `=>`
//! clauses, `else`, and re-raising when no clause matches), handlers running in
//! the dynamic environment of the raise, an exception raised inside nested
//! `dynamic-wind`s, the VM's own runtime errors caught as error objects, and
//! the messages of uncaught raises. Each expected output is also checked
//! against Guile 3 where it is installed.

mod common;

use common::{error_of, guile, output_of, run_in};

const IMPORTS: &str = "(import (scheme base) (scheme write))\n";

/// `src` (after the import line) prints `expected` on the toy VM, and on Guile.
fn check(src: &str, expected: &str) {
    let program = format!("{IMPORTS}{src}");
    assert_eq!(output_of(&program), expected, "toy VM: {src}");
    if guile::available() {
        assert_eq!(guile::output(&program), expected, "Guile: {src}");
    }
}

#[test]
fn error_objects_carry_message_and_irritants() {
    check(
        r#"(write (guard (e (#t (list (error-object? e) (error-object-message e)
                                      (error-object-irritants e))))
                    (error "boom" 1 'two "three")))
           (write (guard (e ((error-object? e) 'error) (else (list 'other e))) (raise 42)))
           (write (list (error-object? 42) (file-error? 'x) (read-error? "x")))"#,
        r#"(#t "boom" (1 two "three"))(other 42)(#f #f #f)"#,
    );
}

#[test]
fn guard_clauses_test_arrow_and_else() {
    check(
        "(define (try thunk)
           (guard (e ((symbol? e) (list 'symbol e))
                     ((and (pair? e) (assq 'a e)) => cdr)
                     ((and (pair? e) (assq 'b e)))
                     (else (list 'else e)))
             (thunk)))
         (write (list (try (lambda () (raise 'oops)))
                      (try (lambda () (raise (list (cons 'a 42)))))
                      (try (lambda () (raise (list (cons 'b 23)))))
                      (try (lambda () (raise 7)))
                      (try (lambda () 'no-raise))))
         (write (call-with-values (lambda () (guard (e (#t 0)) (values 1 2))) list))",
        "((symbol oops) 42 (b . 23) (else 7) no-raise)(1 2)",
    );
}

#[test]
fn guard_reraises_when_no_clause_matches() {
    check(
        "(write (guard (e ((symbol? e) (list 'outer e)))
                  (guard (e ((number? e) (list 'inner e)))
                    (raise 'sym))))
         (write (guard (e ((symbol? e) (list 'outer e)))
                  (guard (e ((number? e) (list 'inner e)))
                    (raise 5))))
         (write (with-exception-handler
                  (lambda (e) (* e 10))
                  (lambda () (+ 1 (guard (e ((symbol? e) 'no)) (raise-continuable 4))))))",
        "(outer sym)(inner 5)41",
    );
}

#[test]
fn handlers_run_in_the_dynamic_environment_of_the_raise() {
    check(
        "(write (with-exception-handler
                  (lambda (e) (display \"handler \") 42)
                  (lambda ()
                    (dynamic-wind (lambda () (display \"in \"))
                                  (lambda () (+ 1 (raise-continuable 'x)))
                                  (lambda () (display \"out \"))))))
         (write (with-exception-handler
                  (lambda (e) (list 'outer e))
                  (lambda ()
                    (with-exception-handler
                      (lambda (e) (raise-continuable (list 'inner e)))
                      (lambda () (raise-continuable 'x))))))
         (write (call-with-current-continuation
                  (lambda (k)
                    (with-exception-handler (lambda (e) (k (list 'escaped e)))
                                            (lambda () (raise 'r))))))",
        "in handler out 43(outer (inner x))(escaped r)",
    );
}

#[test]
fn an_exception_inside_nested_dynamic_winds_unwinds_them_in_order() {
    check(
        "(define trail '())
         (define (note x) (set! trail (cons x trail)))
         (write (guard (e (#t (note (list 'handled e)) 'done))
                  (dynamic-wind
                    (lambda () (note 'in1))
                    (lambda ()
                      (dynamic-wind (lambda () (note 'in2))
                                    (lambda () (raise 'boom) (note 'not-here))
                                    (lambda () (note 'out2))))
                    (lambda () (note 'out1)))))
         (write (reverse trail))
         (set! trail '())
         (write (guard (e ((string? e) e))
                  (dynamic-wind
                    (lambda () (note 'a))
                    (lambda () (guard (e ((number? e) e))
                                 (dynamic-wind (lambda () (note 'b))
                                               (lambda () (raise \"str\"))
                                               (lambda () (note 'b-out)))))
                    (lambda () (note 'a-out)))))
         (write (reverse trail))",
        "done(in1 in2 out2 out1 (handled boom))\"str\"(a b b-out a-out)",
    );
}

#[test]
fn the_vms_runtime_errors_are_error_objects() {
    check(
        "(define (caught thunk) (guard (e ((error-object? e) 'caught)) (thunk)))
         (write (list (caught (lambda () (car 1)))
                      (caught (lambda () (vector-ref (vector) 1)))
                      (caught (lambda () (undefined-variable-xyz)))
                      (caught (lambda () ((lambda (x) x))))
                      (caught (lambda () (+ 'a 1)))
                      (caught (lambda () (error \"own\")))))
         (write (call-with-current-continuation
                  (lambda (k)
                    (with-exception-handler (lambda (e) (k (error-object? e)))
                                            (lambda () (car '()))))))",
        "(caught caught caught caught caught caught)#t",
    );
    // The message is the VM's own.
    assert_eq!(
        output_of(&format!(
            "{IMPORTS}(write (guard (e (#t (error-object-message e))) (car 1)))"
        )),
        "\"car: expected a pair, got 1\""
    );
}

/// A VM error inside a `dynamic-wind` inside a `guard`: the handler escapes to
/// the guard's continuation through the wind's `after`. (With `raise` called in
/// a nested run of the interpreter, that continuation was across a barrier.)
#[test]
fn vm_errors_escape_to_a_guard_through_dynamic_wind() {
    check(
        r#"(write (guard (e (#t (if (error-object? e) 'error e)))
                    (dynamic-wind (lambda () (display "in "))
                                  (lambda () (car 1))
                                  (lambda () (display "out ")))))
           (define (nested n)
             (guard (e ((and (error-object? e) (= n 0)) (list 'inner n))
                       ((error-object? e) (raise e)))
               (if (= n 0) (vector-ref (vector) 5) (+ 1 (nested (- n 1))))))
           (write (guard (e (#t 'outer)) (nested 3)))
           (write (nested 0))"#,
        "in out errorouter(inner 0)",
    );
    // File errors keep their kind on the way to the handler (Guile's own
    // open-file error is not a file error, so this one is the toy VM's only).
    assert_eq!(
        output_of(&format!(
            "{IMPORTS}(import (scheme file))(write (guard (e ((file-error? e) 'file) (#t 'other)) \
             (open-input-file \"/nonexistent/x\")))"
        )),
        "file"
    );
}

#[test]
fn many_guards_in_a_loop_leave_nothing_behind() {
    // Each guard's handler and escape are undone: 10000 in a row, then an
    // uncaught raise is still uncaught.
    check(
        "(write (let loop ((i 0) (acc 0))
                  (if (= i 10000) acc
                      (loop (+ i 1) (+ acc (guard (e ((error-object? e) 0) (#t e)) (if (odd? i) (raise 1) (car i))))))))",
        "5000",
    );
    let e = error_of(&format!(
        "{IMPORTS}(guard (e (#t e)) (raise 1)) (guard (e (#t e)) (car 1)) (raise 'after)"
    ));
    assert_eq!(e.message, "uncaught exception: after");
}

#[test]
fn uncaught_raises_name_what_was_raised() {
    let e = error_of(&format!("{IMPORTS}(raise (list 1 \"two\" 'three))"));
    assert_eq!(e.message, "uncaught exception: (1 \"two\" three)");
    let e = error_of(&format!("{IMPORTS}(error \"bad thing:\" 42 'x)"));
    assert_eq!(e.to_string(), "runtime error: bad thing: 42 x");
    // A handler that returns from a non-continuable raise: a secondary error.
    let e = error_of(&format!(
        "{IMPORTS}(with-exception-handler (lambda (e) 0) (lambda () (raise 'r)))"
    ));
    assert_eq!(
        e.message,
        "handler returned from non-continuable raise of r"
    );
    // An error in a handler goes to the handlers outside it.
    let o = run_in(
        &format!(
            "{IMPORTS}(write (guard (e (#t (list 'outer (error-object-message e))))
                        (with-exception-handler (lambda (e) (car e)) (lambda () (raise 5)))))"
        ),
        16 << 20,
        "auto",
        "auto",
        false,
    );
    assert_eq!(o.output, "(outer \"car: expected a pair, got 5\")");
}

/// An error that ends an evaluation (a REPL line) leaves no handler installed
/// and the standard ports current, though it skipped the `dynamic-wind` exits
/// of the `with-exception-handler` and `with-output-to-file` it left.
#[test]
fn an_error_ending_an_evaluation_resets_handlers_and_current_ports() {
    use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    let cap = common::Capture::default();
    let mut reg = TypeRegistry::new();
    let types = flipgc_toyvm::register_types(&mut reg).unwrap();
    let heap = Heap::new(HeapConfig::new(16 << 20), reg).unwrap();
    let mut s = flipgc_toyvm::Session::new(&heap, &types, Box::new(cap.clone())).unwrap();
    // Stack overflow is not an exception: it ends the evaluation inside the
    // handler's extent.
    let e = s
        .eval(
            "t.scm",
            "(with-exception-handler (lambda (e) 'ignored) (lambda () (let f () (+ 1 (f)))))",
        )
        .unwrap_err();
    assert_eq!(e.kind, flipgc_toyvm::ErrorKind::StackOverflow, "{e}");
    let e = s.eval("t.scm", "(car 1)").unwrap_err();
    assert_eq!(e.message, "car: expected a pair, got 1");
    let file = common::guile::scratch("exceptions").join("redirect.txt");
    let src = format!(
        "(with-output-to-file \"{}\" (lambda () (display \"in file\") (car 1)))",
        file.display()
    );
    assert!(s.eval("t.scm", &src).is_err());
    s.eval("t.scm", "(display \"on stdout\")").unwrap();
    assert_eq!(cap.text(), "on stdout");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "in file");
}
