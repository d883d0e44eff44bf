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
//!
//! Parameter errors follow the one-code-per-situation rule of [`super::reply`]: missing or
//! malformed → `40017` `Parameter verification failed: <name>`; a present value that is not
//! accepted (`category` — also SPOT/MARGIN on current-position —, `posSide`, `holdMode`,
//! `side`, `orderType`) → `41101` `Param <name>=<value> error`; a symbol that is no instrument
//! of the category → `25100`.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use codec::Decimal;
use serde_json::Value;

use super::reply::{
    authenticate, authenticate_perm, category as category_param, error, invalid, known_symbol,
    missing, ok, over_quota, param,
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
        _ => Err(Box::new(missing("body must be a JSON object"))),
    }
}

/// A body field that must name one of a set of values: absent/empty → `None`, accepted →
/// `Some(value)`, otherwise `Err(41101)`.
fn enum_field(
    m: &serde_json::Map<String, Value>,
    k: &str,
    accepted: &[&str],
) -> Result<Option<String>, Box<Response>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) if accepted.contains(&s.as_str()) => Ok(Some(s.clone())),
        Some(Value::String(s)) => Err(Box::new(invalid(k, s))),
        Some(other) => Err(Box::new(invalid(k, &other.to_string()))),
    }
}

/// The body's `category` (either case): absent/empty → `40017`, not a category → `41101`.
fn body_category(m: &serde_json::Map<String, Value>) -> Result<Category, Box<Response>> {
    match m.get("category") {
        None | Some(Value::Null) => Err(Box::new(missing("category"))),
        Some(Value::String(s)) if s.is_empty() => Err(Box::new(missing("category"))),
        Some(Value::String(s)) => {
            Category::parse_any(s).ok_or_else(|| Box::new(invalid("category", s)))
        }
        Some(other) => Err(Box::new(invalid("category", &other.to_string()))),
    }
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
        .funding_json(owner, param(&query, "coin").as_deref());
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
    let Some(coin) = param(&query, "coin") else {
        return missing("coin");
    };
    let data = state
        .shared
        .lock()
        .venue
        .max_transferable_json(owner, &coin);
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
    let category_value = param(&query, "category");
    let category = match category_param(category_value.as_deref(), true) {
        Ok(Some(c)) if c.is_futures() => c,
        Ok(_) => return invalid("category", category_value.as_deref().unwrap_or("")),
        Err(r) => return *r,
    };
    let pos_side = match param(&query, "posSide") {
        None => None,
        Some(p) => match PosSide::parse(&p) {
            Some(p) => Some(p),
            None => return invalid("posSide", &p),
        },
    };
    let symbol = param(&query, "symbol");
    let sh = state.shared.lock();
    if let Err(r) = known_symbol(&sh.venue, Some(category), symbol.as_deref()) {
        return *r;
    }
    let data = sh
        .venue
        .positions_json(owner, category, symbol.as_deref(), pos_side);
    drop(sh);
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
    let category = match category_param(param(&query, "category").as_deref(), false) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let limit = match param(&query, "limit") {
        None => 100,
        Some(l) => match l.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return missing("limit"),
        },
    };
    let cursor = match param(&query, "cursor") {
        None => None,
        Some(c) => match c.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => return missing("cursor"),
        },
    };
    let coin = param(&query, "coin");
    let data = state.shared.lock().venue.accounts().records_json(
        owner,
        category,
        coin.as_deref(),
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
    let category = match body_category(&m) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let Some(symbol) = field(&m, "symbol") else {
        return missing("symbol");
    };
    for (k, accepted) in [
        ("side", &["buy", "sell"][..]),
        ("orderType", &["limit", "market"][..]),
    ] {
        if let Err(r) = enum_field(&m, k, accepted) {
            return *r;
        }
    }
    let price = match field(&m, "price") {
        None => None,
        Some(p) => match p.parse::<Decimal>() {
            Ok(p) if p.is_positive() => Some(p),
            _ => return missing("price"),
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
    let category = match body_category(&m) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let Some(leverage) = field(&m, "leverage").and_then(|l| l.parse::<Decimal>().ok()) else {
        return missing("leverage");
    };
    let symbol = field(&m, "symbol");
    let coin = field(&m, "coin");
    let mut sh = state.shared.lock();
    if category.is_futures() {
        if let Err(r) = known_symbol(&sh.venue, Some(category), symbol.as_deref()) {
            return *r;
        }
    }
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
    let mode = match enum_field(&m, "holdMode", &["one_way_mode", "hedge_mode"]) {
        Ok(Some(h)) => match HoldMode::parse(&h) {
            Some(mode) => mode,
            None => return invalid("holdMode", &h),
        },
        Ok(None) => return missing("holdMode"),
        Err(r) => return *r,
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
