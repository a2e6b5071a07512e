//! A fuzzer for the VM: random cases ([`generate`]) and a way to run them in
//! process ([`run_case`]) or through the `toyvm` binary ([`run_binary`]), as a
//! program file or as REPL input ([`Feed`]).
//!
//! A case is source bytes of one of five [`Kind`]s: a program from a grammar of the
//! language (special forms, builtins, user procedures, literals of every syntax,
//! targeted scenarios such as circular lists, deep recursion, endless loops,
//! allocation bombs, threads and deep nesting), the same with many deliberate
//! mistakes (wrong arity, wrong types, unbound names, malformed special forms),
//! a program cut or spliced at random points, a soup of tokens, or random bytes.
//! Programs also use hashtables, weak pairs and guardians, in scenarios the
//! generator follows in a model: where the VM disagrees with it, the program
//! exits with [`MODEL_MISMATCH_EXIT`].
//! A differential mode ([`generate_diff`], [`diff`]) runs restricted programs
//! on the toy VM and on a reference Scheme (Guile) and compares their output.
//! Every case is a pure function of its 64-bit seed, so a failure is replayed from
//! its seed alone. The VM must end every case cleanly: output, or a [`VmError`];
//! never a panic, a signal or a hang. The `toyvm-fuzz` binary drives long runs;
//! `tests/fuzz.rs` runs a short one in CI.

pub mod diff;
mod program;
mod run;

pub use program::{DIFF_EXCLUDED, MODEL_MISMATCH_EXIT};

pub use run::{
    install_panic_counter, may_exit, panic_count, run_binary, run_case, run_source,
    run_source_captured, take_panic_message, BinaryVerdict, Limits,
};

use crate::VmError;

/// A small deterministic random generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index into `weights`, chosen with probability proportional to its weight.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut x = self.below(total as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// A size that is usually small but sometimes large: `lo..=hi` with a
    /// logarithmic spread.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        let bits = usize::BITS - (hi - lo).max(1).leading_zeros();
        let cap = (1usize << self.range(0, bits as usize)).min(hi - lo + 1);
        lo + self.below(cap.max(1))
    }
}

/// The seed of case `index` of a run seeded with `seed`.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    let mut r = Rng::new(seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03));
    r.next_u64()
}

/// What kind of input a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A program from the grammar, mostly well formed (some mistakes).
    Program,
    /// A program from the grammar with many deliberate mistakes.
    Broken,
    /// A program cut, spliced or scribbled on at random points.
    Cut,
    /// A random sequence of tokens.
    Soup,
    /// Random bytes (not always UTF-8).
    Bytes,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [
        Kind::Program,
        Kind::Broken,
        Kind::Cut,
        Kind::Soup,
        Kind::Bytes,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Program => "program",
            Kind::Broken => "broken",
            Kind::Cut => "cut",
            Kind::Soup => "soup",
            Kind::Bytes => "bytes",
        }
    }
}

/// How a case's source reaches the VM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feed {
    /// As a program file: read whole, run form by form, stop at the first error.
    File,
    /// As REPL input: line by line, a form left open continuing on the next
    /// line, errors reported and the session going on.
    Lines,
}

/// One fuzz case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed it was generated from.
    pub seed: u64,
    /// Its kind.
    pub kind: Kind,
    /// How it is fed to the VM.
    pub feed: Feed,
    /// The source.
    pub bytes: Vec<u8>,
}

/// The case for `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let kind = Kind::ALL[rng.weighted(&[40, 20, 20, 12, 8])];
    let bytes = match kind {
        Kind::Program => program::program(&mut rng, 3).into_bytes(),
        Kind::Broken => program::program(&mut rng, 30).into_bytes(),
        Kind::Cut => {
            let src = program::program(&mut rng, 5).into_bytes();
            cut(&mut rng, src)
        }
        Kind::Soup => soup(&mut rng).into_bytes(),
        Kind::Bytes => random_bytes(&mut rng),
    };
    let feed = if rng.chance(25) {
        Feed::Lines
    } else {
        Feed::File
    };
    Case {
        seed,
        kind,
        feed,
        bytes,
    }
}

/// The differential case for `seed`: a [`Kind::Program`] without deliberate
/// mistakes, restricted to what the toy VM and a standard Scheme agree on (see
/// [`diff`]), fed as a file.
pub fn generate_diff(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    Case {
        seed,
        kind: Kind::Program,
        feed: Feed::File,
        bytes: program::diff_program(&mut rng).into_bytes(),
    }
}

/// Truncates, splices or scribbles on `src` one to four times.
fn cut(rng: &mut Rng, mut src: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.range(1, 4) {
        let n = src.len();
        let at = rng.below(n + 1);
        match rng.below(7) {
            // Cut the end off anywhere (even inside a UTF-8 sequence).
            0 | 1 => src.truncate(at),
            // Delete a span.
            2 => {
                let end = (at + rng.size(1, 64)).min(n);
                src.drain(at..end);
            }
            // Duplicate a span somewhere else.
            3 => {
                let end = (at + rng.size(1, 64)).min(n);
                let span = src[at..end].to_vec();
                let to = rng.below(n + 1);
                src.splice(to..to, span);
            }
            // Insert a token.
            4 => {
                let tok = soup_token(rng).into_bytes();
                src.splice(at..at, tok);
            }
            // Replace a byte by a delimiter.
            5 => {
                if at < n {
                    src[at] = *rng.pick(b"()[]'\"#;. \\|");
                }
            }
            // Swap two spans' first bytes.
            _ => {
                let other = rng.below(n + 1);
                if at < n && other < n {
                    src.swap(at, other);
                }
            }
        }
    }
    src
}

const SOUP: &[&str] = &[
    "(",
    "(",
    "(",
    ")",
    ")",
    ")",
    "[",
    "]",
    "#(",
    "'",
    "`",
    ",",
    ",@",
    ".",
    "#|",
    "|#",
    ";",
    "\"",
    "#\\",
    "#\\x",
    "#\\space",
    "#\\x3bb",
    "#t",
    "#f",
    "#true",
    "#false",
    "#;",
    "#x1F",
    "#u8(",
    "#!",
    "#0=",
    "#0#",
    "#",
    "\\",
    "|",
    "λ",
    "\u{0}",
    "\t",
    "\n",
    "\r\n",
    "1e",
    "1e400",
    "+inf.0",
    "-nan.0",
    ".5",
    "1.",
    "-",
    "+",
    "...",
    "0",
    "-1",
    "42",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "1/2",
    "2.5",
    "\"a\\nb\"",
    "\"\\x41;\"",
    "\"\\q\"",
    "\"\\x;\"",
    "else",
    "=>",
    "x",
    "y",
    "loop",
    "f",
    "lambda",
    "define",
    "if",
    "let",
    "let*",
    "letrec",
    "letrec*",
    "cond",
    "case",
    "and",
    "or",
    "when",
    "unless",
    "do",
    "begin",
    "set!",
    "quote",
    "apply",
    "map",
    "for-each",
    "car",
    "cdr",
    "cons",
    "list",
    "vector",
    "make-vector",
    "make-string",
    "string-append",
    "display",
    "write",
    "write-shared",
    "write-simple",
    "newline",
    "length",
    "list?",
    "equal?",
    "set-cdr!",
    "set-car!",
    "vector-set!",
    "error",
    "exit",
    "gc",
    "spawn",
    "join",
    "+",
    "*",
    "/",
    "=",
    "<",
    "string->symbol",
    "list-tail",
    "reverse",
    "append",
    "list->string",
    "integer->char",
];

fn soup_token(rng: &mut Rng) -> String {
    let mut t = (*rng.pick(SOUP)).to_string();
    if rng.chance(10) {
        t = t.repeat(rng.size(2, 600));
    }
    t
}

/// A random sequence of tokens and separators.
fn soup(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.size(1, 300) {
        s.push_str(&soup_token(rng));
        match rng.below(6) {
            0 => {}
            1 => s.push('\n'),
            _ => s.push(' '),
        }
    }
    s
}

/// Random bytes: uniform, or mostly printable ASCII with some high bytes.
fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let n = rng.size(0, 400);
    let ascii = rng.chance(60);
    (0..n)
        .map(|_| {
            if ascii && rng.chance(95) {
                rng.range(0x20, 0x7e) as u8
            } else {
                rng.next_u64() as u8
            }
        })
        .collect()
}

/// How a case ended in process: its result (a clean error is fine), or a
/// failure.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The program ran to the end or stopped with an error: both are clean.
    Clean(Result<(), VmError>),
    /// A panic (on the case's thread or any thread it started), with its message.
    Panic(String),
    /// Threads the program started were still running long after it ended.
    Stuck(String),
}

impl Verdict {
    /// Whether the case ended cleanly.
    pub fn is_clean(&self) -> bool {
        matches!(self, Verdict::Clean(_))
    }

    /// Whether the program reported that the VM disagreed with the generator's
    /// model (meaningful for [`Kind::Program`] and [`Kind::Broken`] cases only:
    /// cutting a program can break its model).
    pub fn is_model_mismatch(&self) -> bool {
        matches!(self, Verdict::Clean(Err(e)) if e.kind == crate::ErrorKind::Exit(MODEL_MISMATCH_EXIT))
    }

    /// A short label: `ok`, the error kind, `panic` or `stuck`.
    pub fn label(&self) -> String {
        match self {
            Verdict::Clean(Ok(())) => "ok".into(),
            Verdict::Clean(Err(e)) => match &e.kind {
                crate::ErrorKind::Syntax { .. } => "syntax error".into(),
                crate::ErrorKind::Runtime => "runtime error".into(),
                crate::ErrorKind::StackOverflow => "stack overflow".into(),
                crate::ErrorKind::OutOfMemory => "out of memory".into(),
                crate::ErrorKind::Host => "host error".into(),
                crate::ErrorKind::StepLimit => "step limit".into(),
                crate::ErrorKind::Exit(_) => "exit".into(),
            },
            Verdict::Panic(_) => "PANIC".into(),
            Verdict::Stuck(_) => "STUCK".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_deterministic_and_varied() {
        let mut kinds = std::collections::HashSet::new();
        for i in 0..500 {
            let s = case_seed(7, i);
            let a = generate(s);
            let b = generate(s);
            assert_eq!(a.bytes, b.bytes);
            assert_eq!(a.kind, b.kind);
            kinds.insert(a.kind);
        }
        assert_eq!(kinds.len(), Kind::ALL.len());
    }

    #[test]
    fn rng_ranges() {
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            assert!(r.below(3) < 3);
            let x = r.range(5, 9);
            assert!((5..=9).contains(&x));
            let s = r.size(2, 100);
            assert!((2..=100).contains(&s));
            assert!(r.weighted(&[0, 5, 0]) == 1);
        }
    }
}
