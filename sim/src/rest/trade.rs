//! REST trade endpoints (reference §7) over the venue's WebSocket trade-op code: a REST body is
//! turned into the equivalent `op:"trade"` request (same checks, codes and pushes), and its
//! reply into the REST envelope. The sans-I/O part ([`post_core`], [`query_core`]) takes the
//! venue and `now_ms`; the axum handlers add authentication, the per-UID quota and dispatch.
//!
//! - `place-order`, `modify-order`, `cancel-order`: JSON object body → `data:
//!   {"clientOid","orderId"}`; a refusal → HTTP 400 with the venue's code.
//! - `place-batch`, `batch-modify-order`, `cancel-batch`: JSON array body of 1..=20 items, all of
//!   one `category` (else `40017`); more than 20 → `40017`; a category that is no category →
//!   `41101` (the venue's answer). `data` is an array with one
//!   `{"orderId","clientOid","code","msg"}` per item, in request order (`"00000"`/`"success"`
//!   for an accepted item).
//! - `cancel-symbol-order`: `{"category", "symbol"?}` → `data: {"list":[{orderId, clientOid,
//!   code, msg}]}`; missing category `40017`, bad category `41101`, unknown symbol `25100`.
//! - `history-orders` (category required) and `fills`: `startTime`/`endTime` (ms) on the
//!   creation time, default end = now, default start = end − 30 days; start older than 90
//!   days, start after end or a span above 30 days → `40017`. `limit` 1..=100 (default 100),
//!   `cursor` = an id; later pages hold smaller ids. Bad category → `41101`, a symbol that is
//!   no instrument (of the category) → `25100`, a malformed number → `40017`.
//!
//! Parameter errors follow the one-code-per-situation rule of [`super::reply`]; an empty
//! `category` / `symbol` counts as absent, as in the queries.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Map, Value};

use super::reply::{authenticate_perm, authenticate_req, error, ok, over_quota};
use crate::auth::RestRequest;
use crate::config::Category;
use crate::faults::TradeFault;
use crate::matching::AccountId;
use crate::ratelimit::{Endpoint, QueryKind};
use crate::render::push_json_str;
use crate::state::{now_ms, AppState};
use crate::venue::{PageQuery, TradeOutcome, Venue};

/// A signed POST trade endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PostKind {
    /// `place-order`.
    Place,
    /// `modify-order`.
    Modify,
    /// `cancel-order`.
    Cancel,
    /// `place-batch`.
    PlaceBatch,
    /// `batch-modify-order`.
    BatchModify,
    /// `cancel-batch`.
    CancelBatch,
    /// `cancel-symbol-order`.
    CancelSymbol,
}

impl PostKind {
    /// Request path.
    pub(crate) fn path(self) -> &'static str {
        match self {
            PostKind::Place => "/api/v3/trade/place-order",
            PostKind::Modify => "/api/v3/trade/modify-order",
            PostKind::Cancel => "/api/v3/trade/cancel-order",
            PostKind::PlaceBatch => "/api/v3/trade/place-batch",
            PostKind::BatchModify => "/api/v3/trade/batch-modify-order",
            PostKind::CancelBatch => "/api/v3/trade/cancel-batch",
            PostKind::CancelSymbol => "/api/v3/trade/cancel-symbol-order",
        }
    }

    fn endpoint(self) -> Endpoint {
        match self {
            PostKind::Place => Endpoint::PlaceOrder,
            PostKind::Modify => Endpoint::ModifyOrder,
            PostKind::Cancel => Endpoint::CancelOrder,
            PostKind::PlaceBatch => Endpoint::PlaceBatch,
            PostKind::BatchModify => Endpoint::BatchModify,
            PostKind::CancelBatch => Endpoint::CancelBatch,
            PostKind::CancelSymbol => Endpoint::CancelSymbol,
        }
    }

    /// The WS trade topic handling the same request (`None` for cancel-symbol-order).
    fn ws_topic(self) -> Option<&'static str> {
        Some(match self {
            PostKind::Place => "place-order",
            PostKind::Modify => "modify-order",
            PostKind::Cancel => "cancel-order",
            PostKind::PlaceBatch => "batch-place",
            PostKind::BatchModify => "batch-modify",
            PostKind::CancelBatch => "batch-cancel",
            PostKind::CancelSymbol => return None,
        })
    }
}

/// A REST answer before it is put in the envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RestReply {
    /// `code "00000"` with this `data` JSON.
    Ok(String),
    /// An error: HTTP status, Bitget code, message.
    Err(u16, u32, String),
}

impl RestReply {
    fn bad(code: u32, msg: impl Into<String>) -> RestReply {
        RestReply::Err(400, code, msg.into())
    }

    fn param(field: &str) -> RestReply {
        RestReply::bad(40017, format!("Parameter verification failed: {field}"))
    }

    fn invalid(field: &str, value: &str) -> RestReply {
        RestReply::bad(41101, format!("Param {field}={value} error"))
    }

    fn unknown_symbol(symbol: &str) -> RestReply {
        RestReply::bad(25100, format!("trading pair {symbol} does not exist"))
    }

    fn into_response(self) -> Response {
        match self {
            RestReply::Ok(data) => ok(&data),
            RestReply::Err(status, code, msg) => error(
                StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
                code,
                &msg,
            ),
        }
    }
}

/// The WS spelling of a REST `category` value (either case); `None` for an absent one (`null`
/// or empty, so that a place answers `40017` as without it); other values pass unchanged so
/// that the venue answers them with its `41101` `Param category=<v> error`.
fn ws_category(c: Value) -> Option<Value> {
    match &c {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(
            Category::parse_any(s)
                .map(|c| Value::from(c.ws_str()))
                .unwrap_or(c),
        ),
        _ => Some(c),
    }
}

/// Builds the WS trade request for a REST body; `Err` is the REST error.
fn ws_request(kind: PostKind, topic: &str, body: &str) -> Result<Value, RestReply> {
    let parsed: Value =
        serde_json::from_str(body).map_err(|_| RestReply::param("body is not valid JSON"))?;
    let batch = matches!(
        kind,
        PostKind::PlaceBatch | PostKind::BatchModify | PostKind::CancelBatch
    );
    let mut items = match (batch, parsed) {
        (false, Value::Object(o)) => vec![Value::Object(o)],
        (false, _) => return Err(RestReply::param("body must be a JSON object")),
        (true, Value::Array(a)) => a,
        (true, _) => return Err(RestReply::param("body must be a JSON array")),
    };
    // One category for the whole request (WS carries it once, at the top).
    let mut category: Option<Value> = None;
    for item in &mut items {
        let Some(c) = item
            .as_object_mut()
            .and_then(|o| o.remove("category"))
            .and_then(ws_category)
        else {
            continue;
        };
        match &category {
            Some(prev) if *prev != c => {
                return Err(RestReply::param(
                    "category (every item of a batch must have the same category)",
                ))
            }
            _ => category = Some(c),
        }
    }
    let mut envelope = Map::new();
    envelope.insert("op".into(), "trade".into());
    envelope.insert("id".into(), "rest".into());
    envelope.insert("topic".into(), topic.into());
    if let Some(c) = category {
        envelope.insert("category".into(), c);
    }
    envelope.insert("args".into(), Value::Array(items));
    Ok(Value::Object(envelope))
}

/// REST `data` from the venue's WS reply.
fn rest_reply(batch: bool, reply: &str) -> RestReply {
    let Ok(reply) = serde_json::from_str::<Value>(reply) else {
        return RestReply::Err(500, 40725, "service return an error".into());
    };
    if reply.get("event").and_then(Value::as_str) != Some("trade") {
        let code = reply
            .get("code")
            .and_then(Value::as_str)
            .and_then(|c| c.parse().ok())
            .unwrap_or(40725);
        let msg = reply.get("msg").and_then(Value::as_str).unwrap_or("");
        return RestReply::bad(code, msg);
    }
    let empty = Vec::new();
    let args = reply
        .get("args")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut data = String::new();
    if !batch {
        let item = args.first().unwrap_or(&Value::Null);
        data.push_str("{\"clientOid\":");
        push_json_str(&mut data, &s(item, "clientOid"));
        data.push_str(",\"orderId\":");
        push_json_str(&mut data, &s(item, "orderId"));
        data.push('}');
        return RestReply::Ok(data);
    }
    data.push('[');
    for (i, item) in args.iter().enumerate() {
        if i > 0 {
            data.push(',');
        }
        let code = s(item, "code");
        let (code, msg) = if code == "0" || code.is_empty() {
            ("00000".to_string(), "success".to_string())
        } else {
            (code, s(item, "msg"))
        };
        item_json(
            &mut data,
            &s(item, "orderId"),
            &s(item, "clientOid"),
            &code,
            &msg,
        );
    }
    data.push(']');
    RestReply::Ok(data)
}

fn item_json(out: &mut String, order_id: &str, client_oid: &str, code: &str, msg: &str) {
    out.push_str("{\"orderId\":");
    push_json_str(out, order_id);
    out.push_str(",\"clientOid\":");
    push_json_str(out, client_oid);
    out.push_str(",\"code\":");
    push_json_str(out, code);
    out.push_str(",\"msg\":");
    push_json_str(out, msg);
    out.push('}');
}

/// `cancel-symbol-order` over the venue.
fn cancel_symbol(
    venue: &mut Venue,
    owner: AccountId,
    body: &str,
    now_ms: u64,
    outcome: &mut TradeOutcome,
) -> RestReply {
    let Ok(Value::Object(arg)) = serde_json::from_str::<Value>(body) else {
        return RestReply::param("body must be a JSON object");
    };
    let category = match arg.get("category") {
        None | Some(Value::Null) => return RestReply::param("category"),
        Some(Value::String(c)) if c.is_empty() => return RestReply::param("category"),
        Some(Value::String(c)) => match Category::parse_any(c) {
            Some(c) => c,
            None => return RestReply::invalid("category", c),
        },
        Some(other) => return RestReply::invalid("category", &other.to_string()),
    };
    let symbol = match arg.get("symbol") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return RestReply::param("symbol"),
    };
    match venue.cancel_symbol(owner, category, symbol, now_ms, outcome) {
        Err(r) => RestReply::bad(r.code, r.msg),
        Ok(results) => {
            let mut data = String::from("{\"list\":[");
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    data.push(',');
                }
                let (code, msg) = match &r.error {
                    None => ("00000".to_string(), "success".to_string()),
                    Some(e) => (e.code.to_string(), e.msg.clone()),
                };
                item_json(
                    &mut data,
                    &r.order_id.to_string(),
                    &r.client_oid,
                    &code,
                    &msg,
                );
            }
            data.push_str("]}");
            RestReply::Ok(data)
        }
    }
}

/// The sans-I/O part of a signed trade POST: `body` as received, the account already
/// authenticated. Pushes and liquidity touches land in the returned outcome.
pub(crate) fn post_core(
    venue: &mut Venue,
    owner: AccountId,
    kind: PostKind,
    body: &str,
    now_ms: u64,
) -> (RestReply, TradeOutcome) {
    let mut outcome = TradeOutcome::default();
    let Some(topic) = kind.ws_topic() else {
        let reply = cancel_symbol(venue, owner, body, now_ms, &mut outcome);
        return (reply, outcome);
    };
    let request = match ws_request(kind, topic, body) {
        Ok(r) => r,
        Err(e) => return (e, outcome),
    };
    let batch = topic.starts_with("batch-");
    outcome = venue.handle_rest_trade(owner, &request, now_ms);
    let reply = rest_reply(batch, &outcome.reply);
    (reply, outcome)
}

/// Value of `key` in a raw query string, percent-decoded (as sent when it does not decode).
fn query_param(query: &str, key: &str) -> Option<String> {
    super::reply::query_param(query, key)
        .map(|v| crate::query_decode::decode(v).unwrap_or_else(|| v.to_string()))
}

const DAY_MS: u64 = 24 * 3600 * 1000;

fn opt_u64(query: &str, key: &str) -> Result<Option<u64>, RestReply> {
    match query_param(query, key).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(v) => v
            .parse::<u64>()
            .map(Some)
            .map_err(|_| RestReply::param(key)),
    }
}

/// The sans-I/O part of `history-orders` / `fills` (other kinds answer `40404`).
pub(crate) fn query_core(
    venue: &Venue,
    owner: AccountId,
    kind: QueryKind,
    query: &str,
    now_ms: u64,
) -> RestReply {
    let category = match query_param(query, "category").filter(|c| !c.is_empty()) {
        None if kind == QueryKind::History => return RestReply::param("category"),
        None => None,
        Some(c) => match Category::parse_any(&c) {
            Some(c) => Some(c),
            None => return RestReply::invalid("category", &c),
        },
    };
    let parsed = (|| {
        let limit = match opt_u64(query, "limit")? {
            None => 100,
            Some(n) if (1..=100).contains(&n) => n as usize,
            Some(_) => return Err(RestReply::param("limit")),
        };
        let cursor = opt_u64(query, "cursor")?;
        let order_id = opt_u64(query, "orderId")?;
        let end_ms = opt_u64(query, "endTime")?.unwrap_or(now_ms);
        let start_ms = opt_u64(query, "startTime")?.unwrap_or(end_ms.saturating_sub(30 * DAY_MS));
        if start_ms > end_ms {
            return Err(RestReply::param("startTime must not be after endTime"));
        }
        if end_ms - start_ms > 30 * DAY_MS {
            return Err(RestReply::param(
                "the startTime-endTime span cannot exceed 30 days",
            ));
        }
        if start_ms < now_ms.saturating_sub(90 * DAY_MS) {
            return Err(RestReply::param(
                "startTime must be within the last 90 days",
            ));
        }
        Ok((limit, cursor, order_id, start_ms, end_ms))
    })();
    let (limit, cursor, order_id, start_ms, end_ms) = match parsed {
        Ok(p) => p,
        Err(e) => return e,
    };
    let symbol = query_param(query, "symbol").filter(|s| !s.is_empty());
    if let Some(s) = &symbol {
        let known = venue
            .instruments()
            .iter()
            .any(|i| i.symbol == *s && category.is_none_or(|c| c == i.category));
        if !known {
            return RestReply::unknown_symbol(s);
        }
    }
    let q = PageQuery {
        category,
        symbol: symbol.as_deref(),
        order_id,
        start_ms,
        end_ms,
        limit,
        cursor,
    };
    match kind {
        QueryKind::History => RestReply::Ok(venue.history_orders(owner, &q)),
        QueryKind::Fills => RestReply::Ok(venue.fills(owner, &q)),
        QueryKind::OrderInfo | QueryKind::Unfilled => {
            RestReply::Err(404, 40404, "Request URL NOT FOUND".into())
        }
    }
}

/// Handler of every signed trade POST (`kind` picks the endpoint).
pub(crate) async fn post(
    state: Arc<AppState>,
    headers: HeaderMap,
    body: String,
    kind: PostKind,
) -> Response {
    let req = RestRequest {
        method: "POST",
        path: kind.path(),
        query: "",
        body: &body,
    };
    let owner = match authenticate_perm(&state, &headers, req, true) {
        Ok(o) => o,
        Err(resp) => return *resp,
    };
    if let Some(resp) = over_quota(&state, owner, kind.endpoint()) {
        return resp;
    }
    // Trade-op faults (crate::faults) apply to REST trade ops too, keyed by the WS topic.
    let fault = kind
        .ws_topic()
        .and_then(|topic| state.faults.take_trade(owner, topic));
    match &fault {
        Some(TradeFault::Reject { code, msg }) => {
            return error(StatusCode::BAD_REQUEST, *code, msg)
        }
        Some(TradeFault::UnknownOutcome { applied: false }) => {
            return error(StatusCode::BAD_REQUEST, 40010, "Request timed out")
        }
        _ => {}
    }
    let now = now_ms();
    let mut sh = state.shared.lock();
    let (reply, outcome) = post_core(&mut sh.venue, owner, kind, &body, now);
    sh.dispatch(&outcome.pushes);
    if outcome.touched_liquidity {
        sh.refresh_liquidity(false, now);
    }
    drop(sh);
    if fault.is_some() {
        // Outcome unknown after applying the order.
        return error(StatusCode::BAD_REQUEST, 40010, "Request timed out");
    }
    reply.into_response()
}

/// Handler of `GET /api/v3/trade/history-orders` and `GET /api/v3/trade/fills`.
pub(crate) async fn get(
    state: Arc<AppState>,
    headers: HeaderMap,
    query: Option<String>,
    kind: QueryKind,
) -> Response {
    let query = query.unwrap_or_default();
    let path = match kind {
        QueryKind::History => "/api/v3/trade/history-orders",
        _ => "/api/v3/trade/fills",
    };
    let req = RestRequest {
        method: "GET",
        path,
        query: &query,
        body: "",
    };
    let owner = match authenticate_req(&state, &headers, req) {
        Ok(o) => o,
        Err(resp) => return *resp,
    };
    if let Some(resp) = over_quota(&state, owner, Endpoint::Query(kind)) {
        return resp;
    }
    let now = now_ms();
    let sh = state.shared.lock();
    let reply = query_core(&sh.venue, owner, kind, &query, now);
    drop(sh);
    reply.into_response()
}

/// `GET /api/v3/trade/history-orders` (axum handler).
pub(crate) async fn history_orders(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    get(state, headers, query, QueryKind::History).await
}

/// `GET /api/v3/trade/fills` (axum handler).
pub(crate) async fn fills(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    get(state, headers, query, QueryKind::Fills).await
}

#[cfg(test)]
mod tests;
