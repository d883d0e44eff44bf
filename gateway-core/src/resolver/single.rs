//! One order queried on its own: `order-info` by clientOid, then its fills when it shows an
//! executed quantity; a place not found is asked again after the grace period (once), a
//! failed `order-info` after a growing backoff until [`MAX_ATTEMPTS`].

use super::pending::Pending;
use super::query::{Answer, QueryKind};
use super::rules::{MAX_ATTEMPTS, NS_PER_MS, RETRY_BACKOFF_MS};
use crate::rest_objects::{ExchangeFill, OpenOrder, MAX_LOOKBACK_MS};
use crate::tracker::{ExchangeState, StateSource};

/// One order queried on its own.
#[derive(Debug)]
pub(crate) struct Single {
    /// Its request.
    pub p: Pending,
    /// Found, with an executed quantity: its fills are asked next (since UTC ms).
    found: Option<(OpenOrder, u64)>,
}

/// What an answer to a [`Single`] leads to.
#[derive(Debug)]
pub(crate) enum SingleNext {
    /// Settled: the state for the tracker.
    Settled(ExchangeState),
    /// Found with an executed quantity: its fills are asked next.
    Fills(Single),
    /// Back into the queue, due at its `due_ns` (a place not found yet, or a failed query).
    Again(Pending),
    /// Given up after [`MAX_ATTEMPTS`] failed queries: left unresolved.
    GivenUp,
}

/// The state of one order queried on its own (`None`: not found).
fn state(
    account: usize,
    order: Option<OpenOrder>,
    fills: Vec<ExchangeFill>,
    oid: &str,
) -> ExchangeState {
    let not_found = if order.is_none() {
        vec![oid.to_owned()]
    } else {
        Vec::new()
    };
    ExchangeState {
        account,
        orders: order.into_iter().collect(),
        fills,
        not_found,
        source: StateSource::Resolution,
    }
}

impl Single {
    /// The query of request `p` (its `order-info` first).
    pub fn new(p: Pending) -> Self {
        Single { p, found: None }
    }

    /// Its current query.
    pub fn query(&self) -> QueryKind {
        match &self.found {
            None => QueryKind::OrderInfo {
                client_oid: self.p.req.client_oid,
            },
            Some((o, since_ms)) => QueryKind::Fills {
                category: Some(o.category),
                order_id: Some(o.order_id),
                since_ms: *since_ms,
            },
        }
    }

    /// Takes the answer to its query (of the kind [`Single::query`] expects, or
    /// [`Answer::Failed`]) at monotonic `now_ns`, gateway UTC `utc_ms`; `grace_ns`: how long
    /// a place not found waits to be asked again. A failed fills query settles the order
    /// without fills (the tracker completes a finished order's quantity with one synthetic
    /// fill).
    pub fn on_answer(
        mut self,
        answer: Answer,
        now_ns: u64,
        utc_ms: u64,
        grace_ns: u64,
    ) -> SingleNext {
        let account = self.p.req.account;
        let oid = self.p.req.client_oid;
        let oid = oid.as_str();
        if let Some((order, _)) = self.found.take() {
            let fills = match answer {
                Answer::Fills(fills) => fills,
                Answer::Failed(e) => {
                    tracing::warn!(account, client_oid = oid, error = %e, "resolve: fills query failed");
                    Vec::new()
                }
                _ => Vec::new(),
            };
            return SingleNext::Settled(state(account, Some(order), fills, oid));
        }
        match answer {
            Answer::Order(Some(order)) if order.cum_qty.is_zero() => {
                SingleNext::Settled(state(account, Some(order), Vec::new(), oid))
            }
            Answer::Order(Some(order)) => {
                self.found = Some((order, utc_ms.saturating_sub(MAX_LOOKBACK_MS)));
                SingleNext::Fills(self)
            }
            Answer::Order(None) if self.p.req.place && !self.p.asked_again => {
                self.p.asked_again = true;
                self.p.due_ns = now_ns.saturating_add(grace_ns);
                SingleNext::Again(self.p)
            }
            Answer::Order(None) => SingleNext::Settled(state(account, None, Vec::new(), oid)),
            Answer::Failed(e) => self.failed(&e, now_ns),
            _ => self.failed("answer of another kind than order-info", now_ns),
        }
    }

    /// A failed `order-info`: asked again after `attempts` × [`RETRY_BACKOFF_MS`], given up
    /// at [`MAX_ATTEMPTS`].
    fn failed(mut self, e: &str, now_ns: u64) -> SingleNext {
        let account = self.p.req.account;
        let oid = self.p.req.client_oid;
        self.p.attempts += 1;
        if self.p.attempts >= MAX_ATTEMPTS {
            tracing::error!(account, client_oid = oid.as_str(), error = %e, "resolve: giving up on querying the order; left unresolved");
            return SingleNext::GivenUp;
        }
        tracing::warn!(account, client_oid = oid.as_str(), error = %e, "resolve: order query failed, retrying");
        self.p.due_ns = now_ns + RETRY_BACKOFF_MS * NS_PER_MS * u64::from(self.p.attempts);
        SingleNext::Again(self.p)
    }
}
