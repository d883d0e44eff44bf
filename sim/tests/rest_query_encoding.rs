//! Signed REST GETs with percent-encoded query values, over real TLS: the signature may be made
//! over the query as sent (bitget-api) or over its decoded form (ccxt: url `clientOid=a%3Ab`,
//! prehash `clientOid=a:b`); parameters are read decoded either way.

mod common;

use common::{https_get_with, signed_post, start};

/// A signed GET whose prehash uses `signed_query` while the URL carries `sent_query`.
async fn get_signed_over(
    h: &sim::SimHandle,
    path: &str,
    sent_query: &str,
    signed_query: &str,
) -> (String, serde_json::Value) {
    let ts = sim::now_ms().to_string();
    let sign = sim::auth::sign("secret-a", &format!("{ts}GET{path}?{signed_query}"));
    let headers = [
        ("ACCESS-KEY", "key-a".to_string()),
        ("ACCESS-SIGN", sign),
        ("ACCESS-TIMESTAMP", ts),
        ("ACCESS-PASSPHRASE", "pass-a".to_string()),
    ];
    https_get_with(h, &format!("{path}?{sent_query}"), &headers).await
}

#[tokio::test]
async fn encoded_client_oid_signed_raw_or_decoded_finds_the_order() {
    let h = start(true).await;
    let (_, placed) = signed_post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"oid:with:colons"}"#,
    )
    .await;
    assert_eq!(placed["code"], "00000", "{placed}");
    let order_id = placed["data"]["orderId"]
        .as_str()
        .expect("orderId")
        .to_string();
    let path = "/api/v3/trade/order-info";
    let sent = "clientOid=oid%3Awith%3Acolons";
    // Signed over the decoded query (ccxt).
    let (status, v) = get_signed_over(&h, path, sent, "clientOid=oid:with:colons").await;
    assert!(status.contains(" 200 "), "{status} {v}");
    assert_eq!(v["data"]["orderId"], order_id.as_str());
    assert_eq!(v["data"]["clientOid"], "oid:with:colons");
    // Signed over the query exactly as sent (bitget-api).
    let (status, v) = get_signed_over(&h, path, sent, sent).await;
    assert!(status.contains(" 200 "), "{status} {v}");
    assert_eq!(v["data"]["orderId"], order_id.as_str());
    // Signed over anything else: 40009.
    let (status, v) = get_signed_over(&h, path, sent, "clientOid=oid:other").await;
    assert!(status.contains(" 400 "), "{status}");
    assert_eq!(v["code"], "40009");
    // A malformed escape is refused, never decoded into something else.
    let (status, v) = get_signed_over(&h, path, "clientOid=oid%3", "clientOid=oid%3").await;
    assert!(status.contains(" 400 "), "{status}");
    assert_eq!(v["code"], "25204", "{v}");
    h.shutdown().await;
}
