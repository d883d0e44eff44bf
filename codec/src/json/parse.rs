//! Parser of inbound private-WebSocket frames (reference §1.3 login replies, §3.1 subscribe acks
//! and error events, §4 pushes, §5.2 trade replies). One [`JsonParser`] per connection: it copies
//! each frame into its own padded buffer and runs simd-json on it in place with reused
//! `Buffers` and tape, deserializing straight into borrowed shapes (no DOM). In the steady state
//! a frame costs no allocation (items beyond the `SmallVec` inline capacity excepted).

use std::fmt;

use serde::de::Deserialize;
use smallvec::SmallVec;

pub use super::code::Code;
use super::enums::{Category, HoldMode, OrderStatus, OrderType, PosSide, Side, TimeInForce};
use super::raw::{CoinRaw, Envelope, ItemRaw, Raw};
use crate::decimal::{Decimal, DecimalError};

/// Why a frame was refused. Nothing in a frame can make the parser panic.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not JSON, or a value of the wrong JSON type where the shape is fixed (for example a
    /// non-numeric `code`).
    #[error("malformed JSON: {0}")]
    Syntax(#[from] simd_json::Error),
    /// A field the frame kind requires is missing or empty.
    #[error("missing field `{0}`")]
    MissingField(&'static str),
    /// A field has a value of the wrong kind (a float id, a non-digit timestamp, …).
    #[error("invalid value in field `{0}`")]
    InvalidField(&'static str),
    /// A decimal string did not parse.
    #[error("invalid decimal in field `{field}`: {source}")]
    InvalidDecimal {
        /// The Bitget field name.
        field: &'static str,
        /// Why the decimal was refused.
        source: DecimalError,
    },
    /// A required enum field has a value this codec does not know.
    #[error("unknown value in field `{0}`")]
    UnknownEnum(&'static str),
}

/// One inbound frame, borrowing from the [`JsonParser`] that parsed it.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound<'a> {
    /// The text frame `pong`, answer to [`super::PING`] (reference §2.2).
    Pong,
    /// `{"event":"login","code":0,...}` (reference §1.3). A failed login arrives as
    /// [`Inbound::Error`].
    Login {
        /// Result code (0 = logged in).
        code: Code,
        /// `msg`, `""` when absent.
        msg: &'a str,
    },
    /// `{"event":"subscribe"|"unsubscribe","arg":{...}}` (reference §3.1). An ack that carries a
    /// non-zero `code` is reported as [`Inbound::Error`] instead.
    Subscribed {
        /// True for `unsubscribe`.
        unsubscribe: bool,
        /// `arg.instType` (`""` when absent).
        inst_type: &'a str,
        /// `arg.topic`.
        topic: &'a str,
        /// `arg.symbol`.
        symbol: Option<&'a str>,
    },
    /// `{"event":"error",...}` (reference §1.4, §5.2): login failure, trade-op failure (with the
    /// request `id`), service notices such as 30033.
    Error {
        /// The request `id`; numeric ids are returned as their digit text.
        id: Option<&'a str>,
        /// The error code.
        code: Code,
        /// `msg`, `""` when absent.
        msg: &'a str,
    },
    /// `{"event":"trade",...}`: the ACK of a trade op (reference §5.2).
    Trade(TradeReply<'a>),
    /// A push of topic `order` (reference §4.2).
    Orders {
        /// Envelope `ts` (ms; 0 when absent).
        ts_ms: u64,
        /// The orders of `data`, in order.
        orders: SmallVec<[OrderPush<'a>; 2]>,
    },
    /// A push of topic `fill` (reference §4.3).
    Fills {
        /// Envelope `ts` (ms; 0 when absent).
        ts_ms: u64,
        /// The fills of `data`, in order.
        fills: SmallVec<[FillPush<'a>; 2]>,
    },
    /// A push of topic `position` (reference §4.4).
    Positions {
        /// Envelope `ts` (ms; 0 when absent).
        ts_ms: u64,
        /// The positions of `data`, in order (a closed one has size 0).
        positions: SmallVec<[PositionPush<'a>; 2]>,
    },
    /// A push of topic `account` (reference §4.5): the coins of every `data` item, in order.
    Account {
        /// Envelope `ts` (ms; 0 when absent).
        ts_ms: u64,
        /// Account-level `unrealisedPnL` of the first item (`None` when absent).
        unrealised_pnl: Option<Decimal>,
        /// The `coin` entries.
        coins: SmallVec<[CoinPush<'a>; 4]>,
    },
    /// A push of another topic (`books`, `strategy-order`, …; reference §3.3, §4.6); its data
    /// is not interpreted.
    OtherPush {
        /// `arg.topic`.
        topic: &'a str,
    },
    /// Well-formed JSON this codec does not act on (unknown `event`, no `event` and no topic,
    /// a non-object document).
    Other,
}

/// The reply to a trade op, `{"event":"trade",...}` (reference §5.2). For batch ops the top-level
/// `code` stays 0 even when items fail: check each [`TradeItem::code`].
#[derive(Debug, Clone, PartialEq)]
pub struct TradeReply<'a> {
    /// The request `id` echoed (numeric ids as their digit text).
    pub id: &'a str,
    /// `topic`: `place-order`, `batch-cancel`, …
    pub topic: &'a str,
    /// Top-level `code`.
    pub code: Code,
    /// Top-level `msg` (`success` / `Success`), `""` when absent.
    pub msg: &'a str,
    /// The `args` items.
    pub items: SmallVec<[TradeItem<'a>; 4]>,
}

/// One element of a trade reply's `args` (reference §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TradeItem<'a> {
    /// `orderId` (`""` when absent or empty, e.g. a refused batch item).
    pub order_id: &'a str,
    /// `clientOid` (`""` when absent).
    pub client_oid: &'a str,
    /// Per-item `code`, 0 when absent (single ops carry none).
    pub code: Code,
    /// Per-item `msg`, `""` when absent.
    pub msg: &'a str,
}

/// One element of an `order` push (reference §4.2).
///
/// Required: `symbol`, `orderId`, `qty`, `side`, `orderType`, `orderStatus`. Optional enums with
/// an unknown value (for example `timeInForce` `rpi`) read as `None`; cumulative figures that
/// are absent or `""` read as zero; absent timestamps as 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderPush<'a> {
    /// `category` (lower or upper case on the wire).
    pub category: Option<Category>,
    /// `symbol`.
    pub symbol: &'a str,
    /// `orderId` (numeric ids as digit text).
    pub order_id: &'a str,
    /// `clientOid` (`""` when absent).
    pub client_oid: &'a str,
    /// `price`; `""` (market orders) → `None`.
    pub price: Option<Decimal>,
    /// `qty`.
    pub qty: Decimal,
    /// `side`.
    pub side: Side,
    /// `orderType`.
    pub order_type: OrderType,
    /// `timeInForce`.
    pub time_in_force: Option<TimeInForce>,
    /// `orderStatus`.
    pub order_status: OrderStatus,
    /// `cancelReason` (`""` or an enum value of §8, e.g. `post_only_fill_cancel`).
    pub cancel_reason: &'a str,
    /// `cumExecQty`.
    pub cum_exec_qty: Decimal,
    /// `cumExecValue`.
    pub cum_exec_value: Decimal,
    /// `avgPrice` (`0` while unfilled).
    pub avg_price: Decimal,
    /// `holdSide` (hedge mode).
    pub hold_side: Option<PosSide>,
    /// `createdTime`, ms.
    pub created_time_ms: u64,
    /// `updatedTime`, ms.
    pub updated_time_ms: u64,
    /// `reduceOnly` (`yes`/`no`, any case; absent → false).
    pub reduce_only: bool,
}

/// One element of a `fill` push (reference §4.3).
///
/// Required: `orderId`, `execId`, `symbol`, `side`, `execPrice`, `execQty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillPush<'a> {
    /// `orderId`.
    pub order_id: &'a str,
    /// `clientOid` (`""` when absent).
    pub client_oid: &'a str,
    /// `execId` (the fill id).
    pub exec_id: &'a str,
    /// `category` (seen in upper case live, lower case in the docs).
    pub category: Option<Category>,
    /// `symbol`.
    pub symbol: &'a str,
    /// `side`.
    pub side: Side,
    /// `execPrice`.
    pub exec_price: Decimal,
    /// `execQty` (base coin).
    pub exec_qty: Decimal,
    /// `execValue` (quote coin; zero when absent).
    pub exec_value: Decimal,
    /// `tradeScope`: `taker` / `maker`.
    pub trade_scope: &'a str,
    /// `feeDetail[0].fee` (positive = paid); `None` when absent, `null` or `""`.
    pub fee: Option<Decimal>,
    /// `feeDetail[0].feeCoin` (`""` when absent).
    pub fee_coin: &'a str,
    /// `execTime`, ms.
    pub exec_time_ms: u64,
}

/// One element of a `position` push (reference §4.4).
///
/// Required: `symbol`, `size`. Unknown `posSide` / `holdMode` values read as `None`; other
/// absent figures as `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionPush<'a> {
    /// `category` when the push carries one (the UTA push does not: see
    /// [`PositionPush::category_or_inferred`]).
    pub category: Option<Category>,
    /// `symbol`.
    pub symbol: &'a str,
    /// `marginCoin` (`""` when absent).
    pub margin_coin: &'a str,
    /// `posSide`.
    pub pos_side: Option<PosSide>,
    /// `holdMode`.
    pub hold_mode: Option<HoldMode>,
    /// `size` (base units; `0` = closed).
    pub size: Decimal,
    /// `avgPrice`.
    pub avg_price: Option<Decimal>,
    /// `unrealisedPnl`.
    pub unrealised_pnl: Option<Decimal>,
    /// `curRealisedPnl`.
    pub cur_realised_pnl: Option<Decimal>,
    /// `leverage`.
    pub leverage: Option<Decimal>,
    /// `markPrice`.
    pub mark_price: Option<Decimal>,
    /// `liqPrice`.
    pub liq_price: Option<Decimal>,
    /// `updatedTime`, ms (0 when absent).
    pub updated_time_ms: u64,
}

impl PositionPush<'_> {
    /// `category`, else inferred from `marginCoin` (Bitget futures lines: `USDT` →
    /// usdt-futures, `USDC` → usdc-futures, any other coin → coin-futures); `None` without
    /// either.
    pub fn category_or_inferred(&self) -> Option<Category> {
        if self.category.is_some() {
            return self.category;
        }
        match self.margin_coin.as_bytes() {
            b"" => None,
            c if c.eq_ignore_ascii_case(b"USDT") => Some(Category::UsdtFutures),
            c if c.eq_ignore_ascii_case(b"USDC") => Some(Category::UsdcFutures),
            _ => Some(Category::CoinFutures),
        }
    }
}

/// One entry of an `account` push's `coin` list (reference §4.5).
///
/// Required: `coin`. Absent figures read as zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoinPush<'a> {
    /// `coin`, e.g. `USDT`.
    pub coin: &'a str,
    /// `balance`.
    pub balance: Decimal,
    /// `locked`.
    pub locked: Decimal,
    /// `equity`.
    pub equity: Decimal,
    /// `available`.
    pub available: Decimal,
}

/// Reusable parser of inbound frames; keep one per connection.
pub struct JsonParser {
    /// Copy of the current frame plus simd-json's padding; strings are unescaped in place here.
    input: Vec<u8>,
    buffers: simd_json::Buffers,
    /// The tape, kept empty between frames so its allocation is reused.
    tape: simd_json::Tape<'static>,
    /// Digit text of numeric ids of the current frame.
    scratch: Vec<u8>,
}

impl Default for JsonParser {
    fn default() -> Self {
        JsonParser::new()
    }
}

impl fmt::Debug for JsonParser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonParser")
            .field("capacity", &self.input.capacity())
            .finish()
    }
}

/// Nesting deeper than this is refused (Bitget frames nest 4 levels); bounds recursion.
const MAX_DEPTH: usize = 32;
/// Initial capacity, enough for order pushes and trade replies without growing.
const INITIAL_CAPACITY: usize = 4096;

impl JsonParser {
    /// A parser with buffers sized for typical frames (they grow to the largest frame seen).
    pub fn new() -> Self {
        JsonParser {
            input: Vec::with_capacity(INITIAL_CAPACITY + simd_json::INPUT_PADDING),
            buffers: simd_json::Buffers::with_max_depth(INITIAL_CAPACITY, MAX_DEPTH),
            tape: simd_json::Tape(Vec::with_capacity(256)),
            scratch: Vec::with_capacity(128),
        }
    }

    /// Parses one text frame. The result borrows the parser until dropped.
    ///
    /// Dispatch: the literal `pong` → [`Inbound::Pong`]; `event` `login` / `subscribe` /
    /// `unsubscribe` / `error` / `trade` → the matching variant (other events → [`Inbound::Other`]);
    /// no `event` but `arg.topic` → [`Inbound::Orders`] (`order`), [`Inbound::Fills`] (`fill`),
    /// [`Inbound::Positions`] (`position`), [`Inbound::Account`] (`account`) or
    /// [`Inbound::OtherPush`]. Unknown fields are ignored. Errors: see [`JsonError`].
    pub fn parse<'a>(&'a mut self, frame: &[u8]) -> Result<Inbound<'a>, JsonError> {
        if frame.trim_ascii() == b"pong" {
            return Ok(Inbound::Pong);
        }
        let JsonParser {
            input,
            buffers,
            tape,
            scratch,
        } = self;
        let len = frame.len();
        input.clear();
        input.extend_from_slice(frame);
        input.resize(len + simd_json::INPUT_PADDING, b' ');
        let mut t: simd_json::Tape<'a> =
            std::mem::replace(tape, simd_json::Tape(Vec::new())).reset();
        if let Err(e) = simd_json::fill_tape_padded(input.as_mut_slice(), len, buffers, &mut t) {
            *tape = t.reset();
            return Err(JsonError::Syntax(e));
        }
        let mut de = simd_json::Deserializer::from_tape(t);
        let env = Envelope::deserialize(&mut de);
        *tape = de.into_tape().reset();
        let mut env = env?;
        scratch.clear();
        spill_ids(&mut env, scratch);
        let scratch: &'a [u8] = scratch;
        dispatch(env, scratch)
    }
}

/// Writes numeric ids as digits into `scratch` (before the scratch is frozen for borrowing).
fn spill_ids(env: &mut Envelope<'_>, scratch: &mut Vec<u8>) {
    env.id.spill(scratch);
    for it in env.args.iter_mut() {
        it.order_id.spill(scratch);
        it.client_oid.spill(scratch);
    }
    for it in env.data.0.iter_mut() {
        it.order_id.spill(scratch);
        it.client_oid.spill(scratch);
        it.exec_id.spill(scratch);
    }
}

fn dispatch<'a>(env: Envelope<'a>, scratch: &'a [u8]) -> Result<Inbound<'a>, JsonError> {
    let msg = env.msg.unwrap_or("");
    match env.event {
        Some("login") => Ok(Inbound::Login {
            code: env.code.ok_or(JsonError::MissingField("code"))?,
            msg,
        }),
        Some("error") => Ok(Inbound::Error {
            id: opt_text(env.id, scratch, "id")?,
            code: env.code.ok_or(JsonError::MissingField("code"))?,
            msg,
        }),
        Some(ev @ ("subscribe" | "unsubscribe")) => {
            if let Some(code) = env.code.filter(|c| !c.is_ok()) {
                return Ok(Inbound::Error {
                    id: opt_text(env.id, scratch, "id")?,
                    code,
                    msg,
                });
            }
            let arg = env.arg.ok_or(JsonError::MissingField("arg"))?;
            Ok(Inbound::Subscribed {
                unsubscribe: ev == "unsubscribe",
                inst_type: arg.inst_type.unwrap_or(""),
                topic: arg.topic.ok_or(JsonError::MissingField("arg.topic"))?,
                symbol: arg.symbol,
            })
        }
        Some("trade") => {
            let mut items = SmallVec::with_capacity(env.args.len());
            for it in &env.args {
                items.push(TradeItem {
                    order_id: opt_text(it.order_id, scratch, "orderId")?.unwrap_or(""),
                    client_oid: opt_text(it.client_oid, scratch, "clientOid")?.unwrap_or(""),
                    code: it.code.unwrap_or(Code::OK),
                    msg: it.msg.unwrap_or(""),
                });
            }
            Ok(Inbound::Trade(TradeReply {
                id: opt_text(env.id, scratch, "id")?.ok_or(JsonError::MissingField("id"))?,
                topic: env.topic.ok_or(JsonError::MissingField("topic"))?,
                code: env.code.ok_or(JsonError::MissingField("code"))?,
                msg,
                items,
            }))
        }
        Some(_) => Ok(Inbound::Other),
        None => match env.arg.and_then(|a| a.topic) {
            Some("order") => {
                let mut orders = SmallVec::with_capacity(env.data.0.len());
                for it in &env.data.0 {
                    orders.push(order_push(it, scratch)?);
                }
                Ok(Inbound::Orders {
                    ts_ms: millis(env.ts, "ts")?,
                    orders,
                })
            }
            Some("fill") => {
                let mut fills = SmallVec::with_capacity(env.data.0.len());
                for it in &env.data.0 {
                    fills.push(fill_push(it, scratch)?);
                }
                Ok(Inbound::Fills {
                    ts_ms: millis(env.ts, "ts")?,
                    fills,
                })
            }
            Some("position") => {
                let mut positions = SmallVec::with_capacity(env.data.0.len());
                for it in &env.data.0 {
                    positions.push(position_push(it, scratch)?);
                }
                Ok(Inbound::Positions {
                    ts_ms: millis(env.ts, "ts")?,
                    positions,
                })
            }
            Some("account") => {
                let mut coins = SmallVec::new();
                for it in &env.data.0 {
                    for c in &it.coins.0 {
                        coins.push(coin_push(c, scratch)?);
                    }
                }
                let unrealised_pnl = match env.data.0.first() {
                    Some(it) => opt_dec(it.unrealised_pnl, "unrealisedPnL")?,
                    None => None,
                };
                Ok(Inbound::Account {
                    ts_ms: millis(env.ts, "ts")?,
                    unrealised_pnl,
                    coins,
                })
            }
            Some(topic) => Ok(Inbound::OtherPush { topic }),
            None => Ok(Inbound::Other),
        },
    }
}

fn order_push<'a>(it: &ItemRaw<'a>, scratch: &'a [u8]) -> Result<OrderPush<'a>, JsonError> {
    Ok(OrderPush {
        category: opt_enum(it.category, Category::parse, "category")?,
        symbol: req_text(it.symbol, scratch, "symbol")?,
        order_id: req_text(it.order_id, scratch, "orderId")?,
        client_oid: opt_text(it.client_oid, scratch, "clientOid")?.unwrap_or(""),
        price: opt_dec(it.price, "price")?,
        qty: opt_dec(it.qty, "qty")?.ok_or(JsonError::MissingField("qty"))?,
        side: req_enum(it.side, Side::parse, "side")?,
        order_type: req_enum(it.order_type, OrderType::parse, "orderType")?,
        time_in_force: opt_enum(it.time_in_force, TimeInForce::parse, "timeInForce")?,
        order_status: req_enum(it.order_status, OrderStatus::parse, "orderStatus")?,
        cancel_reason: opt_text(it.cancel_reason, scratch, "cancelReason")?.unwrap_or(""),
        cum_exec_qty: opt_dec(it.cum_exec_qty, "cumExecQty")?.unwrap_or(Decimal::ZERO),
        cum_exec_value: opt_dec(it.cum_exec_value, "cumExecValue")?.unwrap_or(Decimal::ZERO),
        avg_price: opt_dec(it.avg_price, "avgPrice")?.unwrap_or(Decimal::ZERO),
        hold_side: opt_enum(it.hold_side, PosSide::parse, "holdSide")?,
        created_time_ms: millis(it.created_time, "createdTime")?,
        updated_time_ms: millis(it.updated_time, "updatedTime")?,
        reduce_only: yes_no(it.reduce_only, "reduceOnly")?,
    })
}

fn fill_push<'a>(it: &ItemRaw<'a>, scratch: &'a [u8]) -> Result<FillPush<'a>, JsonError> {
    Ok(FillPush {
        order_id: req_text(it.order_id, scratch, "orderId")?,
        client_oid: opt_text(it.client_oid, scratch, "clientOid")?.unwrap_or(""),
        exec_id: req_text(it.exec_id, scratch, "execId")?,
        category: opt_enum(it.category, Category::parse, "category")?,
        symbol: req_text(it.symbol, scratch, "symbol")?,
        side: req_enum(it.side, Side::parse, "side")?,
        exec_price: opt_dec(it.exec_price, "execPrice")?
            .ok_or(JsonError::MissingField("execPrice"))?,
        exec_qty: opt_dec(it.exec_qty, "execQty")?.ok_or(JsonError::MissingField("execQty"))?,
        exec_value: opt_dec(it.exec_value, "execValue")?.unwrap_or(Decimal::ZERO),
        trade_scope: opt_text(it.trade_scope, scratch, "tradeScope")?.unwrap_or(""),
        fee: opt_dec(it.fee.fee, "fee")?,
        fee_coin: opt_text(it.fee.fee_coin, scratch, "feeCoin")?.unwrap_or(""),
        exec_time_ms: millis(it.exec_time, "execTime")?,
    })
}

fn position_push<'a>(it: &ItemRaw<'a>, scratch: &'a [u8]) -> Result<PositionPush<'a>, JsonError> {
    Ok(PositionPush {
        category: opt_enum(it.category, Category::parse, "category")?,
        symbol: req_text(it.symbol, scratch, "symbol")?,
        margin_coin: opt_text(it.margin_coin, scratch, "marginCoin")?.unwrap_or(""),
        pos_side: opt_enum(it.pos_side, PosSide::parse, "posSide")?,
        hold_mode: opt_enum(it.hold_mode, HoldMode::parse, "holdMode")?,
        size: opt_dec(it.size, "size")?.ok_or(JsonError::MissingField("size"))?,
        avg_price: opt_dec(it.avg_price, "avgPrice")?,
        unrealised_pnl: opt_dec(it.unrealised_pnl, "unrealisedPnl")?,
        cur_realised_pnl: opt_dec(it.cur_realised_pnl, "curRealisedPnl")?,
        leverage: opt_dec(it.leverage, "leverage")?,
        mark_price: opt_dec(it.mark_price, "markPrice")?,
        liq_price: opt_dec(it.liq_price, "liqPrice")?,
        updated_time_ms: millis(it.updated_time, "updatedTime")?,
    })
}

fn coin_push<'a>(c: &CoinRaw<'a>, scratch: &'a [u8]) -> Result<CoinPush<'a>, JsonError> {
    let zero = |r, field| opt_dec(r, field).map(|v| v.unwrap_or(Decimal::ZERO));
    Ok(CoinPush {
        coin: req_text(c.coin, scratch, "coin")?,
        balance: zero(c.balance, "balance")?,
        locked: zero(c.locked, "locked")?,
        equity: zero(c.equity, "equity")?,
        available: zero(c.available, "available")?,
    })
}

/// A text field: strings as they are, numeric ids (already spilled) as digit text; `None` when
/// absent or `null`.
fn opt_text<'a>(
    r: Raw<'a>,
    scratch: &'a [u8],
    field: &'static str,
) -> Result<Option<&'a str>, JsonError> {
    match r {
        Raw::Absent | Raw::Null => Ok(None),
        Raw::Str(s) => Ok(Some(s)),
        Raw::Span(s, e) => scratch
            .get(s as usize..e as usize)
            .and_then(|b| std::str::from_utf8(b).ok())
            .map(Some)
            .ok_or(JsonError::InvalidField(field)),
        Raw::U64(_) | Raw::I64(_) | Raw::Other => Err(JsonError::InvalidField(field)),
    }
}

/// A required, non-empty text field.
fn req_text<'a>(r: Raw<'a>, scratch: &'a [u8], field: &'static str) -> Result<&'a str, JsonError> {
    match opt_text(r, scratch, field)? {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(JsonError::MissingField(field)),
    }
}

/// A decimal given as a string (or an integer); absent, `null` and `""` → `None`. Floats are
/// refused: they cannot be exact.
fn opt_dec(r: Raw<'_>, field: &'static str) -> Result<Option<Decimal>, JsonError> {
    match r {
        Raw::Absent | Raw::Null | Raw::Str("") => Ok(None),
        Raw::Str(s) => Decimal::parse(s.as_bytes())
            .map(Some)
            .map_err(|source| JsonError::InvalidDecimal { field, source }),
        Raw::U64(n) => i64::try_from(n)
            .map(|v| Some(Decimal::from(v)))
            .map_err(|_| JsonError::InvalidDecimal {
                field,
                source: DecimalError::Overflow,
            }),
        Raw::I64(n) => Ok(Some(Decimal::from(n))),
        Raw::Other | Raw::Span(..) => Err(JsonError::InvalidField(field)),
    }
}

/// A millisecond timestamp given as a digit string or a number; absent, `null` and `""` → 0.
fn millis(r: Raw<'_>, field: &'static str) -> Result<u64, JsonError> {
    match r {
        Raw::Absent | Raw::Null | Raw::Str("") => Ok(0),
        Raw::U64(n) => Ok(n),
        Raw::Str(s) => {
            let b = s.as_bytes();
            if b.len() > 19 || !b.iter().all(u8::is_ascii_digit) {
                return Err(JsonError::InvalidField(field));
            }
            Ok(b.iter()
                .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0')))
        }
        Raw::I64(_) | Raw::Other | Raw::Span(..) => Err(JsonError::InvalidField(field)),
    }
}

fn req_enum<T>(
    r: Raw<'_>,
    parse: fn(&[u8]) -> Option<T>,
    field: &'static str,
) -> Result<T, JsonError> {
    match r {
        Raw::Absent | Raw::Null | Raw::Str("") => Err(JsonError::MissingField(field)),
        Raw::Str(s) => parse(s.as_bytes()).ok_or(JsonError::UnknownEnum(field)),
        _ => Err(JsonError::InvalidField(field)),
    }
}

/// An optional enum: absent, `null`, `""` and values this codec does not model → `None`.
fn opt_enum<T>(
    r: Raw<'_>,
    parse: fn(&[u8]) -> Option<T>,
    field: &'static str,
) -> Result<Option<T>, JsonError> {
    match r {
        Raw::Absent | Raw::Null => Ok(None),
        Raw::Str(s) => Ok(parse(s.as_bytes())),
        _ => Err(JsonError::InvalidField(field)),
    }
}

/// `yes`/`no` in any case (REST sends `YES`/`NO`, pushes `yes`/`no`); absent and `""` → false.
fn yes_no(r: Raw<'_>, field: &'static str) -> Result<bool, JsonError> {
    match r {
        Raw::Absent | Raw::Null | Raw::Str("") => Ok(false),
        Raw::Str(s) if s.eq_ignore_ascii_case("yes") || s.eq_ignore_ascii_case("true") => Ok(true),
        Raw::Str(s) if s.eq_ignore_ascii_case("no") || s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(JsonError::InvalidField(field)),
    }
}
