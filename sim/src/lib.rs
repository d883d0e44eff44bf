//! Venue simulator: a local stand-in for the Bitget UTA v3 service
//! (`shared/reference/bitget-uta-v3.md`), for end-to-end tests and the latency demo.
//!
//! - [`matching`]: sans-I/O order books (price-time priority; push sequences documented there).
//! - [`venue`]: sans-I/O exchange state and trade-op handling (request checks and codes).
//! - [`moves`]: sans-I/O position-move rules (`POST /api/v3/account/move-positions`).
//! - [`liquidity`]: the simulator's own market maker keeping a ladder on every symbol.
//! - [`auth`]: WS login verification.
//! - [`render`]: JSON text of pushes and replies.
//! - [`config`]: [`SimConfig`] (TOML; `config/sim.example.toml`).
//! - [`clock`]: the injectable [`Clock`] (system or manual) behind every emitted timestamp.
//! - [`faults`]: faults on demand ([`SimHandle::faults`], `[faults]` in the config).
//! - [`depth`]: public depth channels (`books` snapshot + updates, `books1/5/15/50`).
//! - transport (private): axum router with REST and WebSocket upgrade on one port, TLS via
//!   axum-server + rustls (`ring`) with an rcgen self-signed certificate, or plain.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sim::SimError> {
//! let sim = sim::Sim::start(sim::SimConfig::demo()).await?;
//! println!("{} {}", sim.ws_private_url(), sim.rest_url());
//! sim.shutdown().await;
//! # Ok(()) }
//! ```

pub mod accounts;
pub mod auth;
pub mod clock;
pub mod config;
pub mod depth;
mod error;
pub mod faults;
pub mod liquidity;
pub mod matching;
pub mod moves;
pub mod query_decode;
pub mod ratelimit;
pub mod render;
mod rest;
mod server;
mod state;
mod tls;
pub mod venue;
mod ws;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{
    AccountConfig, Category, InstrumentConfig, LiquidityConfig, SimConfig, SymbolLiquidity,
};
pub use faults::{FaultControl, FaultError, Scope};
pub use rest::instrument_json;
pub use state::now_ms;

pub use error::SimError;

/// Counter snapshot (see [`SimHandle::stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Place requests received from accounts (batch items counted one by one).
    pub orders_received: u64,
    /// Place requests whose clientOid the account had used before (a duplicate sent by a
    /// client; 0 for a gateway that never sends an order twice).
    pub repeated_client_oids: u64,
    /// Orders accepted.
    pub orders_placed: u64,
    /// Trade-op items rejected with an error code.
    pub rejects: u64,
    /// Account orders cancelled (any reason).
    pub orders_cancelled: u64,
    /// Modify requests accepted.
    pub orders_modified: u64,
    /// Fills of account orders (one per order per match).
    pub fills: u64,
    /// WebSocket connections open now.
    pub ws_connections: u64,
    /// WebSocket connections accepted since start.
    pub ws_connections_total: u64,
    /// Requests refused for a per-UID quota (HTTP 429 / WS code 429).
    pub rate_limited: u64,
    /// Connections closed for sending over `max_msgs_per_s` (code 30007).
    pub msg_limit_closes: u64,
    /// `batch-place` trade ops received (per request; REST batches included).
    pub batch_place_ops: u64,
    /// `batch-modify` trade ops received.
    pub batch_modify_ops: u64,
    /// `batch-cancel` trade ops received.
    pub batch_cancel_ops: u64,
    /// Authenticated `POST /api/v3/account/move-positions` requests (refused ones included).
    pub move_positions_requests: u64,
    /// Authenticated `GET /api/v3/trade/order-info` requests (refused ones included).
    pub order_info_queries: u64,
}

/// The simulator entry point.
#[derive(Debug)]
pub struct Sim;

impl Sim {
    /// Binds the listener, generates the certificate (when TLS is on), seeds the books and
    /// starts serving. Must be called inside a Tokio runtime.
    pub async fn start(cfg: SimConfig) -> Result<SimHandle, SimError> {
        Sim::start_with_clock(cfg, Arc::new(SystemClock)).await
    }

    /// [`Sim::start`] with an injected clock: every timestamp the simulator emits, the id base
    /// (unless `id_base` is set) and the login / REST timestamp windows read `clock`. With a
    /// [`ManualClock`] and the same configuration (same `liquidity.seed`), the same scripted
    /// session gets byte-identical replies and pushes.
    pub async fn start_with_clock(
        cfg: SimConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<SimHandle, SimError> {
        let tls = cfg.tls;
        let counters = Arc::new(venue::Counters::default());
        let running = server::start(cfg, counters.clone(), clock).await?;
        Ok(SimHandle {
            running,
            tls,
            counters,
        })
    }
}

/// A running simulator. Keep it alive while clients use the simulator: dropping it without
/// [`SimHandle::shutdown`] stops the liquidity timer and closes the WebSocket connections (the
/// listener lives on until the runtime ends).
pub struct SimHandle {
    running: server::Running,
    tls: bool,
    counters: Arc<venue::Counters>,
}

impl std::fmt::Debug for SimHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimHandle")
            .field("addr", &self.running.addr)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

impl SimHandle {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.running.addr
    }

    fn host(&self) -> String {
        let a = self.running.addr;
        if a.ip().is_unspecified() {
            format!("127.0.0.1:{}", a.port())
        } else {
            a.to_string()
        }
    }

    /// `https://127.0.0.1:PORT` (`http://` when TLS is off).
    pub fn rest_url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.host())
    }

    /// `wss://127.0.0.1:PORT/v3/ws/private` (`ws://` when TLS is off).
    pub fn ws_private_url(&self) -> String {
        let scheme = if self.tls { "wss" } else { "ws" };
        format!("{scheme}://{}/v3/ws/private", self.host())
    }

    /// `wss://127.0.0.1:PORT/v3/ws/public` (`ws://` when TLS is off).
    pub fn ws_public_url(&self) -> String {
        let scheme = if self.tls { "wss" } else { "ws" };
        format!("{scheme}://{}/v3/ws/public", self.host())
    }

    /// The self-signed certificate (PEM) the client must trust; empty when TLS is off.
    pub fn ca_cert_pem(&self) -> String {
        self.running.ca_pem.clone()
    }

    /// The fault control of this simulator (see [`faults`]).
    pub fn faults(&self) -> FaultControl {
        FaultControl {
            state: self.running.state.clone(),
        }
    }

    /// The clock the simulator reads.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.running.state.clock.clone()
    }

    /// Sets the mark price of a symbol (`None`: back to the book mid); `false` for an unknown
    /// symbol. Positions, equity and margin checks use it from the next request on.
    pub fn set_mark(&self, category: Category, symbol: &str, mark: Option<codec::Decimal>) -> bool {
        self.running
            .state
            .shared
            .lock()
            .venue
            .set_mark(category, symbol, mark)
    }

    /// Counter snapshot.
    pub fn stats(&self) -> SimStats {
        self.stats_reader().read()
    }

    /// A reader of the counters that another thread can own (e.g. to watch them while this
    /// handle stays with its runtime).
    pub fn stats_reader(&self) -> StatsReader {
        StatsReader {
            counters: Arc::clone(&self.counters),
        }
    }

    /// Stops accepting, closes every WebSocket connection and the liquidity timer, and waits
    /// for the tasks (at most about a second).
    pub async fn shutdown(self) {
        let running = self.running;
        let _ = running.shutdown_tx.send(true);
        running
            .handle
            .graceful_shutdown(Some(Duration::from_millis(500)));
        for t in running.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(1), t).await;
        }
    }
}

/// A cloneable reader of a simulator's counters ([`SimHandle::stats_reader`]).
#[derive(Debug, Clone)]
pub struct StatsReader {
    counters: Arc<venue::Counters>,
}

impl StatsReader {
    /// Counter snapshot.
    pub fn read(&self) -> SimStats {
        let c = &self.counters;
        let g = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        SimStats {
            orders_received: g(&c.orders_received),
            repeated_client_oids: g(&c.repeated_client_oids),
            orders_placed: g(&c.orders_placed),
            rejects: g(&c.rejects),
            orders_cancelled: g(&c.orders_cancelled),
            orders_modified: g(&c.orders_modified),
            fills: g(&c.fills),
            ws_connections: g(&c.ws_connections),
            ws_connections_total: g(&c.ws_connections_total),
            rate_limited: g(&c.rate_limited),
            msg_limit_closes: g(&c.msg_limit_closes),
            batch_place_ops: g(&c.batch_place_ops),
            batch_modify_ops: g(&c.batch_modify_ops),
            batch_cancel_ops: g(&c.batch_cancel_ops),
            move_positions_requests: g(&c.move_positions_requests),
            order_info_queries: g(&c.order_info_queries),
        }
    }
}
