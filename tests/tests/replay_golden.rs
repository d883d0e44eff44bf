//! Replay harness end to end: scenarios run against the real simulator with recording on
//! (`EngineSettings::record`), the recording replayed through a fresh tracker must give the
//! same bytes; the checked-in recordings in `tests/golden/*.bgwrec` must replay identically.
//!
//! `BGW_UPDATE_GOLDEN=1 cargo test -p e2e --test replay_golden` rewrites the golden files from
//! the live runs (do it when the tracker's outputs legitimately change).

use std::path::PathBuf;

use codec::sbe::{
    BoolFlag, Category, ExecType, NewOrderList, NewOrderListEntry, OrdRejReason, OrdType,
    OrderCancelReplaceRequest, OrderCancelRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{btc_order, d, quiet_sim_config, Harness, Strategy};
use gateway::client::Received;
use gateway::replay::{records_of, replay_bytes, replay_file, Record};
use sim::faults::Scope;

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
    let path = std::env::temp_dir().join(format!("bgw-{name}-{}.bgwrec", std::process::id()));
    let p = path.clone();
    let mut h = Harness::start_with(quiet_sim_config(), move |s| s.record = Some(p));
    faults(&h);
    scenario(&h);
    h.gw.take().expect("gateway").shutdown();
    let bytes = std::fs::read(&path).expect("recording written");
    let _ = std::fs::remove_file(&path);
    let report = replay_bytes(&bytes).expect("recording reads");
    assert!(report.is_identical(), "{name}: {report}");
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
    assert!(files.len() >= 3, "golden recordings: {files:?}");
    for f in files {
        let report = replay_file(&f).expect("golden reads");
        assert!(report.is_identical(), "{}: {report}", f.display());
        assert!(report.outputs > 0, "{}: {report}", f.display());
    }
}
