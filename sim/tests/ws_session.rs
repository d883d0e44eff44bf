//! Login, ping/pong, subscribe, error handling, trade-op request ids, `msg` on success, plain
//! ws:// and REST over HTTPS.
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
    // Reference §1.3 [S3] `{"event":"error","code":30015,"msg":"Invalid sign"}`; every cause
    // is covered by `ws_login.rs::each_login_refusal_has_its_code_and_message_then_closes`.
    let v = c.recv().await;
    assert_eq!(v["event"], "error");
    assert_eq!(v["code"], 30015);
    assert_eq!(v["msg"], "Invalid sign");
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
    let v = c.recv().await;
    assert_eq!(v["code"], 30014, "{v}");
    assert_eq!(v["msg"], "Request timestamp expired");
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

/// A trade op needs a usable request `id`: reference §5.1 [P] "`id`: echoed in the reply; the
/// only correlation key (replies carry no clientOid on errors)"; the refusal uses the string
/// code of trade-op errors (§5.2 [L] `{"event":"error","id":..,"code":"41101",..}`) and the
/// parameter code `40017` "Parameter verification failed {0}" (§6.2 [P]). Missing, `null`,
/// boolean, object, array and empty-string ids are refused and nothing is applied: no order push
/// (the `pong` comes next), no order counted, `unfilled-orders` empty.
#[tokio::test]
async fn trade_op_without_a_usable_id_is_refused_and_not_applied() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let args = r#""category":"usdt-futures","topic":"place-order","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"noid-1"}]"#;
    let without_id = serde_json::json!({"event":"error","code":"40017","msg":"Parameter verification failed: id"});
    for id in [
        None,
        Some("null"),
        Some("true"),
        Some(r#"{"a":1}"#),
        Some("[1]"),
    ] {
        let frame = match id {
            None => format!(r#"{{"op":"trade",{args}}}"#),
            Some(id) => format!(r#"{{"op":"trade","id":{id},{args}}}"#),
        };
        let v = c.trade(&frame).await;
        assert_eq!(v, without_id, "{frame}");
        c.send("ping").await;
        assert_eq!(c.recv_text().await.as_deref(), Some("pong"), "{frame}");
    }
    let v = c
        .trade(&format!(r#"{{"op":"trade","id":"",{args}}}"#))
        .await;
    assert_eq!(
        v,
        serde_json::json!({"event":"error","id":"","code":"40017","msg":"Parameter verification failed: id"})
    );
    assert!(v["code"].is_string());
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    // Batches and cancels are refused the same way.
    let v = c
        .trade(r#"{"op":"trade","category":"usdt-futures","topic":"batch-place","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001"}]}"#)
        .await;
    assert_eq!(v, without_id);
    let v = c
        .trade(r#"{"op":"trade","topic":"cancel-order","args":[{"clientOid":"noid-1"}]}"#)
        .await;
    assert_eq!(v, without_id);
    let stats = h.stats();
    assert_eq!((stats.orders_received, stats.orders_placed), (0, 0));
    let (_, v) = common::signing::get(&h, "a", "/api/v3/trade/unfilled-orders", "").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0, "{v}");
    // A number id is usable and echoed as a number (§5.2 [P] `"id":1666268894074`).
    let v = c
        .trade(&format!(r#"{{"op":"trade","id":1666268894074,{args}}}"#))
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["id"], 1_666_268_894_074u64);
    assert_eq!(common::item(&c.recv().await)["clientOid"], "noid-1");
    assert_eq!(h.stats().orders_placed, 1);
    h.shutdown().await;
}

/// `(code, msg)` of a reply or an item, as JSON.
fn code_msg(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!([v["code"], v["msg"]])
}

/// `msg` on success: WS trade replies say `"Success"` as the live capture (reference §5.2 [L]
/// L1 2026-01 `..."code":"0","msg":"Success"...`, and the doc examples of cancel, modify,
/// batch-place and batch-cancel [P]; one doc place-order example says `"success"`), top level
/// and per batch item; the REST envelope and REST batch items say `"success"` as the doc
/// (§6.1 [P] `{"code":"00000","msg":"success",..}`).
#[tokio::test]
async fn success_msg_is_capitalised_on_ws_and_lowercase_on_rest() {
    use serde_json::json;
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    assert_eq!(c.login("a").await["code"], 0);
    let v = c
        .trade(&common::place(
            "s1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.001",
            "gtc",
            "ok-1",
        ))
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(code_msg(&v), json!(["0", "Success"]), "{v}");
    let v = c
        .trade(r#"{"op":"trade","id":"s2","category":"usdt-futures","topic":"batch-place","args":[
            {"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"ok-2"},
            {"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"ok-1"}]}"#)
        .await;
    assert_eq!(code_msg(&v), json!(["0", "Success"]), "{v}");
    assert_eq!(code_msg(&v["args"][0]), json!(["0", "Success"]), "{v}");
    assert_eq!(v["args"][1]["code"], "25212", "{v}");
    let v = c
        .trade(r#"{"op":"trade","id":"s3","topic":"cancel-order","args":[{"symbol":"BTCUSDT","clientOid":"ok-1"}]}"#)
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(code_msg(&v), json!(["0", "Success"]), "{v}");
    let v = c
        .trade(r#"{"op":"trade","id":"s4","topic":"batch-cancel","args":[{"symbol":"BTCUSDT","clientOid":"ok-2"}]}"#)
        .await;
    assert_eq!(code_msg(&v), json!(["0", "Success"]), "{v}");
    assert_eq!(code_msg(&v["args"][0]), json!(["0", "Success"]), "{v}");
    // REST: the envelope and the batch items.
    let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"rest-1"}"#;
    let (s, v) = common::signing::post(&h, "a", "/api/v3/trade/place-order", body).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(code_msg(&v), json!(["00000", "success"]), "{v}");
    let body = r#"[{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"rest-2"}]"#;
    let (_, v) = common::signing::post(&h, "a", "/api/v3/trade/place-batch", body).await;
    assert_eq!(code_msg(&v), json!(["00000", "success"]), "{v}");
    assert_eq!(code_msg(&v["data"][0]), json!(["00000", "success"]), "{v}");
    let body = r#"[{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"rest-2"}]"#;
    let (_, v) = common::signing::post(&h, "a", "/api/v3/trade/cancel-batch", body).await;
    assert_eq!(code_msg(&v), json!(["00000", "success"]), "{v}");
    assert_eq!(code_msg(&v["data"][0]), json!(["00000", "success"]), "{v}");
    h.shutdown().await;
}
