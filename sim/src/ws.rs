//! One task per WebSocket connection: text `ping` → `pong`, login, subscribe / unsubscribe,
//! trade ops (private URL only). The reply to a request is written (and flushed) before any
//! push it caused: pushes travel through the connection's channel, which this task drains only
//! after writing the reply.
//!
//! Control errors carry numeric codes (reference §1.3/§1.4): malformed JSON → `30002`
//! "Unrecognized request: …", unknown op → `30003` "Invalid op", trade op or private topic
//! before login → `30004` "User needs to log in", unknown topic → `30001`. Login refusals carry
//! the code of their cause ([`crate::auth::LoginError`]: `30011` key, `30012` passphrase,
//! `30013` timestamp format, `30014` timestamp window, `30015` signature, `30016` missing
//! field) and close the socket. A connection that sends nothing for `idle_timeout_s` (default
//! 120 s, as Bitget's "no ping for 2 minutes") is closed; with `max_msgs_per_s` set, a
//! connection sending more frames within one second gets `30007` and is closed.
//!
//! Frame sizes: a frame over [`MAX_REQUEST_BYTES`] answers `30002` (with the request `id` of a
//! trade op), a `subscribe`/`unsubscribe` frame over [`MAX_SUBSCRIBE_BYTES`] answers `30016`;
//! neither is applied and the connection stays open. Frames above the transport limit
//! (`WS_MAX_MESSAGE_BYTES` in `server.rs`) end the connection without an error frame.
//!
//! A trade op whose `id` is missing, empty or neither a string nor a number is refused with
//! `{"event":"error","code":"40017","msg":"Parameter verification failed: id"}` (string code,
//! as trade-op errors, reference §5.2) and not applied.
//!
//! Faults ([`crate::faults`]) hook in here: trade-op rules before the venue sees the op, the
//! per-connection [`Outbox`] on the reply and push paths, and the control channel (close,
//! `30033` notice). Each connection runs inside the simulator's clock scope
//! ([`crate::clock::scope`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::auth::verify_login;
use crate::config::Category;
use crate::depth::{book_levels, BookSub};
use crate::faults::{Control, Outbox, TradeFault};
use crate::matching::AccountId;
use crate::render::{control_error, push_json_str, trade_error};
use crate::state::{now_ms, AppState, ConnEntry};

/// Largest text frame the simulator interprets, bytes (64 KiB). The reference gives no limit
/// for trade frames (§2.3 only bounds subscribe frames); a full `batch-place` of 20 orders is
/// about 6 KiB, so ten times that leaves room for any well-formed request. A larger frame is
/// answered with `30002` (and its `id` when it is a trade op) without being applied; the
/// connection stays open. Frames above the transport limit (`WS_MAX_MESSAGE_BYTES` in
/// `server.rs`: tungstenite's `max_message_size` / `max_frame_size` of the upgrade) close the
/// connection instead, without an error frame.
pub(crate) const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Largest `subscribe` / `unsubscribe` frame, bytes: reference §2.3 "all channels in one
/// request ≤ 4096 bytes" [P2]. The simulator measures the whole frame (the stricter reading:
/// the envelope adds ~30 bytes to the channels); a larger one is answered with `30016` and
/// none of its channels is (un)subscribed.
pub(crate) const MAX_SUBSCRIBE_BYTES: usize = 4096;

/// What to write back for one inbound frame.
#[derive(Debug, Default)]
struct Action {
    frames: Vec<String>,
    close: bool,
    /// Set by a successful login: the connection's account.
    login: Option<AccountId>,
}

impl Action {
    fn one(frame: String) -> Action {
        Action {
            frames: vec![frame],
            close: false,
            login: None,
        }
    }
}

/// Serves one upgraded connection until it closes or the simulator shuts down.
pub(crate) async fn serve(socket: WebSocket, state: Arc<AppState>, private: bool) {
    let clock = state.clock.clone();
    crate::clock::scope(clock, serve_conn(socket, state, private)).await;
}

async fn serve_conn(mut socket: WebSocket, state: Arc<AppState>, private: bool) {
    let conn = state.conn_id();
    let conn_id = format!("sim-{conn:06}");
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let (ctl, mut ctl_rx) = mpsc::unbounded_channel::<Control>();
    state.shared.lock().conns.insert(
        conn,
        ConnEntry {
            owner: None,
            sub_order: false,
            sub_fill: false,
            sub_account: false,
            sub_position: false,
            can_trade: false,
            books: Vec::new(),
            tx,
            ctl,
        },
    );
    state
        .counters
        .ws_connections
        .fetch_add(1, Ordering::Relaxed);
    state
        .counters
        .ws_connections_total
        .fetch_add(1, Ordering::Relaxed);
    let mut stop = state.shutdown.clone();
    // Idle limit: no inbound frame for `idle_timeout_s` closes the connection (0 = never).
    let idle =
        (state.idle_timeout_s > 0).then(|| std::time::Duration::from_secs(state.idle_timeout_s));
    let far = std::time::Duration::from_secs(86_400 * 365);
    let deadline = tokio::time::sleep(idle.unwrap_or(far));
    tokio::pin!(deadline);
    // Inbound rate limit: frames counted per one-second window.
    let mut window_start = tokio::time::Instant::now();
    let mut window_count = 0u32;
    // Faults: the connection's account, frames held back, a pending close (30033 notice).
    let mut owner: Option<AccountId> = None;
    let mut outbox = Outbox::default();
    let mut close_at: Option<tokio::time::Instant> = None;
    if !*stop.borrow() {
        loop {
            let next_due = outbox.next_due();
            // Biased: shutdown first, then pending pushes, then the next inbound frame, so that
            // everything a request caused is written before the reply to the next request.
            tokio::select! {
                biased;
                _ = stop.changed() => break,
                Some(c) = ctl_rx.recv() => match c {
                    Control::Close => {
                        tracing::info!(conn = conn_id, "closing connection (fault)");
                        let _ = socket.send(Message::Close(None)).await;
                        break;
                    }
                    Control::Notice { frame, close_after_ms } => {
                        if socket.send(Message::text(frame)).await.is_err() {
                            break;
                        }
                        close_at = Some(
                            tokio::time::Instant::now()
                                + std::time::Duration::from_millis(close_after_ms),
                        );
                    }
                },
                () = tokio::time::sleep_until(close_at.unwrap_or_else(tokio::time::Instant::now)), if close_at.is_some() => {
                    let _ = socket.send(Message::Close(None)).await;
                    break;
                }
                () = tokio::time::sleep_until(next_due.unwrap_or_else(tokio::time::Instant::now)), if next_due.is_some() => {
                    let mut failed = false;
                    for frame in outbox.take_due(tokio::time::Instant::now()) {
                        if socket.send(Message::text(frame)).await.is_err() {
                            failed = true;
                            break;
                        }
                    }
                    if failed {
                        break;
                    }
                }
                Some(push) = rx.recv() => {
                    let frames = if state.faults.active() {
                        outbox.on_push(state.faults.conn(owner), push, tokio::time::Instant::now())
                    } else {
                        vec![push]
                    };
                    let mut failed = false;
                    for frame in frames {
                        if socket.send(Message::text(frame)).await.is_err() {
                            failed = true;
                            break;
                        }
                    }
                    if failed {
                        break;
                    }
                }
                () = &mut deadline => {
                    tracing::info!(conn = conn_id, "closing idle connection");
                    let _ = socket.send(Message::Close(None)).await;
                    break;
                }
                msg = socket.recv() => {
                    let Some(Ok(msg)) = msg else { break };
                    let now = tokio::time::Instant::now();
                    if let Some(d) = idle {
                        deadline.as_mut().reset(now + d);
                    }
                    if state.max_msgs_per_s > 0 {
                        if now.duration_since(window_start) >= std::time::Duration::from_secs(1) {
                            window_start = now;
                            window_count = 0;
                        }
                        window_count += 1;
                        if window_count > state.max_msgs_per_s {
                            state
                                .counters
                                .msg_limit_closes
                                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let _ = socket
                                .send(Message::text(control_error(
                                    None,
                                    30007,
                                    "Request over limit, connection close",
                                )))
                                .await;
                            let _ = socket.send(Message::Close(None)).await;
                            break;
                        }
                    }
                    let action = match msg {
                        Message::Text(t) => handle_text(&state, conn, &conn_id, private, t.as_str()),
                        Message::Binary(_) => Action::one(control_error(None, 30002, "Unrecognized request: binary frame")),
                        Message::Close(_) => break,
                        Message::Ping(_) | Message::Pong(_) => Action::default(),
                    };
                    if action.login.is_some() {
                        owner = action.login;
                    }
                    let frames = if state.faults.active() && !action.close {
                        outbox.on_reply(state.faults.conn(owner), action.frames, now)
                    } else {
                        action.frames
                    };
                    let mut failed = false;
                    for frame in frames {
                        if socket.send(Message::text(frame)).await.is_err() {
                            failed = true;
                            break;
                        }
                    }
                    if failed {
                        break;
                    }
                    if action.close {
                        let _ = socket.send(Message::Close(None)).await;
                        break;
                    }
                }
            }
        }
    }
    state.shared.lock().conns.remove(&conn);
    state
        .counters
        .ws_connections
        .fetch_sub(1, Ordering::Relaxed);
}

/// Truncates client text for an error message (on a char boundary).
fn excerpt(text: &str) -> &str {
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The answer to a frame over [`MAX_REQUEST_BYTES`]: `30002`, with the request `id` when the
/// frame is a JSON object with `"op":"trade"` and a string or number `id` (read without
/// building the rest of the document).
fn oversized(text: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Head {
        op: Option<String>,
        id: Option<Value>,
    }
    let id = match serde_json::from_str::<Head>(text) {
        Ok(Head {
            op: Some(op),
            id: Some(id @ (Value::String(_) | Value::Number(_))),
        }) if op == "trade" => Some(id.to_string()),
        _ => None,
    };
    control_error(
        id.as_deref(),
        30002,
        &format!("Illegal request: frame over {MAX_REQUEST_BYTES} bytes"),
    )
}

fn handle_text(state: &AppState, conn: u64, conn_id: &str, private: bool, text: &str) -> Action {
    state.catch_up();
    if text == "ping" {
        return Action::one("pong".to_string());
    }
    if text.len() > MAX_REQUEST_BYTES {
        return Action::one(oversized(text));
    }
    let v: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Action::one(control_error(
                None,
                30002,
                &format!("Unrecognized request: {}", excerpt(text)),
            ))
        }
    };
    let op = v.get("op").and_then(Value::as_str).unwrap_or("");
    match op {
        "login" => login(state, conn, conn_id, &v),
        "subscribe" | "unsubscribe" if text.len() > MAX_SUBSCRIBE_BYTES => {
            Action::one(control_error(
                None,
                30016,
                &format!("Param error: {op} request over {MAX_SUBSCRIBE_BYTES} bytes"),
            ))
        }
        "subscribe" => subscribe(state, conn, conn_id, private, &v, false),
        "unsubscribe" => subscribe(state, conn, conn_id, private, &v, true),
        "trade" => trade(state, conn, conn_id, private, &v),
        _ => Action::one(control_error(None, 30003, "Invalid op")),
    }
}

fn login(state: &AppState, conn: u64, conn_id: &str, v: &Value) -> Action {
    match verify_login(&state.accounts, v, now_ms(), state.login_window_s) {
        Ok(key) => {
            let (account, perms) = state.resolve(key);
            let can_trade = crate::config::can_trade(perms);
            if let Some(c) = state.shared.lock().conns.get_mut(&conn) {
                c.owner = Some(account);
                c.can_trade = can_trade;
            }
            let mut s = String::from("{\"event\":\"login\",\"code\":0,\"msg\":\"\",\"connId\":");
            push_json_str(&mut s, conn_id);
            s.push('}');
            Action {
                login: Some(account),
                ..Action::one(s)
            }
        }
        Err(e) => {
            tracing::info!(conn = conn_id, "login refused: {e}");
            Action {
                frames: vec![control_error(None, e.code(), &e.to_string())],
                close: true,
                login: None,
            }
        }
    }
}

fn subscribe(
    state: &AppState,
    conn: u64,
    conn_id: &str,
    private: bool,
    v: &Value,
    unsubscribe: bool,
) -> Action {
    let event = if unsubscribe {
        "unsubscribe"
    } else {
        "subscribe"
    };
    let Some(args) = v.get("args").and_then(Value::as_array) else {
        return Action::one(control_error(None, 30016, "Param error: args"));
    };
    let mut action = Action::default();
    let mut sh = state.shared.lock();
    let mut want_snapshot = false;
    let mut snapshots = Vec::new();
    let shared = &mut *sh;
    let venue = &shared.venue;
    let Some(entry) = shared.conns.get_mut(&conn) else {
        return action;
    };
    for arg in args {
        let inst_type = arg.get("instType").and_then(Value::as_str).unwrap_or("");
        let topic = arg.get("topic").and_then(Value::as_str).unwrap_or("");
        if private {
            if entry.owner.is_none() {
                action
                    .frames
                    .push(control_error(None, 30004, "User needs to log in"));
                continue;
            }
            match topic {
                "order" => entry.sub_order = !unsubscribe,
                "fill" => entry.sub_fill = !unsubscribe,
                // Snapshots right after the ack (reference §3.2: account yes, position yes
                // with non-zero positions), then a push on every change.
                "account" => {
                    entry.sub_account = !unsubscribe;
                    if !unsubscribe {
                        snapshots.push(crate::venue::Topic::Account);
                    }
                }
                "position" => {
                    entry.sub_position = !unsubscribe;
                    if !unsubscribe {
                        snapshots.push(crate::venue::Topic::Position);
                    }
                }
                // Acknowledged; the simulator does not push these yet.
                "fast-fill" => {}
                _ => {
                    action.frames.push(control_error(
                        None,
                        30001,
                        &format!("instType:{inst_type},topic:{topic} doesn't exist"),
                    ));
                    continue;
                }
            }
        } else {
            let symbol = arg.get("symbol").and_then(Value::as_str).unwrap_or("");
            let levels = book_levels(topic);
            let book = Category::parse_ws(inst_type).and_then(|c| venue.book_index(c, symbol));
            match (levels, book) {
                (Some(levels), Some(book)) => {
                    entry
                        .books
                        .retain(|b| !(b.topic == topic && b.book == book));
                    if !unsubscribe {
                        entry.books.push(BookSub {
                            book,
                            levels,
                            inst_type: inst_type.to_string(),
                            topic: topic.to_string(),
                            symbol: symbol.to_string(),
                            state: Default::default(),
                        });
                        want_snapshot = true;
                    }
                }
                // Other public topics (ticker, trades, ...) are acknowledged without data.
                (None, _) if !topic.is_empty() => {}
                _ => {
                    action.frames.push(control_error(
                        None,
                        30001,
                        &format!(
                            "instType:{inst_type},channel:{topic},instId:{symbol} doesn't exist"
                        ),
                    ));
                    continue;
                }
            }
        }
        let mut s = format!("{{\"event\":\"{event}\",\"arg\":");
        s.push_str(&arg.to_string());
        s.push_str(",\"code\":0,\"msg\":\"\",\"connId\":");
        push_json_str(&mut s, conn_id);
        s.push('}');
        action.frames.push(s);
    }
    if want_snapshot {
        // Queued behind the acks: the connection writes the acks first.
        sh.push_books(now_ms(), Some(conn));
    }
    if let Some(owner) = sh.conns.get(&conn).and_then(|c| c.owner) {
        let now = now_ms();
        for t in snapshots {
            let snap = match t {
                crate::venue::Topic::Account => Some(sh.venue.account_snapshot(owner, now)),
                _ => sh.venue.position_snapshot(owner, now),
            };
            if let (Some(snap), Some(c)) = (snap, sh.conns.get(&conn)) {
                let _ = c.tx.send(snap);
            }
        }
    }
    action
}

/// `msg` of the refusal of a trade op without a usable `id` (code `40017`, reference §6.2
/// "Parameter verification failed {0}").
const MISSING_ID: &str = "Parameter verification failed: id";

fn trade(state: &AppState, conn: u64, conn_id: &str, private: bool, v: &Value) -> Action {
    let id_raw = match v.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.to_string()),
        _ => None,
    };
    if !private {
        return Action::one(control_error(
            id_raw.as_deref(),
            30003,
            "Invalid op: trade ops are served on /v3/ws/private",
        ));
    }
    let mut sh = state.shared.lock();
    let Some(owner) = sh.conns.get(&conn).and_then(|c| c.owner) else {
        return Action::one(control_error(
            id_raw.as_deref(),
            30004,
            "User needs to log in",
        ));
    };
    // The request id is the only correlation key of the reply (reference §5.1): an op without
    // a usable one is refused before permissions, quota and faults, and not applied.
    match v.get("id") {
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(Value::Number(_)) => {}
        Some(Value::String(_)) => {
            return Action::one(trade_error("\"\"", 40017, MISSING_ID));
        }
        _ => {
            return Action::one(format!(
                "{{\"event\":\"error\",\"code\":\"40017\",\"msg\":\"{MISSING_ID}\"}}"
            ));
        }
    }
    if !sh.conns.get(&conn).is_some_and(|c| c.can_trade) {
        return Action::one(crate::render::trade_error(
            id_raw.as_deref().unwrap_or("\"\""),
            40014,
            "Incorrect permissions, need trade permissions",
        ));
    }
    if let Some(reply) = crate::rest::reply::ws_over_quota(state, owner, v) {
        return Action::one(reply);
    }
    let now = now_ms();
    let topic = v.get("topic").and_then(Value::as_str).unwrap_or("");
    let fault = state.faults.take_trade(owner, topic);
    let id = id_raw.as_deref().unwrap_or("\"\"");
    match &fault {
        Some(TradeFault::Reject { code, msg }) => return Action::one(trade_error(id, *code, msg)),
        Some(TradeFault::UnknownOutcome { applied: false }) => {
            return Action::one(trade_error(id, 40010, "Request timed out"))
        }
        _ => {}
    }
    let outcome = sh.venue.handle_trade(owner, v, conn_id, now);
    sh.dispatch(&outcome.pushes);
    if outcome.touched_liquidity {
        sh.refresh_liquidity(false, now);
    }
    drop(sh);
    if fault.is_some() {
        // Outcome unknown after applying: the order exists, its pushes follow this error.
        return Action::one(trade_error(id, 40010, "Request timed out"));
    }
    Action::one(outcome.reply)
}
