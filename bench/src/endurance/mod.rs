//! The endurance bench (issue 23): the real `gateway` binary as a child process with a journal,
//! the venue simulator as a `bitget-sim` process, and N strategy sessions that drive millions
//! of orders through it (place; fill at once, modify then cancel, or cancel) while a set of
//! orders rests for the whole run. The gateway is killed with SIGKILL and started again at
//! chosen points of the run (by default 10 %, 50 %, 90 % and after the last order, with every
//! kept-open order still open); each restart is timed from the process start to `/readyz`
//! answering 200 and every session re-established and caught up.
//!
//! Every `interval` orders it prints one row: the gateway's RSS, orders in the tracker (the
//! gauges named in [`TRACKER_ORDERS_METRIC`] and [`TRACKER_TOMBSTONES_METRIC`], "n/a" while the
//! gateway does not export them), bytes in the journal directory, and p50 / p99 / p99.9 / max of
//! the interval for the strategy round trip (timed by the sessions, reset per interval) and for
//! each of the gateway's own legs. The gateway's figures are per interval too: the gateway
//! writes its HdrHistogram interval log (`[metrics] hlog_path`, one entry per leg every
//! `report_interval_ms`), the bench follows it ([`hlog`]) and gives each of its rows the log
//! intervals that ended inside it. At the end it prints the goals and whether each is
//! met, and `--plot` draws RSS, journal bytes and p99.9 against orders done.
//!
//! With `rollover` (`--rollover-every`, the gateway's `[strategy] rollover` schedule) every
//! session's epoch ends on schedule: the sessions negotiate again and catch up (see
//! [`session`]); each row counts the rollovers completed in it and their slowest reconnect, and
//! the summary lists every rollover with its reconnect times.

pub mod hiccup;
pub mod hlog;
pub mod session;

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use hdrhistogram::Histogram;

use crate::probe::{cpu_ns, dir_bytes, http_get, metric_sum, rss_bytes, scrape};
use crate::rig::SimChild;
use crate::soak::gateway_proc::GatewayProc;

use self::hlog::{HlogFollower, LogInterval};
use self::session::{EnduranceSession, Rollover, SessionCounts, Shared};

/// The gauge of orders the tracker holds (every series summed; labels such as `state` are
/// allowed). Read from `/metrics`; absent until the gateway exports it (then printed "n/a").
pub const TRACKER_ORDERS_METRIC: &str = "bgw_tracker_orders";
/// The gauge of tombstones of evicted orders the tracker holds (every series summed).
pub const TRACKER_TOMBSTONES_METRIC: &str = "bgw_tracker_tombstones";
/// The row label of the strategy round trip the sessions time.
pub const ROUND_TRIP: &str = "round_trip";
/// The gateway's legs, as tagged in its interval log, in print order.
pub const GATEWAY_LEGS: [&str; 4] = [
    "strategy_to_exchange",
    "exchange_reply",
    "first_push",
    "push_to_report",
];

/// Options of one run.
#[derive(Debug, Clone)]
pub struct EnduranceOptions {
    /// Orders to have accepted over all sessions (kept-open ones included).
    pub orders: u64,
    /// Strategy sessions.
    pub sessions: usize,
    /// Orders each session has in flight at most (kept-open ones count until accepted).
    pub window: usize,
    /// Orders kept resting for the whole run, over all sessions.
    pub open: u64,
    /// Orders placed per second over all sessions (0: as fast as the windows allow).
    pub rate: f64,
    /// Orders between two printed rows.
    pub interval: u64,
    /// Points of the run (percent of `orders`) where the gateway is SIGKILLed and started
    /// again; 100 means after the last order, with the kept-open orders still open.
    pub restarts: Vec<u32>,
    /// The gateway's `[metrics] report_interval_ms` (granularity of the per-interval legs).
    pub report_ms: u64,
    /// Extra gateway settings, `section.key = value` (TOML value), added to the configuration.
    pub set: Vec<(String, String, String)>,
    /// Seed of the order mix.
    pub seed: u64,
    /// Work directory (configuration, journal, interval logs, gateway log).
    pub work_dir: PathBuf,
    /// The `gateway` binary.
    pub gateway_exe: PathBuf,
    /// Where to draw the picture, if anywhere.
    pub plot: Option<PathBuf>,
    /// The point (percent of `orders`) the goals compare the end with (the issue: 200 000 of
    /// 2 000 000, i.e. 10).
    pub reference_pct: u32,
    /// The gateway's `[strategy] rollover` schedule ("every 60s", "daily HH:MM", …; `None`:
    /// the gateway's default, no scheduled rollover).
    pub rollover: Option<String>,
    /// Bitget's per-UID quota of each query endpoint (`order-info`, `unfilled-orders`,
    /// `history-orders`, `fills`), requests/s, enforced by the simulator and told to the
    /// gateway (`[rate.overrides]`), so that restarts show what pacing at the venue's rate
    /// costs; 0 (the default): the simulator's quotas stay off, the gateway paces nothing.
    pub venue_query_limit: u32,
    /// Keep Bitget's open-order caps at the simulator (and so at the gateway, which reads
    /// them from the instruments response): see [`venue_config`]. Off by default (the kept-open
    /// orders are far more than the caps allow).
    pub venue_caps: bool,
    /// No order accepted for this long ends the run as stalled (a failure).
    pub stall: Duration,
    /// The run fails, rather than waits, when it is still placing after this long (`None`:
    /// no limit).
    pub deadline: Option<Duration>,
}

/// The `[strategy] rollover` schedule for `--rollover-every`: a bare duration (`60s`, `5m`,
/// `1h`) means `every <duration>`; anything else is passed on as written ("daily 22:00",
/// "weekly sun 22:00", "every 30s") and checked by the gateway's own parser.
///
/// Errors: a schedule the gateway would refuse, as text.
pub fn parse_rollover(s: &str) -> Result<String, String> {
    let s = s.trim();
    let schedule = if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("every {s}")
    } else {
        s.to_owned()
    };
    let toml = format!(
        "[strategy]\nrollover = \"{schedule}\"\n[[session]]\nsession_id = 1\ncredentials = \"x\"\n[[account]]\nname = \"main\"\napi_key = \"k\"\nsecret = \"s\"\npassphrase = \"p\"\n"
    );
    gateway::config::GatewayConfig::from_toml_str(&toml)
        .map(|_| schedule)
        .map_err(|e| format!("--rollover-every {s}: {e}"))
}

/// p50 / p99 / p99.9 / max and count of one leg in one interval, ns.
#[derive(Debug, Clone, Copy, Default)]
pub struct LegStats {
    /// Samples.
    pub count: u64,
    /// Median, ns.
    pub p50: u64,
    /// 99th percentile, ns.
    pub p99: u64,
    /// 99.9th percentile, ns.
    pub p999: u64,
    /// Maximum, ns.
    pub max: u64,
}

impl LegStats {
    fn of(h: &Histogram<u64>) -> Option<LegStats> {
        (!h.is_empty()).then(|| LegStats {
            count: h.len(),
            p50: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
        })
    }
}

/// One printed row.
#[derive(Debug, Clone)]
pub struct Row {
    /// Orders accepted when it was taken.
    pub orders: u64,
    /// Seconds since the first order.
    pub elapsed_s: f64,
    /// Orders per second over the interval.
    pub rate: f64,
    /// Gateway process number (1, then one more per restart).
    pub process: u64,
    /// Gateway resident set, bytes.
    pub rss: u64,
    /// Simulator resident set, bytes.
    pub sim_rss: u64,
    /// Tracker orders and tombstones (`None`: not exported).
    pub tracker_orders: Option<f64>,
    /// Tracker tombstones (`None`: not exported).
    pub tombstones: Option<f64>,
    /// Bytes in the journal directory.
    pub journal_bytes: u64,
    /// Gateway CPU time (user + system, every thread) over the interval per order accepted in
    /// it, ns (`None`: unreadable). After a restart it counts the new process's whole life,
    /// start-up included (such a row is marked `restart` and left out of the goals).
    pub cpu_per_order_ns: Option<u64>,
    /// A restart happened inside this interval.
    pub restart: bool,
    /// Session rollovers completed inside this interval (one per session and epoch).
    pub rollovers: usize,
    /// The slowest of their reconnects, ms.
    pub rollover_max_ms: Option<f64>,
    /// Per leg ([`ROUND_TRIP`] first, then [`GATEWAY_LEGS`]): the interval's figures.
    pub legs: Vec<(&'static str, Option<LegStats>)>,
    /// The machine's own wake-up lateness over the interval ([`hiccup`]): what any thread of
    /// this machine was delayed by, beside the legs.
    pub hiccup: Option<LegStats>,
}

/// One timed restart.
#[derive(Debug, Clone)]
pub struct Restart {
    /// Where in the run (percent of `orders`).
    pub pct: u32,
    /// Orders accepted when the gateway was killed.
    pub orders: u64,
    /// Orders open (accepted, not ended) at the strategy side when it was killed.
    pub open: u64,
    /// Bytes in the journal directory when it was killed.
    pub journal_bytes: u64,
    /// Process start → strategy listener announced, ms.
    pub listen_ms: f64,
    /// Process start → `/readyz` 200, ms.
    pub ready_ms: f64,
    /// Process start → every session re-established and caught up, ms.
    pub sessions_ms: f64,
    /// The gateway's own breakdown of its start-up (`gateway: start-up ...`: journal, login,
    /// reconciliation and its REST listings, ...), as it printed it.
    pub phases: Option<String>,
}

impl Restart {
    /// The restart time: process start → ready and every session re-established, ms.
    pub fn total_ms(&self) -> f64 {
        self.ready_ms.max(self.sessions_ms)
    }
}

/// What the run measured.
#[derive(Debug, Default)]
pub struct EnduranceOutcome {
    /// Rows, in order.
    pub rows: Vec<Row>,
    /// Restarts, in order.
    pub restarts: Vec<Restart>,
    /// Summed session counters.
    pub counts: SessionCounts,
    /// Orders still live at a session when it finished.
    pub live_at_end: usize,
    /// Every session rollover, in the order they completed.
    pub rollovers: Vec<Rollover>,
    /// Wall time.
    pub elapsed: Duration,
    /// Interval-log lines the bench could not read.
    pub bad_hlog_lines: u64,
    /// The run stopped early (no order accepted for [`EnduranceOptions::stall`]).
    pub stalled: bool,
    /// The run stopped early: still placing at [`EnduranceOptions::deadline`].
    pub timed_out: bool,
}

/// Parses `section.key=value` (the last dot splits section from key; the value is TOML).
///
/// Errors: no `=` or no section, as text.
pub fn parse_set(s: &str) -> Result<(String, String, String), String> {
    let (path, value) = s
        .split_once('=')
        .ok_or_else(|| format!("--set {s}: expected section.key=value"))?;
    let (section, key) = path
        .trim()
        .rsplit_once('.')
        .ok_or_else(|| format!("--set {s}: expected section.key=value"))?;
    Ok((section.into(), key.into(), value.trim().into()))
}

fn credentials(session_id: u64) -> String {
    format!("endurance-{session_id}")
}

fn hlog_path(opts: &EnduranceOptions, process: u64) -> PathBuf {
    opts.work_dir.join(format!("gateway-{process}.hlog"))
}

/// Where the gateway finds the simulator: private WebSocket URL, REST URL, CA certificate file.
struct Venue<'a> {
    ws_private_url: &'a str,
    rest_url: &'a str,
    ca: &'a Path,
}

impl<'a> Venue<'a> {
    fn of(sim: &'a SimChild, ca: &'a Path) -> Self {
        Venue {
            ws_private_url: &sim.ws_private_url,
            rest_url: &sim.rest_url,
            ca,
        }
    }
}

/// The simulator's configuration for a run: the demo venue, with the query endpoints' per-UID
/// quotas at `query_limit` requests/s each when above 0 (the trade ops stay unthrottled: the
/// bench places thousands of orders a second).
///
/// Bitget's open-order caps (`maxSymbolOrderNum` 200 / `maxProductOrderNum` 400, `25211`) are
/// off unless `caps` (0, served as "not set", so the gateway does not apply them either): the
/// bench keeps `--open` orders resting (10 000 by default) to time a restart that reconciles
/// them, far above the caps, which would refuse all but the first 200 per symbol (the gateway
/// first, OrderExceedsLimit). Every run goes through here, whatever `--venue-query-limit`
/// says (a run without quotas once started the demo venue as it is, caps on, and stalled at
/// 800 orders). With `caps` (`--venue-caps`) the caps stay as Bitget has them: a run that keeps
/// fewer orders open than they allow then checks that the gateway's count of open orders
/// stays right across restarts and rollovers.
pub fn venue_config(query_limit: u32, caps: bool) -> sim::SimConfig {
    let mut cfg = sim::SimConfig::demo();
    if query_limit > 0 {
        cfg.rate_limits = sim::ratelimit::RateLimitConfig::queries_only(query_limit);
    }
    if !caps {
        for i in &mut cfg.instruments {
            i.max_symbol_order_num = 0;
            i.max_product_order_num = 0;
        }
    }
    cfg
}

/// The gateway's configuration for its `process`-th start: N sessions that keep their orders
/// when they drop, the simulator's account, no rate budget, the metrics endpoint and interval
/// log (`gateway-<process>.hlog`), the journal in the work directory, then every `--set` (which
/// replaces the bench's value of the same key).
fn gateway_config(opts: &EnduranceOptions, venue: &Venue<'_>, process: u64) -> String {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut table = |name: &str, lines: &[String]| {
        sections.push((format!("[{name}]"), lines.to_vec()));
    };
    let mut strategy: Vec<String> = vec![
        "listen = \"127.0.0.1:0\"".into(),
        "keepalive_min_ms = 100".into(),
    ];
    if let Some(r) = &opts.rollover {
        strategy.push(format!("rollover = \"{r}\""));
    }
    table("strategy", &strategy);
    table(
        "exchange",
        &[
            format!("ws_private_url = \"{}\"", venue.ws_private_url),
            format!("rest_url = \"{}\"", venue.rest_url),
            format!("ca_cert_pem_path = \"{}\"", venue.ca.display()),
            "categories = [\"USDT-FUTURES\", \"SPOT\"]".into(),
        ],
    );
    table("rate", &["tier = \"unlimited\"".into()]);
    if opts.venue_query_limit > 0 {
        let n = opts.venue_query_limit;
        table(
            "rate.overrides",
            &["order_info", "unfilled_orders", "history_orders", "fills"]
                .map(|k| format!("{k} = {n}")),
        );
    }
    table("risk", &["mark_refresh_ms = 0".into()]);
    table(
        "metrics",
        &[
            format!("report_interval_ms = {}", opts.report_ms),
            "listen = \"127.0.0.1:0\"".into(),
            format!("hlog_path = \"{}\"", hlog_path(opts, process).display()),
        ],
    );
    table(
        "journal",
        &[format!(
            "dir = \"{}\"",
            opts.work_dir.join("journal").display()
        )],
    );
    for (section, key, value) in &opts.set {
        let header = format!("[{section}]");
        let line = format!("{key} = {value}");
        let same_key = |l: &String| l.split('=').next().is_some_and(|k| k.trim() == key);
        match sections.iter_mut().find(|(h, _)| *h == header) {
            Some((_, lines)) => match lines.iter_mut().find(|l| same_key(l)) {
                // The bench's own setting gives way (TOML refuses a key twice).
                Some(l) => *l = line,
                None => lines.push(line),
            },
            None => sections.push((header, vec![line])),
        }
    }
    let mut s = String::new();
    for i in 1..=opts.sessions as u64 {
        // Orders stay open across restarts: no cancel when a session drops.
        s.push_str(&format!(
            "[[session]]\nsession_id = {i}\ncredentials = \"{}\"\ncancel_on_disconnect = false\n\n",
            credentials(i)
        ));
    }
    s.push_str(
        "[[account]]\nname = \"main\"\napi_key = \"bg_demo_key\"\nsecret = \"demo-secret\"\n\
         passphrase = \"demo-pass\"\nposition_updates = false\n\n",
    );
    for (header, lines) in sections {
        s.push_str(&header);
        s.push('\n');
        for l in lines {
            s.push_str(&l);
            s.push('\n');
        }
        s.push('\n');
    }
    s
}

/// The running gateway and what the conductor follows of it.
struct Running {
    gw: GatewayProc,
    metrics: SocketAddr,
    process: u64,
    hlog: HlogFollower,
}

/// Waits until `/readyz` answers 200 (polled every 2 ms); the time it took since `since`.
fn wait_ready(metrics: SocketAddr, since: Instant) -> Result<Duration, String> {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Ok((200, _)) = http_get(metrics, "/readyz") {
            return Ok(since.elapsed());
        }
        if Instant::now() > deadline {
            return Err("the gateway was not ready within 180 s".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The conductor's state between rows.
struct Conductor {
    opts: EnduranceOptions,
    shared: Arc<Shared>,
    sim: SimChild,
    ca: PathBuf,
    config: PathBuf,
    log: PathBuf,
    run: Running,
    /// Interval-log entries read (every process) and not yet given to a row.
    entries: Vec<LogInterval>,
    /// The latest end of an entry of the running process's log.
    covered: Option<SystemTime>,
    /// Rows sampled and waiting for the gateway's log to reach their end.
    pending: VecDeque<PendingRow>,
    started: Instant,
    last_row: (u64, Instant),
    /// The gateway's CPU time at the last row: (pid, ns).
    last_cpu: Option<(u32, u64)>,
    restart_in_interval: bool,
    /// Rollovers already given to a row.
    rollovers_seen: usize,
    /// The machine's wake-up lateness, taken at each row.
    hiccups: hiccup::HiccupProbe,
    out: EnduranceOutcome,
}

/// A row sampled at its boundary, its gateway legs still to come from the interval log.
struct PendingRow {
    row: Row,
    wall: SystemTime,
    at: Instant,
    process: u64,
}

impl Conductor {
    fn start_gateway(&self, process: u64) -> Result<(Running, Duration, Instant), String> {
        std::fs::write(
            &self.config,
            gateway_config(&self.opts, &Venue::of(&self.sim, &self.ca), process),
        )
        .map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        let gw = GatewayProc::start_with_metrics(&self.opts.gateway_exe, &self.config, &self.log)?;
        let listen = t0.elapsed();
        let metrics = gw
            .metrics
            .ok_or("the gateway announced no metrics endpoint")?;
        let run = Running {
            gw,
            metrics,
            process,
            hlog: HlogFollower::new(&hlog_path(&self.opts, process)),
        };
        Ok((run, listen, t0))
    }

    /// SIGKILL, start again, time it.
    fn restart(&mut self, pct: u32) -> Result<(), String> {
        let orders = self.shared.accepted.load(Ordering::Relaxed);
        let open: u64 = self
            .shared
            .sessions
            .iter()
            .map(|s| s.open.load(Ordering::Relaxed))
            .sum();
        let process = self.run.process + 1;
        let journal_bytes = dir_bytes(&self.opts.work_dir.join("journal"));
        self.run.gw.kill();
        // The old process's intervals that reached the file before the kill (the one in
        // progress is lost with it) complete the rows sampled while it ran.
        self.poll_log();
        self.out.bad_hlog_lines += self.run.hlog.bad_lines;
        self.complete_rows(true);
        self.covered = None;
        let (new_run, listen, t0) = self
            .start_gateway(process)
            .map_err(|e| format!("restart at {pct} %: {e}"))?;
        self.out.restarts.push(Restart {
            pct,
            orders,
            open,
            journal_bytes,
            listen_ms: 0.0,
            ready_ms: 0.0,
            sessions_ms: 0.0,
            phases: new_run.gw.startup.clone(),
        });
        *self.shared.gateway.lock() = (new_run.gw.addr, process);
        let metrics = new_run.metrics;
        self.run = new_run;
        let ready = wait_ready(metrics, t0)?;
        let deadline = Instant::now() + Duration::from_secs(180);
        while self
            .shared
            .sessions
            .iter()
            .any(|s| s.established.load(Ordering::Relaxed) < process)
        {
            if Instant::now() > deadline {
                return Err(format!(
                    "restart at {pct} %: sessions not re-established within 180 s"
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let sessions = t0.elapsed();
        if let Some(r) = self.out.restarts.last_mut() {
            r.listen_ms = listen.as_secs_f64() * 1e3;
            r.ready_ms = ready.as_secs_f64() * 1e3;
            r.sessions_ms = sessions.as_secs_f64() * 1e3;
            print_restart(r);
        }
        self.restart_in_interval = true;
        Ok(())
    }

    /// Samples one row at `orders` (RSS, tracker, journal, the sessions' round trips); its
    /// gateway legs are filled in by [`Conductor::complete_rows`].
    fn sample(&mut self, orders: u64) {
        let now = Instant::now();
        let wall = SystemTime::now();
        let text = scrape(self.run.metrics).unwrap_or_default();
        let mut rtt = session::latency_histogram();
        for s in &self.shared.sessions {
            let mut h = s.rtt.lock();
            let _ = rtt.add(&*h);
            h.reset();
        }
        let new_rollovers: Vec<Rollover> = {
            let all = self.shared.rollovers.lock();
            all[self.rollovers_seen.min(all.len())..].to_vec()
        };
        self.rollovers_seen += new_rollovers.len();
        let rollover_max_ms = new_rollovers
            .iter()
            .filter_map(|r| r.reconnect_ms)
            .reduce(f64::max);
        let (last_orders, last_at) = self.last_row;
        let secs = now.duration_since(last_at).as_secs_f64().max(1e-9);
        let pid = self.run.gw.pid();
        let cpu = cpu_ns(pid);
        let cpu_per_order_ns = cpu.and_then(|now_ns| {
            let since = match self.last_cpu {
                Some((p, ns)) if p == pid => ns,
                _ => 0,
            };
            now_ns
                .saturating_sub(since)
                .checked_div(orders.saturating_sub(last_orders))
        });
        self.last_cpu = cpu.map(|ns| (pid, ns));
        let row = Row {
            orders,
            elapsed_s: self.started.elapsed().as_secs_f64(),
            rate: orders.saturating_sub(last_orders) as f64 / secs,
            process: self.run.process,
            rss: rss_bytes(self.run.gw.pid()),
            sim_rss: rss_bytes(self.sim.pid()),
            tracker_orders: metric_sum(&text, TRACKER_ORDERS_METRIC),
            tombstones: metric_sum(&text, TRACKER_TOMBSTONES_METRIC),
            journal_bytes: dir_bytes(&self.opts.work_dir.join("journal")),
            cpu_per_order_ns,
            restart: std::mem::take(&mut self.restart_in_interval),
            rollovers: new_rollovers.len(),
            rollover_max_ms,
            legs: vec![(ROUND_TRIP, LegStats::of(&rtt))],
            hiccup: LegStats::of(&self.hiccups.take()),
        };
        self.last_row = (orders, now);
        self.pending.push_back(PendingRow {
            row,
            wall,
            at: now,
            process: self.run.process,
        });
    }

    /// Reads what the running gateway appended to its interval log.
    fn poll_log(&mut self) {
        self.run.hlog.poll();
        if let Some(t) = self.run.hlog.covered_until() {
            self.covered = Some(self.covered.map_or(t, |c| c.max(t)));
        }
        self.entries.extend(self.run.hlog.take_all());
    }

    /// Completes and prints the rows whose end the gateway's log has reached (or that waited
    /// two report intervals, or whose process is gone; every row when `force`).
    fn complete_rows(&mut self, force: bool) {
        let patience = Duration::from_millis(2 * self.opts.report_ms + 500);
        while let Some(front) = self.pending.front() {
            let ready = force
                || front.process != self.run.process
                || self.covered.is_some_and(|t| t >= front.wall)
                || front.at.elapsed() > patience;
            if !ready {
                break;
            }
            let Some(mut p) = self.pending.pop_front() else {
                break;
            };
            let (taken, kept): (Vec<_>, Vec<_>) =
                self.entries.drain(..).partition(|i| i.end <= p.wall);
            self.entries = kept;
            let mut merged: BTreeMap<String, Histogram<u64>> = BTreeMap::new();
            for i in taken {
                let h = merged
                    .entry(i.tag)
                    .or_insert_with(|| Histogram::new(3).expect("valid histogram"));
                let _ = h.add(&i.hist);
            }
            for leg in GATEWAY_LEGS {
                p.row
                    .legs
                    .push((leg, merged.get(leg).and_then(LegStats::of)));
            }
            print_row(&p.row);
            self.out.rows.push(p.row);
        }
    }
}

/// Runs the bench; `Err` when it could not run (start-up, a restart that failed).
pub fn run(opts: &EnduranceOptions) -> Result<EnduranceOutcome, String> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.work_dir).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(opts.work_dir.join("journal"));
    for entry in std::fs::read_dir(&opts.work_dir).map_err(|e| e.to_string())? {
        let p = entry.map_err(|e| e.to_string())?.path();
        if p.extension().is_some_and(|e| e == "hlog") {
            let _ = std::fs::remove_file(p);
        }
    }
    let sim = SimChild::start_with(Some(&venue_config(opts.venue_query_limit, opts.venue_caps)))?;
    let markets = crate::rig::markets(&sim::SimConfig::demo());
    if markets.is_empty() {
        return Err("the simulator configuration has no liquid symbol".into());
    }
    let ca = opts.work_dir.join("sim-ca.pem");
    std::fs::write(&ca, &sim.ca_pem).map_err(|e| e.to_string())?;
    let log = opts.work_dir.join("gateway.log");
    let _ = std::fs::remove_file(&log);
    let config = opts.work_dir.join("gateway.toml");
    std::fs::write(&config, gateway_config(opts, &Venue::of(&sim, &ca), 1))
        .map_err(|e| e.to_string())?;
    let gw = GatewayProc::start_with_metrics(&opts.gateway_exe, &config, &log)?;
    let metrics = gw
        .metrics
        .ok_or("the gateway announced no metrics endpoint")?;
    wait_ready(metrics, Instant::now())?;
    let shared = Arc::new(Shared::new(gw.addr, opts.sessions, opts.orders));
    let per_session_open = opts.open / opts.sessions as u64;
    let mut threads = Vec::new();
    for i in 0..opts.sessions {
        let session_id = i as u64 + 1;
        let extra = u64::from((i as u64) < opts.open % opts.sessions as u64);
        let mut s = EnduranceSession::new(
            i,
            session_id,
            credentials(session_id),
            markets.clone(),
            Arc::clone(&shared),
            opts.seed.wrapping_add(session_id),
            opts.window,
            (per_session_open + extra) as usize,
        )
        .paced(opts.rate / opts.sessions as f64);
        threads.push(
            std::thread::Builder::new()
                .name(format!("endurance-{session_id}"))
                .spawn(move || -> Result<EnduranceSession, String> {
                    s.run(Duration::from_secs(20))?;
                    Ok(s)
                })
                .map_err(|e| e.to_string())?,
        );
    }
    let now = Instant::now();
    let mut c = Conductor {
        opts: opts.clone(),
        shared: Arc::clone(&shared),
        sim,
        ca,
        config,
        log,
        run: Running {
            hlog: HlogFollower::new(&hlog_path(opts, 1)),
            gw,
            metrics,
            process: 1,
        },
        entries: Vec::new(),
        covered: None,
        pending: VecDeque::new(),
        started: now,
        last_row: (0, now),
        last_cpu: None,
        restart_in_interval: false,
        rollovers_seen: 0,
        hiccups: hiccup::HiccupProbe::start().map_err(|e| e.to_string())?,
        out: EnduranceOutcome::default(),
    };
    print_header(opts);
    let result = conduct(&mut c);
    shared.wind_down.store(true, Ordering::Relaxed);
    let mut errors = Vec::new();
    for t in threads {
        match t.join() {
            Ok(Ok(s)) => {
                c.out.counts.add(&s.counts);
                c.out.live_at_end += s.live();
            }
            Ok(Err(e)) => errors.push(e),
            Err(_) => errors.push("a session thread panicked".into()),
        }
    }
    let Conductor { run, mut out, .. } = c;
    out.rollovers = shared.rollovers.lock().clone();
    out.bad_hlog_lines += run.hlog.bad_lines;
    run.gw.stop();
    result?;
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    out.elapsed = started.elapsed();
    Ok(out)
}

/// The conductor's loop: rows every `interval` orders, restarts at their points, the last
/// restart once every session is idle.
fn conduct(c: &mut Conductor) -> Result<(), String> {
    let total = c.opts.orders.max(1);
    let mut pending: Vec<u32> = c.opts.restarts.clone();
    pending.sort_unstable();
    pending.dedup();
    let mut next_row = c.opts.interval.max(1);
    let mut last_progress = (0u64, Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(5));
        let done = c.shared.accepted.load(Ordering::Relaxed);
        if done != last_progress.0 {
            last_progress = (done, Instant::now());
        } else if last_progress.1.elapsed() > c.opts.stall {
            c.out.stalled = true;
            println!(
                "STALLED: no order accepted for {:.0?} at {done} orders",
                c.opts.stall
            );
            c.complete_rows(true);
            return Ok(());
        }
        if c.opts.deadline.is_some_and(|d| c.started.elapsed() > d) {
            c.out.timed_out = true;
            println!(
                "DEADLINE: {done} of {total} orders accepted after {:.0?}",
                c.started.elapsed()
            );
            c.complete_rows(true);
            return Ok(());
        }
        if done >= next_row && next_row <= total {
            c.sample(next_row);
            next_row += c.opts.interval.max(1);
        }
        c.poll_log();
        c.complete_rows(false);
        if let Some(&pct) = pending.first() {
            if pct < 100 && done >= total * u64::from(pct) / 100 {
                pending.remove(0);
                c.restart(pct)?;
            }
        }
        if done >= total {
            break;
        }
    }
    // Every session finishes its orders in flight; the kept-open ones rest.
    let deadline = Instant::now() + Duration::from_secs(60);
    while c
        .shared
        .sessions
        .iter()
        .any(|s| !s.idle.load(Ordering::Relaxed))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let done = c.shared.accepted.load(Ordering::Relaxed);
    if c.last_row.0 < c.opts.orders {
        c.sample(done);
    }
    if pending.contains(&100) {
        c.restart(100)?;
        // The restart after the last order gets its own row (RSS and journal after recovery).
        c.sample(done);
    }
    let patience = Instant::now() + Duration::from_millis(2 * c.opts.report_ms + 500);
    while !c.pending.is_empty() && Instant::now() < patience {
        std::thread::sleep(Duration::from_millis(50));
        c.poll_log();
        c.complete_rows(false);
    }
    c.complete_rows(true);
    Ok(())
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1_000.0
}

fn opt_count(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{v:.0}"))
}

/// Prints what the columns mean.
pub fn print_header(o: &EnduranceOptions) {
    println!(
        "== endurance: {} orders through {} sessions ({} in flight each at most, {} kept open, {}), a row every {} orders, restarts at {:?} %",
        o.orders,
        o.sessions,
        o.window,
        o.open,
        if o.rate > 0.0 {
            format!("{:.0} orders/s placed", o.rate)
        } else {
            "unpaced".to_owned()
        },
        o.interval,
        o.restarts
    );
    if let Some(r) = &o.rollover {
        println!("session rollover: \"{r}\" (every session's epoch ends on that schedule)");
    }
    println!(
        "columns: orders, s since start, orders/s, gateway process #, gateway RSS MiB, simulator RSS MiB, tracker orders ({TRACKER_ORDERS_METRIC}) / tombstones ({TRACKER_TOMBSTONES_METRIC}), journal MiB, gateway CPU µs per order (user + system, every thread), session rollovers completed in the interval (ro N, slowest reconnect ms); then per leg p50/p99/p99.9/max µs of this interval: {ROUND_TRIP} (strategy, timed by the bench), {} (gateway, from its interval log, {} ms entries), then {} (the machine: how late a bench thread that sleeps {} ms wakes up); R = a restart in this interval",
        GATEWAY_LEGS.join(", "),
        o.report_ms,
        hiccup::HICCUP,
        hiccup::PERIOD.as_millis()
    );
}

/// Prints one row.
pub fn print_row(r: &Row) {
    let rollovers = match (r.rollovers, r.rollover_max_ms) {
        (0, _) => String::new(),
        (n, Some(ms)) => format!(" ro {n} ({ms:.0} ms)"),
        (n, None) => format!(" ro {n}"),
    };
    let mut s = format!(
        "{:>9} {:>7.1}s {:>7.0}/s gw#{} rss {:>7.1} sim {:>7.1} tracker {}/{} journal {:>8.1} cpu {:>5}{}{rollovers}",
        r.orders,
        r.elapsed_s,
        r.rate,
        r.process,
        mib(r.rss),
        mib(r.sim_rss),
        opt_count(r.tracker_orders),
        opt_count(r.tombstones),
        mib(r.journal_bytes),
        r.cpu_per_order_ns
            .map_or_else(|| "-".to_string(), |ns| format!("{:.1}", us(ns))),
        if r.restart { " R" } else { "" }
    );
    for (name, st) in &r.legs {
        match st {
            Some(x) => s.push_str(&format!(
                " | {name} {:.0}/{:.0}/{:.0}/{:.0}",
                us(x.p50),
                us(x.p99),
                us(x.p999),
                us(x.max)
            )),
            None => s.push_str(&format!(" | {name} -")),
        }
    }
    if let Some(x) = r.hiccup {
        s.push_str(&format!(
            " | {} {:.0}/{:.0}/{:.0}/{:.0}",
            hiccup::HICCUP,
            us(x.p50),
            us(x.p99),
            us(x.p999),
            us(x.max)
        ));
    }
    println!("{s}");
}

fn print_restart(r: &Restart) {
    println!(
        "restart at {} % ({} orders, {} open, journal {:.1} MiB): listening after {:.0} ms, /readyz 200 after {:.0} ms, every session re-established after {:.0} ms",
        r.pct,
        r.orders,
        r.open,
        mib(r.journal_bytes),
        r.listen_ms,
        r.ready_ms,
        r.sessions_ms
    );
    if let Some(p) = &r.phases {
        println!("    gateway start-up {p}");
    }
}

/// Prints the rollovers, one line per epoch: how many sessions went through it, at how many
/// orders, their reconnect times.
fn print_rollovers(all: &[Rollover], opts: &EnduranceOptions) {
    let Some(schedule) = &opts.rollover else {
        println!("session rollovers: none scheduled (see --rollover-every)");
        return;
    };
    let timed: Vec<f64> = all.iter().filter_map(|r| r.reconnect_ms).collect();
    let mut sorted = timed.clone();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize);
    println!(
        "session rollovers (\"{schedule}\"): {} over all sessions ({} timed from the Terminate); reconnect (Terminate → caught up, unanswered requests sent again) p50 {} ms, max {} ms; old-epoch messages lost in an open gap: {}",
        all.len(),
        timed.len(),
        at(0.5).map_or("-".into(), |v| format!("{v:.1}")),
        at(1.0).map_or("-".into(), |v| format!("{v:.1}")),
        all.iter().map(|r| r.lost_held).sum::<usize>()
    );
    let mut epochs: BTreeMap<u64, Vec<&Rollover>> = BTreeMap::new();
    for r in all {
        epochs.entry(r.epoch).or_default().push(r);
    }
    for (epoch, rs) in epochs {
        let mut ms: Vec<f64> = rs.iter().filter_map(|r| r.reconnect_ms).collect();
        ms.sort_by(f64::total_cmp);
        let orders = rs.iter().map(|r| r.orders).min().unwrap_or(0);
        println!(
            "  epoch {epoch}: {} sessions at ~{orders} orders, reconnect ms {}",
            rs.len(),
            if ms.is_empty() {
                "- (changed while disconnected)".to_owned()
            } else {
                format!(
                    "min {:.1} / median {:.1} / max {:.1}",
                    ms[0],
                    ms[ms.len() / 2],
                    ms[ms.len() - 1]
                )
            }
        );
    }
}

/// One goal and whether it is met (`None`: could not be measured in this run).
#[derive(Debug, Clone)]
pub struct Goal {
    /// What it asks.
    pub name: String,
    /// The figures behind the verdict.
    pub figures: String,
    /// Met, not met, or not measured.
    pub met: Option<bool>,
}

fn median(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The goals, evaluated on this run.
pub fn goals(o: &EnduranceOutcome, opts: &EnduranceOptions) -> Vec<Goal> {
    let mut out = Vec::new();
    let reference_orders = opts.orders * u64::from(opts.reference_pct) / 100;
    // The rows taken at the reference point and at the last order, each before a restart at
    // the same point (the conductor takes the row first).
    let reference = o.rows.iter().find(|r| r.orders >= reference_orders);
    let end = o
        .rows
        .iter()
        .find(|r| r.orders >= opts.orders)
        .or(o.rows.last());
    let pct = |a: f64, b: f64| (b / a.max(1.0) - 1.0) * 100.0;
    match (reference, end) {
        (Some(a), Some(b)) => {
            let grow = pct(a.rss as f64, b.rss as f64);
            out.push(Goal {
                name: format!(
                    "RSS after {} orders within 10 % of RSS after {}",
                    b.orders, a.orders
                ),
                figures: format!(
                    "{:.1} MiB (process #{}) vs {:.1} MiB (process #{}): {grow:+.1} %",
                    mib(b.rss),
                    b.process,
                    mib(a.rss),
                    a.process
                ),
                met: Some(grow.abs() <= 10.0),
            });
            // One row against another compares two processes after a restart, each with its
            // own allocator history: the later half's largest RSS against the earlier half's
            // says whether memory grows with the orders done.
            let halves = halves_max(&o.rows, a.orders, |r| r.rss);
            let (early_max, late_max) = halves.unwrap_or((0, 0));
            let grow = pct(early_max as f64, late_max as f64);
            out.push(Goal {
                name: format!(
                    "RSS bounded (largest of the later half of the rows from {} orders vs the earlier half's, within 10 %)",
                    a.orders
                ),
                figures: format!(
                    "{:.1} MiB vs {:.1} MiB: {grow:+.1} %",
                    mib(late_max),
                    mib(early_max)
                ),
                met: halves.map(|_| grow <= 10.0),
            });
            // The directory's size at one instant depends on where each session is in its
            // current segment (up to a segment per session): the later half's largest size is
            // compared with the earlier half's, from the reference point on.
            let halves = halves_max(&o.rows, a.orders, |r| r.journal_bytes);
            let (early_max, late_max) = halves.unwrap_or((0, 0));
            let grow = pct(early_max as f64, late_max as f64);
            out.push(Goal {
                name: format!(
                    "journal bytes flat after the first retention window (largest of the later half of the rows from {} orders vs the earlier half's, within 10 %)",
                    a.orders
                ),
                figures: format!(
                    "{:.1} MiB vs {:.1} MiB: {grow:+.1} % (end {:.1} MiB, at {} orders {:.1} MiB)",
                    mib(late_max),
                    mib(early_max),
                    mib(b.journal_bytes),
                    a.orders,
                    mib(a.journal_bytes)
                ),
                met: halves.map(|_| grow <= 10.0),
            });
        }
        _ => out.push(Goal {
            name: "RSS and journal bytes, end vs reference point".into(),
            figures: "no rows".into(),
            met: None,
        }),
    }
    let early = o.restarts.iter().find(|r| r.orders >= reference_orders);
    let late = o.restarts.last();
    match (early, late) {
        (Some(a), Some(b)) if a.orders < b.orders => {
            let grow = pct(a.total_ms(), b.total_ms());
            out.push(Goal {
                name: format!(
                    "restart after {} orders within 20 % of the restart after {}",
                    b.orders, a.orders
                ),
                figures: format!(
                    "{:.0} ms vs {:.0} ms: {grow:+.1} %",
                    b.total_ms(),
                    a.total_ms()
                ),
                met: Some(grow <= 20.0),
            });
        }
        _ => out.push(Goal {
            name: "restart time late vs early".into(),
            figures: "needs two restarts, the first at or after the reference point".into(),
            met: None,
        }),
    }
    let with_open: Vec<&Restart> = o.restarts.iter().filter(|r| r.open >= opts.open).collect();
    out.push(Goal {
        name: format!("restart under 1 s with {} open orders", opts.open),
        figures: if with_open.is_empty() {
            "no restart had them all open".into()
        } else {
            with_open
                .iter()
                .map(|r| format!("{:.0} ms ({} open)", r.total_ms(), r.open))
                .collect::<Vec<_>>()
                .join(", ")
        },
        met: (!with_open.is_empty()).then(|| with_open.iter().all(|r| r.total_ms() < 1_000.0)),
    });
    let legs: Vec<&str> = std::iter::once(ROUND_TRIP).chain(GATEWAY_LEGS).collect();
    for leg in legs {
        let series: Vec<(bool, LegStats)> = o
            .rows
            .iter()
            .filter_map(|r| {
                r.legs
                    .iter()
                    .find(|(n, _)| *n == leg)
                    .and_then(|(_, s)| *s)
                    .map(|s| (r.restart, s))
            })
            .collect();
        if series.is_empty() {
            out.push(Goal {
                name: format!("{leg}: max ≤ 5 ms in every interval; p99.9 flat"),
                figures: "no samples".into(),
                met: None,
            });
            continue;
        }
        let worst = series.iter().map(|(_, s)| s.max).max().unwrap_or(0);
        let worst_calm = series
            .iter()
            .filter(|(r, _)| !r)
            .map(|(_, s)| s.max)
            .max()
            .unwrap_or(0);
        let over = series.iter().filter(|(_, s)| s.max > 5_000_000).count();
        // What the machine itself did in the intervals above 5 ms: its own wake-up lateness
        // there (the hiccup probe), and how many of them it matched (hiccup max at least half
        // the leg's: the leg's max is the machine's, not the gateway's growth).
        let hiccups_over: Vec<(u64, u64)> = o
            .rows
            .iter()
            .filter_map(|r| {
                let leg_max = r.legs.iter().find(|(n, _)| *n == leg)?.1?.max;
                (leg_max > 5_000_000).then_some((leg_max, r.hiccup.map_or(0, |h| h.max)))
            })
            .collect();
        let machine = if hiccups_over.is_empty() {
            String::new()
        } else {
            let worst_hiccup = hiccups_over.iter().map(|h| h.1).max().unwrap_or(0);
            let matched = hiccups_over.iter().filter(|(l, h)| 2 * h >= *l).count();
            format!(
                "; in those intervals the machine's own hiccups reached {:.2} ms (probe), as large as half the leg's max in {matched} of {}",
                us(worst_hiccup) / 1e3,
                hiccups_over.len()
            )
        };
        out.push(Goal {
            name: format!("{leg}: no interval's max above 5 ms"),
            figures: format!(
                "worst max {:.2} ms ({:.2} ms outside restart intervals); {over} of {} intervals above{machine}",
                us(worst) / 1e3,
                us(worst_calm) / 1e3,
                series.len()
            ),
            met: Some(over == 0),
        });
        // A rollover interval carries the rollover's own work (its OrderStatus reports, the
        // sessions' reconnects): compared with one that has none, where the rollovers fall
        // (rows of --interval orders, a rollover schedule in seconds) would decide the line.
        // Each kind is compared with its own kind. Beside each, the machine's own p99.9 (the
        // hiccup probe) over the same intervals: a tail that moves with it is the machine's.
        let leg_p999 = |r: &Row| Some(r.legs.iter().find(|(n, _)| *n == leg)?.1?.p999);
        let measured = by_rollover_kind(&o.rows, leg_p999);
        out.push(Goal {
            name: format!(
                "{leg}: per-interval p99.9 flat (median of the later half of the intervals at most 20 % above the earlier half's; intervals with and without a session rollover compared apart, restart intervals left out)"
            ),
            figures: if measured.is_empty() {
                "fewer than two intervals".into()
            } else {
                measured
                    .iter()
                    .map(|(name, with, a, b)| {
                        let machine = halves_median(&o.rows, *with, |r| {
                            leg_p999(r).and(r.hiccup.map(|h| h.p999))
                        })
                        .map_or_else(String::new, |(ha, hb)| {
                            format!(
                                " (the machine's own p99.9 over them: {:.0} µs vs {:.0} µs: {:+.1} %)",
                                us(hb),
                                us(ha),
                                pct(ha as f64, hb as f64)
                            )
                        });
                        format!(
                            "{name}: {:.0} µs vs {:.0} µs: {:+.1} %{machine}",
                            us(*b),
                            us(*a),
                            pct(*a as f64, *b as f64)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            met: (!measured.is_empty()).then(|| {
                measured
                    .iter()
                    .all(|(_, _, a, b)| pct(*a as f64, *b as f64) <= 20.0)
            }),
        });
    }
    // Not a goal of the issue: the evidence under the latency lines. CPU time per order is
    // what the gateway's work costs, and hardly moves with the machine's neighbours: if the
    // tables, the journal or the tracker grew with history, it would grow.
    let measured = by_rollover_kind(&o.rows, |r| r.cpu_per_order_ns);
    out.push(Goal {
        name: "gateway CPU per order flat, the work behind every leg (median of the later half of the intervals at most 10 % above the earlier half's; with and without a rollover apart, restart intervals left out)".into(),
        figures: if measured.is_empty() {
            "fewer than two intervals".into()
        } else {
            measured
                .iter()
                .map(|(name, _, a, b)| {
                    format!(
                        "{name}: {:.1} µs vs {:.1} µs: {:+.1} %",
                        us(*b),
                        us(*a),
                        pct(*a as f64, *b as f64)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        },
        met: (!measured.is_empty()).then(|| {
            measured
                .iter()
                .all(|(_, _, a, b)| pct(*a as f64, *b as f64) <= 10.0)
        }),
    });
    out
}

/// Prints the restarts, the counters and the goals.
pub fn print_summary(o: &EnduranceOutcome, opts: &EnduranceOptions) {
    let s = &o.counts;
    println!(
        "== endurance: {} orders accepted in {:.1?} ({:.0} orders/s)",
        s.accepted,
        o.elapsed,
        s.accepted as f64 / o.elapsed.as_secs_f64().max(1e-9)
    );
    println!(
        "strategy: {} placed, {} filled, {} cancelled, {} replaced, {} rejected ({} not applied), {} OrderCancelRejects, {} resends refused as duplicates, {} reports for unknown ClOrdIDs, {} reconnects, {} rollovers, {} RetransmitRequests ({} messages), {} resent, {} sequence regressions, {} abandoned, {} given up as unknown to the gateway, {} answers across a restart or rollover (not timed), {} live at the end",
        s.placed,
        s.filled,
        s.cancelled,
        s.replaced,
        s.rejected,
        s.not_applied,
        s.cancel_rejects,
        s.duplicate_rejects,
        s.unknown,
        s.reconnects,
        s.rollovers,
        s.retransmit_requests,
        s.retransmitted,
        s.resent,
        s.seq_regressions,
        s.abandoned,
        s.unknown_orders,
        s.across_restart,
        o.live_at_end
    );
    for r in &o.restarts {
        print_restart(r);
    }
    if !o.restarts.is_empty() {
        let mut t: Vec<f64> = o.restarts.iter().map(Restart::total_ms).collect();
        t.sort_by(f64::total_cmp);
        println!(
            "restart times ({} restarts, process start → ready and every session re-established): min {:.0} ms, median {:.0} ms, max {:.0} ms",
            t.len(),
            t[0],
            t[t.len() / 2],
            t[t.len() - 1]
        );
    }
    if o.bad_hlog_lines > 0 {
        println!("interval log lines not readable: {}", o.bad_hlog_lines);
    }
    println!(
        "note: the gateway's legs are per interval (its interval log; the entry in progress at a SIGKILL is lost with the process); RSS rows after a restart are of the new process, which recovered from the journal"
    );
    print_rollovers(&o.rollovers, opts);
    println!("-- goals (issue 23) --");
    for g in goals(o, opts) {
        let verdict = match g.met {
            Some(true) => "MET",
            Some(false) => "NOT MET",
            None => "NOT MEASURED",
        };
        println!("{verdict:>12}: {} — {}", g.name, g.figures);
    }
    if !s.reject_reasons.is_empty() {
        let list: Vec<String> = s
            .reject_reasons
            .iter()
            .map(|(reason, (n, text))| format!("{reason} {n} (\"{text}\")"))
            .collect();
        println!("rejects by reason: {}", list.join(", "));
    }
    println!("-- checks (the run fails on any) --");
    let failed = failures(o, opts);
    if failed.is_empty() {
        println!(
            "      passed: every order accepted, none refused but NotApplied, none lost, \
             abandoned or left live, no sequence regression, every restart done{}",
            if opts.rollover.is_some() {
                ", rollovers gone through without loss"
            } else {
                ""
            }
        );
    }
    for f in &failed {
        println!("      FAILED: {f}");
    }
}

/// The period of a rollover schedule `every N<s|m|h>` (`None` for a daily or weekly one).
fn every_period(schedule: &str) -> Option<Duration> {
    let v = schedule.strip_prefix("every ")?.trim();
    let (n, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = n.parse().ok()?;
    let secs = match unit.trim() {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3_600,
        _ => return None,
    };
    Some(Duration::from_secs(secs))
}

/// What makes a run fail (empty: it passed): the bench could not do what it should have.
/// Timing is never judged here (the goals are printed, not asserted); these are the orders and
/// the sessions: every order placed up to `--orders` accepted (a stall or the deadline ends the
/// run short), none refused for a reason other than NotApplied (the gateway not ready yet
/// around a restart: the session backs off and places again), none abandoned without a report,
/// given up as unknown to the gateway or still live after the wind-down, no sequence number
/// going back, no old-epoch message lost at a rollover, every restart asked for done, and, with
/// a rollover every N, at least one rollover in a run that lasted three periods.
pub fn failures(o: &EnduranceOutcome, opts: &EnduranceOptions) -> Vec<String> {
    let s = &o.counts;
    let mut out = Vec::new();
    if o.stalled {
        out.push(format!("stalled: no order accepted for {:.0?}", opts.stall));
    }
    if o.timed_out {
        out.push(format!(
            "still placing at the deadline ({:.0?})",
            opts.deadline.unwrap_or_default()
        ));
    }
    if s.accepted < opts.orders {
        out.push(format!(
            "{} of {} orders accepted ({} placed)",
            s.accepted, opts.orders, s.placed
        ));
    }
    for (reason, (n, text)) in &s.reject_reasons {
        if reason != "NotApplied" {
            out.push(format!("{n} orders refused {reason} (\"{text}\")"));
        }
    }
    let lost: usize = o.rollovers.iter().map(|r| r.lost_held).sum();
    for (n, what) in [
        (s.abandoned, "orders abandoned (no report for a minute)"),
        (
            s.unknown_orders,
            "orders given up as unknown to the gateway",
        ),
        (s.seq_regressions, "sequence regressions"),
        (
            o.live_at_end as u64,
            "orders still live after the wind-down",
        ),
        (
            lost as u64,
            "old-epoch messages lost in a gap at a rollover",
        ),
    ] {
        if n > 0 {
            out.push(format!("{n} {what}"));
        }
    }
    let mut asked: Vec<u32> = opts.restarts.clone();
    asked.sort_unstable();
    asked.dedup();
    if !o.stalled && !o.timed_out && o.restarts.len() < asked.len() {
        out.push(format!(
            "{} of {} restarts done",
            o.restarts.len(),
            asked.len()
        ));
    }
    if let Some(period) = opts.rollover.as_deref().and_then(every_period) {
        if o.rollovers.is_empty() && o.elapsed > 3 * period {
            out.push(format!(
                "no session rolled over in {:.0?} with a rollover every {period:.0?}",
                o.elapsed
            ));
        }
    }
    out
}

/// Draws RSS, journal bytes and per-leg p99.9 against orders done (`--plot`).
///
/// Errors: the file could not be written, as text.
pub fn plot(path: &Path, o: &EnduranceOutcome) -> Result<(), String> {
    let points: Vec<crate::plot::EndurancePoint> = o
        .rows
        .iter()
        .map(|r| crate::plot::EndurancePoint {
            orders: r.orders,
            rss_mib: mib(r.rss),
            journal_mib: mib(r.journal_bytes),
            p999_us: r
                .legs
                .iter()
                .map(|(n, s)| (*n, s.map(|s| us(s.p999))))
                .collect(),
        })
        .collect();
    let restarts: Vec<u64> = o.restarts.iter().map(|r| r.orders).collect();
    crate::plot::endurance_svg(path, &points, &restarts)
}

/// The medians of `value` over the earlier and the later half of the rows that are not restart
/// intervals, have `value`, and hold a session rollover or not (`with_rollover`): (earlier,
/// later), or `None` when a half is empty.
fn halves_median(
    rows: &[Row],
    with_rollover: bool,
    value: impl Fn(&Row) -> Option<u64>,
) -> Option<(u64, u64)> {
    let kept: Vec<u64> = rows
        .iter()
        .filter(|r| !r.restart && (r.rollovers > 0) == with_rollover)
        .filter_map(value)
        .collect();
    let (early, late) = kept.split_at(kept.len() / 2);
    median(early.to_vec()).zip(median(late.to_vec()))
}

/// [`halves_median`] for the intervals without a rollover, then (when there are any) for
/// those with one: (kind's name, with_rollover, earlier, later).
fn by_rollover_kind(
    rows: &[Row],
    value: impl Fn(&Row) -> Option<u64>,
) -> Vec<(&'static str, bool, u64, u64)> {
    [("without a rollover", false), ("with one", true)]
        .into_iter()
        .filter_map(|(name, with)| {
            halves_median(rows, with, &value).map(|(a, b)| (name, with, a, b))
        })
        .collect()
}

/// The largest of `value` over the rows from `from_orders` on, in the earlier and the later half
/// of them: (earlier, later), or `None` with fewer than two such rows. A size sampled at one
/// instant (RSS, journal bytes) swings with where each process or segment is; the halves'
/// largest say whether it grows.
fn halves_max(rows: &[Row], from_orders: u64, value: impl Fn(&Row) -> u64) -> Option<(u64, u64)> {
    let after: Vec<u64> = rows
        .iter()
        .filter(|r| r.orders >= from_orders)
        .map(value)
        .collect();
    let (early, late) = after.split_at(after.len() / 2);
    Some((early.iter().copied().max()?, late.iter().copied().max()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(set: &[&str]) -> EnduranceOptions {
        EnduranceOptions {
            orders: 1_000,
            sessions: 3,
            window: 4,
            open: 10,
            rate: 0.0,
            interval: 100,
            restarts: vec![10, 100],
            report_ms: 1_000,
            set: set.iter().map(|s| parse_set(s).expect("set")).collect(),
            seed: 1,
            work_dir: PathBuf::from("/tmp/endurance-test"),
            gateway_exe: PathBuf::from("gateway"),
            plot: None,
            reference_pct: 10,
            rollover: None,
            venue_query_limit: 0,
            venue_caps: false,
            stall: Duration::from_secs(60),
            deadline: None,
        }
    }

    fn row(orders: u64, restart: bool, rollovers: usize, cpu_us: u64) -> Row {
        Row {
            orders,
            elapsed_s: 0.0,
            rate: 0.0,
            process: 1,
            rss: 0,
            sim_rss: 0,
            tracker_orders: None,
            tombstones: None,
            journal_bytes: 0,
            cpu_per_order_ns: Some(cpu_us * 1_000),
            restart,
            rollovers,
            rollover_max_ms: None,
            legs: Vec::new(),
            hiccup: None,
        }
    }

    #[test]
    fn halves_compare_each_rollover_kind_with_itself_and_leave_restarts_out() {
        let rows = vec![
            row(1, false, 0, 10),
            row(2, false, 16, 30),
            row(3, true, 0, 900),
            row(4, false, 0, 12),
            row(5, false, 16, 33),
            row(6, false, 0, 11),
            row(7, false, 0, 13),
            row(8, true, 16, 900),
            row(9, false, 16, 36),
        ];
        let cpu = |r: &Row| r.cpu_per_order_ns;
        // Without a rollover: 10, 12 | 11, 13 → 12 and 13 µs (of two, `median` takes the
        // upper one: the element at len / 2).
        assert_eq!(halves_median(&rows, false, cpu), Some((12_000, 13_000)));
        // With one: 30 | 33, 36 → 30 and 36 µs.
        assert_eq!(halves_median(&rows, true, cpu), Some((30_000, 36_000)));
        let kinds = by_rollover_kind(&rows, cpu);
        assert_eq!(
            kinds,
            vec![
                ("without a rollover", false, 12_000, 13_000),
                ("with one", true, 30_000, 36_000)
            ]
        );
        // No rollover rows at all: only the first kind; one row: no halves.
        let calm: Vec<Row> = rows.iter().filter(|r| r.rollovers == 0).cloned().collect();
        assert_eq!(by_rollover_kind(&calm, cpu).len(), 1);
        assert_eq!(halves_median(&calm[..1], false, cpu), None);
    }

    #[test]
    fn set_splits_at_the_last_dot_and_rejects_what_has_no_section() {
        assert_eq!(
            parse_set("risk.account.max_open_orders = 500").expect("ok"),
            (
                "risk.account".into(),
                "max_open_orders".into(),
                "500".into()
            )
        );
        assert!(parse_set("journal=1").is_err());
        assert!(parse_set("journal.dir").is_err());
    }

    #[test]
    fn the_configuration_is_one_the_gateway_loads_with_every_set_in_its_section() {
        let opts = options(&[
            "tracker.order_capacity=4096",
            "journal.dir=\"/tmp/elsewhere\"",
        ]);
        let venue = Venue {
            ws_private_url: "wss://127.0.0.1:1/api/v3/ws/private",
            rest_url: "https://127.0.0.1:1",
            ca: Path::new("/tmp/ca.pem"),
        };
        let text = gateway_config(&opts, &venue, 2);
        let cfg = gateway::config::GatewayConfig::from_toml_str(&text).expect("loads");
        assert_eq!(cfg.sessions.len(), 3);
        assert!(cfg.sessions.iter().all(|s| !s.cancel_on_disconnect));
        assert_eq!(cfg.tracker.order_capacity, Some(4096));
        assert_eq!(
            cfg.metrics.hlog_path.as_deref(),
            Some(Path::new("/tmp/endurance-test/gateway-2.hlog"))
        );
        assert_eq!(
            cfg.journal.dir.as_deref(),
            Some(Path::new("/tmp/elsewhere"))
        );
        assert_eq!(
            cfg.strategy.rollover,
            Default::default(),
            "no rollover unless asked for"
        );
    }

    #[test]
    fn the_rollover_schedule_reaches_the_gateway_configuration_and_a_bad_one_is_refused() {
        assert_eq!(parse_rollover("60s").expect("ok"), "every 60s");
        assert_eq!(parse_rollover("daily 22:00").expect("ok"), "daily 22:00");
        assert!(parse_rollover("hourly").is_err());
        assert!(parse_rollover("0s").is_err());
        let mut opts = options(&[]);
        opts.rollover = Some(parse_rollover("every 30s").expect("ok"));
        let venue = Venue {
            ws_private_url: "wss://127.0.0.1:1/api/v3/ws/private",
            rest_url: "https://127.0.0.1:1",
            ca: Path::new("/tmp/ca.pem"),
        };
        let cfg = gateway::config::GatewayConfig::from_toml_str(&gateway_config(&opts, &venue, 1))
            .expect("loads");
        assert_ne!(
            cfg.strategy.rollover,
            Default::default(),
            "no rollover unless asked for"
        );
    }

    /// The regression of issue 37: a run without `--venue-query-limit` started the demo venue
    /// as it is, with Bitget's open-order caps, and the gateway refused every order past 200 per
    /// symbol (800 of the default run) OrderExceedsLimit. Every run's simulator, written as the
    /// bench writes it for `bitget-sim --config`, has the caps off unless asked for.
    #[test]
    fn the_venue_has_no_open_order_caps_in_every_mode_unless_asked_for() {
        for query_limit in [0, 20] {
            let text = toml::to_string(&venue_config(query_limit, false)).expect("serializes");
            let cfg: sim::SimConfig = toml::from_str(&text).expect("loads");
            assert!(!cfg.instruments.is_empty());
            for i in &cfg.instruments {
                assert_eq!(
                    (i.max_symbol_order_num, i.max_product_order_num),
                    (0, 0),
                    "{} with query limit {query_limit}",
                    i.symbol
                );
            }
            assert_eq!(cfg.rate_limits.enabled, query_limit > 0);
            if query_limit > 0 {
                assert_eq!(cfg.rate_limits.queries, query_limit);
            }
        }
        let demo = sim::SimConfig::demo();
        let capped = venue_config(0, true);
        for (a, b) in capped.instruments.iter().zip(&demo.instruments) {
            assert_eq!(
                (a.max_symbol_order_num, a.max_product_order_num),
                (b.max_symbol_order_num, b.max_product_order_num)
            );
            assert!(a.max_symbol_order_num > 0);
        }
    }

    fn outcome(accepted: u64) -> EnduranceOutcome {
        EnduranceOutcome {
            counts: SessionCounts {
                placed: accepted,
                accepted,
                ..SessionCounts::default()
            },
            restarts: vec![
                Restart {
                    pct: 10,
                    orders: 0,
                    open: 0,
                    journal_bytes: 0,
                    listen_ms: 0.0,
                    ready_ms: 0.0,
                    sessions_ms: 0.0,
                    phases: None,
                };
                2
            ],
            elapsed: Duration::from_secs(10),
            ..EnduranceOutcome::default()
        }
    }

    #[test]
    fn a_run_fails_on_a_short_count_a_refusal_a_loss_or_a_missing_rollover() {
        let opts = options(&[]);
        assert_eq!(failures(&outcome(1_000), &opts), Vec::<String>::new());
        let short = failures(&outcome(800), &opts);
        assert_eq!(short, vec!["800 of 1000 orders accepted (800 placed)"]);
        let mut refused = outcome(1_000);
        refused.counts.reject_reasons.insert(
            "OrderExceedsLimit".into(),
            (
                3,
                "pre-empts 25211: 200 open orders (maxSymbolOrderNum)".into(),
            ),
        );
        refused
            .counts
            .reject_reasons
            .insert("NotApplied".into(), (2, "not ready".into()));
        assert_eq!(
            failures(&refused, &opts),
            vec!["3 orders refused OrderExceedsLimit (\"pre-empts 25211: 200 open orders (maxSymbolOrderNum)\")"]
        );
        let mut lost = outcome(1_000);
        lost.counts.abandoned = 1;
        lost.live_at_end = 2;
        lost.stalled = true;
        assert_eq!(failures(&lost, &opts).len(), 3);
        let mut rolling = options(&[]);
        rolling.rollover = Some("every 2s".into());
        assert_eq!(
            failures(&outcome(1_000), &rolling),
            vec!["no session rolled over in 10s with a rollover every 2s"]
        );
        rolling.rollover = Some("every 5s".into());
        assert_eq!(failures(&outcome(1_000), &rolling), Vec::<String>::new());
        assert_eq!(every_period("every 90s"), Some(Duration::from_secs(90)));
        assert_eq!(every_period("every 2m"), Some(Duration::from_secs(120)));
        assert_eq!(every_period("daily 22:00"), None);
        let mut one_restart = outcome(1_000);
        one_restart.restarts.pop();
        assert_eq!(failures(&one_restart, &opts), vec!["1 of 2 restarts done"]);
    }
}
