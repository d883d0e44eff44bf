//! The real tracker thread records; the replay of its recording is identical. Covers the
//! inputs the e2e golden scenarios do not reach yet (ExchangeState, link events).

use std::sync::Arc;

use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::Decimal;

use super::{records_of, replay_file, Record, Recorder};
use crate::exchange::rest_history::ExchangeFill;
use crate::exchange::rest_orders::OpenOrder;
use crate::idle::IdleStrategy;
use crate::ids::ClientOid;
use crate::session::out::SessionOut;
use crate::tracker::{
    spawn_recording, ExchangeState, NewOrder, RequestKind, SentRequest, TrackerInput,
    TrackerThreadConfig,
};

const S: u64 = 3;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn exchange_state_and_link_events_recorded_by_the_tracker_thread_replay_identically() {
    let path = std::env::temp_dir().join(format!("bgw-unit-{}.bgwrec", std::process::id()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (_peer, _) = listener.accept().unwrap();
    client.set_nonblocking(true).unwrap();
    let out = Arc::new(SessionOut::new(Arc::new(client), 0));

    let recorder = Recorder::create(&path).unwrap();
    let cfg = TrackerThreadConfig {
        core: None,
        idle: IdleStrategy::Park,
        report_interval_ms: 0,
        ..TrackerThreadConfig::default()
    };
    let h = spawn_recording(cfg, None, None, Some(recorder), None).unwrap();
    let send = |i| h.tx.send(i).unwrap();
    send(TrackerInput::SessionOpened {
        session_id: S,
        account: 0,
        role: crate::types::SessionRole::Trading,
        out,
    });
    send(TrackerInput::Sent(SentRequest {
        req_id: 1,
        session_id: S,
        root: 1,
        kind: RequestKind::New(NewOrder {
            cl_ord_id: 1,
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            price: Some(d("100")),
            qty: d("3"),
        }),
        t_read_ns: 1,
        t_written_ns: 2,
    }));
    send(TrackerInput::LinkDown {
        account: 0,
        t_ns: 5,
    });
    let oid = ClientOid::new(S, 1).as_str().to_owned();
    send(TrackerInput::ExchangeState {
        state: ExchangeState {
            account: 0,
            orders: vec![OpenOrder {
                order_id: 901,
                client_oid: oid.clone(),
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                price: Some(d("100")),
                qty: d("3"),
                cum_qty: d("1"),
                avg_px: None,
                status: OrdStatus::PartiallyFilled,
                cum_value: d("100"),
                cancel_reason: String::new(),
                updated_time_ms: 1_700_000_000_000,
            }],
            fills: vec![ExchangeFill {
                exec_id: 11,
                order_id: 901,
                client_oid: oid,
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                exec_price: d("100"),
                exec_qty: d("1"),
                exec_value: d("100"),
                exec_time_ms: 1_700_000_000_011,
            }],
            not_found: Vec::new(),
            source: crate::tracker::StateSource::Reconnect,
        },
        reply: None,
    });
    send(TrackerInput::LinkUp {
        account: 0,
        t_ns: 9,
    });
    assert!(h.shutdown().is_some());

    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let reports = records_of(&bytes)
        .unwrap()
        .iter()
        .filter(|r| matches!(r, Record::Report { .. }))
        .count();
    assert_eq!(reports, 2, "New and PartialFill from the exchange state");
    let dir = std::env::temp_dir().join(format!("bgw-unit-r-{}.bgwrec", std::process::id()));
    std::fs::write(&dir, &bytes).unwrap();
    let report = replay_file(&dir).unwrap();
    let _ = std::fs::remove_file(&dir);
    assert!(report.is_identical(), "{report}");
    assert_eq!((report.inputs, report.skipped, report.outputs), (5, 0, 2));
}

/// `gateway-replay --order`: the trace of an order of the reconnect golden names its place,
/// the exchange's answer, the link drop, the reconciliation's state and its reports, in order.
#[test]
fn an_order_is_traced_through_a_recording() {
    let file = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/exchange_reconnect.bgwrec"),
    )
    .unwrap();
    let (session, root) = records_of(&file)
        .unwrap()
        .into_iter()
        .find_map(|r| match r {
            Record::Input {
                input: super::RecordedInput::Sent(s),
                ..
            } => Some((s.session_id, s.root)),
            _ => None,
        })
        .unwrap();
    let lines = super::order_trace(&file, session, root).unwrap();
    for l in &lines {
        println!("{l}");
    }
    let at = |what: &str| {
        lines
            .iter()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no line with {what:?} in {lines:#?}"))
    };
    assert!(at("sent request") < at("exchange frame"));
    assert!(at("exchange frame") < at("report ExecutionReport New"));
    // Filled while the link was down: the reconciliation's state shows it and reports it.
    assert!(at("link down") < at("exchange state (Reconnect"));
    assert!(at("exchange state (Reconnect") < at("report ExecutionReport Fill Filled"));
    assert!(at("report ExecutionReport Fill Filled") < at("link up"));
    // Another order's frames are not in it.
    let other = ClientOid::new(session, root + 1000);
    assert!(!lines.iter().any(|l| l.contains(other.as_str())));
}

#[test]
fn record_path_comes_from_the_record_section_and_is_off_by_default() {
    let base = "[[session]]\nsession_id = 1\ncredentials = \"tok\"\n\
                    [exchange]\napi_key = \"k\"\nsecret = \"s\"\npassphrase = \"p\"\n";
    let settings = |text: &str| {
        let cfg = crate::config::GatewayConfig::from_toml_str(text).unwrap();
        crate::engine::EngineSettings::from_config(&cfg).unwrap()
    };
    assert_eq!(settings(base).record, None);
    let on = settings(&format!("{base}[record]\npath = \"/tmp/x.bgwrec\"\n"));
    assert_eq!(on.record, Some(std::path::PathBuf::from("/tmp/x.bgwrec")));
    let bad = format!("{base}[record]\nfile = \"x\"\n");
    assert!(crate::config::GatewayConfig::from_toml_str(&bad).is_err());
}
