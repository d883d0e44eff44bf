//! Signed account and position REST calls (reference §7): settings, leverage, hold mode,
//! max-open-available, current positions, assets and position moves, with their answers
//! parsed into plain structs. Decimals are parsed exactly; a missing or malformed field is
//! [`ExchangeError::Protocol`].

use std::time::SystemTime;

use codec::Decimal;
use serde_json::Value;

use super::error::ExchangeError;
use super::rest::RestClient;

/// `GET /api/v3/account/settings`.
pub const SETTINGS_PATH: &str = "/api/v3/account/settings";
/// `POST /api/v3/account/set-leverage`.
pub const SET_LEVERAGE_PATH: &str = "/api/v3/account/set-leverage";
/// `POST /api/v3/account/set-hold-mode`.
pub const SET_HOLD_MODE_PATH: &str = "/api/v3/account/set-hold-mode";
/// `POST /api/v3/account/max-open-available`.
pub const MAX_OPEN_PATH: &str = "/api/v3/account/max-open-available";
/// `GET /api/v3/account/assets`.
pub const ASSETS_PATH: &str = "/api/v3/account/assets";
/// `GET /api/v3/position/current-position`.
pub const POSITIONS_PATH: &str = "/api/v3/position/current-position";
/// `POST /api/v3/account/move-positions`.
pub const MOVE_POSITIONS_PATH: &str = "/api/v3/account/move-positions";

/// The account settings that the gateway uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSettingsData {
    /// Account UID (`uid`).
    pub uid: String,
    /// `holdMode`: `one_way_mode` or `hedge_mode`.
    pub hold_mode: String,
    /// `symbolConfigList`: (category, symbol, leverage).
    pub leverages: Vec<(String, String, Decimal)>,
}

impl AccountSettingsData {
    /// The leverage of `symbol` in `category` (category compared case-insensitively).
    pub fn leverage_of(&self, category: &str, symbol: &str) -> Option<Decimal> {
        self.leverages
            .iter()
            .find(|(c, s, _)| c.eq_ignore_ascii_case(category) && s == symbol)
            .map(|(_, _, l)| *l)
    }
}

/// Max-open-available figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxOpen {
    /// `available`.
    pub available: Option<Decimal>,
    /// `maxBuyOpen`.
    pub max_buy_open: Option<Decimal>,
    /// `maxSellOpen`.
    pub max_sell_open: Option<Decimal>,
}

/// One open position (`current-position` list item).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRow {
    /// Symbol.
    pub symbol: String,
    /// `posSide`: `long` or `short`.
    pub pos_side: String,
    /// `total` (size), base units.
    pub total: Decimal,
    /// `marginMode` (`crossed` / `isolated`).
    pub margin_mode: String,
}

/// One result of `closePosition` / `openPosition` in a move-positions reply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MoveItemResult {
    /// `orderId` (0 when empty).
    pub order_id: u64,
    /// `code` (0 when empty = success).
    pub code: u32,
    /// `msg`.
    pub msg: String,
}

/// A move-positions reply: one close and one open result per item, in item order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MoveReply {
    /// `closePosition`.
    pub close: Vec<MoveItemResult>,
    /// `openPosition`.
    pub open: Vec<MoveItemResult>,
}

fn protocol(what: &str) -> ExchangeError {
    ExchangeError::Protocol(format!("bad or missing field {what}"))
}

/// A string or number field as text.
fn text(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn dec(v: &Value, k: &str) -> Option<Decimal> {
    text(v, k).filter(|s| !s.is_empty())?.parse().ok()
}

/// Parses the `data` of `GET /api/v3/account/settings`.
pub fn parse_settings(data: &Value) -> Result<AccountSettingsData, ExchangeError> {
    let uid = text(data, "uid")
        .filter(|u| !u.is_empty())
        .ok_or_else(|| protocol("uid"))?;
    let hold_mode = text(data, "holdMode").unwrap_or_default();
    let leverages = data
        .get("symbolConfigList")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|i| {
                    Some((
                        text(i, "category")?,
                        text(i, "symbol")?,
                        dec(i, "leverage")?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(AccountSettingsData {
        uid,
        hold_mode,
        leverages,
    })
}

/// Parses the `data` of `POST /api/v3/account/max-open-available`.
pub fn parse_max_open(data: &Value) -> MaxOpen {
    MaxOpen {
        available: dec(data, "available"),
        max_buy_open: dec(data, "maxBuyOpen"),
        max_sell_open: dec(data, "maxSellOpen"),
    }
}

/// Parses the `data` of `GET /api/v3/position/current-position` (`{"list":[..]}`).
pub fn parse_positions(data: &Value) -> Result<Vec<PositionRow>, ExchangeError> {
    let list = data
        .get("list")
        .and_then(Value::as_array)
        .ok_or_else(|| protocol("list"))?;
    list.iter()
        .map(|p| {
            Ok(PositionRow {
                symbol: text(p, "symbol").ok_or_else(|| protocol("symbol"))?,
                pos_side: text(p, "posSide").ok_or_else(|| protocol("posSide"))?,
                total: dec(p, "total").ok_or_else(|| protocol("total"))?,
                margin_mode: text(p, "marginMode").unwrap_or_default(),
            })
        })
        .collect()
}

/// The `mmr` of `GET /api/v3/account/assets` data.
pub fn parse_assets_mmr(data: &Value) -> Result<Decimal, ExchangeError> {
    dec(data, "mmr").ok_or_else(|| protocol("mmr"))
}

fn parse_items(data: &Value, k: &str) -> Vec<MoveItemResult> {
    data.get(k)
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .map(|i| MoveItemResult {
                    order_id: text(i, "orderId").and_then(|s| s.parse().ok()).unwrap_or(0),
                    code: text(i, "code").and_then(|s| s.parse().ok()).unwrap_or(0),
                    msg: text(i, "msg").unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Parses the `data` of `POST /api/v3/account/move-positions`.
pub fn parse_move_reply(data: &Value) -> MoveReply {
    MoveReply {
        close: parse_items(data, "closePosition"),
        open: parse_items(data, "openPosition"),
    }
}

/// One item of a move-positions body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveItem {
    /// Symbol.
    pub symbol: String,
    /// The source's side of the move: `sell` moves a long, `buy` a short.
    pub side: &'static str,
    /// Quantity, base units.
    pub qty: Decimal,
}

/// The JSON body of a move-positions request (`fromUid`, `toUid`, `category`,
/// `positionList:[{symbol, side, qty}]`).
pub fn move_body(from_uid: u64, to_uid: u64, category: &str, items: &[MoveItem]) -> String {
    let list: Vec<Value> = items
        .iter()
        .map(|i| serde_json::json!({"symbol": i.symbol, "side": i.side, "qty": i.qty.to_string()}))
        .collect();
    serde_json::json!({
        "fromUid": from_uid.to_string(),
        "toUid": to_uid.to_string(),
        "category": category,
        "positionList": list,
    })
    .to_string()
}

impl RestClient {
    /// `GET /api/v3/account/settings`.
    pub async fn account_settings(
        &self,
        now: SystemTime,
    ) -> Result<AccountSettingsData, ExchangeError> {
        parse_settings(&self.signed_get(SETTINGS_PATH, "", now).await?)
    }

    /// `POST /api/v3/account/set-leverage` with `{category, symbol | coin, leverage[, posSide]}`.
    pub async fn set_leverage(
        &self,
        category: &str,
        symbol: Option<&str>,
        coin: Option<&str>,
        leverage: Decimal,
        pos_side: Option<&str>,
        now: SystemTime,
    ) -> Result<(), ExchangeError> {
        let mut body = serde_json::Map::new();
        body.insert("category".into(), category.into());
        if let Some(s) = symbol {
            body.insert("symbol".into(), s.into());
        }
        if let Some(c) = coin {
            body.insert("coin".into(), c.into());
        }
        body.insert("leverage".into(), leverage.to_string().into());
        if let Some(p) = pos_side {
            body.insert("posSide".into(), p.into());
        }
        let body = Value::Object(body).to_string();
        self.signed_post(SET_LEVERAGE_PATH, &body, now).await?;
        Ok(())
    }

    /// `POST /api/v3/account/set-hold-mode` with `{holdMode}` (`one_way_mode` / `hedge_mode`).
    pub async fn set_hold_mode(
        &self,
        hold_mode: &str,
        now: SystemTime,
    ) -> Result<(), ExchangeError> {
        let body = serde_json::json!({ "holdMode": hold_mode }).to_string();
        self.signed_post(SET_HOLD_MODE_PATH, &body, now).await?;
        Ok(())
    }

    /// `POST /api/v3/account/max-open-available` with `{category, symbol, orderType, side,
    /// price?, size?}`.
    #[allow(clippy::too_many_arguments)]
    pub async fn max_open_available(
        &self,
        category: &str,
        symbol: &str,
        order_type: &str,
        side: &str,
        price: Option<Decimal>,
        size: Option<Decimal>,
        now: SystemTime,
    ) -> Result<MaxOpen, ExchangeError> {
        let mut body = serde_json::Map::new();
        body.insert("category".into(), category.into());
        body.insert("symbol".into(), symbol.into());
        body.insert("orderType".into(), order_type.into());
        body.insert("side".into(), side.into());
        if let Some(p) = price {
            body.insert("price".into(), p.to_string().into());
        }
        if let Some(s) = size {
            body.insert("size".into(), s.to_string().into());
        }
        let body = Value::Object(body).to_string();
        Ok(parse_max_open(
            &self.signed_post(MAX_OPEN_PATH, &body, now).await?,
        ))
    }

    /// `GET /api/v3/position/current-position?category=..&symbol=..` (symbol optional).
    pub async fn current_positions(
        &self,
        category: &str,
        symbol: Option<&str>,
        now: SystemTime,
    ) -> Result<Vec<PositionRow>, ExchangeError> {
        let query = match symbol {
            Some(s) => format!("category={category}&symbol={s}"),
            None => format!("category={category}"),
        };
        parse_positions(&self.signed_get(POSITIONS_PATH, &query, now).await?)
    }

    /// The maintenance-margin ratio (`mmr`) of `GET /api/v3/account/assets`.
    pub async fn account_mmr(&self, now: SystemTime) -> Result<Decimal, ExchangeError> {
        parse_assets_mmr(&self.signed_get(ASSETS_PATH, "", now).await?)
    }

    /// `POST /api/v3/account/move-positions` with a [`move_body`].
    pub async fn move_positions(
        &self,
        body: &str,
        now: SystemTime,
    ) -> Result<MoveReply, ExchangeError> {
        Ok(parse_move_reply(
            &self.signed_post(MOVE_POSITIONS_PATH, body, now).await?,
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_the_fixture_shapes() {
        let s: Value = serde_json::from_str(
            r#"{"uid":"1001","holdMode":"one_way_mode","symbolConfigList":[{"category":"USDT-FUTURES","symbol":"BTCUSDT","marginMode":"crossed","leverage":"20"}]}"#,
        )
        .unwrap();
        let s = parse_settings(&s).unwrap();
        assert_eq!(s.uid, "1001");
        assert_eq!(
            s.leverage_of("usdt-futures", "BTCUSDT"),
            Some("20".parse().unwrap())
        );
        let r: Value = serde_json::from_str(r#"{"closePosition":[{"orderId":"1352000000000000001","clientOid":"mv:src:1","code":"","msg":""},{"orderId":"","code":"25227","msg":"No position to move"}],"openPosition":[{"orderId":"1352000000000000002","clientOid":"mv:dst:1","code":"","msg":""}]}"#).unwrap();
        let r = parse_move_reply(&r);
        assert_eq!(r.close[0].order_id, 1_352_000_000_000_000_001);
        assert_eq!(r.close[0].code, 0);
        assert_eq!(r.close[1].code, 25227);
        assert_eq!(r.open[0].order_id, 1_352_000_000_000_000_002);
        let p: Value = serde_json::from_str(r#"{"list":[{"symbol":"BTCUSDT","posSide":"long","total":"0.1","marginMode":"crossed"}]}"#).unwrap();
        assert_eq!(
            parse_positions(&p).unwrap()[0].total,
            "0.1".parse().unwrap()
        );
        assert!(parse_positions(&Value::Null).is_err());
        let body = move_body(
            1,
            2,
            "USDT-FUTURES",
            &[MoveItem {
                symbol: "BTCUSDT".into(),
                side: "sell",
                qty: "0.01".parse().unwrap(),
            }],
        );
        let b: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(b["fromUid"], "1");
        assert_eq!(b["positionList"][0]["qty"], "0.01");
    }
}
