//! The reader: source text to [`Datum`]s (host-side syntax trees with positions).
//!
//! Handles integers, floats, booleans, characters, strings with escapes, symbols,
//! proper and dotted lists, vectors, `'` quote, `;` and `#| |#` comments.

use crate::error::VmError;

/// Deepest nesting of lists/vectors/quotes the reader accepts.
pub const MAX_NESTING: usize = 400;

/// A datum read from source.
#[derive(Clone, Debug, PartialEq)]
pub struct Datum {
    /// What it is.
    pub kind: DatumKind,
    /// Line (1-based) where it starts.
    pub line: u32,
    /// Column (1-based) where it starts.
    pub col: u32,
}

/// The kinds of datum.
#[derive(Clone, Debug, PartialEq)]
pub enum DatumKind {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// `#t` or `#f`.
    Bool(bool),
    /// A character.
    Char(char),
    /// A string literal.
    Str(String),
    /// A symbol.
    Sym(String),
    /// A list: the items and, for a dotted list, the final cdr. `()` is empty.
    List(Vec<Datum>, Option<Box<Datum>>),
    /// A vector literal.
    Vector(Vec<Datum>),
    /// A bytevector literal (`#u8(...)`).
    Bytevector(Vec<u8>),
}

impl Datum {
    /// The symbol's name, if this is a symbol.
    pub fn sym(&self) -> Option<&str> {
        match &self.kind {
            DatumKind::Sym(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is a proper list.
    pub fn list(&self) -> Option<&[Datum]> {
        match &self.kind {
            DatumKind::List(items, None) => Some(items),
            _ => None,
        }
    }

    /// A syntax error located at this datum.
    pub fn error(&self, message: impl Into<String>) -> VmError {
        VmError::syntax(self.line, self.col, message)
    }
}

/// Source bytes as text, or a syntax error at the first byte that is not UTF-8.
pub fn decode(bytes: &[u8]) -> Result<&str, VmError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Valid up to here, so this slice is text: count its characters.
        let col = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        VmError::syntax(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
            "invalid UTF-8",
        )
    })
}

/// Reads every datum of `src`.
pub fn read_all(src: &str) -> Result<Vec<Datum>, VmError> {
    let mut r = Reader {
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
        col: 1,
        depth: 0,
    };
    let mut out = Vec::new();
    loop {
        r.skip_atmosphere()?;
        if r.peek().is_none() {
            return Ok(out);
        }
        out.push(r.datum()?);
    }
}

/// Reads the first datum of `src`: it and how many bytes of `src` it and the
/// atmosphere before it took, or `None` if `src` holds no more data (the
/// runtime's `read`).
pub fn read_prefix(src: &str) -> Result<Option<(Datum, usize)>, VmError> {
    let mut r = Reader {
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
        col: 1,
        depth: 0,
    };
    r.skip_atmosphere()?;
    if r.peek().is_none() {
        return Ok(None);
    }
    let d = r.datum()?;
    let used: usize = r.chars[..r.pos].iter().map(|c| c.len_utf8()).sum();
    Ok(Some((d, used)))
}

struct Reader {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
    depth: usize,
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '"' | ';' | '\'')
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn err(&self, message: impl Into<String>) -> VmError {
        VmError::syntax(self.line, self.col, message)
    }

    fn eof(&self, what: &str) -> VmError {
        self.err(format!("unexpected end of input {what}"))
    }

    fn skip_atmosphere(&mut self) -> Result<(), VmError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some(';') => {
                    while let Some(c) = self.bump() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                Some('#') if self.peek_at(1) == Some('|') => {
                    let (line, col) = (self.line, self.col);
                    self.bump();
                    self.bump();
                    let mut nest = 1;
                    while nest > 0 {
                        match self.bump() {
                            None => {
                                return Err(VmError::syntax(
                                    line,
                                    col,
                                    "unexpected end of input in a #| comment",
                                ))
                            }
                            Some('|') if self.peek() == Some('#') => {
                                self.bump();
                                nest -= 1;
                            }
                            Some('#') if self.peek() == Some('|') => {
                                self.bump();
                                nest += 1;
                            }
                            _ => {}
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn datum(&mut self) -> Result<Datum, VmError> {
        self.skip_atmosphere()?;
        let (line, col) = (self.line, self.col);
        let mk = |kind| Datum { kind, line, col };
        let Some(c) = self.peek() else {
            return Err(self.eof("(expected a datum)"));
        };
        match c {
            '(' | '[' => {
                self.bump();
                self.nest()?;
                let d = self.list_tail(if c == '(' { ')' } else { ']' }, line, col)?;
                self.depth -= 1;
                Ok(d)
            }
            ')' | ']' => Err(self.err(format!("unexpected '{c}'"))),
            '\'' | '`' | ',' => {
                self.bump();
                let name = match c {
                    '\'' => "quote",
                    '`' => "quasiquote",
                    _ if self.peek() == Some('@') => {
                        self.bump();
                        "unquote-splicing"
                    }
                    _ => "unquote",
                };
                self.nest()?;
                let inner = self.datum()?;
                self.depth -= 1;
                let q = mk(DatumKind::Sym(name.into()));
                Ok(mk(DatumKind::List(vec![q, inner], None)))
            }
            '"' => {
                self.bump();
                self.string(line, col).map(|s| mk(DatumKind::Str(s)))
            }
            '#' => self.hash(line, col),
            _ => {
                let tok = self.token();
                let ratio = tok.split_once('/').is_some_and(|(n, d)| {
                    is_integer_token(n) && !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                });
                if (is_integer_token(&tok) || ratio) && parse_number(&tok).is_none() {
                    let zero = ratio && tok.rsplit('/').next().is_some_and(zero_digits);
                    let why = if zero {
                        "has a zero denominator"
                    } else {
                        "is outside the 64-bit range"
                    };
                    return Err(VmError::syntax(
                        line,
                        col,
                        format!("number literal {tok} {why}"),
                    ));
                }
                Ok(mk(parse_atom(&tok)))
            }
        }
    }

    fn nest(&mut self) -> Result<(), VmError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err(format!("nesting deeper than {MAX_NESTING} levels")));
        }
        Ok(())
    }

    fn token(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek() {
            if is_delimiter(c) || c == '[' || c == ']' {
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    fn list_tail(&mut self, close: char, line: u32, col: u32) -> Result<Datum, VmError> {
        let mut items = Vec::new();
        loop {
            self.skip_atmosphere()?;
            match self.peek() {
                None => {
                    return Err(VmError::syntax(
                        line,
                        col,
                        "unexpected end of input: unclosed list",
                    ))
                }
                Some(c) if c == close => {
                    self.bump();
                    return Ok(Datum {
                        kind: DatumKind::List(items, None),
                        line,
                        col,
                    });
                }
                Some('.') if self.peek_at(1).is_none_or(is_delimiter) && !items.is_empty() => {
                    self.bump();
                    let tail = self.datum()?;
                    self.skip_atmosphere()?;
                    match self.peek() {
                        Some(c) if c == close => {
                            self.bump();
                        }
                        None => return Err(self.eof("after a dotted tail")),
                        Some(_) => return Err(self.err("expected ')' after the dotted tail")),
                    }
                    return Ok(Datum {
                        kind: DatumKind::List(items, Some(Box::new(tail))),
                        line,
                        col,
                    });
                }
                Some(_) => items.push(self.datum()?),
            }
        }
    }

    fn string(&mut self, line: u32, col: u32) -> Result<String, VmError> {
        let mut s = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(VmError::syntax(
                    line,
                    col,
                    "unexpected end of input in a string",
                ));
            };
            match c {
                '"' => return Ok(s),
                '\\' => {
                    let (el, ec) = (self.line, self.col);
                    let Some(e) = self.bump() else {
                        return Err(self.eof("in a string escape"));
                    };
                    match e {
                        'n' => s.push('\n'),
                        't' => s.push('\t'),
                        'r' => s.push('\r'),
                        'a' => s.push('\u{7}'),
                        'b' => s.push('\u{8}'),
                        '0' => s.push('\0'),
                        '\\' => s.push('\\'),
                        '"' => s.push('"'),
                        'x' | 'X' => {
                            let mut hex = String::new();
                            loop {
                                match self.bump() {
                                    Some(';') => break,
                                    Some(h) if h.is_ascii_hexdigit() => hex.push(h),
                                    _ => {
                                        return Err(VmError::syntax(
                                            el,
                                            ec,
                                            "bad \\x escape (expected hex digits and ';')",
                                        ))
                                    }
                                }
                            }
                            let ch = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            s.push(ch.ok_or_else(|| {
                                VmError::syntax(el, ec, format!("bad character code \\x{hex};"))
                            })?);
                        }
                        '\n' => {
                            // Line continuation: skip leading whitespace on the next line.
                            while matches!(self.peek(), Some(' ' | '\t')) {
                                self.bump();
                            }
                        }
                        other => {
                            return Err(VmError::syntax(
                                el,
                                ec.saturating_sub(1),
                                format!("unknown string escape \\{other}"),
                            ))
                        }
                    }
                }
                c => s.push(c),
            }
        }
    }

    fn hash(&mut self, line: u32, col: u32) -> Result<Datum, VmError> {
        let mk = |kind| Datum { kind, line, col };
        self.bump();
        match self.peek() {
            Some('(') => {
                self.bump();
                self.nest()?;
                let list = self.list_tail(')', line, col)?;
                self.depth -= 1;
                match list.kind {
                    DatumKind::List(items, None) => Ok(mk(DatumKind::Vector(items))),
                    _ => Err(VmError::syntax(line, col, "dotted vector literal")),
                }
            }
            Some('u') if self.chars.get(self.pos + 1..self.pos + 3) == Some(&['8', '(']) => {
                for _ in 0..3 {
                    self.bump();
                }
                self.nest()?;
                let list = self.list_tail(')', line, col)?;
                self.depth -= 1;
                let bad = || VmError::syntax(line, col, "#u8(...): expected bytes (0 to 255)");
                match list.kind {
                    DatumKind::List(items, None) => items
                        .iter()
                        .map(|d| match d.kind {
                            DatumKind::Int(i) => u8::try_from(i).map_err(|_| bad()),
                            _ => Err(bad()),
                        })
                        .collect::<Result<Vec<u8>, _>>()
                        .map(|b| mk(DatumKind::Bytevector(b))),
                    _ => Err(bad()),
                }
            }
            Some('\\') => {
                self.bump();
                let Some(first) = self.bump() else {
                    return Err(self.eof("in a character literal"));
                };
                let mut name = String::from(first);
                while let Some(c) = self.peek() {
                    if is_delimiter(c) || c == '[' || c == ']' {
                        break;
                    }
                    name.push(c);
                    self.bump();
                }
                char_named(&name)
                    .map(|c| mk(DatumKind::Char(c)))
                    .ok_or_else(|| {
                        VmError::syntax(line, col, format!("unknown character #\\{name}"))
                    })
            }
            _ => {
                let tok = self.token();
                match tok.as_str() {
                    "t" | "true" => Ok(mk(DatumKind::Bool(true))),
                    "f" | "false" => Ok(mk(DatumKind::Bool(false))),
                    _ if tok.starts_with([
                        'x', 'X', 'b', 'B', 'o', 'O', 'd', 'D', 'e', 'E', 'i', 'I',
                    ]) =>
                    {
                        parse_number(&format!("#{tok}")).map(mk).ok_or_else(|| {
                            VmError::syntax(
                                line,
                                col,
                                format!(
                                    "bad number #{tok} (not a number, or an exact integer \
                                     outside the 64-bit range)"
                                ),
                            )
                        })
                    }
                    _ => Err(VmError::syntax(line, col, format!("unknown syntax #{tok}"))),
                }
            }
        }
    }
}

fn char_named(name: &str) -> Option<char> {
    let mut it = name.chars();
    let first = it.next()?;
    if it.next().is_none() {
        return Some(first);
    }
    Some(match name {
        "space" => ' ',
        "newline" | "linefeed" => '\n',
        "tab" => '\t',
        "nul" | "null" => '\0',
        "return" => '\r',
        "alarm" => '\u{7}',
        "backspace" => '\u{8}',
        "delete" => '\u{7f}',
        "escape" => '\u{1b}',
        _ => {
            let hex = name.strip_prefix('x').or_else(|| name.strip_prefix('X'))?;
            return u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
        }
    })
}

/// Whether `digits` (ASCII digits) is a zero: `0`, `00`...
fn zero_digits(digits: &str) -> bool {
    digits.bytes().all(|b| b == b'0')
}

/// Whether `s` has the shape of an exact integer: an optional sign, then digits.
fn is_integer_token(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit())
}

/// Parses a number as Scheme would (`string->number` too): an integer, a float,
/// `+inf.0`, `-inf.0` or `+nan.0`, a ratio `n/d`, with the prefixes `#x`, `#o`,
/// `#b`, `#d` (radix; integers only in a radix other than 10) and `#e`, `#i`
/// (exactness) in either order; `None` if `s` is not a number, or is an exact
/// integer outside the 64-bit range (this VM has no bignums: the reader reports
/// that as an error, `string->number` returns `#f`). This VM has no exact
/// rationals either: a ratio that is not an integer is the nearest float, as
/// `/` gives it, and `#e` of a non-integral number is not a number here.
pub fn parse_number(s: &str) -> Option<DatumKind> {
    let mut body = s;
    let (mut radix, mut exactness) = (None, None);
    while let Some(rest) = body.strip_prefix('#') {
        let mut it = rest.chars();
        let c = it.next()?.to_ascii_lowercase();
        match c {
            'x' | 'o' | 'b' | 'd' if radix.is_none() => {
                radix = Some(match c {
                    'x' => 16,
                    'o' => 8,
                    'b' => 2,
                    _ => 10,
                })
            }
            'e' | 'i' if exactness.is_none() => exactness = Some(c),
            _ => return None,
        }
        body = it.as_str();
    }
    let n = match radix {
        Some(r) if r != 10 => {
            let (neg, digits) = match body.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, body.strip_prefix('+').unwrap_or(body)),
            };
            if digits.is_empty() || digits.starts_with(['+', '-']) {
                return None;
            }
            let u = u64::from_str_radix(digits, r).ok()?;
            DatumKind::Int(if neg {
                0i64.checked_sub_unsigned(u)?
            } else {
                i64::try_from(u).ok()?
            })
        }
        _ if body.starts_with('#') || body.is_empty() => return None,
        _ => parse_decimal(body)?,
    };
    match (exactness, n) {
        (Some('e'), DatumKind::Float(f)) => {
            // Integral floats in [-2^63, 2^63) convert exactly.
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            (f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f)).then_some(DatumKind::Int(f as i64))
        }
        (Some('i'), DatumKind::Int(i)) => Some(DatumKind::Float(i as f64)),
        (_, n) => Some(n),
    }
}

/// A number in radix 10 without prefixes (`parse_number`'s body).
fn parse_decimal(s: &str) -> Option<DatumKind> {
    if let Some((n, d)) = s.split_once('/') {
        if !is_integer_token(n) || !d.bytes().all(|b| b.is_ascii_digit()) || d.is_empty() {
            return None;
        }
        let (n, d) = (n.parse::<i64>().ok()?, d.parse::<i64>().ok()?);
        if d == 0 {
            return None;
        }
        return Some(if n % d == 0 {
            DatumKind::Int(n / d)
        } else {
            DatumKind::Float(n as f64 / d as f64)
        });
    }
    match s {
        "+inf.0" => return Some(DatumKind::Float(f64::INFINITY)),
        "-inf.0" => return Some(DatumKind::Float(f64::NEG_INFINITY)),
        "+nan.0" | "-nan.0" => return Some(DatumKind::Float(f64::NAN)),
        _ => {}
    }
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().ok().map(DatumKind::Int);
    }
    let ok = body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok || !body.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<f64>().ok().map(DatumKind::Float)
}

fn parse_atom(tok: &str) -> DatumKind {
    parse_number(tok).unwrap_or_else(|| DatumKind::Sym(tok.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> DatumKind {
        let mut v = read_all(src).unwrap();
        assert_eq!(v.len(), 1, "{src}");
        v.remove(0).kind
    }

    #[test]
    fn atoms() {
        assert_eq!(one("42"), DatumKind::Int(42));
        assert_eq!(one("-7"), DatumKind::Int(-7));
        assert_eq!(one("+5"), DatumKind::Int(5));
        assert_eq!(one("2.5"), DatumKind::Float(2.5));
        assert_eq!(one("1e3"), DatumKind::Float(1000.0));
        assert_eq!(one(".5"), DatumKind::Float(0.5));
        assert_eq!(one("-"), DatumKind::Sym("-".into()));
        assert_eq!(one("..."), DatumKind::Sym("...".into()));
        assert_eq!(one("1+"), DatumKind::Sym("1+".into()));
        assert_eq!(one("#t"), DatumKind::Bool(true));
        assert_eq!(one("#false"), DatumKind::Bool(false));
        assert_eq!(one("#\\a"), DatumKind::Char('a'));
        assert_eq!(one("#\\space"), DatumKind::Char(' '));
        assert_eq!(one("#\\x41"), DatumKind::Char('A'));
        assert_eq!(one("#\\("), DatumKind::Char('('));
        assert_eq!(
            one(r#""a\n\t\"\\\x41;""#),
            DatumKind::Str("a\n\t\"\\A".into())
        );
        assert!(read_all("99999999999999999999").is_err());
        assert!(read_all("-9223372036854775809").is_err());
        assert_eq!(one("-9223372036854775808"), DatumKind::Int(i64::MIN));
    }

    #[test]
    fn lists_vectors_quote_comments() {
        let d = one("; c\n #| block #| nested |# |# (a . b)");
        let DatumKind::List(items, Some(tail)) = d else {
            panic!("not dotted: {d:?}")
        };
        assert_eq!(items.len(), 1);
        assert_eq!(tail.kind, DatumKind::Sym("b".into()));
        let DatumKind::Vector(v) = one("#(1 #(2) \"x\")") else {
            panic!()
        };
        assert_eq!(v.len(), 3);
        let DatumKind::List(q, None) = one("'x") else {
            panic!()
        };
        assert_eq!(q[0].kind, DatumKind::Sym("quote".into()));
        assert_eq!(one("()"), DatumKind::List(vec![], None));
    }

    #[test]
    fn errors_carry_line_and_column() {
        let e = read_all("(a\n  b ))").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Syntax { line: 2, col: 6 });
        let e = read_all("\n\n  (a b").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Syntax { line: 3, col: 3 });
        assert!(e.is_incomplete());
        let e = read_all("(1 . )").unwrap_err();
        assert!(matches!(e.kind, crate::ErrorKind::Syntax { line: 1, .. }));
        let e = read_all("\"abc\\q\"").unwrap_err();
        assert!(e.message.contains("escape"), "{e}");
        let e = read_all("#\\bogus").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Syntax { line: 1, col: 1 });
    }

    #[test]
    fn invalid_utf8_is_located() {
        assert_eq!(decode(b"(a)").unwrap(), "(a)");
        let e = decode(b"(a)\n  \xce\xbb \xff").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Syntax { line: 2, col: 5 });
        assert!(e.message.contains("UTF-8"), "{e}");
    }

    #[test]
    fn nesting_is_limited() {
        let deep = "(".repeat(MAX_NESTING + 10) + &")".repeat(MAX_NESTING + 10);
        let e = read_all(&deep).unwrap_err();
        assert!(e.message.contains("nesting"), "{e}");
        let ok = "(".repeat(MAX_NESTING) + &")".repeat(MAX_NESTING);
        assert!(read_all(&ok).is_ok());
    }
}
