//! Risk limits as configured: `[risk.session]` / `[risk.account]` defaults, `[session.risk]`
//! per session. Decimals are written as TOML strings (`"0.5"`) or integers, never floats.

use codec::Decimal;
use serde::{Deserialize, Serialize};

/// Limits of one scope (a session or an account). Every limit is optional (absent: no limit).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct RiskLimits {
    /// Largest order quantity (base units).
    #[serde(deserialize_with = "de_decimal", serialize_with = "ser_decimal")]
    pub max_order_qty: Option<Decimal>,
    /// Largest order notional `price × qty` (quote units; market orders use the mark price).
    #[serde(deserialize_with = "de_decimal", serialize_with = "ser_decimal")]
    pub max_order_notional: Option<Decimal>,
    /// Most orders open at once.
    pub max_open_orders: Option<u32>,
    /// Largest distance of a limit price from the mark, as a ratio (e.g. `"0.05"`), either
    /// direction. The exchange's own one-sided band (buys above mark × (1 +
    /// `buyLimitPriceRatio`), sells below mark × (1 − `sellLimitPriceRatio`)) applies as well
    /// (`RiskBook::check_new`).
    #[serde(deserialize_with = "de_decimal", serialize_with = "ser_decimal")]
    pub max_deviation: Option<Decimal>,
    /// Largest absolute position per symbol, counting open orders of the same direction.
    #[serde(deserialize_with = "de_decimal", serialize_with = "ser_decimal")]
    pub max_position: Option<Decimal>,
}

/// `[risk]`: default limits and the mark-price refresh.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct RiskConfig {
    /// Limits of every account (`[risk.account]`).
    pub account: RiskLimits,
    /// Limits of every session without its own `[session.risk]` (`[risk.session]`).
    pub session: RiskLimits,
    /// How often mark prices are fetched (`GET /api/v3/market/tickers`), ms; 0 = never.
    /// Default 1000.
    pub mark_refresh_ms: u64,
}

impl Default for RiskConfig {
    fn default() -> Self {
        RiskConfig {
            account: RiskLimits::default(),
            session: RiskLimits::default(),
            mark_refresh_ms: 1000,
        }
    }
}

/// Risk settings of the engine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RiskSettings {
    /// Limits per account, by account index (missing entries use `default_account`).
    pub accounts: Vec<RiskLimits>,
    /// Limits of an account without its own entry.
    pub default_account: RiskLimits,
    /// Mark-price refresh period, ms (0: never; then neither price band is checked and market
    /// orders under a notional limit are refused). The config file's default is 1000; this
    /// struct's `Default` is 0 (no polling, no band) for embedders that set nothing.
    pub mark_refresh_ms: u64,
}

/// A decimal limit as the configuration writes it: a string (`"0.5"`), so it reads back exactly.
fn ser_decimal<S: serde::Serializer>(v: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(d) => s.serialize_some(&d.to_string()),
        None => s.serialize_none(),
    }
}

fn de_decimal<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Text(String),
        Int(i64),
    }
    match Option::<Raw>::deserialize(d)? {
        None => Ok(None),
        Some(Raw::Int(i)) => Ok(Some(Decimal::from(i))),
        Some(Raw::Text(s)) => Decimal::parse(s.as_bytes())
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("decimal {s:?}: {e}"))),
    }
}
