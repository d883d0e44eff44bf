//! `memory`: the gateway's resident set with 10 000 and 100 000 open orders across 16 sessions,
//! and the bytes per open order (see `bench/src/memory.rs`). Needs `bitget-sim` built next to
//! it: `cargo build --release -p sim --bin bitget-sim -p bench --bin memory`.

use std::process::ExitCode;

use bench::memory::{run, table, MemoryOptions};
use clap::Parser;
use gateway::idle::IdleStrategy;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "memory",
    about = "Gateway RSS at levels of open orders (simulator in its own process)"
)]
struct Args {
    /// Strategy sessions the orders are spread over.
    #[arg(long, default_value_t = 16)]
    sessions: usize,
    /// Open-order levels (comma-separated, ascending).
    #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
    levels: Vec<usize>,
    /// Orders each session keeps in flight while placing.
    #[arg(long, default_value_t = 64)]
    window: usize,
    /// Busy-poll the gateway's io and tracker threads.
    #[arg(long)]
    spin: bool,
}

fn main() -> ExitCode {
    bench::init_tracing("warn");
    let args = Args::parse();
    let mut levels = args.levels;
    levels.sort_unstable();
    let opts = MemoryOptions {
        sessions: args.sessions,
        levels,
        window: args.window,
        idle: if args.spin {
            IdleStrategy::Spin
        } else {
            IdleStrategy::default()
        },
    };
    match run(&opts) {
        Ok(rows) => {
            print!("{}", table(&rows, opts.sessions));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("memory: {e}");
            ExitCode::FAILURE
        }
    }
}
