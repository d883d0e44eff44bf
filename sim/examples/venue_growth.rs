//! What the venue's state costs as orders accumulate, without sockets (issue 23): the
//! endurance bench's order mix driven straight into `Venue::handle_trade` (10 000 orders kept
//! open, then 30 % IOC orders that fill against the liquidity ladder, 35 % modified then
//! cancelled, 35 % cancelled), the ladder refreshed after every op that touched it as the
//! server does. Every `--interval` orders it prints the process's RSS and the interval's
//! trade-op times (p50 / p99.9 / max µs, wall clock, the request's JSON parse left out), and
//! which op was the slowest. A table that grows by rehash or by copy under the venue lock shows
//! as a max at the order where it grows; a structure without a bound, as RSS that keeps rising.
//!
//! `cargo run --release -p sim --example venue_growth -- [orders] [interval]` (default
//! 2 000 000 and 100 000). Wall-clock figures include the machine's own hiccups: run it on a
//! quiet machine, or compare runs made close in time.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use sim::config::Category;
use sim::liquidity::LiquiditySource;
use sim::matching::AccountId;
use sim::venue::{Counters, TradeOutcome, Venue};
use sim::SimConfig;

/// One liquid instrument as the endurance bench trades it.
struct Market {
    category: Category,
    symbol: String,
    mid: f64,
    tick: f64,
    qty: String,
}

fn markets(cfg: &SimConfig) -> Vec<Market> {
    cfg.liquidity
        .symbols
        .iter()
        .filter_map(|l| {
            let inst = cfg
                .instruments
                .iter()
                .find(|i| i.symbol == l.symbol && i.category == l.category)?;
            let lot: f64 = inst.quantity_multiplier.to_string().parse().ok()?;
            let level: f64 = l.level_qty.to_string().parse().ok()?;
            let min: f64 = inst.min_order_qty.to_string().parse().ok()?;
            let qty = ((level / 100.0 / lot).floor() * lot).max(min);
            let decimals = inst
                .quantity_multiplier
                .normalized()
                .exponent()
                .unsigned_abs() as usize;
            Some(Market {
                category: l.category,
                symbol: l.symbol.clone(),
                mid: l.mid.to_string().parse().ok()?,
                tick: inst.price_multiplier.to_string().parse().ok()?,
                qty: format!("{qty:.decimals$}"),
            })
        })
        .collect()
}

/// `mid × factor` rounded down to the tick, plus `up` ticks, as text.
fn price_at(m: &Market, factor: f64, up: f64) -> String {
    let ticks = (m.mid * factor / m.tick).floor() + up;
    let decimals = (-m.tick.log10()).ceil().max(0.0) as usize;
    format!("{:.decimals$}", ticks * m.tick)
}

fn place(m: &Market, oid: &str, side: &str, price: &str, tif: &str) -> Value {
    let req = format!(
        r#"{{"op":"trade","id":"1","category":"{}","topic":"place-order","args":[{{"symbol":"{}","side":"{side}","orderType":"limit","price":"{price}","qty":"{}","timeInForce":"{tif}","clientOid":"{oid}"}}]}}"#,
        m.category.ws_str(),
        m.symbol,
        m.qty
    );
    serde_json::from_str(&req).unwrap_or(Value::Null)
}

fn by_oid(m: &Market, topic: &str, oid: &str, extra: &str) -> Value {
    let req = format!(
        r#"{{"op":"trade","id":"1","category":"{}","topic":"{topic}","args":[{{"symbol":"{}","clientOid":"{oid}"{extra}}}]}}"#,
        m.category.ws_str(),
        m.symbol
    );
    serde_json::from_str(&req).unwrap_or(Value::Null)
}

fn rss_mib() -> f64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

/// Tiny deterministic generator (xorshift64*), so that runs compare op for op.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

struct Interval {
    times_ns: Vec<u64>,
    worst: (u64, u64, &'static str),
}

fn main() {
    let mut args = std::env::args().skip(1);
    let orders: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let interval: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let keep_open: u64 = 10_000;
    let cfg = SimConfig::demo();
    let mut now_ms: u64 = 1_700_000_000_000;
    let counters = Arc::new(Counters::default());
    let mut venue = Venue::new(&cfg, Arc::clone(&counters), now_ms);
    let mut liquidity = LiquiditySource::new(&cfg.liquidity, &venue);
    let mut out = TradeOutcome::default();
    liquidity.refresh(&mut venue, false, now_ms, &mut out);
    let markets = markets(&cfg);
    if markets.is_empty() {
        eprintln!("venue_growth: the demo configuration has no liquid symbol");
        return;
    }
    let owner = AccountId(0);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut iv = Interval {
        times_ns: Vec::with_capacity(4 * interval as usize),
        worst: (0, 0, ""),
    };
    let mut fill_buy = false;
    println!(
        "== venue_growth: {orders} orders ({keep_open} kept open), a row every {interval}; \
         trade-op wall time µs p50/p99.9/max, and the slowest op (order #, kind)"
    );
    println!(
        "{:>9} {:>9} {:>9} {:>8} {:>8} {:>8}  slowest",
        "orders", "RSS MiB", "ops", "p50", "p99.9", "max"
    );
    let start = Instant::now();
    for n in 1..=orders {
        // 3 000 orders a second, as the endurance bench places them.
        now_ms = 1_700_000_000_000 + n / 3;
        let m = &markets[rng.below(markets.len() as u64) as usize];
        let oid = format!("g{n}");
        let mut steps: Vec<(&'static str, Value)> = Vec::with_capacity(3);
        if n <= keep_open {
            steps.push(("keep", place(m, &oid, "buy", &price_at(m, 0.8, 0.0), "gtc")));
        } else {
            match rng.below(100) {
                0..30 => {
                    fill_buy = !fill_buy;
                    let (side, f) = if fill_buy {
                        ("buy", 1.02)
                    } else {
                        ("sell", 0.98)
                    };
                    steps.push(("fill", place(m, &oid, side, &price_at(m, f, 0.0), "ioc")));
                }
                30..65 => {
                    steps.push((
                        "place",
                        place(m, &oid, "buy", &price_at(m, 0.9, 0.0), "gtc"),
                    ));
                    let p = format!(r#","price":"{}""#, price_at(m, 0.9, 1.0));
                    steps.push(("modify", by_oid(m, "modify-order", &oid, &p)));
                    steps.push(("cancel", by_oid(m, "cancel-order", &oid, "")));
                }
                _ => {
                    steps.push((
                        "place",
                        place(m, &oid, "buy", &price_at(m, 0.9, 0.0), "gtc"),
                    ));
                    steps.push(("cancel", by_oid(m, "cancel-order", &oid, "")));
                }
            }
        }
        for (kind, req) in &steps {
            let t = Instant::now();
            let outcome = venue.handle_trade(owner, req, "c1", now_ms);
            if outcome.touched_liquidity {
                let mut o = TradeOutcome::default();
                liquidity.refresh(&mut venue, false, now_ms, &mut o);
            }
            let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
            iv.times_ns.push(ns);
            if ns > iv.worst.0 {
                iv.worst = (ns, n, kind);
            }
        }
        if n % interval == 0 || n == orders {
            let t = &mut iv.times_ns;
            t.sort_unstable();
            let q = |p: f64| {
                t.get(((t.len() as f64 - 1.0) * p) as usize)
                    .copied()
                    .unwrap_or(0)
                    / 1000
            };
            println!(
                "{n:>9} {:>9.1} {:>9} {:>8} {:>8} {:>8}  #{} {}",
                rss_mib(),
                t.len(),
                q(0.5),
                q(0.999),
                t.last().copied().unwrap_or(0) / 1000,
                iv.worst.1,
                iv.worst.2
            );
            t.clear();
            iv.worst = (0, 0, "");
        }
    }
    let c = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "== {orders} orders in {:.1} s: {} placed, {} rejected, {} cancelled, {} modified, \
         {} fills, {} repeated clientOids",
        start.elapsed().as_secs_f64(),
        c(&counters.orders_placed),
        c(&counters.rejects),
        c(&counters.orders_cancelled),
        c(&counters.orders_modified),
        c(&counters.fills),
        c(&counters.repeated_client_oids)
    );
}
