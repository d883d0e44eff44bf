//! One sweep of an account: the requests it settles from the account's lists
//! (`history-orders` per category, `unfilled-orders`, `fills` since the oldest write moved
//! onto the exchange's clock), what the lists said so far, and the settlement: found →
//! the state's orders; not listed and the lists cannot vouch for it → one by one; a place not
//! listed → asked again after the grace period, then never created.

use std::collections::{HashMap, HashSet};

use codec::sbe::Category;

use super::pending::Pending;
use super::query::{Answer, QueryKind};
use super::rules::{cut, MAX_ATTEMPTS, NS_PER_MS, RETRY_BACKOFF_MS};
use crate::rest_objects::{ExchangeFill, OpenOrder, MAX_LOOKBACK_MS};
use crate::tracker::{ClockOffset, ExchangeState, StateSource};

/// Where a sweep stands: the query it waits to make next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SweepStep {
    /// `GET /api/v3/public/time` (no bound of the clock offset is known).
    ServerTime,
    /// `history-orders` of the account's `i`th category.
    History(usize),
    /// `unfilled-orders`.
    Open,
    /// `fills` of the account since `since_ms`.
    Fills,
    /// The lists are read and settled: the fills of the found orders from index `next` on
    /// (the fills list was cut), each since `since_ms` (UTC ms); done past the last.
    OrderFills {
        /// Index in the state's orders of the next order whose fills to query.
        next: usize,
        /// `startTime` of those queries, UTC ms.
        since_ms: u64,
    },
}

/// One sweep of an account in progress.
#[derive(Debug)]
pub(crate) struct Sweep {
    /// The requests it settles (moved out when the lists are read).
    pub items: Vec<Pending>,
    /// Its next query.
    step: SweepStep,
    /// `startTime` of the lists, UTC ms (exchange clock).
    since_ms: u64,
    /// Gateway UTC ms when `since_ms` was computed (the log's offset bound is judged there).
    lists_utc_ms: u64,
    /// Gateway monotonic ms at the same moment.
    lists_mono_ms: u64,
    /// Monotonic ns it started at (for the log).
    started_ns: u64,
    /// Orders listed so far by clientOid (open orders replace history entries).
    by_oid: HashMap<String, OpenOrder>,
    /// No order list was cut at the pager's limit.
    complete_orders: bool,
    /// The fills list was not cut.
    complete_fills: bool,
    /// What it found (filled in when the lists are read).
    state: ExchangeState,
    /// Places among the items (for the log line).
    places: usize,
    /// Requests the lists left to query one by one (for the log line).
    one_by_one: usize,
}

/// What settling a sweep's lists gives besides its state.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    /// Requests to query one by one (the lists cannot vouch for them).
    pub single: Vec<Pending>,
    /// Places not listed, asked again after the grace period.
    pub again: Vec<Pending>,
}

impl Sweep {
    /// A sweep of `items` of `account` started at `now_ns`; its first query is the server
    /// time unless `offset` is bounded at `utc_ms`, then the lists
    /// ([`Sweep::begin_lists`]).
    pub fn new(
        account: usize,
        items: Vec<Pending>,
        offset: &ClockOffset,
        categories: &[Category],
        now_ns: u64,
        utc_ms: u64,
    ) -> Self {
        let places = items.iter().filter(|p| p.req.place).count();
        let mut s = Sweep {
            items,
            step: SweepStep::ServerTime,
            since_ms: 0,
            lists_utc_ms: utc_ms,
            lists_mono_ms: now_ns / 1_000_000,
            started_ns: now_ns,
            by_oid: HashMap::new(),
            complete_orders: true,
            complete_fills: true,
            state: ExchangeState {
                account,
                source: StateSource::Resolution,
                ..ExchangeState::default()
            },
            places,
            one_by_one: 0,
        };
        if offset.bound(utc_ms, now_ns / 1_000_000).is_some() {
            s.begin_lists(offset, categories, now_ns, utc_ms);
        }
        s
    }

    /// Computes the lists' `startTime` at gateway UTC `utc_ms`: the earliest
    /// [`ClockOffset::list_since_ms`] of the items' write times; the next query is the first
    /// list.
    fn begin_lists(
        &mut self,
        offset: &ClockOffset,
        categories: &[Category],
        now_ns: u64,
        utc_ms: u64,
    ) {
        self.lists_utc_ms = utc_ms;
        self.lists_mono_ms = now_ns / 1_000_000;
        self.since_ms = self
            .items
            .iter()
            .map(|p| offset.list_since_ms(p.req.written_ms, utc_ms, now_ns / 1_000_000))
            .min()
            .unwrap_or(0);
        self.step = if categories.is_empty() {
            SweepStep::Open
        } else {
            SweepStep::History(0)
        };
    }

    /// The query of the current step (`categories`: the account's).
    pub fn query(&self, categories: &[Category]) -> QueryKind {
        match self.step {
            SweepStep::ServerTime => QueryKind::ServerTime,
            SweepStep::History(i) => match categories.get(i) {
                Some(&category) => QueryKind::HistoryOrders {
                    category,
                    since_ms: self.since_ms,
                },
                None => QueryKind::OpenOrders,
            },
            SweepStep::Open => QueryKind::OpenOrders,
            SweepStep::Fills => QueryKind::Fills {
                category: None,
                order_id: None,
                since_ms: self.since_ms,
            },
            SweepStep::OrderFills { next, since_ms } => {
                let o = self.state.orders.get(next);
                QueryKind::Fills {
                    category: o.map(|o| o.category),
                    order_id: o.map(|o| o.order_id),
                    since_ms,
                }
            }
        }
    }

    /// Takes one order list (history of one category, or the open orders).
    fn add_orders(&mut self, list: Vec<OpenOrder>) {
        self.complete_orders &= !cut(list.len());
        self.by_oid
            .extend(list.into_iter().map(|o| (o.client_oid.clone(), o)));
    }

    /// The newest `updatedTime` of the orders listed, ms (0 when none): it was past on the
    /// exchange's clock when the lists were read ([`ClockOffset::sample`]).
    fn newest_updated_ms(&self) -> u64 {
        self.by_oid
            .values()
            .map(|o| o.updated_time_ms)
            .max()
            .unwrap_or(0)
    }

    /// Settles the items from the lists and the account's `fills` at monotonic `now_ns`:
    /// found → the state's orders (and, the fills list being whole, their fills among
    /// `fills`); not listed and not a place, or the order lists cut → one by one; a place not
    /// listed → asked again at `now_ns + grace_ns` (once), then the state's `not_found`.
    /// The next step is the found orders' own fills ([`SweepStep::OrderFills`] from
    /// `order_fills_since_ms`, UTC ms) when the fills list was cut, else done.
    fn settle(
        &mut self,
        mut fills: Vec<ExchangeFill>,
        now_ns: u64,
        grace_ns: u64,
        order_fills_since_ms: u64,
    ) -> Settled {
        self.complete_fills = !cut(fills.len());
        let mut out = Settled::default();
        for mut p in std::mem::take(&mut self.items) {
            let oid = p.req.client_oid.as_str();
            match self.by_oid.get(oid) {
                Some(o) => self.state.orders.push(o.clone()),
                None if !self.complete_orders || !p.req.place => {
                    p.single = true;
                    out.single.push(p);
                }
                None if !p.asked_again => {
                    p.asked_again = true;
                    p.due_ns = now_ns.saturating_add(grace_ns);
                    out.again.push(p);
                }
                None => self.state.not_found.push(oid.to_owned()),
            }
        }
        self.one_by_one = out.single.len();
        if self.complete_fills {
            let wanted: HashSet<u64> = self.state.orders.iter().map(|o| o.order_id).collect();
            fills.retain(|f| wanted.contains(&f.order_id));
            self.state.fills = fills;
            self.step = SweepStep::OrderFills {
                next: self.state.orders.len(),
                since_ms: order_fills_since_ms,
            };
        } else {
            self.step = SweepStep::OrderFills {
                next: 0,
                since_ms: order_fills_since_ms,
            };
        }
        self.skip_unfilled();
        out
    }

    /// Moves [`SweepStep::OrderFills`] past the found orders that show no executed quantity
    /// (no fills to ask for).
    fn skip_unfilled(&mut self) {
        if let SweepStep::OrderFills { next, .. } = &mut self.step {
            while self
                .state
                .orders
                .get(*next)
                .is_some_and(|o| o.cum_qty.is_zero())
            {
                *next += 1;
            }
        }
    }

    /// Whether the sweep has nothing left to ask: its state is whole.
    pub fn done(&self) -> bool {
        matches!(self.step, SweepStep::OrderFills { next, .. } if next >= self.state.orders.len())
    }

    /// Takes the answer to its query (of the kind [`Sweep::query`] expects, or
    /// [`Answer::Failed`]) at monotonic `now_ns`, gateway UTC `utc_ms`, sampling `offset`
    /// (server time; the lists' newest `updatedTime`); `grace_ns`: how long a place not
    /// listed waits to be asked again. A failed server time or order fills query only leaves
    /// the offset unbounded or the order without fills. Errors: a list failed: the items to
    /// queue again, each due after [`RETRY_BACKOFF_MS`], one by one from [`MAX_ATTEMPTS`] / 2
    /// failures on (the sweep is over).
    pub fn on_answer(
        &mut self,
        offset: &mut ClockOffset,
        categories: &[Category],
        answer: Answer,
        now_ns: u64,
        utc_ms: u64,
        grace_ns: u64,
    ) -> Result<Settled, Vec<Pending>> {
        let account = self.state.account;
        match (self.step, answer) {
            (SweepStep::ServerTime, answer) => {
                match answer {
                    Answer::ServerTime(server_ms) => {
                        offset.sample(server_ms, utc_ms, now_ns / 1_000_000)
                    }
                    Answer::Failed(e) => {
                        tracing::warn!(account_ix = account, error = %e, "resolve: server time query failed")
                    }
                    _ => {}
                }
                self.begin_lists(offset, categories, now_ns, utc_ms);
            }
            (SweepStep::History(i), Answer::Orders(list)) => {
                self.add_orders(list);
                self.step = if i + 1 < categories.len() {
                    SweepStep::History(i + 1)
                } else {
                    SweepStep::Open
                };
            }
            (SweepStep::Open, Answer::Orders(list)) => {
                self.add_orders(list);
                self.step = SweepStep::Fills;
            }
            (SweepStep::Fills, Answer::Fills(fills)) => {
                offset.sample(self.newest_updated_ms(), utc_ms, now_ns / 1_000_000);
                let since_ms = utc_ms.saturating_sub(MAX_LOOKBACK_MS);
                return Ok(self.settle(fills, now_ns, grace_ns, since_ms));
            }
            (SweepStep::OrderFills { next, since_ms }, answer) => {
                match answer {
                    Answer::Fills(fills) => self.state.fills.extend(fills),
                    Answer::Failed(e) => {
                        let oid = self.state.orders.get(next).map(|o| o.client_oid.as_str());
                        tracing::warn!(account_ix = account, client_oid = oid, error = %e, "resolve: fills query failed");
                    }
                    _ => {}
                }
                self.step = SweepStep::OrderFills {
                    next: next + 1,
                    since_ms,
                };
                self.skip_unfilled();
            }
            (_, answer) => {
                let e = match answer {
                    Answer::Failed(e) => e,
                    _ => "answer of another kind than the list".to_owned(),
                };
                tracing::warn!(account_ix = account, error = %e, orders = self.items.len(), "resolve: listing the account failed, retrying");
                let retry_ns = now_ns + RETRY_BACKOFF_MS * NS_PER_MS;
                let mut again = std::mem::take(&mut self.items);
                for p in &mut again {
                    p.attempts += 1;
                    p.single = p.attempts >= MAX_ATTEMPTS / 2;
                    p.due_ns = retry_ns;
                }
                return Err(again);
            }
        }
        Ok(Settled::default())
    }

    /// Once [`Sweep::done`]: its state for the tracker (`None` when it found nothing and
    /// settled nothing as not found), logged at monotonic `now_ns` with `offset`'s bound.
    pub fn finish(&mut self, offset: &ClockOffset, now_ns: u64) -> Option<ExchangeState> {
        self.log_settled(offset, now_ns);
        Some(std::mem::take(&mut self.state))
            .filter(|s| !s.orders.is_empty() || !s.not_found.is_empty())
    }

    /// Logs the settled sweep (one line) at monotonic `now_ns`, with `offset`'s bound.
    fn log_settled(&self, offset: &ClockOffset, now_ns: u64) {
        tracing::info!(
            account_ix = self.state.account,
            found = self.state.orders.len(),
            not_found = self.state.not_found.len(),
            one_by_one = self.one_by_one,
            orders_listed = self.by_oid.len(),
            lists_complete = self.complete_orders,
            since_ms = self.since_ms,
            places = self.places,
            offset_bound_ms = offset
                .bound(self.lists_utc_ms, self.lists_mono_ms)
                .unwrap_or(i64::MIN),
            ms = now_ns.saturating_sub(self.started_ns) / 1_000_000,
            "resolve: settled from the account's lists"
        );
    }
}
