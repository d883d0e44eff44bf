//! `peers`: the gateway's side of `scripts/bench-peers.sh`. Connects to a running `gateway` as
//! one strategy session (the Rust reference client, `strategy-client`) and repeats, one request
//! in flight: a resting limit order (NewOrderSingle) → its first answer (ExecutionReport New) →
//! its OrderCancelRequest → the answer (ExecutionReport Canceled). The first `--warmup`
//! iterations are not recorded; then the round trip of each leg (request written → answer read)
//! is recorded for `--iterations` iterations and printed as two machine-readable lines:
//!
//! ```text
//! RESULT gateway place n=2000 p50=61.2 p90=70.3 p99=95.1 p999=180.4
//! RESULT gateway cancel n=2000 p50=... p90=... p99=... p999=...
//! ```
//!
//! (µs, from HdrHistogram, 3 significant digits). Exits 1 when a request is refused or
//! unanswered, 2 on bad arguments.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use codec::sbe::{Category, ExecType, OrderCancelRequest, Side, Symbol};
use codec::Decimal;
use hdrhistogram::Histogram;
use strategy_client::{ClientOptions, Received, StrategyClient};

/// Product line of the instrument traded.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum CategoryArg {
    /// Spot.
    Spot,
    /// USDT-margined futures.
    UsdtFutures,
}

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "peers",
    about = "Place → ack → cancel → ack round trips through a running gateway (bench-peers)"
)]
struct Args {
    /// The gateway's strategy listener (printed by `gateway` at start-up).
    #[arg(long)]
    addr: SocketAddr,
    /// FIXP SessionID configured on the gateway.
    #[arg(long, default_value_t = 1)]
    session_id: u64,
    /// Credentials of that session.
    #[arg(long, default_value = "bench-peers")]
    credentials: String,
    /// Recorded iterations (one place and one cancel each).
    #[arg(long, default_value_t = 2_000)]
    iterations: usize,
    /// Iterations before those, not recorded.
    #[arg(long, default_value_t = 200)]
    warmup: usize,
    /// Symbol traded.
    #[arg(long, default_value = "BTCUSDT")]
    symbol: String,
    /// Its product line.
    #[arg(long, value_enum, default_value = "usdt-futures")]
    category: CategoryArg,
    /// Limit price of the buy orders: far below the market, so that they rest.
    #[arg(long, default_value = "58000")]
    price: String,
    /// Order quantity (base coin).
    #[arg(long, default_value = "0.001")]
    qty: String,
    /// Name of the client in the RESULT lines.
    #[arg(long, default_value = "gateway")]
    name: String,
}

/// How long one answer is waited for before the run fails.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The instrument and order every iteration uses.
struct Order {
    symbol: Symbol,
    category: Category,
    price: Decimal,
    qty: Decimal,
}

/// Why an iteration failed, as text.
type Failure = String;

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1)
}

/// Reads until the answer to request `cl` arrives; returns when it was read. An answer that
/// refuses the request (or an `expect`ed ExecType that is not there) is a failure.
fn await_answer(
    client: &mut StrategyClient,
    cl: u64,
    expect: ExecType,
) -> Result<Instant, Failure> {
    let deadline = Instant::now() + ANSWER_TIMEOUT;
    loop {
        let left = deadline
            .checked_duration_since(Instant::now())
            .ok_or_else(|| format!("no answer to ClOrdID {cl} within {ANSWER_TIMEOUT:?}"))?;
        let got = client
            .recv(left)
            .map_err(|e| format!("ClOrdID {cl}: {e}"))?;
        let at = Instant::now();
        match got {
            Some(Received::Exec(er)) if er.cl_ord_id == cl => {
                if er.exec_type == expect {
                    return Ok(at);
                }
                return Err(format!(
                    "ClOrdID {cl}: ExecType {:?} (OrdStatus {:?}, code {}, {}), expected {expect:?}",
                    er.exec_type,
                    er.ord_status,
                    er.exchange_code,
                    er.text.as_str()
                ));
            }
            Some(Received::CancelReject(r)) if r.cl_ord_id == cl => {
                return Err(format!(
                    "ClOrdID {cl}: OrderCancelReject {:?} (code {}, {})",
                    r.cxl_rej_reason,
                    r.exchange_code,
                    r.text.as_str()
                ));
            }
            Some(Received::BusinessReject(r)) if r.business_reject_ref_id == cl => {
                return Err(format!(
                    "ClOrdID {cl}: BusinessMessageReject {:?} (code {}, {})",
                    r.business_reject_reason,
                    r.exchange_code,
                    r.text.as_str()
                ));
            }
            Some(Received::NotApplied(_)) => {
                return Err(format!("ClOrdID {cl}: NotApplied (exchange link down?)"));
            }
            Some(Received::Terminate(t)) => {
                return Err(format!("session terminated: {}", t.reason.as_str()));
            }
            // Keepalives, position and balance reports, answers to nothing pending.
            Some(_) => {}
            None => {
                return Err(format!(
                    "no answer to ClOrdID {cl} within {ANSWER_TIMEOUT:?}"
                ))
            }
        }
    }
}

/// One place → ack → cancel → ack; returns the two round trips (ns).
fn iteration(
    client: &mut StrategyClient,
    order: &Order,
    next_cl: &mut u64,
) -> Result<(u64, u64), Failure> {
    *next_cl += 1;
    let root = *next_cl;
    let place = bench::rig::limit_buy(root, order.symbol, order.category, order.price, order.qty);
    let t0 = Instant::now();
    client
        .send_new_order(&place)
        .map_err(|e| format!("send NewOrderSingle {root}: {e}"))?;
    let t1 = await_answer(client, root, ExecType::New)?;

    *next_cl += 1;
    let cl = *next_cl;
    let cancel = OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: root,
        transact_time: gateway::metrics::utc_now_ns(),
        symbol: order.symbol,
        category: order.category,
        side: Side::Buy,
    };
    let t2 = Instant::now();
    client
        .send_cancel(&cancel)
        .map_err(|e| format!("send OrderCancelRequest {cl}: {e}"))?;
    let t3 = await_answer(client, cl, ExecType::Canceled)?;
    Ok((nanos(t1 - t0), nanos(t3 - t2)))
}

/// A RESULT line: percentiles in µs with one decimal.
fn result_line(name: &str, leg: &str, h: &Histogram<u64>) -> String {
    let us = |q: f64| h.value_at_quantile(q) as f64 / 1e3;
    format!(
        "RESULT {name} {leg} n={} p50={:.1} p90={:.1} p99={:.1} p999={:.1}",
        h.len(),
        us(0.5),
        us(0.9),
        us(0.99),
        us(0.999)
    )
}

fn run(args: &Args) -> Result<(), Failure> {
    let order = Order {
        symbol: Symbol::new(&args.symbol).map_err(|e| format!("--symbol: {e:?}"))?,
        category: match args.category {
            CategoryArg::Spot => Category::Spot,
            CategoryArg::UsdtFutures => Category::UsdtFutures,
        },
        price: args
            .price
            .parse()
            .map_err(|e| format!("--price {}: {e:?}", args.price))?,
        qty: args
            .qty
            .parse()
            .map_err(|e| format!("--qty {}: {e:?}", args.qty))?,
    };
    let mut client = StrategyClient::connect(
        args.addr,
        &ClientOptions {
            session_id: args.session_id,
            credentials: args.credentials.clone(),
            keepalive_ms: 1_000,
            auto_keepalive: true,
            timeout: Duration::from_secs(5),
        },
    )
    .map_err(|e| format!("connect {}: {e}", args.addr))?;
    // 1 ns .. 60 s, 3 significant digits.
    let new_hist = || Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3);
    let mut place = new_hist().map_err(|e| e.to_string())?;
    let mut cancel = new_hist().map_err(|e| e.to_string())?;
    // ClOrdIDs unique across runs against one gateway (the gateway refuses a reused one).
    let mut next_cl = gateway::metrics::utc_now_ns();
    for _ in 0..args.warmup {
        iteration(&mut client, &order, &mut next_cl)?;
    }
    for _ in 0..args.iterations {
        let (p, c) = iteration(&mut client, &order, &mut next_cl)?;
        place.record(p).map_err(|e| e.to_string())?;
        cancel.record(c).map_err(|e| e.to_string())?;
    }
    let _ = client.terminate();
    println!("{}", result_line(&args.name, "place", &place));
    println!("{}", result_line(&args.name, "cancel", &cancel));
    Ok(())
}

fn main() {
    bench::init_tracing("warn");
    let args = Args::parse();
    if args.iterations == 0 {
        eprintln!("peers: --iterations must be at least 1");
        std::process::exit(2);
    }
    if let Err(e) = run(&args) {
        eprintln!("peers ({}): {e}", args.name);
        std::process::exit(1);
    }
}
