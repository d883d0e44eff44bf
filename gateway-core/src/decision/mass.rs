//! The decision about an OrderMassCancelRequest and about cancel on disconnect (issue 11,
//! item 2), the same steps as every other order-carrying request, in the same order:
//!
//! 1. the request ([`mass_cancel_filter`]): its scope, the Symbol and Side the scope needs, a
//!    Symbol the gateway lists (instrument rules);
//! 2. the tracker selects the open orders the filter covers (the shell asks it);
//! 3. the account and the ops ([`plan_mass_cancel`]): nothing selected is answered at once
//!    (0 affected, even while the link is down: nothing needed cancelling); otherwise the
//!    account's link must be up, and the orders become `batch-cancel` ops by clientOid
//!    (≤ [`BATCH_CANCEL_MAX`] orders, one category per op; Bitget UTA "Batch Cancel Orders",
//!    reference §5). There is no risk step: a cancel reserves nothing.
//!
//! The shell then writes each op under the rate budget; an op not written is answered by the
//! tracker (`MassCancelEvent::NotSent`), which sends the one OrderMassCancelReport once every
//! op is answered.

use std::collections::BTreeMap;

use codec::json::{write_batch_cancel, CancelOrder};
use codec::sbe::{
    Category, MassCancelRejectReason, MassCancelRequestType, MassCancelResponse,
    OrderMassCancelReport, OrderMassCancelRequestDecoder, Side, Symbol, Text,
};

use super::{AccountGate, NotSent};
use crate::ids::ClientOid;
use crate::pretrade::InstrumentTable;
use crate::tracker::mass::{scope_response, OrderFilter, OrderScope, OrderView};

/// Orders per `batch-cancel` op (exchange limit, reference §5).
pub const BATCH_CANCEL_MAX: usize = 20;

/// A mass cancel as the decision sees it: an OrderMassCancelRequest's fields, or cancel on
/// disconnect (ClOrdID 0, scope Session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MassCancel {
    /// ClOrdID of the OrderMassCancelRequest (0 for cancel on disconnect).
    pub cl_ord_id: u64,
    /// Scope asked for.
    pub request_type: MassCancelRequestType,
    /// Symbol (required by scope Symbol, optional with scope Side).
    pub symbol: Option<Symbol>,
    /// Only this category.
    pub category: Option<Category>,
    /// Side (required by scope Side).
    pub side: Option<Side>,
}

impl MassCancel {
    /// The fields of an OrderMassCancelRequest (an empty Symbol is none).
    pub fn of_request(m: &OrderMassCancelRequestDecoder<'_>) -> MassCancel {
        MassCancel {
            cl_ord_id: m.cl_ord_id(),
            request_type: m.mass_cancel_request_type(),
            symbol: Some(m.symbol()).filter(|s| !s.is_empty()),
            category: m.category(),
            side: m.side(),
        }
    }

    /// Whether an OrderMassCancelReport answers it: a strategy's request does; cancel on
    /// disconnect answers no request (the Canceled ExecutionReport of each order it cancels is
    /// what the strategy reads on its return); see [`crate::tracker::mass::answers_strategy`].
    pub fn answers_strategy(&self) -> bool {
        crate::tracker::mass::answers_strategy(self.cl_ord_id)
    }

    /// Cancel on disconnect: every open order of the session whose connection ended without a
    /// Terminate.
    pub fn on_disconnect() -> MassCancel {
        MassCancel {
            cl_ord_id: 0,
            request_type: MassCancelRequestType::Session,
            symbol: None,
            category: None,
            side: None,
        }
    }

    /// The OrderMassCancelReport refusing this request (nothing was cancelled).
    pub fn reject(
        &self,
        reason: MassCancelRejectReason,
        text: &str,
        utc_ns: u64,
    ) -> OrderMassCancelReport {
        OrderMassCancelReport {
            mass_cancel_response: MassCancelResponse::Rejected,
            mass_cancel_reject_reason: Some(reason),
            text: Text::new(text),
            ..self.confirm(0, utc_ns)
        }
    }

    /// The OrderMassCancelReport confirming this request's scope with `affected` orders.
    pub fn confirm(&self, affected: u32, utc_ns: u64) -> OrderMassCancelReport {
        OrderMassCancelReport {
            cl_ord_id: self.cl_ord_id,
            transact_time: utc_ns,
            total_affected_orders: affected,
            exchange_code: 0,
            mass_cancel_request_type: self.request_type,
            mass_cancel_response: scope_response(self.request_type),
            mass_cancel_reject_reason: None,
            text: Text::new(""),
        }
    }
}

/// Step 1: which open orders `req` of `session_id` (bound to account index `account`) covers.
///
/// Errors: the Rejected report to answer with: InvalidSecurity when scope Symbol has no Symbol
/// or the Symbol is not listed (in the Category, when one is given); Other when scope Side has
/// no Side.
pub fn mass_cancel_filter(
    req: &MassCancel,
    session_id: u64,
    account: usize,
    instruments: &InstrumentTable,
    utc_ns: u64,
) -> Result<OrderFilter, OrderMassCancelReport> {
    let reject = |reason, text: &str| req.reject(reason, text, utc_ns);
    let (scope, symbol, side) = match req.request_type {
        MassCancelRequestType::Session => (OrderScope::Session(session_id), None, None),
        MassCancelRequestType::Account => (OrderScope::Account(account), None, None),
        MassCancelRequestType::Symbol => {
            let Some(sym) = req.symbol else {
                return Err(reject(
                    MassCancelRejectReason::InvalidSecurity,
                    "Symbol required",
                ));
            };
            (OrderScope::Session(session_id), Some(sym), None)
        }
        MassCancelRequestType::Side => {
            let Some(side) = req.side else {
                return Err(reject(MassCancelRejectReason::Other, "Side required"));
            };
            (OrderScope::Session(session_id), req.symbol, Some(side))
        }
    };
    if let Some(sym) = &symbol {
        if !instruments.knows_symbol(sym, req.category) {
            let text = format!("unknown symbol: {}", sym.as_str());
            return Err(reject(MassCancelRejectReason::InvalidSecurity, &text));
        }
    }
    Ok(OrderFilter {
        scope,
        symbol,
        category: req.category,
        side,
    })
}

/// One `batch-cancel` op of a mass cancel: orders of one category, by clientOid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelChunk {
    /// The op's category.
    pub category: Category,
    /// The orders (≤ [`BATCH_CANCEL_MAX`]): clientOid and symbol.
    pub orders: Vec<(ClientOid, Symbol)>,
}

impl CancelChunk {
    /// Appends the op's JSON (`{"op":"trade","id":…,"category":…,"topic":"batch-cancel",…}`)
    /// with request id `req_id` to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>, req_id: u64) {
        let items: Vec<CancelOrder<'_>> = self
            .orders
            .iter()
            .map(|(oid, sym)| CancelOrder {
                symbol: Some(sym.as_str()),
                order_id: None,
                client_oid: Some(oid.as_str()),
            })
            .collect();
        write_batch_cancel(
            out,
            itoa::Buffer::new().format(req_id),
            Some(self.category.into()),
            &items,
        );
    }
}

/// What to do with a mass cancel once the tracker has selected its orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MassDecision {
    /// Answer now with this report (nothing is sent).
    Answer(OrderMassCancelReport),
    /// Write these `batch-cancel` ops (grouped by category, in category order).
    Send(Vec<CancelChunk>),
    /// Nothing to send and no one to answer (cancel on disconnect with no open order, or with
    /// the link down: the orders stay open; see [`MassCancel::answers_strategy`]).
    Nothing,
}

/// Step 3: the selected orders `views` of `req` become `batch-cancel` ops, or an answer: 0
/// affected when nothing is selected; Rejected NotApplied while `account`'s link is down.
pub fn plan_mass_cancel(
    req: &MassCancel,
    views: &[OrderView],
    account: &impl AccountGate,
    utc_ns: u64,
) -> MassDecision {
    if !req.answers_strategy() && (views.is_empty() || !account.is_up()) {
        return MassDecision::Nothing;
    }
    if views.is_empty() {
        return MassDecision::Answer(req.confirm(0, utc_ns));
    }
    if !account.is_up() {
        return MassDecision::Answer(req.reject(
            MassCancelRejectReason::NotApplied,
            NotSent::Down.text(),
            utc_ns,
        ));
    }
    let mut by_category: BTreeMap<u8, (Category, Vec<(ClientOid, Symbol)>)> = BTreeMap::new();
    for v in views {
        let c = v.report.category;
        by_category
            .entry(c as u8)
            .or_insert_with(|| (c, Vec::new()))
            .1
            .push((
                ClientOid::in_epoch(v.session_id, v.epoch, v.root),
                v.report.symbol,
            ));
    }
    MassDecision::Send(
        by_category
            .into_values()
            .flat_map(|(category, orders)| {
                orders
                    .chunks(BATCH_CANCEL_MAX)
                    .map(|ch| CancelChunk {
                        category,
                        orders: ch.to_vec(),
                    })
                    .collect::<Vec<_>>()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::sbe::{ExecType, ExecutionReport, OrdStatus, OrdType, TimeInForce};

    use super::super::TestGate;

    fn sym(s: &str) -> Symbol {
        Symbol::new(s).unwrap()
    }

    fn view(root: u64, category: Category) -> OrderView {
        OrderView {
            session_id: 3,
            root,
            epoch: 0,
            report: ExecutionReport {
                cl_ord_id: root,
                orig_cl_ord_id: 0,
                order_id: 0,
                exec_id: 0,
                transact_time: 0,
                price: None,
                order_qty: "1".parse().unwrap(),
                last_qty: None,
                last_px: None,
                cum_qty: "0".parse().unwrap(),
                leaves_qty: "1".parse().unwrap(),
                avg_px: None,
                exchange_code: 0,
                symbol: sym("BTCUSDT"),
                category,
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                exec_type: ExecType::OrderStatus,
                ord_status: OrdStatus::New,
                ord_rej_reason: None,
                text: Text::new(""),
            },
        }
    }

    fn req(request_type: MassCancelRequestType) -> MassCancel {
        MassCancel {
            cl_ord_id: 11,
            request_type,
            symbol: None,
            category: None,
            side: None,
        }
    }

    #[test]
    fn a_scope_missing_what_it_needs_or_naming_an_unlisted_symbol_is_rejected() {
        let table = InstrumentTable::new(Vec::new());
        let r =
            mass_cancel_filter(&req(MassCancelRequestType::Symbol), 3, 0, &table, 9).unwrap_err();
        assert_eq!(
            (
                r.cl_ord_id,
                r.mass_cancel_response,
                r.mass_cancel_reject_reason
            ),
            (
                11,
                MassCancelResponse::Rejected,
                Some(MassCancelRejectReason::InvalidSecurity)
            )
        );
        let r = mass_cancel_filter(&req(MassCancelRequestType::Side), 3, 0, &table, 9).unwrap_err();
        assert_eq!(r.text.as_str(), "Side required");
        let unknown = MassCancel {
            symbol: Some(sym("NOPEUSDT")),
            ..req(MassCancelRequestType::Symbol)
        };
        let r = mass_cancel_filter(&unknown, 3, 0, &table, 9).unwrap_err();
        assert_eq!(r.text.as_str(), "unknown symbol: NOPEUSDT");
        let f = mass_cancel_filter(&req(MassCancelRequestType::Account), 3, 2, &table, 9).unwrap();
        assert_eq!(f.scope, OrderScope::Account(2));
        let f = mass_cancel_filter(&MassCancel::on_disconnect(), 3, 2, &table, 9).unwrap();
        assert_eq!(f.scope, OrderScope::Session(3));
    }

    #[test]
    fn nothing_selected_is_answered_even_while_down_and_orders_need_the_link() {
        let r = req(MassCancelRequestType::Session);
        let MassDecision::Answer(a) = plan_mass_cancel(&r, &[], &TestGate { up: false }, 5) else {
            panic!()
        };
        assert_eq!(
            (a.total_affected_orders, a.mass_cancel_response),
            (0, MassCancelResponse::Session)
        );
        let views = [view(1, Category::UsdtFutures)];
        let MassDecision::Answer(a) = plan_mass_cancel(&r, &views, &TestGate { up: false }, 5)
        else {
            panic!()
        };
        assert_eq!(
            (a.mass_cancel_reject_reason, a.text.as_str()),
            (
                Some(MassCancelRejectReason::NotApplied),
                "exchange connection down"
            )
        );
    }

    #[test]
    fn cancel_on_disconnect_answers_no_one_when_nothing_is_sent() {
        let cod = MassCancel::on_disconnect();
        assert!(!cod.answers_strategy());
        let up = TestGate { up: true };
        let down = TestGate { up: false };
        assert_eq!(plan_mass_cancel(&cod, &[], &up, 5), MassDecision::Nothing);
        let views = [view(1, Category::UsdtFutures)];
        assert_eq!(
            plan_mass_cancel(&cod, &views, &down, 5),
            MassDecision::Nothing
        );
        assert!(matches!(
            plan_mass_cancel(&cod, &views, &up, 5),
            MassDecision::Send(_)
        ));
    }

    #[test]
    fn orders_become_batch_cancels_of_one_category_and_at_most_twenty_orders() {
        let mut views: Vec<OrderView> = (1..=25).map(|i| view(i, Category::UsdtFutures)).collect();
        views.push(view(90, Category::Spot));
        let MassDecision::Send(chunks) = plan_mass_cancel(
            &req(MassCancelRequestType::Account),
            &views,
            &TestGate { up: true },
            5,
        ) else {
            panic!()
        };
        let shape: Vec<(Category, usize)> = chunks
            .iter()
            .map(|c| (c.category, c.orders.len()))
            .collect();
        assert_eq!(shape.len(), 3, "{shape:?}");
        assert!(shape.contains(&(Category::UsdtFutures, 20)));
        assert!(shape.contains(&(Category::UsdtFutures, 5)));
        assert!(shape.contains(&(Category::Spot, 1)));
        let spot = chunks
            .iter()
            .find(|c| c.category == Category::Spot)
            .unwrap();
        let mut json = Vec::new();
        spot.write_json(&mut json, 77);
        let json = String::from_utf8(json).unwrap();
        assert!(json.contains("\"id\":\"77\""), "{json}");
        assert!(json.contains("\"topic\":\"batch-cancel\""), "{json}");
        assert!(json.contains("\"clientOid\":\"3:2i\""), "{json}");
    }
}
