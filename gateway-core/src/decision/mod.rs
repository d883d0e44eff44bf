//! The one decision about every order-carrying request once order entry has accepted it
//! (issue 11, item 2). For a single order, a replace, a cancel and every item of a list, in
//! this order and nowhere else:
//!
//! 1. order entry (`session::order_entry`, `session::batch_entry`): duplicate ClOrdID, the
//!    order it names, instrument rules, the trade-op JSON;
//! 2. the account ([`check_after_entry`]): the category is one it trades, its link is up;
//! 3. risk: a place reserves its counts in the [`RiskBook`] (given back with
//!    [`RiskBook::release`] if the op is then not written), a modify is checked;
//! 4. the shell writes the op under the rate budget; a request whose op was not written is
//!    answered with [`Refusal::not_sent`].
//!
//! A request refused at any step gets one answer ([`Refusal::report`], or
//! [`Refusal::list_item`] for a list item) and nothing is sent. Everything here is a pure
//! decision: the shell passes what it knows of the account ([`AccountGate`]) and the time.
//!
//! Per request kind: [`single::decide_single`] (one message, Send or Answer),
//! [`list::decide_list_items`] (every item of a list), [`mass`] (a mass cancel and cancel on
//! disconnect: scope, account link, `batch-cancel` ops).

pub mod list;
pub mod mass;
pub mod single;

use codec::sbe::{
    Category, CxlRejReason, CxlRejResponseTo, Message, OrdRejReason, OrdType, Side, Symbol,
};

use crate::journal::durability::{refusal_text, StorageFault};
use crate::risk::{OrderView, Reserved, RiskBook, RiskReject};
use crate::session::batch_entry::{refuse_cancel, refuse_new, AcceptedItem, RefusedItem};
use crate::tracker::{ReportMsg, RequestKind};

/// Why an accepted request's op was not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSent {
    /// The account's connections are down.
    Down,
    /// The write failed (the link is now down).
    WriteFailed,
    /// The rate budget had no token in time; `bucket` names the bucket that was empty.
    Throttled {
        /// Bucket name, e.g. `place-order` or `ws-connection`.
        bucket: &'static str,
    },
}

impl NotSent {
    /// Text for the strategy's reject.
    pub fn text(self) -> &'static str {
        match self {
            NotSent::Down => "exchange connection down",
            NotSent::WriteFailed => "exchange write failed",
            NotSent::Throttled { bucket } => crate::budget::throttled_text(bucket),
        }
    }
}

/// What the decision needs to know of the session's account (the shell's view of it now).
pub trait AccountGate {
    /// The account's configured name (in refusal texts).
    fn name(&self) -> &str;
    /// Whether the account trades `category`.
    fn trades(&self, category: Category) -> bool;
    /// Whether the account's link is up and reconciled (requests are taken).
    fn is_up(&self) -> bool;
    /// The fault of the requesting session's journal while it fails (new risk is refused:
    /// [`crate::journal::durability`]); `None` when it is healthy. The account alone knows no
    /// session: [`WithJournal`] adds it.
    fn journal_fault(&self) -> Option<StorageFault> {
        None
    }
}

/// An account's gate seen by one session: the account's answers, and the session's journal
/// state ([`AccountGate::journal_fault`]).
#[derive(Debug, Clone, Copy)]
pub struct WithJournal<'a, G> {
    /// The session's account.
    pub account: &'a G,
    /// The session's journal fault while it fails.
    pub fault: Option<StorageFault>,
}

impl<G: AccountGate> AccountGate for WithJournal<'_, G> {
    fn name(&self) -> &str {
        self.account.name()
    }
    fn trades(&self, category: Category) -> bool {
        self.account.trades(category)
    }
    fn is_up(&self) -> bool {
        self.account.is_up()
    }
    fn journal_fault(&self) -> Option<StorageFault> {
        self.fault
    }
}

/// A request order entry accepted: what the later checks and its answer need.
#[derive(Debug, Clone, Copy)]
pub struct Accepted<'a> {
    /// What is asked (a place carries the whole order).
    pub kind: &'a RequestKind,
    /// OrigClOrdID of a modify or cancel (0 for a place).
    pub orig_cl_ord_id: u64,
    /// Category of the order.
    pub category: Category,
    /// Symbol of the order.
    pub symbol: Symbol,
    /// Side of the order.
    pub side: Side,
}

impl<'a> Accepted<'a> {
    /// A single message (NewOrderSingle, OrderCancelRequest, OrderCancelReplaceRequest) order
    /// entry accepted as `kind`; `None` for another message.
    pub fn of_message(msg: &Message<'_>, kind: &'a RequestKind) -> Option<Accepted<'a>> {
        let (orig_cl_ord_id, category, symbol, side) = match msg {
            Message::NewOrderSingle(m) => (0, m.category(), m.symbol(), m.side()),
            Message::OrderCancelRequest(m) => {
                (m.orig_cl_ord_id(), m.category(), m.symbol(), m.side())
            }
            Message::OrderCancelReplaceRequest(m) => {
                (m.orig_cl_ord_id(), m.category(), m.symbol(), m.side())
            }
            _ => return None,
        };
        Some(Accepted {
            kind,
            orig_cl_ord_id,
            category,
            symbol,
            side,
        })
    }
}

impl<'a> From<&'a AcceptedItem> for Accepted<'a> {
    /// A list item as the decision sees it.
    fn from(item: &'a AcceptedItem) -> Self {
        Accepted {
            kind: &item.kind,
            orig_cl_ord_id: item.orig_cl_ord_id,
            category: item.category,
            symbol: item.symbol,
            side: item.side,
        }
    }
}

/// Why a request is refused after order entry, as its answer says it (recorded for replay:
/// `replay::Record::OrderEntry::refusal`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    /// OrdRejReason of a place's ExecutionReport Rejected (and of a list item's entry).
    pub ord: OrdRejReason,
    /// CxlRejReason of a modify's or cancel's OrderCancelReject.
    pub cxl: CxlRejReason,
    /// Text.
    pub text: String,
}

impl Refusal {
    /// The answer to a request whose op was not written: NotApplied, or ThrottleLimitExceeded
    /// when the rate budget had no token (FIXP idempotent flow: it was not applied).
    pub fn not_sent(why: NotSent) -> Refusal {
        let (ord, cxl) = match why {
            NotSent::Throttled { .. } => (
                OrdRejReason::ThrottleLimitExceeded,
                CxlRejReason::ThrottleLimitExceeded,
            ),
            NotSent::Down | NotSent::WriteFailed => {
                (OrdRejReason::NotApplied, CxlRejReason::NotApplied)
            }
        };
        Refusal {
            ord,
            cxl,
            text: why.text().to_owned(),
        }
    }

    /// The answer to a request that would take new risk (a place, a replace) while its
    /// session's journal fails with `fault`: NotApplied, with a text naming the cause
    /// (issue 37).
    pub fn journal(fault: StorageFault) -> Refusal {
        Refusal {
            ord: OrdRejReason::NotApplied,
            cxl: CxlRejReason::NotApplied,
            text: refusal_text(fault),
        }
    }

    fn risk(r: RiskReject) -> Refusal {
        Refusal {
            ord: r.reason,
            cxl: CxlRejReason::Other,
            text: r.text,
        }
    }

    /// The answer to `req`: ExecutionReport Rejected for a place, OrderCancelReject
    /// (OrdStatus Rejected) for a modify or cancel.
    pub fn report(&self, req: &Accepted<'_>, utc_ns: u64) -> ReportMsg {
        self.list_item(req, utc_ns).report
    }

    /// The answer to `req` as a list item: its report and its Rejected ListStatus entry.
    pub fn list_item(&self, req: &Accepted<'_>, utc_ns: u64) -> RefusedItem {
        match req.kind {
            RequestKind::New(n) => refuse_new(n, self.ord, &self.text, utc_ns),
            RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => {
                refuse_cancel(
                    *cl_ord_id,
                    req.orig_cl_ord_id,
                    response_to(req.kind),
                    self.cxl,
                    &self.text,
                    utc_ns,
                )
            }
        }
    }
}

/// Requests whose op was not written (`why`): each place's risk reservation is given back to
/// `risk`, and each request gets its answer (NotApplied, or ThrottleLimitExceeded), in order.
/// The one path after a failed send, for a single message (one request) and a list batch.
pub fn not_sent<'a>(
    requests: impl IntoIterator<Item = (Accepted<'a>, Option<Reserved>)>,
    why: NotSent,
    risk: &RiskBook,
    utc_ns: u64,
) -> Vec<RefusedItem> {
    let refusal = Refusal::not_sent(why);
    requests
        .into_iter()
        .map(|(req, reserved)| {
            if let Some(r) = reserved {
                risk.release(r);
            }
            refusal.list_item(&req, utc_ns)
        })
        .collect()
}

/// The refusal of a request that takes new risk (a place, a replace) while its session's
/// journal fails with `fault`; `None` for a cancel or a healthy journal. Checked in
/// [`check_after_entry`], and again once the request's ClOrdIDs were journaled (the append
/// that fails may be that one: [`single::recheck_after_journal`],
/// [`list::recheck_after_journal`]), so that nothing new is sent once the journal fails.
pub fn journal_refusal(kind: &RequestKind, fault: Option<StorageFault>) -> Option<Refusal> {
    match (kind, fault) {
        (RequestKind::Cancel { .. }, _) | (_, None) => None,
        (_, Some(f)) => Some(Refusal::journal(f)),
    }
}

/// Which request an OrderCancelReject answers.
fn response_to(kind: &RequestKind) -> CxlRejResponseTo {
    match kind {
        RequestKind::Cancel { .. } => CxlRejResponseTo::OrderCancelRequest,
        _ => CxlRejResponseTo::OrderCancelReplaceRequest,
    }
}

/// Steps 2 and 3 of the decision for a request of `session_id` order entry accepted: the
/// account trades its category (a place) and its link is up, the session's journal takes
/// records (a place or a replace: new risk; a cancel goes whatever the journal's state), then
/// risk. `Ok` carries the place's risk reservation (`None` for a modify or cancel); the op
/// may be written.
///
/// A replace is refused while the journal fails whatever it changes: order entry does not
/// hold the order's current quantity to tell a reduction from an increase, and a new price
/// can itself be new risk; a cancel is how a strategy reduces risk then.
///
/// Errors: the [`Refusal`] to answer with (UnknownSymbol for a category the account does not
/// trade; NotApplied while the link is down; NotApplied naming the fault while the journal
/// fails; the risk rule's reason and text).
pub fn check_after_entry(
    req: &Accepted<'_>,
    account: &impl AccountGate,
    risk: &RiskBook,
    session_id: u64,
) -> Result<Option<Reserved>, Refusal> {
    if let RequestKind::New(n) = req.kind {
        if !account.trades(n.category) {
            return Err(Refusal {
                ord: OrdRejReason::UnknownSymbol,
                cxl: CxlRejReason::Other,
                text: format!(
                    "account {} does not trade {}",
                    account.name(),
                    codec::json::Category::from(n.category).as_rest_str()
                ),
            });
        }
    }
    if !account.is_up() {
        return Err(Refusal::not_sent(NotSent::Down));
    }
    if let Some(r) = journal_refusal(req.kind, account.journal_fault()) {
        return Err(r);
    }
    match req.kind {
        RequestKind::New(n) => risk
            .check_new(
                session_id,
                n.category,
                &n.symbol,
                &crate::risk::order_view(n),
            )
            .map(Some)
            .map_err(Refusal::risk),
        RequestKind::Replace { price, qty, .. } => {
            let view = OrderView {
                side: req.side,
                ord_type: OrdType::Limit,
                price: *price,
                qty: *qty,
            };
            risk.check_replace(session_id, req.category, &req.symbol, &view)
                .map(|()| None)
                .map_err(Refusal::risk)
        }
        RequestKind::Cancel { .. } => Ok(None),
    }
}

/// The account of the decision's tests: "main", trades USDT-FUTURES only, link up or down.
#[cfg(test)]
pub(crate) struct TestGate {
    /// Whether the link is up.
    pub(crate) up: bool,
}

#[cfg(test)]
impl AccountGate for TestGate {
    fn name(&self) -> &str {
        "main"
    }
    fn trades(&self, category: Category) -> bool {
        category == Category::UsdtFutures
    }
    fn is_up(&self) -> bool {
        self.up
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracker::NewOrder;
    use codec::sbe::TimeInForce;

    use super::TestGate as Gate;

    fn place(category: Category) -> RequestKind {
        RequestKind::New(NewOrder {
            cl_ord_id: 7,
            category,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            price: Some("100".parse().unwrap()),
            qty: "1".parse().unwrap(),
        })
    }

    fn accepted(kind: &RequestKind) -> Accepted<'_> {
        Accepted {
            kind,
            orig_cl_ord_id: 5,
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
        }
    }

    #[test]
    fn the_category_comes_before_the_link_and_the_link_before_risk() {
        let risk = RiskBook::new(&[], 1, &crate::risk::RiskSettings::default());
        let spot = place(Category::Spot);
        let down = Gate { up: false };
        let r = check_after_entry(&accepted(&spot), &down, &risk, 1).unwrap_err();
        assert_eq!(
            (r.ord, r.text.as_str()),
            (
                OrdRejReason::UnknownSymbol,
                "account main does not trade SPOT"
            )
        );
        let futures = place(Category::UsdtFutures);
        let r = check_after_entry(&accepted(&futures), &down, &risk, 1).unwrap_err();
        assert_eq!(r, Refusal::not_sent(NotSent::Down));
        let up = Gate { up: true };
        assert!(check_after_entry(&accepted(&futures), &up, &risk, 1).is_ok());
        let cancel = RequestKind::Cancel { cl_ord_id: 9 };
        assert_eq!(
            check_after_entry(&accepted(&cancel), &up, &risk, 1).map(|r| r.is_some()),
            Ok(false)
        );
    }

    #[test]
    fn a_failing_journal_refuses_places_and_replaces_and_lets_cancels_go() {
        let grant = crate::types::SessionGrant {
            session_id: 1,
            ..Default::default()
        };
        let risk = RiskBook::new(&[grant], 1, &crate::risk::RiskSettings::default());
        let up = Gate { up: true };
        let failing = WithJournal {
            account: &up,
            fault: Some(StorageFault::NoSpace),
        };
        let futures = place(Category::UsdtFutures);
        let r = check_after_entry(&accepted(&futures), &failing, &risk, 1).unwrap_err();
        assert_eq!(
            (r.ord, r.text.as_str()),
            (
                OrdRejReason::NotApplied,
                "journal failing (ENOSPC): no new risk until it recovers"
            )
        );
        assert_eq!(risk.session_open_orders(1), 0, "nothing reserved");
        let replace = RequestKind::Replace {
            cl_ord_id: 8,
            price: None,
            qty: "0.5".parse().unwrap(),
        };
        let r = check_after_entry(&accepted(&replace), &failing, &risk, 1).unwrap_err();
        assert_eq!(r.cxl, CxlRejReason::NotApplied);
        let cancel = RequestKind::Cancel { cl_ord_id: 9 };
        assert_eq!(
            check_after_entry(&accepted(&cancel), &failing, &risk, 1),
            Ok(None)
        );
        // The link's state is told first: the request would not be applied either way.
        let down = WithJournal {
            account: &Gate { up: false },
            fault: Some(StorageFault::Io),
        };
        let r = check_after_entry(&accepted(&futures), &down, &risk, 1).unwrap_err();
        assert_eq!(r, Refusal::not_sent(NotSent::Down));
        let healthy = WithJournal {
            account: &up,
            fault: None,
        };
        assert!(check_after_entry(&accepted(&futures), &healthy, &risk, 1)
            .unwrap()
            .is_some());
    }

    #[test]
    fn a_request_not_sent_gives_its_reservation_back_and_is_answered() {
        let grant = crate::types::SessionGrant {
            session_id: 1,
            ..Default::default()
        };
        let risk = RiskBook::new(&[grant], 1, &crate::risk::RiskSettings::default());
        let up = Gate { up: true };
        let futures = place(Category::UsdtFutures);
        let reserved = check_after_entry(&accepted(&futures), &up, &risk, 1).unwrap();
        assert!(reserved.is_some());
        assert_eq!(risk.session_open_orders(1), 1);
        let cancel = RequestKind::Cancel { cl_ord_id: 9 };
        let answers = not_sent(
            [(accepted(&futures), reserved), (accepted(&cancel), None)],
            NotSent::WriteFailed,
            &risk,
            4,
        );
        assert_eq!(risk.session_open_orders(1), 0, "reservation given back");
        let [a, b] = &answers[..] else {
            panic!("{answers:?}")
        };
        assert!(matches!(a.report, ReportMsg::Exec(er)
            if er.cl_ord_id == 7 && er.ord_rej_reason == Some(OrdRejReason::NotApplied)));
        assert!(matches!(b.report, ReportMsg::CancelReject(c)
            if c.cl_ord_id == 9 && c.cxl_rej_reason == CxlRejReason::NotApplied
                && c.text.as_str() == "exchange write failed"));
    }

    #[test]
    fn refusals_answer_a_place_with_rejected_and_an_amend_with_a_cancel_reject() {
        let throttled = Refusal::not_sent(NotSent::Throttled {
            bucket: "place-order",
        });
        let futures = place(Category::UsdtFutures);
        let ReportMsg::Exec(er) = throttled.report(&accepted(&futures), 3) else {
            panic!()
        };
        assert_eq!(
            (er.cl_ord_id, er.ord_rej_reason, er.transact_time),
            (7, Some(OrdRejReason::ThrottleLimitExceeded), 3)
        );
        let cancel = RequestKind::Cancel { cl_ord_id: 9 };
        let down = Refusal::not_sent(NotSent::Down);
        let ReportMsg::CancelReject(c) = down.report(&accepted(&cancel), 3) else {
            panic!()
        };
        assert_eq!(
            (
                c.cl_ord_id,
                c.orig_cl_ord_id,
                c.cxl_rej_reason,
                c.cxl_rej_response_to
            ),
            (
                9,
                5,
                CxlRejReason::NotApplied,
                CxlRejResponseTo::OrderCancelRequest
            )
        );
        assert_eq!(c.text.as_str(), "exchange connection down");
        let item = down.list_item(&accepted(&cancel), 3);
        assert_eq!(
            format!("{:?}", item.report),
            format!("{:?}", ReportMsg::CancelReject(c))
        );
    }
}
