//! Ports as objects (R7RS 6.13): string ports, file ports (a file written and
//! read back by the same program, across the input buffer's refills), the
//! current ports as parameters, the end-of-file object, the port predicates,
//! reading standard input a line at a time, file errors, and ports kept across
//! collections under every flip path. Each expected output is also checked
//! against Guile 3 where it is installed.

mod common;

use common::{guile, output_of, run_config, run_in, Outcome};
use flipgc_core::{GcTrigger, HeapConfig};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const IMPORTS: &str =
    "(import (scheme base) (scheme write) (scheme read) (scheme file) (scheme char))\n";

/// `src` (after the import line) prints `expected` on the toy VM, and on Guile.
fn check(src: &str, expected: &str) {
    let program = format!("{IMPORTS}{src}");
    assert_eq!(output_of(&program), expected, "toy VM: {src}");
    if guile::available() {
        assert_eq!(guile::output(&program), expected, "Guile: {src}");
    }
}

/// A path in this test's scratch directory, as a Scheme string literal's text.
fn path(name: &str) -> String {
    let p = guile::scratch("ports").join(name);
    p.to_str().unwrap().to_string()
}

#[test]
fn string_ports_read_and_write() {
    check(
        r#"(define p (open-input-string "hello (a b \"c\") 42 #\\x  1.5"))
           (write (list (read p) (read p) (read p) (read p) (read p)))
           (write (eof-object? (read p)))
           (define q (open-input-string "ab\ncd\n\nlast"))
           (write (list (peek-char q) (read-char q) (read-char q) (read-line q)
                        (read-line q) (read-line q) (read-line q)))
           (write (eof-object? (read-line q)))
           (write (eof-object? (read-char q)))
           (write (eof-object? (peek-char q)))
           (define r (open-input-string "héllo wörld"))
           (write (list (read-string 3 r) (read-char r) (read-string 100 r)))
           (write (eof-object? (read-string 2 r)))
           (write (char-ready? (open-input-string "x")))
           (define o (open-output-string))
           (write 'sym o) (display " " o) (write "str" o) (write-char #\z o) (newline o)
           (write-string "abcdef" o 2 4) (write-string "!" o)
           (write (get-output-string o))
           (write (get-output-string (open-output-string)))"#,
        r#"(hello (a b "c") 42 #\x 1.5)#t(#\a #\a #\b "" "cd" "" "last")#t#t#t("hél" #\l "o wörld")#t#t"sym \"str\"z\ncd!""""#,
    );
}

#[test]
fn the_end_of_file_object_is_its_own_type() {
    check(
        "(write (list (eof-object? (eof-object)) (eq? (eof-object) (eof-object))
                      (symbol? (eof-object)) (eof-object? 'eof) (eof-object? \"\")))",
        "(#t #t #f #f #f)",
    );
}

#[test]
fn port_predicates_and_closing() {
    check(
        "(define i (open-input-string \"abc\"))
         (define o (open-output-string))
         (write (list (port? i) (port? o) (port? \"abc\") (input-port? i) (input-port? o)
                      (output-port? o) (output-port? i) (textual-port? i) (textual-port? o)
                      (binary-port? (open-input-bytevector (bytevector 1)))
                      (input-port-open? i) (output-port-open? o)))
         (close-input-port i) (close-port o)
         (write (list (input-port-open? i) (output-port-open? o)))
         (close-port i)
         (write (list (input-port? (current-input-port)) (output-port? (current-output-port))
                      (output-port? (current-error-port))))",
        "(#t #t #f #t #f #t #f #t #t #t #t #t)(#f #f)(#t #t #t)",
    );
}

#[test]
fn a_file_written_then_read_back_by_the_same_program() {
    let f = path("lines.txt");
    // More than one input buffer's worth (64 KiB), so reads cross refills.
    let src = format!(
        r#"(define name "{f}")
           (call-with-output-file name
             (lambda (p)
               (let loop ((i 0))
                 (when (< i 20000)
                   (write (list i (* i i) "s") p) (newline p)
                   (loop (+ i 1))))))
           (write (file-exists? name))
           (define (sum-by reader)
             (call-with-input-file name
               (lambda (p)
                 (let loop ((x (reader p)) (n 0))
                   (if (eof-object? x) n (loop (reader p) (+ n 1)))))))
           (write (sum-by read))
           (write (sum-by read-line))
           (write (call-with-input-file name (lambda (p) (read-line p) (read p))))
           (write (call-with-input-file name
                    (lambda (p) (let loop ((n 0)) (if (eof-object? (read-char p)) n (loop (+ n 1)))))))
           (with-output-to-file name (lambda () (display "via current port") (newline)))
           (write (with-input-from-file name read-line))
           (define p (open-input-file name))
           (write (list (read-char p) (peek-char p) (read-string 3 p)))
           (close-input-port p)
           (delete-file name)
           (write (file-exists? name))"#
    );
    // 20000 lines "(i i*i "s")\n".
    let chars: usize = (0..20000u64)
        .map(|i| format!("({i} {} \"s\")\n", i * i).len())
        .sum();
    let expected =
        format!("#t2000020000(1 1 \"s\"){chars}\"via current port\"(#\\v #\\i \"ia \")#f");
    check(&src, &expected);
}

/// A file port the program forgets is closed (its output flushed) once a
/// collection has found it unreachable and another file is opened.
#[test]
fn a_forgotten_file_port_is_closed_after_a_collection() {
    let f = path("forgotten.txt");
    let src = format!(
        r#"{IMPORTS}(define (scribble) (let ((p (open-output-file "{f}"))) (write '(kept data) p)))
           (scribble)
           (gc)
           (write (call-with-input-file "{f}" read))"#
    );
    for flip in common::FLIP_MODES {
        let o = run_in(&src, 16 << 20, flip, "auto", true);
        if let Err(e) = &o.result {
            panic!("{flip}: {e}\noutput: {}", o.output);
        }
        assert_eq!(o.output, "(kept data)", "{flip}");
    }
}

#[test]
fn the_current_ports_are_parameters() {
    check(
        "(define o (open-output-string))
         (parameterize ((current-output-port o))
           (display \"into the string\") (write 'x) (newline) (write-char #\\!))
         (write (get-output-string o))
         (define i (open-input-string \"(from string) next\"))
         (write (parameterize ((current-input-port i)) (list (read) (read-char) (read-line))))
         (write (eq? (current-output-port) (current-output-port)))",
        "\"into the stringx\\n!\"((from string) #\\space \"next\")#t",
    );
}

#[test]
fn a_missing_file_is_a_file_error() {
    let missing = path("no-such-dir/missing.txt");
    let src = format!(
        "{IMPORTS}(write (guard (e ((file-error? e) 'file-error)) (open-input-file \"{missing}\")))
         (write (guard (e ((file-error? e) (error-object? e))) (delete-file \"{missing}\")))
         (open-input-file \"{missing}\")"
    );
    // Guile 3.0.8's `file-error?` is false for its open-file error, so this
    // is the toy VM's alone.
    let o = run_in(&src, 16 << 20, "auto", "auto", false);
    assert_eq!(o.output, "file-error#t");
    let e = o.result.expect_err("an uncaught file error");
    assert!(
        e.message.contains("open-input-file: cannot open") && e.message.contains("missing.txt"),
        "{e}"
    );
}

#[test]
fn ports_and_their_buffers_survive_collections_under_every_flip_path() {
    let f = path("gc.txt");
    let src = format!(
        r#"{IMPORTS}
(define out (open-output-string))
(define text (let ((o (open-output-string)))
               (let loop ((i 0)) (when (< i 300) (write i o) (write-char #\space o) (loop (+ i 1))))
               (get-output-string o)))
(define in (open-input-string text))
(define fp (open-output-file "{f}"))
(define (garbage n)
  (let loop ((i 0) (acc '())) (if (= i n) (length acc) (loop (+ i 1) (cons (make-vector 8 i) acc)))))
(let loop ((i 0))
  (when (< i 300)
    (let ((x (read in)))
      (write x out) (write-char #\space out)
      (write (list x (make-string 3 #\q)) fp) (newline fp))
    (garbage 3000)
    (if (= 0 (modulo i 60)) (gc))
    (loop (+ i 1))))
(close-port fp)
(write (string=? (get-output-string out) text))
(define back (open-input-file "{f}"))
(define (sum acc)
  (garbage 500)
  (let ((x (read back))) (if (eof-object? x) acc (sum (+ acc (car x))))))
(write (sum 0))
(write (eof-object? (read in)))
"#
    );
    let expected = format!("#t{}#t", (0..300).sum::<i32>());
    let check = |what: &str, o: Outcome| {
        if let Err(e) = &o.result {
            panic!("{what}: {e}\noutput: {}", o.output);
        }
        assert_eq!(o.output, expected, "{what}");
        assert!(o.pauses >= 10, "{what}: only {} pauses", o.pauses);
    };
    for (flip, fault) in [
        ("auto", "auto"),
        ("auto", "server"),
        ("pmd", "auto"),
        ("pte", "auto"),
        ("pte", "server"),
        ("copy", "auto"),
    ] {
        check(
            &format!("{flip}, {fault} faults"),
            run_in(&src, 8 << 20, flip, fault, true),
        );
    }
    let mut one = HeapConfig::new(8 << 20);
    one.concurrent_marking = false;
    one.verify_after_gc = true;
    check("one-pause", run_config(&src, one));
    let mut young = HeapConfig::new(8 << 20);
    young.young_cycles = true;
    young.trigger = GcTrigger::AfterBytes(1 << 20);
    young.verify_after_gc = true;
    check("young cycles", run_config(&src, young));
}

/// Standard input is read a line at a time: the program answers the first line
/// while its input is still open (it would wait for the end of input if it
/// read all of it first).
#[test]
fn standard_input_is_read_a_line_at_a_time() {
    let dir = guile::scratch("ports");
    let prog = dir.join("echo.scm");
    std::fs::write(
        &prog,
        format!(
            "{IMPORTS}(write (read-line)) (newline) (flush-output-port)
             (write (read)) (newline) (write (eof-object? (read)))"
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toyvm"))
        .arg(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"first line\n").unwrap();
    stdin.flush().unwrap();
    // Blocks until the VM answers; the VM answers before the input ends.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        tx.send((line, stdout)).unwrap();
    });
    // A guard against a hang (the failure this test looks for), not a timing.
    let (first, mut stdout) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("no answer to the first line while standard input was open");
    assert_eq!(first, "\"first line\"\n");
    stdin.write_all(b"(a datum)\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rest, "(a datum)\n#t");
}
