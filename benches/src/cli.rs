//! flipbench's command line: [`Args`] and the parsers that validate it. Every
//! bad value is a clap error (exit code 2) that says what is wrong: sizes must
//! parse ([`flipgc_heap::parse_size`]) and be multiples of 2 MiB, iterations at
//! least 1, modes and backings from their lists.

use crate::placement::{Backing, Mode};
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

/// Every flip size must be a multiple of this: one x86_64 PMD, so a flip never
/// ends mid-PMD and the levels compare whole entries.
pub const SIZE_GRANULE: usize = 2 << 20;

/// Which page backings to run (`--backing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackingChoice {
    /// 4 KiB pages only (`MADV_NOHUGEPAGE`).
    #[value(name = "4k")]
    FourK,
    /// Transparent huge pages (`MADV_HUGEPAGE`).
    Thp,
    /// Both: 4k first, then thp.
    Both,
}

impl BackingChoice {
    /// The backings to run, in order.
    pub fn backings(self) -> Vec<Backing> {
        match self {
            BackingChoice::FourK => vec![Backing::FourK],
            BackingChoice::Thp => vec![Backing::Thp],
            BackingChoice::Both => vec![Backing::FourK, Backing::Thp],
        }
    }
}

/// flipbench: time flips of a populated span at each page-table level (PTE,
/// PMD, PUD moves by mremap) against a forced copy, like the kernel's mremap_test.
#[derive(Debug, Parser)]
#[command(name = "flipbench", version)]
pub struct Args {
    /// Flip sizes, comma-separated, each a multiple of 2 MiB (e.g. 256m,1g,4g).
    #[arg(long, value_name = "SIZES", value_delimiter = ',', value_parser = parse_bench_size, default_value = "1g")]
    pub sizes: Vec<usize>,

    /// Page backing of both spans.
    #[arg(long, value_enum, default_value_t = BackingChoice::FourK)]
    pub backing: BackingChoice,

    /// Modes to run, comma-separated, in this order.
    #[arg(long, value_name = "MODES", value_enum, value_delimiter = ',', default_values_t = Mode::ALL.to_vec())]
    pub modes: Vec<Mode>,

    /// Timed flips per run (at least 1).
    #[arg(long, value_name = "N", default_value = "10", value_parser = parse_iterations)]
    pub iterations: usize,

    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

impl Args {
    /// The sizes to run, in order, without repeats.
    pub fn unique_sizes(&self) -> Vec<usize> {
        unique(&self.sizes)
    }

    /// The modes to run, in order, without repeats.
    pub fn unique_modes(&self) -> Vec<Mode> {
        unique(&self.modes)
    }
}

fn unique<T: PartialEq + Copy>(items: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for &x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Parses one `--sizes` item: a size for [`flipgc_heap::parse_size`] that is a
/// multiple of [`SIZE_GRANULE`].
pub fn parse_bench_size(text: &str) -> Result<usize, String> {
    let n = flipgc_heap::parse_size(text).map_err(|e| e.to_string())?;
    if n % SIZE_GRANULE != 0 {
        return Err(format!(
            "{} ({n} bytes) is not a multiple of 2 MiB; flip sizes must be whole 2 MiB PMDs (e.g. 64m, 1g)",
            flipgc_heap::fmt_bytes(n)
        ));
    }
    Ok(n)
}

/// Parses `--iterations`: a whole number of at least 1.
pub fn parse_iterations(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (each run needs one timed flip)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a whole number: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::error::ErrorKind;

    const M: usize = 1 << 20;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("flipbench").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.unique_sizes(), vec![1024 * M]);
        assert_eq!(a.backing, BackingChoice::FourK);
        assert_eq!(a.unique_modes(), Mode::ALL.to_vec());
        assert_eq!(a.iterations, 10);
        assert!(a.json.is_none());
    }

    #[test]
    fn size_lists_are_accepted() {
        let a = parse(&["--sizes", "256m,1g,4g"]).unwrap();
        assert_eq!(a.unique_sizes(), vec![256 * M, 1024 * M, 4096 * M]);
        let a = parse(&["--sizes", "64M", "--sizes", "2MiB,64m,1.5g"]).unwrap();
        assert_eq!(a.unique_sizes(), vec![64 * M, 2 * M, 1536 * M]);
        assert_eq!(parse_bench_size("4194304"), Ok(4 * M));
    }

    #[test]
    fn bad_sizes_are_refused_with_reasons() {
        for (bad, why) in [
            ("0", "positive"),
            ("3m", "multiple of 2 MiB"),
            ("1g,4k", "multiple of 2 MiB"),
            ("1x", "unknown unit"),
            ("", "not a number"),
            ("1g,,2g", "not a number"),
        ] {
            let e = parse(&["--sizes", bad]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ValueValidation, "{bad:?}");
            let msg = e.to_string();
            assert!(msg.contains(why), "{bad:?}: {msg}");
            assert_eq!(e.exit_code(), 2);
        }
    }

    #[test]
    fn modes_backing_and_iterations() {
        let a = parse(&[
            "--modes",
            "pud,copy,pud",
            "--backing",
            "both",
            "--iterations",
            "3",
            "--json",
            "/tmp/x.json",
        ])
        .unwrap();
        assert_eq!(a.unique_modes(), vec![Mode::Pud, Mode::Copy]);
        assert_eq!(a.backing.backings(), vec![Backing::FourK, Backing::Thp]);
        assert_eq!(a.iterations, 3);
        assert_eq!(a.json.as_deref(), Some(std::path::Path::new("/tmp/x.json")));
        assert_eq!(
            parse(&["--backing", "thp"]).unwrap().backing.backings(),
            vec![Backing::Thp]
        );

        let e = parse(&["--modes", "pte,pgd"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("pgd"), "{e}");
        let e = parse(&["--backing", "2m"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        for bad in ["0", "-1", "ten"] {
            let e = parse(&["--iterations", bad]).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
        let e = parse(&["--iterations", "0"]).unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
    }
}
