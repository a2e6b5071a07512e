//! `jvmlike-binarytrees`: the benchmarks-game binary-trees program through the
//! class-based VM's own object layout, with the `binarytrees` binary's arguments;
//! every check is asserted against its known value (a wrong one exits with code 1).

use clap::Parser;
use flipgc_jvmlike::binarytrees;
use flipgc_jvmlike::object::Jvm;
use flipgc_stress::cli;
use std::process::ExitCode;

/// binary-trees on the class-based VM.
#[derive(Debug, Parser)]
#[command(name = "jvmlike-binarytrees", version)]
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
    let built = Jvm::with_heap(args.heap.config(1 << 30))
        .map_err(|e| e.to_string())
        .and_then(|(heap, jvm)| Ok((binarytrees::load(&jvm)?, heap)));
    let (types, heap) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("jvmlike-binarytrees: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = binarytrees::run(&heap, &types, &params);
    cli::finish("jvmlike-binarytrees", &heap, &args.heap, result)
}
