//! The pace of an account's signed queries: `GET /api/v3/trade/order-info`, `unfilled-orders`,
//! `history-orders` and `fills` (reference §7: 20/s/UID each, one quota per endpoint), and what
//! to do when the venue refuses one for rate anyway (HTTP 429, or the codes `429` / `25004` "too
//! frequent" in the body: reference §6.2).
//!
//! Sans-I/O: every call takes `now` (monotonic ns). One [`QueryBudget`] per account (its key is
//! one UID); every caller of the four endpoints (restart and reconnect reconciliation, the
//! resolution of unknown outcomes, mass cancels' listings) takes its tokens from it, so together
//! they stay within the venue's quota. Each endpoint is a [`Window`] of its limit per 1 s +
//! `margin_ms` (stricter than the venue's token bucket, see [`super::window`]).
//!
//! Why pace at the venue's rate rather than ask fewer pages: the open orders must be listed in
//! full (an order the journal knows may have been partly filled or cancelled at the venue, and
//! a ClOrdID journaled without a report may have reached it), and `unfilled-orders` at 100 a
//! page is the cheapest way to see them all (an `order-info` per order costs a hundred times
//! more requests); the finished orders and fills are asked only since the journal's last record
//! minus a margin (see the shell's reconciliation). So a restart with N open orders needs about
//! N / 100 pages of `unfilled-orders`, 20 per window of 1.1 s: ~5.5 s for 10 000 orders
//! (`endurance --venue-query-limit 20`: 5.6 s, against 0.33 s with nothing paced). That is the venue's cost, paid once per restart;
//! paying it beats meeting 429s, which would fail the restart (the gateway started on nothing)
//! or, retried blindly, keep the quota drained. A venue that allows more (a higher Bitget tier,
//! or the simulator with its quotas off) is told with the `[rate]` tier or overrides.
//!
//! A refused query is retried after a backoff, by the caller, with the very same parameters
//! (same cursor): a page is never skipped nor read twice, so the listing stays exact. The
//! refusal also blocks the endpoint for every other caller until the retry time: the venue's
//! bucket is empty for all of them.

use super::window::Window;

/// The four signed query endpoints, each with its own per-UID quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryEndpoint {
    /// `GET /api/v3/trade/order-info` (one order by orderId or clientOid).
    OrderInfo,
    /// `GET /api/v3/trade/unfilled-orders` (open orders, cursor-paged, ≤ 100 a page).
    UnfilledOrders,
    /// `GET /api/v3/trade/history-orders` (finished orders, cursor-paged).
    HistoryOrders,
    /// `GET /api/v3/trade/fills` (fills, cursor-paged).
    Fills,
}

impl QueryEndpoint {
    /// Every endpoint, in index order ([`QueryEndpoint::index`]).
    pub const ALL: [QueryEndpoint; 4] = [
        QueryEndpoint::OrderInfo,
        QueryEndpoint::UnfilledOrders,
        QueryEndpoint::HistoryOrders,
        QueryEndpoint::Fills,
    ];

    /// The request path (reference §7).
    pub const fn path(self) -> &'static str {
        match self {
            QueryEndpoint::OrderInfo => "/api/v3/trade/order-info",
            QueryEndpoint::UnfilledOrders => "/api/v3/trade/unfilled-orders",
            QueryEndpoint::HistoryOrders => "/api/v3/trade/history-orders",
            QueryEndpoint::Fills => "/api/v3/trade/fills",
        }
    }

    /// Position in [`QueryEndpoint::ALL`] (and in [`QueryLimits::per_s`]).
    pub const fn index(self) -> usize {
        match self {
            QueryEndpoint::OrderInfo => 0,
            QueryEndpoint::UnfilledOrders => 1,
            QueryEndpoint::HistoryOrders => 2,
            QueryEndpoint::Fills => 3,
        }
    }
}

/// True when a REST answer (HTTP status, Bitget code of the envelope; 0 when the body had
/// none) says the request was refused for rate: HTTP 429, code `429` "Too Many Requests" or
/// code `25004` "too frequent" (reference §6.2). Nothing else is retried by the pacing: the
/// other refusals are the request's own fault or the venue's state.
pub fn is_rate_refusal(http_status: u16, code: u32) -> bool {
    http_status == 429 || code == 429 || code == 25004
}

/// Refusals for rate of one request after which it is given up (the caller's error): with the
/// backoff doubling from one window up to [`MAX_BACKOFF_NS`], about 50 s of refusals.
pub const MAX_REFUSALS: u32 = 8;

/// Longest wait after a refusal for rate, ns (8 s).
pub const MAX_BACKOFF_NS: u64 = 8_000_000_000;

/// Resolved per-endpoint limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    /// Requests per window per endpoint, in [`QueryEndpoint::ALL`] order (0 = unlimited).
    pub per_s: [u32; 4],
    /// Window length in ns (1 s + the `[rate]` margin).
    pub window_ns: u64,
}

impl QueryLimits {
    /// No limit on any endpoint (refusals are still retried), with a 1.1 s window.
    pub fn unlimited() -> QueryLimits {
        QueryLimits {
            per_s: [0; 4],
            window_ns: 1_100_000_000,
        }
    }
}

/// What to do with a request the venue refused for rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterRefusal {
    /// Send it again, unchanged, at this time (monotonic ns); the endpoint is blocked for every
    /// caller until then.
    RetryAt(u64),
    /// It was refused [`MAX_REFUSALS`] times: give up (the caller reports the refusal).
    GiveUp,
}

/// The query budget of one account (one UID).
#[derive(Debug, Clone)]
pub struct QueryBudget {
    windows: [Window; 4],
    blocked_until: [u64; 4],
    window_ns: u64,
}

impl QueryBudget {
    /// A budget with `limits`, every window empty (a restarted gateway does not know what its
    /// predecessor sent: a refusal then is retried).
    pub fn new(limits: &QueryLimits) -> QueryBudget {
        QueryBudget {
            windows: limits.per_s.map(|l| Window::new(l, limits.window_ns)),
            blocked_until: [0; 4],
            window_ns: limits.window_ns,
        }
    }

    /// Takes a token of `ep` at `now`: `Ok` = send now; `Err(at)` = nothing taken, ask again at
    /// `at` (> `now`: the window is full, or a refusal blocks the endpoint).
    pub fn acquire(&mut self, ep: QueryEndpoint, now: u64) -> Result<(), u64> {
        let i = ep.index();
        let blocked = self.blocked_until.get(i).copied().unwrap_or(0);
        if blocked > now {
            return Err(blocked);
        }
        let Some(w) = self.windows.get_mut(i) else {
            return Ok(());
        };
        if w.can_take(now, 0) {
            w.take(now);
            Ok(())
        } else {
            Err(w.ready_at(now, 0).max(now.saturating_add(1)))
        }
    }

    /// The venue refused a request of `ep` for rate at `now`, its `refusals`-th refusal (from
    /// 1): retry after one window (the venue's bucket refills in a second), doubling with each
    /// further refusal up to [`MAX_BACKOFF_NS`]; every request of `ep` waits as long. Gives up
    /// at [`MAX_REFUSALS`].
    pub fn refused(&mut self, ep: QueryEndpoint, now: u64, refusals: u32) -> AfterRefusal {
        if refusals >= MAX_REFUSALS {
            return AfterRefusal::GiveUp;
        }
        let shift = refusals.saturating_sub(1).min(16);
        let backoff = self
            .window_ns
            .saturating_mul(1u64 << shift)
            .min(MAX_BACKOFF_NS);
        let at = now.saturating_add(backoff);
        if let Some(b) = self.blocked_until.get_mut(ep.index()) {
            *b = (*b).max(at);
        }
        AfterRefusal::RetryAt(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    const W: u64 = S + S / 10;

    fn limits(per_s: u32) -> QueryLimits {
        QueryLimits {
            per_s: [per_s; 4],
            window_ns: W,
        }
    }

    #[test]
    fn each_endpoint_has_its_own_window() {
        let mut b = QueryBudget::new(&limits(20));
        for _ in 0..20 {
            assert_eq!(b.acquire(QueryEndpoint::UnfilledOrders, 0), Ok(()));
        }
        assert_eq!(b.acquire(QueryEndpoint::UnfilledOrders, 5), Err(W));
        // The others are untouched.
        for ep in [
            QueryEndpoint::OrderInfo,
            QueryEndpoint::HistoryOrders,
            QueryEndpoint::Fills,
        ] {
            assert_eq!(b.acquire(ep, 5), Ok(()));
        }
        assert_eq!(b.acquire(QueryEndpoint::UnfilledOrders, W), Ok(()));
    }

    #[test]
    fn a_hundred_pages_take_five_windows() {
        // 10 000 open orders: 100 pages of unfilled-orders, sent as soon as allowed.
        let mut b = QueryBudget::new(&limits(20));
        let mut now = 0;
        let mut sent = 0;
        while sent < 100 {
            match b.acquire(QueryEndpoint::UnfilledOrders, now) {
                Ok(()) => sent += 1,
                Err(at) => {
                    assert!(at > now);
                    now = at;
                }
            }
        }
        assert_eq!(now, 4 * W);
    }

    #[test]
    fn unlimited_never_waits() {
        let mut b = QueryBudget::new(&QueryLimits::unlimited());
        for _ in 0..10_000 {
            assert_eq!(b.acquire(QueryEndpoint::Fills, 0), Ok(()));
        }
    }

    #[test]
    fn a_refusal_blocks_the_endpoint_and_backs_off_doubling_then_gives_up() {
        let mut b = QueryBudget::new(&QueryLimits::unlimited());
        let ep = QueryEndpoint::HistoryOrders;
        assert_eq!(b.refused(ep, 10, 1), AfterRefusal::RetryAt(10 + W));
        // Every caller of the endpoint waits, the other endpoints do not.
        assert_eq!(b.acquire(ep, 11), Err(10 + W));
        assert_eq!(b.acquire(QueryEndpoint::Fills, 11), Ok(()));
        assert_eq!(b.acquire(ep, 10 + W), Ok(()));
        assert_eq!(b.refused(ep, 0, 2), AfterRefusal::RetryAt(2 * W));
        assert_eq!(b.refused(ep, 0, 3), AfterRefusal::RetryAt(4 * W));
        assert_eq!(b.refused(ep, 0, 4), AfterRefusal::RetryAt(MAX_BACKOFF_NS));
        assert_eq!(
            b.refused(ep, 0, MAX_REFUSALS - 1),
            AfterRefusal::RetryAt(MAX_BACKOFF_NS)
        );
        assert_eq!(b.refused(ep, 0, MAX_REFUSALS), AfterRefusal::GiveUp);
        // A shorter block never shortens a longer one.
        let mut b = QueryBudget::new(&QueryLimits::unlimited());
        b.refused(ep, 0, 3);
        b.refused(ep, 0, 1);
        assert_eq!(b.acquire(ep, W), Err(4 * W));
    }

    #[test]
    fn rate_refusals_are_429_and_too_frequent_only() {
        assert!(is_rate_refusal(429, 0));
        assert!(is_rate_refusal(429, 429));
        assert!(is_rate_refusal(200, 429));
        assert!(is_rate_refusal(200, 25004));
        assert!(!is_rate_refusal(200, 25204));
        assert!(!is_rate_refusal(400, 40009));
        assert!(!is_rate_refusal(500, 0));
    }

    #[test]
    fn paths_and_indices() {
        for (i, ep) in QueryEndpoint::ALL.iter().enumerate() {
            assert_eq!(ep.index(), i);
            assert!(ep.path().starts_with("/api/v3/trade/"));
        }
    }
}
