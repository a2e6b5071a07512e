;;; The Scheme half of the R7RS-small additions (the Rust half is
;;; builtins/r7rs.rs), compiled after prelude.scm when a session starts.

;; Multiple values: one value is itself; any other number is a tagged list
;; that only call-with-values (and the forms built on it) takes apart.
(define %values-tag (list 'values))
(define (values . xs)
  (if (and (pair? xs) (null? (cdr xs)))
      (car xs)
      (cons %values-tag xs)))
(define (call-with-values producer consumer)
  (let ((v (producer)))
    (if (and (pair? v) (eq? (car v) %values-tag))
        (apply consumer (cdr v))
        (consumer v))))
(define %call-with-values call-with-values)

;; Four-level c[ad]r (scheme cxr) and the three-level ones not built in.
(define (caaar x) (car (car (car x))))
(define (caadr x) (car (car (cdr x))))
(define (cadar x) (car (cdr (car x))))
(define (cdaar x) (cdr (car (car x))))
(define (cdadr x) (cdr (car (cdr x))))
(define (cddar x) (cdr (cdr (car x))))
(define (cdddr x) (cdr (cdr (cdr x))))
(define (caaaar x) (car (car (car (car x)))))
(define (caaadr x) (car (car (car (cdr x)))))
(define (caadar x) (car (car (cdr (car x)))))
(define (caaddr x) (car (car (cdr (cdr x)))))
(define (cadaar x) (car (cdr (car (car x)))))
(define (cadadr x) (car (cdr (car (cdr x)))))
(define (caddar x) (car (cdr (cdr (car x)))))
(define (cadddr x) (car (cdr (cdr (cdr x)))))
(define (cdaaar x) (cdr (car (car (car x)))))
(define (cdaadr x) (cdr (car (car (cdr x)))))
(define (cdadar x) (cdr (car (cdr (car x)))))
(define (cdaddr x) (cdr (car (cdr (cdr x)))))
(define (cddaar x) (cdr (cdr (car (car x)))))
(define (cddadr x) (cdr (cdr (car (cdr x)))))
(define (cdddar x) (cdr (cdr (cdr (car x)))))
(define (cddddr x) (cdr (cdr (cdr (cdr x)))))

;; Numbers (integers and floats: every number is real; the rationals are the
;; integers and the finite floats).
(define (complex? x) (number? x))
(define (real? x) (number? x))
(define (rational? x) (and (number? x) (or (exact? x) (finite? x))))
(define (square x) (* x x))
(define (exact-nonnegative-integer? x) (and (exact-integer? x) (>= x 0)))
(define (infinite? x) (and (inexact? x) (not (= x 0)) (= x (* 2 x))))
(define (finite? x) (not (or (nan? x) (infinite? x))))
;; Exact integer division throughout (a float division would give a float and
;; lose the low digits of big operands), from the truncated quotient, adjusted
;; by one when the remainder's sign differs from the divisor's (no intermediate
;; result can overflow when the final ones fit).
(define (floor-quotient n d) (call-with-values (lambda () (floor/ n d)) (lambda (q r) q)))
(define (floor-remainder n d) (modulo n d))
(define (truncate-quotient n d) (quotient n d))
(define (truncate-remainder n d) (remainder n d))
(define (floor/ n d)
  (let ((q (quotient n d)) (r (remainder n d)))
    (if (and (not (= r 0)) (not (eq? (negative? r) (negative? d))))
        (values (- q 1) (+ r d))
        (values q r))))
(define (truncate/ n d) (values (quotient n d) (remainder n d)))
(define (gcd . ns)
  (let loop ((ns ns) (acc 0))
    (if (null? ns)
        acc
        (loop (cdr ns)
              (let g ((a (abs acc)) (b (abs (car ns))))
                (if (= b 0) a (g b (remainder a b))))))))
(define (lcm . ns)
  (let loop ((ns ns) (acc 1))
    (if (null? ns)
        acc
        (let ((n (abs (car ns))))
          (loop (cdr ns)
                (if (or (= n 0) (= acc 0)) 0 (quotient (* acc n) (gcd acc n))))))))
(define (exact-integer-sqrt n)
  (if (not (exact-nonnegative-integer? n))
      (error "exact-integer-sqrt: expected a non-negative exact integer, got" n))
  ;; The float guess corrected; s*s > n and (s+1)^2 <= n are tested by
  ;; division, since (s+1)^2 may be past 64 bits when the results fit.
  (let loop ((s (exact (floor (sqrt n)))))
    (cond ((and (> s 0) (> s (quotient n s))) (loop (- s 1)))
          ((<= (+ s 1) (quotient n (+ s 1))) (loop (+ s 1)))
          (else (values s (- n (* s s)))))))
(define (numerator q) q)
(define (denominator q) (if (exact? q) 1 1.0))

;; Booleans, characters, symbols.
(define (boolean=? a b . rest)
  (and (eq? a b) (or (null? rest) (apply boolean=? b rest))))
(define (symbol=? a b . rest)
  (and (eq? a b) (or (null? rest) (apply symbol=? b rest))))
(define (char-ci>? a b) (char-ci<? b a))
(define (char-ci<=? a b) (not (char-ci<? b a)))
(define (char-ci>=? a b) (not (char-ci<? a b)))

;; Lists.
(define (make-list k . fill)
  (let ((x (if (pair? fill) (car fill) #f)))
    (let loop ((k k) (acc '()))
      (if (<= k 0) acc (loop (- k 1) (cons x acc))))))
(define (list-copy l)
  (if (pair? l) (cons (car l) (list-copy (cdr l))) l))
(define (list-set! l k x) (set-car! (list-tail l k) x))
(define (%append2 a b) (append a b))
;; member and assoc with an optional comparison procedure (the built-in ones
;; compare with equal?).
(define member
  (let ((member/equal member))
    (lambda (x l . compare)
      (if (null? compare)
          (member/equal x l)
          (let loop ((l l))
            (cond ((not (pair? l)) #f)
                  (((car compare) x (car l)) l)
                  (else (loop (cdr l)))))))))
(define assoc
  (let ((assoc/equal assoc))
    (lambda (x l . compare)
      (if (null? compare)
          (assoc/equal x l)
          (let loop ((l l))
            (cond ((not (pair? l)) #f)
                  (((car compare) x (car (car l))) (car l))
                  (else (loop (cdr l)))))))))

;; rationalize: the simplest rational within y of x (Stern-Brocot, through
;; continued fractions). With no exact rationals, a non-integer result is a
;; float, and so is any result when x or y is inexact.
(define (rationalize x y)
  (define (simplest-positive lo hi)
    (let ((fl (floor lo)))
      (cond ((= fl lo) fl)
            ((< fl (floor hi)) (+ fl 1))
            (else (+ fl (/ 1 (simplest-positive (/ 1 (- hi fl)) (/ 1 (- lo fl)))))))))
  (define (simplest lo hi)
    (cond ((= lo hi) lo)
          ((positive? lo) (simplest-positive lo hi))
          ((negative? hi) (- (simplest-positive (- hi) (- lo))))
          (else (if (and (exact? lo) (exact? hi)) 0 0.0))))
  (let ((r (simplest (- x (abs y)) (+ x (abs y)))))
    (if (or (inexact? x) (inexact? y)) (inexact r) r)))

;; Strings.
(define (string . cs) (list->string cs))
(define (string-copy s . range)
  (if (null? range)
      (substring s 0 (string-length s))
      (apply substring s range)))
(define (string-fill! s c . range)
  (let* ((n (string-length s))
         (start (if (pair? range) (car range) 0))
         (end (if (and (pair? range) (pair? (cdr range))) (cadr range) n)))
    (if (not (char? c)) (error "string-fill!: not a character:" c))
    (if (not (and (exact-integer? start) (exact-integer? end) (<= 0 start end n)))
        (error "string-fill!: range out of bounds:" start end))
    (let loop ((i start))
      (if (< i end)
          (begin (string-set! s i c) (loop (+ i 1)))))))
;; (string-copy! to at from [start [end]]), right to left when the ranges
;; overlap with the destination after the source.
(define (string-copy! to at from . range)
  (let* ((start (if (pair? range) (car range) 0))
         (end (if (and (pair? range) (pair? (cdr range))) (cadr range) (string-length from)))
         (n (- end start)))
    (if (or (< start 0) (> start end) (> end (string-length from))
            (< at 0) (> (+ at n) (string-length to)))
        (error "string-copy!: range out of bounds" at start end))
    (if (and (eq? to from) (> at start))
        (do ((i (- n 1) (- i 1))) ((< i 0))
          (string-set! to (+ at i) (string-ref from (+ start i))))
        (do ((i 0 (+ i 1))) ((= i n))
          (string-set! to (+ at i) (string-ref from (+ start i)))))))
(define (string>? a b) (string<? b a))
(define (string<=? a b) (not (string<? b a)))
(define (string>=? a b) (not (string<? a b)))
(define (string-map f s . more)
  (list->string (apply map f (string->list s) (map string->list more))))
(define (string-for-each f s . more)
  (apply for-each f (string->list s) (map string->list more)))
(define (string-upcase s) (string-map char-upcase s))
(define (string-downcase s) (string-map char-downcase s))
(define (string-foldcase s) (string-map char-foldcase s))
(define (string-ci=? a b) (string=? (string-foldcase a) (string-foldcase b)))
(define (string-ci<? a b) (string<? (string-foldcase a) (string-foldcase b)))
(define (string-ci>? a b) (string-ci<? b a))
(define (string-ci<=? a b) (not (string-ci<? b a)))
(define (string-ci>=? a b) (not (string-ci<? a b)))

;; Vectors.
(define (vector-map f v . more)
  (list->vector (apply map f (vector->list v) (map vector->list more))))
(define (vector-for-each f v . more)
  (apply for-each f (vector->list v) (map vector->list more)))
(define (vector-copy v . range)
  (let* ((start (if (pair? range) (car range) 0))
         (end (if (and (pair? range) (pair? (cdr range))) (cadr range) (vector-length v)))
         (out (make-vector (- end start))))
    (do ((i start (+ i 1))) ((= i end) out)
      (vector-set! out (- i start) (vector-ref v i)))))
(define (vector-append . vs)
  (list->vector (apply append (map vector->list vs))))
(define (vector->string v . range) (list->string (apply vector->list v range)))
(define (string->vector s . range) (list->vector (apply string->list s range)))
;; (vector-copy! to at from [start [end]]), as string-copy!.
(define (vector-copy! to at from . range)
  (let* ((start (if (pair? range) (car range) 0))
         (end (if (and (pair? range) (pair? (cdr range))) (cadr range) (vector-length from)))
         (n (- end start)))
    (if (or (< start 0) (> start end) (> end (vector-length from))
            (< at 0) (> (+ at n) (vector-length to)))
        (error "vector-copy!: range out of bounds" at start end))
    (if (and (eq? to from) (> at start))
        (do ((i (- n 1) (- i 1))) ((< i 0))
          (vector-set! to (+ at i) (vector-ref from (+ start i))))
        (do ((i 0 (+ i 1))) ((= i n))
          (vector-set! to (+ at i) (vector-ref from (+ start i)))))))


;; Records (define-record-type): a record type is a unique list (name); the
;; records themselves, their predicate and field access are builtins/record.rs.
(define (%make-record-type name) (list name))

;; case-lambda: clauses are #(required-count rest? procedure).
(define (%case-lambda clauses)
  (lambda args
    (let ((n (length args)))
      (let loop ((cs clauses))
        (cond ((null? cs) (error "case-lambda: no clause takes this many arguments:" n))
              ((if (vector-ref (car cs) 1)
                   (>= n (vector-ref (car cs) 0))
                   (= n (vector-ref (car cs) 0)))
               (apply (vector-ref (car cs) 2) args))
              (else (loop (cdr cs))))))))

;; Promises (scheme lazy): #(promise done? value-or-thunk), iterative force so
;; that delay-force chains run in constant space.
(define %promise-tag (list 'promise))
(define (%make-lazy-promise thunk) (vector %promise-tag #f thunk))
(define (make-promise x)
  (if (promise? x) x (vector %promise-tag #t x)))
(define (promise? x)
  (and (vector? x) (= (vector-length x) 3) (eq? (vector-ref x 0) %promise-tag)))
(define (force p)
  (if (not (promise? p))
      p
      (let loop ()
        (if (vector-ref p 1)
            (vector-ref p 2)
            (let ((v ((vector-ref p 2))))
              (cond ((vector-ref p 1) (vector-ref p 2))
                    ((promise? v)
                     (vector-set! p 1 (vector-ref v 1))
                     (vector-set! p 2 (vector-ref v 2))
                     (loop))
                    (else (vector-set! p 1 #t) (vector-set! p 2 v) v)))))))

;; Process context.
(define (emergency-exit . code) (apply exit code))
(define (features) '(r7rs exact-closed toyvm))
;; First-class continuations (vm/cont.rs): `%call/cc` captures the stack and
;; the frames into a continuation object and calls its argument with it;
;; calling the object with one value reinstates them. The procedure a program
;; gets wraps that object with the wind list at the capture (R7RS 6.10):
;; called, it first leaves the dynamic-winds active now and not then (their
;; `after` thunks, innermost first) and enters those active then and not now
;; (their `before` thunks, outermost first), each thunk run with the wind list
;; of its dynamic-wind's caller. Several values travel as `values` makes them.
(define (call-with-current-continuation receiver)
  (%call/cc
   (lambda (k)
     (let ((winds (%winds)))
       (receiver
        (lambda vals
          (if (not (eq? (%winds) winds))
              (%travel-to-winds! winds))
          (k (if (and (pair? vals) (null? (cdr vals)))
                 (car vals)
                 (apply values vals)))))))))
(define call/cc call-with-current-continuation)
(define (%list-tail-n l n) (if (> n 0) (%list-tail-n (cdr l) (- n 1)) l))
(define (%common-winds a b)
  (if (eq? a b) a (%common-winds (cdr a) (cdr b))))
(define (%travel-to-winds! to)
  (let* ((from (%winds))
         (lf (length from))
         (lt (length to))
         (common (%common-winds (%list-tail-n from (- lf (min lf lt)))
                                (%list-tail-n to (- lt (min lf lt))))))
    (let leave ((w from))
      (if (not (eq? w common))
          (begin (%set-winds! (cdr w))
                 ((cdr (car w)))
                 (leave (cdr w)))))
    (let enter ((w to))
      (if (not (eq? w common))
          (begin (enter (cdr w))
                 ((car (car w)))
                 (%set-winds! w))))))
(define (dynamic-wind before thunk after)
  (before)
  (%set-winds! (cons (cons before after) (%winds)))
  (let ((v (thunk)))
    (%set-winds! (cdr (%winds)))
    (after)
    v))
;; Parameters: a parameter is a procedure of no arguments returning its value;
;; parameterize (compile/derived.rs) calls it with a private key to convert a
;; value and to set it, and restores the old values on the way out (also on an
;; escape, through dynamic-wind).
(define %param-key (list 'parameter))
(define (make-parameter value . converter)
  (let* ((convert (if (pair? converter) (car converter) (lambda (x) x)))
         (value (convert value)))
    (lambda args
      (cond ((null? args) value)
            ((and (eq? (car args) %param-key) (eq? (cadr args) 'convert))
             (convert (car (cddr args))))
            ((and (eq? (car args) %param-key) (eq? (cadr args) 'set))
             (set! value (car (cddr args))))
            (else (error "parameter: called with arguments" args))))))
(define (%parameterize params values thunk)
  (let* ((new (map (lambda (p v) (p %param-key 'convert v)) params values))
         (old (map (lambda (p) (p)) params))
         (swap! (lambda (vals) (for-each (lambda (p v) (p %param-key 'set v)) params vals))))
    (dynamic-wind (lambda () (swap! new)) thunk (lambda () (swap! old)))))
;; Exceptions (the Rust half is builtins/exceptions.rs). The handler stack,
;; innermost first, is kept by dynamic-wind; a handler runs with the handlers
;; outside it installed. The VM's own runtime errors, and file and read errors,
;; are raised as error objects when a handler is installed.
(define %handlers '())
(define (with-exception-handler handler thunk)
  (if (not (procedure? handler))
      (error "with-exception-handler: expected a procedure, got" handler))
  (let ((outer %handlers))
    (dynamic-wind (lambda () (set! %handlers (cons handler outer)))
                  thunk
                  (lambda () (set! %handlers outer)))))
(define (%call-handler obj after)
  (let ((hs %handlers))
    (dynamic-wind (lambda () (set! %handlers (cdr hs)))
                  (lambda () (after ((car hs) obj)))
                  (lambda () (set! %handlers hs)))))
(define (raise obj)
  (if (null? %handlers)
      (%raise-uncaught obj)
      (%call-handler obj (lambda (v)
                           (error "handler returned from non-continuable raise of" obj)))))
(define (raise-continuable obj)
  (if (null? %handlers)
      (%raise-uncaught obj)
      (%call-handler obj (lambda (v) v))))
(define (error message . irritants) (raise (%make-error 0 message irritants)))
;; guard (compile/guard.rs) calls this with its body as a thunk and its
;; clauses as (lambda (condition reraise) ...). The handler escapes to the
;; guard's continuation, then the clauses run there, in the guard's dynamic
;; environment; with no clause matching, the condition is raised again with
;; raise-continuable, from the guard's dynamic environment (continuations do
;; not re-enter yet, so not from the original raise's).
(define (%guard body clauses)
  ((call-with-current-continuation
    (lambda (guard-k)
      (with-exception-handler
       (lambda (condition)
         (guard-k (lambda ()
                    (clauses condition (lambda () (raise-continuable condition))))))
       (lambda ()
         (call-with-values body (lambda vals (lambda () (apply values vals))))))))))

;; Ports (builtins/ports.rs, portio.rs). The current ports are parameters.
(define (%port-parameter k)
  (lambda args
    (cond ((null? args) (%current-port k))
          ((and (eq? (car args) %param-key) (eq? (cadr args) 'convert))
           (let ((p (car (cddr args))))
             (if (if (= k 0) (input-port? p) (output-port? p))
                 p
                 (error "parameterize: expected a port, got" p))))
          ((and (eq? (car args) %param-key) (eq? (cadr args) 'set))
           (%set-current-port! k (car (cddr args))))
          (else (error "current port: called with arguments" args)))))
(define current-input-port (%port-parameter 0))
(define current-output-port (%port-parameter 1))
(define current-error-port (%port-parameter 2))
(define (open-input-file name) (%open-file name 0))
(define (open-output-file name) (%open-file name 1))
(define (open-binary-input-file name) (%open-file name 2))
(define (open-binary-output-file name) (%open-file name 3))
(define (call-with-port port proc)
  (call-with-values (lambda () (proc port))
    (lambda vals (close-port port) (apply values vals))))
(define (call-with-input-file name proc) (call-with-port (open-input-file name) proc))
(define (call-with-output-file name proc) (call-with-port (open-output-file name) proc))
(define (with-input-from-file name thunk)
  (call-with-port (open-input-file name)
    (lambda (p) (parameterize ((current-input-port p)) (thunk)))))
(define (read-bytevector! bv . rest)
  (let* ((port (if (pair? rest) (car rest) (current-input-port)))
         (start (if (and (pair? rest) (pair? (cdr rest))) (cadr rest) 0))
         (end (if (and (pair? rest) (pair? (cdr rest)) (pair? (cddr rest)))
                  (car (cddr rest))
                  (bytevector-length bv)))
         (got (read-bytevector (- end start) port)))
    (if (eof-object? got)
        got
        (begin (bytevector-copy! bv start got) (bytevector-length got)))))
(define (with-output-to-file name thunk)
  (call-with-port (open-output-file name)
    (lambda (p) (parameterize ((current-output-port p)) (thunk)))))
