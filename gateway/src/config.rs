//! Gateway configuration: a TOML file (see `config/gateway.example.toml`) plus secrets from the
//! environment.
//!
//! Every field has a default except the exchange credentials; unknown keys are refused so that a
//! typo does not silently fall back to a default. [`GatewayConfig::load`] reads the file, lets the
//! environment variables [`ENV_API_KEY`], [`ENV_API_SECRET`] and [`ENV_API_PASSPHRASE`] override
//! the `[exchange]` credentials (used as the account `main` when no `[[account]]` is given) and
//! `BGW_<NAME>_API_KEY` / `_SECRET` / `_PASSPHRASE` those of each `[[account]]` (see
//! [`account_env_var`]), then validates everything.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use crate::exchange::keepalive::MAX_PING_INTERVAL;
use crate::exchange::rest::RestClient;
use crate::exchange::ws::ConnectOptions;
use crate::exchange::{ExchangeCredentials, ExchangeError, Keepalive, Secret};

/// Environment variable overriding `exchange.api_key`.
pub const ENV_API_KEY: &str = "BGW_API_KEY";
/// Environment variable overriding `exchange.secret`.
pub const ENV_API_SECRET: &str = "BGW_API_SECRET";
/// Environment variable overriding `exchange.passphrase`.
pub const ENV_API_PASSPHRASE: &str = "BGW_API_PASSPHRASE";

/// Largest `strategy.max_frame_len` accepted (bytes).
pub const MAX_FRAME_LEN_LIMIT: usize = 1 << 20;
/// Smallest `strategy.max_frame_len` accepted (bytes).
pub const MIN_FRAME_LEN_LIMIT: usize = 64;
/// Longest session credentials accepted (bytes): the SBE `Text` field is `char[64]`.
pub const MAX_CREDENTIALS_LEN: usize = 64;
/// REST category names Bitget UTA accepts (reference §7).
pub const KNOWN_CATEGORIES: [&str; 5] = [
    "SPOT",
    "MARGIN",
    "USDT-FUTURES",
    "COIN-FUTURES",
    "USDC-FUTURES",
];

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not match the schema (unknown key, wrong type).
    #[error("invalid TOML: {0}")]
    Parse(#[from] toml::de::Error),
    /// A field has a value outside its allowed range.
    #[error("invalid {field}: {reason}")]
    Invalid {
        /// Dotted field name, e.g. `exchange.ping_interval_ms`.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// An exchange credential is empty in the file and in the environment.
    #[error("missing {0} (set it in the file or in the environment)")]
    MissingCredential(&'static str),
    /// No `[[session]]` entry.
    #[error("no [[session]] configured")]
    NoSessions,
    /// Two `[[session]]` entries share a `session_id`.
    #[error("duplicate session_id {0}")]
    DuplicateSession(u64),
    /// A `[[session]]` names an account no `[[account]]` defines.
    #[error("session {session_id}: unknown account {account:?}")]
    UnknownAccount {
        /// The session.
        session_id: u64,
        /// The name given.
        account: String,
    },
    /// Two `[[account]]` entries share a name.
    #[error("duplicate account name {0:?}")]
    DuplicateAccount(String),
    /// An `[[account]]` lacks a credential in the file and in the environment.
    #[error("account {account:?}: missing {field} (set it in the file or in {env_var})")]
    MissingAccountCredential {
        /// The account name.
        account: String,
        /// `api_key`, `secret` or `passphrase`.
        field: &'static str,
        /// The environment variable that would provide it.
        env_var: String,
    },
}

/// Name of the environment variable overriding credential `field` (`API_KEY`, `SECRET` or
/// `PASSPHRASE`) of account `name`: `BGW_<NAME>_<FIELD>`, the name upper-cased with every
/// character other than ASCII letters and digits turned into `_` (`sub-1` → `BGW_SUB_1_SECRET`).
pub fn account_env_var(name: &str, field: &str) -> String {
    let upper: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("BGW_{upper}_{field}")
}

/// Largest `account.connections` accepted.
pub const MAX_CONNECTIONS_PER_ACCOUNT: usize = 20;

/// The whole configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayConfig {
    /// Strategy-side listener (`[strategy]`).
    #[serde(default)]
    pub strategy: StrategyConfig,
    /// Strategy sessions allowed to connect (`[[session]]`, at least one).
    #[serde(default, rename = "session")]
    pub sessions: Vec<SessionConfig>,
    /// Exchange link (`[exchange]`).
    #[serde(default)]
    pub exchange: ExchangeConfig,
    /// Exchange accounts (`[[account]]`). Empty: the `[exchange]` credentials form one account
    /// named `main` (see [`GatewayConfig::account_list`]).
    #[serde(default, rename = "account")]
    pub accounts: Vec<AccountConfig>,
    /// Order tracker thread (`[tracker]`).
    #[serde(default)]
    pub tracker: TrackerConfig,
    /// I/O thread (`[io]`).
    #[serde(default)]
    pub io: IoConfig,
    /// Latency reporting (`[metrics]`).
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// `[rate]`: rate budget (absent: Bitget's base limits).
    #[serde(default = "crate::budget::RateConfig::bitget")]
    pub rate: crate::budget::RateConfig,
    /// Pre-trade risk defaults (`[risk]`).
    #[serde(default)]
    pub risk: crate::risk::RiskConfig,
    /// Position moves (`[moves]`).
    #[serde(default)]
    pub moves: MovesConfig,
    /// Session recording (`[record]`).
    #[serde(default)]
    pub record: RecordConfig,
    /// Session journal (`[journal]`).
    #[serde(default)]
    pub journal: JournalConfig,
}

/// `[record]`: record the tracker's inputs and outputs for replay (see [`crate::replay`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// File to write (created or truncated at start). Absent: no recording.
    pub path: Option<std::path::PathBuf>,
}

/// `[journal]`: the session journal (recoverable flow, restarts; see `crate::journal`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JournalConfig {
    /// Directory of the per-session journal files (`session-<id>.journal`), created if
    /// missing. Default none: journals are kept in memory only (a restart starts afresh).
    pub dir: Option<PathBuf>,
}

/// `[moves]`: who may move positions (MovePositions).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MovesConfig {
    /// Names of the master accounts (e.g. `["main"]`): only their keys may move positions.
    /// Default none (every MovePositions is refused NotMasterAccount).
    pub master_accounts: Vec<String>,
    /// UIDs of further accounts of the master-sub system without a key in the gateway.
    pub extra_uids: Vec<u64>,
}

/// `[strategy]`: the SOFH/SBE listener strategies connect to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StrategyConfig {
    /// Address to listen on. Default `127.0.0.1:0` (loopback, ephemeral port).
    pub listen: SocketAddr,
    /// Largest accepted frame including the 6-byte SOFH header, bytes. Default 4096;
    /// allowed 64..=1 MiB. Longer frames terminate the session.
    pub max_frame_len: usize,
    /// Smallest keepalive interval a strategy may request in Establish, ms. Default 100.
    pub keepalive_min_ms: u32,
    /// Largest keepalive interval a strategy may request in Establish, ms. Default 60000.
    pub keepalive_max_ms: u32,
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_frame_len: 4096,
            keepalive_min_ms: 100,
            keepalive_max_ms: 60_000,
        }
    }
}

/// `[[session]]`: one strategy session the gateway accepts.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SessionConfig {
    /// FIXP SessionID the strategy presents in Negotiate (non-zero, unique). Required.
    pub session_id: u64,
    /// Credentials the strategy must present in Negotiate (≤ 64 bytes). Required; may be
    /// empty to accept any. Never printed.
    pub credentials: Secret,
    /// Human-readable name for logs. Default empty.
    #[serde(default)]
    pub name: String,
    /// What the session's requests do when the rate budget has no token. Default reject.
    #[serde(default)]
    pub on_budget_exhausted: OnBudgetExhausted,
    /// How long a queued request may wait for a token, in ms (with `queue`). Default 1000.
    #[serde(default = "default_queue_deadline_ms")]
    pub queue_deadline_ms: u64,
    /// Risk limits of this session (`[session.risk]`); default: `[risk.session]`.
    #[serde(default)]
    pub risk: Option<crate::risk::RiskLimits>,
    /// Name of the `[[account]]` the session trades on. Default: the first account.
    #[serde(default)]
    pub account: Option<String>,
    /// `trading` (default), `operator` or `drop_copy`.
    #[serde(default)]
    pub role: crate::types::SessionRole,
    /// Cancel the session's open orders when its connection ends without a Terminate from the
    /// strategy. Default true.
    #[serde(default = "default_true")]
    pub cancel_on_disconnect: bool,
}

fn default_true() -> bool {
    true
}

fn default_queue_deadline_ms() -> u64 {
    1_000
}

/// `on_budget_exhausted` of a `[[session]]`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnBudgetExhausted {
    /// Refuse at once with ThrottleLimitExceeded.
    #[default]
    Reject,
    /// Wait for a token up to `queue_deadline_ms`, then refuse.
    Queue,
}

impl SessionConfig {
    /// The session's [`crate::types::BudgetPolicy`].
    pub fn budget_policy(&self) -> crate::types::BudgetPolicy {
        match self.on_budget_exhausted {
            OnBudgetExhausted::Reject => crate::types::BudgetPolicy::Reject,
            OnBudgetExhausted::Queue => {
                crate::types::BudgetPolicy::Queue(Duration::from_millis(self.queue_deadline_ms))
            }
        }
    }
}

/// `[[account]]`: one exchange account (API key), a master or a sub-account.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// Name sessions refer to (`[[session]] account`); unique, non-empty. Required.
    pub name: String,
    /// API key. Env `BGW_<NAME>_API_KEY` overrides. Required.
    #[serde(default)]
    pub api_key: String,
    /// API secret. Env `BGW_<NAME>_SECRET` overrides (preferred). Required.
    #[serde(default)]
    pub secret: Secret,
    /// API passphrase. Env `BGW_<NAME>_PASSPHRASE` overrides (preferred). Required.
    #[serde(default)]
    pub passphrase: Secret,
    /// Private WebSocket connections of the account (the first carries the subscriptions).
    /// Default 1; allowed 1..=20.
    #[serde(default = "one")]
    pub connections: usize,
    /// Categories the account may trade (a subset of `exchange.categories`). Default: all
    /// of `exchange.categories`.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// Subscribe to the `position` and `account` channels and send PositionReport /
    /// AccountBalanceReport to the account's sessions. Default true.
    #[serde(default = "yes")]
    pub position_updates: bool,
    /// Risk limits of this account (`[account.risk]`); default: `[risk.account]`.
    #[serde(default)]
    pub risk: Option<crate::risk::RiskLimits>,
}

fn one() -> usize {
    1
}

fn yes() -> bool {
    true
}

impl AccountConfig {
    /// The credentials of the account.
    pub fn credentials(&self) -> ExchangeCredentials {
        ExchangeCredentials {
            api_key: self.api_key.clone(),
            secret: self.secret.clone(),
            passphrase: self.passphrase.clone(),
        }
    }
}

/// `[exchange]`: Bitget UTA v3 endpoints, credentials and timers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExchangeConfig {
    /// Private WebSocket URL. Default `wss://ws.bitget.com/v3/ws/private` (live);
    /// demo: `wss://wspap.bitget.com/v3/ws/private`.
    pub ws_private_url: String,
    /// REST base URL. Default `https://api.bitget.com`.
    pub rest_url: String,
    /// API key. Default empty; env `BGW_API_KEY` overrides. Required.
    pub api_key: String,
    /// API secret key. Default empty; env `BGW_API_SECRET` overrides (preferred). Required.
    pub secret: Secret,
    /// API passphrase. Default empty; env `BGW_API_PASSPHRASE` overrides (preferred). Required.
    pub passphrase: Secret,
    /// Extra CA certificate(s) to trust, PEM file (e.g. the simulator's self-signed
    /// certificate). Default none (webpki roots only).
    pub ca_cert_pem_path: Option<PathBuf>,
    /// Interval between text `ping` frames, ms. Default 20000; allowed 1..=30000.
    pub ping_interval_ms: u64,
    /// Time allowed for the `pong` answer before the link is declared dead, ms. Default 10000.
    pub pong_timeout_ms: u64,
    /// Deadline for a trade-op reply, a login/subscribe step or a REST call, ms. Default 5000.
    /// A trade op unanswered by then has an unknown outcome (query by clientOid).
    pub request_timeout_ms: u64,
    /// A private WebSocket that delivers no frame at all (`pong` included) for this long is
    /// reconnected, ms. Default 45000; must exceed `ping_interval_ms`.
    pub silence_timeout_ms: u64,
    /// First reconnect delay, ms (doubles per failed attempt, jittered to half..full).
    /// Default 200; ≥ 1.
    pub reconnect_min_ms: u64,
    /// Longest reconnect delay, ms. Default 10000; ≥ `reconnect_min_ms`.
    pub reconnect_max_ms: u64,
    /// REST categories whose instruments are loaded at start (upper case as in reference §7;
    /// lower case accepted). Default `["USDT-FUTURES"]`.
    pub categories: Vec<String>,
    /// Bitget demo trading: adds header `paptrading: 1` to REST calls. Default false.
    pub demo_trading: bool,
    /// `locale` header of REST calls. Default `en-US`.
    pub locale: String,
}

impl Default for ExchangeConfig {
    fn default() -> Self {
        ExchangeConfig {
            ws_private_url: "wss://ws.bitget.com/v3/ws/private".to_owned(),
            rest_url: "https://api.bitget.com".to_owned(),
            api_key: String::new(),
            secret: Secret::default(),
            passphrase: Secret::default(),
            ca_cert_pem_path: None,
            ping_interval_ms: 20_000,
            pong_timeout_ms: 10_000,
            request_timeout_ms: 5_000,
            silence_timeout_ms: 45_000,
            reconnect_min_ms: 200,
            reconnect_max_ms: 10_000,
            categories: vec!["USDT-FUTURES".to_owned()],
            demo_trading: false,
            locale: "en-US".to_owned(),
        }
    }
}

impl ExchangeConfig {
    /// The credentials for the WebSocket login and signed REST calls.
    pub fn credentials(&self) -> ExchangeCredentials {
        ExchangeCredentials {
            api_key: self.api_key.clone(),
            secret: self.secret.clone(),
            passphrase: self.passphrase.clone(),
        }
    }

    /// The rustls client configuration: webpki roots plus `ca_cert_pem_path` when set.
    ///
    /// Errors: [`ExchangeError::Tls`] if the PEM file cannot be read or holds no certificate.
    pub fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>, ExchangeError> {
        crate::exchange::tls::client_config_with_ca_file(self.ca_cert_pem_path.as_deref())
    }

    /// Options for [`crate::exchange::ws::connect_private_with`]: `request_timeout_ms` per step,
    /// topics `order` and `fill`.
    pub fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            step_timeout: self.request_timeout(),
            ..ConnectOptions::default()
        }
    }

    /// A REST client for `rest_url` with these credentials, `request_timeout_ms`, `locale` and
    /// `demo_trading`.
    pub fn rest_client(
        &self,
        tls: &Arc<rustls::ClientConfig>,
    ) -> Result<RestClient, ExchangeError> {
        Ok(RestClient::new(
            &self.rest_url,
            tls,
            self.request_timeout(),
            Some(self.credentials()),
        )?
        .with_locale(&self.locale)
        .with_demo_trading(self.demo_trading))
    }

    /// A keepalive state machine with `ping_interval_ms` and `pong_timeout_ms`, started at `now`.
    pub fn keepalive(&self, now: std::time::Instant) -> Keepalive {
        Keepalive::new(self.ping_interval(), self.pong_timeout(), now)
    }

    /// `ping_interval_ms` as a `Duration`.
    pub fn ping_interval(&self) -> Duration {
        Duration::from_millis(self.ping_interval_ms)
    }

    /// `pong_timeout_ms` as a `Duration`.
    pub fn pong_timeout(&self) -> Duration {
        Duration::from_millis(self.pong_timeout_ms)
    }

    /// `request_timeout_ms` as a `Duration`.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
}

pub use crate::idle::IdleStrategy;

/// `[tracker]`: the thread that owns order state.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrackerConfig {
    /// CPU index to pin the thread to. Default none (not pinned).
    pub core: Option<usize>,
    /// Idle strategy: `"spin"`, `"spin_yield"` or `"park"`. Default `"park"`.
    pub idle: IdleStrategy,
    /// A trade op without reply after this many ms has an unknown outcome (the order is
    /// queried by clientOid, never resent). Default 5000.
    pub reply_timeout_ms: Option<u64>,
    /// Watchdog: a trade reply without the order's push, or the reverse, after this many ms
    /// is flagged and the order queried. Default 3000.
    pub push_deadline_ms: Option<u64>,
}

/// `[io]`: the network I/O thread (strategy sockets and the exchange WebSocket).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IoConfig {
    /// CPU index to pin the thread to. Default none (not pinned).
    pub core: Option<usize>,
    /// `"spin"` busy-polls the io thread's event loop (lowest latency, burns a core); any
    /// other value lets it sleep in epoll. Default `"park"`.
    pub idle: IdleStrategy,
}

/// `[metrics]`: latency reports.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Interval between percentile log lines and interval-log entries, ms. Default 10000;
    /// must be ≥ 1.
    pub report_interval_ms: u64,
    /// HdrHistogram interval log (V2) to write. Default none (no file).
    pub hlog_path: Option<PathBuf>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            report_interval_ms: 10_000,
            hlog_path: None,
        }
    }
}

impl MetricsConfig {
    /// `report_interval_ms` as a `Duration`.
    pub fn report_interval(&self) -> Duration {
        Duration::from_millis(self.report_interval_ms)
    }
}

fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field,
        reason: reason.into(),
    }
}

impl GatewayConfig {
    /// Reads `path`, applies the credential environment variables, validates.
    pub fn load(path: &Path) -> Result<GatewayConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        GatewayConfig::from_toml_str_with_env(&text, |k| std::env::var(k).ok())
    }

    /// Parses and validates TOML text, without looking at the environment.
    pub fn from_toml_str(text: &str) -> Result<GatewayConfig, ConfigError> {
        GatewayConfig::from_toml_str_with_env(text, |_| None)
    }

    /// Parses TOML text, overrides credentials from `env` (non-empty values of
    /// [`ENV_API_KEY`], [`ENV_API_SECRET`], [`ENV_API_PASSPHRASE`]), validates.
    pub fn from_toml_str_with_env(
        text: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<GatewayConfig, ConfigError> {
        let mut cfg: GatewayConfig = toml::from_str(text)?;
        cfg.apply_env(env);
        cfg.validate()?;
        Ok(cfg)
    }

    /// Overrides credentials from non-empty environment values (see
    /// [`from_toml_str_with_env`](Self::from_toml_str_with_env)).
    pub fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) {
        let get = |k: &str| env(k).filter(|v| !v.is_empty());
        for acc in &mut self.accounts {
            if let Some(v) = get(&account_env_var(&acc.name, "API_KEY")) {
                acc.api_key = v;
            }
            if let Some(v) = get(&account_env_var(&acc.name, "SECRET")) {
                acc.secret = Secret::new(v);
            }
            if let Some(v) = get(&account_env_var(&acc.name, "PASSPHRASE")) {
                acc.passphrase = Secret::new(v);
            }
        }
        if !self.accounts.is_empty() {
            return;
        }
        if let Some(v) = get(ENV_API_KEY) {
            self.exchange.api_key = v;
        }
        if let Some(v) = get(ENV_API_SECRET) {
            self.exchange.secret = Secret::new(v);
        }
        if let Some(v) = get(ENV_API_PASSPHRASE) {
            self.exchange.passphrase = Secret::new(v);
        }
    }

    /// Checks every rule documented on the fields; normalises `exchange.categories` to upper
    /// case.
    pub fn validate(&mut self) -> Result<(), ConfigError> {
        let s = &self.strategy;
        if !(MIN_FRAME_LEN_LIMIT..=MAX_FRAME_LEN_LIMIT).contains(&s.max_frame_len) {
            return Err(invalid(
                "strategy.max_frame_len",
                format!(
                    "{} not in {MIN_FRAME_LEN_LIMIT}..={MAX_FRAME_LEN_LIMIT}",
                    s.max_frame_len
                ),
            ));
        }
        if s.keepalive_min_ms == 0 {
            return Err(invalid("strategy.keepalive_min_ms", "must be ≥ 1"));
        }
        if s.keepalive_min_ms > s.keepalive_max_ms {
            return Err(invalid(
                "strategy.keepalive_max_ms",
                format!(
                    "{} < keepalive_min_ms {}",
                    s.keepalive_max_ms, s.keepalive_min_ms
                ),
            ));
        }

        if self.sessions.is_empty() {
            return Err(ConfigError::NoSessions);
        }
        let mut ids: Vec<u64> = Vec::with_capacity(self.sessions.len());
        for sess in &self.sessions {
            if sess.session_id == 0 {
                return Err(invalid("session.session_id", "must be non-zero"));
            }
            if ids.contains(&sess.session_id) {
                return Err(ConfigError::DuplicateSession(sess.session_id));
            }
            ids.push(sess.session_id);
            if sess.credentials.expose().len() > MAX_CREDENTIALS_LEN {
                return Err(invalid(
                    "session.credentials",
                    format!(
                        "session {}: longer than {MAX_CREDENTIALS_LEN} bytes",
                        sess.session_id
                    ),
                ));
            }
        }

        let x = &mut self.exchange;
        if !(x.ws_private_url.starts_with("wss://") || x.ws_private_url.starts_with("ws://")) {
            return Err(invalid(
                "exchange.ws_private_url",
                format!("{:?} is not a ws:// or wss:// URL", x.ws_private_url),
            ));
        }
        if !(x.rest_url.starts_with("https://") || x.rest_url.starts_with("http://")) {
            return Err(invalid(
                "exchange.rest_url",
                format!("{:?} is not an http:// or https:// URL", x.rest_url),
            ));
        }
        let max_ping = u64::try_from(MAX_PING_INTERVAL.as_millis()).unwrap_or(u64::MAX);
        if !(1..=max_ping).contains(&x.ping_interval_ms) {
            return Err(invalid(
                "exchange.ping_interval_ms",
                format!("{} not in 1..={max_ping}", x.ping_interval_ms),
            ));
        }
        if x.pong_timeout_ms == 0 {
            return Err(invalid("exchange.pong_timeout_ms", "must be ≥ 1"));
        }
        if x.request_timeout_ms == 0 {
            return Err(invalid("exchange.request_timeout_ms", "must be ≥ 1"));
        }
        if x.silence_timeout_ms <= x.ping_interval_ms {
            return Err(invalid(
                "exchange.silence_timeout_ms",
                format!(
                    "{} must exceed ping_interval_ms ({})",
                    x.silence_timeout_ms, x.ping_interval_ms
                ),
            ));
        }
        if x.reconnect_min_ms == 0 {
            return Err(invalid("exchange.reconnect_min_ms", "must be ≥ 1"));
        }
        if x.reconnect_max_ms < x.reconnect_min_ms {
            return Err(invalid(
                "exchange.reconnect_max_ms",
                format!("{} below reconnect_min_ms", x.reconnect_max_ms),
            ));
        }
        if x.categories.is_empty() {
            return Err(invalid("exchange.categories", "empty"));
        }
        for c in &mut x.categories {
            let upper = c.to_ascii_uppercase();
            if !KNOWN_CATEGORIES.contains(&upper.as_str()) {
                return Err(invalid(
                    "exchange.categories",
                    format!("unknown category {c:?} (known: {KNOWN_CATEGORIES:?})"),
                ));
            }
            *c = upper;
        }
        if self.accounts.is_empty() {
            if x.api_key.is_empty() {
                return Err(ConfigError::MissingCredential("exchange.api_key"));
            }
            if x.secret.is_empty() {
                return Err(ConfigError::MissingCredential("exchange.secret"));
            }
            if x.passphrase.is_empty() {
                return Err(ConfigError::MissingCredential("exchange.passphrase"));
            }
        } else if !x.api_key.is_empty() || !x.secret.is_empty() || !x.passphrase.is_empty() {
            return Err(invalid(
                "exchange.api_key",
                "credentials go in [[account]] when accounts are configured",
            ));
        }
        self.validate_accounts()?;

        if self.metrics.report_interval_ms == 0 {
            return Err(invalid("metrics.report_interval_ms", "must be ≥ 1"));
        }
        Ok(())
    }
}

impl GatewayConfig {
    /// The accounts: the `[[account]]` entries, or one account `main` with the `[exchange]`
    /// credentials when there are none.
    pub fn account_list(&self) -> Vec<AccountConfig> {
        if !self.accounts.is_empty() {
            return self.accounts.clone();
        }
        let x = &self.exchange;
        vec![AccountConfig {
            name: "main".to_owned(),
            api_key: x.api_key.clone(),
            secret: x.secret.clone(),
            passphrase: x.passphrase.clone(),
            connections: 1,
            categories: None,
            position_updates: true,
            risk: None,
        }]
    }

    /// Index in [`account_list`](Self::account_list) of the account session `s` names (the
    /// first one when it names none).
    pub fn account_index(&self, s: &SessionConfig) -> Result<usize, ConfigError> {
        let Some(name) = &s.account else {
            return Ok(0);
        };
        self.account_list()
            .iter()
            .position(|a| &a.name == name)
            .ok_or_else(|| ConfigError::UnknownAccount {
                session_id: s.session_id,
                account: name.clone(),
            })
    }

    /// The `[[account]]` rules (names, credentials, connections, categories) and every
    /// session's account; normalises account categories to upper case.
    fn validate_accounts(&mut self) -> Result<(), ConfigError> {
        let loaded = self.exchange.categories.clone();
        let mut names: Vec<&str> = Vec::with_capacity(self.accounts.len());
        for acc in &self.accounts {
            if names.contains(&acc.name.as_str()) {
                return Err(ConfigError::DuplicateAccount(acc.name.clone()));
            }
            names.push(&acc.name);
        }
        for acc in &mut self.accounts {
            if acc.name.is_empty()
                || !acc
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(invalid(
                    "account.name",
                    format!("{:?}: use ASCII letters, digits, '_' or '-'", acc.name),
                ));
            }
            if !(1..=MAX_CONNECTIONS_PER_ACCOUNT).contains(&acc.connections) {
                return Err(invalid(
                    "account.connections",
                    format!(
                        "account {}: {} not in 1..={MAX_CONNECTIONS_PER_ACCOUNT}",
                        acc.name, acc.connections
                    ),
                ));
            }
            for (field, empty, env) in [
                ("api_key", acc.api_key.is_empty(), "API_KEY"),
                ("secret", acc.secret.is_empty(), "SECRET"),
                ("passphrase", acc.passphrase.is_empty(), "PASSPHRASE"),
            ] {
                if empty {
                    return Err(ConfigError::MissingAccountCredential {
                        account: acc.name.clone(),
                        field,
                        env_var: account_env_var(&acc.name, env),
                    });
                }
            }
            if let Some(cats) = &mut acc.categories {
                if cats.is_empty() {
                    return Err(invalid(
                        "account.categories",
                        format!("account {}: empty (omit the key for all)", acc.name),
                    ));
                }
                for c in cats.iter_mut() {
                    let upper = c.to_ascii_uppercase();
                    if !loaded.contains(&upper) {
                        return Err(invalid(
                            "account.categories",
                            format!(
                                "account {}: {c:?} is not in exchange.categories {loaded:?}",
                                acc.name
                            ),
                        ));
                    }
                    *c = upper;
                }
            }
        }
        for s in &self.sessions {
            self.account_index(s)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[[session]]
session_id = 1
credentials = "tok"

[exchange]
api_key = "k"
secret = "s"
passphrase = "p"
"#;

    fn example_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../config/gateway.example.toml")
    }

    fn example_env(k: &str) -> Option<String> {
        match k {
            ENV_API_KEY => Some("env-key".into()),
            ENV_API_SECRET => Some("env-secret".into()),
            ENV_API_PASSPHRASE => Some("env-pass".into()),
            _ => None,
        }
    }

    #[test]
    fn risk_limits_parse_per_session_and_default() {
        let text = format!(
            "{MINIMAL}\n[risk]\nmark_refresh_ms = 250\n[risk.account]\nmax_open_orders = 3\n\
             max_order_notional = \"1000.5\"\n[risk.session]\nmax_order_qty = 2\n"
        );
        let cfg = GatewayConfig::from_toml_str(&text).expect("valid");
        assert_eq!(cfg.risk.mark_refresh_ms, 250);
        assert_eq!(cfg.risk.account.max_open_orders, Some(3));
        assert_eq!(
            cfg.risk.account.max_order_notional,
            Some("1000.5".parse().unwrap())
        );
        assert_eq!(
            cfg.risk.session.max_order_qty,
            Some(codec::Decimal::from(2))
        );
        let own = MINIMAL.replace(
            "credentials = \"tok\"",
            "credentials = \"tok\"\n[session.risk]\nmax_deviation = \"0.01\"",
        );
        let cfg = GatewayConfig::from_toml_str(&own).expect("valid");
        let risk = cfg.sessions[0].risk.clone().expect("session risk");
        assert_eq!(risk.max_deviation, Some("0.01".parse().unwrap()));
        let bad = format!("{MINIMAL}\n[risk.account]\nmax_order_qty = \"x\"\n");
        assert!(GatewayConfig::from_toml_str(&bad).is_err());
    }

    #[test]
    fn example_file_parses() {
        let text = std::fs::read_to_string(example_path()).expect("example file");
        let cfg = GatewayConfig::from_toml_str_with_env(&text, example_env).expect("valid");
        assert_eq!(cfg.strategy.max_frame_len, 4096);
        assert_eq!(cfg.exchange.ping_interval_ms, 20_000);
        assert_eq!(cfg.exchange.secret.expose(), "env-secret");
        assert_eq!(cfg.exchange.passphrase.expose(), "env-pass");
        assert!(!cfg.sessions.is_empty());
        assert!(cfg.metrics.hlog_path.is_some());
        assert_eq!(cfg.rate, crate::budget::RateConfig::bitget());
        assert_eq!(
            cfg.sessions[0].budget_policy(),
            crate::types::BudgetPolicy::Reject
        );
        // Without the environment the example lacks credentials.
        assert!(matches!(
            GatewayConfig::from_toml_str(&text),
            Err(ConfigError::MissingCredential(_))
        ));
    }

    #[test]
    fn example_file_documents_every_field() {
        let text = std::fs::read_to_string(example_path()).expect("example file");
        for key in [
            "listen",
            "max_frame_len",
            "keepalive_min_ms",
            "keepalive_max_ms",
            "session_id",
            "credentials",
            "name",
            "ws_private_url",
            "rest_url",
            "api_key",
            "secret",
            "passphrase",
            "ca_cert_pem_path",
            "ping_interval_ms",
            "pong_timeout_ms",
            "request_timeout_ms",
            "silence_timeout_ms",
            "reconnect_min_ms",
            "reconnect_max_ms",
            "categories",
            "demo_trading",
            "locale",
            "core",
            "idle",
            "report_interval_ms",
            "hlog_path",
            "account",
            "role",
            "connections",
            "position_updates",
            "BGW_<NAME>_SECRET",
            "master_accounts",
            "extra_uids",
            "[journal]",
        ] {
            assert!(text.contains(key), "example lacks {key}");
        }
    }

    #[test]
    fn defaults() {
        let cfg = GatewayConfig::from_toml_str(MINIMAL).expect("valid");
        assert_eq!(cfg.strategy.listen, SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(cfg.strategy.max_frame_len, 4096);
        assert_eq!(
            cfg.exchange.ws_private_url,
            "wss://ws.bitget.com/v3/ws/private"
        );
        assert_eq!(cfg.exchange.ping_interval(), Duration::from_secs(20));
        assert_eq!(cfg.exchange.categories, vec!["USDT-FUTURES".to_owned()]);
        assert_eq!(cfg.tracker.idle, IdleStrategy::Park);
        assert_eq!(cfg.tracker.core, None);
        assert_eq!(cfg.metrics.report_interval_ms, 10_000);
        assert_eq!(cfg.sessions[0].name, "");
        assert!(!format!("{cfg:?}").contains("\"s\""));
    }

    #[test]
    fn session_budget_policy_and_rate_section() {
        let text = MINIMAL.replace(
            "credentials = \"tok\"\n",
            "credentials = \"tok\"\non_budget_exhausted = \"queue\"\nqueue_deadline_ms = 250\n",
        ) + "[rate]\ntier = \"unlimited\"\n";
        let cfg = GatewayConfig::from_toml_str(&text).expect("valid");
        assert_eq!(
            cfg.sessions[0].budget_policy(),
            crate::types::BudgetPolicy::Queue(Duration::from_millis(250))
        );
        assert_eq!(cfg.rate.tier, crate::budget::Tier::Unlimited);
        let settings = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
        assert_eq!(settings.rate.limits().connection, 0);
        assert!(GatewayConfig::from_toml_str(&MINIMAL.replace(
            "credentials = \"tok\"\n",
            "credentials = \"tok\"\non_budget_exhausted = \"wait\"\n"
        ))
        .is_err());
    }

    #[test]
    fn exchange_helpers() {
        let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
            "[exchange]\n",
            "[exchange]\nrequest_timeout_ms = 1234\nrest_url = \"https://example.test/\"\n",
        ))
        .expect("valid");
        let x = &cfg.exchange;
        assert_eq!(
            x.connect_options().step_timeout,
            Duration::from_millis(1234)
        );
        assert_eq!(x.connect_options().topics, vec!["order", "fill"]);
        let tls = x.tls_config().expect("tls");
        assert_eq!(
            x.rest_client(&tls).expect("rest").base_url(),
            "https://example.test"
        );
        assert_eq!(
            x.keepalive(std::time::Instant::now()).interval(),
            Duration::from_secs(20)
        );
        assert_eq!(x.credentials().secret.expose(), "s");
        let mut bad = x.clone();
        bad.ca_cert_pem_path = Some(PathBuf::from("/nonexistent/ca.pem"));
        assert!(matches!(bad.tls_config(), Err(ExchangeError::Tls(_))));
    }

    #[test]
    fn env_overrides_file() {
        let cfg = GatewayConfig::from_toml_str_with_env(MINIMAL, example_env).expect("valid");
        assert_eq!(cfg.exchange.api_key, "env-key");
        assert_eq!(cfg.exchange.secret.expose(), "env-secret");
        let cfg =
            GatewayConfig::from_toml_str_with_env(MINIMAL, |_| Some(String::new())).expect("valid");
        assert_eq!(cfg.exchange.secret.expose(), "s");
    }

    fn with(extra: &str) -> Result<GatewayConfig, ConfigError> {
        GatewayConfig::from_toml_str(&format!("{MINIMAL}\n{extra}"))
    }

    const TWO_ACCOUNTS: &str = r#"
[[session]]
session_id = 1
credentials = "a"

[[session]]
session_id = 2
credentials = "b"
account = "sub-1"
role = "drop_copy"

[exchange]
categories = ["USDT-FUTURES", "SPOT"]

[[account]]
name = "master"
api_key = "mk"
secret = "ms"
passphrase = "mp"
connections = 2

[[account]]
name = "sub-1"
api_key = "sk"
categories = ["spot"]
position_updates = false
"#;

    fn sub_env(k: &str) -> Option<String> {
        match k {
            "BGW_SUB_1_SECRET" => Some("env-sub-secret".into()),
            "BGW_SUB_1_PASSPHRASE" => Some("env-sub-pass".into()),
            "BGW_MASTER_API_KEY" => Some("env-master-key".into()),
            ENV_API_SECRET => Some("legacy-ignored".into()),
            _ => None,
        }
    }

    #[test]
    fn accounts_with_env_overrides_and_roles() {
        let cfg = GatewayConfig::from_toml_str_with_env(TWO_ACCOUNTS, sub_env).expect("valid");
        assert_eq!(account_env_var("sub-1", "SECRET"), "BGW_SUB_1_SECRET");
        let accounts = cfg.account_list();
        assert_eq!(accounts.len(), 2);
        assert_eq!(accounts[0].api_key, "env-master-key");
        assert_eq!(accounts[0].secret.expose(), "ms");
        assert_eq!(accounts[0].connections, 2);
        assert!(accounts[0].position_updates);
        assert_eq!(accounts[0].categories, None);
        assert_eq!(accounts[1].secret.expose(), "env-sub-secret");
        assert_eq!(accounts[1].passphrase.expose(), "env-sub-pass");
        assert_eq!(accounts[1].categories, Some(vec!["SPOT".to_owned()]));
        assert!(!accounts[1].position_updates);
        assert!(cfg.exchange.secret.is_empty(), "legacy variables unused");
        assert_eq!(cfg.account_index(&cfg.sessions[0]).expect("default"), 0);
        assert_eq!(cfg.account_index(&cfg.sessions[1]).expect("named"), 1);
        assert_eq!(cfg.sessions[0].role, crate::types::SessionRole::Trading);
        assert_eq!(cfg.sessions[1].role, crate::types::SessionRole::DropCopy);

        let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
        assert_eq!(s.accounts.len(), 2);
        assert_eq!(s.accounts[1].name, "sub-1");
        assert_eq!(s.accounts[1].credentials.api_key, "sk");
        assert_eq!(s.accounts[1].categories, vec![codec::sbe::Category::Spot]);
        assert!(s.accounts[0].categories.is_empty());
        assert_eq!(s.sessions[1].account, 1);
        assert_eq!(s.sessions[1].role, crate::types::SessionRole::DropCopy);
        assert_eq!(s.sessions[0].account, 0);
    }

    #[test]
    fn exchange_credentials_are_the_main_account() {
        let cfg = with("").expect("valid");
        let accounts = cfg.account_list();
        assert_eq!(accounts.len(), 1);
        assert_eq!(accounts[0].name, "main");
        assert_eq!(accounts[0].api_key, "k");
        assert_eq!(accounts[0].connections, 1);
        let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
            "credentials = \"tok\"\n",
            "credentials = \"tok\"\naccount = \"main\"\nrole = \"operator\"\n",
        ))
        .expect("valid");
        assert_eq!(cfg.sessions[0].role, crate::types::SessionRole::Operator);
        let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
        assert_eq!(s.accounts[0].name, "main");
        assert_eq!(s.accounts[0].credentials.secret.expose(), "s");
        assert!(s.accounts[0].position_updates);
        assert_eq!(s.sessions[0].role, crate::types::SessionRole::Operator);
    }

    #[test]
    fn account_refusals() {
        let ok = |t: &str| GatewayConfig::from_toml_str_with_env(t, sub_env);
        let bad = |from: &str, to: &str| {
            ok(&TWO_ACCOUNTS.replacen(from, to, 1)).expect_err("must refuse")
        };
        assert!(matches!(
            bad("account = \"sub-1\"", "account = \"nope\""),
            ConfigError::UnknownAccount { session_id: 2, ref account } if account == "nope"
        ));
        assert!(matches!(
            bad("name = \"sub-1\"", "name = \"master\""),
            ConfigError::DuplicateAccount(ref n) if n == "master"
        ));
        assert!(matches!(
            bad("name = \"sub-1\"", "name = \"\""),
            ConfigError::Invalid {
                field: "account.name",
                ..
            }
        ));
        assert!(matches!(
            bad("name = \"sub-1\"", "name = \"sub 1\""),
            ConfigError::Invalid {
                field: "account.name",
                ..
            }
        ));
        assert!(matches!(
            bad("connections = 2", "connections = 0"),
            ConfigError::Invalid {
                field: "account.connections",
                ..
            }
        ));
        assert!(matches!(
            bad("categories = [\"spot\"]", "categories = [\"COIN-FUTURES\"]"),
            ConfigError::Invalid {
                field: "account.categories",
                ..
            }
        ));
        assert!(matches!(
            bad("categories = [\"spot\"]", "categories = []"),
            ConfigError::Invalid {
                field: "account.categories",
                ..
            }
        ));
        assert!(matches!(
            bad("role = \"drop_copy\"", "role = \"admin\""),
            ConfigError::Parse(_)
        ));
        assert!(matches!(
            bad("connections = 2", "connections = 2\ncolour = 1"),
            ConfigError::Parse(_)
        ));
        assert!(matches!(
            bad("[exchange]\n", "[exchange]\napi_key = \"x\"\n"),
            ConfigError::Invalid {
                field: "exchange.api_key",
                ..
            }
        ));
        // Without the environment the sub-account lacks its secret; the error names the variable.
        match GatewayConfig::from_toml_str(TWO_ACCOUNTS) {
            Err(ConfigError::MissingAccountCredential {
                account,
                field: "secret",
                env_var,
            }) => {
                assert_eq!(account, "sub-1");
                assert_eq!(env_var, "BGW_SUB_1_SECRET");
            }
            other => panic!("{other:?}"),
        }
        // Unknown account name without any [[account]]: only "main" exists.
        assert!(matches!(
            with("[[session]]\nsession_id = 2\ncredentials = \"x\"\naccount = \"sub\""),
            Err(ConfigError::UnknownAccount { session_id: 2, .. })
        ));
    }

    #[test]
    fn move_master_accounts_resolve_by_name() {
        let cfg = with("[moves]\nmaster_accounts = [\"main\"]\nextra_uids = [7]").expect("valid");
        let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
        assert_eq!(s.moves.masters, vec![0]);
        assert_eq!(s.moves.extra_uids, vec![7]);
        let cfg = with("[moves]\nmaster_accounts = [\"nope\"]").expect("valid");
        assert!(matches!(
            crate::engine::EngineSettings::from_config(&cfg),
            Err(ConfigError::Invalid {
                field: "moves.master_accounts",
                ..
            })
        ));
        let s = crate::engine::EngineSettings::from_config(&with("").expect("valid"))
            .expect("settings");
        assert!(s.moves.masters.is_empty());
    }

    #[test]
    fn idle_and_categories() {
        let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
            "[exchange]\n",
            "[exchange]\ncategories = [\"spot\", \"USDT-FUTURES\"]\n",
        ))
        .expect("valid");
        assert_eq!(cfg.exchange.categories, vec!["SPOT", "USDT-FUTURES"]);
        let cfg = with("[tracker]\ncore = 1\nidle = \"spin_yield\"\n[io]\ncore = 0").expect("ok");
        assert_eq!(cfg.tracker.idle, IdleStrategy::SpinYield);
        assert_eq!((cfg.tracker.core, cfg.io.core), (Some(1), Some(0)));
    }

    #[test]
    fn unknown_outcome_deadlines() {
        let s = crate::engine::EngineSettings::from_config(&with("").expect("valid"))
            .expect("settings");
        assert_eq!(s.tracker.deadlines, crate::tracker::Deadlines::default());
        let cfg = with("[tracker]\nreply_timeout_ms = 800\npush_deadline_ms = 200").expect("ok");
        let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
        assert_eq!(
            (
                s.tracker.deadlines.reply_timeout_ms,
                s.tracker.deadlines.push_deadline_ms
            ),
            (800, 200)
        );
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            with("[tracker]\nidle = \"nap\""),
            Err(ConfigError::Parse(_))
        ));
        assert!(matches!(
            with("[metrics]\ntypo = 1"),
            Err(ConfigError::Parse(_))
        ));
        assert!(matches!(
            with("[strategy]\nmax_frame_len = 10"),
            Err(ConfigError::Invalid {
                field: "strategy.max_frame_len",
                ..
            })
        ));
        assert!(matches!(
            with("[strategy]\nkeepalive_min_ms = 5000\nkeepalive_max_ms = 10"),
            Err(ConfigError::Invalid {
                field: "strategy.keepalive_max_ms",
                ..
            })
        ));
        assert!(matches!(
            with("[[session]]\nsession_id = 1\ncredentials = \"x\""),
            Err(ConfigError::DuplicateSession(1))
        ));
        assert!(matches!(
            with("[[session]]\nsession_id = 0\ncredentials = \"x\""),
            Err(ConfigError::Invalid {
                field: "session.session_id",
                ..
            })
        ));
        let long = "x".repeat(65);
        assert!(matches!(
            with(&format!(
                "[[session]]\nsession_id = 2\ncredentials = \"{long}\""
            )),
            Err(ConfigError::Invalid {
                field: "session.credentials",
                ..
            })
        ));
        assert!(matches!(
            with("[metrics]\nreport_interval_ms = 0"),
            Err(ConfigError::Invalid { .. })
        ));
        let no_sessions =
            MINIMAL.replace("[[session]]\nsession_id = 1\ncredentials = \"tok\"\n", "");
        assert!(matches!(
            GatewayConfig::from_toml_str(&no_sessions),
            Err(ConfigError::NoSessions)
        ));
        let bad = |from: &str, to: &str| {
            GatewayConfig::from_toml_str(&MINIMAL.replace(from, to)).expect_err("must refuse")
        };
        assert!(matches!(
            bad("[exchange]\n", "[exchange]\nping_interval_ms = 31000\n"),
            ConfigError::Invalid {
                field: "exchange.ping_interval_ms",
                ..
            }
        ));
        for (extra, field) in [
            (
                "silence_timeout_ms = 20000\n",
                "exchange.silence_timeout_ms",
            ),
            ("reconnect_min_ms = 0\n", "exchange.reconnect_min_ms"),
            (
                "reconnect_min_ms = 500\nreconnect_max_ms = 100\n",
                "exchange.reconnect_max_ms",
            ),
        ] {
            match bad("[exchange]\n", &format!("[exchange]\n{extra}")) {
                ConfigError::Invalid { field: f, .. } => assert_eq!(f, field),
                other => panic!("{extra}: {other:?}"),
            }
        }
        assert!(matches!(
            bad(
                "[exchange]\n",
                "[exchange]\nws_private_url = \"https://x\"\n"
            ),
            ConfigError::Invalid {
                field: "exchange.ws_private_url",
                ..
            }
        ));
        assert!(matches!(
            bad("[exchange]\n", "[exchange]\ncategories = [\"FOO\"]\n"),
            ConfigError::Invalid {
                field: "exchange.categories",
                ..
            }
        ));
        assert!(matches!(
            bad("secret = \"s\"\n", ""),
            ConfigError::MissingCredential("exchange.secret")
        ));
        assert!(matches!(
            GatewayConfig::load(Path::new("/nonexistent/gw.toml")),
            Err(ConfigError::Read { .. })
        ));
    }
}
