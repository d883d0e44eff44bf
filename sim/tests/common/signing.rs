//! Signed REST requests over real TLS with every part under the test's control (the gateway's
//! signer cannot be used here: gateway dev-depends on sim).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use sim::SimHandle;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP/1.1 request over TLS; returns (HTTP status code, JSON body).
pub async fn https(
    h: &SimHandle,
    method: &str,
    target: &str,
    headers: &[(&str, String)],
    body: &str,
) -> (u16, Value) {
    let connector = tokio_rustls::TlsConnector::from(super::client_tls(&h.ca_cert_pem()));
    let tcp = TcpStream::connect(h.local_addr()).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let mut req = format!(
        "{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    tls.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let _ = tls.read_to_end(&mut buf).await;
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let start = body.find('{').unwrap();
    let end = body.rfind('}').unwrap();
    (status, serde_json::from_str(&body[start..=end]).unwrap())
}

/// What to send and what to sign.
pub struct Signed<'a> {
    /// Account name (`key-{n}`, `secret-{n}`, `pass-{n}`).
    pub account: &'a str,
    /// `GET` / `POST`.
    pub method: &'a str,
    /// Path.
    pub path: &'a str,
    /// Query as sent (without `?`).
    pub query: &'a str,
    /// Query as signed (usually = `query`).
    pub signed_query: &'a str,
    /// Body as sent.
    pub body: &'a str,
    /// Body as signed (usually = `body`).
    pub signed_body: &'a str,
    /// `ACCESS-TIMESTAMP` (ms).
    pub ts: u64,
}

impl<'a> Signed<'a> {
    /// A correctly signed request of account `n`, now.
    pub fn new(
        account: &'a str,
        method: &'a str,
        path: &'a str,
        query: &'a str,
        body: &'a str,
    ) -> Self {
        Signed {
            account,
            method,
            path,
            query,
            signed_query: query,
            body,
            signed_body: body,
            ts: sim::now_ms(),
        }
    }

    /// Sends it.
    pub async fn send(&self, h: &SimHandle) -> (u16, Value) {
        let n = self.account;
        let q = |q: &str| {
            if q.is_empty() {
                String::new()
            } else {
                format!("?{q}")
            }
        };
        let prehash = format!(
            "{}{}{}{}{}",
            self.ts,
            self.method,
            self.path,
            q(self.signed_query),
            self.signed_body
        );
        let sign = sim::auth::sign(&format!("secret-{n}"), &prehash);
        let headers = [
            ("ACCESS-KEY", format!("key-{n}")),
            ("ACCESS-SIGN", sign),
            ("ACCESS-TIMESTAMP", self.ts.to_string()),
            ("ACCESS-PASSPHRASE", format!("pass-{n}")),
        ];
        let target = format!("{}{}", self.path, q(self.query));
        https(h, self.method, &target, &headers, self.body).await
    }
}

/// A signed POST of account `n`.
pub async fn post(h: &SimHandle, n: &str, path: &str, body: &str) -> (u16, Value) {
    Signed::new(n, "POST", path, "", body).send(h).await
}

/// A signed GET of account `n`.
pub async fn get(h: &SimHandle, n: &str, path: &str, query: &str) -> (u16, Value) {
    Signed::new(n, "GET", path, query, "").send(h).await
}
