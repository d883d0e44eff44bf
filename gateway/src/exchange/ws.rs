//! Bitget UTA v3 private WebSocket client: TLS connect, login, `order`/`fill` subscriptions.
//!
//! Reference: `shared/reference/bitget-uta-v3.md` §1.3 (login), §2 (URLs, keepalive), §3
//! (subscribe envelope and acks). Login and subscribe happen once per connection, so their frames
//! are built and parsed with `serde_json` here; the hot path (trade operations and pushes) uses
//! `codec::json`.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt as _, StreamExt as _};
use rustls::ClientConfig;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use super::sign::{ws_login_sign, Secret};
use super::ExchangeError;

/// The WebSocket stream type of a private connection (TLS or plain TCP underneath).
pub type WsStream = WebSocketStream<MaybeTlsStream<TcpStream>>;
/// Write half of a split [`WsStream`].
pub type WsSink = SplitSink<WsStream, Message>;
/// Read half of a split [`WsStream`].
pub type WsSource = SplitStream<WsStream>;

/// The private topics the gateway subscribes to (reference §3.2, `instType` `"UTA"`).
pub const PRIVATE_TOPICS: [&str; 2] = ["order", "fill"];

/// The account-update topics added to [`PRIVATE_TOPICS`] on an account's primary connection
/// when it reports positions and balances (reference §4.4, §4.5).
pub const UPDATE_TOPICS: [&str; 2] = ["position", "account"];

/// API key credentials for the private WebSocket and signed REST calls.
///
/// `Debug` shows the key but masks the secret and passphrase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeCredentials {
    /// The API key (`apiKey` / `ACCESS-KEY`); not secret by itself.
    pub api_key: String,
    /// The HMAC secret key.
    pub secret: Secret,
    /// The passphrase chosen when the key was created.
    pub passphrase: Secret,
}

/// Options of [`connect_private_with`].
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// Deadline for each step: TCP+TLS+upgrade, the login reply, the subscribe acks.
    pub step_timeout: Duration,
    /// Topics to subscribe to with `instType` `"UTA"`; each must be acknowledged.
    pub topics: Vec<String>,
}

impl Default for ConnectOptions {
    /// 10 s per step; topics `order` and `fill`.
    fn default() -> Self {
        ConnectOptions {
            step_timeout: Duration::from_secs(10),
            topics: PRIVATE_TOPICS.iter().map(|t| (*t).to_owned()).collect(),
        }
    }
}

/// A logged-in private WebSocket with its subscriptions acknowledged.
#[derive(Debug)]
pub struct PrivateWs {
    stream: WsStream,
    conn_id: Option<String>,
    early: Vec<Message>,
}

impl PrivateWs {
    /// The `connId` the exchange returned in the login reply or an ack, if any.
    pub fn conn_id(&self) -> Option<&str> {
        self.conn_id.as_deref()
    }

    /// Frames that arrived during the handshake but were not login/subscribe replies (for
    /// example a push or a `pong`); the caller should process them before reading the stream.
    pub fn early_frames(&self) -> &[Message] {
        &self.early
    }

    /// The underlying stream, for use without splitting.
    pub fn stream_mut(&mut self) -> &mut WsStream {
        &mut self.stream
    }

    /// The stream and the early frames (see [`early_frames`](Self::early_frames)).
    pub fn into_inner(self) -> (WsStream, Vec<Message>) {
        (self.stream, self.early)
    }

    /// Splits into write and read halves, plus the early frames.
    pub fn split(self) -> (WsSink, WsSource, Vec<Message>) {
        let (sink, source) = self.stream.split();
        (sink, source, self.early)
    }
}

/// Connects, logs in and subscribes to `order` and `fill` with [`ConnectOptions::default`].
///
/// - `url`: `wss://ws.bitget.com/v3/ws/private` (or the simulator's URL; `ws://` is plain TCP).
/// - `tls`: from [`super::tls::client_config`]; add the simulator's CA there.
/// - `now`: wall-clock time used for the login timestamp (Unix **seconds**, sent as a string).
///
/// TCP_NODELAY is set on the socket. Errors: [`ExchangeError::Connect`] / [`ExchangeError::Tls`]
/// while connecting, [`ExchangeError::LoginRejected`] on `event:"error"` after login,
/// [`ExchangeError::SubscribeRejected`] on `event:"error"` after subscribe,
/// [`ExchangeError::Timeout`] if a step takes longer than its deadline,
/// [`ExchangeError::Closed`] if the server hangs up, [`ExchangeError::Protocol`] on malformed
/// replies.
pub async fn connect_private(
    url: &str,
    tls: &Arc<ClientConfig>,
    creds: &ExchangeCredentials,
    now: SystemTime,
) -> Result<PrivateWs, ExchangeError> {
    connect_private_with(url, tls, creds, now, &ConnectOptions::default()).await
}

/// Read buffer of the private WebSocket, bytes. tungstenite zero-fills the free part of its read
/// buffer, up to this size, before every read (default 128 KiB: a ~128 KiB `memset` per read on
/// the io thread); trade replies and pushes are a few hundred bytes, and a larger frame grows
/// the buffer to its length.
pub const WS_READ_BUFFER: usize = 8 * 1024;

/// The WebSocket settings of the exchange connections (see [`WS_READ_BUFFER`]).
fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(WS_READ_BUFFER)
}

/// [`connect_private`] with explicit options.
pub async fn connect_private_with(
    url: &str,
    tls: &Arc<ClientConfig>,
    creds: &ExchangeCredentials,
    now: SystemTime,
    opts: &ConnectOptions,
) -> Result<PrivateWs, ExchangeError> {
    let connector = Connector::Rustls(Arc::clone(tls));
    let connect = tokio_tungstenite::connect_async_tls_with_config(
        url,
        Some(ws_config()),
        true,
        Some(connector),
    );
    let (stream, _response) = tokio::time::timeout(opts.step_timeout, connect)
        .await
        .map_err(|_| ExchangeError::Timeout("WebSocket connect"))??;
    let mut ws = PrivateWs {
        stream,
        conn_id: None,
        early: Vec::new(),
    };

    let ts = now
        .duration_since(UNIX_EPOCH)
        .map_err(|_| ExchangeError::Protocol("clock before 1970".into()))?
        .as_secs()
        .to_string();
    let sign = ws_login_sign(&creds.secret, &ts);
    let login = login_frame(&creds.api_key, creds.passphrase.expose(), &ts, &sign);
    ws.stream.send(Message::text(login)).await?;
    tokio::time::timeout(opts.step_timeout, wait_login(&mut ws))
        .await
        .map_err(|_| ExchangeError::Timeout("login reply"))??;

    if opts.topics.is_empty() {
        return Ok(ws);
    }
    let topics: Vec<&str> = opts.topics.iter().map(String::as_str).collect();
    ws.stream
        .send(Message::text(subscribe_frame(&topics)))
        .await?;
    tokio::time::timeout(opts.step_timeout, wait_subscribed(&mut ws, &topics))
        .await
        .map_err(|_| ExchangeError::Timeout("subscribe acks"))??;
    Ok(ws)
}

/// The login request (reference §1.3):
/// `{"op":"login","args":[{"apiKey":..,"passphrase":..,"timestamp":"<s>","sign":..}]}`.
pub fn login_frame(api_key: &str, passphrase: &str, timestamp_s: &str, sign: &str) -> String {
    serde_json::json!({
        "op": "login",
        "args": [{
            "apiKey": api_key,
            "passphrase": passphrase,
            "timestamp": timestamp_s,
            "sign": sign,
        }]
    })
    .to_string()
}

/// A subscribe request for private topics (reference §3.1):
/// `{"op":"subscribe","args":[{"instType":"UTA","topic":"order"},...]}`.
pub fn subscribe_frame(topics: &[&str]) -> String {
    let args: Vec<serde_json::Value> = topics
        .iter()
        .map(|t| serde_json::json!({"instType": "UTA", "topic": t}))
        .collect();
    serde_json::json!({"op": "subscribe", "args": args}).to_string()
}

/// A control reply seen while connecting (login/subscribe/error events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlReply {
    /// The text frame `pong`.
    Pong,
    /// `{"event":"login","code":..}`; `code` 0 is success.
    Login {
        /// Numeric code (`0`, `"0"`, `"00000"`, `""` and absent all mean 0).
        code: u32,
        /// Message text (may be empty).
        msg: String,
        /// `connId` when present.
        conn_id: Option<String>,
    },
    /// `{"event":"subscribe","arg":{"instType":..,"topic":..}}`.
    Subscribed {
        /// `arg.instType`.
        inst_type: String,
        /// `arg.topic`.
        topic: String,
        /// `connId` when present.
        conn_id: Option<String>,
    },
    /// `{"event":"error","code":..,"msg":..}`.
    Error {
        /// Numeric error code.
        code: u32,
        /// Message text.
        msg: String,
    },
    /// Any other well-formed frame (pushes, unsubscribe acks, ...).
    Other,
}

/// Classifies a text frame received during login/subscribe.
///
/// Errors: [`ExchangeError::Protocol`] when the frame is not JSON (and not `pong`) or `code` is
/// neither a number nor a numeric string.
pub fn parse_control(text: &str) -> Result<ControlReply, ExchangeError> {
    if text == super::keepalive::PONG {
        return Ok(ControlReply::Pong);
    }
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ExchangeError::Protocol(format!("bad JSON frame: {e}")))?;
    let str_of =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let conn_id = str_of(&v, "connId");
    let msg = str_of(&v, "msg").unwrap_or_default();
    match v.get("event").and_then(|e| e.as_str()) {
        Some("login") => Ok(ControlReply::Login {
            code: parse_code(v.get("code"))?,
            msg,
            conn_id,
        }),
        Some("error") => Ok(ControlReply::Error {
            code: parse_code(v.get("code"))?,
            msg,
        }),
        Some("subscribe") => {
            let arg = v.get("arg").unwrap_or(&serde_json::Value::Null);
            Ok(ControlReply::Subscribed {
                inst_type: str_of(arg, "instType").unwrap_or_default(),
                topic: str_of(arg, "topic").unwrap_or_default(),
                conn_id,
            })
        }
        _ => Ok(ControlReply::Other),
    }
}

/// Bitget `code` as number or string: `0`, `"0"`, `"00000"`, `""`, `null` and absent → 0.
fn parse_code(v: Option<&serde_json::Value>) -> Result<u32, ExchangeError> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(serde_json::Value::Number(n)) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| ExchangeError::Protocol(format!("bad code {n}"))),
        Some(serde_json::Value::String(s)) if s.is_empty() => Ok(0),
        Some(serde_json::Value::String(s)) => s
            .parse::<u32>()
            .map_err(|_| ExchangeError::Protocol(format!("bad code {s:?}"))),
        Some(other) => Err(ExchangeError::Protocol(format!("bad code {other}"))),
    }
}

/// Reads the next text frame; other frame types are kept as early frames, close → `Closed`.
async fn next_text(ws: &mut PrivateWs) -> Result<String, ExchangeError> {
    loop {
        match ws.stream.next().await {
            None => return Err(ExchangeError::Closed),
            Some(Err(e)) => return Err(e.into()),
            Some(Ok(Message::Text(t))) => return Ok(t.as_str().to_owned()),
            Some(Ok(Message::Close(_))) => return Err(ExchangeError::Closed),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            Some(Ok(other)) => ws.early.push(other),
        }
    }
}

async fn wait_login(ws: &mut PrivateWs) -> Result<(), ExchangeError> {
    loop {
        let text = next_text(ws).await?;
        match parse_control(&text)? {
            ControlReply::Login {
                code: 0, conn_id, ..
            } => {
                if conn_id.is_some() {
                    ws.conn_id = conn_id;
                }
                return Ok(());
            }
            ControlReply::Login { code, msg, .. } | ControlReply::Error { code, msg } => {
                return Err(ExchangeError::LoginRejected { code, msg });
            }
            ControlReply::Pong => {}
            ControlReply::Subscribed { .. } | ControlReply::Other => {
                ws.early.push(Message::text(text));
            }
        }
    }
}

async fn wait_subscribed(ws: &mut PrivateWs, topics: &[&str]) -> Result<(), ExchangeError> {
    let mut acked = vec![false; topics.len()];
    while acked.iter().any(|a| !a) {
        let text = next_text(ws).await?;
        match parse_control(&text)? {
            ControlReply::Subscribed { topic, conn_id, .. } => {
                if let Some(i) = topics.iter().position(|t| *t == topic) {
                    if let Some(a) = acked.get_mut(i) {
                        *a = true;
                    }
                }
                if ws.conn_id.is_none() {
                    ws.conn_id = conn_id;
                }
            }
            ControlReply::Error { code, msg } => {
                return Err(ExchangeError::SubscribeRejected { code, msg });
            }
            ControlReply::Pong => {}
            ControlReply::Login { .. } | ControlReply::Other => {
                ws.early.push(Message::text(text));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::fixtures_dir;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(fixtures_dir().join(name)).expect("fixture")
    }

    #[test]
    fn login_frame_matches_fixture() {
        let sign = ws_login_sign(&Secret::new("test-secret"), "1700000000");
        let ours: serde_json::Value = serde_json::from_str(&login_frame(
            "bg_test_key",
            "test-pass",
            "1700000000",
            &sign,
        ))
        .expect("json");
        let theirs: serde_json::Value =
            serde_json::from_str(&fixture("ws_login_request.json")).expect("json");
        assert_eq!(ours, theirs);
    }

    #[test]
    fn subscribe_frame_matches_fixture() {
        let ours: serde_json::Value =
            serde_json::from_str(&subscribe_frame(&["order"])).expect("json");
        let theirs: serde_json::Value =
            serde_json::from_str(&fixture("ws_subscribe_order_request.json")).expect("json");
        assert_eq!(ours, theirs);
    }

    #[test]
    fn control_fixtures() {
        assert_eq!(
            parse_control(fixture("ws_login_ok.json").trim()).expect("ok"),
            ControlReply::Login {
                code: 0,
                msg: String::new(),
                conn_id: Some("c0a8012e-0001".into())
            }
        );
        assert_eq!(
            parse_control(fixture("ws_login_error.json").trim()).expect("ok"),
            ControlReply::Error {
                code: 30005,
                msg: "login failed".into()
            }
        );
        assert_eq!(
            parse_control(fixture("ws_subscribe_ack.json").trim()).expect("ok"),
            ControlReply::Subscribed {
                inst_type: "UTA".into(),
                topic: "order".into(),
                conn_id: Some("c0a8012e-0001".into())
            }
        );
    }

    #[test]
    fn code_spellings() {
        for text in [
            r#"{"event":"login","code":0}"#,
            r#"{"event":"login","code":"0"}"#,
            r#"{"event":"login","code":"00000"}"#,
            r#"{"event":"login","code":""}"#,
            r#"{"event":"login"}"#,
        ] {
            assert!(
                matches!(parse_control(text), Ok(ControlReply::Login { code: 0, .. })),
                "{text}"
            );
        }
        assert!(matches!(
            parse_control(r#"{"event":"error","code":"30015","msg":"Invalid sign"}"#),
            Ok(ControlReply::Error { code: 30015, .. })
        ));
        assert!(matches!(
            parse_control(r#"{"event":"login","code":"abc"}"#),
            Err(ExchangeError::Protocol(_))
        ));
        assert!(matches!(
            parse_control(r#"{"event":"login","code":-1}"#),
            Err(ExchangeError::Protocol(_))
        ));
        assert!(matches!(
            parse_control("not json"),
            Err(ExchangeError::Protocol(_))
        ));
        assert_eq!(parse_control("pong").expect("pong"), ControlReply::Pong);
        assert_eq!(
            parse_control(r#"{"arg":{"topic":"order"},"data":[]}"#).expect("push"),
            ControlReply::Other
        );
    }

    #[test]
    fn credentials_debug_masks_secrets() {
        let c = ExchangeCredentials {
            api_key: "k".into(),
            secret: Secret::new("s3cr3t"),
            passphrase: Secret::new("pa55"),
        };
        let d = format!("{c:?}");
        assert!(!d.contains("s3cr3t") && !d.contains("pa55"), "{d}");
    }
}
