//! `soak`: the never-lose-never-duplicate soak test (see `bench::soak`). Exits 1 when any order
//! differs between the strategy and the exchange, a report is lost or repeated, or an order was
//! sent twice; 2 when the run could not be carried out.

use clap::Parser;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "soak",
    about = "Gateway soak under exchange, strategy and process faults"
)]
struct Args {
    /// Orders to have accepted over all sessions.
    #[arg(long, default_value_t = 20_000)]
    orders: u64,
    /// Strategy sessions.
    #[arg(long, default_value_t = 4)]
    sessions: usize,
    /// Orders each session keeps open at most.
    #[arg(long, default_value_t = 16)]
    window: usize,
    /// Trade only the first N demo markets (0: all); 1 makes fills, cancels and replaces race
    /// on the same orders.
    #[arg(long, default_value_t = 0)]
    symbols: usize,
    /// Run a sweep of seeds and concurrency levels instead of one run (`full`: 12 runs, about
    /// 25 000 orders; `short`: 4 × 16 and 8 × 32); --orders, --sessions, --window, --symbols,
    /// --drops, --strategy-drops and --seed are then set per run.
    #[arg(long, value_enum)]
    sweep: Option<bench::soak::sweep::SweepSize>,
    /// Added to every sweep run's seed (another set of order mixes and fault timings).
    #[arg(long, default_value_t = 0)]
    sweep_seed_offset: u64,
    /// Exchange connection drops to cause.
    #[arg(long, default_value_t = 110)]
    drops: u64,
    /// Strategy disconnects (no Terminate) to cause.
    #[arg(long, default_value_t = 8)]
    strategy_drops: u64,
    /// Do not kill the gateway with SIGKILL half way.
    #[arg(long)]
    no_kill: bool,
    /// Seed of the order mix.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Work directory (configuration, journal, gateway log).
    #[arg(long, default_value = "target/soak")]
    work_dir: std::path::PathBuf,
    /// The gateway binary (default: `gateway` next to this executable).
    #[arg(long)]
    gateway: Option<std::path::PathBuf>,
    /// Print progress.
    #[arg(long, short)]
    verbose: bool,
    /// Record each gateway process's tracker inputs and outputs (`record-1.bgwrec`, and
    /// `record-2.bgwrec` after the restart, in the work directory) for `gateway-replay`.
    #[arg(long)]
    record: bool,
    /// Session rollover every N seconds (`[strategy] rollover = "every Ns"`), e.g. `3s` or `3`;
    /// default none. Sessions are terminated (SessionRollover) and negotiate the next epoch.
    #[arg(long, value_parser = parse_secs)]
    rollover_every: Option<u64>,
    /// `[tracker] retention_ms` of the gateway (0: ended orders evicted at the next idle tick).
    #[arg(long)]
    retention_ms: Option<u64>,
    /// `[tracker] retention_orders` of the gateway (ended orders kept in full at most).
    #[arg(long)]
    retention_orders: Option<u64>,
    /// `[tracker] placement = "own_thread"` (the tracker on its own thread behind a queue)
    /// instead of the default, on the io thread. A sweep puts every other run there anyway.
    #[arg(long)]
    own_tracker_thread: bool,
    /// Disk-full episodes: the gateway's journal on a tmpfs of its own (mounted by the soak:
    /// needs root), filled to the last byte this many times for 1.5 s each, then freed.
    #[arg(long, default_value_t = 0)]
    disk_faults: u64,
}

/// Seconds from `N` or `Ns`.
fn parse_secs(s: &str) -> Result<u64, String> {
    s.strip_suffix('s')
        .unwrap_or(s)
        .parse()
        .map_err(|e| format!("{s}: {e} (seconds, e.g. 3s)"))
}

fn main() {
    bench::init_tracing("error");
    let args = Args::parse();
    let gateway_exe = match args.gateway {
        Some(p) => p,
        None => match bench::soak::gateway_proc::sibling_gateway_exe() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("soak: {e}");
                std::process::exit(2);
            }
        },
    };
    let opts = bench::soak::SoakOptions {
        orders: args.orders,
        sessions: args.sessions.max(1),
        window: args.window.max(1),
        symbols: args.symbols,
        drops: args.drops,
        kill: !args.no_kill,
        strategy_drops: args.strategy_drops,
        seed: args.seed,
        work_dir: args.work_dir,
        gateway_exe,
        verbose: args.verbose,
        record: args.record,
        rollover_every_s: args.rollover_every.unwrap_or(0),
        retention_ms: args.retention_ms,
        retention_orders: args.retention_orders,
        own_tracker_thread: args.own_tracker_thread,
        disk_faults: args.disk_faults,
    };
    if let Some(size) = args.sweep {
        let passed = bench::soak::sweep::run(size, &opts, args.sweep_seed_offset);
        std::process::exit(if passed { 0 } else { 1 });
    }
    match bench::soak::run(&opts) {
        Ok(outcome) => {
            bench::soak::print(&outcome);
            if !outcome.passed() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("soak failed: {e}");
            std::process::exit(2);
        }
    }
}
