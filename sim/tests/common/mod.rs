//! Test client helpers: real sockets, real TLS (trusting the simulator's certificate).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use sim::{AccountConfig, Category, SimConfig, SimHandle, SymbolLiquidity};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

pub mod signing;

/// Generous guard so that a broken simulator fails the test instead of hanging it.
const GUARD: Duration = Duration::from_secs(10);

pub fn account(n: &str) -> AccountConfig {
    AccountConfig {
        uid: format!("uid-{n}"),
        api_key: format!("key-{n}"),
        secret: format!("secret-{n}"),
        passphrase: format!("pass-{n}"),
        ..AccountConfig::default()
    }
}

/// Demo instruments, two accounts (`a`, `b`), liquidity only on BTCUSDT usdt-futures (mid 60000,
/// levels 0.5 BTC, 0.5 apart, best ask 60000.5, best bid 59999.5), no random walk.
pub fn config(tls: bool) -> SimConfig {
    let mut cfg = SimConfig::demo();
    cfg.tls = tls;
    cfg.accounts = vec![account("a"), account("b")];
    cfg.liquidity.walk_percent = 0;
    cfg.liquidity.symbols = vec![SymbolLiquidity {
        symbol: "BTCUSDT".into(),
        category: Category::UsdtFutures,
        mid: "60000".parse().unwrap(),
        level_qty: "0.5".parse().unwrap(),
        level_step_ticks: 5,
        half_spread_ticks: 5,
    }];
    cfg
}

pub async fn start(tls: bool) -> SimHandle {
    sim::Sim::start(config(tls)).await.expect("sim starts")
}

pub fn client_tls(pem: &str) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    let mut rd = pem.as_bytes();
    for cert in rustls_pemfile_certs(&mut rd) {
        roots.add(cert).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(cfg)
}

/// Minimal PEM → DER (one or more CERTIFICATE blocks).
fn rustls_pemfile_certs(rd: &mut &[u8]) -> Vec<rustls::pki_types::CertificateDer<'static>> {
    use base64::Engine as _;
    let text = std::str::from_utf8(rd).unwrap();
    let mut out = Vec::new();
    let mut b64 = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("-----BEGIN CERTIFICATE") {
            inside = true;
            b64.clear();
        } else if line.starts_with("-----END CERTIFICATE") {
            inside = false;
            let der = base64::engine::general_purpose::STANDARD
                .decode(b64.as_bytes())
                .unwrap();
            out.push(rustls::pki_types::CertificateDer::from(der));
        } else if inside {
            b64.push_str(line.trim());
        }
    }
    out
}

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Client {
    pub async fn connect(h: &SimHandle, private: bool) -> Client {
        let url = if private {
            h.ws_private_url()
        } else {
            h.ws_public_url()
        };
        let connector = if url.starts_with("wss") {
            Some(Connector::Rustls(client_tls(&h.ca_cert_pem())))
        } else {
            None
        };
        let (ws, _) = tokio_tungstenite::connect_async_tls_with_config(url, None, true, connector)
            .await
            .expect("ws connect");
        Client { ws }
    }

    pub async fn send(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.to_string().into()))
            .await
            .unwrap();
    }

    /// The next text frame (None when the connection closed).
    pub async fn recv_text(&mut self) -> Option<String> {
        loop {
            let msg = tokio::time::timeout(GUARD, self.ws.next())
                .await
                .expect("frame within the guard time");
            match msg {
                Some(Ok(Message::Text(t))) => return Some(t.to_string()),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    pub async fn recv(&mut self) -> Value {
        let t = self.recv_text().await.expect("connection open");
        serde_json::from_str(&t).unwrap_or_else(|e| panic!("bad json {t}: {e}"))
    }

    pub async fn login(&mut self, n: &str) -> Value {
        let ts = (sim::now_ms() / 1000).to_string();
        let sign = sim::auth::sign(&format!("secret-{n}"), &format!("{ts}GET/user/verify"));
        self.send(&format!(
            r#"{{"op":"login","args":[{{"apiKey":"key-{n}","passphrase":"pass-{n}","timestamp":"{ts}","sign":"{sign}"}}]}}"#
        ))
        .await;
        self.recv().await
    }

    /// Logs in and subscribes to `order` and `fill`.
    pub async fn ready(h: &SimHandle, n: &str) -> Client {
        let mut c = Client::connect(h, true).await;
        let v = c.login(n).await;
        assert_eq!(v["event"], "login", "{v}");
        c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"},{"instType":"UTA","topic":"fill"}]}"#).await;
        assert_eq!(c.recv().await["event"], "subscribe");
        assert_eq!(c.recv().await["event"], "subscribe");
        c
    }

    /// Sends a trade op and returns its reply.
    pub async fn trade(&mut self, text: &str) -> Value {
        self.send(text).await;
        self.recv().await
    }
}

/// `{"op":"trade",...,"topic":"place-order"}` for usdt-futures.
pub fn place(
    id: &str,
    symbol: &str,
    side: &str,
    price: Option<&str>,
    qty: &str,
    tif: &str,
    oid: &str,
) -> String {
    let (ty, price) = match price {
        Some(p) => ("limit", format!(r#""price":"{p}","#)),
        None => ("market", String::new()),
    };
    format!(
        r#"{{"op":"trade","id":"{id}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"{symbol}","side":"{side}","orderType":"{ty}",{price}"qty":"{qty}","timeInForce":"{tif}","clientOid":"{oid}"}}]}}"#
    )
}

/// The single data item of a push.
pub fn item(v: &Value) -> &Value {
    &v["data"][0]
}

pub fn topic(v: &Value) -> &str {
    v["arg"]["topic"].as_str().unwrap_or("")
}

/// A raw HTTP/1.1 GET over TLS with extra headers; returns (status line, JSON body).
pub async fn https_get_with(
    h: &SimHandle,
    path: &str,
    headers: &[(&str, String)],
) -> (String, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let connector = tokio_rustls::TlsConnector::from(client_tls(&h.ca_cert_pem()));
    let tcp = TcpStream::connect(h.local_addr()).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    tls.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let _ = tls.read_to_end(&mut buf).await;
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_string();
    let start = body.find('{').unwrap();
    let end = body.rfind('}').unwrap();
    (status, serde_json::from_str(&body[start..=end]).unwrap())
}

/// A signed GET as account `n` (ms timestamp of the simulator's clock, prehash over the raw
/// query).
pub async fn signed_get(h: &SimHandle, n: &str, path: &str, query: &str) -> (String, Value) {
    let ts = h.clock().now_ms().to_string();
    let q = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    let sign = sim::auth::sign(&format!("secret-{n}"), &format!("{ts}GET{path}{q}"));
    let headers = [
        ("ACCESS-KEY", format!("key-{n}")),
        ("ACCESS-SIGN", sign),
        ("ACCESS-TIMESTAMP", ts),
        ("ACCESS-PASSPHRASE", format!("pass-{n}")),
    ];
    https_get_with(h, &format!("{path}{q}"), &headers).await
}

/// A signed POST as account `n` with a JSON body (timestamp of the simulator's clock); returns
/// (status line, JSON body).
pub async fn signed_post(h: &SimHandle, n: &str, path: &str, body: &str) -> (String, Value) {
    let ts = h.clock().now_ms().to_string();
    let sign = sim::auth::sign(&format!("secret-{n}"), &format!("{ts}POST{path}{body}"));
    let headers = [
        ("ACCESS-KEY", format!("key-{n}")),
        ("ACCESS-SIGN", sign),
        ("ACCESS-TIMESTAMP", ts),
        ("ACCESS-PASSPHRASE", format!("pass-{n}")),
    ];
    https_post_with(h, path, &headers, body).await
}

/// A raw HTTP/1.1 POST over TLS with a JSON body and extra headers; returns (status line as
/// `"HTTP/1.1 <code>"`, JSON body). Built on [`signing::https`].
pub async fn https_post_with(
    h: &SimHandle,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> (String, Value) {
    let (status, v) = signing::https(h, "POST", path, headers, body).await;
    (format!("HTTP/1.1 {status}"), v)
}
