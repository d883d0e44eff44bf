//! REST order queries: `GET /api/v3/trade/unfilled-orders` (reference §7; cursor paging as in
//! sim/README.md: newest first, `cursor` = last orderId of a full page, empty after the last).

use codec::json;
use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::Decimal;
use serde_json::Value;

use super::error::ExchangeError;
use super::rest::RestClient;

use gateway_core::budget::QueryEndpoint;

/// Path of the open-orders query.
pub const UNFILLED_ORDERS_PATH: &str = QueryEndpoint::UnfilledOrders.path();

pub use gateway_core::rest_objects::{OpenOrder, MAX_PAGES, PAGE_LIMIT};

/// A string field (`""` when absent or not a string).
pub(super) fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The error for a missing or malformed field of a REST order or fill object.
pub(super) fn bad(what: &str) -> ExchangeError {
    ExchangeError::Protocol(format!("REST order/fill object: bad or missing {what}"))
}

/// A non-negative decimal given as a string (prices, quantities and values of order and fill
/// objects are never negative); zero when absent or empty.
pub(super) fn decimal(v: &Value, key: &str) -> Result<Decimal, ExchangeError> {
    match text(v, key) {
        "" => Ok(Decimal::ZERO),
        s => s
            .parse::<Decimal>()
            .ok()
            .filter(|d| !d.is_negative())
            .ok_or_else(|| bad(key)),
    }
}

/// A u64 given as a string or a number; 0 when absent or malformed.
pub(super) fn number(v: &Value, key: &str) -> u64 {
    match v.get(key) {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

/// Parses one REST order object.
///
/// Errors: [`ExchangeError::Protocol`] for a missing or malformed required field.
pub fn parse_open_order(v: &Value) -> Result<OpenOrder, ExchangeError> {
    let order_id = text(v, "orderId").parse().map_err(|_| bad("orderId"))?;
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
    let ord_type = json::OrderType::parse(text(v, "orderType").as_bytes())
        .map_or(OrdType::Limit, OrdType::from);
    let time_in_force = json::TimeInForce::parse(text(v, "timeInForce").as_bytes())
        .map_or(TimeInForce::Gtc, TimeInForce::from);
    let price = Some(decimal(v, "price")?).filter(|p| !p.is_zero());
    let avg_px = Some(decimal(v, "avgPrice")?).filter(|p| !p.is_zero());
    let status = json::OrderStatus::parse(text(v, "orderStatus").as_bytes())
        .map_or(OrdStatus::New, OrdStatus::from);
    Ok(OpenOrder {
        order_id,
        client_oid: text(v, "clientOid").to_owned(),
        category,
        symbol,
        side,
        ord_type,
        time_in_force,
        price,
        qty: decimal(v, "qty")?,
        cum_qty: decimal(v, "cumExecQty")?,
        avg_px,
        status,
        cum_value: decimal(v, "cumExecValue")?,
        cancel_reason: text(v, "cancelReason").to_owned(),
        updated_time_ms: number(v, "updatedTime"),
    })
}

/// Parses one page (`data` of the envelope): its orders and the cursor (`""` when absent).
///
/// Errors: [`ExchangeError::Protocol`] when `list` is missing or an order is malformed.
pub fn parse_page(data: &Value) -> Result<(Vec<OpenOrder>, String), ExchangeError> {
    let list = data
        .get("list")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("list"))?;
    let orders = list
        .iter()
        .map(parse_open_order)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((orders, text(data, "cursor").to_owned()))
}

/// Every open order of the account (optionally of one category and symbol), reading pages of
/// [`PAGE_LIMIT`] until one is short or has no cursor (at most [`MAX_PAGES`]). Each page is signed
/// with the wall clock at its send time.
///
/// Errors: the REST client's ([`ExchangeError::Rejected`] carries the Bitget code), or
/// [`ExchangeError::Protocol`] for a malformed page.
pub async fn unfilled_orders(
    rest: &RestClient,
    category: Option<Category>,
    symbol: Option<&Symbol>,
) -> Result<Vec<OpenOrder>, ExchangeError> {
    let mut base = format!("limit={PAGE_LIMIT}");
    if let Some(c) = category {
        base.push_str("&category=");
        base.push_str(json::Category::from(c).as_rest_str());
    }
    if let Some(s) = symbol {
        base.push_str("&symbol=");
        base.push_str(s.as_str());
    }
    paged(
        rest,
        QueryEndpoint::UnfilledOrders,
        &base,
        MAX_PAGES,
        parse_open_order,
    )
    .await
}

/// Reads every page of a cursor-paged list query of `ep` (`base` = the query without cursor;
/// pages of [`PAGE_LIMIT`], at most `max_pages` (the newest objects first), each signed with the wall clock at its send
/// time and paced by the account's query budget: [`RestClient::query_get`], which also asks a
/// page refused for rate again, with the same cursor), parsing each element of `list` with
/// `parse`. Stops at a short page, an empty or repeated cursor.
///
/// Errors: the REST client's, [`ExchangeError::Protocol`] for a page without `list`, or the
/// first element `parse` refuses.
pub(super) async fn paged<T>(
    rest: &RestClient,
    ep: QueryEndpoint,
    base: &str,
    max_pages: usize,
    parse: impl Fn(&Value) -> Result<T, ExchangeError>,
) -> Result<Vec<T>, ExchangeError> {
    let path = ep.path();
    let mut all = Vec::new();
    let mut cursor = String::new();
    for _ in 0..max_pages {
        let query = if cursor.is_empty() {
            base.to_owned()
        } else {
            format!("{base}&cursor={cursor}")
        };
        let data = rest.query_get(ep, &query).await?;
        let list = data
            .get("list")
            .and_then(Value::as_array)
            .ok_or_else(|| ExchangeError::Protocol(format!("{path}: missing list")))?;
        let n = list.len();
        for v in list {
            all.push(parse(v)?);
        }
        let next = text(&data, "cursor").to_owned();
        if n < PAGE_LIMIT || next.is_empty() || next == cursor {
            break;
        }
        cursor = next;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::fixtures_dir;
    use crate::exchange::rest::parse_envelope;

    #[test]
    fn fixture_page_parses() {
        let body = std::fs::read(fixtures_dir().join("rest_unfilled_orders.json")).unwrap();
        let data = parse_envelope(200, &body).unwrap();
        let (orders, cursor) = parse_page(&data).unwrap();
        assert_eq!(cursor, "111111111111111111");
        assert_eq!(orders.len(), 1);
        let o = &orders[0];
        assert_eq!(o.order_id, 111_111_111_111_111_111);
        assert_eq!(o.client_oid, "s1:00000000005");
        assert_eq!(o.category, Category::UsdtFutures);
        assert_eq!(o.symbol.as_str(), "BTCUSDT");
        assert_eq!(o.side, Side::Buy);
        assert_eq!(o.price, Some("45000".parse().unwrap()));
        assert_eq!(o.qty, "0.01".parse().unwrap());
        assert_eq!(o.cum_qty, Decimal::ZERO);
        assert_eq!(o.avg_px, None);
        assert_eq!(o.status, OrdStatus::New);
    }

    #[test]
    fn malformed_orders_are_errors_not_panics() {
        for bad in [
            serde_json::json!({}),
            serde_json::json!({"list": [{"orderId": "x"}]}),
            serde_json::json!({"list": [{"orderId": "1", "category": "SPOT", "symbol": "BTCUSDT", "side": "up"}]}),
            serde_json::json!({"list": [{"orderId": "1", "category": "SPOT", "symbol": "BTCUSDT", "side": "buy", "qty": "1e"}]}),
            serde_json::json!({"list": [{"orderId": "1", "category": "SPOT", "symbol": "BTCUSDT", "side": "buy", "qty": "-1"}]}),
            serde_json::json!({"list": [{"orderId": "1", "category": "SPOT", "symbol": "BTCUSDT", "side": "buy", "qty": "1", "cumExecQty": "-0.5"}]}),
        ] {
            assert!(parse_page(&bad).is_err(), "{bad}");
        }
    }
}
