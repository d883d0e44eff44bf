//! One sweep of an account: the requests it settles from the account's lists
//! (`history-orders` per category, `unfilled-orders`, `fills` since the oldest write moved
//! onto the exchange's clock), what the lists said so far, and the settlement: found →
//! the state's orders; not listed and the lists cannot vouch for it → one by one; a place not
//! listed → asked again after the grace period, then never created.

use std::collections::{HashMap, HashSet};

use codec::sbe::Category;

use super::pending::Pending;
use super::query::QueryKind;
use super::rules::cut;
use crate::rest_objects::{ExchangeFill, OpenOrder};
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
    pub step: SweepStep,
    /// `startTime` of the lists, UTC ms (exchange clock).
    pub since_ms: u64,
    /// Gateway UTC ms when `since_ms` was computed (the log's offset bound is judged there).
    pub lists_utc_ms: u64,
    /// Monotonic ns it started at (for the log).
    pub started_ns: u64,
    /// Orders listed so far by clientOid (open orders replace history entries).
    by_oid: HashMap<String, OpenOrder>,
    /// No order list was cut at the pager's limit.
    complete_orders: bool,
    /// The fills list was not cut.
    complete_fills: bool,
    /// What it found (filled in when the lists are read).
    pub state: ExchangeState,
    /// Figures for the log line: places among the items, requests left to query one by one.
    places: usize,
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
        if offset.bound(utc_ms).is_some() {
            s.begin_lists(offset, categories, utc_ms);
        }
        s
    }

    /// Computes the lists' `startTime` at gateway UTC `utc_ms`: the earliest
    /// [`ClockOffset::list_since_ms`] of the items' write times; the next query is the first
    /// list.
    pub fn begin_lists(&mut self, offset: &ClockOffset, categories: &[Category], utc_ms: u64) {
        self.lists_utc_ms = utc_ms;
        self.since_ms = self
            .items
            .iter()
            .map(|p| offset.list_since_ms(p.req.written_ms, utc_ms))
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
    pub fn add_orders(&mut self, list: Vec<OpenOrder>) {
        self.complete_orders &= !cut(list.len());
        self.by_oid
            .extend(list.into_iter().map(|o| (o.client_oid.clone(), o)));
    }

    /// The newest `updatedTime` of the orders listed, ms (0 when none): it was past on the
    /// exchange's clock when the lists were read ([`ClockOffset::sample`]).
    pub fn newest_updated_ms(&self) -> u64 {
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
    pub fn settle(
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
    pub fn skip_unfilled(&mut self) {
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

    /// Logs the settled sweep (one line) at monotonic `now_ns`, with `offset`'s bound.
    pub fn log_settled(&self, offset: &ClockOffset, now_ns: u64) {
        tracing::info!(
            account = self.state.account,
            found = self.state.orders.len(),
            not_found = self.state.not_found.len(),
            one_by_one = self.one_by_one,
            orders_listed = self.by_oid.len(),
            lists_complete = self.complete_orders,
            since_ms = self.since_ms,
            places = self.places,
            offset_bound_ms = offset.bound(self.lists_utc_ms).unwrap_or(i64::MIN),
            ms = now_ns.saturating_sub(self.started_ns) / 1_000_000,
            "resolve: settled from the account's lists"
        );
    }
}
