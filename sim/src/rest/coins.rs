//! `GET /api/v2/spot/public/coins[?coin=BTC]` — Bitget's coin list (spot "Get Coin List",
//! https://www.bitget.com/api-doc/spot/market/Get-Coin-List).
//!
//! Not part of the UTA v3 reference (`shared/reference/bitget-uta-v3.md` is silent on it), but
//! every ccxt `load_markets()` calls it, also in UTA mode (`fetch_currencies`), and fails without
//! it. The simulator lists every base and quote coin of its instruments, each with one chain named
//! after the coin, deposits and withdrawals enabled, in the field spelling of the V2 page (every
//! value a string).

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Response;

use crate::config::InstrumentConfig;
use crate::render::push_json_str;
use crate::state::AppState;

/// The `data` array: one object per distinct base/quote coin of `instruments` (sorted by name),
/// only `coin` when it is given and not empty.
pub fn coins_json(instruments: &[InstrumentConfig], coin: Option<&str>) -> String {
    let coins: BTreeSet<&str> = instruments
        .iter()
        .flat_map(|i| [i.base_coin.as_str(), i.quote_coin.as_str()])
        .filter(|c| coin.is_none_or(|f| f.is_empty() || f.eq_ignore_ascii_case(c)))
        .collect();
    let mut s = String::from("[");
    for (n, c) in coins.iter().enumerate() {
        if n > 0 {
            s.push(',');
        }
        s.push_str("{\"coinId\":\"");
        s.push_str(&(n + 1).to_string());
        s.push_str("\",\"coin\":");
        push_json_str(&mut s, c);
        s.push_str(",\"transfer\":\"true\",\"chains\":[{\"chain\":");
        push_json_str(&mut s, c);
        s.push_str(
            ",\"needTag\":\"false\",\"withdrawable\":\"true\",\"rechargeable\":\"true\",\
             \"withdrawFee\":\"0\",\"extraWithdrawFee\":\"0\",\"depositConfirm\":\"1\",\
             \"withdrawConfirm\":\"1\",\"minDepositAmount\":\"0\",\"minWithdrawAmount\":\"0\",\
             \"browserUrl\":\"\",\"contractAddress\":\"\",\"withdrawStep\":\"0\",\
             \"withdrawMinScale\":\"8\",\"congestion\":\"normal\"}],\"areaCoin\":\"no\"}",
        );
    }
    s.push(']');
    s
}

/// `GET /api/v2/spot/public/coins[?coin=..]` (public): envelope with [`coins_json`] as `data`
/// (the query read raw, so that no query answers axum's plain-text rejection).
pub(crate) async fn coins(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
) -> Response {
    let coin = super::reply::param(&query.unwrap_or_default(), "coin");
    let sh = state.shared.lock();
    let data = coins_json(sh.venue.instruments(), coin.as_deref());
    drop(sh);
    super::reply::ok(&data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimConfig;

    #[test]
    fn lists_each_base_and_quote_coin_once_with_one_chain() {
        let cfg = SimConfig::demo();
        let v: serde_json::Value =
            serde_json::from_str(&coins_json(&cfg.instruments, None)).expect("json");
        let names: Vec<&str> = v
            .as_array()
            .expect("array")
            .iter()
            .map(|c| c["coin"].as_str().expect("coin"))
            .collect();
        let mut expected: Vec<&str> = cfg
            .instruments
            .iter()
            .flat_map(|i| [i.base_coin.as_str(), i.quote_coin.as_str()])
            .collect();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(names, expected);
        let btc = &v[0];
        assert_eq!(btc["chains"][0]["chain"], btc["coin"]);
        assert_eq!(btc["chains"][0]["withdrawable"], "true");
        assert_eq!(btc["chains"][0]["rechargeable"], "true");
    }

    #[test]
    fn coin_filter_keeps_only_that_coin_in_any_case() {
        let cfg = SimConfig::demo();
        let v: serde_json::Value =
            serde_json::from_str(&coins_json(&cfg.instruments, Some("usdt"))).expect("json");
        assert_eq!(v.as_array().map(Vec::len), Some(1));
        assert_eq!(v[0]["coin"], "USDT");
        let none: serde_json::Value =
            serde_json::from_str(&coins_json(&cfg.instruments, Some("NOPE"))).expect("json");
        assert_eq!(none, serde_json::json!([]));
    }
}
