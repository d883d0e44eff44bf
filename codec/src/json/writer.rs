//! Hand-written writers for the private-WebSocket requests (reference §1.3 login, §3.1
//! subscribe, §5 trade operations). Each call appends one complete JSON text to the caller's
//! reused `Vec<u8>`; nothing is allocated apart from `out` growing. Strings are JSON-escaped,
//! decimals are written as JSON strings with [`Decimal::write_to`] (plain notation, scale kept).

use super::enums::{Category, OrderType, PosSide, Side, StpMode, TimeInForce};
use crate::decimal::Decimal;

/// The keep-alive text frame the client sends every ~30 s (reference §2.2); the server answers
/// the text `pong` ([`super::Inbound::Pong`]). Not JSON.
pub const PING: &[u8] = b"ping";

/// One order of a `place-order` or `batch-place` trade op (reference §5.1 "place-order args").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaceOrder<'a> {
    /// `symbol`, e.g. `BTCUSDT`.
    pub symbol: &'a str,
    /// `side`.
    pub side: Side,
    /// `orderType`.
    pub order_type: OrderType,
    /// `qty` (unit rules in §5.1).
    pub qty: Decimal,
    /// `price`; limit orders only (omitted when `None`).
    pub price: Option<Decimal>,
    /// `timeInForce`; omitted when `None` (Bitget default `gtc`).
    pub time_in_force: Option<TimeInForce>,
    /// `posSide`, hedge-mode futures only; omitted when `None`.
    pub pos_side: Option<PosSide>,
    /// `reduceOnly` as `"yes"`/`"no"`; omitted when `None`. Bitget documents it as unsupported on
    /// `batch-place`; the batch writer still writes it when set (never silently drops it).
    pub reduce_only: Option<bool>,
    /// `clientOid` (charset and length rules in §6.3); omitted when empty.
    pub client_oid: &'a str,
    /// `stpMode`; omitted when `None` (venue default).
    pub stp_mode: Option<StpMode>,
}

/// One order of a `modify-order` or `batch-modify` trade op (reference §5.1 "Modify args").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModifyOrder<'a> {
    /// `symbol`.
    pub symbol: &'a str,
    /// `orderId` (wins over `clientOid` on the venue); omitted when `None`.
    pub order_id: Option<&'a str>,
    /// `clientOid`; omitted when `None`.
    pub client_oid: Option<&'a str>,
    /// New `qty`; omitted when `None`.
    pub qty: Option<Decimal>,
    /// New `price`; omitted when `None`.
    pub price: Option<Decimal>,
    /// `autoCancel` as `"yes"`/`"no"` (cancel the order if the modification fails); always written.
    pub auto_cancel: bool,
}

/// One order of a `cancel-order` or `batch-cancel` trade op (reference §5.1 "Cancel args").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CancelOrder<'a> {
    /// `symbol`; omitted when `None`.
    pub symbol: Option<&'a str>,
    /// `orderId` (wins over `clientOid`); omitted when `None`.
    pub order_id: Option<&'a str>,
    /// `clientOid`; omitted when `None`.
    pub client_oid: Option<&'a str>,
}

/// One channel of a `subscribe`/`unsubscribe` request (reference §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscribeArg<'a> {
    /// `instType`: `UTA` for private topics, the lower-case category for public ones (§3.2, §3.3).
    pub inst_type: &'a str,
    /// `topic`, e.g. `order`, `fill`, `books5`.
    pub topic: &'a str,
    /// `symbol`; omitted when `None`.
    pub symbol: Option<&'a str>,
}

/// Appends `s` as a JSON string literal (quotes included), escaping `"`, `\` and control
/// characters (RFC 8259 §7). Non-ASCII UTF-8 is copied unchanged.
pub fn write_json_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.push(b'"');
    // Fast path: ids, symbols and keys never need escaping.
    if !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => {
                out.extend_from_slice(&bytes[start..i]);
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(esc);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends `"key":` (the key is a trusted ASCII literal, not escaped).
#[inline]
fn key(out: &mut Vec<u8>, k: &str) {
    out.push(b'"');
    out.extend_from_slice(k.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Appends `"value"` for a trusted ASCII literal (enum spellings).
#[inline]
fn lit(out: &mut Vec<u8>, v: &str) {
    out.push(b'"');
    out.extend_from_slice(v.as_bytes());
    out.push(b'"');
}

/// Appends a decimal as a JSON string.
#[inline]
fn dec(out: &mut Vec<u8>, d: Decimal) {
    out.push(b'"');
    d.write_to(out);
    out.push(b'"');
}

#[inline]
fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Appends `{"op":"trade","id":<id>[,"category":<c>],"topic":<topic>,"args":[` (§5.1).
fn envelope_start(out: &mut Vec<u8>, id: &str, category: Option<Category>, topic: &str) {
    out.extend_from_slice(b"{\"op\":\"trade\",\"id\":");
    write_json_str(out, id);
    if let Some(c) = category {
        out.extend_from_slice(b",\"category\":");
        lit(out, c.as_ws_str());
    }
    out.extend_from_slice(b",\"topic\":");
    lit(out, topic);
    out.extend_from_slice(b",\"args\":[");
}

#[inline]
fn envelope_end(out: &mut Vec<u8>) {
    out.extend_from_slice(b"]}");
}

fn place_args(out: &mut Vec<u8>, o: &PlaceOrder<'_>) {
    out.push(b'{');
    key(out, "symbol");
    write_json_str(out, o.symbol);
    out.extend_from_slice(b",\"side\":");
    lit(out, o.side.as_str());
    out.extend_from_slice(b",\"orderType\":");
    lit(out, o.order_type.as_str());
    out.extend_from_slice(b",\"qty\":");
    dec(out, o.qty);
    if let Some(p) = o.price {
        out.extend_from_slice(b",\"price\":");
        dec(out, p);
    }
    if let Some(t) = o.time_in_force {
        out.extend_from_slice(b",\"timeInForce\":");
        lit(out, t.as_str());
    }
    if let Some(p) = o.pos_side {
        out.extend_from_slice(b",\"posSide\":");
        lit(out, p.as_str());
    }
    if let Some(r) = o.reduce_only {
        out.extend_from_slice(b",\"reduceOnly\":");
        lit(out, yes_no(r));
    }
    if !o.client_oid.is_empty() {
        out.extend_from_slice(b",\"clientOid\":");
        write_json_str(out, o.client_oid);
    }
    if let Some(s) = o.stp_mode {
        out.extend_from_slice(b",\"stpMode\":");
        lit(out, s.as_str());
    }
    out.push(b'}');
}

fn modify_args(out: &mut Vec<u8>, m: &ModifyOrder<'_>) {
    out.push(b'{');
    key(out, "symbol");
    write_json_str(out, m.symbol);
    if let Some(id) = m.order_id {
        out.extend_from_slice(b",\"orderId\":");
        write_json_str(out, id);
    }
    if let Some(id) = m.client_oid {
        out.extend_from_slice(b",\"clientOid\":");
        write_json_str(out, id);
    }
    if let Some(q) = m.qty {
        out.extend_from_slice(b",\"qty\":");
        dec(out, q);
    }
    if let Some(p) = m.price {
        out.extend_from_slice(b",\"price\":");
        dec(out, p);
    }
    out.extend_from_slice(b",\"autoCancel\":");
    lit(out, yes_no(m.auto_cancel));
    out.push(b'}');
}

fn cancel_args(out: &mut Vec<u8>, c: &CancelOrder<'_>) {
    out.push(b'{');
    let mut first = true;
    for (k, v) in [
        ("symbol", c.symbol),
        ("orderId", c.order_id),
        ("clientOid", c.client_oid),
    ] {
        if let Some(v) = v {
            if !first {
                out.push(b',');
            }
            first = false;
            key(out, k);
            write_json_str(out, v);
        }
    }
    out.push(b'}');
}

fn list<T>(out: &mut Vec<u8>, items: &[T], one: fn(&mut Vec<u8>, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        one(out, item);
    }
}

/// Appends a `place-order` trade op (reference §5.1, §5.2):
/// `{"op":"trade","id":..,"category":"usdt-futures","topic":"place-order","args":[{..}]}`.
pub fn write_place_order(out: &mut Vec<u8>, id: &str, category: Category, o: &PlaceOrder<'_>) {
    out.reserve(256);
    envelope_start(out, id, Some(category), "place-order");
    place_args(out, o);
    envelope_end(out);
}

/// Appends a `modify-order` trade op (reference §5.1 "Modify args", §5.2).
pub fn write_modify_order(out: &mut Vec<u8>, id: &str, category: Category, m: &ModifyOrder<'_>) {
    out.reserve(256);
    envelope_start(out, id, Some(category), "modify-order");
    modify_args(out, m);
    envelope_end(out);
}

/// Appends a `cancel-order` trade op (reference §5.1 "Cancel args", §5.2); `category` is
/// optional on this topic and omitted when `None`.
pub fn write_cancel_order(
    out: &mut Vec<u8>,
    id: &str,
    category: Option<Category>,
    c: &CancelOrder<'_>,
) {
    out.reserve(160);
    envelope_start(out, id, category, "cancel-order");
    cancel_args(out, c);
    envelope_end(out);
}

/// Appends a `batch-place` trade op (reference §5.1: ≤ 20 orders of one category; the venue's
/// limit is not checked here).
pub fn write_batch_place(
    out: &mut Vec<u8>,
    id: &str,
    category: Category,
    orders: &[PlaceOrder<'_>],
) {
    out.reserve(96 + 192 * orders.len());
    envelope_start(out, id, Some(category), "batch-place");
    list(out, orders, |out, o| place_args(out, o));
    envelope_end(out);
}

/// Appends a `batch-modify` trade op (reference §5.1, §5.2); `category` omitted when `None`.
pub fn write_batch_modify(
    out: &mut Vec<u8>,
    id: &str,
    category: Option<Category>,
    orders: &[ModifyOrder<'_>],
) {
    out.reserve(96 + 160 * orders.len());
    envelope_start(out, id, category, "batch-modify");
    list(out, orders, |out, m| modify_args(out, m));
    envelope_end(out);
}

/// Appends a `batch-cancel` trade op (reference §5.1, §5.2; use one identifier type per call,
/// §5.1); `category` omitted when `None`.
pub fn write_batch_cancel(
    out: &mut Vec<u8>,
    id: &str,
    category: Option<Category>,
    orders: &[CancelOrder<'_>],
) {
    out.reserve(96 + 96 * orders.len());
    envelope_start(out, id, category, "batch-cancel");
    list(out, orders, |out, c| cancel_args(out, c));
    envelope_end(out);
}

/// Appends the login request (reference §1.3):
/// `{"op":"login","args":[{"apiKey":..,"passphrase":..,"timestamp":..,"sign":..}]}`. The
/// timestamp is sent as a string (seconds, per §1.3); `sign` is the base64 HMAC computed by the
/// caller over `timestamp + "GET" + "/user/verify"`.
pub fn write_login(
    out: &mut Vec<u8>,
    api_key: &str,
    passphrase: &str,
    timestamp: &str,
    sign: &str,
) {
    out.reserve(192);
    out.extend_from_slice(b"{\"op\":\"login\",\"args\":[{\"apiKey\":");
    write_json_str(out, api_key);
    out.extend_from_slice(b",\"passphrase\":");
    write_json_str(out, passphrase);
    out.extend_from_slice(b",\"timestamp\":");
    write_json_str(out, timestamp);
    out.extend_from_slice(b",\"sign\":");
    write_json_str(out, sign);
    out.extend_from_slice(b"}]}");
}

/// Appends a `subscribe` (or, with `unsubscribe`, an `unsubscribe`) request (reference §3.1):
/// `{"op":"subscribe","args":[{"instType":"UTA","topic":"order"}]}`. Bitget caps one request at
/// 4096 bytes (§2.3); not checked here.
pub fn write_subscribe(out: &mut Vec<u8>, unsubscribe: bool, args: &[SubscribeArg<'_>]) {
    out.reserve(32 + 64 * args.len());
    out.extend_from_slice(if unsubscribe {
        b"{\"op\":\"unsubscribe\",\"args\":["
    } else {
        b"{\"op\":\"subscribe\",\"args\":["
    });
    list(out, args, |out, a| {
        out.extend_from_slice(b"{\"instType\":");
        write_json_str(out, a.inst_type);
        out.extend_from_slice(b",\"topic\":");
        write_json_str(out, a.topic);
        if let Some(s) = a.symbol {
            out.extend_from_slice(b",\"symbol\":");
            write_json_str(out, s);
        }
        out.push(b'}');
    });
    out.extend_from_slice(b"]}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn parsed(out: &[u8]) -> Value {
        serde_json::from_slice(out).unwrap()
    }

    fn market_sell() -> PlaceOrder<'static> {
        PlaceOrder {
            symbol: "ETHUSDT",
            side: Side::Sell,
            order_type: OrderType::Market,
            qty: d("0.50"),
            price: None,
            time_in_force: None,
            pos_side: None,
            reduce_only: Some(true),
            client_oid: "s1:2",
            stp_mode: None,
        }
    }

    #[test]
    fn place_order_full_and_minimal() {
        let mut out = Vec::new();
        let o = PlaceOrder {
            symbol: "BTCUSDT",
            side: Side::Buy,
            order_type: OrderType::Limit,
            qty: d("0.0002"),
            price: Some(d("-0.05")),
            time_in_force: Some(TimeInForce::PostOnly),
            pos_side: Some(PosSide::Short),
            reduce_only: Some(false),
            client_oid: "s1:1",
            stp_mode: Some(StpMode::CancelBoth),
        };
        write_place_order(&mut out, "7", Category::Spot, &o);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"7","category":"spot","topic":"place-order","args":[{
                "symbol":"BTCUSDT","side":"buy","orderType":"limit","qty":"0.0002","price":"-0.05",
                "timeInForce":"post_only","posSide":"short","reduceOnly":"no","clientOid":"s1:1",
                "stpMode":"cancel_both"}]})
        );
        // Appends: a second call leaves the first text in place.
        let first = out.len();
        let m = PlaceOrder {
            client_oid: "",
            reduce_only: None,
            ..market_sell()
        };
        write_place_order(&mut out, "8", Category::CoinFutures, &m);
        assert_eq!(
            parsed(&out[first..]),
            json!({"op":"trade","id":"8","category":"coin-futures","topic":"place-order","args":[{
                "symbol":"ETHUSDT","side":"sell","orderType":"market","qty":"0.50"}]})
        );
    }

    #[test]
    fn modify_and_cancel() {
        let mut out = Vec::new();
        let m = ModifyOrder {
            symbol: "BTCUSDT",
            order_id: None,
            client_oid: Some("s1:9"),
            qty: None,
            price: Some(d("30000.5")),
            auto_cancel: false,
        };
        write_modify_order(&mut out, "m1", Category::UsdcFutures, &m);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"m1","category":"usdc-futures","topic":"modify-order","args":[{
                "symbol":"BTCUSDT","clientOid":"s1:9","price":"30000.5","autoCancel":"no"}]})
        );
        out.clear();
        let c = CancelOrder {
            symbol: None,
            order_id: Some("123"),
            client_oid: Some("s1:9"),
        };
        write_cancel_order(&mut out, "c1", None, &c);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"c1","topic":"cancel-order","args":[{"orderId":"123","clientOid":"s1:9"}]})
        );
        out.clear();
        write_cancel_order(
            &mut out,
            "c2",
            Some(Category::Margin),
            &CancelOrder::default(),
        );
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"c2","category":"margin","topic":"cancel-order","args":[{}]})
        );
    }

    #[test]
    fn batches() {
        let mut out = Vec::new();
        write_batch_place(
            &mut out,
            "b1",
            Category::Spot,
            &[market_sell(), market_sell()],
        );
        let one = json!({"symbol":"ETHUSDT","side":"sell","orderType":"market","qty":"0.50",
            "reduceOnly":"yes","clientOid":"s1:2"});
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"b1","category":"spot","topic":"batch-place","args":[one, one]})
        );
        out.clear();
        let m = ModifyOrder {
            symbol: "BTCUSDT",
            order_id: Some("1"),
            client_oid: None,
            qty: Some(d("5")),
            price: Some(d("5")),
            auto_cancel: true,
        };
        write_batch_modify(&mut out, "b2", None, &[m]);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"b2","topic":"batch-modify","args":[{
                "symbol":"BTCUSDT","orderId":"1","qty":"5","price":"5","autoCancel":"yes"}]})
        );
        out.clear();
        let c = |id| CancelOrder {
            symbol: Some("BTCUSDT"),
            order_id: Some(id),
            client_oid: None,
        };
        write_batch_cancel(
            &mut out,
            "b3",
            Some(Category::UsdtFutures),
            &[c("1"), c("2")],
        );
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"b3","category":"usdt-futures","topic":"batch-cancel","args":[
                {"symbol":"BTCUSDT","orderId":"1"},{"symbol":"BTCUSDT","orderId":"2"}]})
        );
        out.clear();
        write_batch_cancel(&mut out, "b4", None, &[]);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":"b4","topic":"batch-cancel","args":[]})
        );
    }

    #[test]
    fn subscribe_and_unsubscribe() {
        let mut out = Vec::new();
        let args = [
            SubscribeArg {
                inst_type: "UTA",
                topic: "fill",
                symbol: None,
            },
            SubscribeArg {
                inst_type: "usdt-futures",
                topic: "books5",
                symbol: Some("BTCUSDT"),
            },
        ];
        write_subscribe(&mut out, true, &args);
        assert_eq!(
            parsed(&out),
            json!({"op":"unsubscribe","args":[{"instType":"UTA","topic":"fill"},
                {"instType":"usdt-futures","topic":"books5","symbol":"BTCUSDT"}]})
        );
    }

    #[test]
    fn strings_are_escaped() {
        let nasty = "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}é✓/";
        let mut out = Vec::new();
        write_login(&mut out, nasty, "p\"", "1700000000", "s=");
        assert_eq!(
            parsed(&out),
            json!({"op":"login","args":[{"apiKey":nasty,"passphrase":"p\"","timestamp":"1700000000","sign":"s="}]})
        );
        out.clear();
        write_json_str(&mut out, "\u{1}x\u{1f}");
        assert_eq!(out, b"\"\\u0001x\\u001f\"");
        out.clear();
        let c = CancelOrder {
            symbol: Some(nasty),
            order_id: None,
            client_oid: Some(nasty),
        };
        write_cancel_order(&mut out, nasty, None, &c);
        assert_eq!(
            parsed(&out),
            json!({"op":"trade","id":nasty,"topic":"cancel-order","args":[{"symbol":nasty,"clientOid":nasty}]})
        );
    }
}
