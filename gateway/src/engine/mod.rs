//! The running gateway: the io thread (strategy sessions, order path, exchange WebSocket), the
//! tracker thread, and the metrics reporter.
//!
//! ```text
//!  strategy ─TCP─▶ io thread: frame → FIXP → order entry → JSON → WS write ─▶ exchange
//!                      │ Sent (after the write)            WS read │
//!                      ▼                                           ▼
//!                 tracker thread (pinned, polls) ◀── Frame ────────┘
//!                      │ ExecutionReport written straight to the strategy socket
//!                      ▼
//!                  strategy
//! ```
//!
//! The tracker's step runs where `[tracker] placement` says (`crate::tracker::port`): on the
//! io thread itself, called where each `Sent` and `Frame` is made (the default: no hand-off,
//! no wake-up), or on its own thread behind a queue, as drawn.

mod account;
mod conn;
mod conn_end;
mod control_surface;
mod ctx;
mod epochs;
mod error;
mod evicted;
mod exchange_link;
mod io;
mod marks;
mod open_conns;
mod ops;
mod reconcile;
mod reconnect;
mod reporter;
mod resolve;
mod sessions;
pub mod settings;
pub mod startup;
mod strategy_conn;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

pub use self::account::{BudgetPolicy, NotSent, TradeOp};
pub use self::io::rules_from_instrument;
pub use self::reconcile::RESTART_HISTORY_PAGES;
pub use self::reconnect::{ReconnectCounters, ReconnectStats};
pub use self::reporter::Reporter;
pub use self::settings::{
    AccountSettings, ControlSettings, EngineSettings, ExchangeSettings, MoveSettings, SessionGrant,
    SessionRole, UtcClock,
};
pub use self::startup::{QueryTiming, StartupPhases};
use crate::metrics::exposition::{self, LinkCounters};
use crate::metrics::http::MetricsServer;
use crate::metrics::state::MetricsState;
use crate::metrics::LegHistograms;
use crate::tracker::{self, TrackerHandle, TrackerSummary};

pub use error::GatewayError;

/// What the gateway measured and ended with.
#[derive(Debug)]
pub struct GatewayReport {
    /// Every latency sample of the run, per leg.
    pub legs: LegHistograms,
    /// The tracker's counters and final order states.
    pub tracker: Option<TrackerSummary>,
}

/// A running gateway.
#[derive(Debug)]
pub struct Gateway {
    strategy_addr: SocketAddr,
    exchange_up: Arc<AtomicBool>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    /// The io thread; it hands back the tracker's summary when it ran the tracker.
    io: Option<JoinHandle<Option<TrackerSummary>>>,
    tracker: Option<TrackerHandle>,
    reporter: Option<Reporter>,
    risk: Arc<crate::risk::RiskBook>,
    reconnects: Arc<ReconnectCounters>,
    metrics: Arc<MetricsState>,
    metrics_server: Option<MetricsServer>,
    admission: Arc<gateway_core::admission::AdmissionCounters>,
    startup: StartupPhases,
}

impl Gateway {
    /// Starts the threads, loads the instruments, connects and logs in to the exchange, and
    /// opens the strategy listener. Returns once strategies can connect.
    pub fn start(settings: EngineSettings) -> Result<Gateway, GatewayError> {
        let started = std::time::Instant::now();
        raise_nofile_limit();
        if !crate::memory::fix_allocator_thresholds() {
            tracing::debug!("allocator thresholds left as they are (not glibc)");
        }
        let metrics = Arc::new(MetricsState::new(
            settings.accounts.iter().map(|a| a.name.clone()).collect(),
            settings.sessions.len(),
        ));
        let admission = Arc::clone(&metrics.admission);
        let io_admission = Arc::clone(&admission);
        let reconnects = Arc::new(ReconnectCounters::new(settings.accounts.len()));
        // The control surface's commands reach the io thread on this channel (queued until
        // it serves them, once the exchange is up).
        let (control_tx, control_rx) = crate::control::channel();
        let directory = Arc::new(control_directory(&settings));
        // Up before the exchange is: /healthz and /readyz answer during start-up.
        let metrics_server = match settings.metrics_listen {
            Some(addr) => {
                let control = crate::control::routes::ControlState {
                    auth: crate::control::ControlAuth::new(settings.control.token.as_deref()),
                    directory: Arc::clone(&directory),
                    tx: control_tx,
                    metrics: Arc::clone(&metrics.control),
                };
                Some(start_metrics_server(addr, &metrics, &reconnects, control)?)
            }
            None => None,
        };
        let (metrics_tx, metrics_rx) = crate::metrics::snapshot_channel();
        let reporter = Reporter::spawn_publishing(
            metrics_rx,
            settings.tracker.report_interval_ms,
            settings.print_reports,
            settings.hlog_path.clone(),
            Some(Arc::clone(&metrics)),
        )?;
        let risk = Arc::new(crate::risk::RiskBook::new(
            &settings.sessions,
            settings.accounts.len(),
            &settings.risk,
        ));
        let (resolve_tx, resolve_rx) = tokio::sync::mpsc::unbounded_channel();
        let recorder = match &settings.record {
            Some(path) => Some(crate::replay::Recorder::create(path)?),
            None => None,
        };
        let record_tx = recorder.as_ref().and_then(crate::replay::Recorder::tx);
        let (tracker, tracker_setup) = tracker::start(
            settings.tracker,
            Some(metrics_tx.clone()),
            Some(Arc::clone(&risk)),
            recorder,
            Some(resolve_tx),
            Some(Arc::clone(&metrics)),
        )?;
        let gw_risk = Arc::clone(&risk);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel();
        let exchange_up = Arc::new(AtomicBool::new(false));
        let up = Arc::clone(&exchange_up);
        let io_reconnects = Arc::clone(&reconnects);
        let io_metrics = Arc::clone(&metrics);
        let io = std::thread::Builder::new()
            .name("bgw-io".into())
            .spawn(move || {
                io::run(
                    started,
                    settings,
                    tracker_setup,
                    metrics_tx,
                    ready_tx,
                    stop_rx,
                    up,
                    risk,
                    record_tx,
                    resolve_rx,
                    io_reconnects,
                    io_metrics,
                    io_admission,
                    (control_rx, directory),
                )
            })?;
        let mut gw = Gateway {
            strategy_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            exchange_up,
            stop: Some(stop_tx),
            io: Some(io),
            tracker,
            reporter: Some(reporter),
            risk: gw_risk,
            reconnects,
            metrics,
            metrics_server,
            admission,
            startup: StartupPhases::default(),
        };
        match ready_rx.recv() {
            Ok(Ok((addr, startup))) => {
                gw.strategy_addr = addr;
                gw.startup = startup;
                Ok(gw)
            }
            Ok(Err(e)) => {
                gw.stop_threads();
                Err(e)
            }
            Err(_) => {
                gw.stop_threads();
                Err(GatewayError::StartupAborted)
            }
        }
    }

    /// Strategy connections accepted and closed at once because `[strategy] max_connections`
    /// or `max_unauthenticated` were reached (since start).
    pub fn strategy_connections_refused(&self) -> u64 {
        self.admission.refused()
    }

    /// Failed accepts on the strategy listener (since start); each is followed by a pause of
    /// 1 ms doubling to 1 s, so a descriptor shortage costs about ten a second at most.
    pub fn accept_errors(&self) -> u64 {
        self.admission.accept_errors()
    }

    /// The pre-trade risk state (counters, positions, marks, kill-switch flags).
    pub fn risk_book(&self) -> &Arc<crate::risk::RiskBook> {
        &self.risk
    }

    /// Where this start-up's time went, from [`Gateway::start`] to the strategy listener
    /// (journal read, exchange login, crash recovery's reconciliation, ...).
    pub fn startup(&self) -> &StartupPhases {
        &self.startup
    }

    /// Where strategies connect.
    pub fn strategy_addr(&self) -> SocketAddr {
        self.strategy_addr
    }

    /// True while the first account's subscribed private WebSocket is logged in, usable and (after
    /// a reconnect) reconciled (health check). While it is false, that account's order requests
    /// are answered "not applied".
    pub fn exchange_connected(&self) -> bool {
        self.exchange_up.load(Ordering::Relaxed)
    }

    /// Exchange link failures by cause and completed reconnects, per account (by index).
    pub fn exchange_reconnects(&self) -> Vec<ReconnectStats> {
        self.reconnects.snapshot()
    }

    /// Trade ops written per exchange connection of each account, as the io thread last
    /// published them (every `PUBLISH_PERIOD`, 200 ms; `bgw_exchange_trade_ops_total`).
    pub fn exchange_trade_ops(&self) -> Vec<crate::metrics::state::ConnOps> {
        self.metrics.conn_ops()
    }

    /// Where the metrics endpoint listens (`None`: `[metrics] listen` is off).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_server.as_ref().map(MetricsServer::addr)
    }

    /// The Prometheus exposition the endpoint serves at `/metrics` (available with the
    /// endpoint off too; see [`crate::metrics::exposition`]).
    pub fn render_metrics(&self) -> String {
        render(&self.metrics, &self.reconnects)
    }

    /// `Ok(())` when `/readyz` answers 200, else its one-line reason (see
    /// [`gateway_core::health`]).
    pub fn readiness(&self) -> Result<(), String> {
        self.metrics.readiness()
    }

    fn stop_threads(&mut self) -> (Option<TrackerSummary>, LegHistograms) {
        self.metrics.set_accepting(false);
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let inline = self.io.take().and_then(|io| io.join().ok().flatten());
        let summary = self
            .tracker
            .take()
            .and_then(TrackerHandle::shutdown)
            .or(inline);
        let mut legs = self
            .reporter
            .take()
            .map(Reporter::finish)
            .unwrap_or_default();
        if let Some(s) = &summary {
            let _ = legs.merge(&s.legs);
        }
        if let Some(server) = self.metrics_server.take() {
            server.stop();
        }
        (summary, legs)
    }

    /// Stops every thread (strategies get Terminate) and returns what was measured.
    pub fn shutdown(mut self) -> GatewayReport {
        let (tracker, legs) = self.stop_threads();
        GatewayReport { legs, tracker }
    }
}

/// Raises the soft limit of open descriptors (`RLIMIT_NOFILE`) to the hard limit, so that the
/// strategy port's admission limits, not the default soft limit (often 1024), bound the
/// connections. Logs both numbers; a failure is logged and start-up goes on.
fn raise_nofile_limit() {
    use rlimit::Resource;
    match Resource::NOFILE.get() {
        Ok((soft, hard)) if soft < hard => match Resource::NOFILE.set(hard, hard) {
            Ok(()) => tracing::info!(
                soft_before = soft,
                soft = hard,
                hard,
                "open-descriptor limit: soft raised to the hard limit"
            ),
            Err(e) => tracing::warn!(
                soft,
                hard,
                error = %e,
                "open-descriptor limit: could not raise the soft limit"
            ),
        },
        Ok((soft, hard)) => {
            tracing::info!(
                soft,
                hard,
                "open-descriptor limit: soft already at the hard limit"
            )
        }
        Err(e) => tracing::warn!(error = %e, "open-descriptor limit: unknown"),
    }
}

/// The exposition of `state` with the reconnect counters.
fn render(state: &MetricsState, reconnects: &ReconnectCounters) -> String {
    let links: Vec<LinkCounters> = reconnects
        .snapshot()
        .into_iter()
        .map(|s| LinkCounters {
            reconnects: s.reconnects,
            failures: vec![
                ("closed", s.closed),
                ("pong_timeout", s.pong_timeout),
                ("write_failed", s.write_failed),
                ("upgrade_notice", s.upgrade_notice),
                ("silent", s.silent),
            ],
            failed_attempts: s.failed_attempts,
        })
        .collect();
    exposition::render(state, &links)
}

/// Starts the metrics endpoint on its own thread (see [`crate::metrics::http`]), with the
/// operator's control surface beside it (`crate::control`).
fn start_metrics_server(
    addr: SocketAddr,
    state: &Arc<MetricsState>,
    reconnects: &Arc<ReconnectCounters>,
    control: crate::control::routes::ControlState,
) -> Result<MetricsServer, GatewayError> {
    let (s, r) = (Arc::clone(state), Arc::clone(reconnects));
    let ready = Arc::clone(state);
    let enabled = control.auth.enabled();
    let server = MetricsServer::start_with(
        addr,
        Arc::new(move || render(&s, &r)),
        Arc::new(move || ready.readiness()),
        crate::control::routes::router(control),
    )
    .map_err(|e| std::io::Error::new(e.kind(), format!("metrics endpoint {addr}: {e}")))?;
    tracing::info!(addr = %server.addr(), control = enabled, "metrics endpoint: /metrics /healthz /readyz /control/");
    if enabled && !server.addr().ip().is_loopback() {
        tracing::warn!(
            addr = %server.addr(),
            "control surface enabled (BGW_CONTROL_TOKEN) on a non-loopback address: anyone who \
             reaches it with the token can pull the kill switch; prefer 127.0.0.1"
        );
    }
    Ok(server)
}

/// The sessions and accounts the control surface names (from the settings).
fn control_directory(settings: &EngineSettings) -> crate::control::Directory {
    crate::control::Directory {
        sessions: settings
            .sessions
            .iter()
            .map(|g| crate::control::api::SessionEntry {
                session_id: g.session_id,
                name: settings
                    .control
                    .session_names
                    .get(&g.session_id)
                    .cloned()
                    .unwrap_or_default(),
                account: g.account,
                role: match g.role {
                    SessionRole::Trading => "trading",
                    SessionRole::Operator => "operator",
                    SessionRole::DropCopy => "drop_copy",
                },
            })
            .collect(),
        accounts: settings.accounts.iter().map(|a| a.name.clone()).collect(),
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop_threads();
    }
}
