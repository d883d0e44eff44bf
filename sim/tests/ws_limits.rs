//! WebSocket limits (reference §2.3): inbound message rate, frame sizes (application limit,
//! subscribe frames ≤ 4096 bytes, transport limit), and tolerance of unknown keys in client
//! messages.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, Client};

#[tokio::test]
async fn the_message_limit_counts_pings_and_json_ops() {
    let mut cfg = common::config(true);
    cfg.max_msgs_per_s = 10;
    let h = sim::Sim::start(cfg).await.unwrap();
    // Exactly the limit: every frame is answered.
    let mut c = Client::connect(&h, false).await;
    for i in 0..10 {
        if i % 2 == 0 {
            c.send("ping").await;
        } else {
            c.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"}]}"#).await;
        }
    }
    let mut answers = 0;
    while answers < 10 {
        let t = c.recv_text().await.expect("open");
        if t == "pong" || t.contains("\"event\":\"subscribe\"") {
            answers += 1;
        } else {
            assert!(!t.contains("30007"), "{t}");
        }
    }
    // Over the limit with JSON ops and pings mixed: 30007, then closed.
    let mut c = Client::connect(&h, false).await;
    for i in 0..25 {
        if i % 2 == 0 {
            c.send("ping").await;
        } else {
            c.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"}]}"#).await;
        }
    }
    let mut refused = false;
    while let Some(t) = c.recv_text().await {
        if t.contains("\"code\":30007") {
            refused = true;
        }
    }
    assert!(refused);
    assert_eq!(h.stats().msg_limit_closes, 1);
    h.shutdown().await;
}

#[tokio::test]
async fn unknown_keys_are_ignored_in_login_subscribe_and_trade() {
    let h = common::start(true).await;
    let mut c = Client::connect(&h, true).await;
    let ts = (sim::now_ms() / 1000).to_string();
    let sign = sim::auth::sign("secret-a", &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","reqId":"r1","extra":{{"x":1}},"args":[{{"apiKey":"key-a","passphrase":"pass-a","timestamp":"{ts}","sign":"{sign}","recvWindow":5000,"whatever":null}}]}}"#
    ))
    .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "login", "{v}");
    assert_eq!(v["code"], 0);
    c.send(r#"{"op":"subscribe","id":"s1","foo":"bar","args":[{"instType":"UTA","topic":"order","unknown":true}]}"#)
        .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "subscribe", "{v}");
    let v = c
        .trade(r#"{"op":"trade","id":"t1","category":"usdt-futures","topic":"place-order","requestTime":"1","apiCode":"x","unknownTop":[1,2],"args":[{"orderType":"limit","price":"50000","qty":"0.001","side":"buy","symbol":"BTCUSDT","clientOid":"uk-1","receiveWindow":"5000","notAField":{"a":1}}]}"#)
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["code"], "0");
    let push = c.recv().await;
    assert_eq!(item(&push)["clientOid"], "uk-1");
    assert_eq!(item(&push)["orderStatus"], "live");
    h.shutdown().await;
}

/// Application frame limit of the simulator (`ws.rs` `MAX_REQUEST_BYTES`, 64 KiB).
const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// A place-order frame of exactly `len` bytes (padded with an unknown top-level key, which the
/// simulator ignores) with request id `id` (JSON as written).
fn padded_trade(id: &str, oid: &str, len: usize) -> String {
    let head = format!(
        r#"{{"op":"trade","id":{id},"category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"{oid}"}}],"pad":""#
    );
    let pad = len - head.len() - 2;
    let frame = format!("{head}{}\"}}", "x".repeat(pad));
    assert_eq!(frame.len(), len);
    frame
}

/// Frames over the application limit: the reference gives no size limit for trade frames
/// (§2.3 [P2] bounds only subscribe frames), so the simulator answers any frame over 64 KiB
/// with a control error — `30002` "illegal request" (§1.4 [S3 ccxt map]; the frame is refused
/// whole, before any parameter is read) — echoing the `id` of a trade op (§5.1 [P]: the id is
/// the only correlation key), applies nothing and keeps the connection: `ping` still gets
/// `pong` (§2.2 [P]) and a normal order is accepted. Exactly 64 KiB is interpreted.
#[tokio::test]
async fn an_oversized_trade_frame_is_refused_and_the_connection_stays_usable() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let msg = format!("Illegal request: frame over {MAX_REQUEST_BYTES} bytes");
    // 100 KiB trade frame with a string id.
    let v = c
        .trade(&padded_trade(r#""big-1""#, "big-1", 100 * 1024))
        .await;
    assert_eq!(
        v,
        serde_json::json!({"event":"error","id":"big-1","code":30002,"msg":msg})
    );
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    // One byte over the limit, numeric id: refused, id echoed as a number.
    let v = c
        .trade(&padded_trade("77", "big-2", MAX_REQUEST_BYTES + 1))
        .await;
    assert_eq!(
        v,
        serde_json::json!({"event":"error","id":77,"code":30002,"msg":msg})
    );
    // 2 MB (below the transport limit): refused the same way, connection kept.
    let v = c
        .trade(&padded_trade(r#""big-3""#, "big-3", 2_000_000))
        .await;
    assert_eq!(v["code"], 30002, "{v}");
    assert_eq!(v["id"], "big-3");
    // Not a trade op / not JSON: no id.
    c.send(&format!(
        r#"{{"op":"subscribe","id":"s","args":[],"pad":"{}"}}"#,
        "x".repeat(MAX_REQUEST_BYTES)
    ))
    .await;
    assert_eq!(
        c.recv().await,
        serde_json::json!({"event":"error","code":30002,"msg":msg})
    );
    c.send(&"y".repeat(MAX_REQUEST_BYTES + 1)).await;
    assert_eq!(
        c.recv().await,
        serde_json::json!({"event":"error","code":30002,"msg":msg})
    );
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    // Nothing was applied.
    let stats = h.stats();
    assert_eq!((stats.orders_received, stats.orders_placed), (0, 0));
    // Exactly the limit is interpreted: reply, then the order push.
    let v = c
        .trade(&padded_trade(r#""edge""#, "edge-1", MAX_REQUEST_BYTES))
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["code"], "0");
    assert_eq!(item(&c.recv().await)["clientOid"], "edge-1");
    // A normal order on the same connection.
    let v = c
        .trade(&common::place(
            "n1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.001",
            "gtc",
            "normal-1",
        ))
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["id"], "n1");
    let push = c.recv().await;
    assert_eq!(item(&push)["clientOid"], "normal-1");
    assert_eq!(item(&push)["orderStatus"], "live");
    assert_eq!(h.stats().orders_placed, 2);
    assert_eq!(h.stats().ws_connections, 1);
    h.shutdown().await;
}

/// A subscribe frame of `len` bytes for `books5` BTCUSDT (usdt-futures), padded inside the arg
/// with an unknown key.
fn padded_subscribe(op: &str, len: usize) -> String {
    let head = format!(
        r#"{{"op":"{op}","args":[{{"instType":"usdt-futures","topic":"books5","symbol":"BTCUSDT","pad":""#
    );
    let pad = len - head.len() - 4;
    let frame = format!("{head}{}\"}}]}}", "x".repeat(pad));
    assert_eq!(frame.len(), len);
    frame
}

/// Subscribe frame size: reference §2.3 [P2] "all channels in one request ≤ 4096 bytes". A
/// `subscribe` / `unsubscribe` frame over 4096 bytes answers `30016` "param error" (§1.4 [S3
/// ccxt map]: the channel list — a parameter — is too long; the simulator already answers
/// `30016` for a subscribe without `args`), (un)subscribes nothing and keeps the connection.
/// The simulator measures the whole frame; exactly 4096 bytes is accepted.
#[tokio::test]
async fn a_subscribe_frame_over_4096_bytes_is_refused_and_the_connection_stays_open() {
    let h = common::start(true).await;
    let mut c = Client::connect(&h, false).await;
    // 5 KB of channels: 80 ticker channels.
    let one = r#"{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"}"#;
    let frame = format!(
        r#"{{"op":"subscribe","args":[{}]}}"#,
        vec![one; 80].join(",")
    );
    assert!(frame.len() > 5000 && frame.len() < 6000);
    c.send(&frame).await;
    assert_eq!(
        c.recv().await,
        serde_json::json!({"event":"error","code":30016,"msg":"Param error: subscribe request over 4096 bytes"})
    );
    // books5 one byte over: refused, no ack, no snapshot — the pong comes next.
    c.send(&padded_subscribe("subscribe", 4097)).await;
    assert_eq!(c.recv().await["code"], 30016);
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    // Exactly 4096 bytes: ack, then the books5 snapshot.
    c.send(&padded_subscribe("subscribe", 4096)).await;
    let v = c.recv().await;
    assert_eq!(v["event"], "subscribe", "{v}");
    assert_eq!(v["arg"]["topic"], "books5");
    let v = c.recv().await;
    assert_eq!(v["arg"]["topic"], "books5", "{v}");
    assert_eq!(v["action"], "snapshot", "{v}");
    // Unsubscribe over the limit: refused the same way.
    c.send(&padded_subscribe("unsubscribe", 4097)).await;
    assert_eq!(
        c.recv().await,
        serde_json::json!({"event":"error","code":30016,"msg":"Param error: unsubscribe request over 4096 bytes"})
    );
    c.send(&padded_subscribe("unsubscribe", 4096)).await;
    assert_eq!(c.recv().await["event"], "unsubscribe");
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    h.shutdown().await;
}

/// Above the transport limit (`server.rs` `WS_MAX_MESSAGE_BYTES`, 4 MiB: tungstenite's
/// `max_message_size` / `max_frame_size`) the frame never reaches the application: the
/// connection ends (close code 1009 "message too big" when the close frame gets through)
/// without an error frame.
#[tokio::test]
async fn a_frame_above_the_transport_limit_closes_the_connection() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let h = common::start(true).await;
    let connector = tokio_tungstenite::Connector::Rustls(common::client_tls(&h.ca_cert_pem()));
    let (mut ws, _) = tokio_tungstenite::connect_async_tls_with_config(
        h.ws_private_url(),
        None,
        true,
        Some(connector),
    )
    .await
    .unwrap();
    // The server may hang up while the frame is still being written.
    let _ = ws
        .send(Message::text(padded_trade(
            r#""huge""#,
            "huge-1",
            5 * 1024 * 1024,
        )))
        .await;
    loop {
        let next = tokio::time::timeout(std::time::Duration::from_secs(10), ws.next())
            .await
            .expect("the connection ends within the guard time");
        match next {
            Some(Ok(Message::Text(t))) => panic!("no frame expected, got {t}"),
            Some(Ok(Message::Close(frame))) => {
                if let Some(f) = frame {
                    assert_eq!(u16::from(f.code), 1009, "{f:?}");
                }
                break;
            }
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => break,
        }
    }
    assert_eq!(h.stats().orders_received, 0);
    h.shutdown().await;
}
