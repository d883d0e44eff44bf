//! What every REST handler shares, below all of them: the Bitget envelope (`code`, `msg`,
//! `requestTime`, `data`), the request size bound, query parameters, request signatures and
//! permissions, the per-UID quota, and the parameter errors.
//!
//! One code per situation, on every REST endpoint (and as the venue's WS trade ops answer):
//! - a required parameter that is missing (absent, `null` or the empty string — Bitget treats
//!   an empty value as "not set"), or a value that is malformed (not a number, out of range,
//!   wrong JSON type for a free-form field) → HTTP 400 `40017`
//!   `Parameter verification failed: <name>` ([`missing`]);
//! - a present value of an enumerated parameter that is not one of its accepted values
//!   (`category` — also a category the endpoint does not serve —, `side`, `orderType`,
//!   `posSide`, `holdMode`, …) → HTTP 400 `41101` `Param <name>=<value> error` ([`invalid`]),
//!   the text of the live capture for a wrong-case WS category (reference §6.2, [L]);
//! - a symbol that is not an instrument (of the category, when one is given) → HTTP 400
//!   `25100` `trading pair <symbol> does not exist` ([`unknown_symbol`]), also where the symbol
//!   only filters a list;
//! - a request larger than [`MAX_BODY_BYTES`] / [`MAX_QUERY_BYTES`] → HTTP 413 / 414 `40017`
//!   before anything else is looked at ([`bound_size`]).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::Value;

use crate::auth::{verify_rest, RestCredentials, RestRequest};
use crate::config::Category;
use crate::matching::AccountId;
use crate::ratelimit::Endpoint;
use crate::render::push_json_str;
use crate::state::{now_ms, AppState};
use crate::venue::Venue;

/// A JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// An error envelope (`data: null`, string code).
pub(crate) fn error(status: StatusCode, code: u32, msg: &str) -> Response {
    let mut s = format!("{{\"code\":\"{code}\",\"msg\":");
    push_json_str(&mut s, msg);
    s.push_str(&format!(",\"requestTime\":{},\"data\":null}}", now_ms()));
    json_response(status, s)
}

/// A success envelope around `data` (raw JSON).
pub(crate) fn ok(data: &str) -> Response {
    json_response(
        StatusCode::OK,
        format!(
            "{{\"code\":\"00000\",\"msg\":\"success\",\"requestTime\":{},\"data\":{data}}}",
            now_ms()
        ),
    )
}

/// Any other path: HTTP 404 with code `40404`.
pub(crate) async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, 40404, "Request URL NOT FOUND")
}

/// Value of `key` in a query string as sent (no decoding here: see [`param`]).
pub(crate) fn query_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// Verifies the `ACCESS-*` headers of a signed GET; `Err` is the error response (HTTP 400).
pub(crate) fn authenticate(
    state: &AppState,
    headers: &HeaderMap,
    path: &str,
    query: &str,
) -> Result<AccountId, Box<Response>> {
    authenticate_req(
        state,
        headers,
        RestRequest {
            method: "GET",
            path,
            query,
            body: "",
        },
    )
}

/// Verifies the `ACCESS-*` headers of a signed request.
pub(crate) fn authenticate_req(
    state: &AppState,
    headers: &HeaderMap,
    req: RestRequest<'_>,
) -> Result<AccountId, Box<Response>> {
    authenticate_perm(state, headers, req, false)
}

/// Verifies the `ACCESS-*` headers of a signed request and, with `trade`, that the key may
/// trade (`40014` otherwise); returns the account.
pub(crate) fn authenticate_perm(
    state: &AppState,
    headers: &HeaderMap,
    req: RestRequest<'_>,
    trade: bool,
) -> Result<AccountId, Box<Response>> {
    let key = authenticate_key(state, headers, req)?;
    let (owner, perms) = state.resolve(key);
    if trade && !crate::config::can_trade(perms) {
        return Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            40014,
            "Incorrect permissions, need trade permissions",
        )));
    }
    Ok(owner)
}

/// Signature checks only: the key entry index.
fn authenticate_key(
    state: &AppState,
    headers: &HeaderMap,
    req: RestRequest<'_>,
) -> Result<AccountId, Box<Response>> {
    let h = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let cred = RestCredentials {
        key: h("ACCESS-KEY"),
        sign: h("ACCESS-SIGN"),
        timestamp: h("ACCESS-TIMESTAMP"),
        passphrase: h("ACCESS-PASSPHRASE"),
    };
    verify_rest(&state.accounts, cred, req, now_ms(), state.login_window_s)
        .map_err(|e| Box::new(error(StatusCode::BAD_REQUEST, e.code(), &e.to_string())))
}

/// `Some(429 response)` when `owner` is over its quota for `ep` (reads the clock).
pub(crate) fn over_quota(state: &AppState, owner: AccountId, ep: Endpoint) -> Option<Response> {
    if state.limiter.lock().allow(owner, ep, now_ms()) {
        None
    } else {
        state
            .counters
            .rate_limited
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(error(
            StatusCode::TOO_MANY_REQUESTS,
            429,
            "Too Many Requests",
        ))
    }
}

/// The WS error reply of a trade op over its per-UID quota (the same buckets as REST), or
/// `None` when it may go on.
pub(crate) fn ws_over_quota(state: &AppState, owner: AccountId, req: &Value) -> Option<String> {
    let topic = req.get("topic").and_then(Value::as_str).unwrap_or("");
    let ep = Endpoint::of_ws_topic(topic)?;
    if state.limiter.lock().allow(owner, ep, now_ms()) {
        return None;
    }
    state
        .counters
        .rate_limited
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id_raw = match req.get("id") {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.to_string(),
        _ => "\"\"".to_string(),
    };
    Some(crate::render::trade_error(
        &id_raw,
        429,
        "Too Many Requests",
    ))
}

/// Largest REST request body, bytes (64 KiB). The largest documented request is a 20-item
/// batch (reference §7: place-batch, batch-modify-order, cancel-batch ≤ 20), about 6 KiB with
/// every optional field set, so this leaves ten times that and bounds what one request may
/// make the simulator buffer and parse. The reference documents no size limit nor code; a
/// larger body answers HTTP 413 with `40017` (see [`bound_size`]).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Longest REST query string, bytes (8 KiB): every documented GET takes a handful of short
/// parameters (reference §7). A longer one answers HTTP 414 with `40017` (see [`bound_size`]).
/// Above about 64 KiB the request line does not reach the simulator at all: hyper refuses it
/// itself (HTTP 414 without a body, the `http` crate's URI length limit).
pub const MAX_QUERY_BYTES: usize = 8 * 1024;

/// Middleware in front of every route (REST, public and signed, the WS upgrades and the
/// 404 fallback): a query string above [`MAX_QUERY_BYTES`] → HTTP 414, a body above
/// [`MAX_BODY_BYTES`] (by `Content-Length`, or counted while reading a chunked body) →
/// HTTP 413, a body that is not UTF-8 → HTTP 400; each with the Bitget envelope, code `40017`,
/// `Connection: close`, and before the signature is checked or anything is applied. Otherwise
/// the request goes on with its body buffered (so no handler meets axum's plain-text
/// rejections for these cases).
pub(crate) async fn bound_size(req: Request, next: Next) -> Response {
    let query_len = req.uri().query().map_or(0, str::len);
    if query_len > MAX_QUERY_BYTES {
        return too_large(
            StatusCode::URI_TOO_LONG,
            &format!(
                "Parameter verification failed: query string longer than {MAX_QUERY_BYTES} bytes"
            ),
        );
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return body_too_large();
    }
    let (parts, body) = req.into_parts();
    let mut stream = body.into_data_stream();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            return error(
                StatusCode::BAD_REQUEST,
                40017,
                "Parameter verification failed: body could not be read",
            );
        };
        if buf.len() + chunk.len() > MAX_BODY_BYTES {
            return body_too_large();
        }
        buf.extend_from_slice(&chunk);
    }
    if std::str::from_utf8(&buf).is_err() {
        let mut r = error(
            StatusCode::BAD_REQUEST,
            40017,
            "Parameter verification failed: body is not UTF-8",
        );
        r.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return r;
    }
    next.run(Request::from_parts(parts, Body::from(buf))).await
}

fn body_too_large() -> Response {
    too_large(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Parameter verification failed: request body larger than {MAX_BODY_BYTES} bytes"),
    )
}

/// A size refusal: `40017` with `status`, and the connection closed after it (the rest of an
/// unread body is not waited for).
fn too_large(status: StatusCode, msg: &str) -> Response {
    let mut r = error(status, 40017, msg);
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// HTTP 400 `40017` `Parameter verification failed: <name>`: a required parameter is missing
/// (absent, `null`, empty) or a value is malformed. `name` may carry a short reason.
pub(crate) fn missing(name: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        40017,
        &format!("Parameter verification failed: {name}"),
    )
}

/// HTTP 400 `41101` `Param <name>=<value> error`: a present value of an enumerated parameter
/// that is not accepted (the live capture's text for a wrong-case category, reference §6.2).
pub(crate) fn invalid(name: &str, value: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        41101,
        &format!("Param {name}={value} error"),
    )
}

/// HTTP 400 `25100` `trading pair <symbol> does not exist` (reference §6.2).
pub(crate) fn unknown_symbol(symbol: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        25100,
        &format!("trading pair {symbol} does not exist"),
    )
}

/// The percent-decoded value of `key` in a raw query string (as sent when it does not
/// decode); an empty value counts as absent (`None`).
pub(crate) fn param(query: &str, key: &str) -> Option<String> {
    query_param(query, key)
        .filter(|v| !v.is_empty())
        .map(|v| crate::query_decode::decode(v).unwrap_or_else(|| v.to_string()))
}

/// A REST `category` value in either case (`None` = absent or empty): absent and `required`
/// → `40017`; not a category → `41101` `Param category=<v> error`.
pub(crate) fn category(s: Option<&str>, required: bool) -> Result<Option<Category>, Box<Response>> {
    match s.filter(|c| !c.is_empty()) {
        None if required => Err(Box::new(missing("category"))),
        None => Ok(None),
        Some(c) => match Category::parse_any(c) {
            Some(c) => Ok(Some(c)),
            None => Err(Box::new(invalid("category", c))),
        },
    }
}

/// A required REST `category` value (see [`category`]).
pub(crate) fn required_category(s: Option<&str>) -> Result<Category, Box<Response>> {
    match category(s, true)? {
        Some(c) => Ok(c),
        None => Err(Box::new(missing("category"))),
    }
}

/// `Err(25100)` when `symbol` is given (not empty) and is no instrument of `category` (of any
/// category when `None`).
pub(crate) fn known_symbol(
    venue: &Venue,
    category: Option<Category>,
    symbol: Option<&str>,
) -> Result<(), Box<Response>> {
    let Some(s) = symbol.filter(|s| !s.is_empty()) else {
        return Ok(());
    };
    let known = venue
        .instruments()
        .iter()
        .any(|i| i.symbol == s && category.is_none_or(|c| c == i.category));
    if known {
        Ok(())
    } else {
        Err(Box::new(unknown_symbol(s)))
    }
}
