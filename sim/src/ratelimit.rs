//! Per-UID request quotas (reference §7 "Rate limit" column, §2.4: WebSocket trade ops share the
//! REST quota of the same operation). A sans-I/O token bucket per (account, endpoint): capacity
//! = the per-second limit, refilled continuously at that rate; the caller passes `now_ms` (the
//! transport reads the clock). Exceeding answers HTTP 429 / code `429` "Too Many Requests" on
//! REST and the WS error shape (`{"event":"error","code":"429",..}`) on WS trade ops.
//!
//! The quotas are off unless `[rate_limits] enabled = true` (benchmarks and the demo are not
//! throttled), except the one of `POST /api/v3/account/move-positions`, which is always on
//! ([`RateLimiter::always_on`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::matching::AccountId;

/// A rate-limited operation (one REST endpoint; WS trade topics map onto the same ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `POST /api/v3/trade/place-order`, WS `place-order`.
    PlaceOrder,
    /// `POST /api/v3/trade/place-batch`, WS `batch-place`.
    PlaceBatch,
    /// `POST /api/v3/trade/modify-order`, WS `modify-order`.
    ModifyOrder,
    /// `POST /api/v3/trade/batch-modify-order`, WS `batch-modify`.
    BatchModify,
    /// `POST /api/v3/trade/cancel-order`, WS `cancel-order`.
    CancelOrder,
    /// `POST /api/v3/trade/cancel-batch`, WS `batch-cancel`.
    CancelBatch,
    /// `POST /api/v3/trade/cancel-symbol-order`.
    CancelSymbol,
    /// `GET /api/v3/trade/order-info`, `unfilled-orders`, `history-orders`, `fills` (each its own
    /// bucket, same limit).
    Query(QueryKind),
    /// An account or position endpoint (each its own bucket).
    Account(AccountKind),
}

/// The account and position endpoints (reference §7, "Rate limit" column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountKind {
    /// `GET` reads: `assets`, `funding-assets`, `settings`, `max-transferable`,
    /// `financial-records`, `current-position` (20/s/UID each, one bucket per path).
    Read(&'static str),
    /// `POST /api/v3/account/set-leverage` (10/s/UID).
    SetLeverage,
    /// `POST /api/v3/account/set-hold-mode` (10/s/UID).
    SetHoldMode,
    /// `POST /api/v3/account/max-open-available` (5/s/UID).
    MaxOpenAvailable,
    /// `POST /api/v3/account/move-positions` (1/s/UID).
    MovePositions,
    /// `GET /api/v3/account/move-position-history` (5/s/UID).
    MoveHistory,
}

impl AccountKind {
    /// The bucket of an account endpoint by its path (any other path is a 20/s read).
    pub fn of_path(path: &'static str) -> AccountKind {
        match path {
            "/api/v3/account/set-leverage" => AccountKind::SetLeverage,
            "/api/v3/account/set-hold-mode" => AccountKind::SetHoldMode,
            "/api/v3/account/max-open-available" => AccountKind::MaxOpenAvailable,
            "/api/v3/account/move-positions" => AccountKind::MovePositions,
            "/api/v3/account/move-position-history" => AccountKind::MoveHistory,
            other => AccountKind::Read(other),
        }
    }
}

/// The signed GET endpoints of the trade group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// `order-info`.
    OrderInfo,
    /// `unfilled-orders`.
    Unfilled,
    /// `history-orders`.
    History,
    /// `fills`.
    Fills,
}

impl Endpoint {
    /// The endpoint a WS trade topic counts against (`None` for an unknown topic, which the venue
    /// rejects anyway).
    pub fn of_ws_topic(topic: &str) -> Option<Endpoint> {
        Some(match topic {
            "place-order" => Endpoint::PlaceOrder,
            "batch-place" | "batch-place-order" => Endpoint::PlaceBatch,
            "modify-order" => Endpoint::ModifyOrder,
            "batch-modify" | "batch-modify-order" => Endpoint::BatchModify,
            "cancel-order" => Endpoint::CancelOrder,
            "batch-cancel" | "batch-cancel-order" => Endpoint::CancelBatch,
            _ => return None,
        })
    }
}

/// Per-UID limits in requests per second (Bitget's values by default, reference §7), and the
/// switch. `enabled = false` (the default, also in [`crate::SimConfig::demo`]) disables every
/// quota so that benchmarks and the gateway's demo are not throttled — every quota but
/// `move_positions` ([`RateLimiter::always_on`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    /// Enforce the quotas.
    pub enabled: bool,
    /// `place-order` (Bitget: 10/s/UID).
    pub place_order: u32,
    /// `place-batch` (5/s/UID).
    pub place_batch: u32,
    /// `modify-order` (10/s/UID).
    pub modify_order: u32,
    /// `batch-modify-order` (10/s/UID).
    pub batch_modify_order: u32,
    /// `cancel-order` (10/s/UID).
    pub cancel_order: u32,
    /// `cancel-batch` (5/s/UID).
    pub cancel_batch: u32,
    /// `cancel-symbol-order` (5/s/UID).
    pub cancel_symbol_order: u32,
    /// Each of `order-info`, `unfilled-orders`, `history-orders`, `fills` (20/s/UID).
    pub queries: u32,
    /// Each account/position read: `assets`, `funding-assets`, `settings`, `max-transferable`,
    /// `financial-records`, `current-position` (20/s/UID).
    pub account_reads: u32,
    /// `set-leverage` (10/s/UID).
    pub set_leverage: u32,
    /// `set-hold-mode` (10/s/UID).
    pub set_hold_mode: u32,
    /// `max-open-available` (5/s/UID).
    pub max_open_available: u32,
    /// `move-positions` (1/s/UID; P4 "Rate limit: 1/sec/UID"). Enforced even with
    /// `enabled = false` ([`RateLimiter::always_on`]); 0 lifts it.
    pub move_positions: u32,
    /// `move-position-history` (5/s/UID).
    pub move_position_history: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            enabled: false,
            place_order: 10,
            place_batch: 5,
            modify_order: 10,
            batch_modify_order: 10,
            cancel_order: 10,
            cancel_batch: 5,
            cancel_symbol_order: 5,
            queries: 20,
            account_reads: 20,
            set_leverage: 10,
            set_hold_mode: 10,
            max_open_available: 5,
            move_positions: 1,
            move_position_history: 5,
        }
    }
}

impl RateLimitConfig {
    /// Quotas enforced on the four query endpoints only (order-info, unfilled-orders,
    /// history-orders, fills), `per_s` requests per second per UID each; every other quota off
    /// (0 = unlimited). What a restart's reconciliation meets, with the trade ops unthrottled.
    pub fn queries_only(per_s: u32) -> RateLimitConfig {
        RateLimitConfig {
            enabled: true,
            place_order: 0,
            place_batch: 0,
            modify_order: 0,
            batch_modify_order: 0,
            cancel_order: 0,
            cancel_batch: 0,
            cancel_symbol_order: 0,
            queries: per_s,
            account_reads: 0,
            set_leverage: 0,
            set_hold_mode: 0,
            max_open_available: 0,
            move_positions: 0,
            move_position_history: 0,
        }
    }

    /// Requests per second allowed for `ep` (0 = unlimited).
    pub fn limit(&self, ep: Endpoint) -> u32 {
        match ep {
            Endpoint::PlaceOrder => self.place_order,
            Endpoint::PlaceBatch => self.place_batch,
            Endpoint::ModifyOrder => self.modify_order,
            Endpoint::BatchModify => self.batch_modify_order,
            Endpoint::CancelOrder => self.cancel_order,
            Endpoint::CancelBatch => self.cancel_batch,
            Endpoint::CancelSymbol => self.cancel_symbol_order,
            Endpoint::Query(_) => self.queries,
            Endpoint::Account(AccountKind::Read(_)) => self.account_reads,
            Endpoint::Account(AccountKind::SetLeverage) => self.set_leverage,
            Endpoint::Account(AccountKind::SetHoldMode) => self.set_hold_mode,
            Endpoint::Account(AccountKind::MaxOpenAvailable) => self.max_open_available,
            Endpoint::Account(AccountKind::MovePositions) => self.move_positions,
            Endpoint::Account(AccountKind::MoveHistory) => self.move_position_history,
        }
    }
}

/// One bucket: tokens in thousandths, last refill time.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    milli_tokens: u64,
    at_ms: u64,
}

/// Token buckets per (account, endpoint).
#[derive(Debug)]
pub struct RateLimiter {
    cfg: RateLimitConfig,
    buckets: HashMap<(AccountId, Endpoint), Bucket>,
}

impl RateLimiter {
    /// A limiter with the given quotas.
    pub fn new(cfg: RateLimitConfig) -> RateLimiter {
        RateLimiter {
            cfg,
            buckets: HashMap::new(),
        }
    }

    /// True for the quota enforced even when `[rate_limits]` is disabled: only
    /// `POST /api/v3/account/move-positions` ("Rate limit: 1/sec/UID" on Bitget's "Move
    /// Positions" page, reference §7 P4). It is part of that endpoint's contract next to its
    /// 1-minute spacing and daily count (`crate::moves::rules`), which are always on too, and
    /// it is on no hot path (a master may move at most once a minute), so benchmarks lose
    /// nothing. `move_positions = 0` lifts it.
    pub fn always_on(ep: Endpoint) -> bool {
        matches!(ep, Endpoint::Account(AccountKind::MovePositions))
    }

    /// Takes one request of `owner` on `ep` at `now_ms` (ms since the Unix epoch): `true` =
    /// allowed, `false` = over the quota (HTTP 429; a refused request takes no token). Always
    /// `true` when the endpoint's limit is 0, or when the quotas are disabled and `ep` is not
    /// [`RateLimiter::always_on`].
    pub fn allow(&mut self, owner: AccountId, ep: Endpoint, now_ms: u64) -> bool {
        if !self.cfg.enabled && !Self::always_on(ep) {
            return true;
        }
        let limit = u64::from(self.cfg.limit(ep));
        if limit == 0 {
            return true;
        }
        let cap = limit.saturating_mul(1000);
        let b = self.buckets.entry((owner, ep)).or_insert(Bucket {
            milli_tokens: cap,
            at_ms: now_ms,
        });
        // `limit` tokens per 1000 ms = `limit` milli-tokens per ms. A clock going backwards
        // refills nothing.
        let elapsed = now_ms.saturating_sub(b.at_ms);
        b.milli_tokens = b
            .milli_tokens
            .saturating_add(elapsed.saturating_mul(limit))
            .min(cap);
        b.at_ms = b.at_ms.max(now_ms);
        if b.milli_tokens >= 1000 {
            b.milli_tokens -= 1000;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(place_order: u32) -> RateLimitConfig {
        RateLimitConfig {
            enabled: true,
            place_order,
            ..RateLimitConfig::default()
        }
    }

    #[test]
    fn burst_of_limit_then_refusal_then_refill() {
        let mut rl = RateLimiter::new(on(10));
        let a = AccountId(0);
        for _ in 0..10 {
            assert!(rl.allow(a, Endpoint::PlaceOrder, 1_000));
        }
        assert!(!rl.allow(a, Endpoint::PlaceOrder, 1_000));
        // 100 ms later one token (10/s) is back, not two.
        assert!(rl.allow(a, Endpoint::PlaceOrder, 1_100));
        assert!(!rl.allow(a, Endpoint::PlaceOrder, 1_100));
        // A full second refills to the capacity, never beyond it.
        for _ in 0..10 {
            assert!(rl.allow(a, Endpoint::PlaceOrder, 60_000));
        }
        assert!(!rl.allow(a, Endpoint::PlaceOrder, 60_000));
    }

    #[test]
    fn buckets_are_per_uid_and_per_endpoint() {
        let mut rl = RateLimiter::new(on(1));
        let (a, b) = (AccountId(0), AccountId(1));
        assert!(rl.allow(a, Endpoint::PlaceOrder, 0));
        assert!(!rl.allow(a, Endpoint::PlaceOrder, 0));
        assert!(rl.allow(b, Endpoint::PlaceOrder, 0));
        assert!(rl.allow(a, Endpoint::CancelOrder, 0));
        for _ in 0..5 {
            assert!(rl.allow(a, Endpoint::PlaceBatch, 0));
        }
        assert!(!rl.allow(a, Endpoint::PlaceBatch, 0));
    }

    #[test]
    fn disabled_or_zero_never_refuses_and_clock_going_back_is_safe() {
        let mut off = RateLimiter::new(RateLimitConfig::default());
        for _ in 0..1000 {
            assert!(off.allow(AccountId(0), Endpoint::PlaceOrder, 0));
        }
        let mut zero = RateLimiter::new(on(0));
        for _ in 0..1000 {
            assert!(zero.allow(AccountId(0), Endpoint::PlaceOrder, 0));
        }
        let mut rl = RateLimiter::new(on(1));
        assert!(rl.allow(AccountId(0), Endpoint::PlaceOrder, 5_000));
        assert!(!rl.allow(AccountId(0), Endpoint::PlaceOrder, 1_000));
        assert!(rl.allow(AccountId(0), Endpoint::PlaceOrder, 6_000));
    }

    #[test]
    fn move_positions_quota_is_on_even_when_the_others_are_off() {
        let mv = Endpoint::Account(AccountKind::MovePositions);
        let (a, b) = (AccountId(0), AccountId(1));
        let mut off = RateLimiter::new(RateLimitConfig::default());
        assert!(!RateLimitConfig::default().enabled);
        assert!(RateLimiter::always_on(mv));
        assert!(!RateLimiter::always_on(Endpoint::Account(
            AccountKind::MoveHistory
        )));
        assert!(!RateLimiter::always_on(Endpoint::PlaceOrder));
        // 1/s/UID: the second request within 1000 ms is refused, at 1000 ms it passes.
        assert!(off.allow(a, mv, 10_000));
        assert!(!off.allow(a, mv, 10_000));
        assert!(!off.allow(a, mv, 10_999));
        // Another UID has its own bucket.
        assert!(off.allow(b, mv, 10_999));
        // The refusals took no token.
        assert!(off.allow(a, mv, 11_000));
        assert!(!off.allow(a, mv, 11_999));
        // A long pause refills one token, not more.
        assert!(off.allow(a, mv, 100_000));
        assert!(!off.allow(a, mv, 100_000));
        // The other quotas stay off.
        for _ in 0..100 {
            assert!(off.allow(a, Endpoint::PlaceOrder, 100_000));
            assert!(off.allow(a, Endpoint::Account(AccountKind::MoveHistory), 100_000));
        }
        // `move_positions = 0` lifts it.
        let mut lifted = RateLimiter::new(RateLimitConfig {
            move_positions: 0,
            ..RateLimitConfig::default()
        });
        for _ in 0..100 {
            assert!(lifted.allow(a, mv, 0));
        }
    }

    #[test]
    fn config_section_parses_with_defaults_and_demo_is_off() {
        let c: RateLimitConfig = toml::from_str("enabled = true\nplace_order = 3").unwrap();
        assert!(c.enabled);
        assert_eq!(c.limit(Endpoint::PlaceOrder), 3);
        assert_eq!(c.limit(Endpoint::PlaceBatch), 5);
        assert_eq!(c.limit(Endpoint::Query(QueryKind::Fills)), 20);
        assert!(toml::from_str::<RateLimitConfig>("nope = 1").is_err());
        assert!(!crate::SimConfig::demo().rate_limits.enabled);
        let example =
            crate::SimConfig::from_toml(include_str!("../../config/sim.example.toml")).unwrap();
        assert_eq!(example.rate_limits, RateLimitConfig::default());
    }

    #[test]
    fn ws_topics_map_to_the_rest_quota() {
        assert_eq!(
            Endpoint::of_ws_topic("batch-place"),
            Some(Endpoint::PlaceBatch)
        );
        assert_eq!(
            Endpoint::of_ws_topic("cancel-order"),
            Some(Endpoint::CancelOrder)
        );
        assert_eq!(Endpoint::of_ws_topic("nope"), None);
    }
}
