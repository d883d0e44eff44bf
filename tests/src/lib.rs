//! Shared set-up of the end-to-end tests: a venue simulator over TLS on loopback, a gateway
//! connected to it, and strategy clients over real TCP sockets.

use std::time::Duration;

use codec::sbe::{
    BoolFlag, Category, ExecutionReport, NewOrderSingle, OrdType, OrderCancelReject, PosSide, Side,
    StpMode, Symbol, TimeInForce,
};
use codec::Decimal;
use gateway::engine::{
    AccountSettings, EngineSettings, ExchangeSettings, Gateway, GatewayError, SessionGrant,
};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::idle::IdleStrategy;
use gateway::session::fixp::SessionLimits;
use gateway::tracker::TrackerThreadConfig;
use strategy_client::{ClientOptions, Received, StrategyClient};

/// How long a test waits for an expected message.
pub const WAIT: Duration = Duration::from_secs(10);

/// Parses a decimal literal.
pub fn d(s: &str) -> Decimal {
    s.parse().expect("decimal literal")
}

/// The credentials configured for session `id` (`"secret-<id>"`).
pub fn credentials(id: u64) -> String {
    format!("secret-{id}")
}

/// A simulator and a gateway connected to it. Sessions 1..=8 are granted.
pub struct Harness {
    /// Runtime of the simulator.
    pub rt: tokio::runtime::Runtime,
    /// The simulator.
    pub sim: Option<sim::SimHandle>,
    /// The gateway.
    pub gw: Option<Gateway>,
}

/// Gateway settings for a simulator, with `api_secret` as the key's secret.
pub fn settings_for(sim: &sim::SimHandle, api_secret: &str) -> EngineSettings {
    EngineSettings {
        strategy_listen: "127.0.0.1:0".parse().expect("addr"),
        max_frame_len: codec::frame::DEFAULT_MAX_FRAME_LEN,
        admission: Default::default(),
        max_backlog: gateway::session::out::MAX_BACKLOG,
        rollover: Default::default(),
        limits: SessionLimits {
            keepalive_min_ms: 50,
            keepalive_max_ms: 60_000,
            ..SessionLimits::default()
        },
        sessions: (1..=8)
            .map(|id| SessionGrant {
                session_id: id,
                credentials: credentials(id),
                ..SessionGrant::default()
            })
            .collect(),
        accounts: vec![AccountSettings::new(
            "main",
            ExchangeCredentials {
                api_key: "bg_demo_key".into(),
                secret: Secret::new(api_secret),
                passphrase: Secret::new("demo-pass"),
            },
        )],
        exchange: ExchangeSettings {
            ws_private_url: sim.ws_private_url(),
            rest_url: sim.rest_url(),
            extra_ca_pem: Some(sim.ca_cert_pem()),
            ping_interval_ms: 20_000,
            pong_timeout_ms: 10_000,
            connect_timeout_ms: 5_000,
            silence_timeout_ms: 45_000,
            reconnect_min_ms: 200,
            reconnect_max_ms: 10_000,
            categories: vec![Category::UsdtFutures, Category::Spot],
        },
        io_core: None,
        io_idle: IdleStrategy::Park,
        tracker: TrackerThreadConfig {
            core: None,
            idle: IdleStrategy::Park,
            report_interval_ms: 0,
            ..TrackerThreadConfig::default()
        },
        print_reports: false,
        hlog_path: None,
        metrics_listen: None,
        rate: gateway::budget::RateConfig::unlimited(),
        risk: Default::default(),
        moves: Default::default(),
        journal_dir: None,
        journal_segments: Default::default(),
        control: Default::default(),
        record: None,
    }
}

impl Harness {
    /// Starts a simulator with `cfg` and a gateway with the right credentials.
    pub fn start(cfg: sim::SimConfig) -> Harness {
        let (rt, sim) = start_sim(cfg);
        let gw = Gateway::start(settings_for(&sim, "demo-secret")).expect("gateway starts");
        Harness {
            rt,
            sim: Some(sim),
            gw: Some(gw),
        }
    }

    /// The demo simulator configuration with the liquidity source switched off, so that the
    /// book holds only what the test puts there.
    pub fn quiet() -> Harness {
        Harness::start(quiet_sim_config())
    }

    /// The gateway.
    pub fn gateway(&self) -> &Gateway {
        self.gw.as_ref().expect("gateway running")
    }

    /// The simulator.
    pub fn sim(&self) -> &sim::SimHandle {
        self.sim.as_ref().expect("sim running")
    }

    /// The options every test session connects with: its credentials, 1 s keepalives sent
    /// automatically, [`WAIT`] to wait for an answer.
    pub fn client_options(session_id: u64) -> ClientOptions {
        ClientOptions {
            session_id,
            credentials: credentials(session_id),
            keepalive_ms: 1_000,
            auto_keepalive: true,
            timeout: WAIT,
        }
    }

    /// An established strategy session (`auto_keepalive` on).
    pub fn client(&self, session_id: u64) -> Strategy {
        let c = StrategyClient::connect(
            self.gateway().strategy_addr(),
            &Harness::client_options(session_id),
        )
        .expect("session established");
        Strategy { c, next_cl: 0 }
    }

    /// Cancels at the venue, by REST with the master account's key, the BTCUSDT order of
    /// session `session_id` with ClOrdID `cl` (epoch 0's clientOid): what happens there while
    /// the gateway is down.
    pub fn cancel_at_venue(&self, session_id: u64, cl: u64) {
        self.rest_post(
            master_account_credentials(),
            "/api/v3/trade/cancel-order",
            &format!(
                r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"{}"}}"#,
                gateway::ids::ClientOid::new(session_id, cl).as_str()
            ),
        );
    }

    /// Stops the simulator (the gateway's exchange socket closes).
    pub fn stop_sim(&mut self) {
        if let Some(sim) = self.sim.take() {
            self.rt.block_on(sim.shutdown());
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(gw) = self.gw.take() {
            gw.shutdown();
        }
        self.stop_sim();
    }
}

/// Starts a simulator on its own runtime.
pub fn start_sim(cfg: sim::SimConfig) -> (tokio::runtime::Runtime, sim::SimHandle) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(sim::Sim::start(cfg)).expect("simulator starts");
    (rt, sim)
}

/// Starts a simulator on its own runtime with an injected clock (e.g. a `sim::ManualClock`).
pub fn start_sim_with_clock(
    cfg: sim::SimConfig,
    clock: std::sync::Arc<dyn sim::Clock>,
) -> (tokio::runtime::Runtime, sim::SimHandle) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt
        .block_on(sim::Sim::start_with_clock(cfg, clock))
        .expect("simulator starts");
    (rt, sim)
}

/// The demo simulator configuration without liquidity, and without the instruments' price
/// band (`buy_limit_price_ratio` / `sell_limit_price_ratio` 0, served as "not set"): without
/// a liquidity source a book's mark is the mid of the test's own orders (or its last trade),
/// so a test that rests a bid at 50 000 and an ask at 60 000 and then crosses at 60 001 would
/// meet a band around 55 000 that no real index price would give. Tests of the band pin the
/// mark (`SimHandle::set_mark`) and set the ratios back (`with_price_band`).
pub fn quiet_sim_config() -> sim::SimConfig {
    let mut cfg = sim::SimConfig::demo();
    cfg.liquidity.symbols.clear();
    for i in &mut cfg.instruments {
        i.buy_limit_price_ratio = Decimal::ZERO;
        i.sell_limit_price_ratio = Decimal::ZERO;
    }
    cfg
}

/// `cfg` with every instrument's price band at `ratio` on both sides (e.g. `"0.05"`, Bitget's
/// futures value).
pub fn with_price_band(mut cfg: sim::SimConfig, ratio: &str) -> sim::SimConfig {
    for i in &mut cfg.instruments {
        i.buy_limit_price_ratio = d(ratio);
        i.sell_limit_price_ratio = d(ratio);
    }
    cfg
}

/// UID, API key, secret and passphrase of the sub-account [`master_and_sub_sim_config`] adds.
pub const SUB_ACCOUNT: (&str, &str, &str, &str) =
    ("1000000002", "bg_sub_key", "sub-secret", "sub-pass");

/// The quiet simulator configuration plus a sub-account ([`SUB_ACCOUNT`]) of the demo master
/// account (`1000000001`, key `bg_demo_key`).
pub fn master_and_sub_sim_config() -> sim::SimConfig {
    let mut cfg = quiet_sim_config();
    let (uid, key, secret, pass) = SUB_ACCOUNT;
    cfg.accounts.push(sim::config::AccountConfig {
        uid: uid.into(),
        api_key: key.into(),
        secret: secret.into(),
        passphrase: pass.into(),
        master_uid: Some("1000000001".into()),
        ..sim::config::AccountConfig::default()
    });
    cfg
}

/// The exchange credentials of [`SUB_ACCOUNT`].
pub fn sub_account_credentials() -> ExchangeCredentials {
    let (_, key, secret, pass) = SUB_ACCOUNT;
    ExchangeCredentials {
        api_key: key.into(),
        secret: Secret::new(secret),
        passphrase: Secret::new(pass),
    }
}

/// The exchange credentials of the demo master account.
pub fn master_account_credentials() -> ExchangeCredentials {
    ExchangeCredentials {
        api_key: "bg_demo_key".into(),
        secret: Secret::new("demo-secret"),
        passphrase: Secret::new("demo-pass"),
    }
}

impl Harness {
    /// Starts a simulator with `cfg` and a gateway with [`settings_for`] changed by `tweak`
    /// (accounts, session grants, ...).
    pub fn start_with(cfg: sim::SimConfig, tweak: impl FnOnce(&mut EngineSettings)) -> Harness {
        let (rt, sim) = start_sim(cfg);
        let mut settings = settings_for(&sim, "demo-secret");
        tweak(&mut settings);
        let gw = Gateway::start(settings).expect("gateway starts");
        Harness {
            rt,
            sim: Some(sim),
            gw: Some(gw),
        }
    }

    /// A signed REST client of the simulator with `creds`.
    pub fn rest_client(&self, creds: ExchangeCredentials) -> gateway::exchange::RestClient {
        let tls = gateway::exchange::tls::client_config(Some(&self.sim().ca_cert_pem()))
            .expect("tls config");
        gateway::exchange::RestClient::new(&self.sim().rest_url(), &tls, WAIT, Some(creds))
            .expect("rest client")
    }

    /// Signed POST of `body` to the simulator's `path` with `creds` (an action at the venue
    /// behind the gateway's back); panics with `path` on an error.
    pub fn rest_post(&self, creds: ExchangeCredentials, path: &str, body: &str) {
        let rest = self.rest_client(creds);
        self.rt
            .block_on(rest.signed_post(path, body, std::time::SystemTime::now()))
            .expect(path);
    }
}

/// Tries to start a gateway against `sim` with a wrong API secret.
pub fn start_with_bad_secret(sim: &sim::SimHandle) -> Result<Gateway, GatewayError> {
    Gateway::start(settings_for(sim, "wrong-secret"))
}

/// A strategy session with a ClOrdID counter.
pub struct Strategy {
    /// The client.
    pub c: StrategyClient,
    next_cl: u64,
}

/// A NewOrderSingle for BTCUSDT usdt-futures.
pub fn btc_order(
    cl: u64,
    side: Side,
    ord_type: OrdType,
    tif: TimeInForce,
    price: Option<&str>,
    qty: &str,
) -> NewOrderSingle {
    NewOrderSingle {
        cl_ord_id: cl,
        transact_time: 0,
        price: price.map(d),
        order_qty: d(qty),
        symbol: Symbol::new("BTCUSDT").expect("symbol"),
        category: Category::UsdtFutures,
        side,
        ord_type,
        time_in_force: tif,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    }
}

/// A resting-price BTCUSDT limit buy (50000, 0.001) with ClOrdID `cl`.
pub fn resting_buy(cl: u64) -> NewOrderSingle {
    btc_order(
        cl,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    )
}

/// [`resting_buy`] for `NOPEUSDT`, a symbol the exchange does not list: order entry answers it
/// Rejected (UnknownSymbol) at once, on the io thread, with the decision's time as
/// TransactTime; nothing reaches the exchange.
pub fn unknown_symbol_order(cl: u64) -> NewOrderSingle {
    NewOrderSingle {
        symbol: Symbol::new("NOPEUSDT").expect("symbol"),
        ..resting_buy(cl)
    }
}

/// A framed BTCUSDT limit buy NewOrderSingle with ClOrdID `cl` whose Side byte is `side_byte`
/// (a value no Side has, for the bad-input tests: the frame decodes up to that field).
pub fn order_frame_with_side_byte(cl: u64, side_byte: u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    resting_buy(cl).encode_frame(&mut bytes);
    let side = codec::sbe::NEW_ORDER_SINGLE_FIELDS
        .iter()
        .find(|f| f.name == "Side")
        .map(|f| f.offset)
        .expect("Side");
    // SOFH header, then the 8-byte SBE message header, then the root block.
    bytes[codec::frame::SOFH_LEN + 8 + side] = side_byte;
    bytes
}

impl Strategy {
    /// Asks for the retransmission of `count` messages from `from` and returns its reports.
    pub fn retransmitted(&mut self, from: u64, count: u32) -> Vec<ExecutionReport> {
        self.c
            .send_retransmit_request(from, count)
            .expect("RetransmitRequest sent");
        match self.next_message() {
            Received::Retransmission(r) => assert_eq!((r.next_seq_no, r.count), (from, count)),
            other => panic!("expected Retransmission, got {other:?}"),
        }
        (0..count).map(|_| self.exec()).collect()
    }

    /// Wraps an already established client (ClOrdIDs from 1).
    pub fn from_client(c: StrategyClient) -> Strategy {
        Strategy { c, next_cl: 0 }
    }

    /// The next ClOrdID of this session.
    pub fn next_cl(&mut self) -> u64 {
        self.next_cl += 1;
        self.next_cl
    }

    /// Sends a limit order on BTCUSDT usdt-futures and returns its ClOrdID.
    pub fn limit(&mut self, side: Side, tif: TimeInForce, price: &str, qty: &str) -> u64 {
        let cl = self.next_cl();
        self.c
            .send_new_order(&btc_order(cl, side, OrdType::Limit, tif, Some(price), qty))
            .expect("send");
        cl
    }

    /// Next message that is not a Sequence.
    pub fn next_message(&mut self) -> Received {
        loop {
            match self.c.recv(WAIT).expect("recv") {
                Some(Received::Sequence(_)) => continue,
                Some(r) => return r,
                None => panic!("nothing received within {WAIT:?}"),
            }
        }
    }

    /// Next ExecutionReport (panics on anything else).
    pub fn exec(&mut self) -> ExecutionReport {
        match self.next_message() {
            Received::Exec(er) => er,
            other => panic!("expected ExecutionReport, got {other:?}"),
        }
    }

    /// Next OrderCancelReject (panics on anything else).
    pub fn cancel_reject(&mut self) -> OrderCancelReject {
        match self.next_message() {
            Received::CancelReject(r) => r,
            other => panic!("expected OrderCancelReject, got {other:?}"),
        }
    }

    /// Asserts nothing but keepalives arrive for `wait`.
    pub fn expect_silence(&mut self, wait: Duration) {
        let deadline = std::time::Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.c.recv(left).expect("recv") {
                Some(Received::Sequence(_)) | None => {}
                Some(other) => panic!("expected silence, got {other:?}"),
            }
        }
    }
}

pub use gateway::tmpfs::Tmpfs;
