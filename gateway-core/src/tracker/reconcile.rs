//! What the exchange's REST queries say about orders, applied to the tracker as if the `order`
//! and `fill` channels had said it: the way missed changes (a reconnect, an outcome-unknown
//! request, a watchdog flag) reach the strategy, each exactly once.
//!
//! Fills are applied first (each `execId` counts once, so fills already pushed are skipped), then
//! orders (a `live` order not yet acknowledged gets ExecutionReport New, a changed price/qty
//! completes a pending replace, a `cancelled` order gets Canceled once its fills are counted).
//! A finished order whose fills are not all listed (the fills query window missed some) gets one
//! synthetic fill for the rest (ExecID 0, LastPx = the rest's average price), so that CumQty and
//! OrdStatus always end equal to the exchange's.

use codec::decimal::Rounding;
use codec::json::{FillPush, OrderPush};
use codec::sbe::OrdStatus;
use codec::Decimal;

use super::core::Tracker;
use super::request::{NewOrder, RequestKind};
use crate::ids::ClientOid;
use crate::rest_objects::ExchangeFill;
use crate::rest_objects::OpenOrder;

pub use super::exchange_state::{ApplySummary, ExchangeState, StateSource};

impl Tracker {
    /// Applies the exchange's view of `state.account`'s orders. `t_read_ns` (monotonic) is when
    /// the answers arrived, `utc_ns` the wall clock for reports whose source gives no time.
    pub fn apply_exchange_state(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        state: &ExchangeState,
    ) -> ApplySummary {
        let mut sum = ApplySummary::default();
        self.reports.origin = state.source.origin();
        let reports_before = self.stats.execution_reports + self.stats.cancel_rejects;
        let unknown_before = self.stats.unknown_pushes;
        let dups_before = self.stats.duplicate_fills;
        let late_before = self.stats.late_for_evicted;
        for o in &state.orders {
            self.fill_blank(o);
        }
        if state.source == StateSource::Restart {
            for o in &state.orders {
                sum.adopted += u64::from(self.adopt(t_read_ns, o));
            }
        }
        let mut fills: Vec<&ExchangeFill> = state.fills.iter().collect();
        fills.sort_by_key(|f| (f.exec_time_ms, f.exec_id));
        let mut applied_fills = 0u64;
        for f in fills {
            let order_id = f.order_id.to_string();
            let exec_id = f.exec_id.to_string();
            let push = FillPush {
                order_id: &order_id,
                client_oid: &f.client_oid,
                exec_id: &exec_id,
                category: Some(f.category.into()),
                symbol: f.symbol.as_str(),
                side: f.side.into(),
                exec_price: f.exec_price,
                exec_qty: f.exec_qty,
                exec_value: f.exec_value,
                trade_scope: "",
                fee: None,
                fee_coin: "",
                exec_time_ms: f.exec_time_ms,
            };
            let reports = self.stats.execution_reports;
            self.on_fill(t_read_ns, &push);
            if self.stats.execution_reports > reports {
                applied_fills += 1;
            }
        }
        for o in &state.orders {
            let order_id = o.order_id.to_string();
            let finished = matches!(o.status, OrdStatus::Filled | OrdStatus::Canceled);
            if finished {
                sum.synthetic_fills += u64::from(self.complete_fills(t_read_ns, utc_ns, o));
            }
            let push = OrderPush {
                category: Some(o.category.into()),
                symbol: o.symbol.as_str(),
                order_id: &order_id,
                client_oid: &o.client_oid,
                price: o.price,
                qty: o.qty,
                side: o.side.into(),
                order_type: o.ord_type.into(),
                time_in_force: Some(o.time_in_force.into()),
                order_status: o.status.into(),
                cancel_reason: &o.cancel_reason,
                cum_exec_qty: o.cum_qty,
                cum_exec_value: o.cum_value,
                avg_price: o.avg_px.unwrap_or(Decimal::ZERO),
                hold_side: None,
                created_time_ms: 0,
                updated_time_ms: if o.updated_time_ms == 0 {
                    utc_ns / 1_000_000
                } else {
                    o.updated_time_ms
                },
                reduce_only: false,
            };
            self.on_order_push(t_read_ns, &push);
        }
        if state.source != StateSource::Resolution {
            sum.not_shown = self.query_not_shown(state);
        }
        sum.new_fills = applied_fills;
        sum.not_found = state.not_found.len() as u64;
        sum.reports = self.stats.execution_reports + self.stats.cancel_rejects - reports_before;
        sum.unknown = self.stats.unknown_pushes - unknown_before;
        // Answers that repeat what the channels already said are not duplicates on the wire.
        self.stats.unknown_pushes = unknown_before;
        self.stats.duplicate_fills = dups_before;
        self.stats.late_for_evicted = late_before;
        self.retire_ended(t_read_ns);
        sum
    }

    /// After a reconciliation (`state` lists the account's open orders and the orders created
    /// since some time): each order of that account still open here that the lists leave out
    /// ended while the link was down but was created before the lists' window (the history
    /// list filters on creation time), so it is queried by clientOid
    /// ([`UnknownCause::NotShown`](super::unknown::UnknownCause::NotShown)). Returns how many.
    fn query_not_shown(&mut self, state: &ExchangeState) -> u64 {
        let shown: std::collections::HashSet<(u64, u64)> = state
            .orders
            .iter()
            .filter_map(|o| ClientOid::parse(&o.client_oid))
            .collect();
        let mut missing: Vec<(u64, u64)> = self
            .orders()
            .filter(|o| {
                !o.is_terminal()
                    && self.account_of(o.session_id) == state.account
                    && !shown.contains(&(o.session_id, o.root))
            })
            .map(|o| (o.session_id, o.root))
            .collect();
        missing.sort_unstable();
        let before = self.stats.not_shown;
        for (session_id, root) in missing {
            self.resolve_not_shown(session_id, root);
        }
        self.stats.not_shown - before
    }

    /// Gives an order known only by its ClOrdID (crash recovery, see `restore`) the details the
    /// exchange shows.
    fn fill_blank(&mut self, o: &OpenOrder) {
        let Some(key) = ClientOid::parse(&o.client_oid) else {
            return;
        };
        let Some(order) = self.orders_mut().get_mut(&key) else {
            return;
        };
        if !super::request::is_blank(&order.symbol, order.qty) {
            return;
        }
        order.category = o.category;
        order.symbol = o.symbol;
        order.side = o.side;
        order.ord_type = o.ord_type;
        order.time_in_force = o.time_in_force;
        order.price = o.price;
        order.qty = o.qty;
    }

    /// Registers an exchange order of one of this gateway's sessions that the tracker does not
    /// know, as a new order not yet acknowledged (applying it then reports New and what
    /// followed). Returns true when taken over. An evicted order (tombstoned) is known: it ended
    /// and was reported, and is never brought back.
    fn adopt(&mut self, t_read_ns: u64, o: &OpenOrder) -> bool {
        let Some((session_id, root)) = ClientOid::parse(&o.client_oid) else {
            return false;
        };
        if self.order(session_id, root).is_some() || self.tombstone(session_id, root).is_some() {
            return false;
        }
        self.register(
            session_id,
            root,
            RequestKind::New(NewOrder {
                cl_ord_id: root,
                category: o.category,
                symbol: o.symbol,
                side: o.side,
                ord_type: o.ord_type,
                time_in_force: o.time_in_force,
                price: o.price,
                qty: o.qty,
            }),
            t_read_ns,
        );
        true
    }

    /// A finished exchange order whose fills the tracker has not all counted: one synthetic fill
    /// for the difference. Returns true when one was applied.
    fn complete_fills(&mut self, t_read_ns: u64, utc_ns: u64, o: &OpenOrder) -> bool {
        let Some(key) = ClientOid::parse(&o.client_oid) else {
            return false;
        };
        let Some(order) = self.order(key.0, key.1) else {
            return false;
        };
        if order.is_terminal() || order.cum_qty >= o.cum_qty {
            return false;
        }
        let (Some(qty), Some(value)) = (
            o.cum_qty.checked_sub(order.cum_qty),
            o.cum_value.checked_sub(order.cum_value),
        ) else {
            return false;
        };
        let px = value
            .checked_div(qty, 8, Rounding::HalfEven)
            .filter(|p| !p.is_zero())
            .or(o.avg_px)
            .unwrap_or(Decimal::ZERO);
        let order_id = o.order_id.to_string();
        let push = FillPush {
            order_id: &order_id,
            client_oid: &o.client_oid,
            exec_id: "0",
            category: Some(o.category.into()),
            symbol: o.symbol.as_str(),
            side: o.side.into(),
            exec_price: px,
            exec_qty: qty,
            exec_value: value,
            trade_scope: "",
            fee: None,
            fee_coin: "",
            exec_time_ms: if o.updated_time_ms == 0 {
                utc_ns / 1_000_000
            } else {
                o.updated_time_ms
            },
        };
        self.on_fill(t_read_ns, &push);
        true
    }

    /// The subscribed link of `account` dropped at `t_ns` (monotonic): its pushes are missing
    /// until it is back and reconciled.
    pub fn on_link_down(&mut self, account: usize, t_ns: u64) {
        self.links_down.entry(account).or_insert(t_ns);
        self.unknown_on_link_down(account);
    }

    /// The link of `account` is back and reconciled at `t_ns` (monotonic).
    pub fn on_link_up(&mut self, account: usize, _t_ns: u64) {
        self.links_down.remove(&account);
        self.release_held_resolutions(account);
    }

    /// Since when (monotonic ns) the link of `account` has been down, if it is.
    pub fn link_down_since(&self, account: usize) -> Option<u64> {
        self.links_down.get(&account).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracker::core::ReportMsg;
    use crate::tracker::request::SentRequest;
    use codec::sbe::{Category, ExecType, OrdType, Side, Symbol, TimeInForce};

    const S: u64 = 3;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn placed(t: &mut Tracker, root: u64) {
        t.on_sent(SentRequest {
            req_id: root,
            session_id: S,
            root,
            kind: RequestKind::New(NewOrder {
                cl_ord_id: root,
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                price: Some(d("100")),
                qty: d("3"),
            }),
            t_read_ns: 1,
            t_written_ns: 2,
        });
    }

    fn order(root: u64, status: OrdStatus, cum: &str, value: &str) -> OpenOrder {
        OpenOrder {
            order_id: 900 + root,
            client_oid: ClientOid::new(S, root).as_str().to_owned(),
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            price: Some(d("100")),
            qty: d("3"),
            cum_qty: d(cum),
            avg_px: None,
            status,
            cum_value: d(value),
            cancel_reason: String::new(),
            updated_time_ms: 1_700_000_000_000,
        }
    }

    fn fill(root: u64, exec_id: u64, qty: &str) -> ExchangeFill {
        ExchangeFill {
            exec_id,
            order_id: 900 + root,
            client_oid: ClientOid::new(S, root).as_str().to_owned(),
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            exec_price: d("100"),
            exec_qty: d(qty),
            exec_value: d("0"),
            exec_time_ms: 1_700_000_000_000 + exec_id,
        }
    }

    fn exec_types(t: &mut Tracker) -> Vec<(ExecType, OrdStatus, Decimal)> {
        t.drain_reports()
            .filter_map(|r| match r.msg {
                ReportMsg::Exec(er) => Some((er.exec_type, er.ord_status, er.cum_qty)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn missed_ack_and_fill_are_reported_once() {
        let mut t = Tracker::new();
        placed(&mut t, 1);
        let state = ExchangeState {
            account: 0,
            orders: vec![order(1, OrdStatus::PartiallyFilled, "1", "100")],
            fills: vec![fill(1, 11, "1")],
            not_found: Vec::new(),
            source: StateSource::Reconnect,
        };
        let sum = t.apply_exchange_state(10, 20, &state);
        assert_eq!(sum.new_fills, 1);
        assert_eq!(sum.reports, 2);
        assert_eq!(
            exec_types(&mut t),
            vec![
                (ExecType::New, OrdStatus::New, d("0")),
                (ExecType::PartialFill, OrdStatus::PartiallyFilled, d("1")),
            ]
        );
        // The same view again changes nothing and counts no duplicate.
        let sum = t.apply_exchange_state(11, 21, &state);
        assert_eq!(sum.reports, 0);
        assert!(exec_types(&mut t).is_empty());
        assert_eq!(t.stats().duplicate_fills, 0);
        assert_eq!(t.order(S, 1).unwrap().order_id, 901);
    }

    #[test]
    fn cancelled_with_unlisted_fills_gets_a_synthetic_fill_then_canceled() {
        let mut t = Tracker::new();
        placed(&mut t, 2);
        let state = ExchangeState {
            account: 0,
            orders: vec![order(2, OrdStatus::Canceled, "2", "202")],
            fills: vec![fill(2, 21, "1")],
            not_found: Vec::new(),
            source: StateSource::Reconnect,
        };
        let sum = t.apply_exchange_state(10, 20, &state);
        assert_eq!(sum.synthetic_fills, 1);
        let got = exec_types(&mut t);
        assert_eq!(
            got,
            vec![
                (ExecType::New, OrdStatus::New, d("0")),
                (ExecType::PartialFill, OrdStatus::PartiallyFilled, d("1")),
                (ExecType::PartialFill, OrdStatus::PartiallyFilled, d("2")),
                (ExecType::Canceled, OrdStatus::Canceled, d("2")),
            ]
        );
        let o = t.order(S, 2).unwrap();
        assert_eq!(o.cum_value, d("202"));
        assert_eq!(t.apply_exchange_state(11, 21, &state).reports, 0);
    }

    #[test]
    fn orders_of_others_are_counted_unknown() {
        let mut t = Tracker::new();
        let mut o = order(5, OrdStatus::New, "0", "0");
        o.client_oid = "someone-else".into();
        let sum = t.apply_exchange_state(
            1,
            2,
            &ExchangeState {
                account: 0,
                orders: vec![o],
                fills: Vec::new(),
                not_found: vec!["x".into()],
                source: StateSource::Reconnect,
            },
        );
        assert_eq!(sum.unknown, 1);
        assert_eq!(sum.not_found, 1);
        assert_eq!(t.stats().unknown_pushes, 0);
    }

    #[test]
    fn adoption_takes_over_unknown_orders_of_our_form_only() {
        let mut t = Tracker::new();
        let mut other = order(6, OrdStatus::New, "0", "0");
        other.client_oid = "not-ours".into();
        let state = ExchangeState {
            account: 0,
            orders: vec![order(4, OrdStatus::PartiallyFilled, "1", "100"), other],
            fills: vec![fill(4, 41, "1")],
            not_found: Vec::new(),
            source: StateSource::Restart,
        };
        let sum = t.apply_exchange_state(1, 2, &state);
        assert_eq!((sum.adopted, sum.unknown), (1, 1));
        assert_eq!(
            exec_types(&mut t),
            vec![
                (ExecType::New, OrdStatus::New, d("0")),
                (ExecType::PartialFill, OrdStatus::PartiallyFilled, d("1")),
            ]
        );
        let o = t.order(S, 4).unwrap();
        assert_eq!((o.cl_ord_id, o.order_id), (4, 904));
        // Applied again: known now, nothing new.
        assert_eq!(t.apply_exchange_state(3, 4, &state).adopted, 0);
        assert!(exec_types(&mut t).is_empty());
    }
}
