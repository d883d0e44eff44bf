//! Record encoding and decoding (layout in the module docs of [`crate::replay`]).
//!
//! Input tags: 1 Sent, 2 SentBatch, 3 ListDone, 4 Frame, 5 SessionOpened, 6 SessionClosed,
//! 7 OpenOrders, 8 MassCancel, 9 ExchangeState (with the monotonic ns the driver passed),
//! 10 LinkDown, 11 LinkUp, 12 Restore (roots sorted by ClOrdID, then the ExecutionReports
//! as length-prefixed SBE frames, then the unanswered roots' since-ms sorted, absent in older
//! recordings), 0 not replayable. Decimals are `i64` mantissa + `i8`
//! exponent; optional values carry a `u8` presence flag; strings and byte strings a `u32`
//! length; SBE enums their wire byte.

use codec::sbe::{
    Category, ExecutionReport, GroupEntry, ListStatusEntry, MassCancelRequestType, OrdStatus,
    OrdType, Side, Symbol, TimeInForce,
};
use codec::Decimal;

use super::ReplayError;
use crate::exchange::rest_history::ExchangeFill;
use crate::exchange::rest_orders::OpenOrder;
use crate::pretrade::{InstrumentRules, InstrumentTable};
use crate::session::order_entry::EntryOutcome;
use crate::tracker::{
    BatchItem, ExchangeState, ListDone, MassCancelEvent, NewOrder, OrderFilter, OrderScope,
    RequestKind, SentBatch, SentRequest, StateSource, TrackerInput,
};
use crate::types::SessionRole;
use codec::sbe::Message;

/// File header magic.
pub const MAGIC: &[u8; 6] = b"BGWREC";
/// Format version this build writes and reads.
pub const VERSION: u16 = 1;

pub(super) const KIND_INPUT: u8 = 1;
pub(super) const KIND_REPORT: u8 = 2;
pub(super) const KIND_OPEN_ORDER: u8 = 3;
pub(super) const KIND_INSTRUMENTS: u8 = 4;
pub(super) const KIND_ENTRY_RESET: u8 = 5;
pub(super) const KIND_ORDER_ENTRY: u8 = 6;
pub(super) const KIND_ENTRY_STATE: u8 = 7;

/// A tracker input as recorded (owned, without the reply channels and writers).
#[derive(Debug, Clone)]
pub enum RecordedInput {
    /// [`TrackerInput::Sent`].
    Sent(SentRequest),
    /// [`TrackerInput::SentBatch`].
    SentBatch(SentBatch),
    /// [`TrackerInput::ListDone`].
    ListDone(ListDone),
    /// [`TrackerInput::Frame`].
    Frame {
        /// Account index.
        account: usize,
        /// The frame's payload.
        text: Vec<u8>,
        /// Monotonic read time, ns.
        t_read_ns: u64,
    },
    /// [`TrackerInput::SessionOpened`] (without the writer).
    SessionOpened {
        /// SessionID.
        session_id: u64,
        /// Account index.
        account: usize,
        /// Role.
        role: SessionRole,
    },
    /// [`TrackerInput::SessionClosed`].
    SessionClosed {
        /// SessionID.
        session_id: u64,
    },
    /// [`TrackerInput::OpenOrders`] (the answer is recorded as open-order records).
    OpenOrders {
        /// Which orders.
        filter: OrderFilter,
        /// The exchange's open orders, when given.
        exchange: Option<Vec<OpenOrder>>,
    },
    /// [`TrackerInput::MassCancel`].
    MassCancel(MassCancelEvent),
    /// [`TrackerInput::ExchangeState`] (without the reply channel).
    ExchangeState {
        /// The exchange's view.
        state: ExchangeState,
        /// The monotonic time (ns) the driver passed with it.
        t_read_ns: u64,
    },
    /// [`TrackerInput::LinkDown`].
    LinkDown {
        /// Account index.
        account: usize,
        /// Monotonic ns.
        t_ns: u64,
    },
    /// [`TrackerInput::LinkUp`].
    LinkUp {
        /// Account index.
        account: usize,
        /// Monotonic ns.
        t_ns: u64,
    },
    /// [`TrackerInput::Restore`] (roots sorted by ClOrdID).
    Restore {
        /// SessionID.
        session_id: u64,
        /// Every ClOrdID the session used → root ClOrdID, sorted by ClOrdID.
        roots: Vec<(u64, u64)>,
        /// The journaled ExecutionReports, in sequence order.
        reports: Vec<ExecutionReport>,
        /// Unanswered root ClOrdIDs → UTC ms, sorted (empty in recordings made before it was
        /// recorded).
        unanswered_since_ms: Vec<(u64, u64)>,
    },
    /// An input this version cannot replay (skipped).
    Skipped,
}

/// One record of a recording.
#[derive(Debug, Clone)]
pub enum Record {
    /// An input and the UTC time (ns) the driver passed to the core with it.
    Input {
        /// Wall clock, ns since the Unix epoch.
        utc_ns: u64,
        /// The input.
        input: RecordedInput,
    },
    /// A frame written to a strategy session.
    Report {
        /// SessionID.
        session_id: u64,
        /// The SBE frame, SOFH included.
        frame: Vec<u8>,
    },
    /// The instrument rules order entry checks against (io stream).
    Instruments(Vec<InstrumentRules>),
    /// A session was established with a fresh order-entry state (io stream).
    EntryReset {
        /// SessionID.
        session_id: u64,
    },
    /// A session was established with the order-entry state it already had (a reconnect, or
    /// the state rebuilt from its journal after a restart) (io stream).
    EntryState {
        /// SessionID.
        session_id: u64,
        /// ClOrdID → root ClOrdID, sorted by ClOrdID.
        roots: Vec<(u64, u64)>,
        /// ListIDs used, sorted.
        list_ids: Vec<u64>,
    },
    /// One single-order message through order entry (io stream).
    OrderEntry {
        /// SessionID.
        session_id: u64,
        /// The trade op's request id it was given.
        req_id: u64,
        /// UTC ns it was given (TransactTime of a reject).
        utc_ns: u64,
        /// The strategy message as an SBE frame (SOFH included).
        msg: Vec<u8>,
        /// True: `out` is the trade-op JSON; false: `out` is the reject frame.
        sent: bool,
        /// What order entry produced.
        out: Vec<u8>,
    },
    /// One order of an open-orders answer.
    OpenOrder {
        /// SessionID (0: an order the gateway does not know).
        session_id: u64,
        /// Root ClOrdID.
        root: u64,
        /// Its ExecutionReport (OrderStatus) frame.
        frame: Vec<u8>,
    },
}

// ---------------------------------------------------------------- writing

fn put_u8(b: &mut Vec<u8>, v: u8) {
    b.push(v);
}
fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_bytes(b: &mut Vec<u8>, v: &[u8]) {
    put_u32(b, u32::try_from(v.len()).unwrap_or(u32::MAX));
    b.extend_from_slice(v.get(..v.len().min(u32::MAX as usize)).unwrap_or(&[]));
}
fn put_dec(b: &mut Vec<u8>, d: Decimal) {
    b.extend_from_slice(&d.mantissa().to_le_bytes());
    b.extend_from_slice(&d.exponent().to_le_bytes());
}
fn put_opt_dec(b: &mut Vec<u8>, d: Option<Decimal>) {
    match d {
        Some(d) => {
            put_u8(b, 1);
            put_dec(b, d);
        }
        None => put_u8(b, 0),
    }
}
fn put_opt_u8(b: &mut Vec<u8>, v: Option<u8>) {
    match v {
        Some(v) => {
            put_u8(b, 1);
            put_u8(b, v);
        }
        None => put_u8(b, 0),
    }
}

fn put_kind(b: &mut Vec<u8>, k: &RequestKind) {
    match k {
        RequestKind::New(n) => {
            put_u8(b, 1);
            put_u64(b, n.cl_ord_id);
            put_u8(b, n.category.to_wire());
            put_bytes(b, n.symbol.as_bytes());
            put_u8(b, n.side.to_wire());
            put_u8(b, n.ord_type.to_wire());
            put_u8(b, n.time_in_force.to_wire());
            put_opt_dec(b, n.price);
            put_dec(b, n.qty);
        }
        RequestKind::Replace {
            cl_ord_id,
            price,
            qty,
        } => {
            put_u8(b, 2);
            put_u64(b, *cl_ord_id);
            put_opt_dec(b, *price);
            put_dec(b, *qty);
        }
        RequestKind::Cancel { cl_ord_id } => {
            put_u8(b, 3);
            put_u64(b, *cl_ord_id);
        }
    }
}

fn put_open_order(b: &mut Vec<u8>, o: &OpenOrder) {
    put_u64(b, o.order_id);
    put_bytes(b, o.client_oid.as_bytes());
    put_u8(b, o.category.to_wire());
    put_bytes(b, o.symbol.as_bytes());
    put_u8(b, o.side.to_wire());
    put_u8(b, o.ord_type.to_wire());
    put_u8(b, o.time_in_force.to_wire());
    put_opt_dec(b, o.price);
    put_dec(b, o.qty);
    put_dec(b, o.cum_qty);
    put_opt_dec(b, o.avg_px);
    put_u8(b, o.status.to_wire());
    put_dec(b, o.cum_value);
    put_bytes(b, o.cancel_reason.as_bytes());
    put_u64(b, o.updated_time_ms);
}

/// Appends the body of an input record (kind byte included) for `input` seen with `utc_ns`.
/// Returns false for inputs that are not recorded at all (Shutdown).
pub(super) fn encode_input(
    b: &mut Vec<u8>,
    input: &TrackerInput,
    utc_ns: u64,
    mono_ns: u64,
) -> bool {
    if matches!(input, TrackerInput::Shutdown) {
        return false;
    }
    put_u8(b, KIND_INPUT);
    put_u64(b, utc_ns);
    match input {
        TrackerInput::Sent(r) => {
            put_u8(b, 1);
            put_u64(b, r.req_id);
            put_u64(b, r.session_id);
            put_u64(b, r.root);
            put_kind(b, &r.kind);
            put_u64(b, r.t_read_ns);
            put_u64(b, r.t_written_ns);
        }
        TrackerInput::SentBatch(s) => {
            put_u8(b, 2);
            put_u64(b, s.req_id);
            put_u64(b, s.session_id);
            put_u64(b, s.list_id);
            put_u64(b, s.t_written_ns);
            put_u32(b, u32::try_from(s.items.len()).unwrap_or(u32::MAX));
            for it in &s.items {
                put_u64(b, it.root);
                put_kind(b, &it.kind);
            }
        }
        TrackerInput::ListDone(d) => {
            put_u8(b, 3);
            put_u64(b, d.session_id);
            put_u64(b, d.list_id);
            b.extend_from_slice(&d.ref_msg_type.to_le_bytes());
            put_u32(b, d.batches_sent);
            put_u32(b, u32::try_from(d.refused.len()).unwrap_or(u32::MAX));
            for e in &d.refused {
                let start = b.len();
                b.resize(start + usize::from(ListStatusEntry::BLOCK_LENGTH), 0);
                if let Some(slot) = b.get_mut(start..) {
                    e.put(slot);
                }
            }
        }
        TrackerInput::Frame {
            account,
            text,
            t_read_ns,
        } => {
            put_u8(b, 4);
            put_u64(b, *account as u64);
            put_u64(b, *t_read_ns);
            put_bytes(b, text);
        }
        TrackerInput::SessionOpened {
            session_id,
            account,
            role,
            ..
        } => {
            put_u8(b, 5);
            put_u64(b, *session_id);
            put_u64(b, *account as u64);
            put_u8(
                b,
                match role {
                    SessionRole::Trading => 0,
                    SessionRole::Operator => 1,
                    SessionRole::DropCopy => 2,
                },
            );
        }
        TrackerInput::SessionClosed { session_id } => {
            put_u8(b, 6);
            put_u64(b, *session_id);
        }
        TrackerInput::OpenOrders {
            filter, exchange, ..
        } => {
            put_u8(b, 7);
            match filter.scope {
                OrderScope::Session(s) => {
                    put_u8(b, 1);
                    put_u64(b, s);
                }
                OrderScope::Account(a) => {
                    put_u8(b, 2);
                    put_u64(b, a as u64);
                }
            }
            match &filter.symbol {
                Some(s) => {
                    put_u8(b, 1);
                    put_bytes(b, s.as_bytes());
                }
                None => put_u8(b, 0),
            }
            put_opt_u8(b, filter.category.map(Category::to_wire));
            put_opt_u8(b, filter.side.map(Side::to_wire));
            match exchange {
                Some(list) => {
                    put_u8(b, 1);
                    put_u32(b, u32::try_from(list.len()).unwrap_or(u32::MAX));
                    for o in list {
                        put_open_order(b, o);
                    }
                }
                None => put_u8(b, 0),
            }
        }
        TrackerInput::MassCancel(ev) => {
            put_u8(b, 8);
            match ev {
                MassCancelEvent::Start {
                    mass_id,
                    session_id,
                    cl_ord_id,
                    request_type,
                    chunks,
                } => {
                    put_u8(b, 1);
                    put_u64(b, *mass_id);
                    put_u64(b, *session_id);
                    put_u64(b, *cl_ord_id);
                    put_u8(b, request_type.to_wire());
                    put_u32(b, *chunks);
                }
                MassCancelEvent::Chunk { mass_id, req_id } => {
                    put_u8(b, 2);
                    put_u64(b, *mass_id);
                    put_u64(b, *req_id);
                }
                MassCancelEvent::NotSent { req_id, text } => {
                    put_u8(b, 3);
                    put_u64(b, *req_id);
                    put_bytes(b, text.as_bytes());
                }
            }
        }
        TrackerInput::ExchangeState { state, .. } => {
            put_u8(b, 9);
            put_u64(b, mono_ns);
            put_u64(b, state.account as u64);
            put_u32(b, u32::try_from(state.orders.len()).unwrap_or(u32::MAX));
            for o in &state.orders {
                put_open_order(b, o);
            }
            put_u32(b, u32::try_from(state.fills.len()).unwrap_or(u32::MAX));
            for f in &state.fills {
                put_u64(b, f.exec_id);
                put_u64(b, f.order_id);
                put_bytes(b, f.client_oid.as_bytes());
                put_u8(b, f.category.to_wire());
                put_bytes(b, f.symbol.as_bytes());
                put_u8(b, f.side.to_wire());
                put_dec(b, f.exec_price);
                put_dec(b, f.exec_qty);
                put_dec(b, f.exec_value);
                put_u64(b, f.exec_time_ms);
            }
            put_u32(b, u32::try_from(state.not_found.len()).unwrap_or(u32::MAX));
            for s in &state.not_found {
                put_bytes(b, s.as_bytes());
            }
            put_u8(b, state.source.to_u8());
        }
        TrackerInput::LinkDown { account, t_ns } => {
            put_u8(b, 10);
            put_u64(b, *account as u64);
            put_u64(b, *t_ns);
        }
        TrackerInput::LinkUp { account, t_ns } => {
            put_u8(b, 11);
            put_u64(b, *account as u64);
            put_u64(b, *t_ns);
        }
        TrackerInput::Restore {
            session_id,
            roots,
            reports,
            unanswered_since_ms,
        } => {
            put_u8(b, 12);
            put_u64(b, *session_id);
            // Sorted: a HashMap's order differs from run to run.
            let mut sorted: Vec<(u64, u64)> = roots.iter().map(|(k, v)| (*k, *v)).collect();
            sorted.sort_unstable();
            put_u32(b, u32::try_from(sorted.len()).unwrap_or(u32::MAX));
            for (cl, root) in sorted {
                put_u64(b, cl);
                put_u64(b, root);
            }
            put_u32(b, u32::try_from(reports.len()).unwrap_or(u32::MAX));
            let mut frame = Vec::with_capacity(ExecutionReport::FRAME_LEN);
            for er in reports {
                frame.clear();
                er.encode_frame(&mut frame);
                put_bytes(b, &frame);
            }
            let mut since: Vec<(u64, u64)> =
                unanswered_since_ms.iter().map(|(k, v)| (*k, *v)).collect();
            since.sort_unstable();
            put_u32(b, u32::try_from(since.len()).unwrap_or(u32::MAX));
            for (root, ms) in since {
                put_u64(b, root);
                put_u64(b, ms);
            }
        }
        #[allow(unreachable_patterns)]
        _ => put_u8(b, 0),
    }
    true
}

/// Appends the body of a report record (kind byte included).
pub(super) fn encode_report(b: &mut Vec<u8>, session_id: u64, frame: &[u8]) {
    put_u8(b, KIND_REPORT);
    put_u64(b, session_id);
    b.extend_from_slice(frame);
}

/// Appends the body of an open-order record (kind byte included).
pub(super) fn encode_open_order(b: &mut Vec<u8>, session_id: u64, root: u64, frame: &[u8]) {
    put_u8(b, KIND_OPEN_ORDER);
    put_u64(b, session_id);
    put_u64(b, root);
    b.extend_from_slice(frame);
}

/// Appends the body of an instruments record (kind byte included).
pub(super) fn encode_instruments(b: &mut Vec<u8>, table: &InstrumentTable) {
    put_u8(b, KIND_INSTRUMENTS);
    put_u32(b, u32::try_from(table.len()).unwrap_or(u32::MAX));
    for r in table.rules() {
        put_u8(b, r.category.to_wire());
        put_bytes(b, r.symbol.as_bytes());
        put_dec(b, r.tick);
        put_dec(b, r.lot);
        put_dec(b, r.min_qty);
        put_opt_dec(b, r.max_qty);
        put_dec(b, r.min_notional);
        put_u8(b, u8::from(r.online));
    }
}

/// Appends the body of an entry-reset record (kind byte included).
pub(super) fn encode_entry_reset(b: &mut Vec<u8>, session_id: u64) {
    put_u8(b, KIND_ENTRY_RESET);
    put_u64(b, session_id);
}

/// Appends the body of an entry-state record (kind byte included): the session's ClOrdIDs and
/// ListIDs, sorted.
pub(super) fn encode_entry_state(
    b: &mut Vec<u8>,
    session_id: u64,
    roots: &[(u64, u64)],
    list_ids: &[u64],
) {
    put_u8(b, KIND_ENTRY_STATE);
    put_u64(b, session_id);
    put_u32(b, u32::try_from(roots.len()).unwrap_or(u32::MAX));
    for &(cl, root) in roots {
        put_u64(b, cl);
        put_u64(b, root);
    }
    put_u32(b, u32::try_from(list_ids.len()).unwrap_or(u32::MAX));
    for &id in list_ids {
        put_u64(b, id);
    }
}

/// Appends the body of an order-entry record (kind byte included); false for messages that
/// are not single-order requests.
pub(super) fn encode_order_entry(
    b: &mut Vec<u8>,
    session_id: u64,
    req_id: u64,
    utc_ns: u64,
    msg: &Message<'_>,
    outcome: &EntryOutcome,
    json: &[u8],
) -> bool {
    put_u8(b, KIND_ORDER_ENTRY);
    put_u64(b, session_id);
    put_u64(b, req_id);
    put_u64(b, utc_ns);
    let mut frame = Vec::with_capacity(128);
    match msg {
        Message::NewOrderSingle(m) => m.to_owned().encode_frame(&mut frame),
        Message::OrderCancelRequest(m) => m.to_owned().encode_frame(&mut frame),
        Message::OrderCancelReplaceRequest(m) => m.to_owned().encode_frame(&mut frame),
        _ => return false,
    }
    put_bytes(b, &frame);
    match outcome {
        EntryOutcome::Send { .. } => {
            put_u8(b, 1);
            b.extend_from_slice(json);
        }
        EntryOutcome::Reject(report) => {
            put_u8(b, 0);
            crate::tracker::frames::encode_report(report, b);
        }
    }
    true
}

// ---------------------------------------------------------------- reading

/// A cursor over one record body; every read is checked.
struct Cur<'a> {
    b: &'a [u8],
}

type R<T> = Result<T, &'static str>;

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        if self.b.len() < n {
            return Err("record too short");
        }
        let (h, t) = self.b.split_at(n);
        self.b = t;
        Ok(h)
    }
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?.first().copied().unwrap_or(0))
    }
    fn u16(&mut self) -> R<u16> {
        let mut a = [0u8; 2];
        a.copy_from_slice(self.take(2)?);
        Ok(u16::from_le_bytes(a))
    }
    fn u32(&mut self) -> R<u32> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }
    fn u64(&mut self) -> R<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn usize(&mut self) -> R<usize> {
        usize::try_from(self.u64()?).map_err(|_| "index too large")
    }
    fn bytes(&mut self) -> R<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn str(&mut self) -> R<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| "string is not UTF-8")
    }
    fn dec(&mut self) -> R<Decimal> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        let e = self.u8()? as i8;
        Decimal::new(i64::from_le_bytes(a), e).map_err(|_| "decimal exponent out of range")
    }
    fn opt_dec(&mut self) -> R<Option<Decimal>> {
        match self.u8()? {
            0 => Ok(None),
            _ => Ok(Some(self.dec()?)),
        }
    }
    fn opt_u8(&mut self) -> R<Option<u8>> {
        match self.u8()? {
            0 => Ok(None),
            _ => Ok(Some(self.u8()?)),
        }
    }
    fn symbol(&mut self) -> R<Symbol> {
        Symbol::new(self.str()?).map_err(|_| "bad symbol")
    }
    fn category(&mut self) -> R<Category> {
        Category::from_wire(self.u8()?).ok_or("bad category")
    }
    fn side(&mut self) -> R<Side> {
        Side::from_wire(self.u8()?).ok_or("bad side")
    }
    fn ord_type(&mut self) -> R<OrdType> {
        OrdType::from_wire(self.u8()?).ok_or("bad ord type")
    }
    fn tif(&mut self) -> R<TimeInForce> {
        TimeInForce::from_wire(self.u8()?).ok_or("bad time in force")
    }

    fn kind(&mut self) -> R<RequestKind> {
        Ok(match self.u8()? {
            1 => RequestKind::New(NewOrder {
                cl_ord_id: self.u64()?,
                category: self.category()?,
                symbol: self.symbol()?,
                side: self.side()?,
                ord_type: self.ord_type()?,
                time_in_force: self.tif()?,
                price: self.opt_dec()?,
                qty: self.dec()?,
            }),
            2 => RequestKind::Replace {
                cl_ord_id: self.u64()?,
                price: self.opt_dec()?,
                qty: self.dec()?,
            },
            3 => RequestKind::Cancel {
                cl_ord_id: self.u64()?,
            },
            _ => return Err("bad request kind"),
        })
    }

    fn open_order(&mut self) -> R<OpenOrder> {
        Ok(OpenOrder {
            order_id: self.u64()?,
            client_oid: self.str()?.to_owned(),
            category: self.category()?,
            symbol: self.symbol()?,
            side: self.side()?,
            ord_type: self.ord_type()?,
            time_in_force: self.tif()?,
            price: self.opt_dec()?,
            qty: self.dec()?,
            cum_qty: self.dec()?,
            avg_px: self.opt_dec()?,
            status: OrdStatus::from_wire(self.u8()?).ok_or("bad order status")?,
            cum_value: self.dec()?,
            cancel_reason: self.str()?.to_owned(),
            updated_time_ms: self.u64()?,
        })
    }

    fn count(&mut self) -> R<usize> {
        let n = self.u32()? as usize;
        // Every element takes at least one byte: a bound that keeps allocation in check.
        if n > self.b.len() {
            return Err("count larger than the record");
        }
        Ok(n)
    }

    fn input(&mut self) -> R<RecordedInput> {
        Ok(match self.u8()? {
            0 => RecordedInput::Skipped,
            1 => RecordedInput::Sent(SentRequest {
                req_id: self.u64()?,
                session_id: self.u64()?,
                root: self.u64()?,
                kind: self.kind()?,
                t_read_ns: self.u64()?,
                t_written_ns: self.u64()?,
            }),
            2 => {
                let req_id = self.u64()?;
                let session_id = self.u64()?;
                let list_id = self.u64()?;
                let t_written_ns = self.u64()?;
                let n = self.count()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(BatchItem {
                        root: self.u64()?,
                        kind: self.kind()?,
                    });
                }
                RecordedInput::SentBatch(SentBatch {
                    req_id,
                    session_id,
                    list_id,
                    items,
                    t_written_ns,
                })
            }
            3 => {
                let session_id = self.u64()?;
                let list_id = self.u64()?;
                let ref_msg_type = self.u16()?;
                let batches_sent = self.u32()?;
                let n = self.count()?;
                let mut refused = Vec::with_capacity(n);
                for _ in 0..n {
                    let block = self.take(usize::from(ListStatusEntry::BLOCK_LENGTH))?;
                    ListStatusEntry::check(block).map_err(|_| "bad list status entry")?;
                    refused.push(ListStatusEntry::view(block).to_owned());
                }
                RecordedInput::ListDone(ListDone {
                    session_id,
                    list_id,
                    ref_msg_type,
                    batches_sent,
                    refused,
                })
            }
            4 => RecordedInput::Frame {
                account: self.usize()?,
                t_read_ns: self.u64()?,
                text: self.bytes()?.to_vec(),
            },
            5 => RecordedInput::SessionOpened {
                session_id: self.u64()?,
                account: self.usize()?,
                role: match self.u8()? {
                    0 => SessionRole::Trading,
                    1 => SessionRole::Operator,
                    2 => SessionRole::DropCopy,
                    _ => return Err("bad session role"),
                },
            },
            6 => RecordedInput::SessionClosed {
                session_id: self.u64()?,
            },
            7 => {
                let scope = match self.u8()? {
                    1 => OrderScope::Session(self.u64()?),
                    2 => OrderScope::Account(self.usize()?),
                    _ => return Err("bad order scope"),
                };
                let symbol = match self.u8()? {
                    0 => None,
                    _ => Some(self.symbol()?),
                };
                let category = match self.opt_u8()? {
                    Some(c) => Some(Category::from_wire(c).ok_or("bad category")?),
                    None => None,
                };
                let side = match self.opt_u8()? {
                    Some(s) => Some(Side::from_wire(s).ok_or("bad side")?),
                    None => None,
                };
                let exchange = match self.u8()? {
                    0 => None,
                    _ => {
                        let n = self.count()?;
                        let mut list = Vec::with_capacity(n);
                        for _ in 0..n {
                            list.push(self.open_order()?);
                        }
                        Some(list)
                    }
                };
                RecordedInput::OpenOrders {
                    filter: OrderFilter {
                        scope,
                        symbol,
                        category,
                        side,
                    },
                    exchange,
                }
            }
            8 => RecordedInput::MassCancel(match self.u8()? {
                1 => MassCancelEvent::Start {
                    mass_id: self.u64()?,
                    session_id: self.u64()?,
                    cl_ord_id: self.u64()?,
                    request_type: MassCancelRequestType::from_wire(self.u8()?)
                        .ok_or("bad mass cancel request type")?,
                    chunks: self.u32()?,
                },
                2 => MassCancelEvent::Chunk {
                    mass_id: self.u64()?,
                    req_id: self.u64()?,
                },
                3 => MassCancelEvent::NotSent {
                    req_id: self.u64()?,
                    text: static_text(self.str()?),
                },
                _ => return Err("bad mass cancel event"),
            }),
            9 => {
                let t_read_ns = self.u64()?;
                let account = self.usize()?;
                let n = self.count()?;
                let mut orders = Vec::with_capacity(n);
                for _ in 0..n {
                    orders.push(self.open_order()?);
                }
                let n = self.count()?;
                let mut fills = Vec::with_capacity(n);
                for _ in 0..n {
                    fills.push(ExchangeFill {
                        exec_id: self.u64()?,
                        order_id: self.u64()?,
                        client_oid: self.str()?.to_owned(),
                        category: self.category()?,
                        symbol: self.symbol()?,
                        side: self.side()?,
                        exec_price: self.dec()?,
                        exec_qty: self.dec()?,
                        exec_value: self.dec()?,
                        exec_time_ms: self.u64()?,
                    });
                }
                let n = self.count()?;
                let mut not_found = Vec::with_capacity(n);
                for _ in 0..n {
                    not_found.push(self.str()?.to_owned());
                }
                let source = StateSource::from_u8(self.u8()?);
                RecordedInput::ExchangeState {
                    state: ExchangeState {
                        account,
                        orders,
                        fills,
                        not_found,
                        source,
                    },
                    t_read_ns,
                }
            }
            10 => RecordedInput::LinkDown {
                account: self.usize()?,
                t_ns: self.u64()?,
            },
            11 => RecordedInput::LinkUp {
                account: self.usize()?,
                t_ns: self.u64()?,
            },
            12 => {
                let session_id = self.u64()?;
                let n = self.count()?;
                let mut roots = Vec::with_capacity(n);
                for _ in 0..n {
                    roots.push((self.u64()?, self.u64()?));
                }
                let n = self.count()?;
                let mut reports = Vec::with_capacity(n);
                for _ in 0..n {
                    let frame = self.bytes()?;
                    let payload = frame
                        .get(codec::frame::SOFH_LEN..)
                        .ok_or("execution report frame too short")?;
                    match codec::sbe::decode(payload) {
                        Ok(Message::ExecutionReport(er)) => reports.push(er.to_owned()),
                        _ => return Err("bad execution report"),
                    }
                }
                // Absent from recordings made before it was recorded.
                let mut unanswered_since_ms = Vec::new();
                if !self.b.is_empty() {
                    let n = self.count()?;
                    for _ in 0..n {
                        unanswered_since_ms.push((self.u64()?, self.u64()?));
                    }
                }
                RecordedInput::Restore {
                    session_id,
                    roots,
                    reports,
                    unanswered_since_ms,
                }
            }
            _ => RecordedInput::Skipped,
        })
    }
}

/// The `&'static` text a recorded NotSent carried (the texts are constants of the gateway).
fn static_text(s: &str) -> &'static str {
    const KNOWN: [&str; 2] = ["exchange connection down", "exchange write failed"];
    KNOWN.iter().find(|k| **k == s).copied().unwrap_or_else(|| {
        let bucket = s.strip_prefix("rate budget exhausted: ").unwrap_or("");
        crate::budget::throttled_text(bucket)
    })
}

/// Checks the header; returns the records part.
pub(super) fn body(file: &[u8]) -> Result<&[u8], ReplayError> {
    let (magic, rest) = file.split_at(file.len().min(MAGIC.len()));
    if magic != MAGIC {
        return Err(ReplayError::BadHeader);
    }
    let mut c = Cur { b: rest };
    let version = c.u16().map_err(|_| ReplayError::BadHeader)?;
    if version != VERSION {
        return Err(ReplayError::Version(version));
    }
    Ok(c.b)
}

/// Iterates the records of `body` (after the header). A truncated last record ends it.
pub(super) fn records(body: &[u8]) -> impl Iterator<Item = Result<Record, ReplayError>> + '_ {
    let mut c = Cur { b: body };
    let mut index = 0u64;
    std::iter::from_fn(move || {
        let len = c.u32().ok()? as usize;
        let rec = c.take(len).ok()?;
        let i = index;
        index += 1;
        Some(decode_record(rec).map_err(|what| ReplayError::Malformed { index: i, what }))
    })
}

fn decode_record(rec: &[u8]) -> R<Record> {
    let mut c = Cur { b: rec };
    Ok(match c.u8()? {
        KIND_INPUT => Record::Input {
            utc_ns: c.u64()?,
            input: c.input()?,
        },
        KIND_REPORT => Record::Report {
            session_id: c.u64()?,
            frame: c.b.to_vec(),
        },
        KIND_INSTRUMENTS => {
            let n = c.count()?;
            let mut rules = Vec::with_capacity(n);
            for _ in 0..n {
                rules.push(InstrumentRules {
                    category: c.category()?,
                    symbol: c.symbol()?,
                    tick: c.dec()?,
                    lot: c.dec()?,
                    min_qty: c.dec()?,
                    max_qty: c.opt_dec()?,
                    min_notional: c.dec()?,
                    online: c.u8()? != 0,
                });
            }
            Record::Instruments(rules)
        }
        KIND_ENTRY_RESET => Record::EntryReset {
            session_id: c.u64()?,
        },
        KIND_ENTRY_STATE => {
            let session_id = c.u64()?;
            let n = c.count()?;
            let mut roots = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                roots.push((c.u64()?, c.u64()?));
            }
            let n = c.count()?;
            let mut list_ids = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                list_ids.push(c.u64()?);
            }
            Record::EntryState {
                session_id,
                roots,
                list_ids,
            }
        }
        KIND_ORDER_ENTRY => Record::OrderEntry {
            session_id: c.u64()?,
            req_id: c.u64()?,
            utc_ns: c.u64()?,
            msg: c.bytes()?.to_vec(),
            sent: c.u8()? != 0,
            out: c.b.to_vec(),
        },
        KIND_OPEN_ORDER => Record::OpenOrder {
            session_id: c.u64()?,
            root: c.u64()?,
            frame: c.b.to_vec(),
        },
        _ => return Err("unknown record kind"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::sbe::{ExecType, Text};

    fn round_trip(input: &TrackerInput, mono: u64) -> (u64, RecordedInput) {
        let mut b = Vec::new();
        assert!(encode_input(&mut b, input, 77, mono));
        match decode_record(&b).unwrap() {
            Record::Input { utc_ns, input } => (utc_ns, input),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn entry_state_round_trips_and_a_truncated_one_is_an_error() {
        let mut b = Vec::new();
        encode_entry_state(&mut b, 4, &[(1, 1), (3, 1), (5, 5)], &[9]);
        match decode_record(&b).unwrap() {
            Record::EntryState {
                session_id,
                roots,
                list_ids,
            } => {
                assert_eq!(session_id, 4);
                assert_eq!(roots, vec![(1, 1), (3, 1), (5, 5)]);
                assert_eq!(list_ids, vec![9]);
            }
            other => panic!("{other:?}"),
        }
        assert!(decode_record(&b[..b.len() - 3]).is_err());
    }

    #[test]
    fn exchange_state_and_link_events_round_trip() {
        let order = OpenOrder {
            order_id: 5,
            client_oid: "1-2".into(),
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Ioc,
            price: Some("60000.5".parse().unwrap()),
            qty: "0.003".parse().unwrap(),
            cum_qty: "0.001".parse().unwrap(),
            avg_px: None,
            status: OrdStatus::PartiallyFilled,
            cum_value: "60".parse().unwrap(),
            cancel_reason: "x".into(),
            updated_time_ms: 9,
        };
        let fill = ExchangeFill {
            exec_id: 11,
            order_id: 5,
            client_oid: "1-2".into(),
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Sell,
            exec_price: "60000.5".parse().unwrap(),
            exec_qty: "0.001".parse().unwrap(),
            exec_value: "60.0005".parse().unwrap(),
            exec_time_ms: 12,
        };
        let state = ExchangeState {
            account: 1,
            orders: vec![order],
            fills: vec![fill],
            not_found: vec!["1-9".into()],
            source: StateSource::Restart,
        };
        let input = TrackerInput::ExchangeState {
            state: state.clone(),
            reply: None,
        };
        let (utc, got) = round_trip(&input, 99);
        assert_eq!(utc, 77);
        let RecordedInput::ExchangeState {
            state: s,
            t_read_ns,
        } = got
        else {
            panic!("{got:?}");
        };
        assert_eq!(t_read_ns, 99);
        assert_eq!(format!("{s:?}"), format!("{state:?}"));
        let (_, got) = round_trip(
            &TrackerInput::LinkDown {
                account: 2,
                t_ns: 3,
            },
            0,
        );
        assert!(matches!(
            got,
            RecordedInput::LinkDown {
                account: 2,
                t_ns: 3
            }
        ));
        let mut b = Vec::new();
        assert!(!encode_input(&mut b, &TrackerInput::Shutdown, 1, 0));
    }

    #[test]
    fn restore_round_trips_with_sorted_roots() {
        let er = |cl: u64, orig: u64, exec_type: ExecType, status: OrdStatus| ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 500 + cl,
            exec_id: 0,
            transact_time: 1_000_000 + cl,
            price: Some("60000.5".parse().unwrap()),
            order_qty: "0.002".parse().unwrap(),
            last_qty: None,
            last_px: None,
            cum_qty: Decimal::ZERO,
            leaves_qty: "0.002".parse().unwrap(),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: None,
            text: Text::new("restored"),
        };
        let reports = vec![
            er(3, 0, ExecType::New, OrdStatus::New),
            er(4, 3, ExecType::Replaced, OrdStatus::New),
        ];
        let roots: std::collections::HashMap<u64, u64> = [(9, 9), (4, 3), (3, 3), (7, 7), (1, 1)]
            .into_iter()
            .collect();
        let input = TrackerInput::Restore {
            session_id: 6,
            roots,
            reports: reports.clone(),
            unanswered_since_ms: [(9, 1_700), (7, 1_600)].into_iter().collect(),
        };
        let (utc, got) = round_trip(&input, 0);
        assert_eq!(utc, 77);
        let RecordedInput::Restore {
            session_id,
            roots,
            reports: r,
            unanswered_since_ms,
        } = got
        else {
            panic!("{got:?}");
        };
        assert_eq!(session_id, 6);
        assert_eq!(roots, [(1, 1), (3, 3), (4, 3), (7, 7), (9, 9)]);
        assert_eq!(unanswered_since_ms, [(7, 1_600), (9, 1_700)]);
        assert_eq!(format!("{r:?}"), format!("{reports:?}"));
        // Same input, same bytes (whatever the map's iteration order).
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert!(encode_input(&mut a, &input, 1, 0));
        let again = TrackerInput::Restore {
            session_id: 6,
            roots: [(1, 1), (3, 3), (4, 3), (7, 7), (9, 9)]
                .into_iter()
                .collect(),
            reports,
            unanswered_since_ms: [(7, 1_600), (9, 1_700)].into_iter().collect(),
        };
        assert!(encode_input(&mut b, &again, 1, 0));
        assert_eq!(a, b);
        // A truncated Restore is an error, not a panic.
        a.truncate(a.len() - 3);
        assert!(decode_record(&a).is_err());
    }
}
