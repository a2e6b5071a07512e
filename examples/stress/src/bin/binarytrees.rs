//! `binarytrees`: the benchmarks-game binary-trees program on flipgc, printing its
//! standard output; every check is asserted against its known value (a wrong one
//! exits with code 1).

use clap::Parser;
use flipgc_stress::{binarytrees, cli};
use std::process::ExitCode;

/// binary-trees: many short-lived trees of growing depth next to one long-lived tree.
#[derive(Debug, Parser)]
#[command(name = "binarytrees", version)]
struct Args {
    /// Depth of the long-lived tree (at least 6 is used).
    #[arg(default_value_t = 21)]
    depth: u32,
    /// Worker threads sharing each depth's trees (each binds its own mutator).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[command(flatten)]
    heap: cli::HeapArgs,
}

fn main() -> ExitCode {
    cli::init_tracing();
    let args = Args::parse();
    let params = binarytrees::Params {
        depth: args.depth,
        threads: args.threads,
    };
    let (heap, types) = match cli::build_heap(
        "binarytrees",
        args.heap.config(1 << 30),
        binarytrees::register,
    ) {
        Ok(built) => built,
        Err(code) => return code,
    };
    let result = binarytrees::run(&heap, &types, &params);
    cli::finish("binarytrees", &heap, &args.heap, result)
}
