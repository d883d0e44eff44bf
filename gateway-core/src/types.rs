//! Types the order path's roles share (rate budget, configuration, risk, tracker, replay and
//! the engine), defined below all of them so that none imports another for them.

/// How a trade op is classed for the rate budget (Bitget REST quota names, reference §2.4, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TradeOp {
    /// `place-order`.
    Place,
    /// `batch-place` (≤ 20 orders).
    BatchPlace,
    /// `modify-order`.
    Modify,
    /// `batch-modify` (≤ 20 orders).
    BatchModify,
    /// `cancel-order`.
    Cancel,
    /// `batch-cancel` (≤ 20 orders).
    BatchCancel,
}

impl TradeOp {
    /// True for the cancel ops, which the rate budget never lets new orders starve.
    pub fn is_cancel(self) -> bool {
        matches!(self, TradeOp::Cancel | TradeOp::BatchCancel)
    }

    /// True for the ops that create orders (`place-order`, `batch-place`): the rate budget
    /// spreads them over the account's connections; the other ops follow their order's.
    pub fn is_new(self) -> bool {
        matches!(self, TradeOp::Place | TradeOp::BatchPlace)
    }
}

/// What a session does when the budget has no token: refuse at once, or wait up to a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BudgetPolicy {
    /// Refuse at once (ThrottleLimitExceeded).
    #[default]
    Reject,
    /// Wait for a token up to this long, then refuse.
    Queue(std::time::Duration),
}

/// What a strategy session may do (configuration: `trading`, `operator`, `drop_copy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionRole {
    /// Orders, batches, mass actions, max-open-available, settings and rate-budget requests.
    #[default]
    Trading,
    /// Everything a trading session may do, plus SetLeverage, SetHoldMode, MovePositions and
    /// KillSwitchRequest.
    Operator,
    /// Read-only: receives a copy of every ExecutionReport of its account (and the position and
    /// account updates); every application message it sends is refused (BusinessMessageReject
    /// NotAuthorized).
    DropCopy,
}

/// A strategy session the gateway admits.
#[derive(Debug, Clone)]
pub struct SessionGrant {
    /// FIXP SessionID the strategy negotiates with.
    pub session_id: u64,
    /// Credentials the strategy must present in Negotiate (compared in constant time).
    pub credentials: String,
    /// Index into `gateway::engine::EngineSettings::accounts` of the account the session trades on.
    pub account: usize,
    /// What the session may do.
    pub role: SessionRole,
    /// What the session's requests do when the rate budget has no token.
    pub budget: BudgetPolicy,
    /// Pre-trade risk limits of the session (default: none).
    pub risk: crate::risk::RiskLimits,
    /// Cancel the session's open orders when its connection ends without a Terminate from the
    /// strategy (dropped socket, keepalive timeout, protocol error). Default on.
    pub cancel_on_disconnect: bool,
}

impl Default for SessionGrant {
    fn default() -> Self {
        SessionGrant {
            session_id: 0,
            credentials: String::new(),
            account: 0,
            role: SessionRole::default(),
            budget: BudgetPolicy::default(),
            risk: crate::risk::RiskLimits::default(),
            cancel_on_disconnect: true,
        }
    }
}
