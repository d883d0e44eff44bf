//! Transport: one axum router (REST + WebSocket upgrade) on one port, served over TLS
//! (axum-server + rustls with the `ring` provider, rcgen self-signed certificate) or plain.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{State, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use parking_lot::Mutex;
use tokio::sync::{mpsc, watch};

use crate::clock::Clock;
use crate::config::{AccountConfig, Category, Permission, SimConfig};
use crate::liquidity::LiquiditySource;
use crate::matching::AccountId;
use crate::ratelimit::RateLimiter;
use crate::rest_trade::PostKind;
use crate::venue::{Counters, Push, Topic, TradeOutcome, Venue};
use crate::SimError;

/// Milliseconds since the Unix epoch from the simulator's clock (see [`crate::clock::now_ms`]:
/// the injected clock inside handlers and connection tasks, the system clock elsewhere).
pub fn now_ms() -> u64 {
    crate::clock::now_ms()
}

/// A WebSocket connection as the push router sees it.
pub(crate) struct ConnEntry {
    pub(crate) owner: Option<AccountId>,
    pub(crate) sub_order: bool,
    pub(crate) sub_fill: bool,
    pub(crate) sub_account: bool,
    pub(crate) sub_position: bool,
    /// The logged-in key may trade (`trade` / `uta-trade` permission).
    pub(crate) can_trade: bool,
    /// Public depth subscriptions: (book index, levels, instType, topic, symbol).
    pub(crate) books: Vec<BookSub>,
    pub(crate) tx: mpsc::UnboundedSender<String>,
    /// Fault control messages (close, service-upgrade notice).
    pub(crate) ctl: mpsc::UnboundedSender<crate::faults::Control>,
}

/// One public depth subscription.
#[derive(Debug, Clone)]
pub(crate) struct BookSub {
    pub(crate) book: usize,
    pub(crate) levels: usize,
    pub(crate) inst_type: String,
    pub(crate) topic: String,
    pub(crate) symbol: String,
    /// What was sent so far (see [`crate::depth`]).
    pub(crate) state: crate::depth::DepthState,
}

pub(crate) use crate::depth::book_levels;

/// Everything behind the one lock.
pub(crate) struct Shared {
    pub(crate) venue: Venue,
    pub(crate) liquidity: LiquiditySource,
    pub(crate) conns: BTreeMap<u64, ConnEntry>,
    /// Sequence number of public depth pushes.
    pub(crate) book_seq: u64,
    /// Clock time of the last random-walk step (manual clock).
    pub(crate) walk_ms: u64,
}

impl Shared {
    /// Sends each push to the connections of its owner that subscribed to its topic, then
    /// publishes what changed in the public depth ([`crate::depth`]).
    pub(crate) fn dispatch(&mut self, pushes: &[Push]) {
        for p in pushes {
            for c in self.conns.values() {
                if c.owner != Some(p.owner) {
                    continue;
                }
                let wanted = match p.topic {
                    Topic::Order => c.sub_order,
                    Topic::Fill => c.sub_fill,
                    Topic::Account => c.sub_account,
                    Topic::Position => c.sub_position,
                };
                if wanted {
                    // A closed receiver means the connection is going away; nothing to do.
                    let _ = c.tx.send(p.json.clone());
                }
            }
        }
        if self.has_book_subs() {
            self.push_books(now_ms(), None);
        }
    }

    /// Runs a liquidity refresh and routes what it caused.
    pub(crate) fn refresh_liquidity(&mut self, walk: bool, now_ms: u64) {
        let mut out = TradeOutcome::default();
        self.liquidity
            .refresh(&mut self.venue, walk, now_ms, &mut out);
        self.dispatch(&out.pushes);
    }
}

/// State shared by all handlers.
pub(crate) struct AppState {
    pub(crate) shared: Mutex<Shared>,
    /// One entry per API key (every account's `api_key`, then its `api_keys`), for the
    /// signature checks; `key_owner` has the same index.
    pub(crate) accounts: Vec<AccountConfig>,
    /// Account and permissions of each entry of `accounts`.
    pub(crate) key_owner: Vec<(AccountId, Vec<Permission>)>,
    pub(crate) login_window_s: u64,
    pub(crate) idle_timeout_s: u64,
    pub(crate) max_msgs_per_s: u32,
    /// Per-UID REST / WS trade quotas.
    pub(crate) limiter: Mutex<RateLimiter>,
    pub(crate) counters: Arc<Counters>,
    pub(crate) next_conn: AtomicU64,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Faults on demand.
    pub(crate) faults: crate::faults::Faults,
    /// The clock every emitted timestamp comes from.
    pub(crate) clock: Arc<dyn Clock>,
    /// Liquidity refresh period (ms), for the manual-clock catch-up.
    pub(crate) refresh_ms: u64,
}

impl AppState {
    pub(crate) fn conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// The account and permissions of the key entry `key` (as returned by the signature
    /// checks).
    pub(crate) fn resolve(&self, key: AccountId) -> (AccountId, &[Permission]) {
        match self.key_owner.get(key.0 as usize) {
            Some((a, p)) => (*a, p.as_slice()),
            None => (key, &[]),
        }
    }

    /// With a manual clock: runs the liquidity random-walk steps due by the clock's time (one
    /// per `refresh_ms`), before the request at hand is handled.
    pub(crate) fn catch_up(&self) {
        if self.clock.is_real_time() {
            return;
        }
        let now = self.clock.now_ms();
        let mut sh = self.shared.lock();
        let mut steps = 0;
        while sh.walk_ms.saturating_add(self.refresh_ms) <= now {
            sh.walk_ms = sh.walk_ms.saturating_add(self.refresh_ms);
            steps += 1;
            if steps > 10_000 {
                sh.walk_ms = now;
            }
            let at = sh.walk_ms;
            if !sh.liquidity.is_empty() {
                sh.refresh_liquidity(true, at);
            }
        }
    }
}

/// Runs every HTTP handler with the simulator's clock (and the manual-clock catch-up first).
async fn with_clock(
    State(state): State<Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    state.catch_up();
    crate::clock::scope(state.clock.clone(), next.run(req)).await
}

/// A running server.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    pub(crate) state: Arc<AppState>,
    pub(crate) ca_pem: String,
    pub(crate) handle: axum_server::Handle<SocketAddr>,
    pub(crate) shutdown_tx: watch::Sender<bool>,
    pub(crate) tasks: Vec<tokio::task::JoinHandle<()>>,
}

fn router(state: Arc<AppState>, control_api: bool) -> Router {
    let r = Router::new();
    let r = if control_api {
        r.route("/sim/control/faults", post(crate::faults::control_endpoint))
    } else {
        r
    };
    r.route("/api/v3/market/instruments", get(crate::rest::instruments))
        .route("/api/v3/public/instruments", get(crate::rest::instruments))
        .route("/api/v3/public/time", get(crate::rest::time))
        .route("/api/v2/spot/public/coins", get(crate::rest_coins::coins))
        .route("/api/v3/market/orderbook", get(crate::rest::orderbook))
        .route("/api/v3/market/tickers", get(crate::rest_market::tickers))
        .route("/api/v3/trade/order-info", get(crate::rest::order_info))
        .route(
            "/api/v3/trade/place-order",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::Place)
            }),
        )
        .route(
            "/api/v3/trade/modify-order",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::Modify)
            }),
        )
        .route(
            "/api/v3/trade/cancel-order",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::Cancel)
            }),
        )
        .route(
            "/api/v3/trade/unfilled-orders",
            get(crate::rest::unfilled_orders),
        )
        .route(
            "/api/v3/trade/place-batch",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::PlaceBatch)
            }),
        )
        .route(
            "/api/v3/trade/batch-modify-order",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::BatchModify)
            }),
        )
        .route(
            "/api/v3/trade/cancel-batch",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::CancelBatch)
            }),
        )
        .route(
            "/api/v3/trade/cancel-symbol-order",
            post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
                crate::rest_trade::post(s, h, b, PostKind::CancelSymbol)
            }),
        )
        .route(
            "/api/v3/trade/history-orders",
            get(crate::rest_trade::history_orders),
        )
        .route("/api/v3/trade/fills", get(crate::rest_trade::fills))
        .route("/api/v3/account/assets", get(crate::rest_account::assets))
        .route(
            "/api/v3/account/funding-assets",
            get(crate::rest_account::funding_assets),
        )
        .route(
            "/api/v3/account/settings",
            get(crate::rest_account::settings),
        )
        .route(
            "/api/v3/account/max-transferable",
            get(crate::rest_account::max_transferable),
        )
        .route(
            "/api/v3/account/max-open-available",
            post(crate::rest_account::max_open_available),
        )
        .route(
            "/api/v3/account/set-leverage",
            post(crate::rest_account::set_leverage),
        )
        .route(
            "/api/v3/account/set-hold-mode",
            post(crate::rest_account::set_hold_mode),
        )
        .route(
            "/api/v3/position/current-position",
            get(crate::rest_account::current_position),
        )
        .route(
            "/api/v3/account/financial-records",
            get(crate::rest_account::financial_records),
        )
        .route(
            "/api/v3/account/move-positions",
            post(crate::rest_moves::move_positions),
        )
        .route(
            "/api/v3/account/move-position-history",
            get(crate::rest_moves::move_position_history),
        )
        .route("/v3/ws/private", get(ws_private))
        .route("/v3/ws/public", get(ws_public))
        .fallback(crate::rest::not_found)
        .method_not_allowed_fallback(crate::rest::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            with_clock,
        ))
        .with_state(state)
}

async fn ws_private(State(state): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(1 << 20)
        .on_upgrade(move |socket| crate::ws::serve(socket, state, true))
}

async fn ws_public(State(state): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(1 << 20)
        .on_upgrade(move |socket| crate::ws::serve(socket, state, false))
}

/// Query of the instruments endpoints.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct InstrumentsQuery {
    pub(crate) category: Option<String>,
    pub(crate) symbol: Option<String>,
    pub(crate) limit: Option<String>,
}

/// A REST `category` query value in either case; `Err` carries the error message.
pub(crate) fn parse_category(s: Option<&str>) -> Result<Option<Category>, String> {
    match s {
        None | Some("") => Ok(None),
        Some(c) => Category::parse_any(c)
            .map(Some)
            .ok_or_else(|| format!("Parameter verification failed: category={c}")),
    }
}

/// One signature-check entry per key: (credentials, account, permissions).
fn flatten_keys(accounts: &[AccountConfig]) -> Vec<(AccountConfig, AccountId, Vec<Permission>)> {
    let mut out = Vec::new();
    for (i, a) in accounts.iter().enumerate() {
        let id = AccountId(u32::try_from(i).unwrap_or(u32::MAX - 1));
        out.push((a.clone(), id, a.permissions.clone()));
        for k in &a.api_keys {
            let mut c = a.clone();
            c.api_key = k.api_key.clone();
            c.secret = k.secret.clone();
            c.passphrase = k.passphrase.clone();
            out.push((c, id, k.permissions.clone()));
        }
    }
    out
}

/// Starts the listener, the server task and the liquidity timer.
pub(crate) async fn start(
    cfg: SimConfig,
    counters: Arc<Counters>,
    clock: Arc<dyn Clock>,
) -> Result<Running, SimError> {
    cfg.validate()?;
    let std_listener =
        std::net::TcpListener::bind(cfg.listen).map_err(|e| SimError::Bind(cfg.listen, e))?;
    std_listener
        .set_nonblocking(true)
        .map_err(|e| SimError::Bind(cfg.listen, e))?;
    let addr = std_listener
        .local_addr()
        .map_err(|e| SimError::Bind(cfg.listen, e))?;

    let now = clock.now_ms();
    let venue = Venue::new(&cfg, counters.clone(), now);
    let liquidity = LiquiditySource::new(&cfg.liquidity, &venue);
    let mut shared = Shared {
        venue,
        liquidity,
        conns: BTreeMap::new(),
        book_seq: 0,
        walk_ms: now,
    };
    shared.refresh_liquidity(false, now);

    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let keys = flatten_keys(&cfg.accounts);
    let state = Arc::new(AppState {
        shared: Mutex::new(shared),
        accounts: keys.iter().map(|k| k.0.clone()).collect(),
        key_owner: keys.into_iter().map(|k| (k.1, k.2)).collect(),
        login_window_s: cfg.login_window_s,
        idle_timeout_s: cfg.idle_timeout_s,
        max_msgs_per_s: cfg.max_msgs_per_s,
        limiter: Mutex::new(RateLimiter::new(cfg.rate_limits.clone())),
        counters,
        next_conn: AtomicU64::new(1),
        shutdown: shutdown_rx.clone(),
        faults: crate::faults::Faults::new(cfg.accounts.iter().map(|a| a.uid.clone()).collect()),
        clock: clock.clone(),
        refresh_ms: cfg.liquidity.refresh_ms.max(1),
    });
    cfg.faults
        .install(&state.faults)
        .map_err(SimError::Config)?;
    let app = router(state.clone(), cfg.faults.control_api);
    let handle = axum_server::Handle::new();
    let mut tasks = Vec::new();
    let ca_pem;
    if cfg.tls {
        let (pem, server_cfg) = crate::tls::server_config(addr)?;
        ca_pem = pem;
        let acceptor = axum_server::tls_rustls::RustlsAcceptor::new(
            axum_server::tls_rustls::RustlsConfig::from_config(server_cfg),
        )
        .acceptor(axum_server::accept::NoDelayAcceptor::new());
        let server = axum_server::from_tcp(std_listener)
            .map_err(|e| SimError::Bind(cfg.listen, e))?
            .acceptor(acceptor)
            .handle(handle.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) = server.serve(app.into_make_service()).await {
                tracing::error!("server stopped: {e}");
            }
        }));
    } else {
        ca_pem = String::new();
        let server = axum_server::from_tcp(std_listener)
            .map_err(|e| SimError::Bind(cfg.listen, e))?
            .acceptor(axum_server::accept::NoDelayAcceptor::new())
            .handle(handle.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) = server.serve(app.into_make_service()).await {
                tracing::error!("server stopped: {e}");
            }
        }));
    }

    let refresh_ms = cfg.liquidity.refresh_ms.max(1);
    let liq_state = state.clone();
    let mut stop = shutdown_rx;
    // With a manual clock the walk is caught up per request instead (AppState::catch_up).
    let timer_clock = clock.clone();
    tasks.push(tokio::spawn(crate::clock::scope(
        clock.clone(),
        async move {
            if !timer_clock.is_real_time() {
                let _ = stop.changed().await;
                return;
            }
            let mut tick = tokio::time::interval(Duration::from_millis(refresh_ms));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        let mut sh = liq_state.shared.lock();
                        let now = now_ms();
                        if !sh.liquidity.is_empty() {
                            sh.refresh_liquidity(true, now);
                        }
                        sh.push_books(now, None);
                    }
                    _ = stop.changed() => break,
                }
            }
        },
    )));

    Ok(Running {
        addr,
        state,
        ca_pem,
        handle,
        shutdown_tx,
        tasks,
    })
}
