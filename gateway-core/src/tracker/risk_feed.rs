//! Feeds the [`RiskBook`] from the tracker thread: each order sent is remembered with its open
//! quantity; fills move the position, Replaced changes the open quantity, and a terminal report
//! (Filled, Canceled, Rejected) ends the order in the book.

use std::collections::HashMap;
use std::sync::Arc;

use codec::sbe::{Category, ExecType, ExecutionReport, OrdStatus, Side, Symbol};
use codec::Decimal;

use super::core::ReportMsg;
use super::request::NewOrder;
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
    open: HashMap<(u64, u64), Open>,
}

impl RiskFeed {
    /// A feed of `book` with no order open.
    pub fn new(book: Arc<RiskBook>) -> Self {
        RiskFeed {
            book,
            open: HashMap::with_capacity(1024),
        }
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
