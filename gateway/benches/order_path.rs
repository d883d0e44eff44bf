//! Criterion benches of the gateway's own user-space work on the order path, with naive
//! baselines measured in the same run.
//!
//! - `outbound/*`: everything between the strategy socket read and the WebSocket write, for one
//!   encoded SOFH frame: `peek_frame` + `sbe::decode` + `FixpSession::on_message` (established
//!   session) + `decision::single::decide_single` (order entry's duplicate and pre-trade checks
//!   and trade-op JSON into a reused `Vec`, then the account gate and the risk reservation). `outbound/place_order_json` is the JSON writer alone, like-for-like with
//!   `baseline/new_order_serde_json`.
//! - `inbound/*`: the tracker's work: `JsonParser::parse` (simd-json, reused buffers) +
//!   `Tracker::on_inbound` + `encode_frame` of every resulting report into a reused `Vec`.
//!   `inbound/order_lifecycle` is one order end to end (`on_sent` + place-order ACK + `live`
//!   order push + the fill push that fills it); the other `inbound/*` are one frame each.
//!   `inbound/fill_push_parse` is the parser alone, like-for-like with
//!   `baseline/fill_push_serde_json_value`.
//! - `baseline/*`: the naive way, `serde_json::json!` + `to_vec` and `serde_json::Value`.
//!
//! Not included (they are the same for any implementation): socket and WebSocket I/O, the clock
//! reads, the latency-histogram records and the channel hand-off to the tracker thread.
//!
//! State and memory stay bounded: every bench runs in chunks of [`CHUNK`] (outbound) or
//! [`TRACKER_CHUNK`] (inbound) orders with fresh order-entry / tracker state per chunk, built
//! (and dropped) outside the timed region; the frames of one chunk are built once, with fresh
//! ClOrdIDs, request ids, clientOids, orderIds and execIds per order.
//!
//! Run: `cargo bench -p gateway --bench order_path -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use codec::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::json::{self, Inbound, JsonParser, PlaceOrder};
use codec::sbe::{
    self, BoolFlag, Category, Establish, ExecType, ExecutionReport, FlowType, Message, Negotiate,
    NegotiationRejectCode, NewOrderSingle, OrdStatus, OrdType, OrderCancelReplaceRequest,
    OrderCancelRequest, PosSide, Side, StpMode, Symbol, Text, TimeInForce,
};
use codec::Decimal;
use criterion::{criterion_main, Bencher, Criterion, Throughput};
use gateway::ids::{format_request_id, ClientOid};
use gateway::pretrade::{InstrumentRules, InstrumentTable};
use gateway::risk::{RiskBook, RiskSettings};
use gateway::session::fixp::{Authorizer, FixpSession, SessionAction, SessionLimits};
use gateway::session::order_entry::OrderEntry;
use gateway::tracker::{NewOrder, ReportMsg, RequestKind, SentRequest, Tracker};
use gateway::types::SessionGrant;
use gateway_core::decision::single::{decide_single, Verdict};
use gateway_core::decision::AccountGate;
use serde_json::json;

/// Orders per chunk of the outbound benches: the session's order-entry state (ClOrdID map,
/// pre-sized for 1024) is rebuilt every `CHUNK` iterations, outside the timer.
const CHUNK: usize = 512;
/// Orders per chunk of the tracker benches (see [`resident_tracker`]).
const TRACKER_CHUNK: usize = 447;
/// Open orders of another session held by the tracker before a chunk's orders arrive.
const RESIDENT: u64 = 449;
/// The strategy session.
const SESSION: u64 = 1001;
/// First ClOrdID of a chunk's orders.
const FIRST_CL: u64 = 1_000_000;
/// First request id of a chunk's trade ops.
const FIRST_REQ: u64 = 1_750_034_396_082;
/// First exchange orderId (the fixture's).
const FIRST_ORDER_ID: u64 = 1_352_473_539_865_894_955;
/// First execId (the fixture's).
const FIRST_EXEC_ID: u64 = 1_352_492_639_559_331_841;
/// Wall clock passed to the code under test (ns).
const UTC_NS: u64 = 1_758_180_740_324_000_000;

fn dec(s: &str) -> Decimal {
    s.parse().expect("decimal literal")
}

fn symbol() -> Symbol {
    Symbol::new("BTCUSDT").expect("symbol literal")
}

/// The instrument the orders trade (Bitget BTCUSDT perpetual rules).
fn instruments() -> InstrumentTable {
    InstrumentTable::new([InstrumentRules {
        category: Category::UsdtFutures,
        symbol: symbol(),
        tick: dec("0.1"),
        lot: dec("0.0001"),
        min_qty: dec("0.0001"),
        max_qty: Some(dec("1200")),
        min_notional: dec("5"),
        online: true,
    }])
}

/// The order of every bench: limit buy 0.0002 BTCUSDT @ 32000 GTC, hedge-mode long (the shape
/// of `ws_push_order_live.json`).
fn new_order(cl: u64) -> NewOrderSingle {
    NewOrderSingle {
        cl_ord_id: cl,
        transact_time: UTC_NS,
        price: Some(dec("32000")),
        order_qty: dec("0.0002"),
        symbol: symbol(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::Long,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::Default,
    }
}

fn frames(n: usize, frame: impl Fn(u64) -> Vec<u8>) -> Vec<Vec<u8>> {
    (0..n as u64).map(frame).collect()
}

/// Runs `routine` `iters` times in chunks of `chunk` iterations; `setup` builds fresh state for each
/// chunk and is not timed, nor is dropping the state.
fn iter_chunked<C, S>(
    b: &mut Bencher<'_>,
    chunk: usize,
    ctx: &mut C,
    mut setup: impl FnMut(&mut C) -> S,
    mut routine: impl FnMut(&mut C, &mut S, usize),
) {
    b.iter_custom(|iters| {
        let mut timed = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let n = left.min(chunk as u64) as usize;
            let mut state = setup(ctx);
            let start = Instant::now();
            for i in 0..n {
                routine(ctx, &mut state, i);
            }
            timed += start.elapsed();
            drop(state);
            left -= n as u64;
        }
        timed
    })
}

// ---------------------------------------------------------------------------------------------
// Outbound: strategy frame → trade-op JSON.

struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize(&mut self, _: u64, _: &str, _: u64) -> Result<u32, NegotiationRejectCode> {
        Ok(0)
    }
}

/// The io thread's per-connection state that outlives a chunk.
struct IoThread {
    fixp: FixpSession,
    instruments: InstrumentTable,
    risk: RiskBook,
    json: Vec<u8>,
    now_ns: u64,
}

/// The account as the decision sees it: trades everything, link up.
struct Up;

impl AccountGate for Up {
    fn name(&self) -> &str {
        "main"
    }
    fn trades(&self, _: Category) -> bool {
        true
    }
    fn is_up(&self) -> bool {
        true
    }
}

impl IoThread {
    /// An established session (Negotiate + Establish fed through the state machine).
    fn new() -> Self {
        let mut fixp = FixpSession::new(0, SessionLimits::default());
        let mut buf = Vec::new();
        Negotiate {
            session_id: SESSION,
            timestamp: 1,
            client_flow: FlowType::Idempotent,
            credentials: Text::new("secret"),
            session_ver_id: 0,
        }
        .encode_frame(&mut buf);
        let msg = sbe::decode(&buf[SOFH_LEN..]).expect("Negotiate decodes");
        assert!(matches!(
            fixp.on_message(1, msg, 1, &mut AllowAll),
            SessionAction::Send(_)
        ));
        buf.clear();
        Establish {
            session_id: SESSION,
            timestamp: 2,
            keepalive_interval: 1000,
            next_seq_no: 1,
        }
        .encode_frame(&mut buf);
        let msg = sbe::decode(&buf[SOFH_LEN..]).expect("Establish decodes");
        assert!(matches!(
            fixp.on_message(2, msg, 1, &mut AllowAll),
            SessionAction::Send(_)
        ));
        IoThread {
            fixp,
            instruments: instruments(),
            risk: RiskBook::new(
                &[SessionGrant {
                    session_id: SESSION,
                    ..Default::default()
                }],
                1,
                &RiskSettings::default(),
            ),
            json: Vec::with_capacity(512),
            now_ns: 3,
        }
    }

    /// One strategy frame, from the bytes read off the socket to the decision and the trade op
    /// in `self.json` (what `engine::strategy_conn` does between the read and `send_text`).
    #[inline]
    fn on_frame(&mut self, entry: &mut OrderEntry, buf: &[u8], req_id: u64) -> Verdict {
        let len = match peek_frame(buf, DEFAULT_MAX_FRAME_LEN) {
            Ok(Some(len)) => len,
            other => panic!("not a whole frame: {other:?}"),
        };
        let msg = sbe::decode(&buf[SOFH_LEN..len]).expect("frame decodes");
        self.now_ns += 1;
        let SessionAction::Application(msg) =
            self.fixp.on_message(self.now_ns, msg, 1, &mut AllowAll)
        else {
            panic!("not an application message");
        };
        self.json.clear();
        let decided = decide_single(
            entry,
            &msg,
            &self.instruments,
            &Up,
            &self.risk,
            SESSION,
            req_id,
            &mut self.json,
            UTC_NS,
        );
        match decided {
            Some(d) => d.verdict,
            None => panic!("unexpected {}", msg.name()),
        }
    }

    /// [`Self::on_frame`], which must decide to send.
    #[inline]
    fn send(&mut self, entry: &mut OrderEntry, buf: &[u8], req_id: u64) {
        match self.on_frame(entry, buf, req_id) {
            Verdict::Send {
                root,
                reserved,
                kind,
                ..
            } => {
                // Written: as the io thread, a placed order is live from here.
                if matches!(kind, gateway::tracker::RequestKind::New(_)) {
                    entry.sent_new(root, Some(0));
                }
                black_box((root, reserved));
            }
            Verdict::Answer { report, .. } => panic!("rejected: {report:?}"),
        }
        black_box(self.json.len());
    }

    /// A fresh session order-entry state holding this chunk's orders (ClOrdIDs
    /// `FIRST_CL..FIRST_CL + CHUNK`), as placed by `new_frames`.
    fn entry_with_orders(&mut self, new_frames: &[Vec<u8>]) -> OrderEntry {
        let mut entry = OrderEntry::new(SESSION);
        for (i, f) in new_frames.iter().enumerate() {
            self.send(&mut entry, f, FIRST_REQ + i as u64);
        }
        entry
    }
}

fn nos_frame(i: u64) -> Vec<u8> {
    let mut v = Vec::new();
    new_order(FIRST_CL + i).encode_frame(&mut v);
    v
}

fn cancel_frame(i: u64) -> Vec<u8> {
    let mut v = Vec::new();
    OrderCancelRequest {
        cl_ord_id: FIRST_CL + CHUNK as u64 + i,
        orig_cl_ord_id: FIRST_CL + i,
        transact_time: UTC_NS,
        symbol: symbol(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    }
    .encode_frame(&mut v);
    v
}

fn replace_frame(i: u64) -> Vec<u8> {
    let mut v = Vec::new();
    OrderCancelReplaceRequest {
        cl_ord_id: FIRST_CL + CHUNK as u64 + i,
        orig_cl_ord_id: FIRST_CL + i,
        transact_time: UTC_NS,
        price: Some(dec("32000.1")),
        order_qty: Some(dec("0.0003")),
        symbol: symbol(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        auto_cancel: BoolFlag::No,
    }
    .encode_frame(&mut v);
    v
}

/// Our writer alone: the place-order op from an owned NewOrderSingle (what `on_new_order`
/// writes after its checks).
fn write_place_order_json(out: &mut Vec<u8>, o: &NewOrderSingle, req_id: u64) {
    let oid = ClientOid::new(SESSION, o.cl_ord_id);
    let mut id_buf = itoa::Buffer::new();
    json::write_place_order(
        out,
        format_request_id(req_id, &mut id_buf),
        codec::json::Category::from(o.category),
        &PlaceOrder {
            symbol: o.symbol.as_str(),
            side: match o.side {
                Side::Buy => json::Side::Buy,
                Side::Sell => json::Side::Sell,
            },
            order_type: json::OrderType::Limit,
            qty: o.order_qty,
            price: o.price,
            time_in_force: Some(json::TimeInForce::Gtc),
            pos_side: Some(json::PosSide::Long),
            reduce_only: None,
            client_oid: oid.as_str(),
            stp_mode: None,
        },
    );
}

/// The naive way: the same place-order op built as a `serde_json::Value` and serialised.
fn serde_place_order_json(o: &NewOrderSingle, req_id: u64) -> Vec<u8> {
    let oid = ClientOid::new(SESSION, o.cl_ord_id);
    let side = codec::json::Side::from(o.side).as_str();
    let v = json!({
        "op": "trade",
        "id": req_id.to_string(),
        "category": codec::json::Category::from(o.category).as_ws_str(),
        "topic": "place-order",
        "args": [{
            "symbol": o.symbol.as_str(),
            "side": side,
            "orderType": "limit",
            "qty": o.order_qty.to_string(),
            "price": o.price.map(|p| p.to_string()),
            "timeInForce": "gtc",
            "posSide": "long",
            "clientOid": oid.as_str(),
        }],
    });
    serde_json::to_vec(&v).expect("serialises")
}

fn outbound(c: &mut Criterion) {
    let nos = frames(CHUNK, nos_frame);
    let cancels = frames(CHUNK, cancel_frame);
    let replaces = frames(CHUNK, replace_frame);
    let mut ctx = IoThread::new();

    // What is measured is what the gateway sends: the op from the full path equals the writer's
    // and the naive one's.
    let mut entry = OrderEntry::new(SESSION);
    ctx.send(&mut entry, &nos[0], FIRST_REQ);
    let mut ours = Vec::new();
    write_place_order_json(&mut ours, &new_order(FIRST_CL), FIRST_REQ);
    assert_eq!(ctx.json, ours, "{}", String::from_utf8_lossy(&ctx.json));
    let naive = serde_place_order_json(&new_order(FIRST_CL), FIRST_REQ);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&ours).expect("ours is JSON"),
        serde_json::from_slice::<serde_json::Value>(&naive).expect("naive is JSON"),
    );
    let place_len = ours.len() as u64;

    let mut g = c.benchmark_group("outbound");
    g.throughput(Throughput::Elements(1));
    g.bench_function("new_order", |b| {
        iter_chunked(
            b,
            CHUNK,
            &mut ctx,
            |_| OrderEntry::new(SESSION),
            |ctx, entry, i| ctx.send(entry, black_box(&nos[i]), FIRST_REQ + i as u64),
        )
    });
    g.bench_function("cancel", |b| {
        iter_chunked(
            b,
            CHUNK,
            &mut ctx,
            |ctx| ctx.entry_with_orders(&nos),
            |ctx, entry, i| {
                ctx.send(
                    entry,
                    black_box(&cancels[i]),
                    FIRST_REQ + (CHUNK + i) as u64,
                )
            },
        )
    });
    g.bench_function("replace", |b| {
        iter_chunked(
            b,
            CHUNK,
            &mut ctx,
            |ctx| ctx.entry_with_orders(&nos),
            |ctx, entry, i| {
                ctx.send(
                    entry,
                    black_box(&replaces[i]),
                    FIRST_REQ + (CHUNK + i) as u64,
                )
            },
        )
    });
    let order = new_order(FIRST_CL);
    let mut out = Vec::with_capacity(512);
    g.throughput(Throughput::Bytes(place_len));
    g.bench_function("place_order_json", |b| {
        let mut req_id = FIRST_REQ;
        b.iter(|| {
            req_id += 1;
            out.clear();
            write_place_order_json(&mut out, black_box(&order), req_id);
            black_box(out.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("baseline");
    g.throughput(Throughput::Bytes(place_len));
    g.bench_function("new_order_serde_json", |b| {
        let mut req_id = FIRST_REQ;
        b.iter(|| {
            req_id += 1;
            let v = serde_place_order_json(black_box(&order), req_id);
            black_box(v.len())
        })
    });
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// Inbound: exchange frames → ExecutionReports.

/// The place-order ACK (shape of `ws_place_order_ok.json`).
fn ack_frame(i: u64) -> Vec<u8> {
    format!(
        r#"{{"event":"trade","id":"{}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","cTime":"1758180740322"}}],"code":"0","msg":"Success","ts":"1758180740323"}}"#,
        FIRST_REQ + i,
        FIRST_ORDER_ID + i,
        ClientOid::new(SESSION, FIRST_CL + i).as_str(),
    )
    .into_bytes()
}

/// The `live` order push (`ws_push_order_live.json` with our orderId and clientOid).
fn live_frame(i: u64) -> Vec<u8> {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","price":"32000","qty":"0.0002","holdMode":"hedge_mode","holdSide":"long","tradeSide":"open","orderType":"limit","timeInForce":"gtc","side":"buy","marginMode":"crossed","marginCoin":"USDT","reduceOnly":"no","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","totalProfit":"0","orderStatus":"live","cancelReason":"","leverage":"10","feeDetail":[],"createdTime":"1758180740324","updatedTime":"1758180740324","stpMode":"none","tpTriggerBy":"","slTriggerBy":"","takeprofit":"","stoploss":"","tpOrderType":"market","slOrderType":"market","tpLimitPrice":"","slLimitPrice":"","amount":"0"}}],"ts":1758180740327}}"#,
        FIRST_ORDER_ID + i,
        ClientOid::new(SESSION, FIRST_CL + i).as_str(),
    )
    .into_bytes()
}

/// The fill push that fills the order (`ws_push_fill.json` with our ids, side, price and qty).
fn fill_frame(i: u64) -> Vec<u8> {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"fill"}},"data":[{{"orderId":"{}","clientOid":"{}","execId":"{}","category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"buy","holdSide":"long","execQty":"0.0002","execValue":"6.4","execPrice":"32000","execPnl":"0","tradeScope":"maker","feeDetail":[{{"feeCoin":"USDT","fee":"0.00128"}}],"execTime":"1758185294046","updatedTime":"1758185294053","tradeSide":"open","execLinkId":"{}"}}],"ts":1758185294056}}"#,
        FIRST_ORDER_ID + i,
        ClientOid::new(SESSION, FIRST_CL + i).as_str(),
        FIRST_EXEC_ID + i,
        FIRST_EXEC_ID + i,
    )
    .into_bytes()
}

/// What the io thread tells the tracker after writing order `i`'s place-order.
fn sent(i: u64) -> SentRequest {
    let o = new_order(FIRST_CL + i);
    SentRequest {
        req_id: FIRST_REQ + i,
        session_id: SESSION,
        root: o.cl_ord_id,
        kind: RequestKind::New(NewOrder {
            cl_ord_id: o.cl_ord_id,
            category: o.category,
            symbol: o.symbol,
            side: o.side,
            ord_type: o.ord_type,
            time_in_force: o.time_in_force,
            price: o.price,
            qty: o.order_qty,
        }),
        t_read_ns: 1_000,
        t_written_ns: 2_000,
    }
}

/// A fresh tracker holding [`RESIDENT`] open orders of another session. Its order table is
/// sized at start (16 384 open plus 16 384 ended orders, a `KeyTable` that never grows or
/// rehashes within that) and its request table has room for the [`TRACKER_CHUNK`] orders of a
/// chunk: no table growth inside the timed region. (Ended orders leave after the retention
/// window, which these chunks never reach: eviction is not in these figures.)
fn resident_tracker() -> Tracker {
    let mut t = Tracker::new();
    for i in 0..RESIDENT {
        let mut s = sent(i);
        s.session_id = SESSION + 1;
        s.req_id = FIRST_REQ + 1_000_000 + i;
        t.on_sent(s);
    }
    t
}

/// The tracker thread's state that outlives a chunk.
struct TrackerThread {
    parser: JsonParser,
    out: Vec<u8>,
    t_read_ns: u64,
}

impl TrackerThread {
    fn new() -> Self {
        TrackerThread {
            parser: JsonParser::new(),
            out: Vec::with_capacity(1024),
            t_read_ns: 10_000,
        }
    }

    /// One exchange text frame: parse, apply, encode every report (what the tracker thread does
    /// per frame, minus the socket write). Returns the number of reports.
    #[inline]
    fn on_frame(&mut self, tracker: &mut Tracker, frame: &[u8]) -> usize {
        self.t_read_ns += 1;
        let inbound = self.parser.parse(frame).expect("frame parses");
        tracker.on_inbound(self.t_read_ns, UTC_NS, &inbound);
        self.out.clear();
        let mut n = 0;
        for r in tracker.drain_reports() {
            match r.msg {
                ReportMsg::Exec(er) => er.encode_frame(&mut self.out),
                ReportMsg::CancelReject(cr) => cr.encode_frame(&mut self.out),
                ReportMsg::MassCancel(m) => m.encode_frame(&mut self.out),
            }
            n += 1;
        }
        black_box(self.out.len());
        n
    }

    /// A [`resident_tracker`] that has been told of this chunk's orders and has applied the first
    /// `frames_applied` frame lists to each.
    fn tracker_with(&mut self, frames_applied: &[&[Vec<u8>]]) -> Tracker {
        let mut t = resident_tracker();
        for i in 0..TRACKER_CHUNK {
            t.on_sent(sent(i as u64));
            for frames in frames_applied {
                self.on_frame(&mut t, &frames[i]);
            }
        }
        t
    }
}

/// The ExecutionReport in a frame written by [`TrackerThread::on_frame`].
fn decode_er(buf: &[u8]) -> ExecutionReport {
    match sbe::decode(&buf[SOFH_LEN..]).expect("report decodes") {
        Message::ExecutionReport(er) => er.to_owned(),
        other => panic!("expected an ExecutionReport, got {}", other.name()),
    }
}

/// The fields the gateway reads from a fill push, read through a `serde_json::Value`.
#[inline]
fn serde_value_fill_fields(frame: &[u8]) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(frame).expect("fill push is JSON");
    let topic = v["arg"]["topic"].as_str().expect("topic");
    assert_eq!(topic, "fill");
    let mut acc = v["ts"].as_u64().unwrap_or(0);
    for f in v["data"].as_array().expect("data") {
        let s = |k: &str| f[k].as_str().unwrap_or("");
        let d = |k: &str| Decimal::parse(s(k).as_bytes()).unwrap_or(Decimal::ZERO);
        let category = json::Category::parse(s("category").as_bytes());
        let side = json::Side::parse(s("side").as_bytes()).expect("side");
        let fee = &f["feeDetail"][0];
        let fee_amount = fee["fee"]
            .as_str()
            .and_then(|x| Decimal::parse(x.as_bytes()).ok());
        acc = acc
            .wrapping_add(s("orderId").len() as u64)
            .wrapping_add(s("clientOid").len() as u64)
            .wrapping_add(s("execId").len() as u64)
            .wrapping_add(category.is_some() as u64)
            .wrapping_add(s("symbol").len() as u64)
            .wrapping_add(side as u64)
            .wrapping_add(d("execPrice").mantissa() as u64)
            .wrapping_add(d("execQty").mantissa() as u64)
            .wrapping_add(d("execValue").mantissa() as u64)
            .wrapping_add(s("tradeScope").len() as u64)
            .wrapping_add(fee_amount.map_or(0, |x| x.mantissa() as u64))
            .wrapping_add(fee["feeCoin"].as_str().unwrap_or("").len() as u64)
            .wrapping_add(s("execTime").parse::<u64>().unwrap_or(0));
    }
    acc
}

/// The same fields through the gateway's parser.
#[inline]
fn our_fill_fields(parser: &mut JsonParser, frame: &[u8]) -> u64 {
    let Ok(Inbound::Fills { ts_ms, fills }) = parser.parse(frame) else {
        panic!("not a fill push");
    };
    let mut acc = ts_ms;
    for f in fills.iter() {
        acc = acc
            .wrapping_add(f.order_id.len() as u64)
            .wrapping_add(f.client_oid.len() as u64)
            .wrapping_add(f.exec_id.len() as u64)
            .wrapping_add(f.category.is_some() as u64)
            .wrapping_add(f.symbol.len() as u64)
            .wrapping_add(f.side as u64)
            .wrapping_add(f.exec_price.mantissa() as u64)
            .wrapping_add(f.exec_qty.mantissa() as u64)
            .wrapping_add(f.exec_value.mantissa() as u64)
            .wrapping_add(f.trade_scope.len() as u64)
            .wrapping_add(f.fee.map_or(0, |x| x.mantissa() as u64))
            .wrapping_add(f.fee_coin.len() as u64)
            .wrapping_add(f.exec_time_ms);
    }
    acc
}

fn inbound(c: &mut Criterion) {
    let acks = frames(TRACKER_CHUNK, ack_frame);
    let lives = frames(TRACKER_CHUNK, live_frame);
    let fills = frames(TRACKER_CHUNK, fill_frame);
    let mut ctx = TrackerThread::new();

    // The path measured is the intended one: ACK → New, live push → nothing, fill → Fill.
    let mut t = Tracker::new();
    t.on_sent(sent(0));
    assert_eq!(ctx.on_frame(&mut t, &acks[0]), 1);
    let er = decode_er(&ctx.out);
    assert_eq!(
        (er.exec_type, er.ord_status, er.cl_ord_id, er.order_id),
        (ExecType::New, OrdStatus::New, FIRST_CL, FIRST_ORDER_ID)
    );
    assert_eq!(ctx.on_frame(&mut t, &lives[0]), 0);
    assert_eq!(ctx.on_frame(&mut t, &fills[0]), 1);
    let er = decode_er(&ctx.out);
    assert_eq!(
        (er.exec_type, er.ord_status, er.exec_id),
        (ExecType::Fill, OrdStatus::Filled, FIRST_EXEC_ID)
    );
    assert_eq!((er.cum_qty, er.leaves_qty), (dec("0.0002"), Decimal::ZERO));
    assert_eq!(
        our_fill_fields(&mut ctx.parser, &fills[0]),
        serde_value_fill_fields(&fills[0])
    );

    let mut g = c.benchmark_group("inbound");
    g.throughput(Throughput::Elements(1));
    g.bench_function("order_lifecycle", |b| {
        iter_chunked(
            b,
            TRACKER_CHUNK,
            &mut ctx,
            |_| resident_tracker(),
            |ctx, t, i| {
                t.on_sent(black_box(sent(i as u64)));
                assert_eq!(ctx.on_frame(t, black_box(&acks[i])), 1);
                assert_eq!(ctx.on_frame(t, black_box(&lives[i])), 0);
                assert_eq!(ctx.on_frame(t, black_box(&fills[i])), 1);
            },
        )
    });
    g.bench_function("on_sent", |b| {
        iter_chunked(
            b,
            TRACKER_CHUNK,
            &mut ctx,
            |_| resident_tracker(),
            |_, t, i| t.on_sent(black_box(sent(i as u64))),
        )
    });
    g.bench_function("ack_to_report", |b| {
        iter_chunked(
            b,
            TRACKER_CHUNK,
            &mut ctx,
            |ctx| ctx.tracker_with(&[]),
            |ctx, t, i| assert_eq!(ctx.on_frame(t, black_box(&acks[i])), 1),
        )
    });
    g.bench_function("order_push_live", |b| {
        iter_chunked(
            b,
            TRACKER_CHUNK,
            &mut ctx,
            |ctx| ctx.tracker_with(&[&acks]),
            |ctx, t, i| assert_eq!(ctx.on_frame(t, black_box(&lives[i])), 0),
        )
    });
    g.bench_function("fill_push_to_report", |b| {
        iter_chunked(
            b,
            TRACKER_CHUNK,
            &mut ctx,
            |ctx| ctx.tracker_with(&[&acks, &lives]),
            |ctx, t, i| assert_eq!(ctx.on_frame(t, black_box(&fills[i])), 1),
        )
    });
    g.throughput(Throughput::Bytes(fills[0].len() as u64));
    g.bench_function("fill_push_parse", |b| {
        b.iter(|| black_box(our_fill_fields(&mut ctx.parser, black_box(&fills[0]))))
    });
    g.finish();

    let mut g = c.benchmark_group("baseline");
    g.throughput(Throughput::Bytes(fills[0].len() as u64));
    g.bench_function("fill_push_serde_json_value", |b| {
        b.iter(|| black_box(serde_value_fill_fields(black_box(&fills[0]))))
    });
    g.finish();
}

/// Criterion's entry point (private, so its generated `pub fn` needs no doc).
mod group {
    criterion::criterion_group!(benches, super::outbound, super::inbound);
}
criterion_main!(group::benches);
