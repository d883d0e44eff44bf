//! The rate budget of an account (sans-I/O; every call takes `now`, monotonic ns): one bucket
//! per trade endpoint (Bitget's per-UID quotas, shared by REST and WebSocket) and one per
//! private WebSocket connection of the account's pool (frames per second, `ping` included).
//! New orders leave a reserve of each connection's tokens to cancels; cancels have their own
//! endpoint buckets, so a burst of new orders never starves them. The signed query endpoints
//! (order-info, unfilled-orders, history-orders, fills) have their own budget
//! ([`queries::QueryBudget`]), paced rather than refused.
//!
//! The budget also chooses the connection of each trade op ([`AccountBudget::acquire`]):
//!
//! - **New orders spread** (place-order, batch-place): the usable connection with the most
//!   tokens left (new orders leave each connection's cancel reserve); ties, which is every
//!   choice on the unlimited tier, go round robin: to the first tied connection at or after
//!   the one after the pool's last choice. On a limited tier the tokens decide and the
//!   connections stay level; on the unlimited tier the orders take the connections in turn.
//! - **An order's later ops follow it** (modify, cancel, and their batch forms when every
//!   item's order went on one connection): they go on the connection its place went on while
//!   that connection is up and has a token for them, so a cancel can never overtake its own
//!   place on another connection (the venue would answer "order does not exist"). When that
//!   connection is down or out of tokens, or the order's connection is not known (restored
//!   from a journal, a batch of orders of several connections, mass cancels), the op takes
//!   the pool's choice as a new order does.

pub mod config;
pub mod queries;
pub mod window;

pub use config::{Limits, Overrides, RateConfig, Tier};
pub use queries::{AfterRefusal, QueryBudget, QueryEndpoint, QueryLimits};
pub use window::Window;

use crate::types::TradeOp;

/// The endpoint buckets: name (as in `gateway::engine::NotSent::Throttled` and
/// RateBudgetEntry) and endpoint id. Connection buckets are [`CONNECTION_BUCKET`] with id
/// [`CONNECTION_ID_BASE`] + the connection's index.
pub const ENDPOINTS: [(&str, u16); 6] = [
    ("place-order", 1),
    ("batch-place", 2),
    ("modify-order", 3),
    ("batch-modify", 4),
    ("cancel-order", 5),
    ("batch-cancel", 6),
];

/// Name of a per-connection bucket.
pub const CONNECTION_BUCKET: &str = "ws-connection";

/// Endpoint id of connection 0's bucket (connection `n` is this + `n`).
pub const CONNECTION_ID_BASE: u16 = 100;

/// Index of `op`'s bucket in [`ENDPOINTS`].
pub fn endpoint_index(op: TradeOp) -> usize {
    match op {
        TradeOp::Place => 0,
        TradeOp::BatchPlace => 1,
        TradeOp::Modify => 2,
        TradeOp::BatchModify => 3,
        TradeOp::Cancel => 4,
        TradeOp::BatchCancel => 5,
    }
}

/// Frames a connection sent before the budget starts: login, plus the subscribe on the first.
pub fn startup_frames(conn: usize) -> u32 {
    if conn == 0 {
        2
    } else {
        1
    }
}

/// The reject text naming a throttled bucket.
pub fn throttled_text(bucket: &str) -> &'static str {
    match bucket {
        "place-order" => "rate budget exhausted: place-order",
        "batch-place" => "rate budget exhausted: batch-place",
        "modify-order" => "rate budget exhausted: modify-order",
        "batch-modify" => "rate budget exhausted: batch-modify",
        "cancel-order" => "rate budget exhausted: cancel-order",
        "batch-cancel" => "rate budget exhausted: batch-cancel",
        CONNECTION_BUCKET => "rate budget exhausted: ws-connection",
        _ => "rate budget exhausted",
    }
}

/// No token now: the bucket that is empty and when a token of it will be free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocked {
    /// Bucket name.
    pub bucket: &'static str,
    /// Earliest time (monotonic ns) the op could go.
    pub ready_at: u64,
}

/// One bucket's state for RateBudgetReport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketState {
    /// Bucket name.
    pub name: &'static str,
    /// Endpoint id.
    pub endpoint_id: u16,
    /// Sends per window (0 = unlimited).
    pub limit: u32,
    /// Sends left now (`u32::MAX` when unlimited).
    pub remaining: u32,
    /// When the bucket is full again (monotonic ns).
    pub full_at: u64,
}

/// The budget of one account.
#[derive(Debug, Clone)]
pub struct AccountBudget {
    endpoints: [Window; 6],
    conns: Vec<Window>,
    cancel_reserve: u32,
    /// Where the pool's next tie-break starts (the connection after its last choice).
    next: usize,
    /// Trade ops taken per connection since start, by endpoint ([`ENDPOINTS`] order).
    sent: Vec<[u64; 6]>,
}

impl AccountBudget {
    /// A budget for `connections` connections; each counts its start-up frames at `now`.
    pub fn new(limits: &Limits, connections: usize, now: u64) -> AccountBudget {
        let w = |l| Window::new(l, limits.window_ns);
        let mut conns: Vec<Window> = (0..connections).map(|_| w(limits.connection)).collect();
        for (n, c) in conns.iter_mut().enumerate() {
            for _ in 0..startup_frames(n).min(limits.connection) {
                c.take(now);
            }
        }
        AccountBudget {
            endpoints: limits.endpoints.map(w),
            sent: vec![[0; 6]; conns.len()],
            conns,
            cancel_reserve: limits.cancel_reserve,
            next: 0,
        }
    }

    /// Takes the tokens for `op` at `now` and returns the connection (index in the pool) to
    /// write on, among the usable ones (`up(n)`). `order_conn`: for a modify or cancel (single
    /// or batch), the connection the order's place went on, if known (ignored for new
    /// orders). The choice (module doc): an order's later op stays on `order_conn` while it is
    /// up and has a token; otherwise, and for new orders, the connection with the most tokens
    /// left, ties round robin. New orders and modifies leave the cancel reserve of each
    /// connection. Takes nothing when blocked: `Err` names the empty bucket and when it has a
    /// token (`ready_at` = `u64::MAX` when no connection is usable).
    pub fn acquire(
        &mut self,
        op: TradeOp,
        now: u64,
        order_conn: Option<usize>,
        up: impl Fn(usize) -> bool,
    ) -> Result<usize, Blocked> {
        let ix = endpoint_index(op);
        let (name, _) = ENDPOINTS[ix];
        let ep = &mut self.endpoints[ix];
        if !ep.can_take(now, 0) {
            return Err(Blocked {
                bucket: name,
                ready_at: ep.ready_at(now, 0),
            });
        }
        let reserve = if op.is_cancel() {
            0
        } else {
            self.cancel_reserve
        };
        let follow = order_conn.filter(|&c| {
            !op.is_new()
                && up(c)
                && self
                    .conns
                    .get_mut(c)
                    .is_some_and(|w| w.can_take(now, reserve))
        });
        let n = match follow {
            Some(c) => c,
            None => {
                let n = self.pool_choice(now, reserve, &up)?;
                self.next = n.saturating_add(1);
                n
            }
        };
        self.endpoints[ix].take(now);
        if let Some(c) = self.conns.get_mut(n) {
            c.take(now);
        }
        if let Some(s) = self.sent.get_mut(n) {
            s[ix] = s[ix].saturating_add(1);
        }
        Ok(n)
    }

    /// The usable connection that can take a token above `reserve` with the most tokens left;
    /// ties to the first at or after `self.next` (round robin). Takes nothing.
    fn pool_choice(
        &mut self,
        now: u64,
        reserve: u32,
        up: &impl Fn(usize) -> bool,
    ) -> Result<usize, Blocked> {
        let len = self.conns.len();
        let start = if self.next < len { self.next } else { 0 };
        let mut best: Option<(usize, u32)> = None;
        let mut ready_at = u64::MAX;
        for k in 0..len {
            let n = (start + k) % len;
            if !up(n) {
                continue;
            }
            let Some(c) = self.conns.get_mut(n) else {
                continue;
            };
            if c.can_take(now, reserve) {
                let left = c.remaining(now);
                if best.is_none_or(|(_, b)| left > b) {
                    best = Some((n, left));
                }
            } else {
                ready_at = ready_at.min(c.ready_at(now, reserve));
            }
        }
        best.map(|(n, _)| n).ok_or(Blocked {
            bucket: CONNECTION_BUCKET,
            ready_at,
        })
    }

    /// Trade ops written on each connection since start (index = connection), by endpoint in
    /// [`ENDPOINTS`] order (place-order, batch-place, modify-order, batch-modify,
    /// cancel-order, batch-cancel); pings and start-up frames are not counted.
    pub fn sent_per_connection(&self) -> &[[u64; 6]] {
        &self.sent
    }

    /// Takes a token of connection `conn` for a `ping` (which may use the cancel reserve);
    /// `Err(ready_at)` when the connection has none.
    pub fn acquire_ping(&mut self, conn: usize, now: u64) -> Result<(), u64> {
        let Some(c) = self.conns.get_mut(conn) else {
            return Ok(());
        };
        if c.can_take(now, 0) {
            c.take(now);
            Ok(())
        } else {
            Err(c.ready_at(now, 0))
        }
    }

    /// Every bucket's state at `now`: the endpoints, then the connections.
    pub fn buckets(&mut self, now: u64) -> impl Iterator<Item = BucketState> + '_ {
        let eps = self
            .endpoints
            .iter_mut()
            .zip(ENDPOINTS)
            .map(move |(w, (name, id))| state(w, name, id, now));
        let conns = self.conns.iter_mut().enumerate().map(move |(n, w)| {
            let id = CONNECTION_ID_BASE.saturating_add(u16::try_from(n).unwrap_or(u16::MAX));
            state(w, CONNECTION_BUCKET, id, now)
        });
        eps.chain(conns)
    }
}

fn state(w: &mut Window, name: &'static str, endpoint_id: u16, now: u64) -> BucketState {
    let limit = w.limit();
    BucketState {
        name,
        endpoint_id,
        limit,
        remaining: w.remaining(now),
        full_at: w.full_at(now),
    }
}

/// The deadline of a queued op that arrived at `now` and may wait `wait_ns`, and whether a
/// token ready at `ready_at` comes in time.
pub fn in_time(now: u64, wait_ns: u64, ready_at: u64) -> bool {
    ready_at <= now.saturating_add(wait_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn limits(connection: u32, place: u32, cancel: u32) -> Limits {
        Limits {
            connection,
            endpoints: [place, 5, 10, 10, cancel, 5],
            cancel_reserve: 2,
            window_ns: S,
        }
    }

    #[test]
    fn place_order_bucket_binds_and_names_itself() {
        let mut b = AccountBudget::new(&limits(0, 10, 10), 1, 0);
        for _ in 0..10 {
            assert_eq!(b.acquire(TradeOp::Place, 0, None, |_| true), Ok(0));
        }
        assert_eq!(
            b.acquire(TradeOp::Place, 1, None, |_| true),
            Err(Blocked {
                bucket: "place-order",
                ready_at: S
            })
        );
        // Cancels and modifies have their own buckets.
        assert_eq!(b.acquire(TradeOp::Cancel, 1, None, |_| true), Ok(0));
        assert_eq!(b.acquire(TradeOp::Modify, 1, None, |_| true), Ok(0));
        assert_eq!(b.acquire(TradeOp::Place, S, None, |_| true), Ok(0));
    }

    #[test]
    fn cancels_keep_the_connection_reserve() {
        // One connection of 10 frames, 2 already used by login + subscribe.
        let mut b = AccountBudget::new(&limits(10, 100, 100), 1, 0);
        let mut placed = 0;
        while b.acquire(TradeOp::Place, 0, None, |_| true).is_ok() {
            placed += 1;
        }
        assert_eq!(placed, 6);
        assert_eq!(
            b.acquire(TradeOp::Place, 0, None, |_| true)
                .map_err(|e| e.bucket),
            Err(CONNECTION_BUCKET)
        );
        assert_eq!(b.acquire(TradeOp::Cancel, 0, None, |_| true), Ok(0));
        assert_eq!(b.acquire(TradeOp::BatchCancel, 0, None, |_| true), Ok(0));
        assert!(b.acquire(TradeOp::Cancel, 0, None, |_| true).is_err());
        // The ping waits for a token too.
        assert_eq!(b.acquire_ping(0, 0), Err(S));
        assert_eq!(b.acquire_ping(0, S), Ok(()));
    }

    #[test]
    fn pool_spreads_over_connections_and_skips_down_ones() {
        let mut b = AccountBudget::new(&limits(10, 100, 100), 2, 0);
        let mut per = [0; 2];
        while let Ok(n) = b.acquire(TradeOp::Place, 0, None, |_| true) {
            per[n] += 1;
        }
        // Connection 0 lost 2 frames to login + subscribe, connection 1 one to login.
        assert_eq!(per, [6, 7]);
        let mut b = AccountBudget::new(&limits(10, 100, 100), 2, 0);
        for _ in 0..7 {
            assert_eq!(b.acquire(TradeOp::Place, 0, None, |n| n == 1), Ok(1));
        }
        assert!(b.acquire(TradeOp::Place, 0, None, |n| n == 1).is_err());
        assert_eq!(b.acquire(TradeOp::Place, 0, None, |_| true), Ok(0));
    }

    /// The unlimited tier (every bucket 0 = unlimited): every connection ties.
    fn unlimited() -> Limits {
        Limits {
            connection: 0,
            endpoints: [0; 6],
            cancel_reserve: 2,
            window_ns: S,
        }
    }

    #[test]
    fn new_orders_spread_round_robin_on_the_unlimited_tier() {
        let mut b = AccountBudget::new(&unlimited(), 3, 0);
        let mut got = Vec::new();
        for (t, op) in [
            TradeOp::Place,
            TradeOp::Place,
            TradeOp::BatchPlace,
            TradeOp::Place,
            TradeOp::BatchPlace,
            TradeOp::Place,
            TradeOp::Place,
        ]
        .into_iter()
        .enumerate()
        {
            // A new order's `order_conn` means nothing: it spreads anyway.
            got.push(b.acquire(op, t as u64, Some(0), |_| true).unwrap());
        }
        assert_eq!(got, [0, 1, 2, 0, 1, 2, 0]);
        // A down connection is skipped and the turn goes on after the one chosen.
        assert_eq!(b.acquire(TradeOp::Place, 10, None, |n| n != 1), Ok(2));
        assert_eq!(b.acquire(TradeOp::Place, 11, None, |_| true), Ok(0));
        let placed: Vec<u64> = b
            .sent_per_connection()
            .iter()
            .map(|s| s[0] + s[1])
            .collect();
        assert_eq!(placed, [4, 2, 3]);
    }

    #[test]
    fn an_orders_cancel_and_modify_stay_on_its_connection() {
        let mut b = AccountBudget::new(&unlimited(), 2, 0);
        let a = b.acquire(TradeOp::Place, 0, None, |_| true).unwrap();
        let c = b.acquire(TradeOp::Place, 1, None, |_| true).unwrap();
        assert_eq!((a, c), (0, 1));
        // Each order's later ops follow its place, whatever the turn says; following does
        // not move the turn of new orders.
        for (t, op) in [TradeOp::Modify, TradeOp::Cancel, TradeOp::BatchCancel]
            .into_iter()
            .enumerate()
        {
            let t = 10 + 2 * t as u64;
            assert_eq!(b.acquire(op, t, Some(c), |_| true), Ok(c));
            assert_eq!(b.acquire(op, t + 1, Some(c), |_| true), Ok(c));
            assert_eq!(b.acquire(op, t + 1, Some(a), |_| true), Ok(a));
        }
        assert_eq!(
            b.acquire(TradeOp::BatchModify, 20, Some(1), |_| true),
            Ok(1)
        );
        assert_eq!(b.acquire(TradeOp::Place, 21, None, |_| true), Ok(0));
        let sent = b.sent_per_connection();
        // Per round, one op of order `a` on connection 0 and two of order `c` on 1.
        assert_eq!((sent[0][4], sent[1][4]), (1, 2));
        assert_eq!((sent[0][2], sent[1][2]), (1, 2));
    }

    #[test]
    fn an_orders_ops_fall_back_to_the_pool_when_its_connection_cannot_take_them() {
        // Down: the cancel takes the pool's choice.
        let mut b = AccountBudget::new(&unlimited(), 2, 0);
        assert_eq!(b.acquire(TradeOp::Place, 0, None, |_| true), Ok(0));
        assert_eq!(b.acquire(TradeOp::Cancel, 1, Some(0), |n| n != 0), Ok(1));
        // A connection the pool does not have (a stale index) is no connection.
        assert_eq!(b.acquire(TradeOp::Cancel, 2, Some(7), |_| true), Ok(0));
        assert_eq!(
            b.acquire(TradeOp::Cancel, 3, Some(1), |_| false),
            Err(Blocked {
                bucket: CONNECTION_BUCKET,
                ready_at: u64::MAX
            })
        );

        // Limited tier: 10 frames per connection, 2 of them a cancel reserve.
        let mut b = AccountBudget::new(&limits(10, 100, 100), 2, 0);
        let mut on0 = 0;
        while on0 < 6 {
            if b.acquire(TradeOp::Place, 0, None, |_| true) == Ok(0) {
                on0 += 1;
            }
        }
        // Connection 0 is down to its cancel reserve: a cancel of its order still goes on it
        // (though connection 1 has more tokens), a modify (which leaves the reserve) moves.
        // (Connection 1 placed 6 of its 9 frames left: 3 left, to connection 0's 2.)
        assert_eq!(b.sent_per_connection()[1][0], 6);
        assert_eq!(b.acquire(TradeOp::Cancel, 1, Some(0), |_| true), Ok(0));
        assert_eq!(b.acquire(TradeOp::Modify, 1, Some(0), |_| true), Ok(1));
        assert_eq!(b.acquire(TradeOp::Cancel, 1, Some(0), |_| true), Ok(0));
        // Reserve spent: the next cancel of that order falls back to connection 1.
        assert_eq!(b.acquire(TradeOp::Cancel, 1, Some(0), |_| true), Ok(1));
    }

    #[test]
    fn queue_deadline_against_ready_time() {
        let mut b = AccountBudget::new(&limits(0, 2, 10), 1, 0);
        b.acquire(TradeOp::Place, 0, None, |_| true).unwrap();
        b.acquire(TradeOp::Place, 100, None, |_| true).unwrap();
        let blocked = b.acquire(TradeOp::Place, 200, None, |_| true).unwrap_err();
        assert_eq!(blocked.ready_at, S);
        assert!(in_time(200, S, blocked.ready_at));
        assert!(!in_time(200, S / 2, blocked.ready_at));
        assert_eq!(b.acquire(TradeOp::Place, S, None, |_| true), Ok(0));
    }

    #[test]
    fn every_bucket_has_a_reject_text() {
        for (name, _) in ENDPOINTS.iter().chain([&(CONNECTION_BUCKET, 0)]) {
            assert!(throttled_text(name).ends_with(name));
        }
    }

    #[test]
    fn report_lists_every_bucket() {
        let mut b = AccountBudget::new(&limits(10, 10, 10), 2, 0);
        b.acquire(TradeOp::Place, 0, None, |_| true).unwrap();
        let all: Vec<BucketState> = b.buckets(10).collect();
        assert_eq!(all.len(), 8);
        assert_eq!(all[0].name, "place-order");
        assert_eq!((all[0].limit, all[0].remaining, all[0].full_at), (10, 9, S));
        assert_eq!(all[5].name, "batch-cancel");
        assert_eq!((all[6].endpoint_id, all[6].remaining), (100, 8));
        assert_eq!((all[7].endpoint_id, all[7].remaining), (101, 8));
    }
}
