//! Resolution of unknown outcomes on the io thread: the tracker sends a [`ResolveRequest`]
//! (clientOid, account) for every order whose request's outcome is unknown; this task queries
//! the order by clientOid (`GET /api/v3/trade/order-info`, reference §7) and its fills, and
//! hands the exchange's state back to the tracker (`TrackerInput::ExchangeState`), which reports
//! every change exactly once. Nothing is ever resent.
//!
//! Queries are paced per account ([`QUERY_INTERVAL`], half the 20/s/UID quota of the query
//! endpoints, the other half left to reconciliation). An order that is not found is asked
//! again after a grace period (2 × push deadline: a place may still be on its way through the
//! exchange); still not found, it was never created.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use super::io::IoCtx;
use crate::exchange::rest_history::{self, ExchangeFill};
use crate::exchange::rest_orders::OpenOrder;
use crate::tracker::{ExchangeState, ResolveRequest, StateSource, TrackerInput};

/// Least time between two queries of one account (10/s).
pub const QUERY_INTERVAL: Duration = Duration::from_millis(100);

/// Attempts of a query that fails (network, quota) before the order is left unresolved.
pub const MAX_ATTEMPTS: u32 = 10;

/// Paces the queries of each account.
struct Pacer {
    next: Vec<Cell<Instant>>,
}

impl Pacer {
    fn new(accounts: usize) -> Self {
        let now = Instant::now();
        Pacer {
            next: (0..accounts).map(|_| Cell::new(now)).collect(),
        }
    }

    /// Waits for the account's next query slot.
    async fn wait(&self, account: usize) {
        let Some(next) = self.next.get(account) else {
            return;
        };
        let slot = next.get().max(Instant::now());
        next.set(slot + QUERY_INTERVAL);
        tokio::time::sleep_until(slot).await;
    }
}

/// Runs until the tracker drops its sender: one local task per request.
pub(super) async fn run(
    ctx: Rc<IoCtx>,
    mut rx: UnboundedReceiver<ResolveRequest>,
    grace: Duration,
) {
    let pacer = Rc::new(Pacer::new(ctx.accounts.len()));
    while let Some(req) = rx.recv().await {
        let (ctx, pacer) = (Rc::clone(&ctx), Rc::clone(&pacer));
        tokio::task::spawn_local(async move { resolve_one(&ctx, &pacer, req, grace).await });
    }
}

/// Queries one order (asking again after `grace` when a place is not found, retrying failed
/// queries) and sends its state to the tracker.
async fn resolve_one(ctx: &IoCtx, pacer: &Pacer, req: ResolveRequest, grace: Duration) {
    let oid = req.client_oid.as_str();
    let Some(acc) = ctx.accounts.get(req.account) else {
        return;
    };
    let mut asked_again = false;
    let mut attempts = 0;
    loop {
        pacer.wait(req.account).await;
        match rest_history::order_info(&acc.rest, oid).await {
            Ok(Some(order)) => {
                let fills = order_fills(&acc.rest, pacer, req.account, &order).await;
                deliver(ctx, req.account, Some(order), fills, oid);
                return;
            }
            Ok(None) if req.place && !asked_again => {
                asked_again = true;
                tokio::time::sleep(grace).await;
            }
            Ok(None) => {
                deliver(ctx, req.account, None, Vec::new(), oid);
                return;
            }
            Err(e) => {
                attempts += 1;
                if attempts >= MAX_ATTEMPTS {
                    tracing::error!(account = req.account, client_oid = oid, error = %e, "resolve: giving up on querying the order; left unresolved");
                    return;
                }
                tracing::warn!(account = req.account, client_oid = oid, error = %e, "resolve: order query failed, retrying");
                tokio::time::sleep(Duration::from_millis(250) * attempts).await;
            }
        }
    }
}

/// The fills of a found order (none queried while it shows no executed quantity). A failed
/// query gives none: a finished order's missing quantity is then filled in by the tracker as
/// one synthetic fill (see `tracker::reconcile`).
async fn order_fills(
    rest: &crate::exchange::rest::RestClient,
    pacer: &Pacer,
    account: usize,
    order: &OpenOrder,
) -> Vec<ExchangeFill> {
    if order.cum_qty.is_zero() {
        return Vec::new();
    }
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let since_ms = now_ms.saturating_sub(super::reconcile::MAX_LOOKBACK_MS);
    pacer.wait(account).await;
    match rest_history::fills(rest, Some(order.category), since_ms, Some(order.order_id)).await {
        Ok(fills) => fills,
        Err(e) => {
            tracing::warn!(account, client_oid = %order.client_oid, error = %e, "resolve: fills query failed");
            Vec::new()
        }
    }
}

/// Hands the exchange's state of one order to the tracker (`None`: not found).
fn deliver(
    ctx: &IoCtx,
    account: usize,
    order: Option<OpenOrder>,
    fills: Vec<ExchangeFill>,
    oid: &str,
) {
    let not_found = if order.is_none() {
        vec![oid.to_owned()]
    } else {
        Vec::new()
    };
    let state = ExchangeState {
        account,
        orders: order.into_iter().collect(),
        fills,
        not_found,
        source: StateSource::Resolution,
    };
    let _ = ctx
        .tracker_tx
        .send(TrackerInput::ExchangeState { state, reply: None });
}
