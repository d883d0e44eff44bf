//! `burst`: a cancel storm through the gateway (see `bench::burst`): N resting orders
//! cancelled at once, with the rate budget off, on (one cancel each), and on with one
//! OrderMassCancelRequest; how long until the last cancel reached the venue and was answered.
//! Exits 1 when a storm could not run or did not cancel every order at the venue
//! (`BurstResult::failure`); the times are printed, never judged.

use clap::Parser;

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "burst",
    about = "Cancel storm: N resting orders cancelled at once, budget off / on / mass cancel"
)]
struct Args {
    /// Resting orders to cancel at once.
    #[arg(long, default_value_t = 1_000)]
    orders: usize,
    /// Only the budget-off storm (seconds instead of about two minutes).
    #[arg(long)]
    quick: bool,
}

fn main() {
    bench::init_tracing("warn");
    let args = Args::parse();
    let scenarios: &[bench::burst::Scenario] = if args.quick {
        &bench::burst::Scenario::ALL[..1]
    } else {
        &bench::burst::Scenario::ALL
    };
    println!(
        "== cancel storm: {} resting orders cancelled at once (times from the first cancel's send)",
        args.orders
    );
    let mut results = Vec::new();
    for &s in scenarios {
        match bench::burst::run(s, args.orders) {
            Ok(r) => {
                bench::burst::print(std::slice::from_ref(&r));
                results.push(r);
            }
            Err(e) => {
                eprintln!("burst: {}: {e}", s.name());
                std::process::exit(1);
            }
        }
    }
    println!();
    bench::burst::print(&results);
    let failed: Vec<String> = results.iter().filter_map(|r| r.failure()).collect();
    if !failed.is_empty() {
        eprintln!("burst FAILED: {}", failed.join("; "));
        std::process::exit(1);
    }
}
