//! The order path of one strategy session: NewOrderSingle, OrderCancelRequest and
//! OrderCancelReplaceRequest in, a Bitget trade op (JSON, reference §5) or an immediate reject
//! out. Runs on the io thread between reading the strategy frame and writing the WebSocket frame,
//! so it does no I/O, takes no lock and allocates nothing in the steady state (the live ClOrdID
//! table grows only to the most orders the tracker holds at once, [`ClOrdIds`]; the used ones
//! are ranges, [`UsedIds`]).

use codec::json::{self, CancelOrder, ModifyOrder, PlaceOrder};
use codec::sbe::{
    BoolFlag, CxlRejReason, CxlRejResponseTo, Message, NewOrderSingleDecoder, OrdRejReason,
    OrdStatus, OrdType, OrderCancelReject, OrderCancelReplaceRequestDecoder,
    OrderCancelRequestDecoder, PosSide, StpMode, Text,
};

use super::cl_ord_ids::{ClOrdIds, Named};
use super::used_ids::UsedIds;
use crate::ids::{format_request_id, ClientOid};
use crate::pretrade::InstrumentTable;
use crate::tracker::{NewOrder, ReportMsg, RequestKind};
use crate::types::TradeOp;

/// What the order path decided for one application message.
#[derive(Debug)]
pub enum EntryOutcome {
    /// The trade op is in the JSON buffer: write it, then tell the tracker.
    Send {
        /// The order's root ClOrdID.
        root: u64,
        /// What was asked.
        kind: RequestKind,
    },
    /// Refused before sending: answer the strategy with this.
    Reject(ReportMsg),
}

/// The OrderCancelReject text for a replace (single or in a list) without OrderQty: the
/// quantity is required, as in FIX 35=G (`codec/schema/bgw.xml`).
pub const QTY_REQUIRED: &str = "OrderQty is required";

/// The refusal text for ClOrdID 0 (single or list item). The schema uses 0 for "none"
/// (OrigClOrdID 0 = none, mass-status reports of foreign orders carry ClOrdID 0), so no request
/// may take it: a NewOrderSingle or NewOrderList item gets ExecutionReport Rejected
/// (OrdRejReason Other), a cancel or replace (single or list item) OrderCancelReject
/// (CxlRejReason Other). The ClOrdID is not recorded as used and nothing reaches the exchange.
pub const CL_ORD_ID_ZERO: &str = "ClOrdID 0 is reserved (0 means none)";

/// The OrderCancelReject text for a cancel or replace naming an order that has ended and left
/// the tracker (or was refused before reaching the exchange): CxlRejReason TooLateToCancel,
/// answered at entry without a round trip.
pub const ORDER_ENDED: &str = "order ended (OrigClOrdID names no open order)";

/// The root a used ClOrdID is recorded with when it names no order (a cancel or replace refused
/// at entry): 0, never a ClOrdID ([`CL_ORD_ID_ZERO`]), so the journal's fold and
/// [`ClOrdIds`] only mark it used.
pub const NO_ORDER: u64 = 0;

/// Per-session order-entry state: which ClOrdIDs were used and which order each one names.
#[derive(Debug, Default)]
pub struct OrderEntry {
    pub(super) session_id: u64,
    /// ClOrdIDs used in the epoch, and ClOrdID → root of the orders still tracked.
    pub(super) ids: ClOrdIds,
    /// ListIDs of the batches received (see `batch_entry`).
    pub(super) list_ids: UsedIds,
    /// (ClOrdID, root) pairs used since the last [`OrderEntry::take_fresh`], to journal.
    fresh_cl_ord_ids: Vec<(u64, u64)>,
    /// ListIDs used since the last [`OrderEntry::take_fresh`], to journal.
    pub(super) fresh_list_ids: Vec<u64>,
}

/// The `place-order` arguments of `order` (single op or batch item; reference §5.1).
pub fn place_order_args<'a>(
    order: &'a NewOrder,
    pos_side: PosSide,
    reduce_only: bool,
    stp_mode: StpMode,
    client_oid: &'a str,
) -> PlaceOrder<'a> {
    PlaceOrder {
        symbol: order.symbol.as_str(),
        side: order.side.into(),
        order_type: order.ord_type.into(),
        qty: order.qty,
        price: order.price,
        time_in_force: match order.ord_type {
            OrdType::Limit => Some(order.time_in_force.into()),
            OrdType::Market => None,
        },
        pos_side: pos_side.into(),
        reduce_only: reduce_only.then_some(true),
        client_oid,
        stp_mode: stp_mode.into(),
    }
}

impl OrderEntry {
    /// State for session `session_id`, with room for
    /// [`super::cl_ord_ids::INITIAL_LIVE`] live ClOrdIDs.
    pub fn new(session_id: u64) -> Self {
        OrderEntry {
            session_id,
            ids: ClOrdIds::new(),
            list_ids: UsedIds::new(),
            fresh_cl_ord_ids: Vec::with_capacity(256),
            fresh_list_ids: Vec::new(),
        }
    }

    /// State for session `session_id` rebuilt from its journal, in epoch `epoch`: `live` maps
    /// the ClOrdIDs of the orders still open (or of unknown outcome) to their root and the epoch
    /// they were placed in, `used` holds every ClOrdID of the epoch and `list_ids` every
    /// ListID; all stay used.
    pub fn restore(
        session_id: u64,
        epoch: u32,
        live: impl IntoIterator<Item = (u64, u64, u32)>,
        used: UsedIds,
        list_ids: UsedIds,
    ) -> Self {
        OrderEntry {
            ids: ClOrdIds::restore(epoch, live, used),
            list_ids,
            ..OrderEntry::new(session_id)
        }
    }

    /// Records that ClOrdID `cl` names the order of root `root` (a new order's own ClOrdID
    /// when `cl == root`: used, live once [`OrderEntry::sent_new`]).
    pub(super) fn remember(&mut self, cl: u64, root: u64) {
        if cl == root {
            self.ids.use_root(cl);
        } else {
            self.ids.use_amend(cl, root);
        }
        self.fresh_cl_ord_ids.push((cl, root));
    }

    /// The place-order of root `root` was written to the exchange (single or list item): the
    /// tracker holds the order from now on, so cancels and replaces may name it until it is
    /// evicted ([`OrderEntry::release`]). `conn`: the exchange connection (index in the
    /// account's pool) it was written on, where the order's later ops go
    /// ([`OrderEntry::conn_of`]); `None` when not known (replay).
    pub fn sent_new(&mut self, root: u64, conn: Option<usize>) {
        self.ids.sent_new(root, conn);
    }

    /// The exchange connection the place-order of live order `root` was written on, if known:
    /// what its cancels and replaces pass to `gateway_core::budget::AccountBudget::acquire`.
    pub fn conn_of(&self, root: u64) -> Option<usize> {
        self.ids.conn_of(root)
    }

    /// The tracker evicted the order of root `root` (ended, past the retention window): its
    /// ClOrdIDs stay used for the rest of the epoch, also when the order was carried over from
    /// an earlier one, but no longer name an order (a cancel or replace naming them gets
    /// TooLateToCancel at entry; a NewOrderSingle, DuplicateOrder). Returns how many ClOrdIDs
    /// left the live table.
    pub fn release(&mut self, root: u64) -> usize {
        self.ids.release(root)
    }

    /// The tracker evicted the order of root `root` once the rollover reported it: it had
    /// ended before the current epoch began, and its ClOrdIDs are free in this epoch
    /// ([`ClOrdIds::release_ended_before_epoch`]).
    /// Returns how many ClOrdIDs left the live table.
    pub fn release_ended_before_epoch(&mut self, root: u64) -> usize {
        self.ids.release_ended_before_epoch(root)
    }

    /// The session's epoch ends and `epoch` starts (session rollover): the ClOrdIDs and
    /// ListIDs used so far are free again, except the ClOrdIDs of orders still tracked
    /// (reserved; cancels and replaces may name them; those of an order that had not ended by
    /// the rollover stay used for the whole epoch, see [`OrderEntry::release`]). Returns how
    /// many stay reserved.
    pub fn new_epoch(&mut self, epoch: u32) -> usize {
        self.list_ids = UsedIds::new();
        self.fresh_cl_ord_ids.clear();
        self.fresh_list_ids.clear();
        self.ids.new_epoch(epoch)
    }

    /// The clientOid of order `root` (placed in the current epoch, or in the epoch its live
    /// entry records).
    pub(super) fn client_oid(&self, root: u64) -> ClientOid {
        ClientOid::in_epoch(self.session_id, self.ids.epoch_of(root), root)
    }

    /// The session's ClOrdIDs (used and live).
    pub fn cl_ord_ids(&self) -> &ClOrdIds {
        &self.ids
    }

    /// The ListIDs used in the epoch.
    pub fn list_ids(&self) -> &UsedIds {
        &self.list_ids
    }

    /// True when ClOrdIDs or ListIDs were used since the last [`OrderEntry::take_fresh`].
    pub fn has_fresh(&self) -> bool {
        !self.fresh_cl_ord_ids.is_empty() || !self.fresh_list_ids.is_empty()
    }

    /// Hands the (ClOrdID, root) pairs and ListIDs used since the last call to `f` (to journal
    /// them), then forgets them (the buffers keep their capacity).
    pub fn take_fresh(&mut self, f: impl FnOnce(&[(u64, u64)], &[u64])) {
        f(&self.fresh_cl_ord_ids, &self.fresh_list_ids);
        self.fresh_cl_ord_ids.clear();
        self.fresh_list_ids.clear();
    }

    /// Number of ClOrdIDs used so far in the epoch.
    pub fn cl_ord_ids_used(&self) -> u64 {
        self.ids.used_len()
    }

    /// A single-order message (NewOrderSingle, OrderCancelRequest, OrderCancelReplaceRequest)
    /// through its entry step, with the rate-budget class of its op; `None` for another message.
    pub fn on_single(
        &mut self,
        msg: &Message<'_>,
        instruments: &InstrumentTable,
        req_id: u64,
        json_out: &mut Vec<u8>,
        utc_ns: u64,
    ) -> Option<(TradeOp, EntryOutcome)> {
        Some(match msg {
            Message::NewOrderSingle(m) => (
                TradeOp::Place,
                self.on_new_order(m, instruments, req_id, json_out, utc_ns),
            ),
            Message::OrderCancelRequest(m) => {
                (TradeOp::Cancel, self.on_cancel(m, req_id, json_out, utc_ns))
            }
            Message::OrderCancelReplaceRequest(m) => (
                TradeOp::Modify,
                self.on_replace(m, instruments, req_id, json_out, utc_ns),
            ),
            _ => return None,
        })
    }

    /// A NewOrderSingle: duplicate and pre-trade checks, then `place-order` into `json_out`.
    pub fn on_new_order(
        &mut self,
        m: &NewOrderSingleDecoder<'_>,
        instruments: &InstrumentTable,
        req_id: u64,
        json_out: &mut Vec<u8>,
        utc_ns: u64,
    ) -> EntryOutcome {
        let order = NewOrder {
            cl_ord_id: m.cl_ord_id(),
            category: m.category(),
            symbol: m.symbol(),
            side: m.side(),
            ord_type: m.ord_type(),
            time_in_force: m.time_in_force(),
            price: if m.ord_type() == OrdType::Market {
                None
            } else {
                m.price()
            },
            qty: m.order_qty(),
        };
        let rejected = |reason, text: &str| {
            EntryOutcome::Reject(ReportMsg::Exec(order.rejected(reason, text, utc_ns)))
        };
        if order.cl_ord_id == 0 {
            return rejected(OrdRejReason::Other, CL_ORD_ID_ZERO);
        }
        if self.ids.is_used(order.cl_ord_id) {
            return rejected(OrdRejReason::DuplicateOrder, "duplicate ClOrdID");
        }
        // The ClOrdID is used from now on, even if refused below.
        self.remember(order.cl_ord_id, order.cl_ord_id);
        if let Err(r) = instruments.check_new(
            order.category,
            &order.symbol,
            order.ord_type,
            order.time_in_force,
            order.price,
            order.qty,
        ) {
            return rejected(r.reason, &r.text);
        }
        let oid = self.client_oid(order.cl_ord_id);
        let mut id_buf = itoa::Buffer::new();
        json::write_place_order(
            json_out,
            format_request_id(req_id, &mut id_buf),
            json::Category::from(order.category),
            &place_order_args(
                &order,
                m.pos_side(),
                m.reduce_only() == BoolFlag::Yes,
                m.stp_mode(),
                oid.as_str(),
            ),
        );
        EntryOutcome::Send {
            root: order.cl_ord_id,
            kind: RequestKind::New(order),
        }
    }

    fn cancel_reject(
        cl_ord_id: u64,
        orig: u64,
        to: CxlRejResponseTo,
        reason: CxlRejReason,
        text: &str,
        utc_ns: u64,
    ) -> EntryOutcome {
        EntryOutcome::Reject(ReportMsg::CancelReject(OrderCancelReject {
            cl_ord_id,
            orig_cl_ord_id: orig,
            order_id: 0,
            transact_time: utc_ns,
            exchange_code: 0,
            ord_status: OrdStatus::Rejected,
            cxl_rej_response_to: to,
            cxl_rej_reason: reason,
            text: Text::new(text),
        }))
    }

    /// The root ClOrdID of the order `orig` names, if `cl` is not 0 ([`CL_ORD_ID_ZERO`]),
    /// `cl` is not used yet in the epoch (checked first: DuplicateClOrdID) and `orig` names an
    /// order still tracked; otherwise why not (an `orig` used in the epoch whose order has
    /// ended and left the tracker: TooLateToCancel, [`ORDER_ENDED`]).
    pub(super) fn resolve(
        &mut self,
        cl: u64,
        orig: u64,
    ) -> Result<u64, (CxlRejReason, &'static str)> {
        if cl == 0 {
            return Err((CxlRejReason::Other, CL_ORD_ID_ZERO));
        }
        // A ClOrdID used before is a duplicate whatever became of the order since: a request
        // sent again after a reconnect (its first answer held by a failing journal, or on its
        // way) is refused as a repeat, never answered a second time as if new.
        if self.ids.is_used(cl) {
            return Err((CxlRejReason::DuplicateClOrdID, "duplicate ClOrdID"));
        }
        let refused = match self.ids.named(orig) {
            Named::Live(root) => return Ok(root),
            Named::Ended => (CxlRejReason::TooLateToCancel, ORDER_ENDED),
            Named::Unknown => (CxlRejReason::UnknownOrder, "unknown OrigClOrdID"),
        };
        self.use_refused(cl);
        Err(refused)
    }

    /// Cancel or replace ClOrdID `cl` is refused at entry (after the duplicate check): it stays
    /// used for the epoch, naming no order, as a refused NewOrderSingle's does, so that the same
    /// request sent again (after a reconnect, its answer not yet read) is a DuplicateClOrdID
    /// and never answered twice (`dst` seed 224778). Journaled with root [`NO_ORDER`].
    pub(super) fn use_refused(&mut self, cl: u64) {
        self.remember(cl, NO_ORDER);
    }

    /// An OrderCancelRequest: the order must be one of this session's; then `cancel-order` by
    /// clientOid into `json_out`.
    pub fn on_cancel(
        &mut self,
        m: &OrderCancelRequestDecoder<'_>,
        req_id: u64,
        json_out: &mut Vec<u8>,
        utc_ns: u64,
    ) -> EntryOutcome {
        let (cl, orig) = (m.cl_ord_id(), m.orig_cl_ord_id());
        let root = match self.resolve(cl, orig) {
            Ok(root) => root,
            Err((reason, text)) => {
                return Self::cancel_reject(
                    cl,
                    orig,
                    CxlRejResponseTo::OrderCancelRequest,
                    reason,
                    text,
                    utc_ns,
                )
            }
        };
        self.remember(cl, root);
        let oid = self.client_oid(root);
        let mut id_buf = itoa::Buffer::new();
        json::write_cancel_order(
            json_out,
            format_request_id(req_id, &mut id_buf),
            Some(m.category().into()),
            &CancelOrder {
                symbol: Some(m.symbol().as_str()),
                order_id: None,
                client_oid: Some(oid.as_str()),
            },
        );
        EntryOutcome::Send {
            root,
            kind: RequestKind::Cancel { cl_ord_id: cl },
        }
    }

    /// An OrderCancelReplaceRequest: the order must be one of this session's and the new price
    /// and quantity must pass the pre-trade checks; then `modify-order` by clientOid.
    pub fn on_replace(
        &mut self,
        m: &OrderCancelReplaceRequestDecoder<'_>,
        instruments: &InstrumentTable,
        req_id: u64,
        json_out: &mut Vec<u8>,
        utc_ns: u64,
    ) -> EntryOutcome {
        let (cl, orig) = (m.cl_ord_id(), m.orig_cl_ord_id());
        let to = CxlRejResponseTo::OrderCancelReplaceRequest;
        let root = match self.resolve(cl, orig) {
            Ok(root) => root,
            Err((reason, text)) => return Self::cancel_reject(cl, orig, to, reason, text, utc_ns),
        };
        // OrderQty is required on a replace, as in FIX 35=G (the schema says so).
        let Some(qty) = m.order_qty() else {
            self.use_refused(cl);
            return Self::cancel_reject(cl, orig, to, CxlRejReason::Other, QTY_REQUIRED, utc_ns);
        };
        let price = m.price();
        if let Err(r) = instruments.check_replace(m.category(), &m.symbol(), price, qty) {
            self.use_refused(cl);
            return Self::cancel_reject(cl, orig, to, CxlRejReason::Other, &r.text, utc_ns);
        }
        self.remember(cl, root);
        let oid = self.client_oid(root);
        let mut id_buf = itoa::Buffer::new();
        json::write_modify_order(
            json_out,
            format_request_id(req_id, &mut id_buf),
            json::Category::from(m.category()),
            &ModifyOrder {
                symbol: m.symbol().as_str(),
                order_id: None,
                client_oid: Some(oid.as_str()),
                qty: Some(qty),
                price,
                auto_cancel: m.auto_cancel() == BoolFlag::Yes,
            },
        );
        EntryOutcome::Send {
            root,
            kind: RequestKind::Replace {
                cl_ord_id: cl,
                price,
                qty,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pretrade::InstrumentRules;
    use codec::sbe::{
        Category, NewOrderSingle, OrderCancelReplaceRequest, OrderCancelRequest, Side, Symbol,
        TimeInForce,
    };

    fn d(s: &str) -> codec::Decimal {
        s.parse().unwrap()
    }

    fn table() -> InstrumentTable {
        InstrumentTable::new([InstrumentRules {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            tick: d("0.1"),
            lot: d("0.001"),
            min_qty: d("0.001"),
            max_qty: None,
            min_notional: d("0"),
            online: true,
        }])
    }

    fn run(entry: &mut OrderEntry, encode: impl FnOnce(&mut Vec<u8>)) -> (EntryOutcome, usize) {
        let mut frame = Vec::new();
        encode(&mut frame);
        let msg = codec::sbe::decode(&frame[codec::frame::SOFH_LEN..]).unwrap();
        let mut json = Vec::new();
        let (_, out) = entry.on_single(&msg, &table(), 1, &mut json, 5).unwrap();
        (out, json.len())
    }

    fn order(cl: u64) -> NewOrderSingle {
        NewOrderSingle {
            cl_ord_id: cl,
            transact_time: 0,
            price: Some(d("50000")),
            order_qty: d("0.001"),
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::None,
        }
    }

    #[test]
    fn cl_ord_id_zero_is_refused_and_not_used() {
        let mut entry = OrderEntry::new(1);
        let (out, json) = run(&mut entry, |b| order(0).encode_frame(b));
        let EntryOutcome::Reject(ReportMsg::Exec(er)) = out else {
            panic!("{out:?}")
        };
        assert_eq!(er.ord_rej_reason, Some(OrdRejReason::Other));
        assert_eq!(er.text.as_str(), CL_ORD_ID_ZERO);
        assert_eq!((json, entry.cl_ord_ids_used()), (0, 0));
        // A real order, then a cancel and a replace of it with ClOrdID 0.
        assert!(matches!(
            run(&mut entry, |b| order(7).encode_frame(b)).0,
            EntryOutcome::Send { root: 7, .. }
        ));
        let cancel = OrderCancelRequest {
            cl_ord_id: 0,
            orig_cl_ord_id: 7,
            transact_time: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        };
        let replace = OrderCancelReplaceRequest {
            cl_ord_id: 0,
            orig_cl_ord_id: 7,
            transact_time: 0,
            price: None,
            order_qty: Some(d("0.002")),
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            auto_cancel: BoolFlag::No,
        };
        for (out, json) in [
            run(&mut entry, |b| cancel.encode_frame(b)),
            run(&mut entry, |b| replace.encode_frame(b)),
        ] {
            let EntryOutcome::Reject(ReportMsg::CancelReject(r)) = out else {
                panic!("{out:?}")
            };
            assert_eq!((r.cl_ord_id, r.orig_cl_ord_id), (0, 7));
            assert_eq!(r.cxl_rej_reason, CxlRejReason::Other);
            assert_eq!(r.text.as_str(), CL_ORD_ID_ZERO);
            assert_eq!(json, 0);
        }
        assert_eq!(entry.cl_ord_ids_used(), 1);
    }

    fn cancel(cl: u64, orig: u64) -> OrderCancelRequest {
        OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        }
    }

    /// The OrderCancelReject a cancel `cl` of `orig` gets at entry (nothing sent).
    fn cancel_rejected(entry: &mut OrderEntry, cl: u64, orig: u64) -> OrderCancelReject {
        let (out, json) = run(entry, |b| cancel(cl, orig).encode_frame(b));
        let EntryOutcome::Reject(ReportMsg::CancelReject(r)) = out else {
            panic!("{out:?}")
        };
        assert_eq!((r.cl_ord_id, json), (cl, 0), "nothing sent");
        r
    }

    /// Order 7 placed (written to the exchange) and its cancel 8 sent.
    fn order_7_with_cancel_8() -> OrderEntry {
        let mut entry = OrderEntry::new(1);
        assert!(matches!(
            run(&mut entry, |b| order(7).encode_frame(b)).0,
            EntryOutcome::Send { root: 7, .. }
        ));
        entry.sent_new(7, None);
        assert!(matches!(
            run(&mut entry, |b| cancel(8, 7).encode_frame(b)).0,
            EntryOutcome::Send { root: 7, .. }
        ));
        entry
    }

    /// Issue 23: an order the tracker evicted, or one refused before it reached the exchange,
    /// no longer takes a cancel (TooLateToCancel at entry, nothing sent); its ClOrdIDs stay
    /// used for the epoch (a NewOrderSingle repeating one is a duplicate).
    #[test]
    fn released_and_refused_orders_are_too_late_to_cancel_and_their_ids_stay_used() {
        let mut entry = order_7_with_cancel_8();
        // Order 9 went through entry but was never written (risk, budget or link refused it).
        assert!(matches!(
            run(&mut entry, |b| order(9).encode_frame(b)).0,
            EntryOutcome::Send { root: 9, .. }
        ));
        assert_eq!(entry.release(7), 2);
        for (cl, orig) in [(10, 7), (11, 8), (12, 9)] {
            let r = cancel_rejected(&mut entry, cl, orig);
            assert_eq!(r.cxl_rej_reason, CxlRejReason::TooLateToCancel, "{orig}");
            assert_eq!(r.text.as_str(), ORDER_ENDED);
        }
        for cl in [7, 8, 9] {
            let (out, _) = run(&mut entry, |b| order(cl).encode_frame(b));
            let EntryOutcome::Reject(ReportMsg::Exec(er)) = out else {
                panic!("{out:?}")
            };
            assert_eq!(er.ord_rej_reason, Some(OrdRejReason::DuplicateOrder));
        }
        let (out, _) = run(&mut entry, |b| cancel(13, 99).encode_frame(b));
        assert!(matches!(
            out,
            EntryOutcome::Reject(ReportMsg::CancelReject(r)) if r.cxl_rej_reason == CxlRejReason::UnknownOrder
        ));
        assert_eq!(entry.cl_ord_ids().live_len(), 0);
    }

    /// Issue 37 (`dst` seeds 2908, 14792, 224778): a cancel sent again with its ClOrdID after
    /// a reconnect (its answer held while the journal failed) is a repeat whatever became of
    /// the order: DuplicateClOrdID, which a strategy takes as "answered elsewhere", both while
    /// the order is open and once it has ended and left the tracker (not a second answer,
    /// TooLateToCancel); so is one whose first sending was itself refused at entry.
    #[test]
    fn a_repeated_cancel_is_a_duplicate_before_and_after_its_order_ends() {
        let mut entry = order_7_with_cancel_8();
        let reason =
            |entry: &mut OrderEntry, cl, orig| cancel_rejected(entry, cl, orig).cxl_rej_reason;
        assert_eq!(reason(&mut entry, 8, 7), CxlRejReason::DuplicateClOrdID);
        assert_eq!(entry.release(7), 2);
        assert_eq!(reason(&mut entry, 8, 7), CxlRejReason::DuplicateClOrdID);
        assert_eq!(reason(&mut entry, 9, 7), CxlRejReason::TooLateToCancel);
        // A cancel refused at entry (its order ended, or never known) sent again is a repeat
        // too (`dst` seed 224778: each resend was answered TooLateToCancel again).
        assert_eq!(reason(&mut entry, 9, 7), CxlRejReason::DuplicateClOrdID);
        assert_eq!(reason(&mut entry, 10, 99), CxlRejReason::UnknownOrder);
        assert_eq!(reason(&mut entry, 10, 99), CxlRejReason::DuplicateClOrdID);
        // Used, naming no order: a cancel naming it finds no open order.
        assert_eq!(entry.cl_ord_ids().named(10), Named::Ended);
    }

    /// The soak's short sweep, run 2 ("1 unanswered amends"): a cancel the restarted gateway
    /// does not know (still unread in its socket at the SIGKILL, or sent to the exchange while
    /// the journal failed, its ClOrdID's record held and lost) whose order then ended (an
    /// earlier cancel's answer, the reconciliation's Canceled under the order's own ClOrdID).
    /// The strategy sends the cancel again, also once it has read that end: answered once,
    /// whatever became of the order (sent while the order is still tracked, TooLateToCancel
    /// once it has left), and a repeat of it is DuplicateClOrdID.
    #[test]
    fn a_cancel_a_restart_lost_is_answered_once_when_sent_again() {
        let restored = || {
            let mut used = UsedIds::new();
            used.insert(7);
            OrderEntry::restore(1, 0, [(7, 7, 0)], used, UsedIds::new())
        };
        // The order still tracked (held for its strategy after the restart): sent again.
        let mut entry = restored();
        assert!(matches!(
            run(&mut entry, |b| cancel(8, 7).encode_frame(b)).0,
            EntryOutcome::Send { root: 7, .. }
        ));
        // The order reported Canceled by the reconciliation and evicted first.
        let mut entry = restored();
        assert_eq!(entry.release(7), 1);
        let reason = |entry: &mut OrderEntry| cancel_rejected(entry, 8, 7).cxl_rej_reason;
        assert_eq!(reason(&mut entry), CxlRejReason::TooLateToCancel);
        assert_eq!(reason(&mut entry), CxlRejReason::DuplicateClOrdID);
    }
}
