;;; String-heavy: building, slicing, comparing and converting strings and
;;; symbols in loops; every intermediate string is a heap object.

(define (repeat-string s n)
  (let loop ((i 0) (acc ""))
    (if (= i n) acc (loop (+ i 1) (string-append acc s)))))

(define (string-reverse s)
  (list->string (reverse (string->list s))))

(define (count-char s c)
  (let loop ((i 0) (n 0))
    (if (= i (string-length s))
        n
        (loop (+ i 1) (if (char=? (string-ref s i) c) (+ n 1) n)))))

(define (char=? a b) (= (char->integer a) (char->integer b)))

(define (join strs sep)
  (if (null? strs)
      ""
      (let loop ((rest (cdr strs)) (acc (car strs)))
        (if (null? rest) acc (loop (cdr rest) (string-append acc sep (car rest)))))))

(define (number-list n)
  (let loop ((i n) (acc '()))
    (if (= i 0) acc (loop (- i 1) (cons (number->string i) acc)))))

;; Many short strings, joined and measured.
(define (churn rounds)
  (let loop ((r 0) (total 0))
    (if (= r rounds)
        total
        (let ((s (join (number-list 20) ",")))
          (loop (+ r 1) (+ total (string-length s)))))))

;; Palindromes among numbers, via string reversal.
(define (palindromes n)
  (let loop ((i 1) (count 0))
    (if (> i n)
        count
        (let ((s (number->string i)))
          (loop (+ i 1) (if (string=? s (string-reverse s)) (+ count 1) count))))))

;; Symbols round-trip through strings.
(define (symbol-churn n)
  (let loop ((i 0) (same 0))
    (if (= i n)
        same
        (let* ((name (string-append "sym-" (number->string (remainder i 100))))
               (s (string->symbol name)))
          (loop (+ i 1)
                (if (eq? s (string->symbol (symbol->string s))) (+ same 1) same))))))

(define big (repeat-string "abc" 2000))
(display "repeat: ") (display (string-length big)) (newline)
(display "count b: ") (display (count-char big #\b)) (newline)
(display "substring: ") (write (substring big 2998 3005)) (newline)
(display "reverse: ") (write (string-reverse "hello, world")) (newline)
(display "churn: ") (display (churn 3000)) (newline)
(display "palindromes: ") (display (palindromes 20000)) (newline)
(display "symbols: ") (display (symbol-churn 20000)) (newline)
(display "numbers: ")
(write (map string->number '("42" "-7" "2.5" "1e3" "abc")))
(newline)
(display "escapes: ") (write "tab\there \"quoted\" back\\slash") (newline)
(display "join: ") (display (join (map symbol->string '(alpha beta gamma)) "-")) (newline)
