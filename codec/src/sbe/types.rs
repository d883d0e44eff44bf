//! Field types shared by the SBE messages: [`Symbol`] (`char[16]`), [`Text`] (`char[64]`),
//! `Decimal64` ↔ [`Decimal`] conversion, and the enums of the schema (SBE 1.0; FIX tag numbers
//! where the field is a FIX field, FIXP for the session enums).

use crate::decimal::Decimal;
use crate::sbe::header::DecodeError;

/// How one field type is laid out in a block. Implemented for the integer types, the decimals,
/// [`Symbol`], [`Text`] and every enum (plain and `Option`).
pub(crate) trait WireField: Sized + Copy {
    /// Size in bytes on the wire.
    const SIZE: usize;
    /// Type name in the XML schema.
    const XML_TYPE: &'static str;
    /// True when the field may be null (`presence="optional"`).
    const OPTIONAL: bool;
    /// True when `read(&[])` is the type's null or zero (integers: 0, optional types: `None`),
    /// so that a field of the type may be added in a later schema version (`since N`): absent
    /// from an older sender's block, it reads as that value. Required enums, decimals and char
    /// arrays have no such value and cannot be versioned (checked at compile time).
    const VERSIONABLE: bool = false;
    /// Writes every byte of `out` (`out.len() == SIZE`).
    fn put(&self, out: &mut [u8]);
    /// Validates the raw bytes of the field (`raw.len() == SIZE`).
    fn check(_raw: &[u8], _field: &'static str) -> Result<(), DecodeError> {
        Ok(())
    }
    /// Reads a field that `check` accepted. Never panics, whatever `raw` holds.
    fn read(raw: &[u8]) -> Self;
}

/// The `size` bytes of a field at `offset` of `block`, or an empty slice if out of range (never
/// the case for the compile-time-checked offsets of the message tables).
#[inline]
pub(crate) fn field_bytes(block: &[u8], offset: usize, size: usize) -> &[u8] {
    block.get(offset..offset + size).unwrap_or(&[])
}

/// The `size` bytes of a root-block field at `offset`: from `block` (the fields of schema
/// version 0, a fixed-size array: no run-time bound check for constant offsets) when the field
/// lies there, else from `known` (the known fields the sender wrote, see
/// `header::present_block_length`); `None` when the field is absent (added by a later version
/// than the sender's, or beyond its block).
#[inline]
pub(crate) fn block_field<'a, const MIN: usize>(
    block: &'a [u8; MIN],
    known: &'a [u8],
    offset: usize,
    size: usize,
) -> Option<&'a [u8]> {
    if offset + size <= MIN {
        block.get(offset..offset + size)
    } else {
        known.get(offset..offset + size)
    }
}

macro_rules! wire_int {
    ($($t:ty = $xml:literal),+) => {$(
        impl WireField for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const XML_TYPE: &'static str = $xml;
            const OPTIONAL: bool = false;
            const VERSIONABLE: bool = true;
            #[inline]
            fn put(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read(raw: &[u8]) -> Self {
                raw.first_chunk().map_or(0, |b| <$t>::from_le_bytes(*b))
            }
        }
    )+};
}
wire_int!(u64 = "uint64", u32 = "uint32", u16 = "uint16");

/// SBE null of an optional `uint64` (the spec's default `nullValue`, 2^64 − 1).
pub const U64_NULL: u64 = u64::MAX;

/// Optional `uint64` (`presence="optional"`, null 2^64 − 1): `None` ↔ [`U64_NULL`]. Absent
/// from an older sender's block (a field added by a later version), it reads as `None`, so a
/// value of 0 stays a real value (e.g. epoch 0).
impl WireField for Option<u64> {
    const SIZE: usize = 8;
    const XML_TYPE: &'static str = "uint64";
    const OPTIONAL: bool = true;
    const VERSIONABLE: bool = true;
    #[inline]
    fn put(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.unwrap_or(U64_NULL).to_le_bytes());
    }
    #[inline]
    fn read(raw: &[u8]) -> Self {
        raw.first_chunk()
            .map(|b| u64::from_le_bytes(*b))
            .filter(|&v| v != U64_NULL)
    }
}

/// `Decimal64` null mantissa (SBE `int64` null value): the field is absent.
pub const DECIMAL_NULL_MANTISSA: i64 = i64::MIN;
/// Size of the `Decimal64` composite in bytes: `int64` mantissa + `int8` exponent.
pub const DECIMAL64_LEN: usize = 9;

/// Raw `Decimal64`: (mantissa, exponent), never panics.
#[inline]
fn read_decimal64(raw: &[u8]) -> (i64, i8) {
    let mantissa = raw
        .first_chunk()
        .map_or(DECIMAL_NULL_MANTISSA, |b| i64::from_le_bytes(*b));
    let exponent = raw.get(8).map_or(0, |&e| e as i8);
    (mantissa, exponent)
}

#[inline]
fn put_decimal64(out: &mut [u8], mantissa: i64, exponent: i8) {
    out[..8].copy_from_slice(&mantissa.to_le_bytes());
    out[8] = exponent as u8;
}

/// Optional decimal: `None` ↔ null mantissa `i64::MIN` (exponent written as 0).
///
/// A `Some` decimal whose mantissa is `i64::MIN` cannot be told from null and is read back as
/// `None`.
impl WireField for Option<Decimal> {
    const SIZE: usize = DECIMAL64_LEN;
    const XML_TYPE: &'static str = "Decimal64";
    const OPTIONAL: bool = true;
    const VERSIONABLE: bool = true;
    fn put(&self, out: &mut [u8]) {
        match self {
            Some(d) => put_decimal64(out, d.mantissa(), d.exponent()),
            None => put_decimal64(out, DECIMAL_NULL_MANTISSA, 0),
        }
    }
    fn check(raw: &[u8], field: &'static str) -> Result<(), DecodeError> {
        let (mantissa, exponent) = read_decimal64(raw);
        if mantissa == DECIMAL_NULL_MANTISSA {
            return Ok(());
        }
        Decimal::new(mantissa, exponent)
            .map(|_| ())
            .map_err(|_| DecodeError::InvalidDecimal { field })
    }
    fn read(raw: &[u8]) -> Self {
        let (mantissa, exponent) = read_decimal64(raw);
        if mantissa == DECIMAL_NULL_MANTISSA {
            return None;
        }
        Decimal::new(mantissa, exponent).ok()
    }
}

/// Required decimal: the null mantissa is refused with [`DecodeError::MissingValue`].
impl WireField for Decimal {
    const SIZE: usize = DECIMAL64_LEN;
    const XML_TYPE: &'static str = "Decimal64";
    const OPTIONAL: bool = false;
    fn put(&self, out: &mut [u8]) {
        put_decimal64(out, self.mantissa(), self.exponent());
    }
    fn check(raw: &[u8], field: &'static str) -> Result<(), DecodeError> {
        let (mantissa, exponent) = read_decimal64(raw);
        if mantissa == DECIMAL_NULL_MANTISSA {
            return Err(DecodeError::MissingValue { field });
        }
        Decimal::new(mantissa, exponent)
            .map(|_| ())
            .map_err(|_| DecodeError::InvalidDecimal { field })
    }
    fn read(raw: &[u8]) -> Self {
        let (mantissa, exponent) = read_decimal64(raw);
        Decimal::new(mantissa, exponent).unwrap_or(Decimal::ZERO)
    }
}

/// Length of the content of a NUL-padded char array: up to the first NUL.
#[inline]
fn content_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())
}

/// Copies the content (up to the first NUL) of `raw` into a zero-filled array: bytes after the
/// first NUL are not part of the value and are normalised to NUL.
#[inline]
fn read_char_array<const N: usize>(raw: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let len = content_len(raw).min(N);
    if let (Some(dst), Some(src)) = (out.get_mut(..len), raw.get(..len)) {
        dst.copy_from_slice(src);
    }
    out
}

/// Why a string is not a valid [`Symbol`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSymbol {
    /// Longer than [`Symbol::LEN`] (16) bytes; carries the length in bytes.
    #[error("symbol of {0} bytes exceeds 16")]
    TooLong(usize),
    /// Holds a byte outside ASCII.
    #[error("symbol is not ASCII")]
    NotAscii,
    /// Holds a NUL byte (NUL ends the value on the wire).
    #[error("symbol holds a NUL byte")]
    Nul,
}

/// An instrument symbol (FIX 55 Symbol, Bitget `symbol`, e.g. `BTCUSDT`): SBE `char[16]`,
/// NUL-padded US-ASCII, 0 to 16 bytes, no NUL inside. Compares by content.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Symbol([u8; Symbol::LEN]);

impl Symbol {
    /// Size of the field on the wire in bytes.
    pub const LEN: usize = 16;
    /// The empty symbol (all NUL).
    pub const EMPTY: Symbol = Symbol([0; Symbol::LEN]);

    /// A symbol from its text. Errors: [`InvalidSymbol`] when `s` is longer than 16 bytes, not
    /// ASCII, or holds a NUL.
    pub fn new(s: &str) -> Result<Symbol, InvalidSymbol> {
        let b = s.as_bytes();
        if b.len() > Self::LEN {
            return Err(InvalidSymbol::TooLong(b.len()));
        }
        if !b.is_ascii() {
            return Err(InvalidSymbol::NotAscii);
        }
        if b.contains(&0) {
            return Err(InvalidSymbol::Nul);
        }
        let mut out = [0u8; Self::LEN];
        out[..b.len()].copy_from_slice(b);
        Ok(Symbol(out))
    }

    /// The symbol text (without the NUL padding).
    pub fn as_str(&self) -> &str {
        // ASCII by construction (`new` and the decoder's check); "" is unreachable.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }

    /// The symbol bytes (without the NUL padding).
    pub fn as_bytes(&self) -> &[u8] {
        let len = content_len(&self.0);
        self.0.get(..len).unwrap_or(&[])
    }

    /// True for the empty symbol.
    pub fn is_empty(&self) -> bool {
        self.0[0] == 0
    }
}

impl TryFrom<&str> for Symbol {
    type Error = InvalidSymbol;
    fn try_from(s: &str) -> Result<Symbol, InvalidSymbol> {
        Symbol::new(s)
    }
}

impl std::fmt::Debug for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Symbol({:?})", self.as_str())
    }
}

impl std::fmt::Display for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Serialized as its text; deserializing checks it as [`Symbol::new`] does.
impl serde::Serialize for Symbol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Symbol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor("a symbol", |s| {
            Symbol::new(s).map_err(|e| e.to_string())
        }))
    }
}

/// Reads a string into `T` with a check (`.1`) that may refuse it; `.0` says what is expected.
struct StrVisitor<T>(&'static str, fn(&str) -> Result<T, String>);

impl<T> serde::de::Visitor<'_> for StrVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        (self.1)(v).map_err(E::custom)
    }
}

impl WireField for Symbol {
    const SIZE: usize = Symbol::LEN;
    const XML_TYPE: &'static str = "Symbol";
    const OPTIONAL: bool = false;
    fn put(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }
    fn check(raw: &[u8], field: &'static str) -> Result<(), DecodeError> {
        let content = raw.get(..content_len(raw)).unwrap_or(&[]);
        if content.is_ascii() {
            Ok(())
        } else {
            Err(DecodeError::InvalidText { field })
        }
    }
    fn read(raw: &[u8]) -> Self {
        Symbol(read_char_array(raw))
    }
}

/// Free text (FIX 58 Text, reasons, credentials): SBE `char[64]`, NUL-padded UTF-8, at most 64
/// bytes. Compares by content.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Text([u8; Text::LEN]);

impl Default for Text {
    fn default() -> Self {
        Text::EMPTY
    }
}

impl Text {
    /// Size of the field on the wire in bytes.
    pub const LEN: usize = 64;
    /// The empty text (all NUL).
    pub const EMPTY: Text = Text([0; Text::LEN]);

    /// A text from `s`, cut at its first NUL (which would end it on the wire) and truncated to
    /// at most 64 bytes on a char boundary. Never fails.
    pub fn new(s: &str) -> Text {
        let mut end = content_len(s.as_bytes()).min(Self::LEN);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut out = [0u8; Self::LEN];
        out[..end].copy_from_slice(&s.as_bytes()[..end]);
        Text(out)
    }

    /// The text (without the NUL padding).
    pub fn as_str(&self) -> &str {
        // UTF-8 by construction (`new` and the decoder's check); "" is unreachable.
        let len = content_len(&self.0);
        std::str::from_utf8(self.0.get(..len).unwrap_or(&[])).unwrap_or("")
    }

    /// True for the empty text.
    pub fn is_empty(&self) -> bool {
        self.0[0] == 0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Text({:?})", self.as_str())
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Serialized as its text; deserializing refuses a text that [`Text::new`] would cut (longer
/// than 64 bytes, or holding a NUL).
impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor("a text of at most 64 bytes", |s| {
            if s.len() > Text::LEN || s.as_bytes().contains(&0) {
                Err(format!("text of {} bytes does not fit char[64]", s.len()))
            } else {
                Ok(Text::new(s))
            }
        }))
    }
}

impl WireField for Text {
    const SIZE: usize = Text::LEN;
    const XML_TYPE: &'static str = "Text";
    const OPTIONAL: bool = false;
    fn put(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }
    fn check(raw: &[u8], field: &'static str) -> Result<(), DecodeError> {
        let content = raw.get(..content_len(raw)).unwrap_or(&[]);
        match std::str::from_utf8(content) {
            Ok(_) => Ok(()),
            Err(_) => Err(DecodeError::InvalidText { field }),
        }
    }
    fn read(raw: &[u8]) -> Self {
        Text(read_char_array(raw))
    }
}

sbe_enum! {
    /// Side of an order (FIX 54 Side).
    pub enum Side as "Side": uint8 (null 255) {
        /// Buy.
        Buy = 1,
        /// Sell.
        Sell = 2,
    }
}

sbe_enum! {
    /// Order type (FIX 40 OrdType).
    pub enum OrdType as "OrdType": uint8 (null 255) {
        /// Market order: no price.
        Market = 1,
        /// Limit order.
        Limit = 2,
    }
}

sbe_enum! {
    /// Time in force (FIX 59 TimeInForce; PostOnly is a custom value for Bitget `post_only`).
    pub enum TimeInForce as "TimeInForce": uint8 (null 255) {
        /// Good till cancel.
        Gtc = 1,
        /// Immediate or cancel.
        Ioc = 3,
        /// Fill or kill.
        Fok = 4,
        /// Maker only: rejected if it would take liquidity.
        PostOnly = 8,
    }
}

sbe_enum! {
    /// Bitget UTA product category of an instrument (custom).
    pub enum Category as "Category": uint8 (null 255) {
        /// Spot.
        Spot = 1,
        /// Margin.
        Margin = 2,
        /// USDT-margined futures.
        UsdtFutures = 3,
        /// Coin-margined futures.
        CoinFutures = 4,
        /// USDC-margined futures.
        UsdcFutures = 5,
    }
}

sbe_enum! {
    /// Position side in hedge mode (Bitget `posSide`; custom).
    pub enum PosSide as "PosSide": uint8 (null 255) {
        /// Not set (one-way mode or spot).
        None = 0,
        /// Long position.
        Long = 1,
        /// Short position.
        Short = 2,
    }
}

sbe_enum! {
    /// Boolean flag (XML `BooleanType`).
    pub enum BoolFlag as "BooleanType": uint8 (null 255) {
        /// False.
        No = 0,
        /// True.
        Yes = 1,
    }
}

sbe_enum! {
    /// Self-trade prevention mode (Bitget `stpMode`; custom).
    pub enum StpMode as "StpMode": uint8 (null 255) {
        /// Not sent: let the venue decide.
        Default = 0,
        /// No self-trade prevention.
        None = 1,
        /// Cancel the taker order.
        CancelTaker = 2,
        /// Cancel the maker order.
        CancelMaker = 3,
        /// Cancel both orders.
        CancelBoth = 4,
    }
}

sbe_enum! {
    /// Execution type of an ExecutionReport (FIX 150 ExecType), a `char`.
    pub enum ExecType as "ExecType": char (null 0) {
        /// Accepted by the venue.
        New = b'0',
        /// Partially filled (FIX 4.2 value, kept for clarity).
        PartialFill = b'1',
        /// Completely filled (FIX 4.2 value, kept for clarity).
        Fill = b'2',
        /// Canceled.
        Canceled = b'4',
        /// Replaced (modified).
        Replaced = b'5',
        /// Cancel sent, not yet confirmed.
        PendingCancel = b'6',
        /// Rejected.
        Rejected = b'8',
        /// Sent to the venue, not yet acknowledged.
        PendingNew = b'A',
        /// Modify sent, not yet confirmed.
        PendingReplace = b'E',
        /// Status of an order answering an OrderMassStatusRequest (no change of state).
        OrderStatus = b'I',
    }
}

sbe_enum! {
    /// Order status (FIX 39 OrdStatus), a `char`.
    pub enum OrdStatus as "OrdStatus": char (null 0) {
        /// Live, nothing filled.
        New = b'0',
        /// Partially filled.
        PartiallyFilled = b'1',
        /// Completely filled.
        Filled = b'2',
        /// Canceled.
        Canceled = b'4',
        /// Cancel pending.
        PendingCancel = b'6',
        /// Rejected.
        Rejected = b'8',
        /// Sent, not yet acknowledged.
        PendingNew = b'A',
        /// Modify pending.
        PendingReplace = b'E',
    }
}

sbe_enum! {
    /// Why an order was rejected (FIX 103 OrdRejReason; 100 and 101 are custom).
    pub enum OrdRejReason as "OrdRejReason": uint8 (null 255) {
        /// Broker / gateway option.
        BrokerOption = 0,
        /// Unknown symbol.
        UnknownSymbol = 1,
        /// Exchange closed.
        ExchangeClosed = 2,
        /// Order exceeds a limit.
        OrderExceedsLimit = 3,
        /// Unknown order.
        UnknownOrder = 5,
        /// Duplicate order (ClOrdID already used).
        DuplicateOrder = 6,
        /// Unsupported order characteristic.
        UnsupportedOrderCharacteristic = 11,
        /// Incorrect quantity.
        IncorrectQuantity = 13,
        /// Price exceeds the current price band.
        PriceExceedsBand = 16,
        /// Invalid price increment (tick size).
        InvalidPriceIncrement = 18,
        /// Other.
        Other = 99,
        /// Rejected by the exchange (see ExchangeCode and Text).
        ExchangeReject = 100,
        /// Outcome known: the request was never sent to the exchange.
        NotApplied = 101,
        /// The rate budget had no token for it (never sent; see Text for the bucket).
        ThrottleLimitExceeded = 102,
        /// The kill switch of the account or the gateway is on (never sent).
        KillSwitch = 103,
        /// A pre-trade risk limit (Text names the rule, e.g. `risk.max_open_orders`; never sent).
        RiskLimit = 104,
    }
}

sbe_enum! {
    /// Which request an OrderCancelReject answers (FIX 434 CxlRejResponseTo), a `char`.
    pub enum CxlRejResponseTo as "CxlRejResponseTo": char (null 0) {
        /// OrderCancelRequest.
        OrderCancelRequest = b'1',
        /// OrderCancelReplaceRequest.
        OrderCancelReplaceRequest = b'2',
    }
}

sbe_enum! {
    /// Why a cancel or modify was rejected (FIX 102 CxlRejReason; 100 is custom).
    pub enum CxlRejReason as "CxlRejReason": uint8 (null 255) {
        /// Too late to cancel (already filled or canceled).
        TooLateToCancel = 0,
        /// Unknown order.
        UnknownOrder = 1,
        /// Order already in a pending status.
        PendingStatus = 3,
        /// Duplicate ClOrdID.
        DuplicateClOrdID = 6,
        /// Other.
        Other = 99,
        /// Rejected by the exchange (see ExchangeCode and Text).
        ExchangeReject = 100,
        /// Outcome known: the request was never sent to the exchange (see Text).
        NotApplied = 101,
        /// The rate budget had no token for it (never sent; see Text for the bucket).
        ThrottleLimitExceeded = 102,
    }
}

sbe_enum! {
    /// Why a message was rejected at the business level (FIX 380 BusinessRejectReason; 7 is
    /// custom).
    pub enum BusinessRejectReason as "BusinessRejectReason": uint8 (null 255) {
        /// Other.
        Other = 0,
        /// Unknown id.
        UnknownID = 1,
        /// Unknown security.
        UnknownSecurity = 2,
        /// Unsupported message type (template).
        UnsupportedMessageType = 3,
        /// Application not available.
        ApplicationNotAvailable = 4,
        /// Conditionally required field missing.
        ConditionallyRequiredFieldMissing = 5,
        /// Not authorized.
        NotAuthorized = 6,
        /// A field holds an invalid value (custom).
        InvalidField = 7,
        /// Throttle limit exceeded.
        ThrottleLimitExceeded = 8,
    }
}

sbe_enum! {
    /// Flow type of one direction of a FIXP session.
    pub enum FlowType as "FlowType": uint8 (null 255) {
        /// Sequenced and retransmitted on request.
        Recoverable = 0,
        /// Not sequenced.
        Unsequenced = 1,
        /// Sequenced, applied at most once, never retransmitted.
        Idempotent = 2,
        /// No application messages in this direction.
        None = 3,
    }
}

sbe_enum! {
    /// Why a FIXP Negotiate was refused.
    pub enum NegotiationRejectCode as "NegotiationRejectCode": uint8 (null 255) {
        /// Unspecified.
        Unspecified = 0,
        /// Credentials refused.
        Credentials = 1,
        /// Flow type not supported.
        FlowTypeNotSupported = 2,
        /// Session id already in use.
        DuplicateId = 3,
        /// `SessionVerID` lower than the session's current epoch (schema version 1).
        StaleSessionVersion = 4,
    }
}

sbe_enum! {
    /// Why a FIXP Establish was refused.
    pub enum EstablishmentRejectCode as "EstablishmentRejectCode": uint8 (null 255) {
        /// Unspecified.
        Unspecified = 0,
        /// The session was not negotiated.
        Unnegotiated = 1,
        /// The session is already established.
        AlreadyEstablished = 2,
        /// The session is blocked.
        SessionBlocked = 3,
        /// Keepalive interval out of range.
        KeepaliveInterval = 4,
        /// Credentials refused.
        Credentials = 5,
    }
}

sbe_enum! {
    /// Why a FIXP session is terminated.
    pub enum TerminationCode as "TerminationCode": uint8 (null 255) {
        /// Normal end of session.
        Finished = 0,
        /// Unspecified error.
        UnspecifiedError = 1,
        /// Retransmission request out of bounds.
        ReRequestOutOfBounds = 2,
        /// A retransmission is already in progress.
        ReRequestInProgress = 3,
        /// No message within the keepalive interval.
        KeepaliveTimeout = 4,
        /// Protocol error.
        ProtocolError = 5,
        /// The exchange is unavailable.
        ExchangeUnavailable = 6,
        /// The gateway ended the session's epoch (scheduled rollover): negotiate again with
        /// `SessionVerID` 0 or the new epoch (schema version 1).
        SessionRollover = 7,
    }
}

sbe_enum! {
    /// Why a RetransmitRequest was refused (FIXP 1.0 RetransmitReject codes).
    pub enum RetransmitRejectCode as "RetransmitRejectCode": uint8 (null 255) {
        /// FromSeqNo or Count outside the messages sent so far.
        OutOfRange = 0,
        /// The SessionID is not this session's.
        InvalidSession = 1,
        /// Count above the gateway's per-request limit.
        RequestLimitExceeded = 2,
        /// The messages asked for are no longer kept (journal retention: the reason says from
        /// which sequence number on they are), or the journal could not be read.
        Unavailable = 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_rules() {
        let s = Symbol::new("BTCUSDT").unwrap();
        assert_eq!(s.as_str(), "BTCUSDT");
        assert!(!s.is_empty());
        assert_eq!(Symbol::new("").unwrap(), Symbol::EMPTY);
        assert!(Symbol::EMPTY.is_empty());
        assert_eq!(
            Symbol::new("0123456789abcdef").unwrap().as_str(),
            "0123456789abcdef"
        );
        assert_eq!(
            Symbol::new("0123456789abcdefg"),
            Err(InvalidSymbol::TooLong(17))
        );
        assert_eq!(Symbol::new("BTC€"), Err(InvalidSymbol::NotAscii));
        assert_eq!(Symbol::new("BTC\0X"), Err(InvalidSymbol::Nul));
    }

    #[test]
    fn text_truncates_on_char_boundary() {
        assert_eq!(Text::new("hello").as_str(), "hello");
        let long = "x".repeat(70);
        assert_eq!(Text::new(&long).as_str(), &long[..64]);
        // 63 ASCII bytes + a 3-byte char: the char does not fit and is dropped whole.
        let s = format!("{}€", "a".repeat(63));
        assert_eq!(Text::new(&s).as_str(), &s[..63]);
        let s = format!("{}€", "a".repeat(61));
        assert_eq!(Text::new(&s).as_str(), s);
        assert_eq!(Text::new("ab\0cd").as_str(), "ab");
        assert!(Text::new("").is_empty());
    }

    #[test]
    fn char_arrays_ignore_bytes_after_nul() {
        let mut raw = [0u8; 16];
        raw[..3].copy_from_slice(b"ETH");
        raw[4] = b'Z';
        assert!(Symbol::check(&raw, "Symbol").is_ok());
        assert_eq!(Symbol::read(&raw), Symbol::new("ETH").unwrap());
    }

    #[test]
    fn decimal_null_and_range() {
        let mut raw = [0u8; 9];
        None::<Decimal>.put(&mut raw);
        assert_eq!(<Option<Decimal>>::read(&raw), None);
        assert_eq!(
            Decimal::check(&raw, "OrderQty"),
            Err(DecodeError::MissingValue { field: "OrderQty" })
        );
        let d = Decimal::new(-12345, -3).unwrap();
        Some(d).put(&mut raw);
        assert_eq!(raw, [0xC7, 0xCF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD]);
        assert_eq!(<Option<Decimal>>::read(&raw), Some(d));
        raw[8] = 19;
        assert_eq!(
            <Option<Decimal>>::check(&raw, "Price"),
            Err(DecodeError::InvalidDecimal { field: "Price" })
        );
        raw[8] = (-19i8) as u8;
        assert!(Decimal::check(&raw, "Price").is_err());
        raw[8] = (-18i8) as u8;
        assert!(Decimal::check(&raw, "Price").is_ok());
    }

    #[test]
    fn serde_checks_what_the_wire_checks() {
        use serde_json::{from_str, to_string};
        // Enums as their wire value, values outside the schema refused.
        assert_eq!(to_string(&ExecType::PendingNew).unwrap(), "65");
        assert_eq!(from_str::<ExecType>("65").unwrap(), ExecType::PendingNew);
        assert!(from_str::<ExecType>("51").is_err());
        assert_eq!(to_string(&None::<Side>).unwrap(), "null");
        // Symbols and texts as their text, refused where `new` would refuse or cut them.
        let s = Symbol::new("BTCUSDT").unwrap();
        assert_eq!(to_string(&s).unwrap(), r#""BTCUSDT""#);
        assert_eq!(from_str::<Symbol>(r#""BTCUSDT""#).unwrap(), s);
        assert!(from_str::<Symbol>(r#""0123456789abcdefg""#).is_err());
        assert!(from_str::<Symbol>(r#""BTC€""#).is_err());
        let t = Text::new("ok €");
        assert_eq!(from_str::<Text>(&to_string(&t).unwrap()).unwrap(), t);
        assert!(from_str::<Text>(&format!(r#""{}""#, "x".repeat(65))).is_err());
        assert!(from_str::<Text>(r#""a\u0000b""#).is_err());
        // Decimals: a string in human-readable formats, scale kept.
        let d = Decimal::new(-1230, -3).unwrap();
        assert_eq!(to_string(&d).unwrap(), r#""-1.230""#);
        let back: Decimal = from_str(r#""-1.230""#).unwrap();
        assert_eq!((back.mantissa(), back.exponent()), (-1230, -3));
        assert!(from_str::<Decimal>(r#""1e5""#).is_err());
    }

    #[test]
    fn enum_wire_values() {
        assert_eq!(ExecType::from_wire(b'A'), Some(ExecType::PendingNew));
        assert_eq!(ExecType::from_wire(b'3'), None);
        assert_eq!(TimeInForce::PostOnly.to_wire(), 8);
        assert_eq!(
            OrdRejReason::check(&[150], "OrdRejReason"),
            Err(DecodeError::InvalidEnum {
                field: "OrdRejReason",
                value: 150
            })
        );
        assert!(<Option<OrdRejReason>>::check(&[255], "OrdRejReason").is_ok());
        assert_eq!(<Option<OrdRejReason>>::read(&[255]), None);
        assert!(OrdRejReason::check(&[255], "OrdRejReason").is_err());
    }
}

sbe_enum! {
    /// Outcome of one item of a batch, of a move or of an account request.
    pub enum ItemStatus as "ItemStatus": uint8 (null 255) {
        /// Accepted (by the gateway and, once sent, by the exchange).
        Accepted = 0,
        /// Rejected: see the reason, ExchangeCode and Text.
        Rejected = 1,
    }
}

sbe_enum! {
    /// Scope of an OrderMassCancelRequest (FIX 530 MassCancelRequestType, a `char`; FIX values
    /// where they fit, custom letters otherwise).
    pub enum MassCancelRequestType as "MassCancelRequestType": char (null 0) {
        /// Orders of one symbol (FIX '1' cancel orders for a security).
        Symbol = b'1',
        /// Every order of the account (FIX '7' cancel all orders).
        Account = b'7',
        /// Orders placed through this session (custom).
        Session = b'S',
        /// Orders of one side, optionally of one symbol (custom).
        Side = b'D',
    }
}

sbe_enum! {
    /// Answer to an OrderMassCancelRequest (FIX 531 MassCancelResponse, a `char`): the scope
    /// applied, or rejected.
    pub enum MassCancelResponse as "MassCancelResponse": char (null 0) {
        /// The request was rejected (see MassCancelRejectReason).
        Rejected = b'0',
        /// Orders of one symbol canceled.
        Symbol = b'1',
        /// Every order of the account canceled.
        Account = b'7',
        /// Orders of this session canceled.
        Session = b'S',
        /// Orders of one side canceled.
        Side = b'D',
    }
}

sbe_enum! {
    /// Why an OrderMassCancelRequest was rejected (FIX 532 MassCancelRejectReason).
    pub enum MassCancelRejectReason as "MassCancelRejectReason": uint8 (null 255) {
        /// Mass cancel not supported for this scope.
        NotSupported = 0,
        /// Unknown symbol.
        InvalidSecurity = 1,
        /// Other reason (see Text).
        Other = 99,
        /// The exchange refused (see ExchangeCode and Text).
        ExchangeReject = 100,
        /// Outcome known: nothing was sent to the exchange.
        NotApplied = 101,
    }
}

sbe_enum! {
    /// Scope of an OrderMassStatusRequest (FIX 585 MassStatusReqType).
    pub enum MassStatusReqType as "MassStatusReqType": uint8 (null 255) {
        /// Orders of one symbol (FIX 1 status for orders for a security).
        Symbol = 1,
        /// Every order of the account (FIX 7 status for all orders).
        Account = 7,
        /// Orders placed through this session (custom).
        Session = 100,
    }
}

sbe_enum! {
    /// What a KillSwitchRequest covers.
    pub enum KillSwitchScope as "KillSwitchScope": uint8 (null 255) {
        /// The account the operator session is bound to.
        Account = 1,
        /// Every account of the gateway.
        Gateway = 2,
    }
}

sbe_enum! {
    /// Turn the kill switch on or off.
    pub enum KillSwitchAction as "KillSwitchAction": uint8 (null 255) {
        /// Cancel every open order in scope and refuse new orders until released.
        Activate = 1,
        /// Accept new orders again.
        Release = 2,
    }
}

sbe_enum! {
    /// Position mode of the account (Bitget `holdMode`).
    pub enum HoldMode as "HoldMode": uint8 (null 255) {
        /// `one_way_mode`.
        OneWay = 1,
        /// `hedge_mode`.
        Hedge = 2,
    }
}

sbe_enum! {
    /// Which operator/account request an AccountRequestReport answers.
    pub enum AccountRequestType as "AccountRequestType": uint8 (null 255) {
        /// SetLeverage.
        SetLeverage = 1,
        /// SetHoldMode.
        SetHoldMode = 2,
        /// MaxOpenAvailableRequest.
        MaxOpenAvailable = 3,
        /// AccountSettingsRequest.
        AccountSettings = 4,
    }
}

sbe_enum! {
    /// The move-positions rule a MovePositions request broke (Bitget UTA §7 rules), or the
    /// exchange's refusal.
    pub enum MovePositionsRejectReason as "MovePositionsRejectReason": uint8 (null 255) {
        /// The key is not the master account's.
        NotMasterAccount = 1,
        /// Only USDT and USDC futures can be moved.
        CategoryNotAllowed = 2,
        /// Only cross-margin positions can be moved.
        NotCrossMargin = 3,
        /// Within 5 minutes of a funding hour.
        NearFundingTime = 4,
        /// The source account's maintenance margin ratio is at or above 80 %.
        SourceMmrTooHigh = 5,
        /// Daily request limit reached.
        DailyLimit = 6,
        /// Less than the minimum interval since the previous move.
        TooFrequent = 7,
        /// More than 10 positions in one request.
        TooManyPositions = 8,
        /// FromUID equals ToUID, or a UID is not a sub-account of the master.
        InvalidUid = 9,
        /// No such position, or a quantity above the position's size.
        InsufficientPosition = 10,
        /// Other reason (see Text).
        Other = 99,
        /// The exchange refused (see ExchangeCode and Text).
        ExchangeReject = 100,
        /// Outcome known: nothing was sent to the exchange.
        NotApplied = 101,
    }
}
