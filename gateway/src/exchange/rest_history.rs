//! REST queries that tell what happened to orders while the gateway could not see the `order` and
//! `fill` channels: `GET /api/v3/trade/order-info` (one order by clientOid), `history-orders`
//! (finished orders) and `fills` (reference §7: order and fill objects; cursor paging as for
//! `unfilled-orders`).

use codec::json;
use codec::sbe::{Category, Side, Symbol};
use gateway_core::budget::QueryEndpoint;
use serde_json::Value;

use super::error::ExchangeError;
use super::rest::RestClient;
use super::rest_orders::{
    bad, decimal, number, paged, parse_open_order, text, OpenOrder, MAX_PAGES, PAGE_LIMIT,
};

/// Path of the single-order query.
pub const ORDER_INFO_PATH: &str = QueryEndpoint::OrderInfo.path();
/// Path of the finished-orders query.
pub const HISTORY_ORDERS_PATH: &str = QueryEndpoint::HistoryOrders.path();
/// Path of the fills query.
pub const FILLS_PATH: &str = QueryEndpoint::Fills.path();

pub use gateway_core::tracker::report::ORDER_NOT_FOUND;

pub use gateway_core::rest_objects::ExchangeFill;

/// Parses one fill object.
///
/// Errors: [`ExchangeError::Protocol`] for a missing or malformed required field (`execId`,
/// `orderId`, `category`, `symbol`, `side`, `execPrice`, `execQty`).
pub fn parse_fill(v: &Value) -> Result<ExchangeFill, ExchangeError> {
    let exec_id = number(v, "execId");
    if exec_id == 0 {
        return Err(bad("execId"));
    }
    let order_id = number(v, "orderId");
    if order_id == 0 {
        return Err(bad("orderId"));
    }
    let category = json::Category::parse(text(v, "category").as_bytes())
        .map(Category::from)
        .ok_or_else(|| bad("category"))?;
    let symbol = Symbol::new(text(v, "symbol"))
        .ok()
        .filter(|s| !s.as_str().is_empty())
        .ok_or_else(|| bad("symbol"))?;
    let side: Side = json::Side::parse(text(v, "side").as_bytes())
        .ok_or_else(|| bad("side"))?
        .into();
    let exec_price = decimal(v, "execPrice")?;
    let exec_qty = decimal(v, "execQty")?;
    if exec_qty.is_zero() {
        return Err(bad("execQty"));
    }
    let exec_time_ms = match number(v, "createdTime") {
        0 => number(v, "updatedTime"),
        t => t,
    };
    Ok(ExchangeFill {
        exec_id,
        order_id,
        client_oid: text(v, "clientOid").to_owned(),
        category,
        symbol,
        side,
        exec_price,
        exec_qty,
        exec_value: decimal(v, "execValue")?,
        exec_time_ms,
    })
}

/// One order by clientOid (open or finished); `Ok(None)` when the exchange does not know it
/// ([`ORDER_NOT_FOUND`]). Paced, and asked again when refused for rate
/// ([`RestClient::query_get`]).
///
/// Errors: the REST client's (other Bitget codes as [`ExchangeError::Rejected`]) or
/// [`ExchangeError::Protocol`] for a malformed order object.
pub async fn order_info(
    rest: &RestClient,
    client_oid: &str,
) -> Result<Option<OpenOrder>, ExchangeError> {
    let query = format!("clientOid={client_oid}");
    match rest.query_get(QueryEndpoint::OrderInfo, &query).await {
        Ok(data) => parse_open_order(&data).map(Some),
        Err(ExchangeError::Rejected { code, .. }) if code == ORDER_NOT_FOUND => Ok(None),
        Err(e) => Err(e),
    }
}

/// The finished orders of `category` created since `start_ms` (UTC ms; the venue filters on
/// the creation time), all pages (at most [`MAX_PAGES`]).
///
/// Errors: as [`order_info`].
pub async fn history_orders(
    rest: &RestClient,
    category: Category,
    start_ms: u64,
) -> Result<Vec<OpenOrder>, ExchangeError> {
    history_orders_newest(rest, category, start_ms, MAX_PAGES).await
}

/// [`history_orders`], at most `max_pages` pages: the newest `max_pages` × [`PAGE_LIMIT`].
///
/// Errors: as [`order_info`].
pub async fn history_orders_newest(
    rest: &RestClient,
    category: Category,
    start_ms: u64,
    max_pages: usize,
) -> Result<Vec<OpenOrder>, ExchangeError> {
    let base = format!(
        "category={}&startTime={start_ms}&limit={PAGE_LIMIT}",
        json::Category::from(category).as_rest_str()
    );
    paged(
        rest,
        QueryEndpoint::HistoryOrders,
        &base,
        max_pages,
        parse_open_order,
    )
    .await
}

/// The fills since `start_ms` (UTC ms) of `category` (every category when `None`), or of one
/// order (`order_id`), all pages.
///
/// Errors: as [`order_info`].
pub async fn fills(
    rest: &RestClient,
    category: Option<Category>,
    start_ms: u64,
    order_id: Option<u64>,
) -> Result<Vec<ExchangeFill>, ExchangeError> {
    let mut base = format!("startTime={start_ms}&limit={PAGE_LIMIT}");
    if let Some(c) = category {
        base.push_str("&category=");
        base.push_str(json::Category::from(c).as_rest_str());
    }
    if let Some(id) = order_id {
        base.push_str(&format!("&orderId={id}"));
    }
    paged(rest, QueryEndpoint::Fills, &base, MAX_PAGES, parse_fill).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_object_parses() {
        let v: Value = serde_json::from_str(
            r#"{"execId":"123","execLinkId":"9","orderId":"456","clientOid":"5:a",
                "category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"sell",
                "execPrice":"50000.5","execQty":"0.002","execValue":"100.001","tradeScope":"maker",
                "createdTime":"1730186725663","updatedTime":"1730186725691"}"#,
        )
        .unwrap();
        let f = parse_fill(&v).unwrap();
        assert_eq!(f.exec_id, 123);
        assert_eq!(f.order_id, 456);
        assert_eq!(f.client_oid, "5:a");
        assert_eq!(f.side, Side::Sell);
        assert_eq!(f.exec_price, "50000.5".parse().unwrap());
        assert_eq!(f.exec_qty, "0.002".parse().unwrap());
        assert_eq!(f.exec_time_ms, 1_730_186_725_663);
    }

    #[test]
    fn bad_fills_are_errors_not_panics() {
        for body in [
            r#"{}"#,
            r#"{"execId":"x","orderId":"1"}"#,
            r#"{"execId":"1","orderId":"1","category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","execPrice":"1","execQty":"0"}"#,
            r#"{"execId":"1","orderId":"1","category":"nope","symbol":"BTCUSDT","side":"buy","execPrice":"1","execQty":"1"}"#,
            r#"{"execId":"1","orderId":"1","category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","execPrice":"1","execQty":"-1"}"#,
        ] {
            let v: Value = serde_json::from_str(body).unwrap();
            assert!(parse_fill(&v).is_err(), "{body}");
        }
    }
}
