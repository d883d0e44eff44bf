//! The batch side of [`OrderEntry`]: per-item checks of NewOrderList, OrderCancelReplaceList and
//! OrderCancelList (the same rules as the single-order path) and the JSON of one exchange batch
//! (`batch-place`, `batch-modify`, `batch-cancel`, at most [`EXCHANGE_BATCH_MAX`] items of one
//! category).

use codec::json::{self, CancelOrder, ModifyOrder, PlaceOrder};
use codec::sbe::{
    BoolFlag, Category, CxlRejReason, CxlRejResponseTo, ItemStatus, ListStatusEntry,
    NewOrderListEntryDecoder, OrdRejReason, OrdStatus, OrdType, OrderCancelListEntryDecoder,
    OrderCancelReject, OrderCancelReplaceListEntryDecoder, PosSide, Side, StpMode, Symbol, Text,
};

use super::order_entry::{place_order_args, OrderEntry};
use crate::ids::{format_request_id, ClientOid};
use crate::pretrade::{InstrumentTable, PretradeReject};
use crate::risk::Reserved;
use crate::tracker::{NewOrder, ReportMsg, RequestKind};

/// Most items of one Bitget batch trade op (reference §5.1).
pub const EXCHANGE_BATCH_MAX: usize = 20;

/// What a place item carries beyond [`NewOrder`].
#[derive(Debug, Clone, Copy)]
pub enum ItemExtras {
    /// A NewOrderList item.
    Place {
        /// Hedge-mode position side.
        pos_side: PosSide,
        /// Reduce-only.
        reduce_only: bool,
        /// Self-trade prevention.
        stp_mode: StpMode,
    },
    /// An OrderCancelReplaceList item.
    Modify {
        /// Cancel the order if the modification fails.
        auto_cancel: bool,
    },
    /// An OrderCancelList item.
    Cancel,
}

/// One item that passed the gateway's checks, waiting for its exchange batch.
#[derive(Debug, Clone, Copy)]
pub struct AcceptedItem {
    /// Category (one exchange batch holds one).
    pub category: Category,
    /// Symbol.
    pub symbol: Symbol,
    /// Side of the order.
    pub side: Side,
    /// Root ClOrdID of the order the item concerns.
    pub root: u64,
    /// OrigClOrdID of a modify or cancel item (0 for a place item).
    pub orig_cl_ord_id: u64,
    /// What the tracker is told.
    pub kind: RequestKind,
    /// Op-specific fields.
    pub extras: ItemExtras,
    /// A place item's risk reservation, once the decision made it (given back if its batch is
    /// not written).
    pub reserved: Option<Reserved>,
}

impl AcceptedItem {
    /// The item's own ClOrdID.
    pub fn cl_ord_id(&self) -> u64 {
        request_cl_ord_id(&self.kind)
    }
}

/// The ClOrdID of the request (the order's for a place, the request's for modify/cancel).
pub fn request_cl_ord_id(kind: &RequestKind) -> u64 {
    match kind {
        RequestKind::New(n) => n.cl_ord_id,
        RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => *cl_ord_id,
    }
}

/// One item refused before sending: its ListStatus entry and its report (ExecutionReport
/// Rejected for a place item, OrderCancelReject otherwise).
#[derive(Debug, Clone, Copy)]
pub struct RefusedItem {
    /// The ListStatus entry.
    pub entry: ListStatusEntry,
    /// The report for the strategy.
    pub report: ReportMsg,
}

/// A refused place item.
pub fn refuse_new(order: &NewOrder, reason: OrdRejReason, text: &str, utc_ns: u64) -> RefusedItem {
    RefusedItem {
        entry: refused_entry(order.cl_ord_id, reason, text),
        report: ReportMsg::Exec(order.rejected(reason, text, utc_ns)),
    }
}

/// A refused modify or cancel item.
pub fn refuse_cancel(
    cl: u64,
    orig: u64,
    to: CxlRejResponseTo,
    reason: CxlRejReason,
    text: &str,
    utc_ns: u64,
) -> RefusedItem {
    let item_reason = match reason {
        CxlRejReason::UnknownOrder => OrdRejReason::UnknownOrder,
        CxlRejReason::DuplicateClOrdID => OrdRejReason::DuplicateOrder,
        CxlRejReason::NotApplied => OrdRejReason::NotApplied,
        CxlRejReason::ThrottleLimitExceeded => OrdRejReason::ThrottleLimitExceeded,
        _ => OrdRejReason::Other,
    };
    RefusedItem {
        entry: refused_entry(cl, item_reason, text),
        report: ReportMsg::CancelReject(OrderCancelReject {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 0,
            transact_time: utc_ns,
            exchange_code: 0,
            ord_status: OrdStatus::Rejected,
            cxl_rej_response_to: to,
            cxl_rej_reason: reason,
            text: Text::new(text),
        }),
    }
}

fn refused_entry(cl_ord_id: u64, reason: OrdRejReason, text: &str) -> ListStatusEntry {
    ListStatusEntry {
        cl_ord_id,
        order_id: 0,
        exchange_code: 0,
        item_status: ItemStatus::Rejected,
        ord_rej_reason: Some(reason),
        text: Text::new(text),
    }
}

/// The instrument lookup with a clearer refusal when the whole category is not traded.
fn category_known(
    instruments: &InstrumentTable,
    category: Category,
    symbol: &Symbol,
) -> Result<(), PretradeReject> {
    if instruments.get(category, symbol).is_none() && !instruments.has_category(category) {
        return Err(PretradeReject {
            reason: OrdRejReason::UnknownSymbol,
            text: format!(
                "category {:?} not traded by this account: {}",
                category,
                symbol.as_str()
            ),
        });
    }
    Ok(())
}

/// Refusal text of a batch without items.
pub const LIST_EMPTY: &str = "empty list";
/// Refusal text of a batch with ListID 0 (the schema uses 0 for "none").
pub const LIST_ID_ZERO: &str = "ListID 0 is reserved (0 means none)";
/// Refusal text of a batch whose ListID the session used before.
pub const LIST_ID_USED: &str = "ListID already used";

impl OrderEntry {
    /// The list-level checks of a batch of `len` items, in order: not empty, ListID not 0 (the
    /// schema's "none"), ListID not used before by the session. On success the ListID is
    /// registered (journaled with the next fresh ids); on refusal the text for the
    /// BusinessMessageReject (reason InvalidField), nothing registered.
    pub fn begin_list(&mut self, list_id: u64, len: usize) -> Result<(), &'static str> {
        if len == 0 {
            return Err(LIST_EMPTY);
        }
        if list_id == 0 {
            return Err(LIST_ID_ZERO);
        }
        if !self.list_ids.insert(list_id) {
            return Err(LIST_ID_USED);
        }
        self.fresh_list_ids.push(list_id);
        Ok(())
    }

    /// Checks one NewOrderList item (duplicate ClOrdID, category, pre-trade rules).
    pub fn check_list_new(
        &mut self,
        e: &NewOrderListEntryDecoder<'_>,
        instruments: &InstrumentTable,
        utc_ns: u64,
    ) -> Result<AcceptedItem, Box<RefusedItem>> {
        let order = NewOrder {
            cl_ord_id: e.cl_ord_id(),
            category: e.category(),
            symbol: e.symbol(),
            side: e.side(),
            ord_type: e.ord_type(),
            time_in_force: e.time_in_force(),
            price: if e.ord_type() == OrdType::Market {
                None
            } else {
                e.price()
            },
            qty: e.order_qty(),
        };
        if order.cl_ord_id == 0 {
            return Err(Box::new(refuse_new(
                &order,
                OrdRejReason::Other,
                super::order_entry::CL_ORD_ID_ZERO,
                utc_ns,
            )));
        }
        if self.ids.is_used(order.cl_ord_id) {
            return Err(Box::new(refuse_new(
                &order,
                OrdRejReason::DuplicateOrder,
                "duplicate ClOrdID",
                utc_ns,
            )));
        }
        self.remember(order.cl_ord_id, order.cl_ord_id);
        let checked = category_known(instruments, order.category, &order.symbol).and_then(|()| {
            instruments.check_new(
                order.category,
                &order.symbol,
                order.ord_type,
                order.time_in_force,
                order.price,
                order.qty,
            )
        });
        if let Err(r) = checked {
            return Err(Box::new(refuse_new(&order, r.reason, &r.text, utc_ns)));
        }
        Ok(AcceptedItem {
            category: order.category,
            symbol: order.symbol,
            side: order.side,
            reserved: None,
            root: order.cl_ord_id,
            orig_cl_ord_id: 0,
            kind: RequestKind::New(order),
            extras: ItemExtras::Place {
                pos_side: e.pos_side(),
                reduce_only: e.reduce_only() == BoolFlag::Yes,
                stp_mode: e.stp_mode(),
            },
        })
    }

    /// Checks one OrderCancelReplaceList item (known OrigClOrdID, new ClOrdID, category,
    /// pre-trade rules on the new price and quantity).
    pub fn check_list_replace(
        &mut self,
        e: &OrderCancelReplaceListEntryDecoder<'_>,
        instruments: &InstrumentTable,
        utc_ns: u64,
    ) -> Result<AcceptedItem, Box<RefusedItem>> {
        let (cl, orig) = (e.cl_ord_id(), e.orig_cl_ord_id());
        let to = CxlRejResponseTo::OrderCancelReplaceRequest;
        let root = self.resolve(cl, orig).map_err(|(reason, text)| {
            Box::new(refuse_cancel(cl, orig, to, reason, text, utc_ns))
        })?;
        let Some(qty) = e.order_qty() else {
            self.use_refused(cl);
            return Err(Box::new(refuse_cancel(
                cl,
                orig,
                to,
                CxlRejReason::Other,
                super::order_entry::QTY_REQUIRED,
                utc_ns,
            )));
        };
        let price = e.price();
        let checked = category_known(instruments, e.category(), &e.symbol())
            .and_then(|()| instruments.check_replace(e.category(), &e.symbol(), price, qty));
        if let Err(r) = checked {
            self.use_refused(cl);
            return Err(Box::new(refuse_cancel(
                cl,
                orig,
                to,
                CxlRejReason::Other,
                &r.text,
                utc_ns,
            )));
        }
        self.remember(cl, root);
        Ok(AcceptedItem {
            category: e.category(),
            symbol: e.symbol(),
            side: e.side(),
            reserved: None,
            root,
            orig_cl_ord_id: orig,
            kind: RequestKind::Replace {
                cl_ord_id: cl,
                price,
                qty,
            },
            extras: ItemExtras::Modify {
                auto_cancel: e.auto_cancel() == BoolFlag::Yes,
            },
        })
    }

    /// Checks one OrderCancelList item (known OrigClOrdID, new ClOrdID, category).
    pub fn check_list_cancel(
        &mut self,
        e: &OrderCancelListEntryDecoder<'_>,
        instruments: &InstrumentTable,
        utc_ns: u64,
    ) -> Result<AcceptedItem, Box<RefusedItem>> {
        let (cl, orig) = (e.cl_ord_id(), e.orig_cl_ord_id());
        let to = CxlRejResponseTo::OrderCancelRequest;
        let root = self.resolve(cl, orig).map_err(|(reason, text)| {
            Box::new(refuse_cancel(cl, orig, to, reason, text, utc_ns))
        })?;
        if let Err(r) = category_known(instruments, e.category(), &e.symbol()) {
            self.use_refused(cl);
            return Err(Box::new(refuse_cancel(
                cl,
                orig,
                to,
                CxlRejReason::Other,
                &r.text,
                utc_ns,
            )));
        }
        self.remember(cl, root);
        Ok(AcceptedItem {
            category: e.category(),
            symbol: e.symbol(),
            side: e.side(),
            reserved: None,
            root,
            orig_cl_ord_id: orig,
            kind: RequestKind::Cancel { cl_ord_id: cl },
            extras: ItemExtras::Cancel,
        })
    }

    /// Writes one exchange batch of `items` (all of `category`, all of one list type, at most
    /// [`EXCHANGE_BATCH_MAX`]) into `json_out`.
    pub fn write_batch(
        &self,
        json_out: &mut Vec<u8>,
        req_id: u64,
        category: Category,
        items: &[AcceptedItem],
    ) {
        let oids: Vec<ClientOid> = items.iter().map(|i| self.client_oid(i.root)).collect();
        let mut id_buf = itoa::Buffer::new();
        let id = format_request_id(req_id, &mut id_buf);
        let cat = json::Category::from(category);
        match items.first().map(|i| i.extras) {
            Some(ItemExtras::Place { .. }) => {
                let orders: Vec<PlaceOrder<'_>> = items
                    .iter()
                    .zip(&oids)
                    .filter_map(|(i, oid)| place_args(i, oid))
                    .collect();
                json::write_batch_place(json_out, id, cat, &orders);
            }
            Some(ItemExtras::Modify { .. }) => {
                let orders: Vec<ModifyOrder<'_>> = items
                    .iter()
                    .zip(&oids)
                    .filter_map(|(i, oid)| match (i.kind, i.extras) {
                        (
                            RequestKind::Replace { price, qty, .. },
                            ItemExtras::Modify { auto_cancel },
                        ) => Some(ModifyOrder {
                            symbol: i.symbol.as_str(),
                            order_id: None,
                            client_oid: Some(oid.as_str()),
                            qty: Some(qty),
                            price,
                            auto_cancel,
                        }),
                        _ => None,
                    })
                    .collect();
                json::write_batch_modify(json_out, id, Some(cat), &orders);
            }
            Some(ItemExtras::Cancel) => {
                let orders: Vec<CancelOrder<'_>> = items
                    .iter()
                    .zip(&oids)
                    .map(|(i, oid)| CancelOrder {
                        symbol: Some(i.symbol.as_str()),
                        order_id: None,
                        client_oid: Some(oid.as_str()),
                    })
                    .collect();
                json::write_batch_cancel(json_out, id, Some(cat), &orders);
            }
            None => {}
        }
    }
}

fn place_args<'a>(i: &'a AcceptedItem, oid: &'a ClientOid) -> Option<PlaceOrder<'a>> {
    let (
        RequestKind::New(order),
        ItemExtras::Place {
            pos_side,
            reduce_only,
            stp_mode,
        },
    ) = (&i.kind, i.extras)
    else {
        return None;
    };
    Some(place_order_args(
        order,
        pos_side,
        reduce_only,
        stp_mode,
        oid.as_str(),
    ))
}

/// Groups accepted items by category (in order of first appearance) and splits each group into
/// exchange batches of at most [`EXCHANGE_BATCH_MAX`].
pub fn exchange_batches(items: Vec<AcceptedItem>) -> Vec<(Category, Vec<AcceptedItem>)> {
    let mut groups: Vec<(Category, Vec<AcceptedItem>)> = Vec::new();
    for item in items {
        match groups.iter_mut().find(|(c, _)| *c == item.category) {
            Some((_, g)) => g.push(item),
            None => groups.push((item.category, vec![item])),
        }
    }
    groups
        .into_iter()
        .flat_map(|(c, g)| {
            g.chunks(EXCHANGE_BATCH_MAX)
                .map(|chunk| (c, chunk.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect()
}
