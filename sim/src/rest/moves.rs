//! Signed position-move endpoints (Bitget "Move Positions" / "Get Move Position History",
//! reference §7 P4); rules in [`crate::moves`], effects in
//! [`crate::venue::Venue::move_positions`]. Errors answer HTTP 400 with the code.
//!
//! - `POST /api/v3/account/move-positions` — `{fromUid, toUid, category, positionList:[{symbol,
//!   side, qty}], marginMode?}`; key with `trade`/`uta-trade` (else `40014`), of a master account
//!   on the whitelist; `data: {"closePosition":[..],"openPosition":[..]}`. After
//!   authentication, and before the body is read, the per-UID quota (P4 "Rate limit:
//!   1/sec/UID"; always on, [`crate::ratelimit::RateLimiter::always_on`]): a second request of
//!   the key's UID within 1000 ms answers HTTP 429 `{"code":"429","msg":"Too Many Requests",
//!   "data":null}` and never reaches the move rules (it is not "the previous request" of the
//!   1-minute spacing, [`crate::moves::rules::Pacer::admit`]).
//! - `GET /api/v3/account/move-position-history?category=..[&symbol][&fromUid][&startTime]
//!   [&endTime][&limit≤100][&cursor]` — master key only; newest first.
//!
//! Time: the rules read [`move_now_ms`] — the only place this module reads the clock; the
//! quota ([`over_quota`]) reads the same injected clock through the handler's task-local scope
//! ([`crate::clock::now_ms`]).

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

use super::reply::{authenticate_perm, error, ok, over_quota, query_param, required_category};
use crate::auth::RestRequest;
use crate::moves::{HistoryQuery, MoveError};
use crate::ratelimit::{AccountKind, Endpoint};
use crate::state::AppState;

/// Now for the move rules: the simulator's injectable clock (`Sim::start_with_clock`; a
/// `ManualClock` in tests) — the only place this module reads the time.
fn move_now_ms(state: &AppState) -> u64 {
    state.clock.now_ms()
}

fn refuse(e: &MoveError) -> Response {
    error(StatusCode::BAD_REQUEST, e.code(), &e.to_string())
}

/// `POST /api/v3/account/move-positions`.
pub(crate) async fn move_positions(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let path = "/api/v3/account/move-positions";
    let owner = match authenticate_perm(
        &state,
        &headers,
        RestRequest {
            method: "POST",
            path,
            query: "",
            body: &body,
        },
        true,
    ) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    state
        .counters
        .move_positions_requests
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(resp) = over_quota(&state, owner, Endpoint::Account(AccountKind::MovePositions)) {
        return resp;
    }
    let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(&body) else {
        return refuse(&MoveError::Param("body must be a JSON object".into()));
    };
    let now = move_now_ms(&state);
    let mut sh = state.shared.lock();
    match sh.venue.move_positions(owner, &v, now) {
        Ok(out) => {
            sh.dispatch(&out.pushes);
            drop(sh);
            ok(&out.reply)
        }
        Err(e) => refuse(&e),
    }
}

fn num_param(query: &str, k: &str) -> Result<Option<u64>, MoveError> {
    match query_param(query, k).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(v) => v
            .parse::<u64>()
            .map(Some)
            .map_err(|_| MoveError::Param(k.to_string())),
    }
}

/// `GET /api/v3/account/move-position-history`.
pub(crate) async fn move_position_history(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let owner = match authenticate_perm(
        &state,
        &headers,
        RestRequest {
            method: "GET",
            path: "/api/v3/account/move-position-history",
            query: &query,
            body: "",
        },
        false,
    ) {
        Ok(o) => o,
        Err(r) => return *r,
    };
    if let Some(resp) = over_quota(&state, owner, Endpoint::Account(AccountKind::MoveHistory)) {
        return resp;
    }
    // Missing → 40017, a value that is no category → 41101, as on every REST endpoint.
    let category = match required_category(query_param(&query, "category")) {
        Ok(c) => c,
        Err(resp) => return *resp,
    };
    let limit = match num_param(&query, "limit") {
        Ok(None) => 100,
        Ok(Some(n)) if (1..=100).contains(&n) => n as usize,
        Ok(Some(_)) => return refuse(&MoveError::Param("limit".into())),
        Err(e) => return refuse(&e),
    };
    let (cursor, start_ms, end_ms) = match (
        num_param(&query, "cursor"),
        num_param(&query, "startTime"),
        num_param(&query, "endTime"),
    ) {
        (Ok(c), Ok(s), Ok(e)) => (c, s, e),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return refuse(&e),
    };
    let sh = state.shared.lock();
    if !sh.venue.is_master(owner) {
        return refuse(&MoveError::NotMasterKey);
    }
    let data = sh.venue.move_history_json(
        owner,
        &HistoryQuery {
            category: Some(category),
            symbol: query_param(&query, "symbol"),
            from_uid: query_param(&query, "fromUid"),
            start_ms,
            end_ms,
            limit,
            cursor,
        },
    );
    drop(sh);
    ok(&data)
}
