//! `GET /api/v3/market/tickers?category=..[&symbol=..]` (public): one ticker per symbol with
//! `symbol, category, lastPrice, markPrice, indexPrice, bid1Price, ask1Price, ts`. The mark is
//! the one positions use (override from `SimHandle::set_mark`, else the book mid, else the last
//! trade); `lastPrice` and `indexPrice` are the mark too (the simulator has no index).

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Response;

use super::reply::{known_symbol, ok, param, required_category};
use crate::render::push_json_str;
use crate::state::{now_ms, AppState};

/// The tickers handler. Missing category → HTTP 400 `40017`; bad category → `41101`; unknown
/// symbol → `25100`.
pub(crate) async fn tickers(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let category = match required_category(param(&query, "category").as_deref()) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let symbol = param(&query, "symbol");
    let sh = state.shared.lock();
    if let Err(r) = known_symbol(&sh.venue, Some(category), symbol.as_deref()) {
        return *r;
    }
    let marks = sh.venue.marks();
    let ts = now_ms();
    let mut data = String::from("[");
    for inst in sh.venue.instruments() {
        if inst.category != category || symbol.as_ref().is_some_and(|s| *s != inst.symbol) {
            continue;
        }
        let Some(mark) = marks.get(&(category, inst.symbol.clone())) else {
            continue;
        };
        let (bid, ask) = sh
            .venue
            .book_index(category, &inst.symbol)
            .and_then(|i| sh.venue.book(i))
            .map(|b| {
                let px = |v: Option<i64>| {
                    v.and_then(|m| codec::Decimal::new(m, b.spec().price_exp).ok())
                        .map(|d| d.normalized().to_string())
                        .unwrap_or_default()
                };
                (px(b.best_bid()), px(b.best_ask()))
            })
            .unwrap_or_default();
        if data.len() > 1 {
            data.push(',');
        }
        let m = mark.normalized().to_string();
        data.push('{');
        let mut first = true;
        for (k, v) in [
            ("symbol", inst.symbol.as_str()),
            ("category", category.rest_str()),
            ("lastPrice", &m),
            ("markPrice", &m),
            ("indexPrice", &m),
            ("bid1Price", &bid),
            ("ask1Price", &ask),
            ("ts", &ts.to_string()),
        ] {
            if !first {
                data.push(',');
            }
            first = false;
            push_json_str(&mut data, k);
            data.push(':');
            push_json_str(&mut data, v);
        }
        data.push('}');
    }
    data.push(']');
    drop(sh);
    ok(&data)
}
