//! JSON text of pushes and replies, written by hand (field order and spelling as in the
//! reference §4–§5 and the fixtures under `shared/fixtures/bitget-uta/`).

use std::fmt::Write as _;

use codec::Decimal;

use crate::config::Category;
use crate::matching::{Book, Fill, Order, Side};

/// Appends `s` as a JSON string literal (quoted, escaped).
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    // Ids, symbols, decimals and enum values need no escape: one copy.
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends `,"key":"value"` (value escaped).
fn kv(out: &mut String, key: &str, value: &str) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
    push_json_str(out, value);
}

/// Appends `,"key":"<decimal>"`.
fn kd(out: &mut String, key: &str, value: Decimal) {
    let _ = write!(out, ",\"{key}\":\"{value}\"");
}

/// Appends `,"key":"<integer>"`.
fn ku(out: &mut String, key: &str, value: u64) {
    let _ = write!(out, ",\"{key}\":\"{value}\"");
}

fn fee_detail(out: &mut String, fee: Decimal, coin: &str) {
    if fee.is_zero() {
        out.push_str(",\"feeDetail\":[]");
    } else {
        let _ = write!(
            out,
            ",\"feeDetail\":[{{\"feeCoin\":\"{coin}\",\"fee\":\"{fee}\"}}]"
        );
    }
}

/// `tradeSide` of a futures order in hedge mode (`open` / `close`), one-way mode by reduceOnly.
fn trade_side(
    side: Side,
    pos_side: Option<crate::matching::PosSide>,
    reduce_only: bool,
) -> &'static str {
    use crate::matching::PosSide;
    match pos_side {
        Some(PosSide::Long) if side == Side::Sell => "close",
        Some(PosSide::Short) if side == Side::Buy => "close",
        Some(_) => "open",
        None if reduce_only => "close",
        None => "open",
    }
}

/// `holdSide` of a futures order: the position side, or in one-way mode the side the order
/// builds (buy → long, sell → short; reduce-only the opposite).
fn hold_side(
    side: Side,
    pos_side: Option<crate::matching::PosSide>,
    reduce_only: bool,
) -> &'static str {
    if let Some(p) = pos_side {
        return p.as_str();
    }
    match (side, reduce_only) {
        (Side::Buy, false) | (Side::Sell, true) => "long",
        (Side::Sell, false) | (Side::Buy, true) => "short",
    }
}

/// One `order` push (one item in `data`), e.g. `ws_push_order_live.json`.
pub fn order_push(book: &Book, category: Category, o: &Order, ts_ms: u64) -> String {
    let mut s = String::with_capacity(900);
    s.push_str("{\"action\":\"snapshot\",\"arg\":{\"instType\":\"UTA\",\"topic\":\"order\"},\"data\":[{\"category\":\"");
    s.push_str(category.ws_str());
    s.push('"');
    kv(&mut s, "symbol", &book.spec().symbol);
    ku(&mut s, "orderId", o.order_id);
    kv(&mut s, "clientOid", &o.client_oid);
    match o.price {
        Some(p) => kd(&mut s, "price", book.price_dec(p)),
        None => s.push_str(",\"price\":\"\""),
    }
    match o.amount {
        // Spot market buy: qty and amount are the quote-coin amount sent.
        Some(a) => {
            kd(&mut s, "qty", a);
            kd(&mut s, "amount", a);
        }
        None => {
            kd(&mut s, "qty", book.qty_dec(o.qty));
            s.push_str(",\"amount\":\"0\"");
        }
    }
    let futures = category.is_futures();
    if futures {
        s.push_str(",\"holdMode\":");
        s.push_str(if o.pos_side.is_some() {
            "\"hedge_mode\""
        } else {
            "\"one_way_mode\""
        });
        kv(
            &mut s,
            "holdSide",
            hold_side(o.side, o.pos_side, o.reduce_only),
        );
        s.push_str(",\"delegateType\":\"normal\"");
        kv(
            &mut s,
            "tradeSide",
            trade_side(o.side, o.pos_side, o.reduce_only),
        );
    }
    kv(&mut s, "orderType", o.order_type.as_str());
    kv(&mut s, "timeInForce", o.tif.as_str());
    kv(&mut s, "side", o.side.as_str());
    if futures {
        s.push_str(",\"marginMode\":\"crossed\"");
        kv(&mut s, "marginCoin", &book.spec().quote_coin);
    }
    kv(
        &mut s,
        "reduceOnly",
        if o.reduce_only { "yes" } else { "no" },
    );
    kd(&mut s, "cumExecQty", book.qty_dec(o.cum_qty));
    kd(&mut s, "cumExecValue", book.value_dec(o.cum_value));
    kd(&mut s, "avgPrice", book.avg_price(o));
    if futures {
        s.push_str(",\"totalProfit\":\"0\"");
    }
    kv(&mut s, "orderStatus", o.status.as_str());
    kv(
        &mut s,
        "cancelReason",
        o.cancel_reason.map(|r| r.as_str()).unwrap_or(""),
    );
    if futures {
        s.push_str(",\"leverage\":\"10\"");
    }
    fee_detail(&mut s, o.cum_fee, &book.spec().quote_coin);
    ku(&mut s, "createdTime", o.created_ms);
    ku(&mut s, "updatedTime", o.updated_ms);
    kv(&mut s, "stpMode", o.stp_mode.as_str());
    if futures {
        // Present (empty) in the live capture `ws_push_order_live.json`; note lowercase
        // `takeprofit` / `stoploss`.
        s.push_str(",\"tpTriggerBy\":\"\",\"slTriggerBy\":\"\",\"takeprofit\":\"\",\"stoploss\":\"\",\"tpOrderType\":\"market\",\"slOrderType\":\"market\",\"tpLimitPrice\":\"\",\"slLimitPrice\":\"\"");
    }
    let _ = write!(s, "}}],\"ts\":{ts_ms}}}");
    s
}

/// One `fill` push, shaped like the live capture `ws_push_fill.json` (uppercase `category`,
/// as observed live; the doc example shows lowercase).
pub fn fill_push(book: &Book, category: Category, f: &Fill, ts_ms: u64) -> String {
    let mut s = String::with_capacity(600);
    s.push_str(
        "{\"action\":\"snapshot\",\"arg\":{\"instType\":\"UTA\",\"topic\":\"fill\"},\"data\":[{",
    );
    let _ = write!(s, "\"orderId\":\"{}\"", f.order_id);
    kv(&mut s, "clientOid", &f.client_oid);
    ku(&mut s, "execId", f.exec_id);
    kv(&mut s, "category", category.rest_str());
    kv(&mut s, "symbol", &book.spec().symbol);
    kv(&mut s, "orderType", f.order_type.as_str());
    kv(&mut s, "side", f.side.as_str());
    if category.is_futures() {
        kv(
            &mut s,
            "holdSide",
            hold_side(f.side, f.pos_side, f.reduce_only),
        );
    }
    kd(&mut s, "execQty", f.qty);
    kd(&mut s, "execValue", f.value);
    kd(&mut s, "execPrice", f.price);
    s.push_str(",\"execPnl\":\"0\"");
    kv(&mut s, "tradeScope", f.scope.as_str());
    fee_detail(&mut s, f.fee, &book.spec().quote_coin);
    ku(&mut s, "execTime", f.time_ms);
    ku(&mut s, "updatedTime", f.time_ms);
    if category.is_futures() {
        kv(
            &mut s,
            "tradeSide",
            trade_side(f.side, f.pos_side, f.reduce_only),
        );
    }
    ku(&mut s, "execLinkId", f.exec_link_id);
    let _ = write!(s, "}}],\"ts\":{ts_ms}}}");
    s
}

/// One item of a trade reply's `args`.
#[derive(Debug, Clone)]
pub struct ReplyItem {
    /// Symbol (place replies only).
    pub symbol: Option<String>,
    /// `orderId` (`""` when the item failed before an id existed).
    pub order_id: String,
    /// `clientOid` as known.
    pub client_oid: String,
    /// `cTime` (single place only).
    pub c_time_ms: Option<u64>,
    /// Per-item result for batch replies: `None` in single-op replies, `Some((0,"Success"))` or a
    /// reject in batch replies.
    pub result: Option<(u32, String)>,
}

/// A trade success reply (`event:"trade"`), e.g. `ws_place_order_ok.json`. `id_raw` is the
/// request id as raw JSON (string or number, echoed as received).
pub fn trade_reply(
    id_raw: &str,
    category: Option<Category>,
    topic: &str,
    items: &[ReplyItem],
    conn_id: &str,
    ts_ms: u64,
) -> String {
    let mut s = String::with_capacity(200 + 120 * items.len());
    s.push_str("{\"event\":\"trade\",\"id\":");
    s.push_str(id_raw);
    if let Some(c) = category {
        kv(&mut s, "category", c.ws_str());
    }
    kv(&mut s, "topic", topic);
    s.push_str(",\"args\":[");
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push('{');
        let mut first = true;
        let mut key = |s: &mut String, k: &str, v: &str| {
            if !first {
                s.push(',');
            }
            first = false;
            push_json_str(s, k);
            s.push(':');
            push_json_str(s, v);
        };
        if let Some((code, msg)) = &it.result {
            key(&mut s, "code", &code.to_string());
            key(&mut s, "msg", msg);
        }
        if let Some(sym) = &it.symbol {
            key(&mut s, "symbol", sym);
        }
        key(&mut s, "orderId", &it.order_id);
        key(&mut s, "clientOid", &it.client_oid);
        if let Some(t) = it.c_time_ms {
            key(&mut s, "cTime", &t.to_string());
        }
        s.push('}');
    }
    s.push_str("],\"code\":\"0\",\"msg\":\"Success\"");
    kv(&mut s, "connId", conn_id);
    ku(&mut s, "ts", ts_ms);
    s.push('}');
    s
}

/// A trade failure (`{"event":"error","id":..,"code":"25204","msg":".."}`, string code as live).
pub fn trade_error(id_raw: &str, code: u32, msg: &str) -> String {
    let mut s = String::with_capacity(100 + msg.len());
    s.push_str("{\"event\":\"error\",\"id\":");
    s.push_str(id_raw);
    let _ = write!(s, ",\"code\":\"{code}\"");
    kv(&mut s, "msg", msg);
    s.push('}');
    s
}

/// A control error (`{"event":"error","code":30004,"msg":".."}`, numeric code), with the
/// request id when there was one.
pub fn control_error(id_raw: Option<&str>, code: u32, msg: &str) -> String {
    let mut s = String::with_capacity(80 + msg.len());
    s.push_str("{\"event\":\"error\"");
    if let Some(id) = id_raw {
        s.push_str(",\"id\":");
        s.push_str(id);
    }
    let _ = write!(s, ",\"code\":{code}");
    kv(&mut s, "msg", msg);
    s.push('}');
    s
}

/// Depth levels of one side as `[["price","size"],..]` (strings, best first).
fn depth_side(out: &mut String, book: &Book, levels: &[(i64, i64)], as_numbers: bool) {
    out.push('[');
    for (i, (p, q)) in levels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if as_numbers {
            let _ = write!(out, "[{},{}]", book.price_dec(*p), book.qty_dec(*q));
        } else {
            let _ = write!(out, "[\"{}\",\"{}\"]", book.price_dec(*p), book.qty_dec(*q));
        }
    }
    out.push(']');
}

/// `GET /api/v3/market/orderbook` data: `{"a":[[price,size]..],"b":[..],"ts":"<ms>"}` (numbers
/// inside the arrays, as documented).
pub fn orderbook_data(book: &Book, limit: usize, ts_ms: u64) -> String {
    let mut s = String::from("{\"a\":");
    depth_side(&mut s, book, &book.depth(Side::Sell, limit), true);
    s.push_str(",\"b\":");
    depth_side(&mut s, book, &book.depth(Side::Buy, limit), true);
    let _ = write!(s, ",\"ts\":\"{ts_ms}\"}}");
    s
}

/// A public depth snapshot push (`books`, `books1`, `books5`, `books15`, `books50`), shaped like
/// `ws_push_books_update.json` with `"action":"snapshot"`; `checksum` is always 0 (the algorithm
/// is undocumented), `seq` increases, `pseq` is the previous `seq`.
#[allow(clippy::too_many_arguments)]
pub fn books_push(
    book: &Book,
    inst_type: &str,
    topic: &str,
    symbol: &str,
    levels: usize,
    seq: u64,
    ts_ms: u64,
) -> String {
    let mut s = String::with_capacity(200 + levels * 40);
    s.push_str("{\"action\":\"snapshot\",\"arg\":{\"instType\":");
    push_json_str(&mut s, inst_type);
    s.push_str(",\"topic\":");
    push_json_str(&mut s, topic);
    s.push_str(",\"symbol\":");
    push_json_str(&mut s, symbol);
    s.push_str("},\"data\":[{\"a\":");
    depth_side(&mut s, book, &book.depth(Side::Sell, levels), false);
    s.push_str(",\"b\":");
    depth_side(&mut s, book, &book.depth(Side::Buy, levels), false);
    let _ = write!(
        s,
        ",\"checksum\":0,\"pseq\":{},\"seq\":{seq},\"ts\":\"{ts_ms}\"}}],\"ts\":{ts_ms}}}",
        seq.saturating_sub(1)
    );
    s
}

/// The REST order object (`order-info`, `unfilled-orders`; reference §7): uppercase `category`,
/// `posSide`, `reduceOnly` `YES`/`NO`, plus `cancelReason` and `execType`.
pub fn order_rest(book: &Book, category: Category, o: &Order) -> String {
    let mut s = String::with_capacity(700);
    let _ = write!(s, "{{\"orderId\":\"{}\"", o.order_id);
    kv(&mut s, "clientOid", &o.client_oid);
    kv(&mut s, "category", category.rest_str());
    kv(&mut s, "symbol", &book.spec().symbol);
    kv(&mut s, "orderType", o.order_type.as_str());
    kv(&mut s, "side", o.side.as_str());
    match o.price {
        Some(p) => kd(&mut s, "price", book.price_dec(p)),
        None => s.push_str(",\"price\":\"\""),
    }
    match o.amount {
        Some(a) => {
            kd(&mut s, "qty", a);
            kd(&mut s, "amount", a);
        }
        None => {
            kd(&mut s, "qty", book.qty_dec(o.qty));
            s.push_str(",\"amount\":\"0\"");
        }
    }
    kd(&mut s, "cumExecQty", book.qty_dec(o.cum_qty));
    kd(&mut s, "cumExecValue", book.value_dec(o.cum_value));
    kd(&mut s, "avgPrice", book.avg_price(o));
    kv(&mut s, "timeInForce", o.tif.as_str());
    kv(&mut s, "orderStatus", o.status.as_str());
    if category.is_futures() {
        kv(
            &mut s,
            "posSide",
            hold_side(o.side, o.pos_side, o.reduce_only),
        );
        kv(
            &mut s,
            "holdMode",
            if o.pos_side.is_some() {
                "hedge_mode"
            } else {
                "one_way_mode"
            },
        );
        s.push_str(",\"marginMode\":\"crossed\"");
    }
    s.push_str(",\"delegateType\":\"normal\"");
    kv(
        &mut s,
        "reduceOnly",
        if o.reduce_only { "YES" } else { "NO" },
    );
    kv(&mut s, "stpMode", o.stp_mode.as_str());
    s.push_str(",\"takeProfit\":\"\",\"stopLoss\":\"\",\"tpTriggerBy\":\"\",\"slTriggerBy\":\"\",\"tpOrderType\":\"\",\"slOrderType\":\"\",\"tpLimitPrice\":\"\",\"slLimitPrice\":\"\"");
    if o.cum_fee.is_zero() {
        s.push_str(",\"feeDetail\":[{\"feeCoin\":null,\"fee\":null}]");
    } else {
        fee_detail(&mut s, o.cum_fee, &book.spec().quote_coin);
    }
    kv(
        &mut s,
        "cancelReason",
        o.cancel_reason.map(|r| r.as_str()).unwrap_or(""),
    );
    s.push_str(",\"execType\":\"normal\"");
    ku(&mut s, "createdTime", o.created_ms);
    ku(&mut s, "updatedTime", o.updated_ms);
    s.push('}');
    s
}

/// One fill object of `GET /api/v3/trade/fills` (reference §7 "Fill object"): uppercase
/// `category`, `tradeSide` for futures, `execPnl` 0 (positions are not simulated here).
pub fn fill_rest(book: &Book, category: Category, f: &Fill) -> String {
    let mut s = String::with_capacity(600);
    let _ = write!(s, "{{\"execId\":\"{}\"", f.exec_id);
    ku(&mut s, "execLinkId", f.exec_link_id);
    ku(&mut s, "orderId", f.order_id);
    kv(&mut s, "clientOid", &f.client_oid);
    kv(&mut s, "category", category.rest_str());
    kv(&mut s, "symbol", &book.spec().symbol);
    kv(&mut s, "orderType", f.order_type.as_str());
    kv(&mut s, "side", f.side.as_str());
    kd(&mut s, "execPrice", f.price);
    kd(&mut s, "execQty", f.qty);
    kd(&mut s, "execValue", f.value);
    kv(&mut s, "tradeScope", f.scope.as_str());
    kv(
        &mut s,
        "tradeSide",
        if category.is_futures() {
            trade_side(f.side, f.pos_side, f.reduce_only)
        } else {
            ""
        },
    );
    fee_detail(&mut s, f.fee, &book.spec().quote_coin);
    ku(&mut s, "createdTime", f.time_ms);
    ku(&mut s, "updatedTime", f.time_ms);
    s.push_str(",\"execPnl\":\"0\",\"isRPI\":\"NO\"}");
    s
}

#[cfg(test)]
mod tests {
    use super::push_json_str;

    /// Plain text is copied as is; quotes, backslashes and control characters are escaped
    /// wherever they are, so the result parses back to the input.
    #[test]
    fn json_strings_are_escaped_only_where_needed() {
        for s in [
            "",
            "1300000000000000000",
            "4:1uz",
            "a\"b",
            "c\\d",
            "x\ny\tz\r",
            "\u{1}é",
        ] {
            let mut out = String::new();
            push_json_str(&mut out, s);
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s, "{out}");
        }
        let mut out = String::new();
        push_json_str(&mut out, "BTCUSDT");
        assert_eq!(out, "\"BTCUSDT\"");
    }
}
