//! One exchange account as the io thread holds it: its signed REST client and its pool of
//! private WebSocket connections (the first one carries the `order`, `fill`, `position` and
//! `account` subscriptions; every one carries trade ops).

use std::cell::RefCell;
use std::collections::HashMap;

use codec::sbe::{RateBudgetEntry, RateBudgetReport, Symbol};

use super::exchange_link::ExchangeLink;
use crate::budget::{AccountBudget, Blocked};
use crate::exchange::rest::RestClient;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::out::{Flow, SessionOut};
pub use crate::types::{BudgetPolicy, TradeOp};
use gateway_core::decision::AccountGate;
use gateway_core::journal::record::Origin;

/// Least time between two unasked RateBudgetReports to one session.
const THROTTLE_REPORT_EVERY_NS: u64 = 1_000_000_000;

pub use gateway_core::decision::NotSent;

/// One account: name, REST client, WebSocket pool.
pub(super) struct AccountCtx {
    /// Index in the gateway's account list (what sessions and tracker frames refer to).
    pub(super) ix: usize,
    /// Configured name.
    pub(super) name: String,
    /// Categories the account may trade (empty: all loaded ones).
    pub(super) categories: Vec<codec::sbe::Category>,
    /// Signed REST client of the account's key.
    pub(super) rest: RestClient,
    /// The private WebSocket connections (at least one).
    pub(super) links: Vec<ExchangeLink>,
    /// Token buckets of the account (endpoints and connections).
    pub(super) budget: RefCell<AccountBudget>,
    /// Per session: when it was last sent an unasked RateBudgetReport (monotonic ns).
    pub(super) throttle_reports: RefCell<HashMap<u64, u64>>,
}

impl std::fmt::Debug for AccountCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountCtx")
            .field("ix", &self.ix)
            .field("name", &self.name)
            .field("links", &self.links.len())
            .finish()
    }
}

/// What the order decision (`gateway_core::decision`) needs of the account.
impl AccountGate for AccountCtx {
    fn name(&self) -> &str {
        &self.name
    }

    /// Configured to trade `category` (every loaded category when the account names none).
    fn trades(&self, category: codec::sbe::Category) -> bool {
        self.categories.is_empty() || self.categories.contains(&category)
    }

    fn is_up(&self) -> bool {
        AccountCtx::is_up(self)
    }
}

impl AccountCtx {
    /// True while the primary connection (the one with the subscriptions) is usable.
    pub(super) fn is_up(&self) -> bool {
        self.links.first().is_some_and(ExchangeLink::is_up)
    }

    /// Writes one trade op of `session_id` on a connection of the pool, once the rate budget
    /// allows it under `policy`: the one send of every order-carrying request (single orders,
    /// list batches, mass-cancel chunks). The budget chooses the connection
    /// (`gateway_core::budget::AccountBudget::acquire`): new orders spread over the pool; a
    /// modify or cancel goes on `order_conn`, the connection its order's place went on
    /// (`OrderEntry::conn_of`), while that one can take it. `Ok(n)`: written on connection `n`
    /// (what `OrderEntry::sent_new` keeps for a new order). `Err` means nothing was written:
    /// the request was not applied (answer it with `decision::Refusal::not_sent`); a throttled
    /// session is also sent an unasked RateBudgetReport on `out`
    /// ([`AccountCtx::note_throttled`]).
    pub(super) async fn send_trade(
        &self,
        op: TradeOp,
        order_conn: Option<usize>,
        policy: BudgetPolicy,
        json: &[u8],
        session_id: u64,
        out: &SessionOut,
    ) -> Result<usize, NotSent> {
        let sent = self.write_trade(op, order_conn, policy, json, out).await;
        if matches!(sent, Err(NotSent::Throttled { .. })) {
            self.note_throttled(session_id, out);
        }
        sent
    }

    async fn write_trade(
        &self,
        op: TradeOp,
        order_conn: Option<usize>,
        policy: BudgetPolicy,
        json: &[u8],
        out: &SessionOut,
    ) -> Result<usize, NotSent> {
        if !self.is_up() {
            return Err(NotSent::Down);
        }
        let start = now_ns();
        let n = loop {
            let now = now_ns();
            let got = self.budget.borrow_mut().acquire(op, now, order_conn, |n| {
                self.links.get(n).is_some_and(ExchangeLink::is_up)
            });
            match got {
                Ok(n) => break n,
                Err(Blocked { bucket, ready_at }) => {
                    let wait = match policy {
                        BudgetPolicy::Queue(d) => u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
                        BudgetPolicy::Reject => 0,
                    };
                    if ready_at == u64::MAX {
                        return Err(NotSent::Down);
                    }
                    if !crate::budget::in_time(start, wait, ready_at) {
                        return Err(NotSent::Throttled { bucket });
                    }
                    let d = ready_at.saturating_sub(now).max(100_000);
                    // The request waits for a token: what the session's output holds while
                    // the io thread works through frames it pipelined (a cork: its answers and
                    // the tracker's reports) leaves now, not after the wait.
                    out.uncork();
                    tokio::time::sleep(std::time::Duration::from_nanos(d)).await;
                }
            }
        };
        let Some(link) = self.links.get(n) else {
            return Err(NotSent::Down);
        };
        if link.send_text(json).await {
            Ok(n)
        } else {
            Err(NotSent::WriteFailed)
        }
    }

    /// Writes the account's RateBudgetReport (`request_id` 0: unasked) to `out`.
    pub(super) fn write_budget_report(&self, out: &SessionOut, request_id: u64) -> bool {
        let now = now_ns();
        let utc = utc_now_ns();
        let mut budget = self.budget.borrow_mut();
        let entries = budget.buckets(now).map(|b| RateBudgetEntry {
            bucket_name: Symbol::new(b.name).unwrap_or_default(),
            endpoint_id: b.endpoint_id,
            limit: b.limit,
            remaining: b.remaining,
            reset_time: utc.saturating_add(b.full_at.saturating_sub(now)),
        });
        let report = RateBudgetReport {
            request_id,
            transact_time: utc,
        };
        out.send(Flow::Application(Origin::OrderEntry), now, |buf| {
            // A report of a few buckets always fits a frame.
            let _ = report.encode_frame(entries, buf);
        })
    }

    /// After a request of `session_id` was throttled: sends it an unasked RateBudgetReport the
    /// first time, then at most once per second.
    fn note_throttled(&self, session_id: u64, out: &SessionOut) {
        let now = now_ns();
        {
            let mut last = self.throttle_reports.borrow_mut();
            if let Some(t) = last.get(&session_id) {
                if now.saturating_sub(*t) < THROTTLE_REPORT_EVERY_NS {
                    return;
                }
            }
            last.insert(session_id, now);
        }
        self.write_budget_report(out, 0);
    }
}
