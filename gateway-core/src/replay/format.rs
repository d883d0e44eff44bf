//! Record encoding and decoding (the file layout: `gateway::replay`'s module docs).
//!
//! Every record body is the [postcard](https://docs.rs/postcard) encoding of one [`Record`]:
//! the recorded types are defined once, with serde derives (the tracker's inputs, the
//! exchange's orders and fills, the instrument rules, the SBE messages and field types of
//! `codec`), and both directions follow from them. Postcard writes a struct as its fields in
//! order, an enum as its variant index (varint) then the variant's fields, integers as varints
//! (`u8`, `i8` and SBE enums as one byte), `Option` as a `0`/`1` byte, sequences, strings and
//! byte strings with a varint length. So any change to a recorded type (a field added,
//! removed or moved, a variant inserted or moved) changes the format: bump [`VERSION`] and
//! regenerate the golden recordings (`BGW_UPDATE_GOLDEN=1 cargo test -p e2e --test
//! replay_golden`). Appending a variant at the end of an enum keeps older files readable.

use serde::{Deserialize, Serialize};

use super::error::ReplayError;
use crate::decision::{Accepted, Refusal};
use crate::pretrade::{InstrumentRules, InstrumentTable};
use crate::rest_objects::OpenOrder;
use crate::session::order_entry::EntryOutcome;
use crate::session::used_ids::UsedIds;
use crate::tracker::{
    ExchangeState, ListDone, MassCancelEvent, OrderFilter, SentBatch, SentRequest,
};
use crate::types::SessionRole;
use codec::sbe::{ExecutionReport, Message};

pub use super::header::{MAGIC, VERSION};
/// Bytes of a record's length prefix (`u32` LE).
const LEN_PREFIX: usize = 4;

/// A tracker input as recorded (owned, without the reply channels and writers).
///
/// Variant order is part of the format (see the module docs): add new variants at the end.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum RecordedInput {
    /// `gateway::tracker::TrackerInput::Sent`.
    Sent(SentRequest),
    /// `gateway::tracker::TrackerInput::SentBatch`.
    SentBatch(SentBatch),
    /// `gateway::tracker::TrackerInput::ListDone`.
    ListDone(ListDone),
    /// `gateway::tracker::TrackerInput::Frame`.
    Frame {
        /// Account index.
        account: usize,
        /// The frame's payload.
        text: bytes::Bytes,
        /// Monotonic read time, ns.
        t_read_ns: u64,
    },
    /// `gateway::tracker::TrackerInput::SessionOpened` (without the writer).
    SessionOpened {
        /// SessionID.
        session_id: u64,
        /// Account index.
        account: usize,
        /// Role.
        role: SessionRole,
    },
    /// `gateway::tracker::TrackerInput::SessionClosed`.
    SessionClosed {
        /// SessionID.
        session_id: u64,
    },
    /// `gateway::tracker::TrackerInput::OpenOrders` (the answer is recorded as open-order records).
    OpenOrders {
        /// Which orders.
        filter: OrderFilter,
        /// The exchange's open orders, when given.
        exchange: Option<Vec<OpenOrder>>,
    },
    /// `gateway::tracker::TrackerInput::MassCancel`.
    MassCancel(MassCancelEvent),
    /// `gateway::tracker::TrackerInput::ExchangeState` (without the reply channel).
    ExchangeState {
        /// The exchange's view.
        state: ExchangeState,
        /// The monotonic time (ns) the driver passed with it.
        t_read_ns: u64,
    },
    /// `gateway::tracker::TrackerInput::LinkDown`.
    LinkDown {
        /// Account index.
        account: usize,
        /// Monotonic ns.
        t_ns: u64,
    },
    /// `gateway::tracker::TrackerInput::LinkUp`.
    LinkUp {
        /// Account index.
        account: usize,
        /// Monotonic ns.
        t_ns: u64,
    },
    /// `gateway::tracker::TrackerInput::Restore` (roots sorted by ClOrdID).
    Restore {
        /// SessionID.
        session_id: u64,
        /// Every ClOrdID the session used → root ClOrdID, sorted by ClOrdID.
        roots: Vec<(u64, u64)>,
        /// The journaled ExecutionReports, in sequence order.
        reports: Vec<ExecutionReport>,
        /// Unanswered root ClOrdIDs → UTC ms, sorted.
        unanswered_since_ms: Vec<(u64, u64)>,
        /// Unanswered cancel and replace ClOrdIDs, sorted (format 3).
        unanswered_amends: Vec<u64>,
    },
    /// An input this version cannot replay (skipped).
    Skipped,
    /// A watchdog tick of the tracker thread that queued reports (recorded only then: an
    /// OrderMassCancelReport released at the push deadline, the ListStatus of a list whose last
    /// batch timed out), with the deadlines it ran with. Appended after `Skipped`: recordings
    /// made before it stay readable.
    Tick {
        /// Monotonic ns (the clock of the frames' read times).
        now_ns: u64,
        /// `[tracker] reply_timeout_ms`.
        reply_timeout_ms: u64,
        /// `[tracker] push_deadline_ms`.
        push_deadline_ms: u64,
    },
    /// `gateway::tracker::TrackerInput::Epoch` (appended: recordings made before it stay
    /// readable).
    Epoch {
        /// SessionID.
        session_id: u64,
        /// The session's epoch.
        epoch: u32,
        /// (root, epoch) of orders carried from earlier epochs.
        order_epochs: Vec<(u64, u32)>,
        /// A rollover (the open orders are reported OrderStatus), not a restart.
        started: bool,
    },
}

/// One record of a recording.
///
/// Variant order is part of the format (see the module docs): add new variants at the end.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// One order of an open-orders answer.
    OpenOrder {
        /// SessionID (0: an order the gateway does not know).
        session_id: u64,
        /// Root ClOrdID.
        root: u64,
        /// Its ExecutionReport (OrderStatus) frame.
        frame: Vec<u8>,
    },
    /// The instrument rules order entry checks against (io stream), sorted by category and
    /// symbol.
    Instruments(Vec<InstrumentRules>),
    /// A session was established with a fresh order-entry state (io stream).
    EntryReset {
        /// SessionID.
        session_id: u64,
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
        /// What order entry produced, or the answer to `refusal`.
        out: Vec<u8>,
        /// The refusal after order entry accepted it (account, risk, rate budget, write:
        /// `crate::decision`), whose answer `out` then is (format 4).
        refusal: Option<Refusal>,
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
    /// A session was established with the order-entry state it already had, as kept since
    /// orders leave the tracker (issue 23): the ClOrdIDs of tracked orders, and the ClOrdIDs
    /// and ListIDs used in the epoch as ranges (io stream). [`Record::EntryState`] is read as
    /// every ClOrdID live.
    EntryEpochState {
        /// SessionID.
        session_id: u64,
        /// The session's epoch.
        epoch: u32,
        /// ClOrdID → (root ClOrdID, epoch of the order) of the orders still tracked, sorted by
        /// ClOrdID.
        live: Vec<(u64, u64, u32)>,
        /// ClOrdIDs used in the epoch.
        used: UsedIds,
        /// ListIDs used in the epoch.
        list_ids: UsedIds,
    },
    /// The session's order entry released the ClOrdIDs of an order the tracker evicted (io
    /// stream; see `crate::session::cl_ord_ids`).
    EntryRelease {
        /// SessionID.
        session_id: u64,
        /// Root ClOrdID of the evicted order.
        root: u64,
    },
    /// The session's order entry released the ClOrdIDs of an order the tracker evicted once
    /// the rollover had reported it, ended before the epoch began: free in the epoch (io
    /// stream; `OrderEntry::release_ended_before_epoch`). Recordings made before it read
    /// every release as [`Record::EntryRelease`].
    EntryReleaseEndedBeforeEpoch {
        /// SessionID.
        session_id: u64,
        /// Root ClOrdID of the evicted order.
        root: u64,
    },
}

impl Record {
    /// Appends this record to `out` as a recording holds it: its length (`u32` LE), then its
    /// postcard body. Returns false, with `out` unchanged, when it cannot be written (a body
    /// above 4 GiB).
    pub fn encode(&self, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        out.extend_from_slice(&[0; LEN_PREFIX]);
        let written = postcard::to_io(self, &mut *out).is_ok();
        let len = u32::try_from(out.len() - start - LEN_PREFIX);
        match (written, len, out.get_mut(start..start + LEN_PREFIX)) {
            (true, Ok(len), Some(head)) => {
                head.copy_from_slice(&len.to_le_bytes());
                true
            }
            _ => {
                out.truncate(start);
                false
            }
        }
    }

    /// The instruments record of `table` (rules sorted by category and symbol).
    pub fn instruments(table: &InstrumentTable) -> Record {
        let mut rules: Vec<InstrumentRules> = table.rules().cloned().collect();
        rules.sort_unstable_by_key(|r| (r.category.to_wire(), r.symbol));
        Record::Instruments(rules)
    }

    /// The record of one single-order message through order entry and the decision: `msg`
    /// with the request id and UTC ns it was given, and what came of it: the trade-op JSON in
    /// `json` for [`EntryOutcome::Send`] when nothing refused it after order entry, else the
    /// answer frame (order entry's reject, or the answer to `refusal`). `None` for a message
    /// that is not a single-order request.
    pub fn order_entry(
        session_id: u64,
        req_id: u64,
        utc_ns: u64,
        msg: &Message<'_>,
        outcome: &EntryOutcome,
        json: &[u8],
        refusal: Option<&Refusal>,
    ) -> Option<Record> {
        let mut frame = Vec::with_capacity(128);
        match msg {
            Message::NewOrderSingle(m) => m.to_owned().encode_frame(&mut frame),
            Message::OrderCancelRequest(m) => m.to_owned().encode_frame(&mut frame),
            Message::OrderCancelReplaceRequest(m) => m.to_owned().encode_frame(&mut frame),
            _ => return None,
        }
        let (sent, out) = entry_result(msg, outcome, json, refusal, utc_ns);
        Some(Record::OrderEntry {
            session_id,
            req_id,
            utc_ns,
            msg: frame,
            sent,
            out,
            refusal: refusal.cloned(),
        })
    }
}

/// What a single-order message came to, as [`Record::OrderEntry`] holds it: (true, the
/// trade-op JSON) when sent, else (false, the answer frame): order entry's reject, or the
/// answer to `refusal` of the request order entry accepted. Recording and replay both use it.
pub fn entry_result(
    msg: &Message<'_>,
    outcome: &EntryOutcome,
    json: &[u8],
    refusal: Option<&Refusal>,
    utc_ns: u64,
) -> (bool, Vec<u8>) {
    let mut out = Vec::new();
    match (outcome, refusal) {
        (EntryOutcome::Send { .. }, None) => return (true, json.to_vec()),
        (EntryOutcome::Send { kind, .. }, Some(r)) => {
            if let Some(req) = Accepted::of_message(msg, kind) {
                crate::tracker::frames::encode_report(&r.report(&req, utc_ns), &mut out);
            }
        }
        (EntryOutcome::Reject(report), _) => {
            crate::tracker::frames::encode_report(report, &mut out);
        }
    }
    (false, out)
}

/// Decodes one record body (the bytes after its length prefix); every byte must belong to it.
fn decode(body: &[u8]) -> Result<Record, &'static str> {
    match postcard::take_from_bytes::<Record>(body) {
        Ok((rec, [])) => Ok(rec),
        Ok(_) => Err("bytes after the end of the record"),
        Err(e) => Err(why(&e)),
    }
}

/// A short cause for a body that does not decode.
fn why(e: &postcard::Error) -> &'static str {
    use postcard::Error as E;
    match e {
        E::DeserializeUnexpectedEnd => "record too short",
        E::DeserializeBadVarint => "bad varint",
        E::DeserializeBadBool => "bad bool",
        E::DeserializeBadOption => "bad option tag",
        E::DeserializeBadUtf8 | E::DeserializeBadChar => "string is not UTF-8",
        E::DeserializeBadEnum => "bad variant tag",
        E::SerdeDeCustom => {
            "invalid value (unknown variant, or a bad decimal, symbol, text or enum)"
        }
        _ => "does not decode",
    }
}

/// Checks the header; returns the records part. A version 1 file (hand-written records) is
/// [`ReplayError::Obsolete`].
pub fn body(file: &[u8]) -> Result<&[u8], ReplayError> {
    let rest = file
        .strip_prefix(MAGIC.as_slice())
        .ok_or(ReplayError::BadHeader)?;
    let (version, records) = rest
        .split_first_chunk::<2>()
        .ok_or(ReplayError::BadHeader)?;
    match u16::from_le_bytes(*version) {
        VERSION => Ok(records),
        v if v < VERSION => Err(ReplayError::Obsolete(v)),
        v => Err(ReplayError::Version(v)),
    }
}

/// Iterates the records of `body` (after the header). A truncated last record ends it.
pub fn records(body: &[u8]) -> impl Iterator<Item = Result<Record, ReplayError>> + '_ {
    let mut rest = body;
    let mut index = 0u64;
    std::iter::from_fn(move || {
        let (len, after) = rest.split_first_chunk::<LEN_PREFIX>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let rec = after.get(..len)?;
        rest = after.get(len..)?;
        let i = index;
        index += 1;
        Some(decode(rec).map_err(|what| ReplayError::Malformed { index: i, what }))
    })
}

#[cfg(test)]
mod tests {

    use codec::sbe::{
        Category, ExecType, ItemStatus, ListStatusEntry, MassCancelRequestType, OrdRejReason,
        OrdStatus, OrdType, Side, Symbol, Text, TimeInForce,
    };
    use codec::Decimal;

    use super::*;
    use crate::rest_objects::ExchangeFill;
    use crate::tracker::{BatchItem, NewOrder, OrderScope, RequestKind, StateSource};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn btc() -> Symbol {
        Symbol::new("BTCUSDT").unwrap()
    }

    /// Encodes `rec`, reads it back as the only record of a body, checks that it is the same
    /// (same fields, same bytes once encoded again) and returns it.
    fn round_trip(rec: &Record) -> Record {
        let mut b = Vec::new();
        assert!(rec.encode(&mut b));
        let all: Vec<Record> = records(&b).collect::<Result<_, _>>().unwrap();
        let [got] = <[Record; 1]>::try_from(all).unwrap();
        // Debug shows every field (decimals with their scale, symbols and texts as text).
        assert_eq!(format!("{got:?}"), format!("{rec:?}"));
        let mut again = Vec::new();
        assert!(got.encode(&mut again));
        assert_eq!(again, b, "{rec:?}");
        // Every cut of the body is an error, never a panic.
        for cut in 0..b.len() - LEN_PREFIX {
            assert!(
                decode(&b[LEN_PREFIX..LEN_PREFIX + cut]).is_err(),
                "cut {cut}"
            );
        }
        got
    }

    fn input(input: RecordedInput) -> Record {
        Record::Input { utc_ns: 77, input }
    }

    fn er(cl: u64, orig: u64, exec_type: ExecType, status: OrdStatus) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 500 + cl,
            exec_id: 0,
            transact_time: 1_000_000 + cl,
            price: Some(d("60000.5")),
            order_qty: d("0.002"),
            last_qty: None,
            last_px: None,
            cum_qty: Decimal::ZERO,
            leaves_qty: d("0.0020"),
            avg_px: None,
            exchange_code: 0,
            symbol: btc(),
            category: Category::UsdtFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: Some(OrdRejReason::ExchangeReject),
            text: Text::new("restored € text"),
        }
    }

    fn open_order() -> OpenOrder {
        OpenOrder {
            order_id: 5,
            client_oid: "1-2".into(),
            category: Category::UsdtFutures,
            symbol: btc(),
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Ioc,
            price: Some(d("60000.5")),
            qty: d("0.003"),
            cum_qty: d("0.001"),
            avg_px: None,
            status: OrdStatus::PartiallyFilled,
            cum_value: d("60"),
            cancel_reason: "x".into(),
            updated_time_ms: 9,
        }
    }

    fn exchange_state() -> ExchangeState {
        ExchangeState {
            account: 1,
            orders: vec![open_order()],
            fills: vec![ExchangeFill {
                exec_id: 11,
                order_id: 5,
                client_oid: "1-2".into(),
                category: Category::UsdtFutures,
                symbol: btc(),
                side: Side::Sell,
                exec_price: d("60000.5"),
                exec_qty: d("0.001"),
                exec_value: d("60.0005"),
                exec_time_ms: 12,
            }],
            not_found: vec!["1-9".into()],
            source: StateSource::Restart,
        }
    }

    fn new_order(cl: u64) -> RequestKind {
        RequestKind::New(NewOrder {
            cl_ord_id: cl,
            category: Category::UsdtFutures,
            symbol: btc(),
            side: Side::Buy,
            ord_type: OrdType::Market,
            time_in_force: TimeInForce::PostOnly,
            price: None,
            qty: d("-0.000000000000000001"),
        })
    }

    /// At least one value of every [`RecordedInput`] variant (and of every variant of the
    /// enums they hold).
    fn every_input() -> Vec<RecordedInput> {
        let mut v = vec![
            RecordedInput::Sent(SentRequest {
                req_id: u64::MAX,
                session_id: 3,
                root: 1,
                kind: new_order(1),
                t_read_ns: 1,
                t_written_ns: 2,
            }),
            RecordedInput::SentBatch(SentBatch {
                req_id: 4,
                session_id: 3,
                list_id: 9,
                items: vec![
                    BatchItem {
                        root: 1,
                        kind: new_order(1),
                    },
                    BatchItem {
                        root: 1,
                        kind: RequestKind::Replace {
                            cl_ord_id: 2,
                            price: Some(d("1")),
                            qty: d("123456789.123456789"),
                        },
                    },
                    BatchItem {
                        root: 1,
                        kind: RequestKind::Cancel { cl_ord_id: 3 },
                    },
                ],
                t_written_ns: 5,
            }),
            RecordedInput::ListDone(ListDone {
                session_id: 3,
                list_id: 9,
                ref_msg_type: 107,
                batches_sent: 2,
                refused: vec![ListStatusEntry {
                    cl_ord_id: 8,
                    order_id: 0,
                    exchange_code: 43012,
                    item_status: ItemStatus::Rejected,
                    ord_rej_reason: Some(OrdRejReason::RiskLimit),
                    text: Text::new("risk.max_open_orders"),
                }],
            }),
            RecordedInput::Frame {
                account: 2,
                text: bytes::Bytes::from_static(br#"{"event":"trade"}"#),
                t_read_ns: 6,
            },
            RecordedInput::SessionOpened {
                session_id: 3,
                account: 0,
                role: SessionRole::DropCopy,
            },
            RecordedInput::SessionClosed { session_id: 3 },
            RecordedInput::OpenOrders {
                filter: OrderFilter {
                    scope: OrderScope::Session(3),
                    symbol: Some(btc()),
                    category: Some(Category::Spot),
                    side: Some(Side::Sell),
                },
                exchange: Some(vec![open_order()]),
            },
            RecordedInput::OpenOrders {
                filter: OrderFilter {
                    scope: OrderScope::Account(1),
                    symbol: None,
                    category: None,
                    side: None,
                },
                exchange: None,
            },
            RecordedInput::MassCancel(MassCancelEvent::Start {
                mass_id: 10,
                session_id: 3,
                cl_ord_id: 11,
                request_type: MassCancelRequestType::Side,
                chunks: 2,
            }),
            RecordedInput::MassCancel(MassCancelEvent::Chunk {
                mass_id: 10,
                req_id: 12,
            }),
            RecordedInput::ExchangeState {
                state: exchange_state(),
                t_read_ns: 99,
            },
            RecordedInput::LinkDown {
                account: 2,
                t_ns: 3,
            },
            RecordedInput::LinkUp {
                account: 2,
                t_ns: 4,
            },
            RecordedInput::Restore {
                session_id: 6,
                roots: vec![(1, 1), (3, 3), (4, 3)],
                reports: vec![
                    er(3, 0, ExecType::New, OrdStatus::New),
                    er(4, 3, ExecType::Replaced, OrdStatus::New),
                ],
                unanswered_since_ms: vec![(7, 1_600), (9, 1_700)],
                unanswered_amends: vec![4, 8],
            },
            RecordedInput::Skipped,
        ];
        v.push(RecordedInput::MassCancel(MassCancelEvent::NotSent {
            req_id: 13,
            text: Text::new(crate::budget::throttled_text("batch-cancel")),
        }));
        v.push(RecordedInput::Tick {
            now_ns: 9_000_000_000,
            reply_timeout_ms: 600,
            push_deadline_ms: 300,
        });
        v.push(RecordedInput::Epoch {
            session_id: 3,
            epoch: 2,
            order_epochs: vec![(1, 1)],
            started: true,
        });
        v
    }

    /// Exhaustive on purpose: a new variant does not compile until [`every_input`] covers it.
    fn input_tag(i: &RecordedInput) -> &'static str {
        match i {
            RecordedInput::Sent(_) => "Sent",
            RecordedInput::SentBatch(_) => "SentBatch",
            RecordedInput::ListDone(_) => "ListDone",
            RecordedInput::Frame { .. } => "Frame",
            RecordedInput::SessionOpened { .. } => "SessionOpened",
            RecordedInput::SessionClosed { .. } => "SessionClosed",
            RecordedInput::OpenOrders { .. } => "OpenOrders",
            RecordedInput::MassCancel(_) => "MassCancel",
            RecordedInput::ExchangeState { .. } => "ExchangeState",
            RecordedInput::LinkDown { .. } => "LinkDown",
            RecordedInput::LinkUp { .. } => "LinkUp",
            RecordedInput::Restore { .. } => "Restore",
            RecordedInput::Skipped => "Skipped",
            RecordedInput::Tick { .. } => "Tick",
            RecordedInput::Epoch { .. } => "Epoch",
        }
    }

    /// Exhaustive on purpose: a new record kind does not compile until [`every_record`] covers
    /// it.
    fn record_tag(r: &Record) -> &'static str {
        match r {
            Record::Input { .. } => "Input",
            Record::Report { .. } => "Report",
            Record::OpenOrder { .. } => "OpenOrder",
            Record::Instruments(_) => "Instruments",
            Record::EntryReset { .. } => "EntryReset",
            Record::OrderEntry { .. } => "OrderEntry",
            Record::EntryState { .. } => "EntryState",
            Record::EntryEpochState { .. } => "EntryEpochState",
            Record::EntryRelease { .. } => "EntryRelease",
            Record::EntryReleaseEndedBeforeEpoch { .. } => "EntryReleaseEndedBeforeEpoch",
        }
    }

    /// One record of every kind (the inputs: see [`every_input`]).
    fn every_record() -> Vec<Record> {
        vec![
            input(RecordedInput::SessionClosed { session_id: 1 }),
            Record::Report {
                session_id: 1,
                frame: vec![0, 0, 0, 14, 0xeb, 0x50],
            },
            Record::OpenOrder {
                session_id: 0,
                root: 7,
                frame: Vec::new(),
            },
            Record::Instruments(vec![InstrumentRules {
                category: Category::UsdtFutures,
                symbol: btc(),
                tick: d("0.1"),
                lot: d("0.001"),
                min_qty: d("0.001"),
                max_qty: None,
                min_notional: d("5"),
                online: true,
            }]),
            Record::EntryReset { session_id: 4 },
            Record::OrderEntry {
                session_id: 4,
                req_id: 8,
                utc_ns: 1_700_000_000_000_000_000,
                msg: vec![1, 2, 3],
                sent: true,
                out: br#"{"op":"trade"}"#.to_vec(),
                refusal: None,
            },
            Record::OrderEntry {
                session_id: 4,
                req_id: 9,
                utc_ns: 1_700_000_000_000_000_001,
                msg: vec![1, 2, 3],
                sent: false,
                out: vec![4, 5],
                refusal: Some(crate::decision::Refusal {
                    ord: codec::sbe::OrdRejReason::KillSwitch,
                    cxl: codec::sbe::CxlRejReason::Other,
                    text: "kill switch on".into(),
                }),
            },
            Record::EntryState {
                session_id: 4,
                roots: vec![(1, 1), (3, 1), (5, 5)],
                list_ids: vec![9],
            },
            Record::EntryEpochState {
                session_id: 4,
                epoch: 2,
                live: vec![(5, 5, 1), (6, 5, 1)],
                used: [1, 2, 3, 5, 6].into_iter().collect(),
                list_ids: [9].into_iter().collect(),
            },
            Record::EntryRelease {
                session_id: 4,
                root: 1,
            },
            Record::EntryReleaseEndedBeforeEpoch {
                session_id: 4,
                root: 2,
            },
        ]
    }

    #[test]
    fn every_input_variant_round_trips() {
        let inputs = every_input();
        let tags: std::collections::BTreeSet<_> = inputs.iter().map(input_tag).collect();
        assert_eq!(tags.len(), 15, "every variant: {tags:?}");
        for i in inputs {
            round_trip(&input(i));
        }
    }

    #[test]
    fn every_record_kind_round_trips_and_reads_back_in_order() {
        let recs = every_record();
        let tags: std::collections::BTreeSet<_> = recs.iter().map(record_tag).collect();
        assert_eq!(tags.len(), 10, "every kind: {tags:?}");
        let mut file = Vec::new();
        for r in &recs {
            round_trip(r);
            assert!(r.encode(&mut file));
        }
        let back: Vec<Record> = records(&file).collect::<Result<_, _>>().unwrap();
        assert_eq!(format!("{back:?}"), format!("{recs:?}"));
        // A record cut short by a crash ends the file; the records before it stay.
        for cut in 1..LEN_PREFIX + 3 {
            let n = records(&file[..file.len() - cut]).count();
            assert_eq!(n, recs.len() - 1, "cut {cut}");
        }
    }

    #[test]
    fn bad_bodies_are_errors_not_panics() {
        // Unknown record kind, unknown input variant, trailing bytes.
        assert!(decode(&[7]).is_err());
        assert!(decode(&[0, 1, 13]).is_err());
        let mut b = Vec::new();
        assert!(Record::EntryReset { session_id: 1 }.encode(&mut b));
        b.push(0);
        assert_eq!(
            decode(&b[LEN_PREFIX..]).unwrap_err(),
            "bytes after the end of the record"
        );
        // A bad SBE enum byte, a decimal exponent out of range, a symbol too long.
        let rules = |category: u8, exponent: u8, symbol: &[u8]| {
            let mut b = vec![3, 1, category, symbol.len() as u8];
            b.extend_from_slice(symbol);
            for _ in 0..3 {
                b.extend_from_slice(&[2, exponent]);
            }
            b.extend_from_slice(&[0, 2, 0, 1]);
            b
        };
        assert!(decode(&rules(3, 0, b"BTCUSDT")).is_ok());
        assert!(decode(&rules(9, 0, b"BTCUSDT")).is_err());
        assert!(decode(&rules(3, 19, b"BTCUSDT")).is_err());
        assert!(decode(&rules(3, 0, b"0123456789abcdefg")).is_err());
    }

    #[test]
    fn version_1_is_refused_with_a_reason_to_re_record() {
        let mut v1 = MAGIC.to_vec();
        v1.extend_from_slice(&1u16.to_le_bytes());
        let e = body(&v1).unwrap_err();
        assert!(matches!(e, ReplayError::Obsolete(1)), "{e:?}");
        assert!(e.to_string().contains("re-record"), "{e}");
        let mut v2 = MAGIC.to_vec();
        v2.extend_from_slice(&VERSION.to_le_bytes());
        assert_eq!(body(&v2).unwrap(), &[] as &[u8]);
    }

    proptest::proptest! {
        /// Any byte of a valid record changed: an error or a record, never a panic.
        #[test]
        fn changed_bytes_do_not_panic(
            which in 0usize..32,
            at in proptest::num::usize::ANY,
            byte in proptest::num::u8::ANY,
        ) {
            let mut recs = every_record();
            recs.extend(every_input().into_iter().map(input));
            let rec = &recs[which % recs.len()];
            let mut b = Vec::new();
            assert!(rec.encode(&mut b));
            let body = &mut b[LEN_PREFIX..];
            let at = at % body.len();
            body[at] = byte;
            let _ = decode(body);
        }
    }
}
