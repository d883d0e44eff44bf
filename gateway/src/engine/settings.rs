//! Everything the engine needs to run, resolved from the configuration file (see
//! [`crate::config`]) or built directly by an embedding program (the demo, the tests).

use std::net::SocketAddr;

use codec::sbe::Category;

use crate::budget::RateConfig;
use crate::exchange::ws::ExchangeCredentials;
use crate::idle::IdleStrategy;
use crate::session::fixp::SessionLimits;
use crate::tracker::TrackerThreadConfig;
pub use crate::types::{SessionGrant, SessionRole};

/// One exchange account (API key) the gateway trades on: a master account or a sub-account.
#[derive(Debug, Clone)]
pub struct AccountSettings {
    /// Name used in the configuration and the logs (e.g. `main`, `sub1`).
    pub name: String,
    /// API key, secret and passphrase of the account.
    pub credentials: ExchangeCredentials,
    /// Private WebSocket connections opened for the account (≥ 1): the first carries the
    /// subscriptions, every one carries trade ops (the pool the rate budget picks from).
    pub connections: usize,
    /// Categories the account may trade; empty: every category of
    /// [`ExchangeSettings::categories`]. Orders for others are rejected before sending.
    pub categories: Vec<Category>,
    /// Subscribe to the `position` and `account` channels and send PositionReport and
    /// AccountBalanceReport to every session of the account.
    pub position_updates: bool,
}

impl AccountSettings {
    /// An account named `name` with one connection, every category, no position/account
    /// updates.
    pub fn new(name: &str, credentials: ExchangeCredentials) -> Self {
        AccountSettings {
            name: name.to_owned(),
            credentials,
            connections: 1,
            categories: Vec::new(),
            position_updates: false,
        }
    }
}

/// A source of UTC wall-clock time in ms (the move rules read it; tests inject a manual one).
#[derive(Clone)]
pub struct UtcClock(pub std::sync::Arc<dyn Fn() -> u64 + Send + Sync>);

impl UtcClock {
    /// The system clock.
    pub fn system() -> UtcClock {
        UtcClock(std::sync::Arc::new(|| {
            crate::metrics::utc_now_ns() / 1_000_000
        }))
    }

    /// Now, UTC ms.
    pub fn now_ms(&self) -> u64 {
        (self.0)()
    }
}

impl Default for UtcClock {
    fn default() -> Self {
        UtcClock::system()
    }
}

impl std::fmt::Debug for UtcClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UtcClock")
    }
}

/// Position-move settings (MovePositions).
#[derive(Debug, Clone, Default)]
pub struct MoveSettings {
    /// Indexes into [`EngineSettings::accounts`] of the master accounts: only their keys may
    /// move positions (Bitget does not tell a master from a sub-account over the API).
    pub masters: Vec<usize>,
    /// UIDs of further accounts of the master-sub system that have no key in the gateway (the
    /// UIDs of the configured accounts are learnt from `GET /api/v3/account/settings`).
    pub extra_uids: Vec<u64>,
    /// Clock of the move rules (blackout, spacing, daily count).
    pub clock: UtcClock,
}

/// The exchange side.
#[derive(Debug, Clone)]
pub struct ExchangeSettings {
    /// Private WebSocket URL, e.g. `wss://ws.bitget.com/v3/ws/private`.
    pub ws_private_url: String,
    /// REST base URL, e.g. `https://api.bitget.com`.
    pub rest_url: String,
    /// An extra CA certificate (PEM) to trust, e.g. the simulator's self-signed one.
    pub extra_ca_pem: Option<String>,
    /// Text `ping` interval in ms (Bitget: at most 30 000).
    pub ping_interval_ms: u64,
    /// How long to wait for `pong` before declaring the link dead, in ms.
    pub pong_timeout_ms: u64,
    /// Deadline of each connect / login / subscribe / REST step, in ms.
    pub connect_timeout_ms: u64,
    /// No frame at all (`pong` included) for this long: the link is reconnected, in ms.
    pub silence_timeout_ms: u64,
    /// First reconnect delay, in ms (doubles per failed attempt up to `reconnect_max_ms`).
    pub reconnect_min_ms: u64,
    /// Longest reconnect delay, in ms.
    pub reconnect_max_ms: u64,
    /// Product lines whose instruments are loaded (orders for others are rejected).
    pub categories: Vec<Category>,
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Strategy listener address (loopback; port 0 picks a free port).
    pub strategy_listen: SocketAddr,
    /// Largest SOFH frame accepted from a strategy, in bytes (checked before reading the body).
    pub max_frame_len: usize,
    /// Keepalive limits for the session handshake.
    pub limits: SessionLimits,
    /// How many strategy connections are served at once (`[strategy] max_connections`,
    /// `max_unauthenticated`); over a limit the oldest unauthenticated connection is closed,
    /// or the new one when all are established ([`gateway_core::admission::admit`]).
    pub admission: gateway_core::admission::AdmissionLimits,
    /// Most unsent bytes a strategy connection may leave unread before it is cut off
    /// (`[strategy] max_backlog_bytes`).
    pub max_backlog: usize,
    /// When every session's epoch ends by schedule (`[strategy] rollover`).
    pub rollover: gateway_core::session::rollover::RolloverSchedule,
    /// Admitted sessions.
    pub sessions: Vec<SessionGrant>,
    /// Exchange accounts (at least one); sessions refer to them by index.
    pub accounts: Vec<AccountSettings>,
    /// Exchange connection.
    pub exchange: ExchangeSettings,
    /// CPU the io thread is pinned to (`None`: not pinned).
    pub io_core: Option<usize>,
    /// `Spin` busy-polls the io thread's event loop; anything else lets it sleep in epoll.
    pub io_idle: IdleStrategy,
    /// Tracker thread placement and idle strategy.
    pub tracker: TrackerThreadConfig,
    /// Print the periodic percentile table (every `tracker.report_interval_ms`).
    pub print_reports: bool,
    /// HdrHistogram interval log (V2) to write, if any.
    pub hlog_path: Option<std::path::PathBuf>,
    /// Metrics endpoint address (`[metrics] listen`: `/metrics`, `/healthz`, `/readyz`;
    /// port 0 picks a free port); `None`: off.
    pub metrics_listen: Option<SocketAddr>,
    /// Rate budget limits (`RateConfig::default()`: unlimited).
    pub rate: RateConfig,
    /// Pre-trade risk: account limits and mark refresh.
    pub risk: crate::risk::RiskSettings,
    /// Position-move settings.
    pub moves: MoveSettings,
    /// Record the tracker's inputs and outputs to this file (`[record] path`; `None`: off).
    /// See [`crate::replay`].
    pub record: Option<std::path::PathBuf>,
    /// Directory of the session journal files; `None` keeps journals in memory.
    pub journal_dir: Option<std::path::PathBuf>,
    /// How journal files are cut into segments and how many are kept (`[journal]
    /// segment_bytes`, `keep_segments`, `archive_dir`).
    pub journal_segments: crate::journal::segments::SegmentPolicy,
    /// The operator's control surface (`/control/` on the metrics listener): its token and
    /// the sessions' names. Default: disabled (every `/control/` route answers 403).
    pub control: ControlSettings,
}

/// The operator's control surface (`crate::control`), served on the metrics listener when
/// `metrics_listen` is set.
#[derive(Clone, Default)]
pub struct ControlSettings {
    /// The bearer token requests must carry (`None` or empty: the surface is disabled).
    /// [`EngineSettings::from_config`] reads it once from `BGW_CONTROL_TOKEN`; tests set it
    /// here (no process environment involved).
    pub token: Option<String>,
    /// Session names by SessionID (`[[session]] name`): `{session}` in the routes may be
    /// either, and the answers carry both.
    pub session_names: std::collections::HashMap<u64, String>,
}

impl std::fmt::Debug for ControlSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("ControlSettings")
            .field(
                "enabled",
                &self.token.as_deref().is_some_and(|t| !t.trim().is_empty()),
            )
            .field("session_names", &self.session_names)
            .finish()
    }
}

impl EngineSettings {
    /// Resolves a validated configuration file: reads the CA file, maps the categories.
    /// Errors: an unreadable CA file or an unknown category ([`crate::config::ConfigError`]).
    pub fn from_config(
        cfg: &crate::config::GatewayConfig,
    ) -> Result<EngineSettings, crate::config::ConfigError> {
        use crate::config::ConfigError;
        let ex = &cfg.exchange;
        let extra_ca_pem = match &ex.ca_cert_pem_path {
            Some(path) => {
                Some(
                    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                        path: path.clone(),
                        source,
                    })?,
                )
            }
            None => None,
        };
        let categories = sbe_categories(&ex.categories, "exchange.categories")?;
        if let Some(why) = cfg.tracker_capacity_warning() {
            tracing::warn!("{why}");
        }
        let mut accounts = Vec::new();
        for a in cfg.account_list() {
            accounts.push(AccountSettings {
                name: a.name.clone(),
                credentials: a.credentials(),
                connections: a.connections,
                categories: match &a.categories {
                    Some(c) => sbe_categories(c, "account.categories")?,
                    None => Vec::new(),
                },
                position_updates: a.position_updates,
            });
        }
        let mut sessions = Vec::with_capacity(cfg.sessions.len());
        for s in &cfg.sessions {
            sessions.push(SessionGrant {
                session_id: s.session_id,
                credentials: s.credentials.expose().to_owned(),
                account: cfg.account_index(s)?,
                role: s.role,
                risk: s.risk.clone().unwrap_or_else(|| cfg.risk.session.clone()),
                budget: s.budget_policy(),
                cancel_on_disconnect: s.cancel_on_disconnect,
            });
        }
        let masters = resolve_masters(&cfg.moves.master_accounts, &accounts)?;
        Ok(EngineSettings {
            strategy_listen: cfg.strategy.listen,
            max_frame_len: cfg.strategy.max_frame_len,
            limits: SessionLimits {
                keepalive_min_ms: cfg.strategy.keepalive_min_ms,
                keepalive_max_ms: cfg.strategy.keepalive_max_ms,
                handshake_timeout_ms: cfg.strategy.handshake_timeout_ms,
            },
            admission: gateway_core::admission::AdmissionLimits {
                max_connections: cfg.strategy.max_connections,
                max_unauthenticated: cfg.strategy.max_unauthenticated,
            },
            max_backlog: cfg.strategy.max_backlog_bytes,
            rollover: cfg.strategy.rollover,
            sessions,
            accounts,
            exchange: ExchangeSettings {
                ws_private_url: ex.ws_private_url.clone(),
                rest_url: ex.rest_url.clone(),
                extra_ca_pem,
                ping_interval_ms: ex.ping_interval_ms,
                pong_timeout_ms: ex.pong_timeout_ms,
                connect_timeout_ms: ex.request_timeout_ms,
                silence_timeout_ms: ex.silence_timeout_ms,
                reconnect_min_ms: ex.reconnect_min_ms,
                reconnect_max_ms: ex.reconnect_max_ms,
                categories,
            },
            io_core: cfg.io.core,
            io_idle: cfg.io.idle,
            tracker: TrackerThreadConfig {
                core: cfg.tracker.core,
                idle: cfg.tracker.idle,
                placement: cfg.tracker.placement,
                report_interval_ms: cfg.metrics.report_interval_ms,
                deadlines: crate::tracker::Deadlines {
                    reply_timeout_ms: cfg
                        .tracker
                        .reply_timeout_ms
                        .unwrap_or(crate::tracker::resolve::DEFAULT_REPLY_TIMEOUT_MS),
                    push_deadline_ms: cfg
                        .tracker
                        .push_deadline_ms
                        .unwrap_or(crate::tracker::resolve::DEFAULT_PUSH_DEADLINE_MS),
                },
                order_capacity: cfg
                    .tracker
                    .order_capacity
                    .unwrap_or(crate::tracker::core::INITIAL_ORDERS),
                retention: cfg.tracker.retention(),
            },
            print_reports: true,
            hlog_path: cfg.metrics.hlog_path.clone(),
            metrics_listen: cfg.metrics.listen_addr()?,
            rate: cfg.rate,
            risk: crate::risk::RiskSettings {
                accounts: cfg
                    .account_list()
                    .iter()
                    .map(|a| a.risk.clone().unwrap_or_else(|| cfg.risk.account.clone()))
                    .collect(),
                default_account: cfg.risk.account.clone(),
                mark_refresh_ms: cfg.risk.mark_refresh_ms,
            },
            moves: MoveSettings {
                masters,
                extra_uids: cfg.moves.extra_uids.clone(),
                clock: UtcClock::system(),
            },
            record: cfg.record.path.clone(),
            journal_dir: cfg.journal.dir.clone(),
            journal_segments: cfg.journal.segment_policy(),
            control: ControlSettings {
                token: std::env::var(crate::control::TOKEN_ENV).ok(),
                session_names: cfg
                    .sessions
                    .iter()
                    .filter(|s| !s.name.is_empty())
                    .map(|s| (s.session_id, s.name.clone()))
                    .collect(),
            },
        })
    }
}

/// Maps category names (any case) to SBE categories; `field` names the key in errors.
fn sbe_categories(
    names: &[String],
    field: &'static str,
) -> Result<Vec<Category>, crate::config::ConfigError> {
    let mut categories = Vec::with_capacity(names.len());
    for c in names {
        let category = codec::json::Category::parse(c.as_bytes()).ok_or_else(|| {
            crate::config::ConfigError::Invalid {
                field,
                reason: format!("unknown category {c:?}"),
            }
        })?;
        categories.push(category.into());
    }
    Ok(categories)
}

/// The account indexes of the `[moves] master_accounts` names.
fn resolve_masters(
    names: &[String],
    accounts: &[AccountSettings],
) -> Result<Vec<usize>, crate::config::ConfigError> {
    names
        .iter()
        .map(|n| {
            accounts.iter().position(|a| &a.name == n).ok_or_else(|| {
                crate::config::ConfigError::Invalid {
                    field: "moves.master_accounts",
                    reason: format!("unknown account {n:?}"),
                }
            })
        })
        .collect()
}
