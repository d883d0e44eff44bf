//! REST-only venue operations (reference §7): `cancel-symbol-order`, `history-orders`, `fills`,
//! and the bounded fill log behind `fills`. Cursor pagination everywhere: newest first, a later
//! page holds ids strictly smaller than the cursor; the returned cursor is the last id of a
//! full page (empty otherwise).

use std::collections::VecDeque;

use crate::config::Category;
use crate::matching::{AccountId, CancelReason, Fill, Reject};
use crate::render;

use super::params::{CancelResult, PageQuery};
use super::{bump, TradeOutcome, Venue};

/// Bounded memory of account fills (newest at the back; exec ids increase).
#[derive(Debug, Default)]
pub(super) struct FillLog {
    fills: VecDeque<(usize, Fill)>,
}

impl FillLog {
    /// Fills kept for queries.
    const CAP: usize = 100_000;

    pub(super) fn insert(&mut self, book: usize, f: &Fill) {
        self.fills.push_back((book, f.clone()));
        while self.fills.len() > Self::CAP {
            self.fills.pop_front();
        }
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

    /// `GET /api/v3/trade/history-orders` data: finished orders of `owner` (the last 100 000
    /// kept), newest first, by `createdTime` window, below the cursor (an orderId).
    pub fn history_orders(&self, owner: AccountId, q: &PageQuery<'_>) -> String {
        let mut hits: Vec<(u64, usize)> = self
            .history
            .orders
            .iter()
            .filter(|(_, (_, o))| o.owner == owner)
            .filter(|(id, (book, o))| {
                self.books
                    .get(*book)
                    .is_some_and(|b| q.keeps(**id, b.category, &b.book.spec().symbol, o.created_ms))
            })
            .map(|(id, (book, _))| (*id, *book))
            .collect();
        hits.sort_unstable_by_key(|h| std::cmp::Reverse(h.0));
        hits.truncate(q.limit);
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

    /// `GET /api/v3/trade/fills` data: fills of `owner` (the last 100 000 of all accounts kept),
    /// newest first, below the cursor (an execId).
    pub fn fills(&self, owner: AccountId, q: &PageQuery<'_>) -> String {
        let mut hits: Vec<(u64, usize, &Fill)> = self
            .fill_log
            .fills
            .iter()
            .filter(|(_, f)| f.owner == owner && q.order_id.is_none_or(|o| o == f.order_id))
            .filter(|(book, f)| {
                self.books.get(*book).is_some_and(|b| {
                    q.keeps(f.exec_id, b.category, &b.book.spec().symbol, f.time_ms)
                })
            })
            .map(|(book, f)| (f.exec_id, *book, f))
            .collect();
        hits.sort_unstable_by_key(|h| std::cmp::Reverse(h.0));
        hits.truncate(q.limit);
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
