//! Feeds the [`RiskBook`] from the tracker thread: each order sent is remembered with its open
//! quantity; fills move the position, Replaced changes the open quantity, and a terminal report
//! (Filled, Canceled, Rejected) ends the order in the book.
//!
//! The open orders are kept in a [`KeyTable`] sized at start for the tracker's open orders
//! (`[tracker] order_capacity`): an entry per order sent, removed at its end, so the table
//! neither grows nor rehashes under the churn of millions of orders.

use std::sync::Arc;

use codec::sbe::{Category, ExecType, ExecutionReport, OrdStatus, Side, Symbol};
use codec::Decimal;

use super::core::ReportMsg;
use super::request::NewOrder;
use crate::key_table::KeyTable;
use crate::risk::RiskBook;

#[derive(Debug, Clone, Copy)]
struct Open {
    category: Category,
    symbol: Symbol,
    side: Side,
    leaves: Decimal,
}

/// Open orders as the risk book counts them, keyed by (SessionID, current ClOrdID).
#[derive(Debug)]
pub struct RiskFeed {
    book: Arc<RiskBook>,
    open: KeyTable<Open>,
}

impl RiskFeed {
    /// A feed of `book` with no order open, room for [`crate::tracker::core::INITIAL_ORDERS`]
    /// open orders.
    pub fn new(book: Arc<RiskBook>) -> Self {
        RiskFeed::with_capacity(book, super::core::INITIAL_ORDERS)
    }

    /// A feed of `book` with no order open and room for `open_orders` open orders (allocated
    /// now; more doubles the table once). Sized like the tracker's `order_capacity`.
    pub fn with_capacity(book: Arc<RiskBook>, open_orders: usize) -> Self {
        RiskFeed {
            book,
            open: KeyTable::with_capacity(open_orders),
        }
    }

    /// Orders open in the feed.
    pub fn open_orders(&self) -> usize {
        self.open.len()
    }

    /// How many times the feed's table grew (0 while the open orders stay within its
    /// capacity).
    pub fn growths(&self) -> u64 {
        self.open.growths()
    }

    /// A new order was sent (the io thread already counted it in the book).
    pub fn on_new(&mut self, session_id: u64, n: &NewOrder) {
        self.open.insert(
            (session_id, n.cl_ord_id),
            Open {
                category: n.category,
                symbol: n.symbol,
                side: n.side,
                leaves: n.qty,
            },
        );
    }

    /// An order restored open from the journal at a restart (`cl_ord_id`: its current
    /// ClOrdID, the one its next report names): counted in the book
    /// ([`RiskBook::restore_open`]) and followed like a sent one. Once per order: an order the
    /// feed already follows is left as it is.
    pub fn on_restored(
        &mut self,
        session_id: u64,
        cl_ord_id: u64,
        category: Category,
        symbol: Symbol,
        side: Side,
        leaves: Decimal,
    ) {
        if self.open.contains_key(&(session_id, cl_ord_id)) {
            return;
        }
        self.book
            .restore_open(session_id, category, &symbol, side, leaves);
        self.open.insert(
            (session_id, cl_ord_id),
            Open {
                category,
                symbol,
                side,
                leaves,
            },
        );
    }

    /// A report the tracker produced for `session_id`.
    pub fn on_report(&mut self, session_id: u64, msg: &ReportMsg) {
        let ReportMsg::Exec(er) = msg else {
            return;
        };
        let key = if self.open.contains_key(&(session_id, er.cl_ord_id)) {
            (session_id, er.cl_ord_id)
        } else {
            (session_id, er.orig_cl_ord_id)
        };
        let Some(o) = self.open.get(&key).copied() else {
            return;
        };
        self.apply(session_id, key, o, er);
    }

    fn apply(&mut self, session_id: u64, key: (u64, u64), mut o: Open, er: &ExecutionReport) {
        let b = &self.book;
        match er.exec_type {
            ExecType::PartialFill | ExecType::Fill => {
                let q = er.last_qty.unwrap_or(Decimal::ZERO);
                b.on_fill(session_id, o.category, &o.symbol, o.side, q);
                o.leaves = o.leaves.checked_sub(q).unwrap_or(Decimal::ZERO);
                if er.ord_status == OrdStatus::Filled {
                    self.open.remove(&key);
                    b.on_order_end(session_id, o.category, &o.symbol, o.side, o.leaves);
                } else {
                    self.open.insert(key, o);
                }
            }
            ExecType::Canceled | ExecType::Rejected => {
                self.open.remove(&key);
                b.on_order_end(session_id, o.category, &o.symbol, o.side, o.leaves);
            }
            ExecType::Replaced => {
                self.open.remove(&key);
                let leaves = er.leaves_qty;
                b.on_leaves_changed(session_id, o.category, &o.symbol, o.side, o.leaves, leaves);
                o.leaves = leaves;
                self.open.insert((session_id, er.cl_ord_id), o);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use codec::sbe::TimeInForce;
    use codec::sbe::{Category, ExecType, OrdRejReason, OrdStatus, OrdType, Side, Symbol};
    use codec::Decimal;

    use super::*;
    use crate::risk::RiskSettings;

    fn order(cl: u64) -> NewOrder {
        NewOrder {
            cl_ord_id: cl,
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            price: Some(Decimal::new(100, 0).unwrap()),
            qty: Decimal::new(1, 0).unwrap(),
        }
    }

    /// 300 000 orders through the feed, each replaced then cancelled, at most 48 open at
    /// once: the table sized for 64 never grows and ends empty.
    #[test]
    fn churn_never_grows_the_table_and_every_end_leaves_it() {
        let book = Arc::new(RiskBook::new(&[], 1, &RiskSettings::default()));
        let mut feed = RiskFeed::with_capacity(book, 64);
        let report = |cl: u64, orig: u64, exec_type: ExecType, ord_status: OrdStatus| {
            let mut er = order(cl).rejected(OrdRejReason::BrokerOption, "", 0);
            er.orig_cl_ord_id = orig;
            er.exec_type = exec_type;
            er.ord_status = ord_status;
            ReportMsg::Exec(er)
        };
        // ClOrdIDs: root 3k+1, its replace 3k+2, its cancel 3k+3.
        for k in 0..300_000u64 {
            let root = 3 * k + 1;
            feed.on_new(7, &order(root));
            if k >= 48 {
                let old = 3 * (k - 48) + 1;
                feed.on_report(7, &report(old + 1, old, ExecType::Replaced, OrdStatus::New));
                feed.on_report(
                    7,
                    &report(old + 2, old + 1, ExecType::Canceled, OrdStatus::Canceled),
                );
            }
            assert!(feed.open_orders() <= 49);
        }
        assert_eq!((feed.open_orders(), feed.growths()), (48, 0));
    }
}
