//! Every error kind: syntax errors with line:column, each runtime error,
//! deep recursion, out of memory, and the binary's bad flags and exit codes.

mod common;

use common::{error_of, output_of, run_with};
use flipgc_toyvm::ErrorKind;
use std::process::Command;

fn runtime(src: &str, needle: &str) {
    let e = error_of(src);
    assert_eq!(e.kind, ErrorKind::Runtime, "{src}: {e}");
    assert!(
        e.to_string().contains(needle),
        "{src}: {e:?} lacks {needle:?}"
    );
}

#[test]
fn syntax_errors_have_line_and_column() {
    let e = error_of("(display 1)\n(define x\n  (+ 1 2)))");
    assert_eq!(e.kind, ErrorKind::Syntax { line: 3, col: 11 });
    assert!(
        e.to_string().starts_with("test.scm:3:11: syntax error"),
        "{e}"
    );
    // An unclosed list: reported where the innermost open list starts.
    let e = error_of("(let ((x 1)\n  (display x)");
    assert_eq!(e.kind, ErrorKind::Syntax { line: 1, col: 6 });
    let e = error_of("\n  (if)");
    assert_eq!(e.kind, ErrorKind::Syntax { line: 2, col: 3 });
    let e = error_of("(lambda (x x) x)");
    assert!(e.message.contains("duplicate"), "{e}");
    let e = error_of("(display \"abc)");
    assert!(
        matches!(e.kind, ErrorKind::Syntax { line: 1, col: 10 }),
        "{e:?}"
    );
}

#[test]
fn runtime_errors() {
    runtime(
        "(display undefined-thing)",
        "unbound variable: undefined-thing",
    );
    runtime("(set! nowhere 1)", "unbound variable: nowhere");
    runtime("(car 5)", "car: expected a pair, got 5");
    runtime("(+ 1 \"two\")", "+: expected a number, got \"two\"");
    runtime("(vector-ref (vector 1 2) 'x)", "expected an integer");
    runtime("((lambda (x y) x) 1)", "expected 2 arguments, got 1");
    runtime(
        "(define (f x) x) (f 1 2 3)",
        "f: expected 1 argument, got 3",
    );
    runtime(
        "((lambda (x . r) x))",
        "expected at least 1 argument, got 0",
    );
    runtime("(car 1 2)", "car: expected 1 argument, got 2");
    runtime("(vector-ref (make-vector 3 0) 3)", "index 3 out of range");
    runtime("(list-ref '(1 2) 5)", "index 5 out of range");
    runtime("(string-ref \"abc\" 10)", "index 10 out of range");
    runtime("(* 9223372036854775807 2)", "integer overflow");
    runtime("(+ 9223372036854775807 1)", "integer overflow");
    runtime("(- (- 0 9223372036854775807) 2)", "integer overflow");
    runtime("(quotient 1 0)", "division by zero");
    runtime("(5 3)", "attempt to call 5");
    runtime("(error \"bad thing:\" 42 'x)", "bad thing: 42 x");
    runtime(
        "(join (spawn (lambda () (car '()))))",
        "in spawned thread: car",
    );
}

#[test]
fn output_before_an_error_is_kept() {
    let o = run_with(
        "(display \"before\") (newline) (car '())",
        16 << 20,
        "auto",
        false,
    );
    assert_eq!(o.output, "before\n");
    assert!(o.result.is_err());
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let e = error_of("(define (f n) (+ 1 (f n))) (f 0)");
    assert_eq!(e.kind, ErrorKind::StackOverflow, "{e}");
    // Deep but bounded recursion works.
    let out = output_of("(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (display (f 100000))");
    assert_eq!(out, "100000");
}

#[test]
fn deep_recursion_through_wide_frames_is_an_error() {
    // 2,000 parameters a frame: the value stack's limit comes before the frame
    // limit (which alone would allow 400 million values, gigabytes of memory).
    let params: String = (0..2000).map(|i| format!(" a{i}")).collect();
    let args = " 1".repeat(2000);
    let e = error_of(&format!(
        "(define (wide n{params}) (+ 1 (wide n{params}))) (wide 0{args})"
    ));
    assert_eq!(e.kind, ErrorKind::StackOverflow, "{e}");
    assert!(e.message.contains("values on the stack"), "{e}");
    let e = error_of("(define (f . a) (+ 1 (apply f a))) (f 1 2 3)");
    assert_eq!(e.kind, ErrorKind::StackOverflow, "{e}");
}

#[test]
fn deep_nesting_in_source_is_an_error_not_a_crash() {
    let deep = "(+ 1 ".repeat(5000) + "1" + &")".repeat(5000);
    let e = error_of(&deep);
    assert!(matches!(e.kind, ErrorKind::Syntax { .. }), "{e}");
    assert!(e.message.contains("nest"), "{e}");
    // Long flat forms are fine, and a long cond is limited, not fatal.
    let clauses: String = (0..3000).map(|i| format!("((= x {i}) {i}) ")).collect();
    let e = error_of(&format!("(define x 5) (cond {clauses})"));
    assert!(e.message.contains("nested"), "{e}");
    let items = "1 ".repeat(20000);
    assert_eq!(
        output_of(&format!("(display (length '({items})))")),
        "20000"
    );
}

#[test]
fn out_of_memory_is_an_error() {
    let src = "(define (grow l) (grow (cons (make-vector 100 0) l))) (grow '())";
    let o = run_with(src, 1 << 20, "auto", false);
    let e = o.result.unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e}");
    assert!(e.to_string().starts_with("out of memory"), "{e}");
}

fn toyvm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toyvm"))
        .args(args)
        .output()
        .unwrap()
}

fn program(name: &str, src: &str) -> String {
    let dir = std::env::temp_dir().join(format!("toyvm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, src).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn binary_bad_flags_exit_2() {
    for args in [
        &["--heap", "lots"][..],
        &["--heap", "0"],
        &["--heap", "12Q"],
        &["--flip", "fast"],
        &["--bogus"],
    ] {
        let out = toyvm(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}: no message");
    }
    // A size the heap refuses (below its minimum) is also a usage error.
    let p = program("ok.scm", "(display 1)");
    let out = toyvm(&[&p, "--heap", "1K"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("capacity"));
    let out = toyvm(&["/nonexistent/file.scm"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn binary_runs_programs_and_reports_errors() {
    let ok = program("hello.scm", "(display \"hello\") (newline)");
    let out = toyvm(&[&ok, "--heap", "8M", "--flip", "copy", "--gc-stats"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("pauses"));

    let bad = program("bad.scm", "(display 1)\n  (car 'x)");
    let out = toyvm(&[&bad]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1");
    assert!(String::from_utf8_lossy(&out.stderr).contains("car: expected a pair"));

    let syn = program("syn.scm", "(display 1)\n  (display \"x\" ))\n");
    let out = toyvm(&[&syn]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("syn.scm:2:17: syntax error"), "{err}");
}

/// A session on a fresh 16 MiB heap with a step budget, writing to `cap`.
fn limited_session(
    limit: Option<u64>,
    cap: &common::Capture,
) -> (flipgc_core::Heap, flipgc_toyvm::Session) {
    use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    let mut reg = TypeRegistry::new();
    let types = flipgc_toyvm::register_types(&mut reg).unwrap();
    let heap = Heap::new(HeapConfig::new(16 << 20), reg).unwrap();
    let mut s = flipgc_toyvm::Session::new(&heap, &types, Box::new(cap.clone())).unwrap();
    s.set_max_steps(limit);
    (heap, s)
}

#[test]
fn step_limit_ends_endless_programs() {
    let cap = common::Capture::default();
    // The define form, the top-level thunk, then 101 calls of f: 103 calls.
    let src = "(define (f n) (if (= n 0) 'done (f (- n 1)))) (write (f 100))";
    let (_h, mut s) = limited_session(Some(103), &cap);
    s.eval("t.scm", src).unwrap();
    assert_eq!(cap.text(), "done");
    let (_h, mut s) = limited_session(Some(102), &cap);
    let e = s.eval("t.scm", src).unwrap_err();
    assert_eq!(e.kind, ErrorKind::StepLimit, "{e}");
    assert!(
        e.to_string().contains("more than 102 procedure calls"),
        "{e}"
    );

    // Endless loops, in tail position, through apply, and in a spawned thread.
    for src in [
        "(let loop () (loop))",
        "(define (f) (apply f '())) (f)",
        "(do () (#f))",
        "(join (spawn (lambda () (let loop ((i 0)) (loop (+ i 1))))))",
        "(spawn (lambda () (let loop () (loop)))) (let loop () (loop))",
    ] {
        let (_h, mut s) = limited_session(Some(100_000), &cap);
        let e = s.eval("t.scm", src).unwrap_err();
        assert_eq!(e.kind, ErrorKind::StepLimit, "{src}: {e}");
    }
    // Unlimited again.
    let (_h, mut s) = limited_session(Some(10), &cap);
    s.set_max_steps(None);
    s.eval(
        "t.scm",
        "(define (f n) (if (> n 0) (f (- n 1)))) (f 100000)",
    )
    .unwrap();
}

#[test]
fn binary_max_steps() {
    let p = program("endless.scm", "(display \"start\") (let loop () (loop))");
    let out = toyvm(&[&p, "--max-steps", "5000"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "start");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("step limit exceeded"), "{err}");
    for bad in ["-1", "lots", ""] {
        let out = toyvm(&[&p, "--max-steps", bad]);
        assert_eq!(out.status.code(), Some(2), "--max-steps {bad:?}");
    }
}

#[test]
fn binary_invalid_utf8_is_a_located_syntax_error() {
    let dir = std::env::temp_dir().join(format!("toyvm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.scm");
    std::fs::write(&path, b"(display 1)\n(display \"caf\xe9\")\n").unwrap();
    let out = toyvm(&[path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("latin1.scm:2:14: syntax error: invalid UTF-8"),
        "{err}"
    );
}

#[test]
fn circular_lists_are_errors_where_a_list_is_required() {
    let cyc = "(define c (list 1 2 3)) (set-cdr! (cddr c) c) ";
    for (call, who) in [
        ("(length c)", "length"),
        ("(apply + c)", "apply"),
        ("(append c '(4))", "append"),
        ("(reverse c)", "reverse"),
        ("(list->vector c)", "list->vector"),
        ("(list->string c)", "list->string"),
        ("(memq 9 c)", "memv"),
        ("(member 9 c)", "member"),
    ] {
        runtime(
            &format!("{cyc}{call}"),
            &format!("{who}: expected a proper list, got #0=(1 2 3 . #0#)"),
        );
    }
    runtime(
        "(define a (list '(1 . 2))) (set-cdr! a a) (assoc 9 a)",
        "assoc: expected a proper list, got #0=((1 . 2) . #0#)",
    );
    runtime(
        "(length '(1 2 . 3))",
        "length: expected a proper list, got (1 2 . 3)",
    );
    runtime("(length 5)", "length: expected a proper list, got 5");
    // A circular irritant in a message is printed with labels (and cut short).
    runtime(
        &format!("{cyc}(+ c 1)"),
        "+: expected a number, got #0=(1 2 3 . #0#)",
    );
    // write-simple has no labels: a cycle fails once the output is too large,
    // and nothing of it is written.
    let o = run_with(
        &format!("{cyc}(display \"a\") (write-simple c)"),
        16 << 20,
        "auto",
        false,
    );
    assert!(o.result.unwrap_err().message.contains("too large"));
    assert_eq!(o.output, "a");
}

#[test]
fn exit_statuses() {
    for (src, status) in [
        ("(display \"bye\") (exit) (display \"not reached\")", 0),
        ("(display \"bye\") (exit #t)", 0),
        ("(display \"bye\") (exit #f)", 1),
        ("(display \"bye\") (exit 7)", 7),
        ("(display \"bye\") (exit 'other)", 1),
        ("(display \"bye\") (exit 256)", 0),
        ("(display \"bye\") (join (spawn (lambda () (exit 5))))", 5),
    ] {
        let p = program("exit.scm", src);
        let out = toyvm(&[&p]);
        assert_eq!(out.status.code(), Some(status), "{src}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "bye", "{src}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{src}");
    }
    let e = error_of("(exit 3)");
    assert_eq!(e.kind, ErrorKind::Exit(3));
    runtime("(exit 1 2)", "exit: expected 0 to 1 arguments, got 2");
    runtime(
        "(make-vector)",
        "make-vector: expected 1 to 2 arguments, got 0",
    );
}
