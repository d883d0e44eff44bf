//! Resolution of unknown outcomes on the io thread: the tracker sends a [`ResolveRequest`]
//! (clientOid, account) for every order whose request's outcome is unknown; this task learns the
//! order's state at the exchange and hands it back to the tracker
//! (`TrackerInput::ExchangeState`), which reports every change exactly once. Nothing is ever
//! resent.
//!
//! Each account has one worker and one queue. When a few requests are due, each order is
//! queried by clientOid (`GET /api/v3/trade/order-info` and its fills, reference §7). When
//! [`SWEEP_MIN`] or more are due at once (a link drop leaves every request in flight unknown: up
//! to sessions × window of them), the worker lists the account's orders and fills instead
//! (`unfilled-orders`, `history-orders` per category and `fills` since the oldest request's
//! [`ResolveRequest::written_ms`], moved onto the exchange's clock by a bound of its offset,
//! [`ClockOffset`]) and settles them all with one state: a handful of queries instead of one per
//! order, so that resolution keeps up with any number of orders in flight. The offset is
//! sampled from `GET /api/v3/public/time` when no bound is known and from every list's
//! `updatedTime`s; without a bound the lists start 30 s before the write (the skew Bitget
//! tolerates), which at high order rates reaches the pager's limit.
//! An order the lists cannot vouch for (not a place, or lists cut at the pager's limit) is
//! queried on its own.
//!
//! Every page of every query takes a token of the account's query budget
//! (`gateway_core::budget::queries`, shared with reconciliation: together they stay within the
//! venue's per-UID quotas, and a page refused for rate is asked again after a backoff); on top
//! of that the worker spaces its queries per account ([`QUERY_INTERVAL`], half the 20/s/UID
//! quota, the other half left to reconciliation). A place that is not found is asked again
//! after a grace period (2 × push deadline: it may still be on its way through the exchange);
//! still not found, it was never created.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::account::AccountCtx;
use super::ctx::IoCtx;
use crate::exchange::error::ExchangeError;
use crate::exchange::rest_history::{self, ExchangeFill};
use crate::exchange::rest_orders::{self, OpenOrder, MAX_PAGES, PAGE_LIMIT};
use crate::tracker::{ClockOffset, ExchangeState, ResolveRequest, StateSource, TrackerInput};

/// Least time between two queries of one account (10/s).
pub const QUERY_INTERVAL: Duration = Duration::from_millis(100);

/// Attempts of a query that fails (network, quota) before the order is left unresolved.
pub const MAX_ATTEMPTS: u32 = 10;

/// Requests due at once for one account from which the worker lists the account's orders
/// instead of querying each.
pub const SWEEP_MIN: usize = 4;

/// How long the worker waits, once a request is due, for others to gather (the requests a
/// link drop or a burst of outcome-unknown replies makes arrive within this).
pub const GATHER: Duration = Duration::from_millis(10);

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

/// A request waiting in an account's queue.
#[derive(Debug, Clone, Copy)]
struct Pending {
    req: ResolveRequest,
    /// Not before this.
    due: Instant,
    /// A place already found missing once (the second miss settles it).
    asked_again: bool,
    /// Query this order on its own (the lists cannot vouch for it).
    single: bool,
    /// Failed queries so far.
    attempts: u32,
}

/// One account's queue and the worker's wake-up.
#[derive(Default)]
struct Queue {
    items: RefCell<Vec<Pending>>,
    wake: Notify,
}

impl Queue {
    fn push(&self, p: Pending) {
        self.items.borrow_mut().push(p);
        self.wake.notify_one();
    }

    /// Waits until at least one request is due and takes every due request.
    async fn take_due(&self) -> Vec<Pending> {
        loop {
            let next = self.items.borrow().iter().map(|p| p.due).min();
            match next {
                None => self.wake.notified().await,
                Some(at) if at > Instant::now() => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(at) => {}
                        _ = self.wake.notified() => {}
                    }
                }
                Some(_) => {
                    tokio::time::sleep(GATHER).await;
                    let now = Instant::now();
                    let (due, rest): (Vec<_>, Vec<_>) =
                        self.items.take().into_iter().partition(|p| p.due <= now);
                    *self.items.borrow_mut() = rest;
                    return due;
                }
            }
        }
    }
}

/// Runs until the tracker drops its sender: one worker per account.
pub(super) async fn run(
    ctx: Rc<IoCtx>,
    mut rx: UnboundedReceiver<ResolveRequest>,
    grace: Duration,
) {
    let pacer = Rc::new(Pacer::new(ctx.accounts.len()));
    let queues: Vec<Rc<Queue>> = (0..ctx.accounts.len())
        .map(|_| Rc::new(Queue::default()))
        .collect();
    for (account, q) in queues.iter().enumerate() {
        let (ctx, pacer, q) = (Rc::clone(&ctx), Rc::clone(&pacer), Rc::clone(q));
        tokio::task::spawn_local(async move { worker(&ctx, &pacer, &q, account, grace).await });
    }
    while let Some(req) = rx.recv().await {
        if let Some(q) = queues.get(req.account) {
            q.push(Pending {
                req,
                due: Instant::now(),
                asked_again: false,
                single: req.written_ms == 0,
                attempts: 0,
            });
        }
    }
}

/// One account's worker: settles what is due, many at once by listing, a few one by one.
async fn worker(ctx: &IoCtx, pacer: &Pacer, q: &Queue, account: usize, grace: Duration) {
    let Some(acc) = ctx.accounts.get(account) else {
        return;
    };
    let mut offset = ClockOffset::default();
    loop {
        let due = merge_by_order(q.take_due().await);
        let (mut single, listed): (Vec<_>, Vec<_>) = due.into_iter().partition(|p| p.single);
        if listed.len() >= SWEEP_MIN {
            let sweep = Sweep {
                ctx,
                acc,
                pacer,
                q,
                account,
                grace,
            };
            single.extend(sweep.run(listed, &mut offset).await);
        } else {
            single.extend(listed);
        }
        for p in single {
            query_one(ctx, acc, pacer, q, p, grace).await;
        }
    }
}

/// One entry per order (requests for the same order are settled together): a place if any
/// was, the oldest `written_ms`.
fn merge_by_order(due: Vec<Pending>) -> Vec<Pending> {
    let mut at: HashMap<String, usize> = HashMap::with_capacity(due.len());
    let mut out: Vec<Pending> = Vec::with_capacity(due.len());
    for p in due {
        match at.get(p.req.client_oid.as_str()) {
            Some(&i) => {
                let m = &mut out[i];
                m.req.place |= p.req.place;
                m.asked_again &= p.asked_again;
                m.single |= p.single;
                m.req.written_ms = m.req.written_ms.min(p.req.written_ms);
            }
            None => {
                at.insert(p.req.client_oid.as_str().to_owned(), out.len());
                out.push(p);
            }
        }
    }
    out
}

/// Whether a list query may have been cut at the pager's limit.
fn cut(n: usize) -> bool {
    n >= MAX_PAGES * PAGE_LIMIT
}

/// Gateway UTC now, ms.
fn utc_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One sweep of an account: what it needs.
struct Sweep<'a> {
    ctx: &'a IoCtx,
    acc: &'a AccountCtx,
    pacer: &'a Pacer,
    q: &'a Queue,
    account: usize,
    grace: Duration,
}

impl Sweep<'_> {
    /// Samples the exchange's clock (`GET /api/v3/public/time`) into `offset`; a failure leaves
    /// it unbounded (the lists then start 30 s earlier).
    async fn sample_server_time(&self, offset: &mut ClockOffset) {
        self.pacer.wait(self.account).await;
        match self.acc.rest.public_get(SERVER_TIME_PATH).await {
            Ok(data) => {
                let read_ms = utc_now_ms();
                let server_ms = data
                    .get("serverTime")
                    .and_then(|v| v.as_str().and_then(|s| s.parse().ok()).or(v.as_u64()))
                    .unwrap_or(0);
                offset.sample(server_ms, read_ms);
            }
            Err(e) => {
                tracing::warn!(account = self.account, error = %e, "resolve: server time query failed")
            }
        }
    }

    /// Settles `items` from the account's lists since the oldest write (on the exchange's
    /// clock, see [`ClockOffset::list_since_ms`]); returns the requests to query one by one (the
    /// lists cannot vouch for them). Places not listed are asked again after `grace`, then
    /// settled as never created.
    async fn run(&self, items: Vec<Pending>, offset: &mut ClockOffset) -> Vec<Pending> {
        let Sweep {
            ctx,
            acc,
            pacer,
            q,
            account,
            grace,
        } = *self;
        if offset.bound(utc_now_ms()).is_none() {
            self.sample_server_time(offset).await;
        }
        let now_ms = utc_now_ms();
        let since_ms = items
            .iter()
            .map(|p| offset.list_since_ms(p.req.written_ms, now_ms))
            .min()
            .unwrap_or(0);
        let items_places = items.iter().filter(|p| p.req.place).count();
        let started = Instant::now();
        let lists = list_account(ctx, acc, pacer, account, since_ms).await;
        let (by_oid, mut fills, complete) = match lists {
            Ok(l) => {
                // Every listed order's `updatedTime` was past on the exchange's clock when the
                // lists were read.
                let newest = l.0.values().map(|o| o.updated_time_ms).max().unwrap_or(0);
                offset.sample(newest, utc_now_ms());
                l
            }
            Err(e) => {
                tracing::warn!(account, error = %e, orders = items.len(), "resolve: listing the account failed, retrying");
                let retry = Instant::now() + Duration::from_millis(250);
                for mut p in items {
                    p.attempts += 1;
                    p.single = p.attempts >= MAX_ATTEMPTS / 2;
                    p.due = retry;
                    q.push(p);
                }
                return Vec::new();
            }
        };
        let mut state = ExchangeState {
            account,
            source: StateSource::Resolution,
            ..ExchangeState::default()
        };
        let mut single = Vec::new();
        for mut p in items {
            let oid = p.req.client_oid.as_str();
            match by_oid.get(oid) {
                Some(o) => state.orders.push(o.clone()),
                None if !complete.orders || !p.req.place => {
                    p.single = true;
                    single.push(p);
                }
                None if !p.asked_again => {
                    p.asked_again = true;
                    p.due = Instant::now() + grace;
                    q.push(p);
                }
                None => state.not_found.push(oid.to_owned()),
            }
        }
        if complete.fills {
            let wanted: std::collections::HashSet<u64> =
                state.orders.iter().map(|o| o.order_id).collect();
            fills.retain(|f| wanted.contains(&f.order_id));
            state.fills = fills;
        } else {
            for o in &state.orders {
                state
                    .fills
                    .extend(order_fills(&acc.rest, pacer, account, o).await);
            }
        }
        tracing::info!(
            account,
            found = state.orders.len(),
            not_found = state.not_found.len(),
            one_by_one = single.len(),
            orders_listed = by_oid.len(),
            lists_complete = complete.orders,
            since_ms,
            places = items_places,
            offset_bound_ms = offset.bound(now_ms).unwrap_or(i64::MIN),
            ms = started.elapsed().as_millis() as u64,
            "resolve: settled from the account's lists"
        );
        if !state.orders.is_empty() || !state.not_found.is_empty() {
            let _ = ctx
                .tracker_tx
                .send(TrackerInput::ExchangeState { state, reply: None });
        }
        single
    }
}

/// Bitget's server time (`data.serverTime`, ms as a string; reference §2).
const SERVER_TIME_PATH: &str = "/api/v3/public/time";

/// Whether the lists were complete (not cut at the pager's limit).
#[derive(Debug, Clone, Copy)]
struct Complete {
    orders: bool,
    fills: bool,
}

/// The account's open orders, its orders of every category it trades created since
/// `since_ms` (by clientOid), and its fills since then.
async fn list_account(
    ctx: &IoCtx,
    acc: &AccountCtx,
    pacer: &Pacer,
    account: usize,
    since_ms: u64,
) -> Result<(HashMap<String, OpenOrder>, Vec<ExchangeFill>, Complete), ExchangeError> {
    let mut by_oid = HashMap::new();
    let mut complete = Complete {
        orders: true,
        fills: true,
    };
    for c in super::reconcile::categories_of(ctx, acc) {
        pacer.wait(account).await;
        let list = rest_history::history_orders(&acc.rest, *c, since_ms).await?;
        complete.orders &= !cut(list.len());
        by_oid.extend(list.into_iter().map(|o| (o.client_oid.clone(), o)));
    }
    pacer.wait(account).await;
    let open = rest_orders::unfilled_orders(&acc.rest, None, None).await?;
    complete.orders &= !cut(open.len());
    by_oid.extend(open.into_iter().map(|o| (o.client_oid.clone(), o)));
    pacer.wait(account).await;
    let fills = rest_history::fills(&acc.rest, None, since_ms, None).await?;
    complete.fills = !cut(fills.len());
    Ok((by_oid, fills, complete))
}

/// Queries one order by clientOid (a place not found is queued again after `grace`, once) and
/// sends its state to the tracker; a failed query is retried.
async fn query_one(
    ctx: &IoCtx,
    acc: &AccountCtx,
    pacer: &Pacer,
    q: &Queue,
    mut p: Pending,
    grace: Duration,
) {
    let account = p.req.account;
    let oid = p.req.client_oid.as_str();
    pacer.wait(account).await;
    match rest_history::order_info(&acc.rest, oid).await {
        Ok(Some(order)) => {
            let fills = order_fills(&acc.rest, pacer, account, &order).await;
            deliver(ctx, account, Some(order), fills, oid);
        }
        Ok(None) if p.req.place && !p.asked_again => {
            p.asked_again = true;
            p.due = Instant::now() + grace;
            q.push(p);
        }
        Ok(None) => deliver(ctx, account, None, Vec::new(), oid),
        Err(e) => {
            p.attempts += 1;
            if p.attempts >= MAX_ATTEMPTS {
                tracing::error!(account, client_oid = oid, error = %e, "resolve: giving up on querying the order; left unresolved");
                return;
            }
            tracing::warn!(account, client_oid = oid, error = %e, "resolve: order query failed, retrying");
            p.due = Instant::now() + Duration::from_millis(250) * p.attempts;
            q.push(p);
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
    let since_ms = utc_now_ms().saturating_sub(super::reconcile::MAX_LOOKBACK_MS);
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
