//! Request size limits and one error code per situation across the REST endpoints, over real
//! TLS sockets (issue 13 item 6).
//!
//! - Size: a body above 64 KiB → HTTP 413, a query above 8 KiB → HTTP 414, a body that is not
//!   UTF-8 → HTTP 400, each with the Bitget envelope (reference §6.1) and code `40017`
//!   ("Parameter verification failed", reference §6.2 [P]; the reference has no size code),
//!   before the signature is checked and without applying anything. WebSocket: the transport
//!   limit (4 MiB) lets a 2 MB frame through to the application and ends the connection above
//!   it.
//! - Codes (reference §6.2 [P], live capture [L] for `41101`): a missing required parameter or
//!   a malformed value → `40017` `Parameter verification failed: <name>`; a present value that
//!   is not accepted (`category`, `posSide`, `holdMode`, `side`) → `41101`
//!   `Param <name>=<value> error`; a symbol that is no instrument → `25100`
//!   `trading pair <symbol> does not exist`; all HTTP 400 with `data: null`.
//! - Authentication (reference §1.1, §6.2): each REST auth failure has its own code, nothing
//!   applied.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::signing::{get, post};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use sim::SimHandle;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// The REST body limit of the simulator (`rest::reply::MAX_BODY_BYTES`).
const MAX_BODY: usize = 64 * 1024;
/// The REST query limit of the simulator (`rest::reply::MAX_QUERY_BYTES`).
const MAX_QUERY: usize = 8 * 1024;

const PLACE: &str = "/api/v3/trade/place-order";
const BATCH: &str = "/api/v3/trade/place-batch";
const CANCEL_SYMBOL: &str = "/api/v3/trade/cancel-symbol-order";
const UNFILLED: &str = "/api/v3/trade/unfilled-orders";
const HISTORY: &str = "/api/v3/trade/history-orders";
const FILLS: &str = "/api/v3/trade/fills";
const POSITION: &str = "/api/v3/position/current-position";
const RECORDS: &str = "/api/v3/account/financial-records";
const MAX_OPEN: &str = "/api/v3/account/max-open-available";
const LEVERAGE: &str = "/api/v3/account/set-leverage";
const HOLD_MODE: &str = "/api/v3/account/set-hold-mode";

/// A resting usdt-futures limit buy with `extra` JSON members appended (`""` for none).
fn buy(oid: &str, extra: &str) -> String {
    format!(
        r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","timeInForce":"gtc","clientOid":"{oid}"{extra}}}"#
    )
}

/// `buy(oid)` padded with an ignored `"pad"` member to exactly `len` bytes.
fn buy_of_len(oid: &str, len: usize) -> String {
    let bare = buy(oid, r#","pad":"""#).len();
    let body = buy(oid, &format!(r#","pad":"{}""#, "x".repeat(len - bare)));
    assert_eq!(body.len(), len);
    body
}

/// The `ACCESS-*` headers of account `n` over `prehash` (timestamp now).
fn signed_headers(n: &str, method: &str, path_and_query: &str, body: &[u8]) -> String {
    let ts = sim::now_ms();
    let prehash = format!(
        "{ts}{method}{path_and_query}{}",
        String::from_utf8_lossy(body)
    );
    let sign = sim::auth::sign(&format!("secret-{n}"), &prehash);
    format!(
        "ACCESS-KEY: key-{n}\r\nACCESS-SIGN: {sign}\r\nACCESS-TIMESTAMP: {ts}\r\nACCESS-PASSPHRASE: pass-{n}\r\n"
    )
}

/// One HTTP/1.1 request over TLS whose body is written while the answer is read (the
/// simulator answers an oversize body without reading it, then closes): `head` is the request
/// line and headers without the blank line, `chunked` sends the body with
/// `Transfer-Encoding: chunked` instead of `Content-Length`. Returns (status, response head,
/// JSON body).
async fn raw(h: &SimHandle, head: &str, body: Vec<u8>, chunked: bool) -> (u16, String, Value) {
    let connector = tokio_rustls::TlsConnector::from(common::client_tls(&h.ca_cert_pem()));
    let tcp = TcpStream::connect(h.local_addr()).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, tcp).await.unwrap();
    let (mut rd, mut wr) = tokio::io::split(tls);
    let mut req = format!("{head}Host: localhost\r\nConnection: close\r\n");
    if chunked {
        req.push_str("Transfer-Encoding: chunked\r\n\r\n");
    } else {
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    }
    let writer = tokio::spawn(async move {
        // Write errors are expected once the simulator has answered and closed.
        if wr.write_all(req.as_bytes()).await.is_err() {
            return;
        }
        if chunked {
            for chunk in body.chunks(16 * 1024) {
                let framed = [
                    format!("{:x}\r\n", chunk.len()).into_bytes(),
                    chunk.to_vec(),
                    b"\r\n".to_vec(),
                ]
                .concat();
                if wr.write_all(&framed).await.is_err() {
                    return;
                }
            }
            let _ = wr.write_all(b"0\r\n\r\n").await;
        } else {
            let _ = wr.write_all(&body).await;
        }
        let _ = wr.flush().await;
    });
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), rd.read_to_end(&mut buf))
        .await
        .expect("answer within 10 s");
    writer.abort();
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let start = body.find('{').expect("a JSON body");
    let end = body.rfind('}').unwrap();
    (
        status,
        head.to_ascii_lowercase(),
        serde_json::from_str(&body[start..=end]).unwrap(),
    )
}

/// Asserts the Bitget error envelope: `status`, string `code`, `msg`, numeric `requestTime`,
/// `data: null`.
fn assert_envelope(got: (u16, &Value), status: u16, code: &str, msg: &str) {
    let (s, v) = got;
    assert_eq!(s, status, "{v}");
    assert_eq!(v["code"], code, "{v}");
    assert_eq!(v["msg"], msg, "{v}");
    assert!(v["requestTime"].is_u64(), "{v}");
    assert_eq!(v["data"], Value::Null, "{v}");
}

async fn open_orders(h: &SimHandle) -> usize {
    let (s, v) = get(h, "a", UNFILLED, "").await;
    assert_eq!(s, 200, "{v}");
    v["data"]["list"].as_array().unwrap().len()
}

fn body_msg() -> String {
    format!("Parameter verification failed: request body larger than {MAX_BODY} bytes")
}

/// No size is documented (reference §6.2 has no size code; §7 bounds batches to 20 items,
/// about 6 KiB): the simulator takes bodies up to 64 KiB and answers a larger one, correctly
/// signed, with HTTP 413 and the §6.1 envelope carrying `40017` ("Parameter verification
/// failed", §6.2 [P]) — announced by `Content-Length` or counted in a chunked body — and
/// applies nothing; exactly 64 KiB is still taken.
#[tokio::test]
async fn an_oversize_signed_body_gets_413_40017_and_nothing_is_applied() {
    let h = common::start(true).await;
    // 2 MB, announced by Content-Length, on place-order and place-batch.
    let big = buy_of_len("big1", 2_000_000);
    for (path, body) in [(PLACE, big.clone()), (BATCH, format!("[{big}]"))] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\n{}",
            signed_headers("a", "POST", path, body.as_bytes())
        );
        let (s, resp_head, v) = raw(&h, &head, body.into_bytes(), false).await;
        assert_envelope((s, &v), 413, "40017", &body_msg());
        assert!(resp_head.contains("connection: close"), "{resp_head}");
        assert!(resp_head.contains("application/json"), "{resp_head}");
    }
    // One byte over the limit, chunked (no Content-Length to refuse it by).
    let body = buy_of_len("big2", MAX_BODY + 1);
    let head = format!(
        "POST {PLACE} HTTP/1.1\r\nContent-Type: application/json\r\n{}",
        signed_headers("a", "POST", PLACE, body.as_bytes())
    );
    let (s, _, v) = raw(&h, &head, body.into_bytes(), true).await;
    assert_envelope((s, &v), 413, "40017", &body_msg());
    assert_eq!(open_orders(&h).await, 0);
    // Exactly the limit is taken (the padding member is ignored like any unknown key).
    let (s, v) = post(&h, "a", PLACE, &buy_of_len("fits", MAX_BODY)).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"), "{v}");
    assert_eq!(open_orders(&h).await, 1);
    h.shutdown().await;
}

/// The size bound is one rule for every route (reference §6.1 envelope, §6.2 `40017`): a
/// public GET with a 2 MB body, an unknown path with one, and a request without any
/// signature all get the same HTTP 413 `40017` — size is checked before the signature
/// (§1.1) and before routing; a body that is not UTF-8 gets HTTP 400 `40017` (the handlers
/// read JSON text) instead of a plain-text rejection.
#[tokio::test]
async fn an_oversize_body_gets_the_same_answer_on_public_unknown_and_unsigned_requests() {
    let h = common::start(true).await;
    let body = vec![b'x'; 2_000_000];
    for head in [
        "GET /api/v3/market/instruments?category=USDT-FUTURES HTTP/1.1\r\n",
        "GET /api/v3/public/time HTTP/1.1\r\n",
        "POST /api/v3/nope HTTP/1.1\r\n",
        "POST /api/v3/trade/place-order HTTP/1.1\r\n",
    ] {
        let (s, _, v) = raw(&h, head, body.clone(), false).await;
        assert_envelope((s, &v), 413, "40017", &body_msg());
    }
    let (s, _, v) = raw(
        &h,
        "POST /api/v3/trade/place-order HTTP/1.1\r\n",
        vec![0xff, 0xfe, b'{'],
        false,
    )
    .await;
    assert_envelope(
        (s, &v),
        400,
        "40017",
        "Parameter verification failed: body is not UTF-8",
    );
    assert_eq!(open_orders(&h).await, 0);
    h.shutdown().await;
}

/// Every GET of reference §7 takes a few short parameters; a query string above 8 KiB gets
/// HTTP 414 with the §6.1 envelope and `40017` (§6.2), public or signed; 8 KiB is still read.
#[tokio::test]
async fn an_oversize_query_gets_414_40017() {
    let h = common::start(true).await;
    let msg = format!("Parameter verification failed: query string longer than {MAX_QUERY} bytes");
    let base = "category=USDT-FUTURES&pad=";
    let long = format!("{base}{}", "x".repeat(MAX_QUERY + 1 - base.len()));
    let (s, _, v) = raw(
        &h,
        &format!("GET /api/v3/market/tickers?{long} HTTP/1.1\r\n"),
        Vec::new(),
        false,
    )
    .await;
    assert_envelope((s, &v), 414, "40017", &msg);
    let (s, v) = get(&h, "a", UNFILLED, &long).await;
    assert_envelope((s, &v), 414, "40017", &msg);
    let fits = &long[..MAX_QUERY];
    let (s, v) = get(&h, "a", UNFILLED, fits).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"), "{v}");
    h.shutdown().await;
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A public WebSocket connection to `h` (whose sends are not unwrapped: the simulator may close
/// mid-frame).
async fn ws_connect(h: &SimHandle) -> Ws {
    let connector = tokio_tungstenite::Connector::Rustls(common::client_tls(&h.ca_cert_pem()));
    let (ws, _) = tokio_tungstenite::connect_async_tls_with_config(
        h.ws_public_url(),
        None,
        true,
        Some(connector),
    )
    .await
    .expect("ws connect");
    ws
}

/// The next text frame; `None` once the connection is closed or broken.
async fn next_text(ws: &mut Ws) -> Option<String> {
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), ws.next())
            .await
            .expect("frame or close within 10 s")
        {
            Some(Ok(Message::Text(t))) => return Some(t.to_string()),
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
            Some(Ok(_)) => continue,
        }
    }
}

/// The WebSocket transport limit is 4 MiB (`server.rs`): a 2 MB text frame reaches the
/// application, which answers it and keeps the connection (reference §2.3 gives no frame
/// limit for trade ops), and a frame above 4 MiB ends the connection.
#[tokio::test]
async fn a_2mb_ws_frame_reaches_the_application_and_above_4mib_the_connection_ends() {
    let h = common::start(true).await;
    let mut ws = ws_connect(&h).await;
    let frame = format!(r#"{{"op":"subscribe","pad":"{}"}}"#, "x".repeat(2_000_000));
    ws.send(Message::text(frame)).await.unwrap();
    ws.send(Message::text("ping")).await.unwrap();
    let mut answers = Vec::new();
    loop {
        let t = next_text(&mut ws).await.expect("connection still open");
        if t == "pong" {
            break;
        }
        answers.push(t);
    }
    assert_eq!(
        answers.len(),
        1,
        "one answer to the 2 MB frame: {answers:?}"
    );
    assert!(answers[0].contains("\"event\":\"error\""), "{answers:?}");

    let mut ws = ws_connect(&h).await;
    let _ = ws
        .send(Message::text("x".repeat(4 * 1024 * 1024 + 1)))
        .await;
    let _ = ws.send(Message::text("ping")).await;
    loop {
        match next_text(&mut ws).await {
            None => break,
            Some(t) => assert_ne!(t, "pong", "the connection must have ended"),
        }
    }
    h.shutdown().await;
}

/// The message of a present but unaccepted value (reference §6.2 `41101` "Param {0} error"
/// [P3]; live text `Param category=USDT-FUTURES error` [L]).
fn bad_category(v: &str) -> String {
    format!("Param category={v} error")
}

/// Reference §6.2: `41101` "Param {0} error" [P3], live `Param category=USDT-FUTURES error`
/// for a category the service does not take [L]; §7 lists `category` on place-order,
/// place-batch, cancel-symbol-order, unfilled-orders, history-orders, fills, instruments,
/// orderbook, current-position, set-leverage, max-open-available, and the tickers endpoint
/// takes it too. A category that is no category answers HTTP 400 `41101`
/// `Param category=<value> error` on every one of them (was `40017` on the queries), and
/// nothing is applied.
#[tokio::test]
async fn an_unknown_category_gets_41101_on_every_endpoint() {
    let h = common::start(true).await;
    let nope = "PERPS";
    let msg = bad_category(nope);
    let body = |extra: &str| format!(r#"{{"category":"{nope}","symbol":"BTCUSDT"{extra}}}"#);
    let posts = [
        (
            PLACE,
            body(r#","side":"buy","orderType":"limit","price":"50000","qty":"0.001""#),
        ),
        (
            BATCH,
            format!(
                "[{}]",
                body(r#","side":"buy","orderType":"limit","price":"50000","qty":"0.001""#)
            ),
        ),
        (CANCEL_SYMBOL, body("")),
        (MAX_OPEN, body(r#","orderType":"limit","side":"buy""#)),
        (LEVERAGE, body(r#","leverage":"5""#)),
    ];
    for (path, b) in &posts {
        let (s, v) = post(&h, "a", path, b).await;
        assert_envelope((s, &v), 400, "41101", &msg);
    }
    // A non-string category is no category either.
    let (s, v) = post(&h, "a", CANCEL_SYMBOL, r#"{"category":7}"#).await;
    assert_envelope((s, &v), 400, "41101", &bad_category("7"));
    let (s, v) = post(&h, "a", PLACE, r#"{"category":7,"symbol":"BTCUSDT"}"#).await;
    assert_envelope((s, &v), 400, "41101", &bad_category("7"));
    let q = format!("category={nope}");
    for path in [UNFILLED, HISTORY, FILLS, POSITION, RECORDS] {
        let (s, v) = get(&h, "a", path, &q).await;
        assert_envelope((s, &v), 400, "41101", &msg);
    }
    for path in [
        "/api/v3/market/instruments",
        "/api/v3/public/instruments",
        "/api/v3/market/tickers",
        "/api/v3/market/orderbook",
    ] {
        let (s, v) = get(&h, "a", path, &format!("{q}&symbol=BTCUSDT")).await;
        assert_envelope((s, &v), 400, "41101", &msg);
    }
    // A category the endpoint does not serve is an unaccepted value too (current-position
    // is futures only, §7).
    let (s, v) = get(&h, "a", POSITION, "category=SPOT").await;
    assert_envelope((s, &v), 400, "41101", &bad_category("SPOT"));
    assert_eq!(open_orders(&h).await, 0);
    h.shutdown().await;
}

/// Reference §6.2 `40017` "Parameter verification failed {0}" [P]; §7 marks `category` required
/// on place-order, cancel-symbol-order, history-orders, instruments-style market queries
/// (orderbook, tickers), current-position, set-leverage, max-open-available. Missing — absent,
/// `null` or empty — it answers HTTP 400 `40017` `Parameter verification failed: category`
/// everywhere; where it is optional (unfilled-orders, fills, instruments, financial-records)
/// an empty value lists every category.
#[tokio::test]
async fn a_missing_category_gets_40017_where_it_is_required() {
    let h = common::start(true).await;
    let msg = "Parameter verification failed: category";
    for (path, b) in [
        (
            PLACE,
            r#"{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001"}"#,
        ),
        (
            PLACE,
            r#"{"category":"","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001"}"#,
        ),
        (CANCEL_SYMBOL, r#"{"symbol":"BTCUSDT"}"#),
        (CANCEL_SYMBOL, r#"{"category":null}"#),
        (CANCEL_SYMBOL, r#"{"category":""}"#),
        (MAX_OPEN, r#"{"symbol":"BTCUSDT"}"#),
        (
            LEVERAGE,
            r#"{"category":"","symbol":"BTCUSDT","leverage":"5"}"#,
        ),
    ] {
        let (s, v) = post(&h, "a", path, b).await;
        assert_envelope((s, &v), 400, "40017", msg);
    }
    for (path, q) in [
        (HISTORY, ""),
        (HISTORY, "category="),
        (POSITION, ""),
        ("/api/v3/market/tickers", "category="),
        ("/api/v3/market/orderbook", "symbol=BTCUSDT"),
    ] {
        let (s, v) = get(&h, "a", path, q).await;
        assert_envelope((s, &v), 400, "40017", msg);
    }
    for path in [UNFILLED, FILLS, RECORDS, "/api/v3/market/instruments"] {
        let (s, v) = get(&h, "a", path, "category=").await;
        assert_eq!(
            (s, v["code"].as_str().unwrap()),
            (200, "00000"),
            "{path}: {v}"
        );
    }
    assert_eq!(open_orders(&h).await, 0);
    h.shutdown().await;
}

/// Reference §6.2 `25100` "trading pair {0} does not exist" [P]: a symbol that is no
/// instrument of the category answers HTTP 400 `25100` wherever a symbol is taken — acting on
/// it (place-order, cancel-symbol-order, set-leverage, max-open-available), reading it
/// (orderbook, tickers, instruments) or filtering a list by it (unfilled-orders,
/// history-orders, fills, current-position; these listed nothing before). A known symbol of
/// another category is unknown in this one.
#[tokio::test]
async fn an_unknown_symbol_gets_25100_on_every_endpoint() {
    let h = common::start(true).await;
    let msg = "trading pair NOPEUSDT does not exist";
    let body = |extra: &str| format!(r#"{{"category":"USDT-FUTURES","symbol":"NOPEUSDT"{extra}}}"#);
    for (path, b) in [
        (
            PLACE,
            body(r#","side":"buy","orderType":"limit","price":"50000","qty":"0.001""#),
        ),
        (CANCEL_SYMBOL, body("")),
        (MAX_OPEN, body(r#","orderType":"limit","side":"buy""#)),
        (LEVERAGE, body(r#","leverage":"5""#)),
    ] {
        let (s, v) = post(&h, "a", path, &b).await;
        assert_envelope((s, &v), 400, "25100", msg);
    }
    for path in [
        UNFILLED,
        HISTORY,
        FILLS,
        POSITION,
        "/api/v3/market/instruments",
        "/api/v3/market/tickers",
        "/api/v3/market/orderbook",
    ] {
        let (s, v) = get(&h, "a", path, "category=USDT-FUTURES&symbol=NOPEUSDT").await;
        assert_envelope((s, &v), 400, "25100", msg);
    }
    // Without a category (optional there), a symbol of no category.
    for path in [UNFILLED, FILLS, "/api/v3/market/instruments"] {
        let (s, v) = get(&h, "a", path, "symbol=NOPEUSDT").await;
        assert_envelope((s, &v), 400, "25100", msg);
    }
    // BTCUSDT exists in USDT-FUTURES and SPOT, not in USDC-FUTURES (no instruments there).
    let usdc = "trading pair BTCUSDT does not exist";
    let (s, v) = get(
        &h,
        "a",
        "/api/v3/market/tickers",
        "category=USDC-FUTURES&symbol=BTCUSDT",
    )
    .await;
    assert_envelope((s, &v), 400, "25100", usdc);
    let (s, v) = get(&h, "a", UNFILLED, "category=USDC-FUTURES&symbol=BTCUSDT").await;
    assert_envelope((s, &v), 400, "25100", usdc);
    let (s, v) = get(&h, "a", UNFILLED, "category=USDT-FUTURES&symbol=BTCUSDT").await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"), "{v}");
    assert_eq!(open_orders(&h).await, 0);
    h.shutdown().await;
}

/// Reference §6.2: `40017` for a malformed number (`limit`, `cursor`, times, `leverage`,
/// `price`) [P], `41101` "Param {0} error" for a value outside an enumeration (`posSide`,
/// `holdMode`, `side`, `orderType`) [P3][L] — on every endpoint, all HTTP 400.
#[tokio::test]
async fn malformed_numbers_get_40017_and_unaccepted_enum_values_41101() {
    let h = common::start(true).await;
    for (path, q, name) in [
        (UNFILLED, "limit=abc", "limit"),
        (UNFILLED, "limit=101", "limit"),
        (UNFILLED, "cursor=x1", "cursor"),
        (HISTORY, "category=USDT-FUTURES&limit=0", "limit"),
        (FILLS, "startTime=yesterday", "startTime"),
        (RECORDS, "limit=-1", "limit"),
        (RECORDS, "cursor=abc", "cursor"),
        (
            "/api/v3/market/orderbook",
            "category=USDT-FUTURES&symbol=BTCUSDT&limit=201",
            "limit",
        ),
        (
            "/api/v3/market/orderbook",
            "category=USDT-FUTURES",
            "symbol",
        ),
    ] {
        let (s, v) = get(&h, "a", path, q).await;
        assert_envelope(
            (s, &v),
            400,
            "40017",
            &format!("Parameter verification failed: {name}"),
        );
    }
    for (path, b, name) in [
        (
            LEVERAGE,
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"five"}"#,
            "leverage",
        ),
        (
            MAX_OPEN,
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","price":"-1"}"#,
            "price",
        ),
        (HOLD_MODE, r#"{}"#, "holdMode"),
    ] {
        let (s, v) = post(&h, "a", path, b).await;
        assert_envelope(
            (s, &v),
            400,
            "40017",
            &format!("Parameter verification failed: {name}"),
        );
    }
    let (s, v) = get(&h, "a", POSITION, "category=USDT-FUTURES&posSide=up").await;
    assert_envelope((s, &v), 400, "41101", "Param posSide=up error");
    let bad_side = buy("e1", "").replace(r#""side":"buy""#, r#""side":"up""#);
    for (path, b, msg) in [
        (
            HOLD_MODE,
            r#"{"holdMode":"sideways"}"#,
            "Param holdMode=sideways error",
        ),
        (
            MAX_OPEN,
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"up"}"#,
            "Param side=up error",
        ),
        (
            MAX_OPEN,
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"stop"}"#,
            "Param orderType=stop error",
        ),
        (PLACE, bad_side.as_str(), "Param side=up error"),
    ] {
        let (s, v) = post(&h, "a", path, b).await;
        assert_envelope((s, &v), 400, "41101", msg);
    }
    assert_eq!(open_orders(&h).await, 0);
    h.shutdown().await;
}

/// Reference §1.1 (signature recipe [P]) and §6.2 (codes [P], 40005/40011/40012 [P classic]):
/// each REST authentication failure answers HTTP 400 with its own code in the §6.1 envelope —
/// missing `ACCESS-KEY` `40001`, `ACCESS-SIGN` `40003`, `ACCESS-TIMESTAMP` (or not an integer)
/// `40005`, `ACCESS-PASSPHRASE` `40011`; unknown key `40006`; wrong passphrase `40012`;
/// timestamp more than 30 s off `40008`; wrong signature `40009` — and nothing is applied.
#[tokio::test]
async fn every_rest_auth_failure_has_its_code_and_applies_nothing() {
    let h = common::start(true).await;
    let body = buy("auth1", "");
    let ts = sim::now_ms();
    let sign = |ts: u64, secret: &str| sim::auth::sign(secret, &format!("{ts}POST{PLACE}{body}"));
    let full = |key: &str, sign: String, ts: String, pass: &str| {
        vec![
            ("ACCESS-KEY", key.to_string()),
            ("ACCESS-SIGN", sign),
            ("ACCESS-TIMESTAMP", ts),
            ("ACCESS-PASSPHRASE", pass.to_string()),
        ]
    };
    let good = full("key-a", sign(ts, "secret-a"), ts.to_string(), "pass-a");
    let without = |name: &str| -> Vec<(&'static str, String)> {
        good.iter().filter(|(k, _)| *k != name).cloned().collect()
    };
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (without("ACCESS-KEY"), "40001"),
        (without("ACCESS-SIGN"), "40003"),
        (without("ACCESS-TIMESTAMP"), "40005"),
        (
            full("key-a", sign(ts, "secret-a"), "soon".into(), "pass-a"),
            "40005",
        ),
        (without("ACCESS-PASSPHRASE"), "40011"),
        (
            full("key-zz", sign(ts, "secret-a"), ts.to_string(), "pass-a"),
            "40006",
        ),
        (
            full("key-a", sign(ts, "secret-a"), ts.to_string(), "pass-b"),
            "40012",
        ),
        (
            full(
                "key-a",
                sign(ts - 31_000, "secret-a"),
                (ts - 31_000).to_string(),
                "pass-a",
            ),
            "40008",
        ),
        (
            full("key-a", sign(ts, "secret-b"), ts.to_string(), "pass-a"),
            "40009",
        ),
    ];
    for (headers, code) in cases {
        let (s, v) = common::signing::https(&h, "POST", PLACE, &headers, &body).await;
        assert_eq!((s, v["code"].as_str().unwrap()), (400, code), "{v}");
        assert!(v["requestTime"].is_u64(), "{v}");
        assert_eq!(v["data"], Value::Null, "{v}");
    }
    assert_eq!(open_orders(&h).await, 0);
    // The same request with every header right is taken.
    let (s, v) = common::signing::https(&h, "POST", PLACE, &good, &body).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"), "{v}");
    h.shutdown().await;
}
