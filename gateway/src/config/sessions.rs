//! `[strategy]` (the listener) and `[[session]]` (each strategy session admitted).

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exchange::Secret;

/// `[strategy]`: the SOFH/SBE listener strategies connect to.
#[derive(Debug, Clone, Deserialize, Serialize)]
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
    /// How long a connection may take to complete Negotiate + Establish, ms; past it the
    /// gateway sends Terminate and closes. Default 5000; at least 1.
    pub handshake_timeout_ms: u32,
    /// Most strategy connections open at once. Over it the connection that has waited longest
    /// without completing Establish is closed to make room; when every connection is an
    /// established session, the new one is accepted and closed at once (no answer). Default
    /// 256; at least 1.
    pub max_connections: usize,
    /// Most strategy connections open at once that have not completed Establish; over it the
    /// one that has waited longest is closed (no answer), so idle connections cannot keep a
    /// real strategy out. Default 64; at least 1.
    pub max_unauthenticated: usize,
    /// Most bytes of output a strategy may leave unread (beyond what the kernel buffers);
    /// past it the gateway drops them (they stay journaled: RetransmitRequest recovers them),
    /// sends Terminate and closes the connection, logging at WARN. Default 8 MiB (8388608);
    /// at least 65536.
    pub max_backlog_bytes: usize,
    /// Serve sessions whose credentials are empty (any Negotiate credentials accepted) on a
    /// `listen` address that is not loopback. Default false: such a configuration is refused
    /// at start-up, since anyone who reaches the port could trade.
    pub allow_empty_credentials: bool,
    /// When every session's epoch ends by schedule (session rollover: sequence numbers from 1
    /// on both flows, a fresh ClOrdID space, the old epoch's journal closed), UTC: `"none"`,
    /// `"daily HH:MM"` or `"weekly DAY HH:MM"` (DAY: mon..sun). A connected strategy gets
    /// Terminate (SessionRollover) and negotiates again. Default `"none"` (epochs end only when
    /// a strategy asks, with a higher SessionVerID in Negotiate).
    pub rollover: gateway_core::session::rollover::RolloverSchedule,
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_frame_len: 4096,
            keepalive_min_ms: 100,
            keepalive_max_ms: 60_000,
            handshake_timeout_ms: gateway_core::session::fixp::DEFAULT_HANDSHAKE_TIMEOUT_MS,
            max_connections: gateway_core::admission::AdmissionLimits::default().max_connections,
            max_unauthenticated: gateway_core::admission::AdmissionLimits::default()
                .max_unauthenticated,
            max_backlog_bytes: crate::session::out::MAX_BACKLOG,
            allow_empty_credentials: false,
            rollover: gateway_core::session::rollover::RolloverSchedule::Never,
        }
    }
}

/// `[[session]]`: one strategy session the gateway accepts.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, Default)]
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
