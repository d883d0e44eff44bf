//! Signed account and position REST endpoints (reference §7), envelope and signature checks as
//! in [`crate::rest`]. Errors answer HTTP 400 with the code.
//!
//! - `GET /api/v3/account/assets` — account object (`accountEquity`, …, `assets:[..]`).
//! - `GET /api/v3/account/funding-assets[?coin=]` — `[{coin, available, frozen, balance}]`.
//! - `GET /api/v3/account/settings` — `uid, accountMode, accountLevel, assetMode, holdMode,
//!   stpMode, symbolConfigList, coinConfigList`.
//! - `GET /api/v3/account/max-transferable?coin=USDT` — `{coin, maxTransfer}` (the coin's
//!   available: equity − initial margin); `coin` required (`40017`).
//! - `POST /api/v3/account/max-open-available` — body `{category, symbol, orderType, side,
//!   price?, size?}`; unknown symbol `25100`.
//! - `POST /api/v3/account/set-leverage` — `{category, symbol | coin, leverage}` (integer
//!   1..=125, else `40017`); `data: "success"`; pushes `position` (when the symbol has one)
//!   and `account`.
//! - `POST /api/v3/account/set-hold-mode` — `{holdMode: one_way_mode | hedge_mode}`; `40920`
//!   with positions or pending orders; pushes `account`.
//! - `GET /api/v3/position/current-position?category=USDT-FUTURES[&symbol][&posSide]` —
//!   `{"list":[..]}` of non-zero positions.
//! - `GET /api/v3/account/financial-records?[category][&coin][&limit≤100][&cursor]` — one
//!   record per fill (fee and realised PnL), newest first; later pages hold ids below the
//!   cursor.
//!
//! Trade endpoints (set-leverage, set-hold-mode) need a key with `trade` or `uta-trade`
//! (`40014` otherwise).

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use codec::Decimal;
use serde_json::Value;

use super::reply::{
    authenticate, authenticate_perm, error, ok, over_quota, parse_category, query_param,
};
use crate::auth::RestRequest;
use crate::config::{Category, HoldMode};
use crate::matching::{AccountId, PosSide};
use crate::ratelimit::{AccountKind, Endpoint};
use crate::state::{now_ms, AppState};

/// Authenticates a signed GET, then takes one request from the account's per-UID quota of
/// `path` (HTTP 429 when over it).
fn get_auth(
    state: &AppState,
    headers: &HeaderMap,
    path: &'static str,
    query: &str,
) -> Result<AccountId, Box<Response>> {
    let owner = authenticate(state, headers, path, query)?;
    within_quota(state, owner, path)?;
    Ok(owner)
}

fn within_quota(
    state: &AppState,
    owner: AccountId,
    path: &'static str,
) -> Result<(), Box<Response>> {
    match over_quota(state, owner, Endpoint::Account(AccountKind::of_path(path))) {
        Some(resp) => Err(Box::new(resp)),
        None => Ok(()),
    }
}

fn post_auth(
    state: &AppState,
    headers: &HeaderMap,
    path: &'static str,
    body: &str,
    trade: bool,
) -> Result<(AccountId, serde_json::Map<String, Value>), Box<Response>> {
    let owner = authenticate_perm(
        state,
        headers,
        RestRequest {
            method: "POST",
            path,
            query: "",
            body,
        },
        trade,
    )?;
    within_quota(state, owner, path)?;
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok((owner, m)),
        _ => Err(Box::new(bad("body must be a JSON object"))),
    }
}

fn bad(field: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        40017,
        &format!("Parameter verification failed: {field}"),
    )
}

fn field(m: &serde_json::Map<String, Value>, k: &str) -> Option<String> {
    match m.get(k)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `GET /api/v3/account/assets`.
pub(crate) async fn assets(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(&state, &headers, "/api/v3/account/assets", &query) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let data = state.shared.lock().venue.assets_json(owner);
    ok(&data)
}

/// `GET /api/v3/account/funding-assets[?coin=]`.
pub(crate) async fn funding_assets(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(&state, &headers, "/api/v3/account/funding-assets", &query) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let data = state
        .shared
        .lock()
        .venue
        .accounts()
        .funding_json(owner, query_param(&query, "coin"));
    ok(&data)
}

/// `GET /api/v3/account/settings`.
pub(crate) async fn settings(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(&state, &headers, "/api/v3/account/settings", &query) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let data = state.shared.lock().venue.accounts().settings_json(owner);
    ok(&data)
}

/// `GET /api/v3/account/max-transferable?coin=`.
pub(crate) async fn max_transferable(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(&state, &headers, "/api/v3/account/max-transferable", &query) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let Some(coin) = query_param(&query, "coin").filter(|c| !c.is_empty()) else {
        return bad("coin");
    };
    let data = state.shared.lock().venue.max_transferable_json(owner, coin);
    ok(&data)
}

/// `GET /api/v3/position/current-position?category=..[&symbol][&posSide]`.
pub(crate) async fn current_position(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(
        &state,
        &headers,
        "/api/v3/position/current-position",
        &query,
    ) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let category = match parse_category(query_param(&query, "category")) {
        Ok(Some(c)) if c.is_futures() => c,
        _ => return bad("category"),
    };
    let pos_side = match query_param(&query, "posSide").filter(|s| !s.is_empty()) {
        None => None,
        Some(p) => match PosSide::parse(p) {
            Some(p) => Some(p),
            None => return bad("posSide"),
        },
    };
    let data = state.shared.lock().venue.positions_json(
        owner,
        category,
        query_param(&query, "symbol"),
        pos_side,
    );
    ok(&data)
}

/// `GET /api/v3/account/financial-records`.
pub(crate) async fn financial_records(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match get_auth(
        &state,
        &headers,
        "/api/v3/account/financial-records",
        &query,
    ) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    let category = match parse_category(query_param(&query, "category")) {
        Ok(c) => c,
        Err(_) => return bad("category"),
    };
    let limit = match query_param(&query, "limit").filter(|s| !s.is_empty()) {
        None => 100,
        Some(l) => match l.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return bad("limit"),
        },
    };
    let cursor = match query_param(&query, "cursor").filter(|s| !s.is_empty()) {
        None => None,
        Some(c) => match c.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => return bad("cursor"),
        },
    };
    let data = state.shared.lock().venue.accounts().records_json(
        owner,
        category,
        query_param(&query, "coin"),
        limit,
        cursor,
    );
    ok(&data)
}

/// `POST /api/v3/account/max-open-available`.
pub(crate) async fn max_open_available(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let (owner, m) = match post_auth(
        &state,
        &headers,
        "/api/v3/account/max-open-available",
        &body,
        false,
    ) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    let Some(category) = field(&m, "category").and_then(|c| Category::parse_any(&c)) else {
        return bad("category");
    };
    let Some(symbol) = field(&m, "symbol") else {
        return bad("symbol");
    };
    let price = match field(&m, "price") {
        None => None,
        Some(p) => match p.parse::<Decimal>() {
            Ok(p) if p.is_positive() => Some(p),
            _ => return bad("price"),
        },
    };
    let res = state
        .shared
        .lock()
        .venue
        .max_open_json(owner, category, &symbol, price);
    match res {
        Ok(d) => ok(&d),
        Err(e) => error(StatusCode::BAD_REQUEST, e.code, &e.msg),
    }
}

/// `POST /api/v3/account/set-leverage`.
pub(crate) async fn set_leverage(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let (owner, m) = match post_auth(
        &state,
        &headers,
        "/api/v3/account/set-leverage",
        &body,
        true,
    ) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    let Some(category) = field(&m, "category").and_then(|c| Category::parse_any(&c)) else {
        return bad("category");
    };
    let Some(leverage) = field(&m, "leverage").and_then(|l| l.parse::<Decimal>().ok()) else {
        return bad("leverage");
    };
    let symbol = field(&m, "symbol");
    let coin = field(&m, "coin");
    let mut sh = state.shared.lock();
    let res = sh.venue.set_leverage(
        owner,
        category,
        symbol.as_deref(),
        coin.as_deref(),
        leverage,
        now_ms(),
    );
    match res {
        Ok(pushes) => {
            sh.dispatch(&pushes);
            drop(sh);
            ok("\"success\"")
        }
        Err(e) => error(StatusCode::BAD_REQUEST, e.code(), &e.to_string()),
    }
}

/// `POST /api/v3/account/set-hold-mode`.
pub(crate) async fn set_hold_mode(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let (owner, m) = match post_auth(
        &state,
        &headers,
        "/api/v3/account/set-hold-mode",
        &body,
        true,
    ) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    let Some(mode) = field(&m, "holdMode").and_then(|h| HoldMode::parse(&h)) else {
        return bad("holdMode");
    };
    let mut sh = state.shared.lock();
    let res = sh.venue.set_hold_mode(owner, mode, now_ms());
    match res {
        Ok(pushes) => {
            sh.dispatch(&pushes);
            drop(sh);
            ok("\"success\"")
        }
        Err(e) => error(StatusCode::BAD_REQUEST, e.code(), &e.to_string()),
    }
}
