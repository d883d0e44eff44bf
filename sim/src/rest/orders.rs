//! REST endpoints (envelope `{"code":"00000","msg":"success","requestTime":<ms>,"data":..}`):
//! `GET /api/v3/market/instruments` (alias `/api/v3/public/instruments`),
//! `GET /api/v3/market/orderbook`, `GET /api/v3/public/time`, and the signed
//! `GET /api/v3/trade/order-info` and `GET /api/v3/trade/unfilled-orders`. Parameter errors
//! follow the one-code-per-situation rule of [`super::reply`] (`40017` missing/malformed,
//! `41101` bad category, `25100` unknown symbol).

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::reply::{
    authenticate, category, error, known_symbol, missing, ok, over_quota, param, required_category,
};
use crate::config::InstrumentConfig;
use crate::ratelimit::{Endpoint, QueryKind};
use crate::render::push_json_str;
use crate::state::{now_ms, AppState};

/// One instruments object, every value a string (shape of `rest_instruments_usdt_futures.json`).
pub fn instrument_json(i: &InstrumentConfig) -> String {
    let mut s = String::with_capacity(700);
    let mut kv = |k: &str, v: &str, first: bool| {
        if !first {
            s.push(',');
        }
        push_json_str(&mut s, k);
        s.push(':');
        push_json_str(&mut s, v);
    };
    let futures = i.category.is_futures();
    kv("symbol", &i.symbol, true);
    kv("category", i.category.rest_str(), false);
    kv("baseCoin", &i.base_coin, false);
    kv("quoteCoin", &i.quote_coin, false);
    // Zero = not set: Bitget writes "" (reference §7).
    let ratio = |r: codec::Decimal| {
        if r.is_positive() {
            r.normalized().to_string()
        } else {
            String::new()
        }
    };
    let cap = |n: u32| if n > 0 { n.to_string() } else { String::new() };
    kv("buyLimitPriceRatio", &ratio(i.buy_limit_price_ratio), false);
    kv(
        "sellLimitPriceRatio",
        &ratio(i.sell_limit_price_ratio),
        false,
    );
    kv(
        "makerFeeRate",
        &i.maker_fee_rate.normalized().to_string(),
        false,
    );
    kv(
        "takerFeeRate",
        &i.taker_fee_rate.normalized().to_string(),
        false,
    );
    kv(
        "minOrderQty",
        &i.min_order_qty.normalized().to_string(),
        false,
    );
    kv(
        "maxOrderQty",
        &i.max_order_qty.normalized().to_string(),
        false,
    );
    kv("pricePrecision", &i.price_precision().to_string(), false);
    kv(
        "quantityPrecision",
        &i.quantity_precision().to_string(),
        false,
    );
    kv("quotePrecision", if futures { "" } else { "8" }, false);
    kv(
        "priceMultiplier",
        &i.price_multiplier.normalized().to_string(),
        false,
    );
    kv(
        "quantityMultiplier",
        &i.quantity_multiplier.normalized().to_string(),
        false,
    );
    kv("type", if futures { "perpetual" } else { "" }, false);
    kv(
        "minOrderAmount",
        &i.min_order_amount.normalized().to_string(),
        false,
    );
    kv("maxSymbolOrderNum", &cap(i.max_symbol_order_num), false);
    kv("maxProductOrderNum", &cap(i.max_product_order_num), false);
    kv("maxPositionNum", "200", false);
    kv("status", "online", false);
    kv("offTime", "-1", false);
    kv("limitOpenTime", "-1", false);
    kv("fundInterval", if futures { "8" } else { "" }, false);
    kv("minLeverage", if futures { "1" } else { "" }, false);
    kv("maxLeverage", if futures { "125" } else { "" }, false);
    kv("symbolType", "crypto", false);
    kv(
        "maxMarketOrderQty",
        &i.max_order_qty.normalized().to_string(),
        false,
    );
    format!("{{{s}}}")
}

/// `GET /api/v3/market/instruments?category=USDT-FUTURES[&symbol=BTCUSDT]` (category in either
/// case; without it every instrument is listed). Bad category → `41101`; a symbol that is no
/// instrument (of the category) → `25100`.
pub(crate) async fn instruments(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let category = match category(param(&query, "category").as_deref(), false) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let symbol = param(&query, "symbol");
    let sh = state.shared.lock();
    if let Err(r) = known_symbol(&sh.venue, category, symbol.as_deref()) {
        return *r;
    }
    let mut data = String::from("[");
    let mut first = true;
    for i in sh.venue.instruments() {
        if category.is_some_and(|c| c != i.category) {
            continue;
        }
        if symbol.as_deref().is_some_and(|s| s != i.symbol) {
            continue;
        }
        if !first {
            data.push(',');
        }
        first = false;
        data.push_str(&instrument_json(i));
    }
    data.push(']');
    drop(sh);
    ok(&data)
}

/// `GET /api/v3/market/orderbook?category=..&symbol=..[&limit=5]` (limit 1..=200, default 5):
/// `data: {"a":[[price,size]..],"b":[..],"ts":"<ms>"}`. Missing category or symbol, bad limit
/// → `40017`; bad category → `41101`; unknown symbol → `25100` (all HTTP 400).
pub(crate) async fn orderbook(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let category = match required_category(param(&query, "category").as_deref()) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let Some(symbol) = param(&query, "symbol") else {
        return missing("symbol");
    };
    let limit = match param(&query, "limit") {
        None => 5,
        Some(l) => match l.parse::<usize>() {
            Ok(n) if (1..=200).contains(&n) => n,
            _ => return missing("limit"),
        },
    };
    let sh = state.shared.lock();
    let Some(book) = sh
        .venue
        .book_index(category, &symbol)
        .and_then(|i| sh.venue.book(i))
    else {
        drop(sh);
        return super::reply::unknown_symbol(&symbol);
    };
    let data = crate::render::orderbook_data(book, limit, now_ms());
    drop(sh);
    ok(&data)
}

/// `GET /api/v3/public/time` → `data: {"serverTime":"<ms>"}`.
pub(crate) async fn time() -> Response {
    ok(&format!("{{\"serverTime\":\"{}\"}}", now_ms()))
}

/// `GET /api/v3/trade/order-info?orderId=..|clientOid=..` (signed): the order object, open or
/// finished (the last 100 000 finished orders are kept). Neither given → `40017`; an id that
/// names no order of the account (also one that is not a number, as cancel-order and
/// modify-order answer it on both transports) → `25204` (HTTP 400).
pub(crate) async fn order_info(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match authenticate(&state, &headers, "/api/v3/trade/order-info", &query) {
        Ok(o) => o,
        Err(resp) => return *resp,
    };
    state
        .counters
        .order_info_queries
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(resp) = over_quota(&state, owner, Endpoint::Query(QueryKind::OrderInfo)) {
        return resp;
    }
    let order_id = param(&query, "orderId");
    let client_oid = param(&query, "clientOid");
    let sh = state.shared.lock();
    let res = sh
        .venue
        .order_info(owner, order_id.as_deref(), client_oid.as_deref());
    drop(sh);
    match res {
        Ok(data) => ok(&data),
        Err(e) => error(StatusCode::BAD_REQUEST, e.code, &e.msg),
    }
}

/// `GET /api/v3/trade/unfilled-orders?[category=..][&symbol=..][&limit=..][&cursor=..]`
/// (signed): the account's open orders, newest first, `limit` 1..=100 (default 100), `cursor`
/// = an orderId to continue below; `data: {"list":[..],"cursor":".."}`. Bad category →
/// `41101`, unknown symbol → `25100`, bad limit or cursor → `40017`.
pub(crate) async fn unfilled_orders(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match authenticate(&state, &headers, "/api/v3/trade/unfilled-orders", &query) {
        Ok(o) => o,
        Err(resp) => return *resp,
    };
    if let Some(resp) = over_quota(&state, owner, Endpoint::Query(QueryKind::Unfilled)) {
        return resp;
    }
    let category = match category(param(&query, "category").as_deref(), false) {
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
    let symbol = param(&query, "symbol");
    let sh = state.shared.lock();
    if let Err(r) = known_symbol(&sh.venue, category, symbol.as_deref()) {
        return *r;
    }
    let data = sh
        .venue
        .unfilled_orders(owner, category, symbol.as_deref(), limit, cursor);
    drop(sh);
    ok(&data)
}
