//! The bench rig: the venue simulator (TLS, on its own one-worker runtime) and the gateway
//! (io and tracker threads) started in one process for the demo and the load generator, with
//! the strategy sessions they use. Rate budgets are off (the simulator enforces no quota in
//! its demo configuration): the benches measure latency and throughput, not the venue's quotas.

use std::time::Duration;

use codec::sbe::{Category, Symbol};
use codec::Decimal;
use gateway::engine::{
    AccountSettings, EngineSettings, ExchangeSettings, Gateway, GatewayReport, SessionGrant,
};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::idle::IdleStrategy;
use gateway::session::fixp::SessionLimits;
use gateway::tracker::port::TrackerPlacement;
use gateway::tracker::TrackerThreadConfig;
use strategy_client::{ClientOptions, StrategyClient};

/// How to start the rig.
#[derive(Debug, Clone)]
pub struct RigOptions {
    /// Strategy SessionIDs to grant (credentials `strategy-<id>`).
    pub sessions: Vec<u64>,
    /// Idle strategy of the gateway's io and tracker threads.
    pub idle: IdleStrategy,
    /// Pin the gateway's io thread to core 0 and its tracker to core 1.
    pub pin: bool,
    /// Where the gateway's tracker runs (`[tracker] placement`).
    pub placement: TrackerPlacement,
    /// Tracker report interval (ms) for periodic tables.
    pub report_interval_ms: u64,
    /// Print every report the tracker writes.
    pub print_reports: bool,
    /// HdrHistogram interval log path.
    pub hlog_path: Option<std::path::PathBuf>,
    /// Orders the tracker's table holds before it first grows (`[tracker] order_capacity`);
    /// `None`: the gateway's default.
    pub order_capacity: Option<usize>,
    /// Run the simulator as its own process (the `bitget-sim` binary next to this one), so
    /// that this process's memory is the gateway's (and its strategy clients').
    pub sim_process: bool,
    /// Which venue the simulator runs: the full one, or the fast one that answers every trade
    /// op at once (`sim::config::VenueMode::Fast`: the gateway is measured, not the matching).
    pub venue: sim::config::VenueMode,
    /// Keep the simulator's open-order caps (`maxSymbolOrderNum` 200, `maxProductOrderNum`
    /// 400 per account: Bitget's `25211`). `false` turns them off (served as "not set", so
    /// the gateway does not apply them either), for a bench that keeps more orders open than
    /// Bitget allows one account (`memory`: 10 000 to 100 000).
    pub open_order_caps: bool,
}

/// The simulator account the floor ([`crate::floor`]) trades on (UID, API key, secret, passphrase): not the
/// gateway's, so neither sees the other's pushes. [`add_floor_account`] adds it.
pub const FLOOR_ACCOUNT: (&str, &str, &str, &str) =
    ("1000000077", "bg_floor_key", "floor-secret", "floor-pass");

/// Adds [`FLOOR_ACCOUNT`] to a simulator configuration: a copy of its first account (the same
/// balances) under the floor's UID and key.
pub fn add_floor_account(cfg: &mut sim::SimConfig) {
    let Some(first) = cfg.accounts.first() else {
        return;
    };
    let (uid, key, secret, pass) = FLOOR_ACCOUNT;
    let mut a = first.clone();
    a.uid = uid.into();
    a.api_key = key.into();
    a.secret = secret.into();
    a.passphrase = pass.into();
    a.api_keys.clear();
    a.master_uid = None;
    cfg.accounts.push(a);
}

/// `--tracker` of the demo and `load`: where the gateway's tracker runs
/// (`[tracker] placement`).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TrackerArg {
    /// Its own thread, fed through a queue.
    OwnThread,
    /// The io thread, where each input is made.
    IoThread,
}

impl TrackerArg {
    /// The placement it names.
    pub fn placement(self) -> TrackerPlacement {
        match self {
            TrackerArg::OwnThread => TrackerPlacement::OwnThread,
            TrackerArg::IoThread => TrackerPlacement::IoThread,
        }
    }
}

/// Where the simulator runs.
enum SimPlace {
    /// On its own runtime in this process.
    InProcess(tokio::runtime::Runtime, sim::SimHandle),
    /// A child process.
    Child(SimChild),
}

/// A `bitget-sim` child process (demo configuration) and where it listens; killed on drop.
pub struct SimChild {
    child: std::process::Child,
    /// REST base URL (`https://127.0.0.1:<port>`).
    pub rest_url: String,
    /// Private WebSocket URL.
    pub ws_private_url: String,
    /// The simulator's CA certificate (PEM), for the gateway's `ca_cert_pem_path`.
    pub ca_pem: String,
    _dir: TempDir,
}

/// A directory removed on drop.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for SimChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SimChild {
    /// Starts `bitget-sim` (demo configuration, TLS, ephemeral port) from this binary's
    /// directory and reads its addresses from its standard output.
    ///
    /// Errors: the binary is missing, did not start or did not print its addresses, as text.
    pub fn start() -> Result<SimChild, String> {
        SimChild::start_with(None)
    }

    /// [`SimChild::start`] with `cfg` (written to a file for `--config`) instead of the demo
    /// configuration.
    ///
    /// Errors: as [`SimChild::start`], or the configuration could not be written.
    pub fn start_with(cfg: Option<&sim::SimConfig>) -> Result<SimChild, String> {
        use std::io::BufRead;
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let bin = exe.with_file_name("bitget-sim");
        if !bin.exists() {
            return Err(format!(
                "{} not found: build it with `cargo build --release -p sim --bin bitget-sim`",
                bin.display()
            ));
        }
        let dir = std::env::temp_dir().join(format!("bgw-bench-sim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let dir = TempDir(dir);
        let ca_path = dir.0.join("sim-ca.pem");
        let mut cmd = std::process::Command::new(&bin);
        if let Some(cfg) = cfg {
            let path = dir.0.join("sim.toml");
            let text = toml::to_string(cfg).map_err(|e| format!("simulator configuration: {e}"))?;
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            cmd.arg("--config").arg(path);
        }
        let mut child = cmd
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--cert-out")
            .arg(&ca_path)
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let stdout = child.stdout.take().ok_or("bitget-sim: no stdout")?;
        let mut sim = SimChild {
            child,
            rest_url: String::new(),
            ws_private_url: String::new(),
            ca_pem: String::new(),
            _dir: dir,
        };
        for line in std::io::BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("bitget-sim output: {e}"))?;
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["REST", url] => sim.rest_url = (*url).to_owned(),
                ["WS", "private", url] => sim.ws_private_url = (*url).to_owned(),
                ["CA", "cert", ..] => break,
                _ => {}
            }
        }
        sim.ca_pem = std::fs::read_to_string(&ca_path)
            .map_err(|e| format!("bitget-sim certificate {}: {e}", ca_path.display()))?;
        if sim.rest_url.is_empty() || sim.ws_private_url.is_empty() {
            return Err("bitget-sim did not print its addresses".into());
        }
        Ok(sim)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// A running simulator and gateway.
pub struct Rig {
    sim: SimPlace,
    gw: Gateway,
    /// The instruments the simulator keeps liquid.
    pub markets: Vec<Market>,
    /// The simulator's private WebSocket URL.
    pub ws_private_url: String,
    /// The simulator's CA certificate (PEM).
    pub ca_pem: String,
}

/// The simulator's runtime: one worker thread named `sim`.
///
/// Errors: the runtime could not be built, as text.
pub fn sim_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .thread_name("sim")
        .build()
        .map_err(|e| e.to_string())
}

/// Credentials of a rig session.
pub fn credentials(session_id: u64) -> String {
    format!("strategy-{session_id}")
}

impl Rig {
    /// Starts the simulator (demo configuration) and the gateway.
    ///
    /// Errors: a text naming what did not start.
    pub fn start(opts: &RigOptions) -> Result<Rig, String> {
        Rig::start_with(opts, |_| {})
    }

    /// [`Rig::start`] with the gateway's settings changed by `tweak` before it starts (e.g.
    /// the metrics endpoint).
    ///
    /// Errors: a text naming what did not start.
    pub fn start_with(
        opts: &RigOptions,
        tweak: impl FnOnce(&mut EngineSettings),
    ) -> Result<Rig, String> {
        let mut sim_cfg = sim::SimConfig::demo();
        sim_cfg.venue = opts.venue;
        if !opts.open_order_caps {
            for i in &mut sim_cfg.instruments {
                i.max_symbol_order_num = 0;
                i.max_product_order_num = 0;
            }
        }
        // The floor's own account (the same-run floor, [`crate::floor`]): its pushes never
        // reach the gateway's connections.
        add_floor_account(&mut sim_cfg);
        let markets = markets(&sim_cfg);
        if markets.is_empty() {
            return Err("the simulator configuration has no liquid symbol".into());
        }
        let sim = if opts.sim_process {
            SimPlace::Child(SimChild::start_with(Some(&sim_cfg))?)
        } else {
            let rt = sim_runtime()?;
            let sim = rt
                .block_on(sim::Sim::start(sim_cfg))
                .map_err(|e| format!("simulator: {e}"))?;
            SimPlace::InProcess(rt, sim)
        };
        let (ws_private_url, rest_url, ca_pem): (String, String, String) = match &sim {
            SimPlace::InProcess(_, sim) => {
                (sim.ws_private_url(), sim.rest_url(), sim.ca_cert_pem())
            }
            SimPlace::Child(c) => (
                c.ws_private_url.clone(),
                c.rest_url.clone(),
                c.ca_pem.clone(),
            ),
        };
        let (venue_url, venue_ca) = (ws_private_url.clone(), ca_pem.clone());
        let mut settings = EngineSettings {
            strategy_listen: "127.0.0.1:0".parse().map_err(|e| format!("{e}"))?,
            max_frame_len: codec::frame::DEFAULT_MAX_FRAME_LEN,
            admission: Default::default(),
            max_backlog: gateway::session::out::MAX_BACKLOG,
            rollover: Default::default(),
            limits: SessionLimits::default(),
            sessions: opts
                .sessions
                .iter()
                .map(|&session_id| SessionGrant {
                    session_id,
                    credentials: credentials(session_id),
                    ..SessionGrant::default()
                })
                .collect(),
            accounts: vec![AccountSettings::new(
                "main",
                ExchangeCredentials {
                    api_key: "bg_demo_key".into(),
                    secret: Secret::new("demo-secret"),
                    passphrase: Secret::new("demo-pass"),
                },
            )],
            exchange: ExchangeSettings {
                ws_private_url,
                rest_url,
                extra_ca_pem: Some(ca_pem),
                ping_interval_ms: 20_000,
                pong_timeout_ms: 10_000,
                connect_timeout_ms: 10_000,
                silence_timeout_ms: 45_000,
                reconnect_min_ms: 200,
                reconnect_max_ms: 10_000,
                categories: vec![Category::UsdtFutures, Category::Spot],
            },
            io_core: opts.pin.then_some(0),
            io_idle: opts.idle,
            tracker: TrackerThreadConfig {
                core: opts.pin.then_some(1),
                idle: opts.idle,
                placement: opts.placement,
                report_interval_ms: opts.report_interval_ms,
                order_capacity: opts
                    .order_capacity
                    .unwrap_or(TrackerThreadConfig::default().order_capacity),
                ..TrackerThreadConfig::default()
            },
            print_reports: opts.print_reports,
            hlog_path: opts.hlog_path.clone(),
            metrics_listen: None,
            rate: gateway::budget::RateConfig::unlimited(),
            risk: Default::default(),
            moves: Default::default(),
            journal_dir: None,
            journal_segments: Default::default(),
            control: Default::default(),
            record: None,
        };
        tweak(&mut settings);
        let gw = Gateway::start(settings).map_err(|e| format!("gateway: {e}"))?;
        Ok(Rig {
            sim,
            gw,
            markets,
            ws_private_url: venue_url,
            ca_pem: venue_ca,
        })
    }

    /// The in-process simulator's counters (`None` with a simulator process).
    pub fn sim_stats(&self) -> Option<sim::SimStats> {
        match &self.sim {
            SimPlace::InProcess(_, sim) => Some(sim.stats()),
            SimPlace::Child(_) => None,
        }
    }

    /// A reader of the in-process simulator's counters another thread can own (`None` with a
    /// simulator process).
    pub fn sim_stats_reader(&self) -> Option<sim::StatsReader> {
        match &self.sim {
            SimPlace::InProcess(_, sim) => Some(sim.stats_reader()),
            SimPlace::Child(_) => None,
        }
    }

    /// Connects and establishes session `session_id` (keepalive 1 s; `auto_keepalive`: the
    /// client sends them from `recv`).
    ///
    /// Errors: the handshake's failure, as text.
    pub fn connect(&self, session_id: u64, auto_keepalive: bool) -> Result<StrategyClient, String> {
        StrategyClient::connect(
            self.gw.strategy_addr(),
            &ClientOptions {
                session_id,
                credentials: credentials(session_id),
                keepalive_ms: 1_000,
                auto_keepalive,
                timeout: Duration::from_secs(5),
            },
        )
        .map_err(|e| format!("strategy {session_id} connect: {e}"))
    }

    /// The running gateway.
    pub fn gateway(&self) -> &Gateway {
        &self.gw
    }

    /// Stops the gateway, then the simulator; returns what the gateway measured.
    pub fn shutdown(self) -> GatewayReport {
        let report = self.gw.shutdown();
        match self.sim {
            SimPlace::InProcess(rt, sim) => rt.block_on(sim.shutdown()),
            SimPlace::Child(child) => drop(child),
        }
        report
    }
}

/// One liquid instrument of the simulator as the benches trade it.
#[derive(Debug, Clone, Copy)]
pub struct Market {
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: Symbol,
    /// Reference mid price.
    pub mid: Decimal,
    /// Price tick.
    pub tick: Decimal,
    /// Order size.
    pub qty: Decimal,
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap_or(Decimal::ZERO)
}

/// The demo's instruments: every symbol the simulator keeps liquid, with its tick, and an
/// order size of one hundredth of a liquidity level (at least the minimum quantity).
pub fn markets(cfg: &sim::SimConfig) -> Vec<Market> {
    cfg.liquidity
        .symbols
        .iter()
        .filter_map(|l| {
            let inst = cfg
                .instruments
                .iter()
                .find(|i| i.symbol == l.symbol && i.category == l.category)?;
            let category = match l.category {
                sim::config::Category::Spot => Category::Spot,
                sim::config::Category::UsdtFutures => Category::UsdtFutures,
                _ => return None,
            };
            let qty = l
                .level_qty
                .checked_div(d("100"), 8, codec::Rounding::Down)?
                .checked_div(inst.quantity_multiplier, 0, codec::Rounding::Down)?
                .checked_mul(inst.quantity_multiplier)?
                .max(inst.min_order_qty)
                .normalized();
            Some(Market {
                category,
                symbol: Symbol::new(&l.symbol).ok()?,
                mid: l.mid,
                tick: inst.price_multiplier,
                qty,
            })
        })
        .collect()
}

/// A good-till-cancelled limit buy of `qty` at `price` (the resting order the load generator,
/// the memory bench and the peers bench place), stamped with the current UTC time.
pub fn limit_buy(
    cl_ord_id: u64,
    symbol: Symbol,
    category: Category,
    price: Decimal,
    qty: Decimal,
) -> codec::sbe::NewOrderSingle {
    use codec::sbe::{BoolFlag, OrdType, PosSide, Side, StpMode, TimeInForce};
    codec::sbe::NewOrderSingle {
        cl_ord_id,
        transact_time: gateway::metrics::utc_now_ns(),
        price: Some(price),
        order_qty: qty,
        symbol,
        category,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::Default,
    }
}

/// `mid × factor` rounded down to the tick.
pub fn price_at(m: &Market, factor: &str) -> Decimal {
    let raw = m.mid.checked_mul(d(factor)).unwrap_or(m.mid);
    let ticks = raw
        .checked_div(m.tick, 0, codec::Rounding::Down)
        .unwrap_or(Decimal::ONE);
    ticks.checked_mul(m.tick).unwrap_or(m.mid).normalized()
}
