//! REST-only venue operations (reference §7): `order-info`, `unfilled-orders`,
//! `cancel-symbol-order`, `history-orders`, `fills`, and the bounded fill log behind `fills`. Cursor pagination everywhere: newest first, a later
//! page holds ids strictly smaller than the cursor; the returned cursor is the last id of a
//! full page (empty otherwise).

use std::collections::VecDeque;

use crate::config::Category;
use crate::matching::{AccountId, CancelReason, Fill, Reject};
use crate::render;

use super::params::{CancelResult, PageQuery};
use super::{bump, missing, TradeOutcome, Venue};

/// Bounded memory of account fills (newest at the back; exec ids increase): at most
/// [`FillLog::CAP`] (100 000, over all accounts, about 17 MiB), none older than
/// [`FillLog::WINDOW_MS`]; the oldest leave first. The ring is allocated full-sized at start,
/// so it never grows by copy while orders flow (doubling a ring of 65 536 fills copied ~10 MiB
/// under the venue lock).
#[derive(Debug)]
pub(super) struct FillLog {
    pub(super) fills: VecDeque<(usize, Fill)>,
}

impl FillLog {
    /// Fills kept for queries, over all accounts.
    pub(super) const CAP: usize = 100_000;

    /// How long a fill stays queryable, ms: 90 days, as finished orders
    /// ([`super::history::History::WINDOW_MS`]).
    pub(super) const WINDOW_MS: u64 = super::history::History::WINDOW_MS;

    /// An empty log with room for [`FillLog::CAP`] fills.
    pub(super) fn new() -> FillLog {
        FillLog {
            fills: VecDeque::with_capacity(Self::CAP + 1),
        }
    }

    /// Keeps `f` (of book `book`); then the oldest leave while more than [`FillLog::CAP`] are
    /// kept or they are [`FillLog::WINDOW_MS`] or more older than `now_ms`.
    pub(super) fn insert(&mut self, book: usize, f: &Fill, now_ms: u64) {
        self.fills.push_back((book, f.clone()));
        while self.fills.len() > Self::CAP
            || self
                .fills
                .front()
                .is_some_and(|(_, f)| f.time_ms.saturating_add(Self::WINDOW_MS) <= now_ms)
        {
            self.fills.pop_front();
        }
    }

    /// Fills kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.fills.len()
    }

    /// Fills the ring holds without growing.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.fills.capacity()
    }
}

/// `{"list":[..],"cursor":".."}` from rendered items and their ids.
fn page_json(items: &[(u64, String)], limit: usize) -> String {
    let mut s = String::from("{\"list\":[");
    for (i, (_, json)) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(json);
    }
    s.push_str("],\"cursor\":\"");
    if items.len() == limit {
        if let Some((last, _)) = items.last() {
            s.push_str(&last.to_string());
        }
    }
    s.push_str("\"}");
    s
}

impl Venue {
    /// `POST /api/v3/trade/cancel-symbol-order`: cancels every open order of `owner` in
    /// `category` (only `symbol` when given), oldest first, with the usual `cancelled` /
    /// `normal_cancel` pushes. Unknown symbol → `25100`.
    pub fn cancel_symbol(
        &mut self,
        owner: AccountId,
        category: Category,
        symbol: Option<&str>,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> Result<Vec<CancelResult>, Reject> {
        let symbol = symbol.filter(|s| !s.is_empty());
        if let Some(s) = symbol {
            if self.book_index(category, s).is_none() {
                return Err(Reject::new(
                    25100,
                    format!("trading pair {s} does not exist"),
                ));
            }
        }
        let mut ids: Vec<(u64, usize)> = self
            .open
            .iter()
            .filter(|(_, l)| l.owner == owner)
            .filter(|(_, l)| {
                self.books.get(l.book).is_some_and(|b| {
                    b.category == category && symbol.is_none_or(|s| s == b.book.spec().symbol)
                })
            })
            .map(|(id, l)| (*id, l.book))
            .collect();
        ids.sort_unstable();
        let mut out = Vec::with_capacity(ids.len());
        for (id, book) in ids {
            let mut events = std::mem::take(&mut self.events);
            events.clear();
            let Some(entry) = self.books.get_mut(book) else {
                self.events = events;
                continue;
            };
            let client_oid = entry
                .book
                .order(id)
                .map(|o| o.client_oid.clone())
                .unwrap_or_default();
            let r = entry
                .book
                .cancel(id, CancelReason::Normal, now_ms, &mut events);
            if r.is_ok() {
                self.route(book, &events, now_ms, outcome);
            } else {
                bump(&self.counters.rejects);
            }
            self.events = events;
            out.push(CancelResult {
                order_id: id,
                client_oid,
                error: r.err(),
            });
        }
        Ok(out)
    }

    /// `GET /api/v3/trade/history-orders` data: finished orders of `owner` (the venue keeps the
    /// last 100 000 of all accounts, none that ended 90 days ago or more), newest first, by
    /// `createdTime` window, below the cursor (an orderId). A page walks the ordered ids down
    /// from the cursor and stops when full: its cost is the page's, not the kept history's (a
    /// restart's reconciliation reads up to a hundred pages).
    pub fn history_orders(&self, owner: AccountId, q: &PageQuery<'_>) -> String {
        let hits: Vec<(u64, usize)> = self
            .history
            .orders
            .range(..q.cursor.unwrap_or(u64::MAX))
            .rev()
            .filter(|(_, (_, o))| o.owner == owner)
            .filter(|(id, (book, o))| {
                self.books
                    .get(*book)
                    .is_some_and(|b| q.keeps(**id, b.category, &b.book.spec().symbol, o.created_ms))
            })
            .map(|(id, (book, _))| (*id, *book))
            .take(q.limit)
            .collect();
        let items: Vec<(u64, String)> = hits
            .iter()
            .filter_map(|(id, book)| {
                let entry = self.books.get(*book)?;
                let (_, o) = self.history.orders.get(id)?;
                Some((*id, render::order_rest(&entry.book, entry.category, o)))
            })
            .collect();
        page_json(&items, q.limit)
    }

    /// `GET /api/v3/trade/fills` data: fills of `owner` (the venue keeps the last 100 000 of all
    /// accounts, none 90 days old or more), newest first, below the cursor (an execId). The log
    /// is in execId order: a page starts at the cursor (binary search) and stops when full.
    pub fn fills(&self, owner: AccountId, q: &PageQuery<'_>) -> String {
        let log = &self.fill_log.fills;
        let below = q
            .cursor
            .map_or(log.len(), |c| log.partition_point(|(_, f)| f.exec_id < c));
        let hits: Vec<(u64, usize, &Fill)> = log
            .range(..below)
            .rev()
            .filter(|(_, f)| f.owner == owner && q.order_id.is_none_or(|o| o == f.order_id))
            .filter(|(book, f)| {
                self.books.get(*book).is_some_and(|b| {
                    q.keeps(f.exec_id, b.category, &b.book.spec().symbol, f.time_ms)
                })
            })
            .map(|(book, f)| (f.exec_id, *book, f))
            .take(q.limit)
            .collect();
        let items: Vec<(u64, String)> = hits
            .iter()
            .filter_map(|(id, book, f)| {
                let entry = self.books.get(*book)?;
                Some((*id, render::fill_rest(&entry.book, entry.category, f)))
            })
            .collect();
        page_json(&items, q.limit)
    }
}

/// The order queries by id and the open-order list.
impl Venue {
    /// `GET /api/v3/trade/order-info` data for an order of `owner` (open or finished), by
    /// `orderId` (wins) or `clientOid`; `25204` when unknown.
    pub fn order_info(
        &self,
        owner: AccountId,
        order_id: Option<&str>,
        client_oid: Option<&str>,
    ) -> Result<String, Reject> {
        let not_found = || Reject::new(25204, "Order does not exist");
        let id = match (
            order_id.filter(|s| !s.is_empty()),
            client_oid.filter(|s| !s.is_empty()),
        ) {
            (Some(id), _) => id.parse::<u64>().map_err(|_| not_found())?,
            (None, Some(c)) => {
                let key = (owner, c.to_string());
                match self.client_oids.get(&key) {
                    Some(id) => *id,
                    None => *self.history.by_client_oid.get(&key).ok_or_else(not_found)?,
                }
            }
            (None, None) => return Err(missing("orderId or clientOid")),
        };
        if let Some(loc) = self.open.get(&id).filter(|l| l.owner == owner) {
            let entry = self.books.get(loc.book).ok_or_else(not_found)?;
            let o = entry.book.order(id).ok_or_else(not_found)?;
            return Ok(render::order_rest(&entry.book, entry.category, o));
        }
        let (book, o) = self
            .history
            .orders
            .get(&id)
            .filter(|(_, o)| o.owner == owner)
            .ok_or_else(not_found)?;
        let entry = self.books.get(*book).ok_or_else(not_found)?;
        Ok(render::order_rest(&entry.book, entry.category, o))
    }

    /// `GET /api/v3/trade/unfilled-orders` data: open orders of `owner`, newest first, filtered
    /// by category / symbol, at most `limit`, below `cursor` (an orderId) when given:
    /// `{"list":[..],"cursor":"<last orderId or empty>"}`. Walks the ordered open orders down
    /// from the cursor and stops when the page is full (10 000 open orders: 100 pages, each
    /// the cost of its 100 orders).
    pub fn unfilled_orders(
        &self,
        owner: AccountId,
        category: Option<Category>,
        symbol: Option<&str>,
        limit: usize,
        cursor: Option<u64>,
    ) -> String {
        let ids: Vec<(u64, usize)> = self
            .open
            .range(..cursor.unwrap_or(u64::MAX))
            .rev()
            .filter(|(_, l)| l.owner == owner)
            .filter(|(_, l)| {
                self.books.get(l.book).is_some_and(|b| {
                    category.is_none_or(|c| c == b.category)
                        && symbol.is_none_or(|s| s.is_empty() || s == b.book.spec().symbol)
                })
            })
            .map(|(id, l)| (*id, l.book))
            .take(limit)
            .collect();
        let mut s = String::from("{\"list\":[");
        for (i, (id, book)) in ids.iter().enumerate() {
            let Some(entry) = self.books.get(*book) else {
                continue;
            };
            let Some(o) = entry.book.order(*id) else {
                continue;
            };
            if i > 0 {
                s.push(',');
            }
            s.push_str(&render::order_rest(&entry.book, entry.category, o));
        }
        s.push_str("],\"cursor\":\"");
        if ids.len() == limit {
            if let Some((last, _)) = ids.last() {
                s.push_str(&last.to_string());
            }
        }
        s.push_str("\"}");
        s
    }
}
