//! `[faults]` in the simulator's configuration (installed by `FaultsConfig::install` in
//! `faults/mod.rs`).

use serde::{Deserialize, Serialize};

/// A trade-op rule in the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TradeRuleConfig {
    /// Account uid the rule applies to; absent = every account.
    #[serde(default)]
    pub uid: Option<String>,
    /// Trade topic (`place-order`, `batch-cancel`, ...); absent = every topic.
    #[serde(default)]
    pub topic: Option<String>,
    /// How many trade ops the rule answers.
    pub count: u32,
    /// `reject`: answer `code`/`msg` without applying; `unknown_applied`: apply, answer `40010`;
    /// `unknown_not_applied`: answer `40010` without applying.
    pub kind: TradeRuleKind,
    /// Error code for `reject` (default `40725`).
    #[serde(default)]
    pub code: Option<u32>,
    /// Error message for `reject` (default "service return an error").
    #[serde(default)]
    pub msg: Option<String>,
}

/// What a configured trade-op rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TradeRuleKind {
    /// Reject with the given code.
    Reject,
    /// Apply the op, answer `40010`.
    UnknownApplied,
    /// Answer `40010` without applying.
    UnknownNotApplied,
}

/// `[faults]` in the configuration: faults active from the start (every connection), and the
/// switch of the HTTP control endpoint.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Serve `POST /sim/control/faults` (see `sim/README.md`). Default false.
    #[serde(default)]
    pub control_api: bool,
    /// Replies written this many ms late. Default 0.
    #[serde(default)]
    pub reply_delay_ms: u64,
    /// Pushes written this many ms late. Default 0.
    #[serde(default)]
    pub push_delay_ms: u64,
    /// Every push written twice. Default false.
    #[serde(default)]
    pub duplicate_pushes: bool,
    /// Pushes swapped pairwise, a held push waiting at most this many ms. 0 = off (default).
    #[serde(default)]
    pub reorder_window_ms: u64,
    /// Pushes dropped from the start. Default false.
    #[serde(default)]
    pub pause_pushes: bool,
    /// Trade-op rules, used in order.
    #[serde(default)]
    pub trade_rules: Vec<TradeRuleConfig>,
}
