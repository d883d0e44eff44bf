//! `[[account]]` (each exchange account) and `[exchange]` (endpoints, keepalive, the default
//! account's credentials).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exchange::rest::RestClient;
use crate::exchange::ws::ConnectOptions;
use crate::exchange::{ExchangeCredentials, ExchangeError, Keepalive, Secret};

/// `[[account]]`: one exchange account (API key), a master or a sub-account.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// Name sessions refer to (`[[session]] account`); unique, non-empty. Required.
    pub name: String,
    /// API key. Env `BGW_<NAME>_API_KEY` overrides. Required. Serialized redacted.
    #[serde(default, serialize_with = "super::redact::serialize_redacted")]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExchangeConfig {
    /// Private WebSocket URL. Default `wss://ws.bitget.com/v3/ws/private` (live);
    /// demo: `wss://wspap.bitget.com/v3/ws/private`.
    pub ws_private_url: String,
    /// REST base URL. Default `https://api.bitget.com`.
    pub rest_url: String,
    /// API key. Default empty; env `BGW_API_KEY` overrides. Required. Serialized redacted.
    #[serde(serialize_with = "super::redact::serialize_redacted")]
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
