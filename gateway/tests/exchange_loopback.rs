//! The exchange clients against scripted loopback servers with a self-signed TLS certificate:
//! WebSocket login/subscribe (success, rejections, timeout, untrusted certificate) and the REST
//! instruments call.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures_util::{SinkExt as _, StreamExt as _};
use gateway::exchange::rest::RestClient;
use gateway::exchange::tls::client_config;
use gateway::exchange::ws::{connect_private, connect_private_with, ConnectOptions};
use gateway::exchange::{ws_login_sign, ExchangeCredentials, ExchangeError, Secret};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_tungstenite::tungstenite::Message;

/// A self-signed certificate for 127.0.0.1 and its PEM.
struct TestCert {
    acceptor: TlsAcceptor,
    pem: String,
}

fn test_cert() -> TestCert {
    let ck =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("cert");
    let cert: CertificateDer<'static> = ck.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("server config");
    TestCert {
        acceptor: TlsAcceptor::from(Arc::new(server)),
        pem: ck.cert.pem(),
    }
}

fn creds() -> ExchangeCredentials {
    ExchangeCredentials {
        api_key: "bg_test_key".into(),
        secret: Secret::new("test-secret"),
        passphrase: Secret::new("test-pass"),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Ok,
    LoginError,
    SubscribeError,
    NoAcks,
}

/// A one-connection private WebSocket server following `script`. Returns its wss URL.
async fn ws_server(script: Script) -> (String, String) {
    let cert = test_cert();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!(
        "wss://{}/v3/ws/private",
        listener.local_addr().expect("addr")
    );
    let acceptor = cert.acceptor.clone();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.expect("accept");
        let tls = acceptor.accept(tcp).await.expect("tls accept");
        let mut ws = tokio_tungstenite::accept_async(tls)
            .await
            .expect("ws accept");
        // Login.
        let Some(Ok(Message::Text(login))) = ws.next().await else {
            return;
        };
        let v: serde_json::Value = serde_json::from_str(login.as_str()).expect("login json");
        assert_eq!(v["op"], "login");
        let arg = &v["args"][0];
        let ts = arg["timestamp"].as_str().expect("timestamp is a string");
        let now_s = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        let ts_s: u64 = ts.parse().expect("seconds");
        assert!(now_s.abs_diff(ts_s) < 30, "timestamp {ts} is not seconds");
        let good = arg["sign"] == ws_login_sign(&Secret::new("test-secret"), ts)
            && arg["apiKey"] == "bg_test_key"
            && arg["passphrase"] == "test-pass";
        if script == Script::LoginError || !good {
            let _ = ws
                .send(Message::text(
                    r#"{"event":"error","code":30005,"msg":"login failed"}"#,
                ))
                .await;
            let _ = ws.close(None).await;
            return;
        }
        ws.send(Message::text(
            r#"{"event":"login","code":0,"msg":"","connId":"c-1"}"#,
        ))
        .await
        .expect("send");
        // Subscribe.
        let Some(Ok(Message::Text(sub))) = ws.next().await else {
            return;
        };
        let v: serde_json::Value = serde_json::from_str(sub.as_str()).expect("sub json");
        assert_eq!(v["op"], "subscribe");
        let args = v["args"].as_array().expect("args").clone();
        match script {
            Script::SubscribeError => {
                ws.send(Message::text(
                    r#"{"event":"error","code":30001,"msg":"channel does not exist"}"#,
                ))
                .await
                .expect("send");
            }
            Script::NoAcks => {}
            _ => {
                // Acks with numeric code, plus a stray pong in between.
                for (i, a) in args.iter().enumerate() {
                    if i == 1 {
                        ws.send(Message::text("pong")).await.expect("send");
                    }
                    let ack = serde_json::json!({"event":"subscribe","arg":a,"code":0,"msg":""});
                    ws.send(Message::text(ack.to_string())).await.expect("send");
                }
            }
        }
        // Keepalive: answer text ping with text pong until the client leaves.
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Text(t) = m {
                if t.as_str() == "ping" {
                    let _ = ws.send(Message::text("pong")).await;
                }
            }
        }
    });
    (url, cert.pem)
}

#[tokio::test]
async fn login_and_subscribe_succeed() {
    let (url, pem) = ws_server(Script::Ok).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let ws = connect_private(&url, &tls, &creds(), SystemTime::now())
        .await
        .expect("connect");
    assert_eq!(ws.conn_id(), Some("c-1"));
    let (mut sink, mut source, early) = ws.split();
    assert!(early.is_empty(), "{early:?}");
    sink.send(Message::text("ping")).await.expect("ping");
    let reply = tokio::time::timeout(Duration::from_secs(5), source.next())
        .await
        .expect("pong in time")
        .expect("frame")
        .expect("ok");
    assert_eq!(reply, Message::text("pong"));
}

#[tokio::test]
async fn login_rejected() {
    let (url, pem) = ws_server(Script::LoginError).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let err = connect_private(&url, &tls, &creds(), SystemTime::now())
        .await
        .expect_err("must fail");
    assert_eq!(
        err,
        ExchangeError::LoginRejected {
            code: 30005,
            msg: "login failed".into()
        }
    );
}

#[tokio::test]
async fn wrong_secret_is_rejected_by_server() {
    let (url, pem) = ws_server(Script::Ok).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let mut c = creds();
    c.secret = Secret::new("wrong");
    let err = connect_private(&url, &tls, &c, SystemTime::now())
        .await
        .expect_err("must fail");
    assert!(
        matches!(err, ExchangeError::LoginRejected { code: 30005, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn subscribe_rejected() {
    let (url, pem) = ws_server(Script::SubscribeError).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let err = connect_private(&url, &tls, &creds(), SystemTime::now())
        .await
        .expect_err("must fail");
    assert!(
        matches!(err, ExchangeError::SubscribeRejected { code: 30001, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn missing_acks_time_out() {
    let (url, pem) = ws_server(Script::NoAcks).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let opts = ConnectOptions {
        step_timeout: Duration::from_millis(300),
        ..ConnectOptions::default()
    };
    let err = connect_private_with(&url, &tls, &creds(), SystemTime::now(), &opts)
        .await
        .expect_err("must fail");
    assert_eq!(err, ExchangeError::Timeout("subscribe acks"));
}

#[tokio::test]
async fn untrusted_certificate_is_a_tls_error() {
    let (url, _pem) = ws_server(Script::Ok).await;
    let tls = client_config(None).expect("tls");
    let err = connect_private(&url, &tls, &creds(), SystemTime::now())
        .await
        .expect_err("must fail");
    assert!(matches!(err, ExchangeError::Tls(_)), "{err:?}");
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let tls = client_config(None).expect("tls");
    let err = connect_private(
        &format!("wss://{addr}/v3/ws/private"),
        &tls,
        &creds(),
        SystemTime::now(),
    )
    .await
    .expect_err("must fail");
    assert!(matches!(err, ExchangeError::Connect(_)), "{err:?}");
}

/// `$CARGO_MANIFEST_DIR/../../shared/fixtures/bitget-uta`, else under `$BGW_SHARED_DIR`.
fn fixtures_dir() -> std::path::PathBuf {
    let here = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/bitget-uta");
    if here.is_dir() {
        return here;
    }
    let shared = std::env::var("BGW_SHARED_DIR").expect("set BGW_SHARED_DIR (e.g. /work/shared)");
    std::path::PathBuf::from(shared).join("fixtures/bitget-uta")
}

/// A one-request HTTPS server answering with `body`; returns the base URL, the CA PEM and a
/// channel yielding the raw request (head and body) it received.
async fn https_server(body: String) -> (String, String, tokio::sync::oneshot::Receiver<String>) {
    let cert = test_cert();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("https://{}", listener.local_addr().expect("addr"));
    let acceptor = cert.acceptor.clone();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.expect("accept");
        let mut tls = acceptor.accept(tcp).await.expect("tls accept");
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            if let Some(i) = req.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let n = tls.read(&mut buf).await.expect("read");
            if n == 0 {
                return;
            }
            req.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&req[..head_end]).to_ascii_lowercase();
        let content_len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map(|v| v.trim().parse().expect("content-length"))
            .unwrap_or(0);
        while req.len() < head_end + content_len {
            let n = tls.read(&mut buf).await.expect("read");
            if n == 0 {
                break;
            }
            req.extend_from_slice(&buf[..n]);
        }
        let resp = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        tls.write_all(resp.as_bytes()).await.expect("write");
        let _ = tls.shutdown().await;
        let _ = tx.send(String::from_utf8_lossy(&req).into_owned());
    });
    (url, cert.pem, rx)
}

/// The value of header `name` (case-insensitive) in a raw HTTP request.
fn header<'a>(req: &'a str, name: &str) -> Option<&'a str> {
    req.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn rest_signed_post_sends_bitget_headers() {
    let (url, pem, rx) =
        https_server(r#"{"code":"00000","msg":"success","requestTime":1,"data":{"orderId":"1","clientOid":"s1:1"}}"#.to_owned()).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let client = RestClient::new(&url, &tls, Duration::from_secs(5), Some(creds()))
        .expect("client")
        .with_demo_trading(true);
    let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","qty":"0.001","price":"30000","side":"buy","orderType":"limit","timeInForce":"gtc","clientOid":"s1:1"}"#;
    let now = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let data = client
        .signed_post("/api/v3/trade/place-order", body, now)
        .await
        .expect("post");
    assert_eq!(data["orderId"], "1");
    let req = rx.await.expect("request");
    assert!(
        req.starts_with("POST /api/v3/trade/place-order HTTP/1.1"),
        "{req}"
    );
    assert!(req.ends_with(body), "{req}");
    assert_eq!(header(&req, "ACCESS-KEY"), Some("bg_test_key"));
    assert_eq!(header(&req, "ACCESS-TIMESTAMP"), Some("1700000000123"));
    assert_eq!(header(&req, "ACCESS-PASSPHRASE"), Some("test-pass"));
    // signing_vectors.json "rest POST with body".
    assert_eq!(
        header(&req, "ACCESS-SIGN"),
        Some("uZ+bFHFNym0He65ATwza1qsR5mD0rA9M2kpCtmevcrQ=")
    );
    assert_eq!(header(&req, "paptrading"), Some("1"));
    assert_eq!(header(&req, "locale"), Some("en-US"));
    assert_eq!(header(&req, "content-type"), Some("application/json"));
    let content_types = req
        .lines()
        .filter(|l| l.to_ascii_lowercase().starts_with("content-type:"))
        .count();
    assert_eq!(content_types, 1, "{req}");
}

#[tokio::test]
async fn rest_signed_get_rejection() {
    let (url, pem, rx) = https_server(
        r#"{"code":"25204","msg":"Order does not exist","requestTime":1,"data":null}"#.to_owned(),
    )
    .await;
    let tls = client_config(Some(&pem)).expect("tls");
    let client =
        RestClient::new(&url, &tls, Duration::from_secs(5), Some(creds())).expect("client");
    let now = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let err = client
        .signed_get(
            "/api/v3/trade/unfilled-orders",
            "category=USDT-FUTURES&limit=100",
            now,
        )
        .await
        .expect_err("rejected");
    assert!(
        matches!(
            err,
            ExchangeError::Rejected {
                code: 25204,
                http_status: 200,
                ..
            }
        ),
        "{err:?}"
    );
    let req = rx.await.expect("request");
    assert!(
        req.starts_with(
            "GET /api/v3/trade/unfilled-orders?category=USDT-FUTURES&limit=100 HTTP/1.1"
        ),
        "{req}"
    );
    assert_eq!(
        header(&req, "ACCESS-SIGN"),
        Some("leUzmMpUuN47NPFtoYJCsDmbWqKyZIGYFT/A8S5UJTQ=")
    );
    assert_eq!(header(&req, "paptrading"), None);
}

#[tokio::test]
async fn rest_instruments_over_tls() {
    let body = std::fs::read_to_string(fixtures_dir().join("rest_instruments_usdt_futures.json"))
        .expect("fixture");
    let (url, pem, rx) = https_server(body).await;
    let tls = client_config(Some(&pem)).expect("tls");
    let client =
        RestClient::new(&url, &tls, Duration::from_secs(5), Some(creds())).expect("client");
    let list = client
        .instruments("USDT-FUTURES")
        .await
        .expect("instruments");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].symbol, "BTCUSDT");
    let req = rx.await.expect("request");
    assert!(
        req.starts_with("GET /api/v3/market/instruments?category=USDT-FUTURES HTTP/1.1"),
        "{req}"
    );
    assert_eq!(
        header(&req, "ACCESS-SIGN"),
        None,
        "public call must not be signed"
    );
}
