//! The class description format and its parser: text in, [`ClassDef`]s out, or a
//! [`ParseError`] naming the line and what is wrong with it. The parser knows
//! nothing of the heap; [`crate::class::ClassTable::load`] turns its output into
//! class descriptors.
//!
//! The format, one item per line (`#` starts a comment, blank lines are ignored):
//!
//! ```text
//! # A tree node: two references and two primitives.
//! class gcbench.Node
//!     ref left
//!     ref right
//!     long i
//!     long j
//! end
//!
//! # Arrays: of references, or of a primitive kind.
//! array gcbench.Doubles of double
//! array churn.Vec of ref
//! ```
//!
//! A `class NAME` block lists fields, `KIND NAME`, and closes with `end`; an
//! `array NAME of KIND` line declares an array class. `KIND` is `ref` (a
//! reference: null or an object) or one of the primitive kinds `long`, `int`,
//! `double`, `boolean` (each one word in this VM). Names are letters, digits,
//! `_`, `.` and `$`, not starting with a digit or `.`. Class names are unique in a
//! description, field names within their class.

use std::fmt;

/// What one field (or an array's element) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// A reference: null or an object of the heap.
    Ref,
    /// A primitive value, one word.
    Prim(PrimKind),
}

/// The primitive kinds. Every one takes a word; the kind is recorded for the
/// accessors' and readers' benefit, not the collector's (which never reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimKind {
    /// A 64-bit integer.
    Long,
    /// A 32-bit integer (stored in a word).
    Int,
    /// A 64-bit float, stored as its bits.
    Double,
    /// A boolean (0 or 1, in a word).
    Boolean,
}

impl FieldKind {
    /// Parses a kind keyword.
    pub fn parse(word: &str) -> Option<FieldKind> {
        Some(match word {
            "ref" => FieldKind::Ref,
            "long" => FieldKind::Prim(PrimKind::Long),
            "int" => FieldKind::Prim(PrimKind::Int),
            "double" => FieldKind::Prim(PrimKind::Double),
            "boolean" => FieldKind::Prim(PrimKind::Boolean),
            _ => return None,
        })
    }

    /// The keyword of this kind.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Ref => "ref",
            FieldKind::Prim(PrimKind::Long) => "long",
            FieldKind::Prim(PrimKind::Int) => "int",
            FieldKind::Prim(PrimKind::Double) => "double",
            FieldKind::Prim(PrimKind::Boolean) => "boolean",
        }
    }
}

/// One declared field, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// Its name.
    pub name: String,
    /// What it holds.
    pub kind: FieldKind,
}

/// What a class describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassBody {
    /// An object with named fields (possibly none).
    Instance(Vec<FieldDef>),
    /// An array whose elements are of this kind.
    Array(FieldKind),
}

/// One class as the text describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassDef {
    /// Its name.
    pub name: String,
    /// Its fields or element kind.
    pub body: ClassBody,
    /// The line it starts on (1-based).
    pub line: usize,
}

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A kind keyword that is not `ref` or a primitive kind.
    UnknownKind(String),
    /// A class declared twice (in this text, or already loaded).
    DuplicateClass(String),
    /// A field name repeated in one class.
    DuplicateField(String),
    /// A name with characters outside the allowed set.
    BadName(String),
    /// A line that is none of the forms (the message says what was expected).
    Syntax(String),
    /// A `class` block without its `end`.
    Unterminated(String),
}

/// A parse error: the 1-based line and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            ParseErrorKind::UnknownKind(k) => write!(
                f,
                "unknown field kind {k:?} (known: ref, long, int, double, boolean)"
            ),
            ParseErrorKind::DuplicateClass(n) => write!(f, "class {n:?} is declared twice"),
            ParseErrorKind::DuplicateField(n) => write!(f, "field {n:?} is declared twice"),
            ParseErrorKind::BadName(n) => write!(
                f,
                "{n:?} is not a name (letters, digits, _ . $; not starting with a digit or .)"
            ),
            ParseErrorKind::Syntax(m) => write!(f, "{m}"),
            ParseErrorKind::Unterminated(n) => {
                write!(f, "class {n:?} is not closed with `end`")
            }
        }
    }
}

impl std::error::Error for ParseError {}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    first_ok
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

fn name(line: usize, s: &str) -> Result<String, ParseError> {
    if is_name(s) {
        Ok(s.to_string())
    } else {
        Err(ParseError {
            line,
            kind: ParseErrorKind::BadName(s.to_string()),
        })
    }
}

fn kind(line: usize, s: &str) -> Result<FieldKind, ParseError> {
    FieldKind::parse(s).ok_or_else(|| ParseError {
        line,
        kind: ParseErrorKind::UnknownKind(s.to_string()),
    })
}

fn syntax(line: usize, m: impl Into<String>) -> ParseError {
    ParseError {
        line,
        kind: ParseErrorKind::Syntax(m.into()),
    }
}

/// Parses a class description (see the module documentation for the format).
/// Class names must be unique in `text`; whether they clash with classes already
/// loaded is the class table's check.
pub fn parse(text: &str) -> Result<Vec<ClassDef>, ParseError> {
    let mut out: Vec<ClassDef> = Vec::new();
    // The class block being read: its definition and its fields so far.
    let mut open: Option<(ClassDef, Vec<FieldDef>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if words.is_empty() {
            continue;
        }
        if let Some((def, fields)) = &mut open {
            match words.as_slice() {
                ["end"] => {
                    let (mut def, fields) = open.take().expect("a class is open");
                    def.body = ClassBody::Instance(fields);
                    out.push(def);
                }
                ["class" | "array", ..] => {
                    return Err(ParseError {
                        line,
                        kind: ParseErrorKind::Unterminated(def.name.clone()),
                    })
                }
                [k, n] => {
                    let kind = kind(line, k)?;
                    let n = name(line, n)?;
                    if fields.iter().any(|f| f.name == n) {
                        return Err(ParseError {
                            line,
                            kind: ParseErrorKind::DuplicateField(n),
                        });
                    }
                    fields.push(FieldDef { name: n, kind });
                }
                _ => {
                    return Err(syntax(
                        line,
                        format!("expected a field `KIND NAME` or `end`, found {raw:?}"),
                    ))
                }
            }
            continue;
        }
        let def = match words.as_slice() {
            ["class", n] => ClassDef {
                name: name(line, n)?,
                body: ClassBody::Instance(Vec::new()),
                line,
            },
            ["array", n, "of", k] => ClassDef {
                name: name(line, n)?,
                body: ClassBody::Array(kind(line, k)?),
                line,
            },
            _ => {
                return Err(syntax(
                    line,
                    format!("expected `class NAME` or `array NAME of KIND`, found {raw:?}"),
                ))
            }
        };
        if out.iter().any(|c| c.name == def.name) {
            return Err(ParseError {
                line,
                kind: ParseErrorKind::DuplicateClass(def.name),
            });
        }
        match def.body {
            ClassBody::Instance(_) => open = Some((def, Vec::new())),
            ClassBody::Array(_) => out.push(def),
        }
    }
    if let Some((def, _)) = open {
        return Err(ParseError {
            line: def.line,
            kind: ParseErrorKind::Unterminated(def.name),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_parses() {
        let text = "# nodes\nclass a.Node  # trailing comment\n  ref left\n  long id\n  double w\nend\n\narray a.Vec of ref\narray a.Bits of boolean\nclass Empty\nend\n";
        let cs = parse(text).unwrap();
        assert_eq!(cs.len(), 4);
        assert_eq!(cs[0].name, "a.Node");
        assert_eq!(cs[0].line, 2);
        let ClassBody::Instance(f) = &cs[0].body else {
            panic!("an instance class")
        };
        let got: Vec<(&str, &str)> = f.iter().map(|f| (&*f.name, f.kind.name())).collect();
        assert_eq!(got, [("left", "ref"), ("id", "long"), ("w", "double")]);
        assert_eq!(cs[1].body, ClassBody::Array(FieldKind::Ref));
        assert_eq!(
            cs[2].body,
            ClassBody::Array(FieldKind::Prim(PrimKind::Boolean))
        );
        assert_eq!(cs[3].body, ClassBody::Instance(Vec::new()));
    }

    fn error(text: &str) -> ParseError {
        parse(text).unwrap_err()
    }

    #[test]
    fn errors_name_their_line_and_cause() {
        let e = error("class A\n  ref a\n  float b\nend\n");
        assert_eq!(e.line, 3);
        assert_eq!(e.kind, ParseErrorKind::UnknownKind("float".into()));
        assert!(e
            .to_string()
            .starts_with("line 3: unknown field kind \"float\""));

        let e = error("class A\n ref x\n long x\nend");
        assert_eq!(
            (e.line, e.kind),
            (3, ParseErrorKind::DuplicateField("x".into()))
        );

        let e = error("class A\nend\n\narray A of long\n");
        assert_eq!(
            (e.line, e.kind),
            (4, ParseErrorKind::DuplicateClass("A".into()))
        );

        let e = error("array V of word\n");
        assert_eq!(
            (e.line, e.kind),
            (1, ParseErrorKind::UnknownKind("word".into()))
        );

        let e = error("class A\n ref left\n");
        assert_eq!(
            (e.line, e.kind),
            (1, ParseErrorKind::Unterminated("A".into()))
        );

        let e = error("class A\nclass B\nend\n");
        assert_eq!(
            (e.line, e.kind),
            (2, ParseErrorKind::Unterminated("A".into()))
        );

        let e = error("\n\nstruct A\n");
        assert_eq!(e.line, 3);
        assert!(matches!(e.kind, ParseErrorKind::Syntax(_)), "{e}");
        assert!(e.to_string().contains("expected `class NAME`"), "{e}");

        let e = error("class A\n ref left right\nend\n");
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("expected a field"), "{e}");

        let e = error("array A of\n");
        assert!(matches!(e.kind, ParseErrorKind::Syntax(_)), "{e}");

        let e = error("class 9lives\nend\n");
        assert_eq!(
            (e.line, e.kind),
            (1, ParseErrorKind::BadName("9lives".into()))
        );

        let e = error("class A\n ref le-ft\nend\n");
        assert_eq!(
            (e.line, e.kind),
            (2, ParseErrorKind::BadName("le-ft".into()))
        );
    }
}
