//! The whole configuration file ([`GatewayConfig`]): loading, environment overrides and
//! validation.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::exchange::keepalive::MAX_PING_INTERVAL;
use crate::exchange::Secret;

use super::accounts::{AccountConfig, ExchangeConfig};
use super::env::{account_env_var, ENV_API_KEY, ENV_API_PASSPHRASE, ENV_API_SECRET};
use super::error::{invalid, ConfigError, ParseError};
use super::limits::{
    MAX_CONNECTIONS_PER_ACCOUNT, MAX_CREDENTIALS_LEN, MAX_FRAME_LEN_LIMIT, MIN_BACKLOG_BYTES,
    MIN_FRAME_LEN_LIMIT,
};
use super::sections::{
    IoConfig, JournalConfig, MetricsConfig, MovesConfig, RecordConfig, TrackerConfig,
};
use super::sessions::{SessionConfig, StrategyConfig};

/// The whole configuration.
#[derive(Debug, Clone, Deserialize, Serialize)]
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
    #[serde(default, rename = "account", skip_serializing_if = "Vec::is_empty")]
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
        let mut cfg: GatewayConfig = toml::from_str(text)
            .map_err(|e| ConfigError::Parse(Box::new(ParseError::new(text, e))))?;
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
        if s.handshake_timeout_ms == 0 {
            return Err(invalid("strategy.handshake_timeout_ms", "must be ≥ 1"));
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

        if s.max_connections == 0 {
            return Err(invalid("strategy.max_connections", "must be ≥ 1"));
        }
        if s.max_unauthenticated == 0 {
            return Err(invalid("strategy.max_unauthenticated", "must be ≥ 1"));
        }
        if s.max_backlog_bytes < MIN_BACKLOG_BYTES {
            return Err(invalid(
                "strategy.max_backlog_bytes",
                format!("{} < {MIN_BACKLOG_BYTES}", s.max_backlog_bytes),
            ));
        }
        if !s.listen.ip().is_loopback() && !s.allow_empty_credentials {
            if let Some(open) = self
                .sessions
                .iter()
                .find(|sess| sess.credentials.expose().is_empty())
            {
                return Err(invalid(
                    "session.credentials",
                    format!(
                        "session {} has empty credentials (anyone may log in) and \
                         strategy.listen {} is not loopback; set credentials, listen on \
                         127.0.0.1, or set strategy.allow_empty_credentials = true",
                        open.session_id, s.listen
                    ),
                ));
            }
        }

        let j = &self.journal;
        if let Some(b) = j
            .segment_bytes
            .filter(|b| *b < super::sections::MIN_SEGMENT_BYTES)
        {
            return Err(invalid(
                "journal.segment_bytes",
                format!("{b} < {}", super::sections::MIN_SEGMENT_BYTES),
            ));
        }
        if j.keep_segments.is_some_and(|k| k < 2) {
            return Err(invalid("journal.keep_segments", "must be ≥ 2"));
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
            let Some(known) = codec::json::Category::parse(c.as_bytes()) else {
                let known: Vec<&str> = codec::json::Category::ALL
                    .iter()
                    .map(|k| k.as_rest_str())
                    .collect();
                return Err(invalid(
                    "exchange.categories",
                    format!("unknown category {c:?} (known: {known:?})"),
                ));
            };
            *c = known.as_rest_str().to_owned();
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

        let r = self.tracker.retention();
        if r.retention_orders > super::sections::MAX_RETENTION_ORDERS {
            return Err(invalid(
                "tracker.retention_orders",
                format!(
                    "{} > {}",
                    r.retention_orders,
                    super::sections::MAX_RETENTION_ORDERS
                ),
            ));
        }
        if !(1..=super::sections::MAX_TOMBSTONES).contains(&r.tombstones) {
            return Err(invalid(
                "tracker.tombstones",
                format!(
                    "{} not in 1..={}",
                    r.tombstones,
                    super::sections::MAX_TOMBSTONES
                ),
            ));
        }

        if self.metrics.report_interval_ms == 0 {
            return Err(invalid("metrics.report_interval_ms", "must be ≥ 1"));
        }
        self.metrics.listen_addr()?;
        Ok(())
    }
}

impl GatewayConfig {
    /// Why the tracker's order table may have to grow (a stall on the tracker thread), if it
    /// may: it holds `[tracker] order_capacity` open orders plus `retention_orders` ended ones,
    /// and the accounts' `max_open_orders` risk limits allow more open orders than
    /// `order_capacity`. Without a limit on every account the bound is unknown and nothing is
    /// said. Logged as a warning at start.
    pub fn tracker_capacity_warning(&self) -> Option<String> {
        let capacity = self
            .tracker
            .order_capacity
            .unwrap_or(gateway_core::tracker::core::INITIAL_ORDERS);
        let mut open: u64 = 0;
        for a in self.account_list() {
            let limits = a.risk.as_ref().unwrap_or(&self.risk.account);
            open = open.saturating_add(u64::from(limits.max_open_orders?));
        }
        let retention = self.tracker.retention().retention_orders;
        (open > u64::try_from(capacity).unwrap_or(u64::MAX)).then(|| {
            format!(
                "the accounts' max_open_orders allow {open} open orders, more than [tracker] \
                 order_capacity {capacity}: the tracker's table (sized for {capacity} open + \
                 {retention} ended orders) would grow on the tracker thread (a stall); raise \
                 order_capacity to {open}"
            )
        })
    }

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
