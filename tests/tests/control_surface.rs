//! The operator's control surface end to end (`/control/` on the metrics listener, issue 26):
//! the simulator (TLS) and the gateway in-process, real strategy sessions over TCP, the control
//! routes over real HTTP. A strategy's resting orders are listed (ClOrdID, exact decimals);
//! without a token 401, with the surface disabled 403; a drained session's new orders (single
//! and in a list) are refused while its cancels pass, and resume lets them through; the kill
//! switch pulled for the account ends every open order Canceled at the strategies and refuses
//! new ones until released; a drain with `cancel_open` cancels the session's orders; every
//! action is counted in `/metrics`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use codec::sbe::{
    BoolFlag, Category, ExecType, NewOrderList, NewOrderListEntry, OrdRejReason, OrdStatus,
    OrdType, OrderCancelRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{d, Harness, Strategy};
use gateway::control::api::{DrainJson, ErrorJson, KillSwitchJson, SessionJson, SessionsJson};
use gateway::engine::EngineSettings;
use strategy_client::Received;

const TOKEN: &str = "e2e-control-token";
const DEADLINE: Duration = Duration::from_secs(20);

/// An HTTP answer: status and body.
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{e}: not the expected JSON: {}", self.body))
    }
}

/// One request over a fresh TCP connection (HTTP/1.1, `Connection: close`).
fn http(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: &str) -> Answer {
    let mut s = std::net::TcpStream::connect(addr).expect("connect to the metrics listener");
    s.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status code");
    Answer {
        status,
        body: body.to_owned(),
    }
}

fn control(addr: SocketAddr, method: &str, path: &str, body: &str) -> Answer {
    http(addr, method, path, Some(TOKEN), body)
}

fn sessions(addr: SocketAddr) -> SessionsJson {
    let a = control(addr, "GET", "/control/sessions", "");
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn session(list: &SessionsJson, id: u64) -> &SessionJson {
    list.sessions
        .iter()
        .find(|s| s.session_id == id)
        .expect("session listed")
}

/// The value of one sample of `/metrics`.
fn sample(addr: SocketAddr, series: &str) -> f64 {
    let a = http(addr, "GET", "/metrics", None, "");
    assert_eq!(a.status, 200);
    a.body
        .lines()
        .find_map(|l| {
            let (s, v) = l.rsplit_once(' ')?;
            (s == series).then(|| v.parse().ok()).flatten()
        })
        .unwrap_or_else(|| panic!("no {series} in\n{}", a.body))
}

fn with_control(s: &mut EngineSettings) {
    s.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    s.control.token = Some(TOKEN.into());
    s.control.session_names.insert(1, "alpha".into());
}

fn cancel(s: &mut Strategy, orig: u64) -> u64 {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    cl
}

/// A resting buy (price below the empty book's) acknowledged New; its ClOrdID.
fn resting(s: &mut Strategy, price: &str) -> u64 {
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, price, "0.001");
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New), "{er:?}");
    cl
}

/// Reads until every order of `cls` was reported Canceled (other ExecutionReports are
/// skipped).
fn expect_canceled(s: &mut Strategy, cls: &[u64]) {
    let mut left: HashSet<u64> = cls.iter().copied().collect();
    while !left.is_empty() {
        let er = s.exec();
        if er.ord_status == OrdStatus::Canceled {
            left.remove(&er.cl_ord_id);
            left.remove(&er.orig_cl_ord_id);
        }
    }
}

#[test]
fn operator_lists_drains_resumes_and_kills() {
    let h = Harness::start_with(e2e::quiet_sim_config(), with_control);
    let addr = h.gateway().metrics_addr().expect("metrics listener on");
    let mut s1 = h.client(1);
    let mut s2 = h.client(2);
    let a1 = resting(&mut s1, "50000");
    let a2 = resting(&mut s1, "49999.5");
    let b1 = resting(&mut s2, "49000");

    // Authentication: no token, a wrong one.
    let a = http(addr, "GET", "/control/sessions", None, "");
    assert_eq!(a.status, 401, "{}", a.body);
    assert!(a.json::<ErrorJson>().error.contains("bearer token"));
    assert_eq!(
        http(addr, "GET", "/control/sessions", Some("wrong"), "").status,
        401
    );

    // The listing: every configured session, its orders with exact decimals.
    let list = sessions(addr);
    assert_eq!(list.sessions.len(), 8, "every configured session");
    let one = session(&list, 1);
    assert_eq!(one.name, "alpha");
    assert_eq!(one.account, "main");
    assert!(one.established && !one.draining && !one.kill_switch);
    let cls: Vec<&str> = one
        .open_orders
        .iter()
        .map(|o| o.cl_ord_id.as_str())
        .collect();
    assert_eq!(cls, [a1.to_string(), a2.to_string()]);
    let o = &one.open_orders[1];
    assert_eq!(o.price.as_deref().map(d), Some(d("49999.5")));
    assert_eq!(o.price.as_deref(), Some("49999.5"), "exact, not a float");
    assert_eq!(d(&o.order_qty), d("0.001"));
    assert_eq!(d(&o.cum_qty), d("0"));
    assert_eq!(d(&o.leaves_qty), d("0.001"));
    assert_eq!((o.side.as_str(), o.ord_status.as_str()), ("Buy", "New"));
    assert_eq!(o.symbol, "BTCUSDT");
    assert_eq!(o.client_oid, gateway::ids::ClientOid::new(1, a2).as_str());
    assert_ne!(o.order_id, "0", "the exchange's orderId is known");
    assert!(!session(&list, 3).established);
    assert_eq!(session(&list, 2).open_orders.len(), 1);

    // Drain session 1 (by name): new orders refused, single or listed; cancels pass.
    let a = control(
        addr,
        "POST",
        "/control/sessions/alpha/drain",
        "{\"cancel_open\": false}",
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let drained: DrainJson = a.json();
    assert!(drained.draining && !drained.cancel_open);
    assert_eq!((drained.session_id, drained.open_orders), (1, 2));
    let cl = s1.limit(Side::Buy, TimeInForce::Gtc, "48000", "0.001");
    let er = s1.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::Rejected));
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::BrokerOption));
    assert!(er.text.as_str().contains("draining"), "{:?}", er.text);
    let list_cl = s1.next_cl();
    s1.c.send_frame(|b| {
        NewOrderList {
            list_id: 77,
            transact_time: 0,
        }
        .encode_frame(
            [NewOrderListEntry {
                cl_ord_id: list_cl,
                price: Some(d("48000")),
                order_qty: d("0.001"),
                symbol: Symbol::new("BTCUSDT").unwrap(),
                category: Category::UsdtFutures,
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                pos_side: PosSide::None,
                reduce_only: BoolFlag::No,
                stp_mode: StpMode::None,
            }],
            b,
        )
        .expect("fits a frame");
    })
    .unwrap();
    let (mut list_er, mut list_status) = (None, false);
    while list_er.is_none() || !list_status {
        match s1.next_message() {
            Received::Exec(er) => list_er = Some(er),
            Received::ListStatus(ls, _) => list_status = ls.last_fragment == BoolFlag::Yes,
            other => panic!("unexpected {other:?}"),
        }
    }
    let er = list_er.unwrap();
    assert_eq!((er.cl_ord_id, er.exec_type), (list_cl, ExecType::Rejected));
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::BrokerOption));
    let cancel_cl = cancel(&mut s1, a1);
    let er = s1.exec();
    assert_eq!(
        (er.cl_ord_id, er.ord_status),
        (cancel_cl, OrdStatus::Canceled)
    );
    // The other session trades on.
    let b2 = resting(&mut s2, "48500");
    let list = sessions(addr);
    assert!(session(&list, 1).draining);
    assert_eq!(session(&list, 1).open_orders.len(), 1);
    assert!(!session(&list, 2).draining);
    assert_eq!(sample(addr, "bgw_sessions_draining"), 1.0);

    // Resume (by id): new orders pass again.
    let a = control(addr, "POST", "/control/sessions/1/resume", "");
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(!a.json::<DrainJson>().draining);
    let a3 = resting(&mut s1, "47000");
    assert_eq!(sample(addr, "bgw_sessions_draining"), 0.0);

    // Pull the account's kill switch: every open order ends Canceled, new orders refused.
    let a = control(
        addr,
        "POST",
        "/control/kill-switch",
        "{\"action\":\"pull\",\"account\":\"main\"}",
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let k: KillSwitchJson = a.json();
    assert_eq!((k.scope.as_str(), k.active), ("main", true));
    assert_eq!(k.canceled, 4, "{k:?}");
    assert!(k.errors.is_empty());
    expect_canceled(&mut s1, &[a2, a3]);
    expect_canceled(&mut s2, &[b1, b2]);
    s1.limit(Side::Buy, TimeInForce::Gtc, "47000", "0.001");
    let er = s1.exec();
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::KillSwitch));
    let list = sessions(addr);
    assert!(list
        .sessions
        .iter()
        .all(|s| s.kill_switch && s.open_orders.is_empty()));
    assert_eq!(sample(addr, "bgw_kill_switch_active{scope=\"main\"}"), 1.0);

    // Release: new orders pass.
    let a = control(
        addr,
        "POST",
        "/control/kill-switch",
        "{\"action\":\"release\"}",
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let k: KillSwitchJson = a.json();
    assert_eq!(
        (k.scope.as_str(), k.active, k.canceled),
        ("global", false, 0)
    );
    let b3 = resting(&mut s2, "46000");
    assert_eq!(sample(addr, "bgw_kill_switch_active{scope=\"main\"}"), 0.0);

    // Drain with cancel_open: the session's open orders are cancelled.
    let a = control(
        addr,
        "POST",
        "/control/sessions/2/drain",
        "{\"cancel_open\":true}",
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let drained: DrainJson = a.json();
    assert!(drained.cancel_open);
    assert_eq!(drained.open_orders, 1);
    expect_canceled(&mut s2, &[b3]);
    let _ = control(addr, "POST", "/control/sessions/2/resume", "");

    // Refusals: unknown names, bad bodies; the gateway answers on.
    let a = control(addr, "POST", "/control/sessions/nobody/drain", "{}");
    assert_eq!(a.status, 404, "{}", a.body);
    let a = control(
        addr,
        "POST",
        "/control/kill-switch",
        "{\"action\":\"pull\",\"account\":\"ghost\"}",
    );
    assert_eq!(a.status, 404, "{}", a.body);
    let a = control(addr, "POST", "/control/kill-switch", "{\"action\":");
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(a.json::<ErrorJson>().error.starts_with("bad JSON body"));
    assert!(!session(&sessions(addr), 1).kill_switch, "nothing pulled");

    // Every action counted.
    for (action, result, n) in [
        ("list", "ok", 4.0),
        ("list", "refused", 2.0),
        ("drain", "ok", 2.0),
        ("drain", "refused", 1.0),
        ("resume", "ok", 2.0),
        ("kill_switch_pull", "ok", 1.0),
        ("kill_switch_pull", "refused", 2.0),
        ("kill_switch_release", "ok", 1.0),
        ("kill_switch_release", "error", 0.0),
    ] {
        let series =
            format!("bgw_control_actions_total{{action=\"{action}\",result=\"{result}\"}}");
        assert_eq!(sample(addr, &series), n, "{series}");
    }
}

#[test]
fn without_a_token_the_surface_is_disabled() {
    let h = Harness::start_with(e2e::quiet_sim_config(), |s| {
        s.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
        s.control.token = None;
    });
    let addr = h.gateway().metrics_addr().expect("metrics listener on");
    let mut s1 = h.client(1);
    let cl = resting(&mut s1, "50000");
    for (method, path, body) in [
        ("GET", "/control/sessions", ""),
        ("POST", "/control/kill-switch", "{\"action\":\"pull\"}"),
        (
            "POST",
            "/control/sessions/1/drain",
            "{\"cancel_open\":true}",
        ),
    ] {
        let a = http(addr, method, path, Some(TOKEN), body);
        assert_eq!(a.status, 403, "{path}: {}", a.body);
        assert!(a.json::<ErrorJson>().error.contains("BGW_CONTROL_TOKEN"));
        assert_eq!(a.body.lines().count(), 1);
    }
    // Nothing happened: the order rests, new orders pass; the metrics stay open.
    let _ = cl;
    resting(&mut s1, "49000");
    assert_eq!(
        sample(
            addr,
            "bgw_control_actions_total{action=\"kill_switch_pull\",result=\"refused\"}"
        ),
        1.0
    );
    assert_eq!(http(addr, "GET", "/healthz", None, "").status, 200);
}
