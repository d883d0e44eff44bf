//! Unit tests of [`TrackerDrive`]: the order in which it hands what the tracker produced to
//! its sink (a sink that records every call), fed with Bitget-shaped JSON frames.

use std::sync::Arc;

use codec::sbe::{Category, ExecType, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::Decimal;

use super::core::Tracker;
use super::drive::{TrackerDrive, TrackerSink};
use super::lists::ListReport;
use super::report::{Report, ReportMsg};
use super::request::{NewOrder, RequestKind, SentRequest};
use super::resolve::{Deadlines, ResolveRequest};
use super::retention::{Evicted, Retention};
use super::risk_feed::RiskFeed;
use super::routing::AccountUpdate;
use crate::ids::ClientOid;
use crate::risk::{RiskBook, RiskInstrument, RiskSettings};
use crate::types::SessionGrant;

const S: u64 = 7;
const MS: u64 = 1_000_000;
const T0: u64 = 1_000 * MS;

/// Evicts each ended order at the end of the input that ended it.
const AT_ONCE: Retention = Retention {
    retention_ms: 0,
    retention_orders: 0,
    tombstones: 1_024,
    unseen_tail_ms: 0,
};

/// Keeps every ended order of these tests.
const KEEP: Retention = Retention {
    retention_ms: u64::MAX / 2_000_000,
    retention_orders: 1 << 16,
    tombstones: 1_024,
    unseen_tail_ms: 0,
};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// One call the drive made on the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    /// `write_report`: root, ExecType and OrdStatus of an ExecutionReport (`None` for other
    /// messages), and the account's BTCUSDT position in the risk book when the sink saw it.
    Report(u64, Option<(ExecType, OrdStatus)>, Decimal),
    List(u64),
    Account(usize),
    Resolve(String),
    Evicted(u64, bool),
    Tick(u64),
}

/// Records every call; `writer` is what `write_report` returns (the writer's epoch, `None`:
/// no writer).
struct Sink {
    calls: Vec<Call>,
    writer: Option<u32>,
    book: Arc<RiskBook>,
}

impl TrackerSink for Sink {
    fn write_report(&mut self, report: &Report) -> Option<u32> {
        let exec = match &report.msg {
            ReportMsg::Exec(er) => Some((er.exec_type, er.ord_status)),
            _ => None,
        };
        let position =
            self.book
                .position(0, Category::UsdtFutures, &Symbol::new("BTCUSDT").unwrap());
        self.calls.push(Call::Report(report.root, exec, position));
        self.writer
    }

    fn write_list_status(&mut self, list: &ListReport, _utc_ns: u64) {
        self.calls.push(Call::List(list.session_id));
    }

    fn account_update(&mut self, account: usize, _update: &AccountUpdate) {
        self.calls.push(Call::Account(account));
    }

    fn resolve(&mut self, request: ResolveRequest) {
        self.calls
            .push(Call::Resolve(request.client_oid.as_str().to_owned()));
    }

    fn evicted(&mut self, e: Evicted) {
        self.calls.push(Call::Evicted(e.root, e.ended_before_epoch));
    }

    fn tick_queued_output(&mut self, now_ns: u64, _utc_ns: u64, _deadlines: Deadlines) {
        self.calls.push(Call::Tick(now_ns));
    }
}

struct Rig {
    drive: TrackerDrive,
    sink: Sink,
}

impl Rig {
    /// A drive with a risk feed over a book that knows session `S` (account 0) and BTCUSDT
    /// (lot 0.001), session `S` open.
    fn new(retention: Retention) -> Rig {
        let grants = [SessionGrant {
            session_id: S,
            ..SessionGrant::default()
        }];
        let book = Arc::new(RiskBook::new(&grants, 1, &RiskSettings::default()));
        book.set_instruments(vec![RiskInstrument {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            lot: d("0.001"),
            buy_ratio: None,
            sell_ratio: None,
            max_symbol_orders: None,
            max_product_orders: None,
        }]);
        let mut tracker = Tracker::with_retention(64, retention);
        tracker.set_deadlines(Deadlines {
            reply_timeout_ms: 5_000,
            push_deadline_ms: 3_000,
        });
        let feed = RiskFeed::with_capacity(Arc::clone(&book), 64);
        let mut r = Rig {
            drive: TrackerDrive::new(tracker, Some(feed)),
            sink: Sink {
                calls: Vec::new(),
                writer: Some(0),
                book,
            },
        };
        r.drive.on_session_opened(&mut r.sink, S, 0);
        r
    }

    fn place(&mut self, cl: u64) {
        let req = SentRequest {
            req_id: cl,
            session_id: S,
            root: cl,
            kind: RequestKind::New(NewOrder {
                cl_ord_id: cl,
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                price: Some(d("100")),
                qty: d("1"),
            }),
            t_read_ns: T0,
            t_written_ns: T0,
        };
        self.drive.on_sent(&mut self.sink, req);
    }

    fn frame(&mut self, json: &str) {
        self.drive
            .on_frame(&mut self.sink, 0, json.as_bytes(), T0 + MS, 5);
    }

    /// Places `cl`, acknowledges it and fills it whole.
    fn place_and_fill(&mut self, cl: u64) {
        self.place(cl);
        self.frame(&ack(cl));
        self.frame(&fill(cl));
    }

    fn calls(&mut self) -> Vec<Call> {
        std::mem::take(&mut self.sink.calls)
    }
}

fn oid(cl: u64) -> String {
    ClientOid::new(S, cl).as_str().to_owned()
}

fn ack(cl: u64) -> String {
    format!(
        r#"{{"event":"trade","id":"{cl}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","cTime":"1"}}],"code":"0","msg":"Success","ts":"1"}}"#,
        500 + cl,
        oid(cl)
    )
}

fn fill(cl: u64) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"fill"}},"data":[{{"orderId":"{}","clientOid":"{}","execId":"{}","category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"buy","execQty":"1","execValue":"100","execPrice":"100","execPnl":"0","tradeScope":"taker","feeDetail":[{{"feeCoin":"USDT","fee":"0.01"}}],"execTime":"4","updatedTime":"4"}}],"ts":4}}"#,
        500 + cl,
        oid(cl),
        9_000 + cl
    )
}

fn timed_out(cl: u64) -> String {
    format!(r#"{{"code":"40010","msg":"Request timed out","id":"{cl}","event":"error"}}"#)
}

const POSITION: &str = r#"{"action":"snapshot","arg":{"instType":"UTA","topic":"position"},"data":[{"symbol":"BTCUSDT","marginCoin":"USDT","holdMode":"hedge_mode","posSide":"short","size":"0.0002","avgPrice":"117066.1","leverage":"10","updatedTime":"1758185294053"}],"ts":1758186381497}"#;

const NEW: Option<(ExecType, OrdStatus)> = Some((ExecType::New, OrdStatus::New));
const FILLED: Option<(ExecType, OrdStatus)> = Some((ExecType::Fill, OrdStatus::Filled));
const STATUS_FILLED: Option<(ExecType, OrdStatus)> =
    Some((ExecType::OrderStatus, OrdStatus::Filled));

/// The risk feed sees each report before the sink writes it: when the sink gets the Fill, the
/// book already holds the position it made.
#[test]
fn the_risk_feed_sees_a_report_before_the_sink() {
    let mut r = Rig::new(KEEP);
    r.place(1);
    r.frame(&ack(1));
    r.frame(&fill(1));
    assert_eq!(
        r.calls(),
        [
            Call::Report(1, NEW, d("0")),
            Call::Report(1, FILLED, d("1")),
        ]
    );
}

/// A frame's reports are written before the orders it ended are handed over as evicted, and
/// a position push's updates go to the frame's account before the reports.
#[test]
fn a_frame_writes_its_reports_then_hands_the_orders_it_evicted() {
    let mut r = Rig::new(AT_ONCE);
    r.place(1);
    r.frame(&ack(1));
    r.frame(&fill(1));
    assert_eq!(
        r.calls(),
        [
            Call::Report(1, NEW, d("0")),
            Call::Report(1, FILLED, d("1")),
            Call::Evicted(1, false),
        ]
    );
    r.drive
        .on_frame(&mut r.sink, 3, POSITION.as_bytes(), T0 + 2 * MS, 6);
    assert_eq!(r.calls(), [Call::Account(3)]);
    r.drive.on_frame(&mut r.sink, 0, b"{not json", T0, 7);
    assert_eq!((r.calls(), r.drive.json_errors()), (vec![], 1));
}

/// A final report's end is noted with the epoch the sink returns for the writer it went to:
/// order 2's Filled went to a writer already in epoch 1 (the rollover's Terminate came before
/// the tracker learnt the epoch), so the rollover keeps its ClOrdIDs used, and its strategy,
/// away, may not read the OrderStatus either: it stays; order 3's went to no writer (nothing
/// noted). The rollover's tick then hands the resolution it queued, then the orders it
/// evicted, then its OrderStatus reports.
#[test]
fn ends_are_noted_with_the_writers_epoch_and_a_tick_hands_evicted_before_reports() {
    let mut r = Rig::new(KEEP);
    r.place_and_fill(1);
    r.sink.writer = Some(1);
    r.place_and_fill(2);
    r.sink.writer = None;
    r.place_and_fill(3);
    r.sink.writer = Some(1);
    // Order 4's place timed out: its resolution is queued, handed on the next tick.
    r.place(4);
    r.frame(&timed_out(4));
    r.calls();
    r.drive.on_session_closed(&mut r.sink, S);
    r.drive.on_epoch(&mut r.sink, S, 1, &[], true, 8);
    assert_eq!(
        r.calls(),
        [],
        "the rollover's reports come with the next tick"
    );
    r.drive.on_tick(&mut r.sink, T0 + 2 * MS, 9);
    let calls = r.calls();
    assert_eq!(
        calls.get(..4),
        Some(
            &[
                Call::Tick(T0 + 2 * MS),
                Call::Resolve(oid(4)),
                Call::Evicted(1, true),
                Call::Evicted(3, true),
            ][..]
        ),
        "{calls:?}"
    );
    let reports: Vec<_> = calls[4..]
        .iter()
        .map(|c| match c {
            Call::Report(root, exec, _) => (*root, *exec),
            other => panic!("{other:?} in {calls:?}"),
        })
        .collect();
    assert_eq!(
        reports.get(..3),
        Some(&[(1, STATUS_FILLED), (2, STATUS_FILLED), (3, STATUS_FILLED)][..])
    );
}

/// A tick that queues nothing hands nothing and records nothing.
#[test]
fn a_quiet_tick_hands_nothing() {
    let mut r = Rig::new(KEEP);
    r.place_and_fill(1);
    r.calls();
    r.drive.on_tick(&mut r.sink, T0 + 2 * MS, 9);
    assert_eq!(r.calls(), []);
}

/// After a restart, the orders restored open count in the risk book as they did before (an
/// order that had ended does not), once however often the restore runs; the first push that
/// ends a restored order gives its count back.
#[test]
fn restored_open_orders_count_in_the_risk_book_until_they_end() {
    use codec::sbe::{ExecutionReport, Text};
    use std::collections::HashMap;
    let mut r = Rig::new(KEEP);
    let er = |cl: u64, exec_type, ord_status, cum: &str| ExecutionReport {
        cl_ord_id: cl,
        orig_cl_ord_id: 0,
        order_id: 500 + cl,
        exec_id: 0,
        transact_time: 1,
        price: Some(d("100")),
        order_qty: d("1"),
        last_qty: None,
        last_px: None,
        cum_qty: d(cum),
        leaves_qty: d("1").checked_sub(d(cum)).unwrap(),
        avg_px: None,
        exchange_code: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type,
        ord_status,
        ord_rej_reason: None,
        text: Text::new(""),
    };
    let reports = [
        er(1, ExecType::New, OrdStatus::New, "0"),
        er(2, ExecType::New, OrdStatus::New, "0"),
        er(2, ExecType::Fill, OrdStatus::Filled, "1"),
    ];
    let roots: HashMap<u64, u64> = [(1, 1), (2, 2)].into();
    let btc = Symbol::new("BTCUSDT").unwrap();
    let counts = |r: &Rig| {
        (
            r.sink.book.session_open_orders(S),
            r.sink
                .book
                .account_open_orders_in(0, Category::UsdtFutures, &btc),
        )
    };
    for _ in 0..2 {
        r.drive
            .on_restore(&mut r.sink, S, &roots, &reports, &HashMap::new(), &[]);
        assert_eq!(counts(&r), (1, (1, 1)), "order 1 open, order 2 filled");
    }
    let cancelled = format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"501","clientOid":"{}","price":"100","qty":"1","orderType":"limit","timeInForce":"gtc","side":"buy","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","orderStatus":"cancelled","cancelReason":"","feeDetail":[],"createdTime":"1","updatedTime":"2"}}],"ts":3}}"#,
        oid(1)
    );
    r.frame(&cancelled);
    assert_eq!(
        r.calls().last(),
        Some(&Call::Report(
            1,
            Some((ExecType::Canceled, OrdStatus::Canceled)),
            d("0")
        ))
    );
    assert_eq!(counts(&r), (0, (0, 0)), "the cancel gave the count back");
}
