//! Lenient intermediate shapes that simd-json fills in one pass (no DOM): every value the
//! dispatcher may need, borrowed from the parser's input copy. Interpretation (decimals, enums,
//! timestamps, numeric ids) happens afterwards in [`super::parse`], once the topic is known, so
//! that a field of the same name with another type in a topic we don't act on cannot fail the
//! frame.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use smallvec::SmallVec;

use super::code::Code;

/// Visitor methods that turn every JSON scalar into `$value::default()`, for lenient shapes
/// that only care about one JSON type.
macro_rules! scalars_give_default {
    ($de:lifetime, $value:ty) => {
        fn visit_borrowed_str<E: de::Error>(self, _v: &$de str) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_str<E: de::Error>(self, _v: &str) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_u64<E: de::Error>(self, _v: u64) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_i64<E: de::Error>(self, _v: i64) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_f64<E: de::Error>(self, _v: f64) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_bool<E: de::Error>(self, _v: bool) -> Result<$value, E> {
            Ok(<$value>::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<$value, E> {
            Ok(<$value>::default())
        }
    };
}

/// A scalar as it appeared on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) enum Raw<'a> {
    /// The key was not present.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// A string (unescaped, borrowed from the input copy).
    Str(&'a str),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// A float, a boolean, an array or an object (contents skipped).
    Other,
    /// A numeric id already written as digits into the parser's scratch buffer
    /// (`start`, `end`).
    Span(u32, u32),
}

impl<'a> Raw<'a> {
    /// If this is a non-negative integer, writes its digits to `scratch` and turns it into a
    /// [`Raw::Span`] (numeric ids are returned as their digit text).
    pub(crate) fn spill(&mut self, scratch: &mut Vec<u8>) {
        if let Raw::U64(n) = *self {
            let start = scratch.len();
            let mut b = itoa::Buffer::new();
            scratch.extend_from_slice(b.format(n).as_bytes());
            // Frames are far below 4 GiB; saturate rather than panic if not.
            let s = u32::try_from(start).unwrap_or(u32::MAX);
            let e = u32::try_from(scratch.len()).unwrap_or(u32::MAX);
            *self = Raw::Span(s, e);
        }
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Raw<'de>, E> {
        Ok(Raw::Str(v))
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Raw<'de>, E> {
        Err(E::custom("string cannot be borrowed from the input"))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw<'de>, E> {
        Ok(Raw::U64(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw<'de>, E> {
        Ok(match u64::try_from(v) {
            Ok(u) => Raw::U64(u),
            Err(_) => Raw::I64(v),
        })
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Raw<'de>, E> {
        Ok(Raw::Other)
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Raw<'de>, E> {
        Ok(Raw::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Raw<'de>, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Raw<'de>, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw<'de>, D::Error> {
        d.deserialize_any(RawVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Raw::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Raw::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

/// A JSON array collected into a `SmallVec` (smallvec is built without its serde feature).
pub(crate) struct Items<A: smallvec::Array>(pub(crate) SmallVec<A>);

impl<'de, A> Deserialize<'de> for Items<A>
where
    A: smallvec::Array,
    A::Item: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<A>(PhantomData<A>);
        impl<'de, A> Visitor<'de> for V<A>
        where
            A: smallvec::Array,
            A::Item: Deserialize<'de>,
        {
            type Value = Items<A>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Items<A>, S::Error> {
                let mut v = SmallVec::new();
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(Items(v))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// `arg` of pushes and subscribe acks (reference §3.1, §4.1); other keys are ignored.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Arg<'a> {
    #[serde(rename = "instType", borrow, default)]
    pub(crate) inst_type: Option<&'a str>,
    #[serde(borrow, default)]
    pub(crate) topic: Option<&'a str>,
    #[serde(borrow, default)]
    pub(crate) symbol: Option<&'a str>,
}

/// One element of a trade reply's `args` (reference §5.2).
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct TradeItemRaw<'a> {
    #[serde(rename = "orderId", borrow, default)]
    pub(crate) order_id: Raw<'a>,
    #[serde(rename = "clientOid", borrow, default)]
    pub(crate) client_oid: Raw<'a>,
    #[serde(default)]
    pub(crate) code: Option<Code>,
    #[serde(borrow, default)]
    pub(crate) msg: Option<&'a str>,
}

/// The first entry of `feeDetail` (reference §4.2, §4.3); anything else is skipped.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Fee<'a> {
    pub(crate) fee: Raw<'a>,
    pub(crate) fee_coin: Raw<'a>,
}

struct FeeEntryVisitor;

impl<'de> Visitor<'de> for FeeEntryVisitor {
    type Value = Fee<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a fee entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fee<'de>, A::Error> {
        let mut fee = Fee::default();
        while let Some(k) = map.next_key::<&'de str>()? {
            match k {
                "fee" => fee.fee = map.next_value()?,
                "feeCoin" => fee.fee_coin = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(fee)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Fee<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Fee::default())
    }
    scalars_give_default!('de, Fee<'de>);
}

struct FeeEntry<'a>(Fee<'a>);

impl<'de> Deserialize<'de> for FeeEntry<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FeeEntryVisitor).map(FeeEntry)
    }
}

impl<'de> Deserialize<'de> for Fee<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fee<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("feeDetail")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Fee<'de>, A::Error> {
                let first = seq
                    .next_element::<FeeEntry<'de>>()?
                    .map(|e| e.0)
                    .unwrap_or_default();
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(first)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Fee<'de>, A::Error> {
                FeeEntryVisitor.visit_map(map)
            }
            scalars_give_default!('de, Fee<'de>);
        }
        d.deserialize_any(V)
    }
}

/// One entry of an `account` push's `coin` list (reference §4.5).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct CoinRaw<'a> {
    pub(crate) coin: Raw<'a>,
    pub(crate) balance: Raw<'a>,
    pub(crate) locked: Raw<'a>,
    pub(crate) equity: Raw<'a>,
    pub(crate) available: Raw<'a>,
}

struct CoinVisitor;

impl<'de> Visitor<'de> for CoinVisitor {
    type Value = CoinRaw<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a coin entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CoinRaw<'de>, A::Error> {
        let mut c = CoinRaw::default();
        while let Some(k) = map.next_key::<&'de str>()? {
            let slot = match k {
                "coin" => &mut c.coin,
                "balance" => &mut c.balance,
                "locked" => &mut c.locked,
                "equity" => &mut c.equity,
                "available" => &mut c.available,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = map.next_value()?;
        }
        Ok(c)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CoinRaw<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(CoinRaw::default())
    }
    scalars_give_default!('de, CoinRaw<'de>);
}

impl<'de> Deserialize<'de> for CoinRaw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CoinVisitor)
    }
}

/// The `coin` list of an `account` push; anything but an array reads as empty.
#[derive(Debug, Default, Clone)]
pub(crate) struct Coins<'a>(pub(crate) SmallVec<[CoinRaw<'a>; 4]>);

impl<'de> Deserialize<'de> for Coins<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Coins<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a coin list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Coins<'de>, A::Error> {
                let mut v = SmallVec::new();
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(Coins(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Coins<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Coins::default())
            }
            scalars_give_default!('de, Coins<'de>);
        }
        d.deserialize_any(V)
    }
}

/// One element of a push's `data`: the union of the `order` (§4.2), `fill` (§4.3), `position`
/// (§4.4) and `account` (§4.5) fields, all kept raw. Items of other topics fill what they share
/// and skip the rest.
#[derive(Debug, Default, Clone)]
pub(crate) struct ItemRaw<'a> {
    pub(crate) category: Raw<'a>,
    pub(crate) symbol: Raw<'a>,
    pub(crate) order_id: Raw<'a>,
    pub(crate) client_oid: Raw<'a>,
    pub(crate) price: Raw<'a>,
    pub(crate) qty: Raw<'a>,
    pub(crate) side: Raw<'a>,
    pub(crate) order_type: Raw<'a>,
    pub(crate) time_in_force: Raw<'a>,
    pub(crate) order_status: Raw<'a>,
    pub(crate) cancel_reason: Raw<'a>,
    pub(crate) cum_exec_qty: Raw<'a>,
    pub(crate) cum_exec_value: Raw<'a>,
    pub(crate) avg_price: Raw<'a>,
    pub(crate) hold_side: Raw<'a>,
    pub(crate) created_time: Raw<'a>,
    pub(crate) updated_time: Raw<'a>,
    pub(crate) reduce_only: Raw<'a>,
    pub(crate) exec_id: Raw<'a>,
    pub(crate) exec_price: Raw<'a>,
    pub(crate) exec_qty: Raw<'a>,
    pub(crate) exec_value: Raw<'a>,
    pub(crate) trade_scope: Raw<'a>,
    pub(crate) exec_time: Raw<'a>,
    pub(crate) fee: Fee<'a>,
    pub(crate) margin_coin: Raw<'a>,
    pub(crate) pos_side: Raw<'a>,
    pub(crate) hold_mode: Raw<'a>,
    pub(crate) size: Raw<'a>,
    pub(crate) leverage: Raw<'a>,
    pub(crate) cur_realised_pnl: Raw<'a>,
    /// `unrealisedPnl` (position) or `unrealisedPnL` (account).
    pub(crate) unrealised_pnl: Raw<'a>,
    pub(crate) liq_price: Raw<'a>,
    pub(crate) mark_price: Raw<'a>,
    pub(crate) coins: Coins<'a>,
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = ItemRaw<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a data item")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ItemRaw<'de>, A::Error> {
        let mut it = ItemRaw::default();
        while let Some(k) = map.next_key::<&'de str>()? {
            let slot = match k {
                "category" => &mut it.category,
                "symbol" => &mut it.symbol,
                "orderId" => &mut it.order_id,
                "clientOid" => &mut it.client_oid,
                "price" => &mut it.price,
                "qty" => &mut it.qty,
                "side" => &mut it.side,
                "orderType" => &mut it.order_type,
                "timeInForce" => &mut it.time_in_force,
                "orderStatus" => &mut it.order_status,
                "cancelReason" => &mut it.cancel_reason,
                "cumExecQty" => &mut it.cum_exec_qty,
                "cumExecValue" => &mut it.cum_exec_value,
                "avgPrice" => &mut it.avg_price,
                "holdSide" => &mut it.hold_side,
                "createdTime" => &mut it.created_time,
                "updatedTime" => &mut it.updated_time,
                "reduceOnly" => &mut it.reduce_only,
                "execId" => &mut it.exec_id,
                "execPrice" => &mut it.exec_price,
                "execQty" => &mut it.exec_qty,
                "execValue" => &mut it.exec_value,
                "tradeScope" => &mut it.trade_scope,
                "execTime" => &mut it.exec_time,
                "marginCoin" => &mut it.margin_coin,
                "posSide" => &mut it.pos_side,
                "holdMode" => &mut it.hold_mode,
                "size" => &mut it.size,
                "leverage" => &mut it.leverage,
                "curRealisedPnl" => &mut it.cur_realised_pnl,
                "unrealisedPnl" | "unrealisedPnL" => &mut it.unrealised_pnl,
                "liqPrice" => &mut it.liq_price,
                "markPrice" => &mut it.mark_price,
                "coin" => {
                    it.coins = map.next_value()?;
                    continue;
                }
                "feeDetail" => {
                    it.fee = map.next_value()?;
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = map.next_value()?;
        }
        Ok(it)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ItemRaw<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(ItemRaw::default())
    }
    scalars_give_default!('de, ItemRaw<'de>);
}

impl<'de> Deserialize<'de> for ItemRaw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

/// A push's `data`: an array of items, or (`fast-fill`, §4.3) a single object.
#[derive(Debug, Default)]
pub(crate) struct Data<'a>(pub(crate) SmallVec<[ItemRaw<'a>; 2]>);

impl<'de> Deserialize<'de> for Data<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Data<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("push data")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Data<'de>, A::Error> {
                let mut v = SmallVec::new();
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(Data(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Data<'de>, A::Error> {
                let mut v = SmallVec::new();
                v.push(ItemVisitor.visit_map(map)?);
                Ok(Data(v))
            }
            scalars_give_default!('de, Data<'de>);
        }
        d.deserialize_any(V)
    }
}

/// The top-level object of any inbound frame (reference §3.1, §4.1, §5.2).
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    pub(crate) event: Option<&'a str>,
    pub(crate) arg: Option<Arg<'a>>,
    pub(crate) id: Raw<'a>,
    pub(crate) code: Option<Code>,
    pub(crate) msg: Option<&'a str>,
    pub(crate) topic: Option<&'a str>,
    pub(crate) args: SmallVec<[TradeItemRaw<'a>; 4]>,
    pub(crate) data: Data<'a>,
    pub(crate) ts: Raw<'a>,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Envelope<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
                let mut e = Envelope::default();
                while let Some(k) = map.next_key::<&'de str>()? {
                    match k {
                        "event" => e.event = map.next_value()?,
                        "arg" => e.arg = map.next_value()?,
                        "id" => e.id = map.next_value()?,
                        "code" => e.code = map.next_value()?,
                        "msg" => e.msg = map.next_value()?,
                        "topic" => e.topic = map.next_value()?,
                        "args" => {
                            e.args = map
                                .next_value::<Option<Items<[TradeItemRaw<'de>; 4]>>>()?
                                .map(|i| i.0)
                                .unwrap_or_default();
                        }
                        "data" => e.data = map.next_value()?,
                        "ts" => e.ts = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(e)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Envelope<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Envelope::default())
            }
            scalars_give_default!('de, Envelope<'de>);
        }
        d.deserialize_any(V)
    }
}
