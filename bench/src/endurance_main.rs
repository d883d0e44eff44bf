//! `endurance`: millions of orders through the real gateway process with SIGKILL restarts,
//! printing RSS, tracker size, journal bytes and per-interval latency every `--interval` orders,
//! then the issue-23 goals (see `bench::endurance`). The goals are printed, never asserted;
//! the run's checks are (`bench::endurance::failures`: every order accepted, none refused but
//! NotApplied, none lost or left live, the restarts and rollovers gone through): exits 1 when
//! one fails, 2 when the run could not be carried out.

use clap::Parser;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "endurance",
    about = "Gateway endurance: millions of orders, SIGKILL restarts, RSS / journal / latency per interval"
)]
struct Args {
    /// Orders to have accepted over all sessions (the kept-open ones included).
    #[arg(long, default_value_t = 2_000_000)]
    orders: u64,
    /// Strategy sessions.
    #[arg(long, default_value_t = 16)]
    sessions: usize,
    /// Orders each session has in flight at most.
    #[arg(long, default_value_t = 8)]
    window: usize,
    /// Orders kept resting for the whole run (over all sessions).
    #[arg(long, default_value_t = 10_000)]
    open: u64,
    /// Orders placed per second over all sessions (0: as fast as the in-flight windows allow,
    /// which saturates this machine and measures queueing more than the gateway).
    #[arg(long, default_value_t = 3_000.0)]
    rate: f64,
    /// Orders between two printed rows.
    #[arg(long, default_value_t = 100_000)]
    interval: u64,
    /// Where to SIGKILL and restart the gateway, percent of --orders (100: after the last
    /// order, with the kept-open orders open).
    #[arg(long, value_delimiter = ',', default_values_t = [10u32, 50, 90, 100])]
    restarts: Vec<u32>,
    /// A short trial: 100 000 orders, a row every 10 000, 1 000 kept open (overrides those
    /// three).
    #[arg(long)]
    quick: bool,
    /// The gateway's metrics report interval, ms (granularity of its per-interval legs).
    #[arg(long, default_value_t = 1_000)]
    report_ms: u64,
    /// Extra gateway setting `section.key=value` (TOML value; repeatable), e.g.
    /// `--set tracker.order_capacity=4096`.
    #[arg(long = "set", value_parser = bench::endurance::parse_set)]
    set: Vec<(String, String, String)>,
    /// The point (percent of --orders) the goals compare the end with.
    #[arg(long, default_value_t = 10)]
    reference_pct: u32,
    /// Seed of the order mix.
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// Work directory (configuration, journal, interval logs, gateway log).
    #[arg(long, default_value = "target/endurance")]
    work_dir: std::path::PathBuf,
    /// The gateway binary (default: `gateway` next to this executable).
    #[arg(long)]
    gateway: Option<std::path::PathBuf>,
    /// Draw RSS, journal bytes and p99.9 against orders done to this SVG file.
    #[arg(long)]
    plot: Option<std::path::PathBuf>,
    /// End every session's epoch on this schedule (the gateway's `[strategy] rollover`):
    /// a duration such as `60s`, `5m` (= "every 60s"), or a schedule as the gateway takes it
    /// ("every 30s", "daily 22:00", "weekly sun 22:00"). Sessions negotiate again and catch up;
    /// rows count the rollovers and the summary gives their reconnect times.
    #[arg(long, value_parser = bench::endurance::parse_rollover)]
    rollover_every: Option<String>,
    /// Bitget's per-UID quota of each query endpoint (order-info, unfilled-orders,
    /// history-orders, fills; Bitget: 20), requests/s: the simulator enforces it and the
    /// gateway is told it, so the restarts show what pacing at the venue's rate costs. 0 (the
    /// default): the simulator's quotas off, nothing paced.
    #[arg(long, default_value_t = 0)]
    venue_query_limit: u32,
    /// Keep Bitget's open-order caps at the simulator (200 per symbol, 400 per product line,
    /// `25211`), which the gateway then applies too (OrderExceedsLimit). Off by default: the
    /// kept-open orders (--open) are far more. With them on, --open and the in-flight windows
    /// must stay under the caps; the run then checks that the gateway counts open orders right
    /// across restarts and rollovers (a count that drifts up refuses orders and fails the run).
    #[arg(long)]
    venue_caps: bool,
    /// Seconds without an order accepted after which the run stops as stalled (and fails).
    #[arg(long, default_value_t = 60)]
    stall_secs: u64,
    /// Seconds after which a run still placing stops and fails (0: no limit).
    #[arg(long, default_value_t = 0)]
    deadline_secs: u64,
}

fn main() {
    bench::init_tracing("error");
    let args = Args::parse();
    let gateway_exe = match args.gateway {
        Some(p) => p,
        None => match bench::soak::gateway_proc::sibling_gateway_exe() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("endurance: {e}");
                std::process::exit(2);
            }
        },
    };
    let (orders, interval, open) = if args.quick {
        (100_000, 10_000, 1_000)
    } else {
        (args.orders, args.interval, args.open)
    };
    if open >= orders {
        eprintln!("endurance: --open ({open}) must be below --orders ({orders})");
        std::process::exit(2);
    }
    let opts = bench::endurance::EnduranceOptions {
        orders,
        sessions: args.sessions.max(1),
        window: args.window.max(1),
        open,
        rate: args.rate.max(0.0),
        interval: interval.max(1),
        restarts: args.restarts,
        report_ms: args.report_ms.max(100),
        set: args.set,
        seed: args.seed,
        work_dir: args.work_dir,
        gateway_exe,
        plot: args.plot,
        reference_pct: args.reference_pct.min(100),
        rollover: args.rollover_every,
        venue_query_limit: args.venue_query_limit,
        venue_caps: args.venue_caps,
        stall: std::time::Duration::from_secs(args.stall_secs.max(1)),
        deadline: (args.deadline_secs > 0)
            .then(|| std::time::Duration::from_secs(args.deadline_secs)),
    };
    match bench::endurance::run(&opts) {
        Ok(outcome) => {
            bench::endurance::print_summary(&outcome, &opts);
            if let Some(path) = &opts.plot {
                match bench::endurance::plot(path, &outcome) {
                    Ok(()) => println!("plot: {}", path.display()),
                    Err(e) => eprintln!("endurance: {e}"),
                }
            }
            let failed = bench::endurance::failures(&outcome, &opts);
            if !failed.is_empty() {
                eprintln!("endurance FAILED: {}", failed.join("; "));
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("endurance failed: {e}");
            std::process::exit(2);
        }
    }
}
