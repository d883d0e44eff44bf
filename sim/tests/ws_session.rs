//! Login, ping/pong, subscribe, error handling, plain ws:// and REST over HTTPS.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::{start, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn login_ping_subscribe() {
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    let v = c.login("a").await;
    assert_eq!(v["event"], "login");
    assert_eq!(v["code"], 0);
    assert!(v["connId"].is_string());
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"}]}"#)
        .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "subscribe");
    assert_eq!(v["arg"]["instType"], "UTA");
    assert_eq!(v["arg"]["topic"], "order");
    assert_eq!(v["code"], 0);
    c.send(r#"{"op":"unsubscribe","args":[{"instType":"UTA","topic":"order"}]}"#)
        .await;
    assert_eq!(c.recv().await["event"], "unsubscribe");
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"nope"}]}"#)
        .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "error");
    assert_eq!(v["code"], 30001);
    assert_eq!(h.stats().ws_connections, 1);
    h.shutdown().await;
}

#[tokio::test]
async fn login_with_ms_number_timestamp() {
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    let ts = sim::now_ms();
    let sign = sim::auth::sign("secret-b", &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","args":[{{"apiKey":"key-b","passphrase":"pass-b","timestamp":{ts},"sign":"{sign}"}}]}}"#
    ))
    .await;
    assert_eq!(c.recv().await["event"], "login");
    h.shutdown().await;
}

#[tokio::test]
async fn bad_login_is_refused_and_closed() {
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    let ts = (sim::now_ms() / 1000).to_string();
    let sign = sim::auth::sign("wrong-secret", &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","args":[{{"apiKey":"key-a","passphrase":"pass-a","timestamp":"{ts}","sign":"{sign}"}}]}}"#
    ))
    .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "error");
    assert_eq!(v["code"], 30005);
    assert_eq!(
        c.recv_text().await,
        None,
        "connection closed after a failed login"
    );

    // Expired timestamp (seconds, 60 s old) is refused too.
    let mut c = Client::connect(&h, true).await;
    let ts = (sim::now_ms() / 1000 - 60).to_string();
    let sign = sim::auth::sign("secret-a", &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","args":[{{"apiKey":"key-a","passphrase":"pass-a","timestamp":"{ts}","sign":"{sign}"}}]}}"#
    ))
    .await;
    assert_eq!(c.recv().await["code"], 30005);
    assert_eq!(c.recv_text().await, None);
    h.shutdown().await;
}

#[tokio::test]
async fn trade_before_login_malformed_and_unknown_op() {
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    let v = c
        .trade(&common::place(
            "t1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.01",
            "gtc",
            "x1",
        ))
        .await;
    assert_eq!(v["event"], "error");
    assert_eq!(v["code"], 30004);
    assert_eq!(v["id"], "t1");
    c.send("{not json").await;
    assert_eq!(c.recv().await["code"], 30002);
    c.send(r#"{"op":"dance"}"#).await;
    assert_eq!(c.recv().await["code"], 30003);
    c.send(r#"[1,2,3]"#).await;
    assert_eq!(c.recv().await["code"], 30002);
    // Still usable.
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    h.shutdown().await;
}

#[tokio::test]
async fn plain_ws_when_tls_is_off() {
    let h = start(false).await;
    assert!(h.ws_private_url().starts_with("ws://"));
    assert!(h.rest_url().starts_with("http://"));
    let mut c = Client::connect(&h, true).await;
    assert_eq!(c.login("a").await["event"], "login");
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    let mut p = Client::connect(&h, false).await;
    p.send("ping").await;
    assert_eq!(p.recv_text().await.as_deref(), Some("pong"));
    h.shutdown().await;
}

/// A raw HTTP/1.1 GET over tokio-rustls trusting the simulator's certificate.
async fn https_get(h: &sim::SimHandle, path: &str) -> (String, serde_json::Value) {
    let cfg = common::client_tls(&h.ca_cert_pem());
    let connector = tokio_rustls::TlsConnector::from(Arc::clone(&cfg));
    let tcp = tokio::net::TcpStream::connect(h.local_addr())
        .await
        .unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    tls.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    // The server closes after the response (Connection: close); a missing close_notify is fine.
    let _ = tls.read_to_end(&mut buf).await;
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_string();
    // Body may be chunked; the JSON is the part between the first '{' and the last '}'.
    let start = body.find('{').unwrap();
    let end = body.rfind('}').unwrap();
    (status, serde_json::from_str(&body[start..=end]).unwrap())
}

#[tokio::test]
async fn instruments_over_https() {
    let h = start(true).await;
    let (status, v) = https_get(&h, "/api/v3/market/instruments?category=USDT-FUTURES").await;
    assert!(status.contains("200"), "{status}");
    assert_eq!(v["code"], "00000");
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    let btc = data.iter().find(|i| i["symbol"] == "BTCUSDT").unwrap();
    assert_eq!(btc["category"], "USDT-FUTURES");
    assert_eq!(btc["priceMultiplier"], "0.1");
    assert_eq!(btc["quantityMultiplier"], "0.0001");
    assert_eq!(btc["minOrderAmount"], "5");
    assert_eq!(btc["takerFeeRate"], "0.0006");
    assert_eq!(btc["pricePrecision"], "1");
    // Every value a string, as on the wire.
    assert!(btc.as_object().unwrap().values().all(|x| x.is_string()));
    // Same fields as the fixture, all strings; envelope types as in the fixture.
    let want: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/tests/fixtures/rest_instruments_usdt_futures.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    for (k, wv) in want["data"][0].as_object().unwrap() {
        assert!(btc[k].is_string() && wv.is_string(), "field {k}");
    }
    assert!(v["code"].is_string() && v["msg"].is_string() && v["requestTime"].is_u64());
    let (_, v) = https_get(
        &h,
        "/api/v3/public/instruments?category=spot&symbol=ETHUSDT",
    )
    .await;
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), 1);
    assert_eq!(data[0]["category"], "SPOT");
    let (_, v) = https_get(&h, "/api/v3/public/time").await;
    assert!(v["data"]["serverTime"].is_string());
    h.shutdown().await;
}

#[tokio::test]
async fn public_depth_snapshots() {
    let h = start(true).await;
    let mut p = Client::connect(&h, false).await;
    p.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"books5","symbol":"BTCUSDT"}]}"#)
        .await;
    let ack = p.recv().await;
    assert_eq!(ack["event"], "subscribe");
    assert_eq!(ack["arg"]["topic"], "books5");
    let snap = p.recv().await;
    assert_eq!(snap["action"], "snapshot");
    assert_eq!(snap["arg"]["symbol"], "BTCUSDT");
    let d = &snap["data"][0];
    assert_eq!(d["a"].as_array().unwrap().len(), 5);
    assert_eq!(d["a"][0], serde_json::json!(["60000.5", "0.5"]));
    assert_eq!(d["b"][0], serde_json::json!(["59999.5", "0.5"]));
    assert_eq!(d["b"][1], serde_json::json!(["59999", "0.5"]));
    assert!(d["seq"].is_u64() && d["ts"].is_string() && snap["ts"].is_u64());
    // Unknown symbol → 30001.
    p.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"books5","symbol":"NOPE"}]}"#)
        .await;
    loop {
        let v = p.recv().await;
        if v["event"] == "error" {
            assert_eq!(v["code"], 30001);
            break;
        }
    }
    // REST order book: numbers inside the arrays.
    let (status, v) = https_get(
        &h,
        "/api/v3/market/orderbook?category=USDT-FUTURES&symbol=BTCUSDT&limit=3",
    )
    .await;
    assert!(status.contains("200"), "{status}");
    assert_eq!(v["data"]["a"].as_array().unwrap().len(), 3);
    assert_eq!(v["data"]["a"][0][0].as_f64(), Some(60000.5));
    assert_eq!(v["data"]["b"][0][0].as_f64(), Some(59999.5));
    h.shutdown().await;
}

#[tokio::test]
async fn idle_connection_is_closed() {
    let mut cfg = common::config(false);
    cfg.idle_timeout_s = 1;
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut c = Client::connect(&h, true).await;
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    // Nothing more is sent: the server closes the connection (within the client's guard).
    assert_eq!(c.recv_text().await, None);
    h.shutdown().await;
}

#[tokio::test]
async fn over_the_message_limit_is_refused_and_closed() {
    let mut cfg = common::config(true);
    cfg.max_msgs_per_s = 3;
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut c = Client::connect(&h, true).await;
    // 7 frames: even if a one-second window rolls over in between, one window sees more than 3.
    for _ in 0..7 {
        c.send("ping").await;
    }
    let mut pongs = 0;
    let mut refused = false;
    loop {
        match c.recv_text().await {
            Some(t) if t == "pong" => pongs += 1,
            Some(t) => {
                let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                assert_eq!(v["code"], 30007);
                refused = true;
            }
            None => break,
        }
    }
    assert!(refused);
    assert!((3..=6).contains(&pongs), "{pongs}");
    h.shutdown().await;
}
