//! `gcbench`: GCBench (Boehm, Ellis, Kovac) on flipgc. Arguments: `stretch
//! longLived arraySize minDepth maxDepth rounds` (defaults `22 18 500000 4 20 8`);
//! see `flipgc_stress::gcbench` for what each does. A wrong result exits with code 1.

use clap::Parser;
use flipgc_stress::{cli, gcbench};
use std::process::ExitCode;

/// GCBench: long-lived data plus short-lived trees built top-down and bottom-up.
#[derive(Debug, Parser)]
#[command(name = "gcbench", version)]
struct Args {
    /// Depth of the stretch tree (also sets the work per depth).
    #[arg(default_value_t = 22)]
    stretch: u32,
    /// Depth of the long-lived tree.
    #[arg(default_value_t = 18)]
    long_lived: u32,
    /// Doubles in the long-lived array.
    #[arg(default_value_t = 500_000)]
    array_size: usize,
    /// Shallowest short-lived trees.
    #[arg(default_value_t = 4)]
    min_depth: u32,
    /// Deepest short-lived trees (depths step by 2).
    #[arg(default_value_t = 20)]
    max_depth: u32,
    /// Depth sweeps (the long-lived data is built once and checked after each).
    #[arg(default_value_t = 8)]
    rounds: u32,
    /// Threads, each running the whole program with its own mutator.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[command(flatten)]
    heap: cli::HeapArgs,
}

fn main() -> ExitCode {
    cli::init_tracing();
    let args = Args::parse();
    let params = gcbench::Params {
        stretch: args.stretch,
        long_lived: args.long_lived,
        array_size: args.array_size,
        min_depth: args.min_depth,
        max_depth: args.max_depth,
        rounds: args.rounds,
        threads: args.threads,
    };
    let (heap, types) =
        match cli::build_heap("gcbench", args.heap.config(1 << 30), gcbench::register) {
            Ok(built) => built,
            Err(code) => return code,
        };
    let result = gcbench::run(&heap, &types, &params);
    cli::finish("gcbench", &heap, &args.heap, result)
}
