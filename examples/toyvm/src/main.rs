//! `toyvm`: run a Scheme file, or start a REPL, on a flipgc heap.
//!
//! `toyvm [FILE] [--heap SIZE | --max-heap SIZE] [--flip auto|pud|pmd|pte|copy] [--max-steps N]
//! [--gc-stats] [--gc-log[=gc,phases]] [--verify] [ARGS...]`.
//! The heap grows with the program's live data up to a quarter of physical memory,
//! unless `--heap` fixes its size or `--max-heap` sets another maximum.
//! Exit status: 0 on success, 1 for a program error, 2 for bad usage, or the
//! status the program passed to `exit`.

use clap::Parser;
use flipgc_core::{FlipMode, GcLog, Heap, HeapConfig, TypeRegistry};
use flipgc_toyvm::{
    alloc_summary, default_heap_config, heap_summary, register_types, ErrorKind, Session, VmError,
    VmTypes,
};
use std::process::ExitCode;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(name = "toyvm", about = "A toy Scheme VM on the flipgc heap")]
struct Args {
    /// Program to run; without it, an interactive REPL.
    file: Option<std::path::PathBuf>,
    /// A fixed heap size: bytes, or with a K, M or G suffix (e.g. 64M). Cycles are
    /// paced against it and memory once used stays resident. Without it the heap
    /// is growable: it starts at 32 MiB, grows with the live data up to the
    /// maximum (--max-heap), and gives memory back after bursts.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, conflicts_with = "max_heap")]
    heap: Option<usize>,
    /// The growable heap's maximum [default: a quarter of physical memory, or
    /// 1G if unknown].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_heap: Option<usize>,
    /// How collections move the heap.
    #[arg(long, default_value = "auto", value_parser = parse_flip)]
    flip: FlipMode,
    /// Print the GC log's summary (pauses by kind, cycles, stalls) to stderr at
    /// exit, as `(gc-stats)` prints it.
    #[arg(long)]
    gc_stats: bool,
    /// Print the GC log on stderr: a line per pause and per cycle (`--gc-log`), with
    /// a line per pause phase too (`--gc-log=gc,phases`); see docs/gc-log.md. The
    /// environment variable FLIPGC_LOG does the same.
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "gc", value_parser = GcLog::parse)]
    gc_log: Option<GcLog>,
    /// Verify the heap after every collection.
    #[arg(long)]
    verify: bool,
    /// Stop the program with an error (exit status 1) after N procedure calls
    /// (counting every thread's); unlimited if absent.
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Arguments for the program, after FILE (`toyvm prog.scm a b`, or after
    /// `--` if one starts with a dash): `(command-line)` returns the whole
    /// command line, these last.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, requires = "file")]
    args: Vec<String>,
}

fn parse_size(s: &str) -> Result<usize, String> {
    flipgc_core::parse_capacity(s)
}

fn parse_flip(s: &str) -> Result<FlipMode, String> {
    FlipMode::parse(s).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    flipgc_toyvm::init_tracing();
    let args = Args::parse();
    let mut registry = TypeRegistry::new();
    let types = match register_types(&mut registry) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("toyvm: {e}");
            return ExitCode::from(1);
        }
    };
    let mut config = match args.heap {
        Some(size) => HeapConfig::new(size),
        None => default_heap_config(args.max_heap),
    };
    config.flip = args.flip;
    config.verify_after_gc = args.verify;
    config.gc_log = args.gc_log.unwrap_or_default();
    let heap = match Heap::new(config, registry) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("toyvm: {e}");
            return ExitCode::from(2);
        }
    };
    let status = match &args.file {
        Some(path) => match std::fs::read(path) {
            Err(e) => {
                eprintln!("toyvm: cannot read {}: {e}", path.display());
                ExitCode::from(2)
            }
            Ok(bytes) => {
                let name = path.display().to_string();
                match flipgc_toyvm::reader::decode(&bytes) {
                    Ok(src) => run_file(&heap, &types, &name, src, &args),
                    Err(mut e) => {
                        e.source = name;
                        failure(&e)
                    }
                }
            }
        },
        None => repl(&heap, &types, &args),
    };
    if args.gc_stats || heap.config().gc_log.any() {
        // Every session is gone: let a cycle under way finish, so that its lines
        // and the summary are complete.
        heap.wait_idle();
    }
    if args.gc_stats {
        eprintln!("{}", heap.gc_summary());
        eprintln!("{}", heap_summary(&heap));
        eprintln!("{}", alloc_summary(&heap));
    }
    status
}

/// The exit status for a program's error (printing it unless it is `exit`).
fn failure(e: &VmError) -> ExitCode {
    match e.kind {
        ErrorKind::Exit(code) => ExitCode::from(code),
        _ => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

fn session(heap: &Heap, types: &VmTypes, args: &Args) -> Result<Session, ExitCode> {
    match Session::new(heap, types, Box::new(std::io::stdout())) {
        Ok(mut s) => {
            s.set_max_steps(args.max_steps);
            Ok(s)
        }
        Err(e) => {
            eprintln!("{e}");
            Err(ExitCode::from(1))
        }
    }
}

fn run_file(heap: &Heap, types: &VmTypes, name: &str, src: &str, args: &Args) -> ExitCode {
    let mut session = match session(heap, types, args) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let r = session.eval(name, src);
    session.flush();
    match r {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => failure(&e),
    }
}

fn repl(heap: &Heap, types: &VmTypes, args: &Args) -> ExitCode {
    let mut session = match session(heap, types, args) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".toyvm_history"));
    match flipgc_toyvm::repl::run(&mut session, history.as_deref()) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("toyvm: {e}");
            ExitCode::from(1)
        }
    }
}
