//! `memory`: what open orders cost the gateway (issue 12, item 4). The simulator runs as its
//! own process (`bitget-sim`), so this process holds the gateway and its strategy clients
//! only; N sessions (default 16) place resting limit buys far below the market until the
//! gateway tracks each level of open orders (default 10 000, then 100 000), and the process's
//! resident set (`VmRSS` of `/proc/self/status`) is read at each level, after the sessions
//! are established with no order (the baseline), and per order between levels.

use std::time::Duration;

use codec::sbe::ExecType;
use gateway::idle::IdleStrategy;
use strategy_client::{Received, StrategyClient};

use crate::rig::{limit_buy, price_at, Market, Rig, RigOptions};

/// How long a session waits for one acknowledgement.
const ACK_WAIT: Duration = Duration::from_secs(10);

/// Options of a memory run.
#[derive(Debug, Clone)]
pub struct MemoryOptions {
    /// Strategy sessions the orders are spread over.
    pub sessions: usize,
    /// Open-order counts at which the RSS is read, ascending.
    pub levels: Vec<usize>,
    /// Orders each session keeps in flight while placing.
    pub window: usize,
    /// Idle strategy of the gateway's threads.
    pub idle: IdleStrategy,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            sessions: 16,
            levels: vec![10_000, 100_000],
            window: 64,
            idle: IdleStrategy::default(),
        }
    }
}

/// The resident set at one level of open orders.
#[derive(Debug, Clone, Copy)]
pub struct MemoryRow {
    /// Orders open at the gateway (and at the exchange).
    pub open_orders: usize,
    /// Resident set of this process, bytes.
    pub rss_bytes: u64,
    /// Peak resident set so far, bytes.
    pub hwm_bytes: u64,
}

/// `VmRSS` and `VmHWM` of this process, bytes (Linux; zeros elsewhere).
pub fn rss() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Session {
    client: StrategyClient,
    market: Market,
    next_cl: u64,
}

impl Session {
    /// Places `n` resting buys, `window` in flight at a time; errors on a refusal, or when
    /// no acknowledgement comes for [`ACK_WAIT`] (other messages, such as heartbeats, do not
    /// count: the run fails rather than waits).
    fn place(&mut self, n: usize, window: usize) -> Result<(), String> {
        let price = price_at(&self.market, "0.5");
        let mut sent = 0;
        let mut acked = 0;
        let mut last_ack = std::time::Instant::now();
        while acked < n {
            if last_ack.elapsed() > ACK_WAIT {
                return Err(format!(
                    "{acked} of {n} orders acknowledged, then none for {ACK_WAIT:?}"
                ));
            }
            while sent < n && sent - acked < window {
                let m = self.market;
                let order = limit_buy(self.next_cl, m.symbol, m.category, price, m.qty);
                self.next_cl += 1;
                self.client
                    .send_new_order(&order)
                    .map_err(|e| format!("send: {e}"))?;
                sent += 1;
            }
            match self.client.recv(ACK_WAIT) {
                Ok(Some(Received::Exec(er))) if er.exec_type == ExecType::New => {
                    acked += 1;
                    last_ack = std::time::Instant::now();
                }
                Ok(Some(Received::Exec(er))) => {
                    return Err(format!(
                        "order {} answered {:?} ({:?})",
                        er.cl_ord_id, er.exec_type, er.text
                    ))
                }
                Ok(Some(_)) => {}
                Ok(None) => return Err(format!("no acknowledgement within {ACK_WAIT:?}")),
                Err(e) => return Err(format!("recv: {e}")),
            }
        }
        Ok(())
    }
}

/// Starts the simulator process and the gateway, reads the baseline, fills every level, and
/// stops everything. The first row is the baseline (0 open orders).
///
/// Errors: the rig did not start, a session did not connect, or an order was refused.
pub fn run(opts: &MemoryOptions) -> Result<Vec<MemoryRow>, String> {
    if opts.sessions == 0 || opts.window == 0 {
        return Err("at least one session and a window of one".into());
    }
    let ids: Vec<u64> = (1..=opts.sessions as u64).map(|i| 200 + i).collect();
    let rig = Rig::start(&RigOptions {
        sessions: ids.clone(),
        idle: opts.idle,
        pin: false,
        placement: Default::default(),
        report_interval_ms: 600_000,
        print_reports: false,
        hlog_path: None,
        order_capacity: None,
        sim_process: true,
        venue: sim::config::VenueMode::Full,
        // Far more open orders than Bitget allows one account (25211): caps off.
        open_order_caps: false,
    })?;
    let result = (|| {
        let mut sessions = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            sessions.push(Session {
                client: rig.connect(*id, true)?,
                market: rig.markets[i % rig.markets.len()],
                next_cl: 1,
            });
        }
        let (rss0, hwm0) = rss();
        let mut rows = vec![MemoryRow {
            open_orders: 0,
            rss_bytes: rss0,
            hwm_bytes: hwm0,
        }];
        let mut open = 0;
        for &level in &opts.levels {
            if level <= open {
                continue;
            }
            // Spread the new orders over the sessions, a chunk at a time (the other sessions
            // are read again within a second, within their keepalive).
            let mut left = level - open;
            while left > 0 {
                for s in sessions.iter_mut() {
                    let n = left.min(opts.window * 4);
                    if n == 0 {
                        break;
                    }
                    s.place(n, opts.window)?;
                    left -= n;
                }
            }
            open = level;
            std::thread::sleep(Duration::from_millis(200));
            let (rss_bytes, hwm_bytes) = rss();
            rows.push(MemoryRow {
                open_orders: open,
                rss_bytes,
                hwm_bytes,
            });
        }
        Ok(rows)
    })();
    let _ = rig.shutdown();
    result
}

/// The table: RSS and peak per level, and the bytes per order between consecutive levels.
pub fn table(rows: &[MemoryRow], sessions: usize) -> String {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let mut out = format!(
        "gateway process (simulator in its own process), {sessions} sessions\n\
         {:>12} {:>10} {:>10} {:>16}\n",
        "open orders", "RSS MiB", "peak MiB", "bytes/order"
    );
    let mut prev: Option<&MemoryRow> = None;
    for r in rows {
        let per = match prev {
            Some(p) if r.open_orders > p.open_orders => format!(
                "{:.0}",
                (r.rss_bytes as f64 - p.rss_bytes as f64) / (r.open_orders - p.open_orders) as f64
            ),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{:>12} {:>10.1} {:>10.1} {:>16}\n",
            r.open_orders,
            mib(r.rss_bytes),
            mib(r.hwm_bytes),
            per
        ));
        prev = Some(r);
    }
    out
}
