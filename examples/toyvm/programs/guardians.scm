;;; Guardians (Chez Scheme): (make-guardian) returns a procedure g; (g obj)
;;; registers obj; (g) returns a registered object that has become inaccessible
;;; (kept alive, whole, for the program to use), or #f when there is none.

(define (check name got want)
  (display name)
  (display ": ")
  (write got)
  (if (equal? got want)
      (display " ok")
      (begin (display " WRONG, want ") (write want)))
  (newline))

(define (insert-by-cadr x l)
  (if (or (null? l) (< (cadr x) (cadr (car l))))
      (cons x l)
      (cons (car l) (insert-by-cadr x (cdr l)))))
(define (sort-by-cadr l)
  (if (null? l) '() (insert-by-cadr (car l) (sort-by-cadr (cdr l)))))
(define (drain g acc)
  (let ((x (g)))
    (if x (drain g (cons x acc)) acc)))

(define g (make-guardian))
(check "a guardian is a procedure" (procedure? g) #t)
(check "nothing yet" (g) #f)
(g (list 'a 1))
(g (list 'b 2))
(define kept (list 'c 3))
(g kept)
(gc)
(check "the two dropped objects" (sort-by-cadr (drain g '())) '((a 1) (b 2)))
(check "the kept one is not returned" (g) #f)
(set! kept #f)
(gc)
(check "once dropped, it is" (g) '(c 3))
(check "each object once" (g) #f)

;; What a guardian returns is whole: here a tree of 1023 nodes.
(define (make-tree d)
  (if (= d 0) '() (list d (make-tree (- d 1)) (make-tree (- d 1)))))
(define (tree-size t)
  (if (null? t) 0 (+ 1 (tree-size (cadr t)) (tree-size (caddr t)))))
(g (make-tree 10))
(gc)
(check "a returned tree is whole" (tree-size (g)) 1023)

;; Registered twice, returned twice; registered again, returned again.
(define twice (list 'twice))
(g twice)
(g twice)
(set! twice #f)
(gc)
(define r1 (g))
(define r2 (g))
(check "registered twice, returned twice" (list r1 r2) '((twice) (twice)))
(check "the same object" (eq? r1 r2) #t)
(check "then none" (g) #f)
(g r1)
(set! r1 #f)
(set! r2 #f)
(gc)
(check "registered again, returned again" (g) '(twice))

;; Guardians are separate.
(define g2 (make-guardian))
(g2 (list 'for-g2))
(gc)
(check "g has nothing of g2's" (g) #f)
(check "g2 has it" (g2) '(for-g2))

;; Numbers, characters and symbols are never inaccessible.
(g 12345678)
(g #\z)
(g 'a-symbol)
(gc)
(check "values are never returned" (g) #f)

;; A guardian that dies takes its registrations with it: the object registered
;; with it is collected (by the second collection: the first finds the guardian
;; dead and the object held for it).
(define w
  (let ((g3 (make-guardian)) (obj (list 'orphan)))
    (g3 obj)
    (weak-cons obj '())))
(gc)
(gc)
(check "an object of a dead guardian is collected" (bwp-object? (car w)) #t)

;; Many objects, in a loop that collects on its own (17 MiB of them, more than
;; the heaps the tests run it in): each dropped at once, and the guardian drained
;; as the loop goes.
(define returned 0)
(define (drain-count)
  (if (g) (begin (set! returned (+ returned 1)) (drain-count))))
(define (register-many n)
  (if (> n 0)
      (begin
        (g (make-vector 20 n))
        (if (= 0 (remainder n 1000)) (drain-count))
        (register-many (- n 1)))))
(register-many 100000)
(gc)
(drain-count)
(check "100000 objects, each returned once" returned 100000)
