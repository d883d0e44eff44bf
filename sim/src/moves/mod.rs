//! Position moves between accounts of one master-sub system, without I/O: Bitget pages "Move
//! Positions" (`POST /api/v3/account/move-positions`) and "Get Move Position History"
//! (`GET /api/v3/account/move-position-history`), reference §7 P4.
//!
//! - [`rules`]: every refusal rule, each a function of its inputs and `now_ms`;
//! - [`MoveRequest`]: the parsed request body (`fromUid`, `toUid`, `category`,
//!   `positionList:[{symbol, side, qty}]`, optional `marginMode`);
//! - [`MoveRecord`] / [`history_json`]: the history records and their JSON.
//!
//! The effects (cancelling pending orders, moving the positions at the mark price, pushes)
//! are applied by [`crate::venue::Venue::move_positions`].
//!
//! Item `side`: the source account's side of the move, as in the page's example
//! (`"side":"sell"` moves a long): `sell` takes the source's long position, `buy` its short
//! one. The target receives the same direction.

pub mod rules;

use codec::Decimal;
use serde_json::Value;

use crate::config::Category;
use crate::matching::{PosSide, Side};
use crate::render::push_json_str;

/// Why a move was refused: the Bitget code of each rule ([`MoveError::code`]; the table is in
/// `sim/README.md`, "Position moves").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The key is not a master account's key (`40014`).
    #[error("Incorrect permissions, need master account API key permissions")]
    NotMasterKey,
    /// The key's account is not on the move-positions whitelist (`40014`).
    #[error("Incorrect permissions, need move-positions whitelist permissions")]
    NotWhitelisted,
    /// `fromUid` / `toUid` unknown or outside the key's master-sub system (`40017`).
    #[error("Parameter verification failed: fromUid and toUid must belong to the same master-sub account system")]
    NotSameSystem,
    /// Within 5 minutes of a full hour (`25002`).
    #[error("Position moves are not supported within 5 minutes before or after each hour")]
    Blackout,
    /// Source account MMR ≥ 80 % (`25012`).
    #[error("Account at risk: position moves are not supported when the source account MMR is at least 80%")]
    MmrTooHigh,
    /// 50 successful move requests already today (UTC) (`25211`; [`rules::Pacer::admit`]).
    #[error("Exceeds the limit of 50 maximum position moves per day")]
    DailyLimit,
    /// Less than 1 minute since the previous request that passed the spacing rule, successful
    /// or not (`25004`; [`rules::Pacer::admit`]).
    #[error("Request too frequent: position moves must be at least 1 minute apart")]
    TooSoon,
    /// `positionList` empty or longer than 10 (`40017`).
    #[error("Parameter verification failed: positionList must hold 1 to 10 items, got {0}")]
    ItemCount(usize),
    /// A category that is no category, or one other than USDT-FUTURES / USDC-FUTURES (`41101`,
    /// as a value no endpoint accepts: one code per situation across endpoints).
    #[error("Param category={0} error")]
    Category(String),
    /// A margin mode other than cross (`25002`).
    #[error("Only cross margin mode is supported for position moves, got marginMode={0}")]
    NotCross(String),
    /// The source holds no position of the item's symbol and side (`25227`).
    #[error("No position to move")]
    NoPosition,
    /// The item's qty is larger than the source position (`25231`).
    #[error("The move size is greater than the position")]
    QtyTooLarge,
    /// Unknown symbol of the category (`25100`).
    #[error("trading pair {0} does not exist")]
    UnknownSymbol(String),
    /// A missing or malformed field (`40017`).
    #[error("Parameter verification failed: {0}")]
    Param(String),
}

impl MoveError {
    /// The Bitget code.
    pub fn code(&self) -> u32 {
        match self {
            MoveError::NotMasterKey | MoveError::NotWhitelisted => 40014,
            MoveError::NotSameSystem | MoveError::ItemCount(_) | MoveError::Param(_) => 40017,
            MoveError::Category(_) => 41101,
            MoveError::Blackout | MoveError::NotCross(_) => 25002,
            MoveError::MmrTooHigh => 25012,
            MoveError::DailyLimit => 25211,
            MoveError::TooSoon => 25004,
            MoveError::NoPosition => 25227,
            MoveError::QtyTooLarge => 25231,
            MoveError::UnknownSymbol(_) => 25100,
        }
    }
}

/// One `positionList` item as sent (checked per item: a bad item gets its own code).
#[derive(Debug, Clone, PartialEq)]
pub struct MoveItem {
    /// Symbol.
    pub symbol: String,
    /// Source side (`sell` moves a long, `buy` a short), or the error of this item.
    pub side: Result<Side, MoveError>,
    /// Quantity (base coin), or the error of this item.
    pub qty: Result<Decimal, MoveError>,
}

impl MoveItem {
    /// The direction of the moved position (`sell` → long, `buy` → short).
    pub fn pos_side(side: Side) -> PosSide {
        match side {
            Side::Sell => PosSide::Long,
            Side::Buy => PosSide::Short,
        }
    }
}

/// A parsed `move-positions` body.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveRequest {
    /// Source uid.
    pub from_uid: String,
    /// Target uid.
    pub to_uid: String,
    /// Product line (any valid category; [`rules::check_category`] limits it).
    pub category: Category,
    /// `marginMode` when sent.
    pub margin_mode: Option<String>,
    /// The items.
    pub items: Vec<MoveItem>,
}

fn text(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl MoveRequest {
    /// Parses the body; request-level errors (missing uid, bad category, count of items) are
    /// returned here, item errors are kept in the items.
    pub fn parse(body: &Value) -> Result<MoveRequest, MoveError> {
        let param = |f: &str| MoveError::Param(f.to_string());
        let from_uid = text(body, "fromUid").ok_or_else(|| param("fromUid"))?;
        let to_uid = text(body, "toUid").ok_or_else(|| param("toUid"))?;
        let cat = text(body, "category").ok_or_else(|| param("category"))?;
        let category = Category::parse_any(&cat).ok_or(MoveError::Category(cat))?;
        rules::check_category(category)?;
        let margin_mode = text(body, "marginMode");
        rules::check_margin_mode(margin_mode.as_deref())?;
        let list = body
            .get("positionList")
            .and_then(Value::as_array)
            .ok_or_else(|| param("positionList"))?;
        rules::check_item_count(list.len())?;
        let items = list
            .iter()
            .map(|it| {
                let symbol = text(it, "symbol").unwrap_or_default();
                let side = match text(it, "side") {
                    None => Err(param("side")),
                    Some(s) => Side::parse(&s).ok_or_else(|| param(&format!("side={s}"))),
                };
                let qty = match text(it, "qty").map(|q| q.parse::<Decimal>()) {
                    Some(Ok(q)) if q.is_positive() => Ok(q),
                    _ => Err(param("qty")),
                };
                MoveItem { symbol, side, qty }
            })
            .collect();
        Ok(MoveRequest {
            from_uid,
            to_uid,
            category,
            margin_mode,
            items,
        })
    }
}

/// One moved item (history record).
#[derive(Debug, Clone, PartialEq)]
pub struct MoveRecord {
    /// Record id (increasing; the history cursor).
    pub id: u64,
    /// Master account of the system (only its key sees the record).
    pub master: crate::matching::AccountId,
    /// Product line.
    pub category: Category,
    /// Source uid.
    pub from_uid: String,
    /// Target uid.
    pub to_uid: String,
    /// The source's (closing) order id.
    pub order_id: u64,
    /// The target's (opening) order id.
    pub open_order_id: u64,
    /// Execution id of the source side.
    pub close_exec_id: u64,
    /// Execution id of the target side.
    pub open_exec_id: u64,
    /// Symbol.
    pub symbol: String,
    /// Direction of the moved position.
    pub pos_side: PosSide,
    /// Moved quantity.
    pub qty: Decimal,
    /// Mark price it moved at.
    pub price: Decimal,
    /// Time, ms.
    pub ts_ms: u64,
}

/// What the venue keeps about moves: the pacing per master and the history records.
#[derive(Debug, Clone, Default)]
pub struct MoveLedger {
    /// Daily count and spacing per master account.
    pub pacer: rules::Pacer,
    /// History records, oldest first (at most [`MoveLedger::KEEP`]).
    pub records: Vec<MoveRecord>,
    next_id: u64,
}

impl MoveLedger {
    /// Records kept for the history query.
    pub const KEEP: usize = 100_000;

    /// The next record id (1, 2, …).
    pub fn next_id(&mut self) -> u64 {
        self.next_id = self.next_id.saturating_add(1);
        self.next_id
    }

    /// Appends a record, dropping the oldest beyond [`MoveLedger::KEEP`].
    pub fn push(&mut self, r: MoveRecord) {
        self.records.push(r);
        if self.records.len() > Self::KEEP {
            self.records.drain(..Self::KEEP / 10);
        }
    }
}

/// Query of the history.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery<'a> {
    /// Product line (required by the page).
    pub category: Option<Category>,
    /// Symbol filter.
    pub symbol: Option<&'a str>,
    /// Source uid filter.
    pub from_uid: Option<&'a str>,
    /// Earliest `createdTime`, ms (inclusive).
    pub start_ms: Option<u64>,
    /// Latest `createdTime`, ms (inclusive).
    pub end_ms: Option<u64>,
    /// Page size (1..=100).
    pub limit: usize,
    /// Only records with an id below it.
    pub cursor: Option<u64>,
}

fn kv(out: &mut String, k: &str, v: &str) {
    if !out.ends_with('{') {
        out.push(',');
    }
    push_json_str(out, k);
    out.push(':');
    push_json_str(out, v);
}

/// `GET /api/v3/account/move-position-history` data, newest first:
/// `{"list":[{category, fromUid, toUid, orderId, execId, openExecId, closeExecId, symbol,
/// posSide, qty, price, status, createdTime, updatedTime}],"cursor"}` (`execId` =
/// `closeExecId`; `cursor` = the last id of a full page, else empty).
pub fn history_json(records: &[MoveRecord], q: &HistoryQuery<'_>) -> String {
    let picked: Vec<&MoveRecord> = records
        .iter()
        .rev()
        .filter(|r| {
            q.category.is_none_or(|c| c == r.category)
                && q.symbol.is_none_or(|s| s.is_empty() || s == r.symbol)
                && q.from_uid.is_none_or(|u| u.is_empty() || u == r.from_uid)
                && q.start_ms.is_none_or(|t| r.ts_ms >= t)
                && q.end_ms.is_none_or(|t| r.ts_ms <= t)
                && q.cursor.is_none_or(|c| r.id < c)
        })
        .take(q.limit)
        .collect();
    let mut s = String::from("{\"list\":[");
    for (i, r) in picked.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push('{');
        kv(&mut s, "category", r.category.rest_str());
        kv(&mut s, "fromUid", &r.from_uid);
        kv(&mut s, "toUid", &r.to_uid);
        kv(&mut s, "orderId", &r.order_id.to_string());
        kv(&mut s, "execId", &r.close_exec_id.to_string());
        kv(&mut s, "openExecId", &r.open_exec_id.to_string());
        kv(&mut s, "closeExecId", &r.close_exec_id.to_string());
        kv(&mut s, "symbol", &r.symbol);
        kv(&mut s, "posSide", r.pos_side.as_str());
        kv(&mut s, "qty", &r.qty.normalized().to_string());
        kv(&mut s, "price", &r.price.normalized().to_string());
        kv(&mut s, "status", "completed");
        kv(&mut s, "createdTime", &r.ts_ms.to_string());
        kv(&mut s, "updatedTime", &r.ts_ms.to_string());
        s.push('}');
    }
    s.push_str("],\"cursor\":\"");
    if picked.len() == q.limit {
        if let Some(last) = picked.last() {
            s.push_str(&last.id.to_string());
        }
    }
    s.push_str("\"}");
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(s: &str) -> Result<MoveRequest, MoveError> {
        MoveRequest::parse(&serde_json::from_str(s).unwrap())
    }

    #[test]
    fn parses_the_signing_vector_body() {
        let r = parse(r#"{"fromUid":"1001","toUid":"1002","category":"USDT-FUTURES","positionList":[{"symbol":"BTCUSDT","side":"sell","qty":"0.01"}]}"#).unwrap();
        assert_eq!(r.from_uid, "1001");
        assert_eq!(r.to_uid, "1002");
        assert_eq!(r.category, Category::UsdtFutures);
        assert_eq!(r.items.len(), 1);
        assert_eq!(r.items[0].side, Ok(Side::Sell));
        assert_eq!(r.items[0].qty, Ok("0.01".parse().unwrap()));
        assert_eq!(MoveItem::pos_side(Side::Sell), PosSide::Long);
    }

    #[test]
    fn request_level_refusals_and_item_errors() {
        let item = r#"{"symbol":"BTCUSDT","side":"sell","qty":"0.01"}"#;
        let body = |cat: &str, n: usize, extra: &str| {
            let items = vec![item; n].join(",");
            format!(
                r#"{{"fromUid":"a","toUid":"b","category":"{cat}"{extra},"positionList":[{items}]}}"#
            )
        };
        assert_eq!(
            parse(&body("SPOT", 1, "")).unwrap_err(),
            MoveError::Category("SPOT".into())
        );
        assert_eq!(
            parse(&body("COIN-FUTURES", 1, "")).unwrap_err().code(),
            41101
        );
        assert_eq!(parse(&body("bogus", 1, "")).unwrap_err().code(), 41101);
        assert_eq!(parse(&body("", 1, "")).unwrap_err().code(), 40017);
        assert!(parse(&body("USDC-FUTURES", 10, "")).is_ok());
        assert_eq!(
            parse(&body("USDT-FUTURES", 11, "")).unwrap_err(),
            MoveError::ItemCount(11)
        );
        assert_eq!(
            parse(&body("USDT-FUTURES", 0, "")).unwrap_err(),
            MoveError::ItemCount(0)
        );
        assert_eq!(
            parse(&body("USDT-FUTURES", 1, r#","marginMode":"isolated""#))
                .unwrap_err()
                .code(),
            25002
        );
        assert_eq!(
            parse(r#"{"toUid":"b","category":"USDT-FUTURES","positionList":[]}"#).unwrap_err(),
            MoveError::Param("fromUid".into())
        );
        let r = parse(r#"{"fromUid":"a","toUid":"b","category":"USDT-FUTURES","positionList":[{"symbol":"BTCUSDT","side":"up","qty":"-1"}]}"#).unwrap();
        assert!(r.items[0].side.is_err());
        assert!(r.items[0].qty.is_err());
    }

    #[test]
    fn history_newest_first_with_cursor_and_filters() {
        let rec = |id: u64, sym: &str| MoveRecord {
            id,
            master: crate::matching::AccountId(0),
            category: Category::UsdtFutures,
            from_uid: "a".into(),
            to_uid: "b".into(),
            order_id: 10 + id,
            open_order_id: 20 + id,
            close_exec_id: 30 + id,
            open_exec_id: 40 + id,
            symbol: sym.into(),
            pos_side: PosSide::Long,
            qty: "0.5".parse().unwrap(),
            price: "61000".parse().unwrap(),
            ts_ms: 1000 * id,
        };
        let recs = vec![rec(1, "BTCUSDT"), rec(2, "ETHUSDT"), rec(3, "BTCUSDT")];
        let q = HistoryQuery {
            limit: 2,
            ..HistoryQuery::default()
        };
        let v: Value = serde_json::from_str(&history_json(&recs, &q)).unwrap();
        assert_eq!(v["list"][0]["orderId"], "13");
        assert_eq!(v["list"][1]["orderId"], "12");
        assert_eq!(v["cursor"], "2");
        let q = HistoryQuery {
            limit: 2,
            cursor: Some(2),
            ..HistoryQuery::default()
        };
        let v: Value = serde_json::from_str(&history_json(&recs, &q)).unwrap();
        assert_eq!(v["list"].as_array().unwrap().len(), 1);
        assert_eq!(v["list"][0]["orderId"], "11");
        assert_eq!(v["cursor"], "");
        let q = HistoryQuery {
            limit: 100,
            symbol: Some("ETHUSDT"),
            ..HistoryQuery::default()
        };
        let v: Value = serde_json::from_str(&history_json(&recs, &q)).unwrap();
        assert_eq!(v["list"].as_array().unwrap().len(), 1);
        assert_eq!(v["list"][0]["price"], "61000");
        assert_eq!(v["list"][0]["status"], "completed");
        assert_eq!(v["list"][0]["posSide"], "long");
    }
}
