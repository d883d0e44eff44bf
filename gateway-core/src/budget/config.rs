//! `[rate]`: the rate budget's tier, per-bucket overrides and the cancel reserve (the pool size
//! is `[[account]] connections`).
//!
//! ```toml
//! [rate]
//! tier = "default"        # "default" (Bitget's base limits) | "unlimited"
//! cancel_reserve = 2      # per-connection tokens only cancels may take
//! margin_ms = 100         # window = 1 s + margin (absorbs jitter between us and the venue)
//! [rate.overrides]
//! place_order = 20        # any bucket: connection, place_order, batch_place, modify_order,
//!                         # batch_modify, cancel_order, batch_cancel, and the queries
//!                         # order_info, unfilled_orders, history_orders, fills (0 = unlimited)
//! ```

use serde::{Deserialize, Serialize};

use super::queries::QueryLimits;

/// A named set of limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Bitget's base limits (reference §2.3, §2.4, §7): 10 frames/s per connection (ping
    /// included); per UID place-order 10/s, batch-place 5/s, modify-order 10/s, batch-modify
    /// 10/s, cancel-order 10/s, batch-cancel 5/s; the queries order-info, unfilled-orders,
    /// history-orders and fills 20/s each.
    #[serde(rename = "default")]
    Bitget,
    /// No limit (benchmarks, the demo, tests that do not opt in). Higher venue tiers are set
    /// with overrides.
    #[default]
    Unlimited,
}

/// Per-bucket limits replacing the tier's (sends per window; 0 = unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Overrides {
    /// Frames per connection (`ws-connection`).
    pub connection: Option<u32>,
    /// `place-order` per account.
    pub place_order: Option<u32>,
    /// `batch-place` per account.
    pub batch_place: Option<u32>,
    /// `modify-order` per account.
    pub modify_order: Option<u32>,
    /// `batch-modify` per account.
    pub batch_modify: Option<u32>,
    /// `cancel-order` per account.
    pub cancel_order: Option<u32>,
    /// `batch-cancel` per account.
    pub batch_cancel: Option<u32>,
    /// `GET /api/v3/trade/order-info` per account, requests/s.
    pub order_info: Option<u32>,
    /// `GET /api/v3/trade/unfilled-orders` per account (pages), requests/s.
    pub unfilled_orders: Option<u32>,
    /// `GET /api/v3/trade/history-orders` per account (pages), requests/s.
    pub history_orders: Option<u32>,
    /// `GET /api/v3/trade/fills` per account (pages), requests/s.
    pub fills: Option<u32>,
}

/// The rate budget configuration. [`RateConfig::default`] is the unlimited tier (what code
/// that builds settings by hand gets); a configuration file without `[rate]` gets
/// [`RateConfig::bitget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default = "RateConfig::bitget")]
pub struct RateConfig {
    /// Base limits.
    pub tier: Tier,
    /// Per-bucket replacements of the tier's limits.
    pub overrides: Overrides,
    /// Per-connection tokens that only cancels (and the ping) may take; `None` = 20 % of the
    /// connection limit, at least 1.
    pub cancel_reserve: Option<u32>,
    /// The bucket window is 1 s plus this margin.
    pub margin_ms: u64,
}

impl Default for RateConfig {
    fn default() -> Self {
        RateConfig {
            tier: Tier::Unlimited,
            ..RateConfig::bitget()
        }
    }
}

/// Resolved limits per bucket (sends per window; 0 = unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Frames per connection.
    pub connection: u32,
    /// Per account, in [`crate::budget::ENDPOINTS`] order.
    pub endpoints: [u32; 6],
    /// Per-connection tokens new orders leave to cancels.
    pub cancel_reserve: u32,
    /// Window length in ns.
    pub window_ns: u64,
}

impl RateConfig {
    /// Bitget's base limits.
    pub fn bitget() -> RateConfig {
        RateConfig {
            tier: Tier::Bitget,
            overrides: Overrides::default(),
            cancel_reserve: None,
            margin_ms: 100,
        }
    }

    /// No limit.
    pub fn unlimited() -> RateConfig {
        RateConfig::default()
    }

    /// The limits of the tier with the overrides applied.
    pub fn limits(&self) -> Limits {
        let (conn, ep) = match self.tier {
            Tier::Bitget => (10, [10, 5, 10, 10, 10, 5]),
            Tier::Unlimited => (0, [0; 6]),
        };
        let o = &self.overrides;
        let ov = [
            o.place_order,
            o.batch_place,
            o.modify_order,
            o.batch_modify,
            o.cancel_order,
            o.batch_cancel,
        ];
        let mut endpoints = ep;
        for (e, o) in endpoints.iter_mut().zip(ov) {
            if let Some(v) = o {
                *e = v;
            }
        }
        let connection = o.connection.unwrap_or(conn);
        let cancel_reserve = self
            .cancel_reserve
            .unwrap_or((connection / 5).max(1))
            .min(connection.saturating_sub(1));
        Limits {
            connection,
            endpoints,
            cancel_reserve,
            window_ns: self.window_ns(),
        }
    }

    /// A bucket's window: 1 s + `margin_ms`, in ns.
    fn window_ns(&self) -> u64 {
        1_000_000_000u64.saturating_add(self.margin_ms.saturating_mul(1_000_000))
    }

    /// The limits of the query endpoints ([`super::queries`]): the tier's (Bitget: 20/s/UID
    /// each, reference §7; unlimited: none) with the overrides applied, per the same window as
    /// the trade buckets.
    pub fn query_limits(&self) -> QueryLimits {
        let tier = match self.tier {
            Tier::Bitget => 20,
            Tier::Unlimited => 0,
        };
        let o = &self.overrides;
        let per_s =
            [o.order_info, o.unfilled_orders, o.history_orders, o.fills].map(|v| v.unwrap_or(tier));
        QueryLimits {
            per_s,
            window_ns: self.window_ns(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b_queries() -> [u32; 4] {
        RateConfig::bitget().query_limits().per_s
    }

    #[test]
    fn tiers_overrides_and_reserve() {
        let b = RateConfig::bitget().limits();
        assert_eq!(b.connection, 10);
        assert_eq!(b.endpoints, [10, 5, 10, 10, 10, 5]);
        assert_eq!(b.cancel_reserve, 2);
        assert_eq!(b.window_ns, 1_100_000_000);
        let u = RateConfig::default().limits();
        assert_eq!((u.connection, u.endpoints), (0, [0; 6]));
        let c: RateConfig = toml::from_str(
            "tier = \"default\"\ncancel_reserve = 3\n[overrides]\nplace_order = 20\nconnection = 0",
        )
        .unwrap();
        let l = c.limits();
        assert_eq!(l.endpoints[0], 20);
        assert_eq!(l.endpoints[1], 5);
        assert_eq!(l.connection, 0);
        let empty: RateConfig = toml::from_str("").unwrap();
        assert_eq!(empty, RateConfig::bitget());
        assert!(toml::from_str::<RateConfig>("tier = \"gold\"").is_err());
        // The query endpoints: 20/s each on Bitget's tier, none unlimited, overridable alone.
        assert_eq!(b_queries(), [20; 4]);
        assert_eq!(RateConfig::unlimited().query_limits().per_s, [0; 4]);
        assert_eq!(RateConfig::bitget().query_limits().window_ns, 1_100_000_000);
        let q: RateConfig =
            toml::from_str("tier = \"unlimited\"\n[overrides]\nunfilled_orders = 5\nfills = 7")
                .unwrap();
        assert_eq!(q.query_limits().per_s, [0, 5, 0, 7]);
        assert_eq!(q.limits().endpoints, [0; 6]);
        assert!(toml::from_str::<RateConfig>("nope = 1").is_err());
    }
}
