//! The layering rule of gc-core (docs/architecture.md, "Layers"), checked.
//!
//! Every source file under `gc-core/src` belongs to one of five layers, bottom to
//! top: base (leaf utilities), object model, spaces, collector, mutator API
//! ([`LAYERS`]). No `crate::`, `$crate::` or `super::` path in a file may name a
//! module of a higher layer: not in a `use` (groups and nested groups expanded),
//! not inline in code or in a macro body. Comments, doc comments and string
//! literals are skipped; `#[cfg(test)]` modules are checked like the rest.
//!
//! A path is resolved to the file that owns the item it names: the longest prefix
//! that is a module, then, where the next segment is a name that module
//! re-exports (`pub use`, `pub(crate) use`), the re-export's target, so
//! `crate::Heap` counts as an edge to `heap.rs`, not to `lib.rs`.
//!
//! The test fails listing every upward edge that is not in [`ALLOWED`], every
//! entry of [`ALLOWED`] that is no longer needed (so the list only shrinks), and
//! every source file that [`LAYERS`] does not place. A synthetic crate
//! ([`checker_sees_every_path_form`]) shows the scanner finds each path form.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// The layers, bottom to top. A file may name modules of its own layer or below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// Leaf utilities: failure containment, synchronisation, errors, the heap's
    /// configuration and the records it is configured to keep (pause log, GC log),
    /// raw memory accessors.
    Base,
    /// Headers, the type table and tail layouts, the VM binding and its
    /// decoders, the immediates' encoding, ephemeron layout, identity hashes.
    Model,
    /// The moving space, TLABs, the large-object space, the card table's storage.
    Space,
    /// Marking, planning, the flip, compaction, the driver, the pacer, safepoints,
    /// the SIGBUS handler, the verifier, and the heap's shared state they work on.
    Collector,
    /// Heap, Mutator, access, roots and handles, the JIT entry points, bindings.
    Api,
}

use Layer::*;

/// Where each file lives: a path relative to `gc-core/src`, either a file or a
/// directory (ending in `/`, covering everything below it). The longest match
/// wins. Every file must match one entry; every entry must match a file.
const LAYERS: &[(&str, Layer)] = &[
    // Base: leaves, or records only the heap's configuration names.
    ("fatal.rs", Base),
    ("sync.rs", Base),
    ("error.rs", Base),
    ("config.rs", Base),
    ("host.rs", Base),
    ("inject.rs", Base),
    ("ring.rs", Base),
    ("pauselog.rs", Base),
    ("gclog.rs", Base),
    ("seams.rs", Base),
    ("mem.rs", Base),
    ("priority.rs", Base),
    // Object model. The immediates' encoding is `object/mod.rs`'s (`is_ref`,
    // `IMMEDIATE_TAG_MASK`); `Value<'m>` borrows a mutator, as `Gc<'m>` does, so
    // `value.rs` is in the mutator API.
    ("object/", Model),
    ("model.rs", Model),
    ("decode.rs", Model),
    ("hash.rs", Model),
    // Spaces.
    ("space/", Space),
    ("cards.rs", Space),
    // Collector.
    ("collect/", Collector),
    ("pacer.rs", Collector),
    ("safepoint.rs", Collector),
    ("sigbus.rs", Collector),
    // Mutator API (and the crate root, which re-exports the public API).
    ("lib.rs", Api),
    ("heap.rs", Api),
    ("heap_types.rs", Api),
    ("mutator.rs", Api),
    ("access.rs", Api),
    ("barrier.rs", Api),
    ("roots.rs", Api),
    ("pin.rs", Api),
    ("finalize.rs", Api),
    ("jit.rs", Api),
    // The mutator's accessors of values, tails and VM-model objects (each file
    // is `impl Mutator` blocks, and the descriptors they hand out).
    ("value.rs", Api),
    ("tail.rs", Api),
    ("model_access.rs", Api),
    ("model_fast.rs", Api),
    ("bindings.rs", Api),
    // Unit tests of collector files that build a whole heap.
    ("driver_tests.rs", Api),
];

/// Upward edges still present, each `(from file, to file, why it is still there)`.
/// The test fails on an upward edge missing here and on an entry that no longer
/// names one: remove an entry when its edge goes.
const ALLOWED: &[(&str, &str, &str)] = &[];

/// A token of Rust source, with comments, whitespace and literals dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// `::`.
    Path,
    /// Any other punctuation character.
    Punct(char),
}

/// Splits `src` into tokens, skipping comments (nested block comments too),
/// string, byte-string, raw-string and char literals, and lifetimes' quotes.
fn lex(src: &str) -> Vec<(Tok, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let skip_str = |mut i: usize, line: &mut usize| -> usize {
        // `i` is just past the opening quote.
        while i < b.len() && b[i] != b'"' {
            if b[i] == b'\\' {
                i += 1;
            }
            if i < b.len() && b[i] == b'\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            let mut depth = 0;
            while i < b.len() {
                if src[i..].starts_with("/*") {
                    depth += 1;
                    i += 2;
                } else if src[i..].starts_with("*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == b'"' {
            i = skip_str(i + 1, &mut line);
        } else if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r'))) && {
            let j = if c == b'b' { i + 2 } else { i + 1 };
            let mut k = j;
            while b.get(k) == Some(&b'#') {
                k += 1;
            }
            b.get(k) == Some(&b'"')
        } {
            // A raw string: r"..", r#".."#, br#".."#.
            let mut k = if c == b'b' { i + 2 } else { i + 1 };
            let mut hashes = 0;
            while b[k] == b'#' {
                hashes += 1;
                k += 1;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let start = k + 1;
            let end = src[start..].find(&close).map_or(b.len(), |e| start + e);
            line += src[start..end].matches('\n').count();
            i = end + close.len();
        } else if c == b'b' && b.get(i + 1) == Some(&b'"') {
            i = skip_str(i + 2, &mut line);
        } else if c == b'b' && b.get(i + 1) == Some(&b'\'') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else {
                let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                if b.get(i + 1 + ch_len) == Some(&b'\'') {
                    i += 2 + ch_len;
                } else {
                    i += 1; // a lifetime: its name lexes as an identifier
                }
            }
        } else if c == b'_' || c.is_ascii_alphabetic() {
            let s = i;
            while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push((Tok::Ident(src[s..i].to_string()), line));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i] == b'_' || b[i] == b'.' || b[i].is_ascii_alphanumeric()) {
                if b[i] == b'.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
        } else if src[i..].starts_with("::") {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            out.push((Tok::Punct(ch), line));
            i += ch.len_utf8();
        }
    }
    out
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn is(t: Option<&(Tok, usize)>, want: &Tok) -> bool {
    t.is_some_and(|(x, _)| x == want)
}

/// Parses a path after its first segment's `::` at `toks[i]` (which is the
/// token after that `::`): identifiers joined by `::`, ending in a use group
/// `{..}` (expanded, nested groups too), `*`, or anything else (a generic's `<`,
/// a call's `(`). Returns every full path (`prefix` followed by the segments),
/// with `self` in a group naming the group's prefix, and the index after it.
fn parse_tail(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: Vec<String>,
) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "self" => {
                i += 1;
                break;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                i += 1;
                if is(toks.get(i), &Tok::Path) {
                    i += 1;
                    continue;
                }
                break;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                let mut all = Vec::new();
                while i < toks.len() && !is(toks.get(i), &Tok::Punct('}')) {
                    let (ps, j) = parse_tail(toks, i, path.clone());
                    all.extend(ps);
                    i = j;
                    // Skip `as alias`, then the separating comma.
                    while i < toks.len()
                        && !is(toks.get(i), &Tok::Punct(','))
                        && !is(toks.get(i), &Tok::Punct('}'))
                    {
                        i += 1;
                    }
                    if is(toks.get(i), &Tok::Punct(',')) {
                        i += 1;
                    }
                }
                return (all, i + 1);
            }
            _ => break, // `*`, `<`, or the end of the path
        }
    }
    (vec![path], i)
}

/// One source file: its path relative to `src`, its module path, and its tokens.
struct File {
    rel: String,
    module: Vec<String>,
    toks: Vec<(Tok, usize)>,
}

/// The module path of a file: `lib.rs` is the root, `a/mod.rs` and `a.rs` are
/// `a`, `a/b.rs` is `a::b`.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let mut segs: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(segs.last().map(String::as_str), Some("mod" | "lib")) {
        segs.pop();
    }
    segs
}

/// A file's re-exports: name -> the absolute path it stands for.
type Reexports = BTreeMap<String, Vec<String>>;

/// A path as written at a place in a file.
struct Use {
    line: usize,
    /// Resolved to absolute segments from the crate root.
    path: Vec<String>,
}

/// Every `crate::`, `$crate::`, `super::` and `self::` path in `f`, made
/// absolute (`super` resolved against the inline module the path sits in).
/// Also returns the file's re-exports: `name -> absolute path` for each `pub`
/// use (any visibility) at the file's top level.
fn paths_in(f: &File, modules: &BTreeSet<Vec<String>>) -> (Vec<Use>, Reexports) {
    let toks = &f.toks;
    let mut uses = Vec::new();
    let mut reexports = BTreeMap::new();
    // Inline modules: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = |inline: &Vec<(String, usize)>| {
            let mut m = f.module.clone();
            m.extend(inline.iter().map(|(n, _)| n.clone()));
            m
        };
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(k) if k == "mod" => {
                if let (Some(name), true) = (
                    ident(toks.get(i + 1)),
                    is(toks.get(i + 2), &Tok::Punct('{')),
                ) {
                    inline.push((name.to_string(), depth + 1));
                }
            }
            Tok::Ident(k) if k == "use" && inline.is_empty() && depth == 0 => {
                // A re-export if a visibility precedes it: `pub use`, `pub(crate) use`.
                let public = i >= 1
                    && (ident(toks.get(i - 1)) == Some("pub")
                        || is(toks.get(i - 1), &Tok::Punct(')')));
                let first = ident(toks.get(i + 1));
                if let (true, Some(first)) = (public, first) {
                    if is(toks.get(i + 2), &Tok::Path) {
                        let base = match first {
                            "crate" | "super" | "self" => None,
                            other => {
                                let mut m = f.module.clone();
                                m.push(other.to_string());
                                modules.contains(&m).then_some(m)
                            }
                        };
                        if let Some(base) = base {
                            let (ps, _) = parse_tail(toks, i + 3, base);
                            for p in ps {
                                if let Some(last) = p.last() {
                                    reexports.insert(last.clone(), p.clone());
                                }
                            }
                        }
                    }
                }
            }
            Tok::Ident(k)
                if (k == "crate" || k == "super" || k == "self")
                    && is(toks.get(i + 1), &Tok::Path) =>
            {
                let line = toks[i].1;
                let mut base = if k == "crate" {
                    Vec::new()
                } else {
                    here(&inline)
                };
                if k == "super" {
                    base.pop();
                }
                let mut j = i + 2;
                while ident(toks.get(j)) == Some("super") && is(toks.get(j + 1), &Tok::Path) {
                    base.pop();
                    j += 2;
                }
                let (ps, end) = parse_tail(toks, j, base.clone());
                // A re-export at the top level also names its items.
                let public_use = depth == 0
                    && i >= 2
                    && ident(toks.get(i - 1)) == Some("use")
                    && (ident(toks.get(i - 2)) == Some("pub")
                        || is(toks.get(i - 2), &Tok::Punct(')')));
                for p in ps {
                    if public_use {
                        if let Some(last) = p.last() {
                            reexports.insert(last.clone(), p.clone());
                        }
                    }
                    uses.push(Use { line, path: p });
                }
                // Braces inside a use group are not blocks.
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (uses, reexports)
}

/// The layer of a file by [`LAYERS`] (longest match), if any.
fn layer_of(rel: &str, table: &[(&str, Layer)]) -> Option<Layer> {
    table
        .iter()
        .filter(|(p, _)| {
            if p.ends_with('/') {
                rel.starts_with(p)
            } else {
                rel == *p
            }
        })
        .max_by_key(|(p, _)| p.len())
        .map(|&(_, l)| l)
}

/// An upward edge found by [`check`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    line: usize,
    path: String,
    from_layer: Layer,
    to_layer: Layer,
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} ({:?}) -> {} ({:?}) via `{}`",
            self.from, self.line, self.from_layer, self.to, self.to_layer, self.path
        )
    }
}

/// What [`check`] found.
struct Report {
    /// Files no entry of the table places.
    unassigned: Vec<String>,
    /// Table entries that match no file.
    unused_entries: Vec<String>,
    /// Every upward edge, allowed or not.
    upward: Vec<Edge>,
}

/// Checks the crate given as `(path relative to src, source)` pairs against the
/// layer table.
fn check(sources: &[(String, String)], table: &[(&str, Layer)]) -> Report {
    let files: Vec<File> = sources
        .iter()
        .map(|(rel, src)| File {
            rel: rel.clone(),
            module: module_of(rel),
            toks: lex(src),
        })
        .collect();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let by_module: BTreeMap<Vec<String>, &File> =
        files.iter().map(|f| (f.module.clone(), f)).collect();
    let scanned: Vec<(Vec<Use>, Reexports)> = files.iter().map(|f| paths_in(f, &modules)).collect();
    let reexports: BTreeMap<&Vec<String>, &Reexports> = files
        .iter()
        .zip(&scanned)
        .map(|(f, (_, r))| (&f.module, r))
        .collect();
    // The file owning the item an absolute path names.
    let resolve = |path: &[String]| -> Option<&File> {
        let mut path = path.to_vec();
        for _ in 0..8 {
            let n = (0..=path.len())
                .rev()
                .find(|&n| modules.contains(&path[..n]))?;
            let module = path[..n].to_vec();
            let next = path.get(n);
            match next.and_then(|name| reexports.get(&module).and_then(|r| r.get(name))) {
                Some(target) if target[..target.len() - 1] != module[..] => {
                    let mut p = target.clone();
                    p.extend(path[n + 1..].iter().cloned());
                    path = p;
                }
                // A name at the root that is not a re-export: a macro or an
                // external crate, not a module of this crate's layers.
                _ if module.is_empty() && next.is_some() => return None,
                _ => return by_module.get(&module).copied(),
            }
        }
        None
    };
    let mut report = Report {
        unassigned: files
            .iter()
            .filter(|f| layer_of(&f.rel, table).is_none())
            .map(|f| f.rel.clone())
            .collect(),
        unused_entries: table
            .iter()
            .filter(|(p, _)| {
                !files.iter().any(|f| {
                    if p.ends_with('/') {
                        f.rel.starts_with(p)
                    } else {
                        f.rel == *p
                    }
                })
            })
            .map(|(p, _)| p.to_string())
            .collect(),
        upward: Vec::new(),
    };
    for (f, (uses, _)) in files.iter().zip(&scanned) {
        let Some(from_layer) = layer_of(&f.rel, table) else {
            continue;
        };
        for u in uses {
            let Some(to) = resolve(&u.path) else { continue };
            let Some(to_layer) = layer_of(&to.rel, table) else {
                continue;
            };
            if to_layer > from_layer {
                report.upward.push(Edge {
                    from: f.rel.clone(),
                    to: to.rel.clone(),
                    line: u.line,
                    path: u.path.join("::"),
                    from_layer,
                    to_layer,
                });
            }
        }
    }
    report.upward.sort();
    report
}

/// Every `.rs` file under `dir`, as `(path relative to root, source)`.
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_tree(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).expect("read source")));
        }
    }
}

#[test]
fn no_upward_imports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_tree(&root, &root, &mut sources);
    assert!(
        sources.len() > 10,
        "found only {} source files under {}",
        sources.len(),
        root.display()
    );
    let report = check(&sources, LAYERS);
    let mut problems = Vec::new();
    for f in &report.unassigned {
        problems.push(format!(
            "{f}: no layer; add it to LAYERS in tests/layering.rs"
        ));
    }
    for p in &report.unused_entries {
        problems.push(format!("LAYERS entry {p:?} matches no file"));
    }
    let mut pairs: BTreeMap<(&str, &str), Vec<&Edge>> = BTreeMap::new();
    for e in &report.upward {
        pairs.entry((&e.from, &e.to)).or_default().push(e);
    }
    let mut counts: BTreeMap<(Layer, Layer), usize> = BTreeMap::new();
    for e in &report.upward {
        *counts.entry((e.from_layer, e.to_layer)).or_default() += 1;
    }
    for ((from, to), n) in &counts {
        println!("upward {from:?} -> {to:?}: {n} paths");
    }
    println!(
        "upward edges: {} paths, {} file pairs",
        report.upward.len(),
        pairs.len()
    );
    for ((from, to), edges) in &pairs {
        let allowed = ALLOWED.iter().any(|(f, t, _)| f == from && t == to);
        for e in edges {
            println!("  {}{e}", if allowed { "(allowed) " } else { "" });
        }
        if !allowed {
            for e in edges {
                problems.push(format!("upward: {e}"));
            }
        }
    }
    for (from, to, why) in ALLOWED {
        if !pairs.contains_key(&(*from, *to)) {
            problems.push(format!(
                "ALLOWED entry {from} -> {to} ({why}) names no upward edge any more: remove it"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "layering violations:\n{}",
        problems.join("\n")
    );
}

/// The scanner on a synthetic crate: each path form that can name a module is
/// seen, and none in a comment, doc comment or string is.
#[test]
fn checker_sees_every_path_form() {
    let src = |s: &str| s.to_string();
    let sources = vec![
        (
            src("lib.rs"),
            src("mod low; mod high; pub use high::Top;\n"),
        ),
        (
            src("high.rs"),
            src("//! Top layer.\npub struct Top;\npub fn up() {}\npub mod inner_mod_unused {}\n"),
        ),
        (
            src("low/mod.rs"),
            src(concat!(
                "//! A doc comment naming crate::high::Top is not a path.\n",
                "/* crate::high::up() in a block comment */\n",
                "use crate::{low::leaf::h, high::{self, up}};\n", // line 3: two edges (high, high::up)
                "fn f() { let _ = \"crate::high::up\"; crate::Top; }\n", // line 4: via re-export
                "macro_rules! m { () => { $crate::high::up() } }\n", // line 5
                "mod inner { fn g() { super::super::high::up(); let _c = 'x'; } }\n", // line 6
                "#[cfg(test)]\nmod tests { use super::super::high::Top; }\n", // line 8
            )),
        ),
        (
            src("low/leaf.rs"),
            src("use super::helper; fn h<'a>(_: &'a u8) { crate::low::leaf::h; }\n"),
        ),
    ];
    let table = &[("lib.rs", Api), ("high.rs", Api), ("low/", Base)];
    let report = check(&sources, table);
    let lines: Vec<(String, usize, String)> = report
        .upward
        .iter()
        .map(|e| (e.from.clone(), e.line, e.to.clone()))
        .collect();
    let want: Vec<(String, usize, String)> = [3, 3, 4, 5, 6, 8]
        .iter()
        .map(|&l| (src("low/mod.rs"), l, src("high.rs")))
        .collect();
    assert_eq!(lines, want, "edges found: {:#?}", report.upward);
    assert!(report.unassigned.is_empty() && report.unused_entries.is_empty());

    // A file the table does not place, and an entry placing nothing, are reported.
    let mut more = sources.clone();
    more.push((src("stray.rs"), src("")));
    let report = check(
        &more,
        &[
            ("lib.rs", Api),
            ("high.rs", Api),
            ("low/", Base),
            ("gone.rs", Base),
        ],
    );
    assert_eq!(report.unassigned, vec![src("stray.rs")]);
    assert_eq!(report.unused_entries, vec![src("gone.rs")]);
}
