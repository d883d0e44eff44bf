//! What every REST handler shares, below all of them: the Bitget envelope (`code`, `msg`,
//! `requestTime`, `data`), query parameters, request signatures and permissions, the per-UID
//! quota, and the category and instruments query values.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::auth::{verify_rest, RestCredentials, RestRequest};
use crate::config::Category;
use crate::matching::AccountId;
use crate::ratelimit::Endpoint;
use crate::render::push_json_str;
use crate::state::{now_ms, AppState};

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

/// Value of `key` in a query string (no decoding here: see `decoded_params`).
pub(crate) fn query_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// The query with its values percent-decoded (`clientOid=a%3Ab` → `clientOid=a:b`, as ccxt sends
/// it), for reading parameters after the signature was checked over the raw query; unchanged
/// when it does not decode. Bitget parameter values never contain `&` or `=`.
pub(crate) fn decoded_params(query: String) -> String {
    match crate::query_decode::decode(&query) {
        Some(d) => d,
        None => query,
    }
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

/// Query of the instruments endpoints.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct InstrumentsQuery {
    pub(crate) category: Option<String>,
    pub(crate) symbol: Option<String>,
    pub(crate) limit: Option<String>,
}

/// A required REST `category` query value; missing or unknown → HTTP 400 `40017`.
pub(crate) fn required_category(s: Option<&str>) -> Result<Category, Box<Response>> {
    match parse_category(s) {
        Ok(Some(c)) => Ok(c),
        Ok(None) => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            40017,
            "Parameter verification failed: category",
        ))),
        Err(msg) => Err(Box::new(error(StatusCode::BAD_REQUEST, 40017, &msg))),
    }
}

/// A REST `category` query value in either case; `Err` carries the error message.
pub(crate) fn parse_category(s: Option<&str>) -> Result<Option<Category>, String> {
    match s {
        None | Some("") => Ok(None),
        Some(c) => Category::parse_any(c)
            .map(Some)
            .ok_or_else(|| format!("Parameter verification failed: category={c}")),
    }
}
