;;; Threads: each spawned thread runs on its own mutator, allocating trees and
;;; lists while the others do the same (collections stop all of them); results
;;; come back through join.

(define (make-tree depth)
  (if (= depth 0)
      (cons '() '())
      (cons (make-tree (- depth 1)) (make-tree (- depth 1)))))

(define (check tree)
  (if (null? (car tree)) 1 (+ 1 (check (car tree)) (check (cdr tree)))))

(define (work id rounds depth)
  (let loop ((i 0) (sum 0))
    (if (= i rounds)
        (list id sum)
        (loop (+ i 1) (+ sum (check (make-tree depth)))))))

(define shared-list (let loop ((i 0) (l '())) (if (= i 1000) l (loop (+ i 1) (cons i l)))))

(define threads
  (map (lambda (id) (spawn (lambda () (work id 100 (+ 8 id)))))
       '(1 2 3 4)))

(define summer (spawn (lambda () (apply + shared-list))))
(define nothing (spawn (lambda () '())))

;; The main thread allocates too while the others run.
(display "main: ") (display (work 0 100 9)) (newline)
(for-each (lambda (t) (display "thread: ") (display (join t)) (newline)) threads)
(display "sum: ") (display (join summer)) (newline)
(display "again: ") (display (join summer)) (newline)
(display "empty: ") (write (join nothing)) (newline)
(define nested (spawn (lambda () (join (spawn (lambda () (string-append "inner" "-" "result")))))))
(display "nested: ") (display (join nested)) (newline)
