//! `GET /api/v2/spot/public/coins` over real TLS: the coin list ccxt's `load_markets()` reads
//! (also in UTA mode), in the envelope and spelling of Bitget's V2 "Get Coin List" page.

mod common;

#[tokio::test]
async fn coin_list_names_every_instrument_coin() {
    let h = common::start(true).await;
    let (status, v) = common::https_get_with(&h, "/api/v2/spot/public/coins", &[]).await;
    assert!(status.contains(" 200 "), "{status}");
    assert_eq!(v["code"], "00000");
    assert!(v["requestTime"].is_u64());
    let coins: Vec<&str> = v["data"]
        .as_array()
        .expect("data array")
        .iter()
        .map(|c| c["coin"].as_str().expect("coin"))
        .collect();
    for c in ["BTC", "ETH", "USDT"] {
        assert!(coins.contains(&c), "{c} missing from {coins:?}");
    }
    let chain = &v["data"][0]["chains"][0];
    assert_eq!(chain["chain"], v["data"][0]["coin"]);
    assert_eq!(chain["withdrawable"], "true");
    assert_eq!(chain["rechargeable"], "true");
    let (_, v) = common::https_get_with(&h, "/api/v2/spot/public/coins?coin=ETH", &[]).await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["data"][0]["coin"], "ETH");
    h.shutdown().await;
}
