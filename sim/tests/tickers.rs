//! `GET /api/v3/market/tickers`: the mark follows `SimHandle::set_mark`; unknown symbol and
//! missing category are refused.
#![allow(clippy::unwrap_used)]

mod common;

use common::{https_get_with, start};
use sim::config::Category;

#[tokio::test]
async fn tickers_carry_the_mark_set_on_the_handle() {
    let h = start(true).await;
    assert!(h.set_mark(
        Category::UsdtFutures,
        "BTCUSDT",
        Some("61234.5".parse().unwrap())
    ));
    let (status, v) = https_get_with(
        &h,
        "/api/v3/market/tickers?category=USDT-FUTURES&symbol=BTCUSDT",
        &[],
    )
    .await;
    assert!(status.contains("200"), "{status} {v}");
    let list = v["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
    assert_eq!(list[0]["symbol"], "BTCUSDT");
    assert_eq!(list[0]["category"], "USDT-FUTURES");
    assert_eq!(list[0]["markPrice"], "61234.5");

    let (_, all) = https_get_with(&h, "/api/v3/market/tickers?category=USDT-FUTURES", &[]).await;
    assert!(!all["data"].as_array().unwrap().is_empty(), "{all}");

    let (status, v) = https_get_with(
        &h,
        "/api/v3/market/tickers?category=USDT-FUTURES&symbol=NOPEUSDT",
        &[],
    )
    .await;
    assert!(status.contains("400"), "{status}");
    assert_eq!(v["code"], "25100");
    let (status, v) = https_get_with(&h, "/api/v3/market/tickers", &[]).await;
    assert!(status.contains("400"), "{status}");
    assert_eq!(v["code"], "40017");
}
