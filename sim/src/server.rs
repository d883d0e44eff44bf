//! Transport: one axum router (REST + WebSocket upgrade) on one port, served over TLS
//! (axum-server + rustls with the `ring` provider, rcgen self-signed certificate) or plain.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{State, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use parking_lot::Mutex;
use tokio::sync::watch;

use crate::clock::Clock;
use crate::config::{AccountConfig, Permission, SimConfig};
use crate::error::SimError;
use crate::liquidity::LiquiditySource;
use crate::matching::AccountId;
use crate::ratelimit::RateLimiter;
use crate::rest::trade::PostKind;
use crate::state::{now_ms, AppState, Shared};
use crate::venue::{Counters, Venue};

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
    r.route(
        "/api/v3/market/instruments",
        get(crate::rest::orders::instruments),
    )
    .route(
        "/api/v3/public/instruments",
        get(crate::rest::orders::instruments),
    )
    .route("/api/v3/public/time", get(crate::rest::orders::time))
    .route("/api/v2/spot/public/coins", get(crate::rest::coins::coins))
    .route(
        "/api/v3/market/orderbook",
        get(crate::rest::orders::orderbook),
    )
    .route("/api/v3/market/tickers", get(crate::rest::market::tickers))
    .route(
        "/api/v3/trade/order-info",
        get(crate::rest::orders::order_info),
    )
    .route(
        "/api/v3/trade/place-order",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::Place)
        }),
    )
    .route(
        "/api/v3/trade/modify-order",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::Modify)
        }),
    )
    .route(
        "/api/v3/trade/cancel-order",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::Cancel)
        }),
    )
    .route(
        "/api/v3/trade/unfilled-orders",
        get(crate::rest::orders::unfilled_orders),
    )
    .route(
        "/api/v3/trade/place-batch",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::PlaceBatch)
        }),
    )
    .route(
        "/api/v3/trade/batch-modify-order",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::BatchModify)
        }),
    )
    .route(
        "/api/v3/trade/cancel-batch",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::CancelBatch)
        }),
    )
    .route(
        "/api/v3/trade/cancel-symbol-order",
        post(|State(s): State<Arc<AppState>>, h: HeaderMap, b: String| {
            crate::rest::trade::post(s, h, b, PostKind::CancelSymbol)
        }),
    )
    .route(
        "/api/v3/trade/history-orders",
        get(crate::rest::trade::history_orders),
    )
    .route("/api/v3/trade/fills", get(crate::rest::trade::fills))
    .route("/api/v3/account/assets", get(crate::rest::account::assets))
    .route(
        "/api/v3/account/funding-assets",
        get(crate::rest::account::funding_assets),
    )
    .route(
        "/api/v3/account/settings",
        get(crate::rest::account::settings),
    )
    .route(
        "/api/v3/account/max-transferable",
        get(crate::rest::account::max_transferable),
    )
    .route(
        "/api/v3/account/max-open-available",
        post(crate::rest::account::max_open_available),
    )
    .route(
        "/api/v3/account/set-leverage",
        post(crate::rest::account::set_leverage),
    )
    .route(
        "/api/v3/account/set-hold-mode",
        post(crate::rest::account::set_hold_mode),
    )
    .route(
        "/api/v3/position/current-position",
        get(crate::rest::account::current_position),
    )
    .route(
        "/api/v3/account/financial-records",
        get(crate::rest::account::financial_records),
    )
    .route(
        "/api/v3/account/move-positions",
        post(crate::rest::moves::move_positions),
    )
    .route(
        "/api/v3/account/move-position-history",
        get(crate::rest::moves::move_position_history),
    )
    .route("/v3/ws/private", get(ws_private))
    .route("/v3/ws/public", get(ws_public))
    .fallback(crate::rest::reply::not_found)
    .method_not_allowed_fallback(crate::rest::reply::not_found)
    // Inside `with_clock`, so that a size refusal's `requestTime` reads the simulator's clock.
    .layer(axum::middleware::from_fn(crate::rest::reply::bound_size))
    .layer(axum::middleware::from_fn_with_state(
        state.clone(),
        with_clock,
    ))
    .with_state(state)
}

/// Read buffer of a WebSocket connection, bytes: tungstenite zero-fills the free part of it
/// before every read (128 KiB by default); requests are a few hundred bytes and a larger frame
/// grows the buffer to its length.
const WS_READ_BUFFER: usize = 8 * 1024;

/// Transport limit of both WebSocket routes, bytes (4 MiB), for one message and for one frame
/// (tungstenite's `max_message_size` / `max_frame_size`). It sits well above the application's
/// own frame limit in `ws.rs` (64 KiB, answered with an error frame), so that an oversize
/// request of ordinary proportions (e.g. 2 MB) still reaches `ws.rs` and gets its error frame;
/// only a frame above this bound, far beyond any request of the reference (§5: a 20-item batch
/// is about 6 KiB), ends the connection: tungstenite refuses it by its header (before buffering
/// it) with a read error, `ws.rs` stops serving the socket and the TCP connection closes —
/// without an error frame and without a close frame (tungstenite sends no 1009 "message too
/// big" by itself; `ws.rs` would have to).
pub const WS_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

async fn ws_private(State(state): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(WS_MAX_MESSAGE_BYTES)
        .max_frame_size(WS_MAX_MESSAGE_BYTES)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| crate::ws::serve(socket, state, true))
}

async fn ws_public(State(state): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(WS_MAX_MESSAGE_BYTES)
        .max_frame_size(WS_MAX_MESSAGE_BYTES)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| crate::ws::serve(socket, state, false))
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
    // The fast venue has no books to fill: no liquidity source and no timer beside the trade
    // path (below).
    let fast = cfg.venue == crate::config::VenueMode::Fast;
    let liquidity = if fast {
        LiquiditySource::new(&crate::config::LiquidityConfig::default(), &venue)
    } else {
        LiquiditySource::new(&cfg.liquidity, &venue)
    };
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
            if fast || !timer_clock.is_real_time() {
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
