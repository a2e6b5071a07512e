//! `toyvm`: run a Scheme file, or start a REPL, on a flipgc heap.
//!
//! `toyvm [FILE] [--heap SIZE] [--flip auto|pud|pmd|pte|copy] [--gc-stats] [--verify]`.
//! Exit status: 0 on success, 1 for a program error, 2 for bad usage.

use clap::Parser;
use flipgc_core::{FlipMode, Heap, HeapConfig, TypeRegistry};
use flipgc_toyvm::{pause_summary, register_types, run_source, Session};
use std::process::ExitCode;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(name = "toyvm", about = "A toy Scheme VM on the flipgc heap")]
struct Args {
    /// Program to run; without it, an interactive REPL.
    file: Option<std::path::PathBuf>,
    /// Heap capacity: bytes, or with a K, M or G suffix (e.g. 64M).
    #[arg(long, default_value = "64M", value_parser = parse_size)]
    heap: usize,
    /// How collections move the heap.
    #[arg(long, default_value = "auto", value_parser = parse_flip)]
    flip: FlipMode,
    /// Print the pause summary to stderr at exit.
    #[arg(long)]
    gc_stats: bool,
    /// Verify the heap after every collection.
    #[arg(long)]
    verify: bool,
}

fn parse_size(s: &str) -> Result<usize, String> {
    flipgc_core::parse_capacity(s)
}

fn parse_flip(s: &str) -> Result<FlipMode, String> {
    FlipMode::parse(s).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut registry = TypeRegistry::new();
    let types = match register_types(&mut registry) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("toyvm: {e}");
            return ExitCode::from(1);
        }
    };
    let mut config = HeapConfig::new(args.heap);
    config.flip = args.flip;
    config.verify_after_gc = args.verify;
    let heap = match Heap::new(config, registry) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("toyvm: {e}");
            return ExitCode::from(2);
        }
    };
    let status = match &args.file {
        Some(path) => match std::fs::read_to_string(path) {
            Err(e) => {
                eprintln!("toyvm: cannot read {}: {e}", path.display());
                ExitCode::from(2)
            }
            Ok(src) => {
                let name = path.display().to_string();
                match run_source(&heap, &types, &name, &src, Box::new(std::io::stdout())) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("{e}");
                        ExitCode::from(1)
                    }
                }
            }
        },
        None => repl(&heap, &types),
    };
    if args.gc_stats {
        eprintln!("{}", pause_summary(&heap.pause_log()));
    }
    status
}

fn repl(heap: &Heap, types: &flipgc_toyvm::VmTypes) -> ExitCode {
    let mut session = match Session::new(heap, types, Box::new(std::io::stdout())) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".toyvm_history"));
    match flipgc_toyvm::repl::run(&mut session, history.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toyvm: {e}");
            ExitCode::from(1)
        }
    }
}
