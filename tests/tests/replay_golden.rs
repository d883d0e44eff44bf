//! Replay harness end to end: scenarios run against the real simulator with recording on
//! (`EngineSettings::record`), the recording replayed through a fresh tracker must give the
//! same bytes; the checked-in recordings in `tests/golden/*.bgwrec` must replay identically.
//!
//! `BGW_UPDATE_GOLDEN=1 cargo test -p e2e --test replay_golden` rewrites the golden files from
//! the live runs (do it when the tracker's outputs legitimately change, or when the recording
//! format's `VERSION` changes).

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use codec::sbe::{
    BoolFlag, Category, ExecType, MassCancelRequestType, NewOrderList, NewOrderListEntry,
    OrdRejReason, OrdStatus, OrdType, OrderCancelReplaceRequest, OrderCancelRequest,
    OrderMassCancelRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{
    btc_order, d, master_account_credentials, master_and_sub_sim_config, quiet_sim_config,
    settings_for, sub_account_credentials, Harness, Strategy,
};
use gateway::engine::{EngineSettings, Gateway};
use gateway::ids::ClientOid;
use gateway::replay::{records_of, replay_bytes, replay_file, Record, RecordedInput};
use sim::faults::Scope;
use strategy_client::Received;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn btc() -> Symbol {
    Symbol::new("BTCUSDT").expect("symbol")
}

/// Runs `scenario` on a recording gateway, stops it, replays the recording and returns its
/// bytes (also written to `tests/golden/<name>.bgwrec` under `BGW_UPDATE_GOLDEN=1`).
fn record(name: &str, faults: impl FnOnce(&Harness), scenario: impl FnOnce(&Harness)) -> Vec<u8> {
    record_as(name, true, faults, scenario)
}

/// [`record`]; `golden`: may be written to `tests/golden`.
fn record_as(
    name: &str,
    golden: bool,
    faults: impl FnOnce(&Harness),
    scenario: impl FnOnce(&Harness),
) -> Vec<u8> {
    record_with(name, golden, quiet_sim_config(), |_| {}, faults, scenario)
}

/// [`record_as`] on a simulator with `cfg` and gateway settings changed by `tweak`.
fn record_with(
    name: &str,
    golden: bool,
    cfg: sim::SimConfig,
    tweak: impl FnOnce(&mut EngineSettings),
    faults: impl FnOnce(&Harness),
    scenario: impl FnOnce(&Harness),
) -> Vec<u8> {
    let path = recording_path(name);
    let p = path.clone();
    let mut h = Harness::start_with(cfg, move |s| {
        tweak(s);
        s.record = Some(p);
    });
    faults(&h);
    scenario(&h);
    h.gw.take().expect("gateway").shutdown();
    check_recording(name, golden, &path)
}

fn recording_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("bgw-{name}-{}.bgwrec", std::process::id()))
}

/// Reads and removes the recording at `path`, checks that it replays identically without
/// skipped inputs, writes it to `tests/golden/<name>.bgwrec` under `BGW_UPDATE_GOLDEN=1` when
/// `golden`, and returns its bytes.
fn check_recording(name: &str, golden: bool, path: &std::path::Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("recording written");
    let report = replay_bytes(&bytes).expect("recording reads");
    // A recording that does not replay is kept for `gateway-replay`.
    assert!(
        report.is_identical(),
        "{name}: {report}\n(recording kept at {})",
        path.display()
    );
    let _ = std::fs::remove_file(path);
    assert!(report.inputs > 0 && report.outputs > 0, "{name}: {report}");
    assert_eq!(report.skipped, 0, "{name}: {report}");
    assert!(
        report.entry_calls > 0,
        "{name}: order entry recorded: {report}"
    );
    if golden && std::env::var_os("BGW_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(golden_dir()).expect("golden dir");
        std::fs::write(golden_dir().join(format!("{name}.bgwrec")), &bytes).expect("write");
    }
    bytes
}

/// The input tags (see `RecordedInput`) of a recording, in order.
fn input_kinds(bytes: &[u8]) -> Vec<&'static str> {
    records_of(bytes)
        .expect("records")
        .into_iter()
        .filter_map(|r| match r {
            Record::Input { input, .. } => Some(match input {
                RecordedInput::SessionOpened { .. } => "SessionOpened",
                RecordedInput::Restore { .. } => "Restore",
                RecordedInput::ExchangeState { .. } => "ExchangeState",
                RecordedInput::LinkDown { .. } => "LinkDown",
                RecordedInput::LinkUp { .. } => "LinkUp",
                RecordedInput::Tick { .. } => "Tick",
                _ => "other",
            }),
            _ => None,
        })
        .collect()
}

/// Checks that `wanted` occur in `kinds` in that order (others may come between).
fn assert_in_order(name: &str, kinds: &[&str], wanted: &[&str]) {
    let mut it = kinds.iter();
    for w in wanted {
        assert!(
            it.any(|k| k == w),
            "{name}: {wanted:?} in order in {kinds:?}"
        );
    }
}

fn replace(s: &mut Strategy, orig: u64, price: &str, qty: &str) -> u64 {
    let cl = s.next_cl();
    s.c.send_replace(&OrderCancelReplaceRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        price: Some(d(price)),
        order_qty: Some(d(qty)),
        symbol: btc(),
        category: Category::UsdtFutures,
        side: Side::Sell,
        auto_cancel: BoolFlag::No,
    })
    .expect("send");
    cl
}

fn cancel(s: &mut Strategy, orig: u64, side: Side) -> u64 {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: btc(),
        category: Category::UsdtFutures,
        side,
    })
    .expect("send");
    cl
}

/// Maker rests two sells, taker crosses both (partial fill then fill), maker's rest is
/// replaced then cancelled.
fn fills_replace_cancel(h: &Harness) {
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.002");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    let m2 = maker.limit(Side::Sell, TimeInForce::Gtc, "60001", "0.003");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    taker.limit(Side::Buy, TimeInForce::Gtc, "60001", "0.004");
    let mut kinds = Vec::new();
    while kinds.last() != Some(&ExecType::Fill) {
        kinds.push(taker.exec().exec_type);
    }
    assert_eq!(
        kinds,
        [ExecType::New, ExecType::PartialFill, ExecType::Fill],
        "taker reports, each once"
    );
    assert_eq!(maker.exec().exec_type, ExecType::Fill);
    assert_eq!(maker.exec().exec_type, ExecType::PartialFill);
    let r = replace(&mut maker, m2, "60005", "0.004");
    assert_eq!(maker.exec().exec_type, ExecType::Replaced);
    cancel(&mut maker, r, Side::Sell);
    assert_eq!(maker.exec().exec_type, ExecType::Canceled);
}

#[test]
fn order_lifecycle_with_an_exchange_reject_replays_identically() {
    record(
        "order_lifecycle",
        |h| {
            h.sim()
                .faults()
                .reject_trade_ops(
                    Scope::All,
                    1,
                    Some("place-order"),
                    43012,
                    "Insufficient balance",
                )
                .expect("fault");
        },
        |h| {
            let mut s = h.client(3);
            s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            let rej = s.exec();
            assert_eq!(rej.exec_type, ExecType::Rejected);
            assert_eq!(rej.exchange_code, 43012);
            // The same ClOrdID again: refused by order entry (io stream).
            s.c.send_new_order(&btc_order(
                rej.cl_ord_id,
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Gtc,
                Some("50000"),
                "0.001",
            ))
            .expect("send");
            let dup = s.exec();
            assert_eq!(
                (dup.exec_type, dup.ord_rej_reason),
                (ExecType::Rejected, Some(OrdRejReason::DuplicateOrder))
            );
            fills_replace_cancel(h);
        },
    );
}

#[test]
fn duplicated_and_reordered_pushes_replay_identically() {
    record(
        "duplicate_reorder",
        |h| {
            h.sim()
                .faults()
                .duplicate_pushes(Scope::All, true)
                .expect("fault");
            h.sim()
                .faults()
                .reorder_pushes(Scope::All, 20)
                .expect("fault");
        },
        fills_replace_cancel,
    );
}

/// A gateway that evicts every ended order at once (`retention_orders = 0`) while pushes are
/// duplicated and reordered: nothing reported changes (the replay's tracker keeps every order
/// and makes the same bytes), the late copies are recognised by their tombstones, none is
/// unknown.
#[test]
fn evicting_ended_orders_at_once_changes_no_report() {
    let name = "evict_at_once";
    let path = recording_path(name);
    let p = path.clone();
    let mut h = Harness::start_with(quiet_sim_config(), move |s| {
        s.tracker.retention = gateway::tracker::Retention {
            retention_ms: 0,
            retention_orders: 0,
            tombstones: 1_024,
            // Evicted at once even just after their end (see `gateway_core::tracker::unseen`).
            unseen_tail_ms: 0,
        };
        s.record = Some(p);
    });
    h.sim()
        .faults()
        .duplicate_pushes(Scope::All, true)
        .expect("fault");
    h.sim()
        .faults()
        .reorder_pushes(Scope::All, 20)
        .expect("fault");
    fills_replace_cancel(&h);
    // The duplicated copies of the last pushes come after the orders' ends.
    std::thread::sleep(Duration::from_millis(300));
    let stats =
        h.gw.take()
            .expect("gateway")
            .shutdown()
            .tracker
            .expect("tracker summary")
            .stats;
    check_recording(name, false, &path);
    // The three orders (two makers, one taker) all left.
    assert_eq!(stats.evicted, 3, "{stats:?}");
    assert!(stats.late_for_evicted > 0, "{stats:?}");
    assert_eq!(stats.unknown_pushes, 0, "{stats:?}");
}

#[test]
fn a_new_order_list_replays_identically() {
    record(
        "batch",
        |_| {},
        |h| {
            let mut s = h.client(4);
            let items: Vec<NewOrderListEntry> = (0..3u64)
                .map(|i| NewOrderListEntry {
                    cl_ord_id: 100 + i,
                    price: Some(d(&(40000 + i).to_string())),
                    order_qty: d("0.001"),
                    symbol: btc(),
                    category: Category::UsdtFutures,
                    side: Side::Buy,
                    ord_type: OrdType::Limit,
                    time_in_force: TimeInForce::Gtc,
                    pos_side: PosSide::None,
                    reduce_only: BoolFlag::No,
                    stp_mode: StpMode::None,
                })
                .collect();
            let list = NewOrderList {
                list_id: 9,
                transact_time: 0,
            };
            s.c.send_frame(|b| {
                list.encode_frame(items.iter().copied(), b)
                    .expect("fits a frame");
            })
            .expect("send");
            let (mut news, mut last) = (0, false);
            while news < 3 || !last {
                match s.next_message() {
                    Received::Exec(er) if er.exec_type == ExecType::New => news += 1,
                    Received::ListStatus(ls, _) => last = ls.last_fragment == BoolFlag::Yes,
                    other => panic!("unexpected {other:?}"),
                }
            }
            // A single order after the list (batches do not go through single-order entry).
            s.limit(Side::Buy, TimeInForce::Gtc, "39000", "0.001");
            assert_eq!(s.exec().exec_type, ExecType::New);
        },
    );
}

/// Outcome-unknown replies (40010) to two places, one applied and one not: the tracker
/// resolves both by querying the order (ER New, ER Rejected NotApplied), never by resending.
#[test]
fn unknown_outcomes_resolved_by_order_info_replay_identically() {
    let bytes = record_with(
        "unknown_outcome",
        true,
        quiet_sim_config(),
        |s| s.tracker.deadlines.push_deadline_ms = 300,
        |_| {},
        |h| {
            let mut s = h.client(5);
            h.sim()
                .faults()
                .unknown_outcome(Scope::All, 1, None, true)
                .expect("fault");
            let applied = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            let er = s.exec();
            assert_eq!(
                (er.cl_ord_id, er.exec_type, er.ord_status),
                (applied, ExecType::New, OrdStatus::New)
            );
            h.sim()
                .faults()
                .unknown_outcome(Scope::All, 1, None, false)
                .expect("fault");
            let lost = s.limit(Side::Buy, TimeInForce::Gtc, "49000", "0.001");
            let er = s.exec();
            assert_eq!(
                (er.cl_ord_id, er.exec_type, er.ord_rej_reason),
                (lost, ExecType::Rejected, Some(OrdRejReason::NotApplied))
            );
            assert_eq!(h.sim().stats().repeated_client_oids, 0, "never resent");
        },
    );
    // The order-info answers come back as exchange states.
    assert_in_order("unknown_outcome", &input_kinds(&bytes), &["ExchangeState"]);
}

/// A mass cancel whose pushes are lost (issue 15): its OrderMassCancelReport is released by
/// the watchdog at the push deadline (a tick the recording holds as a `Tick` input), then the
/// orders' Canceled reports come from querying them. The replay makes the report at the same
/// input.
#[test]
fn a_mass_cancel_report_released_at_the_push_deadline_replays_identically() {
    let bytes = record_with(
        "mass_cancel_deadline",
        true,
        quiet_sim_config(),
        |s| s.tracker.deadlines.push_deadline_ms = 300,
        |_| {},
        |h| {
            let mut s = h.client(6);
            let mut orders = Vec::new();
            for price in ["50000", "50001"] {
                let cl = s.limit(Side::Buy, TimeInForce::Gtc, price, "0.001");
                assert_eq!(s.exec().exec_type, ExecType::New);
                orders.push(cl);
            }
            h.sim().faults().pause_pushes(Scope::All).expect("fault");
            let cl = s.next_cl();
            let m = OrderMassCancelRequest {
                cl_ord_id: cl,
                transact_time: 0,
                symbol: Symbol::new("").expect("symbol"),
                mass_cancel_request_type: MassCancelRequestType::Session,
                category: None,
                side: None,
            };
            s.c.send_frame(|b| m.encode_frame(b)).expect("send");
            match next_app(&mut s) {
                Received::MassCancelReport(r) => {
                    assert_eq!((r.cl_ord_id, r.total_affected_orders), (cl, 2));
                }
                other => panic!("expected the OrderMassCancelReport first, got {other:?}"),
            }
            let mut ended = Vec::new();
            while ended.len() < orders.len() {
                let er = s.exec();
                assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
                ended.push(er.cl_ord_id);
            }
            ended.sort_unstable();
            assert_eq!(ended, orders);
        },
    );
    assert_in_order(
        "mass_cancel_deadline",
        &input_kinds(&bytes),
        &["Tick", "ExchangeState"],
    );
}

/// The demo master account's uid (the gateway trades it).
const MASTER_UID: &str = "1000000001";
/// Deadline of the reconnect conditions.
const DEADLINE: Duration = Duration::from_secs(30);

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + DEADLINE;
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The next application message (keepalive Sequences skipped).
fn next_app(s: &mut Strategy) -> Received {
    let end = Instant::now() + DEADLINE;
    loop {
        let left = end
            .checked_duration_since(Instant::now())
            .expect("an application message in time");
        match s.c.recv(left).expect("recv") {
            Some(Received::Sequence(_)) | None => continue,
            Some(r) => return r,
        }
    }
}

/// The master account's link goes down (silenced, sockets closed); the sub-account crosses
/// the resting order meanwhile; once back, the reconciliation reports the missed fill once.
#[test]
fn a_fill_missed_during_an_exchange_outage_replays_identically() {
    let bytes = record_with(
        "exchange_reconnect",
        true,
        master_and_sub_sim_config(),
        |s| {
            s.exchange.reconnect_min_ms = 50;
            s.exchange.reconnect_max_ms = 400;
            s.exchange.connect_timeout_ms = 1_000;
        },
        |_| {},
        |h| {
            let mut s = h.client(1);
            let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.002");
            assert_eq!(s.exec().exec_type, ExecType::New);
            let faults = h.sim().faults();
            faults.silence(Scope::uid(MASTER_UID), true).expect("fault");
            faults
                .close_connections(Scope::uid(MASTER_UID))
                .expect("fault");
            wait_until("the gateway sees the drop", || {
                !h.gateway().exchange_connected()
            });
            let sub = h.rest_client(sub_account_credentials());
            let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"50000","qty":"0.002","stpMode":"none","clientOid":"sub-taker-1"}"#;
            h.rt.block_on(sub.signed_post("/api/v3/trade/place-order", body, SystemTime::now()))
                .expect("crossing order");
            wait_until("the sim fills the order", || h.sim().stats().fills >= 2);
            faults
                .silence(Scope::uid(MASTER_UID), false)
                .expect("fault");
            wait_until("reconnected and reconciled", || {
                h.gateway().exchange_reconnects()[0].reconnects >= 1
                    && h.gateway().exchange_connected()
            });
            let Received::Exec(er) = next_app(&mut s) else {
                panic!("expected the Fill");
            };
            assert_eq!(
                (er.cl_ord_id, er.exec_type, er.cum_qty),
                (cl, ExecType::Fill, d("0.002"))
            );
            s.expect_silence(Duration::from_millis(300));
        },
    );
    assert_in_order(
        "exchange_reconnect",
        &input_kinds(&bytes),
        &["LinkDown", "ExchangeState", "LinkUp"],
    );
}

/// Crash recovery: the restarted gateway (recording) restores the session's orders from its
/// journal and reports what changed while it was down (a partial fill, a cancel) once; a new
/// order follows.
#[test]
fn changes_while_down_reported_after_a_restart_replay_identically() {
    let name = "crash_recovery";
    let dir = std::env::temp_dir().join(format!("bgw-golden-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let journaled = |s: &mut EngineSettings, dir: PathBuf| {
        s.journal_dir = Some(dir);
        for a in &mut s.accounts {
            a.position_updates = false;
        }
        for g in &mut s.sessions {
            g.cancel_on_disconnect = false;
        }
        s.tracker.deadlines.push_deadline_ms = 300;
    };
    let d2 = dir.clone();
    let mut h = Harness::start_with(master_and_sub_sim_config(), move |s| journaled(s, d2));
    let mut s = h.client(4);
    let a = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.002");
    assert_eq!(s.exec().exec_type, ExecType::New);
    let b = s.limit(Side::Buy, TimeInForce::Gtc, "49000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
    drop(s);
    h.gw.take().expect("gateway").shutdown();

    // While no gateway runs: A is half filled, B is cancelled.
    let post = |creds, path: &str, body: &str| {
        let rest = h.rest_client(creds);
        h.rt.block_on(rest.signed_post(path, body, SystemTime::now()))
            .expect(path);
    };
    post(
        sub_account_credentials(),
        "/api/v3/trade/place-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"50000","qty":"0.001","clientOid":"outside-1","stpMode":"none"}"#,
    );
    post(
        master_account_credentials(),
        "/api/v3/trade/cancel-order",
        &format!(
            r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"{}"}}"#,
            ClientOid::new(4, b).as_str()
        ),
    );

    let path = recording_path(name);
    let mut settings = settings_for(h.sim(), "demo-secret");
    journaled(&mut settings, dir.clone());
    settings.record = Some(path.clone());
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));
    let mut s = h.client(4);
    assert_eq!(
        s.c.next_seq_from_gateway, 5,
        "the two changes were numbered"
    );
    // A cancel of A, placed before the restart: order entry replays from the state rebuilt
    // from the journal (recorded at Establish).
    s.c.send_cancel(&codec::sbe::OrderCancelRequest {
        cl_ord_id: 100,
        orig_cl_ord_id: a,
        transact_time: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").expect("symbol"),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
    })
    .expect("send");
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.orig_cl_ord_id, er.exec_type),
        (100, a, ExecType::Canceled)
    );
    drop(s);
    h.gw.take().expect("gateway").shutdown();
    let bytes = check_recording(name, true, &path);
    assert_in_order(
        name,
        &input_kinds(&bytes),
        &["SessionOpened", "Restore", "ExchangeState"],
    );
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The refusals after order entry of a recording (ClOrdID order kept), as (OrdRejReason,
/// text).
fn recorded_refusals(bytes: &[u8]) -> Vec<(OrdRejReason, String)> {
    records_of(bytes)
        .expect("records")
        .into_iter()
        .filter_map(|r| match r {
            Record::OrderEntry {
                refusal: Some(r), ..
            } => Some((r.ord, r.text)),
            _ => None,
        })
        .collect()
}

/// A risk rule refuses an order order entry accepted: the recording holds the refusal and the
/// replay answers it with the same bytes (issue 11, item 3).
#[test]
fn a_risk_refusal_replays_identically() {
    let bytes = record_with(
        "risk_refusal",
        true,
        quiet_sim_config(),
        |s| {
            s.sessions[0].risk = gateway::risk::RiskLimits {
                max_order_qty: Some(d("0.002")),
                ..Default::default()
            };
        },
        |_| {},
        |h| {
            let mut s = h.client(1);
            s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.005");
            let er = s.exec();
            assert_eq!(
                (er.exec_type, er.ord_rej_reason),
                (ExecType::Rejected, Some(OrdRejReason::RiskLimit))
            );
            let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            assert_eq!(s.exec().exec_type, ExecType::New);
            cancel(&mut s, cl, Side::Buy);
            assert_eq!(s.exec().exec_type, ExecType::Canceled);
        },
    );
    assert_eq!(
        recorded_refusals(&bytes),
        vec![(
            OrdRejReason::RiskLimit,
            "risk: session.max_order_qty 0.005 > 0.002".to_owned()
        )]
    );
}

/// The kill switch refuses new orders until released; both refusals replay identically.
#[test]
fn kill_switch_refusals_replay_identically() {
    use codec::sbe::{KillSwitchAction, KillSwitchRequest, KillSwitchScope};
    let bytes = record_with(
        "kill_switch",
        true,
        quiet_sim_config(),
        |s| {
            for g in &mut s.sessions {
                if g.session_id == 4 {
                    g.role = gateway::engine::SessionRole::Operator;
                }
            }
        },
        |_| {},
        |h| {
            let mut op = h.client(4);
            let mut s = h.client(1);
            let switch = |op: &mut Strategy, id, action| {
                op.c.send_frame(|b| {
                    KillSwitchRequest {
                        request_id: id,
                        transact_time: 0,
                        kill_switch_scope: KillSwitchScope::Account,
                        kill_switch_action: action,
                    }
                    .encode_frame(b)
                })
                .expect("send");
                match op.next_message() {
                    Received::KillSwitchReport(r) => assert_eq!(r.request_id, id),
                    other => panic!("expected KillSwitchReport, got {other:?}"),
                }
            };
            switch(&mut op, 1, KillSwitchAction::Activate);
            for _ in 0..2 {
                s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
                let er = s.exec();
                assert_eq!(er.ord_rej_reason, Some(OrdRejReason::KillSwitch));
            }
            switch(&mut op, 2, KillSwitchAction::Release);
            let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            assert_eq!(s.exec().exec_type, ExecType::New);
            // Nothing left open: no cancel on disconnect racing the session's close.
            cancel(&mut s, cl, Side::Buy);
            assert_eq!(s.exec().exec_type, ExecType::Canceled);
        },
    );
    let refusals = recorded_refusals(&bytes);
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(refusals
        .iter()
        .all(|(r, t)| *r == OrdRejReason::KillSwitch && t == "kill switch on"));
}

/// The rate budget refuses a burst beyond the place-order quota (policy Reject): the
/// ThrottleLimitExceeded answers replay identically.
#[test]
fn rate_budget_refusals_replay_identically() {
    let mut cfg = quiet_sim_config();
    cfg.max_msgs_per_s = 10;
    cfg.rate_limits.enabled = true;
    let bytes = record_with(
        "budget_refusal",
        true,
        cfg,
        |s| {
            s.rate = gateway::budget::RateConfig::bitget();
            for a in &mut s.accounts {
                a.connections = 2;
            }
        },
        |_| {},
        |h| {
            let mut s = h.client(1);
            let n = 13;
            for _ in 0..n {
                s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            }
            let (mut new, mut throttled) = (Vec::new(), 0);
            while new.len() + throttled < n {
                match s.next_message() {
                    Received::Exec(er) if er.exec_type == ExecType::New => new.push(er.cl_ord_id),
                    Received::Exec(er) => {
                        assert_eq!(er.ord_rej_reason, Some(OrdRejReason::ThrottleLimitExceeded));
                        throttled += 1;
                    }
                    Received::RateBudgetReport(..) => {}
                    other => panic!("unexpected {other:?}"),
                }
            }
            assert!(
                throttled > 0 && new.len() >= 10,
                "{new:?} new, {throttled} throttled"
            );
            // Nothing left open (no cancel on disconnect racing the session's close): each
            // resting order cancelled once the quota window has passed.
            std::thread::sleep(Duration::from_millis(1_200));
            for cl in new {
                cancel(&mut s, cl, Side::Buy);
                loop {
                    match s.next_message() {
                        Received::Exec(er) => {
                            assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
                            break;
                        }
                        Received::RateBudgetReport(..) => {}
                        other => panic!("unexpected {other:?}"),
                    }
                }
            }
        },
    );
    let refusals = recorded_refusals(&bytes);
    assert!(!refusals.is_empty());
    assert!(refusals
        .iter()
        .all(|(r, t)| *r == OrdRejReason::ThrottleLimitExceeded
            && t == "rate budget exhausted: place-order"));
}

#[test]
fn a_changed_output_byte_is_reported_as_a_mismatch() {
    let mut bytes = record_as("tamper", false, |_| {}, fills_replace_cancel);
    let last_frame = records_of(&bytes)
        .expect("records")
        .into_iter()
        .filter_map(|r| match r {
            Record::Report { frame, .. } => Some(frame),
            _ => None,
        })
        .next_back()
        .expect("a report");
    let at = bytes
        .windows(last_frame.len())
        .rposition(|w| w == last_frame.as_slice())
        .expect("frame in file");
    let byte = at + last_frame.len() - 1;
    bytes[byte] ^= 0xff;
    let report = replay_bytes(&bytes).expect("reads");
    assert_eq!(report.mismatched_inputs, 1, "{report}");
    let m = report.first_mismatch.expect("mismatch");
    assert!(m.expected.is_some() && m.got.is_some(), "{m:?}");
}

#[test]
fn golden_recordings_replay_identically() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bgwrec"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "golden recordings: {files:?}");
    for f in files {
        let report = replay_file(&f).expect("golden reads");
        assert!(report.is_identical(), "{}: {report}", f.display());
        assert!(report.outputs > 0, "{}: {report}", f.display());
        assert_eq!(report.skipped, 0, "{}: {report}", f.display());
    }
}

/// The checked-in recordings read back record by record and, encoded again, give the same
/// bytes: the recorded types and the file format round-trip on real recordings.
#[test]
fn golden_recordings_round_trip_byte_for_byte() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bgwrec"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "golden recordings: {files:?}");
    for f in files {
        let bytes = std::fs::read(&f).expect("golden reads");
        let mut again = gateway::replay::MAGIC.to_vec();
        again.extend_from_slice(&gateway::replay::VERSION.to_le_bytes());
        let records = records_of(&bytes).expect("golden records");
        assert!(records.len() > 1, "{}", f.display());
        for rec in &records {
            assert!(rec.encode(&mut again), "{}: {rec:?}", f.display());
        }
        assert!(again == bytes, "{}: re-encoded bytes differ", f.display());
    }
}
